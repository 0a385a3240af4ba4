/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_bundle.c - parse a Sigstore bundle into struct sig_bundle: the protobuf-JSON forms
 * (media types of reference-sigstore-ccel.md §A.1) with a message signature or a DSSE
 * envelope, a certificate or a managed public key, RFC 3161 timestamps, and cosign's legacy
 * bundle (§A.2); plus the logged body of each supported entry kind: hashedrekord 0.0.1
 * (§A.3) and 0.0.2 (Rekor v2), dsse 0.0.1, intoto 0.0.2 and dsse 0.0.2 (Rekor v2: the
 * canonical JSON of the log entry, a SHA-256 payloadHash and signatures each with its
 * verifier).
 *
 * Invariants: parsing decides nothing about trust; it only refuses what is not one of the
 * accepted shapes: an unknown media type, both or neither of messageSignature and
 * dsseEnvelope, a DSSE envelope without exactly one signature (up to SIG_MAX_DSSE_SIGS with a
 * dsse 0.0.2 entry; the signer's is picked later), zero or several tlog entries,
 * an unknown kind/version, a Rekor v1 entry without integratedTime, a v0.1 bundle without its
 * inclusion promise, a >= v0.2 bundle without its inclusion proof, a v0.3 bundle carrying a
 * chain, more than SIG_MAX_TIMESTAMPS timestamps. Every decoded field is bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "attest/sigstore_internal.h"
#include "mero/encoding.h"

void mero__sig_bundle_cleanup(struct sig_bundle *b)
{
    X509_free(b->leaf);
    free(b->leaf_der);
    free(b->sig);
    free(b->set);
    free(b->body);
    free(b->hashes);
    free(b->checkpoint);
    free(b->payload);
    free(b->payload_type);
    for (size_t i = 0; i < b->nenv_sigs; i++) {
        free(b->env_sigs[i]);
    }
    for (size_t i = 0; i < b->nts; i++) {
        free(b->ts[i]);
    }
    memset(b, 0, sizeof(*b));
}

static int bad(struct mero_err *err, const char *what)
{
    return mero_err_set(err, MERO_ESIGSTORE, "bundle: %s", what);
}

static int is_self_signed(X509 *x)
{
    EVP_PKEY *k = X509_get0_pubkey(x);
    return X509_NAME_cmp(X509_get_subject_name(x), X509_get_issuer_name(x)) == 0 && k != NULL &&
           X509_verify(x, k) == 1;
}

static int parse_form(const char *mt, enum sig_form *form)
{
    static const struct {
        const char *s;
        enum sig_form f;
    } known[] = {
        {"application/vnd.dev.sigstore.bundle+json;version=0.1", SIG_V01},
        {"application/vnd.dev.sigstore.bundle+json;version=0.2", SIG_V02},
        {"application/vnd.dev.sigstore.bundle+json;version=0.3", SIG_V03},
        {"application/vnd.dev.sigstore.bundle.v0.3+json", SIG_V03},
    };
    for (size_t i = 0; mt != NULL && i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(mt, known[i].s) == 0) {
            *form = known[i].f;
            return 0;
        }
    }
    return -MERO_ESIGSTORE_MEDIATYPE;
}

static int leaf_from_der(struct sig_bundle *b, uint8_t *der, size_t n)
{
    if (mero__sig_der_cert(der, n, &b->leaf) < 0) {
        free(der);
        return -MERO_ECERT;
    }
    b->leaf_der = der;
    b->leaf_der_len = n;
    return 0;
}

