/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sigstore_local.c - conformance-style Sigstore cases made here with OpenSSL: a local
 * Fulcio-like CA (leaf with an embedded SCT from a local CT log), a Rekor-v2-like log (a
 * three-leaf RFC 6962 tree, inclusion proof, signed checkpoint note) and a local RFC 3161
 * TSA, written out as a trusted_root.json and a v0.3 bundle. Every key type of a trusted root
 * signs the checkpoint (ECDSA P-256/P-384/P-521, Ed25519, RSA PKCS#1 v1.5 and PSS, an RSA CT
 * log in PKCS#1 form), every leaf key type signs (P-256, P-384, Ed25519), each bundle form is
 * verified (message signature, DSSE in-toto, managed key; DSSE logged as hashedrekord 0.0.2
 * or as a Rekor v2 dsse 0.0.2 entry, with one or two signatures), and each bad case is
 * refused for its own reason: wrong key type for the log id, expired log key, timestamp
 * outside the leaf's validity, inclusion proof for another entry, checkpoint signed by another
 * key, DSSE subject digest mismatch, logged envelope differs, wrong managed key, untrusted
 * TSA; dsse 0.0.2: payload hash mismatch, logged signature not the envelope's, verifier not
 * the leaf, the leaf's signature among several invalid or not logged.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/ct.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/ts.h>
#include <openssl/x509v3.h>

#include "attest/sigstore_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sigstore.h"

#define T_2025   1735689600 /* 2025-01-01T00:00:00Z */
#define T0       1767225600 /* 2026-01-01T00:00:00Z: the leaf's notBefore */
#define LEAF_SAN "https://github.com/example/repo/.github/workflows/release.yml@refs/heads/main"
#define ISSUER   MERO_SIGSTORE_GITHUB_ISSUER
#define LOG_NAME "log.example.test"

enum kt { K_P256, K_P384, K_P521, K_ED25519, K_RSA2048, K_RSA3072 };

static EVP_PKEY *gen(enum kt k)
{
    switch (k) {
    case K_P256:
        return EVP_EC_gen("P-256");
    case K_P384:
        return EVP_EC_gen("P-384");
    case K_P521:
        return EVP_EC_gen("P-521");
    case K_ED25519:
        return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    case K_RSA2048:
        return EVP_RSA_gen(2048);
    case K_RSA3072:
        return EVP_RSA_gen(3072);
    }
    return NULL;
}

/* Sign msg with key: ECDSA with the curve's hash, pure Ed25519, RSA PKCS#1 v1.5 or PSS. */
static int sign(EVP_PKEY *key, int pss, const uint8_t *msg, size_t n, uint8_t *sig, size_t *siglen)
{
    const EVP_MD *md = NULL;
    int id = EVP_PKEY_get_base_id(key);
    if (id == EVP_PKEY_EC) {
        int bits = EVP_PKEY_get_bits(key);
        md = bits == 256 ? EVP_sha256() : bits == 384 ? EVP_sha384() : EVP_sha512();
    } else if (id == EVP_PKEY_RSA) {
        md = EVP_sha256();
    }
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = EVP_DigestSignInit(c, &pc, md, NULL, key) == 1;
    if (ok && id == EVP_PKEY_RSA && pss) {
        ok = EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) == 1;
    }
    ok = ok && EVP_DigestSign(c, sig, siglen, msg, n) == 1;
    EVP_MD_CTX_free(c);
    return ok ? 0 : -1;
}

/* ECDSA or RSA PKCS#1 v1.5 over an n-byte SHA-2 digest (a hashedrekord message signature). */
static void sign_digest(EVP_PKEY *key, const uint8_t *d, size_t n, uint8_t *sig, size_t *siglen)
{
    const EVP_MD *md = n == 32 ? EVP_sha256() : n == 48 ? EVP_sha384() : EVP_sha512();
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(key, NULL);
    (void)!(EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_CTX_set_signature_md(c, md) == 1 &&
            EVP_PKEY_sign(c, sig, siglen, d, n) == 1);
    EVP_PKEY_CTX_free(c);
}

static void digest_of(uint8_t *out, size_t n, const uint8_t *msg, size_t len)
{
    const EVP_MD *md = n == 32 ? EVP_sha256() : n == 48 ? EVP_sha384() : EVP_sha512();
    unsigned int ol = 0;
    (void)!EVP_Digest(msg, len, out, &ol, md, NULL);
}

static const char *md_name_of(size_t n)
{
    return n == 32 ? "SHA2_256" : n == 48 ? "SHA2_384" : "SHA2_512";
}

static char *b64(const uint8_t *p, size_t n)
{
    return mero_base64_encode(p, n);
}

static size_t spki(EVP_PKEY *k, uint8_t *out)
{
    unsigned char *d = NULL;
    int n = i2d_PUBKEY(k, &d);
    memcpy(out, d, (size_t)n);
    OPENSSL_free(d);
    return (size_t)n;
}

static size_t cert_der(X509 *x, uint8_t *out)
{
    unsigned char *d = NULL;
    int n = i2d_X509(x, &d);
    memcpy(out, d, (size_t)n);
    OPENSSL_free(d);
    return (size_t)n;
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *val)
{
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, val);
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
}

static X509 *make_cert(EVP_PKEY *key, X509 *issuer, EVP_PKEY *ikey, const char *cn, int64_t nb,
                       int64_t na, int ca, const char *eku, long serial)
{
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    ASN1_TIME_set(X509_getm_notBefore(x), (time_t)nb);
    ASN1_TIME_set(X509_getm_notAfter(x), (time_t)na);
    X509_set_pubkey(x, key);
    X509_NAME *nm = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(nm, "O", MBSTRING_ASC, (const unsigned char *)"mero-test", -1, -1,
                               0);
    X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : nm);
    X509 *is = issuer ? issuer : x;
    add_ext(x, is, NID_subject_key_identifier, "hash");
    if (issuer != NULL) {
        add_ext(x, is, NID_authority_key_identifier, "keyid:always");
    }
    if (ca) {
        add_ext(x, is, NID_basic_constraints, "critical,CA:TRUE");
        add_ext(x, is, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
        add_ext(x, is, NID_basic_constraints, "critical,CA:FALSE");
        add_ext(x, is, NID_key_usage, "critical,digitalSignature");
        add_ext(x, is, NID_ext_key_usage, eku);
    }
    X509_sign(x, ikey ? ikey : key,
              EVP_PKEY_get_base_id(ikey ? ikey : key) == EVP_PKEY_ED25519 ? NULL : EVP_sha256());
    return x;
}

