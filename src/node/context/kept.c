/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kept.c - issue 30: deltas kept without effect. A delta refused for the state of governance
 * that a right lost explains (mero__ctx_keepable: its author a principal of the namespace with no
 * role in the group now - removed or left -, or a relayed one's executor a principal that relays
 * there no longer) is stored with applied = MERO_CTX_KEPT when its lamport raises the context's
 * clock, not only remembered (refused.c):
 *   - the nodes that took it while the right held raised the context's clock to its lamport,
 *     and the writes after it are bounded by that clock (clock.c). A node that refuses it must
 *     still count it to take them, and serve it so that a peer syncing from it can too: a
 *     removed writer's one jump of MERO_LAMPORT_STEP left every later write of the context out
 *     of reach of every node that joined after the removal;
 *   - sync holds it (its cursor moves past it; nothing is fetched and refused again);
 *   - it takes no effect: no value, no intent counted, never served as live state;
 *   - it is judged again after a governance event (mero__node_ctx_rejudge, from the service's
 *     sync tick, once the store has committed), and takes effect then through the one
 *     materialise path (apply.c's retry), without a fetch.
 * A delta at or below the clock bounds nothing and is only remembered (unless a removal's cut of
 * its author names its context: chain.c needs its link stored); so is one a right lost does not
 * explain (a stranger's, a ReadOnly member's, a TEE's in its own name). Only the
 * ordinary apply path keeps: a snapshot holding such a delta sends its requester to the history
 * (sync_snap_pull.c), where it is kept.
 *
 * Invariants: a kept delta is stored and raises the clock in one transaction, or neither; the
 * judging again pages through every kept delta, KEPT_PAGE at a time and at most
 * MERO_CTX_REJUDGE_TICK in one call (one sync tick), so a removed author's many kept deltas cost
 * each tick a bounded time on the loop; a pass ends at the newest kept delta when it started, goes
 * on whatever events come (so events every tick cannot keep it from the rows past its first call)
 * and an event asks for a whole pass that starts after it; a delta that passes is retried alone
 * (mero__node_ctx_retry_one), not with every other delta of its group waiting for a key.
 */
#include <sqlite3.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/chain_internal.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/kept_internal.h"
#include "node/context/relay_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

#define KEPT_PAGE 256u /* kept deltas copied out and judged again at once */
/* one of them copied out: seq u64, group, len u32, the delta */
#define KEPT_ROW_MAX (sizeof(uint64_t) + MERO_GROUP_ID_LEN + sizeof(uint32_t) + MERO_DELTA_MAX)

int mero__ctx_keepable(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                       const uint8_t group[MERO_GROUP_ID_LEN], const struct mero_ctx_delta *d,
                       bool *yes)
{
    bool principal = false, relays = false;
    int role = MERO_ROLE_NONE, standing = MERO_ROLE_NONE;
    *yes = false;
    MERO_TRY(mero_gov_principal(node->store, ns, d->author, &principal));
    if (!principal) {
        return 0;
    }
    if (d->version != MERO_DELTA_RELAYED_VERSION) {
        MERO_TRY(mero_gov_effective_role(node->store, group, d->author, &role));
        *yes = role == MERO_ROLE_NONE; /* removed or left */
        return 0;
    }
    MERO_TRY(mero_gov_principal(node->store, ns, d->executor, &principal));
    if (!principal) {
        return 0;
    }
    MERO_TRY(mero_gov_relay_standing(node->store, group, d->executor, &standing, &relays));
    MERO_TRY(mero_gov_effective_role(node->store, ns, d->executor, &role));
    /* converted back to replica, or removed; never a member that no TEE ever was */
    *yes = !relays && (standing == MERO_ROLE_READONLY_TEE || role == MERO_ROLE_NONE);
    return 0;
}

/* issue 30 (chain.c): a version-3 delta of an author that an effective removal names a cut of
 * in its context is kept below the clock too: its link may be what the cut reaches the older
 * ones through, and only a stored link counts (remembered only, a chain arriving oldest first
 * was taken one link per sync round). */
static bool linked(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                   const struct mero_ctx_delta *d)
{
    uint8_t head[1][MERO_DELTA_ID_LEN];
    size_t n = 0;
    return d->version == MERO_DELTA_CHAINED_VERSION &&
           mero_gov_write_cuts(node->store, ns, d->author, d->ctx, head, 1, &n) == 0 && n > 0;
}

int mero__ctx_keep(struct mero_node *node, const uint8_t *bytes, size_t len,
                   const uint8_t hash[MERO_DELTA_ID_LEN], const struct mero_ctx_delta *d,
                   const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                   bool *kept)
{
    bool keepable = false;
    uint64_t clock = 0;
    *kept = false;
    /* the clock first (one read; the loop is the only writer): at or below it the delta bounds
     * nothing and is only remembered (but for a chain link, linked: one indexed lookup of cuts),
     * beyond the step bound it is judged again when sync brings what precedes it; so a flood of
     * such deltas costs no other governance lookups */
    MERO_TRY(mero__ctx_clock_of(node, d->ctx, &clock));
    if (!mero__lamport_admissible(clock, d->lamport)) {
        return 0;
    }
    if (d->lamport <= clock && !linked(node, ns, d)) {
        return 0;
    }
    MERO_TRY(mero__ctx_keepable(node, ns, group, d, &keepable));
    if (!keepable) {
        return 0;
    }
    bool outer = !sqlite3_get_autocommit(node->db);
    MERO_TRY(mero__node_db_exec(node->db, outer ? "SAVEPOINT ctx_keep" : "BEGIN IMMEDIATE"));
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(node->db,
                           "INSERT OR IGNORE INTO ctx_delta(hash, context, grp, bytes, applied) "
                           "VALUES(?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = -MERO_EIO;
    }
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, d->ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 4, bytes, (int)len, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, MERO_CTX_KEPT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    }
    sqlite3_finalize(st);
    if (rc == 0) {
        rc = mero__ctx_chain_note(node, d, hash); /* a link a removal's cut may reach through */
    }
    if (rc == 0) {
        rc = mero__ctx_clock_raise(node, d->ctx, d->lamport);
    }
    if (rc == 0) {
        rc = mero__node_db_exec(node->db, outer ? "RELEASE ctx_keep" : "COMMIT");
    }
    if (rc < 0) {
        (void)mero__node_db_exec(node->db, outer ? "ROLLBACK TO ctx_keep" : "ROLLBACK");
        if (outer) {
            (void)mero__node_db_exec(node->db, "RELEASE ctx_keep");
        }
        return rc;
    }
    *kept = true;
    return 0;
}

/* Whether the kept delta p[0..n) of group passes the apply path's governance checks now: its
 * plaintext's checks are the retry's. */
static bool passes_now(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t *p, size_t n)
{
    struct mero_ctx_delta d;
    struct mero_err e = {0};
    uint8_t hash[MERO_DELTA_ID_LEN];
    bool vouched = false;
    mero_sha256(hash, p, n);
    return mero__ctx_decode(p, n, &d) == 0 &&
           mero__ctx_may_carry(node, group, &d, hash, &e, &vouched) == 0;
}

/* Copy out the next page of kept deltas after seq `after`, up to seq `end`: (seq u64, group,
 * len u32, bytes)*. */
static size_t next_page(struct mero_node *node, uint64_t after, uint64_t end, struct mero_buf *out)
{
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    _Static_assert(MERO_CTX_KEPT == 2, "the query and the index (tables.c) name it");
    if (sqlite3_prepare_v2(node->db,
                           "SELECT seq, grp, bytes FROM ctx_delta WHERE applied = 2 AND seq > ?1 "
                           "AND seq <= ?3 ORDER BY seq LIMIT ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)after);
    sqlite3_bind_int(st, 2, (int)KEPT_PAGE);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)end);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int len = sqlite3_column_bytes(st, 2);
        if (sqlite3_column_bytes(st, 1) != MERO_GROUP_ID_LEN || len <= 0 ||
            (size_t)len > MERO_DELTA_MAX ||
            mero_buf_append_u64le(out, (uint64_t)sqlite3_column_int64(st, 0)) < 0 ||
            mero_buf_append(out, sqlite3_column_blob(st, 1), MERO_GROUP_ID_LEN) < 0 ||
            mero_buf_append_u32le(out, (uint32_t)len) < 0 ||
            mero_buf_append(out, sqlite3_column_blob(st, 2), (size_t)len) < 0) {
            break;
        }
        n++;
    }
    sqlite3_finalize(st);
    return n;
}

