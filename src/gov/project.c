/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project.c - the writes of the derived state (members and roles, deny list, spent quotes,
 * evidence, policy, groups, contexts, auto-follow) and the op append with its heads update.
 *
 * Invariants: these run only inside the savepoint of an apply (or the rebuild transaction), so
 * an op's append and its projection commit or vanish together; the heads of a namespace are
 * exactly its ops that no stored op names as a parent.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"

/* Every blob bound here (ids, identities, hashes) has the one id width. */
#define BLOB(st, i, p) sqlite3_bind_blob((st), (i), (p), MERO_GROUP_ID_LEN, SQLITE_STATIC)
_Static_assert(MERO_IDENTITY_LEN == MERO_GROUP_ID_LEN && MERO_OP_ID_LEN == MERO_GROUP_ID_LEN &&
                   MERO_QUOTE_HASH_LEN == MERO_GROUP_ID_LEN &&
                   MERO_ACCOUNT_ID_LEN == MERO_GROUP_ID_LEN && MERO_APP_ID_LEN == MERO_GROUP_ID_LEN,
               "BLOB binds every id and hash at one width");
#define STMT(var, sql)                                                                             \
    sqlite3_stmt *var = mero__gov_stmt(s, sql);                                                    \
    if (var == NULL) {                                                                             \
        return -MERO_EIO;                                                                          \
    }

static const char SQL_ROW_PLAIN[] =
    "INSERT OR REPLACE INTO members(grp, member, role, tee) VALUES(?, ?, ?, 0)";
static const char SQL_ROW_TEE[] =
    "INSERT OR REPLACE INTO members(grp, member, role, tee, account, quote_hash, mrtd, rtmr0,"
    " rtmr1, rtmr2, rtmr3, tcb) VALUES(?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)";
/* issue 30: `principals` holds every identity a stored op names as holding a row (the
 * nominee, written with the op, whatever its outcome: the same on every node holding the op)
 * and every identity whose row was removed here (one that holds a row now is found in
 * `members`): mero__gov_principal asks both */
static const char SQL_PRINCIPAL_PUT[] =
    "INSERT OR IGNORE INTO principals(ns, member) SELECT ns, ?2 FROM groups WHERE id = ?1";
static const char SQL_NOMINEE_PUT[] = "INSERT OR IGNORE INTO principals(ns, member) VALUES(?, ?)";
static const char SQL_ROW_ROLE[] = "UPDATE members SET role = ? WHERE grp = ? AND member = ?";
static const char SQL_ROW_DEL[] = "DELETE FROM members WHERE grp = ? AND member = ?";
static const char SQL_DENY_ON[] = "INSERT OR IGNORE INTO deny(grp, member) VALUES(?, ?)";
static const char SQL_DENY_OFF[] = "DELETE FROM deny WHERE grp = ? AND member = ?";
static const char SQL_SPENT_PUT[] =
    "INSERT OR IGNORE INTO spent(ns, quote_hash, kind, grp) VALUES(?, ?, ?, ?)";
static const char SQL_EVID_PUT[] =
    "INSERT OR REPLACE INTO evidence(grp, member, quote_hash, attested_at, tcb, op_hash,"
    " advisories) VALUES(?, ?, ?, ?, ?, ?, ?)";
static const char SQL_POLICY_PUT[] =
    "INSERT OR REPLACE INTO policy(ns, op_hash, body) VALUES(?, ?, ?)";
static const char SQL_GROUP_PUT[] =
    "INSERT INTO groups(id, ns, parent, visibility, seq) VALUES(?, ?, ?, ?, ?)";
static const char SQL_CTX_PUT[] =
    "INSERT INTO contexts(id, ns, grp, app, seq) VALUES(?, ?, ?, ?, ?)";
static const char SQL_CTX_HAS[] = "SELECT 1 FROM contexts WHERE id = ?";
static const char SQL_FOLLOW_PUT[] =
    "INSERT OR REPLACE INTO autofollow(grp, member, contexts, subgroups) VALUES(?, ?, ?, ?)";
static const char SQL_FOLLOW_DEL[] = "DELETE FROM autofollow WHERE grp = ? AND member = ?";
static const char SQL_DESC[] =
    "WITH RECURSIVE sub(id, depth) AS (SELECT id, 1 FROM groups WHERE parent = ?1 AND id != ?1"
    " UNION ALL SELECT g.id, sub.depth + 1 FROM groups g JOIN sub ON g.parent = sub.id"
    " WHERE g.id != g.parent AND sub.depth < 32) SELECT id FROM sub ORDER BY depth";
