/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_reach.c - a TEE's reach over subgroups (issue 16, docs/api.md "tee-admit"):
 * POST /admin-api/groups/:subgroupId/tee-admit {"identity": "<64 hex>"} (protected): an admin
 * of the subgroup admits a TEE already admitted at the namespace root into it (gov's
 * tee_subgroup_admit, through mero_node_subgroup_tee_admit). 400 malformed body or id; 404
 * unknown group; 400 the group is a namespace root; 403 this node is not an admin of the
 * subgroup (a TEE member of it included: gov's MERO_ENOTADMIN, issue 32), or the admission
 * rules refuse; 409 the identity is not an admitted TEE of the namespace.
 *
 * Invariant: the route parses and answers; every decision is the node's (and gov's), and a
 * refused admission publishes nothing.
 */
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/node.h"

static const char *outcome_name(int outcome)
{
    switch (outcome) {
    case MERO_ADMIT_ADMITTED:
        return "admitted";
    case MERO_ADMIT_CONVERTED:
        return "converted";
    default:
        return "already_member";
    }
}

static void tee_admit(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"identity", NULL};
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], id[MERO_IDENTITY_LEN];
    struct mero_err f = {0};
    json_t *idv = json_object_get(body, "identity");
    if (mero__api_check_fields(body, allowed, &f) == 0 && !json_is_string(idv)) {
        (void)mero_err_set(&f, MERO_EINVAL, "identity is required: 64 hex chars (32 bytes)");
    }
    if (f.code != 0 || mero__api_parse_id32(json_string_value(idv), id, "identity", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_err err = {0};
    int outcome = MERO_ADMIT_NOT_A_VOUCHER;
    int rc = mero_node_subgroup_tee_admit(r->node, g, id, &outcome, &err);
    if (rc == -MERO_EREMOVED || rc == -MERO_ENOPOLICY || rc == -MERO_EQUOTEUSED) {
        /* the admission rules' own refusals (deny list, no policy, spent quote): a rule, 403 */
        mero__api_refuse(r, MERO_EREFUSED, "%s", err.msg);
        return;
    }
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    mero__api_reply_data(r, 200,
                         json_pack("{s:o, s:o, s:o, s:s}", "groupId", mero_json_hex(g, sizeof(g)),
                                   "namespaceId", mero_json_hex(ns, sizeof(ns)), "identity",
                                   mero_json_hex(id, sizeof(id)), "outcome",
                                   outcome_name(outcome)));
}

const struct api_route mero__api_routes_reach[] = {
    {API_POST, "/admin-api/groups/:group_id/tee-admit", true, true, tee_admit},
    {0, NULL, false, false, NULL},
};