/* ---- the scenario ----------------------------------------------------------------------- */

struct scen {
    enum kt leaf_kt, log_kt, ct_kt;
    int log_pss;            /* the log's RSA key signs PSS */
    int ct_pkcs1_der;       /* the RSA CT key written as PKCS1_RSA_PKCS1V5 (PKCS#1 DER) */
    const char *details;    /* keyDetails written for the log; NULL: the right one */
    const char *ct_details; /* the same for the CT log */
    int dsse;               /* DSSE in-toto envelope instead of a message signature */
    int keyed;              /* a managed key instead of a certificate */
    int64_t ts_time;        /* the TSA's genTime */
    int64_t log_end;        /* 0: open */
    int proof_other;        /* the inclusion proof of another leaf */
    int cp_other_key;       /* the checkpoint signed by another key of the log's type */
    int subject_other;      /* the statement's subject is another digest */
    int env_changed;        /* the envelope's payload changed after logging */
    int wrong_key;          /* the verifier is handed another managed key */
    int untrusted_tsa;      /* the timestamp comes from a TSA not in the trusted root */
    int by_digest;          /* the verifier gets SHA-256(artifact), not the artifact */
    int dsse2;              /* logged as a Rekor v2 dsse 0.0.2 entry (with dsse = 1) */
    int payload_hash_other; /* dsse 0.0.2: the logged payloadHash is another digest */
    int logged_sig_other;   /* dsse 0.0.2: the logged signature is not the envelope's */
    int verifier_other;     /* dsse 0.0.2: the logged verifier is another certificate / key */
    int cosigned;           /* the envelope and the entry carry a second signer's signature */
    int leaf_sig_bad;       /* the leaf's signature (as sent and logged) does not verify */
    int leaf_sig_unlogged;  /* cosigned: the entry pairs the leaf with a signature not sent */
    size_t md_len;          /* message signature: the digest signed, named and logged (32, 48,
                               64); 0: the leaf's own (SHA-384 on P-384, else SHA-256) */
    const char *md_name;    /* messageDigest.algorithm written instead of the right name */
    int md_short;           /* messageDigest.digest one byte short */
    size_t log_md_len;      /* the digest Rekor logs; 0: md_len */
    size_t sig_md_len;      /* the digest the leaf really signs; 0: md_len */
};

static const char *details_of(enum kt k, int pss)
{
    switch (k) {
    case K_P256:
        return "PKIX_ECDSA_P256_SHA_256";
    case K_P384:
        return "PKIX_ECDSA_P384_SHA_384";
    case K_P521:
        return "PKIX_ECDSA_P521_SHA_512";
    case K_ED25519:
        return "PKIX_ED25519";
    case K_RSA2048:
        return pss ? "PKIX_RSA_PSS_2048_SHA256" : "PKIX_RSA_PKCS1V15_2048_SHA256";
    case K_RSA3072:
        return pss ? "PKIX_RSA_PSS_3072_SHA256" : "PKIX_RSA_PKCS1V15_3072_SHA256";
    }
    return "";
}

static void node(uint8_t out[32], const uint8_t l[32], const uint8_t r[32])
{
    uint8_t buf[65];
    buf[0] = 1;
    memcpy(buf + 1, l, 32);
    memcpy(buf + 33, r, 32);
    mero_sha256(out, buf, 65);
}

static void leaf_hash(uint8_t out[32], const uint8_t *body, size_t n)
{
    uint8_t *buf = malloc(n + 1);
    buf[0] = 0;
    memcpy(buf + 1, body, n);
    mero_sha256(out, buf, n + 1);
    free(buf);
}

static int ts_time_cb(struct TS_resp_ctx *ctx, void *data, long *sec, long *usec)
{
    (void)ctx;
    *sec = (long)*(int64_t *)data;
    *usec = 0;
    return 1;
}

/* A DER TimeStampResp over SHA-256(sig) by (cert, key) at time t. */
static uint8_t *timestamp(X509 *cert, EVP_PKEY *key, const uint8_t *sig, size_t siglen, int64_t t,
                          size_t *outlen)
{
    uint8_t h[32];
    mero_sha256(h, sig, siglen);
    TS_REQ *req = TS_REQ_new();
    TS_MSG_IMPRINT *mi = TS_MSG_IMPRINT_new();
    X509_ALGOR *alg = X509_ALGOR_new();
    X509_ALGOR_set0(alg, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL);
    TS_MSG_IMPRINT_set_algo(mi, alg); /* copies it */
    X509_ALGOR_free(alg);
    TS_MSG_IMPRINT_set_msg(mi, h, 32);
    TS_REQ_set_version(req, 1);
    TS_REQ_set_msg_imprint(req, mi);
    TS_REQ_set_cert_req(req, 1);
    unsigned char *reqder = NULL;
    int reqlen = i2d_TS_REQ(req, &reqder);
    BIO *bio = BIO_new_mem_buf(reqder, reqlen);
    TS_RESP_CTX *ctx = TS_RESP_CTX_new();
    TS_RESP_CTX_set_signer_cert(ctx, cert);
    TS_RESP_CTX_set_signer_key(ctx, key);
    ASN1_OBJECT *policy = OBJ_txt2obj("1.3.6.1.4.1.57264.2", 1);
    TS_RESP_CTX_set_def_policy(ctx, policy); /* copies it */
    ASN1_OBJECT_free(policy);
    TS_RESP_CTX_add_md(ctx, EVP_sha256());
    TS_RESP_CTX_set_time_cb(ctx, ts_time_cb, &t);
    TS_RESP *resp = TS_RESP_create_response(ctx, bio);
    unsigned char *der = NULL;
    int n = resp ? i2d_TS_RESP(resp, &der) : 0;
    uint8_t *out = NULL;
    if (n > 0) {
        out = malloc((size_t)n);
        memcpy(out, der, (size_t)n);
        *outlen = (size_t)n;
    }
    OPENSSL_free(der);
    OPENSSL_free(reqder);
    TS_RESP_free(resp);
    TS_RESP_CTX_free(ctx);
    BIO_free(bio);
    TS_MSG_IMPRINT_free(mi);
    TS_REQ_free(req);
    return out;
}

/* The fixed parts every scenario shares: CA, CT log, TSA (generated once). */
static struct {
    EVP_PKEY *ca_key, *tsa_root_key, *tsa_key, *ct_p256, *ct_rsa, *rogue_tsa_key;
    X509 *ca, *tsa_root, *tsa, *rogue_tsa;
} F;

