/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_table.c - the `fold` table (issue 30, docs/governance.md "State resolution"): each stored
 * op's place in the canonical order and its outcome there. An op's place (its class, its
 * parents' depths), whether it sorts after every placed op of its namespace, a namespace's ops
 * in canonical order as a re-fold walks them, and the outcomes a fold changed, written when it
 * ends. Gov's read floor: it calls only the store.
 *
 * Invariants: the table is keyed by (ns, hash), so one namespace's rows are one range: the
 * order is read in one pass of that range (in hash order) and one of the namespace's log rows
 * (in log order, from the index alone), matched in memory and sorted where log order is not
 * already the canonical one (a join, or an index walk, cost a lookup at a random place per op,
 * most of a re-fold's time); the order is (depth, class, hash), the same on every node; an
 * outcome a fold keeps (mero__gov_fold_outcome_keep) reaches the table only through
 * mero__gov_fold_outcomes_store, one UPDATE that walks the range in key order.
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
/* a namespace's places and stored outcomes (one range of the table, in hash order) and its ops'
 * log rows (in log order, index ops_ns): mero__gov_fold_order matches them in memory */
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

/* One row of the fold table: an op's place and its stored outcome. */
struct fold_row {
    struct gov_fold_key k;
    int prior;
};

static int fold_row_cmp(const void *a, const void *b)
{
    return memcmp(((const struct fold_row *)a)->k.hash, ((const struct fold_row *)b)->k.hash,
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

/* v in cmp's order, sorted only where it is not: the fold rows come in the table's key order
 * and the log's rows in log order, which is already the canonical order wherever no two ops
 * were concurrent. */
static void sort_unless_sorted(void *v, size_t n, size_t each,
                               int (*cmp)(const void *, const void *))
{
    for (size_t i = 1; i < n; i++) {
        if (cmp((const uint8_t *)v + (i - 1) * each, (const uint8_t *)v + i * each) > 0) {
            qsort(v, n, each, cmp);
            return;
        }
    }
}

/* One element of `each` bytes per row of st (bound, not yet stepped), whose first column is an
 * op hash: fill(st, hash, slot, ctx) writes the slot. *out owned (NULL when no row), in cmp's
 * order; st is reset. expect: the number of rows when known (room for them is made at once),
 * else 0. */
typedef int (*row_fill_fn)(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx);
static int read_rows(sqlite3_stmt *st, size_t each, size_t expect, row_fill_fn fill,
                     const void *ctx, int (*cmp)(const void *, const void *), void **out, size_t *n)
{
    void *v = expect > 0 ? reallocarray(NULL, expect, each) : NULL;
    size_t cnt = 0, cap = v != NULL ? expect : 0;
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
    sort_unless_sorted(v, cnt, each, cmp);
    *out = v;
    *n = cnt;
    return 0;
}

static int fold_row_fill(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx)
{
    (void)ctx;
    struct fold_row *r = slot;
    *r = (struct fold_row){
        .k = {.depth = (uint64_t)sqlite3_column_int64(st, 2), .cls = sqlite3_column_int(st, 3)},
        .prior = sqlite3_column_int(st, 1)};
    memcpy(r->k.hash, hash, MERO_OP_ID_LEN);
    return 0;
}

/* A namespace's fold rows, sorted by hash. */
struct fold_rows {
    struct fold_row *v;
    size_t n;
};

/* The entry of one log row: its fold row's place and outcome, and the row. */
static int entry_fill(sqlite3_stmt *st, const uint8_t *hash, void *slot, const void *ctx)
{
    const struct fold_rows *rows = ctx;
    struct fold_row key = {.prior = 0};
    memcpy(key.k.hash, hash, MERO_OP_ID_LEN);
    const struct fold_row *row =
        rows->n > 0 ? bsearch(&key, rows->v, rows->n, sizeof(*rows->v), fold_row_cmp) : NULL;
    if (row == NULL) {
        return -MERO_ESTATE; /* every op of the log has its place */
    }
    struct gov_fold_entry *f = slot;
    *f = (struct gov_fold_entry){
        .k = row->k, .prior = row->prior, .seq = sqlite3_column_int64(st, 1)};
    return 0;
}

static int place_cmp(const void *a, const void *b)
{
    return key_cmp(&((const struct gov_fold_entry *)a)->k, &((const struct gov_fold_entry *)b)->k);
}

int mero__gov_fold_order(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         struct gov_fold_entry **out, size_t *n)
{
    struct fold_rows rows = {0};
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_FOLD_ROWS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    MERO_TRY(read_rows(st, sizeof(*rows.v), 0, fold_row_fill, NULL, fold_row_cmp, (void **)&rows.v,
                       &rows.n));
    st = mero__gov_stmt(s, SQL_OPS_ROWS);
    int rc = st == NULL ? -MERO_EIO : 0;
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        rc = read_rows(st, sizeof(**out), rows.n, entry_fill, &rows, place_cmp, (void **)out, n);
    }
    if (rc == 0 && *n != rows.n) {
        rc = -MERO_ESTATE; /* every op of the fold is in the log */
        free(*out);
        *out = NULL;
        *n = 0;
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

/* The entry of o for hash, or NULL. The UPDATE below walks the table in key order, so the
 * entry is found by moving o->at forward; a walk in another order is answered by a search. */
static const struct gov_fold_entry *outcome_of(struct gov_fold_outcomes *o, const uint8_t *hash)
{
    while (o->at < o->n && memcmp(o->v[o->at]->k.hash, hash, MERO_OP_ID_LEN) < 0) {
        o->at++;
    }
    if (o->at < o->n && memcmp(o->v[o->at]->k.hash, hash, MERO_OP_ID_LEN) == 0) {
        return o->v[o->at];
    }
    struct gov_fold_entry key;
    memcpy(key.k.hash, hash, MERO_OP_ID_LEN);
    const struct gov_fold_entry *kp = &key;
    struct gov_fold_entry *const *hit = bsearch(&kp, o->v, o->n, sizeof(*o->v), entry_hash_cmp);
    return hit != NULL ? *hit : NULL;
}

/* SQL mero_fold_outcome(hash, what): for a hash whose outcome the fold changed, what = 0 gives
 * 1, 1 its state, 2 its reason; for any other hash, 0 for what = 0 and NULL otherwise (which
 * the table's NOT NULL refuses). Only while mero__gov_fold_outcomes_store runs. */
static void fold_outcome_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct mero_store *s = sqlite3_user_data(ctx);
    const struct gov_fold_entry *f = NULL;
    (void)argc; /* registered with two */
    if (s->fold_out != NULL && sqlite3_value_bytes(argv[0]) == MERO_OP_ID_LEN) {
        f = outcome_of(s->fold_out, sqlite3_value_blob(argv[0]));
    }
    int what = sqlite3_value_int(argv[1]);
    if (what == 0) {
        sqlite3_result_int(ctx, f != NULL);
    } else if (f == NULL) {
        sqlite3_result_null(ctx);
    } else if (what == 1) {
        sqlite3_result_int(ctx, f->state);
    } else {
        sqlite3_result_text(ctx, f->reason != NULL ? f->reason : "", -1, SQLITE_STATIC);
    }
}

/* one pass over the namespace's range of the table between the first and the last changed
 * hash, rewriting the rows the fold changed */
static const char SQL_OUTCOMES[] =
    "UPDATE fold SET state = mero_fold_outcome(hash, 1), reason = mero_fold_outcome(hash, 2)"
    " WHERE ns = ?1 AND hash BETWEEN ?2 AND ?3 AND mero_fold_outcome(hash, 0)";

/* The outcomes the fold changed, written by one UPDATE that walks the namespace's range of the
 * table in key order: when a re-fold changes most outcomes (a revoked signer), one statement
 * per op was a seek from the table's root per op, most of the revocation's re-fold. */
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
    if (!s->fold_fn) {
        if (sqlite3_create_function_v2(s->db, "mero_fold_outcome", 2,
                                       SQLITE_UTF8 | SQLITE_DIRECTONLY, s, fold_outcome_fn, NULL,
                                       NULL, NULL) != SQLITE_OK) {
            return -MERO_EIO;
        }
        s->fold_fn = true;
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
    struct gov_fold_outcomes o = {.v = v, .n = k};
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_OUTCOMES);
    int rc = st == NULL ? -MERO_EIO : 0;
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, v[0]->k.hash, MERO_OP_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, v[k - 1]->k.hash, MERO_OP_ID_LEN, SQLITE_STATIC);
        s->fold_out = &o;
        rc = mero__gov_step_done(st);
        s->fold_out = NULL;
    }
    /* every outcome reached its row (the rows are the fold's own: a missing one is a fault) */
    if (rc == 0 && sqlite3_changes(s->db) != (int)k) {
        rc = -MERO_EIO;
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
