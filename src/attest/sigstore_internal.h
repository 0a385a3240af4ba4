/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_internal.h - types shared by the Sigstore verifier's files (trustroot.c,
 * sigstore_util.c, sigstore_bundle.c, sigstore_rekor.c, sigstore_cert.c, sigstore.c). Not
 * installed. All pointers in a parsed bundle are owned by it and freed by
 * mero__sig_bundle_cleanup.
 */
#ifndef MERO_SIGSTORE_INTERNAL_H
#define MERO_SIGSTORE_INTERNAL_H

#include <stdint.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "mero/sigstore.h"
#include "mero/sizes.h"

#define SIG_MAX_LOGS         32
#define SIG_MAX_CAS          16
#define SIG_MAX_TIMESTAMPS   4
#define SIG_MAX_TSA          (16u * 1024u)
#define SIG_MAX_PAYLOAD      (256u * 1024u)
#define SIG_MAX_CA_CERTS     8
#define SIG_MAX_PROOF_HASHES 64
#define SIG_MAX_BODY         (64u * 1024u)
#define SIG_MAX_CERT         (32u * 1024u)
#define SIG_MAX_SIG          512u
#define SIG_MAX_CHECKPOINT   4096u
#define SIG_MAX_DSSE_SIGS    8 /* signatures of a DSSE envelope / a dsse 0.0.2 entry */
#define SIG_TIME_OPEN        INT64_MAX

/* The signature scheme of a key (trusted-root keyDetails, or inferred from the key). */
enum sig_keytype {
    SIG_KT_UNKNOWN = 0,
    SIG_KT_EC_P256,   /* ECDSA over SHA-256 */
    SIG_KT_EC_P384,   /* ECDSA over SHA-384 */
    SIG_KT_EC_P521,   /* ECDSA over SHA-512 */
    SIG_KT_ED25519,   /* pure Ed25519 */
    SIG_KT_RSA_PKCS1, /* RSASSA-PKCS1-v1_5 over SHA-256, 2048-4096 bits */
    SIG_KT_RSA_PSS,   /* RSASSA-PSS over SHA-256, 2048-4096 bits */
};

#define SIG_NAME_MAX       128
#define SIG_WHY_MAX        96
#define SIG_CURVE_NAME_MAX 32 /* an OpenSSL group name such as prime256v1 */
/* base64 of a log id (SHA-256: 44 characters) and its NUL */
#define SIG_ID_B64_SIZE   ((MERO_SHA256_LEN + 2) / 3 * 4 + 1)
#define SIG_TIME_TEXT_MAX 32 /* "YYYY-MM-DDTHH:MM:SSZ", "open" or a number, with its NUL */
#define SIG_DETAILS_MAX   48 /* a keyDetails name such as PKIX_ECDSA_P256_SHA_256 */

struct sig_log {                     /* a tlog or a ctlog of the trusted root */
    uint8_t log_id[MERO_SHA256_LEN]; /* SHA-256 of the log's key */
    EVP_PKEY *key;                   /* NULL: the entry was skipped (why[] says so) */
    enum sig_keytype type;
    int64_t start;                 /* validFor, inclusive; start required */
    int64_t end;                   /* SIG_TIME_OPEN when absent */
    char name[SIG_NAME_MAX];       /* baseUrl without scheme (the checkpoint origin of Rekor v2) */
    char details[SIG_DETAILS_MAX]; /* keyDetails as written, "" when absent */
    char why[SIG_WHY_MAX];
};

struct sig_ca {                    /* a certificate authority or a timestamp authority */
    X509 *certs[SIG_MAX_CA_CERTS]; /* as listed: leaf-most first, root last */
    size_t ncerts;                 /* 0: the entry was skipped (why[] says so) */
    int64_t start;
    int64_t end;
    char name[SIG_NAME_MAX]; /* subject commonName / uri, for `trusted-root show` */
    char why[SIG_WHY_MAX];
};

struct mero_trust_root {
    struct sig_log tlogs[SIG_MAX_LOGS];
    size_t ntlogs;
    struct sig_log ctlogs[SIG_MAX_LOGS];
    size_t nctlogs;
    struct sig_ca cas[SIG_MAX_CAS];
    size_t ncas;
    struct sig_ca tsas[SIG_MAX_CAS];
    size_t ntsas;
};

enum sig_form { SIG_LEGACY = 0, SIG_V01 = 1, SIG_V02 = 2, SIG_V03 = 3 };

/* The logged entry's kind and version. */
enum sig_kind {
    SIG_HASHEDREKORD_1 = 0, /* Rekor v1 hashedrekord 0.0.1 */
    SIG_HASHEDREKORD_2,     /* Rekor v2 hashedrekord 0.0.2 (no SET, time from RFC 3161) */
    SIG_DSSE_1,             /* Rekor v1 dsse 0.0.1 */
    SIG_INTOTO_2,           /* Rekor v1 intoto 0.0.2 */
    SIG_DSSE_2,             /* Rekor v2 dsse 0.0.2 (no SET, time from RFC 3161) */
};

