/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store.c - a context's stored state in node.db: where a context belongs (gov), the deltas
 * (table ctx_delta, read by sync), the write a stored delta carries, opened under its group
 * key, and each key's visible value (table ctx_kv), kept by last-writer-wins.
 *
 * Invariants: a stored delta is immutable. The visible value of a key is the write with the
 * greatest position: a direct delta's (lamport, hash), a relayed intent's (leff, counted copy's
 * hash) (intent.c); mero__ctx_offer replaces a value only by a greater position, and positions
 * only grow as deltas arrive, so every member converges on the same state in any delivery
 * order. A plaintext opened here is wiped before it is freed (mero__ctx_close_write).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/node_internal.h"

int mero__node_ctx_lookup(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          uint8_t ns[MERO_NS_ID_LEN], uint8_t group[MERO_GROUP_ID_LEN])
{
    /* one lookup by the context's key, on every delta and every read: the namespaces' contexts
     * were read in full here before (2026-12-08) */
    return mero_gov_context_of(node->store, ctx, ns, group);
}

/*
 * d's plaintext, opened under the group key it names into *pt (owned: mero__ctx_close_write) and
 * parsed into w (which borrows it). 1 done, 0 the key is not held here, -MERO_ENOMEM, or a refusal
 * for good with the reason in err: the delta does not open or parse under the key it names.
 */
int mero__ctx_open_write(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                         const uint8_t *bytes, const struct mero_ctx_delta *d, uint8_t **pt,
                         size_t *pl, struct mero_ctx_write *w, struct mero_err *err)
{
    uint8_t key[MERO_GROUP_KEY_LEN];
    struct mero_err pe = {0};
    memset(w, 0, sizeof(*w));
    *pt = NULL;
    *pl = d->ct_len - MERO_AEAD_TAG_LEN;
    if (mero_gov_group_key_by_id(node->store, group, d->key_id, key) < 0) {
        return 0;
    }
    uint8_t *p = malloc(*pl ? *pl : 1);
    if (p == NULL) {
        mero_wipe(key, sizeof(key));
        return -MERO_ENOMEM;
    }
    int rc = mero_aes256gcm_open(p, d->ct, d->ct_len, bytes, d->aad_len, d->nonce, key);
    mero_wipe(key, sizeof(key));
    if (rc < 0) {
        rc = mero_err_set(err, MERO_EPROTO, "the delta does not open under the group key it names");
    } else if (mero__ctx_parse_write(d, p, *pl, w, &pe) < 0) {
        rc = mero_err_set(err, pe.code != 0 ? pe.code : MERO_EPROTO, "%s",
                          pe.code != 0 ? pe.msg : "the delta's plaintext is not a key and value");
    }
    if (rc < 0) {
        mero_wipe(w, sizeof(*w));
        mero_wipe(p, *pl ? *pl : 1);
        free(p);
        return rc;
    }
    *pt = p;
    return 1;
}

/* The plaintext of mero__ctx_open_write does not outlive its use, nor the relayed intent's copy of
 * the key.
 */
void mero__ctx_close_write(uint8_t *pt, size_t pl, struct mero_ctx_write *w)
{
    mero_wipe(w, sizeof(*w));
    if (pt != NULL) {
        mero_wipe(pt, pl ? pl : 1);
    }
    free(pt);
}

/* Offer w's key = value by author at position (lamport, hash) to ctx's last-writer-wins: it
 * replaces the key's value only when (lamport, hash) is greater than the current one's. */