static const char SQL_APPEND[] =
    "INSERT INTO ops(hash, ns, signer, nonce, bytes) VALUES(?, ?, ?, ?, ?)";
static const char SQL_HEAD_ADD[] = "INSERT OR IGNORE INTO heads(ns, hash) VALUES(?, ?)";
static const char SQL_HEAD_DEL[] = "DELETE FROM heads WHERE ns = ? AND hash = ?";
static const char SQL_NONCE[] = "SELECT MAX(nonce) FROM ops WHERE ns = ? AND signer = ?";

static int principal_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN])
{
    STMT(st, SQL_PRINCIPAL_PUT);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    return mero__gov_step_done(st);
}

int mero__gov_row_plain(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                        const uint8_t member[MERO_IDENTITY_LEN], int role)
{
    STMT(st, SQL_ROW_PLAIN);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    sqlite3_bind_int(st, 3, role);
    return mero__gov_step_done(st);
}

#define ROW_VALUES  "(?, ?, ?, 0)"
#define ROWS_VALUES ROW_VALUES ", " ROW_VALUES ", " ROW_VALUES ", " ROW_VALUES
static const char SQL_ROWS_PLAIN[] =
    "INSERT OR REPLACE INTO members(grp, member, role, tee) VALUES " ROWS_VALUES ", " ROWS_VALUES
    ", " ROWS_VALUES ", " ROWS_VALUES;
_Static_assert(GOV_ROWS_BATCH == 16, "SQL_ROWS_PLAIN writes four times four rows");

int mero__gov_rows_plain(struct mero_store *s, const struct gov_plain_row *rows, size_t n)
{
    if (n != GOV_ROWS_BATCH) {
        for (size_t i = 0; i < n; i++) {
            MERO_TRY(mero__gov_row_plain(s, rows[i].grp, rows[i].member, rows[i].role));
        }
        return 0;
    }
    STMT(st, SQL_ROWS_PLAIN);
    for (int i = 0; i < GOV_ROWS_BATCH; i++) {
        BLOB(st, 3 * i + 1, rows[i].grp);
        BLOB(st, 3 * i + 2, rows[i].member);
        sqlite3_bind_int(st, 3 * i + 3, rows[i].role);
    }
    return mero__gov_step_done(st);
}

int mero__gov_row_tee(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const struct mero_tee_join *j, const uint8_t account[MERO_ACCOUNT_ID_LEN])
{
    STMT(st, SQL_ROW_TEE);
    BLOB(st, 1, grp);
    BLOB(st, 2, j->member);
    sqlite3_bind_int(st, 3, j->role);
    BLOB(st, 4, account);
    BLOB(st, 5, j->quote_hash);
    sqlite3_bind_text(st, 6, j->m.mrtd, -1, SQLITE_STATIC);
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        sqlite3_bind_text(st, 7 + i, j->m.rtmr[i], -1, SQLITE_STATIC);
    }
    sqlite3_bind_text(st, 11, j->tcb_status, -1, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero__gov_row_role(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                       const uint8_t member[MERO_IDENTITY_LEN], int role)
{
    STMT(st, SQL_ROW_ROLE);
    sqlite3_bind_int(st, 1, role);
    BLOB(st, 2, grp);
    BLOB(st, 3, member);
    return mero__gov_step_done(st);
}

int mero__gov_row_del(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const uint8_t member[MERO_IDENTITY_LEN])
{
    MERO_TRY(principal_put(s, grp, member)); /* it held a row: recorded before the row goes */
    STMT(st, SQL_ROW_DEL);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    return mero__gov_step_done(st);
}

/* Whether a fold of its namespace may hold a deny entry for (grp, member); on: one is being
 * written, remembered. Outside a fold, always. */
static bool fold_may_deny(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN], bool on)
{
    struct gov_fold_facts *f = &s->fold;
    if (!f->on || f->denied_over) {
        return true;
    }
    for (size_t i = 0; i < f->n_denied; i++) {
        if (memcmp(f->denied[i].grp, grp, MERO_GROUP_ID_LEN) == 0 &&
            memcmp(f->denied[i].member, member, MERO_IDENTITY_LEN) == 0) {
            return true;
        }
    }
    if (!on) {
        return false;
    }
    if (f->n_denied == GOV_FOLD_DENIED_MAX) {
        f->denied_over = true;
        return true;
    }
    memcpy(f->denied[f->n_denied].grp, grp, MERO_GROUP_ID_LEN);
    memcpy(f->denied[f->n_denied].member, member, MERO_IDENTITY_LEN);
    f->n_denied++;
    return true;
}

