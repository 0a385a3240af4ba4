/* SPDX-License-Identifier: Apache-2.0 */
/*
 * collateral.c - QuoteCollateralV3 JSON (reference-dcap.md §3) to struct mero_collateral and
 * back, plus the collateral hash that keys the verification cache.
 *
 * Invariants: the signed tcb_info / qe_identity strings are kept byte-for-byte as the JSON
 * string value decodes (that is the text Intel signed; it is never re-serialized); every
 * field is checked against its maximum; duplicate keys are refused; the output struct is
 * written only when every field parsed.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mero/collateral.h"
#include "attest/collateral_internal.h"
#include "attest/x509_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

void mero_collateral_init(struct mero_collateral *c)
{
    memset(c, 0, sizeof(*c));
}

void mero_collateral_cleanup(struct mero_collateral *c)
{
    if (c == NULL) {
        return;
    }
    free(c->pck_crl_issuer_chain);
    free(c->root_ca_crl);
    free(c->pck_crl);
    free(c->tcb_info_issuer_chain);
    free(c->tcb_info);
    free(c->qe_identity_issuer_chain);
    free(c->qe_identity);
    free(c->pck_certificate_chain);
    memset(c, 0, sizeof(*c));
}

/* A required (or optional) string field, copied with a NUL. */
static int get_str(json_t *o, const char *key, bool required, size_t max, char **out,
                   size_t *outlen, struct mero_err *err)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL || json_is_null(v)) {
        if (required) {
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is required", key);
        }
        *out = NULL;
        *outlen = 0;
        return 0;
    }
    if (!json_is_string(v)) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s must be a string", key);
    }
    size_t n = json_string_length(v);
    if (n == 0 && required) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is empty", key);
    }
    if (n > max) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s exceeds %zu bytes", key, max);
    }
    char *p = malloc(n + 1);
    if (p == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "collateral: out of memory");
    }
    memcpy(p, json_string_value(v), n);
    p[n] = 0;
    *out = p;
    *outlen = n;
    return 0;
}

/* A byte field: a hex string or an array of numbers 0..255. */
static int get_bytes(json_t *o, const char *key, bool required, size_t max, uint8_t **out,
                     size_t *outlen, struct mero_err *err)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    *outlen = 0;
    if (v == NULL || json_is_null(v)) {
        if (required) {
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is required", key);
        }
        return 0;
    }
    if (json_is_string(v)) {
        size_t n = json_string_length(v);
        if (n / 2 > max) {
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s exceeds %zu bytes", key,
                                max);
        }
        if (n == 0) {
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is empty", key);
        }
        int rc = mero_hex_decode_alloc(json_string_value(v), n, max, out, outlen);
        if (rc < 0) {
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is not hex", key);
        }
        return 0;
    }
    if (!json_is_array(v)) {
        return mero_err_set(err, MERO_ECOLLATERAL,
                            "collateral: %s must be a hex string or an array of bytes", key);
    }
    size_t n = json_array_size(v);
    if (n == 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s is empty", key);
    }
    if (n > max) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s exceeds %zu bytes", key, max);
    }
    uint8_t *p = malloc(n);
    if (p == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "collateral: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        json_int_t x = json_is_integer(e) ? json_integer_value(e) : -1;
        if (x < 0 || x > 255) {
            free(p);
            return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s[%zu] is not a byte", key, i);
        }
        p[i] = (uint8_t)x;
    }
    *out = p;
    *outlen = n;
    return 0;
}

static int get_sig(json_t *o, const char *key, uint8_t sig[static MERO_ECDSA_P256_SIG_LEN],
                   struct mero_err *err)
{
    uint8_t *p = NULL;
    size_t n = 0;
    MERO_TRY(get_bytes(o, key, true, MERO_ECDSA_P256_SIG_LEN, &p, &n, err));
    if (n != MERO_ECDSA_P256_SIG_LEN) {
        free(p);
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: %s must be 64 bytes, got %zu", key,
                            n);
    }
    memcpy(sig, p, MERO_ECDSA_P256_SIG_LEN);
    free(p);
    return 0;
}