static void fixture(void)
{
    if (F.ca != NULL) {
        return;
    }
    F.ca_key = gen(K_P256);
    F.ca = make_cert(F.ca_key, NULL, NULL, "fulcio-root", T_2025, T_2025 + 3 * 365 * 86400, 1, NULL,
                     1);
    F.tsa_root_key = gen(K_P256);
    F.tsa_root = make_cert(F.tsa_root_key, NULL, NULL, "tsa-root", T_2025, T_2025 + 3 * 365 * 86400,
                           1, NULL, 2);
    F.tsa_key = gen(K_P256);
    F.tsa = make_cert(F.tsa_key, F.tsa_root, F.tsa_root_key, "tsa", T_2025,
                      T_2025 + 3 * 365 * 86400, 0, "critical,timeStamping", 3);
    F.rogue_tsa_key = gen(K_P256);
    F.rogue_tsa = make_cert(F.rogue_tsa_key, NULL, NULL, "rogue-tsa", T_2025,
                            T_2025 + 3 * 365 * 86400, 0, "critical,timeStamping", 4);
    F.ct_p256 = gen(K_P256);
    F.ct_rsa = gen(K_RSA2048);
}

/* Embed an SCT from the CT log key into the leaf (RFC 6962 precert entry), then sign it. */
static void embed_sct(X509 *leaf, EVP_PKEY *ct, int64_t t)
{
    uint8_t ikh[32], der[4096], id[32];
    mero_sha256(ikh, der, spki(F.ca_key, der));
    mero_sha256(id, der, spki(ct, der));
    X509_sign(leaf, F.ca_key, EVP_sha256());
    unsigned char *tbs = NULL;
    int tl = i2d_re_X509_tbs(leaf, &tbs);
    uint64_t ms = (uint64_t)t * 1000u;
    uint8_t *m = malloc((size_t)tl + 64);
    size_t n = 0;
    m[n++] = 0;
    m[n++] = 0;
    for (int i = 0; i < 8; i++) {
        m[n++] = (uint8_t)(ms >> (56 - 8 * i));
    }
    m[n++] = 0;
    m[n++] = 1;
    memcpy(m + n, ikh, 32);
    n += 32;
    m[n++] = (uint8_t)(tl >> 16);
    m[n++] = (uint8_t)(tl >> 8);
    m[n++] = (uint8_t)tl;
    memcpy(m + n, tbs, (size_t)tl);
    n += (size_t)tl;
    m[n++] = 0;
    m[n++] = 0;
    uint8_t sig[1024];
    size_t sl = sizeof(sig);
    sign(ct, 0, m, n, sig, &sl);
    SCT *sct = SCT_new();
    SCT_set_version(sct, SCT_VERSION_V1);
    SCT_set_log_entry_type(sct, CT_LOG_ENTRY_TYPE_PRECERT);
    SCT_set1_log_id(sct, id, 32);
    SCT_set_timestamp(sct, ms);
    SCT_set_signature_nid(sct, EVP_PKEY_get_base_id(ct) == EVP_PKEY_RSA
                                   ? NID_sha256WithRSAEncryption
                                   : NID_ecdsa_with_SHA256);
    SCT_set1_signature(sct, sig, sl);
    STACK_OF(SCT) *list = sk_SCT_new_null();
    sk_SCT_push(list, sct);
    X509_add1_ext_i2d(leaf, NID_ct_precert_scts, list, 0, X509V3_ADD_DEFAULT);
    SCT_LIST_free(list);
    X509_sign(leaf, F.ca_key, EVP_sha256());
    OPENSSL_free(tbs);
    free(m);
}

static X509 *make_leaf(EVP_PKEY *key, EVP_PKEY *ct)
{
    X509 *x = make_cert(key, F.ca, F.ca_key, "leaf", T0, T0 + 600, 0, "codeSigning", 10);
    add_ext(x, F.ca, NID_subject_alt_name, "URI:" LEAF_SAN);
    /* Fulcio OIDC issuer, 1.3.6.1.4.1.57264.1.8, a DER UTF8String */
    ASN1_UTF8STRING *u = ASN1_UTF8STRING_new();
    ASN1_STRING_set(u, ISSUER, -1);
    unsigned char *d = NULL;
    int dl = i2d_ASN1_UTF8STRING(u, &d);
    ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
    ASN1_OCTET_STRING_set(os, d, dl);
    ASN1_OBJECT *obj = OBJ_txt2obj("1.3.6.1.4.1.57264.1.8", 1);
    X509_EXTENSION *e = X509_EXTENSION_create_by_OBJ(NULL, obj, 0, os);
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
    ASN1_OBJECT_free(obj);
    ASN1_OCTET_STRING_free(os);
    ASN1_UTF8STRING_free(u);
    OPENSSL_free(d);
    embed_sct(x, ct, T0 + 1);
    return x;
}

static json_t *jb64(const uint8_t *p, size_t n)
{
    char *s = b64(p, n);
    json_t *j = json_string(s);
    free(s);
    return j;
}

static const char *iso(int64_t t, char *buf)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

static json_t *window(int64_t start, int64_t end)
{
    char a[32], b[32];
    json_t *w = json_pack("{s:s}", "start", iso(start, a));
    if (end != 0) {
        json_object_set_new(w, "end", json_string(iso(end, b)));
    }
    return w;
}

static json_t *chain_json(X509 **certs, size_t n)
{
    json_t *arr = json_array();
    uint8_t der[8192];
    for (size_t i = 0; i < n; i++) {
        size_t l = cert_der(certs[i], der);
        json_array_append_new(arr, json_pack("{s:o}", "rawBytes", jb64(der, l)));
    }
    return json_pack("{s:o}", "certificates", arr);
}

static const char STATEMENT[] =
    "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"a.txt\","
    "\"digest\":{\"sha256\":\"%s\"}}],\"predicateType\":\"https://slsa.dev/provenance/v1\","
    "\"predicate\":{}}";

struct out {
    char *root, *bundle, *key_pem;
};

