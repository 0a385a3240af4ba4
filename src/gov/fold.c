/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold.c - the fold of a namespace's ops in their canonical order (issue 30, docs/governance.md
 * "State resolution"; the order and the `fold` table: fold_table.c). Every op a node stores has
 * a place computed from the ops alone: (depth, class, hash), where depth is 1 + the greatest depth
 * of its parents (NamespaceCreated: 0), class 0 for the ops that change authority (AdminChanged,
 * MemberRemoved, MemberRoleSet, MemberLeft, the policy ops) and 1 for the rest, and the hash
 * breaks the remaining ties. The derived state is the fold of the rules over the ops in that
 * order; each op's outcome (effective, rejected with its reason, or deferred for a key) is
 * the `fold` row beside it.
 *
 * Invariants: a parent always sorts before its children (its depth is smaller), so the order is
 * a topological order of the DAG and the same on every node holding the same ops; the derived
 * tables of a namespace always equal the fold of all its stored ops in that order: an op that
 * sorts after every folded op is applied incrementally (apply.c), and so is a late op that
 * commutes with every op after its place (fold_commute.c: the fold is then the same; where a
 * later op rewrites its row, that row is kept); any other - a late op, or a key that makes a
 * deferred op readable - re-folds the namespace from its first op (mero__gov_refold), and the
 * membership that changed is reported as events after the fact. The re-fold judges each op in a
 * savepoint of its own, except the kinds whose handler refuses before it writes (apply.c), and
 * stores the outcomes it changed when the last op is folded (no rule reads an outcome), in the
 * `fold` table's key order; the member rows of a run of replayed MemberAdded ops are written
 * when the run ends, in key order (struct pending_rows: no read comes between). The re-fold
 * clears only the namespace's derived rows (every table whole when the log holds no other
 * namespace) and reads its ops by one scan in log order (struct op_reader).
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "gov/fold_replay_internal.h"
#include "mero/log.h"

static const char SQL_OP_BYTES[] = "SELECT bytes FROM ops WHERE seq = ?";
static const char SQL_OPS_SCAN[] =
    "SELECT seq, bytes FROM ops INDEXED BY ops_ns WHERE ns = ? ORDER BY seq";
static const char SQL_PRINCIPAL[] =
    "SELECT 1 FROM principals WHERE ns = ?1 AND member = ?2 UNION ALL SELECT 1 FROM members m"
    " JOIN groups g ON g.id = m.grp WHERE m.member = ?2 AND g.ns = ?1 LIMIT 1";
static const char SQL_UNMARK[] = "DELETE FROM pending_purge WHERE ns = ?";

/* The derived rows of one namespace (per-group tables first, groups last): each table's
 * delete of the namespace's rows, and the same table emptied whole, used when the log holds no
 * other namespace. Every derived row is then ns's (a row of a namespace without ops is no
 * fold's), and a DELETE without a WHERE frees the table's pages instead of deleting row by row
 * (SQLite's truncate optimization): two thirds of a 10,000-op re-fold's clear, a sixth of the
 * re-fold. */
static const struct {
    const char *ns_rows, *whole;
} clear_sql[] = {
    {"DELETE FROM members WHERE grp IN (SELECT id FROM groups WHERE ns = ?1)",
     "DELETE FROM members"},
    {"DELETE FROM evidence WHERE grp IN (SELECT id FROM groups WHERE ns = ?1)",
     "DELETE FROM evidence"},
    {"DELETE FROM deny WHERE grp IN (SELECT id FROM groups WHERE ns = ?1)", "DELETE FROM deny"},
    {"DELETE FROM autofollow WHERE grp IN (SELECT id FROM groups WHERE ns = ?1)",
     "DELETE FROM autofollow"},
    {"DELETE FROM policy WHERE ns = ?1", "DELETE FROM policy"},
    {"DELETE FROM spent WHERE ns = ?1", "DELETE FROM spent"},
    {"DELETE FROM contexts WHERE ns = ?1", "DELETE FROM contexts"},
    {"DELETE FROM deferred WHERE ns = ?1", "DELETE FROM deferred"},
    {"DELETE FROM groups WHERE ns = ?1", "DELETE FROM groups"},
};
static const char SQL_OTHER_NS[] =
    "SELECT EXISTS(SELECT 1 FROM ops WHERE ns < ?1) OR EXISTS(SELECT 1 FROM ops WHERE ns > ?1)";