/* A Rekor v2 entry: no SET, no integrated time; the time comes from RFC 3161 timestamps. */
static inline int mero__sig_rekor_v2(enum sig_kind k)
{
    return k == SIG_HASHEDREKORD_2 || k == SIG_DSSE_2;
}

struct sig_bundle {
    enum sig_form form;
    enum sig_kind kind;
    X509 *leaf; /* NULL in a key-based bundle (keyed = 1) */
    uint8_t *leaf_der;
    size_t leaf_der_len;
    int keyed;          /* verificationMaterial.publicKey: the key comes from the caller */
    int chain_has_root; /* a self-signed certificate travelled in the bundle */
    uint8_t *sig;       /* the message signature, or the DSSE envelope's signer's signature */
    size_t sig_len;     /* (NULL until picked when the envelope has several: dsse 0.0.2) */
    /* DSSE envelope (is_dsse): the payload and its type */
    int is_dsse;
    uint8_t *payload;
    size_t payload_len;
    char *payload_type;
    /* the envelope's signatures when it has several (dsse 0.0.2 only; else nenv_sigs = 0) */
    uint8_t *env_sigs[SIG_MAX_DSSE_SIGS];
    size_t env_sig_lens[SIG_MAX_DSSE_SIGS];
    size_t nenv_sigs;
    /* RFC 3161 timestamps (DER TimeStampResp) */
    uint8_t *ts[SIG_MAX_TIMESTAMPS];
    size_t ts_len[SIG_MAX_TIMESTAMPS];
    size_t nts;
    int has_digest; /* messageSignature.messageDigest (protobuf only) */
    uint8_t
        digest[MERO_SHA512_LEN]; /* SHA2_256, SHA2_384 or SHA2_512: the algorithm is digest_len */
    size_t digest_len;
    /* the single tlog entry */
    uint8_t log_id[MERO_SHA256_LEN];
    int64_t integrated_time;
    uint64_t log_index;
    int has_integrated_time;
    uint8_t *set; /* DER ECDSA; NULL when absent */
    size_t set_len;
    uint8_t *body; /* the canonical hashedrekord body bytes */
    size_t body_len;
    int has_proof;
    uint64_t proof_index;
    uint64_t tree_size;
    uint8_t root_hash[MERO_SHA256_LEN];
    uint8_t (*hashes)[MERO_SHA256_LEN];
    size_t nhashes;
    char *checkpoint; /* NUL-terminated envelope text; NULL when absent */
    size_t checkpoint_len;
};

/* One logged signature and the verifier it is logged with. */
struct sig_body_sig {
    uint8_t *sig; /* the logged signature (raw bytes) */
    size_t sig_len;
    uint8_t *cert_der; /* the logged certificate, or NULL when a public key was logged */
    size_t cert_der_len;
    uint8_t *key_der; /* the logged public key (SPKI DER) when no certificate was */
    size_t key_der_len;
};

/* The logged body, decoded (any of enum sig_kind). */
struct sig_body {
    enum sig_kind kind;
    uint8_t
        hash[MERO_SHA512_LEN]; /* hashedrekord: the logged digest; dsse/intoto: the payload hash */
    size_t hash_len;
    struct sig_body_sig sigs[SIG_MAX_DSSE_SIGS]; /* exactly one except for dsse 0.0.2 */
    size_t nsigs;
};

/* sigstore_util.c */
int mero__sig_time_parse(const char *s, int64_t *out);
const char *mero__json_str(json_t *obj, const char *key);
int mero__json_b64(json_t *obj, const char *key, size_t max, uint8_t **out, size_t *outlen);
int mero__json_u64(json_t *obj, const char *key, uint64_t *out);
json_t *mero__json_load(const uint8_t *data, size_t len, size_t max, struct mero_err *err);
/* PEM text (one certificate) to an X509 and its DER; both owned. */
int mero__sig_pem_cert(const uint8_t *pem, size_t len, X509 **x, uint8_t **der, size_t *derlen);
int mero__sig_der_cert(const uint8_t *der, size_t len, X509 **x);
/* ECDSA (or RSA) signature over SHA-256(msg); 0 when it verifies. */
int mero__sig_verify_sha256(EVP_PKEY *key, const uint8_t *msg, size_t n, const uint8_t *sig,
                            size_t siglen);
/* The scheme a key implies on its own (EC curve, Ed25519, RSA as PKCS#1 v1.5); UNKNOWN when
 * it is none of the supported ones. */
enum sig_keytype mero__sig_key_type(EVP_PKEY *key);
/* Signature over msg under the scheme t; 0 when it verifies, -MERO_EBADSIG otherwise,
 * -MERO_EUNSUPPORTED for an unknown scheme or a key of another type. */
