/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ref.c - the routes Calimero's JavaScript SDK (mero-js 13.2.0, its declared types are
 * the contract) drives and mero had no equivalent for: health and is-authed (public), the
 * node identity, namespace create/list/get with their local labels (ns_meta.c), groups of a
 * namespace, group info, and the batch member removal; plus the `requester` check shared by
 * every route whose reference request carries one.
 *
 * Invariants: a `requester` other than this node's own identity in the namespace is refused
 * (403) before anything is signed, since this node signs only as itself; batch member changes
 * run inside one store transaction and are published only when every entry passed (a refusal
 * rolls them all back and is named with its index); is-authed never answers 401.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "node/node_internal.h"
#include "node/ns_meta_internal.h"
#include "node/service_internal.h"

static json_t *hexj(const uint8_t *p, size_t n)
{
    char h[129];
    mero_hex_encode(h, p, n);
    return json_string(h);
}

static json_t *b58j(const uint8_t pk[32])
{
    char s[64];
    if (mero_base58_encode(pk, 32, s, sizeof(s)) < 0) {
        return json_string("");
    }
    return json_string(s);
}

int api_parse_key32(const char *s, uint8_t out[32])
{
    struct api_fail f = {0};
    if (s == NULL) {
        return -1;
    }
    if (strlen(s) == 64) {
        return api_parse_id32(s, out, "key", &f) < 0 ? -1 : 0;
    }
    uint8_t buf[40];
    size_t n = sizeof(buf);
    if (strlen(s) > 60 || mero_base58_decode(s, buf, &n) < 0 || n != 32) {
        return -1;
    }
    memcpy(out, buf, 32);
    return 0;
}

int api_take_requester(struct api_req *r, json_t *body, const uint8_t ns[32])
{
    json_t *v = json_object_get(body, "requester");
    if (v == NULL) {
        return 0;
    }
    uint8_t want[32], mine[32];
    if (!json_is_string(v) || api_parse_key32(json_string_value(v), want) < 0) {
        api_reply_error(r, 400, "`requester` must be a 32-byte key: 64 hex chars or base58");
        return -1;
    }
    struct mero_err err = {0};
    if (mero_gov_identity(r->node->store, ns, false, mine, &err) < 0) {
        api_reply_error(r, 403,
                        "requester refused: this node holds no identity in the namespace and "
                        "signs only as itself");
        return -1;
    }
    if (!mero_ct_eq(want, mine, 32)) {
        char h[65];
        mero_hex_encode(h, mine, 32);
        api_reply_error(r, 403,
                        "requester refused: this node signs only as itself (%s) in this "
                        "namespace, not as the requester given",
                        h);
        return -1;
    }
    json_object_del(body, "requester");
    return 0;
}

void api_batch_begin(struct api_batch *b, struct api_req *r)
{
    memset(b, 0, sizeof(*b));
    b->r = r;
    b->began = mero_store_begin(r->node->store) == 0;
    if (!b->began) {
        b->first_rc = -MERO_EIO;
        b->refused = 1;
        snprintf(b->msg, sizeof(b->msg), "cannot open a store transaction");
    }
}

void api_batch_note(struct api_batch *b, size_t i, const uint8_t id[32], int rc,
                    const struct mero_err *err)
{
    if (rc >= 0 || !b->began) {
        return;
    }
    if (b->refused == 0) {
        b->first_rc = rc;
    }
    b->refused++;
    char h[65];
    mero_hex_encode(h, id, 32);
    size_t used = strlen(b->msg);
    if (used < sizeof(b->msg) - 1) {
        snprintf(b->msg + used, sizeof(b->msg) - used, "%smembers[%zu] (%.16s..): %s",
                 used ? "; " : "", i, h,
                 err != NULL && err->msg[0] != 0 ? err->msg : mero_errdesc(-rc));
    }
}

