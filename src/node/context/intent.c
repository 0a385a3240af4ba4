/* SPDX-License-Identifier: Apache-2.0 */
/*
 * intent.c - one intent, one effect (issue 30, docs/relay.md "One intent, one effect"). A
 * member's signed intent may reach a context in several relayed deltas (copies: a client that
 * retries at a second relay, two relays posted at once). Every copy that passes the checks at
 * the cut is stored and counted here; the intent takes effect once, at a last-writer-wins
 * position that every node computes from the copies it holds, whatever their arrival order.
 *
 * Table ctx_intent, one row per intent (its id, SHA-256 of the signed bytes, which names its
 * context, author, nonce, times, key and value): lmax = the greatest lamport among its copies,
 * canon = the greatest delta hash among them (the copy the key's value names), and leff, its
 * clock for last-writer-wins. An author's intents on one key of one context form a chain in
 * issue order, (issued_at, intent id); along it
 *
 *     leff(first) = lmax(first),   leff(next) = max(lmax(next), leff(previous) + 1)
 *
 * (capped at MERO_LAMPORT_MAX), so a later-issued intent always sorts after an earlier one of
 * the same author, whatever the clocks of the relays that carried them. The intent's position
 * is (leff, canon), compared with direct writes' (lamport, hash) as last-writer-wins always did.
 *
 * Invariants: the row and every position are functions of the set of copies held, not of their
 * order; positions only grow as copies arrive (lmax, canon and, by induction along the chain,
 * leff are maxima), so keeping the greatest position per key in ctx_kv, offered again whenever
 * one grows, yields the same value on every node that holds the same deltas. Rows are never
 * pruned (one per relayed delta at most, as ctx_delta keeps the deltas), and go with a purge.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/intent.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

static const char *const schema[] = {
    ("CREATE TABLE IF NOT EXISTS ctx_intent (intent BLOB PRIMARY KEY, context BLOB NOT NULL, "
     "k TEXT NOT NULL, author BLOB NOT NULL, nonce BLOB NOT NULL, issued_at INTEGER NOT NULL, "
     "lmax INTEGER NOT NULL, leff INTEGER NOT NULL, canon BLOB NOT NULL)"),
    "CREATE INDEX IF NOT EXISTS ctx_intent_chain ON ctx_intent(context, k, author, issued_at, "
    "intent)",
    "CREATE INDEX IF NOT EXISTS ctx_intent_nonce ON ctx_intent(author, nonce)",
    /* issue 15's first-seen replay table, replaced by ctx_intent */
    "DROP INDEX IF EXISTS ctx_intent_seen_exp",
    "DROP TABLE IF EXISTS ctx_intent_seen",
};

int mero__node_ctx_intent_open(struct mero_node *node)
{
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        MERO_TRY(mero__node_db_exec(node->db, schema[i]));
    }
    return 0;
}

static sqlite3_int64 i64(uint64_t v)
{
    return (sqlite3_int64)(v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v);
}

/* One link of an author's chain whose clock changed: its new leff and its counted copy. */
struct link {
    uint8_t id[MERO_INTENT_ID_LEN];
    uint8_t canon[MERO_DELTA_ID_LEN];
    uint64_t leff;
};

/* An intent's place in its author's chain: the five parameters both chain queries take. */
struct chain_key {
    const struct mero_intent *it;
    const uint8_t *id;
};

static void bind_chain_key(sqlite3_stmt *st, const void *arg)
{
    const struct chain_key *c = arg;
    sqlite3_bind_blob(st, 1, c->it->context, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, c->it->key, (int)c->it->key_len, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, c->it->author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, i64(c->it->issued_at));
    sqlite3_bind_blob(st, 5, c->id, MERO_INTENT_ID_LEN, SQLITE_STATIC);
}

/* The leff of the intent just before (issued_at, id) in its author's chain; 0 when none. */
static int prev_leff(struct mero_node *node, const struct mero_intent *it,
                     const uint8_t id[MERO_INTENT_ID_LEN], uint64_t *out)
{
    const struct chain_key c = {.it = it, .id = id};
    return mero__ctx_query_u64(node,
                               "SELECT leff FROM ctx_intent WHERE context = ?1 AND k = ?2 AND "
                               "author = ?3 AND (issued_at, intent) < (?4, ?5) "
                               "ORDER BY issued_at DESC, intent DESC LIMIT 1",
                               bind_chain_key, &c, out);
}

/* leff of a link whose own copies reach lmax, after a link at prev (0: it is the first). */
static uint64_t next_leff(uint64_t lmax, uint64_t prev)
{
    uint64_t after = prev >= MERO_LAMPORT_MAX ? MERO_LAMPORT_MAX : prev + 1;
    return prev == 0 || lmax > after ? lmax : after;
}

/*
 * From intent id on, the links of its chain whose leff is not what the rule gives any more:
 * the intent itself always (its copies just changed), then each successor until one keeps its
 * leff (the rule depends only on the link before, so none after it changes either). *out
 * owned (free()).
 */
