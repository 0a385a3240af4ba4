/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sync_snapshot.c - issue 37, catch-up by live state (src/node/sync_snap.c, sync.c,
 * context/snap.c) over real loopback connections between in-process nodes
 * (tests/support/snap_fixture.h). Asserted through values served, deltas stored and the pull's
 * counters, never timing: a new replica installs the winning delta of every key (two pages),
 * not the history, then goes on from the snapshot's tail by ordinary delta sync; a snapshot with
 * then a second peer's live state is merged the same way (no history); a snapshot with
 * a forged signature or a stale entry is refused whole (nothing stored or served), its peer is
 * not asked again for the context while banned, and another peer's snapshot is installed; an
 * entry beyond the snapshot's clock is refused; a snapshot's clock far beyond the step bound of a
 * second peer's claim, or of the clock held here, is not believed (its history pulled instead, the
 * far-future write refused), and a first snapshot waits for a connected peer's claim; a snapshot
 * holding the write of an author removed since (issue 30) gives way to the history, its peer not
 * banned and the live state not fetched again; deltas refused for now do not hold the cursor
 * until governance moves, then are judged afresh; the page
 * decoder refuses every truncation, trailing bytes, counts beyond their maxima and zero or
 * oversized lengths; the responder answers busy beyond MERO_SNAP_SESSIONS requesters and frees a
 * session after its last page; a node with full_history pulls the history instead.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/clock_internal.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/service_internal.h"
#include "node/sync_internal.h"
#include "support/snap_fixture.h"

#define KEYS_TWO_PAGES (MERO_SNAP_PAGE_MAX + 44u)

static struct mero_node_sync_stats stats(struct mero_node *n)
{
    struct mero_node_sync_stats s;
    mero__node_sync_get_stats(n, &s);
    return s;
}

static bool held_any(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    bool any = true;
    return mero__node_ctx_held_any(n, ctx, &any) < 0 || any;
}

TEST(new_replica_installs_live_state_not_history)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    CHECK_OK(snapf_open(&f));
    /* two writes per key: the history is twice the live state, and the state spans two pages */
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 2 * KEYS_TWO_PAGES, KEYS_TWO_PAGES));
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s = stats(r);
    CHECK_U64_EQ(s.snap_installed, 1);
    CHECK_U64_EQ(s.snap_pages, 2);
    CHECK_U64_EQ(s.get_entries, 0); /* no delta of the history fetched one by one */
    CHECK(snapf_deltas(r) <= KEYS_TWO_PAGES + MERO_SNAP_HEADS_MAX);
    CHECK(snapf_value_is(r, f.ctx, "k0", "v300"));
    CHECK(snapf_value_is(r, f.ctx, "k299", "v599"));
    uint64_t clock = 0;
    bool yes = false;
    CHECK_OK(mero__node_ctx_snapshot_of(r, f.ctx, &clock, &yes));
    CHECK(yes && clock == 2 * KEYS_TWO_PAGES);

    /* then ordinary delta sync from the snapshot's tail: only what follows it */
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 3, KEYS_TWO_PAGES));
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s2 = stats(r);
    CHECK_U64_EQ(s2.snap_installed, 1);
    CHECK_U64_EQ(s2.get_entries - s.get_entries, 3);
    CHECK(snapf_value_is(r, f.ctx, "k2", "v2")); /* the 3 writes count from 0 again */

    /* a second peer, followed from no cursor yet: its live state merged, not its history */
    CHECK_OK(snapf_copy(&f.n[0], &f.n[1]));
    CHECK_OK(snapf_pull(&f, 1));
    struct mero_node_sync_stats s3 = stats(r);
    CHECK_U64_EQ(s3.snap_installed, 2);
    CHECK_U64_EQ(s3.get_entries, s2.get_entries);
    CHECK(snapf_deltas(r) <= KEYS_TWO_PAGES + MERO_SNAP_HEADS_MAX + 3);
    CHECK(snapf_value_is(r, f.ctx, "k2", "v2"));
    snapf_close(&f);
}

/* The bad snapshot's peer is n[0]; n[1] holds the same state honestly. */
static void refused_then_fetched_elsewhere(const char *fault, const char *key, const char *latest)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 40, 10));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 1, 1)); /* k0 = v0 again: the newest write, a head */
    CHECK_OK(snapf_copy(&f.n[0], &f.n[1]));
    f.n[0].test_routes = true;
    CHECK_OK(setenv("MERO_TEST_SNAPSHOT_FAULT", fault, 1));
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_refused, 1);
    CHECK_U64_EQ(stats(r).snap_installed, 0);
    CHECK(!held_any(r, f.ctx)); /* nothing of it stored */
    CHECK(snapf_value_is(r, f.ctx, key, NULL));
    /* that peer is not asked for the context again while banned, even for its history */
    uint64_t pages = stats(r).snap_pages, inv = stats(r).inv_sent;
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_pages, pages);
    CHECK(stats(r).inv_sent - inv <= 1); /* the ops' inventory only */
    CHECK(!held_any(r, f.ctx));
    /* another peer's snapshot verifies and is served */
    CHECK_OK(snapf_pull(&f, 1));
    CHECK_U64_EQ(stats(r).snap_installed, 1);
    CHECK(snapf_value_is(r, f.ctx, key, latest));
    CHECK(snapf_value_is(r, f.ctx, "k9", "v39"));
    CHECK_OK(unsetenv("MERO_TEST_SNAPSHOT_FAULT"));
    snapf_close(&f);
}

TEST(forged_snapshot_refused_and_fetched_elsewhere)
{
    refused_then_fetched_elsewhere("forge", "k0", "v0");
}

