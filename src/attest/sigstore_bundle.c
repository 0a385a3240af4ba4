/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_bundle.c - parse a Sigstore bundle into struct sig_bundle: the protobuf-JSON forms
 * (media types of reference-sigstore-ccel.md §A.1) and cosign's legacy bundle (§A.2), plus the
 * logged hashedrekord 0.0.1 body (§A.3).
 *
 * Invariants: parsing decides nothing about trust; it only refuses what is not one of the
 * accepted shapes: an unknown media type, a DSSE envelope or a public-key (non-keyless)
 * bundle, zero or several tlog entries, a kind other than hashedrekord 0.0.1, a v0.1 bundle
 * without its inclusion promise, a >= v0.2 bundle without its inclusion proof, a v0.3 bundle
 * carrying a chain. Every decoded field is bounded.
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
    return -1;
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
    if (json_object_get(vm, "publicKey") != NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "bundle: public-key bundles are not keyless");
    }
    if ((cert != NULL) == (chain != NULL)) {
        return bad(err, "needs exactly one of certificate, x509CertificateChain");
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
        mero__json_b64(p, "rootHash", 32, &root, &n) < 0 || n != 32) {
        free(root);
        return bad(err, "inclusionProof fields");
    }
    memcpy(b->root_hash, root, 32);
    free(root);
    if (hashes != NULL &&
        (!json_is_array(hashes) || json_array_size(hashes) > SIG_MAX_PROOF_HASHES)) {
        return bad(err, "inclusionProof.hashes");
    }
    b->nhashes = hashes ? json_array_size(hashes) : 0;
    b->hashes = calloc(b->nhashes ? b->nhashes : 1, 32);
    if (b->hashes == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < b->nhashes; i++) {
        json_t *h = json_array_get(hashes, i);
        uint8_t *d = NULL;
        if (!json_is_string(h) ||
            mero_base64_decode_alloc(json_string_value(h), json_string_length(h), 32, &d, &n) < 0 ||
            n != 32) {
            free(d);
            return bad(err, "inclusionProof hash");
        }
        memcpy(b->hashes[i], d, 32);
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
    if (kind == NULL || ver == NULL || strcmp(kind, "hashedrekord") != 0 ||
        strcmp(ver, "0.0.1") != 0) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "bundle: entry is not hashedrekord 0.0.1");
    }
    uint8_t *id = NULL;
    size_t n = 0;
    uint64_t it = 0;
    if (mero__json_b64(json_object_get(e, "logId"), "keyId", 32, &id, &n) < 0 || n != 32) {
        free(id);
        return bad(err, "logId.keyId");
    }
    memcpy(b->log_id, id, 32);
    free(id);
    if (mero__json_u64(e, "logIndex", &b->log_index) < 0 ||
        mero__json_u64(e, "integratedTime", &it) < 0) {
        return bad(err, "logIndex / integratedTime");
    }
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
        if (alg == NULL || strcmp(alg, "SHA2_256") != 0) {
            return mero_err_set(err, MERO_EUNSUPPORTED, "bundle: digest algorithm not SHA2_256");
        }
        if (mero__json_b64(md, "digest", 32, &d, &n) < 0 || n != 32) {
            free(d);
            return bad(err, "messageDigest.digest");
        }
        memcpy(b->digest, d, 32);
        free(d);
        b->has_digest = 1;
    }
    return 0;
}

static int parse_protobuf(struct sig_bundle *b, json_t *j, struct mero_err *err)
{
    if (parse_form(mero__json_str(j, "mediaType"), &b->form) < 0) {
        return mero_err_set(err, MERO_ESIGSTORE_MEDIATYPE, "bundle: unknown mediaType");
    }
    if (json_object_get(j, "dsseEnvelope") != NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "bundle: DSSE envelopes are not blob signatures");
    }
    json_t *vm = json_object_get(j, "verificationMaterial");
    json_t *ms = json_object_get(j, "messageSignature");
    if (!json_is_object(vm) || !json_is_object(ms)) {
        return bad(err, "verificationMaterial / messageSignature missing");
    }
    MERO_TRY(parse_material(b, vm, err));
    MERO_TRY(parse_tlog(b, vm, err));
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
    if (hex == NULL || mero_hex_decode_exact(b->log_id, 32, hex, strlen(hex)) < 0) {
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
    free(b->sig);
    free(b->cert_der);
    memset(b, 0, sizeof(*b));
}

int mero__sig_body_parse(struct sig_body *out, const uint8_t *body, size_t len,
                         struct mero_err *err)
{
    memset(out, 0, sizeof(*out));
    json_t *j = mero__json_load(body, len, SIG_MAX_BODY, err);
    if (j == NULL) {
        return mero_err_set(err, MERO_ESIGSTORE_BODY, "logged body is not JSON");
    }
    int rc = -MERO_ESIGSTORE_BODY;
    json_t *spec = json_object_get(j, "spec");
    json_t *hash = json_object_get(json_object_get(spec, "data"), "hash");
    json_t *sig = json_object_get(spec, "signature");
    const char *av = mero__json_str(j, "apiVersion"), *kind = mero__json_str(j, "kind");
    const char *alg = mero__json_str(hash, "algorithm"), *val = mero__json_str(hash, "value");
    uint8_t *pem = NULL;
    size_t n = 0;
    X509 *x = NULL;
    if (av == NULL || kind == NULL || strcmp(av, "0.0.1") != 0 ||
        strcmp(kind, "hashedrekord") != 0) {
        mero_err_set(err, MERO_ESIGSTORE_BODY, "logged body is not hashedrekord 0.0.1");
        goto out;
    }
    if (alg == NULL || val == NULL || strcmp(alg, "sha256") != 0 ||
        mero_hex_decode_exact(out->hash, 32, val, strlen(val)) < 0) {
        mero_err_set(err, MERO_ESIGSTORE_BODY, "logged body hash is not sha256");
        goto out;
    }
    if (mero__json_b64(sig, "content", SIG_MAX_SIG, &out->sig, &out->sig_len) < 0 ||
        mero__json_b64(json_object_get(sig, "publicKey"), "content", SIG_MAX_CERT * 2, &pem, &n) <
            0 ||
        mero__sig_pem_cert(pem, n, &x, &out->cert_der, &out->cert_der_len) < 0) {
        mero_err_set(err, MERO_ESIGSTORE_BODY, "logged body signature / certificate malformed");
        goto out;
    }
    rc = 0;
out:
    X509_free(x);
    free(pem);
    json_decref(j);
    if (rc < 0) {
        mero__sig_body_cleanup(out);
    }
    return rc;
}