static void build(const struct scen *sc, const uint8_t *art, size_t alen, struct out *o)
{
    fixture();
    EVP_PKEY *leaf_key = gen(sc->leaf_kt), *log_key = gen(sc->log_kt);
    EVP_PKEY *other_log = sc->cp_other_key ? gen(sc->log_kt) : NULL;
    EVP_PKEY *ct = sc->ct_kt == K_RSA2048 ? F.ct_rsa : F.ct_p256;
    X509 *leaf = sc->keyed ? NULL : make_leaf(leaf_key, ct);
    uint8_t der[8192], id[32], ctid[32], sig[1024], h[32];
    size_t sl = sizeof(sig);
    char hex[65];

    /* the signed content: the artifact, or the DSSE PAE of a statement naming it */
    char stmt[1024];
    mero_sha256(h, art, alen);
    if (sc->subject_other) {
        h[0] ^= 1;
    }
    mero_hex_encode(hex, h, 32);
    snprintf(stmt, sizeof(stmt), STATEMENT, hex);
    uint8_t *pae = NULL;
    size_t pae_len = 0;
    (void)!mero__sig_dsse_pae("application/vnd.in-toto+json", (const uint8_t *)stmt, strlen(stmt),
                              &pae, &pae_len);
    const uint8_t *msg = sc->dsse ? pae : art;
    size_t mlen = sc->dsse ? pae_len : alen;
    /* a message signature is made over the digest the bundle names (sc->md_len) */
    size_t md_len = sc->md_len ? sc->md_len : sc->leaf_kt == K_P384 ? 48 : 32;
    size_t log_md_len = sc->dsse ? 32 : sc->log_md_len ? sc->log_md_len : md_len;
    uint8_t md[64], logged[64];
    digest_of(md, md_len, msg, mlen);
    digest_of(logged, log_md_len, msg, mlen);
    if (sc->dsse || sc->leaf_kt == K_ED25519) {
        sign(leaf_key, 0, msg, mlen, sig, &sl);
    } else {
        uint8_t sd[64];
        size_t sdl = sc->sig_md_len ? sc->sig_md_len : md_len;
        digest_of(sd, sdl, msg, mlen);
        sign_digest(leaf_key, sd, sdl, sig, &sl);
    }

    /* a cosigner (P-256 managed key) signs the same PAE */
    EVP_PKEY *co_key = sc->cosigned ? gen(K_P256) : NULL;
    uint8_t co_sig[256], lsig[1024];
    size_t co_sl = sizeof(co_sig), lsl = sl;
    if (co_key != NULL) {
        sign(co_key, 0, pae, pae_len, co_sig, &co_sl);
    }
    /* the leaf's signature as the envelope carries it */
    memcpy(lsig, sig, sl);
    if (sc->leaf_sig_bad) {
        lsig[lsl - 1] ^= 1;
    }

    /* the logged body: hashedrekord 0.0.2, or dsse 0.0.2 (canonical JSON: keys sorted) */
    json_t *verifier;
    EVP_PKEY *vkey = sc->verifier_other ? gen(sc->leaf_kt) : leaf_key;
    X509 *vleaf = sc->verifier_other && !sc->keyed ? make_leaf(vkey, ct) : leaf;
    if (sc->keyed) {
        verifier = json_pack("{s:s,s:{s:o}}", "keyDetails", details_of(sc->leaf_kt, 0), "publicKey",
                             "rawBytes", jb64(der, spki(vkey, der)));
    } else {
        verifier = json_pack("{s:s,s:{s:o}}", "keyDetails", details_of(sc->leaf_kt, 0),
                             "x509Certificate", "rawBytes", jb64(der, cert_der(vleaf, der)));
    }
    json_t *body;
    if (sc->dsse2) {
        uint8_t ph[32], other[1024];
        mero_sha256(ph, (const uint8_t *)stmt, strlen(stmt));
        ph[31] ^= sc->payload_hash_other ? 1 : 0;
        memcpy(other, lsig, lsl);
        other[lsl - 1] ^= sc->logged_sig_other || sc->leaf_sig_unlogged ? 1 : 0;
        json_t *sigs = json_pack("[{s:o,s:o}]", "content", jb64(other, lsl), "verifier", verifier);
        if (co_key != NULL) {
            json_array_insert_new(sigs, 0,
                                  json_pack("{s:o,s:{s:s,s:{s:o}}}", "content", jb64(co_sig, co_sl),
                                            "verifier", "keyDetails", "PKIX_ECDSA_P256_SHA_256",
                                            "publicKey", "rawBytes", jb64(der, spki(co_key, der))));
        }
        body = json_pack("{s:s,s:s,s:{s:{s:{s:s,s:o},s:o}}}", "apiVersion", "0.0.2", "kind", "dsse",
                         "spec", "dsseV002", "payloadHash", "algorithm", "SHA2_256", "digest",
                         jb64(ph, 32), "signatures", sigs);
    } else {
        body = json_pack("{s:s,s:s,s:{s:{s:{s:s,s:o},s:{s:o,s:o}}}}", "apiVersion", "0.0.2", "kind",
                         "hashedrekord", "spec", "hashedRekordV002", "data", "algorithm",
                         md_name_of(log_md_len), "digest", jb64(logged, log_md_len), "signature",
                         "content", jb64(sig, sl), "verifier", verifier);
    }
    char *body_s = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(body);

    /* the log: three leaves, ours at index 1; root = H(H(l0,l1), l2) */
    uint8_t l0[32], l1[32], l2[32], n01[32], root[32], n12[32];
    leaf_hash(l0, (const uint8_t *)"entry zero", 10);
    leaf_hash(l1, (const uint8_t *)body_s, strlen(body_s));
    leaf_hash(l2, (const uint8_t *)"entry two", 9);
    node(n01, l0, l1);
    node(root, n01, l2);
    node(n12, l1, l2);
    uint8_t pk[32];
    size_t pklen = 32;
    if (sc->log_kt == K_ED25519) {
        EVP_PKEY_get_raw_public_key(log_key, pk, &pklen);
        uint8_t buf[sizeof(LOG_NAME) + 33];
        memcpy(buf, LOG_NAME, sizeof(LOG_NAME) - 1);
        buf[sizeof(LOG_NAME) - 1] = 0x0a;
        buf[sizeof(LOG_NAME)] = 0x01;
        memcpy(buf + sizeof(LOG_NAME) + 1, pk, 32);
        mero_sha256(id, buf, sizeof(buf));
    } else {
        mero_sha256(id, der, spki(log_key, der));
    }
    char *root_b64 = b64(root, 32), note[256], env[1024];
    snprintf(note, sizeof(note), "%s\n3\n%s\n", LOG_NAME, root_b64);
    uint8_t cps[1024];
    size_t cpl = sizeof(cps) - 4;
    memcpy(cps, id, 4);
    sign(other_log ? other_log : log_key, sc->log_pss, (const uint8_t *)note, strlen(note), cps + 4,
         &cpl);
    char *cps_b64 = b64(cps, cpl + 4);
    snprintf(env, sizeof(env), "%s\n\xe2\x80\x94 %s %s\n", note, LOG_NAME, cps_b64);
    json_t *hashes = sc->proof_other ? json_pack("[o,o]", jb64(l1, 32), jb64(l2, 32))
                                     : json_pack("[o,o]", jb64(l0, 32), jb64(l2, 32));
    const char *pidx = sc->proof_other ? "0" : "1";
    json_t *entry = json_pack("{s:s,s:{s:o},s:{s:s,s:s},s:{s:s,s:s,s:s,s:o,s:{s:s}},s:o}",
                              "logIndex", pidx, "logId", "keyId", jb64(id, 32), "kindVersion",
                              "kind", sc->dsse2 ? "dsse" : "hashedrekord", "version", "0.0.2",
                              "inclusionProof", "logIndex", pidx, "rootHash", root_b64, "treeSize",
                              "3", "hashes", hashes, "checkpoint", "envelope", env,
                              "canonicalizedBody", jb64((const uint8_t *)body_s, strlen(body_s)));
    (void)n12;

    /* the timestamp over the (leaf's) signature */
    size_t tsl = 0;
    uint8_t *ts = sc->untrusted_tsa
                      ? timestamp(F.rogue_tsa, F.rogue_tsa_key, lsig, lsl, sc->ts_time, &tsl)
                      : timestamp(F.tsa, F.tsa_key, lsig, lsl, sc->ts_time, &tsl);
    json_t *vm =
        json_pack("{s:[o],s:{s:[{s:o}]}}", "tlogEntries", entry, "timestampVerificationData",
                  "rfc3161Timestamps", "signedTimestamp", jb64(ts, tsl));
    if (sc->keyed) {
        json_object_set_new(vm, "publicKey", json_pack("{s:s}", "hint", "local"));
    } else {
        json_object_set_new(vm, "certificate",
                            json_pack("{s:o}", "rawBytes", jb64(der, cert_der(leaf, der))));
    }
    json_t *bundle =
        json_pack("{s:s,s:o}", "mediaType", "application/vnd.dev.sigstore.bundle.v0.3+json",
                  "verificationMaterial", vm);
    if (sc->dsse) {
        const char *payload = stmt;
        char changed[1100];
        if (sc->env_changed) {
            snprintf(changed, sizeof(changed), "%s ", stmt);
            payload = changed;
        }
        json_t *sigs = json_pack("[{s:o}]", "sig", jb64(lsig, lsl));
        if (co_key != NULL) {
            json_array_insert_new(sigs, 0,
                                  json_pack("{s:o,s:s}", "sig", jb64(co_sig, co_sl), "keyid", ""));
        }
        json_object_set_new(
            bundle, "dsseEnvelope",
            json_pack("{s:o,s:s,s:o}", "payload", jb64((const uint8_t *)payload, strlen(payload)),
                      "payloadType", "application/vnd.in-toto+json", "signatures", sigs));
    } else {
        json_object_set_new(bundle, "messageSignature",
                            json_pack("{s:{s:s,s:o},s:o}", "messageDigest", "algorithm",
                                      sc->md_name ? sc->md_name : md_name_of(md_len), "digest",
                                      jb64(md, md_len - (sc->md_short ? 1 : 0)), "signature",
                                      jb64(sig, sl)));
    }
    o->bundle = json_dumps(bundle, JSON_COMPACT);
    json_decref(bundle);

    /* the trusted root */
    uint8_t kder[4096];
    size_t kl;
    if (sc->ct_pkcs1_der) {
        unsigned char *p = NULL;
        int n = i2d_PublicKey(ct, &p);
        memcpy(kder, p, (size_t)n);
        kl = (size_t)n;
        OPENSSL_free(p);
    } else {
        kl = spki(ct, kder);
    }
    mero_sha256(ctid, der, spki(ct, der));
    const char *ctdetails = sc->ct_details           ? sc->ct_details
                            : sc->ct_pkcs1_der       ? "PKCS1_RSA_PKCS1V5"
                            : sc->ct_kt == K_RSA2048 ? "PKIX_RSA_PKCS1V15_2048_SHA256"
                                                     : "PKIX_ECDSA_P256_SHA_256";
    X509 *tsa_chain[2] = {F.tsa, F.tsa_root};
    json_t *tr = json_pack(
        "{s:s,s:[{s:s,s:s,s:{s:o,s:s,s:o},s:{s:o}}],s:[{s:{s:s},s:o,s:o}],"
        "s:[{s:s,s:s,s:{s:o,s:s,s:o},s:{s:o}}],s:[{s:{s:s},s:o,s:o}]}",
        "mediaType", "application/vnd.dev.sigstore.trustedroot+json;version=0.1", "tlogs",
        "baseUrl", "https://" LOG_NAME, "hashAlgorithm", "SHA2_256", "publicKey", "rawBytes",
        jb64(der, spki(log_key, der)), "keyDetails",
        sc->details ? sc->details : details_of(sc->log_kt, sc->log_pss), "validFor",
        window(T_2025, sc->log_end), "logId", "keyId", jb64(id, 32), "certificateAuthorities",
        "subject", "commonName", "fulcio-root", "certChain", chain_json(&F.ca, 1), "validFor",
        window(T_2025, 0), "ctlogs", "baseUrl", "https://ct.example.test", "hashAlgorithm",
        "SHA2_256", "publicKey", "rawBytes", jb64(kder, kl), "keyDetails", ctdetails, "validFor",
        window(T_2025, 0), "logId", "keyId", jb64(ctid, 32), "timestampAuthorities", "subject",
        "commonName", "tsa", "certChain", chain_json(tsa_chain, 2), "validFor", window(T_2025, 0));
    o->root = json_dumps(tr, JSON_COMPACT);
    json_decref(tr);

    /* the managed key as PEM (or another key's) */
    o->key_pem = NULL;
    if (sc->keyed) {
        EVP_PKEY *k = sc->wrong_key ? gen(sc->leaf_kt) : leaf_key;
        BIO *bio = BIO_new(BIO_s_mem());
        PEM_write_bio_PUBKEY(bio, k);
        char *p = NULL;
        long n = BIO_get_mem_data(bio, &p);
        o->key_pem = calloc(1, (size_t)n + 1);
        memcpy(o->key_pem, p, (size_t)n);
        BIO_free(bio);
        if (k != leaf_key) {
            EVP_PKEY_free(k);
        }
    }
    free(ts);
    free(cps_b64);
    free(root_b64);
    free(body_s);
    free(pae);
    if (vleaf != leaf) {
        X509_free(vleaf);
    }
    if (vkey != leaf_key) {
        EVP_PKEY_free(vkey);
    }
    EVP_PKEY_free(co_key);
    X509_free(leaf);
    EVP_PKEY_free(leaf_key);
    EVP_PKEY_free(log_key);
    EVP_PKEY_free(other_log);
}

