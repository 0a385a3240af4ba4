/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore.c - verify a Sigstore or cosign bundle (message signature or DSSE in-toto
 * envelope; Fulcio certificate or managed key; Rekor v1 or v2), in the order of
 * docs/sigstore.md: parse; managed key given exactly for a key-based bundle; of a DSSE envelope
 * with several signatures (dsse 0.0.2), the one the logged entry pairs with the signer; detached
 * .sig equals the bundle's; log known to the trusted root and its key valid then; SET (which
 * authenticates the integrated time) and/or RFC 3161 timestamps; inclusion proof and
 * checkpoint; artifact digest hint or in-toto subject; logged signer, content and signature;
 * the signature; Fulcio chain at every signing time; SCT; identity policy.
 *
 * Invariants: a step runs only when every earlier step passed; the integrated time is read
 * only after the SET verified; the result is written only on success; each refusal returns
 * its own reason class so callers and tests can tell them apart.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

#include "attest/sigstore_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

const struct mero_sigstore_identity mero_sigstore_node_release_identity = {
    .issuer = MERO_SIGSTORE_GITHUB_ISSUER,
    .san = "https://github.com/calimero-network/mero-tee/.github/workflows/"
           "release-node-image-gcp.yaml@refs/heads/master",
    .workflow_name = "Release mero-tee",
    .repository = "calimero-network/mero-tee",
    .ref = "refs/heads/master",
};

static int pinned(const char *want, const char *have, const char *what, struct mero_err *err)
{
    if (want == NULL) {
        return 0;
    }
    if (have[0] == 0) {
        return mero_err_set(err, MERO_EIDENTITY, "certificate has no %s; policy requires \"%s\"",
                            what, want);
    }
    if (strcmp(want, have) != 0) {
        return mero_err_set(err, MERO_EIDENTITY, "%s \"%.160s\" is not \"%.160s\"", what, have,
                            want);
    }
    return 0;
}

int mero_sigstore_check_identity(const struct mero_sigstore_result *res,
                                 const struct mero_sigstore_identity *id, struct mero_err *err)
{
    if (res == NULL || id == NULL || id->issuer == NULL || id->san == NULL) {
        return mero_err_set(err, MERO_EINVAL, "identity policy needs an issuer and a SAN");
    }
    MERO_TRY(pinned(id->issuer, res->issuer, "OIDC issuer", err));
    if (!res->san_is_uri) {
        return mero_err_set(err, MERO_EIDENTITY, "certificate SAN is not a URI");
    }
    MERO_TRY(pinned(id->san, res->san, "SAN", err));
    MERO_TRY(pinned(id->workflow_name, res->workflow_name, "workflow name", err));
    MERO_TRY(pinned(id->repository, res->repository, "repository", err));
    MERO_TRY(pinned(id->ref, res->ref, "ref", err));
    return 0;
}

/* The detached .sig is base64 text; compare it, whitespace-trimmed, with the bundle's bytes. */
static int check_detached(const struct sig_bundle *b, const char *s, size_t n, struct mero_err *err)
{
    while (n > 0 && isspace((unsigned char)s[0])) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    uint8_t *raw = NULL;
    size_t rawlen = 0;
    if (mero_base64_decode_alloc(s, n, SIG_MAX_SIG, &raw, &rawlen) < 0) {
        return mero_err_set(err, MERO_ESIGSTORE_DETACHED, "detached signature is not base64");
    }
    int same = rawlen == b->sig_len && memcmp(raw, b->sig, rawlen) == 0;
    free(raw);
    if (!same) {
        return mero_err_set(err, MERO_ESIGSTORE_DETACHED,
                            "detached signature is not the bundle's signature");
    }
    return 0;
}

