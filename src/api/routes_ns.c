/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ns.c - GET /admin-api/node and the namespace, subgroup and member routes (all
 * protected). Each write runs the governance action locally (gov signs with this node's
 * namespace identity and applies it through the same rules as a peer would), then the node
 * publishes the resulting ops on ns/<hex>; a refused action publishes nothing. Identities
 * and ids are lowercase hex in and out (either case accepted on input).
 *
 * A node learns of a namespace it did not create through POST /namespaces/:id/join: it makes
 * (or reuses) its identity for that namespace, subscribes to the topic and pulls the op log
 * from its peers; the admin then adds that identity as a member (docs/api.md). A join clears
 * the namespace's self-purge tombstone first (mero_gov_purged_clear), so a node evicted earlier
 * can be let in again.
 *
 * Shapes follow the reference (mero-js, docs/api.md): POST .../members takes the batch
 * {members: [{identity, role}], requester?}, all or none (api_batch, routes_ref.c; the single
 * {identity, role} form stays as our extension); GET .../members answers {"members": [...]}
 * without the data envelope. Namespace creation lives in routes_ref.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/node_internal.h"
#include "node/service_internal.h"
#include "node/sync_internal.h"

static json_t *hexj(const uint8_t *p, size_t n)
{
    char h[129];
    mero_hex_encode(h, p, n);
    return json_string(h);
}

