/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usecase.c - the node's use cases behind the admin API (mero/node.h): namespaces, groups,
 * members and contexts. Each write runs the governance action locally (gov signs with this
 * node's namespace identity and applies it through the same rules as a peer would), then
 * publishes the resulting ops on ns/<hex>; a refused action publishes nothing. Local labels
 * (ns_meta.c) are recorded beside, never replicated.
 *
 * Invariants: domain values in and out (ids as bytes, mero_err codes with their reason); a
 * batch of member changes is one store transaction, committed and published only when every
 * entry passed, else rolled back whole.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "mero/node.h"
#include "node/node_internal.h"
#include "node/ns_meta_internal.h"
#include "node/service_internal.h"
#include "node/sync_internal.h"

#define JOIN_PULL_PEERS 32 /* connected peers a namespace join pulls the op log from */

static void labels_from_meta(struct mero_node_labels *l, const struct mero_ns_meta *m)
{
    _Static_assert(sizeof(l->name) == sizeof(m->name), "labels and ns_meta share their widths");
    memcpy(l->application_id, m->application_id, sizeof(l->application_id));
    memcpy(l->upgrade_policy, m->upgrade_policy, sizeof(l->upgrade_policy));
    memcpy(l->app_key, m->app_key, sizeof(l->app_key));
    memcpy(l->name, m->name, sizeof(l->name));
    l->has_name = m->has_name;
    l->created_at = m->created_at;
}

static void meta_from_labels(struct mero_ns_meta *m, const struct mero_node_labels *l)
{
    memcpy(m->application_id, l->application_id, sizeof(m->application_id));
    memcpy(m->upgrade_policy, l->upgrade_policy, sizeof(m->upgrade_policy));
    memcpy(m->app_key, l->app_key, sizeof(m->app_key));
    memcpy(m->name, l->name, sizeof(m->name));
    m->has_name = l->has_name;
    m->created_at = l->created_at;
}

/* Publish a local action's ops (or drop them when it was refused); returns rc. */
static int publish(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                   struct mero_gov_oplist *ops, int rc)
{
    if (rc == 0) {
        (void)mero__node_publish_ops(node, ns, ops);
    }
    mero_gov_oplist_cleanup(ops);
    return rc;
}

int mero_node_namespace_of(struct mero_node *node, const uint8_t id[MERO_GROUP_ID_LEN],
                           uint8_t ns[MERO_NS_ID_LEN])
{
    return mero_gov_namespace_of(node->store, id, ns) < 0 ? -MERO_ENOTFOUND : 0;
}

int mero_node_ns_identity(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          uint8_t pk[MERO_IDENTITY_LEN])
{
    return mero_gov_identity(node->store, ns, false, pk, NULL) < 0 ? -MERO_ENOTFOUND : 0;
}

int mero_node_namespaces(struct mero_node *node, uint8_t (**out)[MERO_NS_ID_LEN], size_t *n)
{
    return mero_gov_namespaces(node->store, out, n);
}

int mero_node_ns_create(struct mero_node *node, const struct mero_node_labels *labels,
                        uint8_t ns[MERO_NS_ID_LEN], uint8_t pk[MERO_IDENTITY_LEN],
                        struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    int rc;
    MERO_TRY_OUT(mero_gov_create_namespace(node->store, ns, &ops, err));
    MERO_TRY_OUT(mero_gov_identity(node->store, ns, false, pk, err));
    struct mero_ns_meta m;
    meta_from_labels(&m, labels);
    if (mero__ns_meta_put(node->db, ns, &m) < 0) {
        MERO_WARN("cannot record the namespace's labels");
    }
    if (mero__node_follow(node, ns) < 0) {
        MERO_WARN("cannot subscribe to the namespace topic");
    }
out:
    return publish(node, ns, &ops, rc);
}

int mero_node_ns_join(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                      uint8_t pk[MERO_IDENTITY_LEN], struct mero_err *err)
{
    /* joining again after a self-purge: the tombstone goes first, else the pull is dropped */
    int rc = mero_gov_purged_clear(node->store, ns);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot clear the self-purge tombstone");
    }
    MERO_TRY(mero_gov_identity(node->store, ns, true, pk, err));
    if (mero__node_follow(node, ns) < 0) {
        MERO_WARN("cannot subscribe to the namespace topic");
    }
    char peers[JOIN_PULL_PEERS][MERO_PEER_ID_STR_MAX];
    size_t n = mero_net_connected_peers(node->net, peers, JOIN_PULL_PEERS);
    for (size_t i = 0; i < n && i < JOIN_PULL_PEERS; i++) {
        mero__node_sync_pull(node, peers[i], ns);
    }
    return 0;
}

/* Direct rows of group (0 on error). */
static size_t member_count(struct mero_store *s, const uint8_t g[MERO_GROUP_ID_LEN])
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
static size_t context_count(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                            const uint8_t *group)
{
    struct mero_gov_context *cs = NULL;
    size_t n = 0, c = 0;
    if (mero_gov_contexts(s, ns, &cs, &n) < 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (group == NULL || memcmp(cs[i].group, group, sizeof(cs[i].group)) == 0) {
            c++;
        }
    }
    free(cs);
    return c;
}