/* The DSSE payload is an in-toto statement; one subject must carry the artifact's SHA-256. */
static int check_subject(const struct sig_bundle *b, const uint8_t digest[MERO_SHA256_LEN],
                         struct mero_err *err)
{
    if (strcmp(b->payload_type, "application/vnd.in-toto+json") != 0) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "DSSE payloadType is not in-toto");
    }
    json_t *j = mero__json_load(b->payload, b->payload_len, SIG_MAX_PAYLOAD, err);
    if (j == NULL) {
        return mero_err_set(err, MERO_ESIGSTORE, "DSSE payload is not a JSON object");
    }
    const char *type = mero__json_str(j, "_type");
    json_t *subj = json_object_get(j, "subject");
    int rc;
    MERO_ENSURE_OUT(type != NULL && strncmp(type, "https://in-toto.io/Statement/", 29) == 0 &&
                        json_is_array(subj) && json_array_size(subj) != 0,
                    err, MERO_ESIGSTORE, "DSSE payload is not an in-toto statement");
    rc = mero_err_set(err, MERO_ESIGSTORE_DIGEST,
                      "no subject of the in-toto statement has the artifact's SHA-256");
    for (size_t i = 0; i < json_array_size(subj) && i < 1024; i++) {
        const char *hex =
            mero__json_str(json_object_get(json_array_get(subj, i), "digest"), "sha256");
        uint8_t d[MERO_SHA256_LEN];
        if (hex != NULL && mero_hex_decode_exact(d, sizeof(d), hex, strlen(hex)) == 0 &&
            mero_ct_eq(d, digest, sizeof(d))) {
            rc = 0;
            break;
        }
    }
out:
    json_decref(j);
    return rc;
}

/* Digest of msg with the algorithm of an n-byte digest (32, 48, 64). */
static int digest_n(uint8_t *out, size_t n, const uint8_t *msg, size_t len)
{
    const EVP_MD *md = n == MERO_SHA256_LEN   ? EVP_sha256()
                       : n == MERO_SHA384_LEN ? EVP_sha384()
                       : n == MERO_SHA512_LEN ? EVP_sha512()
                                              : NULL;
    unsigned int ol = 0;
    return md != NULL && EVP_Digest(msg, len, out, &ol, md, NULL) == 1 && ol == n ? 0
                                                                                  : -MERO_ECRYPTO;
}

/* The hash an ECDSA or RSA scheme uses when the bundle names none (no messageDigest): 0 for
 * Ed25519, which signs the artifact itself. */
static size_t own_hash_len(enum sig_keytype t)
{
    switch (t) {
    case SIG_KT_EC_P384:
        return MERO_SHA384_LEN;
    case SIG_KT_EC_P521:
        return MERO_SHA512_LEN;
    case SIG_KT_ED25519:
        return 0;
    default:
        return MERO_SHA256_LEN;
    }
}

static const char *key_name(enum sig_keytype t)
{
    switch (t) {
    case SIG_KT_EC_P256:
        return "ECDSA P-256";
    case SIG_KT_EC_P384:
        return "ECDSA P-384";
    case SIG_KT_EC_P521:
        return "ECDSA P-521";
    case SIG_KT_RSA_PKCS1:
    case SIG_KT_RSA_PSS:
        return "RSA";
    default:
        return "unknown";
    }
}

/*
 * A message signature is made over the digest the bundle names (messageDigest.algorithm), not
 * over the curve's hash: a P-384 leaf may sign SHA2_256. The pair must be one the scheme allows
 * (mero__sig_hash_allowed); Ed25519 signs the artifact itself, whatever digest the bundle adds.
 */
static int check_hash_pair(const struct sig_bundle *b, EVP_PKEY *key, struct mero_err *err)
{
    enum sig_keytype kt = mero__sig_key_type(key);
    if (b->is_dsse || !b->has_digest || kt == SIG_KT_ED25519 ||
        mero__sig_hash_allowed(kt, b->digest_len) == 0) {
        return 0;
    }
    return mero_err_set(err, MERO_EUNSUPPORTED,
                        "an %s key does not sign a %s digest (allowed: P-256 SHA2_256, P-384 "
                        "SHA2_256 or SHA2_384, P-521 SHA2_512, RSA SHA2_256)",
                        key_name(kt), mero__sig_hash_name(b->digest_len));
}