static const uint8_t ART[] = "a release file, signed locally\n";

static int run(const struct scen *sc, struct mero_sigstore_result *r, struct mero_err *e)
{
    struct out o;
    build(sc, ART, sizeof(ART) - 1, &o);
    struct mero_trust_root *tr = NULL;
    int rc = mero_trust_root_parse(&tr, (const uint8_t *)o.root, strlen(o.root), e);
    if (rc == 0) {
        struct mero_sigstore_identity id = {.issuer = ISSUER, .san = LEAF_SAN};
        struct mero_sigstore_opts opts = {.now = T0 + 86400,
                                          .public_key_pem = o.key_pem,
                                          .public_key_pem_len = o.key_pem ? strlen(o.key_pem) : 0};
        uint8_t d[32];
        mero_sha256(d, ART, sizeof(ART) - 1);
        opts.artifact_sha256 = sc->by_digest ? d : NULL;
        memset(r, 0, sizeof(*r));
        rc = mero_sigstore_verify(tr, sc->by_digest ? NULL : ART,
                                  sc->by_digest ? 0 : sizeof(ART) - 1, (const uint8_t *)o.bundle,
                                  strlen(o.bundle), sc->keyed ? NULL : &id, &opts, r, e);
    }
    mero_trust_root_free(tr);
    free(o.root);
    free(o.bundle);
    free(o.key_pem);
    return rc;
}

