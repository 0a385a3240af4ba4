/* SPDX-License-Identifier: Apache-2.0 */
/*
 * noise_internal.h - Noise for libp2p: the SymmetricState over SHA-256 shared by XX and the
 * sealed NK (noise_sym.c), and the XX handshake with its transport cipher states (noise.c).
 * No I/O. Private to src/net.
 */
#ifndef MERO_NET_NOISE_INTERNAL_H
#define MERO_NET_NOISE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

struct mero_chacha_key;

/* ---- the SymmetricState (noise_sym.c) ---- */
void mero__noise_mix_hash(uint8_t h[MERO_NOISE_HASH_LEN], const uint8_t *p, size_t n);
/* InitializeSymmetric(name) (padded, or hashed when longer than HASHLEN), then MixHash(prologue).
 */
void mero__noise_symmetric_init(uint8_t h[MERO_NOISE_HASH_LEN], uint8_t ck[MERO_NOISE_HASH_LEN],
                                const char *name, const uint8_t *prologue, size_t plen);
/* HKDF(ck, ikm) with two outputs (§4.3): MixKey is (ck, k) = hkdf2(ck, dh), Split is
 * (k1, k2) = hkdf2(ck, empty). Outputs may alias ck. */
MERO_MUST_CHECK int mero__noise_hkdf2(const uint8_t ck[MERO_NOISE_HASH_LEN], const uint8_t *ikm,
                                      size_t n, uint8_t out1[MERO_NOISE_HASH_LEN],
                                      uint8_t out2[MERO_NOISE_HASH_LEN]);

/* ---- Noise XX ---- */
#define MERO__NOISE_MAX_MSG   65535
#define MERO__NOISE_TAG       MERO_NOISE_TAG_LEN
#define MERO__NOISE_MAX_PLAIN (MERO__NOISE_MAX_MSG - MERO__NOISE_TAG)
struct mero__cipher {
    uint8_t k[MERO_NOISE_KEY_LEN]; /* the handshake CipherState key (unused in transport) */
    uint64_t n;
    int has_key;
    struct mero_chacha_key *key; /* transport (after Split): the key set up once */
};
struct mero__noise {
    int initiator;
    int step; /* messages processed so far (0..3) */
    uint8_t ck[MERO_NOISE_HASH_LEN], h[MERO_NOISE_HASH_LEN];
    struct mero__cipher cs;
    uint8_t s_sk[MERO_NOISE_DH_LEN], s_pk[MERO_NOISE_DH_LEN]; /* our static X25519 */
    uint8_t e_sk[MERO_NOISE_DH_LEN], e_pk[MERO_NOISE_DH_LEN]; /* our ephemeral */
    uint8_t rs[MERO_NOISE_DH_LEN], re[MERO_NOISE_DH_LEN];     /* remote static / ephemeral */
    struct mero__cipher tx, rx;                               /* after split */
    uint8_t remote_id_pk[MERO_ED25519_PK_LEN]; /* authenticated remote Ed25519 identity */
    int done;
};
/* Start a handshake. `e_sk` NULL picks a fresh ephemeral (tests pass a fixed one). */
void mero__noise_init(struct mero__noise *ns, int initiator, const uint8_t s_sk[MERO_NOISE_DH_LEN],
                      const uint8_t *e_sk);
/* Frees the transport keys and wipes the whole state. */
void mero__noise_cleanup(struct mero__noise *ns);
/* Write the next handshake message (without the 2-byte length) carrying `payload`. */
MERO_MUST_CHECK int mero__noise_write(struct mero__noise *ns, const uint8_t *payload, size_t plen,
                                      struct mero_buf *out);
/* Read the next handshake message; the decrypted payload goes to `payload` (may be empty). */
MERO_MUST_CHECK int mero__noise_read(struct mero__noise *ns, const uint8_t *msg, size_t n,
                                     struct mero_buf *payload);
/* libp2p handshake payload: identity key + sig over "noise-libp2p-static-key:" || s_pk. */
MERO_MUST_CHECK int mero__noise_payload_make(const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                             const uint8_t s_pk[MERO_NOISE_DH_LEN],
                                             struct mero_buf *out);
/* Verify a remote payload against the remote static key; *id_pk gets the identity key. */
MERO_MUST_CHECK int mero__noise_payload_verify(const uint8_t *p, size_t n,
                                               const uint8_t rs[MERO_NOISE_DH_LEN],
                                               uint8_t id_pk[MERO_ED25519_PK_LEN]);
MERO_MUST_CHECK int mero__cipher_seal(struct mero__cipher *c, const uint8_t *ad, size_t adlen,
                                      const uint8_t *in, size_t n, uint8_t *out);
MERO_MUST_CHECK int mero__cipher_open(struct mero__cipher *c, const uint8_t *ad, size_t adlen,
                                      const uint8_t *in, size_t n, uint8_t *out);

#endif