static int chain_changes(struct mero_node *node, const struct mero_intent *it,
                         const uint8_t id[MERO_INTENT_ID_LEN], uint64_t prev, struct link **out,
                         size_t *n)
{
    sqlite3_stmt *st = NULL;
    struct link *v = NULL;
    size_t k = 0, cap = 0;
    int rc = 0, step;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT intent, lmax, leff, canon FROM ctx_intent WHERE context = ?1 "
                           "AND k = ?2 AND author = ?3 AND (issued_at, intent) >= (?4, ?5) "
                           "ORDER BY issued_at, intent",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    const struct chain_key c = {.it = it, .id = id};
    bind_chain_key(st, &c);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 lmax = sqlite3_column_int64(st, 1), leff = sqlite3_column_int64(st, 2);
        uint64_t want = next_leff(lmax > 0 ? (uint64_t)lmax : 0, prev);
        if (sqlite3_column_bytes(st, 0) != MERO_INTENT_ID_LEN ||
            sqlite3_column_bytes(st, 3) != MERO_DELTA_ID_LEN) {
            rc = -MERO_EIO;
            break;
        }
        if (k > 0 && leff > 0 && (uint64_t)leff == want) {
            break;
        }
        if (k == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            struct link *nv = realloc(v, ncap * sizeof(*v));
            if (nv == NULL) {
                rc = -MERO_ENOMEM;
                break;
            }
            v = nv;
            cap = ncap;
        }
        memcpy(v[k].id, sqlite3_column_blob(st, 0), MERO_INTENT_ID_LEN);
        memcpy(v[k].canon, sqlite3_column_blob(st, 3), MERO_DELTA_ID_LEN);
        v[k].leff = want;
        prev = want;
        k++;
    }
    if (rc == 0 && step != SQLITE_ROW && step != SQLITE_DONE) {
        rc = -MERO_EIO;
    }
    sqlite3_finalize(st);
    if (rc == 0 && k == 0) {
        rc = -MERO_EIO; /* the intent's own row, just written, was not found */
    }
    if (rc < 0) {
        free(v);
        return rc;
    }
    *out = v;
    *n = k;
    return 0;
}

static int set_leff(struct mero_node *node, const struct link *l)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "UPDATE ctx_intent SET leff = ?1 WHERE intent = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_int64(st, 1, i64(l->leff));
    sqlite3_bind_blob(st, 2, l->id, MERO_INTENT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_intent_count(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                                const struct mero_intent *it, uint64_t lamport,
                                const uint8_t hash[MERO_DELTA_ID_LEN])
{
    uint8_t id[MERO_INTENT_ID_LEN];
    sqlite3_stmt *st = NULL;
    MERO_TRY(mero_intent_id(it, id));
    if (sqlite3_prepare_v2(
            node->db,
            "INSERT INTO ctx_intent(intent, context, k, author, nonce, issued_at, lmax, leff, "
            "canon) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8) ON CONFLICT(intent) DO UPDATE SET "
            "lmax = MAX(lmax, excluded.lmax), canon = MAX(canon, excluded.canon)",
            -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, id, MERO_INTENT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, it->context, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, it->key, (int)it->key_len, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, it->author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 5, it->nonce, MERO_INTENT_NONCE_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, i64(it->issued_at));
    sqlite3_bind_int64(st, 7, i64(lamport));
    sqlite3_bind_blob(st, 8, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    MERO_TRY(rc);
    uint64_t prev = 0;
    struct link *ch = NULL;
    size_t n = 0;
    MERO_TRY(prev_leff(node, it, id, &prev));
    MERO_TRY(chain_changes(node, it, id, prev, &ch, &n));
    /* each changed link moves up (never down): offer its new position to the key's value */
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = set_leff(node, &ch[i]);
        if (rc == 0) {
            rc = mero__node_ctx_offer_stored(node, group, ch[i].canon, ch[i].leff);
        }
    }
    free(ch);
    return rc;
}

int mero__node_ctx_intent_held(struct mero_node *node, const uint8_t id[MERO_INTENT_ID_LEN],
                               uint8_t canon[MERO_DELTA_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = NULL;
    *yes = false;
    if (sqlite3_prepare_v2(node->db, "SELECT canon FROM ctx_intent WHERE intent = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, id, MERO_INTENT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_DELTA_ID_LEN) {
        memcpy(canon, sqlite3_column_blob(st, 0), MERO_DELTA_ID_LEN);
        *yes = true;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_intent_nonce_taken(struct mero_node *node, const struct mero_intent *it,
                                      const uint8_t id[MERO_INTENT_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = NULL;
    *yes = false;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT 1 FROM ctx_intent WHERE author = ?1 AND nonce = ?2 AND "
                           "intent <> ?3 LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, it->author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, it->nonce, MERO_INTENT_NONCE_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, id, MERO_INTENT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}
