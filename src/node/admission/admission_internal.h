/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission_internal.h - verify_and_admit (spec "Verify and admit (the verifier)",
 * reference-calimero.md §5.4) as one pipeline over one job (node/admission/verify_and_admit.c):
 * check (steps 1-3) on the loop, verify (collateral, DCAP, a named release) where the caller's
 * offload puts it, decide (step 4) back on the loop. Both admission paths and the unit tests
 * run it through mero__adm_verify_and_admit. Private to src/node.
 *
 * The job owns everything the stages share, each made once: the claim's bytes, the decoded
 * credential, the parsed quote and the collateral. What the pipeline asks of the world is one
 * table, struct mero__adm_ops (the credential check, the collateral, the DCAP verdict, a named
 * release, the governance decision): node/admission/peer.c binds it to the store and the
 * library, the unit tests to fakes, so the order of the stages and every refusal are tested
 * without a network.
 *
 * Threading: the check and decide stages run on the loop thread (they touch the challenge book
 * and governance state); the verify stage touches only the job and thread-safe caches, so it
 * may run on a uv_queue_work thread.
 */
#ifndef MERO_NODE_ADMISSION_H
#define MERO_NODE_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/collateral.h"
#include "mero/err.h"
#include "mero/gov.h" /* enum mero_admit_outcome */
#include "mero/identity.h"
#include "mero/net.h" /* MERO_PEER_ID_STR_MAX, struct mero_net_req */
#include "mero/quote.h"
#include "mero/sizes.h"
#include "node/admission/challenge_internal.h"
#include "node/admission/msg_internal.h"

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
    uint8_t *collateral; /* the job's collateral as JSON, made once for the record; owned */
    size_t collateral_len;
    uint64_t attested_at; /* unix seconds */
    /* the decision's: the allowed release profile a signed-release admission matched ("") */
    char matched_profile[MERO_GOV_PROFILE_NAME_MAX];
};

struct mero__adm_job;

/* What the pipeline asks of the world, and all that a test replaces. */
struct mero__adm_ops {
    void *ud;
    /*
     * Loop. Decode `bytes` (a JoinAccountCredential) and check it certifies `pk`
     * (join_credential_certifies); 0 with *out set. A refusal carries its reason in err.
     */
    int (*credential)(void *ud, const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t *bytes,
                      size_t len, struct mero_credential *out, struct mero_err *err);
    /* Any thread. The collateral for a parsed real quote (owned: mero_collateral_cleanup). NULL
     * (or dcap NULL): real quotes are refused. */
    int (*collateral)(void *ud, const struct mero_quote *q, struct mero_collateral *out,
                      struct mero_err *err);
    /* Any thread. DCAP's verdict on q against c: 0 with v->tcb_status set when the quote
     * verified, a refusal with the verdict's reason otherwise. "No verdict" is an error. */
    int (*dcap)(void *ud, const struct mero_quote *q, const struct mero_collateral *c,
                struct mero_tee_verdict *v, struct mero_err *err);
    /* Any thread. Fetch, verify and cache a named release before a signed-release decision.
     * NULL: not prefetched. */
    int (*release)(void *ud, const char *version, struct mero_err *err);
    /* Loop. admit_tee_node for the job: the policy decision, then publishing the admission, its
     * evidence and the KeyDelivery. A policy refusal is an error whose message is the reason. It
     * may add to j->v what the decision learned (matched_profile). */
    int (*admit)(void *ud, struct mero__adm_job *j, int *outcome, struct mero_err *err);
};

/*
 * One admission attempt. The caller makes it (mero__adm_job_new copies the claim), sets the
 * fields above `c`, and calls mero__adm_verify_and_admit once; the result is rc / outcome / err
 * when `done` runs (or, with no offload, when mero__adm_verify_and_admit returns).
 */
struct mero__adm_job {
    struct mero_challenge_book *book;
    const struct mero__adm_ops *ops;
    uint64_t now_ms; /* the check stage's clock (challenge lifetime) */
    bool prefetch;   /* a signed-release policy and a named release: ops->release off the loop */
    /* Queue the verify stage off the loop: run mero__adm_job_verify there, then
     * mero__adm_job_decide back on the loop. 0 when queued. NULL: everything runs inline. */
    int (*offload)(struct mero__adm_job *j);
    /* The attempt is decided (rc, outcome, err); may free the job. NULL: nothing called. */
    void (*done)(struct mero__adm_job *j);
    void *ud;
    const char *path;         /* "direct path" / "offered path", for the log */
    struct mero_net_req *req; /* the direct path's open stream, NULL on the offered path */

    /* The claim; its bytes are the job's own (below). */
    struct mero_tee_claim c;
    /* Made once each: the decoded credential (check), the parsed quote (check, real quotes;
     * it points into quote_bytes), the collateral (verify, real quotes). */
    struct mero_credential cred;
    struct mero_quote quote;
    struct mero_collateral coll;
    struct mero_tee_verdict v;
    /* The verify stage's DCAP call, for the loop's metrics. */
    bool dcap_ran;
    int dcap_rc;
    uint64_t dcap_ns;
    /* The verify stage's outcome, then the attempt's. */
    int rc;
    int outcome; /* enum mero_admit_outcome */
    struct mero_err err;

    uint8_t *quote_bytes;
    uint8_t *cred_bytes;
    char release[MERO_ADM_MAX_RELEASE_LEN + 1];
    char peer[MERO_PEER_ID_STR_MAX];
};

/* A job over a copy of c (quote, credential, release and peer), or NULL out of memory. */
struct mero__adm_job *mero__adm_job_new(const struct mero_tee_claim *c);
void mero__adm_job_free(struct mero__adm_job *j);

/*
 * Run the pipeline: check (spend the challenge; refuse an empty quote or one over
 * MAX_TEE_QUOTE_BYTES before it is parsed; the credential; the binding and the report data;
 * a mock quote verified), then verify (real quotes: collateral, DCAP, a named release) inline
 * or through j->offload, then decide (quote_hash over the declared bytes, admit_tee_node).
 * NOT_A_VOUCHER ends as -MERO_ENOTVOUCHER with MERO_ADM_REASON_NOT_VOUCHER.
 */
void mero__adm_verify_and_admit(struct mero__adm_job *j);
/* The offloaded halves (only an offload calls them): verify, on any thread; decide, on the loop
 * (it calls j->done). */
void mero__adm_job_verify(struct mero__adm_job *j);
void mero__adm_job_decide(struct mero__adm_job *j);

#endif
