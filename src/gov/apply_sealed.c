/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_sealed.c - applying the encrypted group-op form (NamespaceOp tag 2). A peer holding the
 * namespace key the op names decrypts it and runs exactly the rules of the cleartext GroupOp
 * (only MemberJoinedViaTeeAttestation travels encrypted). A peer without that key keeps the op
 * (the DAG stays whole, sync can serve it) as `deferred`, with no effect; the later ops the
 * rules refuse meanwhile are kept without effect like any refused op (fold.c). When the key
 * arrives (mero__gov_unseal, run after every applied op and every key put) the namespace is
 * re-folded: the encrypted op takes effect at its place in the canonical order and every later
 * op is judged again, so the state equals that of a peer that held the key all along.
 *
 * Invariants: an encrypted op never changes membership unless it decrypted under the key its
 * key_id names and its plaintext passed the same apply invariants as the cleartext form; a
 * ciphertext that does not authenticate under a key we hold is refused like any other rule
 * refusal; a deferred op has no effect until its key is held.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "mero/crypto.h"
#include "mero/log.h"

static const char SQL_DEF_PUT[] =
    "INSERT OR REPLACE INTO deferred(hash, ns, grp, key_id, seq) VALUES(?, ?, ?, ?, ?)";
/* namespaces holding an encrypted op deferred for a key we now hold */
static const char SQL_READY_NS[] =
    "SELECT DISTINCT d.ns FROM deferred d WHERE d.key_id IS NOT NULL AND EXISTS"
    " (SELECT 1 FROM group_keys k WHERE k.grp = d.ns AND k.key_id = d.key_id) ORDER BY d.ns";

