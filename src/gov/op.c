/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op.c - op helpers: roles and modes, string lists, policy validation (the set-time rule of
 * "The admission policy"), a quote's measurements between raw bytes and hex (the one
 * conversion), op lifetime, signing, verification and hashing.
 *
 * Invariants: the signed bytes are exactly "calimero.namespace.v1" || borsh(signable), and the
 * op hash is SHA-256 of those bytes, so a hash names one signable content; a policy that would
 * admit everything (an empty MRTD or RTMR1-3 list) never validates.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/encoding.h"
#include "mero/crypto.h"
#include "mero/op.h"
#include "mero/release.h"

bool mero_role_is_tee(int role)
{
    return role == MERO_ROLE_READONLY_TEE || role == MERO_ROLE_RELAY_TEE;
}

bool mero_role_valid(int role)
{
    return role >= MERO_ROLE_ADMIN && role <= MERO_ROLE_RELAY_TEE;
}

const char *mero_role_name(int role)
{
    switch (role) {
    case MERO_ROLE_ADMIN:
        return "Admin";
    case MERO_ROLE_MEMBER:
        return "Member";
    case MERO_ROLE_READONLY:
        return "ReadOnly";
    case MERO_ROLE_READONLY_TEE:
        return "ReadOnlyTee";
    case MERO_ROLE_RELAY_TEE:
        return "RelayTee";
    default:
        return "?";
    }
}

int mero_tee_mode_role(int mode)
{
    return mode == MERO_TEE_MODE_RELAY ? MERO_ROLE_RELAY_TEE : MERO_ROLE_READONLY_TEE;
}

int mero_strlist_push(struct mero_strlist *l, const char *s)
{
    if (l->n >= MERO_GOV_MAX_LIST || strlen(s) > MERO_GOV_MAX_STR) {
        return -MERO_ETOOBIG;
    }
    char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
    if (nv == NULL) {
        return -MERO_ENOMEM;
    }
    l->v = nv;
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(copy, s, len + 1);
    l->v[l->n++] = copy;
    return 0;
}

void mero_strlist_cleanup(struct mero_strlist *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        free(l->v[i]);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

bool mero_strlist_contains_ci(const struct mero_strlist *l, const char *s)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (strcasecmp(l->v[i], s) == 0) {
            return true;
        }
    }
    return false;
}

void mero_tee_policy_cleanup(struct mero_tee_policy *p)
{
    mero_strlist_cleanup(&p->mrtd);
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        mero_strlist_cleanup(&p->rtmr[i]);
    }
    mero_strlist_cleanup(&p->tcb);
    mero_strlist_cleanup(&p->profiles);
    free(p->min_release);
    p->min_release = NULL;
}

static int check_list(const struct mero_strlist *l, const char *name, bool required,
                      struct mero_err *err)
{
    if (required && l->n == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "policy has an empty %s: an empty allowlist would admit every quote",
                            name);
    }
    for (uint32_t i = 0; i < l->n; i++) {
        if (!mero_hex_is(l->v[i], strlen(l->v[i]), MERO_MR_LEN)) {
            return mero_err_set(err, MERO_EREFUSED, "%s entry %u is not a 48-byte hex measurement",
                                name, (unsigned)i);
        }
    }
    return 0;
}

void mero_measurements_from_raw(struct mero_measurements *m, const uint8_t mrtd[MERO_MR_LEN],
                                const uint8_t rtmr[MERO_RTMR_COUNT][MERO_MR_LEN])
{
    mero_hex_encode(m->mrtd, mrtd, MERO_MR_LEN);
    for (size_t i = 0; i < MERO_RTMR_COUNT; i++) {
        mero_hex_encode(m->rtmr[i], rtmr[i], MERO_MR_LEN);
    }
}

int mero_measurements_to_raw(const struct mero_measurements *m, uint8_t mrtd[MERO_MR_LEN],
                             uint8_t rtmr[MERO_RTMR_COUNT][MERO_MR_LEN],
                             bool ok[1 + MERO_RTMR_COUNT])
{
    bool all = true;
    ok[0] = mero_hex_decode_exact(mrtd, MERO_MR_LEN, m->mrtd, strlen(m->mrtd)) == 0;
    all = all && ok[0];
    for (size_t i = 0; i < MERO_RTMR_COUNT; i++) {
        ok[1 + i] =
            mero_hex_decode_exact(rtmr[i], MERO_MR_LEN, m->rtmr[i], strlen(m->rtmr[i])) == 0;
        all = all && ok[1 + i];
    }
    return all ? 0 : -MERO_EHEX;
}

