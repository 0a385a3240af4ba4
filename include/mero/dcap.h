/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap.h - DCAP verification of a TDX quote against Intel-signed collateral, by Intel QVL's
 * rules (reference-dcap.md §2b; deviations in docs/verification.md), and the result
 * verify_attestation reports (reference-calimero.md §1.4).
 *
 * The verdict / no-verdict split (the one rule everything else relies on):
 *  - a function returns a negative error ("no verdict") when the quote cannot be judged:
 *    it does not parse (including mock and SGX quotes), or the collateral is missing or
 *    malformed (a required field absent, a PEM chain, CRL or signed JSON that does not
 *    decode). No verdict is never reported as valid or invalid.
 *  - it returns 0 with a verdict otherwise. A signature, chain, CRL, revocation, validity-time,
 *    identity or TCB-level failure is a verdict with quote_verified = false and the reason in
 *    reject_code / reject_reason.
 *
 * Cache: what collateral verification proves (chains to the pinned root, both CRLs, TCB info
 * and QE identity signatures, their validity window) is kept, keyed by mero_collateral_hash,
 * so a second quote on the same collateral costs only the per-quote signatures (PCK leaf, QE
 * report, quote). The cache is bounded (MERO_DCAP_CACHE_MAX entries) and shared by all
 * threads: entries are immutable once published, reference counted while in use, and a
 * collateral being verified by one thread is waited for by others (docs/verification.md §5).
 *
 * Thread safety: mero_dcap_verify_quote, mero_dcap_verify_parsed, mero_dcap_verify,
 * mero_dcap_verify_evidence, mero_dcap_cache_clear, mero_dcap_cache_stats, mero_tcb_status_name and
 * mero_tcb_status_parse are safe from any thread with no caller-side locking.
 * mero_dcap_set_root_pin and mero_dcap_load_root_file are configuration: NOT safe while another
 * thread verifies; call them at start-up.
 */
#ifndef MERO_DCAP_H
#define MERO_DCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/collateral.h"
#include "mero/err.h"
#include "mero/quote.h"
#include "mero/sizes.h"

/* Intel's TCB statuses in severity order (reference-dcap.md §2a), plus Mock for mock quotes. */
enum mero_tcb_status {
    MERO_TCB_UP_TO_DATE = 0,
    MERO_TCB_SW_HARDENING_NEEDED,
    MERO_TCB_CONFIGURATION_NEEDED,
    MERO_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED,
    MERO_TCB_OUT_OF_DATE,
    MERO_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED,
    MERO_TCB_REVOKED,
    MERO_TCB_MOCK,
    MERO_TCB__COUNT
};

/* "UpToDate", ..., "Revoked", "Mock"; never NULL. */
const char *mero_tcb_status_name(enum mero_tcb_status s);
/* Exact (case-sensitive) Intel name to enum; -MERO_EINVAL when unknown. */
MERO_MUST_CHECK int mero_tcb_status_parse(const char *name, enum mero_tcb_status *out);

#define MERO_DCAP_MAX_ADVISORIES 64
#define MERO_DCAP_ADVISORY_LEN   32
#define MERO_DCAP_CACHE_MAX      16

struct mero_dcap_result {
    /* DCAP verdict */
    bool quote_verified;
    bool has_tcb_status; /* set only when quote_verified */
    enum mero_tcb_status tcb_status;
    enum mero_tcb_status platform_status, qe_status;
    bool module_status_set;
    enum mero_tcb_status module_status;
    size_t n_advisory_ids;
    char advisory_ids[MERO_DCAP_MAX_ADVISORIES][MERO_DCAP_ADVISORY_LEN];
    bool has_tcb_evaluation_data_number;
    uint32_t tcb_evaluation_data_number; /* min of TCB info and QE identity (Intel) */
    /* The root CA CRL was judged. Collateral without one is no verdict (issue 21 item 4), so
     * this is true whenever the collateral verified; VerifierPolicy still checks it. */
    bool root_crl_checked;
    int64_t collateral_not_before, collateral_not_after; /* the window the verdict holds in */
    int reject_code; /* positive mero_err_code when !quote_verified */
    char reject_reason[MERO_ERR_MSG_MAX];
    /* what the quote says (set whenever the quote parsed) */
    uint8_t mrtd[MERO_MR_LEN];
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    uint8_t report_data[MERO_REPORT_DATA_LEN];
    uint8_t tee_tcb_svn[MERO_TEE_TCB_SVN_LEN];
    uint8_t td_attributes[MERO_TD_ATTRIBUTES_LEN];
    bool td_debug;        /* TD attributes bit 0 */
    bool sept_ve_disable; /* TD attributes bit 28 */
    bool td15;            /* the two below are meaningful */
    uint8_t tee_tcb_svn2[MERO_TEE_TCB_SVN_LEN];
    uint8_t mrservicetd[MERO_MR_LEN];
    bool is_mock;
    /* the caller's checks (mero_dcap_verify) */
    bool nonce_verified;
    bool application_hash_verified;
    bool is_valid; /* quote_verified && nonce_verified && application_hash_verified */
};