static struct scen base(void)
{
    struct scen s;
    memset(&s, 0, sizeof(s));
    s.leaf_kt = K_P256;
    s.log_kt = K_ED25519;
    s.ct_kt = K_P256;
    s.ts_time = T0 + 60;
    return s;
}

TEST(every_log_key_type_verifies)
{
    static const struct {
        enum kt k;
        int pss;
    } logs[] = {{K_P256, 0},    {K_P384, 0},    {K_P521, 0},   {K_ED25519, 0},
                {K_RSA2048, 0}, {K_RSA2048, 1}, {K_RSA3072, 1}};
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        struct scen s = base();
        s.log_kt = logs[i].k;
        s.log_pss = logs[i].pss;
        struct mero_sigstore_result r;
        struct mero_err e = {0};
        int rc = run(&s, &r, &e);
        CHECK_MSG(rc == 0, "log key %s: %s (%s)", details_of(logs[i].k, logs[i].pss),
                  mero_strerror(rc), e.msg);
        CHECK_EQ(r.integrated_time, T0 + 60);
        CHECK_EQ(r.timestamp_time, T0 + 60);
        CHECK_STR_EQ(r.san, LEAF_SAN);
    }
}

TEST(digest_form_verifies)
{
    struct mero_sigstore_result r;
    struct mero_err e = {0};
    for (int form = 0; form < 3; form++) {
        struct scen s = base();
        s.by_digest = 1;
        s.dsse = form == 1;
        s.keyed = form == 2;
        CHECK_MSG(run(&s, &r, &e) == 0, "P-256 form %d by digest: %s", form, e.msg);
    }
    struct scen s = base();
    s.by_digest = 1;
    s.leaf_kt = K_ED25519;
    s.dsse = 1; /* DSSE needs only the subject digest, whatever the key */
    CHECK_MSG(run(&s, &r, &e) == 0, "Ed25519 DSSE by digest: %s", e.msg);
}

TEST(rsa_ct_logs_verify_the_sct)
{
    struct scen s = base();
    s.ct_kt = K_RSA2048;
    struct mero_sigstore_result r;
    struct mero_err e = {0};
    CHECK_MSG(run(&s, &r, &e) == 0, "PKIX RSA CT log: %s", e.msg);
    s.ct_pkcs1_der = 1; /* Sigstore staging's legacy PKCS1_RSA_PKCS1V5 form */
    CHECK_MSG(run(&s, &r, &e) == 0, "PKCS#1 RSA CT log: %s", e.msg);
}

TEST(every_leaf_key_type_and_bundle_form_verifies)
{
    static const enum kt leaves[] = {K_P256, K_P384, K_ED25519};
    for (size_t i = 0; i < 3; i++) {
        for (int form = 0; form < 3; form++) {
            struct scen s = base();
            s.leaf_kt = leaves[i];
            s.dsse = form == 1;
            s.keyed = form == 2;
            struct mero_sigstore_result r;
            struct mero_err e = {0};
            int rc = run(&s, &r, &e);
            CHECK_MSG(rc == 0, "leaf %s form %d: %s (%s)", details_of(leaves[i], 0), form,
                      mero_strerror(rc), e.msg);
            CHECK_EQ(r.dsse, s.dsse);
            CHECK_EQ(r.keyed, s.keyed);
        }
    }
}

static void refused(struct scen s, int want, const char *why)
{
    struct mero_sigstore_result r;
    struct mero_err e = {0};
    int rc = run(&s, &r, &e);
    CHECK_MSG(rc == want, "want %s got %s (%s)", mero_strerror(want), mero_strerror(rc), e.msg);
    CHECK_MSG(strstr(e.msg, why) != NULL, "reason \"%s\" lacks \"%s\"", e.msg, why);
}

