/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quote.h - TDX quote parsing (v4 and v5; TD 1.0 and TD 1.5 bodies), the ECDSA signature
 * data, certification data type 6 with its nested type-5 PCK chain, the PCK leaf's Intel SGX
 * extension, and the JSON form /admin-api/tee/attest returns (reference-calimero.md §4.2).
 * Byte layouts: reference-dcap.md §1. No collateral is needed for anything here.
 *
 * Invariants: every length comes from a field and is checked against what remains before use;
 * trailing bytes after the signature data are ignored (real quotes are padded); pointers in
 * struct mero_quote borrow from the input buffer and live as long as it does.
 *
 * Thread safety: every function here is pure: safe from any thread (a parsed quote borrows
 * the input bytes, which must stay unchanged while it is used).
 */
#ifndef MERO_QUOTE_H
#define MERO_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_QUOTE_HEADER_LEN 48
#define MERO_TD10_BODY_LEN    584
#define MERO_TD15_BODY_LEN    648
#define MERO_QE_REPORT_LEN    384
#define MERO_TEE_TYPE_SGX     0x00000000u
#define MERO_TEE_TYPE_TDX     0x00000081u
/* MAX_TEE_QUOTE_BYTES: the largest quote an admission may carry (spec, verify_and_admit). */
#define MERO_MAX_TEE_QUOTE_BYTES 16384u
/* The PCK leaf issuer CN as text (with NUL; longer names are cut). */
#define MERO_PCK_ISSUER_CN_MAX 96

struct mero_td_report {
    uint8_t tee_tcb_svn[MERO_TEE_TCB_SVN_LEN];
    uint8_t mrseam[MERO_MR_LEN];
    uint8_t mrsignerseam[MERO_MR_LEN];
    uint8_t seam_attributes[MERO_SEAM_ATTRIBUTES_LEN];
    uint8_t td_attributes[MERO_TD_ATTRIBUTES_LEN];
    uint8_t xfam[MERO_XFAM_LEN];
    uint8_t mrtd[MERO_MR_LEN];
    uint8_t mrconfigid[MERO_MR_LEN];
    uint8_t mrowner[MERO_MR_LEN];
    uint8_t mrownerconfig[MERO_MR_LEN];
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    uint8_t report_data[MERO_REPORT_DATA_LEN];
    bool td15; /* the two fields below are present */
    uint8_t tee_tcb_svn2[MERO_TEE_TCB_SVN_LEN];
    uint8_t mrservicetd[MERO_MR_LEN];
};

struct mero_enclave_report { /* the QE report, 384 bytes */
    uint8_t cpusvn[MERO_CPUSVN_LEN];
    uint32_t miscselect;
    uint8_t attributes[MERO_SGX_ATTRIBUTES_LEN];
    uint8_t mrenclave[MERO_SGX_MEASUREMENT_LEN];
    uint8_t mrsigner[MERO_SGX_MEASUREMENT_LEN];
    uint16_t isvprodid;
    uint16_t isvsvn;
    uint8_t report_data[MERO_REPORT_DATA_LEN];
};

struct mero_quote {
    /* header */
    uint16_t version;      /* 4 or 5 */
    uint16_t att_key_type; /* 2: ECDSA P-256 */
    uint32_t tee_type;     /* 0x81 */
    uint16_t qe_svn;
    uint16_t pce_svn;
    uint8_t qe_vendor_id[MERO_QE_VENDOR_ID_LEN];
    uint8_t user_data[MERO_USER_DATA_LEN];
    /* body */
    uint16_t body_type; /* 2 = TD 1.0, 3 = TD 1.5 (v4 quotes report 2) */
    uint32_t body_size;
    struct mero_td_report body;
    /* signed region: header || [v5 descriptor] || body */
    const uint8_t *signed_data;
    size_t signed_len;
    /* signature data */
    uint32_t sig_data_len;
    uint8_t signature[MERO_ECDSA_P256_SIG_LEN]; /* raw r || s */
    uint8_t attest_key[MERO_ECDSA_P256_PK_LEN]; /* raw x || y */
    uint16_t cert_type;                         /* 6 */
    const uint8_t *qe_report_raw;               /* 384 bytes */
    struct mero_enclave_report qe_report;
    uint8_t qe_report_sig[MERO_ECDSA_P256_SIG_LEN];
    const uint8_t *qe_auth_data;
    size_t qe_auth_len;
    uint16_t inner_cert_type; /* 5 */
    const uint8_t *pck_chain; /* PEM text (may end in NUL padding) */
    size_t pck_chain_len;
    size_t total_len; /* bytes of the quote proper, without trailing padding */
};

/*
 * Parse a TDX quote. Refuses SGX quotes (-MERO_EQUOTE_SGX), other versions, TEE types, key
 * types, body descriptors, certification data types, and any length that runs past the end.
 * On failure `err` (optional) names what was wrong and where. `q` is written only on success.
 */
MERO_MUST_CHECK int mero_quote_parse(struct mero_quote *q, const uint8_t *data, size_t len,
                                     struct mero_err *err);

/* Facts from the PCK leaf certificate's Intel SGX extension (OID 1.2.840.113741.1.13.1). */
struct mero_pck_info {
    uint8_t fmspc[MERO_FMSPC_LEN];
    uint8_t pceid[2];
    uint8_t cpusvn[MERO_CPUSVN_LEN]; /* components .2.1 - .2.16 */
    uint16_t pcesvn;
    char issuer_cn[MERO_PCK_ISSUER_CN_MAX]; /* e.g. "Intel SGX PCK Platform CA" */
    int64_t not_before;
    int64_t not_after;
};

/* Read the PCK leaf (the first certificate of the quote's chain) and its SGX extension. */
MERO_MUST_CHECK int mero_quote_pck_info(const struct mero_quote *q, struct mero_pck_info *out,
                                        struct mero_err *err);

/*
 * Append the JSON object of reference-calimero.md §4.2 (`header`, `body`, `signature`,
 * `attestationKey`, `certificationData`, lowercase hex) to b. Returns 0, -MERO_ETOOBIG when b
 * would exceed its max (b may then hold a partial object), or -MERO_EINVAL.
 */
MERO_MUST_CHECK int mero_quote_to_json(const struct mero_quote *q, struct mero_buf *b);

/*
 * quote_report_data: the 64 report-data bytes of a quote by structural read, no signature
 * check. A MOCK_TDX_QUOTE_V1 quote gives bytes [17, 81) and *is_mock = true; anything else
 * must parse as a TDX quote (mero_quote_parse's codes). out and *is_mock written on success.
 */
MERO_MUST_CHECK int mero_quote_report_data(const uint8_t *q, size_t len,
                                           uint8_t out[static MERO_REPORT_DATA_LEN], bool *is_mock);

#endif