static int parse_material(struct sig_bundle *b, json_t *vm, struct mero_err *err)
{
    json_t *cert = json_object_get(vm, "certificate");
    json_t *chain = json_object_get(vm, "x509CertificateChain");
    json_t *pk = json_object_get(vm, "publicKey");
    if ((cert != NULL) + (chain != NULL) + (pk != NULL) != 1) {
        return bad(err, "needs exactly one of certificate, x509CertificateChain, publicKey");
    }
    if (pk != NULL) {
        /* a managed key: only its hint travels; the verifier is handed the key itself */
        if (!json_is_object(pk)) {
            return bad(err, "publicKey");
        }
        b->keyed = 1;
        return 0;
    }
    uint8_t *der = NULL;
    size_t n = 0;
    if (cert != NULL) {
        if (mero__json_b64(cert, "rawBytes", SIG_MAX_CERT, &der, &n) < 0) {
            return bad(err, "certificate.rawBytes");
        }
        return leaf_from_der(b, der, n) < 0 ? bad(err, "certificate does not parse") : 0;
    }
    if (b->form == SIG_V03) {
        return bad(err, "v0.3 bundles carry a single certificate, not a chain");
    }
    json_t *certs = json_object_get(chain, "certificates");
    if (!json_is_array(certs) || json_array_size(certs) == 0 || json_array_size(certs) > 8) {
        return bad(err, "x509CertificateChain.certificates empty or too long");
    }
    for (size_t i = 0; i < json_array_size(certs); i++) {
        X509 *x = NULL;
        if (mero__json_b64(json_array_get(certs, i), "rawBytes", SIG_MAX_CERT, &der, &n) < 0) {
            return bad(err, "x509CertificateChain rawBytes");
        }
        if (i == 0) {
            if (leaf_from_der(b, der, n) < 0) {
                return bad(err, "leaf certificate does not parse");
            }
            continue;
        }
        /* Extra certificates are never used for the chain (only the trusted root's are), but a
         * root inside the bundle is refused (conformance bundle-with-root-cert_fail). */
        int rc = mero__sig_der_cert(der, n, &x);
        free(der);
        if (rc < 0) {
            return bad(err, "chain certificate does not parse");
        }
        b->chain_has_root |= is_self_signed(x);
        X509_free(x);
    }
    if (is_self_signed(b->leaf)) {
        b->chain_has_root = 1;
    }
    return 0;
}

