/* SPDX-License-Identifier: Apache-2.0 */
/*
 * noise.c - Noise_XX_25519_ChaChaPoly_SHA256 (Noise spec rev 34 §5, §7) and the libp2p Noise
 * handshake payload (libp2p noise spec): the state machine only, no I/O. Messages here exclude
 * the libp2p 2-byte big-endian length prefix, which conn.c adds and strips.
 *
 *   -> e
 *   <- e, ee, s, es      (responder payload: its identity key + signature)
 *   -> s, se             (initiator payload)
 *
 * Invariants: a handshake message is processed only in its turn; every decryption failure or
 * bad payload signature is fatal (no retry); the remote identity is available only after its
 * payload signature over "noise-libp2p-static-key:" || rs verified; key material is wiped in
 * cleanup; a nonce never repeats (n == 2^64-1 is refused).
 */
#include <string.h>

#include "mero/crypto.h"
#include "net/noise_internal.h"
#include "net/peerid_internal.h"
#include "net/protobuf_internal.h"

static const char PROTO_NAME[] = "Noise_XX_25519_ChaChaPoly_SHA256";
static const char SIG_PREFIX[] = "noise-libp2p-static-key:";
/* The name is exactly HASHLEN bytes, so h starts as the name itself (no hashing, no padding).
 * The symmetric state (MixHash, the HKDF of MixKey and Split) is noise_sym.c's. */
_Static_assert(sizeof(PROTO_NAME) - 1 == MERO_NOISE_HASH_LEN, "protocol name is HASHLEN bytes");

/* Handshake message parts: a public key in the clear, a static key encrypted with its tag. */
#define DH_LEN      MERO_NOISE_DH_LEN
#define ENC_S_LEN   (MERO_NOISE_DH_LEN + MERO_NOISE_TAG_LEN)
#define OKM2_LEN    (2 * MERO_NOISE_HASH_LEN) /* HKDF with two outputs */
#define SIG_MSG_LEN (sizeof(SIG_PREFIX) - 1 + MERO_NOISE_DH_LEN)

static void mix_hash(struct mero__noise *ns, const uint8_t *p, size_t n)
{
    mero__noise_mix_hash(ns->h, p, n);
}

static int mix_key(struct mero__noise *ns, const uint8_t ikm[MERO_NOISE_DH_LEN])
{
    MERO_TRY(mero__noise_hkdf2(ns->ck, ikm, MERO_NOISE_DH_LEN, ns->ck, ns->cs.k));
    ns->cs.n = 0;
    ns->cs.has_key = 1;
    return 0;
}

static int dh_mix(struct mero__noise *ns, const uint8_t sk[MERO_NOISE_DH_LEN],
                  const uint8_t pk[MERO_NOISE_DH_LEN])
{
    uint8_t shared[MERO_NOISE_DH_LEN];
    if (mero_x25519(shared, sk, pk) < 0) {
        return -MERO_ECRYPTO;
    }
    int rc = mix_key(ns, shared);
    mero_wipe(shared, sizeof(shared));
    return rc;
}

static void nonce_of(uint64_t n, uint8_t nonce[MERO_NOISE_NONCE_LEN])
{
    memset(nonce, 0, 4);
    for (int i = 0; i < 8; i++) {
        nonce[4 + i] = (uint8_t)(n >> (8 * i));
    }
}

int mero__cipher_seal(struct mero__cipher *c, const uint8_t *ad, size_t adlen, const uint8_t *in,
                      size_t n, uint8_t *out)
{
    uint8_t nonce[MERO_NOISE_NONCE_LEN];
    if (c->n == UINT64_MAX) {
        return -MERO_ECRYPTO;
    }
    nonce_of(c->n, nonce);
    if (c->key) {
        MERO_TRY(mero_chacha_key_seal(c->key, out, in, n, ad, adlen, nonce));
    } else {
        MERO_TRY(mero_chacha_seal(out, in, n, ad, adlen, nonce, c->k));
    }
    c->n++;
    return 0;
}

int mero__cipher_open(struct mero__cipher *c, const uint8_t *ad, size_t adlen, const uint8_t *in,
                      size_t n, uint8_t *out)
{
    uint8_t nonce[MERO_NOISE_NONCE_LEN];
    if (c->n == UINT64_MAX || n < MERO__NOISE_TAG) {
        return -MERO_ECRYPTO;
    }
    nonce_of(c->n, nonce);
    if ((c->key ? mero_chacha_key_open(c->key, out, in, n, ad, adlen, nonce)
                : mero_chacha_open(out, in, n, ad, adlen, nonce, c->k)) < 0) {
        return -MERO_ECRYPTO;
    }
    c->n++;
    return 0;
}

