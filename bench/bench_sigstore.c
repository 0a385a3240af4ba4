/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sigstore.c - cost of verifying a signed release offline: the real mero-tee v2.3.87
 * cosign bundle (SET + chain + SCT + identity), the conformance v0.3 protobuf bundle (plus
 * inclusion proof and checkpoint), release-file parsing, and the ratio of a full verify to
 * one bare ECDSA P-256 verification (the floor). Prints `bench ...` and `ratio ...` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "mero/crypto.h"
#include "mero/release.h"
#include "mero/sigstore.h"
#include "mero/clock.h"
#include "support/bench_util.h"

static double per_op_us(uint64_t t0, int n)
{
    return (double)(mero_now_ns() - t0) / 1000.0 / n;
}

int main(void)
{
    size_t na, nb, nc, nd, ntr;
    uint8_t *tr_json = mero_bench_read_shared(
        "testdata/sigstore/trusted-root-public-good/trusted_root.json", &ntr);
    uint8_t *art = mero_bench_read_shared("testdata/mero-tee/v2.3.87/published-mrtds.json", &na);
    uint8_t *bun =
        mero_bench_read_shared("testdata/mero-tee/v2.3.87/published-mrtds.json.bundle.json", &nb);
    uint8_t *cart =
        mero_bench_read_shared("testdata/sigstore/conformance-happy-path-v0.3/artifact", &nc);
    uint8_t *cbun = mero_bench_read_shared(
        "testdata/sigstore/conformance-happy-path-v0.3/bundle.sigstore.json", &nd);
    struct mero_trust_root *tr = NULL;
    if (mero_crypto_init() < 0 || !tr_json || !art || !bun || !cart || !cbun ||
        mero_trust_root_parse(&tr, tr_json, ntr, NULL) < 0) {
        fprintf(stderr, "bench_sigstore: cannot load the test data\n");
        return 1;
    }
    const struct mero_sigstore_identity beacon = {
        .issuer = MERO_SIGSTORE_GITHUB_ISSUER,
        .san = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/"
               ".github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main"};
    const int n = 300;
    int bad = 0;
    uint64_t t0 = mero_now_ns();
    for (int i = 0; i < n; i++) {
        bad |= mero_sigstore_verify(tr, art, na, bun, nb, &mero_sigstore_node_release_identity,
                                    NULL, NULL, NULL) != 0;
    }
    double legacy = per_op_us(t0, n);
    t0 = mero_now_ns();
    for (int i = 0; i < n; i++) {
        bad |= mero_sigstore_verify(tr, cart, nc, cbun, nd, &beacon, NULL, NULL, NULL) != 0;
    }
    double proto = per_op_us(t0, n);
    t0 = mero_now_ns();
    for (int i = 0; i < n; i++) {
        struct mero_release *r = NULL;
        bad |= mero_release_parse(&r, art, na, "2.3.87", 0, NULL) != 0;
        mero_release_free(r);
    }
    double parse = per_op_us(t0, n);
    t0 = mero_now_ns();
    for (int i = 0; i < 10; i++) {
        struct mero_trust_root *t = NULL;
        bad |= mero_trust_root_parse(&t, tr_json, ntr, NULL) != 0;
        mero_trust_root_free(t);
    }
    double trparse = per_op_us(t0, 10);
    /* floor: one ECDSA P-256 / SHA-256 verification of a fresh signature */
    EVP_PKEY *k = EVP_EC_gen("P-256");
    unsigned char sig[80];
    size_t siglen = sizeof(sig);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_DigestSignInit(c, NULL, EVP_sha256(), NULL, k);
    EVP_DigestSign(c, sig, &siglen, art, na);
    t0 = mero_now_ns();
    for (int i = 0; i < n; i++) {
        EVP_DigestVerifyInit(c, NULL, EVP_sha256(), NULL, k);
        bad |= EVP_DigestVerify(c, sig, siglen, art, na) != 1;
    }
    double ecdsa = per_op_us(t0, n);
    EVP_MD_CTX_free(c);
    EVP_PKEY_free(k);
    if (bad) {
        fprintf(stderr, "bench_sigstore: a verification failed\n");
        return 1;
    }
    printf("bench sigstore_verify_cosign_legacy %.1f us/op\n", legacy);
    printf("bench sigstore_verify_protobuf_v03 %.1f us/op\n", proto);
    printf("bench release_parse_published_mrtds %.1f us/op\n", parse);
    printf("bench trust_root_parse %.1f us/op\n", trparse);
    printf("bench ecdsa_p256_verify %.1f us/op\n", ecdsa);
    printf("ratio sigstore_legacy_vs_one_ecdsa %.2f\n", legacy / ecdsa);
    printf("ratio sigstore_v03_vs_one_ecdsa %.2f\n", proto / ecdsa);
    mero_trust_root_free(tr);
    free(tr_json);
    free(art);
    free(bun);
    free(cart);
    free(cbun);
    return 0;
}