int mero__gov_deny(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                   const uint8_t member[MERO_IDENTITY_LEN], bool on)
{
    if (!fold_may_deny(s, grp, member, on)) {
        return 0; /* a fold cleared its namespace's deny entries and wrote none for this one */
    }
    STMT(st, on ? SQL_DENY_ON : SQL_DENY_OFF);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    return mero__gov_step_done(st);
}

int mero__gov_spent_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t qh[MERO_QUOTE_HASH_LEN], int kind,
                        const uint8_t grp[MERO_GROUP_ID_LEN])
{
    STMT(st, SQL_SPENT_PUT);
    BLOB(st, 1, ns);
    BLOB(st, 2, qh);
    sqlite3_bind_int(st, 3, kind);
    BLOB(st, 4, grp);
    return mero__gov_step_done(st);
}

int mero__gov_evidence_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                           const uint8_t member[MERO_IDENTITY_LEN],
                           const uint8_t qh[MERO_QUOTE_HASH_LEN], uint64_t at, const char *tcb,
                           const char *advisories, const uint8_t op_hash[MERO_OP_ID_LEN])
{
    STMT(st, SQL_EVID_PUT);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    BLOB(st, 3, qh);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)at);
    sqlite3_bind_text(st, 5, tcb, -1, SQLITE_STATIC);
    BLOB(st, 6, op_hash);
    sqlite3_bind_text(st, 7, advisories != NULL ? advisories : "", -1, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero__gov_policy_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t op_hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len)
{
    STMT(st, SQL_POLICY_PUT);
    BLOB(st, 1, ns);
    BLOB(st, 2, op_hash);
    sqlite3_bind_blob(st, 3, bytes, (int)len, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero__gov_group_put(struct mero_store *s, const uint8_t id[MERO_GROUP_ID_LEN],
                        const uint8_t ns[MERO_NS_ID_LEN], const uint8_t parent[MERO_GROUP_ID_LEN],
                        int vis, uint64_t seq)
{
    STMT(st, SQL_GROUP_PUT);
    BLOB(st, 1, id);
    BLOB(st, 2, ns);
    BLOB(st, 3, parent);
    sqlite3_bind_int(st, 4, vis);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)seq);
    return mero__gov_step_done(st);
}

int mero__gov_context_put(struct mero_store *s, const uint8_t id[MERO_CONTEXT_ID_LEN],
                          const uint8_t ns[MERO_NS_ID_LEN], const uint8_t grp[MERO_GROUP_ID_LEN],
                          const uint8_t app[MERO_APP_ID_LEN], uint64_t seq)
{
    STMT(st, SQL_CTX_PUT);
    BLOB(st, 1, id);
    BLOB(st, 2, ns);
    BLOB(st, 3, grp);
    BLOB(st, 4, app);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)seq);
    return mero__gov_step_done(st);
}

bool mero__gov_context_exists(struct mero_store *s, const uint8_t id[MERO_CONTEXT_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_CTX_HAS);
    if (st == NULL) {
        return true; /* fail closed: a context id we cannot check is treated as taken */
    }
    BLOB(st, 1, id);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return yes;
}

int mero__gov_follow_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], bool contexts, bool subgroups)
{
    STMT(st, SQL_FOLLOW_PUT);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    sqlite3_bind_int(st, 3, contexts ? 1 : 0);
    sqlite3_bind_int(st, 4, subgroups ? 1 : 0);
    return mero__gov_step_done(st);
}

int mero__gov_follow_del(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN])
{
    STMT(st, SQL_FOLLOW_DEL);
    BLOB(st, 1, grp);
    BLOB(st, 2, member);
    return mero__gov_step_done(st);
}

