/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tls.c - the admin API's TLS certificate as bindTlsKey needs it (issue 31): a PEM certificate
 * and its PEM private key checked as a pair, and the SHA-256 of the certificate's
 * SubjectPublicKeyInfo (DER), the value reference-calimero.md §2's TLS binding commits to.
 *
 * Invariant: the SPKI hash is written only when the certificate parses and the key is its
 * own; nothing of the key is kept or logged.
 */
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "mero/crypto.h"

int mero_tls_cert_check(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
                        uint8_t spki_sha256[static MERO_SHA256_LEN])
{
    int rc = -MERO_ECRYPTO;
    unsigned char *der = NULL;
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    if (cert_len > INT32_MAX || key_len > INT32_MAX) {
        return -MERO_ETOOBIG;
    }
    BIO *cb = BIO_new_mem_buf(cert_pem, (int)cert_len),
        *kb = BIO_new_mem_buf(key_pem, (int)key_len);
    MERO_ENSURE_OUT(cb != NULL && kb != NULL, NULL, MERO_ENOMEM, "out of memory");
    x = PEM_read_bio_X509(cb, NULL, NULL, NULL);
    k = PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL);
    MERO_ENSURE_OUT(x != NULL && k != NULL && X509_check_private_key(x, k) == 1, NULL, MERO_ECRYPTO,
                    "certificate and key do not load or do not match");
    int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &der);
    MERO_ENSURE_OUT(n > 0, NULL, MERO_ECRYPTO, "certificate public key does not encode");
    mero_sha256(spki_sha256, der, (size_t)n);
    rc = 0;
out:
    OPENSSL_free(der);
    EVP_PKEY_free(k);
    X509_free(x);
    BIO_free(cb);
    BIO_free(kb);
    return rc;
}
