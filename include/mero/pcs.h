/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pcs.h - fetching DCAP collateral over HTTP(S) with libcurl from CALIMERO_TEE_COLLATERAL_URL,
 * else Intel PCS (https://api.trustedservices.intel.com), with the PCS v4 endpoints and headers
 * of reference-dcap.md §3, and a process-wide cache that fetches each collateral (per base
 * URL, FMSPC and PCK CA) at most once an hour.
 *
 * Invariants: every response is bounded (MERO_PCS_MAX_BODY) and must be HTTP 200; the signed
 * TCB info / QE identity text is cut verbatim from the response body, never re-serialized;
 * issuer chains come from the URL-encoded headers; redirects are not followed; only http and
 * https are spoken; every transfer has a timeout. A failed fetch is an error (no verdict),
 * remembered with a back-off (MERO_PCS_BACKOFF_FIRST_S doubling to an hour, see
 * mero_pcs_collateral_for_quote) so that a source that is down is not asked more often. The cache
 * is bounded (MERO_PCS_CACHE_MAX) and guarded by a mutex, so the node may fetch from a worker
 * thread.
 *
 * Thread safety: mero_pcs_collateral_for_quote, mero_pcs_collateral_for_parsed, mero_pcs_fetch,
 * mero_pcs_cache_clear, mero_pcs_stats and mero_pcs_base_url are safe from any thread (a fetch in
 * flight is joined by other threads asking for the same collateral: single flight); changing
 * CALIMERO_TEE_COLLATERAL_URL or MERO_PCS_TIMEOUT_MS while others fetch is NOT safe.
 */
#ifndef MERO_PCS_H
#define MERO_PCS_H

#include <stddef.h>
#include <stdint.h>

#include "mero/collateral.h"
#include "mero/err.h"
#include "mero/quote.h"
#include "mero/sizes.h"

#define MERO_PCS_DEFAULT_URL        "https://api.trustedservices.intel.com"
#define MERO_PCS_ROOT_CRL_URL       "https://certificates.trustedservices.intel.com/IntelSGXRootCA.der"
#define MERO_PCS_MAX_BODY           (1u << 20)
#define MERO_PCS_CACHE_MAX          32
#define MERO_PCS_CACHE_SECONDS      3600
#define MERO_PCS_DEFAULT_TIMEOUT_MS 10000

/* The base URL in use: CALIMERO_TEE_COLLATERAL_URL if set and non-empty, else Intel PCS. */
const char *mero_pcs_base_url(void);
/* The per-request timeout is MERO_PCS_TIMEOUT_MS from the environment, else 10 s. */

/*
 * Fetch the collateral for one platform, uncached: base_url NULL means mero_pcs_base_url(),
 * ca is "platform" or "processor". -MERO_ECOLLATERAL_FETCH with a reason on any failure.
 * `out` is written only on success (owned: mero_collateral_cleanup).
 */
MERO_MUST_CHECK int mero_pcs_fetch(const char *base_url, const uint8_t fmspc[static MERO_FMSPC_LEN],
                                   const char *ca, struct mero_collateral *out,
                                   struct mero_err *err);

/*
 * The collateral for a quote (its FMSPC and PCK CA read from the quote's PCK leaf), from the
 * process-wide cache when fetched less than an hour ago, else fetched now and cached. This is
 * what /admin-api/tee/attest uses for includeCollateral and what calimero-tee-verify uses.
 * `out` is a copy (owned: mero_collateral_cleanup). Errors: the quote's parse error, or
 * -MERO_ECOLLATERAL_FETCH. A failure is remembered for the key (base URL, FMSPC, CA): until its
 * back-off ends, callers get that same error without the source being asked.
 */
MERO_MUST_CHECK int mero_pcs_collateral_for_quote(const uint8_t *quote, size_t len,
                                                  struct mero_collateral *out,
                                                  struct mero_err *err);
/* The same for a quote the caller parsed already (mero_quote_parse). */
MERO_MUST_CHECK int mero_pcs_collateral_for_parsed(const struct mero_quote *q,
                                                   struct mero_collateral *out,
                                                   struct mero_err *err);

struct mero_pcs_stats {
    uint64_t requests;   /* HTTP requests made */
    uint64_t fetches;    /* collateral fetches completed */
    uint64_t cache_hits; /* collateral served from the cache */
    uint64_t failures;   /* fetches that failed */
    /* ---- issue 20: negative cache (src/attest/pcs.c) ---- */
    uint64_t negative_hits; /* callers answered with a remembered failure, source not asked */
};
void mero_pcs_stats(struct mero_pcs_stats *out);
/* Drop every cached collateral (tests use it to start cold and to free the cache at exit). */
void mero_pcs_cache_clear(void);

/* ---- issue 20: negative cache (src/attest/pcs.c) ---- */

/* A failed fetch is remembered this long first; each further failure of the same key doubles
 * it, up to MERO_PCS_CACHE_SECONDS; a success forgets it. */
#define MERO_PCS_BACKOFF_FIRST_S 60
/* The back-off after one following prev_ms (0: the first failure): 60 s, 120 s, ... 3600 s. */
uint64_t mero_pcs_backoff_next_ms(uint64_t prev_ms);

#endif
