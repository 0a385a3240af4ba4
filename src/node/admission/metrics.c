/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c - counting for GET /metrics on the admission side (docs/metrics.md): each
 * verify_and_admit outcome under its result and refusal rule (run.c's report), each DCAP
 * verification of a real quote with its duration (peer.c's DCAP step, on a worker thread),
 * and each completed self-purge (purge.c).
 *
 * Invariants: the outcome table holds at most MERO_METRICS_ADM_MAX (result, rule) pairs, more
 * than the rules there are; a new pair finding it full is dropped, never written out of
 * bounds. The DCAP fields are updated with relaxed atomics only.
 */
#include <stdio.h>
#include <string.h>

#include "mero/gov.h"
#include "node/admission/metrics_internal.h"
#include "node/attempts_internal.h"

const double mero_metrics_dcap_bounds[MERO_METRICS_DCAP_BUCKETS] = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0};

enum mero_metrics_adm_result mero__adm_metrics_result(int rc)
{
    switch (rc) {
    case 0:
        return MERO_METRICS_ADMITTED;
    case -MERO_ECOLLATERAL:
    case -MERO_ECOLLATERAL_FETCH:
    case -MERO_ERELEASE_FETCH:
    case -MERO_EUNSUPPORTED:
        return MERO_METRICS_NO_VERDICT;
    default:
        return MERO_METRICS_REFUSED;
    }
}

void mero__adm_metrics_rule(int rc, const char *reason, char out[MERO_METRICS_RULE_MAX])
{
    const char *name = NULL;
    out[0] = '\0';
    if (rc == 0) {
        return;
    }
    if (rc == -MERO_ENOTVOUCHER) {
        name = "NotAVoucher";
    } else if (rc == -MERO_ERELEASE || rc == -MERO_ERELEASE_VERSION ||
               rc == -MERO_ERELEASE_NOMATCH || rc == -MERO_ERELEASE_FETCH) {
        name = mero_adm_rule_name(MERO_ADM_RULE_RELEASE);
    } else {
        /* the same names the fleet view's attempts carry (node/attempts.c) */
        name = mero__node_attempt_rule_of(reason);
    }
    snprintf(out, MERO_METRICS_RULE_MAX, "%s", name != NULL ? name : "Verification");
}

void mero__adm_metrics_decision(struct mero_adm_metrics *m, int rc, const char *reason)
{
    struct mero_metrics_admission k;
    memset(&k, 0, sizeof(k));
    k.result = mero__adm_metrics_result(rc);
    mero__adm_metrics_rule(rc, reason, k.rule);
    for (size_t i = 0; i < m->nadm; i++) {
        if (m->adm[i].result == k.result && strcmp(m->adm[i].rule, k.rule) == 0) {
            m->adm[i].n++;
            return;
        }
    }
    if (m->nadm >= MERO_METRICS_ADM_MAX) {
        return; /* every rule has a row long before: cannot happen with the rules we have */
    }
    k.n = 1;
    m->adm[m->nadm++] = k;
}

void mero__adm_metrics_dcap(struct mero_adm_metrics *m, int rc, uint64_t ns)
{
    switch (mero__adm_metrics_result(rc)) {
    case MERO_METRICS_ADMITTED:
        atomic_fetch_add_explicit(&m->dcap_verified, 1, memory_order_relaxed);
        break;
    case MERO_METRICS_NO_VERDICT:
        atomic_fetch_add_explicit(&m->dcap_no_verdict, 1, memory_order_relaxed);
        break;
    default:
        atomic_fetch_add_explicit(&m->dcap_refused, 1, memory_order_relaxed);
        break;
    }
    double s = (double)ns / 1e9;
    size_t b = 0;
    while (b < MERO_METRICS_DCAP_BUCKETS && s > mero_metrics_dcap_bounds[b]) {
        b++;
    }
    if (b < MERO_METRICS_DCAP_BUCKETS) {
        atomic_fetch_add_explicit(&m->dcap_bucket[b], 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&m->dcap_sum_ns, ns, memory_order_relaxed);
}