int mero__ctx_offer(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                    const struct mero_ctx_write *w, uint64_t lamport,
                    const uint8_t hash[MERO_DELTA_ID_LEN], const uint8_t author[MERO_IDENTITY_LEN])
{
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO ctx_kv(context, k, v, lamport, hash, author) "
                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(context, k) DO UPDATE SET "
                      "v = excluded.v, lamport = excluded.lamport, hash = excluded.hash, "
                      "author = excluded.author WHERE excluded.lamport > ctx_kv.lamport OR "
                      "(excluded.lamport = ctx_kv.lamport AND excluded.hash > ctx_kv.hash)";
    if (sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, (const char *)w->k, (int)w->kl, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, w->vl ? (const void *)w->v : (const void *)"", (int)w->vl,
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)lamport); /* <= INT64_MAX: codec.c, intent.c */
    sqlite3_bind_blob(st, 5, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 6, author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_offer_stored(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                                const uint8_t hash[MERO_DELTA_ID_LEN], uint64_t lamport)
{
    uint8_t *bytes = NULL, *pt = NULL;
    size_t len = 0, pl = 0;
    struct mero_ctx_delta d;
    struct mero_ctx_write w;
    memset(&w, 0, sizeof(w));
    int rc = mero__node_ctx_delta(node, hash, &bytes, &len);
    if (rc == 0) {
        rc = mero__ctx_decode(bytes, len, &d) == 0
                 ? mero__ctx_open_write(node, group, bytes, &d, &pt, &pl, &w, NULL)
                 : -MERO_EIO;
    }
    if (rc == 0) {
        rc = -MERO_EIO; /* a counted copy was opened here to be counted: its key is held */
    }
    if (rc > 0) {
        rc = mero__ctx_clock_raise(node, d.ctx, lamport); /* a later local write sorts after it */
    }
    if (rc == 0) {
        rc = mero__ctx_offer(node, d.ctx, &w, lamport, hash, d.author);
    }
    mero__ctx_close_write(pt, pl, &w);
    free(bytes);
    return rc == -MERO_ENOMEM ? rc : rc < 0 ? -MERO_EIO : 0;
}

/* Run sql with ?1 bound to a 32-byte id: a delta's hash, or a context or group id. */
_Static_assert(MERO_DELTA_ID_LEN == MERO_CONTEXT_ID_LEN && MERO_CONTEXT_ID_LEN == MERO_GROUP_ID_LEN,
               "exec_hash binds a delta hash or a context or group id as one blob width");
int mero__ctx_exec_hash(struct mero_node *node, const char *sql,
                        const uint8_t id[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, id, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__ctx_query_u64(struct mero_node *node, const char *sql, mero__ctx_binder *bind,
                        const void *arg, uint64_t *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    bind(st, arg);
    int rc = sqlite3_step(st);
    sqlite3_int64 v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return -MERO_EIO;
    }
    *out = v > 0 ? (uint64_t)v : 0;
    return 0;
}

int mero__node_ctx_has(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT 1 FROM ctx_delta WHERE hash = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    *yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return 0;
}

/* The key's current value: 1 and its (lamport, hash, author) when there is one, 0 none. */
int mero__ctx_current(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const char *key, uint64_t *lamport, uint8_t hash[MERO_DELTA_ID_LEN],
                      uint8_t author[MERO_IDENTITY_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT lamport, hash, author FROM ctx_kv WHERE context = ?1 AND k = ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int found = 0;
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 1) == MERO_DELTA_ID_LEN &&
        sqlite3_column_bytes(st, 2) == MERO_IDENTITY_LEN) {
        sqlite3_int64 l = sqlite3_column_int64(st, 0);
        *lamport = l > 0 ? (uint64_t)l : 0;
        memcpy(hash, sqlite3_column_blob(st, 1), MERO_DELTA_ID_LEN);
        memcpy(author, sqlite3_column_blob(st, 2), MERO_IDENTITY_LEN);
        found = 1;
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        found = -MERO_EIO;
    }
    sqlite3_finalize(st);
    return found;
}

int mero__node_ctx_hashes(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          uint64_t after, size_t max, uint8_t (**out)[MERO_DELTA_ID_LEN], size_t *n,
                          uint64_t *last)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT seq, hash FROM ctx_delta WHERE context = ?1 AND seq > ?2 "
                           "ORDER BY seq LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    /* after comes from a peer: beyond SQLite's range means "after everything" (not wrapped) */
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(after > INT64_MAX ? INT64_MAX : after));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
    uint8_t(*v)[MERO_DELTA_ID_LEN] = malloc(max * sizeof(*v));
    size_t k = 0;
    uint64_t l = after;
    while (v != NULL && k < max && sqlite3_step(st) == SQLITE_ROW) {
        l = (uint64_t)sqlite3_column_int64(st, 0);
        if (sqlite3_column_bytes(st, 1) == MERO_DELTA_ID_LEN) {
            memcpy(v[k++], sqlite3_column_blob(st, 1), sizeof(v[k]));
        }
    }
    sqlite3_finalize(st);
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    *out = v;
    *n = k;
    *last = l;
    return 0;
}

int mero__node_ctx_delta(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                         uint8_t **out, size_t *len)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta WHERE hash = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_bytes(st, 0);
        uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
        if (p != NULL && n > 0) {
            memcpy(p, sqlite3_column_blob(st, 0), (size_t)n);
            *out = p;
            *len = (size_t)n;
            rc = 0;
        } else {
            free(p);
            rc = -MERO_ENOMEM;
        }
    }
    sqlite3_finalize(st);
    return rc;
}
