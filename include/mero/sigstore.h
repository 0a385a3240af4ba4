/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore.h - offline verification of a Sigstore signature (a Fulcio certificate or a managed
 * key; a message signature or a DSSE in-toto envelope; Rekor v1 entries with a SET or Rekor v2
 * entries timed by RFC 3161 timestamps) against a trusted_root.json (the shipped public-good
 * root or one the operator names), and the signer identity policy over the Fulcio
 * certificate extensions (reference-sigstore-ccel.md §A, docs/sigstore.md).
 *
 * Accepted bundle forms: the protobuf-JSON Sigstore bundle (media types
 * `application/vnd.dev.sigstore.bundle+json;version=0.1|0.2|0.3` and
 * `application/vnd.dev.sigstore.bundle.v0.3+json`) and cosign's legacy bundle
 * (`base64Signature`, `cert`, `rekorBundle`) that mero-tee publishes.
 *
 * Invariants: a verdict of 0 means every check of docs/sigstore.md passed, in that order; each
 * signing time (the Rekor integratedTime, used only after the SET verified; each RFC 3161
 * genTime, used only after the timestamp verified) must lie in the certificate's validity and
 * the log key's window; the wall clock is never used for certificate validity. The result is
 * written only on success. The trust root is immutable after loading and may be shared between
 * threads.
 *
 * Thread safety: every function here is safe from any thread; a loaded trust root is
 * immutable and may be shared by any number of verifying threads; mero_trust_root_free
 * only after its last use.
 */
#ifndef MERO_SIGSTORE_H
#define MERO_SIGSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_SIGSTORE_MAX_BUNDLE     (256u * 1024u)  /* bundle JSON */
#define MERO_SIGSTORE_MAX_TRUST_ROOT (1024u * 1024u) /* trusted_root.json */
#define MERO_SIGSTORE_MAX_ARTIFACT   (16u * 1024u * 1024u)
#define MERO_SIGSTORE_IDENT_MAX      512 /* longest identity string we report */

/* The public-good OIDC issuer for GitHub Actions. */
#define MERO_SIGSTORE_GITHUB_ISSUER "https://token.actions.githubusercontent.com"

struct mero_trust_root; /* opaque; parsed trusted_root.json */

/* Parse a trusted_root.json document. *out is owned (free with mero_trust_root_free). */
MERO_MUST_CHECK int mero_trust_root_parse(struct mero_trust_root **out, const uint8_t *json,
                                          size_t len, struct mero_err *err);
/* Read and parse the file at path. */
MERO_MUST_CHECK int mero_trust_root_load(struct mero_trust_root **out, const char *path,
                                         struct mero_err *err);
void mero_trust_root_free(struct mero_trust_root *tr);

/*
 * The trusted root that ships with the node: Sigstore's public-good trusted_root.json,
 * installed as <prefix>/share/mero/sigstore/trusted_root.json (share/sigstore/ in the source
 * tree; see share/sigstore/README.md for where it came from) and pinned by its SHA-256 here:
 * a file with another hash is refused, never parsed.
 */
#define MERO_SIGSTORE_SHIPPED_ROOT_REL "share/mero/sigstore/trusted_root.json"
#define MERO_SIGSTORE_SHIPPED_ROOT_SHA256                                                          \
    "6494e21ea73fa7ee769f85f57d5a3e6a08725eae1e38c755fc3517c9e6bc0b66"
#ifndef MERO_SIGSTORE_PREFIX
#define MERO_SIGSTORE_PREFIX "/usr/local"
#endif
/* Where the shipped root is looked for: <directory of the running binary>/../share/mero/...
 * when that file exists (the build tree and any install prefix), else MERO_SIGSTORE_PREFIX. */
MERO_MUST_CHECK int mero_trust_root_default_path(char *out, size_t cap);
/* Load the shipped root from `path` (NULL: the default path), refusing it (-MERO_EROOT) unless
 * its SHA-256 is MERO_SIGSTORE_SHIPPED_ROOT_SHA256. */
MERO_MUST_CHECK int mero_trust_root_load_shipped(struct mero_trust_root **out, const char *path,
                                                 struct mero_err *err);
/* $MERO_SIGSTORE_TRUSTED_ROOT when set and non-empty, else the shipped root. */
MERO_MUST_CHECK int mero_trust_root_load_env(struct mero_trust_root **out, struct mero_err *err);

/* Counts of a parsed root: entries and how many of them are usable (not skipped). */
struct mero_trust_root_stats {
    size_t tlogs, tlogs_usable, ctlogs, ctlogs_usable, cas, cas_usable, tsas, tsas_usable;
};
void mero_trust_root_stats(const struct mero_trust_root *tr, struct mero_trust_root_stats *st);
/* One line per entry (kind, name, log id, key type, validity window, "skipped: why"), into a
 * NUL-terminated text of at most cap bytes; returns the length or -MERO_ETOOBIG. */