/* EncryptAndHash: append ciphertext (or plaintext before the first key) to out. */
static int encrypt_and_hash(struct mero__noise *ns, const uint8_t *p, size_t n,
                            struct mero_buf *out)
{
    if (!ns->cs.has_key) {
        mix_hash(ns, p, n);
        return n ? mero_buf_append(out, p, n) : 0;
    }
    size_t off = out->len;
    uint8_t pad = 0;
    /* grow the buffer by n + 16, then seal in place at the end */
    MERO_TRY(mero_buf_append(out, n ? p : &pad, n ? n : 0));
    for (int i = 0; i < MERO__NOISE_TAG; i++) {
        MERO_TRY(mero_buf_append_u8(out, 0));
    }
    MERO_TRY(mero__cipher_seal(&ns->cs, ns->h, sizeof(ns->h), out->data + off, n, out->data + off));
    mix_hash(ns, out->data + off, n + MERO__NOISE_TAG);
    return 0;
}

/* DecryptAndHash of exactly n input bytes into out (n - 16 bytes, or n without a key). */
static int decrypt_and_hash(struct mero__noise *ns, const uint8_t *p, size_t n, uint8_t *out)
{
    uint8_t h_before[MERO_NOISE_HASH_LEN];
    if (!ns->cs.has_key) {
        memcpy(out, p, n);
        mix_hash(ns, p, n);
        return 0;
    }
    memcpy(h_before, ns->h, sizeof(h_before));
    mix_hash(ns, p, n); /* h is over the ciphertext */
    return mero__cipher_open(&ns->cs, h_before, sizeof(h_before), p, n, out);
}

void mero__noise_init(struct mero__noise *ns, int initiator, const uint8_t s_sk[MERO_NOISE_DH_LEN],
                      const uint8_t *e_sk)
{
    memset(ns, 0, sizeof(*ns));
    ns->initiator = initiator;
    mero__noise_symmetric_init(ns->h, ns->ck, PROTO_NAME, NULL, 0); /* empty prologue */
    memcpy(ns->s_sk, s_sk, sizeof(ns->s_sk));
    mero_x25519_public(ns->s_pk, ns->s_sk);
    if (e_sk) {
        memcpy(ns->e_sk, e_sk, sizeof(ns->e_sk));
        mero_x25519_public(ns->e_pk, ns->e_sk);
    } else {
        mero_x25519_keypair(ns->e_pk, ns->e_sk);
    }
}

void mero__noise_cleanup(struct mero__noise *ns)
{
    mero_chacha_key_free(ns->tx.key);
    mero_chacha_key_free(ns->rx.key);
    mero_wipe(ns, sizeof(*ns));
}

static int split(struct mero__noise *ns)
{
    uint8_t okm[OKM2_LEN];
    int rc;
    MERO_TRY(mero__noise_hkdf2(ns->ck, NULL, 0, okm, okm + MERO_NOISE_HASH_LEN));
    struct mero__cipher *first = ns->initiator ? &ns->tx : &ns->rx;
    struct mero__cipher *second = ns->initiator ? &ns->rx : &ns->tx;
    /* on failure a key already made is freed by cleanup */
    MERO_TRY_OUT(mero_chacha_key_new(okm, &first->key));
    MERO_TRY_OUT(mero_chacha_key_new(okm + MERO_NOISE_HASH_LEN, &second->key));
    first->n = second->n = 0;
    first->has_key = second->has_key = 1;
    mero_wipe(ns->e_sk, sizeof(ns->e_sk));
    ns->done = 1;
out:
    mero_wipe(okm, sizeof(okm));
    return rc;
}

int mero__noise_write(struct mero__noise *ns, const uint8_t *payload, size_t plen,
                      struct mero_buf *out)
{
    int turn_ok =
        (ns->initiator && (ns->step == 0 || ns->step == 2)) || (!ns->initiator && ns->step == 1);
    if (!turn_ok || ns->done) {
        return -MERO_ESTATE;
    }
    if (ns->step == 0) { /* -> e */
        MERO_TRY(mero_buf_append(out, ns->e_pk, sizeof(ns->e_pk)));
        mix_hash(ns, ns->e_pk, sizeof(ns->e_pk));
    } else if (ns->step == 1) { /* <- e, ee, s, es */
        MERO_TRY(mero_buf_append(out, ns->e_pk, sizeof(ns->e_pk)));
        mix_hash(ns, ns->e_pk, sizeof(ns->e_pk));
        MERO_TRY(dh_mix(ns, ns->e_sk, ns->re));
        MERO_TRY(encrypt_and_hash(ns, ns->s_pk, sizeof(ns->s_pk), out));
        MERO_TRY(dh_mix(ns, ns->s_sk, ns->re));
    } else { /* -> s, se */
        MERO_TRY(encrypt_and_hash(ns, ns->s_pk, sizeof(ns->s_pk), out));
        MERO_TRY(dh_mix(ns, ns->s_sk, ns->re));
    }
    MERO_TRY(encrypt_and_hash(ns, payload, plen, out));
    ns->step++;
    if (ns->step == 3) {
        MERO_TRY(split(ns));
    }
    return 0;
}

static int noise_read(struct mero__noise *ns, const uint8_t *msg, size_t n,
                      struct mero_buf *payload);

/* A failed read poisons the state: the handshake cannot be resumed or retried. */
int mero__noise_read(struct mero__noise *ns, const uint8_t *msg, size_t n, struct mero_buf *payload)
{
    int rc = noise_read(ns, msg, n, payload);
    if (rc < 0 && rc != -MERO_ESTATE) {
        ns->step = 4;
        ns->done = 0;
    }
    return rc;
}