static int parse_proof(struct sig_bundle *b, json_t *p, struct mero_err *err)
{
    uint8_t *root = NULL;
    size_t n = 0;
    json_t *hashes = json_object_get(p, "hashes");
    if (mero__json_u64(p, "logIndex", &b->proof_index) < 0 ||
        mero__json_u64(p, "treeSize", &b->tree_size) < 0 ||
        mero__json_b64(p, "rootHash", MERO_SHA256_LEN, &root, &n) < 0 || n != MERO_SHA256_LEN) {
        free(root);
        return bad(err, "inclusionProof fields");
    }
    memcpy(b->root_hash, root, MERO_SHA256_LEN);
    free(root);
    if (hashes != NULL &&
        (!json_is_array(hashes) || json_array_size(hashes) > SIG_MAX_PROOF_HASHES)) {
        return bad(err, "inclusionProof.hashes");
    }
    b->nhashes = hashes ? json_array_size(hashes) : 0;
    b->hashes = calloc(b->nhashes ? b->nhashes : 1, MERO_SHA256_LEN);
    if (b->hashes == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < b->nhashes; i++) {
        json_t *h = json_array_get(hashes, i);
        uint8_t *d = NULL;
        if (!json_is_string(h) ||
            mero_base64_decode_alloc(json_string_value(h), json_string_length(h), MERO_SHA256_LEN,
                                     &d, &n) < 0 ||
            n != MERO_SHA256_LEN) {
            free(d);
            return bad(err, "inclusionProof hash");
        }
        memcpy(b->hashes[i], d, MERO_SHA256_LEN);
        free(d);
    }
    json_t *cp = json_object_get(p, "checkpoint");
    if (cp != NULL) {
        const char *env = mero__json_str(cp, "envelope");
        if (env == NULL || strlen(env) == 0 || strlen(env) > SIG_MAX_CHECKPOINT) {
            return bad(err, "checkpoint.envelope");
        }
        b->checkpoint = strdup(env);
        if (b->checkpoint == NULL) {
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
        b->checkpoint_len = strlen(env);
    }
    b->has_proof = 1;
    return 0;
}

static int parse_tlog(struct sig_bundle *b, json_t *vm, struct mero_err *err)
{
    json_t *entries = json_object_get(vm, "tlogEntries");
    if (!json_is_array(entries) || json_array_size(entries) != 1) {
        return bad(err, "exactly one tlog entry is required");
    }
    json_t *e = json_array_get(entries, 0);
    json_t *kv = json_object_get(e, "kindVersion");
    const char *kind = mero__json_str(kv, "kind"), *ver = mero__json_str(kv, "version");
    static const struct {
        const char *kind, *ver;
        enum sig_kind k;
    } kinds[] = {
        {"hashedrekord", "0.0.1", SIG_HASHEDREKORD_1},
        {"hashedrekord", "0.0.2", SIG_HASHEDREKORD_2},
        {"dsse", "0.0.1", SIG_DSSE_1},
        {"intoto", "0.0.2", SIG_INTOTO_2},
        {"dsse", "0.0.2", SIG_DSSE_2},
    };
    size_t ki = 0;
    while (ki < sizeof(kinds) / sizeof(kinds[0]) &&
           (kind == NULL || ver == NULL || strcmp(kind, kinds[ki].kind) != 0 ||
            strcmp(ver, kinds[ki].ver) != 0)) {
        ki++;
    }
    if (ki == sizeof(kinds) / sizeof(kinds[0])) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "bundle: entry kind is not hashedrekord 0.0.1/0.0.2, dsse "
                            "0.0.1/0.0.2 or intoto 0.0.2");
    }
    b->kind = kinds[ki].k;
    uint8_t *id = NULL;
    size_t n = 0;
    uint64_t it = 0;
    if (mero__json_b64(json_object_get(e, "logId"), "keyId", MERO_SHA256_LEN, &id, &n) < 0 ||
        n != MERO_SHA256_LEN) {
        free(id);
        return bad(err, "logId.keyId");
    }
    memcpy(b->log_id, id, MERO_SHA256_LEN);
    free(id);
    if (mero__json_u64(e, "logIndex", &b->log_index) < 0) {
        return bad(err, "logIndex");
    }
    int rit = mero__json_u64(e, "integratedTime", &it);
    if (rit < 0 && (rit != -MERO_ENOTFOUND || !mero__sig_rekor_v2(b->kind))) {
        return bad(err, "integratedTime");
    }
    /* Rekor v2 has no integrated time (absent, or the protobuf default 0) */
    b->has_integrated_time = rit == 0 && !(mero__sig_rekor_v2(b->kind) && it == 0);
    b->integrated_time = (int64_t)it;
    if (mero__json_b64(e, "canonicalizedBody", SIG_MAX_BODY, &b->body, &b->body_len) < 0) {
        return bad(err, "canonicalizedBody missing (required to check the logged entry)");
    }
    json_t *promise = json_object_get(e, "inclusionPromise");
    if (promise != NULL &&
        (mero__json_b64(promise, "signedEntryTimestamp", SIG_MAX_SIG, &b->set, &b->set_len) < 0)) {
        return bad(err, "inclusionPromise.signedEntryTimestamp");
    }
    json_t *proof = json_object_get(e, "inclusionProof");
    if (proof != NULL) {
        MERO_TRY(parse_proof(b, proof, err));
    }
    if (b->form == SIG_V01 && b->set == NULL) {
        return bad(err, "v0.1 bundle without inclusionPromise");
    }
    if (mero__sig_rekor_v2(b->kind) && (b->set != NULL || b->has_integrated_time)) {
        return bad(err, "a Rekor v2 entry carries no inclusionPromise or integratedTime");
    }
    if (b->form >= SIG_V02 && !b->has_proof) {
        return bad(err, "v0.2+ bundle without inclusionProof");
    }
    return 0;
}

