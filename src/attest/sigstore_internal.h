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

#define SIG_MAX_LOGS         16
#define SIG_MAX_CAS          16
#define SIG_MAX_CA_CERTS     8
#define SIG_MAX_PROOF_HASHES 64
#define SIG_MAX_BODY         (64u * 1024u)
#define SIG_MAX_CERT         (32u * 1024u)
#define SIG_MAX_SIG          512u
#define SIG_MAX_CHECKPOINT   4096u
#define SIG_TIME_OPEN        INT64_MAX

struct sig_log { /* a tlog or a ctlog of the trusted root */
    uint8_t log_id[32];
    EVP_PKEY *key;
    int64_t start; /* validFor, inclusive; start required */
    int64_t end;   /* SIG_TIME_OPEN when absent */
};

struct sig_ca {
    X509 *certs[SIG_MAX_CA_CERTS]; /* as listed: leaf-most first, root last */
    size_t ncerts;
    int64_t start;
    int64_t end;
};

struct mero_trust_root {
    struct sig_log tlogs[SIG_MAX_LOGS];
    size_t ntlogs;
    struct sig_log ctlogs[SIG_MAX_LOGS];
    size_t nctlogs;
    struct sig_ca cas[SIG_MAX_CAS];
    size_t ncas;
};

enum sig_form { SIG_LEGACY = 0, SIG_V01 = 1, SIG_V02 = 2, SIG_V03 = 3 };

struct sig_bundle {
    enum sig_form form;
    X509 *leaf;
    uint8_t *leaf_der;
    size_t leaf_der_len;
    int chain_has_root; /* a self-signed certificate travelled in the bundle */
    uint8_t *sig;       /* DER ECDSA over the artifact */
    size_t sig_len;
    int has_digest; /* messageSignature.messageDigest (protobuf only) */
    uint8_t digest[32];
    /* the single tlog entry */
    uint8_t log_id[32];
    int64_t integrated_time;
    uint64_t log_index;
    uint8_t *set; /* DER ECDSA; NULL when absent */
    size_t set_len;
    uint8_t *body; /* the canonical hashedrekord body bytes */
    size_t body_len;
    int has_proof;
    uint64_t proof_index;
    uint64_t tree_size;
    uint8_t root_hash[32];
    uint8_t (*hashes)[32];
    size_t nhashes;
    char *checkpoint; /* NUL-terminated envelope text; NULL when absent */
    size_t checkpoint_len;
};

/* The logged hashedrekord 0.0.1 body, decoded. */
struct sig_body {
    uint8_t hash[32];
    uint8_t *sig;
    size_t sig_len;
    uint8_t *cert_der;
    size_t cert_der_len;
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

/* trustroot.c */
const struct sig_log *mero__trust_root_tlog(const struct mero_trust_root *tr, const uint8_t id[32]);

/* sigstore_bundle.c */
int mero__sig_bundle_parse(struct sig_bundle *b, const uint8_t *data, size_t len,
                           struct mero_err *err);
void mero__sig_bundle_cleanup(struct sig_bundle *b);
int mero__sig_body_parse(struct sig_body *out, const uint8_t *body, size_t len,
                         struct mero_err *err);
void mero__sig_body_cleanup(struct sig_body *b);

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