void api_batch_end(struct api_batch *b, const uint8_t ns[32], json_t *data)
{
    struct api_req *r = b->r;
    if (b->refused == 0 && mero_store_commit(r->node->store) < 0) {
        b->first_rc = -MERO_EIO;
        b->refused = 1;
        snprintf(b->msg, sizeof(b->msg), "cannot commit the store transaction");
    }
    if (b->refused > 0) {
        if (b->began) {
            mero_store_rollback(r->node->store);
        }
        mero_gov_oplist_cleanup(&b->ops);
        json_decref(data);
        struct mero_err e = {0};
        int room = (int)sizeof(e.msg) - 64; /* a long list is cut, never overrun */
        snprintf(e.msg, sizeof(e.msg), "%zu refused, nothing was changed: %.*s", b->refused, room,
                 b->msg);
        api_reply_err(r, b->first_rc, &e);
        return;
    }
    (void)mero_node_publish_ops(r->node, ns, &b->ops);
    mero_gov_oplist_cleanup(&b->ops);
    api_reply_data(r, 200, data);
}

static void health(struct api_req *r, json_t *body)
{
    (void)body;
    api_reply_data(r, 200, json_pack("{s:s}", "status", "alive"));
}

static void is_authed(struct api_req *r, json_t *body)
{
    (void)body;
    api_reply_data(r, 200,
                   json_pack("{s:s}", "status", r->authed ? "authenticated" : "unauthenticated"));
}

static void identity(struct api_req *r, json_t *body)
{
    (void)body;
    api_reply_data(r, 200,
                   json_pack("{s:o, s:n, s:o}", "accountId", hexj(r->node->id_pk, 32), "deviceId",
                             "publicKey", b58j(r->node->id_pk)));
}

/* Count of direct rows of group (0 on error). */
static size_t member_count(struct mero_store *s, const uint8_t g[32])
{
    struct mero_gov_member *ms = NULL;
    size_t n = 0;
    if (mero_gov_members(s, g, &ms, &n) < 0) {
        return 0;
    }
    free(ms);
    return n;
}

/* Contexts of ns, all (group NULL) or group's. */
static size_t context_count(struct mero_store *s, const uint8_t ns[32], const uint8_t *group)
{
    struct mero_gov_context *cs = NULL;
    size_t n = 0, c = 0;
    if (mero_gov_contexts(s, ns, &cs, &n) < 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (group == NULL || memcmp(cs[i].group, group, 32) == 0) {
            c++;
        }
    }
    free(cs);
    return c;
}

static void put_labels(json_t *o, const struct mero_ns_meta *m)
{
    json_object_set_new(o, "appKey", json_string(m->app_key));
    json_object_set_new(o, "targetApplicationId", json_string(m->application_id));
    if (m->upgrade_policy[0] != 0) {
        json_object_set_new(o, "upgradePolicy", json_string(m->upgrade_policy));
    }
    if (m->has_name) {
        json_object_set_new(o, "name", json_string(m->name));
    }
}

static json_t *ns_json(struct mero_node *node, const uint8_t ns[32])
{
    struct mero_ns_meta m;
    bool found = false;
    if (mero_ns_meta_get(node->db, ns, &m, &found) < 0) {
        memset(&m, 0, sizeof(m));
    }
    uint8_t(*gs)[32] = NULL;
    size_t ng = 0;
    if (mero_gov_groups(node->store, ns, &gs, &ng) < 0) {
        ng = 0;
    }
    free(gs);
    json_t *o = json_pack("{s:o}", "namespaceId", hexj(ns, 32));
    put_labels(o, &m);
    json_object_set_new(o, "createdAt", json_integer(m.created_at));
    json_object_set_new(o, "memberCount", json_integer((json_int_t)member_count(node->store, ns)));
    json_object_set_new(o, "contextCount",
                        json_integer((json_int_t)context_count(node->store, ns, NULL)));
    json_object_set_new(o, "subgroupCount", json_integer(ng > 0 ? (json_int_t)ng - 1 : 0));
    uint8_t pk[32];
    if (mero_gov_identity(node->store, ns, false, pk, NULL) == 0) {
        json_object_set_new(o, "identity", hexj(pk, 32)); /* ours: our identity in it */
    }
    return o;
}