TEST(each_bad_case_refused_for_its_own_reason)
{
    struct scen s = base();
    /* the log's entry says P-384 but holds a P-256 key: skipped, the log id is named */
    s.log_kt = K_P256;
    s.details = "PKIX_ECDSA_P384_SHA_384";
    refused(s, -MERO_ESIGSTORE_LOG, "unusable: public key is not a PKIX_ECDSA_P384_SHA_384");
    /* the CT log's key is unusable: the SCT refusal names that log */
    s = base();
    s.ct_details = "LMS_SHA256";
    refused(s, -MERO_ESIGSTORE_SCT, "key for CT log");
    s = base();
    s.log_kt = K_P256;
    /* a key type unknown to us for the needed log */
    s.details = "ML_DSA_65";
    refused(s, -MERO_ESIGSTORE_LOG, "key type ML_DSA_65 not supported");
    /* a PSS checkpoint signature under a key the root declares PKCS#1 v1.5 */
    s = base();
    s.log_kt = K_RSA2048;
    s.log_pss = 1;
    s.details = "PKIX_RSA_PKCS1V15_2048_SHA256";
    refused(s, -MERO_ESIGSTORE_CHECKPOINT, "does not verify");
    /* an RSA key of another size than its keyDetails says */
    s.details = "PKIX_RSA_PSS_4096_SHA256";
    refused(s, -MERO_ESIGSTORE_LOG, "unusable");
    /* the log key expired before the timestamp */
    s = base();
    s.log_end = T0;
    refused(s, -MERO_ESIGSTORE_LOG, "not valid at");
    /* the TSA time lies after the leaf's notAfter */
    s = base();
    s.ts_time = T0 + 3600;
    refused(s, -MERO_EEXPIRED, "not valid at");
    /* the inclusion proof proves another leaf */
    s = base();
    s.proof_other = 1;
    refused(s, -MERO_ESIGSTORE_PROOF, "root hash");
    /* the checkpoint is signed by another key (same key hint) */
    s = base();
    s.cp_other_key = 1;
    refused(s, -MERO_ESIGSTORE_CHECKPOINT, "does not verify");
    s.log_kt = K_P256;
    refused(s, -MERO_ESIGSTORE_CHECKPOINT, "does not verify");
    /* the in-toto statement names another digest */
    s = base();
    s.dsse = 1;
    s.subject_other = 1;
    refused(s, -MERO_ESIGSTORE_DIGEST, "in-toto");
    /* the envelope is not the one logged */
    s = base();
    s.dsse = 1;
    s.env_changed = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "DSSE envelope");
    /* a managed key other than the signer's */
    s = base();
    s.keyed = 1;
    s.wrong_key = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "another key");
    /* by digest only: an Ed25519 leaf signed the artifact itself; a P-384 leaf signed its
     * SHA-384, which the artifact's SHA-256 cannot check */
    s = base();
    s.by_digest = 1;
    s.leaf_kt = K_ED25519;
    refused(s, -MERO_EUNSUPPORTED, "signs the artifact itself");
    s.leaf_kt = K_P384;
    refused(s, -MERO_EUNSUPPORTED, "message digest is SHA2_384: the artifact's SHA-256 alone");
    /* a timestamp from a TSA that is not in the trusted root */
    s = base();
    s.untrusted_tsa = 1;
    refused(s, -MERO_ESIGSTORE_TSA, "not signed by a timestamp authority");
}

/*
 * Issue 32 item 7: a message signature is made over the digest messageDigest names, not the
 * curve's hash. A P-384 leaf over SHA2_256 (Fulcio staging, sigstore-python) verifies, by
 * artifact and by digest, with a certificate or a managed key; pairs no keyDetails or client
 * allows, names we do not know and digests of the wrong length are refused for that reason.
 */
TEST(message_digest_algorithm_picks_the_hash)
{
    static const struct {
        enum kt k;
        size_t md;
    } good[] = {{K_P256, 32}, {K_P384, 32}, {K_P384, 48}, {K_P521, 64}, {K_ED25519, 32}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        for (int form = 0; form < 3; form++) {
            struct scen s = base();
            s.leaf_kt = good[i].k;
            s.md_len = good[i].md;
            s.keyed = form == 1;
            s.by_digest = form == 2;
            if (s.by_digest && (good[i].md != 32 || good[i].k == K_ED25519)) {
                continue;
            }
            struct mero_sigstore_result r;
            struct mero_err e = {0};
            int rc = run(&s, &r, &e);
            CHECK_MSG(rc == 0, "leaf %s over %s form %d: %s (%s)", details_of(good[i].k, 0),
                      md_name_of(good[i].md), form, mero_strerror(rc), e.msg);
        }
    }
    /* the hash is the bundle's: a P-384 leaf that signed SHA-384 under a SHA2_256 name fails */
    struct scen s = base();
    s.leaf_kt = K_P384;
    s.md_len = 32;
    s.sig_md_len = 48;
    refused(s, -MERO_EBADSIG, "does not verify");
    s.md_len = 48;
    s.sig_md_len = 32;
    refused(s, -MERO_EBADSIG, "does not verify");
    /* pairs the spec does not allow */
    static const struct {
        enum kt k;
        size_t md;
        const char *why;
    } pairs[] = {{K_P256, 48, "an ECDSA P-256 key does not sign a SHA2_384 digest"},
                 {K_P256, 64, "an ECDSA P-256 key does not sign a SHA2_512 digest"},
                 {K_P384, 64, "an ECDSA P-384 key does not sign a SHA2_512 digest"},
                 {K_P521, 32, "an ECDSA P-521 key does not sign a SHA2_256 digest"}};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        for (int keyed = 0; keyed < 2; keyed++) {
            s = base();
            s.leaf_kt = pairs[i].k;
            s.md_len = pairs[i].md;
            s.keyed = keyed;
            refused(s, -MERO_EUNSUPPORTED, pairs[i].why);
        }
    }
    /* algorithm names we do not know, and SHA-1 */
    static const char *const names[] = {"SHA1", "SHA2_224", "SHA3_256", "sha256",
                                        "HASH_ALGORITHM_UNSPECIFIED"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        s = base();
        s.leaf_kt = K_P384;
        s.md_len = 32;
        s.md_name = names[i];
        refused(s, -MERO_EUNSUPPORTED, "is not SHA2_256, SHA2_384 or SHA2_512");
    }
    /* a digest whose length is not its algorithm's */
    s = base();
    s.leaf_kt = K_P384;
    s.md_len = 48;
    s.md_short = 1;
    refused(s, -MERO_ESIGSTORE, "messageDigest.digest is not a 48-byte SHA2_384 digest");
    s.md_short = 0;
    s.md_len = 32;
    s.md_name = "SHA2_384";
    refused(s, -MERO_ESIGSTORE, "messageDigest.digest is not a 48-byte SHA2_384 digest");
    s.md_name = "SHA2_512";
    refused(s, -MERO_ESIGSTORE, "messageDigest.digest is not a 64-byte SHA2_512 digest");
    /* Rekor logged the artifact under another algorithm than the bundle signs */
    s = base();
    s.leaf_kt = K_P384;
    s.md_len = 32;
    s.log_md_len = 48;
    refused(s, -MERO_ESIGSTORE_BODY, "Rekor logged a SHA2_384 digest, the bundle signs a SHA2_256");
}

