/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_sealed.c - applying the encrypted group-op form (NamespaceOp tag 2) and deferral. A
 * peer holding the namespace key the op names decrypts it and runs exactly the rules of the
 * cleartext GroupOp (only MemberJoinedViaTeeAttestation travels encrypted). A peer without
 * that key stores the op (the DAG stays whole, sync can serve it) as `deferred`; later ops on
 * the same group that the rules refuse meanwhile (a KeyDelivery to the member it admits, its
 * removal, ...) are stored deferred behind it instead of refused. When the key arrives
 * (mero__gov_unseal, run after every applied op and every key put) the deferred ops are applied
 * in log order; one the rules then refuse is recorded `inert` and has no effect, in the
 * incremental state and in every rebuild.
 *
 * Invariants: an encrypted op never changes membership unless it decrypted under the key its
 * key_id names and its plaintext passed the same apply invariants as the cleartext form; a
 * ciphertext that does not authenticate under a key we hold is refused (nothing stored); a
 * deferred op has no effect until its turn and is applied at most once; deferral happens only
 * while an encrypted op on that same group is waiting for its key.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "mero/crypto.h"
#include "mero/log.h"

static const char SQL_DEF_PUT[] =
    "INSERT OR REPLACE INTO deferred(hash, ns, grp, key_id, seq) VALUES(?, ?, ?, ?, ?)";
static const char SQL_DEF_DEL[] = "DELETE FROM deferred WHERE hash = ?";
static const char SQL_BLOCKED[] =
    "SELECT 1 FROM deferred WHERE ns = ? AND grp = ? AND key_id IS NOT NULL LIMIT 1";
static const char SQL_INERT_PUT[] = "INSERT OR IGNORE INTO inert(hash, ns) VALUES(?, ?)";
static const char SQL_INERT[] = "SELECT 1 FROM inert WHERE hash = ?";
/* deferred ops not behind an encrypted op (of their group, at or before them) still keyless */
static const char SQL_READY[] =
    "SELECT d.hash, d.seq FROM deferred d WHERE NOT EXISTS (SELECT 1 FROM deferred w"
    " WHERE w.ns = d.ns AND w.grp = d.grp AND w.key_id IS NOT NULL AND w.seq <= d.seq"
    " AND NOT EXISTS (SELECT 1 FROM group_keys k WHERE k.grp = w.ns AND k.key_id = w.key_id))"
    " ORDER BY d.seq";

