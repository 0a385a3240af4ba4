/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sigstore_parts.c - libFuzzer target for the parsers Rekor v2 / RFC 3161 support added:
 * the first input byte picks the parser and the rest is its input. 0: trusted_root.json
 * (tolerant loading, stats, describe); 1: an RFC 3161 TimeStampResp verified over a fixed
 * signature against a local trusted root with a TSA; 2: a checkpoint note checked against the
 * Rekor v1 (ECDSA) and v2 (Ed25519) keys of that root; 3: a logged body of any kind
 * (hashedrekord 0.0.1/0.0.2, dsse 0.0.1/0.0.2, intoto 0.0.2); 4: a DSSE PAE of the rest.
 * Invariant checked: no crash, no sanitizer report, no leak, a described root is
 * NUL-terminated within its buffer, every logged signature of a parsed body is found again
 * for its own signer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attest/sigstore_internal.h"
#include "mero/crypto.h"
#include "mero/sigstore.h"
#include "fuzz_sigstore_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void checkpoint(const uint8_t *p, size_t n)
{
    struct mero_trust_root *tr = fuzz_sigstore_root();
    if (tr == NULL || n > SIG_MAX_CHECKPOINT) {
        return;
    }
    struct sig_bundle b;
    memset(&b, 0, sizeof(b));
    b.checkpoint = malloc(n + 1);
    if (b.checkpoint == NULL) {
        return;
    }
    memcpy(b.checkpoint, p, n);
    b.checkpoint[n] = 0;
    b.checkpoint_len = strlen(b.checkpoint);
    b.has_proof = 1;
    b.tree_size = 736;
    for (size_t i = 0; i < tr->ntlogs; i++) {
        if (tr->tlogs[i].key != NULL) {
            (void)!mero__sig_verify_checkpoint(&tr->tlogs[i], &b, NULL);
        }
    }
    free(b.checkpoint);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    struct mero_err err = {0};
    switch (data[0] % 5) {
    case 0: {
        struct mero_trust_root *tr = NULL;
        if (mero_trust_root_parse(&tr, p, n, &err) == 0) {
            struct mero_trust_root_stats st;
            char text[4096];
            mero_trust_root_stats(tr, &st);
            int len = mero_trust_root_describe(tr, text, sizeof(text));
            if (len >= 0 && ((size_t)len >= sizeof(text) || text[len] != 0)) {
                abort();
            }
            if (st.tlogs_usable > st.tlogs || st.cas_usable > st.cas) {
                abort();
            }
            mero_trust_root_free(tr);
        }
        break;
    }
    case 1: {
        int64_t t = 0;
        static const uint8_t sig[] = "a signature";
        if (fuzz_sigstore_root() != NULL) {
            (void)!mero__sig_verify_tsa(fuzz_sigstore_root(), p, n, sig, sizeof(sig) - 1, &t, &err);
        }
        break;
    }
    case 2:
        checkpoint(p, n);
        break;
    case 3: {
        struct sig_body body;
        if (mero__sig_body_parse(&body, p, n, &err) == 0) {
            /* every logged signature is found for its own signer */
            for (size_t i = 0; i < body.nsigs; i++) {
                const struct sig_body_sig *s = &body.sigs[i];
                if (body.nsigs > SIG_MAX_DSSE_SIGS || s->sig == NULL ||
                    mero__sig_body_find(&body, s->cert_der, s->cert_der_len, s->key_der,
                                        s->key_der_len, s->sig, s->sig_len) < 0) {
                    abort();
                }
            }
            mero__sig_body_cleanup(&body);
        }
        break;
    }
    default: {
        uint8_t *pae = NULL;
        size_t plen = 0;
        if (mero__sig_dsse_pae("application/vnd.in-toto+json", p, n, &pae, &plen) == 0) {
            if (plen < n) {
                abort();
            }
            free(pae);
        }
        break;
    }
    }
    return 0;
}
