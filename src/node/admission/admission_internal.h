/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission_internal.h - verify_and_admit (spec "Verify and admit (the verifier)",
 * reference-calimero.md §5.4) as its steps: check (1-3), verify_real (DCAP) and decide (4),
 * which both admission paths run in that order through run.c (verify_real off the loop for a
 * real quote). Private to src/node.
 *
 * The governance decision (admit_tee_node, publishing the admission, the evidence and the
 * KeyDelivery) and the credential codec live in the gov layer; DCAP verification of a real
 * quote lives in attest. They reach this file through struct mero_admission_deps, which the
 * node installs, so the order of the steps and every refusal are tested here without a network.
 *
 * Threading: mero__admission_check and mero__admission_decide run on the loop thread (they touch
 * the challenge book and governance state); mero__admission_verify_real may block (collateral
 * fetch, ECDSA chain) and touches only its arguments, so it may run on a uv_queue_work thread.
 */
#ifndef MERO_NODE_ADMISSION_H
#define MERO_NODE_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "mero/gov.h" /* enum mero_admit_outcome */
#include "node/admission/challenge_internal.h"

#define MERO_ADM_TCB_STATUS_MAX 48
#define MERO_ADM_REASON_NOT_VOUCHER                                                                \
    "this node is neither an admin nor an admitted TEE of the namespace, so it may not vouch; "    \
    "ask another admitter"

/* What a requester presents: from a TeeAdmissionRequest or a TeeAdmissionOfferReply. */
struct mero_tee_claim {
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t challenge[MERO_NONCE_LEN];
    uint8_t
        public_key[MERO_IDENTITY_LEN]; /* the requester's namespace identity (the attested key) */
    const uint8_t *quote;              /* borrowed */
    size_t quote_len;
    const uint8_t *credential; /* borrowed: JoinAccountCredential bytes */
    size_t credential_len;
    const char *release; /* release_version, NULL when none named */
    const uint8_t *peer; /* Noise-authenticated remote peer id, as the challenge book keys it */
    size_t peer_len;
};

/* What verification established; handed to the governance decision. */
struct mero_tee_verdict {
    uint8_t account[MERO_ACCOUNT_ID_LEN]; /* from the credential */
    uint8_t kem_pk[MERO_X25519_LEN];
    uint8_t device[MERO_DEVICE_ID_LEN];
    uint8_t binding[MERO_APP_HASH_LEN]; /* admission_binding(ns, ns, pk, account, kem_pk, device) */
    bool is_mock;
    bool verified; /* signature and report data checked */
    /* The bytes that are the quote (issue 32): a real quote's declared length (header, body,
     * 4 + sig_data_len), without the padding a TEE may send after it; a mock quote's carried
     * length. The admission carries claim->quote[0, quote_len) and quote_hash is their SHA-256,
     * so one quote is one hash (and one spent key) whatever its padding. */
    size_t quote_len;
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN]; /* SHA-256(claim->quote[0, quote_len)) */
    uint8_t mrtd[MERO_MR_LEN];
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    bool has_td; /* real quote: the TD facts below, from the body DCAP verifies */
    uint64_t td_attributes;
    uint8_t mrservicetd[MERO_MR_LEN];
    char tcb_status[MERO_ADM_TCB_STATUS_MAX];
    uint8_t *collateral; /* owned (free()), NULL for a mock quote */
    size_t collateral_len;
    uint64_t attested_at; /* unix seconds */
    /* the decision's: the allowed release profile a signed-release admission matched ("") */
    char matched_profile[MERO_GOV_PROFILE_NAME_MAX];
};

struct mero_admission_deps {
    void *ud;
    /*
     * Decode `cred` and check it certifies `pk` (join_credential_certifies); on 0 write the
     * credential's account, delivery key and device. A refusal carries its reason in err.
     */
    int (*credential_check)(void *ud, const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t *cred,
                            size_t len, uint8_t account[MERO_ACCOUNT_ID_LEN],
                            uint8_t kem_pk[MERO_X25519_LEN], uint8_t device[MERO_DEVICE_ID_LEN],
                            struct mero_err *err);
    /*
     * Verify a real quote with DCAP against collateral it fetches (blocking; only its
     * arguments may be touched): on 0 set v->tcb_status and v->collateral. "No verdict" is an
     * error, never a pass. NULL: real quotes are refused.
     */
    int (*verify_real)(void *ud, const uint8_t *quote, size_t len, struct mero_tee_verdict *v,
                       struct mero_err *err);
    /*
     * admit_tee_node for the claim and verdict: the policy decision, then publishing the
     * admission and its evidence and the KeyDelivery. A policy refusal is an error whose
     * message is the reason. It may add to the verdict what the decision learned
     * (matched_profile).
     */
    int (*admit)(void *ud, const struct mero_tee_claim *c, struct mero_tee_verdict *v, int *out,
                 struct mero_err *err);
};

void mero__tee_verdict_cleanup(struct mero_tee_verdict *v);

/*
 * Steps 1-3 of verify_and_admit, on the loop thread: spend the challenge (refused for another
 * peer, namespace or key, spent or lapsed), refuse a quote over MAX_TEE_QUOTE_BYTES before
 * parsing it, check the credential certifies the attested key, compute the binding and check
 * the quote's report data is challenge || binding. A mock quote is verified here (it has no
 * signature); a real one has its measurements read and waits for mero__admission_verify_real.
 */
MERO_MUST_CHECK int mero__admission_check(struct mero_challenge_book *book,
                                          const struct mero_admission_deps *deps,
                                          const struct mero_tee_claim *c, uint64_t now_ms,
                                          struct mero_tee_verdict *v, struct mero_err *err);

/* Real quotes only (a no-op for a verified mock): DCAP through deps->verify_real. */
MERO_MUST_CHECK int mero__admission_verify_real(const struct mero_admission_deps *deps,
                                                const struct mero_tee_claim *c,
                                                struct mero_tee_verdict *v, struct mero_err *err);

/* Step 4: quote_hash over the quote's declared bytes (v->quote_len), attested_at, then
 * admit_tee_node through deps->admit, which carries those bytes only. */
MERO_MUST_CHECK int mero__admission_decide(const struct mero_admission_deps *deps,
                                           const struct mero_tee_claim *c,
                                           struct mero_tee_verdict *v, int *out,
                                           struct mero_err *err);

/*
 * All of it in one call, on one thread: 0 with *out set, or a refusal with its reason in err.
 * Only the unit tests call it (tests/unit/test_admission.c); the node runs the same three
 * steps itself in run.c, so that verify_real can run off the loop. NOT_A_VOUCHER comes back as
 * -MERO_ENOTVOUCHER with MERO_ADM_REASON_NOT_VOUCHER.
 */
MERO_MUST_CHECK int mero__verify_and_admit(struct mero_challenge_book *book,
                                           const struct mero_admission_deps *deps,
                                           const struct mero_tee_claim *c, uint64_t now_ms,
                                           int *out, struct mero_err *err);

#endif