TEST(stale_snapshot_refused_and_fetched_elsewhere)
{
    /* stale: each key's earliest write served instead of its newest; k0's newest is a head */
    refused_then_fetched_elsewhere("stale", "k1", "v31");
}

/* n[0] turns hostile in ctx: a genuine write of k0, signed by a member, at a lamport 2^40 beyond
 * the context's clock - one no honest node admits (beyond clock + MERO_LAMPORT_STEP), which a
 * snapshot must not smuggle in either (docs/sync.md "The clock a snapshot claims"). */
static int far_future_write(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(n->db, "UPDATE ctx_clock SET lamport = ?2 WHERE context = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)1 << 40);
    int rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(n->db) == 1 ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc < 0 ? rc : snapf_write(n, ctx, 1, 1); /* k0 = v0 at 2^40 + 1 */
}

TEST(far_future_clock_waits_for_a_second_opinion_and_is_not_merged)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t ctx2[MERO_CONTEXT_ID_LEN], app[MERO_APP_ID_LEN] = {1};
    CHECK_OK(snapf_open(&f));
    /* r connects to n[1] while ctx2 does not exist yet: n[1] has given no clock for it */
    CHECK_OK(snapf_pull(&f, 1));
    CHECK_OK(mero_gov_create_context(f.n[0].store, f.ns, f.ns, app, ctx2, NULL, &err));
    CHECK_OK(snapf_write(&f.n[0], ctx2, 40, 10)); /* k0 = v30 at its newest, lamport 31 */
    CHECK_OK(snapf_copy(&f.n[0], &f.n[1]));       /* n[1] holds ctx2 honestly */
    CHECK_OK(far_future_write(&f.n[0], ctx2));
    /* n[0]'s live state of ctx2 first: another peer is connected and has not said its clock,
     * so nothing is installed yet */
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_deferred, 1);
    CHECK_U64_EQ(stats(r).snap_installed, 0);
    CHECK(!held_any(r, ctx2));
    /* n[1]'s: its clock is within the step bound of n[0]'s claim, installed */
    CHECK_OK(snapf_pull(&f, 1));
    CHECK_U64_EQ(stats(r).snap_installed, 1);
    CHECK(snapf_value_is(r, ctx2, "k0", "v30"));
    /* n[0]'s again, to merge: its clock is beyond ours by more than the step bound, so its
     * history is pulled instead, where the far-future write is refused like any other */
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_unvouched, 1);
    CHECK_U64_EQ(stats(r).snap_installed, 1);
    CHECK(snapf_value_is(r, ctx2, "k0", "v30"));
    CHECK(snapf_value_is(r, ctx2, "k9", "v39"));
    snapf_close(&f);
}

TEST(far_future_clock_refused_by_a_second_opinion)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 40, 10));
    CHECK_OK(snapf_copy(&f.n[0], &f.n[1]));
    CHECK_OK(far_future_write(&f.n[0], f.ctx));
    /* n[1]'s snapshot is refused (a forged entry), but the clock it claimed is an opinion */
    f.n[1].test_routes = true;
    CHECK_OK(setenv("MERO_TEST_SNAPSHOT_FAULT", "forge", 1));
    CHECK_OK(snapf_pull(&f, 1));
    CHECK_OK(unsetenv("MERO_TEST_SNAPSHOT_FAULT"));
    CHECK_U64_EQ(stats(r).snap_refused, 1);
    CHECK(!held_any(r, f.ctx));
    /* n[0] claims 2^40 + 1 against n[1]'s 40: not believed, its history pulled instead */
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_unvouched, 1);
    CHECK_U64_EQ(stats(r).snap_installed, 0);
    CHECK(snapf_value_is(r, f.ctx, "k0", "v30"));
    CHECK(snapf_value_is(r, f.ctx, "k9", "v39"));
    snapf_close(&f);
}

/* A new identity (pk, sk) of f's namespace with role, in the shared governance (every node's). */
static int member(struct snapf *f, int role, uint8_t pk[32], uint8_t sk[64])
{
    struct mero_err err = {0};
    mero_ed25519_keypair(pk, sk);
    return mero_gov_add_member(f->n[0].store, f->ns, f->ns, pk, role, NULL, &err);
}

/* A new identity y, unknown to the governance here, whose five writes y0..y4 (lamports 1..5) are
 * planted on n[0]: a peer that took them under governance this node does not hold yet. */
static int plant_five(struct snapf *f, uint8_t y[32], uint8_t ysk[64])
{
    mero_ed25519_keypair(y, ysk);
    for (uint64_t i = 0; i < 5; i++) {
        char k[8];
        snprintf(k, sizeof(k), "y%llu", (unsigned long long)i);
        MERO_TRY(snapf_write_as(f, &f->n[0], f->ctx, y, ysk, i + 1, k, "from y", true));
    }
    return 0;
}

/* Deltas node n keeps without effect (issue 30, context/kept.c). */
static uint64_t kept(struct mero_node *n)
{
    sqlite3_stmt *st = NULL;
    uint64_t c = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT count(*) FROM ctx_delta WHERE applied = 2", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        c = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return c;
}

/*
 * issue 30: member x writes on n[0], then loses its row (the fixture's governance is shared, so
 * every node holds the removal, while n[0] applied x's writes before it, as a node that held them
 * earlier does). n[0]'s live state holds x's write, which r refuses by the governance it holds.
 * That is no fault of n[0]: r pulls the history instead, bans nobody, takes the others' writes
 * and keeps x's that raised a clock without effect (x is a principal: it held a row), so nothing
 * is fetched again at the next round. Once x is a member again, the kept writes take effect
 * without a fetch, and the one only remembered is fetched and judged afresh.
 */