static int noise_read(struct mero__noise *ns, const uint8_t *msg, size_t n,
                      struct mero_buf *payload)
{
    int turn_ok =
        (!ns->initiator && (ns->step == 0 || ns->step == 2)) || (ns->initiator && ns->step == 1);
    size_t off = 0;
    uint8_t tmp[MERO__NOISE_MAX_MSG];
    if (!turn_ok || ns->done) {
        return -MERO_ESTATE;
    }
    if (n > MERO__NOISE_MAX_MSG) {
        return -MERO_ETOOBIG;
    }
    if (ns->step == 0) { /* -> e */
        if (n < DH_LEN) {
            return -MERO_ETRUNC;
        }
        memcpy(ns->re, msg, DH_LEN);
        mix_hash(ns, ns->re, DH_LEN);
        off = DH_LEN;
    } else if (ns->step == 1) { /* <- e, ee, s, es */
        if (n < DH_LEN + ENC_S_LEN) {
            return -MERO_ETRUNC;
        }
        memcpy(ns->re, msg, DH_LEN);
        mix_hash(ns, ns->re, DH_LEN);
        MERO_TRY(dh_mix(ns, ns->e_sk, ns->re));
        MERO_TRY(decrypt_and_hash(ns, msg + DH_LEN, ENC_S_LEN, ns->rs));
        MERO_TRY(dh_mix(ns, ns->e_sk, ns->rs));
        off = DH_LEN + ENC_S_LEN;
    } else { /* -> s, se */
        if (n < ENC_S_LEN) {
            return -MERO_ETRUNC;
        }
        MERO_TRY(decrypt_and_hash(ns, msg, ENC_S_LEN, ns->rs));
        MERO_TRY(dh_mix(ns, ns->e_sk, ns->rs));
        off = ENC_S_LEN;
    }
    size_t rest = n - off;
    if (ns->cs.has_key && rest < MERO__NOISE_TAG) {
        return -MERO_ETRUNC;
    }
    MERO_TRY(decrypt_and_hash(ns, msg + off, rest, tmp));
    size_t plen = ns->cs.has_key ? rest - MERO__NOISE_TAG : rest;
    mero_buf_reset(payload);
    if (plen) {
        MERO_TRY(mero_buf_append(payload, tmp, plen));
    }
    mero_wipe(tmp, plen);
    ns->step++;
    if (ns->step == 3) {
        MERO_TRY(split(ns));
    }
    return 0;
}

int mero__noise_payload_make(const uint8_t id_sk[MERO_ED25519_SK_LEN],
                             const uint8_t s_pk[MERO_NOISE_DH_LEN], struct mero_buf *out)
{
    uint8_t msg[SIG_MSG_LEN], sig[MERO_ED25519_SIG_LEN], pb[MERO__PUBKEY_PB_LEN];
    memcpy(msg, SIG_PREFIX, sizeof(SIG_PREFIX) - 1);
    memcpy(msg + sizeof(SIG_PREFIX) - 1, s_pk, MERO_NOISE_DH_LEN);
    mero_ed25519_sign(sig, msg, sizeof(msg), id_sk);
    mero__pubkey_pb(id_sk + MERO_ED25519_SEED_LEN, pb); /* sk = seed || pk */
    MERO_TRY(mero__pb_put_bytes(out, 1, pb, sizeof(pb)));
    return mero__pb_put_bytes(out, 2, sig, sizeof(sig));
}

int mero__noise_payload_verify(const uint8_t *p, size_t n, const uint8_t rs[MERO_NOISE_DH_LEN],
                               uint8_t id_pk[MERO_ED25519_PK_LEN])
{
    struct mero_cur c;
    struct mero__pb_field f;
    const uint8_t *key = NULL, *sig = NULL;
    size_t keyn = 0, sign = 0;
    uint8_t pk[MERO_ED25519_PK_LEN], msg[SIG_MSG_LEN];
    int rc;
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 1 && f.wt == MERO__PB_LEN) {
            key = f.p;
            keyn = f.n;
        } else if (f.num == 2 && f.wt == MERO__PB_LEN) {
            sig = f.p;
            sign = f.n;
        } /* 4 = extensions, others: ignored */
    }
    if (rc < 0) {
        return rc;
    }
    if (key == NULL || sig == NULL) {
        return -MERO_EPROTO;
    }
    MERO_TRY(mero__pubkey_pb_parse(key, keyn, pk));
    if (sign != MERO_ED25519_SIG_LEN) {
        return -MERO_EBADSIG;
    }
    memcpy(msg, SIG_PREFIX, sizeof(SIG_PREFIX) - 1);
    memcpy(msg + sizeof(SIG_PREFIX) - 1, rs, MERO_NOISE_DH_LEN);
    if (mero_ed25519_verify(sig, msg, sizeof(msg), pk) < 0) {
        return -MERO_EBADSIG;
    }
    memcpy(id_pk, pk, MERO_ED25519_PK_LEN);
    return 0;
}