/* The bundle's messageDigest is the artifact's digest under the algorithm it names. */
static int check_message_digest(const struct sig_bundle *b, const uint8_t *artifact, size_t alen,
                                const uint8_t sha256[MERO_SHA256_LEN], int by_digest,
                                struct mero_err *err)
{
    uint8_t h[MERO_SHA512_LEN];
    const char *alg = mero__sig_hash_name(b->digest_len);
    if (b->digest_len == MERO_SHA256_LEN) {
        memcpy(h, sha256, MERO_SHA256_LEN);
    } else if (by_digest) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "the bundle's message digest is %s: the artifact's SHA-256 alone "
                            "cannot be checked against it",
                            alg);
    } else if (digest_n(h, b->digest_len, artifact, alen) < 0) {
        return mero_err_set(err, MERO_ENOMEM, "digest failed");
    }
    if (!mero_ct_eq(b->digest, h, b->digest_len)) {
        return mero_err_set(err, MERO_ESIGSTORE_DIGEST,
                            b->digest_len == MERO_SHA256_LEN
                                ? "the artifact's SHA-256 is not the bundle's message digest"
                                : "the artifact's %s is not the bundle's message digest",
                            alg);
    }
    return 0;
}

struct signer {
    EVP_PKEY *key;    /* the leaf's key or the managed key */
    uint8_t *key_der; /* managed key, SPKI DER */
    size_t key_der_len;
};

/* The logged signature(s) naming this signer: the certificate's DER, or the managed key's. */
static int body_find(const struct sig_body *body, const struct sig_bundle *b,
                     const struct signer *sg, const uint8_t *sig, size_t sig_len)
{
    return b->keyed
               ? mero__sig_body_find(body, NULL, 0, sg->key_der, sg->key_der_len, sig, sig_len)
               : mero__sig_body_find(body, b->leaf_der, b->leaf_der_len, NULL, 0, sig, sig_len);
}

/*
 * A DSSE envelope with several signatures (a dsse 0.0.2 entry only): the signer's is the one
 * the logged entry pairs with the signer's certificate or key. Only a choice: every later
 * step (timestamps, proof, body, the signature itself) is checked against the one chosen.
 */
static int pick_dsse_sig(struct sig_bundle *b, const struct signer *sg, struct mero_err *err)
{
    if (b->nenv_sigs == 0) {
        return 0;
    }
    struct sig_body body;
    MERO_TRY(mero__sig_body_parse(&body, b->body, b->body_len, err));
    int rc = mero_err_set(err, MERO_ESIGSTORE_BODY,
                          body_find(&body, b, sg, NULL, 0) == SIG_BODY_NOT_NAMED
                              ? "the logged entry names another signer than the bundle's"
                              : "no signature of the DSSE envelope is logged for this signer");
    for (size_t i = 0; i < b->nenv_sigs && rc < 0; i++) {
        if (body_find(&body, b, sg, b->env_sigs[i], b->env_sig_lens[i]) >= 0) {
            b->sig = malloc(b->env_sig_lens[i]);
            if (b->sig == NULL) {
                rc = mero_err_set(err, MERO_ENOMEM, "out of memory");
                break;
            }
            memcpy(b->sig, b->env_sigs[i], b->env_sig_lens[i]);
            b->sig_len = b->env_sig_lens[i];
            rc = 0;
        }
    }
    mero__sig_body_cleanup(&body);
    return rc;
}

