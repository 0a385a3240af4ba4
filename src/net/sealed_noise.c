/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed_noise.c - the sealed session's handshake, Noise_NK_25519_AESGCM_SHA256 with the
 * prologue "calimero/sealed-http/v2" (Noise spec rev 34 §7.4), both sides; the symmetric
 * state is noise_sym.c's, shared with the libp2p XX handshake.
 *
 *   <- s                 (the node's transport key, known from its quote)
 *   ...
 *   -> e, es             (empty payload: nothing travels under the static key alone)
 *   <- e, ee             (payload: session id || lifetime, u32 BE)
 *
 * Split gives (request key, response key). The cipher is AESGCM, whose Noise nonce is
 * 4 zero bytes || n as a u64 big-endian (ChaChaPoly's is little-endian).
 *
 * Invariants: a low-order client ephemeral (an all-zero DH) and a message 1 carrying data are
 * refused as malformed (-MERO_EPROTO), a tag that does not verify as undecryptable
 * (-MERO_ECRYPTO); ephemeral secrets and chaining keys are wiped before returning.
 */
#include <string.h>

#include "mero/crypto.h"
#include "mero/sealed.h"
#include "net/noise_internal.h"

struct nk {
    uint8_t h[MERO_NOISE_HASH_LEN], ck[MERO_NOISE_HASH_LEN], k[MERO_AEAD_KEY_LEN];
};

static void nk_init(struct nk *s, const uint8_t rs[MERO_X25519_LEN])
{
    mero__noise_symmetric_init(s->h, s->ck, MERO_SEALED_NOISE_NAME,
                               (const uint8_t *)MERO_SEALED_PROLOGUE,
                               sizeof(MERO_SEALED_PROLOGUE) - 1);
    mero__noise_mix_hash(s->h, rs, MERO_X25519_LEN); /* the pre-message <- s */
}

/* MixKey(DH(sk, pk)): -MERO_EPROTO for a low-order pk (the shared secret would be zero). */
static int nk_dh(struct nk *s, const uint8_t sk[MERO_X25519_LEN], const uint8_t pk[MERO_X25519_LEN])
{
    uint8_t shared[MERO_X25519_LEN];
    if (mero_x25519(shared, sk, pk) < 0) {
        return -MERO_EPROTO;
    }
    int rc = mero__noise_hkdf2(s->ck, shared, sizeof(shared), s->ck, s->k);
    mero_wipe(shared, sizeof(shared));
    return rc;
}

/* The first use of a key after MixKey: nonce 0 (NK uses each handshake key once). */
static const uint8_t NONCE0[MERO_SEALED_NONCE_LEN] = {0};

/* EncryptAndHash of n bytes: out gets n + tag. */
static int nk_encrypt(struct nk *s, const uint8_t *p, size_t n, uint8_t *out)
{
    MERO_TRY(mero_aes256gcm_seal(out, p, n, s->h, sizeof(s->h), NONCE0, s->k));
    mero__noise_mix_hash(s->h, out, n + MERO_AEAD_TAG_LEN);
    return 0;
}

/* DecryptAndHash of n >= tag bytes: out gets n - tag. */
static int nk_decrypt(struct nk *s, const uint8_t *c, size_t n, uint8_t *out)
{
    if (mero_aes256gcm_open(out, c, n, s->h, sizeof(s->h), NONCE0, s->k) < 0) {
        return -MERO_ECRYPTO;
    }
    mero__noise_mix_hash(s->h, c, n);
    return 0;
}

static int nk_split(struct nk *s, struct mero_sealed_keys *keys)
{
    return mero__noise_hkdf2(s->ck, NULL, 0, keys->request, keys->response);
}

int mero_sealed_respond(const uint8_t s_sk[MERO_X25519_LEN], const uint8_t *e_sk,
                        const uint8_t *msg1, size_t n,
                        const uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint32_t lifetime,
                        uint8_t msg2[MERO_SEALED_MSG2_LEN], struct mero_sealed_keys *keys)
{
    struct nk s;
    uint8_t s_pk[MERO_X25519_LEN], esk[MERO_X25519_LEN], epk[MERO_X25519_LEN];
    uint8_t payload[MERO_SEALED_MSG2_PAYLOAD_LEN], empty[1];
    uint8_t out[MERO_SEALED_MSG2_LEN];
    struct mero_sealed_keys k;
    int rc;
    if (n != MERO_SEALED_MSG1_LEN) {
        return -MERO_EPROTO; /* a longer message 1 carries data; a shorter one is not one */
    }
    mero_x25519_public(s_pk, s_sk);
    nk_init(&s, s_pk);
    /* -> e, es */
    mero__noise_mix_hash(s.h, msg1, MERO_X25519_LEN);
    MERO_TRY_OUT(nk_dh(&s, s_sk, msg1));
    MERO_TRY_OUT(nk_decrypt(&s, msg1 + MERO_X25519_LEN, MERO_AEAD_TAG_LEN, empty));
    /* <- e, ee */
    if (e_sk != NULL) {
        memcpy(esk, e_sk, sizeof(esk));
        mero_x25519_public(epk, esk);
    } else {
        mero_x25519_keypair(epk, esk);
    }
    memcpy(out, epk, sizeof(epk));
    mero__noise_mix_hash(s.h, epk, sizeof(epk));
    MERO_TRY_OUT(nk_dh(&s, esk, msg1));
    memcpy(payload, sid, MERO_SEALED_SESSION_ID_LEN);
    for (int i = 0; i < 4; i++) {
        payload[MERO_SEALED_SESSION_ID_LEN + i] = (uint8_t)(lifetime >> (8 * (3 - i)));
    }
    MERO_TRY_OUT(nk_encrypt(&s, payload, sizeof(payload), out + MERO_X25519_LEN));
    MERO_TRY_OUT(nk_split(&s, &k));
    memcpy(msg2, out, sizeof(out));
    *keys = k;
out:
    mero_wipe(&s, sizeof(s));
    mero_wipe(esk, sizeof(esk));
    mero_wipe(&k, sizeof(k));
    return rc;
}

int mero_sealed_initiate(struct mero_sealed_client *c, const uint8_t rs[MERO_X25519_LEN],
                         const uint8_t *e_sk, uint8_t msg1[MERO_SEALED_MSG1_LEN])
{
    struct nk s;
    int rc;
    memset(c, 0, sizeof(*c));
    if (e_sk != NULL) {
        memcpy(c->e_sk, e_sk, sizeof(c->e_sk));
        mero_x25519_public(c->e_pk, c->e_sk);
    } else {
        mero_x25519_keypair(c->e_pk, c->e_sk);
    }
    nk_init(&s, rs);
    mero__noise_mix_hash(s.h, c->e_pk, sizeof(c->e_pk));
    MERO_TRY_OUT(nk_dh(&s, c->e_sk, rs));
    memcpy(msg1, c->e_pk, sizeof(c->e_pk));
    MERO_TRY_OUT(nk_encrypt(&s, NULL, 0, msg1 + MERO_X25519_LEN));
    memcpy(c->h, s.h, sizeof(c->h));
    memcpy(c->ck, s.ck, sizeof(c->ck));
    memcpy(c->k, s.k, sizeof(c->k));
out:
    mero_wipe(&s, sizeof(s));
    if (rc < 0) {
        mero_wipe(c, sizeof(*c));
    }
    return rc;
}

int mero_sealed_finish(struct mero_sealed_client *c, const uint8_t *msg2, size_t n,
                       uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint32_t *lifetime,
                       struct mero_sealed_keys *keys)
{
    struct nk s;
    uint8_t payload[MERO_SEALED_MSG2_PAYLOAD_LEN];
    struct mero_sealed_keys k;
    int rc;
    memcpy(s.h, c->h, sizeof(s.h));
    memcpy(s.ck, c->ck, sizeof(s.ck));
    memcpy(s.k, c->k, sizeof(s.k));
    MERO_ENSURE_OUT(n == MERO_SEALED_MSG2_LEN, NULL, MERO_EPROTO, "message 2 is %zu bytes", n);
    mero__noise_mix_hash(s.h, msg2, MERO_X25519_LEN);
    MERO_TRY_OUT(nk_dh(&s, c->e_sk, msg2));
    MERO_TRY_OUT(nk_decrypt(&s, msg2 + MERO_X25519_LEN, n - MERO_X25519_LEN, payload));
    MERO_TRY_OUT(nk_split(&s, &k));
    memcpy(sid, payload, MERO_SEALED_SESSION_ID_LEN);
    *lifetime = 0;
    for (int i = 0; i < 4; i++) {
        *lifetime = (*lifetime << 8) | payload[MERO_SEALED_SESSION_ID_LEN + i];
    }
    *keys = k;
out:
    mero_wipe(&s, sizeof(s));
    mero_wipe(&k, sizeof(k));
    mero_wipe(c, sizeof(*c));
    return rc;
}