/* Parse :group_id and find its namespace; replies 400/404 itself on failure. */
static int group_param(struct api_req *r, size_t idx, uint8_t group[32], uint8_t ns[32])
{
    struct api_fail f = {0};
    if (api_parse_id32(r->params[idx], group, "group_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return -1;
    }
    if (mero_gov_namespace_of(r->node->store, group, ns) < 0) {
        api_reply_error(r, 404, "group not found");
        return -1;
    }
    return 0;
}

static void finish_ops(struct api_req *r, const uint8_t ns[32], struct mero_gov_oplist *ops,
                       json_t *data)
{
    (void)mero_node_publish_ops(r->node, ns, ops);
    mero_gov_oplist_cleanup(ops);
    api_reply_data(r, 200, data);
}

static void node_info(struct api_req *r, json_t *body)
{
    (void)body;
    json_t *nsl = json_array();
    uint8_t(*nss)[32] = NULL;
    size_t n = 0;
    if (mero_gov_namespaces(r->node->store, &nss, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            uint8_t pk[32];
            if (mero_gov_identity(r->node->store, nss[i], false, pk, NULL) == 0) {
                json_array_append_new(nsl, json_pack("{s:o, s:o}", "namespaceId", hexj(nss[i], 32),
                                                     "identity", hexj(pk, 32)));
            }
        }
        free(nss);
    }
    api_reply_data(r, 200,
                   json_pack("{s:s, s:o, s:o, s:s, s:o}", "peerId", r->node->peer_id, "listenAddrs",
                             mero_node_listen_addrs(r->node), "identity", hexj(r->node->id_pk, 32),
                             "name", r->node->cfg.name, "namespaces", nsl));
}

static void ns_join(struct api_req *r, json_t *body)
{
    struct api_fail f = {0};
    uint8_t ns[32], pk[32];
    if (api_parse_empty(body, &f) < 0 || api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    struct mero_err err = {0};
    /* joining again after a self-purge: the tombstone goes first, else the pull is dropped */
    int rc = mero_gov_purged_clear(r->node->store, ns);
    if (rc < 0) {
        api_reply_err(r, mero_err_set(&err, -rc, "cannot clear the self-purge tombstone"), &err);
        return;
    }
    rc = mero_gov_identity(r->node->store, ns, true, pk, &err);
    if (rc < 0) {
        api_reply_err(r, rc, &err);
        return;
    }
    if (mero_node_follow(r->node, ns) < 0) {
        MERO_WARN("cannot subscribe to the namespace topic");
    }
    char peers[32][MERO_PEER_ID_STR_MAX];
    size_t n = mero_net_connected_peers(r->node->net, peers, 32);
    for (size_t i = 0; i < n && i < 32; i++) {
        mero_node_sync_pull(r->node, peers[i], ns);
    }
    api_reply_data(r, 200,
                   json_pack("{s:o, s:o}", "namespaceId", hexj(ns, 32), "identity", hexj(pk, 32)));
}

static void subgroup_create(struct api_req *r, json_t *body)
{
    uint8_t parent[32], ns[32], g[32];
    struct api_fail f = {0};
    int open = 1;
    if (api_parse_subgroup(body, &open, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (group_param(r, 0, parent, ns) < 0) {
        return;
    }
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_create_subgroup(
        r->node->store, ns, parent, open ? MERO_GROUP_OPEN : MERO_GROUP_RESTRICTED, g, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    finish_ops(r, ns, &ops,
               json_pack("{s:o, s:o, s:s}", "groupId", hexj(g, 32), "parentId", hexj(parent, 32),
                         "visibility", open ? "open" : "restricted"));
}

static int mero_role_of(enum api_role ar)
{
    return ar == API_ROLE_ADMIN    ? MERO_ROLE_ADMIN
           : ar == API_ROLE_MEMBER ? MERO_ROLE_MEMBER
                                   : MERO_ROLE_READONLY;
}

/* The reference's addGroupMembers: {members: [{identity, role}], requester?}, identities as
 * 64 hex or base58 keys; all or none, every refusal named by index (api_batch). */
static void members_add_batch(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"members", "requester", NULL};
    uint8_t g[32], ns[32];
    struct api_fail f = {0};
    if (api_check_fields(body, allowed, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (group_param(r, 0, g, ns) < 0 || api_take_requester(r, body, ns) < 0) {
        return;
    }
    json_t *a = json_object_get(body, "members");
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n == 0 || n > API_BATCH_MAX) {
        api_reply_error(r, 400, "`members` must be a list of 1 to %d {identity, role} entries",
                        API_BATCH_MAX);
        return;
    }
    struct api_member_req *ms = calloc(n, sizeof(*ms));
    if (ms == NULL) {
        api_reply_error(r, 500, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        json_t *c = json_is_object(e) ? json_copy(e) : NULL;
        uint8_t k[32];
        char h[65];
        json_t *idv = c ? json_object_get(c, "identity") : NULL;
        if (idv != NULL && json_is_string(idv) && api_parse_key32(json_string_value(idv), k) == 0) {
            mero_hex_encode(h, k, 32);
            json_object_set_new(c, "identity", json_string(h));
        }
        int bad = -1;
        if (c == NULL) {
            f.status = 400;
            snprintf(f.msg, sizeof(f.msg), "must be an object {identity, role}");
        } else {
            bad = api_parse_member(c, &ms[i], &f);
        }
        json_decref(c);
        for (size_t j = 0; bad == 0 && j < i; j++) {
            if (memcmp(ms[i].identity, ms[j].identity, 32) == 0) {
                bad = -1;
                f.status = 400;
                snprintf(f.msg, sizeof(f.msg), "repeats members[%zu]", j);
            }
        }
        if (bad < 0) {
            free(ms);
            api_reply_error(r, f.status, "members[%zu]: %s", i, f.msg);
            return;
        }
    }
    struct api_batch b;
    api_batch_begin(&b, r);
    json_t *done = json_array();
    for (size_t i = 0; i < n; i++) {
        struct mero_err err = {0};
        int role = mero_role_of(ms[i].role);
        int rc = mero_gov_add_member(r->node->store, ns, g, ms[i].identity, role, &b.ops, &err);
        api_batch_note(&b, i, ms[i].identity, rc, &err);
        if (rc == 0) {
            struct mero_err kerr = {0};
            if (mero_gov_deliver_key(r->node->store, ns, g, ms[i].identity, &b.ops, &kerr) < 0) {
                mero_err_clear(&kerr);
            }
        }
        json_array_append_new(done, json_pack("{s:o, s:s}", "identity", hexj(ms[i].identity, 32),
                                              "role", mero_role_name(role)));
    }
    free(ms);
    api_batch_end(&b, ns, json_pack("{s:o, s:o}", "groupId", hexj(g, 32), "members", done));
}

static void member_add(struct api_req *r, json_t *body)
{
    uint8_t g[32], ns[32];
    struct api_fail f = {0};
    struct api_member_req m;
    if (json_object_get(body, "members") != NULL) {
        members_add_batch(r, body);
        return;
    }
    if (api_parse_member(body, &m, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int role = m.role == API_ROLE_ADMIN    ? MERO_ROLE_ADMIN
               : m.role == API_ROLE_MEMBER ? MERO_ROLE_MEMBER
                                           : MERO_ROLE_READONLY;
    int rc = mero_gov_add_member(r->node->store, ns, g, m.identity, role, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    /* hand the new member the group key, so it can read and write the group's contexts */
    struct mero_err kerr = {0};
    if (mero_gov_deliver_key(r->node->store, ns, g, m.identity, &ops, &kerr) < 0) {
        mero_err_clear(&kerr);
    }
    finish_ops(r, ns, &ops,
               json_pack("{s:o, s:o, s:s}", "groupId", hexj(g, 32), "identity",
                         hexj(m.identity, 32), "role", mero_role_name(role)));
}

/* update_member_role: move a direct member between Admin, Member and ReadOnly. TEE roles are
 * locked both ways (403 TeeMemberRoleLocked), the namespace's last admin stays (409). */
static void member_role(struct api_req *r, json_t *body)
{
    uint8_t g[32], ns[32], id[32];
    struct api_fail f = {0};
    enum api_role ar;
    if (group_param(r, 0, g, ns) < 0 || api_take_requester(r, body, ns) < 0) {
        return;
    }
    if (api_parse_role(body, &ar, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (api_parse_id32(r->params[1], id, "identity", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    int role = ar == API_ROLE_ADMIN    ? MERO_ROLE_ADMIN
               : ar == API_ROLE_MEMBER ? MERO_ROLE_MEMBER
                                       : MERO_ROLE_READONLY;
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_set_member_role(r->node->store, ns, g, id, role, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    finish_ops(r, ns, &ops,
               json_pack("{s:o, s:o, s:s}", "groupId", hexj(g, 32), "identity", hexj(id, 32),
                         "role", mero_role_name(role)));
}

static void member_remove(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t g[32], ns[32], id[32];
    struct api_fail f = {0};
    if (group_param(r, 0, g, ns) < 0) {
        return;
    }
    if (api_parse_id32(r->params[1], id, "identity", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_remove_member(r->node->store, ns, g, id, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    finish_ops(r, ns, &ops,
               json_pack("{s:o, s:o, s:b}", "groupId", hexj(g, 32), "identity", hexj(id, 32),
                         "removed", 1));
}

static void group_leave(struct api_req *r, json_t *body)
{
    uint8_t g[32], ns[32];
    struct api_fail f = {0};
    if (api_parse_empty(body, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_leave(r->node->store, ns, g, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    finish_ops(r, ns, &ops, json_pack("{s:o, s:b}", "groupId", hexj(g, 32), "left", 1));
}

static void members_list(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t g[32], ns[32];
    if (group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_gov_member *ms = NULL;
    size_t n = 0;
    if (mero_gov_members(r->node->store, g, &ms, &n) < 0) {
        api_reply_error(r, 500, "cannot list members");
        return;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:o, s:s, s:b}", "identity", hexj(ms[i].id, 32), "role",
                              mero_role_name(ms[i].role), "tee", ms[i].tee);
        if (ms[i].tee) {
            json_object_set_new(o, "account", hexj(ms[i].account, 32));
            json_object_set_new(o, "quoteHash", hexj(ms[i].quote_hash, 32));
            json_object_set_new(o, "tcbStatus", json_string(ms[i].tcb_status));
            json_object_set_new(o, "measurements",
                                json_pack("{s:s, s:s, s:s, s:s, s:s}", "mrtd", ms[i].m.mrtd,
                                          "rtmr0", ms[i].m.rtmr[0], "rtmr1", ms[i].m.rtmr[1],
                                          "rtmr2", ms[i].m.rtmr[2], "rtmr3", ms[i].m.rtmr[3]));
        }
        json_array_append_new(a, o);
    }
    free(ms);
    /* the reference's shape: {"members": [...]} at the top level, no data envelope */
    api_reply_raw(r, 200, json_pack("{s:o, s:o}", "groupId", hexj(g, 32), "members", a));
}

const struct api_route api_routes_ns[] = {
    {API_GET, "/admin-api/node", true, false, node_info},
    {API_POST, "/admin-api/namespaces/:namespace_id/join", true, true, ns_join},
    {API_POST, "/admin-api/groups/:group_id/subgroups", true, true, subgroup_create},
    {API_POST, "/admin-api/groups/:group_id/members", true, true, member_add},
    {API_GET, "/admin-api/groups/:group_id/members", true, false, members_list},
    {API_DELETE, "/admin-api/groups/:group_id/members/:identity", true, false, member_remove},
    {API_PUT, "/admin-api/groups/:group_id/members/:identity/role", true, true, member_role},
    {API_POST, "/admin-api/groups/:group_id/leave", true, true, group_leave},
    {0, NULL, false, false, NULL},
};