int mero__gov_principal(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t member[MERO_IDENTITY_LEN], bool *yes, struct mero_err *err)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_PRINCIPAL);
    if (st == NULL) {
        return mero__gov_sqlerr(s, err, "principals");
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW;
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : mero__gov_sqlerr(s, err, "principals");
    sqlite3_reset(st); /* after the error is taken: a reset would replace its message */
    return rc;
}

int mero_gov_principal(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                       const uint8_t who[static MERO_IDENTITY_LEN], bool *yes)
{
    return mero__gov_principal(s, ns, who, yes, NULL);
}

bool mero__gov_rule_refusal(int rc)
{
    return rc < 0 && rc != -MERO_EIO && rc != -MERO_ENOMEM;
}

/* The per-op savepoint's statements, prepared once (the statement cache): a re-fold runs them
 * for every op of the namespace, and parsing them each time was a sixth of its cost. */
static const char SQL_SP_OPEN[] = "SAVEPOINT gov_fold_op";
static const char SQL_SP_UNDO[] = "ROLLBACK TO gov_fold_op";
static const char SQL_SP_CLOSE[] = "RELEASE gov_fold_op";

static int sp(struct mero_store *s, const char *sql)
{
    sqlite3_stmt *st = mero__gov_stmt(s, sql);
    return st == NULL ? -MERO_EIO : mero__gov_step_done(st);
}

int mero__gov_fold_step(struct actx *a, int *state, struct mero_err *err)
{
    struct mero_store *s = a->s;
    /* a kind whose handler refuses before its first write folds without it (apply.c) */
    bool savepoint = !mero__gov_refuses_before_writing(a->op);
    if (savepoint && sp(s, SQL_SP_OPEN) < 0) {
        return mero__gov_sqlerr(s, err, "savepoint");
    }
    size_t nev = a->nev;
    a->deferred = false;
    int rc = mero__gov_dispatch(a, err);
    if (rc < 0) {
        if (savepoint) {
            (void)sp(s, SQL_SP_UNDO);
        }
        a->nev = nev;
        if (err != NULL && err->code == 0) {
            (void)mero_err_set(err, -rc, "refused (%s)", mero_strerror(rc));
        }
    }
    if (savepoint) {
        (void)sp(s, SQL_SP_CLOSE);
    }
    if (rc < 0 && !mero__gov_rule_refusal(rc)) {
        return rc;
    }
    *state = rc < 0 ? GOV_FOLD_REJECTED : a->deferred ? GOV_FOLD_DEFERRED : GOV_FOLD_EFFECTIVE;
    if (rc < 0 && !s->publishing && mero__gov_behind_sealed(s, a->op)) {
        /* judged again when the key arrives (the re-fold): the refusal may be the missing
         * encrypted op's doing, as for the member it admits */
        *state = GOV_FOLD_DEFERRED;
    }
    return 0;
}

/* The membership events of the late op itself are dropped: the diff reports them once. An
 * AdminChanged is one too (its row change is the diff's MemberRoleSet or MemberAdded): kept, a
 * late AdminChanged that a later removal undid was reported for a member with no row. */
static void drop_membership_events(struct actx *a, size_t from)
{
    size_t w = from;
    for (size_t i = from; i < a->nev; i++) {
        int k = a->ev[i].kind;
        if (k == MERO_EV_MEMBER_ADDED || k == MERO_EV_MEMBER_REMOVED ||
            k == MERO_EV_TEE_MEMBER_REMOVED || k == MERO_EV_TEE_MEMBER_ADMITTED ||
            k == MERO_EV_MEMBER_ROLE_SET || k == MERO_EV_ADMIN_CHANGED) {
            continue;
        }
        a->ev[w++] = a->ev[i];
    }
    a->nev = w;
}

