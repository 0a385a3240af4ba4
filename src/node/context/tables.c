/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tables.c - the context tables of node.db: created at open (ctx_delta, ctx_kv, ctx_clock here;
 * ctx_intent and the TEMP memory of refusals by intent.c and refused.c), an older node.db
 * brought up to date once, and emptied at a self-purge.
 *
 * Invariants: open is idempotent, so `merod run` and `merod check` may both call it; a migration
 * runs in one transaction and derives what the apply path would have kept (each context's clock
 * from its deltas; the relayed intents applied before ctx_intent, counted once, recorded in
 * node_meta). A purge removes a namespace's or a group's contexts from every table in one
 * transaction, and forgets the for-now refusals of a purged namespace.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/gov.h"
#include "node/context/chain_internal.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

static const char *const schema[] = {
    "CREATE TABLE IF NOT EXISTS ctx_delta (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "hash BLOB UNIQUE NOT NULL, context BLOB NOT NULL, grp BLOB NOT NULL, "
    "bytes BLOB NOT NULL, applied INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ctx_delta_ctx ON ctx_delta(context, seq)",
    /* issue 30: the deltas kept without effect (MERO_CTX_KEPT), judged again by kept.c */
    "CREATE INDEX IF NOT EXISTS ctx_delta_kept ON ctx_delta(applied) WHERE applied = 2",
    /* the deltas held for a key (applied = 0), few beside the rest: the retry when a key arrives
     * or kept deltas pass again (apply.c, by group) and a read of a missing key (read.c, by
     * context) find them here instead of reading every delta of the table or context */
    "CREATE INDEX IF NOT EXISTS ctx_delta_pending_grp ON ctx_delta(grp) WHERE applied = 0",
    "CREATE INDEX IF NOT EXISTS ctx_delta_pending_ctx ON ctx_delta(context, seq) WHERE applied = 0",
    "CREATE TABLE IF NOT EXISTS ctx_kv (context BLOB NOT NULL, k TEXT NOT NULL, v BLOB NOT NULL, "
    "lamport INTEGER NOT NULL, hash BLOB NOT NULL, author BLOB NOT NULL, "
    "PRIMARY KEY(context, k))",
    "CREATE TABLE IF NOT EXISTS ctx_clock (context BLOB PRIMARY KEY, lamport INTEGER NOT NULL)",
    /* a context's values in rowid order (the rowid is the index's last column): each live-state
     * page (snap.c) reads its 256 rows from where the last ended, instead of joining and sorting
     * the whole rest of the context */
    "CREATE INDEX IF NOT EXISTS ctx_kv_page ON ctx_kv(context)",
    /* issue 30 (chain.c): each stored version-3 delta's link to its author's previous one */
    ("CREATE TABLE IF NOT EXISTS ctx_chain (hash BLOB PRIMARY KEY, context BLOB NOT NULL, "
     "author BLOB NOT NULL, prev BLOB NOT NULL, lamport INTEGER NOT NULL) WITHOUT ROWID"),
    "CREATE INDEX IF NOT EXISTS ctx_chain_author ON ctx_chain(context, author, lamport)",
};

/* A node.db made before ctx_clock existed (deltas but no clock row): derive each context's
 * clock from its stored deltas, the value the apply path would have kept. A stored lamport
 * beyond 2^63-1 (accepted before the bound) does not decode and is left out. */
static int clock_backfill(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT EXISTS(SELECT 1 FROM ctx_clock) OR "
                           "NOT EXISTS(SELECT 1 FROM ctx_delta)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    bool done = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    if (done) {
        return 0;
    }
    if (mero__node_db_exec(node->db, "BEGIN IMMEDIATE") < 0 ||
        sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta", -1, &st, NULL) != SQLITE_OK) {
        (void)mero__node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    int rc = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct mero_ctx_delta d;
        const uint8_t *p = sqlite3_column_blob(st, 0);
        int n = sqlite3_column_bytes(st, 0);
        if (p != NULL && n > 0 && mero__ctx_decode(p, (size_t)n, &d) == 0) {
            MERO_TRY_OUT(mero__ctx_clock_raise(node, d.ctx, d.lamport));
        }
    }
out:
    sqlite3_finalize(st);
    if (rc < 0 || mero__node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero__node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    return 0;
}