/* Parse an optional string field (at most 128 chars) into out; -1 after replying 400. */
static int opt_str(struct api_req *r, json_t *body, const char *key, char out[MERO_NS_META_STR_MAX],
                   bool *present)
{
    json_t *v = json_object_get(body, key);
    out[0] = 0;
    if (present != NULL) {
        *present = v != NULL;
    }
    if (v == NULL) {
        return 0;
    }
    const char *s = json_string_value(v);
    size_t n = s ? strlen(s) : 0;
    if (s == NULL || n != json_string_length(v) || n > MERO_NS_META_STR_MAX - 1) {
        api_reply_error(r, 400, "`%s` must be a string of at most %d chars", key,
                        MERO_NS_META_STR_MAX - 1);
        return -1;
    }
    memcpy(out, s, n + 1);
    return 0;
}

/* POST /admin-api/namespaces {applicationId?, upgradePolicy?, appKey?, name?} (reference
 * createNamespace; `{}` is ours and still works). */
static void ns_create(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"applicationId", "upgradePolicy", "appKey", "name", NULL};
    struct api_fail f = {0};
    struct mero_ns_meta m;
    memset(&m, 0, sizeof(m));
    if (api_check_fields(body, allowed, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (opt_str(r, body, "applicationId", m.application_id, NULL) < 0 ||
        opt_str(r, body, "upgradePolicy", m.upgrade_policy, NULL) < 0 ||
        opt_str(r, body, "appKey", m.app_key, NULL) < 0 ||
        opt_str(r, body, "name", m.name, &m.has_name) < 0) {
        return;
    }
    if (m.app_key[0] != 0) {
        uint8_t k[32];
        if (api_parse_id32(m.app_key, k, "appKey", &f) < 0) {
            api_reply_error(r, f.status, "%s", f.msg);
            return;
        }
        mero_hex_encode(m.app_key, k, 32);
    }
    m.created_at = (int64_t)time(NULL);
    uint8_t ns[32], pk[32];
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_create_namespace(r->node->store, ns, &ops, &err);
    if (rc == 0) {
        rc = mero_gov_identity(r->node->store, ns, false, pk, &err);
    }
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    if (mero_ns_meta_put(r->node->db, ns, &m) < 0) {
        MERO_WARN("cannot record the namespace's labels");
    }
    if (mero_node_follow(r->node, ns) < 0) {
        MERO_WARN("cannot subscribe to the namespace topic");
    }
    (void)mero_node_publish_ops(r->node, ns, &ops);
    mero_gov_oplist_cleanup(&ops);
    json_t *o = json_pack("{s:o, s:o}", "namespaceId", hexj(ns, 32), "identity", hexj(pk, 32));
    if (m.application_id[0] != 0) {
        json_object_set_new(o, "applicationId", json_string(m.application_id));
    }
    if (m.upgrade_policy[0] != 0) {
        json_object_set_new(o, "upgradePolicy", json_string(m.upgrade_policy));
    }
    if (m.app_key[0] != 0) {
        json_object_set_new(o, "appKey", json_string(m.app_key));
    }
    if (m.has_name) {
        json_object_set_new(o, "name", json_string(m.name));
    }
    api_reply_data(r, 200, o);
}

static void ns_list(struct api_req *r, json_t *body)
{
    (void)body;
    json_t *a = json_array();
    uint8_t(*nss)[32] = NULL;
    size_t n = 0;
    if (mero_gov_namespaces(r->node->store, &nss, &n) < 0) {
        json_decref(a);
        api_reply_error(r, 500, "cannot list namespaces");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, ns_json(r->node, nss[i]));
    }
    free(nss);
    api_reply_data(r, 200, a);
}

/* :namespace_id must name a namespace root this node knows; replies 400/404 itself. */
static int ns_param(struct api_req *r, uint8_t ns[32])
{
    struct api_fail f = {0};
    uint8_t root[32];
    if (api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return -1;
    }
    if (mero_gov_namespace_of(r->node->store, ns, root) < 0 || memcmp(root, ns, 32) != 0) {
        api_reply_error(r, 404, "namespace not found");
        return -1;
    }
    return 0;
}