static int parse_message(struct sig_bundle *b, json_t *ms, struct mero_err *err)
{
    if (mero__json_b64(ms, "signature", SIG_MAX_SIG, &b->sig, &b->sig_len) < 0) {
        return bad(err, "messageSignature.signature");
    }
    json_t *md = json_object_get(ms, "messageDigest");
    if (md != NULL) {
        const char *alg = mero__json_str(md, "algorithm");
        uint8_t *d = NULL;
        size_t n = 0;
        size_t want = 0;
        /* the algorithm the signature was made over; SHA-1, SHA-3 and unknown names refused */
        for (size_t i = MERO_SHA256_LEN; i <= MERO_SHA512_LEN && alg != NULL; i += 16) {
            want = strcmp(alg, mero__sig_hash_name(i)) == 0 ? i : want;
        }
        if (want == 0) {
            return mero_err_set(err, MERO_EUNSUPPORTED,
                                "bundle: messageDigest.algorithm %.32s is not SHA2_256, SHA2_384 "
                                "or SHA2_512",
                                alg != NULL ? alg : "(missing)");
        }
        if (mero__json_b64(md, "digest", MERO_SHA512_LEN, &d, &n) < 0 || n != want) {
            free(d);
            return mero_err_set(err, MERO_ESIGSTORE,
                                "bundle: messageDigest.digest is not a %zu-byte %s digest", want,
                                alg);
        }
        memcpy(b->digest, d, want);
        b->digest_len = want;
        free(d);
        b->has_digest = 1;
    }
    return 0;
}

static int dup_str(char **out, const char *s, size_t max)
{
    if (s == NULL || strlen(s) == 0 || strlen(s) > max) {
        return -MERO_EINVAL;
    }
    *out = strdup(s);
    return *out ? 0 : -MERO_ENOMEM;
}

/*
 * A DSSE envelope: payload, payloadType and exactly one signature; with a dsse 0.0.2 entry
 * up to SIG_MAX_DSSE_SIGS, kept in env_sigs (b->sig stays NULL until the signer's is picked).
 */
static int parse_dsse(struct sig_bundle *b, json_t *env, struct mero_err *err)
{
    json_t *sigs = json_object_get(env, "signatures");
    size_t n = json_array_size(sigs);
    b->is_dsse = 1;
    if (!json_is_array(sigs) || n == 0 || (n > 1 && b->kind != SIG_DSSE_2)) {
        return bad(err, "dsseEnvelope needs exactly one signature");
    }
    if (n > SIG_MAX_DSSE_SIGS) {
        return bad(err, "dsseEnvelope has too many signatures");
    }
    if (dup_str(&b->payload_type, mero__json_str(env, "payloadType"), 256) < 0 ||
        mero__json_b64(env, "payload", SIG_MAX_PAYLOAD, &b->payload, &b->payload_len) < 0) {
        return bad(err, "dsseEnvelope payload / payloadType");
    }
    if (n == 1) {
        if (mero__json_b64(json_array_get(sigs, 0), "sig", SIG_MAX_SIG, &b->sig, &b->sig_len) < 0) {
            return bad(err, "dsseEnvelope signature");
        }
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (mero__json_b64(json_array_get(sigs, i), "sig", SIG_MAX_SIG, &b->env_sigs[i],
                           &b->env_sig_lens[i]) < 0) {
            return bad(err, "dsseEnvelope signature");
        }
        b->nenv_sigs++;
    }
    return 0;
}

static int parse_timestamps(struct sig_bundle *b, json_t *vm, struct mero_err *err)
{
    json_t *tvd = json_object_get(vm, "timestampVerificationData");
    if (tvd == NULL) {
        return 0;
    }
    json_t *arr = json_object_get(tvd, "rfc3161Timestamps");
    if (!json_is_object(tvd) || (arr != NULL && !json_is_array(arr)) ||
        json_array_size(arr) > SIG_MAX_TIMESTAMPS) {
        return bad(err, "timestampVerificationData.rfc3161Timestamps");
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        if (mero__json_b64(json_array_get(arr, i), "signedTimestamp", SIG_MAX_TSA, &b->ts[i],
                           &b->ts_len[i]) < 0) {
            return bad(err, "rfc3161Timestamps signedTimestamp");
        }
        b->nts++;
    }
    return 0;
}

