/* SPDX-License-Identifier: Apache-2.0 */
/*
 * noise_sym.c - the Noise SymmetricState over SHA-256 (Noise spec rev 34 §5.2), shared by the
 * libp2p XX handshake (noise.c, ChaChaPoly) and the sealed-HTTP NK handshake (sealed_noise.c,
 * AESGCM): InitializeSymmetric with the prologue, MixHash, and the two-output HKDF behind
 * MixKey and Split. The cipher, and so the nonce layout, stays with each handshake.
 *
 * Invariant: HKDF outputs go through a local buffer that is wiped, so an output may alias ck.
 */
#include <string.h>

#include "mero/crypto.h"
#include "net/noise_internal.h"

void mero__noise_mix_hash(uint8_t h[MERO_NOISE_HASH_LEN], const uint8_t *p, size_t n)
{
    struct mero_sha256 s;
    mero_sha256_init(&s);
    mero_sha256_update(&s, h, MERO_NOISE_HASH_LEN);
    mero_sha256_update(&s, p, n);
    mero_sha256_final(&s, h);
}

void mero__noise_symmetric_init(uint8_t h[MERO_NOISE_HASH_LEN], uint8_t ck[MERO_NOISE_HASH_LEN],
                                const char *name, const uint8_t *prologue, size_t plen)
{
    size_t n = strlen(name);
    /* a name of at most HASHLEN bytes is zero-padded, a longer one hashed (§5.2) */
    if (n <= MERO_NOISE_HASH_LEN) {
        memset(h, 0, MERO_NOISE_HASH_LEN);
        memcpy(h, name, n);
    } else {
        mero_sha256(h, name, n);
    }
    memcpy(ck, h, MERO_NOISE_HASH_LEN);
    mero__noise_mix_hash(h, prologue, plen);
}

int mero__noise_hkdf2(const uint8_t ck[MERO_NOISE_HASH_LEN], const uint8_t *ikm, size_t n,
                      uint8_t out1[MERO_NOISE_HASH_LEN], uint8_t out2[MERO_NOISE_HASH_LEN])
{
    uint8_t okm[2 * MERO_NOISE_HASH_LEN];
    static const uint8_t none[1] = {0};
    int rc =
        mero_hkdf_sha256(okm, sizeof(okm), ck, MERO_NOISE_HASH_LEN, n ? ikm : none, n, NULL, 0);
    if (rc == 0) {
        memcpy(out1, okm, MERO_NOISE_HASH_LEN);
        memcpy(out2, okm + MERO_NOISE_HASH_LEN, MERO_NOISE_HASH_LEN);
    }
    mero_wipe(okm, sizeof(okm));
    return rc;
}
