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
 * {members: [{identity, role}], requester?}, all or none (mero__api_batch_reply, routes_ref.c; the
 * single {identity, role} form stays as our extension); GET .../members answers {"members": [...]}
 * without the data envelope. Namespace creation lives in routes_ref.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/node.h"

#define NODE_INFO_MAX_ADDRS 16 /* listen addresses GET /node reports */

static json_t *idj(const uint8_t id[MERO_GROUP_ID_LEN])
{
    return mero_json_hex(id, MERO_GROUP_ID_LEN);
}

/* Answer a write use case: data on success (else freed), its refusal otherwise. */
static void finish(struct api_req *r, int rc, const struct mero_err *err, json_t *data)
{
    if (rc < 0) {
        json_decref(data);
        mero__api_reply_err(r, rc, err);
        return;
    }
    mero__api_reply_data(r, 200, data);
}

static void node_info(struct api_req *r, json_t *body)
{
    (void)body;
    json_t *nsl = json_array();
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    if (mero_node_namespaces(r->node, &nss, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            uint8_t pk[MERO_IDENTITY_LEN];
            if (mero_node_ns_identity(r->node, nss[i], pk) == 0) {
                json_array_append_new(
                    nsl, json_pack("{s:o, s:o}", "namespaceId", idj(nss[i]), "identity", idj(pk)));
            }
        }
        free(nss);
    }
    char addrs[NODE_INFO_MAX_ADDRS][MERO_NODE_ADDR_MAX];
    size_t na = mero_node_listen_addrs_copy(r->node, addrs, NODE_INFO_MAX_ADDRS);
    json_t *al = json_array();
    for (size_t i = 0; i < na; i++) {
        json_array_append_new(al, json_string(addrs[i]));
    }
    uint8_t me[MERO_IDENTITY_LEN];
    mero_node_identity(r->node, me);
    mero__api_reply_data(r, 200,
                         json_pack("{s:s, s:o, s:o, s:s, s:o}", "peerId",
                                   mero_node_peer_id(r->node), "listenAddrs", al, "identity",
                                   idj(me), "name", mero_node_name(r->node), "namespaces", nsl));
}

static void ns_join(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN], pk[MERO_IDENTITY_LEN];
    if (mero__api_parse_empty(body, &f) < 0 ||
        mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_ns_join(r->node, ns, pk, &err);
    finish(r, rc, &err,
           rc < 0 ? NULL : json_pack("{s:o, s:o}", "namespaceId", idj(ns), "identity", idj(pk)));
}

