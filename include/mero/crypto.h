/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crypto.h - the primitives libmero uses, over libsodium (Ed25519, X25519, ChaCha20-Poly1305,
 * SHA-256, HMAC) and OpenSSL (SHA-384, AES-256-GCM; libsodium's AES-NI AES-256-GCM where the CPU
 * has it, chosen by mero_crypto_init). Call mero_crypto_init() once first.
 *
 * Invariants: verification returns 0 only on a valid signature/tag; outputs are written only
 * on success; secret intermediates are wiped.
 *
 * Thread safety: call mero_crypto_init() once before any thread uses these; after that every
 * function is safe from any thread, and safe on distinct objects for the streaming state
 * (struct mero_sha256, a mero_chacha_key is read-only after mero_chacha_key_new and may be
 * shared; free it once, after its last use).
 */
#ifndef MERO_CRYPTO_H
#define MERO_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "mero/err.h"
#include "mero/sizes.h"

MERO_MUST_CHECK int mero_crypto_init(void);
void mero_random(void *buf, size_t n);

struct mero_sha256 {
    crypto_hash_sha256_state st;
};
void mero_sha256_init(struct mero_sha256 *h);
void mero_sha256_update(struct mero_sha256 *h, const void *p, size_t n);
void mero_sha256_final(struct mero_sha256 *h, uint8_t out[static MERO_SHA256_LEN]);
void mero_sha256(uint8_t out[static MERO_SHA256_LEN], const void *p, size_t n);
void mero_sha384(uint8_t out[static MERO_SHA384_LEN], const void *p, size_t n);
/* SHA-384(a || b): the RTMR extend step. */
void mero_sha384_2(uint8_t out[static MERO_SHA384_LEN], const void *a, size_t na, const void *b,
                   size_t nb);

void mero_hmac_sha256(uint8_t out[static MERO_SHA256_LEN], const uint8_t *key, size_t keylen,
                      const void *msg, size_t n);
/* HKDF-SHA256 (RFC 5869); salt may be NULL/0 (then 32 zero bytes). okm_len <= 255*32. */
MERO_MUST_CHECK int mero_hkdf_sha256(uint8_t *okm, size_t okm_len, const uint8_t *salt,
                                     size_t salt_len, const uint8_t *ikm, size_t ikm_len,
                                     const void *info, size_t info_len);

void mero_ed25519_keypair(uint8_t pk[static MERO_ED25519_PK_LEN],
                          uint8_t sk[static MERO_ED25519_SK_LEN]);
void mero_ed25519_from_seed(uint8_t pk[static MERO_ED25519_PK_LEN],
                            uint8_t sk[static MERO_ED25519_SK_LEN],
                            const uint8_t seed[static MERO_ED25519_SEED_LEN]);
void mero_ed25519_sign(uint8_t sig[static MERO_ED25519_SIG_LEN], const void *msg, size_t n,
                       const uint8_t sk[static MERO_ED25519_SK_LEN]);
MERO_MUST_CHECK int mero_ed25519_verify(const uint8_t sig[static MERO_ED25519_SIG_LEN],
                                        const void *msg, size_t n,
                                        const uint8_t pk[static MERO_ED25519_PK_LEN]);

/*
 * mero_ed25519_verify for signatures a process checks again and again (a stored op's account
 * credential, a key envelope: every re-fold of a namespace judges them again, issue 33): a
 * (key, signature, message) that verified is remembered in a bounded memory
 * (MERO_VERIFY_MEMO_SLOTS slots of 32 bytes, src/crypto/verify_memo.c) and answered from it
 * after; a failure is never remembered. Thread-safe. One-off signatures (gossip, a handshake)
 * use mero_ed25519_verify and leave the memory to these.
 */
#define MERO_VERIFY_MEMO_SLOTS 4096u
MERO_MUST_CHECK int mero_ed25519_verify_memo(const uint8_t sig[static MERO_ED25519_SIG_LEN],
                                             const void *msg, size_t n,
                                             const uint8_t pk[static MERO_ED25519_PK_LEN]);
