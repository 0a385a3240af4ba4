/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics_internal.h - the admission's counters for GET /metrics (node/admission/metrics.c):
 * verify_and_admit's outcomes by result and refusal rule, the DCAP verifications of real
 * quotes with their duration, and the self-purges. node/metrics.c reads them.
 *
 * Invariant: the outcome table and the purge count are touched on the loop thread only; the
 * DCAP fields are atomics, because the DCAP step runs on a uv_queue_work thread (run.c).
 */
#ifndef MERO_NODE_ADMISSION_METRICS_H
#define MERO_NODE_ADMISSION_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "mero/node.h"

struct mero_adm_metrics {
    struct mero_metrics_admission adm[MERO_METRICS_ADM_MAX];
    size_t nadm;
    uint64_t purges;
    _Atomic uint64_t dcap_verified, dcap_refused, dcap_no_verdict;
    _Atomic uint64_t dcap_bucket[MERO_METRICS_DCAP_BUCKETS]; /* not cumulative: first bound >= */
    _Atomic uint64_t dcap_sum_ns;
};

/* The result an admission outcome counts under: rc 0 admitted; collateral, release fetch or a
 * missing verifier no verdict; anything else refused. */
enum mero_metrics_adm_result mero__adm_metrics_result(int rc);
/* The rule label of a refusal with code rc and reason text: "NotAVoucher", "Release" for a
 * release refusal, else the admission rule the fleet view names for the reason
 * (mero__node_attempt_rule_of), else "Verification" (a refusal before the rules: verify_and_admit
 * steps 1-3); "" when rc is 0. */
void mero__adm_metrics_rule(int rc, const char *reason, char out[MERO_METRICS_RULE_MAX]);
/* Count one verify_and_admit outcome (loop thread). */
void mero__adm_metrics_decision(struct mero_adm_metrics *m, int rc, const char *reason);
/* Count one DCAP verification that took ns nanoseconds and returned rc (any thread). */
void mero__adm_metrics_dcap(struct mero_adm_metrics *m, int rc, uint64_t ns);

#endif