TEST(dsse_0_0_2_entries_verify)
{
    static const enum kt leaves[] = {K_P256, K_P384, K_ED25519};
    for (size_t i = 0; i < 3; i++) {
        for (int form = 0; form < 4; form++) {
            struct scen s = base();
            s.leaf_kt = leaves[i];
            s.dsse = 1;
            s.dsse2 = 1;
            s.keyed = form & 1;
            s.cosigned = (form & 2) != 0; /* the leaf's signature is the envelope's second */
            struct mero_sigstore_result r;
            struct mero_err e = {0};
            int rc = run(&s, &r, &e);
            CHECK_MSG(rc == 0, "dsse 0.0.2 leaf %s keyed %d cosigned %d: %s (%s)",
                      details_of(leaves[i], 0), s.keyed, s.cosigned, mero_strerror(rc), e.msg);
            CHECK_EQ(r.dsse, 1);
            CHECK_EQ(r.keyed, s.keyed);
            CHECK_EQ(r.integrated_time, T0 + 60); /* the RFC 3161 genTime */
            if (!s.keyed) {
                CHECK_STR_EQ(r.san, LEAF_SAN);
            }
        }
    }
    struct scen s = base();
    s.dsse = 1;
    s.dsse2 = 1;
    s.by_digest = 1; /* only the subject digest is needed */
    struct mero_sigstore_result r;
    struct mero_err e = {0};
    CHECK_MSG(run(&s, &r, &e) == 0, "dsse 0.0.2 by digest: %s", e.msg);
}

TEST(dsse_0_0_2_bad_cases_refused_for_their_own_reason)
{
    struct scen s = base();
    s.dsse = 1;
    s.dsse2 = 1;
    struct scen d = s;
    /* the logged payloadHash is not SHA-256 of the envelope's payload */
    s.payload_hash_other = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "not this DSSE envelope");
    /* the entry logs another signature (the envelope's still verifies) */
    s = d;
    s.logged_sig_other = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "another signature than the bundle's");
    /* the entry's verifier is another Fulcio leaf, or another managed key */
    s = d;
    s.verifier_other = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "another certificate than the bundle's");
    s.keyed = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "another key than the managed key");
    /* the envelope changed after logging: the payload hash tells */
    s = d;
    s.env_changed = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "not this DSSE envelope");
    /* the signature (sent and logged alike) does not verify with the leaf's key */
    s = d;
    s.leaf_sig_bad = 1;
    refused(s, -MERO_EBADSIG, "DSSE envelope's signature");
    /* two signers: the one paired with the leaf is checked, and must verify */
    s = d;
    s.cosigned = 1;
    s.leaf_sig_bad = 1;
    refused(s, -MERO_EBADSIG, "DSSE envelope's signature");
    /* two signers: the entry pairs the leaf with a signature the envelope does not carry */
    s = d;
    s.cosigned = 1;
    s.leaf_sig_unlogged = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "no signature of the DSSE envelope is logged");
    /* two signers: the entry does not name the leaf at all */
    s = d;
    s.cosigned = 1;
    s.verifier_other = 1;
    refused(s, -MERO_ESIGSTORE_BODY, "names another signer");
    /* two signatures are only for dsse 0.0.2 entries */
    s = d;
    s.dsse2 = 0;
    s.cosigned = 1;
    refused(s, -MERO_ESIGSTORE, "exactly one signature");
    /* the subject is still checked */
    s = d;
    s.subject_other = 1;
    refused(s, -MERO_ESIGSTORE_DIGEST, "in-toto");
    /* and the log evidence as for hashedrekord 0.0.2 */
    s = d;
    s.proof_other = 1;
    refused(s, -MERO_ESIGSTORE_PROOF, "root hash");
    s = d;
    s.cp_other_key = 1;
    refused(s, -MERO_ESIGSTORE_CHECKPOINT, "does not verify");
    s = d;
    s.untrusted_tsa = 1;
    refused(s, -MERO_ESIGSTORE_TSA, "not signed by a timestamp authority");
    s = d;
    s.ts_time = T0 + 3600;
    refused(s, -MERO_EEXPIRED, "not valid at");
}

/* A dsse 0.0.2 entry with a SET or integrated time, or without the envelope, is refused. */
TEST(dsse_0_0_2_shape)
{
    struct scen s = base();
    s.dsse = 1;
    s.dsse2 = 1;
    struct out o;
    build(&s, ART, sizeof(ART) - 1, &o);
    struct mero_trust_root *tr = NULL;
    struct mero_err e = {0};
    CHECK_OK(mero_trust_root_parse(&tr, (const uint8_t *)o.root, strlen(o.root), &e));
    json_error_t je;
    json_t *good = json_loads(o.bundle, 0, &je);
    static const char *const edits[] = {"integratedTime", "inclusionPromise", "messageSignature"};
    static const char *const why[] = {"carries no inclusionPromise or integratedTime",
                                      "carries no inclusionPromise or integratedTime",
                                      "needs a dsseEnvelope"};
    for (size_t i = 0; i < 3; i++) {
        json_t *b = json_deep_copy(good);
        json_t *entry = json_array_get(
            json_object_get(json_object_get(b, "verificationMaterial"), "tlogEntries"), 0);
        if (i == 0) {
            json_object_set_new(entry, "integratedTime", json_string("1767225660"));
        } else if (i == 1) {
            json_object_set_new(entry, "inclusionPromise",
                                json_pack("{s:s}", "signedEntryTimestamp", "MEUCIQ=="));
        } else {
            json_t *env = json_object_get(b, "dsseEnvelope");
            json_object_set_new(
                b, "messageSignature",
                json_pack(
                    "{s:O}", "signature",
                    json_object_get(json_array_get(json_object_get(env, "signatures"), 0), "sig")));
            json_object_del(b, "dsseEnvelope");
        }
        char *txt = json_dumps(b, JSON_COMPACT);
        struct mero_sigstore_identity id = {.issuer = ISSUER, .san = LEAF_SAN};
        int rc = mero_sigstore_verify(tr, ART, sizeof(ART) - 1, (const uint8_t *)txt, strlen(txt),
                                      &id, NULL, NULL, &e);
        CHECK_MSG(rc == -MERO_ESIGSTORE, "%s: %s (%s)", edits[i], mero_strerror(rc), e.msg);
        CHECK_MSG(strstr(e.msg, why[i]) != NULL, "%s: reason \"%s\"", edits[i], e.msg);
        free(txt);
        json_decref(b);
    }
    json_decref(good);
    mero_trust_root_free(tr);
    free(o.root);
    free(o.bundle);
    free(o.key_pem);
}

MERO_TEST_MAIN(T(every_log_key_type_verifies), T(digest_form_verifies),
               T(rsa_ct_logs_verify_the_sct), T(every_leaf_key_type_and_bundle_form_verifies),
               T(each_bad_case_refused_for_its_own_reason),
               T(message_digest_algorithm_picks_the_hash), T(dsse_0_0_2_entries_verify),
               T(dsse_0_0_2_bad_cases_refused_for_their_own_reason), T(dsse_0_0_2_shape))
