/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_policy.c - PUT and GET /admin-api/groups/:group_id/settings/tee-admission-policy
 * (reference-calimero.md §4.5; spec "The admission policy"). Both protected. The body is
 * validated completely by api_parse_policy before the node acts; the node layer publishes it
 * (policy.c) and refuses a subgroup target.
 */
#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/gov.h"
#include "node/node_internal.h"
#include "node/policy_internal.h"

static void policy_put(struct api_req *r, json_t *body)
{
    struct api_fail f = {0};
    uint8_t group[32], ns[32];
    json_t *canon = NULL;
    if (api_parse_id32(r->params[0], group, "group_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (json_object_get(body, "requester") != NULL) {
        if (mero_gov_namespace_of(r->node->store, group, ns) < 0) {
            api_reply_error(r, 404, "group not found");
            return;
        }
        if (api_take_requester(r, body, ns) < 0) {
            return;
        }
    }
    if (api_parse_policy(body, &canon, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_policy_set(r->node, group, canon, &err);
    if (rc < 0) {
        json_decref(canon);
        api_reply_err(r, rc, &err);
        return;
    }
    api_reply_data(r, 200, canon);
}

static void policy_get(struct api_req *r, json_t *body)
{
    (void)body;
    struct api_fail f = {0};
    uint8_t group[32];
    if (api_parse_id32(r->params[0], group, "group_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    json_t *out = NULL;
    struct mero_err err = {0};
    int rc = mero_node_policy_get(r->node, group, &out, &err);
    if (rc < 0) {
        api_reply_err(r, rc, &err);
        return;
    }
    api_reply_data(r, 200, out);
}

const struct api_route api_routes_policy[] = {
    {API_PUT, "/admin-api/groups/:group_id/settings/tee-admission-policy", true, true, policy_put},
    {API_GET, "/admin-api/groups/:group_id/settings/tee-admission-policy", true, false, policy_get},
    {0, NULL, false, false, NULL},
};