void mero_node_ns_summary(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          struct mero_node_ns_summary *out)
{
    struct mero_ns_meta m;
    bool found = false;
    memset(out, 0, sizeof(*out));
    if (mero__ns_meta_get(node->db, ns, &m, &found) < 0) {
        memset(&m, 0, sizeof(m));
    }
    labels_from_meta(&out->labels, &m);
    uint8_t(*gs)[MERO_GROUP_ID_LEN] = NULL;
    size_t ng = 0;
    if (mero_gov_groups(node->store, ns, &gs, &ng) < 0) {
        ng = 0;
    }
    free(gs);
    out->members = member_count(node->store, ns);
    out->contexts = context_count(node->store, ns, NULL);
    out->subgroups = ng > 0 ? ng - 1 : 0;
    out->has_identity = mero_gov_identity(node->store, ns, false, out->identity, NULL) == 0;
}

int mero_node_subgroup_create(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t parent[MERO_GROUP_ID_LEN], int visibility,
                              const char *name, uint8_t g[MERO_GROUP_ID_LEN], struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    int rc = mero_gov_create_subgroup(node->store, ns, parent, visibility, g, &ops, err);
    if (rc == 0 && name != NULL) {
        struct mero_ns_meta m;
        memset(&m, 0, sizeof(m));
        size_t n = strlen(name);
        n = n < sizeof(m.name) - 1 ? n : sizeof(m.name) - 1;
        memcpy(m.name, name, n);
        m.has_name = true;
        m.created_at = (int64_t)time(NULL);
        if (mero__ns_meta_put(node->db, g, &m) < 0) {
            MERO_WARN("cannot record the group's name");
        }
    }
    rc = publish(node, ns, &ops, rc);
    if (rc == 0) {
        mero__node_reach_subgroup_created(node, ns, g); /* issue 16: Open reach gets its key */
    }
    return rc;
}

int mero_node_ns_groups(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                        struct mero_node_group_entry **out, size_t *n)
{
    uint8_t(*gs)[MERO_GROUP_ID_LEN] = NULL;
    size_t ng = 0;
    *out = NULL;
    *n = 0;
    MERO_TRY(mero_gov_groups(node->store, ns, &gs, &ng));
    struct mero_node_group_entry *es = calloc(ng ? ng : 1, sizeof(*es));
    if (es == NULL) {
        free(gs);
        return -MERO_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < ng; i++) {
        if (memcmp(gs[i], ns, MERO_NS_ID_LEN) == 0) {
            continue; /* the root is the namespace itself, not one of its groups */
        }
        struct mero_node_group_entry *e = &es[k++];
        memcpy(e->id, gs[i], sizeof(e->id));
        struct mero_ns_meta m;
        bool found = false;
        if (mero__ns_meta_get(node->db, gs[i], &m, &found) == 0 && found && m.has_name) {
            e->has_name = true;
            memcpy(e->name, m.name, sizeof(e->name));
        }
        int vis = 0;
        e->has_parent = mero_gov_group_info(node->store, gs[i], e->parent, &vis) == 0;
    }
    free(gs);
    *out = es;
    *n = k;
    return 0;
}

int mero_node_group_summary(struct mero_node *node, const uint8_t g[MERO_GROUP_ID_LEN],
                            struct mero_node_group_summary *out)
{
    memset(out, 0, sizeof(*out));
    if (mero_gov_namespace_of(node->store, g, out->ns) < 0 ||
        mero_gov_group_info(node->store, g, out->parent, &out->visibility) < 0) {
        return -MERO_ENOTFOUND;
    }
    struct mero_ns_meta m, gm;
    bool found = false;
    if (mero__ns_meta_get(node->db, out->ns, &m, &found) < 0) {
        memset(&m, 0, sizeof(m));
    }
    if (mero__ns_meta_get(node->db, g, &gm, &found) == 0 && found && gm.has_name &&
        memcmp(g, out->ns, MERO_NS_ID_LEN) != 0) {
        m.has_name = true;
        memcpy(m.name, gm.name, sizeof(m.name));
    }
    labels_from_meta(&out->labels, &m);
    out->members = member_count(node->store, g);
    out->contexts = context_count(node->store, out->ns, g);
    return 0;
}

/* Add id and hand it the group key, so it can read and write the group's contexts. */
static int add_and_key(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                       const uint8_t g[MERO_GROUP_ID_LEN], const uint8_t id[MERO_IDENTITY_LEN],
                       int role, struct mero_gov_oplist *ops, struct mero_err *err)
{
    MERO_TRY(mero_gov_add_member(node->store, ns, g, id, role, ops, err));
    struct mero_err kerr = {0};
    if (mero_gov_deliver_key(node->store, ns, g, id, ops, &kerr) < 0) {
        mero_err_clear(&kerr);
    }
    return 0;
}