int mero__gov_descendants(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                          uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n)
{
    STMT(st, SQL_DESC);
    BLOB(st, 1, grp);
    uint8_t(*v)[MERO_GROUP_ID_LEN] = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 8;
            uint8_t(*nv)[MERO_GROUP_ID_LEN] = realloc(v, cap * sizeof(*v));
            MERO_ENSURE_OUT(nv != NULL, NULL, MERO_ENOMEM, "out of memory");
            v = nv;
        }
        if (sqlite3_column_bytes(st, 0) == (int)sizeof(*v)) {
            memcpy(v[cnt++], sqlite3_column_blob(st, 0), sizeof(*v));
        }
    }
    MERO_ENSURE_OUT(step == SQLITE_DONE, NULL, MERO_EIO, "descendants scan");
    *out = v;
    *n = cnt;
    v = NULL;
out:
    sqlite3_reset(st);
    free(v);
    return rc;
}

const uint8_t *mero__gov_nominee(const struct mero_op *op)
{
    if (op->scope == MERO_SCOPE_ROOT) {
        switch (op->kind) {
        case MERO_ROOT_NAMESPACE_CREATED:
        case MERO_ROOT_GROUP_CREATED:
            return op->signer;
        case MERO_ROOT_ADMIN_CHANGED:
            return op->member;
        case MERO_ROOT_MEMBER_JOINED_TEE:
            return op->join.member;
        default:
            return NULL;
        }
    }
    if (op->scope == MERO_SCOPE_GROUP) {
        switch (op->kind) {
        case MERO_GROUP_MEMBER_ADDED:
            return op->member;
        case MERO_GROUP_MEMBER_JOINED_TEE:
            return op->join.member;
        default:
            return NULL;
        }
    }
    return NULL; /* an encrypted op's names are inside its ciphertext */
}

int mero__gov_nominate(struct mero_store *s, const struct mero_op *op)
{
    const uint8_t *who = mero__gov_nominee(op);
    if (who == NULL) {
        return 0;
    }
    STMT(st, SQL_NOMINEE_PUT);
    BLOB(st, 1, op->ns);
    BLOB(st, 2, who);
    return mero__gov_step_done(st);
}

static const char SQL_CUT_PUT[] =
    "INSERT OR IGNORE INTO cuts(ns, member, context, op_hash, grp, head) VALUES(?, ?, ?, ?, ?, ?)";

int mero__gov_note_cuts(struct mero_store *s, const struct mero_op *op,
                        const uint8_t hash[MERO_OP_ID_LEN])
{
    if (op->scope != MERO_SCOPE_GROUP || op->kind != MERO_GROUP_MEMBER_REMOVED) {
        return 0;
    }
    for (uint32_t i = 0; i < op->n_cuts; i++) {
        STMT(st, SQL_CUT_PUT);
        BLOB(st, 1, op->ns);
        BLOB(st, 2, op->member);
        BLOB(st, 3, op->cuts[i].context);
        BLOB(st, 4, hash);
        BLOB(st, 5, op->group_id);
        BLOB(st, 6, op->cuts[i].head);
        MERO_TRY(mero__gov_step_done(st));
    }
    return 0;
}

int mero__gov_append(struct mero_store *s, const struct mero_op *op,
                     const uint8_t hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len,
                     uint64_t *seq)
{
    STMT(st, SQL_APPEND);
    BLOB(st, 1, hash);
    BLOB(st, 2, op->ns);
    BLOB(st, 3, op->signer);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)op->nonce);
    sqlite3_bind_blob(st, 5, bytes, (int)len, SQLITE_STATIC);
    MERO_TRY(mero__gov_step_done(st));
    *seq = (uint64_t)sqlite3_last_insert_rowid(s->db);
    MERO_TRY(mero__gov_nominate(s, op));
    MERO_TRY(mero__gov_note_cuts(s, op, hash));
    return mero__gov_heads_move(s, op, hash);
}

int mero__gov_heads_move(struct mero_store *s, const struct mero_op *op,
                         const uint8_t hash[MERO_OP_ID_LEN])
{
    for (uint32_t i = 0; i < op->n_parents; i++) {
        STMT(del, SQL_HEAD_DEL);
        BLOB(del, 1, op->ns);
        BLOB(del, 2, op->parents[i]);
        MERO_TRY(mero__gov_step_done(del));
    }
    STMT(add, SQL_HEAD_ADD);
    BLOB(add, 1, op->ns);
    BLOB(add, 2, hash);
    return mero__gov_step_done(add);
}

int mero__gov_last_nonce(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t signer[MERO_IDENTITY_LEN], uint64_t *nonce)
{
    STMT(st, SQL_NONCE);
    BLOB(st, 1, ns);
    BLOB(st, 2, signer);
    *nonce = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *nonce = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    return 0;
}