TEST(live_state_holding_a_removed_author_s_write_gives_way_to_the_history)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t x[32], xsk[64], ctx2[MERO_CONTEXT_ID_LEN], app[MERO_APP_ID_LEN] = {2};
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(mero_gov_create_context(f.n[0].store, f.ns, f.ns, app, ctx2, NULL, &err));
    /* x's first write, then 30 of the owner's (k<i> = v<20+i> at the end, lamports 2..31), so
     * x's write is an entry of the live state but none of its 16 heads; then x's "low", at a
     * lamport below the clock; in ctx2 x's one write (its one head and its one entry) */
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, x, xsk, 1, "x", "from x", false));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 30, 10));
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, x, xsk, 5, "low", "below the clock", false));
    CHECK_OK(snapf_write_as(&f, &f.n[0], ctx2, x, xsk, 1, "x", "only x", false));
    CHECK(snapf_value_is(&f.n[0], f.ctx, "x", "from x"));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    CHECK(snapf_value_is(&f.n[0], f.ctx, "x", "from x")); /* applied before the removal */

    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s = stats(r);
    /* ctx: x's entry refused; ctx2: x's write, its one head, refused: the history of both */
    CHECK_U64_EQ(s.snap_governance, 2);
    CHECK_U64_EQ(s.snap_refused, 0); /* n[0] is not banned */
    CHECK_U64_EQ(s.snap_installed, 0);
    CHECK(snapf_value_is(r, f.ctx, "k0", "v20"));
    CHECK(snapf_value_is(r, f.ctx, "k9", "v29"));
    CHECK(snapf_value_is(r, f.ctx, "x", NULL));
    CHECK(snapf_value_is(r, ctx2, "x", NULL));
    CHECK_U64_EQ(snapf_deltas(r), 32);
    CHECK_U64_EQ(kept(r), 2); /* "low" raised no clock: only remembered */
    CHECK(snapf_value_is(r, f.ctx, "low", NULL));
    /* the next round: no live state fetched, no delta fetched again */
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s2 = stats(r);
    CHECK_U64_EQ(s2.snap_pages, s.snap_pages);
    CHECK_U64_EQ(s2.snap_governance, 2);
    CHECK_U64_EQ(s2.get_entries, s.get_entries);
    /* a write after the removal reaches r by ordinary delta sync */
    CHECK_OK(
        mero_node_ctx_put(&f.n[0], f.ctx, "after", (const uint8_t *)"next", 4, false, 0, &err));
    CHECK_OK(snapf_pull(&f, 0));
    CHECK(snapf_value_is(r, f.ctx, "after", "next"));
    /* x a member again (the event has a node's service judge the kept deltas again at its next
     * sync tick): its kept writes take effect, nothing fetched */
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    uint64_t gets = stats(r).get_entries;
    CHECK(mero__node_ctx_rejudge(r));
    CHECK(snapf_value_is(r, f.ctx, "x", "from x"));
    CHECK(snapf_value_is(r, ctx2, "x", "only x"));
    CHECK_U64_EQ(kept(r), 0);
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).get_entries, gets + 1); /* "low" */
    CHECK(snapf_value_is(r, f.ctx, "low", "below the clock"));
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/* Apply the first n deltas `from` stores on `to`; how many were refused as a non-member's. */
static uint64_t refuse_first(struct mero_node *from, struct mero_node *to, int n)
{
    sqlite3_stmt *st = NULL;
    uint64_t refused = 0;
    if (sqlite3_prepare_v2(from->db, "SELECT bytes FROM ctx_delta ORDER BY seq LIMIT ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return 0;
    }
    sqlite3_bind_int(st, 1, n);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct mero_err err = {0};
        refused += mero__node_ctx_apply(to, sqlite3_column_blob(st, 0),
                                        (size_t)sqlite3_column_bytes(st, 0), &err) == -MERO_EPERM;
    }
    sqlite3_finalize(st);
    return refused;
}

/*
 * issue 30: deltas refused for now (y not a member here yet: planted on n[0], a peer ahead of
 * this node's governance) early in a context's log do not hold r's cursor: the next pull lists
 * the cursors' anchors alone, not the rest of the log again (it listed every delta after the
 * first refusal at every round, and refetched the refusals its bounded memory had forgotten).
 * Once governance moves (y added) the cursor is dropped and y's deltas are judged afresh: taken.
 */
static void refused_for_now_then_judged_afresh(bool gossiped)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t y[32], ysk[64];
    CHECK_OK(snapf_open(&f));
    r->full_history = true;
    CHECK_OK(plant_five(&f, y, ysk));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 300, 10));
    if (gossiped) {
        /* y's deltas reach r first by another path (gossip) and are refused there: the pull's
         * inventory then lists them as refused for now, and does not fetch them */
        CHECK_U64_EQ(refuse_first(&f.n[0], r, 5), 5);
        CHECK_U64_EQ(snapf_deltas(r), 0);
    }

    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(snapf_deltas(r), 300);
    CHECK_U64_EQ(kept(r), 0); /* y is no principal here */
    CHECK(snapf_value_is(r, f.ctx, "y0", NULL));
    struct mero_node_sync_stats s1 = stats(r);
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s2 = stats(r);
    /* the anchors of the op log's cursor and of the context's */
    CHECK_MSG(s2.inv_entries - s1.inv_entries <= 2, "listed %llu again",
              (unsigned long long)(s2.inv_entries - s1.inv_entries));
    CHECK_U64_EQ(s2.get_entries, s1.get_entries);

    /* governance moves: y is a member now, and its deltas are judged afresh */
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s3 = stats(r);
    CHECK_U64_EQ(s3.get_entries - s2.get_entries, 5);
    CHECK_U64_EQ(snapf_deltas(r), 305);
    CHECK(snapf_value_is(r, f.ctx, "y4", "from y"));
    CHECK_OK(snapf_pull(&f, 0));
    CHECK(stats(r).inv_entries - s3.inv_entries <= 2);
    mero_wipe(ysk, sizeof(ysk));
    snapf_close(&f);
}

