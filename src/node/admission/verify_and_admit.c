/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify_and_admit.c - the admission pipeline: one job, its stages in the spec's order ("Verify
 * and admit (the verifier)"), the off-loop boundary the only split:
 *   check (loop)
 *   1. spend the challenge for this namespace, peer (and requesting key) - before anything
 *      else is asked of the claim; then refuse a quote over MAX_TEE_QUOTE_BYTES on its length,
 *      before it is parsed;
 *   2. the credential certifies the attested key (join_credential_certifies), decoded once;
 *   3. the binding from the credential, and the quote's report data = challenge || binding
 *      (the quote parsed once, so a wrong claim costs no collateral fetch); a mock quote is
 *      verified here;
 *   verify (off the loop when the caller offloads it; real quotes only)
 *      the collateral for the parsed quote (fetched once), a named release under a
 *      signed-release policy, DCAP's verdict on the parsed quote, the collateral's JSON for the
 *      record (made once from the struct, never parsed back);
 *   decide (loop)
 *   4. quote_hash = SHA-256(the quote's declared bytes), then admit_tee_node (the governance
 *      decision, which publishes the admission, the evidence and the KeyDelivery, carrying
 *      those bytes: padding after a quote's declared end is dropped here, issue 32).
 * Invariants: nothing reaches step 4 unless steps 1-3 and the verify stage passed; a failure of
 * any step is a refusal with a reason and publishes nothing; "no verdict" from DCAP is a
 * refusal, never a pass; a real quote is never treated as mock nor the reverse (the header
 * decides, and the policy's accept_mock is judged by admit_tee_node); the job's done runs once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/binding.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "node/admission/admission_internal.h"

struct mero__adm_job *mero__adm_job_new(const struct mero_tee_claim *c)
{
    struct mero__adm_job *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return NULL;
    }
    j->c = *c;
    j->outcome = MERO_ADMIT_NOT_A_VOUCHER;
    j->quote_bytes = malloc(c->quote_len ? c->quote_len : 1);
    j->cred_bytes = malloc(c->credential_len ? c->credential_len : 1);
    if (j->quote_bytes == NULL || j->cred_bytes == NULL) {
        mero__adm_job_free(j);
        return NULL;
    }
    if (c->quote_len > 0) {
        memcpy(j->quote_bytes, c->quote, c->quote_len);
    }
    if (c->credential_len > 0) {
        memcpy(j->cred_bytes, c->credential, c->credential_len);
    }
    j->c.quote = c->quote != NULL ? j->quote_bytes : NULL;
    j->c.credential = j->cred_bytes;
    if (c->release != NULL) {
        snprintf(j->release, sizeof(j->release), "%s", c->release);
        j->c.release = j->release;
    }
    /* the peer id as the challenge book keys it: its bytes as given (cut to the buffer) */
    j->c.peer_len = c->peer_len < sizeof(j->peer) ? c->peer_len : sizeof(j->peer) - 1;
    if (j->c.peer_len > 0) {
        memcpy(j->peer, c->peer, j->c.peer_len);
    }
    j->c.peer = (const uint8_t *)j->peer;
    return j;
}

void mero__adm_job_free(struct mero__adm_job *j)
{
    if (j == NULL) {
        return;
    }
    free(j->v.collateral);
    mero_collateral_cleanup(&j->coll);
    free(j->quote_bytes);
    free(j->cred_bytes);
    mero_wipe(j, sizeof(*j));
    free(j);
}

/* The mock verdict (reference-calimero.md §1.3, as mero_mock_verify gives it): a mock has no
 * signature to check, so once check() has found its header and both report-data halves equal
 * to the challenge and the binding, it is verified, status "Mock"; its facts are every register
 * zero. Whether a mock may join at all is the policy's accept_mock, judged by admit_tee_node. */
static void read_mock(struct mero__adm_job *j)
{
    struct mero_tee_verdict *v = &j->v;
    snprintf(v->tcb_status, sizeof(v->tcb_status), "%s", MERO_TCB_STATUS_MOCK);
    v->verified = true;
    v->quote_len = j->c.quote_len; /* a mock declares no length: its bytes as carried */
}

/* A real quote's facts, from the body that DCAP verifies later. */
static void read_real(struct mero__adm_job *j)
{
    struct mero_tee_verdict *v = &j->v;
    const struct mero_quote *q = &j->quote;
    /* One quote, one hash (issue 32): bytes after the declared end are padding that
     * verification ignores, so they are no part of what is hashed, spent or carried. */
    v->quote_len = q->total_len;
    memcpy(v->mrtd, q->body.mrtd, sizeof(v->mrtd));
    memcpy(v->rtmr, q->body.rtmr, sizeof(v->rtmr));
    /* the TD facts the admission rules judge (and the join records for every peer) */
    v->has_td = true;
    for (int i = 7; i >= 0; i--) {
        v->td_attributes = (v->td_attributes << 8) | q->body.td_attributes[i];
    }
    if (q->body.td15) {
        memcpy(v->mrservicetd, q->body.mrservicetd, sizeof(v->mrservicetd));
    }
}

/* Steps 1-3, on the loop. */
static int check(struct mero__adm_job *j, struct mero_err *err)
{
    const struct mero_tee_claim *c = &j->c;
    struct mero_tee_verdict *v = &j->v;
    /* 1. the challenge, spent whatever comes next */
    MERO_TRY(mero__adm_challenge_consume(j->book, c->challenge, c->ns, c->peer, c->peer_len,
                                         c->public_key, j->now_ms, err));
    MERO_ENSURE(c->quote != NULL && c->quote_len > 0, err, MERO_EREFUSED,
                "the admission request carries no quote");
    MERO_ENSURE(c->quote_len <= MERO_MAX_TEE_QUOTE_BYTES, err, MERO_ETOOBIG,
                "the quote is %zu bytes, more than the %u an admission may carry", c->quote_len,
                MERO_MAX_TEE_QUOTE_BYTES);
    /* 2. the credential certifies the attested key */
    MERO_ENSURE(j->ops->credential != NULL, err, MERO_EINTERNAL, "no credential checker installed");
    int rc = j->ops->credential(j->ops->ud, c->public_key, c->credential, c->credential_len,
                                &j->cred, err);
    if (rc < 0) {
        if (err != NULL && err->msg[0] == '\0') {
            mero_err_set(err, -rc, "the account credential does not certify the attested key");
        }
        return rc;
    }
    memcpy(v->account, j->cred.cert.account, sizeof(v->account));
    memcpy(v->kem_pk, j->cred.cert.kem_pk, sizeof(v->kem_pk));
    memcpy(v->device, j->cred.cert.device, sizeof(v->device));
    /* 3. binding and report data (structural: the quote parsed once), then the mock verdict */
    mero_admission_binding(v->binding, c->ns, c->ns, c->public_key, v->account, v->kem_pk,
                           v->device);
    uint8_t want[MERO_REPORT_DATA_LEN], got[MERO_REPORT_DATA_LEN];
    mero_report_data(want, c->challenge, v->binding);
    /* the header decides: a mock quote's report data is read in place, a real quote parsed */
    bool is_mock = mero_mock_is_mock(c->quote, c->quote_len);
    if (is_mock) {
        rc = c->quote_len < MERO_MOCK_REPORT_DATA_END ? -MERO_ETRUNC : 0;
    } else {
        rc = mero_quote_parse(&j->quote, c->quote, c->quote_len, NULL);
    }
    MERO_ENSURE(rc == 0, err, MERO_EREFUSED, "the quote does not parse (%s)", mero_strerror(rc));
    memcpy(got, is_mock ? c->quote + MERO_MOCK_HEADER_LEN : j->quote.body.report_data, sizeof(got));
    MERO_ENSURE(mero_ct_eq(got, want, MERO_NONCE_LEN), err, MERO_EREFUSED,
                "the quote's report data does not carry the challenge");
    MERO_ENSURE(mero_ct_eq(got + MERO_NONCE_LEN, want + MERO_NONCE_LEN, MERO_APP_HASH_LEN), err,
                MERO_EREFUSED, "the quote does not commit to this credential's admission binding");
    v->is_mock = is_mock;
    if (is_mock) {
        read_mock(j);
    } else {
        read_real(j);
    }
    return 0;
}

/* The collateral for the parsed quote, fetched once. Any thread. */
static int fetch_collateral(struct mero__adm_job *j, struct mero_err *err)
{
    const struct mero__adm_ops *ops = j->ops;
    struct mero_err e = {0};
    MERO_ENSURE(ops->collateral != NULL && ops->dcap != NULL, err, MERO_EUNSUPPORTED,
                "this node cannot verify real TDX quotes (no DCAP verifier)");
    int rc = ops->collateral(ops->ud, &j->quote, &j->coll, &e);
    MERO_ENSURE(rc == 0, err, -rc, "the attestation did not verify: %s",
                e.msg[0] ? e.msg : mero_errdesc(rc));
    return 0;
}

/* A named release under a signed-release policy: one that cannot be fetched or verified refuses
 * the attempt here, so the decision's release check on the loop never waits on the network. */
static int fetch_release(struct mero__adm_job *j, struct mero_err *err)
{
    struct mero_err e = {0};
    if (!j->prefetch || j->ops->release == NULL) {
        return 0;
    }
    int rc = j->ops->release(j->ops->ud, j->release, &e);
    MERO_ENSURE(rc == 0, err, -rc, "release %s: %s", j->release, e.msg);
    return 0;
}

/* DCAP's verdict on the parsed quote, then the collateral's JSON for the record. Any thread. */
static int judge(struct mero__adm_job *j, struct mero_err *err)
{
    const struct mero__adm_ops *ops = j->ops;
    struct mero_tee_verdict *v = &j->v;
    struct mero_err e = {0};
    struct mero_buf b;
    uint64_t t0 = mero_now_ns();
    v->tcb_status[0] = '\0';
    int rc = ops->dcap(ops->ud, &j->quote, &j->coll, v, &e);
    j->dcap_ran = true;
    j->dcap_rc = rc;
    j->dcap_ns = mero_now_ns() - t0;
    MERO_ENSURE(rc == 0, err, -rc, "the attestation did not verify: %s",
                e.msg[0] ? e.msg : mero_errdesc(rc));
    if (v->tcb_status[0] == '\0') {
        snprintf(v->tcb_status, sizeof(v->tcb_status), "Unknown");
    }
    mero_buf_init(&b, MERO_COLLATERAL_MAX_JSON);
    rc = mero_collateral_to_json(&j->coll, &b);
    if (rc < 0) {
        mero_buf_cleanup(&b);
        return mero_err_set(err, MERO_ECOLLATERAL,
                            "the attestation did not verify: the collateral does not serialize");
    }
    v->collateral = mero_buf_steal(&b, &v->collateral_len);
    v->verified = true;
    return 0;
}

void mero__adm_job_verify(struct mero__adm_job *j)
{
    if (j->rc < 0 || j->v.is_mock) {
        return;
    }
    j->rc = fetch_collateral(j, &j->err);
    if (j->rc == 0) {
        j->rc = fetch_release(j, &j->err);
    }
    if (j->rc == 0) {
        j->rc = judge(j, &j->err);
    }
}

/* Step 4, on the loop. */
static int decide(struct mero__adm_job *j, struct mero_err *err)
{
    struct mero_tee_verdict *v = &j->v;
    MERO_ENSURE(v->verified, err, MERO_EREFUSED, "the attestation did not verify");
    MERO_ENSURE(j->ops->admit != NULL, err, MERO_EINTERNAL, "no admission decision installed");
    MERO_ENSURE(v->quote_len > 0 && v->quote_len <= j->c.quote_len, err, MERO_EINTERNAL,
                "the quote's length was not established");
    mero_sha256(v->quote_hash, j->c.quote, v->quote_len);
    v->attested_at = mero_now_unix();
    int o = MERO_ADMIT_NOT_A_VOUCHER;
    int rc = j->ops->admit(j->ops->ud, j, &o, err);
    if (rc < 0) {
        if (err != NULL && err->msg[0] == '\0') {
            mero_err_set(err, -rc, "admission refused (%s)", mero_errdesc(rc));
        }
        return rc;
    }
    j->outcome = o;
    MERO_ENSURE(o != MERO_ADMIT_NOT_A_VOUCHER, err, MERO_ENOTVOUCHER, "%s",
                MERO_ADM_REASON_NOT_VOUCHER);
    return 0;
}

void mero__adm_job_decide(struct mero__adm_job *j)
{
    if (j->rc == 0) {
        j->rc = decide(j, &j->err);
    }
    if (j->done != NULL) {
        j->done(j); /* may free j */
    }
}

void mero__adm_verify_and_admit(struct mero__adm_job *j)
{
    mero_err_clear(&j->err);
    j->rc = check(j, &j->err);
    if (j->rc == 0 && !j->v.is_mock && j->offload != NULL) {
        if (j->offload(j) == 0) {
            return; /* decided in mero__adm_job_decide, back on the loop */
        }
        j->rc = mero_err_set(&j->err, MERO_ENOMEM, "could not queue the verification");
    } else {
        mero__adm_job_verify(j);
    }
    mero__adm_job_decide(j);
}
