/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_util.c - small helpers the Sigstore files share: strict JSON loading (jansson,
 * duplicate keys refused, size capped), typed field getters, RFC 3339 time parsing, PEM/DER
 * certificate and public-key decoding, the signature check for every supported key scheme
 * and the DSSE pre-authentication encoding.
 *
 * Invariant: every getter fails (never defaults) on a missing or mistyped field; decoded
 * buffers are bounded by the caller's maximum.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "attest/sigstore_internal.h"
#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/encoding.h"

json_t *mero__json_load(const uint8_t *data, size_t len, size_t max, struct mero_err *err)
{
    if (data == NULL || len == 0) {
        mero_err_set(err, MERO_EJSON, "empty document");
        return NULL;
    }
    if (len > max) {
        mero_err_set(err, MERO_ETOOBIG, "document of %zu bytes exceeds %zu", len, max);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL) {
        mero_err_set(err, MERO_EJSON, "json: %s at line %d", je.text, je.line);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        mero_err_set(err, MERO_EJSON, "top level is not an object");
        return NULL;
    }
    return j;
}

const char *mero__json_str(json_t *obj, const char *key)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int mero__json_b64(json_t *obj, const char *key, size_t max, uint8_t **out, size_t *outlen)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!json_is_string(v)) {
        return -MERO_ENOTFOUND;
    }
    size_t n = json_string_length(v);
    if (n == 0) {
        return -MERO_EBASE64;
    }
    return mero_base64_decode_alloc(json_string_value(v), n, max, out, outlen);
}

/* protobuf JSON writes int64 as a string; the cosign bundle as a number. Accept both. */
int mero__json_u64(json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0) {
            return -MERO_EINVAL;
        }
        *out = (uint64_t)i;
        return 0;
    }
    if (json_is_string(v)) {
        return mero_parse_u64(json_string_value(v), (uint64_t)INT64_MAX, out);
    }
    return -MERO_ENOTFOUND;
}

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9') {
            return -MERO_EINVAL;
        }
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

/* RFC 3339 "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)"; fractions are truncated, which keeps
 * an inclusive `end` such as 23:59:59.999 inclusive at whole-second resolution. */
int mero__sig_time_parse(const char *s, int64_t *out)
{
    if (s == NULL || strlen(s) < 20 || strlen(s) > 40) {
        return -MERO_EINVAL;
    }
    const char *p = s;
    int y, mo, d, h, mi, se;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d)) {
        return -MERO_EINVAL;
    }
    if (*p != 'T' && *p != 't') {
        return -MERO_EINVAL;
    }
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
        digits(&p, 2, &se)) {
        return -MERO_EINVAL;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) {
        return -MERO_EINVAL;
    }
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9') {
            return -MERO_EINVAL;
        }
        while (*p >= '0' && *p <= '9') {
            p++;
        }
    }
    int64_t off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, oh, om;
        p++;
        if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om) || oh > 23 || om > 59) {
            return -MERO_EINVAL;
        }
        off = sign * (oh * 3600 + om * 60);
    } else {
        return -MERO_EINVAL;
    }
    if (*p != '\0') {
        return -MERO_EINVAL;
    }
    *out = mero_utc_seconds(y, mo, d, h, mi, se > 59 ? 59 : se) - off;
    return 0;
}

int mero__sig_der_cert(const uint8_t *der, size_t len, X509 **x)
{
    if (len == 0 || len > SIG_MAX_CERT) {
        return -MERO_ECERT;
    }
    const unsigned char *p = der;
    X509 *c = d2i_X509(NULL, &p, (long)len);
    if (c == NULL || p != der + len) {
        X509_free(c);
        return -MERO_ECERT;
    }
    *x = c;
    return 0;
}

int mero__sig_pem_cert(const uint8_t *pem, size_t len, X509 **x, uint8_t **der, size_t *derlen)
{
    if (len == 0 || len > SIG_MAX_CERT * 2) {
        return -MERO_ECERT;
    }
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) {
        return -MERO_ENOMEM;
    }
    X509 *c = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    /* exactly one certificate: a second PEM block is refused */
    X509 *extra = c ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    if (c == NULL || extra != NULL) {
        X509_free(c);
        X509_free(extra);
        return -MERO_ECERT;
    }
    unsigned char *d = NULL;
    int n = i2d_X509(c, &d);
    if (n <= 0) {
        X509_free(c);
        return -MERO_ECERT;
    }
    uint8_t *copy = malloc((size_t)n);
    if (copy == NULL) {
        OPENSSL_free(d);
        X509_free(c);
        return -MERO_ENOMEM;
    }
    memcpy(copy, d, (size_t)n);
    OPENSSL_free(d);
    *x = c;
    *der = copy;
    *derlen = (size_t)n;
    return 0;
}

