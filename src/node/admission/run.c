/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - runs verify_and_admit for a claim that arrived on either path and answers
 * the requester (direct path) or, on the offered path, logs the outcome and sends the joiner a
 * TeeAdmissionVerdict (node/admission/verdict.c). A mock quote, or a node
 * without an off-loop collateral fetcher, runs in one go on the loop. A real quote's
 * collateral is fetched and its DCAP verdict computed on a uv_queue_work thread (the PCS and
 * verifier caches are thread-safe), so a flood of attempts cannot stall the loop; the
 * governance decision runs back on the loop, which owns the challenge book and the store, one
 * completion at a time.
 *
 * Invariants: the challenge is spent (step 1) before any work is queued; an asynchronous
 * claim owns copies of everything it refers to; the requester gets exactly one answer; a
 * completion arriving after mero__admission_stop publishes and answers nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "node/admission/service_internal.h"

struct run_job {
    uv_work_t w;
    struct mero_admission *a;
    struct mero_net_req *req; /* NULL on the offered path */
    const char *path;
    struct mero_tee_claim c;
    struct mero_tee_verdict v;
    uint8_t *quote;
    uint8_t *cred;
    char release[MERO_ADM_MAX_RELEASE_LEN + 1];
    char peer[MERO_PEER_ID_STR_MAX];
    int fetch_rc;
    struct mero_err fetch_err;
    bool prefetch; /* signed-release policy and a named release: warm the release cache */
    bool release_failed;
    bool verified_off_loop; /* the DCAP verdict ran in job_work: verify_rc / verify_err */
    int verify_rc;
    struct mero_err verify_err;
};

void mero__adm_respond_verdict(struct mero_net_req *req, bool admitted, const char *reason)
{
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    if (mero__adm_response_encode(&b, admitted, reason) == 0) {
        if (mero_net_respond(req, b.data, b.len) < 0) {
            MERO_DEBUG("admission: the requester went away before its answer");
        }
    } else {
        mero_net_req_drop(req);
    }
    mero_buf_cleanup(&b);
}

static void report(struct mero_admission *a, const struct mero_tee_claim *c,
                   const struct mero_tee_verdict *v, const char *path, struct mero_net_req *req,
                   int rc, int outcome, const struct mero_err *e)
{
    char nsx[17], pkx[17];
    mero_hex_encode(nsx, c->ns, 8);
    mero_hex_encode(pkx, c->public_key, 8);
    if (rc == 0 && outcome == MERO_ADMIT_NOT_A_VOUCHER) {
        rc = -MERO_ENOTVOUCHER;
    }
    mero__adm_metrics_decision(&a->metrics, rc, e->msg);
    if (rc == 0) {
        a->admitted++;
        MERO_INFO("admission (%s): TEE %s… (peer %.*s) %s namespace %s… (release %s)", path, pkx,
                  (int)c->peer_len, (const char *)c->peer,
                  outcome == MERO_ADMIT_ALREADY_MEMBER ? "already a member of" : "admitted to", nsx,
                  c->release != NULL ? c->release : "not named");
    } else {
        a->refused++;
        MERO_WARN("admission: refused TEE %s… (peer %.*s) for namespace %s…: %s", pkx,
                  (int)c->peer_len, (const char *)c->peer, nsx,
                  rc == -MERO_ENOTVOUCHER ? MERO_ADM_REASON_NOT_VOUCHER : e->msg);
    }
    if (a->env.attempt_decided != NULL) {
        a->env.attempt_decided(a->env.ud, c, v, req != NULL, rc == 0,
                               rc == -MERO_ENOTVOUCHER ? MERO_ADM_REASON_NOT_VOUCHER : e->msg);
    }
    if (req == NULL) {
        /* the offered path: the joiner has no stream waiting, so tell it on one of our own */
        mero__adm_send_verdict(a, c, rc == 0,
                               rc == -MERO_ENOTVOUCHER ? MERO_ADM_REASON_NOT_VOUCHER : e->msg);
    } else {
        mero__adm_respond_verdict(req, rc == 0,
                                  rc == 0                   ? ""
                                  : rc == -MERO_ENOTVOUCHER ? MERO_ADM_REASON_NOT_VOUCHER
                                                            : e->msg);
    }
}

static void job_free(struct run_job *j)
{
    mero__tee_verdict_cleanup(&j->v);
    free(j->quote);
    free(j->cred);
    free(j);
}

/* The collateral, then (when asked) the named release, fetched off the loop. */
static int job_fetch(struct run_job *j)
{
    uint8_t *json = NULL;
    size_t jlen = 0;
    MERO_TRY(j->a->env.fetch_collateral(j->a->env.ud, j->c.quote, j->c.quote_len, &json, &jlen,
                                        &j->fetch_err));
    j->v.collateral = json;
    j->v.collateral_len = jlen;
    if (!j->prefetch) {
        return 0;
    }
    /* a release that cannot be fetched or verified refuses this attempt here, so the
     * decision's release check on the loop never waits on the network */
    struct mero_err e = {0};
    int rc = j->a->env.prefetch_release(j->a->env.ud, j->release, &e);
    if (rc < 0) {
        j->release_failed = true;
        return mero_err_set(&j->fetch_err, -rc, "release %s: %s", j->release, e.msg);
    }
    return 0;
}