/*
 * issue 30: a node.db made before ctx_intent counts the relayed deltas it applied (each the one
 * copy of its intent that issue 15's first-seen rule kept), so their authors' chains start
 * complete. It needs the gov store for the group keys (merod check opens node.db without it):
 * done once, recorded in node_meta.
 */
#define META_INTENTS_COUNTED "ctx_intents_counted"
static int intent_backfill(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    bool done = false;
    int rc = 0;
    if (node->store == NULL) {
        return 0;
    }
    MERO_TRY(mero__node_meta_get(node->db, META_INTENTS_COUNTED, &done));
    if (done) {
        return 0;
    }
    MERO_TRY(mero__node_db_exec(node->db, "BEGIN IMMEDIATE"));
    MERO_ENSURE_OUT(sqlite3_prepare_v2(node->db,
                                       "SELECT hash, grp, bytes FROM ctx_delta WHERE applied = 1 "
                                       "ORDER BY seq",
                                       -1, &st, NULL) == SQLITE_OK,
                    NULL, MERO_EIO, "prepare");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        uint8_t hash[MERO_DELTA_ID_LEN], group[MERO_GROUP_ID_LEN], *pt = NULL;
        size_t pl = 0;
        struct mero_ctx_delta d;
        struct mero_ctx_write w;
        if (p == NULL || n == 0 || p[0] != MERO_DELTA_RELAYED_VERSION ||
            sqlite3_column_bytes(st, 0) != MERO_DELTA_ID_LEN ||
            sqlite3_column_bytes(st, 1) != MERO_GROUP_ID_LEN || mero__ctx_decode(p, n, &d) < 0) {
            continue;
        }
        memcpy(hash, sqlite3_column_blob(st, 0), sizeof(hash));
        memcpy(group, sqlite3_column_blob(st, 1), sizeof(group));
        if (mero__ctx_open_write(node, group, p, &d, &pt, &pl, &w, NULL) == 1 && w.relayed) {
            rc = mero__node_ctx_intent_count(node, group, &w.it, d.lamport, hash);
        }
        mero__ctx_close_write(pt, pl, &w);
        MERO_TRY_OUT(rc);
    }
    MERO_TRY_OUT(mero__node_meta_set(node->db, META_INTENTS_COUNTED, "1"));
out:
    sqlite3_finalize(st);
    if (rc < 0 || mero__node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero__node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    return 0;
}

int mero__node_ctx_open(struct mero_node *node, struct mero_err *err)
{
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        if (mero__node_db_exec(node->db, schema[i]) < 0) {
            return mero_err_set(err, MERO_EIO, "cannot create the context tables");
        }
    }
    if (clock_backfill(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot derive the context clocks");
    }
    /* issue 30: intents counted once, refusals remembered */
    if (mero__node_ctx_intent_open(node) < 0 || mero__node_ctx_refused_open(node) < 0 ||
        mero__node_ctx_snap_open(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot create the context tables");
    }
    if (intent_backfill(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot count the relayed intents already applied");
    }
    return 0;
}

void mero__node_ctx_close(struct mero_node *node)
{
    mero__ctx_vouch_free(node);
}

int mero__node_ctx_purge(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN])
{
    struct mero_gov_context *cs = NULL;
    size_t n = 0;
    bool whole = memcmp(ns, group, MERO_GROUP_ID_LEN) == 0;
    MERO_TRY(mero_gov_contexts(node->store, ns, &cs, &n));
    int rc;
    MERO_TRY_OUT(mero__node_db_exec(node->db, "BEGIN IMMEDIATE"));
    for (size_t i = 0; i < n; i++) {
        if (!whole && memcmp(cs[i].group, group, MERO_GROUP_ID_LEN) != 0) {
            continue;
        }
        MERO_TRY_OUT(mero__ctx_exec_hash(node, "DELETE FROM ctx_kv WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "DELETE FROM ctx_delta WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "DELETE FROM ctx_clock WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "DELETE FROM ctx_intent WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "DELETE FROM ctx_snapshot WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "DELETE FROM ctx_chain WHERE context = ?1", cs[i].id));
    }
    if (!whole) {
        MERO_TRY_OUT(mero__ctx_exec_hash(node, "DELETE FROM ctx_delta WHERE grp = ?1", group));
    }
out:
    free(cs);
    if (rc < 0 || mero__node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero__node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    if (whole) {
        mero__node_ctx_refusal_forget(node, ns);
    }
    return 0;
}