TEST(a_delta_refused_for_now_does_not_hold_the_cursor)
{
    refused_for_now_then_judged_afresh(false);
}

TEST(a_delta_refused_for_now_elsewhere_is_judged_afresh_too)
{
    refused_for_now_then_judged_afresh(true);
}

/*
 * issue 30: a removed author's write raised the context's clock on the nodes that took it (by
 * the step bound: lamport = clock + MERO_LAMPORT_STEP), and the writes after it build on that
 * clock. A node that refuses the removed author's write must still take them, and so must a node
 * that syncs from it alone (n[1] from r): r keeps the write without effect and serves it. Before,
 * every later write of the context was out of reach of a node that joined after the removal.
 */
TEST(writes_after_a_refused_clock_jump_are_taken)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t x[32], xsk[64];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 3, 3)); /* lamports 1..3 */
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, x, xsk, 3 + MERO_LAMPORT_STEP, "x", "far", false));
    CHECK_OK(
        mero_node_ctx_put(&f.n[0], f.ctx, "after", (const uint8_t *)"the jump", 8, false, 0, &err));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    for (int round = 0; round < 2; round++) {
        CHECK_OK(snapf_pull(&f, 0));
    }
    CHECK(snapf_value_is(r, f.ctx, "k2", "v2"));
    CHECK(snapf_value_is(r, f.ctx, "x", NULL));
    CHECK(snapf_value_is(r, f.ctx, "after", "the jump"));
    CHECK_U64_EQ(kept(r), 1);
    /* n[1] learns the context from r alone, through the ordinary apply path */
    CHECK_OK(snapf_copy(r, &f.n[1]) == -MERO_EPERM ? 0 : -1); /* x's write: kept, refused */
    CHECK_OK(snapf_copy(r, &f.n[1]));                         /* the rest, once x's is held */
    CHECK(snapf_value_is(&f.n[1], f.ctx, "after", "the jump"));
    CHECK(snapf_value_is(&f.n[1], f.ctx, "x", NULL));
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/*
 * (review of the issue-30 change) A removed author's write is the newest head of the live state
 * and the live value of k; the member's earlier write of k is neither a head nor an entry. Kept
 * as a head, it would have made the entry "held" and the live state install without k, the
 * member's write never fetched. A head the governance here refuses sends r to the history
 * instead, which holds k = "a", as a node replaying it (n[1]) does.
 */
TEST(a_head_the_governance_here_refuses_sends_the_live_state_to_the_history)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t x[32], xsk[64];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(mero_node_ctx_put(&f.n[0], f.ctx, "k", (const uint8_t *)"a", 1, false, 0, &err));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 20, 20)); /* k0..k19, lamports 2..21 */
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, x, xsk, 22, "k", "b", false));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    CHECK_OK(snapf_copy(&f.n[0], &f.n[1]) == -MERO_EPERM ? 0 : -1);
    CHECK(snapf_value_is(&f.n[1], f.ctx, "k", "a")); /* the history's answer */
    for (int round = 0; round < 2; round++) {
        CHECK_OK(snapf_pull(&f, 0));
    }
    CHECK_U64_EQ(stats(r).snap_installed, 0);
    CHECK_U64_EQ(stats(r).snap_governance, 1);
    CHECK(snapf_value_is(r, f.ctx, "k", "a"));
    CHECK_U64_EQ(kept(r), 1);
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/*
 * A context whose live state holds only the write of y, an identity this node's governance does
 * not know (planted on n[0]: a peer holding ops this node has not received yet). r refuses it for
 * the state of governance, so n[0] is not banned; the history gives r nothing (y is no principal
 * here: refused for now, not kept), and the live state is not fetched again at every round while
 * the context is caught up by its history (issue 30). gossiped (found by the review): y's write
 * reached r before and its refusal is remembered; answered from that memory, it is still a
 * refusal for the state of governance.
 */
static void a_stranger_s_write_in_the_live_state(bool gossiped)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    uint8_t y[32], ysk[64];
    CHECK_OK(snapf_open(&f));
    mero_ed25519_keypair(y, ysk);
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, y, ysk, 1, "y", "from y", true));
    if (gossiped) {
        CHECK_U64_EQ(refuse_first(&f.n[0], r, 1), 1);
    }
    CHECK_OK(snapf_pull(&f, 0));
    struct mero_node_sync_stats s = stats(r);
    CHECK_U64_EQ(s.snap_governance, 1);
    CHECK_U64_EQ(s.snap_refused, 0);
    CHECK(!held_any(r, f.ctx));
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_pages, s.snap_pages);
    CHECK_U64_EQ(stats(r).snap_governance, 1);
    mero_wipe(ysk, sizeof(ysk));
    snapf_close(&f);
}

TEST(a_context_whose_history_gave_nothing_is_not_asked_for_its_live_state_again)
{
    a_stranger_s_write_in_the_live_state(false);
}

TEST(a_remembered_refusal_in_a_live_state_bans_nobody)
{
    a_stranger_s_write_in_the_live_state(true);
}

/*
 * (review) Governance moves between two inventory pages of one pull: page 1 passes y's deltas
 * refused for now (generation g1), y is added before page 2 is settled. The cursor must not be
 * kept at the new generation past y's deltas (whose refusal no longer holds): it stays where it
 * was, and the next pulls take them.
 */
