/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crypto.c - thin checked wrappers over libsodium and OpenSSL. AES-256-GCM goes through
 * libsodium's AES-NI form where the CPU has it (no per-call context or cipher lookup, the bulk of
 * a small message's cost through EVP), else through EVP with the cipher fetched once; the same
 * bytes either way (test_crypto_gcm holds them together).
 * Invariant: a failed open/verify leaves no plaintext in its output (the one-shot forms never
 * write it, the keyed ChaCha20-Poly1305 form wipes what it wrote); secret temporaries are wiped.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "crypto/crypto_internal.h"
#include "mero/crypto.h"

/* Set once by mero_crypto_init, before any thread (crypto.h): AES-256-GCM through libsodium
 * where the CPU has AES-NI and CLMUL, else through OpenSSL with the cipher fetched once. */
static bool gcm_sodium;
static EVP_CIPHER *gcm_cipher;

int mero_crypto_init(void)
{
    if (sodium_init() < 0) {
        return -MERO_ECRYPTO;
    }
    gcm_sodium = crypto_aead_aes256gcm_is_available() == 1;
    if (gcm_cipher == NULL) {
        gcm_cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL); /* NULL: fetched per call */
    }
    return 0;
}

void mero_random(void *buf, size_t n)
{
    randombytes_buf(buf, n);
}

void mero_sha256_init(struct mero_sha256 *h)
{
    crypto_hash_sha256_init(&h->st);
}

void mero_sha256_update(struct mero_sha256 *h, const void *p, size_t n)
{
    crypto_hash_sha256_update(&h->st, p, n);
}

void mero_sha256_final(struct mero_sha256 *h, uint8_t out[static MERO_SHA256_LEN])
{
    crypto_hash_sha256_final(&h->st, out);
}

void mero_sha256(uint8_t out[static MERO_SHA256_LEN], const void *p, size_t n)
{
    SHA256(p, n, out);
}

void mero_sha384(uint8_t out[static MERO_SHA384_LEN], const void *p, size_t n)
{
    SHA384(p, n, out);
}

void mero_sha384_2(uint8_t out[static MERO_SHA384_LEN], const void *a, size_t na, const void *b,
                   size_t nb)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int len = 0;
    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha384(), NULL) != 1 ||
        EVP_DigestUpdate(ctx, a, na) != 1 || EVP_DigestUpdate(ctx, b, nb) != 1 ||
        EVP_DigestFinal_ex(ctx, out, &len) != 1) {
        memset(out, 0, MERO_SHA384_LEN); /* cannot happen short of ENOMEM */
    }
    EVP_MD_CTX_free(ctx);
}

void mero_hmac_sha256(uint8_t out[static MERO_SHA256_LEN], const uint8_t *key, size_t keylen,
                      const void *msg, size_t n)
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, key, keylen);
    crypto_auth_hmacsha256_update(&st, msg, n);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof(st));
}

int mero_hkdf_sha256(uint8_t *okm, size_t okm_len, const uint8_t *salt, size_t salt_len,
                     const uint8_t *ikm, size_t ikm_len, const void *info, size_t info_len)
{
    static const uint8_t zeros[MERO_SHA256_LEN];
    uint8_t prk[MERO_SHA256_LEN], t[MERO_SHA256_LEN];
    if (okm_len > 255 * MERO_SHA256_LEN) {
        return -MERO_EINVAL;
    }
    if (salt == NULL || salt_len == 0) {
        salt = zeros;
        salt_len = sizeof(zeros);
    }
    mero_hmac_sha256(prk, salt, salt_len, ikm, ikm_len);
    size_t done = 0, tlen = 0;
    for (uint8_t i = 1; done < okm_len; i++) {
        crypto_auth_hmacsha256_state st;
        crypto_auth_hmacsha256_init(&st, prk, sizeof(prk));
        crypto_auth_hmacsha256_update(&st, t, tlen);
        crypto_auth_hmacsha256_update(&st, info, info_len);
        crypto_auth_hmacsha256_update(&st, &i, 1);
        crypto_auth_hmacsha256_final(&st, t);
        sodium_memzero(&st, sizeof(st));
        tlen = sizeof(t);
        size_t k = okm_len - done < sizeof(t) ? okm_len - done : sizeof(t);
        memcpy(okm + done, t, k);
        done += k;
    }
    sodium_memzero(prk, sizeof(prk));
    sodium_memzero(t, sizeof(t));
    return 0;
}

void mero_ed25519_keypair(uint8_t pk[static MERO_ED25519_PK_LEN],
                          uint8_t sk[static MERO_ED25519_SK_LEN])
{
    crypto_sign_keypair(pk, sk);
}

void mero_ed25519_from_seed(uint8_t pk[static MERO_ED25519_PK_LEN],
                            uint8_t sk[static MERO_ED25519_SK_LEN],
                            const uint8_t seed[static MERO_ED25519_SEED_LEN])
{
    crypto_sign_seed_keypair(pk, sk, seed);
}

void mero_ed25519_sign(uint8_t sig[static MERO_ED25519_SIG_LEN], const void *msg, size_t n,
                       const uint8_t sk[static MERO_ED25519_SK_LEN])
{
    crypto_sign_detached(sig, NULL, msg, n, sk);
}

