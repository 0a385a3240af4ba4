/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore.c - verify a keyless blob signature from a Sigstore or cosign bundle, in the order
 * of docs/sigstore.md: parse; detached .sig equals the bundle's; log known to the trusted
 * root; SET (which authenticates the integrated time); inclusion proof and checkpoint when
 * present; artifact digest hint; logged key is this certificate; logged digest is this
 * artifact's; ECDSA signature over the artifact; logged signature is this signature; Fulcio
 * chain at the integrated time; SCT; identity policy.
 *
 * Invariants: a step runs only when every earlier step passed; the integrated time is read
 * only after the SET verified; the result is written only on success; each refusal returns
 * its own reason class so callers and tests can tell them apart.
 */
#include <ctype.h>
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

static int check_body(const struct sig_bundle *b, const uint8_t digest[32], const uint8_t *artifact,
                      size_t alen, struct mero_err *err)
{
    struct sig_body body;
    MERO_TRY(mero__sig_body_parse(&body, b->body, b->body_len, err));
    int rc = 0;
    EVP_PKEY *key = X509_get0_pubkey(b->leaf);
    if (body.cert_der_len != b->leaf_der_len ||
        memcmp(body.cert_der, b->leaf_der, b->leaf_der_len) != 0) {
        rc = mero_err_set(err, MERO_ESIGSTORE_BODY,
                          "the logged entry names another certificate than the bundle's");
    } else if (!mero_ct_eq(body.hash, digest, 32)) {
        rc = mero_err_set(err, MERO_ESIGSTORE_DIGEST,
                          "the artifact's SHA-256 is not the one Rekor logged");
    } else if (mero__sig_verify_sha256(key, artifact, alen, b->sig, b->sig_len) < 0) {
        rc = mero_err_set(err, MERO_EBADSIG,
                          "the bundle's signature does not verify over the artifact");
    } else if (body.sig_len != b->sig_len || memcmp(body.sig, b->sig, b->sig_len) != 0) {
        rc = mero_err_set(err, MERO_ESIGSTORE_BODY,
                          "the logged entry holds another signature than the bundle's");
    }
    mero__sig_body_cleanup(&body);
    return rc;
}

int mero_sigstore_verify(const struct mero_trust_root *tr, const uint8_t *artifact,
                         size_t artifact_len, const uint8_t *bundle, size_t bundle_len,
                         const struct mero_sigstore_identity *id,
                         const struct mero_sigstore_opts *opts, struct mero_sigstore_result *res,
                         struct mero_err *err)
{
    if (tr == NULL || (artifact == NULL && artifact_len > 0) || bundle == NULL) {
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
    X509 *issuer = NULL;
    if (b.chain_has_root) {
        rc = mero_err_set(err, MERO_ECHAIN, "a root certificate travels inside the bundle");
        goto out;
    }
    if (opts != NULL && opts->detached_sig != NULL) {
        rc = check_detached(&b, opts->detached_sig, opts->detached_sig_len, err);
        if (rc < 0) {
            goto out;
        }
    }
    const struct sig_log *log = mero__trust_root_tlog(tr, b.log_id);
    if (log == NULL) {
        rc = mero_err_set(err, MERO_ESIGSTORE_LOG,
                          "the entry's transparency log is not in the trusted root");
        goto out;
    }
    if ((rc = mero__sig_verify_set(log, &b, err)) < 0 ||
        (rc = mero__sig_verify_proof(&b, err)) < 0 ||
        (rc = mero__sig_verify_checkpoint(log, &b, err)) < 0) {
        goto out;
    }
    if (opts != NULL && opts->now != 0 && (uint64_t)b.integrated_time > opts->now + 300) {
        rc = mero_err_set(err, MERO_EEXPIRED, "integrated time lies in the future");
        goto out;
    }
    mero_sha256(r.artifact_sha256, artifact, artifact_len);
    if (b.has_digest && !mero_ct_eq(b.digest, r.artifact_sha256, 32)) {
        rc = mero_err_set(err, MERO_ESIGSTORE_DIGEST,
                          "the artifact's SHA-256 is not the bundle's message digest");
        goto out;
    }
    if ((rc = check_body(&b, r.artifact_sha256, artifact, artifact_len, err)) < 0 ||
        (rc = mero__sig_verify_chain(tr, b.leaf, b.integrated_time, &issuer, err)) < 0 ||
        (rc = mero__sig_verify_sct(tr, b.leaf, issuer, b.integrated_time, err)) < 0 ||
        (rc = mero__sig_read_identity(b.leaf, &r, err)) < 0) {
        goto out;
    }
    r.integrated_time = b.integrated_time;
    r.log_index = b.log_index;
    if (id != NULL && (rc = mero_sigstore_check_identity(&r, id, err)) < 0) {
        goto out;
    }
    if (res != NULL) {
        *res = r;
    }
out:
    X509_free(issuer);
    mero__sig_bundle_cleanup(&b);
    ERR_clear_error(); /* failed parses leave OpenSSL's thread-local queue dirty */
    return rc;
}
