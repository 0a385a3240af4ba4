/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission_attest.h - real-quote and signed-release glue for admission on a merod node
 * (admission_attest.c): verify_and_admit's DCAP step and the governance store's
 * evidence_verify / release_check hooks.
 */
#ifndef MERO_NODE_ADMISSION_ATTEST_H
#define MERO_NODE_ADMISSION_ATTEST_H

#include "mero/gov.h"
#include "node/admission.h"

/* struct mero_admission_env.verify_real: PCS collateral (hourly cache) then DCAP. */
MERO_MUST_CHECK int mero__adm_verify_real(void *ud, const uint8_t *quote, size_t len,
                                          struct mero_tee_verdict *v, struct mero_err *err);
/* struct mero_gov_hooks.evidence_verify: the quote against its carried collateral. */
MERO_MUST_CHECK int mero_node_evidence_verify(void *ud, const uint8_t *quote, size_t qlen,
                                              const uint8_t *coll, size_t clen,
                                              uint64_t attested_at, struct mero_evidence_verdict *v,
                                              struct mero_err *err);
/* struct mero_gov_hooks.release_check: mero_release_check with the process's release source. */
MERO_MUST_CHECK int mero_node_release_check(void *ud, const char *release_version,
                                            const struct mero_tee_policy *policy,
                                            const struct mero_measurements *m,
                                            struct mero_err *reason);
/* Free the release source (at shutdown). */
void mero_node_admission_attest_cleanup(void);

#endif