/* The logged entry is this signer, this content and this signature; the signature verifies. */
static int check_body(const struct sig_bundle *b, const struct signer *sg, const uint8_t *artifact,
                      size_t alen, const uint8_t *given, struct mero_err *err)
{
    struct sig_body body;
    MERO_TRY(mero__sig_body_parse(&body, b->body, b->body_len, err));
    uint8_t *pae = NULL, h[MERO_SHA512_LEN];
    size_t pae_len = 0;
    const uint8_t *signed_msg = artifact;
    size_t signed_len = alen;
    enum sig_keytype kt = mero__sig_key_type(sg->key);
    int rc = 0;
    MERO_ENSURE_OUT(body.kind == b->kind, err, MERO_ESIGSTORE_BODY,
                    "the logged body is not of the entry's kind");
    MERO_ENSURE_OUT(body_find(&body, b, sg, NULL, 0) != SIG_BODY_NOT_NAMED, err,
                    MERO_ESIGSTORE_BODY,
                    b->keyed ? "the logged entry names another key than the managed key"
                             : "the logged entry names another certificate than the bundle's");
    if (b->is_dsse) {
        rc = mero__sig_dsse_pae(b->payload_type, b->payload, b->payload_len, &pae, &pae_len);
        MERO_ENSURE_OUT(rc == 0, err, -rc, "DSSE envelope too large");
        signed_msg = pae;
        signed_len = pae_len;
        /* hashedrekord 0.0.2 logs H(PAE); dsse 0.0.1 / 0.0.2 and intoto log H(payload) */
        const uint8_t *what = b->kind == SIG_HASHEDREKORD_2 ? pae : b->payload;
        size_t wlen = b->kind == SIG_HASHEDREKORD_2 ? pae_len : b->payload_len;
        MERO_ENSURE_OUT(digest_n(h, body.hash_len, what, wlen) == 0 &&
                            mero_ct_eq(h, body.hash, body.hash_len),
                        err, MERO_ESIGSTORE_BODY,
                        "the logged entry is not this DSSE envelope (digest differs)");
    } else {
        bool same = given != NULL ? body.hash_len == MERO_SHA256_LEN &&
                                        mero_ct_eq(given, body.hash, MERO_SHA256_LEN)
                                  : digest_n(h, body.hash_len, artifact, alen) == 0 &&
                                        mero_ct_eq(h, body.hash, body.hash_len);
        MERO_ENSURE_OUT(same, err, MERO_ESIGSTORE_DIGEST,
                        "the artifact's SHA-256 is not the one Rekor logged");
        MERO_ENSURE_OUT(!b->has_digest || body.hash_len == b->digest_len, err, MERO_ESIGSTORE_BODY,
                        "Rekor logged a %s digest, the bundle signs a %s one",
                        mero__sig_hash_name(body.hash_len), mero__sig_hash_name(b->digest_len));
    }
    int v;
    size_t hl = kt == SIG_KT_ED25519 ? 0 : b->has_digest ? b->digest_len : own_hash_len(kt);
    if (b->is_dsse || (given == NULL && hl == 0)) {
        v = mero__sig_verify_key(sg->key, kt, signed_msg, signed_len, b->sig, b->sig_len);
    } else if (b->has_digest && hl != 0) {
        /* the messageDigest, already found equal to the artifact's (check_message_digest) */
        v = mero__sig_verify_prehash(sg->key, kt, b->digest, hl, b->sig, b->sig_len);
    } else if (given != NULL) {
        v = hl == MERO_SHA256_LEN
                ? mero__sig_verify_prehash(sg->key, kt, given, hl, b->sig, b->sig_len)
                : -MERO_EUNSUPPORTED;
    } else {
        rc = digest_n(h, hl, artifact, alen);
        MERO_ENSURE_OUT(rc == 0, err, MERO_ENOMEM, "digest failed");
        v = mero__sig_verify_prehash(sg->key, kt, h, hl, b->sig, b->sig_len);
    }
    MERO_ENSURE_OUT(v != -MERO_EUNSUPPORTED || given == NULL, err, MERO_EUNSUPPORTED,
                    "this key signs the artifact itself: its SHA-256 alone cannot be checked");
    MERO_ENSURE_OUT(v == 0, err, MERO_EBADSIG,
                    b->is_dsse ? "the DSSE envelope's signature does not verify"
                               : "the bundle's signature does not verify over the artifact");
    MERO_ENSURE_OUT(body_find(&body, b, sg, b->sig, b->sig_len) >= 0, err, MERO_ESIGSTORE_BODY,
                    "the logged entry holds another signature than the bundle's");
out:
    free(pae);
    mero__sig_body_cleanup(&body);
    return rc;
}

