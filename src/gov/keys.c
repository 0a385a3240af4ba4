/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys.c - group keys and KeyDelivery envelopes (reference-calimero.md §6.4): the Member
 * recipient wrap over Edwards ECDH with an ephemeral Ed25519 key, HKDF-SHA256 and
 * AES-256-GCM, and the Ed25519 envelope signature under "calimero.keyenvelope.v1".
 *
 * Invariants: the ECDH scalar is the Ed25519 signing scalar of the seed (SHA-512, clamped,
 * reduced mod l, as ed25519-dalek's to_scalar), so the shared point is the same on both sides
 * whatever torsion a hostile key carries; small-order points and an identity result are
 * refused; every secret intermediate is wiped; an envelope is opened only after its signature
 * verified and only by the key it names.
 */
#include <string.h>

#include "mero/crypto.h"
#include "mero/keys.h"

#define ENVELOPE_SIGNED_MAX 512 /* the bytes an envelope's signature covers */

void mero_group_key_id(uint8_t id[static MERO_KEY_ID_LEN],
                       const uint8_t key[static MERO_GROUP_KEY_LEN])
{
    mero_sha256(id, key, MERO_GROUP_KEY_LEN);
}

void mero_group_key_new(uint8_t key[static MERO_GROUP_KEY_LEN])
{
    mero_random(key, MERO_GROUP_KEY_LEN);
}

/* scalar(seed) x point -> AES key */
static int ecdh_key(uint8_t aes[static MERO_AEAD_KEY_LEN],
                    const uint8_t seed[static MERO_ED25519_SEED_LEN],
                    const uint8_t point[static MERO_ED25519_PK_LEN])
{
    uint8_t h[crypto_hash_sha512_BYTES], wide[crypto_core_ed25519_NONREDUCEDSCALARBYTES];
    uint8_t scalar[crypto_core_ed25519_SCALARBYTES], shared[crypto_core_ed25519_BYTES];
    int rc;
    crypto_hash_sha512(h, seed, MERO_ED25519_SEED_LEN);
    h[0] &= 248;
    h[31] &= 127;
    h[31] |= 64; /* not a length */
    memset(wide, 0, sizeof(wide));
    memcpy(wide, h, sizeof(scalar)); /* the clamped lower half of SHA-512(seed) */
    crypto_core_ed25519_scalar_reduce(scalar, wide);
    MERO_ENSURE_OUT(crypto_scalarmult_ed25519_noclamp(shared, scalar, point) == 0, NULL,
                    MERO_ECRYPTO, "small-order point or identity result");
    rc = mero_hkdf_sha256(aes, MERO_AEAD_KEY_LEN, NULL, 0, shared, sizeof(shared),
                          MERO_ENVELOPE_HKDF_INFO, strlen(MERO_ENVELOPE_HKDF_INFO));
out:
    sodium_memzero(h, sizeof(h));
    sodium_memzero(wide, sizeof(wide));
    sodium_memzero(scalar, sizeof(scalar));
    sodium_memzero(shared, sizeof(shared));
    return rc;
}

static int envelope_signed(const struct mero_key_envelope *e,
                           const uint8_t group_id[static MERO_GROUP_ID_LEN], struct mero_buf *b)
{
    MERO_TRY(mero_buf_append_str(b, MERO_ENVELOPE_DOMAIN));
    MERO_TRY(mero_buf_append(b, group_id, MERO_GROUP_ID_LEN));
    MERO_TRY(mero_buf_append_u8(b, e->recipient_tag));
    MERO_TRY(mero_buf_append(b, e->identity, sizeof(e->identity)));
    MERO_TRY(mero_buf_append(b, e->ephemeral, sizeof(e->ephemeral)));
    MERO_TRY(mero_buf_append(b, e->sender, sizeof(e->sender)));
    MERO_TRY(mero_buf_append(b, e->nonce, sizeof(e->nonce)));
    return mero_buf_append(b, e->ciphertext, sizeof(e->ciphertext));
}

int mero_envelope_wrap(struct mero_key_envelope *out,
                       const uint8_t group_id[static MERO_GROUP_ID_LEN],
                       const uint8_t recipient_pk[static MERO_IDENTITY_LEN],
                       const uint8_t sender_sk[static MERO_ED25519_SK_LEN],
                       const uint8_t key[static MERO_GROUP_KEY_LEN], struct mero_err *err)
{
    struct mero_key_envelope e;
    uint8_t eph_pk[MERO_ED25519_PK_LEN], eph_sk[MERO_ED25519_SK_LEN], aes[MERO_AEAD_KEY_LEN];
    memset(&e, 0, sizeof(e));
    mero_ed25519_keypair(eph_pk, eph_sk);
    int rc = ecdh_key(aes, eph_sk, recipient_pk);
    sodium_memzero(eph_sk, sizeof(eph_sk));
    if (rc < 0) {
        return mero_err_set(err, MERO_ECRYPTO, "recipient key is not a usable Ed25519 point");
    }
    e.recipient_tag = 0;
    memcpy(e.identity, recipient_pk, sizeof(e.identity));
    memcpy(e.ephemeral, eph_pk, sizeof(e.ephemeral));
    memcpy(e.sender, sender_sk + MERO_ED25519_SEED_LEN, sizeof(e.sender));
    mero_random(e.nonce, sizeof(e.nonce));
    rc = mero_aes256gcm_seal(e.ciphertext, key, MERO_GROUP_KEY_LEN, NULL, 0, e.nonce, aes);
    sodium_memzero(aes, sizeof(aes));
    if (rc < 0) {
        return mero_err_set(err, MERO_ECRYPTO, "envelope encryption failed");
    }
    struct mero_buf b;
    mero_buf_init(&b, ENVELOPE_SIGNED_MAX);
    MERO_TRY_OUT(envelope_signed(&e, group_id, &b));
    mero_ed25519_sign(e.signature, b.data, b.len, sender_sk);
    *out = e;
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_envelope_verify(const struct mero_key_envelope *e,
                         const uint8_t group_id[static MERO_GROUP_ID_LEN], struct mero_err *err)
{
    struct mero_buf b;
    int rc;
    MERO_ENSURE(e->recipient_tag == 0, err, MERO_EUNSUPPORTED,
                "envelope recipient kind not supported");
    mero_buf_init(&b, ENVELOPE_SIGNED_MAX);
    MERO_TRY_OUT(envelope_signed(e, group_id, &b));
    MERO_ENSURE_OUT(mero_ed25519_verify_memo(e->signature, b.data, b.len, e->sender) == 0, err,
                    MERO_EBADSIG, "key envelope signature does not verify");
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_envelope_open(const struct mero_key_envelope *e,
                       const uint8_t group_id[static MERO_GROUP_ID_LEN],
                       const uint8_t recipient_sk[static MERO_ED25519_SK_LEN],
                       uint8_t key[static MERO_GROUP_KEY_LEN], struct mero_err *err)
{
    MERO_TRY(mero_envelope_verify(e, group_id, err));
    MERO_ENSURE(mero_ct_eq(e->identity, recipient_sk + MERO_ED25519_SEED_LEN, sizeof(e->identity)),
                err, MERO_EPERM, "key envelope is addressed to another identity");
    uint8_t aes[MERO_AEAD_KEY_LEN], plain[MERO_GROUP_KEY_LEN];
    if (ecdh_key(aes, recipient_sk, e->ephemeral) < 0) {
        return mero_err_set(err, MERO_ECRYPTO, "envelope ephemeral key is not a usable point");
    }
    int rc =
        mero_aes256gcm_open(plain, e->ciphertext, MERO_GOV_ENVELOPE_CT_LEN, NULL, 0, e->nonce, aes);
    sodium_memzero(aes, sizeof(aes));
    if (rc < 0) {
        sodium_memzero(plain, sizeof(plain));
        return mero_err_set(err, MERO_ECRYPTO, "key envelope does not decrypt");
    }
    memcpy(key, plain, sizeof(plain));
    sodium_memzero(plain, sizeof(plain));
    return 0;
}