/* ---- the fold ----------------------------------------------------------------------------- */

/* Whether the log holds ops of a namespace other than ns (two seeks of index ops_ns). */
static int other_ns(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_OTHER_NS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW && sqlite3_column_int(st, 0) != 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : -MERO_EIO;
}

static int clear_ns(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN])
{
    bool others;
    MERO_TRY(other_ns(s, ns, &others));
    s->fold_cleared_whole += !others;
    for (size_t i = 0; i < sizeof(clear_sql) / sizeof(clear_sql[0]); i++) {
        sqlite3_stmt *st = mero__gov_stmt(s, others ? clear_sql[i].ns_rows : clear_sql[i].whole);
        if (st == NULL) {
            return -MERO_EIO;
        }
        if (others) {
            sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        }
        MERO_TRY(mero__gov_step_done(st));
    }
    return 0;
}

/* The last effective key rotation of each group in the fold (every group that rotates: the
 * array grows as groups are met). */
struct rotation {
    uint8_t grp[MERO_GROUP_ID_LEN];
    uint8_t key_id[MERO_KEY_ID_LEN];
};
struct rotations {
    struct rotation *v;
    size_t n, cap;
};

static int rotation_seen(struct rotations *r, const struct mero_op *op, int state)
{
    if (r == NULL || state != GOV_FOLD_EFFECTIVE || op->scope != MERO_SCOPE_GROUP ||
        !op->has_rotation) {
        return 0;
    }
    size_t i = 0;
    while (i < r->n && memcmp(r->v[i].grp, op->group_id, MERO_GROUP_ID_LEN) != 0) {
        i++;
    }
    if (i == r->n) {
        if (r->n == r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 8;
            struct rotation *nv = realloc(r->v, ncap * sizeof(*nv));
            if (nv == NULL) {
                return -MERO_ENOMEM;
            }
            r->v = nv;
            r->cap = ncap;
        }
        memcpy(r->v[r->n++].grp, op->group_id, MERO_GROUP_ID_LEN);
    }
    memcpy(r->v[i].key_id, op->rotation.new_key_id, MERO_KEY_ID_LEN);
    return 0;
}

static const char SQL_KEY_CURRENT[] =
    "UPDATE group_keys SET seq = (SELECT MAX(seq) + 1 FROM group_keys WHERE grp = ?1)"
    " WHERE grp = ?1 AND key_id = ?2 AND seq < (SELECT MAX(seq) FROM group_keys WHERE grp = ?1)";

/*
 * After a fold: the key of each group's last effective rotation is its current key where we
 * hold it, so a rotation that lost resolution (its removal refused at its place) is never the
 * key new writes use, and a member the losing removal still wrapped for reads none of them.
 */
static int rotations_current(struct mero_store *s, const struct rotations *r)
{
    for (size_t i = 0; i < r->n; i++) {
        sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_CURRENT);
        if (st == NULL) {
            return -MERO_EIO;
        }
        sqlite3_bind_blob(st, 1, r->v[i].grp, MERO_GROUP_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, r->v[i].key_id, MERO_KEY_ID_LEN, SQLITE_STATIC);
        MERO_TRY(mero__gov_step_done(st));
    }
    return 0;
}

/*
 * The member rows of replayed MemberAdded ops not yet written. A run of such ops (the common
 * case after a late op: most of a log is MemberAdded ops nobody's rules read again) writes its
 * rows in (group, member) order when the run ends (or every PENDING_MAX rows: an earlier
 * write with no read after it is the same), instead of one at a place of the table
 * chosen by the op's hash: a replayed op's writes are functions of the op alone, and nothing
 * reads a member row until the run ends (flushed before any judged op, any other replay, the
 * late op, a replay decision that reads a row, and the fold's end). Of two rows for one key the
 * later op's is written, as INSERT OR REPLACE in fold order would leave it.
 */
