/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_purge.c - self-purge's listener and startup reconcile (src/node/purge.c) over a real
 * governance store: only TeeMemberRemoved for our own identity acts (not the generic
 * MemberRemoved, not another member's eviction); a root eviction writes the durable marker at
 * once; reconcile purges exactly the marked namespaces and leaves the others alone; after a
 * namespace purge its tombstone drops the namespace's late ops, deltas and sync answers
 * (nothing stored in gov.db or node.db) until a new join clears it.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/admission/service_internal.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"
#include "node/sync_internal.h"
#include "harness.h"

static bool has_ns(struct mero_store *s, const uint8_t ns[32])
{
    uint8_t(*v)[32] = NULL;
    size_t n = 0;
    bool found = false;
    if (mero_gov_namespaces(s, &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            found = found || memcmp(v[i], ns, 32) == 0;
        }
    }
    free(v);
    return found;
}

static size_t pending(struct mero_store *s)
{
    uint8_t(*v)[32] = NULL;
    size_t n = 0;
    if (mero_gov_purge_pending(s, &v, &n) < 0) {
        return 999;
    }
    free(v);
    return n;
}

TEST(only_our_tee_eviction_acts_and_reconcile_purges_marked_only)
{
    CHECK_OK(mero_crypto_init());
    struct mero_store *s = NULL;
    struct mero_gov_oplist ops = {0};
    uint8_t ns[32], ns2[32];
    CHECK_OK(mero_store_open(":memory:", &s, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns, &ops, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns2, &ops, NULL));
    mero_gov_oplist_cleanup(&ops);
    struct mero_admission *a = calloc(1, sizeof(*a));
    CHECK(a != NULL);
    a->env.store = s;
    a->closing = true; /* no net: the topic part is skipped */

    struct mero_gov_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.ns = ns;
    ev.group = ns;
    ev.kind = MERO_EV_MEMBER_REMOVED; /* the generic event: soft leave */
    ev.for_us = true;
    mero__adm_on_event(a, &ev);
    CHECK_EQ(a->npurge, 0);
    ev.kind = MERO_EV_TEE_MEMBER_REMOVED; /* another node's eviction */
    ev.for_us = false;
    mero__adm_on_event(a, &ev);
    CHECK_EQ(a->npurge, 0);
    CHECK_EQ(pending(s), 0);
    ev.for_us = true; /* ours: marker first, then queued */
    mero__adm_on_event(a, &ev);
    CHECK_EQ(a->npurge, 1);
    CHECK_EQ(pending(s), 1);
    mero__adm_on_event(a, &ev); /* the same group twice is queued once */
    CHECK_EQ(a->npurge, 1);

    /* a crash before the queued purge ran: the next start's reconcile finishes it */
    CHECK_OK(mero__adm_purge_reconcile(a));
    CHECK(!has_ns(s, ns));
    CHECK(has_ns(s, ns2)); /* unmarked: untouched */
    CHECK_EQ(pending(s), 0);
    uint8_t pk[32];
    CHECK_ERR(mero_gov_identity(s, ns, false, pk, NULL), -MERO_ENOTFOUND);
    free(a);
    mero_store_close(s);
}

/* A subgroup marker (a subgroup-only eviction, marked by gov with the removal): the reconcile
 * purges that subgroup's keys only and keeps the namespace. */
TEST(reconcile_purges_a_marked_subgroup_only)
{
    CHECK_OK(mero_crypto_init());
    struct mero_store *s = NULL;
    uint8_t ns[32], sub[32], k[32], kid[32];
    CHECK_OK(mero_store_open(":memory:", &s, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns, NULL, NULL));
    CHECK_OK(mero_gov_create_subgroup(s, ns, ns, MERO_GROUP_RESTRICTED, sub, NULL, NULL));
    CHECK_OK(mero_gov_group_key(s, sub, k, kid));
    CHECK_OK(mero_gov_purge_mark(s, sub));
    struct mero_admission *a = calloc(1, sizeof(*a));
    CHECK(a != NULL);
    a->env.store = s;
    a->closing = true;
    CHECK_OK(mero__adm_purge_reconcile(a));
    CHECK_EQ(pending(s), 0);
    CHECK_ERR(mero_gov_group_key(s, sub, k, kid), -MERO_ENOTFOUND);
    CHECK(has_ns(s, ns));
    CHECK_OK(mero_gov_group_key(s, ns, k, kid));
    free(a);
    mero_store_close(s);
}

static int node_rows(struct mero_node *node)
{
    static const char *const q[] = {"SELECT count(*) FROM ctx_delta", "SELECT count(*) FROM ctx_kv",
                                    "SELECT count(*) FROM ctx_clock"};
    int total = 0;
    for (size_t i = 0; i < 3; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(node->db, q[i], -1, &st, NULL) != SQLITE_OK) {
            return -1;
        }
        total += sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 1000;
        sqlite3_finalize(st);
    }
    return total;
}

static int env_purge_contexts(void *ud, const uint8_t ns[32], const uint8_t group[32])
{
    return mero__node_ctx_purge(ud, ns, group);
}

/* The race of issue "purge flake": a sync pull (or gossip) that began before the self-purge
 * delivers the namespace's ops and deltas after it. The purged tombstone drops all of it:
 * nothing comes back in gov.db or node.db; a new join of the namespace clears it. */