/* Trust anchor: the SHA-256 of the Intel SGX Root CA's DER. */
extern const uint8_t MERO_INTEL_ROOT_CA_SHA256[MERO_SHA256_LEN];
/* Pin another root (by DER hash) process-wide; NULL restores Intel's. Clears the cache. */
void mero_dcap_set_root_pin(const uint8_t *sha256);
/* Pin the root read from a DER or PEM certificate file. */
MERO_MUST_CHECK int mero_dcap_load_root_file(const char *path, struct mero_err *err);

/*
 * The DCAP part: judge `quote` against `c` as of `now` (unix seconds). Returns 0 with a verdict
 * in *out (quote_verified may be false), or a negative error with no verdict (see above).
 * nonce/app-hash fields of *out are left false. `out` is written on 0 only.
 */
MERO_MUST_CHECK int mero_dcap_verify_quote(const uint8_t *quote, size_t len,
                                           const struct mero_collateral *c, uint64_t now,
                                           struct mero_dcap_result *out, struct mero_err *err);
/* The same for a quote the caller parsed already (mero_quote_parse; a mock quote never parses),
 * so a pipeline that holds the parsed quote does not parse it again. */
MERO_MUST_CHECK int mero_dcap_verify_parsed(const struct mero_quote *q,
                                            const struct mero_collateral *c, uint64_t now,
                                            struct mero_dcap_result *out, struct mero_err *err);

/*
 * verify_attestation (reference-calimero.md §1.4): the DCAP verdict, then
 * nonce_verified = report_data[0..32] == nonce, application_hash_verified =
 * report_data[32..64] == app_hash, is_valid = all three.
 */
MERO_MUST_CHECK int mero_dcap_verify(const uint8_t *quote, size_t len,
                                     const struct mero_collateral *c, uint64_t now,
                                     const uint8_t nonce[static MERO_NONCE_LEN],
                                     const uint8_t app_hash[static MERO_APP_HASH_LEN],
                                     struct mero_dcap_result *out, struct mero_err *err);

/*
 * Offline evidence check for governance (reference-calimero.md §1.7 verify_evidence): a pure
 * function of its inputs, so every peer reaches the same answer. Returns 0 only when the quote
 * verifies against the given collateral JSON at `attested_at` and report_data[32..64] equals
 * bound_hash; then *out holds tcb_status and the measurements. Otherwise a negative error:
 * -MERO_ECOLLATERAL (no/malformed collateral: "evidence for a real quote must carry the
 * collateral it was appraised against"), the quote's parse error (mock quotes included:
 * -MERO_EQUOTE_MOCK; the caller handles mock evidence under its own accept_mock rule),
 * the verdict's reject code when quote_verified is false, or -MERO_EPOLICY for a binding
 * mismatch.
 */
MERO_MUST_CHECK int mero_dcap_verify_evidence(const uint8_t *quote, size_t len,
                                              const char *collateral_json, size_t collateral_len,
                                              uint64_t attested_at,
                                              const uint8_t bound_hash[static MERO_APP_HASH_LEN],
                                              struct mero_dcap_result *out, struct mero_err *err);

/* Drop every cached collateral verification. */
void mero_dcap_cache_clear(void);
/* Counters since start: collateral verifications done (misses) and reused (hits). */
void mero_dcap_cache_stats(uint64_t *hits, uint64_t *misses);

#endif
