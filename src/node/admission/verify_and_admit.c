/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify_and_admit.c - verify_and_admit, in the spec's order ("Verify and admit (the verifier)"):
 *   1. spend the challenge for this namespace, peer (and requesting key) - before anything
 *      else is asked of the claim; then refuse a quote over MAX_TEE_QUOTE_BYTES on its length,
 *      before it is parsed;
 *   2. the credential certifies the attested key (join_credential_certifies);
 *   3. the binding from the credential, and the quote's report data = challenge || binding
 *      (a structural read first, so a wrong claim costs no collateral fetch), then mock or
 *      DCAP verification;
 *   4. quote_hash = SHA-256(the quote's declared bytes), then admit_tee_node (the governance
 *      decision, which publishes the admission, the evidence and the KeyDelivery, carrying
 *      those bytes: padding after a quote's declared end is dropped here, issue 32).
 * Invariants: nothing reaches step 4 unless steps 1-3 passed; a failure of any step is a
 * refusal with a reason and publishes nothing; "no verdict" from DCAP is a refusal, never a
 * pass; a real quote is never treated as mock nor the reverse (the header decides, and the
 * policy's accept_mock is judged by admit_tee_node).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/binding.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "node/admission/admission_internal.h"

void mero__tee_verdict_cleanup(struct mero_tee_verdict *v)
{
    if (v == NULL) {
        return;
    }
    free(v->collateral);
    memset(v, 0, sizeof(*v));
}

int mero__admission_check(struct mero_challenge_book *book, const struct mero_admission_deps *deps,
                          const struct mero_tee_claim *c, uint64_t now_ms,
                          struct mero_tee_verdict *v, struct mero_err *err)
{
    struct mero_tee_verdict t;
    memset(&t, 0, sizeof(t));
    if (book == NULL || deps == NULL || c == NULL || v == NULL) {
        return mero_err_set(err, MERO_EINVAL, "bad verify_and_admit arguments");
    }
    /* 1. the challenge, spent whatever comes next */
    MERO_TRY(mero__challenge_consume(book, c->challenge, c->ns, c->peer, c->peer_len, c->public_key,
                                     now_ms, err));
    if (c->quote == NULL || c->quote_len == 0) {
        return mero_err_set(err, MERO_EREFUSED, "the admission request carries no quote");
    }
    if (c->quote_len > MERO_MAX_TEE_QUOTE_BYTES) {
        return mero_err_set(err, MERO_ETOOBIG,
                            "the quote is %zu bytes, more than the %u an admission may carry",
                            c->quote_len, MERO_MAX_TEE_QUOTE_BYTES);
    }
    /* 2. the credential certifies the attested key */
    if (deps->credential_check == NULL) {
        return mero_err_set(err, MERO_EINTERNAL, "no credential checker installed");
    }
    int rc = deps->credential_check(deps->ud, c->public_key, c->credential, c->credential_len,
                                    t.account, t.kem_pk, t.device, err);
    if (rc < 0) {
        if (err != NULL && err->msg[0] == '\0') {
            mero_err_set(err, -rc, "the account credential does not certify the attested key");
        }
        return rc;
    }
    /* 3. binding and report data (structural), then the mock verdict */
    mero_admission_binding(t.binding, c->ns, c->ns, c->public_key, t.account, t.kem_pk, t.device);
    uint8_t want[MERO_REPORT_DATA_LEN], got[MERO_REPORT_DATA_LEN];
    bool is_mock = false;
    mero_report_data(want, c->challenge, t.binding);
    rc = mero_quote_report_data(c->quote, c->quote_len, got, &is_mock);
    if (rc < 0) {
        return mero_err_set(err, MERO_EREFUSED, "the quote does not parse (%s)", mero_strerror(rc));
    }
    if (!mero_ct_eq(got, want, MERO_NONCE_LEN)) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the quote's report data does not carry the challenge");
    }
    if (!mero_ct_eq(got + MERO_NONCE_LEN, want + MERO_NONCE_LEN, MERO_APP_HASH_LEN)) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the quote does not commit to this credential's admission binding");
    }
    t.is_mock = is_mock;
    if (is_mock) {
        struct mero_mock_result mr;
        rc = mero_mock_verify(c->quote, c->quote_len, c->challenge, t.binding, &mr, NULL);
        if (rc < 0 || !mr.quote_verified || !mr.nonce_verified || !mr.application_hash_verified) {
            return mero_err_set(err, MERO_EREFUSED, "the attestation did not verify");
        }
        /* a mock quote carries no measurements: every register reads as zeros */
        snprintf(t.tcb_status, sizeof(t.tcb_status), "%s", MERO_TCB_STATUS_MOCK);
        t.verified = true;
        t.quote_len = c->quote_len; /* a mock declares no length: its bytes as carried */
    } else {
        struct mero_quote q;
        rc = mero_quote_parse(&q, c->quote, c->quote_len, NULL);
        if (rc < 0) {
            return mero_err_set(err, MERO_EREFUSED, "the quote does not parse (%s)",
                                mero_strerror(rc));
        }
        /* One quote, one hash (issue 32): bytes after the declared end are padding that
         * verification ignores, so they are no part of what is hashed, spent or carried. */
        t.quote_len = q.total_len;
        memcpy(t.mrtd, q.body.mrtd, sizeof(t.mrtd));
        memcpy(t.rtmr, q.body.rtmr, sizeof(t.rtmr));
        /* the TD facts the admission rules judge (and the join records for every peer) */
        t.has_td = true;
        for (int i = 7; i >= 0; i--) {
            t.td_attributes = (t.td_attributes << 8) | q.body.td_attributes[i];
        }
        if (q.body.td15) {
            memcpy(t.mrservicetd, q.body.mrservicetd, sizeof(t.mrservicetd));
        }
    }
    *v = t;
    return 0;
}

