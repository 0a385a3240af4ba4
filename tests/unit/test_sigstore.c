/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sigstore.c - every case of ../shared/testdata/sigstore and ../shared/testdata/mero-tee
 * gives its expected verdict, each refusal with its own reason class; the real v2.3.87 release
 * verifies under the node-release identity and under no other; bundles mutated field by field
 * are refused; the trusted root and time parser refuse malformed input.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/sigstore_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sigstore.h"

#define NOW_2026_12_01 1796083200u
#define BEACON_SAN                                                                                 \
    "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/"      \
    "workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main"
#define TR_PATH "testdata/sigstore/trusted-root-public-good/trusted_root.json"

static const struct mero_sigstore_identity beacon = {
    .issuer = MERO_SIGSTORE_GITHUB_ISSUER,
    .san = BEACON_SAN,
};

static struct mero_trust_root *root(void)
{
    static struct mero_trust_root *tr;
    if (tr == NULL) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", mero_test_shared(), TR_PATH);
        struct mero_err e = {0};
        if (mero_trust_root_load(&tr, path, &e) < 0) {
            fprintf(stderr, "trusted root: %s\n", e.msg);
            return NULL;
        }
    }
    return tr;
}

struct blob {
    uint8_t *p;
    size_t n;
};

static struct blob rd(const char *rel)
{
    struct blob b = {0};
    b.p = mero_test_read(rel, 1, &b.n);
    return b;
}

/* 1: hand the verifier SHA-256(artifact) instead of the artifact ("sha256:<hex>"). */
static int by_digest;

/* Verify a case directory (artifact + bundle.sigstore.json) under an identity. */
static int run_case(const char *dir, const struct mero_sigstore_identity *id,
                    struct mero_sigstore_result *res, struct mero_err *e)
{
    char a[512], bpath[512];
    snprintf(a, sizeof(a), "testdata/sigstore/%s/artifact", dir);
    snprintf(bpath, sizeof(bpath), "testdata/sigstore/%s/bundle.sigstore.json", dir);
    struct blob art = rd(a), bun = rd(bpath);
    if (art.p == NULL || bun.p == NULL || root() == NULL) {
        free(art.p);
        free(bun.p);
        return -1000;
    }
    struct mero_sigstore_opts o = {.now = NOW_2026_12_01};
    uint8_t d[32];
    mero_sha256(d, art.p, art.n);
    if (by_digest) {
        o.artifact_sha256 = d;
    }
    int rc = mero_sigstore_verify(root(), by_digest ? NULL : art.p, by_digest ? 0 : art.n, bun.p,
                                  bun.n, id, &o, res, e);
    free(art.p);
    free(bun.p);
    return rc;
}

static int run_mero(const char *dir, const char *file, int with_sig,
                    const struct mero_sigstore_identity *id, struct mero_sigstore_result *res,
                    struct mero_err *e)
{
    char a[512], bpath[512], spath[512];
    snprintf(a, sizeof(a), "testdata/mero-tee/%s/%s", dir, file);
    snprintf(bpath, sizeof(bpath), "testdata/mero-tee/%s/%s.bundle.json", dir, file);
    snprintf(spath, sizeof(spath), "testdata/mero-tee/%s/%s.sig", dir, file);
    struct blob art = rd(a), bun = rd(bpath), sig = {0};
    if (with_sig) {
        sig = rd(spath);
    }
    if (art.p == NULL || bun.p == NULL || root() == NULL || (with_sig && sig.p == NULL)) {
        free(art.p);
        free(bun.p);
        free(sig.p);
        return -1000;
    }
    struct mero_sigstore_opts o = {
        .now = NOW_2026_12_01, .detached_sig = (const char *)sig.p, .detached_sig_len = sig.n};
    int rc = mero_sigstore_verify(root(), art.p, art.n, bun.p, bun.n, id, &o, res, e);
    free(art.p);
    free(bun.p);
    free(sig.p);
    return rc;
}

static struct {
    const char *dir;
    int want; /* 0 or -MERO_E... */
    const char *why;
} cases[] = {
    {"conformance-happy-path-v0.1", 0, NULL},
    {"conformance-happy-path-v0.2", 0, NULL},
    {"conformance-happy-path-v0.3", 0, NULL},
    {"conformance-happy-path-v0.3-new-mediaType", 0, NULL},
    {"conformance-set-invalid-signature_fail", -MERO_ESIGSTORE_SET, "signed entry timestamp"},
    {"conformance-signature-mismatch_fail", -MERO_EBADSIG, "over the artifact"},
    {"conformance-wrong-material_fail", -MERO_ESIGSTORE_DIGEST, "message digest"},
    {"conformance-invalid-inclusion-proof_fail", -MERO_ESIGSTORE_PROOF, "root hash"},
    {"conformance-checkpoint-wrong-roothash_fail", -MERO_ESIGSTORE_CHECKPOINT,
     "differ from the inclusion proof"},
    {"conformance-invalid-checkpoint-signature_fail", -MERO_ESIGSTORE_CHECKPOINT,
     "does not verify"},
    {"conformance-bundle-from-wrong-instance_fail", -MERO_ESIGSTORE_LOG, "not in the trusted"},
    {"conformance-wrong-hashedrekord-entry_fail", -MERO_ESIGSTORE_BODY, "another certificate"},
};