static int parse_protobuf(struct sig_bundle *b, json_t *j, struct mero_err *err)
{
    if (parse_form(mero__json_str(j, "mediaType"), &b->form) < 0) {
        return mero_err_set(err, MERO_ESIGSTORE_MEDIATYPE, "bundle: unknown mediaType");
    }
    json_t *vm = json_object_get(j, "verificationMaterial");
    json_t *ms = json_object_get(j, "messageSignature");
    json_t *env = json_object_get(j, "dsseEnvelope");
    if (!json_is_object(vm) || (ms != NULL) == (env != NULL) || !json_is_object(ms ? ms : env)) {
        return bad(err, "verificationMaterial and one of messageSignature / dsseEnvelope needed");
    }
    MERO_TRY(parse_material(b, vm, err));
    MERO_TRY(parse_tlog(b, vm, err));
    MERO_TRY(parse_timestamps(b, vm, err));
    if (env != NULL) {
        if (b->kind == SIG_HASHEDREKORD_1) {
            return mero_err_set(err, MERO_EUNSUPPORTED,
                                "bundle: a DSSE envelope logged as hashedrekord 0.0.1");
        }
        return parse_dsse(b, env, err);
    }
    if (b->kind == SIG_DSSE_1 || b->kind == SIG_DSSE_2 || b->kind == SIG_INTOTO_2) {
        return bad(err, "a dsse / intoto entry needs a dsseEnvelope");
    }
    return parse_message(b, ms, err);
}

static int parse_legacy(struct sig_bundle *b, json_t *j, struct mero_err *err)
{
    b->form = SIG_LEGACY;
    uint8_t *pem = NULL, *id = NULL;
    size_t n = 0;
    json_t *rb = json_object_get(j, "rekorBundle");
    json_t *pl = json_object_get(rb, "Payload");
    if (mero__json_b64(j, "base64Signature", SIG_MAX_SIG, &b->sig, &b->sig_len) < 0) {
        return bad(err, "base64Signature");
    }
    if (mero__json_b64(j, "cert", SIG_MAX_CERT * 2, &pem, &n) < 0) {
        return bad(err, "cert");
    }
    int rc = mero__sig_pem_cert(pem, n, &b->leaf, &b->leaf_der, &b->leaf_der_len);
    free(pem);
    if (rc < 0) {
        return bad(err, "cert is not one PEM certificate");
    }
    b->chain_has_root = is_self_signed(b->leaf);
    if (!json_is_object(pl) ||
        mero__json_b64(rb, "SignedEntryTimestamp", SIG_MAX_SIG, &b->set, &b->set_len) < 0 ||
        mero__json_b64(pl, "body", SIG_MAX_BODY, &b->body, &b->body_len) < 0) {
        return bad(err, "rekorBundle SignedEntryTimestamp / Payload.body");
    }
    json_t *it = json_object_get(pl, "integratedTime"), *li = json_object_get(pl, "logIndex");
    if (!json_is_integer(it) || !json_is_integer(li) || json_integer_value(it) < 0 ||
        json_integer_value(li) < 0) {
        return bad(err, "rekorBundle integratedTime / logIndex");
    }
    b->integrated_time = (int64_t)json_integer_value(it);
    b->log_index = (uint64_t)json_integer_value(li);
    const char *hex = mero__json_str(pl, "logID");
    if (hex == NULL || mero_hex_decode_exact(b->log_id, MERO_SHA256_LEN, hex, strlen(hex)) < 0) {
        free(id);
        return bad(err, "rekorBundle logID");
    }
    return 0;
}