TEST(purged_namespace_drops_late_ops_deltas_and_sync_answers_until_rejoined)
{
    CHECK_OK(mero_crypto_init());
    struct mero_node node;
    memset(&node, 0, sizeof(node));
    struct mero_gov_oplist ops = {0};
    struct mero_err err = {0};
    uint8_t ns[32], ctx[32], app[32] = {0};
    CHECK_OK(mero_store_open(":memory:", &node.store, NULL));
    CHECK_OK(mero__node_db_open(&node.db, ":memory:", true, &err));
    CHECK_OK(mero__node_ctx_open(&node, &err));
    CHECK_OK(mero_gov_create_namespace(node.store, ns, &ops, NULL));
    CHECK_OK(mero_gov_create_context(node.store, ns, ns, app, ctx, &ops, NULL));
    CHECK(ops.n >= 2);
    CHECK_OK(mero_node_ctx_put(&node, ctx, "k", (const uint8_t *)"v", 1, false, 0, &err));
    uint8_t(*h)[32] = NULL;
    size_t nh = 0;
    uint64_t last = 0;
    uint8_t *delta = NULL;
    size_t dlen = 0;
    CHECK_OK(mero__node_ctx_hashes(&node, ctx, 0, 16, &h, &nh, &last));
    CHECK_EQ(nh, 1);
    CHECK_OK(mero__node_ctx_delta(&node, h[0], &delta, &dlen));
    CHECK(node_rows(&node) > 0);

    /* our own TEE eviction: marker, then the queued purge (run here by the reconcile) */
    struct mero_admission *a = calloc(1, sizeof(*a));
    CHECK(a != NULL);
    a->env.store = node.store;
    a->env.ud = &node;
    a->env.purge_contexts = env_purge_contexts;
    a->closing = true;
    struct mero_gov_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = MERO_EV_TEE_MEMBER_REMOVED;
    ev.ns = ns;
    ev.group = ns;
    ev.for_us = true;
    mero__adm_on_event(a, &ev);
    CHECK_OK(mero__adm_purge_reconcile(a));
    CHECK(!has_ns(node.store, ns));
    CHECK_EQ(node_rows(&node), 0);

    /* late arrivals: gossip / sync answers carrying the namespace's ops, then its delta */
    for (size_t i = 0; i < ops.n; i++) {
        CHECK_OK(mero__node_apply_op(&node, "peer", ops.v[i].data, ops.v[i].len, NULL));
    }
    CHECK(!has_ns(node.store, ns));
    for (size_t i = 0; i < ops.n; i++) {
        bool have = true;
        uint8_t oh[32];
        int st = -1;
        CHECK_OK(mero_gov_apply(node.store, ops.v[i].data, ops.v[i].len, &st, oh, NULL, &err));
        CHECK_EQ(st, MERO_APPLY_PURGED);
        CHECK_OK(mero_gov_has_op(node.store, oh, &have));
        CHECK(!have);
    }
    CHECK(mero__node_ctx_apply(&node, delta, dlen, &err) < 0);
    CHECK_EQ(node_rows(&node), 0);
    CHECK(!has_ns(node.store, ns));
    bool tomb = false;
    CHECK_OK(mero_gov_purged(node.store, ns, &tomb));
    CHECK(tomb);
    /* an in-flight sync answer (ops phase, then the delta phase of a context listed before
     * the purge): dropped, nothing stored in gov.db or node.db */
    for (size_t i = 0; i < ops.n; i++) {
        CHECK_EQ(mero__node_sync_take(&node, ns, false, ops.v[i].data, ops.v[i].len), 1);
    }
    CHECK_EQ(mero__node_sync_take(&node, ns, true, delta, dlen), 1);
    CHECK(!has_ns(node.store, ns));
    CHECK_EQ(node_rows(&node), 0);
    /* the tombstone survives a rebuild of the derived tables (it is local state) */
    CHECK_OK(mero_gov_rebuild(node.store, &err));
    CHECK_OK(mero_gov_purged(node.store, ns, &tomb));
    CHECK(tomb);

    /* re-admission: a new join (fleet-join, POST .../join) clears the tombstone first; the
     * namespace's ops and deltas are taken again */
    CHECK_OK(mero_gov_purged_clear(node.store, ns));
    CHECK_OK(mero_gov_purged(node.store, ns, &tomb));
    CHECK(!tomb);
    for (size_t i = 0; i < ops.n; i++) {
        CHECK_EQ(mero__node_sync_take(&node, ns, false, ops.v[i].data, ops.v[i].len), 0);
    }
    CHECK(has_ns(node.store, ns));
    CHECK_EQ(mero__node_sync_take(&node, ns, true, delta, dlen), 0);
    bool have = false;
    CHECK_OK(mero__node_ctx_has(&node, h[0], &have));
    CHECK(have);

    free(delta);
    free(h);
    free(a);
    mero_gov_oplist_cleanup(&ops);
    mero__node_db_close(node.db);
    mero_store_close(node.store);
}

MERO_TEST_MAIN(T(only_our_tee_eviction_acts_and_reconcile_purges_marked_only),
               T(reconcile_purges_a_marked_subgroup_only),
               T(purged_namespace_drops_late_ops_deltas_and_sync_answers_until_rejoined))
