/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_internal.h - real-quote and signed-release glue for admission on a merod node
 * (node/admission/attest.c): the admission pipeline's collateral, DCAP and release ops and the
 * governance store's release_check hook.
 */
#ifndef MERO_NODE_ADMISSION_ATTEST_H
#define MERO_NODE_ADMISSION_ATTEST_H

#include "mero/gov.h"
#include "node/admission/admission_internal.h"

/* struct mero__adm_ops.collateral: the PCS collateral (hourly cache) for q; any thread. */
MERO_MUST_CHECK int mero__adm_collateral(void *ud, const struct mero_quote *q,
                                         struct mero_collateral *out, struct mero_err *err);
/* struct mero__adm_ops.dcap: DCAP's verdict on q against c, now; any thread. */
MERO_MUST_CHECK int mero__adm_dcap(void *ud, const struct mero_quote *q,
                                   const struct mero_collateral *c, struct mero_tee_verdict *v,
                                   struct mero_err *err);
/* struct mero_gov_hooks.release_check: mero_release_check with the process's release source. */
MERO_MUST_CHECK int mero__node_release_check(void *ud, const char *release_version,
                                             const struct mero_tee_policy *policy,
                                             const struct mero_measurements *m, char *matched,
                                             size_t cap, struct mero_err *reason);
/* Build the release source from MERO_SIGSTORE_TRUSTED_ROOT / MERO_TEE_RELEASE_BASE_URL (loop,
 * at startup); none configured is not an error. */
MERO_MUST_CHECK int mero__node_admission_attest_init(struct mero_err *err);
/* struct mero__adm_ops.release: fetch + verify + cache a release; any thread. */
MERO_MUST_CHECK int mero__adm_prefetch_release(void *ud, const char *version, struct mero_err *err);
/* Free the release source (at shutdown). */
void mero__node_admission_attest_cleanup(void);

#endif
