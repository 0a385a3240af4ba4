/* SPDX-License-Identifier: Apache-2.0 */
/*
 * collateral.h - the DCAP collateral a TDX quote is judged against, in dcap-qvl's
 * QuoteCollateralV3 JSON form (reference-dcap.md §3): PEM issuer chains, DER CRLs, and the
 * signed TCB info / QE identity objects kept as the exact text Intel signed.
 *
 * Invariants: the signed texts are never re-serialized (the signature is over their bytes);
 * every field is bounded (MERO_COLLATERAL_MAX_* below); a parsed collateral owns all its
 * memory and mero_collateral_cleanup() frees it.
 *
 * Thread safety: every function is safe on distinct objects; a parsed (hashed) collateral is
 * immutable and may be read by any number of threads at once (mero_dcap_verify_quote,
 * mero_collateral_copy, mero_collateral_to_json), but not while one thread runs
 * mero_collateral_cleanup or mero_collateral_rehash on it.
 */
#ifndef MERO_COLLATERAL_H
#define MERO_COLLATERAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_COLLATERAL_MAX_JSON   (1u << 20)   /* the whole QuoteCollateralV3 object */
#define MERO_COLLATERAL_MAX_CHAIN  (64u << 10)  /* one PEM chain */
#define MERO_COLLATERAL_MAX_CRL    (512u << 10) /* one DER CRL */
#define MERO_COLLATERAL_MAX_SIGNED (256u << 10) /* tcb_info / qe_identity text */

struct mero_collateral {
    char *pck_crl_issuer_chain; /* PEM: PCK CA then root (NUL-terminated) */
    size_t pck_crl_issuer_chain_len;
    uint8_t *root_ca_crl; /* DER; required (issue 21 item 4: without it, no verdict) */
    size_t root_ca_crl_len;
    uint8_t *pck_crl; /* DER */
    size_t pck_crl_len;
    char *tcb_info_issuer_chain; /* PEM: TCB Signing then root */
    size_t tcb_info_issuer_chain_len;
    char *tcb_info; /* the exact signed text of the tcbInfo object */
    size_t tcb_info_len;
    uint8_t tcb_info_signature[MERO_ECDSA_P256_SIG_LEN]; /* raw r || s */
    char *qe_identity_issuer_chain;
    size_t qe_identity_issuer_chain_len;
    char *qe_identity; /* the exact signed text of the enclaveIdentity object */
    size_t qe_identity_len;
    uint8_t qe_identity_signature[MERO_ECDSA_P256_SIG_LEN];
    char *pck_certificate_chain; /* optional PEM leaf..root; overrides the quote's chain */
    size_t pck_certificate_chain_len;
    /* mero_collateral_hash of the fields above, set by parse/copy/rehash. A collateral is
     * immutable once hashed: code that builds or edits one calls mero_collateral_rehash. */
    bool has_hash;
    uint8_t hash[MERO_SHA256_LEN];
};

/* Zero a collateral (so cleanup is safe). */
void mero_collateral_init(struct mero_collateral *c);
/* Free everything a collateral owns and zero it; safe on an initialised or zeroed struct. */
void mero_collateral_cleanup(struct mero_collateral *c);

/*
 * Parse a QuoteCollateralV3 JSON object. Byte fields (root_ca_crl, pck_crl, the two
 * signatures) are hex strings (either case) or arrays of numbers 0..255.
 * `pck_certificate_chain` may be absent or null (when present, it must hold the same
 * certificates as the quote's chain); every other field is required, root_ca_crl included.
 * -MERO_ECOLLATERAL (with a reason) on anything malformed. `c` is written only on success
 * (owned: free with mero_collateral_cleanup).
 */
MERO_MUST_CHECK int mero_collateral_parse(struct mero_collateral *c, const char *json, size_t len,
                                          struct mero_err *err);

/* Deep copy (owned by dst). */
MERO_MUST_CHECK int mero_collateral_copy(struct mero_collateral *dst,
                                         const struct mero_collateral *src);

/*
 * Append the collateral as one compact QuoteCollateralV3 JSON object (byte fields as
 * lowercase hex, pck_certificate_chain only when present, root_ca_crl only when present) to b.
 * This is what /admin-api/tee/attest serves with includeCollateral.
 */
MERO_MUST_CHECK int mero_collateral_to_json(const struct mero_collateral *c, struct mero_buf *b);

/*
 * SHA-256 over every field, each length-prefixed (u64 LE) and absent fields marked, so two
 * collaterals have the same hash exactly when they hold the same bytes. The cache key of
 * what collateral verification proves.
 */
void mero_collateral_hash(const struct mero_collateral *c, uint8_t out[static MERO_SHA256_LEN]);
/* Recompute and store c->hash (after building or editing a collateral by hand). */
void mero_collateral_rehash(struct mero_collateral *c);

#endif