int mero__admission_verify_real(const struct mero_admission_deps *deps,
                                const struct mero_tee_claim *c, struct mero_tee_verdict *v,
                                struct mero_err *err)
{
    if (v->is_mock) {
        return v->verified ? 0 : mero_err_set(err, MERO_EREFUSED, "the attestation did not verify");
    }
    if (deps->verify_real == NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "this node cannot verify real TDX quotes (no DCAP verifier)");
    }
    v->tcb_status[0] = '\0';
    struct mero_err e = {0};
    /* the declared bytes: the very ones hashed and carried (mero__admission_decide) */
    int rc = deps->verify_real(deps->ud, c->quote, v->quote_len, v, &e);
    if (rc < 0) {
        return mero_err_set(err, -rc, "the attestation did not verify: %s",
                            e.msg[0] ? e.msg : mero_errdesc(rc));
    }
    if (v->tcb_status[0] == '\0') {
        snprintf(v->tcb_status, sizeof(v->tcb_status), "Unknown");
    }
    v->verified = true;
    return 0;
}

int mero__admission_decide(const struct mero_admission_deps *deps, const struct mero_tee_claim *c,
                           struct mero_tee_verdict *v, int *out, struct mero_err *err)
{
    if (!v->verified) {
        return mero_err_set(err, MERO_EREFUSED, "the attestation did not verify");
    }
    if (deps->admit == NULL) {
        return mero_err_set(err, MERO_EINTERNAL, "no admission decision installed");
    }
    if (v->quote_len == 0 || v->quote_len > c->quote_len) {
        return mero_err_set(err, MERO_EINTERNAL, "the quote's length was not established");
    }
    mero_sha256(v->quote_hash, c->quote, v->quote_len);
    v->attested_at = mero_now_unix();
    int o = MERO_ADMIT_NOT_A_VOUCHER;
    int rc = deps->admit(deps->ud, c, v, &o, err);
    if (rc < 0) {
        if (err != NULL && err->msg[0] == '\0') {
            mero_err_set(err, -rc, "admission refused (%s)", mero_errdesc(rc));
        }
        return rc;
    }
    *out = o;
    return 0;
}

int mero__verify_and_admit(struct mero_challenge_book *book, const struct mero_admission_deps *deps,
                           const struct mero_tee_claim *c, uint64_t now_ms, int *out,
                           struct mero_err *err)
{
    struct mero_tee_verdict v;
    int o;
    memset(&v, 0, sizeof(v));
    mero_err_clear(err);
    int rc;
    MERO_TRY_OUT(mero__admission_check(book, deps, c, now_ms, &v, err));
    MERO_TRY_OUT(mero__admission_verify_real(deps, c, &v, err));
    MERO_TRY_OUT(mero__admission_decide(deps, c, &v, &o, err));
    MERO_ENSURE_OUT(o != MERO_ADMIT_NOT_A_VOUCHER, err, MERO_ENOTVOUCHER, "%s",
                    MERO_ADM_REASON_NOT_VOUCHER);
    *out = o;
out:
    mero__tee_verdict_cleanup(&v);
    return rc;
}
