/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_table.c - the `fold` table (issue 30, docs/governance.md "State resolution"): each stored
 * op's place in the canonical order and its outcome there. An op's place (its class, its
 * parents' depths), whether it sorts after every placed op of its namespace, a namespace's ops
 * in canonical order as a re-fold walks them, and the outcomes a fold changed, written when it
 * ends. Gov's read floor: it calls only the store.
 *
 * Invariants: the table is keyed by (ns, hash), so one namespace's rows are one range: the
 * order is read in one pass of that range and one of the namespace's log rows, matched and
 * sorted in memory (a join, or an index walk, cost a lookup at a random place per op, most of a
 * re-fold's time); the order is (depth, class, hash), the same on every node; an outcome a fold
 * keeps (mero__gov_fold_outcome_keep) reaches the table only through
 * mero__gov_fold_outcomes_store, in key order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"

#define ORDER_FIRST_CAP 64 /* ops of a namespace read before an order array first grows */

static const char SQL_DEPTH[] = "SELECT depth FROM fold WHERE ns = ? AND hash = ?";
static const char SQL_LAST[] =
    "SELECT depth, cls, hash FROM fold WHERE ns = ? ORDER BY depth DESC, cls DESC, hash DESC"
    " LIMIT 1";
static const char SQL_FOLD_PUT[] =
    "INSERT OR REPLACE INTO fold(hash, ns, depth, cls, state, reason) VALUES(?, ?, ?, ?, ?, ?)";
static const char SQL_FOLD_STATE[] =
    "UPDATE fold SET state = ?, reason = ? WHERE ns = ? AND hash = ?";
/* a namespace's places and stored outcomes (one range of the table, by hash) and its ops' log
 * rows (in log order, index ops_ns): mero__gov_fold_order matches and sorts them in memory */
static const char SQL_FOLD_ROWS[] = "SELECT hash, state, depth, cls FROM fold WHERE ns = ?";
static const char SQL_OPS_ROWS[] =
    "SELECT hash, seq FROM ops INDEXED BY ops_ns WHERE ns = ? ORDER BY seq";
static const char SQL_STATE_OF[] = "SELECT state, reason FROM fold"
                                   " WHERE ns = (SELECT ns FROM ops WHERE hash = ?1) AND hash = ?1";

int mero__gov_fold_class(const struct mero_op *op)
{
    if (op->scope == MERO_SCOPE_ROOT) {
        return op->kind == MERO_ROOT_ADMIN_CHANGED ? 0 : 1;
    }
    if (op->scope != MERO_SCOPE_GROUP) {
        return 1; /* the encrypted form carries only admissions */
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_REMOVED:
    case MERO_GROUP_MEMBER_ROLE_SET:
    case MERO_GROUP_MEMBER_LEFT:
    case MERO_GROUP_TEE_POLICY_SET:
    case MERO_GROUP_TEE_POLICY_SET_V2:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET_V2:
        return 0;
    default:
        return 1;
    }
}

int mero__gov_fold_key(struct mero_store *s, const struct mero_op *op,
                       const uint8_t hash[MERO_OP_ID_LEN], struct gov_fold_key *k)
{
    memset(k, 0, sizeof(*k));
    memcpy(k->hash, hash, sizeof(k->hash));
    k->cls = mero__gov_fold_class(op);
    for (uint32_t i = 0; i < op->n_parents; i++) {
        sqlite3_stmt *st = mero__gov_stmt(s, SQL_DEPTH);
        if (st == NULL) {
            return -MERO_EIO;
        }
        sqlite3_bind_blob(st, 1, op->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, op->parents[i], MERO_OP_ID_LEN, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        int64_t d = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_reset(st);
        if (d < 0) {
            return -MERO_EIO; /* a stored parent always has its place */
        }
        if ((uint64_t)d + 1 > k->depth) {
            k->depth = (uint64_t)d + 1;
        }
    }
    return 0;
}

static int key_cmp(const struct gov_fold_key *a, const struct gov_fold_key *b)
{
    if (a->depth != b->depth) {
        return a->depth < b->depth ? -1 : 1;
    }
    if (a->cls != b->cls) {
        return a->cls < b->cls ? -1 : 1;
    }
    return memcmp(a->hash, b->hash, sizeof(a->hash));
}

int mero__gov_fold_is_last(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                           const struct gov_fold_key *k, bool *last)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_LAST);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *last = true;
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 2) == MERO_OP_ID_LEN) {
        struct gov_fold_key top = {.depth = (uint64_t)sqlite3_column_int64(st, 0),
                                   .cls = sqlite3_column_int(st, 1)};
        memcpy(top.hash, sqlite3_column_blob(st, 2), sizeof(top.hash));
        *last = key_cmp(k, &top) > 0;
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__gov_fold_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                       const struct gov_fold_key *k, int state, const char *reason)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_FOLD_PUT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, k->hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)k->depth);
    sqlite3_bind_int(st, 4, k->cls);
    sqlite3_bind_int(st, 5, state);
    sqlite3_bind_text(st, 6, reason != NULL ? reason : "", -1, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero__gov_fold_state_set(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                             const uint8_t hash[MERO_OP_ID_LEN], int state, const char *reason)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_FOLD_STATE);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_int(st, 1, state);
    sqlite3_bind_text(st, 2, reason != NULL ? reason : "", -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero_gov_op_state(struct mero_store *s, const uint8_t hash[static MERO_OP_ID_LEN], int *state,
                      char *reason, size_t cap)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_STATE_OF);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *state = sqlite3_column_int(st, 0);
        if (reason != NULL && cap > 0) {
            const char *r = (const char *)sqlite3_column_text(st, 1);
            snprintf(reason, cap, "%s", r != NULL ? r : "");
        }
    }
    sqlite3_reset(st);
    if (rc == SQLITE_DONE) {
        return -MERO_ENOTFOUND;
    }
    return rc == SQLITE_ROW ? 0 : -MERO_EIO;
}

