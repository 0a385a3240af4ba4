/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ref.c - the routes Calimero's JavaScript SDK (mero-js 13.2.0, its declared types are
 * the contract) drives and mero had no equivalent for: health and is-authed (public), the
 * node identity, namespace create/list/get with their local labels (ns_meta.c), groups of a
 * namespace, group info, and the batch member removal; plus the `requester` check shared by
 * every route whose reference request carries one, and the `:group_id` parameter (parsed, its
 * namespace found) shared by the group routes.
 *
 * Invariants: a `requester` other than this node's own identity in the namespace is refused
 * (403) before anything is signed, since this node signs only as itself; batch member changes
 * are all or none (the node runs them in one store transaction and publishes only when every
 * entry passed; a refusal is named here with its index); is-authed never answers 401. Every
 * route reaches the node through one use-case function of mero/node.h.
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
#include "mero/node.h"

#define B58_KEY_MAX       64 /* base58 text of a 32-byte key, NUL included */
#define BATCH_PREFIX_ROOM 64 /* "N refused, nothing was changed: " in a batch's reply */

static json_t *b58j(const uint8_t pk[MERO_IDENTITY_LEN])
{
    char s[B58_KEY_MAX];
    if (mero_base58_encode(pk, MERO_IDENTITY_LEN, s, sizeof(s)) < 0) {
        return json_string("");
    }
    return json_string(s);
}

int mero__api_parse_key32(const char *s, uint8_t out[MERO_IDENTITY_LEN])
{
    struct mero_err f = {0};
    if (s == NULL) {
        return -MERO_EINVAL;
    }
    if (strlen(s) == MERO_HEX_LEN(MERO_IDENTITY_LEN)) {
        return mero__api_parse_id32(s, out, "key", &f) < 0 ? -MERO_EINVAL : 0;
    }
    uint8_t buf[MERO_IDENTITY_LEN + 8]; /* room to see a longer decoding and refuse it */
    size_t n = sizeof(buf);
    if (strlen(s) > B58_KEY_MAX - 4 || mero_base58_decode(s, buf, &n) < 0 ||
        n != MERO_IDENTITY_LEN) {
        return -MERO_EINVAL;
    }
    memcpy(out, buf, MERO_IDENTITY_LEN);
    return 0;
}

int mero__api_group_param(struct api_req *r, size_t idx, uint8_t group[MERO_GROUP_ID_LEN],
                          uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_err f = {0};
    if (mero__api_parse_id32(r->params[idx], group, "group_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return -MERO_EINVAL;
    }
    if (mero_node_namespace_of(r->node, group, ns) < 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "group not found");
        return -MERO_ENOTFOUND;
    }
    return 0;
}

