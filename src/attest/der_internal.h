/* SPDX-License-Identifier: Apache-2.0 */
/*
 * der.h (private) - a minimal, bounded DER reader for the X.509 certificates and CRLs of the
 * Intel SGX PKI: enough to verify signatures (TBS span, ecdsa-with-SHA256, signature value),
 * compare names, read validity, serials and the P-256 public key, and list revoked serials.
 * OpenSSL 3.0's d2i_X509 decodes every public key through its provider decoder, which costs
 * more than an ECDSA verification; this reader costs a few microseconds.
 */
#ifndef MERO_ATTEST_DER_H
#define MERO_ATTEST_DER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

struct mero_cert {
    const uint8_t *der; /* borrowed: the whole certificate */
    size_t der_len;
    const uint8_t *tbs; /* the TBSCertificate TLV the signature covers */
    size_t tbs_len;
    const uint8_t *sig; /* DER ECDSA-Sig-Value */
    size_t sig_len;
    const uint8_t *serial; /* INTEGER contents */
    size_t serial_len;
    const uint8_t *issuer; /* Name TLV */
    size_t issuer_len;
    const uint8_t *subject; /* Name TLV */
    size_t subject_len;
    int64_t not_before, not_after;
    uint8_t point[MERO_ECDSA_P256_PK_LEN]; /* P-256 public key x || y */
    char cn[128];                          /* subject commonName, "" when absent */
    char issuer_cn[128];                   /* issuer commonName, "" when absent */
    const uint8_t *ext; /* contents of the Extensions SEQUENCE, NULL when absent */
    size_t ext_len;
};

/* The Intel SGX extension (OID 1.2.840.113741.1.13.1) of a PCK leaf. */
struct mero_sgx_ext {
    uint8_t fmspc[6];
    uint8_t pceid[2];
    uint8_t cpusvn[16]; /* components .2.1 - .2.16 */
    uint16_t pcesvn;
};

struct mero_crl {
    const uint8_t *der;
    size_t der_len;
    const uint8_t *tbs;
    size_t tbs_len;
    const uint8_t *sig;
    size_t sig_len;
    const uint8_t *issuer;
    size_t issuer_len;
    int64_t this_update, next_update;
    const uint8_t *revoked; /* contents of revokedCertificates, NULL when none */
    size_t revoked_len;
};

/* -MERO_ECERT unless der is exactly one ecdsa-with-SHA256 certificate with a P-256 key. */
MERO_MUST_CHECK int mero__cert_parse(struct mero_cert *c, const uint8_t *der, size_t len);
/* Read the SGX extension: each of TCB (16 components + PCESVN), PCEID and FMSPC exactly once
 * with the right type and size. -MERO_ECERT otherwise. */
MERO_MUST_CHECK int mero__cert_sgx_ext(const struct mero_cert *c, struct mero_sgx_ext *out);
/* -MERO_ECRL unless der is exactly one ecdsa-with-SHA256 CRL with a nextUpdate. */
MERO_MUST_CHECK int mero__crl_parse(struct mero_crl *c, const uint8_t *der, size_t len);
/* True when serial (INTEGER contents) is listed in the CRL. -MERO_ECRL if an entry is bad. */
MERO_MUST_CHECK int mero__crl_lists(const struct mero_crl *c, const uint8_t *serial, size_t n,
                                    bool *listed);
/* Same Name (byte-equal DER, as Intel compares raw issuers). */
bool mero__der_name_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

#endif
