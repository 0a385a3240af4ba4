/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_policy.c - PUT and GET /admin-api/groups/:group_id/settings/tee-admission-policy
 * (reference-calimero.md §4.5; spec "The admission policy"). Both protected. The body is
 * validated completely by mero__api_parse_policy before the node acts; policy_json.c turns it into
 * the domain's struct mero_tee_policy, which the node publishes (mero_node_policy_set; a
 * subgroup target is refused there).
 */
#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/node.h"

static void policy_put(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    uint8_t group[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    json_t *canon = NULL;
    if (mero__api_parse_id32(r->params[0], group, "group_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (json_object_get(body, "requester") != NULL) {
        if (mero_node_namespace_of(r->node, group, ns) < 0) {
            mero__api_refuse(r, MERO_ENOTFOUND, "group not found");
            return;
        }
        if (mero__api_take_requester(r, body, ns) < 0) {
            return;
        }
    }
    if (mero__api_parse_policy(body, &canon, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_err err = {0};
    struct mero_tee_policy p;
    int rc = mero__api_policy_from_json(canon, &p);
    if (rc < 0) {
        (void)mero_err_set(&err, -rc, "out of memory");
    } else {
        rc = mero_node_policy_set(r->node, group, &p, &err);
    }
    mero_tee_policy_cleanup(&p);
    if (rc < 0) {
        json_decref(canon);
        mero__api_reply_err(r, rc, &err);
        return;
    }
    mero__api_reply_data(r, 200, canon);
}

static void policy_get(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err f = {0};
    uint8_t group[MERO_GROUP_ID_LEN];
    if (mero__api_parse_id32(r->params[0], group, "group_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_tee_policy p;
    bool found = false;
    struct mero_err err = {0};
    int rc = mero_node_policy_get(r->node, group, &p, &found, &err);
    if (rc < 0) {
        mero_tee_policy_cleanup(&p);
        mero__api_reply_err(r, rc, &err);
        return;
    }
    json_t *out = mero__api_policy_json(&p, found);
    mero_tee_policy_cleanup(&p);
    if (out == NULL) {
        (void)mero_err_set(&err, MERO_ENOMEM, "out of memory");
        mero__api_reply_err(r, -MERO_ENOMEM, &err);
        return;
    }
    mero__api_reply_data(r, 200, out);
}

const struct api_route mero__api_routes_policy[] = {
    {API_PUT, "/admin-api/groups/:group_id/settings/tee-admission-policy", true, true, policy_put},
    {API_GET, "/admin-api/groups/:group_id/settings/tee-admission-policy", true, false, policy_get},
    {0, NULL, false, false, NULL},
};