TEST(a_generation_moving_within_a_pull_keeps_the_cursor_before_the_refusals)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t y[32], ysk[64];
    CHECK_OK(snapf_open(&f));
    r->full_history = true;
    CHECK_OK(plant_five(&f, y, ysk));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 1100, 10)); /* two inventory pages (1,024 a page) */
    uint64_t base = stats(r).inv_sent;
    uv_update_time(&f.loop);
    mero__node_sync_peer(r, f.n[0].peer_id);
    /* the ops' inventory, then the deltas' page 1 and 2: page 1 is settled once 3 are sent */
    while (mero__node_sync_busy(r) && stats(r).inv_sent < base + 3) {
        uv_run(&f.loop, UV_RUN_ONCE);
    }
    CHECK_U64_EQ(stats(r).inv_sent, base + 3);
    CHECK(snapf_value_is(r, f.ctx, "y0", NULL)); /* refused for now */
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err));
    while (mero__node_sync_busy(r)) {
        uv_run(&f.loop, UV_RUN_ONCE);
    }
    for (int round = 0; round < 3; round++) {
        CHECK_OK(snapf_pull(&f, 0));
    }
    CHECK_U64_EQ(snapf_deltas(r), 1105);
    CHECK(snapf_value_is(r, f.ctx, "y0", "from y"));
    mero_wipe(ysk, sizeof(ysk));
    snapf_close(&f);
}

/*
 * (review) Kept deltas are judged again from the service's sync tick, not inside the event: an
 * event fired inside a store transaction that is then rolled back (a batch whose later entry
 * failed) only marks them due, and judging them then finds x no member: nothing takes effect.
 * Any event marks them due (a removal can grant a right too: a ReadOnly or TEE row gone).
 */
TEST(kept_deltas_are_judged_after_the_store_commits)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    struct mero_gov_hooks h;
    uint8_t x[32], xsk[64];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    CHECK_ERR(snapf_write_as(&f, r, f.ctx, x, xsk, 1, "x", "from x", false), -MERO_EPERM);
    CHECK_U64_EQ(kept(r), 1);
    mero__node_gov_hooks(r, &h); /* r's service listens to governance, as merod run's does */
    mero_store_set_hooks(f.n[0].store, &h);
    r->ctx_rejudge_due = false;
    CHECK_OK(mero_store_begin(f.n[0].store));
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK(r->ctx_rejudge_due);
    CHECK(snapf_value_is(r, f.ctx, "x", NULL)); /* nothing judged inside the transaction */
    mero_store_rollback(f.n[0].store);          /* a later entry of the batch failed */
    CHECK(mero__node_ctx_rejudge(r));           /* the next sync tick */
    CHECK(snapf_value_is(r, f.ctx, "x", NULL));
    CHECK_U64_EQ(kept(r), 1);
    /* committed this time: x's kept write takes effect */
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK(mero__node_ctx_rejudge(r));
    CHECK(snapf_value_is(r, f.ctx, "x", "from x"));
    CHECK_U64_EQ(kept(r), 0);
    memset(&h, 0, sizeof(h));
    mero_store_set_hooks(f.n[0].store, &h);
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/*
 * A removed author's many kept deltas cost each sync tick a bounded time: one call judges at most
 * MERO_CTX_REJUDGE_TICK of them, says that some are left, and the next goes on from there. A
 * governance event during a pass does not start it again (events at every tick would keep it from
 * the rows past its first call): the pass goes on, and another, from the first, follows it.
 */
TEST(kept_deltas_are_judged_a_bounded_number_at_a_time)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    struct mero_gov_hooks h;
    uint8_t x[32], xsk[64];
    const uint64_t extra = 10;
    char left[16]; /* a key the first call does not reach */
    snprintf(left, sizeof(left), "x%u", MERO_CTX_REJUDGE_TICK + 2);
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    for (uint64_t i = 0; i < MERO_CTX_REJUDGE_TICK + extra; i++) {
        char k[16];
        snprintf(k, sizeof(k), "x%llu", (unsigned long long)i);
        CHECK_ERR(snapf_write_as(&f, r, f.ctx, x, xsk, i + 1, k, "from x", false), -MERO_EPERM);
    }
    CHECK_U64_EQ(kept(r), MERO_CTX_REJUDGE_TICK + extra);
    /* one call: the bound, some left, the next call goes on; a finished pass starts over */
    CHECK(!mero__node_ctx_rejudge(r));
    CHECK(r->ctx_rejudge_after != 0);
    CHECK(mero__node_ctx_rejudge(r));
    CHECK_U64_EQ(r->ctx_rejudge_after, 0);
    CHECK_U64_EQ(kept(r), MERO_CTX_REJUDGE_TICK + extra);
    /* the ticks: a pass starts (nothing passes yet), x is added back meanwhile */
    mero__node_gov_hooks(r, &h); /* r's service listens to governance, as merod run's does */
    mero_store_set_hooks(f.n[0].store, &h);
    r->ctx_rejudge_due = true;
    mero__node_ctx_rejudge_tick(r);
    CHECK(!r->ctx_rejudge_due);
    CHECK(r->ctx_rejudge_after != 0);
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK(r->ctx_rejudge_due);
    mero__node_ctx_rejudge_tick(r); /* the pass goes on: the rest pass */
    CHECK_U64_EQ(kept(r), MERO_CTX_REJUDGE_TICK);
    CHECK(snapf_value_is(r, f.ctx, left, "from x"));
    CHECK(snapf_value_is(r, f.ctx, "x0", NULL));
    CHECK_U64_EQ(r->ctx_rejudge_after, 0);
    CHECK(r->ctx_rejudge_due);
    for (int t = 0; t < 3; t++) {
        mero__node_ctx_rejudge_tick(r); /* a pass from the first, after the event */
    }
    CHECK_U64_EQ(kept(r), 0);
    CHECK(snapf_value_is(r, f.ctx, "x0", "from x"));
    CHECK(!r->ctx_rejudge_due);
    CHECK_U64_EQ(r->ctx_rejudge_after, 0);
    memset(&h, 0, sizeof(h));
    mero_store_set_hooks(f.n[0].store, &h);
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/* x's kept writes as x<from>..x<from + n - 1>, each raising r's clock from *lam on. */
static void keep_writes(struct snapf *f, struct mero_node *r, const uint8_t x[32],
                        const uint8_t xsk[64], uint64_t from, uint64_t n, uint64_t *lam)
{
    for (uint64_t i = from; i < from + n; i++) {
        char k[24];
        snprintf(k, sizeof(k), "x%llu", (unsigned long long)i);
        CHECK_ERR(snapf_write_as(f, r, f->ctx, x, xsk, (*lam)++, k, "from x", false), -MERO_EPERM);
    }
}

