/* SPDX-License-Identifier: Apache-2.0 */
/*
 * x509.c - certificate chains, CRLs and ECDSA P-256 signatures for DCAP, over OpenSSL.
 *
 * Invariants: nothing here trusts a certificate by itself; callers pin the root by the SHA-256
 * of its DER and check every link with mero__x509_signed_by. Raw r||s signatures (Intel's form)
 * are converted to DER before verification; a signature whose r or s is zero or not below the
 * group order is refused by OpenSSL. PEM input is bounded by the caller.
 */
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sodium.h>
#include <string.h>

#include "attest/x509.h"
#include "mero/crypto.h"

void mero__x509_chain_cleanup(struct mero_x509_chain *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        X509_free(c->cert[i]);
        OPENSSL_free(c->der[i]);
    }
    memset(c, 0, sizeof(*c));
}

static const char pem_begin[] = "-----BEGIN CERTIFICATE-----";
static const char pem_end[] = "-----END CERTIFICATE-----";

static const char *find(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; p + n <= end; p++) {
        if (*p == needle[0] && memcmp(p, needle, n) == 0) {
            return p;
        }
    }
    return NULL;
}

static bool blank(const char *p, const char *end)
{
    for (; p < end; p++) {
        if (*p != 0 && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') {
            return false;
        }
    }
    return true;
}

int mero__x509_chain_split(struct mero_x509_chain *c, const char *pem, size_t len,
                           struct mero_err *err)
{
    struct mero_x509_chain t;
    memset(&t, 0, sizeof(t));
    if (pem == NULL || len == 0 || len > (1u << 20)) {
        return mero_err_set(err, MERO_ECERT, "certificate chain is empty");
    }
    const char *p = pem, *end = pem + len;
    for (;;) {
        const char *b = find(p, end, pem_begin);
        if (b == NULL) {
            break;
        }
        if (!blank(p, b)) {
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ECERT, "certificate chain has text between blocks");
        }
        const char *body = b + sizeof(pem_begin) - 1;
        const char *e = find(body, end, pem_end);
        if (e == NULL) {
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ECERT, "certificate block is not terminated");
        }
        if (t.n == MERO_X509_MAX_CHAIN) {
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ECERT, "certificate chain has more than %d certificates",
                                MERO_X509_MAX_CHAIN);
        }
        size_t blen = (size_t)(e - body);
        uint8_t *der = OPENSSL_malloc(blen ? blen : 1);
        size_t dl = 0;
        if (der == NULL) {
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
        if (sodium_base642bin(der, blen, body, blen, " \r\n\t", &dl, NULL,
                              sodium_base64_VARIANT_ORIGINAL) != 0 ||
            dl == 0) {
            OPENSSL_free(der);
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ECERT, "certificate block is not base64");
        }
        t.der[t.n] = der;
        t.der_len[t.n] = dl;
        t.n++;
        p = e + sizeof(pem_end) - 1;
    }
    if (t.n == 0 || !blank(p, end)) {
        mero__x509_chain_cleanup(&t);
        return mero_err_set(err, MERO_ECERT, "certificate chain does not decode");
    }
    *c = t;
    return 0;
}

int mero__x509_chain_load(struct mero_x509_chain *c, size_t i, struct mero_err *err)
{
    if (i >= c->n) {
        return mero_err_set(err, MERO_ECERT, "certificate %zu missing", i);
    }
    if (c->cert[i] != NULL) {
        return 0;
    }
    const uint8_t *p = c->der[i];
    X509 *x = d2i_X509(NULL, &p, (long)c->der_len[i]);
    if (x == NULL || p != c->der[i] + c->der_len[i]) {
        X509_free(x);
        ERR_clear_error();
        return mero_err_set(err, MERO_ECERT, "certificate %zu does not decode", i);
    }
    c->cert[i] = x;
    return 0;
}

int mero__x509_chain_parse(struct mero_x509_chain *c, const char *pem, size_t len,
                           struct mero_err *err)
{
    struct mero_x509_chain t;
    MERO_TRY(mero__x509_chain_split(&t, pem, len, err));
    for (size_t i = 0; i < t.n; i++) {
        int rc = mero__x509_chain_load(&t, i, err);
        if (rc < 0) {
            mero__x509_chain_cleanup(&t);
            return rc;
        }
    }
    *c = t;
    return 0;
}

bool mero__x509_pin_ok(const uint8_t *der, size_t len, const uint8_t pin[static 32])
{
    uint8_t h[32];
    mero_sha256(h, der, len);
    return mero_ct_eq(h, pin, 32) == 1;
}

int mero__x509_signed_by(X509 *cert, X509 *issuer, struct mero_err *err, const char *what)
{
    if (X509_NAME_cmp(X509_get_issuer_name(cert), X509_get_subject_name(issuer)) != 0) {
        return mero_err_set(err, MERO_ECHAIN, "%s: issuer name does not match its issuer", what);
    }
    EVP_PKEY *k = X509_get0_pubkey(issuer);
    if (k == NULL || X509_verify(cert, k) != 1) {
        ERR_clear_error();
        return mero_err_set(err, MERO_ECHAIN, "%s: signature does not verify", what);
    }
    return 0;
}