/* One op of the log: its hash and row. */
struct op_row {
    uint8_t hash[MERO_OP_ID_LEN];
    int64_t seq;
};

static int row_cmp(const void *a, const void *b)
{
    return memcmp(((const struct op_row *)a)->hash, ((const struct op_row *)b)->hash,
                  MERO_OP_ID_LEN);
}

/* Grow *v (of *cap elements of size each) to hold one more than cnt. */
static int grow(void **v, size_t *cap, size_t cnt, size_t each)
{
    if (cnt < *cap) {
        return 0;
    }
    size_t ncap = *cap ? *cap * 2 : ORDER_FIRST_CAP;
    void *nv = reallocarray(*v, ncap, each);
    if (nv == NULL) {
        return -MERO_ENOMEM;
    }
    *v = nv;
    *cap = ncap;
    return 0;
}

/* One element of `each` bytes per row of st (bound, not yet stepped), whose first column is an
 * op hash: fill(st, hash, slot, ctx) writes the slot. *out owned (NULL when no row), then sorted
 * with cmp; st is reset. */
typedef int (*row_fill_fn)(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx);
static int read_rows(sqlite3_stmt *st, size_t each, row_fill_fn fill, const void *ctx,
                     int (*cmp)(const void *, const void *), void **out, size_t *n)
{
    void *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        rc = sqlite3_column_bytes(st, 0) == MERO_OP_ID_LEN ? grow(&v, &cap, cnt, each) : -MERO_EIO;
        rc = rc == 0 ? fill(st, sqlite3_column_blob(st, 0), (uint8_t *)v + cnt * each, ctx) : rc;
        if (rc < 0) {
            break;
        }
        cnt++;
    }
    if (rc == 0 && step != SQLITE_DONE) {
        rc = -MERO_EIO;
    }
    sqlite3_reset(st);
    if (rc < 0) {
        free(v);
        return rc;
    }
    if (cnt > 1) {
        qsort(v, cnt, each, cmp);
    }
    *out = v;
    *n = cnt;
    return 0;
}

static int row_fill(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx)
{
    (void)ctx;
    struct op_row *r = slot;
    memcpy(r->hash, hash, MERO_OP_ID_LEN);
    r->seq = sqlite3_column_int64(st, 1);
    return 0;
}

/* The log rows of a namespace's ops, sorted by hash. */
struct op_rows {
    struct op_row *v;
    size_t n;
};

static int entry_fill(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx)
{
    const struct op_rows *rows = ctx;
    struct op_row key = {.seq = 0};
    memcpy(key.hash, hash, MERO_OP_ID_LEN);
    const struct op_row *row =
        rows->n > 0 ? bsearch(&key, rows->v, rows->n, sizeof(*rows->v), row_cmp) : NULL;
    if (row == NULL) {
        return -MERO_EIO; /* every op of the fold is in the log */
    }
    struct gov_fold_entry *f = slot;
    *f = (struct gov_fold_entry){
        .k = {.depth = (uint64_t)sqlite3_column_int64(st, 2), .cls = sqlite3_column_int(st, 3)},
        .prior = sqlite3_column_int(st, 1),
        .seq = row->seq};
    memcpy(f->k.hash, hash, MERO_OP_ID_LEN);
    return 0;
}

static int place_cmp(const void *a, const void *b)
{
    return key_cmp(&((const struct gov_fold_entry *)a)->k, &((const struct gov_fold_entry *)b)->k);
}

int mero__gov_fold_order(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         struct gov_fold_entry **out, size_t *n)
{
    struct op_rows rows = {0};
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_OPS_ROWS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    MERO_TRY(read_rows(st, sizeof(*rows.v), row_fill, NULL, row_cmp, (void **)&rows.v, &rows.n));
    st = mero__gov_stmt(s, SQL_FOLD_ROWS);
    int rc = st == NULL ? -MERO_EIO : 0;
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        rc = read_rows(st, sizeof(**out), entry_fill, &rows, place_cmp, (void **)out, n);
    }
    free(rows.v);
    return rc;
}

int mero__gov_fold_outcome_keep(struct gov_fold_entry *f, int state, const char *reason)
{
    f->store = true;
    f->state = state;
    free(f->reason);
    f->reason = reason[0] != '\0' ? strdup(reason) : NULL;
    return reason[0] != '\0' && f->reason == NULL ? -MERO_ENOMEM : 0;
}

static int entry_hash_cmp(const void *a, const void *b)
{
    return memcmp((*(const struct gov_fold_entry *const *)a)->k.hash,
                  (*(const struct gov_fold_entry *const *)b)->k.hash, MERO_OP_ID_LEN);
}

/* The outcomes the fold changed, written in the fold table's key order ((ns, hash)): when a
 * re-fold changes most outcomes (a revoked signer), writing them in canonical order was a walk
 * to a random place of the table per op. */
int mero__gov_fold_outcomes_store(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                                  struct gov_fold_entry *order, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        k += order[i].store;
    }
    if (k == 0) {
        return 0;
    }
    struct gov_fold_entry **v = calloc(k, sizeof(*v));
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (order[i].store) {
            v[k++] = &order[i];
        }
    }
    qsort(v, k, sizeof(*v), entry_hash_cmp);
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++) {
        rc = mero__gov_fold_state_set(s, ns, v[i]->k.hash, v[i]->state, v[i]->reason);
    }
    free(v);
    return rc;
}

void mero__gov_fold_order_free(struct gov_fold_entry *order, size_t n)
{
    for (size_t i = 0; order != NULL && i < n; i++) {
        free(order[i].reason);
    }
    free(order);
}