TEST(conformance_cases)
{
    CHECK(root() != NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mero_err e = {0};
        struct mero_sigstore_result r;
        int rc = run_case(cases[i].dir, &beacon, &r, &e);
        CHECK_MSG(rc == cases[i].want, "%s: want %s got %s (%s)", cases[i].dir,
                  mero_strerror(cases[i].want), mero_strerror(rc), e.msg);
        if (cases[i].why != NULL) {
            CHECK_MSG(strstr(e.msg, cases[i].why) != NULL, "%s: reason \"%s\"", cases[i].dir,
                      e.msg);
        } else {
            CHECK_STR_EQ(r.san, BEACON_SAN);
            CHECK_STR_EQ(r.issuer, MERO_SIGSTORE_GITHUB_ISSUER);
            CHECK(r.integrated_time > 1688000000);
        }
    }
}

/* The Rekor v2, DSSE, TSA, managed-key and trusted-root cases: each with its own trusted
 * root (when the folder has one) and managed key (key.pub), verdict and reason. */
static struct {
    const char *dir;
    int want;
    const char *why;
} cases2[] = {
    {"conformance-rekor2-happy-path", 0, NULL},
    {"conformance-rekor2-checkpoint-cosigned", 0, NULL},
    {"conformance-rekor2-checkpoint-origin-not-first", 0, NULL},
    {"conformance-rekor2-timestamp-with-embedded-cert", 0, NULL},
    {"conformance-rekor2-dsse-happy-path", 0, NULL},
    {"conformance-trust-root-tlog-validity-end-inclusive", 0, NULL},
    {"conformance-happy-path-intoto-in-dsse-v3", 0, NULL},
    {"conformance-intoto-with-custom-trust-root", 0, NULL},
    {"conformance-managed-key-happy-path", 0, NULL},
    {"conformance-rekor2-checkpoint-missing-origin_fail", -MERO_ESIGSTORE_CHECKPOINT, "checkpoint"},
    {"conformance-rekor2-checkpoint-missing-size_fail", -MERO_ESIGSTORE_CHECKPOINT, "checkpoint"},
    {"conformance-rekor2-checkpoint-no-matching-signature_fail", -MERO_ESIGSTORE_CHECKPOINT,
     "checkpoint"},
    {"conformance-rekor2-no-timestamp_fail", -MERO_ESIGSTORE_TSA, "RFC 3161"},
    {"conformance-rekor2-timestamp-outside-trust-root-tsa-validity_fail", -MERO_ESIGSTORE_TSA,
     "no timestamp authority"},
    {"conformance-rekor2-timestamp-payload-mismatch_fail", -MERO_ESIGSTORE_TSA, "imprint"},
    {"conformance-rekor2-timestamp-untrusted-tsa-with-embedded-cert_fail", -MERO_ESIGSTORE_TSA,
     "not signed by a timestamp authority"},
    {"conformance-rekor2-dsse-mismatch-envelope_fail", -MERO_ESIGSTORE_BODY, "DSSE envelope"},
    {"conformance-trust-root-tlog-missing-validity-start_fail", -MERO_ESIGSTORE_LOG,
     "8w1amZ2S5mJIQkQmPxdMuOrL/oJkvFg9MnQXmeOCXck="},
    {"conformance-dsse-invalid-sig_fail", -MERO_EBADSIG, "DSSE"},
    {"conformance-intoto-missing-inclusion-proof_fail", -MERO_ESIGSTORE, "inclusionProof"},
    {"conformance-intoto-set-outside-signing-cert-validity_fail", -MERO_EEXPIRED, "not valid"},
    {"conformance-managed-key-wrong-key_fail", -MERO_EINVAL, "managed key"},
};

static int run_case2(const char *dir, const char *artifact, struct mero_sigstore_result *res,
                     struct mero_err *e)
{
    char p[512];
    snprintf(p, sizeof(p), "testdata/sigstore/%s/artifact", dir);
    struct blob art =
        artifact ? (struct blob){(uint8_t *)strdup(artifact), strlen(artifact)} : rd(p);
    snprintf(p, sizeof(p), "testdata/sigstore/%s/bundle.sigstore.json", dir);
    struct blob bun = rd(p);
    snprintf(p, sizeof(p), "%s/testdata/sigstore/%s/key.pub", mero_test_shared(), dir);
    struct blob key = {0};
    key.p = mero_test_read(p, 0, &key.n);
    snprintf(p, sizeof(p), "%s/testdata/sigstore/%s/trusted_root.json", mero_test_shared(), dir);
    struct mero_trust_root *own = NULL;
    FILE *f = fopen(p, "rb");
    int rc = -1000;
    if (f != NULL) {
        fclose(f);
        if (mero_trust_root_load(&own, p, e) < 0) {
            goto out;
        }
    }
    if (art.p == NULL || bun.p == NULL || root() == NULL) {
        goto out;
    }
    struct mero_sigstore_opts o = {
        .now = NOW_2026_12_01, .public_key_pem = (const char *)key.p, .public_key_pem_len = key.n};
    rc = mero_sigstore_verify(own ? own : root(), art.p, art.n, bun.p, bun.n,
                              key.p ? NULL : &beacon, &o, res, e);
out:
    mero_trust_root_free(own);
    free(art.p);
    free(bun.p);
    free(key.p);
    return rc;
}