/* The managed key must be given exactly for a key-based bundle. */
static int load_signer(const struct sig_bundle *b, const struct mero_sigstore_opts *opts,
                       struct signer *sg, struct mero_err *err)
{
    const char *pem = opts ? opts->public_key_pem : NULL;
    if (b->keyed && pem == NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "key-based bundle: verify it with the managed public key (--key)");
    }
    if (!b->keyed && pem != NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "a managed key was given but the bundle carries a certificate");
    }
    if (!b->keyed) {
        /* NULL when the certificate's key does not decode (an EC point off its curve) */
        EVP_PKEY *k = X509_get0_pubkey(b->leaf);
        if (k == NULL || EVP_PKEY_up_ref(k) != 1) {
            return mero_err_set(err, MERO_ECERT, "the certificate's public key does not decode");
        }
        sg->key = k;
        return 0;
    }
    if (mero__sig_pem_pubkey((const uint8_t *)pem, opts->public_key_pem_len, &sg->key) < 0 ||
        mero__sig_pubkey_der(sg->key, &sg->key_der, &sg->key_der_len) < 0) {
        return mero_err_set(err, MERO_EINVAL, "the managed key is not a PEM public key");
    }
    if (mero__sig_key_type(sg->key) == SIG_KT_UNKNOWN) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "the managed key's type is not supported");
    }
    return 0;
}

/* The log's evidence: SET (Rekor v1) or timestamps (both when present), proof, checkpoint.
 * Fills the signing times: times[0] the integrated time when a SET verified, then genTimes. */
static int check_log(const struct mero_trust_root *tr, const struct sig_bundle *b, int64_t *times,
                     size_t *ntimes, int64_t *ts_first, struct mero_err *err)
{
    const struct sig_log *log = NULL;
    *ntimes = 0;
    if (!mero__sig_rekor_v2(b->kind)) {
        MERO_TRY(mero__trust_root_log(tr->tlogs, tr->ntlogs, b->log_id, b->integrated_time,
                                      MERO_ESIGSTORE_SET, &log, err));
        MERO_TRY(mero__sig_verify_set(log, b, err));
        times[(*ntimes)++] = b->integrated_time;
    }
    for (size_t i = 0; i < b->nts; i++) {
        int64_t t = 0;
        MERO_TRY(mero__sig_verify_tsa(tr, b->ts[i], b->ts_len[i], b->sig, b->sig_len, &t, err));
        if (i == 0) {
            *ts_first = t;
        }
        times[(*ntimes)++] = t;
    }
    if (*ntimes == 0) {
        return mero_err_set(err, MERO_ESIGSTORE_TSA,
                            "a Rekor v2 entry needs an RFC 3161 timestamp: no signing time");
    }
    if (mero__sig_rekor_v2(b->kind)) {
        /* the log key must be valid at every signing time */
        for (size_t i = 0; i < *ntimes; i++) {
            MERO_TRY(mero__trust_root_log(tr->tlogs, tr->ntlogs, b->log_id, times[i],
                                          MERO_ESIGSTORE_LOG, &log, err));
        }
    }
    MERO_TRY(mero__sig_verify_proof(b, err));
    return mero__sig_verify_checkpoint(log, b, err);
}