/*
 * (review) A pass ends at the newest kept delta when it started: a removed author whose kept
 * deltas come faster than a tick reads them cannot keep a pass from ending, and so from the
 * rows behind its cursor (y's, taken once y is a member again).
 */
TEST(a_pass_fed_faster_than_it_reads_still_ends)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    struct mero_gov_hooks h;
    uint8_t x[32], xsk[64], y[32], ysk[64];
    uint64_t lam = 1;
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, y, ysk));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, y, NULL, &err));
    CHECK_ERR(snapf_write_as(&f, r, f.ctx, y, ysk, lam++, "y", "from y", false), -MERO_EPERM);
    keep_writes(&f, r, x, xsk, 0, MERO_CTX_REJUDGE_TICK, &lam);
    mero__node_gov_hooks(r, &h);
    mero_store_set_hooks(f.n[0].store, &h);
    r->ctx_rejudge_due = true;
    mero__node_ctx_rejudge_tick(r); /* a pass starts; y is no member yet */
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err));
    for (uint64_t t = 1; t <= 3; t++) {
        keep_writes(&f, r, x, xsk, t * MERO_CTX_REJUDGE_TICK, MERO_CTX_REJUDGE_TICK, &lam);
        mero__node_ctx_rejudge_tick(r);
    }
    CHECK(snapf_value_is(r, f.ctx, "y", "from y"));
    memset(&h, 0, sizeof(h));
    mero_store_set_hooks(f.n[0].store, &h);
    mero_wipe(xsk, sizeof(xsk));
    mero_wipe(ysk, sizeof(ysk));
    snapf_close(&f);
}

/*
 * A stop or crash after a delta was marked to wait for its key (or a kept one marked to pass
 * again), before its retry: nothing brings that key again, so service start retries every group
 * holding such a delta (mero__node_ctx_retry_pending), and the write takes effect.
 */
TEST(deltas_left_waiting_with_their_key_held_are_taken_at_start)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    uint8_t x[32], xsk[64];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_MEMBER, x, xsk));
    CHECK_OK(snapf_write_as(&f, r, f.ctx, x, xsk, 1, "x", "from x", false));
    CHECK(snapf_value_is(r, f.ctx, "x", "from x"));
    /* the state a crash leaves: marked to wait, its effect not written */
    CHECK_OK(mero__node_db_exec(r->db, "UPDATE ctx_delta SET applied = 0; DELETE FROM ctx_kv"));
    CHECK(snapf_value_is(r, f.ctx, "x", NULL));
    mero__node_ctx_retry_pending(r);
    CHECK(snapf_value_is(r, f.ctx, "x", "from x"));
    CHECK_U64_EQ(snapf_deltas(r), 1);
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/* A ReadOnly member's write is no right lost: remembered, not kept. */
TEST(only_a_right_lost_keeps_a_delta)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    uint8_t ro[32], rosk[64];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(member(&f, MERO_ROLE_READONLY, ro, rosk));
    CHECK_ERR(snapf_write_as(&f, r, f.ctx, ro, rosk, 1, "ro", "v", false), -MERO_EREADONLY);
    CHECK_U64_EQ(kept(r), 0);
    CHECK_U64_EQ(snapf_deltas(r), 0);
    mero_wipe(rosk, sizeof(rosk));
    snapf_close(&f);
}

/*
 * (review) A peer that learnt the context after x's removal keeps x's clock jump without effect
 * (not a live value), then a write below its clock (z, at 2). Its live state's newest heads are z
 * and the jump. Skipping the refused head, as other refused heads are, would install the live state
 * with r's clock below the jump and its cursor past it (at z): the peer's next write, built on
 * the jump, would then be beyond r's clock bound for good. A refused head sends r to the
 * history instead, where the jump is kept.
 */