TEST(conformance_rekor2_dsse_tsa_cases)
{
    for (size_t i = 0; i < sizeof(cases2) / sizeof(cases2[0]); i++) {
        struct mero_err e = {0};
        struct mero_sigstore_result r;
        memset(&r, 0, sizeof(r));
        int rc = run_case2(cases2[i].dir, NULL, &r, &e);
        CHECK_MSG(rc == cases2[i].want, "%s: want %s got %s (%s)", cases2[i].dir,
                  mero_strerror(cases2[i].want), mero_strerror(rc), e.msg);
        if (cases2[i].why != NULL) {
            CHECK_MSG(strstr(e.msg, cases2[i].why) != NULL, "%s: reason \"%s\"", cases2[i].dir,
                      e.msg);
        } else if (rc == 0 && !r.keyed) {
            CHECK_STR_EQ(r.san, BEACON_SAN);
            CHECK(r.integrated_time > 1675000000);
        }
    }
}

/* The upstream suite runs every case twice: with the artifact and with sha256:<hex> of it. */
TEST(conformance_cases_by_digest)
{
    by_digest = 1;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mero_err e = {0};
        struct mero_sigstore_result r;
        int rc = run_case(cases[i].dir, &beacon, &r, &e);
        CHECK_MSG(rc == cases[i].want, "%s by digest: want %s got %s (%s)", cases[i].dir,
                  mero_strerror(cases[i].want), mero_strerror(rc), e.msg);
    }
    for (size_t i = 0; i < sizeof(cases2) / sizeof(cases2[0]); i++) {
        struct mero_err e = {0};
        struct mero_sigstore_result r;
        int rc = run_case2(cases2[i].dir, NULL, &r, &e);
        CHECK_MSG(rc == cases2[i].want, "%s by digest: want %s got %s (%s)", cases2[i].dir,
                  mero_strerror(cases2[i].want), mero_strerror(rc), e.msg);
    }
    by_digest = 0;
}

/* The shipped root: found next to the binaries, its pin holds, another file is refused. */
TEST(shipped_root_is_pinned)
{
    char path[1200];
    struct mero_err e = {0};
    struct mero_trust_root *tr = NULL;
    CHECK_OK(mero_trust_root_default_path(path, sizeof(path)));
    CHECK(strstr(path, "share/mero/sigstore/trusted_root.json") != NULL);
    CHECK_OK(mero_trust_root_load_shipped(&tr, NULL, &e));
    struct mero_trust_root_stats st;
    mero_trust_root_stats(tr, &st);
    CHECK_EQ(st.tlogs_usable, 2); /* Rekor v1 ECDSA and v2 Ed25519 */
    CHECK_EQ(st.tsas_usable, 1);
    CHECK_EQ(st.cas_usable, 2);
    mero_trust_root_free(tr);
    tr = NULL;
    /* the shared public-good copy is the same bytes */
    snprintf(path, sizeof(path), "%s/%s", mero_test_shared(), TR_PATH);
    CHECK_OK(mero_trust_root_load_shipped(&tr, path, &e));
    mero_trust_root_free(tr);
    tr = NULL;
    /* any other root is not the shipped one */
    snprintf(path, sizeof(path),
             "%s/testdata/sigstore/conformance-rekor2-happy-path/trusted_root.json",
             mero_test_shared());
    CHECK_ERR(mero_trust_root_load_shipped(&tr, path, &e), -MERO_EROOT);
    CHECK(strstr(e.msg, "not the pinned file") != NULL);
    /* MERO_SIGSTORE_TRUSTED_ROOT names another root: used as is */
    setenv("MERO_SIGSTORE_TRUSTED_ROOT", path, 1);
    CHECK_OK(mero_trust_root_load_env(&tr, &e));
    mero_trust_root_free(tr);
    tr = NULL;
    unsetenv("MERO_SIGSTORE_TRUSTED_ROOT");
    CHECK_OK(mero_trust_root_load_env(&tr, &e));
    mero_trust_root_free(tr);
}

/* An RSA CT log (staging's PKCS1_RSA_PKCS1V5) once failed the whole root; now it loads, and an
 * unknown key type is skipped, not fatal. */