/* how many mero_ed25519_verify_memo calls were answered from the memory, how many were not */
void mero_ed25519_memo_stats(uint64_t *hits, uint64_t *misses);

void mero_x25519_keypair(uint8_t pk[static MERO_X25519_LEN], uint8_t sk[static MERO_X25519_LEN]);
void mero_x25519_public(uint8_t pk[static MERO_X25519_LEN],
                        const uint8_t sk[static MERO_X25519_LEN]);
/* Refuses an all-zero shared secret (small-order peer key). */
MERO_MUST_CHECK int mero_x25519(uint8_t shared[static MERO_X25519_LEN],
                                const uint8_t sk[static MERO_X25519_LEN],
                                const uint8_t pk[static MERO_X25519_LEN]);

/* AES-256-GCM, no AAD unless given; out gets n + 16 bytes (ciphertext || tag). */
MERO_MUST_CHECK int mero_aes256gcm_seal(uint8_t *out, const uint8_t *in, size_t n,
                                        const uint8_t *aad, size_t aad_len,
                                        const uint8_t nonce[static 12],
                                        const uint8_t key[static MERO_AEAD_KEY_LEN]);
/* in is ciphertext || tag (n >= 16); out gets n - 16 bytes. -MERO_ECRYPTO on a bad tag. */
MERO_MUST_CHECK int mero_aes256gcm_open(uint8_t *out, const uint8_t *in, size_t n,
                                        const uint8_t *aad, size_t aad_len,
                                        const uint8_t nonce[static 12],
                                        const uint8_t key[static MERO_AEAD_KEY_LEN]);

/* ChaCha20-Poly1305 IETF (Noise's cipher); 12-byte nonce. */
MERO_MUST_CHECK int mero_chacha_seal(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *ad,
                                     size_t ad_len, const uint8_t nonce[static 12],
                                     const uint8_t key[static MERO_AEAD_KEY_LEN]);
MERO_MUST_CHECK int mero_chacha_open(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *ad,
                                     size_t ad_len, const uint8_t nonce[static 12],
                                     const uint8_t key[static MERO_AEAD_KEY_LEN]);

/*
 * ChaCha20-Poly1305 IETF under one key for many messages (a Noise transport direction): the
 * key is set up once (OpenSSL EVP, about 1.6x libsodium's throughput on 64 KiB messages here).
 * new: *out owned (free with mero_chacha_key_free, which wipes). seal: out gets n + 16 bytes;
 * open: in is ciphertext || tag (n >= 16), out gets n - 16 bytes, and on a bad tag out is
 * wiped and -MERO_ECRYPTO returned. out may equal in (in place); n <= INT_MAX - 16.
 */
struct mero_chacha_key;
MERO_MUST_CHECK int mero_chacha_key_new(const uint8_t key[static MERO_AEAD_KEY_LEN],
                                        struct mero_chacha_key **out);
void mero_chacha_key_free(struct mero_chacha_key *k);
MERO_MUST_CHECK int mero_chacha_key_seal(struct mero_chacha_key *k, uint8_t *out, const uint8_t *in,
                                         size_t n, const uint8_t *ad, size_t ad_len,
                                         const uint8_t nonce[static 12]);
MERO_MUST_CHECK int mero_chacha_key_open(struct mero_chacha_key *k, uint8_t *out, const uint8_t *in,
                                         size_t n, const uint8_t *ad, size_t ad_len,
                                         const uint8_t nonce[static 12]);

/* issue 31 (tls.c): a PEM certificate and its PEM private key checked as a pair, and the SHA-256
 * of the certificate's SubjectPublicKeyInfo (DER): 0, -MERO_ECRYPTO when either does not
 * parse or the key is not the certificate's. */
MERO_MUST_CHECK int mero_tls_cert_check(const char *cert_pem, size_t cert_len, const char *key_pem,
                                        size_t key_len,
                                        uint8_t spki_sha256[static MERO_SHA256_LEN]);

/* Constant-time equality: 1 when equal. */
int mero_ct_eq(const void *a, const void *b, size_t n);
void mero_wipe(void *p, size_t n);

#endif
