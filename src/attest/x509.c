/* SPDX-License-Identifier: Apache-2.0 */
/*
 * x509.c - certificate chains, CRLs and ECDSA P-256 signatures for DCAP: PEM blocks are decoded
 * here, certificates and CRLs parsed by der.c, signatures checked with OpenSSL EVP.
 *
 * Invariants: nothing here trusts a certificate by itself; callers pin the root by the SHA-256
 * of its DER and check every link with mero__x509_signed_by. Raw r||s signatures (Intel's form)
 * are converted to DER before verification; OpenSSL refuses r or s of zero or not below the
 * group order. Public keys are built from raw points with EVP_PKEY_fromdata (which checks the
 * point is on the curve), not through OpenSSL 3.0's slow decoder.
 */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <pthread.h>
#include <string.h>

#include "attest/x509_internal.h"
#include "mero/crypto.h"

void mero__x509_chain_cleanup(struct mero_x509_chain *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        free(c->der[i]);
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

/*
 * The line structure of one block, as OpenSSL's PEM reader (PEM_read_bio_X509, which Intel's
 * QVL calls on each block of every chain) requires it: the BEGIN marker ends its line (spaces,
 * tabs and CR may follow it, then LF), the END marker starts one, and no line between them is
 * blank. A chain whose line breaks were turned into spaces or removed fails here; Intel answers
 * STATUS_UNSUPPORTED_CERT_FORMAT (issue 38). `body` is just after the BEGIN marker, `e` at the
 * END marker. On success *data is the first byte after the BEGIN line. -MERO_ECERT if not.
 */
static int pem_lines(const char *body, const char *e, size_t i, const char **data,
                     struct mero_err *err)
{
    const char *p = body;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r')) {
        p++;
    }
    if (p == e || *p != '\n') {
        return mero_err_set(err, MERO_ECERT,
                            "certificate %zu: no line break after its BEGIN marker (PEM line "
                            "breaks removed or turned into spaces?)",
                            i);
    }
    const char *first = ++p;
    if (e[-1] != '\n') {
        return mero_err_set(err, MERO_ECERT,
                            "certificate %zu: its END marker does not start a line (PEM line "
                            "breaks removed or turned into spaces?)",
                            i);
    }
    bool blank_line = true;
    for (; p < e; p++) {
        if (*p == '\n') {
            if (blank_line) {
                return mero_err_set(err, MERO_ECERT,
                                    "certificate %zu: blank line inside the PEM block", i);
            }
            blank_line = true;
        } else if (*p != ' ' && *p != '\t' && *p != '\r') {
            blank_line = false;
        }
    }
    *data = first;
    return 0;
}

/* Standard base64 with '=' padding, whitespace between characters ignored (PEM bodies, whose
 * line structure pem_lines has checked).
 * Returns the decoded length or -MERO_EBASE64. libsodium's decoder is constant-time and several
 * times slower; PEM certificates are public, so a table decoder is fine here. */
