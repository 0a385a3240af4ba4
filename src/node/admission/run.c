/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - the node's side of the admission pipeline (node/admission/verify_and_admit.c) for a
 * claim that arrived on either path: it makes the job, gives it the off-loop boundary (the
 * verify stage of a real quote on a uv_queue_work thread, so a flood of attempts cannot stall
 * the loop; the decision back on the loop, which owns the challenge book and the store, one
 * completion at a time) and answers: the requester on the direct path, or, on the offered
 * path, a TeeAdmissionVerdict to the joiner (node/admission/verdict.c), with the log, the
 * metrics and the fleet view's attempt log. A mock quote, or a node that cannot verify real
 * quotes, runs in one go on the loop.
 *
 * Invariants: the challenge is spent (the check stage) before any work is queued; the job owns
 * copies of everything it refers to; the requester gets exactly one answer; a completion
 * arriving after mero__adm_stop publishes and answers nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "node/admission/service_internal.h"

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

/* job->done: every attempt ends here, decided or refused, on the loop. */
static void job_done(struct mero__adm_job *j)
{
    struct mero_admission *a = j->ud;
    if (j->dcap_ran) {
        mero__adm_metrics_dcap(&a->metrics, j->dcap_rc, j->dcap_ns); /* issue 19: metrics */
    }
    report(a, &j->c, &j->v, j->path, j->req, j->rc, j->outcome, &j->err);
    mero__adm_job_free(j);
}

static void work_run(uv_work_t *w)
{
    mero__adm_job_verify(w->data);
}

static void work_after(uv_work_t *w, int status)
{
    struct mero__adm_job *j = w->data;
    struct mero_admission *a = j->ud;
    free(w);
    a->jobs--;
    if (a->closing || status != 0) {
        if (j->req != NULL) {
            mero_net_req_drop(j->req);
        }
        mero__adm_job_free(j);
        mero__adm_maybe_free(a);
        return;
    }
    mero__adm_job_decide(j);
}

/* job->offload: the verify stage on a uv_queue_work thread (the PCS and verifier caches are
 * thread-safe, docs/verification.md §5); the decision comes back to the loop. */
static int job_offload(struct mero__adm_job *j)
{
    struct mero_admission *a = j->ud;
    uv_work_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return -MERO_ENOMEM;
    }
    w->data = j;
    if (uv_queue_work(a->env.loop, w, work_run, work_after) != 0) {
        free(w);
        return -MERO_ENOMEM;
    }
    a->jobs++;
    return 0;
}

/* Under a signed-release policy a named release is fetched off the loop with the collateral. */
static bool wants_release(struct mero_admission *a, const struct mero_tee_claim *c)
{
    struct mero_tee_policy p;
    bool found = false, release = false;
    if (c->release == NULL || a->ops.release == NULL) {
        return false;
    }
    memset(&p, 0, sizeof(p));
    if (mero_gov_read_policy(a->env.store, c->ns, &p, &found, NULL) == 0 && found) {
        release = p.form == MERO_POLICY_RELEASE;
        mero_tee_policy_cleanup(&p);
    }
    return release;
}

void mero__adm_run(struct mero_admission *a, const struct mero_tee_claim *c, const char *path,
                   struct mero_net_req *req)
{
    struct mero__adm_job *j = mero__adm_job_new(c);
    if (j == NULL) {
        struct mero_err e = {0};
        int rc = mero_err_set(&e, MERO_ENOMEM, "could not queue the verification");
        report(a, c, NULL, path, req, rc, MERO_ADMIT_NOT_A_VOUCHER, &e);
        return;
    }
    j->book = &a->book;
    j->ops = &a->ops;
    j->now_ms = mero__adm_now(a);
    j->prefetch = wants_release(a, c);
    j->offload = a->env.loop != NULL && a->ops.collateral != NULL ? job_offload : NULL;
    j->done = job_done;
    j->ud = a;
    j->path = path;
    j->req = req;
    mero__adm_verify_and_admit(j); /* answered from job_done */
}