TEST(a_refused_head_that_holds_the_clock_is_not_skipped)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    struct mero_err err = {0};
    uint8_t x[32], xsk[64], owner[32], osk[64];
    CHECK_OK(snapf_open(&f));
    mero_ed25519_keypair(x, xsk);
    CHECK_OK(mero_gov_identity(f.n[0].store, f.ns, false, owner, NULL));
    CHECK_OK(mero_gov_identity_secret(f.n[0].store, f.ns, osk));
    CHECK_OK(mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 3, 3)); /* lamports 1..3 */
    CHECK_ERR(snapf_write_as(&f, &f.n[0], f.ctx, x, xsk, 3 + MERO_LAMPORT_STEP, "x", "far", false),
              -MERO_EPERM);
    CHECK_U64_EQ(kept(&f.n[0]), 1);
    CHECK_OK(snapf_write_as(&f, &f.n[0], f.ctx, owner, osk, 2, "z", "below the jump", false));
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_installed, 0);
    CHECK_U64_EQ(stats(r).snap_governance, 1);
    CHECK(snapf_value_is(r, f.ctx, "z", "below the jump"));
    CHECK_OK(
        mero_node_ctx_put(&f.n[0], f.ctx, "after", (const uint8_t *)"the jump", 8, false, 0, &err));
    for (int round = 0; round < 2; round++) {
        CHECK_OK(snapf_pull(&f, 0));
    }
    CHECK(snapf_value_is(r, f.ctx, "after", "the jump"));
    mero_wipe(osk, sizeof(osk));
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
}

/* (len u32, bytes) of every delta f->n[0] stores, in order */
static int all_deltas(struct mero_node *n, struct mero_buf *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(n->db, "SELECT bytes FROM ctx_delta ORDER BY seq", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        rc = mero_buf_append_u32le(out, (uint32_t)sqlite3_column_bytes(st, 0));
        if (rc == 0) {
            rc = mero_buf_append(out, sqlite3_column_blob(st, 0),
                                 (size_t)sqlite3_column_bytes(st, 0));
        }
    }
    sqlite3_finalize(st);
    return rc;
}

TEST(install_checks_clock_and_staleness)
{
    struct snapf f;
    struct mero_err err = {0};
    struct mero_buf all;
    bool gov = true; /* none of these refusals is the governance's */
    CHECK_OK(snapf_open(&f));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 5, 1)); /* k0 = v0..v4, lamports 1..5 */
    mero_buf_init(&all, 1u << 20);
    CHECK_OK(all_deltas(&f.n[0], &all));
    /* an entry beyond the clock the snapshot claims */
    CHECK_ERR(mero__node_ctx_snap_install(&f.n[2], f.ctx, 4, NULL, 0, all.data, all.len, true, "p",
                                          &gov, &err),
              -MERO_ECLOCK);
    CHECK(!gov);
    CHECK(!held_any(&f.n[2], f.ctx));
    /* every write of k0 as entries: the older ones are beaten by the newer, stale */
    struct mero_buf rev; /* newest first */
    mero_buf_init(&rev, 1u << 20);
    struct mero_cur c;
    size_t off[5], len[5], n = 0;
    mero_cur_init(&c, all.data, all.len);
    while (mero_cur_left(&c) > 0 && n < 5) {
        uint32_t l;
        const uint8_t *p;
        CHECK_OK(mero_cur_u32le(&c, &l));
        CHECK_OK(mero_cur_bytes(&c, l, &p));
        off[n] = (size_t)(p - all.data) - sizeof(uint32_t);
        len[n++] = l + sizeof(uint32_t);
    }
    CHECK_U64_EQ(n, 5);
    CHECK_OK(mero_buf_append(&rev, all.data + off[4], len[4]));
    CHECK_OK(mero_buf_append(&rev, all.data + off[0], len[0]));
    CHECK_ERR(mero__node_ctx_snap_install(&f.n[2], f.ctx, 5, NULL, 0, rev.data, rev.len, true, "p",
                                          &gov, &err),
              -MERO_ESTATE);
    CHECK(!held_any(&f.n[2], f.ctx));
    CHECK(snapf_value_is(&f.n[2], f.ctx, "k0", NULL));
    /* the stale entry with the newest write as a head: refused too */
    CHECK_ERR(mero__node_ctx_snap_install(&f.n[2], f.ctx, 5, all.data + off[4], len[4],
                                          all.data + off[0], len[0], true, "p", &gov, &err),
              -MERO_ESTATE);
    /* a flipped signature byte */
    struct mero_buf bad;
    mero_buf_init(&bad, 1u << 20);
    CHECK_OK(mero_buf_append(&bad, all.data + off[4], len[4]));
    bad.data[bad.len - 1] ^= 1;
    CHECK_ERR(mero__node_ctx_snap_install(&f.n[2], f.ctx, 5, NULL, 0, bad.data, bad.len, true, "p",
                                          &gov, &err),
              -MERO_EBADSIG);
    CHECK(!gov);
    CHECK(!held_any(&f.n[2], f.ctx));
    /* the newest alone installs */
    CHECK_OK(mero__node_ctx_snap_install(&f.n[2], f.ctx, 5, NULL, 0, all.data + off[4], len[4],
                                         true, "p", &gov, &err));
    CHECK(snapf_value_is(&f.n[2], f.ctx, "k0", "v4"));
    mero_buf_cleanup(&bad);
    mero_buf_cleanup(&rev);
    mero_buf_cleanup(&all);
    snapf_close(&f);
}

