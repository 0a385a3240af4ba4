/* SPDX-License-Identifier: Apache-2.0 */
/*
 * x509.h (private) - the certificate pieces DCAP verification needs: PEM chains decoded to DER
 * (der.h parses them), the SHA-256 root pin, P-256 keys from raw points, and ECDSA-SHA256
 * checks of certificates, CRLs and Intel's raw r||s signatures (OpenSSL EVP).
 */
#ifndef MERO_ATTEST_X509_H
#define MERO_ATTEST_X509_H

#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attest/der_internal.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_X509_MAX_CHAIN 4

struct mero_x509_chain {
    size_t n;
    uint8_t *der[MERO_X509_MAX_CHAIN]; /* owned DER, leaf first, root last */
    size_t der_len[MERO_X509_MAX_CHAIN];
    bool parsed[MERO_X509_MAX_CHAIN];
    struct mero_cert cert[MERO_X509_MAX_CHAIN]; /* borrows from der[i] once parsed */
};

/* Split and base64-decode the CERTIFICATE blocks of a PEM chain (1..4; whitespace and NULs
 * between and after blocks ignored; any other text refused). Each block has the line
 * structure OpenSSL's PEM reader (Intel's) requires: the BEGIN marker ends its line, the END
 * marker starts one, no blank line between them; so PEM whose line breaks were removed or
 * turned into spaces is refused. -MERO_ECERT when malformed. */
MERO_MUST_CHECK int mero__x509_chain_split(struct mero_x509_chain *c, const char *pem, size_t len,
                                           struct mero_err *err);
/* Parse certificate i (der.h). */
MERO_MUST_CHECK int mero__x509_chain_load(struct mero_x509_chain *c, size_t i,
                                          struct mero_err *err);
/* Split and parse every certificate. */
MERO_MUST_CHECK int mero__x509_chain_parse(struct mero_x509_chain *c, const char *pem, size_t len,
                                           struct mero_err *err);
void mero__x509_chain_cleanup(struct mero_x509_chain *c);

/* SHA-256 through OpenSSL (SHA-NI where the CPU has it; libsodium's is portable C and several
 * times slower on the kilobytes of collateral). */
void mero__sha256(uint8_t out[static MERO_SHA256_LEN], const void *p, size_t n);
const EVP_MD *mero__sha256_md(void);

/* SHA-256 of a DER blob equals the pin. */
bool mero__x509_pin_ok(const uint8_t *der, size_t len, const uint8_t pin[static MERO_SHA256_LEN]);

/* Raw x||y P-256 point to a public key (owned: EVP_PKEY_free). -MERO_ECRYPTO off the curve. */
MERO_MUST_CHECK int mero__x509_key(const uint8_t xy[static MERO_ECDSA_P256_PK_LEN], EVP_PKEY **out);
/* ECDSA P-256 / SHA-256 over msg, signature in DER. -MERO_EBADSIG if not. */
MERO_MUST_CHECK int mero__x509_verify_der(EVP_PKEY *key, const uint8_t *sig, size_t sig_len,
                                          const void *msg, size_t n);
/* The same with Intel's raw 64-byte r||s signature. */
MERO_MUST_CHECK int mero__x509_ecdsa_verify(EVP_PKEY *key,
                                            const uint8_t sig[static MERO_ECDSA_P256_SIG_LEN],
                                            const void *msg, size_t n);

/* cert's issuer equals issuer's subject (byte-equal) and its signature verifies with key. */
MERO_MUST_CHECK int mero__x509_signed_by(const struct mero_cert *cert,
                                         const struct mero_cert *issuer, EVP_PKEY *key,
                                         struct mero_err *err, const char *what);
/* notBefore <= now <= notAfter. */
MERO_MUST_CHECK int mero__x509_valid_at(const struct mero_cert *cert, int64_t now,
                                        struct mero_err *err, const char *what);
bool mero__x509_cn_contains(const struct mero_cert *cert, const char *needle);

/* The CRL's issuer equals issuer's subject and its signature verifies with key. */
MERO_MUST_CHECK int mero__x509_crl_signed_by(const struct mero_crl *crl,
                                             const struct mero_cert *issuer, EVP_PKEY *key,
                                             struct mero_err *err, const char *what);
/* -MERO_EREVOKED when cert's serial is listed. */
MERO_MUST_CHECK int mero__x509_crl_check(const struct mero_crl *crl, const struct mero_cert *cert,
                                         struct mero_err *err, const char *what);

#endif
