/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kept.c - issue 30: deltas kept without effect. A delta refused for the state of governance
 * (its author may not write, its executor may not relay) whose author - and a relayed one's
 * executor - is a principal of the namespace (mero_gov_principal: it held a row there, or a
 * stored op names it; an author removed since, never a stranger) is stored with applied =
 * MERO_CTX_KEPT, not only remembered (refused.c):
 *   - the nodes that took it while the right held raised the context's clock to its lamport,
 *     and the writes after it are bounded by that clock (clock.c). A node that refuses it must
 *     still count it to take them, and serve it so that a peer syncing from it can too: a
 *     removed writer's one jump of MERO_LAMPORT_STEP left every later write of the context out
 *     of reach of every node that joined after the removal;
 *   - sync holds it (its cursor moves past it; nothing is fetched and refused again);
 *   - it takes no effect: no value, no intent counted, never served as live state;
 *   - it is judged again when governance may have granted a right (mero__node_ctx_rejudge, on
 *     an addition, a role or admin change, a TEE admission, a policy or a new group), and takes
 *     effect then through the one materialise path (apply.c's retry).
 *
 * Only a delta that raises the clock is kept (lamport above the context's clock and within its
 * step bound); one at or below it bounds nothing and is only remembered, as before. In a
 * snapshot the bound is the snapshot's clock, as for its other deltas: a head kept there holds
 * the clock the peer's later writes build on (a refused entry still refuses the snapshot whole,
 * kept heads included).
 *
 * Invariants: a kept delta is stored and raises the clock in one transaction, or neither. A
 * stranger's delta is never kept, and each kept delta raised a clock: a removed author grows a
 * node's store no faster than a member's writes do.
 */
#include <sqlite3.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/kept_internal.h"
#include "node/context/relay_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

#define KEPT_SCAN_MAX (16u << 20) /* the kept deltas judged again at once, copied out */

int mero__ctx_keepable(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                       const struct mero_ctx_delta *d, bool *yes)
{
    *yes = false;
    MERO_TRY(mero_gov_principal(node->store, ns, d->author, yes));
    if (*yes && d->version == MERO_DELTA_RELAYED_VERSION) {
        MERO_TRY(mero_gov_principal(node->store, ns, d->executor, yes));
    }
    return 0;
}

int mero__ctx_keep(struct mero_node *node, const uint8_t *bytes, size_t len,
                   const uint8_t hash[MERO_DELTA_ID_LEN], const struct mero_ctx_delta *d,
                   const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                   const uint64_t *snap_clock, bool *kept)
{
    bool principal = false;
    uint64_t clock = 0;
    *kept = false;
    MERO_TRY(mero__ctx_keepable(node, ns, d, &principal));
    if (!principal) {
        return 0;
    }
    bool outer = !sqlite3_get_autocommit(node->db);
    MERO_TRY(mero__node_db_exec(node->db, outer ? "SAVEPOINT ctx_keep" : "BEGIN IMMEDIATE"));
    sqlite3_stmt *st = NULL;
    int rc = mero__ctx_clock_of(node, d->ctx, &clock);
    bool bounded = snap_clock != NULL ? d->lamport <= *snap_clock
                                      : mero__lamport_admissible(clock, d->lamport);
    if (rc == 0 && (d->lamport <= clock || !bounded)) {
        /* at or below the clock it bounds nothing: remembered only; beyond the step bound, judged
         * again when sync brings what precedes it */
        rc = 1;
    }
    if (rc == 0 &&
        sqlite3_prepare_v2(node->db,
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
        rc = mero__ctx_clock_raise(node, d->ctx, d->lamport);
    }
    if (rc != 0) {
        (void)mero__node_db_exec(node->db, outer ? "ROLLBACK TO ctx_keep" : "ROLLBACK");
        if (outer) {
            (void)mero__node_db_exec(node->db, "RELEASE ctx_keep");
        }
        return rc < 0 ? rc : 0;
    }
    MERO_TRY(mero__node_db_exec(node->db, outer ? "RELEASE ctx_keep" : "COMMIT"));
    *kept = true;
    return 0;
}

/* Whether the kept delta p[0..n) of group passes governance's checks now (the author's role; a
 * relayed one's executor and clear header): its plaintext's checks are the retry's. */
static bool passes_now(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t *p, size_t n)
{
    struct mero_ctx_delta d;
    struct mero_err e = {0};
    bool for_now = false;
    if (mero__ctx_decode(p, n, &d) < 0 || mero__ctx_may_author(node, group, d.author, &e) < 0) {
        return false;
    }
    return d.version != MERO_DELTA_RELAYED_VERSION ||
           mero__ctx_relay_check(node, group, d.ctx, d.executor, d.author, d.relayed_at, NULL,
                                 false, &e, &for_now) == 0;
}

void mero__node_ctx_rejudge(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    _Static_assert(MERO_CTX_KEPT == 2, "the query and the index (tables.c) name it");
    if (sqlite3_prepare_v2(node->db, "SELECT grp, bytes FROM ctx_delta WHERE applied = 2", -1, &st,
                           NULL) != SQLITE_OK) {
        return;
    }
    struct mero_buf all; /* (group, len u32, bytes)* copied out before updating rows */
    mero_buf_init(&all, KEPT_SCAN_MAX);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_bytes(st, 1);
        if (sqlite3_column_bytes(st, 0) != MERO_GROUP_ID_LEN ||
            mero_buf_append(&all, sqlite3_column_blob(st, 0), MERO_GROUP_ID_LEN) < 0 ||
            mero_buf_append_u32le(&all, (uint32_t)n) < 0 ||
            mero_buf_append(&all, sqlite3_column_blob(st, 1), (size_t)n) < 0) {
            break; /* the rest waits for the next event */
        }
    }
    sqlite3_finalize(st);
    struct mero_cur c;
    mero_cur_init(&c, all.data, all.len);
    while (mero_cur_left(&c) > 0) {
        const uint8_t *group, *p;
        uint32_t n;
        uint8_t hash[MERO_DELTA_ID_LEN];
        if (mero_cur_bytes(&c, MERO_GROUP_ID_LEN, &group) < 0 || mero_cur_u32le(&c, &n) < 0 ||
            mero_cur_bytes(&c, n, &p) < 0) {
            break;
        }
        if (!passes_now(node, group, p, n)) {
            continue;
        }
        mero_sha256(hash, p, n);
        /* pending again: the retry materialises it now (or keeps it for its key) */
        if (mero__ctx_exec_hash(node, "UPDATE ctx_delta SET applied = 0 WHERE hash = ?1", hash) ==
            0) {
            mero__node_ctx_retry(node, group);
        }
    }
    mero_buf_cleanup(&all);
}