MERO_MUST_CHECK int mero_trust_root_describe(const struct mero_trust_root *tr, char *out,
                                             size_t cap);

/*
 * The signer identity required. `issuer` and `san` are mandatory and compared exactly (issuer
 * from OID 1.3.6.1.4.1.57264.1.8, else the legacy 1.1; when both are present both must equal
 * it; the SAN must be a single URI). The other fields are optional (NULL = not pinned); when
 * pinned the certificate must carry them and they are compared exactly: workflow_name 1.4;
 * repository 1.5; ref 1.6, else 1.14. Certificates whose duplicate extensions disagree (1.1 vs 1.8,
 * 1.6 vs 1.14) are refused while reading them. The trigger (1.2 / 1.20) is never pinned.
 */
struct mero_sigstore_identity {
    const char *issuer;
    const char *san;
    const char *workflow_name;
    const char *repository;
    const char *ref;
};

/* mero-tee's node-release identity (testdata/mero-tee/README.md, spec "Signed-release
 * policies"): release-node-image-gcp.yaml on refs/heads/master, "Release mero-tee". */
extern const struct mero_sigstore_identity mero_sigstore_node_release_identity;

struct mero_sigstore_opts {
    /* Unix seconds; when nonzero the integrated time may not be later than now + 300 s. */
    uint64_t now;
    /* Detached .sig text (base64, surrounding whitespace ignored) or NULL. */
    const char *detached_sig;
    size_t detached_sig_len;
    /* A managed key (PEM "PUBLIC KEY") for key-based bundles (cosign verify-blob --key). When
     * set the bundle must carry verificationMaterial.publicKey and the identity policy does
     * not apply (pass id NULL); when NULL a key-based bundle is refused. */
    const char *public_key_pem;
    size_t public_key_pem_len;
    /* The artifact known only by its SHA-256 (the conformance suite's "sha256:<hex>" form):
     * pass artifact NULL and length 0. A message signature is then checked over the digest,
     * which only P-256 and RSA keys allow (Ed25519 and P-384 sign the artifact itself). */
    const uint8_t *artifact_sha256;
};

struct mero_sigstore_result {
    /* Unix seconds: the signing time, the Rekor integratedTime once its SET verified, else
     * (Rekor v2) the earliest verified RFC 3161 genTime */
    int64_t integrated_time;
    int64_t timestamp_time; /* the first verified RFC 3161 genTime, 0 when none */
    int keyed;              /* 1: verified with the managed key (no certificate identity) */
    int dsse;               /* 1: a DSSE in-toto statement naming the artifact as subject */
    uint64_t log_index;     /* global Rekor index */
    uint8_t artifact_sha256[MERO_SHA256_LEN];
    char san[MERO_SIGSTORE_IDENT_MAX]; /* the certificate's single SAN */
    int san_is_uri;                    /* 1: URI SAN, 0: e-mail SAN */
    char issuer[MERO_SIGSTORE_IDENT_MAX];
    char workflow_name[MERO_SIGSTORE_IDENT_MAX]; /* "" when absent */
    char repository[MERO_SIGSTORE_IDENT_MAX];
    char ref[MERO_SIGSTORE_IDENT_MAX];
    char trigger[MERO_SIGSTORE_IDENT_MAX]; /* reported, never pinned */
};

/*
 * Verify `bundle` (either form) as a signature over `artifact` under the trust root and the
 * identity. Returns 0 and fills *res (optional) when verified. On refusal returns the reason
 * class (-MERO_ESIGSTORE_*, -MERO_ECHAIN, -MERO_EROOT, -MERO_EEXPIRED, -MERO_EBADSIG,
 * -MERO_EIDENTITY, ...) and explains it in err. `id` NULL skips the identity policy (only the
 * cryptographic checks; used by `meroctl release verify` to report who signed).
 * Pure computation, no I/O; safe to call from any thread.
 */
MERO_MUST_CHECK int mero_sigstore_verify(const struct mero_trust_root *tr, const uint8_t *artifact,
                                         size_t artifact_len, const uint8_t *bundle,
                                         size_t bundle_len, const struct mero_sigstore_identity *id,
                                         const struct mero_sigstore_opts *opts,
                                         struct mero_sigstore_result *res, struct mero_err *err);

/* Apply the identity policy to an already verified result (exact comparisons, as above).
 * Exposed so the CLI can report the identity before judging it. */
MERO_MUST_CHECK int mero_sigstore_check_identity(const struct mero_sigstore_result *res,
                                                 const struct mero_sigstore_identity *id,
                                                 struct mero_err *err);

#endif