int mero_node_member_add(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t g[MERO_GROUP_ID_LEN], const uint8_t id[MERO_IDENTITY_LEN],
                         int role, struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    return publish(node, ns, &ops, add_and_key(node, ns, g, id, role, &ops, err));
}

int mero_node_member_set_role(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t g[MERO_GROUP_ID_LEN],
                              const uint8_t id[MERO_IDENTITY_LEN], int role, struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    return publish(node, ns, &ops,
                   mero_gov_set_member_role(node->store, ns, g, id, role, &ops, err));
}

int mero_node_member_remove(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                            const uint8_t g[MERO_GROUP_ID_LEN], const uint8_t id[MERO_IDENTITY_LEN],
                            struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    uint8_t(*reached)[MERO_GROUP_ID_LEN] = NULL; /* issue 16: a TEE row's cascade */
    size_t nr = 0;
    MERO_TRY(mero__node_reach_before_removal(node, ns, g, id, &reached, &nr));
    int rc = publish(node, ns, &ops, mero_gov_remove_member(node->store, ns, g, id, &ops, err));
    if (rc == 0) {
        mero__node_reach_after_removal(node, ns, g, id,
                                       (const uint8_t(*)[MERO_GROUP_ID_LEN])reached, nr);
    }
    free(reached);
    return rc;
}

int mero_node_group_leave(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t g[MERO_GROUP_ID_LEN], struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    return publish(node, ns, &ops, mero_gov_leave(node->store, ns, g, &ops, err));
}

/* All or none: every entry inside one transaction; see mero/node.h. */
static int batch(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                 const uint8_t g[MERO_GROUP_ID_LEN], bool add, struct mero_node_batch_entry *e,
                 size_t n, struct mero_err *err)
{
    struct mero_gov_oplist ops = {0};
    int first = 0;
    MERO_ENSURE(mero_store_begin(node->store) == 0, err, MERO_EIO,
                "cannot open a store transaction");
    for (size_t i = 0; i < n; i++) {
        mero_err_clear(&e[i].err);
        e[i].rc = add ? add_and_key(node, ns, g, e[i].id, e[i].role, &ops, &e[i].err)
                      : mero_gov_remove_member(node->store, ns, g, e[i].id, &ops, &e[i].err);
        if (e[i].rc < 0 && first == 0) {
            first = e[i].rc;
        }
    }
    if (first == 0 && mero_store_commit(node->store) < 0) {
        for (size_t i = 0; i < n; i++) {
            e[i].rc = 0; /* no entry was refused: the transaction was */
        }
        first = mero_err_set(err, MERO_EIO, "cannot commit the store transaction");
    }
    if (first < 0) {
        mero_store_rollback(node->store);
    }
    return publish(node, ns, &ops, first);
}

int mero_node_members_add(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t g[MERO_GROUP_ID_LEN], struct mero_node_batch_entry *e,
                          size_t n, struct mero_err *err)
{
    return batch(node, ns, g, true, e, n, err);
}

/* issue 16: the groups one TEE of a batch reaches, rotated once the batch committed */
struct reached_list {
    uint8_t (*g)[MERO_GROUP_ID_LEN];
    size_t n;
};

int mero_node_members_remove(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             const uint8_t g[MERO_GROUP_ID_LEN], struct mero_node_batch_entry *e,
                             size_t n, struct mero_err *err)
{
    struct reached_list *rl = calloc(n ? n : 1, sizeof(*rl));
    int rc = 0;
    MERO_ENSURE_OUT(rl != NULL, err, MERO_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        MERO_TRY_OUT(mero__node_reach_before_removal(node, ns, g, e[i].id, &rl[i].g, &rl[i].n));
    }
    rc = batch(node, ns, g, false, e, n, err);
    for (size_t i = 0; i < n && rc == 0; i++) {
        mero__node_reach_after_removal(node, ns, g, e[i].id,
                                       (const uint8_t(*)[MERO_GROUP_ID_LEN])rl[i].g, rl[i].n);
    }
out:
    for (size_t i = 0; rl != NULL && i < n; i++) {
        free(rl[i].g);
    }
    free(rl);
    return rc;
}

int mero_node_members(struct mero_node *node, const uint8_t g[MERO_GROUP_ID_LEN],
                      struct mero_gov_member **out, size_t *n)
{
    return mero_gov_members(node->store, g, out, n);
}

int mero_node_ctx_create(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t g[MERO_GROUP_ID_LEN], uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         struct mero_err *err)
{
    uint8_t app[MERO_APP_ID_LEN] = {0}; /* mero runs no applications */
    struct mero_gov_oplist ops = {0};
    return publish(node, ns, &ops,
                   mero_gov_create_context(node->store, ns, g, app, ctx, &ops, err));
}

int mero_node_contexts(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                       struct mero_gov_context **out, size_t *n)
{
    return mero_gov_contexts(node->store, ns, out, n);
}