static void job_work(uv_work_t *w)
{
    struct run_job *j = w->data;
    j->fetch_rc = job_fetch(j);
    if (j->fetch_rc == 0) {
        /* The DCAP verdict off the loop too (the verifier's caches are thread-safe,
         * docs/verification.md §5); only the decision runs back on the loop. */
        j->verify_rc = mero__admission_verify_real(&j->a->deps, &j->c, &j->v, &j->verify_err);
        j->verified_off_loop = true;
    }
}

static void job_done(uv_work_t *w, int status)
{
    struct run_job *j = w->data;
    struct mero_admission *a = j->a;
    struct mero_err e = {0};
    int outcome = MERO_ADMIT_NOT_A_VOUCHER;
    int rc;
    a->jobs--;
    if (a->closing || status != 0) {
        if (j->req != NULL) {
            mero_net_req_drop(j->req);
        }
        job_free(j);
        mero__adm_maybe_free(a);
        return;
    }
    if (j->fetch_rc < 0 && j->release_failed) {
        rc = mero_err_set(&e, -j->fetch_rc, "%s", j->fetch_err.msg);
    } else if (j->fetch_rc < 0) {
        rc = mero_err_set(&e, -j->fetch_rc, "the attestation did not verify: %s",
                          j->fetch_err.msg[0] ? j->fetch_err.msg : "no collateral");
    } else {
        rc = j->verified_off_loop ? j->verify_rc
                                  : mero__admission_verify_real(&a->deps, &j->c, &j->v, &e);
        if (rc < 0 && j->verified_off_loop) {
            e = j->verify_err;
        }
        if (rc == 0) {
            rc = mero__admission_decide(&a->deps, &j->c, &j->v, &outcome, &e);
        }
    }
    report(a, &j->c, &j->v, j->path, j->req, rc, outcome, &e);
    job_free(j);
}

/* Copy the claim so it outlives the frame it came in. */
static struct run_job *job_new(struct mero_admission *a, const struct mero_tee_claim *c,
                               const struct mero_tee_verdict *v, const char *path,
                               struct mero_net_req *req)
{
    struct run_job *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return NULL;
    }
    j->a = a;
    j->req = req;
    j->path = path;
    j->c = *c;
    j->v = *v;
    j->quote = malloc(c->quote_len);
    j->cred = malloc(c->credential_len ? c->credential_len : 1);
    if (j->quote == NULL || j->cred == NULL) {
        free(j->quote);
        free(j->cred);
        free(j);
        return NULL;
    }
    memcpy(j->quote, c->quote, c->quote_len);
    memcpy(j->cred, c->credential, c->credential_len);
    j->c.quote = j->quote;
    j->c.credential = j->cred;
    if (c->release != NULL) {
        snprintf(j->release, sizeof(j->release), "%s", c->release);
        j->c.release = j->release;
    }
    snprintf(j->peer, sizeof(j->peer), "%.*s", (int)c->peer_len, (const char *)c->peer);
    j->c.peer = (const uint8_t *)j->peer;
    j->c.peer_len = strlen(j->peer);
    j->w.data = j;
    return j;
}

void mero__adm_run(struct mero_admission *a, const struct mero_tee_claim *c, const char *path,
                   struct mero_net_req *req)
{
    struct mero_tee_verdict v;
    struct mero_err e = {0};
    int outcome = MERO_ADMIT_NOT_A_VOUCHER;
    memset(&v, 0, sizeof(v));
    int rc;
    MERO_TRY_OUT(mero__admission_check(&a->book, &a->deps, c, mero__adm_now(a), &v, &e));
    if (!v.is_mock && a->env.fetch_collateral != NULL && a->env.loop != NULL) {
        struct run_job *j = job_new(a, c, &v, path, req);
        if (j != NULL && c->release != NULL && a->env.prefetch_release != NULL) {
            struct mero_tee_policy p;
            bool found = false;
            memset(&p, 0, sizeof(p));
            if (mero_gov_read_policy(a->env.store, c->ns, &p, &found, NULL) == 0 && found) {
                j->prefetch = p.form == MERO_POLICY_RELEASE;
                mero_tee_policy_cleanup(&p);
            }
        }
        if (j != NULL && uv_queue_work(a->env.loop, &j->w, job_work, job_done) == 0) {
            a->jobs++;
            return; /* answered from job_done */
        }
        if (j != NULL) {
            free(j->quote);
            free(j->cred);
            free(j);
        }
        rc = mero_err_set(&e, MERO_ENOMEM, "could not queue the verification");
        goto out;
    }
    MERO_TRY_OUT(mero__admission_verify_real(&a->deps, c, &v, &e));
    rc = mero__admission_decide(&a->deps, c, &v, &outcome, &e);
out:
    report(a, c, &v, path, req, rc, outcome, &e);
    mero__tee_verdict_cleanup(&v);
}