int mero__sig_bundle_parse(struct sig_bundle *b, const uint8_t *data, size_t len,
                           struct mero_err *err)
{
    memset(b, 0, sizeof(*b));
    json_t *j = mero__json_load(data, len, MERO_SIGSTORE_MAX_BUNDLE, err);
    if (j == NULL) {
        return -MERO_ESIGSTORE;
    }
    int rc;
    if (json_object_get(j, "mediaType") != NULL) {
        rc = parse_protobuf(b, j, err);
    } else if (json_object_get(j, "rekorBundle") != NULL) {
        rc = parse_legacy(b, j, err);
    } else {
        rc = mero_err_set(err, MERO_ESIGSTORE_MEDIATYPE,
                          "bundle: neither a Sigstore bundle "
                          "(mediaType) nor a cosign bundle");
    }
    json_decref(j);
    if (rc < 0) {
        mero__sig_bundle_cleanup(b);
    }
    return rc;
}

void mero__sig_body_cleanup(struct sig_body *b)
{
    for (size_t i = 0; i < SIG_MAX_DSSE_SIGS; i++) {
        free(b->sigs[i].sig);
        free(b->sigs[i].cert_der);
        free(b->sigs[i].key_der);
    }
    memset(b, 0, sizeof(*b));
}

static int same(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return a != NULL && b != NULL && alen == blen && memcmp(a, b, alen) == 0;
}

int mero__sig_body_find(const struct sig_body *b, const uint8_t *cert_der, size_t cert_len,
                        const uint8_t *key_der, size_t key_len, const uint8_t *sig, size_t sig_len)
{
    int named = 0;
    for (size_t i = 0; i < b->nsigs; i++) {
        const struct sig_body_sig *s = &b->sigs[i];
        if (cert_der != NULL ? !same(s->cert_der, s->cert_der_len, cert_der, cert_len)
                             : !same(s->key_der, s->key_der_len, key_der, key_len)) {
            continue;
        }
        named = 1;
        if (sig == NULL || same(s->sig, s->sig_len, sig, sig_len)) {
            return (int)i;
        }
    }
    return named ? SIG_BODY_OTHER_SIG : SIG_BODY_NOT_NAMED;
}