#define PENDING_FIRST_CAP 64   /* rows a run makes room for first */
#define PENDING_MAX       4096 /* rows held at most (320 KiB): a longer run is written in parts */
struct pending_row {
    struct gov_plain_row row;
    size_t at; /* fold order */
};
struct pending_rows {
    struct pending_row *v;
    size_t n, cap;
};

/* (group, member): the row's key */
static int pending_key_cmp(const struct pending_row *x, const struct pending_row *y)
{
    int c = memcmp(x->row.grp, y->row.grp, sizeof(x->row.grp));
    return c != 0 ? c : memcmp(x->row.member, y->row.member, sizeof(x->row.member));
}

static int pending_cmp(const void *a, const void *b)
{
    const struct pending_row *x = a, *y = b;
    int c = pending_key_cmp(x, y);
    return c != 0 ? c : x->at < y->at ? -1 : x->at > y->at;
}

static int pending_push(struct pending_rows *p, const struct mero_op *op)
{
    if (p->n == p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : PENDING_FIRST_CAP;
        struct pending_row *nv = reallocarray(p->v, ncap, sizeof(*nv));
        if (nv == NULL) {
            return -MERO_ENOMEM;
        }
        p->v = nv;
        p->cap = ncap;
    }
    struct pending_row *r = &p->v[p->n];
    memcpy(r->row.grp, op->group_id, sizeof(r->row.grp));
    memcpy(r->row.member, op->member, sizeof(r->row.member));
    r->row.role = op->role;
    r->at = p->n++;
    return 0;
}

static int pending_flush(struct mero_store *s, struct pending_rows *p)
{
    if (p->n > 1) {
        qsort(p->v, p->n, sizeof(*p->v), pending_cmp);
    }
    struct gov_plain_row batch[GOV_ROWS_BATCH];
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < p->n && rc == 0; i++) {
        /* the last of its key: the latest op's row */
        if (i + 1 == p->n || pending_key_cmp(&p->v[i], &p->v[i + 1]) != 0) {
            batch[k++] = p->v[i].row;
        }
        if (k == GOV_ROWS_BATCH) {
            rc = mero__gov_rows_plain(s, batch, k);
            k = 0;
        }
    }
    rc = rc == 0 ? mero__gov_rows_plain(s, batch, k) : rc;
    p->n = 0;
    return rc;
}

/*
 * The bytes of a namespace's ops as a fold reads them: one statement running over the log in
 * log order, which is the canonical order wherever no two ops were concurrent, and a lookup for
 * an op that statement has passed. Each op's own statement was a tenth of a re-fold. The bytes
 * of a read stay valid until the next read (neither statement is stepped or reset before, and
 * nothing in a fold writes the `ops` table; a savepoint rolled back leaves read statements).
 */
#define READER_SKIP_MAX 8 /* rows the scan steps over for one read; a farther op is a lookup */
struct op_reader {
    struct mero_store *s;
    sqlite3_stmt *scan; /* SQL_OPS_SCAN, bound */
    sqlite3_stmt *one;  /* SQL_OP_BYTES once a lookup ran */
    int64_t at;         /* the seq of its row; 0: not stepped yet (seqs start at 1); -1: ended
                         * or given up */
};