int mero__api_take_requester(struct api_req *r, json_t *body, const uint8_t ns[MERO_NS_ID_LEN])
{
    json_t *v = json_object_get(body, "requester");
    if (v == NULL) {
        return 0;
    }
    uint8_t want[MERO_IDENTITY_LEN], mine[MERO_IDENTITY_LEN];
    if (!json_is_string(v) || mero__api_parse_key32(json_string_value(v), want) < 0) {
        mero__api_refuse(r, MERO_EINVAL,
                         "`requester` must be a 32-byte key: 64 hex chars or base58");
        return -MERO_EINVAL;
    }
    if (mero_node_ns_identity(r->node, ns, mine) < 0) {
        mero__api_refuse(r, MERO_EREFUSED,
                         "requester refused: this node holds no identity in the namespace and "
                         "signs only as itself");
        return -MERO_EPERM;
    }
    if (!mero_ct_eq(want, mine, sizeof(mine))) {
        char h[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
        mero_hex_encode(h, mine, sizeof(mine));
        mero__api_refuse(r, MERO_EREFUSED,
                         "requester refused: this node signs only as itself (%s) in this "
                         "namespace, not as the requester given",
                         h);
        return -MERO_EPERM;
    }
    json_object_del(body, "requester");
    return 0;
}

void mero__api_batch_reply(struct api_req *r, int rc, const struct mero_node_batch_entry *e,
                           size_t n, const struct mero_err *err, json_t *data)
{
    if (rc == 0) {
        mero__api_reply_data(r, 200, data);
        return;
    }
    json_decref(data);
    char msg[400] = "";
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].rc >= 0) {
            continue;
        }
        refused++;
        char h[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
        mero_hex_encode(h, e[i].id, sizeof(e[i].id));
        size_t used = strlen(msg);
        if (used < sizeof(msg) - 1) {
            snprintf(msg + used, sizeof(msg) - used, "%smembers[%zu] (%.16s..): %s",
                     used ? "; " : "", i, h,
                     e[i].err.msg[0] != 0 ? e[i].err.msg : mero_errdesc(-e[i].rc));
        }
    }
    if (refused == 0) { /* the transaction itself: it could not be opened or committed */
        refused = 1;
        snprintf(msg, sizeof(msg), "%s", err != NULL ? err->msg : mero_errdesc(-rc));
    }
    struct mero_err out = {0};
    int room = (int)sizeof(out.msg) - BATCH_PREFIX_ROOM; /* a long list is cut, never overrun */
    snprintf(out.msg, sizeof(out.msg), "%zu refused, nothing was changed: %.*s", refused, room,
             msg);
    mero__api_reply_err(r, rc, &out);
}

static void health(struct api_req *r, json_t *body)
{
    (void)body;
    mero__api_reply_data(r, 200, json_pack("{s:s}", "status", "alive"));
}

static void is_authed(struct api_req *r, json_t *body)
{
    (void)body;
    mero__api_reply_data(
        r, 200, json_pack("{s:s}", "status", r->authed ? "authenticated" : "unauthenticated"));
}

static void identity(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t pk[MERO_IDENTITY_LEN];
    mero_node_identity(r->node, pk);
    mero__api_reply_data(r, 200,
                         json_pack("{s:o, s:n, s:o}", "accountId", mero_json_hex(pk, sizeof(pk)),
                                   "deviceId", "publicKey", b58j(pk)));
}

static void put_labels(json_t *o, const struct mero_node_labels *m)
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

static json_t *ns_json(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_node_ns_summary sum;
    mero_node_ns_summary(node, ns, &sum);
    json_t *o = json_pack("{s:o}", "namespaceId", mero_json_hex(ns, MERO_NS_ID_LEN));
    put_labels(o, &sum.labels);
    json_object_set_new(o, "createdAt", json_integer(sum.labels.created_at));
    json_object_set_new(o, "memberCount", json_integer((json_int_t)sum.members));
    json_object_set_new(o, "contextCount", json_integer((json_int_t)sum.contexts));
    json_object_set_new(o, "subgroupCount", json_integer((json_int_t)sum.subgroups));
    if (sum.has_identity) {
        json_object_set_new(o, "identity", mero_json_hex(sum.identity, sizeof(sum.identity)));
    }
    return o;
}

/* Parse an optional string field (at most 128 chars) into out; -MERO_EINVAL after replying 400. */
static int opt_str(struct api_req *r, json_t *body, const char *key, char out[MERO_NODE_LABEL_MAX],
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
    if (s == NULL || n != json_string_length(v) || n > MERO_NODE_LABEL_MAX - 1) {
        mero__api_refuse(r, MERO_EINVAL, "`%s` must be a string of at most %d chars", key,
                         MERO_NODE_LABEL_MAX - 1);
        return -MERO_EINVAL;
    }
    memcpy(out, s, n + 1);
    return 0;
}

/* POST /admin-api/namespaces {applicationId?, upgradePolicy?, appKey?, name?} (reference
 * createNamespace; `{}` is ours and still works). */
