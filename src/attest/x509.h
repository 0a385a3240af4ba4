/* SPDX-License-Identifier: Apache-2.0 */
/*
 * x509.h (private) - the OpenSSL pieces DCAP verification needs: PEM chains, DER CRLs,
 * signature checks (certificate by issuer, CRL by issuer, raw r||s ECDSA P-256 over a message),
 * validity windows, CN checks, and the SHA-256 root pin.
 */
#ifndef MERO_ATTEST_X509_H
#define MERO_ATTEST_X509_H

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

#define MERO_X509_MAX_CHAIN 4

struct mero_x509_chain {
    size_t n;
    X509 *cert[MERO_X509_MAX_CHAIN];       /* leaf first, root last */
    uint8_t *der[MERO_X509_MAX_CHAIN];     /* owned DER of each */
    size_t der_len[MERO_X509_MAX_CHAIN];
};

/*
 * Parse a PEM chain (CERTIFICATE blocks; trailing NULs and whitespace ignored) of 1..4
 * certificates. -MERO_ECERT when a block does not decode, none is found, or too many.
 */
MERO_MUST_CHECK int mero__x509_chain_parse(struct mero_x509_chain *c, const char *pem,
                                           size_t len, struct mero_err *err);
void mero__x509_chain_cleanup(struct mero_x509_chain *c);
/* Only split and base64-decode the blocks (cert[i] stay NULL until mero__x509_chain_load). */
MERO_MUST_CHECK int mero__x509_chain_split(struct mero_x509_chain *c, const char *pem, size_t len,
                                           struct mero_err *err);
MERO_MUST_CHECK int mero__x509_chain_load(struct mero_x509_chain *c, size_t i,
                                          struct mero_err *err);

/* SHA-256 of a DER blob equals the pin. */
bool mero__x509_pin_ok(const uint8_t *der, size_t len, const uint8_t pin[static 32]);

/* cert's issuer name equals issuer's subject and its signature verifies with issuer's key. */
MERO_MUST_CHECK int mero__x509_signed_by(X509 *cert, X509 *issuer, struct mero_err *err,
                                         const char *what);
/* notBefore <= now <= notAfter; fills the window when asked. */
MERO_MUST_CHECK int mero__x509_valid_at(X509 *cert, int64_t now, struct mero_err *err,
                                        const char *what);
MERO_MUST_CHECK int mero__x509_window(X509 *cert, int64_t *not_before, int64_t *not_after);
/* The subject CN contains `needle`. */
bool mero__x509_cn_contains(X509 *cert, const char *needle);

/* A DER CRL. -MERO_ECRL when it does not decode. */
MERO_MUST_CHECK int mero__x509_crl_parse(X509_CRL **out, const uint8_t *der, size_t len,
                                         struct mero_err *err);
/* The CRL's issuer equals issuer's subject and its signature verifies with issuer's key. */
MERO_MUST_CHECK int mero__x509_crl_signed_by(X509_CRL *crl, X509 *issuer, struct mero_err *err,
                                             const char *what);
MERO_MUST_CHECK int mero__x509_crl_window(X509_CRL *crl, int64_t *this_update,
                                          int64_t *next_update);
/* -MERO_EREVOKED when cert's serial is listed. */
MERO_MUST_CHECK int mero__x509_crl_check(X509_CRL *crl, X509 *cert, struct mero_err *err,
                                         const char *what);

/* Raw x||y P-256 point to a public key (owned: EVP_PKEY_free). */
MERO_MUST_CHECK int mero__x509_p256_key(const uint8_t xy[static 64], EVP_PKEY **out);
/* ECDSA P-256 / SHA-256 over msg with a raw 64-byte r||s signature. -MERO_EBADSIG if not. */
MERO_MUST_CHECK int mero__x509_ecdsa_verify(EVP_PKEY *key, const uint8_t sig[static 64],
                                            const void *msg, size_t n);

#endif