TEST(trusted_root_tolerates_key_types)
{
    char path[1200];
    struct mero_err e = {0};
    struct mero_trust_root *tr = NULL;
    snprintf(path, sizeof(path),
             "%s/testdata/sigstore/conformance-rekor2-happy-path/trusted_root.json",
             mero_test_shared());
    CHECK_OK(mero_trust_root_load(&tr, path, &e));
    CHECK(tr->ctlogs[0].key != NULL);
    CHECK_EQ(tr->ctlogs[0].type, SIG_KT_RSA_PKCS1);
    CHECK_EQ(tr->tlogs[1].type, SIG_KT_ED25519);
    mero_trust_root_free(tr);
    tr = NULL;
    struct blob b = rd("testdata/sigstore/conformance-rekor2-happy-path/trusted_root.json");
    json_t *j = json_loadb((const char *)b.p, b.n, 0, NULL);
    json_t *pk = json_object_get(json_array_get(json_object_get(j, "ctlogs"), 0), "publicKey");
    json_object_set_new(pk, "keyDetails", json_string("ML_DSA_87"));
    char *txt = json_dumps(j, JSON_COMPACT);
    CHECK_OK(mero_trust_root_parse(&tr, (const uint8_t *)txt, strlen(txt), &e));
    CHECK(tr->ctlogs[0].key == NULL);
    CHECK(strstr(tr->ctlogs[0].why, "ML_DSA_87") != NULL);
    char text[8192];
    CHECK(mero_trust_root_describe(tr, text, sizeof(text)) > 0);
    CHECK(strstr(text, "skipped: key type ML_DSA_87 not supported") != NULL);
    /* the Rekor v2 case still verifies under it */
    mero_trust_root_free(tr);
    free(txt);
    json_decref(j);
    free(b.p);
}

TEST(conformance_wrong_identity)
{
    struct mero_err e = {0};
    struct mero_sigstore_result r;
    /* the mero-tee identity asked of the beacon's valid bundle */
    CHECK_ERR(run_case("conformance-happy-path-v0.3-wrong-identity_fail",
                       &mero_sigstore_node_release_identity, &r, &e),
              -MERO_EIDENTITY);
    CHECK(strstr(e.msg, "SAN") != NULL);
    /* with the SAN forced right, the workflow name / repository / ref still refuse it */
    struct mero_sigstore_identity id = mero_sigstore_node_release_identity;
    id.san = BEACON_SAN;
    CHECK_ERR(run_case("conformance-happy-path-v0.3-wrong-identity_fail", &id, &r, &e),
              -MERO_EIDENTITY);
    CHECK(strstr(e.msg, "workflow name") != NULL);
    id.workflow_name = NULL;
    CHECK_ERR(run_case("conformance-happy-path-v0.3-wrong-identity_fail", &id, &r, &e),
              -MERO_EIDENTITY);
    CHECK(strstr(e.msg, "repository") != NULL);
    id.repository = NULL;
    CHECK_ERR(run_case("conformance-happy-path-v0.3-wrong-identity_fail", &id, &r, &e),
              -MERO_EIDENTITY);
    CHECK(strstr(e.msg, "ref") != NULL);
    id.ref = "refs/heads/main";
    CHECK_OK(run_case("conformance-happy-path-v0.3-wrong-identity_fail", &id, &r, &e));
}

TEST(mero_release_verifies)
{
    struct mero_err e = {0};
    struct mero_sigstore_result r;
    int rc = run_mero("v2.3.87", "published-mrtds.json", 1, &mero_sigstore_node_release_identity,
                      &r, &e);
    CHECK_MSG(rc == 0, "%s: %s", mero_strerror(rc), e.msg);
    CHECK_EQ(r.integrated_time, 1790590764);
    CHECK_U64_EQ(r.log_index, 2981813402u);
    CHECK_STR_EQ(r.workflow_name, "Release mero-tee");
    CHECK_STR_EQ(r.repository, "calimero-network/mero-tee");
    CHECK_STR_EQ(r.ref, "refs/heads/master");
    CHECK_STR_EQ(r.trigger, "push");
    char hex[65];
    mero_hex_encode(hex, r.artifact_sha256, 32);
    CHECK_STR_EQ(hex, "c05d8ba1d57b3b1478f163e1f8b8f8e10adaecb3dbab31885b273bc5143ff451");
    /* without the detached .sig too */
    CHECK_OK(run_mero("v2.3.87", "published-mrtds.json", 0, &mero_sigstore_node_release_identity,
                      &r, &e));
}

TEST(mero_release_other_identities_refused)
{
    const struct mero_sigstore_identity base = mero_sigstore_node_release_identity;
    struct mero_sigstore_identity ids[6];
    for (int i = 0; i < 6; i++) {
        ids[i] = base;
    }
    ids[0].issuer = "https://accounts.google.com";
    ids[1].san = "https://github.com/calimero-network/mero-tee/.github/workflows/"
                 "release-kms.yaml@refs/heads/master";
    ids[2].workflow_name = "Release mero-kms";
    ids[3].repository = "calimero-network/mero-tee-fork";
    ids[4].ref = "refs/heads/main";
    ids[5].san = "https://github.com/calimero-network/mero-tee/.github/workflows/"
                 "release-node-image-gcp.yaml@refs/heads/master ";
    for (int i = 0; i < 6; i++) {
        struct mero_err e = {0};
        struct mero_sigstore_result r;
        int rc = run_mero("v2.3.87", "published-mrtds.json", 1, &ids[i], &r, &e);
        CHECK_MSG(rc == -MERO_EIDENTITY, "identity %d: %s", i, mero_strerror(rc));
    }
}

TEST(mero_tampered_refused_by_digest)
{
    struct mero_err e = {0};
    CHECK_ERR(run_mero("v2.3.87-tampered_fail", "published-mrtds.json", 1,
                       &mero_sigstore_node_release_identity, NULL, &e),
              -MERO_ESIGSTORE_DIGEST);
    CHECK(strstr(e.msg, "not the one Rekor logged") != NULL);
}