static int reader_open(struct op_reader *r, struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN])
{
    *r = (struct op_reader){.s = s, .scan = mero__gov_stmt(s, SQL_OPS_SCAN), .at = 0};
    if (r->scan == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(r->scan, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    return 0;
}

static void reader_close(struct op_reader *r)
{
    if (r->scan != NULL) {
        sqlite3_reset(r->scan);
    }
    if (r->one != NULL) {
        sqlite3_reset(r->one);
    }
}

static int reader_get(struct op_reader *r, int64_t seq, const uint8_t **bytes, size_t *len)
{
    sqlite3_stmt *st = r->scan;
    int col = 1;
    for (int skip = 0; r->at >= 0 && r->at < seq && skip < READER_SKIP_MAX; skip++) {
        int rc = sqlite3_step(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            /* a savepoint rolled back after a schema change in the same transaction (a
             * migration's rebuild) aborts open reads: the scan is given up, and lookups read
             * the rest (a fault of the store itself shows there) */
            sqlite3_reset(st);
            rc = SQLITE_DONE;
        }
        r->at = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    }
    if (r->at != seq) {
        /* the scan passed it (it sorts before an op that arrived earlier), or it lies farther
         * ahead than the scan steps (it arrived late, and the ops between come after it) */
        st = r->one = mero__gov_stmt(r->s, SQL_OP_BYTES);
        if (st == NULL) {
            return -MERO_EIO;
        }
        sqlite3_bind_int64(st, 1, seq);
        if (sqlite3_step(st) != SQLITE_ROW) {
            return -MERO_ESTATE;
        }
        col = 0;
    }
    *bytes = sqlite3_column_blob(st, col);
    *len = (size_t)sqlite3_column_bytes(st, col);
    return 0;
}

/* Fold one stored op (not the late one) whose stored outcome is prior: replay it where r
 * allows (fold_replay.c), else decode and judge it, no events. *judged: it was judged. The op's
 * bytes are read in place (rd keeps them until its next read). */
static int fold_stored(struct mero_store *s, struct op_reader *rd, const struct gov_fold_entry *f,
                       const uint8_t *us, struct gov_replay *r, struct pending_rows *pend,
                       int *state, bool *judged, struct rotations *rot, struct mero_err *reason,
                       struct mero_err *err)
{
    const uint8_t *bytes;
    size_t len;
    int rc = reader_get(rd, f->seq, &bytes, &len);
    if (rc == -MERO_ESTATE) {
        return mero_err_set(err, MERO_EINTERNAL, "an op of the fold is missing from the log");
    }
    if (rc < 0) {
        return mero__gov_sqlerr(s, err, "op row");
    }
    uint64_t seq = (uint64_t)f->seq;
    const uint8_t *hash = f->k.hash;
    uint64_t depth = f->k.depth;
    int prior = f->prior;
    struct mero_op op;
    struct mero_err e = {0};
    bool replay = false;
    mero_op_init(&op);
    rc = mero_op_decode(bytes, len, &op, &e);
    MERO_ENSURE_OUT(rc >= 0, err, MERO_EINTERNAL, "stored op #%llu does not decode: %s",
                    (unsigned long long)seq, e.msg);
    if (s->rebuilding) { /* a store whose ops were appended before nominees were recorded */
        GOV_SQL_TRY_OUT(s, err, mero__gov_nominate(s, &op), "nominee");
        GOV_SQL_TRY_OUT(s, err, mero__gov_note_cuts(s, &op, hash), "cuts");
    }
    /* the derived rows' order column is the op's depth, not this node's arrival order */
    struct actx a = {.s = s, .op = &op, .hash = hash, .bytes = bytes, .len = len, .seq = depth};
    a.have_us = us != NULL; /* our identity in the namespace, read once per fold */
    if (us != NULL) {
        memcpy(a.us, us, sizeof(a.us));
    }
    /* with admins set, the decision may read a member row: the pending ones are written first */
    rc = r->admins ? pending_flush(s, pend) : 0;
    rc = rc == 0 ? mero__gov_replay_may(r, s, &op, us, prior, &replay) : rc;
    *judged = rc == 0 && !replay;
    bool batched = replay && prior == GOV_FOLD_EFFECTIVE && op.scope == MERO_SCOPE_GROUP &&
                   op.kind == MERO_GROUP_MEMBER_ADDED;
    if (rc == 0 && batched) {
        s->refold_replayed++;
        *state = prior;
        rc = mero__gov_member_added_rest(&a);
        rc = rc == 0 && pend->n == PENDING_MAX ? pending_flush(s, pend) : rc;
        rc = rc == 0 ? pending_push(pend, &op) : rc;
    } else if (rc == 0 && replay) {
        s->refold_replayed++;
        *state = prior;
        rc = pending_flush(s, pend);
        rc = rc == 0 && prior == GOV_FOLD_EFFECTIVE ? mero__gov_replay_writes(&a) : rc;
    } else if (rc == 0) {
        rc = pending_flush(s, pend);
        rc = rc == 0 ? mero__gov_replay_before(r, s, &op, false) : rc;
        bool was = s->rebuilding;
        s->rebuilding = true;
        rc = rc == 0 ? mero__gov_fold_step(&a, state, reason) : rc;
        s->rebuilding = was;
        free(a.ev);
        rc = rc == 0 ? mero__gov_replay_judged(r, s, &op, us, prior, *state, false) : rc;
        rc = rc == 0 ? rotation_seen(rot, &op, *state) : rc;
    }
    if (rc < 0) {
        (void)mero_err_set(err, -rc, "op #%llu: %s", (unsigned long long)seq, reason->msg);
    }
out:
    mero_op_cleanup(&op);
    return rc;
}

int mero__gov_fold_ns(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN], struct actx *late,
                      int *late_state, struct mero_err *late_reason, struct mero_err *err)
{
    struct rotations rot_ = {0}, *rot = &rot_;
    struct pending_rows pend = {0};
    struct gov_replay replay;
    struct gov_fold_entry *order = NULL;
    struct op_reader rd = {.s = s};
    size_t n = 0;
    int rc;
    MERO_TRY_OUT(clear_ns(s, ns));
    s->fold = (struct gov_fold_facts){.on = true, .undeferred = true};
    memcpy(s->fold.ns, ns, MERO_NS_ID_LEN);
    rc = mero__gov_fold_order(s, ns, &order, &n);
    if (rc == -MERO_ESTATE) {
        rc = mero_err_set(err, MERO_ESTATE,
                          "the store's fold table and op log disagree (an op without its place "
                          "in the canonical order, or a place without its op): the store was "
                          "edited or damaged (run merod check to see what)");
    }
    MERO_TRY_OUT(rc);
    uint8_t us_buf[MERO_IDENTITY_LEN];
    const uint8_t *us = mero__gov_our_pk(s, ns, us_buf) ? us_buf : NULL;
    MERO_TRY_OUT(reader_open(&rd, s, ns));
    mero__gov_replay_start(&replay, late != NULL);
    for (size_t i = 0; i < n; i++) {
        int state = GOV_FOLD_EFFECTIVE;
        bool judged = true;
        struct mero_err why = {0};
        bool is_late = late != NULL && memcmp(order[i].k.hash, late->hash, MERO_OP_ID_LEN) == 0;
        if (is_late) {
            /* the late op is judged with its own events (keys delivered to us, ...) */
            bool was = s->rebuilding;
            s->rebuilding = false;
            rc = pending_flush(s, &pend);
            rc = rc == 0 ? mero__gov_replay_before(&replay, s, late->op, true) : rc;
            rc = rc == 0 ? mero__gov_fold_step(late, &state, &why) : rc;
            rc = rc == 0 ? rotation_seen(rot, late->op, state) : rc;
            rc = rc == 0 ? mero__gov_replay_judged(&replay, s, late->op,
                                                   late->have_us ? late->us : NULL, order[i].prior,
                                                   state, true)
                         : rc;
            s->rebuilding = was;
            if (late_state != NULL) {
                *late_state = state;
            }
            if (late_reason != NULL) {
                *late_reason = why;
            }
            MERO_TRY_OUT(rc < 0 ? mero_err_set(err, -rc, "%s", why.msg) : 0);
        } else {
            MERO_TRY_OUT(fold_stored(s, &rd, &order[i], us, &replay, &pend, &state, &judged, rot,
                                     &why, err));
        }
        /* a replayed op keeps its stored outcome and reason */
        if (state != order[i].prior || (state == GOV_FOLD_REJECTED && judged) || is_late) {
            MERO_TRY_OUT(mero__gov_fold_outcome_keep(&order[i], state,
                                                     state == GOV_FOLD_REJECTED ? why.msg : ""));
        }
    }
    MERO_TRY_OUT(pending_flush(s, &pend));
    MERO_TRY_OUT(mero__gov_fold_outcomes_store(s, ns, order, n));
    rc = rotations_current(s, rot);
out:
    if (rc < 0 && err != NULL && err->msg[0] == '\0') {
        (void)mero__gov_sqlerr(s, err, "re-fold"); /* before a reset below overwrites it */
    }
    reader_close(&rd);
    memset(&s->fold, 0, sizeof(s->fold));
    free(pend.v);
    free(rot->v);
    mero__gov_fold_order_free(order, n);
    return rc;
}

/*
 * A late op that commutes with every op after its place (fold_commute.c) is judged now, as the
 * fast path judges an op that sorts last: the fold gives the same rows and outcomes. Its
 * membership events become what the full re-fold's diff would report for its one row; when a
 * later effective op rewrites that row (superseded), the row keeps its role now and there is
 * none. *done is false when it is not effective (its savepoint rolled back): a refusal may be
 * deferred at its place, which only the full re-fold judges.
 */
static int refold_commuting(struct actx *a, bool superseded, int *late_state,
                            struct mero_err *late_reason, bool *done)
{
    const struct mero_op *op = a->op;
    struct mero_err why = {0};
    int r0, state;
    size_t first = a->nev;
    *done = false;
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->member, &r0));
    MERO_TRY(mero__gov_fold_step(a, &state, &why));
    if (state != GOV_FOLD_EFFECTIVE) {
        return 0;
    }
    drop_membership_events(a, first);
    if (superseded) {
        MERO_TRY(mero__gov_row_plain(a->s, op->group_id, op->member, r0));
    } else if (r0 == MERO_ROLE_NONE) {
        MERO_TRY(mero__gov_ev(a, MERO_EV_MEMBER_ADDED, op->group_id, op->member, op->role, NULL));
    } else if (r0 != op->role) {
        MERO_TRY(
            mero__gov_ev(a, MERO_EV_MEMBER_ROLE_SET, op->group_id, op->member, op->role, NULL));
    }
    MERO_TRY(mero__gov_fold_state_set(a->s, a->op->ns, a->hash, state, ""));
    if (late_state != NULL) {
        *late_state = state;
    }
    if (late_reason != NULL) {
        *late_reason = why;
    }
    *done = true;
    return 0;
}