/* STATE ctx after, answered by n[0] for peer */
static int ask(struct snapf *f, struct mero_node_snap_sessions *t, const char *peer, uint64_t after,
               struct mero_buf *out)
{
    struct mero_buf req;
    struct mero_cur c;
    mero_buf_init(&req, MERO_CONTEXT_ID_LEN + sizeof(uint64_t));
    MERO_TRY(mero_buf_append(&req, f->ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY(mero_buf_append_u64le(&req, after));
    mero_cur_init(&c, req.data, req.len);
    out->len = 0;
    int rc = mero__node_snap_answer(&f->n[0], t, peer, &c, out);
    mero_buf_cleanup(&req);
    return rc;
}

TEST(page_codec_bounds_and_sessions)
{
    struct snapf f;
    struct mero_node_snap_sessions t;
    struct mero_buf out;
    struct mero_snap_page pg;
    memset(&t, 0, sizeof(t));
    CHECK_OK(snapf_open(&f));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 30, 3));
    mero_buf_init(&out, 4u << 20);
    CHECK_OK(ask(&f, &t, "peer-a", 0, &out));
    CHECK_OK(mero__node_snap_page_decode(out.data, out.len, &pg));
    CHECK_U64_EQ(pg.status, MERO_SNAP_OK);
    CHECK_U64_EQ(pg.clock, 30);
    CHECK_U64_EQ(pg.n, 3);
    CHECK_U64_EQ(pg.nheads, MERO_SNAP_HEADS_MAX);
    CHECK_U64_EQ(pg.next, 0);
    for (size_t cut = 0; cut < out.len; cut++) {
        CHECK_FAILS(mero__node_snap_page_decode(out.data, cut, &pg));
    }
    CHECK_OK(mero_buf_append_u8(&out, 0));
    CHECK_FAILS(mero__node_snap_page_decode(out.data, out.len, &pg));
    out.len--;
    /* counts and lengths beyond their maxima: status, clock, seq, tail, next, nheads */
    size_t at_nheads = 1 + 3 * sizeof(uint64_t) + MERO_DELTA_ID_LEN;
    uint8_t keep = out.data[at_nheads];
    out.data[at_nheads] = MERO_SNAP_HEADS_MAX + 1;
    CHECK_ERR(mero__node_snap_page_decode(out.data, out.len, &pg), -MERO_ETOOBIG);
    out.data[at_nheads] = keep;
    out.data[at_nheads + sizeof(uint32_t) + 3] = 0x7f; /* the first head's length, huge */
    CHECK_FAILS(mero__node_snap_page_decode(out.data, out.len, &pg));
    const uint8_t zero_len[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 /* nheads 0, n 1 */,
        0, 0, 0, 0 /* length 0 */};
    CHECK_FAILS(mero__node_snap_page_decode(zero_len, sizeof(zero_len), &pg));
    const uint8_t busy[] = {MERO_SNAP_BUSY}, odd[] = {7}, busy_more[] = {MERO_SNAP_BUSY, 0};
    CHECK_OK(mero__node_snap_page_decode(busy, sizeof(busy), &pg));
    CHECK_U64_EQ(pg.status, MERO_SNAP_BUSY);
    CHECK_FAILS(mero__node_snap_page_decode(odd, sizeof(odd), &pg));
    CHECK_FAILS(mero__node_snap_page_decode(busy_more, sizeof(busy_more), &pg));

    /* sessions: peer-a's ended with its last page; MERO_SNAP_SESSIONS more fill the table */
    for (size_t i = 0; i < MERO_SNAP_SESSIONS; i++) {
        char peer[16];
        snprintf(peer, sizeof(peer), "p%zu", i);
        CHECK_OK(ask(&f, &t, peer, 1, &out)); /* after 1: not the last page for these */
        t.s[i].set = true;                    /* as if a next page were to follow */
    }
    CHECK_OK(ask(&f, &t, "one-too-many", 0, &out));
    CHECK_OK(mero__node_snap_page_decode(out.data, out.len, &pg));
    CHECK_U64_EQ(pg.status, MERO_SNAP_BUSY);
    CHECK_OK(ask(&f, &t, "p0", 0, &out)); /* a session's own requester is still served */
    CHECK_OK(mero__node_snap_page_decode(out.data, out.len, &pg));
    CHECK_U64_EQ(pg.status, MERO_SNAP_OK);
    mero_buf_cleanup(&out);
    snapf_close(&f);
}

TEST(full_history_node_pulls_the_history)
{
    struct snapf f;
    struct mero_node *r = &f.n[2];
    CHECK_OK(snapf_open(&f));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 30, 3));
    r->full_history = true;
    CHECK_OK(snapf_pull(&f, 0));
    CHECK_U64_EQ(stats(r).snap_pages, 0);
    CHECK_U64_EQ(snapf_deltas(r), 30);
    CHECK(snapf_value_is(r, f.ctx, "k2", "v29"));
    snapf_close(&f);
}

MERO_TEST_MAIN(T(new_replica_installs_live_state_not_history),
               T(forged_snapshot_refused_and_fetched_elsewhere),
               T(stale_snapshot_refused_and_fetched_elsewhere),
               T(far_future_clock_waits_for_a_second_opinion_and_is_not_merged),
               T(far_future_clock_refused_by_a_second_opinion),
               T(live_state_holding_a_removed_author_s_write_gives_way_to_the_history),
               T(a_context_whose_history_gave_nothing_is_not_asked_for_its_live_state_again),
               T(a_delta_refused_for_now_does_not_hold_the_cursor),
               T(a_delta_refused_for_now_elsewhere_is_judged_afresh_too),
               T(writes_after_a_refused_clock_jump_are_taken),
               T(a_head_the_governance_here_refuses_sends_the_live_state_to_the_history),
               T(a_remembered_refusal_in_a_live_state_bans_nobody),
               T(a_generation_moving_within_a_pull_keeps_the_cursor_before_the_refusals),
               T(kept_deltas_are_judged_after_the_store_commits),
               T(kept_deltas_are_judged_a_bounded_number_at_a_time),
               T(a_pass_fed_faster_than_it_reads_still_ends),
               T(deltas_left_waiting_with_their_key_held_are_taken_at_start),
               T(a_refused_head_that_holds_the_clock_is_not_skipped),
               T(only_a_right_lost_keeps_a_delta), T(install_checks_clock_and_staleness),
               T(page_codec_bounds_and_sessions), T(full_history_node_pulls_the_history))