static int parse_obj(struct mero_collateral *c, json_t *o, struct mero_err *err)
{
    MERO_TRY(get_str(o, "pck_crl_issuer_chain", true, MERO_COLLATERAL_MAX_CHAIN,
                     &c->pck_crl_issuer_chain, &c->pck_crl_issuer_chain_len, err));
    MERO_TRY(get_bytes(o, "root_ca_crl", true, MERO_COLLATERAL_MAX_CRL, &c->root_ca_crl,
                       &c->root_ca_crl_len, err));
    MERO_TRY(
        get_bytes(o, "pck_crl", true, MERO_COLLATERAL_MAX_CRL, &c->pck_crl, &c->pck_crl_len, err));
    MERO_TRY(get_str(o, "tcb_info_issuer_chain", true, MERO_COLLATERAL_MAX_CHAIN,
                     &c->tcb_info_issuer_chain, &c->tcb_info_issuer_chain_len, err));
    MERO_TRY(get_str(o, "tcb_info", true, MERO_COLLATERAL_MAX_SIGNED, &c->tcb_info,
                     &c->tcb_info_len, err));
    MERO_TRY(get_sig(o, "tcb_info_signature", c->tcb_info_signature, err));
    MERO_TRY(get_str(o, "qe_identity_issuer_chain", true, MERO_COLLATERAL_MAX_CHAIN,
                     &c->qe_identity_issuer_chain, &c->qe_identity_issuer_chain_len, err));
    MERO_TRY(get_str(o, "qe_identity", true, MERO_COLLATERAL_MAX_SIGNED, &c->qe_identity,
                     &c->qe_identity_len, err));
    MERO_TRY(get_sig(o, "qe_identity_signature", c->qe_identity_signature, err));
    MERO_TRY(get_str(o, "pck_certificate_chain", false, MERO_COLLATERAL_MAX_CHAIN,
                     &c->pck_certificate_chain, &c->pck_certificate_chain_len, err));
    if (c->pck_certificate_chain != NULL && c->pck_certificate_chain_len == 0) {
        free(c->pck_certificate_chain);
        c->pck_certificate_chain = NULL;
    }
    return 0;
}

int mero_collateral_parse(struct mero_collateral *c, const char *json, size_t len,
                          struct mero_err *err)
{
    if (json == NULL || len == 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: empty");
    }
    if (len > MERO_COLLATERAL_MAX_JSON) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: exceeds %u bytes",
                            MERO_COLLATERAL_MAX_JSON);
    }
    struct mero_collateral tmp;
    if (mero__collateral_parse_fast(&tmp, json, len) == 0) {
        mero_collateral_rehash(&tmp);
        *c = tmp;
        return 0;
    }
    return mero__collateral_parse_general(c, json, len, err);
}

int mero__collateral_parse_general(struct mero_collateral *c, const char *json, size_t len,
                                   struct mero_err *err)
{
    if (json == NULL || len == 0 || len > MERO_COLLATERAL_MAX_JSON) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: empty or too large");
    }
    json_error_t je;
    json_t *o = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (o == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: not JSON: %.120s", je.text);
    }
    if (!json_is_object(o)) {
        json_decref(o);
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral: not a JSON object");
    }
    struct mero_collateral tmp;
    mero_collateral_init(&tmp);
    int rc = parse_obj(&tmp, o, err);
    json_decref(o);
    if (rc < 0) {
        mero_collateral_cleanup(&tmp);
        return rc;
    }
    mero_collateral_rehash(&tmp);
    *c = tmp;
    return 0;
}