static void ns_create(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"applicationId", "upgradePolicy", "appKey", "name", NULL};
    struct mero_err f = {0};
    struct mero_node_labels m;
    memset(&m, 0, sizeof(m));
    if (mero__api_check_fields(body, allowed, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (opt_str(r, body, "applicationId", m.application_id, NULL) < 0 ||
        opt_str(r, body, "upgradePolicy", m.upgrade_policy, NULL) < 0 ||
        opt_str(r, body, "appKey", m.app_key, NULL) < 0 ||
        opt_str(r, body, "name", m.name, &m.has_name) < 0) {
        return;
    }
    if (m.app_key[0] != 0) {
        uint8_t k[MERO_APP_ID_LEN];
        if (mero__api_parse_id32(m.app_key, k, "appKey", &f) < 0) {
            mero__api_reply_err(r, -f.code, &f);
            return;
        }
        mero_hex_encode(m.app_key, k, sizeof(k));
    }
    m.created_at = (int64_t)time(NULL);
    uint8_t ns[MERO_NS_ID_LEN], pk[MERO_IDENTITY_LEN];
    struct mero_err err = {0};
    int rc = mero_node_ns_create(r->node, &m, ns, pk, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    json_t *o = json_pack("{s:o, s:o}", "namespaceId", mero_json_hex(ns, sizeof(ns)), "identity",
                          mero_json_hex(pk, sizeof(pk)));
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
    mero__api_reply_data(r, 200, o);
}

static void ns_list(struct api_req *r, json_t *body)
{
    (void)body;
    json_t *a = json_array();
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    if (mero_node_namespaces(r->node, &nss, &n) < 0) {
        json_decref(a);
        mero__api_refuse(r, MERO_EINTERNAL, "cannot list namespaces");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, ns_json(r->node, nss[i]));
    }
    free(nss);
    mero__api_reply_data(r, 200, a);
}

/* :namespace_id must name a namespace root this node knows; replies 400/404 itself. */
static int ns_param(struct api_req *r, uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_err f = {0};
    uint8_t root[MERO_NS_ID_LEN];
    if (mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return -MERO_EINVAL;
    }
    if (mero_node_namespace_of(r->node, ns, root) < 0 || memcmp(root, ns, sizeof(root)) != 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "namespace not found");
        return -MERO_ENOTFOUND;
    }
    return 0;
}

static void ns_get(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t ns[MERO_NS_ID_LEN];
    if (ns_param(r, ns) < 0) {
        return;
    }
    mero__api_reply_data(r, 200, ns_json(r->node, ns));
}

/* POST /admin-api/namespaces/:namespace_id/groups {groupId?, name?, visibility?}: an open
 * subgroup of the root (groupId is chosen by governance: a given one is refused). */