TEST(mero_provenance_signature_passes)
{
    /* right signer, wrong file: the signature layer passes (release.c refuses the file) */
    struct mero_err e = {0};
    struct mero_sigstore_result r;
    int rc = run_mero("v2.3.87-release-provenance", "release-provenance.json", 0,
                      &mero_sigstore_node_release_identity, &r, &e);
    CHECK_MSG(rc == 0, "%s: %s", mero_strerror(rc), e.msg);
    CHECK_EQ(r.integrated_time, 1790590765);
}

TEST(mero_kms_wrong_identity)
{
    struct mero_err e = {0};
    struct mero_sigstore_result r;
    CHECK_ERR(run_mero("kms-v2.3.87-wrong-identity_fail", "kms-attestation-policy.json", 0,
                       &mero_sigstore_node_release_identity, &r, &e),
              -MERO_EIDENTITY);
    /* cryptographically valid: under the KMS identity it passes */
    struct mero_sigstore_identity kms = mero_sigstore_node_release_identity;
    kms.san = "https://github.com/calimero-network/mero-tee/.github/workflows/"
              "release-kms.yaml@refs/heads/master";
    kms.workflow_name = "Release mero-kms";
    int rc =
        run_mero("kms-v2.3.87-wrong-identity_fail", "kms-attestation-policy.json", 0, &kms, &r, &e);
    CHECK_MSG(rc == 0, "%s: %s", mero_strerror(rc), e.msg);
    CHECK_EQ(r.integrated_time, 1790592198);
}

TEST(detached_sig_must_match)
{
    struct blob art = rd("testdata/mero-tee/v2.3.87/published-mrtds.json");
    struct blob bun = rd("testdata/mero-tee/v2.3.87/published-mrtds.json.bundle.json");
    struct blob sig = rd("testdata/mero-tee/v2.3.87/published-mrtds.json.sig");
    CHECK(art.p && bun.p && sig.p && root());
    struct mero_err e = {0};
    char *s = malloc(sig.n + 4);
    CHECK(s != NULL);
    memcpy(s, sig.p, sig.n);
    /* trailing newline is accepted (trimmed) */
    s[sig.n] = '\n';
    struct mero_sigstore_opts o = {
        .now = NOW_2026_12_01, .detached_sig = s, .detached_sig_len = sig.n + 1};
    int rc1 = mero_sigstore_verify(root(), art.p, art.n, bun.p, bun.n,
                                   &mero_sigstore_node_release_identity, &o, NULL, &e);
    /* one character changed */
    s[10] = s[10] == 'A' ? 'B' : 'A';
    int rc2 = mero_sigstore_verify(root(), art.p, art.n, bun.p, bun.n,
                                   &mero_sigstore_node_release_identity, &o, NULL, &e);
    o.detached_sig = "not base64!";
    o.detached_sig_len = 11;
    int rc3 = mero_sigstore_verify(root(), art.p, art.n, bun.p, bun.n,
                                   &mero_sigstore_node_release_identity, &o, NULL, &e);
    /* the integrated time may not lie after "now" */
    o.detached_sig = NULL;
    o.now = 1790590764 - 3600;
    int rc4 = mero_sigstore_verify(root(), art.p, art.n, bun.p, bun.n,
                                   &mero_sigstore_node_release_identity, &o, NULL, &e);
    free(s);
    free(art.p);
    free(bun.p);
    free(sig.p);
    CHECK_EQ(rc1, 0);
    CHECK_EQ(rc2, -MERO_ESIGSTORE_DETACHED);
    CHECK_EQ(rc3, -MERO_ESIGSTORE_DETACHED);
    CHECK_EQ(rc4, -MERO_EEXPIRED);
}

/* Load a bundle as JSON, let `edit` change it, verify the re-serialised result. */
static int mutate(const char *bundle_rel, const char *art_rel, void (*edit)(json_t *),
                  struct mero_err *e)
{
    struct blob art = rd(art_rel), bun = rd(bundle_rel);
    if (art.p == NULL || bun.p == NULL || root() == NULL) {
        free(art.p);
        free(bun.p);
        return -1000;
    }
    json_t *j = json_loadb((const char *)bun.p, bun.n, 0, NULL);
    edit(j);
    char *s = json_dumps(j, JSON_COMPACT);
    struct mero_sigstore_opts o = {.now = NOW_2026_12_01};
    int rc = mero_sigstore_verify(root(), art.p, art.n, (const uint8_t *)s, strlen(s), NULL, &o,
                                  NULL, e);
    free(s);
    json_decref(j);
    free(art.p);
    free(bun.p);
    return rc;
}

#define V03  "testdata/sigstore/conformance-happy-path-v0.3/bundle.sigstore.json"
#define V01  "testdata/sigstore/conformance-happy-path-v0.1/bundle.sigstore.json"
#define ART  "testdata/sigstore/conformance-happy-path-v0.3/artifact"
#define LEG  "testdata/mero-tee/v2.3.87/published-mrtds.json.bundle.json"
#define LART "testdata/mero-tee/v2.3.87/published-mrtds.json"