int mero__gov_refold(struct mero_store *s, struct actx *a, bool late, int *late_state,
                     struct mero_err *late_reason, struct mero_err *err)
{
    const uint8_t *ns = a->op->ns;
    struct gov_mrows before = {0}, after = {0};
    uint8_t(*marks)[MERO_NS_ID_LEN] = NULL;
    size_t nmarks = 0;
    int rc;
    bool fast = false, superseded = false;
    if (late && !s->rebuilding) {
        rc = mero__gov_fold_commutes(s, a->op, a->hash, &fast, &superseded);
        if (rc == 0 && fast) {
            rc = refold_commuting(a, superseded, late_state, late_reason, &fast);
        }
        if (rc < 0) {
            return mero__gov_sqlerr(s, err, "re-fold");
        }
        if (fast) {
            s->late_fast++;
            mero_log(MERO_LOG_DEBUG, "gov: a late op that commutes with every op after its "
                                     "place, judged without re-folding");
            return 0;
        }
    }
    s->late_refolds += late && !s->rebuilding;
    MERO_TRY(mero__gov_mrows_snapshot(s, ns, &before));
    MERO_TRY_OUT(mero_gov_purge_pending(s, &marks, &nmarks));
    size_t first = a->nev;
    MERO_TRY_OUT(mero__gov_fold_ns(s, ns, late ? a : NULL, late_state, late_reason, err));
    drop_membership_events(a, first);
    /* the markers the fold's removals wrote are replaced by the ones the diff names */
    uint8_t(*now)[MERO_NS_ID_LEN] = NULL;
    size_t nnow = 0;
    MERO_TRY_OUT(mero_gov_purge_pending(s, &now, &nnow));
    for (size_t i = 0; i < nnow && rc == 0; i++) {
        bool had = false;
        for (size_t j = 0; j < nmarks; j++) {
            had = had || memcmp(now[i], marks[j], MERO_NS_ID_LEN) == 0;
        }
        if (!had) {
            sqlite3_stmt *st = mero__gov_stmt(s, SQL_UNMARK);
            rc = st == NULL ? -MERO_EIO : 0;
            if (st != NULL) {
                sqlite3_bind_blob(st, 1, now[i], MERO_NS_ID_LEN, SQLITE_STATIC);
                rc = mero__gov_step_done(st);
            }
        }
    }
    free(now);
    MERO_TRY_OUT(rc);
    MERO_TRY_OUT(mero__gov_mrows_snapshot(s, ns, &after));
    MERO_TRY_OUT(mero__gov_mrows_diff(a, &before, &after));
    mero_log(MERO_LOG_DEBUG, "gov: re-folded the namespace's ops in canonical order (%s)",
             late ? "an op arrived that sorts before ops already applied"
                  : "a key arrived for a deferred op");
out:
    if (rc < 0 && err != NULL && err->msg[0] == '\0') {
        (void)mero__gov_sqlerr(s, err, "re-fold");
    }
    free(marks);
    free(before.v);
    free(after.v);
    return rc;
}