int mero_ed25519_verify(const uint8_t sig[static MERO_ED25519_SIG_LEN], const void *msg, size_t n,
                        const uint8_t pk[static MERO_ED25519_PK_LEN])
{
    return crypto_sign_verify_detached(sig, msg, n, pk) == 0 ? 0 : -MERO_EBADSIG;
}

void mero_x25519_keypair(uint8_t pk[static MERO_X25519_LEN], uint8_t sk[static MERO_X25519_LEN])
{
    randombytes_buf(sk, MERO_X25519_LEN);
    crypto_scalarmult_base(pk, sk);
}

void mero_x25519_public(uint8_t pk[static MERO_X25519_LEN],
                        const uint8_t sk[static MERO_X25519_LEN])
{
    crypto_scalarmult_base(pk, sk);
}

int mero_x25519(uint8_t shared[static MERO_X25519_LEN], const uint8_t sk[static MERO_X25519_LEN],
                const uint8_t pk[static MERO_X25519_LEN])
{
    uint8_t t[MERO_X25519_LEN];
    if (crypto_scalarmult(t, sk, pk) != 0 || sodium_is_zero(t, sizeof(t))) {
        sodium_memzero(t, sizeof(t));
        return -MERO_ECRYPTO;
    }
    memcpy(shared, t, sizeof(t));
    sodium_memzero(t, sizeof(t));
    return 0;
}

static int gcm(int enc, uint8_t *out, const uint8_t *in, size_t n, const uint8_t *aad,
               size_t aad_len, const uint8_t nonce[static 12],
               const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    int rc = -MERO_ECRYPTO, len = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        return -MERO_ENOMEM;
    }
    MERO_ENSURE_OUT(n <= (size_t)INT32_MAX - 2 * MERO_AEAD_TAG_LEN && aad_len <= (size_t)INT32_MAX,
                    NULL, MERO_ECRYPTO, "GCM input too long");
    MERO_ENSURE_OUT(EVP_CipherInit_ex(ctx, gcm_cipher != NULL ? gcm_cipher : EVP_aes_256_gcm(),
                                      NULL, key, nonce, enc) == 1,
                    NULL, MERO_ECRYPTO, "GCM init");
    MERO_ENSURE_OUT(aad_len == 0 || EVP_CipherUpdate(ctx, NULL, &len, aad, (int)aad_len) == 1, NULL,
                    MERO_ECRYPTO, "GCM aad");
    if (enc) {
        MERO_ENSURE_OUT(EVP_CipherUpdate(ctx, out, &len, in, (int)n) == 1 &&
                            EVP_CipherFinal_ex(ctx, out + len, &len) == 1 &&
                            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + n) == 1,
                        NULL, MERO_ECRYPTO, "GCM seal");
    } else {
        size_t m = n - 16;
        uint8_t tag[16];
        memcpy(tag, in + m, 16);
        int opened = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1 &&
                     EVP_CipherUpdate(ctx, out, &len, in, (int)m) == 1 &&
                     EVP_CipherFinal_ex(ctx, out + len, &len) == 1;
        if (!opened) {
            sodium_memzero(out, m); /* no unauthenticated plaintext leaves */
        }
        MERO_ENSURE_OUT(opened, NULL, MERO_ECRYPTO, "GCM open");
    }
    rc = 0;
out:
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}

/* libsodium's AES-NI form: no context to allocate and no cipher to look up per call, which is
 * most of a small message's cost through EVP (issue 31, docs/sealed.md). The same bytes. */
static int gcm_ni(int enc, uint8_t *out, const uint8_t *in, size_t n, const uint8_t *aad,
                  size_t aad_len, const uint8_t nonce[static 12],
                  const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    if (n > (size_t)INT32_MAX - 2 * MERO_AEAD_TAG_LEN || aad_len > (size_t)INT32_MAX) {
        return -MERO_ECRYPTO;
    }
    if (enc) {
        return crypto_aead_aes256gcm_encrypt_detached(out, out + n, NULL, in, n, aad, aad_len, NULL,
                                                      nonce, key) == 0
                   ? 0
                   : -MERO_ECRYPTO;
    }
    size_t m = n - MERO_AEAD_TAG_LEN;
    uint8_t tag[MERO_AEAD_TAG_LEN];
    memcpy(tag, in + m, sizeof(tag)); /* in and out may be one buffer */
    if (crypto_aead_aes256gcm_decrypt_detached(out, NULL, in, m, tag, aad, aad_len, nonce, key) !=
        0) {
        sodium_memzero(out, m); /* no unauthenticated plaintext leaves */
        return -MERO_ECRYPTO;
    }
    return 0;
}

int mero__aes256gcm_evp(int enc, uint8_t *out, const uint8_t *in, size_t n, const uint8_t *aad,
                        size_t aad_len, const uint8_t nonce[static 12],
                        const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    if (!enc && n < MERO_AEAD_TAG_LEN) {
        return -MERO_ECRYPTO;
    }
    return gcm(enc, out, in, n, aad, aad_len, nonce, key);
}