static json_t *entry(json_t *j)
{
    return json_array_get(
        json_object_get(json_object_get(j, "verificationMaterial"), "tlogEntries"), 0);
}
static void ed_nothing(json_t *j)
{
    (void)j;
}
static void ed_media_v04(json_t *j)
{
    json_object_set_new(j, "mediaType",
                        json_string("application/vnd.dev.sigstore.bundle+json;"
                                    "version=0.4"));
}
static void ed_media_v0(json_t *j)
{
    json_object_set_new(j, "mediaType", json_string("application/vnd.dev.sigstore.bundle+json"));
}
static void ed_no_proof(json_t *j)
{
    json_object_del(entry(j), "inclusionProof");
}
static void ed_no_set(json_t *j)
{
    json_object_del(entry(j), "inclusionPromise");
}
static void ed_time_plus1(json_t *j)
{
    json_object_set_new(entry(j), "integratedTime", json_string("1710869187"));
}
static void ed_index_plus1(json_t *j)
{
    json_object_set_new(entry(j), "logIndex", json_string("79571824"));
}
static void ed_kind(json_t *j)
{
    json_object_set_new(json_object_get(entry(j), "kindVersion"), "version", json_string("0.0.2"));
}
/* The leaf's EC point moved off the curve: the certificate parses, its key does not (found by
 * fuzz_bundle: the verifier dereferenced the missing key). */
static void ed_leaf_key_off_curve(json_t *j)
{
    json_t *c = json_object_get(json_object_get(j, "verificationMaterial"), "certificate");
    const char *s = json_string_value(json_object_get(c, "rawBytes"));
    uint8_t *der = NULL;
    size_t n = 0;
    if (s == NULL || mero_base64_decode_alloc(s, strlen(s), 1u << 16, &der, &n) < 0) {
        return;
    }
    static const uint8_t spki[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
                                   0x01, 0x07, 0x03, 0x42, 0x00, 0x04};
    for (size_t i = 0; i + sizeof(spki) + 1 < n; i++) {
        if (memcmp(der + i, spki, sizeof(spki)) == 0) {
            der[i + sizeof(spki)] ^= 0x01; /* first byte of X */
            break;
        }
    }
    char *b = mero_base64_encode(der, n);
    json_object_set_new(c, "rawBytes", json_string(b));
    free(b);
    free(der);
}
static void ed_kind_unknown(json_t *j)
{
    json_object_set_new(json_object_get(entry(j), "kindVersion"), "version", json_string("0.0.9"));
}
static void ed_two_entries(json_t *j)
{
    json_t *arr = json_object_get(json_object_get(j, "verificationMaterial"), "tlogEntries");
    json_array_append(arr, json_array_get(arr, 0));
}
static void ed_dsse(json_t *j)
{
    json_object_set_new(j, "dsseEnvelope", json_object());
}
static void ed_chain_in_v03(json_t *j)
{
    json_t *vm = json_object_get(j, "verificationMaterial");
    json_t *c = json_object_get(vm, "certificate");
    json_t *chain = json_pack("{s:[O]}", "certificates", c);
    json_object_set_new(vm, "x509CertificateChain", chain);
    json_object_del(vm, "certificate");
}
static void ed_proof_hash(json_t *j)
{
    json_t *h = json_object_get(json_object_get(entry(j), "inclusionProof"), "hashes");
    json_array_remove(h, 0);
}
static void ed_legacy_time(json_t *j)
{
    json_t *pl = json_object_get(json_object_get(j, "rekorBundle"), "Payload");
    json_object_set_new(pl, "integratedTime", json_integer(1790590765));
}
static void ed_legacy_logid(json_t *j)
{
    json_t *pl = json_object_get(json_object_get(j, "rekorBundle"), "Payload");
    json_object_set_new(pl, "logID",
                        json_string("c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c2"
                                    "24f98b9591801e"));
}
static void ed_legacy_no_set(json_t *j)
{
    json_object_del(json_object_get(j, "rekorBundle"), "SignedEntryTimestamp");
}

/* a self-signed root inside the chain (the Fulcio root from the trusted root file) */
static void ed_root_in_chain(json_t *j)
{
    struct blob tr = rd(TR_PATH);
    json_t *t = json_loadb((const char *)tr.p, tr.n, 0, NULL);
    json_t *cas = json_object_get(t, "certificateAuthorities");
    json_t *certs =
        json_object_get(json_object_get(json_array_get(cas, 1), "certChain"), "certificates");
    json_t *rootc = json_array_get(certs, json_array_size(certs) - 1);
    json_t *chain = json_object_get(
        json_object_get(json_object_get(j, "verificationMaterial"), "x509CertificateChain"),
        "certificates");
    json_array_append(chain, rootc);
    json_decref(t);
    free(tr.p);
}