/* ---- rebuild ------------------------------------------------------------------------------ */

static const char SQL_ALL_OPS[] = "SELECT seq, hash, bytes FROM ops ORDER BY seq";
static const char SQL_ALL_NS[] = "SELECT DISTINCT ns FROM fold ORDER BY ns";

/* Pass 1: every stored op's place (parents are stored before their children, so seq order
 * meets each parent's place first) and the heads. */
static int place_all(struct mero_store *s, struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_ALL_OPS, -1, &st, NULL) != SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "scan");
    }
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t seq = (uint64_t)sqlite3_column_int64(st, 0);
        const uint8_t *bytes = sqlite3_column_blob(st, 2);
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        uint8_t hash[MERO_OP_ID_LEN];
        struct mero_op op;
        struct mero_err e = {0};
        struct gov_fold_key k;
        mero_op_init(&op);
        rc = mero_op_decode(bytes, len, &op, &e);
        if (rc == 0) {
            rc = mero_op_hash(&op, hash);
        }
        if (rc == 0 && (sqlite3_column_bytes(st, 1) != (int)sizeof(hash) ||
                        memcmp(hash, sqlite3_column_blob(st, 1), sizeof(hash)) != 0)) {
            rc = mero_err_set(&e, MERO_EINTERNAL, "stored hash does not match the op");
        }
        if (rc == 0) {
            rc = mero__gov_fold_key(s, &op, hash, &k);
            if (rc < 0) {
                (void)mero_err_set(&e, -rc, "a parent has no place in the fold");
            }
        }
        if (rc == 0) {
            rc = mero__gov_fold_put(s, op.ns, &k, GOV_FOLD_EFFECTIVE, NULL);
        }
        if (rc == 0) {
            rc = mero__gov_heads_move(s, &op, hash);
        }
        mero_op_cleanup(&op);
        if (rc < 0) {
            rc = mero_err_set(err, -rc, "rebuild: op #%llu: %s", (unsigned long long)seq,
                              e.msg[0] != '\0' ? e.msg : "store");
            break;
        }
    }
    if (rc == 0 && step != SQLITE_DONE) {
        rc = mero__gov_sqlerr(s, err, "scan");
    }
    sqlite3_finalize(st);
    return rc;
}

int mero__gov_fold_all(struct mero_store *s, struct mero_err *err)
{
    MERO_TRY(place_all(s, err));
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_ALL_NS, -1, &st, NULL) != SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "namespaces");
    }
    uint8_t(*ns)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    int rc = 0;
    while (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_NS_ID_LEN) {
        uint8_t(*nv)[MERO_NS_ID_LEN] = realloc(ns, (n + 1) * sizeof(*ns));
        if (nv == NULL) {
            rc = -MERO_ENOMEM;
            break;
        }
        ns = nv;
        memcpy(ns[n++], sqlite3_column_blob(st, 0), MERO_NS_ID_LEN);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = mero__gov_fold_ns(s, ns[i], NULL, NULL, NULL, err);
    }
    free(ns);
    return rc;
}