static void subgroup_create(struct api_req *r, json_t *body)
{
    uint8_t parent[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], g[MERO_GROUP_ID_LEN];
    struct mero_err f = {0};
    int open = 1;
    if (mero__api_parse_subgroup(body, &open, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, parent, ns) < 0) {
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_subgroup_create(
        r->node, ns, parent, open ? MERO_GROUP_OPEN : MERO_GROUP_RESTRICTED, NULL, g, &err);
    finish(r, rc, &err,
           rc < 0 ? NULL
                  : json_pack("{s:o, s:o, s:s}", "groupId", idj(g), "parentId", idj(parent),
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
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    struct mero_err f = {0};
    if (mero__api_check_fields(body, allowed, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, g, ns) < 0 || mero__api_take_requester(r, body, ns) < 0) {
        return;
    }
    json_t *a = json_object_get(body, "members");
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n == 0 || n > API_BATCH_MAX) {
        mero__api_refuse(r, MERO_EINVAL,
                         "`members` must be a list of 1 to %d {identity, role} entries",
                         API_BATCH_MAX);
        return;
    }
    struct api_member_req *ms = calloc(n, sizeof(*ms));
    struct mero_node_batch_entry *es = calloc(n, sizeof(*es));
    if (ms == NULL || es == NULL) {
        free(ms);
        free(es);
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        json_t *c = json_is_object(e) ? json_copy(e) : NULL;
        uint8_t k[MERO_IDENTITY_LEN];
        json_t *idv = c ? json_object_get(c, "identity") : NULL;
        if (idv != NULL && json_is_string(idv) &&
            mero__api_parse_key32(json_string_value(idv), k) == 0) {
            json_object_set_new(c, "identity", mero_json_hex(k, sizeof(k)));
        }
        int bad = -1;
        if (c == NULL) {
            (void)mero_err_set(&f, MERO_EINVAL, "must be an object {identity, role}");
        } else {
            bad = mero__api_parse_member(c, &ms[i], &f);
        }
        json_decref(c);
        for (size_t j = 0; bad == 0 && j < i; j++) {
            if (memcmp(ms[i].identity, ms[j].identity, sizeof(ms[i].identity)) == 0) {
                bad = -1;
                (void)mero_err_set(&f, MERO_EINVAL, "repeats members[%zu]", j);
            }
        }
        if (bad < 0) {
            free(ms);
            free(es);
            mero__api_refuse(r, f.code > 0 ? f.code : MERO_EINVAL, "members[%zu]: %s", i, f.msg);
            return;
        }
        memcpy(es[i].id, ms[i].identity, sizeof(es[i].id));
        es[i].role = mero_role_of(ms[i].role);
    }
    free(ms);
    struct mero_err err = {0};
    int rc = mero_node_members_add(r->node, ns, g, es, n, &err);
    json_t *done = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(done, json_pack("{s:o, s:s}", "identity", idj(es[i].id), "role",
                                              mero_role_name(es[i].role)));
    }
    mero__api_batch_reply(r, rc, es, n, &err,
                          json_pack("{s:o, s:o}", "groupId", idj(g), "members", done));
    free(es);
}

static void member_add(struct api_req *r, json_t *body)
{
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    struct mero_err f = {0};
    struct api_member_req m;
    if (json_object_get(body, "members") != NULL) {
        members_add_batch(r, body);
        return;
    }
    if (mero__api_parse_member(body, &m, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_err err = {0};
    int role = mero_role_of(m.role);
    int rc = mero_node_member_add(r->node, ns, g, m.identity, role, &err);
    finish(r, rc, &err,
           rc < 0 ? NULL
                  : json_pack("{s:o, s:o, s:s}", "groupId", idj(g), "identity", idj(m.identity),
                              "role", mero_role_name(role)));
}

/* update_member_role: move a direct member between Admin, Member and ReadOnly. TEE roles are
 * locked both ways (403 TeeMemberRoleLocked), the namespace's last admin stays (409). */
static void member_role(struct api_req *r, json_t *body)
{
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], id[MERO_IDENTITY_LEN];
    struct mero_err f = {0};
    enum api_role ar;
    if (mero__api_group_param(r, 0, g, ns) < 0 || mero__api_take_requester(r, body, ns) < 0) {
        return;
    }
    if (mero__api_parse_role(body, &ar, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_parse_id32(r->params[1], id, "identity", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    int role = mero_role_of(ar);
    struct mero_err err = {0};
    int rc = mero_node_member_set_role(r->node, ns, g, id, role, &err);
    finish(r, rc, &err,
           rc < 0 ? NULL
                  : json_pack("{s:o, s:o, s:s}", "groupId", idj(g), "identity", idj(id), "role",
                              mero_role_name(role)));
}

static void member_remove(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], id[MERO_IDENTITY_LEN];
    struct mero_err f = {0};
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    if (mero__api_parse_id32(r->params[1], id, "identity", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_member_remove(r->node, ns, g, id, &err);
    finish(r, rc, &err,
           rc < 0 ? NULL
                  : json_pack("{s:o, s:o, s:b}", "groupId", idj(g), "identity", idj(id), "removed",
                              1));
}

static void group_leave(struct api_req *r, json_t *body)
{
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    struct mero_err f = {0};
    if (mero__api_parse_empty(body, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_group_leave(r->node, ns, g, &err);
    finish(r, rc, &err, rc < 0 ? NULL : json_pack("{s:o, s:b}", "groupId", idj(g), "left", 1));
}

static void members_list(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_gov_member *ms = NULL;
    size_t n = 0;
    if (mero_node_members(r->node, g, &ms, &n) < 0) {
        mero__api_refuse(r, MERO_EINTERNAL, "cannot list members");
        return;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:o, s:s, s:b}", "identity", idj(ms[i].id), "role",
                              mero_role_name(ms[i].role), "tee", ms[i].tee);
        if (ms[i].tee) {
            json_object_set_new(o, "account", idj(ms[i].account));
            json_object_set_new(o, "quoteHash",
                                mero_json_hex(ms[i].quote_hash, sizeof(ms[i].quote_hash)));
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
    mero__api_reply_raw(r, 200, json_pack("{s:o, s:o}", "groupId", idj(g), "members", a));
}

const struct api_route mero__api_routes_ns[] = {
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
