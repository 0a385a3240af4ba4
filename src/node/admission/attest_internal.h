/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_internal.h - real-quote and signed-release glue for admission on a merod node
 * (node/admission/attest.c): verify_and_admit's DCAP step and the governance store's
 * release_check hook.
 */
#ifndef MERO_NODE_ADMISSION_ATTEST_H
#define MERO_NODE_ADMISSION_ATTEST_H

#include "mero/gov.h"
#include "node/admission/admission_internal.h"

/* struct mero_admission_env.fetch_collateral: PCS collateral (hourly cache) as JSON; any thread. */
MERO_MUST_CHECK int mero__adm_fetch_collateral(void *ud, const uint8_t *quote, size_t len,
                                               uint8_t **json, size_t *jlen, struct mero_err *err);
/* struct mero_admission_env.verify_real: DCAP against v->collateral (fetched here if absent). */
MERO_MUST_CHECK int mero__adm_verify_real(void *ud, const uint8_t *quote, size_t len,
                                          struct mero_tee_verdict *v, struct mero_err *err);
/* struct mero_gov_hooks.release_check: mero_release_check with the process's release source. */
MERO_MUST_CHECK int mero__node_release_check(void *ud, const char *release_version,
                                             const struct mero_tee_policy *policy,
                                             const struct mero_measurements *m, char *matched,
                                             size_t cap, struct mero_err *reason);
/* Build the release source from MERO_SIGSTORE_TRUSTED_ROOT / MERO_TEE_RELEASE_BASE_URL (loop,
 * at startup); none configured is not an error. */
MERO_MUST_CHECK int mero__node_admission_attest_init(struct mero_err *err);
/* struct mero_admission_env.prefetch_release: fetch + verify + cache a release; any thread. */
MERO_MUST_CHECK int mero__adm_prefetch_release(void *ud, const char *version, struct mero_err *err);
/* Free the release source (at shutdown). */
void mero__node_admission_attest_cleanup(void);

#endif
