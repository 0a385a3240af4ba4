/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_bundle.c - libFuzzer target for the Sigstore parsers and verifier: the input is
 * "artifact NUL bundle" (no NUL: the whole input is the bundle, the artifact empty) verified
 * against the public-good trusted root (read once from $MERO_SHARED, else ../shared); the
 * same bytes also go through the trusted-root parser and the hashedrekord body parser.
 * Invariant checked: no crash, no sanitizer report, no leak, and a verified result names an
 * issuer and a SAN.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/sigstore_internal.h"
#include "mero/crypto.h"
#include "mero/sigstore.h"
#include "fuzz_sigstore_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_err err = {0};
    const uint8_t *nul = memchr(data, 0, size);
    const uint8_t *art = data, *bun = data;
    size_t alen = 0, blen = size;
    if (nul != NULL) {
        alen = (size_t)(nul - data);
        bun = nul + 1;
        blen = size - alen - 1;
    }
    if (fuzz_sigstore_root() != NULL) {
        struct mero_sigstore_result r;
        struct mero_sigstore_opts o = {.now = 1796083200u};
        if (mero_sigstore_verify(fuzz_sigstore_root(), art, alen, bun, blen, NULL, &o, &r, &err) ==
                0 &&
            (r.issuer[0] == 0 || r.san[0] == 0)) {
            abort();
        }
    }
    struct mero_trust_root *tr = NULL;
    if (mero_trust_root_parse(&tr, data, size, &err) == 0) {
        mero_trust_root_free(tr);
    }
    struct sig_body body;
    if (mero__sig_body_parse(&body, data, size, &err) == 0) {
        mero__sig_body_cleanup(&body);
    }
    return 0;
}
