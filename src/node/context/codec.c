/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec.c - the state delta on the wire: encode (mero__ctx_build_delta), bounded decode, its
 * signature, and the write its plaintext carries. A write is a state delta:
 *
 *   version u8 (1) | context[32] | author[32] | lamport u64 | key_id[32] | nonce[12] |
 *   ct_len u32 | ct (AES-256-GCM under the group key key_id, AAD = the fields before it,
 *   plaintext = klen u32 | key | vlen u32 | value) | signature[64]
 *
 * signed by the author's namespace identity (Ed25519 over "mero.context.delta.v1" || every
 * byte before the signature); its hash is SHA-256 of the whole delta.
 *
 * A relayed delta (issue 15, docs/relay.md "The relayed delta") is version 2:
 *
 *   version u8 (2) | context[32] | author[32] | lamport u64 | key_id[32] | nonce[12] |
 *   executor[32] | relayed_at u64 | ct_len u32 | ct (AAD = every field before ct_len,
 *   plaintext = the member's signed intent, exactly its bytes) | signature[64]
 *
 * signed by the executor (the RelayTee carrying it) over "mero.context.delta.v2" || every byte
 * before the signature; author is the intent's signer, whose write it is. Its key and value are
 * the intent's own, so the write cannot differ from what the member signed.
 *
 * A chained direct delta (issue 30, docs/governance.md "What a removal vouches for") is version 3,
 * what every direct write is now: version 1 with prev[32] (the hash of its author's previous delta
 * in the context, zero for its first) after the nonce, in the AAD, signed by the author over
 * "mero.context.delta.v3" || every byte before the signature. A removal names the removed
 * member's newest delta per context, and through prev every earlier one.
 *
 * Invariants: decode reads at most MERO_DELTA_MAX bytes through one bounded cursor, refuses any
 * byte left over, and a lamport outside 1..MERO_LAMPORT_MAX (so no lamport that reaches the
 * store can wrap); a version-1 key is 1..256 bytes with no NUL. Who may write or relay is not
 * the codec's to judge (relay.c).
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/node_internal.h"

#define HDR_LEN                                                                                    \
    (1 + MERO_CONTEXT_ID_LEN + MERO_IDENTITY_LEN + 8 + MERO_KEY_ID_LEN + MERO_GCM_NONCE_LEN)
/* issue 15: a relayed delta's clear header adds executor and relayed_at */
#define RELAYED_HDR_LEN  (HDR_LEN + MERO_IDENTITY_LEN + 8)
#define CHAINED_HDR_LEN  (HDR_LEN + MERO_DELTA_ID_LEN) /* issue 30: prev */
#define SIGN_DOMAIN_ROOM 64 /* the signing domain before the delta's bytes */

int mero__ctx_decode(const uint8_t *p, size_t len, struct mero_ctx_delta *d)
{
    struct mero_cur c;
    uint8_t v;
    mero_cur_init(&c, p, len);
    if (len > MERO_DELTA_MAX) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(mero_cur_u8(&c, &v));
    if (v != MERO_DELTA_VERSION && v != MERO_DELTA_RELAYED_VERSION &&
        v != MERO_DELTA_CHAINED_VERSION) {
        return -MERO_ESCHEMA;
    }
    memset(d->prev, 0, sizeof(d->prev));
    d->version = v;
    MERO_TRY(mero_cur_copy(&c, d->ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY(mero_cur_copy(&c, d->author, MERO_IDENTITY_LEN));
    MERO_TRY(mero_cur_u64le(&c, &d->lamport));
    if (d->lamport == 0 || d->lamport > MERO_LAMPORT_MAX) {
        return -MERO_ECLOCK;
    }
    MERO_TRY(mero_cur_copy(&c, d->key_id, MERO_KEY_ID_LEN));
    MERO_TRY(mero_cur_copy(&c, d->nonce, MERO_GCM_NONCE_LEN));
    if (v == MERO_DELTA_RELAYED_VERSION) {
        MERO_TRY(mero_cur_copy(&c, d->executor, MERO_IDENTITY_LEN));
        MERO_TRY(mero_cur_u64le(&c, &d->relayed_at));
    } else if (v == MERO_DELTA_CHAINED_VERSION) {
        MERO_TRY(mero_cur_copy(&c, d->prev, MERO_DELTA_ID_LEN));
    }
    d->aad_len = c.off;
    MERO_ASSERT(d->aad_len == (v == MERO_DELTA_RELAYED_VERSION   ? RELAYED_HDR_LEN
                               : v == MERO_DELTA_CHAINED_VERSION ? CHAINED_HDR_LEN
                                                                 : HDR_LEN));
    MERO_TRY(mero_cur_u32le(&c, &d->ct_len));
    if (d->ct_len < MERO_AEAD_TAG_LEN || d->ct_len > mero_cur_left(&c)) {
        return -MERO_ETRUNC;
    }
    MERO_TRY(mero_cur_bytes(&c, d->ct_len, &d->ct));
    d->signed_len = c.off;
    MERO_TRY(mero_cur_copy(&c, d->sig, MERO_ED25519_SIG_LEN));
    if (mero_cur_left(&c) != 0) {
        return -MERO_EPROTO;
    }
    return 0;
}

int mero__ctx_verify_sig(const uint8_t *p, const struct mero_ctx_delta *d)
{
    bool relayed = d->version == MERO_DELTA_RELAYED_VERSION;
    const char *dom = relayed                                    ? MERO_DELTA_RELAYED_DOMAIN
                      : d->version == MERO_DELTA_CHAINED_VERSION ? MERO_DELTA_CHAINED_DOMAIN
                                                                 : MERO_DELTA_DOMAIN;
    size_t dl = strlen(dom);
    uint8_t *msg = malloc(dl + d->signed_len);
    if (msg == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(msg, dom, dl);
    memcpy(msg + dl, p, d->signed_len);
    /* a relayed delta is signed by its executor; a direct one by its author */
    int rc =
        mero_ed25519_verify(d->sig, msg, dl + d->signed_len, relayed ? d->executor : d->author);
    free(msg);
    return rc;
}

/* Parse pt[0..pl) as d's write: klen u32 | key | vlen u32 | value (version 1) or the signed
 * intent (version 2; a refusal with the reason in err when it does not decode). */
int mero__ctx_parse_write(const struct mero_ctx_delta *d, const uint8_t *pt, size_t pl,
                          struct mero_ctx_write *w, struct mero_err *err)
{
    struct mero_cur c;
    memset(w, 0, sizeof(*w));
    if (d->version == MERO_DELTA_RELAYED_VERSION) {
        struct mero_err e = {0};
        if (mero_intent_decode(pt, pl, &w->it, &e) < 0) {
            return mero_err_set(err, MERO_EREFUSED, "the carried intent does not decode: %s",
                                e.msg);
        }
        w->relayed = true;
        w->k = (const uint8_t *)w->it.key;
        w->kl = (uint32_t)w->it.key_len;
        w->v = w->it.value;
        w->vl = (uint32_t)w->it.value_len;
        return 0;
    }
    mero_cur_init(&c, pt, pl);
    MERO_TRY(mero_cur_u32le(&c, &w->kl));
    MERO_ENSURE(w->kl != 0 && w->kl <= 256, NULL, MERO_EPROTO, "key length");
    MERO_TRY(mero_cur_bytes(&c, w->kl, &w->k));
    MERO_TRY(mero_cur_u32le(&c, &w->vl));
    MERO_TRY(mero_cur_bytes(&c, w->vl, &w->v));
    MERO_ENSURE(mero_cur_left(&c) == 0 && memchr(w->k, 0, w->kl) == NULL, NULL, MERO_EPROTO,
                "plaintext");
    return 0;
}

int mero__ctx_build_delta(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          const uint8_t ns[MERO_NS_ID_LEN], const uint8_t me[MERO_IDENTITY_LEN],
                          uint64_t lamport, const uint8_t gk[MERO_GROUP_KEY_LEN],
                          const uint8_t key_id[MERO_KEY_ID_LEN],
                          const uint8_t prev[MERO_DELTA_ID_LEN], const char *key,
                          const uint8_t *value, size_t vlen, const struct mero_ctx_relayed *rl,
                          struct mero_buf *d)
{
    const char *dom = rl != NULL ? MERO_DELTA_RELAYED_DOMAIN : MERO_DELTA_CHAINED_DOMAIN;
    size_t kl = rl != NULL ? 0 : strlen(key), dl = strlen(dom);
    struct mero_buf pt, msg;
    uint8_t nonce[MERO_GCM_NONCE_LEN], sk[MERO_ED25519_SK_LEN], sig[MERO_ED25519_SIG_LEN];
    uint8_t *ct = NULL;
    int rc;
    mero_buf_init(&pt, MERO_DELTA_MAX);
    mero_buf_init(&msg, MERO_DELTA_MAX + SIGN_DOMAIN_ROOM);
    if (rl != NULL) {
        MERO_TRY_OUT(mero_buf_append(&pt, rl->intent, rl->len));
    } else {
        MERO_TRY_OUT(mero_buf_append_u32le(&pt, (uint32_t)kl));
        MERO_TRY_OUT(mero_buf_append(&pt, key, kl));
        MERO_TRY_OUT(mero_buf_append_u32le(&pt, (uint32_t)vlen));
        MERO_TRY_OUT(mero_buf_append(&pt, vlen ? value : (const uint8_t *)"", vlen));
    }
    mero_random(nonce, sizeof(nonce));
    MERO_TRY_OUT(mero_buf_append_u8(d, rl != NULL ? MERO_DELTA_RELAYED_VERSION
                                                  : MERO_DELTA_CHAINED_VERSION));
    MERO_TRY_OUT(mero_buf_append(d, ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY_OUT(mero_buf_append(d, me, MERO_IDENTITY_LEN));
    MERO_TRY_OUT(mero_buf_append_u64le(d, lamport));
    MERO_TRY_OUT(mero_buf_append(d, key_id, MERO_KEY_ID_LEN));
    MERO_TRY_OUT(mero_buf_append(d, nonce, sizeof(nonce)));
    if (rl != NULL) {
        MERO_TRY_OUT(mero_buf_append(d, rl->executor, MERO_IDENTITY_LEN));
        MERO_TRY_OUT(mero_buf_append_u64le(d, rl->relayed_at));
    } else {
        MERO_TRY_OUT(mero_buf_append(d, prev, MERO_DELTA_ID_LEN));
    }
    size_t aad = d->len;
    MERO_TRY_OUT(mero_buf_append_u32le(d, (uint32_t)(pt.len + MERO_AEAD_TAG_LEN)));
    ct = malloc(pt.len + MERO_AEAD_TAG_LEN);
    MERO_ENSURE_OUT(ct != NULL, NULL, MERO_ENOMEM, "out of memory");
    MERO_TRY_OUT(mero_aes256gcm_seal(ct, pt.data, pt.len, d->data, aad, nonce, gk));
    MERO_TRY_OUT(mero_buf_append(d, ct, pt.len + MERO_AEAD_TAG_LEN));
    MERO_TRY_OUT(mero_buf_append(&msg, dom, dl));
    MERO_TRY_OUT(mero_buf_append(&msg, d->data, d->len));
    MERO_TRY_OUT(mero_gov_identity_secret(node->store, ns, sk));
    mero_ed25519_sign(sig, msg.data, msg.len, sk);
    MERO_TRY_OUT(mero_buf_append(d, sig, sizeof(sig)));
out:
    mero_wipe(sk, sizeof(sk));
    free(ct);
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&pt);
    return rc;
}