int mero_sigstore_verify(const struct mero_trust_root *tr, const uint8_t *artifact,
                         size_t artifact_len, const uint8_t *bundle, size_t bundle_len,
                         const struct mero_sigstore_identity *id,
                         const struct mero_sigstore_opts *opts, struct mero_sigstore_result *res,
                         struct mero_err *err)
{
    const uint8_t *given = opts != NULL ? opts->artifact_sha256 : NULL;
    if (tr == NULL || (artifact == NULL && artifact_len > 0) || bundle == NULL ||
        (given != NULL && (artifact != NULL || artifact_len > 0))) {
        return mero_err_set(err, MERO_EINVAL, "missing trust root, artifact or bundle");
    }
    if (artifact_len > MERO_SIGSTORE_MAX_ARTIFACT) {
        return mero_err_set(err, MERO_ETOOBIG, "artifact exceeds %u bytes",
                            MERO_SIGSTORE_MAX_ARTIFACT);
    }
    struct sig_bundle b;
    int rc = mero__sig_bundle_parse(&b, bundle, bundle_len, err);
    if (rc < 0) {
        ERR_clear_error();
        return rc;
    }
    struct mero_sigstore_result r;
    memset(&r, 0, sizeof(r));
    struct signer sg = {0};
    X509 *issuer = NULL;
    int64_t times[1 + SIG_MAX_TIMESTAMPS];
    size_t ntimes = 0;
    MERO_ENSURE_OUT(!b.chain_has_root, err, MERO_ECHAIN,
                    "a root certificate travels inside the bundle");
    MERO_TRY_OUT(load_signer(&b, opts, &sg, err));
    MERO_TRY_OUT(check_hash_pair(&b, sg.key, err));
    MERO_TRY_OUT(pick_dsse_sig(&b, &sg, err));
    if (opts != NULL && opts->detached_sig != NULL) {
        MERO_TRY_OUT(check_detached(&b, opts->detached_sig, opts->detached_sig_len, err));
    }
    MERO_TRY_OUT(check_log(tr, &b, times, &ntimes, &r.timestamp_time, err));
    for (size_t i = 0; i < ntimes; i++) {
        MERO_ENSURE_OUT(!(opts != NULL && opts->now != 0 && times[i] > 0 &&
                          (uint64_t)times[i] > opts->now + 300),
                        err, MERO_EEXPIRED, "signing time lies in the future");
    }
    if (given != NULL) {
        memcpy(r.artifact_sha256, given, sizeof(r.artifact_sha256));
    } else {
        mero_sha256(r.artifact_sha256, artifact, artifact_len);
    }
    if (b.is_dsse) {
        rc = check_subject(&b, r.artifact_sha256, err);
    } else if (b.has_digest) {
        rc =
            check_message_digest(&b, artifact, artifact_len, r.artifact_sha256, given != NULL, err);
    }
    MERO_TRY_OUT(rc);
    MERO_TRY_OUT(check_body(&b, &sg, artifact, artifact_len, given, err));
    if (!b.keyed) {
        for (size_t i = 0; i < ntimes; i++) {
            X509_free(issuer);
            issuer = NULL;
            MERO_TRY_OUT(mero__sig_verify_chain(tr, b.leaf, times[i], &issuer, err));
        }
        MERO_TRY_OUT(mero__sig_verify_sct(tr, b.leaf, issuer, times[0], err));
        MERO_TRY_OUT(mero__sig_read_identity(b.leaf, &r, err));
    }
    r.integrated_time = times[0];
    for (size_t i = 1; mero__sig_rekor_v2(b.kind) && i < ntimes; i++) {
        r.integrated_time = times[i] < r.integrated_time ? times[i] : r.integrated_time;
    }
    r.log_index = b.log_index;
    r.keyed = b.keyed;
    r.dsse = b.is_dsse;
    if (!b.keyed && id != NULL) {
        MERO_TRY_OUT(mero_sigstore_check_identity(&r, id, err));
    }
    if (res != NULL) {
        *res = r;
    }
out:
    X509_free(issuer);
    EVP_PKEY_free(sg.key);
    free(sg.key_der);
    mero__sig_bundle_cleanup(&b);
    ERR_clear_error(); /* failed parses leave OpenSSL's thread-local queue dirty */
    return rc;
}