static int dup_mem(void **dst, const void *src, size_t n, bool nul)
{
    *dst = NULL;
    if (src == NULL) {
        return 0;
    }
    (void)nul;
    uint8_t *p = malloc(n + 1);
    if (p == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(p, src, n);
    p[n] = 0;
    *dst = p;
    return 0;
}

int mero_collateral_copy(struct mero_collateral *dst, const struct mero_collateral *src)
{
    struct mero_collateral t = *src;
    int rc = 0;
    rc |= dup_mem((void **)&t.pck_crl_issuer_chain, src->pck_crl_issuer_chain,
                  src->pck_crl_issuer_chain_len, true);
    rc |= dup_mem((void **)&t.root_ca_crl, src->root_ca_crl, src->root_ca_crl_len, false);
    rc |= dup_mem((void **)&t.pck_crl, src->pck_crl, src->pck_crl_len, false);
    rc |= dup_mem((void **)&t.tcb_info_issuer_chain, src->tcb_info_issuer_chain,
                  src->tcb_info_issuer_chain_len, true);
    rc |= dup_mem((void **)&t.tcb_info, src->tcb_info, src->tcb_info_len, true);
    rc |= dup_mem((void **)&t.qe_identity_issuer_chain, src->qe_identity_issuer_chain,
                  src->qe_identity_issuer_chain_len, true);
    rc |= dup_mem((void **)&t.qe_identity, src->qe_identity, src->qe_identity_len, true);
    rc |= dup_mem((void **)&t.pck_certificate_chain, src->pck_certificate_chain,
                  src->pck_certificate_chain_len, true);
    if (rc != 0) {
        mero_collateral_cleanup(&t);
        return -MERO_ENOMEM;
    }
    *dst = t;
    return 0;
}

static int set_hex(json_t *o, const char *key, const uint8_t *p, size_t n)
{
    return json_object_set_new(o, key, mero_json_hex(p, n)) == 0 ? 0 : -MERO_ENOMEM;
}

static int set_str(json_t *o, const char *key, const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    if (v == NULL) {
        return -MERO_ECOLLATERAL; /* not UTF-8 */
    }
    return json_object_set_new(o, key, v) == 0 ? 0 : -MERO_ENOMEM;
}

int mero_collateral_to_json(const struct mero_collateral *c, struct mero_buf *b)
{
    char *s = NULL;
    int rc = 0;
    json_t *o = json_object();
    if (o == NULL) {
        return -MERO_ENOMEM;
    }
    MERO_TRY_OUT(
        set_str(o, "pck_crl_issuer_chain", c->pck_crl_issuer_chain, c->pck_crl_issuer_chain_len));
    if (c->root_ca_crl != NULL) {
        MERO_TRY_OUT(set_hex(o, "root_ca_crl", c->root_ca_crl, c->root_ca_crl_len));
    }
    MERO_TRY_OUT(set_hex(o, "pck_crl", c->pck_crl, c->pck_crl_len));
    MERO_TRY_OUT(set_str(o, "tcb_info_issuer_chain", c->tcb_info_issuer_chain,
                         c->tcb_info_issuer_chain_len));
    MERO_TRY_OUT(set_str(o, "tcb_info", c->tcb_info, c->tcb_info_len));
    MERO_TRY_OUT(
        set_hex(o, "tcb_info_signature", c->tcb_info_signature, sizeof(c->tcb_info_signature)));
    MERO_TRY_OUT(set_str(o, "qe_identity_issuer_chain", c->qe_identity_issuer_chain,
                         c->qe_identity_issuer_chain_len));
    MERO_TRY_OUT(set_str(o, "qe_identity", c->qe_identity, c->qe_identity_len));
    MERO_TRY_OUT(set_hex(o, "qe_identity_signature", c->qe_identity_signature,
                         sizeof(c->qe_identity_signature)));
    if (c->pck_certificate_chain != NULL) {
        MERO_TRY_OUT(set_str(o, "pck_certificate_chain", c->pck_certificate_chain,
                             c->pck_certificate_chain_len));
    }
    s = json_dumps(o, JSON_COMPACT);
    MERO_ENSURE_OUT(s != NULL, NULL, MERO_ENOMEM, "out of memory");
    rc = mero_buf_append_str(b, s);
out:
    free(s);
    json_decref(o);
    return rc;
}

/* One hashing pass over every field, each tagged present/absent and u64-LE length-prefixed. */
struct hasher {
    EVP_MD_CTX *evp;        /* OpenSSL's SHA-256 (SHA-NI): this hashes every collateral byte */
    struct mero_sha256 sod; /* the portable fallback, used when OpenSSL cannot */
};

static void h_update(struct hasher *h, const void *p, size_t n)
{
    if (h->evp != NULL) {
        EVP_DigestUpdate(h->evp, p, n);
    } else {
        mero_sha256_update(&h->sod, p, n);
    }
}

static void hash_field(struct hasher *h, const void *p, size_t n)
{
    uint8_t tag = p != NULL;
    uint8_t len[8];
    for (int i = 0; i < 8; i++) {
        len[i] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    h_update(h, &tag, 1);
    h_update(h, len, 8);
    if (p != NULL) {
        h_update(h, p, n);
    }
}

static void hash_all(struct hasher *h, const struct mero_collateral *c)
{
    h_update(h, "mero.collateral.v3", 18);
    hash_field(h, c->pck_crl_issuer_chain, c->pck_crl_issuer_chain_len);
    hash_field(h, c->root_ca_crl, c->root_ca_crl_len);
    hash_field(h, c->pck_crl, c->pck_crl_len);
    hash_field(h, c->tcb_info_issuer_chain, c->tcb_info_issuer_chain_len);
    hash_field(h, c->tcb_info, c->tcb_info_len);
    hash_field(h, c->tcb_info_signature, MERO_ECDSA_P256_SIG_LEN);
    hash_field(h, c->qe_identity_issuer_chain, c->qe_identity_issuer_chain_len);
    hash_field(h, c->qe_identity, c->qe_identity_len);
    hash_field(h, c->qe_identity_signature, MERO_ECDSA_P256_SIG_LEN);
    hash_field(h, c->pck_certificate_chain, c->pck_certificate_chain_len);
}

void mero_collateral_hash(const struct mero_collateral *c, uint8_t out[static MERO_SHA256_LEN])
{
    struct hasher h;
    unsigned int n = MERO_SHA256_LEN;
    memset(&h, 0, sizeof(h));
    h.evp = EVP_MD_CTX_new();
    if (h.evp != NULL && EVP_DigestInit_ex(h.evp, mero__sha256_md(), NULL) == 1) {
        hash_all(&h, c);
        if (EVP_DigestFinal_ex(h.evp, out, &n) == 1 && n == MERO_SHA256_LEN) {
            EVP_MD_CTX_free(h.evp);
            return;
        }
    }
    EVP_MD_CTX_free(h.evp);
    h.evp = NULL;
    mero_sha256_init(&h.sod);
    hash_all(&h, c);
    mero_sha256_final(&h.sod, out);
}

void mero_collateral_rehash(struct mero_collateral *c)
{
    mero_collateral_hash(c, c->hash);
    c->has_hash = true;
}