static int b64v(uint8_t c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static long b64_decode(uint8_t *out, size_t cap, const char *in, size_t n)
{
    uint32_t acc = 0;
    size_t o = 0;
    int k = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = (uint8_t)in[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
            continue;
        }
        if (ch == '=') {
            pad++;
            acc <<= 6;
            k++;
        } else {
            int v = b64v(ch);
            if (pad > 0 || v < 0) {
                return -MERO_EBASE64;
            }
            acc = acc << 6 | (uint32_t)v;
            k++;
        }
        if (k == 4) {
            if (pad > 2 || o + 3 - (size_t)pad > cap) {
                return -MERO_EBASE64;
            }
            out[o++] = (uint8_t)(acc >> 16);
            if (pad < 2) {
                out[o++] = (uint8_t)(acc >> 8);
            }
            if (pad < 1) {
                out[o++] = (uint8_t)acc;
            }
            acc = 0;
            k = 0;
            if (pad > 0) {
                pad = 3; /* nothing but whitespace may follow padding */
            }
        }
    }
    if (k != 0) {
        return -MERO_EBASE64;
    }
    return (long)o;
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
        const char *data = NULL;
        int rc = pem_lines(body, e, t.n, &data, err);
        if (rc < 0) {
            mero__x509_chain_cleanup(&t);
            return rc;
        }
        size_t blen = (size_t)(e - data);
        uint8_t *der = malloc(blen ? blen : 1);
        long dl = 0;
        if (der == NULL) {
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
        dl = b64_decode(der, blen, data, blen);
        if (dl <= 0) {
            free(der);
            mero__x509_chain_cleanup(&t);
            return mero_err_set(err, MERO_ECERT, "certificate block is not base64");
        }
        t.der[t.n] = der;
        t.der_len[t.n] = (size_t)dl;
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
    if (c->parsed[i]) {
        return 0;
    }
    if (mero__cert_parse(&c->cert[i], c->der[i], c->der_len[i]) < 0) {
        return mero_err_set(err, MERO_ECERT, "certificate %zu does not decode", i);
    }
    c->parsed[i] = true;
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

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

const EVP_MD *mero__sha256_md(void)
{
    pthread_once(&sha256_once, sha256_fetch);
    return sha256_md;
}

void mero__sha256(uint8_t out[static MERO_SHA256_LEN], const void *p, size_t n)
{
    unsigned int len = MERO_SHA256_LEN;
    const EVP_MD *md = mero__sha256_md();
    if (md == NULL || EVP_Digest(p, n, out, &len, md, NULL) != 1 || len != MERO_SHA256_LEN) {
        mero_sha256(out, p, n); /* same function, portable code */
    }
}

bool mero__x509_pin_ok(const uint8_t *der, size_t len, const uint8_t pin[static MERO_SHA256_LEN])
{
    uint8_t h[MERO_SHA256_LEN];
    mero__sha256(h, der, len);
    return mero_ct_eq(h, pin, sizeof(h)) == 1;
}

/* The P-256 generator, uncompressed: the point of the template key whose group every key copies. */
static const uint8_t p256_g[65] = {
    0x04, 0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5,
    0x63, 0xa4, 0x40, 0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4,
    0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96, 0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a,
    0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16, 0x2b, 0xce, 0x33,
    0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5,
};
static EVP_PKEY *p256_template;
static pthread_once_t template_once = PTHREAD_ONCE_INIT;

static EVP_PKEY *key_fromdata(const uint8_t pub[65])
{
    OSSL_PARAM params[3];
    params[0] =
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pub, 65);
    params[2] = OSSL_PARAM_construct_end();
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *k = NULL;
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
        EVP_PKEY_fromdata(ctx, &k, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        EVP_PKEY_free(k);
        k = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return k;
}

static void make_template(void)
{
    p256_template = key_fromdata(p256_g);
}

/*
 * A key from a raw point. Copying the group from a template and setting the encoded point
 * (which OpenSSL checks is on the curve) costs a quarter of EVP_PKEY_fromdata in OpenSSL 3.0.
 */
int mero__x509_key(const uint8_t xy[static MERO_ECDSA_P256_PK_LEN], EVP_PKEY **out)
{
    uint8_t pub[65];
    pub[0] = 0x04;
    memcpy(pub + 1, xy, MERO_ECDSA_P256_PK_LEN);
    pthread_once(&template_once, make_template);
    EVP_PKEY *k = NULL;
    if (p256_template != NULL) {
        k = EVP_PKEY_new();
        if (k != NULL && (EVP_PKEY_copy_parameters(k, p256_template) != 1 ||
                          EVP_PKEY_set1_encoded_public_key(k, pub, sizeof(pub)) != 1)) {
            EVP_PKEY_free(k);
            k = NULL;
        }
    } else {
        k = key_fromdata(pub);
    }
    ERR_clear_error();
    if (k == NULL) {
        return -MERO_ECRYPTO;
    }
    *out = k;
    return 0;
}

int mero__x509_verify_der(EVP_PKEY *key, const uint8_t *sig, size_t sig_len, const void *msg,
                          size_t n)
{
    uint8_t h[MERO_SHA256_LEN];
    int rc = -MERO_EBADSIG;
    if (key == NULL || sig == NULL || sig_len == 0) {
        return rc;
    }
    mero__sha256(h, msg, n);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
    if (ctx != NULL && EVP_PKEY_verify_init(ctx) == 1 &&
        EVP_PKEY_verify(ctx, sig, sig_len, h, sizeof(h)) == 1) {
        rc = 0;
    }
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

int mero__x509_ecdsa_verify(EVP_PKEY *key, const uint8_t sig[static MERO_ECDSA_P256_SIG_LEN],
                            const void *msg, size_t n)
{
    uint8_t der[80];
    uint8_t *dp = der;
    ECDSA_SIG *s = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, MERO_P256_SCALAR_LEN, NULL);
    BIGNUM *ss = BN_bin2bn(sig + MERO_P256_SCALAR_LEN, MERO_P256_SCALAR_LEN, NULL);
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
    return mero__x509_verify_der(key, der, (size_t)dl, msg, n);
}

int mero__x509_signed_by(const struct mero_cert *cert, const struct mero_cert *issuer,
                         EVP_PKEY *key, struct mero_err *err, const char *what)
{
    if (!mero__der_name_eq(cert->issuer, cert->issuer_len, issuer->subject, issuer->subject_len)) {
        return mero_err_set(err, MERO_ECHAIN, "%s: issuer name does not match its issuer", what);
    }
    if (mero__x509_verify_der(key, cert->sig, cert->sig_len, cert->tbs, cert->tbs_len) < 0) {
        return mero_err_set(err, MERO_ECHAIN, "%s: signature does not verify", what);
    }
    return 0;
}

int mero__x509_valid_at(const struct mero_cert *cert, int64_t now, struct mero_err *err,
                        const char *what)
{
    if (now < cert->not_before || now > cert->not_after) {
        return mero_err_set(err, MERO_EEXPIRED, "%s: not valid at %lld", what, (long long)now);
    }
    return 0;
}

bool mero__x509_cn_contains(const struct mero_cert *cert, const char *needle)
{
    return strstr(cert->cn, needle) != NULL;
}

int mero__x509_crl_signed_by(const struct mero_crl *crl, const struct mero_cert *issuer,
                             EVP_PKEY *key, struct mero_err *err, const char *what)
{
    if (!mero__der_name_eq(crl->issuer, crl->issuer_len, issuer->subject, issuer->subject_len)) {
        return mero_err_set(err, MERO_ECRL, "%s: issuer does not match", what);
    }
    if (mero__x509_verify_der(key, crl->sig, crl->sig_len, crl->tbs, crl->tbs_len) < 0) {
        return mero_err_set(err, MERO_ECRL, "%s: signature does not verify", what);
    }
    return 0;
}

int mero__x509_crl_check(const struct mero_crl *crl, const struct mero_cert *cert,
                         struct mero_err *err, const char *what)
{
    bool listed = false;
    if (mero__crl_lists(crl, cert->serial, cert->serial_len, &listed) < 0) {
        return mero_err_set(err, MERO_ECRL, "CRL entry malformed");
    }
    if (listed) {
        return mero_err_set(err, MERO_EREVOKED, "%s is revoked", what);
    }
    return 0;
}