static int def_put(struct actx *a, const uint8_t grp[MERO_GROUP_ID_LEN], const uint8_t *key_id)
{
    sqlite3_stmt *st = mero__gov_stmt(a->s, SQL_DEF_PUT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    a->s->fold.undeferred = false;
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

static const char SQL_BLOCKED[] =
    "SELECT 1 FROM deferred WHERE ns = ? AND grp = ? AND key_id IS NOT NULL LIMIT 1";

/* The group an op acts on, for deferral (NULL: never deferred). */
static const uint8_t *target_group(const struct mero_op *op)
{
    if (op->scope != MERO_SCOPE_ROOT) {
        return op->group_id;
    }
    return op->kind == MERO_ROOT_KEY_DELIVERY ? op->kd_group : NULL;
}

bool mero__gov_behind_sealed(struct mero_store *s, const struct mero_op *op)
{
    const uint8_t *g = target_group(op);
    if (s->fold.on && s->fold.undeferred && memcmp(s->fold.ns, op->ns, MERO_NS_ID_LEN) == 0) {
        return false; /* nothing deferred in this namespace since the fold cleared it */
    }
    sqlite3_stmt *st = g != NULL ? mero__gov_stmt(s, SQL_BLOCKED) : NULL;
    if (st == NULL) {
        return false;
    }
    sqlite3_bind_blob(st, 1, op->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, g, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return yes;
}

/* The opened inner op (owned: cleaned up here) judged as the one kind the encrypted form may
 * carry. */
static int apply_inner(struct actx *a, struct mero_op *inner, struct mero_err *err)
{
    int rc;
    MERO_ENSURE_OUT(inner->kind == MERO_GROUP_MEMBER_JOINED_TEE, err, MERO_EREFUSED,
                    "only MemberJoinedViaTeeAttestation may travel as an encrypted group op");
    rc = mero__gov_h_join(a, &inner->join, false, err);
out:
    mero_op_cleanup(inner);
    return rc;
}

static int open_and_apply(struct actx *a, const uint8_t key[MERO_GROUP_KEY_LEN],
                          struct mero_err *err)
{
    struct mero_op inner;
    MERO_TRY(mero_op_open(a->op, key, &inner, err));
    return apply_inner(a, &inner, err);
}

/* An audit's re-fold: the plaintext the exporter disclosed, applied unauthenticated. */
static int apply_disclosed(struct actx *a, const uint8_t *plain, size_t n, struct mero_err *err)
{
    struct mero_op inner;
    MERO_TRY(mero_op_open_plain(a->op, plain, n, &inner, err));
    return apply_inner(a, &inner, err);
}

int mero__gov_h_sealed(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t key[MERO_GROUP_KEY_LEN];
    char h[GOV_SHORT_SIZE];
    int rc = mero_gov_group_key_by_id(a->s, op->ns, op->key_id, key);
    const uint8_t *plain = NULL;
    size_t n = 0;
    if (rc == -MERO_ENOTFOUND && a->s->hooks.sealed_plaintext != NULL &&
        a->s->hooks.sealed_plaintext(a->s->hooks.ud, a->hash, &plain, &n) == 0) {
        return apply_disclosed(a, plain, n, err);
    }
    if (rc == -MERO_ENOTFOUND) {
        mero_log(MERO_LOG_INFO, "gov: encrypted group op kept deferred until key %s arrives",
                 mero__gov_short(op->key_id, h));
        a->deferred = true;
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

int mero_gov_sealed_plaintext(struct mero_store *s, const uint8_t *op_bytes, size_t len,
                              uint8_t **plain, size_t *plain_len, struct mero_err *err)
{
    struct mero_op op;
    uint8_t key[MERO_GROUP_KEY_LEN];
    int rc;
    *plain = NULL;
    *plain_len = 0;
    MERO_TRY(mero_op_decode(op_bytes, len, &op, err));
    MERO_ENSURE_OUT(op.scope == MERO_SCOPE_GROUP_ENCRYPTED, err, MERO_EINVAL,
                    "not an encrypted group op");
    rc = mero_gov_group_key_by_id(s, op.ns, op.key_id, key);
    MERO_ENSURE_OUT(rc != -MERO_ENOTFOUND, err, MERO_ENOTFOUND,
                    "the namespace key this op names is not held here");
    MERO_ENSURE_OUT(rc == 0, err, -rc, "the group key cannot be read");
    rc = mero_op_decrypt(&op, key, plain, plain_len, err);
    sodium_memzero(key, sizeof(key));
out:
    mero_op_cleanup(&op);
    return rc;
}

/* The namespaces ready to re-fold (at most cap). */
static size_t ready_ns(struct mero_store *s, uint8_t (*out)[MERO_NS_ID_LEN], size_t cap)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_READY_NS);
    size_t n = 0;
    if (st == NULL) {
        return 0;
    }
    while (n < cap && sqlite3_step(st) == SQLITE_ROW &&
           sqlite3_column_bytes(st, 0) == MERO_NS_ID_LEN) {
        memcpy(out[n++], sqlite3_column_blob(st, 0), MERO_NS_ID_LEN);
    }
    sqlite3_reset(st);
    return n;
}

/* Re-fold ns in its own savepoint and deliver the events of what changed. */
static bool unseal_ns(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_op op;
    struct mero_err e = {0};
    static const uint8_t none[MERO_OP_ID_LEN];
    mero_op_init(&op);
    memcpy(op.ns, ns, sizeof(op.ns));
    struct actx a = {.s = s, .op = &op, .hash = none};
    a.have_us = mero__gov_our_pk(s, ns, a.us);
    bool done = false;
    if (mero__gov_exec(s, "SAVEPOINT gov_unseal") == 0) {
        done = mero__gov_refold(s, &a, false, NULL, NULL, &e) == 0;
        if (!done) {
            mero_log(MERO_LOG_WARN, "gov: re-fold after a key arrived failed: %s", e.msg);
            (void)mero__gov_exec(s, "ROLLBACK TO gov_unseal");
            a.nev = 0;
        }
        (void)mero__gov_exec(s, "RELEASE gov_unseal");
        mero__gov_emit(&a);
    }
    free(a.ev);
    mero_op_cleanup(&op);
    return done;
}

void mero__gov_unseal(struct mero_store *s)
{
    if (s->rebuilding) {
        return;
    }
    /* a re-fold may hand us a further key (a KeyDelivery behind the encrypted op): repeat
     * while a namespace is ready, a bounded number of times */
    for (int pass = 0; pass < 8; pass++) {
        uint8_t ns[8][MERO_NS_ID_LEN];
        size_t n = ready_ns(s, ns, 8);
        size_t done = 0;
        for (size_t i = 0; i < n; i++) {
            done += unseal_ns(s, ns[i]) ? 1u : 0u;
        }
        if (done == 0) {
            break;
        }
    }
}

/* A key from outside the op log (a key pull): stored, then the ops deferred for it are judged
 * (this file's unseal), so it lives a floor above the store. */
int mero_gov_group_key_put(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                           const uint8_t key[static MERO_GROUP_KEY_LEN])
{
    MERO_TRY(mero__gov_key_put(s, group, key));
    mero__gov_unseal(s);
    return 0;
}