int mero__sig_verify_sha256(EVP_PKEY *key, const uint8_t *msg, size_t n, const uint8_t *sig,
                            size_t siglen)
{
    if (key == NULL || sig == NULL || siglen == 0) {
        return -MERO_EBADSIG;
    }
    int id = EVP_PKEY_get_base_id(key);
    if (id != EVP_PKEY_EC && id != EVP_PKEY_RSA) {
        return -MERO_EUNSUPPORTED;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) {
        return -MERO_ENOMEM;
    }
    int ok = EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestVerify(ctx, sig, siglen, msg, n) == 1;
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : -MERO_EBADSIG;
}

enum sig_keytype mero__sig_key_type(EVP_PKEY *key)
{
    if (key == NULL) {
        return SIG_KT_UNKNOWN;
    }
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_ED25519:
        return SIG_KT_ED25519;
    case EVP_PKEY_RSA: {
        int bits = EVP_PKEY_get_bits(key);
        return bits >= 2048 && bits <= 4096 ? SIG_KT_RSA_PKCS1 : SIG_KT_UNKNOWN;
    }
    case EVP_PKEY_EC: {
        char curve[SIG_CURVE_NAME_MAX];
        size_t n = 0;
        if (EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof(curve), &n) != 1) {
            return SIG_KT_UNKNOWN;
        }
        if (strcmp(curve, "prime256v1") == 0 || strcmp(curve, "P-256") == 0) {
            return SIG_KT_EC_P256;
        }
        if (strcmp(curve, "secp384r1") == 0 || strcmp(curve, "P-384") == 0) {
            return SIG_KT_EC_P384;
        }
        if (strcmp(curve, "secp521r1") == 0 || strcmp(curve, "P-521") == 0) {
            return SIG_KT_EC_P521;
        }
        return SIG_KT_UNKNOWN;
    }
    default:
        return SIG_KT_UNKNOWN;
    }
}

int mero__sig_verify_key(EVP_PKEY *key, enum sig_keytype t, const uint8_t *msg, size_t n,
                         const uint8_t *sig, size_t siglen)
{
    if (key == NULL || sig == NULL || siglen == 0) {
        return -MERO_EBADSIG;
    }
    enum sig_keytype own = mero__sig_key_type(key);
    const EVP_MD *md = NULL;
    switch (t) {
    case SIG_KT_EC_P256:
        md = EVP_sha256();
        break;
    case SIG_KT_EC_P384:
        md = EVP_sha384();
        break;
    case SIG_KT_EC_P521:
        md = EVP_sha512();
        break;
    case SIG_KT_ED25519:
        break;
    case SIG_KT_RSA_PKCS1:
    case SIG_KT_RSA_PSS:
        md = EVP_sha256();
        break;
    default:
        return -MERO_EUNSUPPORTED;
    }
    /* the key must be of the scheme's type (an RSA key serves PKCS#1 v1.5 and PSS) */
    if (own != t && !(own == SIG_KT_RSA_PKCS1 && t == SIG_KT_RSA_PSS)) {
        return -MERO_EUNSUPPORTED;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    if (ctx == NULL) {
        return -MERO_ENOMEM;
    }
    int ok = EVP_DigestVerifyInit(ctx, &pctx, md, NULL, key) == 1;
    if (ok && t == SIG_KT_RSA_PSS) {
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1;
    } else if (ok && t == SIG_KT_RSA_PKCS1) {
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
    }
    ok = ok && EVP_DigestVerify(ctx, sig, siglen, msg, n) == 1;
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : -MERO_EBADSIG;
}

int mero__sig_pem_pubkey(const uint8_t *pem, size_t len, EVP_PKEY **out)
{
    if (len == 0 || len > SIG_MAX_CERT) {
        return -MERO_EINVAL;
    }
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) {
        return -MERO_ENOMEM;
    }
    EVP_PKEY *k = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (k == NULL) {
        return -MERO_EINVAL;
    }
    *out = k;
    return 0;
}

int mero__sig_pubkey_der(EVP_PKEY *key, uint8_t **der, size_t *len)
{
    unsigned char *d = NULL;
    int n = i2d_PUBKEY(key, &d);
    if (n <= 0) {
        return -MERO_EINVAL;
    }
    uint8_t *copy = malloc((size_t)n);
    if (copy == NULL) {
        OPENSSL_free(d);
        return -MERO_ENOMEM;
    }
    memcpy(copy, d, (size_t)n);
    OPENSSL_free(d);
    *der = copy;
    *len = (size_t)n;
    return 0;
}