static void no_binds(struct sqlite3_stmt *st, const void *arg)
{
    (void)st;
    (void)arg;
}

bool mero__node_ctx_rejudge(struct mero_node *node)
{
    uint64_t after = node->ctx_rejudge_after;
    /* a pass starts: it ends at the newest kept delta now. One kept later was judged as it came,
     * and a pass fed faster than it reads would otherwise never end */
    if (after == 0 && mero__ctx_query_u64(node, "SELECT MAX(seq) FROM ctx_delta WHERE applied = 2",
                                          no_binds, NULL, &node->ctx_rejudge_end) < 0) {
        node->ctx_rejudge_due = true; /* unread: the next tick tries again */
        return true;
    }
    _Static_assert(MERO_CTX_REJUDGE_TICK % KEPT_PAGE == 0, "a call judges whole pages");
    for (unsigned pages = 0; pages < MERO_CTX_REJUDGE_TICK / KEPT_PAGE; pages++) {
        struct mero_buf page;
        struct mero_cur c;
        mero_buf_init(&page, (size_t)KEPT_PAGE * KEPT_ROW_MAX);
        size_t n = next_page(node, after, node->ctx_rejudge_end, &page);
        mero_cur_init(&c, page.data, page.len);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *group, *p;
            uint32_t len;
            uint8_t hash[MERO_DELTA_ID_LEN];
            if (mero_cur_u64le(&c, &after) < 0 ||
                mero_cur_bytes(&c, MERO_GROUP_ID_LEN, &group) < 0 || mero_cur_u32le(&c, &len) < 0 ||
                mero_cur_bytes(&c, len, &p) < 0) {
                n = 0;
                break;
            }
            if (!passes_now(node, group, p, len)) {
                continue;
            }
            mero_sha256(hash, p, len);
            /* pending again: its retry materialises it now (or keeps it for its key); this
             * delta alone, not its group's others waiting for a key (each pass would cost them
             * all again) */
            if (mero__ctx_exec_hash(node, "UPDATE ctx_delta SET applied = 0 WHERE hash = ?1",
                                    hash) == 0) {
                mero__node_ctx_retry_one(node, group, p, len);
            }
        }
        mero_buf_cleanup(&page);
        if (n < KEPT_PAGE) {
            node->ctx_rejudge_after = 0; /* every kept delta judged: from the first next time */
            return true;
        }
    }
    node->ctx_rejudge_after = after; /* the bound of one call reached: the rest next time */
    return false;
}

void mero__node_ctx_rejudge_tick(struct mero_node *node)
{
    if (node->ctx_rejudge_after == 0) {
        if (!node->ctx_rejudge_due) {
            return;
        }
        node->ctx_rejudge_due = false; /* the pass starting now follows every event so far */
    }
    (void)mero__node_ctx_rejudge(node); /* an event during it asks for the next (due again) */
}