TEST(mutated_bundles_refused)
{
    struct mero_err e = {0};
    CHECK_OK(mutate(V03, ART, ed_nothing, &e));
    CHECK_ERR(mutate(V03, ART, ed_media_v04, &e), -MERO_ESIGSTORE_MEDIATYPE);
    CHECK_ERR(mutate(V03, ART, ed_media_v0, &e), -MERO_ESIGSTORE_MEDIATYPE);
    CHECK_ERR(mutate(V03, ART, ed_no_proof, &e), -MERO_ESIGSTORE);
    CHECK_ERR(mutate(V03, ART, ed_no_set, &e), -MERO_ESIGSTORE_SET);
    CHECK_ERR(mutate(V03, ART, ed_time_plus1, &e), -MERO_ESIGSTORE_SET);
    CHECK_ERR(mutate(V03, ART, ed_index_plus1, &e), -MERO_ESIGSTORE_SET);
    /* relabelled Rekor v2: a v2 entry has no SET / integrated time */
    CHECK_ERR(mutate(V03, ART, ed_kind, &e), -MERO_ESIGSTORE);
    CHECK(strstr(e.msg, "Rekor v2") != NULL);
    CHECK_ERR(mutate(V03, ART, ed_kind_unknown, &e), -MERO_EUNSUPPORTED);
    CHECK_ERR(mutate(V03, ART, ed_leaf_key_off_curve, &e), -MERO_ECERT);
    CHECK(strstr(e.msg, "key") != NULL);
    CHECK_ERR(mutate(V03, ART, ed_two_entries, &e), -MERO_ESIGSTORE);
    /* both a message signature and a DSSE envelope */
    CHECK_ERR(mutate(V03, ART, ed_dsse, &e), -MERO_ESIGSTORE);
    CHECK_ERR(mutate(V03, ART, ed_chain_in_v03, &e), -MERO_ESIGSTORE);
    CHECK_ERR(mutate(V03, ART, ed_proof_hash, &e), -MERO_ESIGSTORE_PROOF);
    CHECK_ERR(mutate(V01, ART, ed_no_set, &e), -MERO_ESIGSTORE);
    CHECK_ERR(mutate(V01, ART, ed_root_in_chain, &e), -MERO_ECHAIN);
    CHECK(strstr(e.msg, "root") != NULL);
    CHECK_OK(mutate(LEG, LART, ed_nothing, &e));
    CHECK_ERR(mutate(LEG, LART, ed_legacy_time, &e), -MERO_ESIGSTORE_SET);
    CHECK_ERR(mutate(LEG, LART, ed_legacy_logid, &e), -MERO_ESIGSTORE_LOG);
    CHECK_ERR(mutate(LEG, LART, ed_legacy_no_set, &e), -MERO_ESIGSTORE);
}

TEST(malformed_inputs_refused)
{
    struct mero_err e = {0};
    CHECK(root() != NULL);
    static const char *bad[] = {
        "",
        "{",
        "[]",
        "{\"mediaType\":1}",
        "{\"a\":1,\"a\":2}",
        "{\"rekorBundle\":{}}",
        "{\"mediaType\":\"application/vnd.dev.sigstore.bundle.v0.3+json\",\"mediaType\":\"x\"}",
        "{\"mediaType\":\"application/vnd.dev.sigstore.bundle.v0.3+json\"}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = mero_sigstore_verify(root(), (const uint8_t *)"x", 1, (const uint8_t *)bad[i],
                                      strlen(bad[i]), NULL, NULL, NULL, &e);
        CHECK_MSG(rc < 0, "input %zu accepted", i);
    }
    /* trusted roots */
    struct mero_trust_root *tr = NULL;
    CHECK_FAILS(mero_trust_root_parse(&tr, (const uint8_t *)"{}", 2, &e));
    CHECK_FAILS(mero_trust_root_parse(&tr, (const uint8_t *)"{\"mediaType\":\"x\"}", 17, &e));
    CHECK_FAILS(mero_trust_root_load(&tr, "/nonexistent/trusted_root.json", &e));
}

/* Verify the v0.3 happy path under a trusted root that `edit` changed. */
static int with_root(void (*edit)(json_t *), struct mero_err *e)
{
    struct blob tr = rd(TR_PATH), art = rd(ART), bun = rd(V03);
    if (tr.p == NULL || art.p == NULL || bun.p == NULL) {
        free(tr.p);
        free(art.p);
        free(bun.p);
        return -1000;
    }
    json_t *j = json_loadb((const char *)tr.p, tr.n, 0, NULL);
    edit(j);
    char *s = json_dumps(j, JSON_COMPACT);
    struct mero_trust_root *t = NULL;
    int rc = mero_trust_root_parse(&t, (const uint8_t *)s, strlen(s), e);
    if (rc == 0) {
        struct mero_sigstore_opts o = {.now = NOW_2026_12_01};
        rc = mero_sigstore_verify(t, art.p, art.n, bun.p, bun.n, &beacon, &o, NULL, e);
    }
    mero_trust_root_free(t);
    free(s);
    json_decref(j);
    free(tr.p);
    free(art.p);
    free(bun.p);
    return rc;
}