static void ns_group_create(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"name", "visibility", "requester", NULL};
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN], g[MERO_GROUP_ID_LEN];
    struct mero_node_labels m;
    memset(&m, 0, sizeof(m));
    if (json_object_get(body, "groupId") != NULL) {
        mero__api_refuse(r, MERO_EINVAL,
                         "`groupId` cannot be chosen: governance derives the group id");
        return;
    }
    if (mero__api_check_fields(body, allowed, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (opt_str(r, body, "name", m.name, &m.has_name) < 0 || ns_param(r, ns) < 0 ||
        mero__api_take_requester(r, body, ns) < 0) {
        return;
    }
    int open = 1;
    json_object_del(body, "name"); /* kept in m; the rest is the subgroup body */
    if (mero__api_parse_subgroup(body, &open, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_err err = {0};
    int rc =
        mero_node_subgroup_create(r->node, ns, ns, open ? MERO_GROUP_OPEN : MERO_GROUP_RESTRICTED,
                                  m.has_name ? m.name : NULL, g, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    json_t *o =
        json_pack("{s:o, s:o, s:s}", "groupId", mero_json_hex(g, sizeof(g)), "parentId",
                  mero_json_hex(ns, sizeof(ns)), "visibility", open ? "open" : "restricted");
    if (m.has_name) {
        json_object_set_new(o, "name", json_string(m.name));
    }
    mero__api_reply_data(r, 200, o);
}

static void ns_groups(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t ns[MERO_NS_ID_LEN];
    if (ns_param(r, ns) < 0) {
        return;
    }
    struct mero_node_group_entry *gs = NULL;
    size_t n = 0;
    if (mero_node_ns_groups(r->node, ns, &gs, &n) < 0) {
        mero__api_refuse(r, MERO_EINTERNAL, "cannot list groups");
        return;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:o}", "groupId", mero_json_hex(gs[i].id, sizeof(gs[i].id)));
        if (gs[i].has_name) {
            json_object_set_new(o, "name", json_string(gs[i].name));
        }
        if (gs[i].has_parent) {
            json_object_set_new(o, "parentId", mero_json_hex(gs[i].parent, sizeof(gs[i].parent)));
        }
        json_array_append_new(a, o);
    }
    free(gs);
    mero__api_reply_data(r, 200, a);
}

static void group_info(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err f = {0};
    uint8_t g[MERO_GROUP_ID_LEN];
    if (mero__api_parse_id32(r->params[0], g, "group_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_node_group_summary sum;
    if (mero_node_group_summary(r->node, g, &sum) < 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "group not found");
        return;
    }
    json_t *o = json_pack("{s:o}", "groupId", mero_json_hex(g, sizeof(g)));
    put_labels(o, &sum.labels);
    json_object_set_new(o, "memberCount", json_integer((json_int_t)sum.members));
    json_object_set_new(o, "contextCount", json_integer((json_int_t)sum.contexts));
    json_object_set_new(o, "defaultCapabilities", json_integer(0));
    json_object_set_new(
        o, "subgroupVisibility",
        json_string(sum.visibility == MERO_GROUP_RESTRICTED ? "restricted" : "open"));
    json_object_set_new(o, "metadata", json_null());
    json_object_set_new(o, "namespaceId", mero_json_hex(sum.ns, sizeof(sum.ns)));
    json_object_set_new(o, "parentId", mero_json_hex(sum.parent, sizeof(sum.parent)));
    mero__api_reply_data(r, 200, o);
}

/* POST /admin-api/groups/:group_id/members/remove {members: [identity...], requester?}:
 * all or none (one store transaction; every refusal named by index). */
static void members_remove(struct api_req *r, json_t *body)
{
    static const char *const allowed[] = {"members", "requester", NULL};
    struct mero_err f = {0};
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    if (mero__api_check_fields(body, allowed, &f) < 0 ||
        mero__api_parse_id32(r->params[0], g, "group_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero_node_namespace_of(r->node, g, ns) < 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "group not found");
        return;
    }
    if (mero__api_take_requester(r, body, ns) < 0) {
        return;
    }
    json_t *a = json_object_get(body, "members");
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n == 0 || n > API_BATCH_MAX) {
        mero__api_refuse(r, MERO_EINVAL, "`members` must be a list of 1 to %d identities",
                         API_BATCH_MAX);
        return;
    }
    struct mero_node_batch_entry *es = calloc(n, sizeof(*es));
    if (es == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (mero__api_parse_key32(json_string_value(json_array_get(a, i)), es[i].id) < 0) {
            free(es);
            mero__api_refuse(r, MERO_EINVAL, "members[%zu] must be 64 hex chars (32 bytes)", i);
            return;
        }
        for (size_t j = 0; j < i; j++) {
            if (memcmp(es[i].id, es[j].id, sizeof(es[i].id)) == 0) {
                free(es);
                mero__api_refuse(r, MERO_EINVAL, "members[%zu] repeats members[%zu]", i, j);
                return;
            }
        }
    }
    struct mero_err err = {0};
    int rc = mero_node_members_remove(r->node, ns, g, es, n, &err);
    json_t *done = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(done, mero_json_hex(es[i].id, sizeof(es[i].id)));
    }
    mero__api_batch_reply(r, rc, es, n, &err,
                          json_pack("{s:o, s:o, s:b}", "groupId", mero_json_hex(g, sizeof(g)),
                                    "members", done, "removed", 1));
    free(es);
}

const struct api_route mero__api_routes_ref[] = {
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