static int asn1_time_unix(const ASN1_TIME *t, int64_t *out)
{
    struct tm tm;
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1) {
        return -MERO_ECERT;
    }
    *out = (int64_t)timegm(&tm);
    return 0;
}

int mero__x509_window(X509 *cert, int64_t *not_before, int64_t *not_after)
{
    MERO_TRY(asn1_time_unix(X509_get0_notBefore(cert), not_before));
    MERO_TRY(asn1_time_unix(X509_get0_notAfter(cert), not_after));
    return 0;
}

int mero__x509_valid_at(X509 *cert, int64_t now, struct mero_err *err, const char *what)
{
    int64_t nb, na;
    if (mero__x509_window(cert, &nb, &na) < 0) {
        return mero_err_set(err, MERO_ECERT, "%s: validity does not decode", what);
    }
    if (now < nb || now > na) {
        return mero_err_set(err, MERO_EEXPIRED, "%s: not valid at %lld", what, (long long)now);
    }
    return 0;
}

bool mero__x509_cn_contains(X509 *cert, const char *needle)
{
    char cn[256];
    int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn));
    return n > 0 && strstr(cn, needle) != NULL;
}

int mero__x509_crl_parse(X509_CRL **out, const uint8_t *der, size_t len, struct mero_err *err)
{
    const uint8_t *p = der;
    if (der == NULL || len == 0 || len > (1u << 24)) {
        return mero_err_set(err, MERO_ECRL, "CRL is empty");
    }
    X509_CRL *crl = d2i_X509_CRL(NULL, &p, (long)len);
    if (crl == NULL || p != der + len) {
        X509_CRL_free(crl);
        ERR_clear_error();
        return mero_err_set(err, MERO_ECRL, "CRL does not decode as DER");
    }
    *out = crl;
    return 0;
}

int mero__x509_crl_signed_by(X509_CRL *crl, X509 *issuer, struct mero_err *err, const char *what)
{
    if (X509_NAME_cmp(X509_CRL_get_issuer(crl), X509_get_subject_name(issuer)) != 0) {
        return mero_err_set(err, MERO_ECRL, "%s: issuer does not match", what);
    }
    EVP_PKEY *k = X509_get0_pubkey(issuer);
    if (k == NULL || X509_CRL_verify(crl, k) != 1) {
        ERR_clear_error();
        return mero_err_set(err, MERO_ECRL, "%s: signature does not verify", what);
    }
    return 0;
}

int mero__x509_crl_window(X509_CRL *crl, int64_t *this_update, int64_t *next_update)
{
    MERO_TRY(asn1_time_unix(X509_CRL_get0_lastUpdate(crl), this_update));
    /* A CRL without nextUpdate has no end of validity we could check: refuse it. */
    MERO_TRY(asn1_time_unix(X509_CRL_get0_nextUpdate(crl), next_update));
    return 0;
}

int mero__x509_crl_check(X509_CRL *crl, X509 *cert, struct mero_err *err, const char *what)
{
    X509_REVOKED *rev = NULL;
    if (X509_CRL_get0_by_serial(crl, &rev, X509_get0_serialNumber(cert)) == 1) {
        return mero_err_set(err, MERO_EREVOKED, "%s is revoked", what);
    }
    return 0;
}

/* SubjectPublicKeyInfo for an uncompressed P-256 point: this prefix, then 04 || x || y. */
static const uint8_t p256_spki_prefix[26] = {
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
    0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
};

int mero__x509_p256_key(const uint8_t xy[static 64], EVP_PKEY **out)
{
    uint8_t spki[26 + 65];
    memcpy(spki, p256_spki_prefix, 26);
    spki[26] = 0x04;
    memcpy(spki + 27, xy, 64);
    const uint8_t *p = spki;
    EVP_PKEY *k = d2i_PUBKEY(NULL, &p, (long)sizeof(spki));
    if (k == NULL) {
        ERR_clear_error();
        return -MERO_ECRYPTO; /* not a point on the curve */
    }
    *out = k;
    return 0;
}

int mero__x509_ecdsa_verify(EVP_PKEY *key, const uint8_t sig[static 64], const void *msg,
                            size_t n)
{
    uint8_t der[80];
    uint8_t *dp = der;
    int rc = -MERO_EBADSIG;
    ECDSA_SIG *s = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL);
    BIGNUM *ss = BN_bin2bn(sig + 32, 32, NULL);
    EVP_PKEY_CTX *ctx = NULL;
    if (s == NULL || r == NULL || ss == NULL || ECDSA_SIG_set0(s, r, ss) != 1) {
        BN_free(r);
        BN_free(ss);
        ECDSA_SIG_free(s);
        return -MERO_ENOMEM;
    }
    int dl = i2d_ECDSA_SIG(s, &dp);
    ECDSA_SIG_free(s);
    if (dl <= 0) {
        return -MERO_EBADSIG;
    }
    uint8_t h[32];
    mero_sha256(h, msg, n);
    ctx = EVP_PKEY_CTX_new(key, NULL);
    if (ctx != NULL && EVP_PKEY_verify_init(ctx) == 1 &&
        EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
        EVP_PKEY_verify(ctx, der, (size_t)dl, h, sizeof(h)) == 1) {
        rc = 0;
    }
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}