static json_t *ctlog(json_t *j, size_t i)
{
    return json_array_get(json_object_get(j, "ctlogs"), i);
}
static void tr_ct_wrong_key(json_t *j)
{
    /* the 2022 CT log's entry keeps its log ID but gets the test log's key */
    json_t *k0 = json_object_get(json_object_get(ctlog(j, 0), "publicKey"), "rawBytes");
    json_object_set(json_object_get(ctlog(j, 1), "publicKey"), "rawBytes", k0);
}
static void tr_ct_removed(json_t *j)
{
    json_array_remove(json_object_get(j, "ctlogs"), 1);
}
static void tr_ct_not_yet(json_t *j)
{
    json_t *vf = json_object_get(json_object_get(ctlog(j, 1), "publicKey"), "validFor");
    json_object_set_new(vf, "start", json_string("2025-01-01T00:00:00Z"));
}
static void tr_ca_only_old(json_t *j)
{
    json_array_remove(json_object_get(j, "certificateAuthorities"), 1);
}
static void tr_ca_no_intermediate(json_t *j)
{
    json_t *cas = json_object_get(j, "certificateAuthorities");
    json_t *old = json_object_get(json_array_get(cas, 0), "certChain");
    json_object_set(json_array_get(cas, 1), "certChain", old);
}
static void tr_rekor_expired(json_t *j)
{
    json_t *vf = json_object_get(
        json_object_get(json_array_get(json_object_get(j, "tlogs"), 0), "publicKey"), "validFor");
    json_object_set_new(vf, "end", json_string("2024-03-19T17:26:25Z"));
}
static void tr_rekor_end_inclusive(json_t *j)
{
    json_t *vf = json_object_get(
        json_object_get(json_array_get(json_object_get(j, "tlogs"), 0), "publicKey"), "validFor");
    json_object_set_new(vf, "end", json_string("2024-03-19T17:26:26.000Z"));
}

TEST(trust_root_edits)
{
    struct mero_err e = {0};
    CHECK_OK(with_root(tr_rekor_end_inclusive, &e));
    CHECK_ERR(with_root(tr_ct_wrong_key, &e), -MERO_ESIGSTORE_SCT);
    CHECK_ERR(with_root(tr_ct_removed, &e), -MERO_ESIGSTORE_SCT);
    CHECK_ERR(with_root(tr_ct_not_yet, &e), -MERO_ESIGSTORE_SCT);
    CHECK_ERR(with_root(tr_ca_only_old, &e), -MERO_EROOT);
    CHECK_ERR(with_root(tr_ca_no_intermediate, &e), -MERO_ECHAIN);
    CHECK_ERR(with_root(tr_rekor_expired, &e), -MERO_ESIGSTORE_SET);
}

TEST(leaf_valid_only_at_signing_time)
{
    struct blob bun = rd(V03);
    CHECK(bun.p != NULL && root() != NULL);
    struct sig_bundle b;
    struct mero_err e = {0};
    int prc = mero__sig_bundle_parse(&b, bun.p, bun.n, &e);
    free(bun.p);
    CHECK_OK(prc);
    X509 *iss = NULL;
    /* leaf valid 17:26:26 .. 17:36:26 on 2024-03-19 */
    int rc1 = mero__sig_verify_chain(root(), b.leaf, 1710869186, &iss, &e);
    X509_free(iss);
    iss = NULL;
    int rc2 = mero__sig_verify_chain(root(), b.leaf, 1710869186 + 601, &iss, &e);
    int rc3 = mero__sig_verify_chain(root(), b.leaf, 1710869186 - 1, &iss, &e);
    mero__sig_bundle_cleanup(&b);
    CHECK_EQ(rc1, 0);
    CHECK_EQ(rc2, -MERO_EEXPIRED);
    CHECK_EQ(rc3, -MERO_EEXPIRED);
}

TEST(rfc3339)
{
    int64_t t = 0;
    CHECK_OK(mero__sig_time_parse("2021-01-12T11:53:27Z", &t));
    CHECK_EQ(t, 1610452407);
    CHECK_OK(mero__sig_time_parse("2022-12-31T23:59:59.999Z", &t));
    CHECK_EQ(t, 1672531199);
    CHECK_OK(mero__sig_time_parse("2026-12-01T01:00:00+01:00", &t));
    CHECK_EQ(t, NOW_2026_12_01);
    static const char *bad[] = {"2021-01-12",
                                "2021-01-12T11:53:27",
                                "2021-13-12T11:53:27Z",
                                "2021-01-12T11:53:27.Z",
                                "2021-01-12T11:53:27Zx",
                                "2021-01-12 11:53:27Z",
                                NULL};
    for (int i = 0; bad[i]; i++) {
        CHECK_MSG(mero__sig_time_parse(bad[i], &t) < 0, "%s accepted", bad[i]);
    }
    CHECK_FAILS(mero__sig_time_parse(NULL, &t));
}

MERO_TEST_MAIN(T(conformance_cases), T(conformance_rekor2_dsse_tsa_cases),
               T(conformance_cases_by_digest), T(shipped_root_is_pinned),
               T(trusted_root_tolerates_key_types), T(conformance_wrong_identity),
               T(mero_release_verifies), T(mero_release_other_identities_refused),
               T(mero_tampered_refused_by_digest), T(mero_provenance_signature_passes),
               T(mero_kms_wrong_identity), T(detached_sig_must_match), T(mutated_bundles_refused),
               T(malformed_inputs_refused), T(trust_root_edits), T(leaf_valid_only_at_signing_time),
               T(rfc3339))
