/* SPDX-License-Identifier: Apache-2.0 */
/*
 * refused.c - no refusal loops (issue 30): the deltas this node refused, remembered by hash
 * so that sync does not fetch and refuse them again at every round, nor gossip log them again.
 *
 * A refusal is remembered in one of two ways (mero__node_ctx_apply decides which):
 *   - for good, when the reason depends only on the delta's bytes (it does not decode, a bad
 *     signature, a carried intent that is forged, for another context, expired at relayed_at,
 *     outside its warrant, a delete, a ciphertext that does not open under the key it names):
 *     the same bytes are refused the same way forever, so sync treats the hash as settled and
 *     its cursor moves past it;
 *   - for now, when the reason is the namespace's governance state (the author may not write,
 *     the executor may not relay): remembered with the state's generation (the seq of the
 *     namespace's newest op plus the node's count of governance events); while it is unchanged the
 * delta is neither fetched nor refused again; sync's cursor passes it noting that generation and is
 *     dropped once it moves, so the next pull fetches it and judges it afresh (sync.c). One a
 *     right lost explains is kept without effect instead when it raises the clock (kept.c).
 * Other refusals (an unknown context, a lamport beyond the context clock, I/O) are not
 * remembered: they resolve as sync brings what they wait for.
 *
 * Invariants: memory stays bounded under a flood: at most MERO_CTX_REFUSED_MAX entries, the
 * oldest forgotten first (a forgotten delta may be refused once more). The table is TEMP (in
 * the node.db connection, gone at restart, never synced to disk), so a flood of bad deltas
 * costs no disk writes, and a restart judges everything afresh once.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "mero/gov.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

int mero__node_ctx_refused_open(struct mero_node *node)
{
    return mero__node_db_exec(node->db,
                              "CREATE TEMP TABLE IF NOT EXISTS ctx_refused (seq INTEGER PRIMARY "
                              "KEY, hash BLOB UNIQUE NOT NULL, ns BLOB, gen INTEGER NOT NULL, "
                              "code INTEGER NOT NULL, why TEXT NOT NULL)");
}

int mero__node_ctx_gov_gen(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], uint64_t *gen)
{
    uint64_t ops = 0; /* the newest op's seq: moves with every op stored, read from one entry */
    if (node->store == NULL || mero_gov_op_last_seq(node->store, ns, &ops) < 0) {
        return -MERO_EIO;
    }
    *gen = (ops + node->gov_gen) & (uint64_t)INT64_MAX;
    return 0;
}

void mero__node_ctx_refusal_note(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                                 const uint8_t *ns, int code, const char *why, bool *first)
{
    sqlite3_stmt *st = NULL;
    uint64_t gen = 0;
    *first = true;
    if (ns != NULL && mero__node_ctx_gov_gen(node, ns, &gen) < 0) {
        return; /* not remembered: judged again next time */
    }
    if (sqlite3_prepare_v2(node->db, "DELETE FROM ctx_refused WHERE hash = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(node->db) > 0) {
        *first = false;
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(node->db,
                           "INSERT INTO ctx_refused(hash, ns, gen, code, why) "
                           "VALUES(?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK) {
        return;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    if (ns != NULL) {
        sqlite3_bind_blob(st, 2, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    }
    sqlite3_bind_int64(st, 3, (sqlite3_int64)gen);
    sqlite3_bind_int(st, 4, code);
    sqlite3_bind_text(st, 5, why, -1, SQLITE_STATIC);
    (void)sqlite3_step(st);
    sqlite3_finalize(st);
    /* bounded: forget the oldest beyond the cap */
    if (sqlite3_prepare_v2(node->db,
                           "DELETE FROM ctx_refused WHERE seq <= "
                           "(SELECT MAX(seq) FROM ctx_refused) - ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, MERO_CTX_REFUSED_MAX);
    (void)sqlite3_step(st);
    sqlite3_finalize(st);
}

int mero__node_ctx_refusal_get(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                               int *state, struct mero_err *why)
{
    sqlite3_stmt *st = NULL;
    *state = MERO_CTX_UNKNOWN;
    if (sqlite3_prepare_v2(node->db, "SELECT ns, gen, code, why FROM ctx_refused WHERE hash = ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        uint8_t ns[MERO_NS_ID_LEN];
        uint64_t gen = 0;
        bool for_good = sqlite3_column_type(st, 0) == SQLITE_NULL;
        if (for_good) {
            *state = MERO_CTX_REFUSED;
        } else if (sqlite3_column_bytes(st, 0) == MERO_NS_ID_LEN) {
            memcpy(ns, sqlite3_column_blob(st, 0), sizeof(ns));
            if (mero__node_ctx_gov_gen(node, ns, &gen) == 0 &&
                (uint64_t)sqlite3_column_int64(st, 1) == gen) {
                *state = MERO_CTX_REFUSED_FOR_NOW;
            }
        }
        if (*state != MERO_CTX_UNKNOWN && why != NULL) {
            const unsigned char *t = sqlite3_column_text(st, 3);
            why->code = sqlite3_column_int(st, 2);
            snprintf(why->msg, sizeof(why->msg), "%s", t != NULL ? (const char *)t : "");
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_known(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN], int *state)
{
    bool have = false;
    MERO_TRY(mero__node_ctx_has(node, hash, &have));
    if (have) {
        *state = MERO_CTX_HELD;
        return 0;
    }
    return mero__node_ctx_refusal_get(node, hash, state, NULL);
}

void mero__node_ctx_refusal_forget(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "DELETE FROM ctx_refused WHERE ns = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    (void)sqlite3_step(st);
    sqlite3_finalize(st);
}