/* "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in decimal ASCII. */
int mero__sig_dsse_pae(const char *type, const uint8_t *payload, size_t n, uint8_t **out,
                       size_t *outlen)
{
    size_t tl = strlen(type);
    if (tl > 1024 || n > SIG_MAX_PAYLOAD) {
        return -MERO_ETOOBIG;
    }
    struct mero_buf b;
    mero_buf_init(&b, SIG_MAX_PAYLOAD + 2048);
    int rc = 0;
    MERO_TRY_OUT(mero_buf_printf(&b, "DSSEv1 %zu %s %zu ", tl, type, n));
    if (n > 0) {
        MERO_TRY_OUT(mero_buf_append(&b, payload, n));
    }
    uint8_t *copy = malloc(b.len ? b.len : 1);
    MERO_ENSURE_OUT(copy != NULL, NULL, MERO_ENOMEM, "out of memory");
    memcpy(copy, b.data, b.len);
    *out = copy;
    *outlen = b.len;
out:
    mero_buf_cleanup(&b);
    return rc;
}

/*
 * Which SHA-2 digests each scheme signs. ECDSA: the curve's own hash (the PKIX_ECDSA_P256_SHA_256,
 * _P384_SHA_384, _P521_SHA_512 keyDetails), and SHA-256 on P-384 as well: Fulcio staging issues
 * P-384 leaves to clients that sign the artifact's SHA-256 (messageDigest SHA2_256), which
 * sigstore-python and sigstore-go verify. RSA: SHA-256 only (every RSA keyDetails is _SHA256).
 * Ed25519 is pure: it signs the artifact, never a digest.
 */
int mero__sig_hash_allowed(enum sig_keytype t, size_t n)
{
    switch (t) {
    case SIG_KT_EC_P256:
    case SIG_KT_RSA_PKCS1:
    case SIG_KT_RSA_PSS:
        return n == MERO_SHA256_LEN ? 0 : -MERO_EUNSUPPORTED;
    case SIG_KT_EC_P384:
        return n == MERO_SHA256_LEN || n == MERO_SHA384_LEN ? 0 : -MERO_EUNSUPPORTED;
    case SIG_KT_EC_P521:
        return n == MERO_SHA512_LEN ? 0 : -MERO_EUNSUPPORTED;
    default:
        return -MERO_EUNSUPPORTED;
    }
}

const char *mero__sig_hash_name(size_t n)
{
    return n == MERO_SHA256_LEN   ? "SHA2_256"
           : n == MERO_SHA384_LEN ? "SHA2_384"
           : n == MERO_SHA512_LEN ? "SHA2_512"
                                  : "?";
}

int mero__sig_verify_prehash(EVP_PKEY *key, enum sig_keytype t, const uint8_t *dgst, size_t n,
                             const uint8_t *sig, size_t siglen)
{
    if (mero__sig_hash_allowed(t, n) < 0) {
        return -MERO_EUNSUPPORTED;
    }
    if (key == NULL || dgst == NULL || sig == NULL || siglen == 0) {
        return -MERO_EBADSIG;
    }
    /* the key must be of the scheme's type (an RSA key serves PKCS#1 v1.5 and PSS) */
    enum sig_keytype own = mero__sig_key_type(key);
    if (own != t && !(own == SIG_KT_RSA_PKCS1 && t == SIG_KT_RSA_PSS)) {
        return -MERO_EUNSUPPORTED;
    }
    const EVP_MD *md = n == MERO_SHA256_LEN   ? EVP_sha256()
                       : n == MERO_SHA384_LEN ? EVP_sha384()
                                              : EVP_sha512();
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(key, NULL);
    if (c == NULL) {
        return -MERO_ENOMEM;
    }
    int ok = EVP_PKEY_verify_init(c) == 1 && EVP_PKEY_CTX_set_signature_md(c, md) == 1;
    if (ok && t == SIG_KT_RSA_PSS) {
        ok = EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(c, RSA_PSS_SALTLEN_AUTO) == 1;
    } else if (ok && t == SIG_KT_RSA_PKCS1) {
        ok = EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1;
    }
    ok = ok && EVP_PKEY_verify(c, sig, siglen, dgst, n) == 1;
    EVP_PKEY_CTX_free(c);
    return ok ? 0 : -MERO_EBADSIG;
}