int mero__sig_verify_key(EVP_PKEY *key, enum sig_keytype t, const uint8_t *msg, size_t n,
                         const uint8_t *sig, size_t siglen);
/* Whether a signature of scheme t may be made over an n-byte SHA-2 digest (32, 48, 64): 0, or
 * -MERO_EUNSUPPORTED for a pair neither the key's keyDetails nor the clients allow. */
int mero__sig_hash_allowed(enum sig_keytype t, size_t n);
/* Signature over an n-byte SHA-2 digest (the pairs mero__sig_hash_allowed accepts; ECDSA and
 * RSA only: -MERO_EUNSUPPORTED otherwise). */
int mero__sig_verify_prehash(EVP_PKEY *key, enum sig_keytype t, const uint8_t *dgst, size_t n,
                             const uint8_t *sig, size_t siglen);
/* "SHA2_256", "SHA2_384", "SHA2_512" for a 32, 48, 64-byte digest; "?" otherwise. */
const char *mero__sig_hash_name(size_t n);
/* Public key from PEM text ("PUBLIC KEY"); owned. */
int mero__sig_pem_pubkey(const uint8_t *pem, size_t len, EVP_PKEY **out);
/* SPKI DER of a key; owned. */
int mero__sig_pubkey_der(EVP_PKEY *key, uint8_t **der, size_t *len);
/* The DSSE pre-authentication encoding of (type, payload); owned. */
int mero__sig_dsse_pae(const char *type, const uint8_t *payload, size_t n, uint8_t **out,
                       size_t *outlen);

/* trustroot.c */
/*
 * The usable key of log `id` at time t among logs[0..n), into *out. Entries skipped at load
 * time and keys whose validFor does not cover t are passed over (debug log). Returns 0, or
 * -MERO_ESIGSTORE_LOG when no entry has that id or no entry with it has a usable key (the
 * reason names the log id), or -window_code when the key exists but is not valid at t.
 */
int mero__trust_root_log(const struct sig_log *logs, size_t n, const uint8_t id[MERO_SHA256_LEN],
                         int64_t t, int window_code, const struct sig_log **out,
                         struct mero_err *err);

/* sigstore_tsa.c */
/*
 * Verify one RFC 3161 TimeStampResp over `sig` (message imprint = hash of the signature
 * bytes) signed by a timestamp authority of the trusted root valid at the token's genTime,
 * its chain checked at genTime. *gen_time gets the genTime. Refusals are -MERO_ESIGSTORE_TSA.
 */
int mero__sig_verify_tsa(const struct mero_trust_root *tr, const uint8_t *der, size_t len,
                         const uint8_t *sig, size_t siglen, int64_t *gen_time,
                         struct mero_err *err);

/* sigstore_bundle.c */
int mero__sig_bundle_parse(struct sig_bundle *b, const uint8_t *data, size_t len,
                           struct mero_err *err);
void mero__sig_bundle_cleanup(struct sig_bundle *b);
int mero__sig_body_parse(struct sig_body *out, const uint8_t *body, size_t len,
                         struct mero_err *err);
void mero__sig_body_cleanup(struct sig_body *b);
/*
 * The logged signature that pairs the signer (leaf certificate DER, or managed key SPKI DER
 * when cert_der is NULL) with `sig` (any signature when sig is NULL): its index, or
 * SIG_BODY_NOT_NAMED when no logged signature names that signer, SIG_BODY_OTHER_SIG when the
 * signer is named only with other signatures (answers, not error codes).
 */
#define SIG_BODY_NOT_NAMED (-1)
#define SIG_BODY_OTHER_SIG (-2)
int mero__sig_body_find(const struct sig_body *b, const uint8_t *cert_der, size_t cert_len,
                        const uint8_t *key_der, size_t key_len, const uint8_t *sig, size_t sig_len);

/* sigstore_rekor.c */
int mero__sig_verify_set(const struct sig_log *log, const struct sig_bundle *b,
                         struct mero_err *err);
int mero__sig_verify_proof(const struct sig_bundle *b, struct mero_err *err);
int mero__sig_verify_checkpoint(const struct sig_log *log, const struct sig_bundle *b,
                                struct mero_err *err);

/* sigstore_cert.c */
/* Chain the leaf to a trusted Fulcio CA valid at time t; *issuer gets a new reference to the
 * leaf's issuing certificate. */
int mero__sig_verify_chain(const struct mero_trust_root *tr, X509 *leaf, int64_t t, X509 **issuer,
                           struct mero_err *err);
int mero__sig_verify_sct(const struct mero_trust_root *tr, X509 *leaf, X509 *issuer, int64_t t,
                         struct mero_err *err);
int mero__sig_read_identity(X509 *leaf, struct mero_sigstore_result *res, struct mero_err *err);

#endif