static int def_put(struct actx *a, const uint8_t grp[MERO_GROUP_ID_LEN], const uint8_t *key_id)
{
    sqlite3_stmt *st = mero__gov_stmt(a->s, SQL_DEF_PUT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, a->hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, a->op->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, grp, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    if (key_id != NULL) {
        sqlite3_bind_blob(st, 4, key_id, MERO_KEY_ID_LEN, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 4);
    }
    sqlite3_bind_int64(st, 5, (sqlite3_int64)a->seq);
    return mero__gov_step_done(st);
}

static int by_hash(struct mero_store *s, const char *sql, const uint8_t hash[MERO_OP_ID_LEN],
                   const uint8_t *ns)
{
    sqlite3_stmt *st = mero__gov_stmt(s, sql);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    if (ns != NULL) {
        sqlite3_bind_blob(st, 2, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    }
    return mero__gov_step_done(st);
}

bool mero__gov_is_inert(struct mero_store *s, const uint8_t hash[MERO_OP_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_INERT);
    if (st == NULL) {
        return false;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return yes;
}

static bool blocked(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                    const uint8_t grp[MERO_GROUP_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_BLOCKED);
    if (st == NULL) {
        return false;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, grp, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return yes;
}

/* The group an op acts on, for deferral (NULL: never deferred). */
static const uint8_t *target_group(const struct mero_op *op)
{
    if (op->scope != MERO_SCOPE_ROOT) {
        return op->group_id;
    }
    return op->kind == MERO_ROOT_KEY_DELIVERY ? op->kd_group : NULL;
}

static int open_and_apply(struct actx *a, const uint8_t key[MERO_GROUP_KEY_LEN],
                          struct mero_err *err)
{
    struct mero_op inner;
    int rc;
    MERO_TRY(mero_op_open(a->op, key, &inner, err));
    MERO_ENSURE_OUT(inner.kind == MERO_GROUP_MEMBER_JOINED_TEE, err, MERO_EREFUSED,
                    "only MemberJoinedViaTeeAttestation may travel as an encrypted group op");
    rc = mero__gov_h_join(a, &inner.join, false, err);
out:
    mero_op_cleanup(&inner);
    return rc;
}

int mero__gov_h_sealed(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t key[MERO_GROUP_KEY_LEN];
    char h[GOV_SHORT_SIZE];
    int rc = mero_gov_group_key_by_id(a->s, op->ns, op->key_id, key);
    if (rc == -MERO_ENOTFOUND) {
        mero_log(MERO_LOG_INFO, "gov: encrypted group op kept deferred until key %s arrives",
                 mero__gov_short(op->key_id, h));
        return def_put(a, op->group_id, op->key_id) < 0 ? mero__gov_sqlerr(a->s, err, "deferred")
                                                        : 0;
    }
    if (rc < 0) {
        return mero__gov_sqlerr(a->s, err, "group key");
    }
    rc = open_and_apply(a, key, err);
    sodium_memzero(key, sizeof(key));
    return rc;
}

int mero__gov_dispatch_or_defer(struct actx *a, struct mero_err *err)
{
    const uint8_t *g = target_group(a->op);
    if (g == NULL || a->s->publishing || !blocked(a->s, a->op->ns, g)) {
        return mero__gov_dispatch(a, err);
    }
    if (mero__gov_exec(a->s, "SAVEPOINT gov_rules") < 0) {
        return mero__gov_sqlerr(a->s, err, "savepoint");
    }
    size_t nev = a->nev;
    int rc = mero__gov_dispatch(a, err);
    if (rc < 0 && rc != -MERO_EIO && rc != -MERO_ENOMEM) {
        char h[GOV_SHORT_SIZE];
        (void)mero__gov_exec(a->s, "ROLLBACK TO gov_rules");
        a->nev = nev;
        mero_log(MERO_LOG_DEBUG,
                 "gov: op on group %s kept deferred behind an encrypted op awaiting its key: %s",
                 mero__gov_short(g, h), err != NULL ? err->msg : "");
        rc = def_put(a, g, NULL) < 0 ? mero__gov_sqlerr(a->s, err, "deferred") : 0;
    }
    (void)mero__gov_exec(a->s, "RELEASE gov_rules");
    return rc;
}

/* Apply one deferred op whose turn has come; returns whether it was processed. */
static bool unseal_one(struct mero_store *s, const uint8_t hash[MERO_OP_ID_LEN], uint64_t seq)
{
    struct mero_buf b;
    struct mero_op op;
    struct mero_err e = {0};
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    if (mero_gov_op_get(s, hash, &b) < 0 || mero_op_decode(b.data, b.len, &op, &e) < 0) {
        mero_log(MERO_LOG_WARN, "gov: a deferred op could not be read back: %s", e.msg);
        bool gone = by_hash(s, SQL_DEF_DEL, hash, NULL) == 0;
        mero_buf_cleanup(&b);
        return gone;
    }
    struct actx a = {.s = s, .op = &op, .hash = hash, .bytes = b.data, .len = b.len, .seq = seq};
    a.have_us = mero__gov_our_pk(s, op.ns, a.us);
    bool done = false;
    if (mero__gov_exec(s, "SAVEPOINT gov_unseal") == 0) {
        int rc = mero__gov_dispatch(&a, &e);
        if (rc < 0) {
            mero_log(MERO_LOG_WARN, "gov: a deferred op is refused and stays without effect: %s",
                     e.msg);
            (void)mero__gov_exec(s, "ROLLBACK TO gov_unseal");
            a.nev = 0;
        }
        done = by_hash(s, SQL_DEF_DEL, hash, NULL) == 0 &&
               (rc == 0 || by_hash(s, SQL_INERT_PUT, hash, op.ns) == 0);
        if (!done) {
            (void)mero__gov_exec(s, "ROLLBACK TO gov_unseal");
            a.nev = 0;
        }
        (void)mero__gov_exec(s, "RELEASE gov_unseal");
        mero__gov_emit(&a);
    }
    free(a.ev);
    mero_op_cleanup(&op);
    mero_buf_cleanup(&b);
    return done;
}

/* One pass over the ready deferred ops; returns how many were processed. */
static size_t unseal_pass(struct mero_store *s)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_READY);
    if (st == NULL) {
        return 0;
    }
    uint8_t(*h)[MERO_OP_ID_LEN] = NULL;
    uint64_t *seq = NULL;
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_OP_ID_LEN) {
        uint8_t(*nh)[MERO_OP_ID_LEN] = realloc(h, (n + 1) * sizeof(*h));
        if (nh == NULL) {
            break;
        }
        h = nh;
        uint64_t *nseq = realloc(seq, (n + 1) * sizeof(*seq));
        if (nseq == NULL) {
            break;
        }
        seq = nseq;
        memcpy(h[n], sqlite3_column_blob(st, 0), sizeof(h[n]));
        seq[n] = (uint64_t)sqlite3_column_int64(st, 1);
        n++;
    }
    sqlite3_reset(st);
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        done += unseal_one(s, h[i], seq[i]) ? 1u : 0u;
    }
    free(h);
    free(seq);
    return done;
}

void mero__gov_unseal(struct mero_store *s)
{
    if (s->rebuilding) {
        return;
    }
    /* a deferred KeyDelivery may hand us a further key: repeat while progress is made */
    for (int pass = 0; pass < 8; pass++) {
        if (unseal_pass(s) == 0) {
            break;
        }
    }
}