/* base64 text holding a PEM certificate or a PEM public key */
static int body_verifier(struct sig_body_sig *out, json_t *obj, const char *key)
{
    uint8_t *pem = NULL;
    size_t n = 0;
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    if (mero__json_b64(obj, key, SIG_MAX_CERT * 2, &pem, &n) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    int rc = -MERO_ESIGSTORE_BODY;
    if (mero__sig_pem_cert(pem, n, &x, &out->cert_der, &out->cert_der_len) == 0) {
        rc = 0;
    } else if (mero__sig_pem_pubkey(pem, n, &k) == 0 &&
               mero__sig_pubkey_der(k, &out->key_der, &out->key_der_len) == 0) {
        rc = 0;
    }
    X509_free(x);
    EVP_PKEY_free(k);
    free(pem);
    return rc;
}

static int hex_hash(struct sig_body *out, json_t *h)
{
    const char *alg = mero__json_str(h, "algorithm"), *val = mero__json_str(h, "value");
    size_t n = 0;
    if (alg == NULL || val == NULL) {
        return -MERO_ESIGSTORE_BODY;
    }
    if (strcmp(alg, "sha256") == 0) {
        n = MERO_SHA256_LEN;
    } else if (strcmp(alg, "sha384") == 0) {
        n = MERO_SHA384_LEN;
    } else if (strcmp(alg, "sha512") == 0) {
        n = MERO_SHA512_LEN;
    } else {
        return -MERO_ESIGSTORE_BODY;
    }
    if (mero_hex_decode_exact(out->hash, n, val, strlen(val)) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    out->hash_len = n;
    return 0;
}

static int body_hashedrekord_1(struct sig_body *out, json_t *spec)
{
    json_t *sig = json_object_get(spec, "signature");
    struct sig_body_sig *s = &out->sigs[0];
    out->nsigs = 1;
    if (hex_hash(out, json_object_get(json_object_get(spec, "data"), "hash")) < 0 ||
        mero__json_b64(sig, "content", SIG_MAX_SIG, &s->sig, &s->sig_len) < 0 ||
        body_verifier(s, json_object_get(sig, "publicKey"), "content") < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    return 0;
}

/* A Rekor v2 HashOutput: {"algorithm": "SHA2_256|384|512", "digest": base64}. */
static int b64_hash(struct sig_body *out, json_t *h)
{
    const char *alg = mero__json_str(h, "algorithm");
    uint8_t *d = NULL;
    size_t n = 0, want = 0;
    if (alg != NULL && strcmp(alg, "SHA2_256") == 0) {
        want = MERO_SHA256_LEN;
    } else if (alg != NULL && strcmp(alg, "SHA2_384") == 0) {
        want = MERO_SHA384_LEN;
    } else if (alg != NULL && strcmp(alg, "SHA2_512") == 0) {
        want = MERO_SHA512_LEN;
    }
    if (want == 0 || mero__json_b64(h, "digest", MERO_SHA512_LEN, &d, &n) < 0 || n != want) {
        free(d);
        return -MERO_ESIGSTORE_BODY;
    }
    memcpy(out->hash, d, n);
    out->hash_len = n;
    free(d);
    return 0;
}

/* A Rekor v2 Signature: {"content": base64, "verifier": {x509Certificate | publicKey}}. */
static int v2_signature(struct sig_body_sig *out, json_t *sig)
{
    json_t *ver = json_object_get(sig, "verifier");
    size_t n = 0;
    if (mero__json_b64(sig, "content", SIG_MAX_SIG, &out->sig, &out->sig_len) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    json_t *xc = json_object_get(ver, "x509Certificate"), *pk = json_object_get(ver, "publicKey");
    if ((xc != NULL) == (pk != NULL)) {
        return -MERO_ESIGSTORE_BODY;
    }
    uint8_t *der = NULL;
    if (mero__json_b64(xc ? xc : pk, "rawBytes", SIG_MAX_CERT, &der, &n) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    if (xc != NULL) {
        X509 *x = NULL;
        if (mero__sig_der_cert(der, n, &x) < 0) {
            free(der);
            return -MERO_ESIGSTORE_BODY;
        }
        X509_free(x);
        out->cert_der = der;
        out->cert_der_len = n;
    } else {
        out->key_der = der;
        out->key_der_len = n;
    }
    return 0;
}

static int body_hashedrekord_2(struct sig_body *out, json_t *spec)
{
    json_t *v2 = json_object_get(spec, "hashedRekordV002");
    out->nsigs = 1;
    if (b64_hash(out, json_object_get(v2, "data")) < 0 ||
        v2_signature(&out->sigs[0], json_object_get(v2, "signature")) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    return 0;
}

/*
 * dsse 0.0.2 (Rekor v2): {"dsseV002": {"payloadHash": HashOutput (SHA-256 of the payload),
 * "signatures": [Signature...]}}, 1..SIG_MAX_DSSE_SIGS signatures, each with its verifier.
 */
static int body_dsse_2(struct sig_body *out, json_t *spec)
{
    json_t *v2 = json_object_get(spec, "dsseV002");
    json_t *sigs = json_object_get(v2, "signatures");
    size_t n = json_array_size(sigs);
    if (b64_hash(out, json_object_get(v2, "payloadHash")) < 0 || out->hash_len != MERO_SHA256_LEN ||
        !json_is_array(sigs) || n == 0 || n > SIG_MAX_DSSE_SIGS) {
        return -MERO_ESIGSTORE_BODY;
    }
    for (size_t i = 0; i < n; i++) {
        out->nsigs = i + 1; /* cleanup frees what this one got, whatever happens */
        if (v2_signature(&out->sigs[i], json_array_get(sigs, i)) < 0) {
            return -MERO_ESIGSTORE_BODY;
        }
    }
    return 0;
}

/* dsse 0.0.1: payloadHash and exactly one {signature, verifier}. */
static int body_dsse_1(struct sig_body *out, json_t *spec)
{
    json_t *sigs = json_object_get(spec, "signatures");
    if (hex_hash(out, json_object_get(spec, "payloadHash")) < 0 ||
        out->hash_len != MERO_SHA256_LEN || !json_is_array(sigs) || json_array_size(sigs) != 1) {
        return -MERO_ESIGSTORE_BODY;
    }
    json_t *s0 = json_array_get(sigs, 0);
    struct sig_body_sig *s = &out->sigs[0];
    out->nsigs = 1;
    if (mero__json_b64(s0, "signature", SIG_MAX_SIG, &s->sig, &s->sig_len) < 0 ||
        body_verifier(s, s0, "verifier") < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    return 0;
}

/* intoto 0.0.2: payloadHash and the envelope's one signature, itself base64 of base64. */
static int body_intoto_2(struct sig_body *out, json_t *spec)
{
    json_t *content = json_object_get(spec, "content");
    json_t *sigs = json_object_get(json_object_get(content, "envelope"), "signatures");
    if (hex_hash(out, json_object_get(content, "payloadHash")) < 0 ||
        out->hash_len != MERO_SHA256_LEN || !json_is_array(sigs) || json_array_size(sigs) != 1) {
        return -MERO_ESIGSTORE_BODY;
    }
    json_t *s0 = json_array_get(sigs, 0);
    uint8_t *inner = NULL;
    size_t n = 0;
    if (mero__json_b64(s0, "sig", SIG_MAX_SIG * 2, &inner, &n) < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    struct sig_body_sig *s = &out->sigs[0];
    out->nsigs = 1;
    int rc = mero_base64_decode_alloc((const char *)inner, n, SIG_MAX_SIG, &s->sig, &s->sig_len);
    free(inner);
    if (rc < 0 || body_verifier(s, s0, "publicKey") < 0) {
        return -MERO_ESIGSTORE_BODY;
    }
    return 0;
}

int mero__sig_body_parse(struct sig_body *out, const uint8_t *body, size_t len,
                         struct mero_err *err)
{
    memset(out, 0, sizeof(*out));
    json_t *j = mero__json_load(body, len, SIG_MAX_BODY, err);
    if (j == NULL) {
        return mero_err_set(err, MERO_ESIGSTORE_BODY, "logged body is not JSON");
    }
    int rc;
    json_t *spec = json_object_get(j, "spec");
    const char *av = mero__json_str(j, "apiVersion"), *kind = mero__json_str(j, "kind");
    MERO_ENSURE_OUT(av != NULL && kind != NULL && json_is_object(spec), err, MERO_ESIGSTORE_BODY,
                    "logged body has no apiVersion / kind / spec");
    int r = 0;
    bool known = true;
    if (strcmp(kind, "hashedrekord") == 0 && strcmp(av, "0.0.1") == 0) {
        out->kind = SIG_HASHEDREKORD_1;
        r = body_hashedrekord_1(out, spec);
    } else if (strcmp(kind, "hashedrekord") == 0 && strcmp(av, "0.0.2") == 0) {
        out->kind = SIG_HASHEDREKORD_2;
        r = body_hashedrekord_2(out, spec);
    } else if (strcmp(kind, "dsse") == 0 && strcmp(av, "0.0.1") == 0) {
        out->kind = SIG_DSSE_1;
        r = body_dsse_1(out, spec);
    } else if (strcmp(kind, "intoto") == 0 && strcmp(av, "0.0.2") == 0) {
        out->kind = SIG_INTOTO_2;
        r = body_intoto_2(out, spec);
    } else if (strcmp(kind, "dsse") == 0 && strcmp(av, "0.0.2") == 0) {
        out->kind = SIG_DSSE_2;
        r = body_dsse_2(out, spec);
    } else {
        known = false;
    }
    MERO_ENSURE_OUT(known, err, MERO_ESIGSTORE_BODY, "logged body is of an unsupported kind");
    MERO_ENSURE_OUT(r >= 0, err, MERO_ESIGSTORE_BODY,
                    "logged body hash, signature or verifier malformed");
    rc = 0;
out:
    json_decref(j);
    if (rc < 0) {
        mero__sig_body_cleanup(out);
    }
    return rc;
}