int mero_tee_policy_validate(const struct mero_tee_policy *p, struct mero_err *err)
{
    if (p->mode != MERO_TEE_MODE_REPLICA && p->mode != MERO_TEE_MODE_RELAY) {
        return mero_err_set(err, MERO_EREFUSED, "policy mode must be replica or relay");
    }
    if (!p->v2 && p->mode != MERO_TEE_MODE_REPLICA) {
        return mero_err_set(err, MERO_EREFUSED, "a v1 policy op cannot carry the relay mode");
    }
    if (p->form == MERO_POLICY_MEASUREMENT) {
        if (p->profiles.n != 0 || p->min_release != NULL) {
            return mero_err_set(err, MERO_EREFUSED,
                                "a measurement policy cannot name release profiles");
        }
        if (p->mrtd.n == 0) {
            return mero_err_set(err, MERO_EREFUSED,
                                "policy has an empty allowed_mrtd: an empty allowlist would "
                                "admit every quote");
        }
        MERO_TRY(check_list(&p->mrtd, "allowed_mrtd", true, err));
        MERO_TRY(check_list(&p->rtmr[0], "allowed_rtmr0", false, err));
        MERO_TRY(check_list(&p->rtmr[1], "allowed_rtmr1", true, err));
        MERO_TRY(check_list(&p->rtmr[2], "allowed_rtmr2", true, err));
        MERO_TRY(check_list(&p->rtmr[3], "allowed_rtmr3", true, err));
        return 0;
    }
    if (p->form != MERO_POLICY_RELEASE) {
        return mero_err_set(err, MERO_EREFUSED, "unknown policy form");
    }
    if (p->mrtd.n != 0 || p->rtmr[0].n != 0 || p->rtmr[1].n != 0 || p->rtmr[2].n != 0 ||
        p->rtmr[3].n != 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "a signed-release policy takes no measurement lists");
    }
    if (p->profiles.n == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "a signed-release policy needs non-empty allowed_profiles");
    }
    for (uint32_t i = 0; i < p->profiles.n; i++) {
        if (p->profiles.v[i][0] == '\0') {
            return mero_err_set(err, MERO_EREFUSED, "allowed_profiles entry %u is empty",
                                (unsigned)i);
        }
    }
    if (p->min_release != NULL && mero_release_version_check(p->min_release) < 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "min_release_version must be a release version (X.Y.Z)");
    }
    return 0;
}

void mero_op_init(struct mero_op *op)
{
    memset(op, 0, sizeof(*op));
    op->version = MERO_GOV_SCHEMA_VERSION;
}

void mero_op_cleanup(struct mero_op *op)
{
    free(op->parents);
    free(op->rotation.env);
    free(op->join.quote);
    free(op->evidence.quote);
    free(op->evidence.collateral);
    free(op->ciphertext);
    free(op->cuts);
    mero_tee_policy_cleanup(&op->policy);
    mero_op_init(op);
}

int mero_op_set_parents(struct mero_op *op, const uint8_t (*parents)[MERO_OP_ID_LEN], uint32_t n)
{
    if (n > MERO_GOV_MAX_PARENTS) {
        return -MERO_ETOOBIG;
    }
    uint8_t(*p)[MERO_OP_ID_LEN] = NULL;
    if (n > 0) {
        p = malloc(n * sizeof(*p));
        if (p == NULL) {
            return -MERO_ENOMEM;
        }
        memcpy(p, parents, n * sizeof(*p));
    }
    free(op->parents);
    op->parents = p;
    op->n_parents = n;
    return 0;
}

int mero_op_sign(struct mero_op *op, const uint8_t sk[static MERO_ED25519_SK_LEN])
{
    struct mero_buf b;
    int rc;
    memcpy(op->signer, sk + MERO_ED25519_SEED_LEN, sizeof(op->signer));
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    MERO_TRY_OUT(mero_op_signed_bytes(op, &b));
    mero_ed25519_sign(op->signature, b.data, b.len, sk);
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_op_verify(const struct mero_op *op, struct mero_err *err)
{
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    int rc = mero_op_signed_bytes(op, &b);
    MERO_ENSURE_OUT(rc >= 0, err, -rc, "op cannot be re-encoded");
    MERO_ENSURE_OUT(mero_ed25519_verify(op->signature, b.data, b.len, op->signer) == 0, err,
                    MERO_EBADSIG, "op signature does not verify under its signer");
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_op_hash(const struct mero_op *op, uint8_t out[static MERO_OP_ID_LEN])
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    MERO_TRY_OUT(mero_op_signed_bytes(op, &b));
    mero_sha256(out, b.data, b.len);
out:
    mero_buf_cleanup(&b);
    return rc;
}