int mero_aes256gcm_seal(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *aad,
                        size_t aad_len, const uint8_t nonce[static 12],
                        const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    return gcm_sodium ? gcm_ni(1, out, in, n, aad, aad_len, nonce, key)
                      : gcm(1, out, in, n, aad, aad_len, nonce, key);
}

int mero_aes256gcm_open(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *aad,
                        size_t aad_len, const uint8_t nonce[static 12],
                        const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    if (n < 16) {
        return -MERO_ECRYPTO;
    }
    return gcm_sodium ? gcm_ni(0, out, in, n, aad, aad_len, nonce, key)
                      : gcm(0, out, in, n, aad, aad_len, nonce, key);
}

int mero_chacha_seal(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *ad, size_t ad_len,
                     const uint8_t nonce[static 12], const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    unsigned long long clen = 0;
    return crypto_aead_chacha20poly1305_ietf_encrypt(out, &clen, in, n, ad, ad_len, NULL, nonce,
                                                     key) == 0
               ? 0
               : -MERO_ECRYPTO;
}

int mero_chacha_open(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *ad, size_t ad_len,
                     const uint8_t nonce[static 12], const uint8_t key[static MERO_AEAD_KEY_LEN])
{
    unsigned long long mlen = 0;
    if (n < 16) {
        return -MERO_ECRYPTO;
    }
    return crypto_aead_chacha20poly1305_ietf_decrypt(out, &mlen, NULL, in, n, ad, ad_len, nonce,
                                                     key) == 0
               ? 0
               : -MERO_ECRYPTO;
}

struct mero_chacha_key {
    EVP_CIPHER_CTX *ctx;
};

int mero_chacha_key_new(const uint8_t key[static MERO_AEAD_KEY_LEN], struct mero_chacha_key **out)
{
    struct mero_chacha_key *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        return -MERO_ENOMEM;
    }
    k->ctx = EVP_CIPHER_CTX_new();
    if (k->ctx == NULL ||
        EVP_CipherInit_ex(k->ctx, EVP_chacha20_poly1305(), NULL, key, NULL, 1) != 1) {
        mero_chacha_key_free(k);
        return -MERO_ECRYPTO;
    }
    *out = k;
    return 0;
}

void mero_chacha_key_free(struct mero_chacha_key *k)
{
    if (k == NULL) {
        return;
    }
    EVP_CIPHER_CTX_free(k->ctx); /* cleanses the key schedule */
    free(k);
}

/* One AEAD pass in direction enc; for open, the tag follows the n bytes of ciphertext. */
static int chacha_key_run(struct mero_chacha_key *k, int enc, uint8_t *out, const uint8_t *in,
                          size_t n, const uint8_t *ad, size_t ad_len,
                          const uint8_t nonce[static 12], uint8_t tag[16])
{
    int l = 0;
    if (n > (size_t)INT_MAX - 16 || ad_len > (size_t)INT_MAX ||
        EVP_CipherInit_ex(k->ctx, NULL, NULL, NULL, nonce, enc) != 1) {
        return -MERO_ECRYPTO;
    }
    if (!enc && EVP_CIPHER_CTX_ctrl(k->ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) {
        return -MERO_ECRYPTO;
    }
    if (ad_len && EVP_CipherUpdate(k->ctx, NULL, &l, ad, (int)ad_len) != 1) {
        return -MERO_ECRYPTO;
    }
    if ((n && EVP_CipherUpdate(k->ctx, out, &l, in, (int)n) != 1) ||
        EVP_CipherFinal_ex(k->ctx, out + n, &l) != 1) {
        return -MERO_ECRYPTO;
    }
    if (enc && EVP_CIPHER_CTX_ctrl(k->ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) {
        return -MERO_ECRYPTO;
    }
    return 0;
}

int mero_chacha_key_seal(struct mero_chacha_key *k, uint8_t *out, const uint8_t *in, size_t n,
                         const uint8_t *ad, size_t ad_len, const uint8_t nonce[static 12])
{
    uint8_t tag[16];
    MERO_TRY(chacha_key_run(k, 1, out, in, n, ad, ad_len, nonce, tag));
    memcpy(out + n, tag, 16);
    return 0;
}

int mero_chacha_key_open(struct mero_chacha_key *k, uint8_t *out, const uint8_t *in, size_t n,
                         const uint8_t *ad, size_t ad_len, const uint8_t nonce[static 12])
{
    uint8_t tag[16];
    if (n < 16) {
        return -MERO_ECRYPTO;
    }
    memcpy(tag, in + n - 16, 16); /* SET_TAG wants a writable copy */
    if (chacha_key_run(k, 0, out, in, n - 16, ad, ad_len, nonce, tag) < 0) {
        sodium_memzero(out, n - 16); /* never leave unauthenticated plaintext behind */
        return -MERO_ECRYPTO;
    }
    return 0;
}

int mero_ct_eq(const void *a, const void *b, size_t n)
{
    return sodium_memcmp(a, b, n) == 0;
}

void mero_wipe(void *p, size_t n)
{
    sodium_memzero(p, n);
}