static void ns_get(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t ns[32];
    if (ns_param(r, ns) < 0) {
        return;
    }
    api_reply_data(r, 200, ns_json(r->node, ns));
}

/* POST /admin-api/namespaces/:namespace_id/groups {groupId?, name?, visibility?}: an open
 * subgroup of the root (groupId is chosen by governance: a given one is refused). */
static void ns_group_create(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"name", "visibility", "requester", NULL};
    struct api_fail f = {0};
    uint8_t ns[32], g[32];
    struct mero_ns_meta m;
    memset(&m, 0, sizeof(m));
    if (json_object_get(body, "groupId") != NULL) {
        api_reply_error(r, 400, "`groupId` cannot be chosen: governance derives the group id");
        return;
    }
    if (api_check_fields(body, allowed, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (opt_str(r, body, "name", m.name, &m.has_name) < 0 || ns_param(r, ns) < 0 ||
        api_take_requester(r, body, ns) < 0) {
        return;
    }
    int open = 1;
    json_object_del(body, "name"); /* kept in m; the rest is the subgroup body */
    if (api_parse_subgroup(body, &open, &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    m.created_at = (int64_t)time(NULL);
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    int rc = mero_gov_create_subgroup(
        r->node->store, ns, ns, open ? MERO_GROUP_OPEN : MERO_GROUP_RESTRICTED, g, &ops, &err);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&ops);
        api_reply_err(r, rc, &err);
        return;
    }
    if (m.has_name && mero_ns_meta_put(r->node->db, g, &m) < 0) {
        MERO_WARN("cannot record the group's name");
    }
    (void)mero_node_publish_ops(r->node, ns, &ops);
    mero_gov_oplist_cleanup(&ops);
    json_t *o = json_pack("{s:o, s:o, s:s}", "groupId", hexj(g, 32), "parentId", hexj(ns, 32),
                          "visibility", open ? "open" : "restricted");
    if (m.has_name) {
        json_object_set_new(o, "name", json_string(m.name));
    }
    api_reply_data(r, 200, o);
}

static void ns_groups(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t ns[32];
    if (ns_param(r, ns) < 0) {
        return;
    }
    uint8_t(*gs)[32] = NULL;
    size_t n = 0;
    if (mero_gov_groups(r->node->store, ns, &gs, &n) < 0) {
        api_reply_error(r, 500, "cannot list groups");
        return;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        if (memcmp(gs[i], ns, 32) == 0) {
            continue; /* the root is the namespace itself, not one of its groups */
        }
        json_t *o = json_pack("{s:o}", "groupId", hexj(gs[i], 32));
        struct mero_ns_meta m;
        bool found = false;
        if (mero_ns_meta_get(r->node->db, gs[i], &m, &found) == 0 && found && m.has_name) {
            json_object_set_new(o, "name", json_string(m.name));
        }
        uint8_t parent[32];
        int vis = 0;
        if (mero_gov_group_info(r->node->store, gs[i], parent, &vis) == 0) {
            json_object_set_new(o, "parentId", hexj(parent, 32));
        }
        json_array_append_new(a, o);
    }
    free(gs);
    api_reply_data(r, 200, a);
}

static void group_info(struct api_req *r, json_t *body)
{
    (void)body;
    struct api_fail f = {0};
    uint8_t g[32], ns[32], parent[32];
    int vis = 0;
    if (api_parse_id32(r->params[0], g, "group_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (mero_gov_namespace_of(r->node->store, g, ns) < 0 ||
        mero_gov_group_info(r->node->store, g, parent, &vis) < 0) {
        api_reply_error(r, 404, "group not found");
        return;
    }
    struct mero_ns_meta m, gm;
    bool found = false;
    if (mero_ns_meta_get(r->node->db, ns, &m, &found) < 0) {
        memset(&m, 0, sizeof(m));
    }
    json_t *o = json_pack("{s:o}", "groupId", hexj(g, 32));
    if (mero_ns_meta_get(r->node->db, g, &gm, &found) == 0 && found && gm.has_name &&
        memcmp(g, ns, 32) != 0) {
        m.has_name = true;
        memcpy(m.name, gm.name, sizeof(m.name));
    }
    put_labels(o, &m);
    json_object_set_new(o, "memberCount",
                        json_integer((json_int_t)member_count(r->node->store, g)));
    json_object_set_new(o, "contextCount",
                        json_integer((json_int_t)context_count(r->node->store, ns, g)));
    json_object_set_new(o, "defaultCapabilities", json_integer(0));
    json_object_set_new(o, "subgroupVisibility",
                        json_string(vis == MERO_GROUP_RESTRICTED ? "restricted" : "open"));
    json_object_set_new(o, "metadata", json_null());
    json_object_set_new(o, "namespaceId", hexj(ns, 32));
    json_object_set_new(o, "parentId", hexj(parent, 32));
    api_reply_data(r, 200, o);
}

/* POST /admin-api/groups/:group_id/members/remove {members: [identity...], requester?}:
 * all or none (one store transaction; every refusal named by index). */
static void members_remove(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"members", "requester", NULL};
    struct api_fail f = {0};
    uint8_t g[32], ns[32];
    if (api_check_fields(body, allowed, &f) < 0 ||
        api_parse_id32(r->params[0], g, "group_id", &f) < 0) {
        api_reply_error(r, f.status, "%s", f.msg);
        return;
    }
    if (mero_gov_namespace_of(r->node->store, g, ns) < 0) {
        api_reply_error(r, 404, "group not found");
        return;
    }
    if (api_take_requester(r, body, ns) < 0) {
        return;
    }
    json_t *a = json_object_get(body, "members");
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n == 0 || n > API_BATCH_MAX) {
        api_reply_error(r, 400, "`members` must be a list of 1 to %d identities", API_BATCH_MAX);
        return;
    }
    uint8_t(*ids)[32] = calloc(n, 32);
    if (ids == NULL) {
        api_reply_error(r, 500, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (api_parse_key32(json_string_value(json_array_get(a, i)), ids[i]) < 0) {
            free(ids);
            api_reply_error(r, 400, "members[%zu] must be 64 hex chars (32 bytes)", i);
            return;
        }
        for (size_t j = 0; j < i; j++) {
            if (memcmp(ids[i], ids[j], 32) == 0) {
                free(ids);
                api_reply_error(r, 400, "members[%zu] repeats members[%zu]", i, j);
                return;
            }
        }
    }
    struct api_batch b;
    api_batch_begin(&b, r);
    for (size_t i = 0; i < n; i++) {
        struct mero_err err = {0};
        int rc = mero_gov_remove_member(r->node->store, ns, g, ids[i], &b.ops, &err);
        api_batch_note(&b, i, ids[i], rc, &err);
    }
    json_t *done = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(done, hexj(ids[i], 32));
    }
    free(ids);
    api_batch_end(
        &b, ns,
        json_pack("{s:o, s:o, s:b}", "groupId", hexj(g, 32), "members", done, "removed", 1));
}

const struct api_route api_routes_ref[] = {
    {API_GET, "/admin-api/health", false, false, health},
    {API_GET, "/admin-api/is-authed", false, false, is_authed},
    {API_GET, "/admin-api/identity", true, false, identity},
    {API_POST, "/admin-api/namespaces", true, true, ns_create},
    {API_GET, "/admin-api/namespaces", true, false, ns_list},
    {API_GET, "/admin-api/namespaces/:namespace_id", true, false, ns_get},
    {API_POST, "/admin-api/namespaces/:namespace_id/groups", true, true, ns_group_create},
    {API_GET, "/admin-api/namespaces/:namespace_id/groups", true, false, ns_groups},
    {API_GET, "/admin-api/groups/:group_id", true, false, group_info},
    {API_POST, "/admin-api/groups/:group_id/members/remove", true, true, members_remove},
    {0, NULL, false, false, NULL},
};
