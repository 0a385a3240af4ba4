/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys.h - group keys and KeyDelivery envelopes (reference-calimero.md §6.4).
 *
 * Member wrap: a fresh ephemeral Ed25519 key; shared point = scalar(eph seed) x
 * decompress(recipient Ed25519 pk) (small-order points refused); its compressed Edwards-Y
 * bytes are the HKDF-SHA256 IKM (empty salt, info "calimero.sharedkey.aead.v2") giving an
 * AES-256-GCM key; random 12-byte nonce, no AAD, plaintext = the 32-byte group key. The
 * envelope is signed by the sender over "calimero.keyenvelope.v1" || group_id || tag ||
 * identity || ephemeral || sender || nonce || ciphertext.
 *
 * Invariants: only the holder of the recipient's secret key can open an envelope; an envelope
 * whose signature, recipient or ciphertext was altered is refused; key bytes are wiped.
 *
 * Thread safety: every function here is safe from any thread (no shared state; randomness
 * from libsodium after mero_crypto_init).
 */
#ifndef MERO_KEYS_H
#define MERO_KEYS_H

#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "mero/op.h"

_Static_assert(MERO_GOV_ENVELOPE_CT_LEN == MERO_GROUP_KEY_LEN + MERO_AEAD_TAG_LEN,
               "an envelope seals one group key under AES-GCM");
#define MERO_ENVELOPE_DOMAIN    "calimero.keyenvelope.v1"
#define MERO_ENVELOPE_HKDF_INFO "calimero.sharedkey.aead.v2"

/* key_id = SHA-256(key) */
void mero_group_key_id(uint8_t id[static MERO_KEY_ID_LEN],
                       const uint8_t key[static MERO_GROUP_KEY_LEN]);
/* A fresh random group key. */
void mero_group_key_new(uint8_t key[static MERO_GROUP_KEY_LEN]);

/* Wrap `key` for recipient_pk (an Ed25519 identity), signed by sender_sk. */
MERO_MUST_CHECK int mero_envelope_wrap(struct mero_key_envelope *out,
                                       const uint8_t group_id[static MERO_GROUP_ID_LEN],
                                       const uint8_t recipient_pk[static MERO_IDENTITY_LEN],
                                       const uint8_t sender_sk[static MERO_ED25519_SK_LEN],
                                       const uint8_t key[static MERO_GROUP_KEY_LEN],
                                       struct mero_err *err);
/* 0 when the envelope's signature verifies under its sender for group_id. */
MERO_MUST_CHECK int mero_envelope_verify(const struct mero_key_envelope *e,
                                         const uint8_t group_id[static MERO_GROUP_ID_LEN],
                                         struct mero_err *err);
/*
 * Verify, then open with the recipient's secret key (its pk must be e->identity). key is
 * written only on success; -MERO_EBADSIG / -MERO_ECRYPTO / -MERO_EPERM (not addressed to us).
 */
MERO_MUST_CHECK int mero_envelope_open(const struct mero_key_envelope *e,
                                       const uint8_t group_id[static MERO_GROUP_ID_LEN],
                                       const uint8_t recipient_sk[static MERO_ED25519_SK_LEN],
                                       uint8_t key[static MERO_GROUP_KEY_LEN],
                                       struct mero_err *err);

#endif
