/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_relayed_delta.c - libFuzzer target for the one apply path of context deltas
 * (mero__node_ctx_apply, src/node/context/apply.c) with relayed deltas (issue 15), on an in-memory
 * node whose namespace holds a RelayTee and a Member. Each input is applied twice: as raw delta
 * bytes (the bounded decoder, versions 1, 2 and 3), and as the plaintext of a relayed delta this
 * harness seals under the group key and signs as the relay (input: lamport u64 | relayed_at
 * u64 | plaintext), so the checks behind the signature and the AEAD (the carried intent's
 * strict decode, its signature, namespace, context, author, time, warrant, replay) see
 * arbitrary bytes. Nothing may crash or leak; a refused delta is never stored.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

static struct mero_node node;
static uint8_t ns[MERO_NS_ID_LEN], ctx[MERO_CONTEXT_ID_LEN];
static uint8_t relay_pk[MERO_ED25519_PK_LEN], relay_sk[MERO_ED25519_SK_LEN];
static uint8_t member_pk[MERO_ED25519_PK_LEN], member_sk[MERO_ED25519_SK_LEN];

static void setup(void)
{
    struct mero_err err = {0};
    uint8_t app[MERO_APP_ID_LEN] = {0};
    if (node.store != NULL) {
        return;
    }
    mero_log_set_level(MERO_LOG_ERROR); /* every refusal is logged at INFO */
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &node.store, &err) < 0 ||
        mero__node_db_open(&node.db, ":memory:", true, &err) < 0 ||
        mero__node_ctx_open(&node, &err) < 0 ||
        mero_gov_create_namespace(node.store, ns, NULL, &err) < 0 ||
        mero_gov_create_context(node.store, ns, ns, app, ctx, NULL, &err) < 0) {
        fprintf(stderr, "setup: %s\n", err.msg);
        abort();
    }
    mero_ed25519_keypair(relay_pk, relay_sk);
    mero_ed25519_keypair(member_pk, member_sk);
    if (mero__gov_row_plain(node.store, ns, relay_pk, MERO_ROLE_RELAY_TEE) < 0 ||
        mero_gov_add_member(node.store, ns, ns, member_pk, MERO_ROLE_MEMBER, NULL, &err) < 0) {
        abort();
    }
}

/* A relayed delta carrying pt[0..n), sealed and signed as the relay would. */
static int seal(const uint8_t *pt, size_t n, uint64_t lamport, uint64_t relayed_at,
                struct mero_buf *d)
{
    uint8_t gk[MERO_GROUP_KEY_LEN], kid[MERO_KEY_ID_LEN], nonce[MERO_GCM_NONCE_LEN] = {0};
    uint8_t sig[MERO_ED25519_SIG_LEN];
    struct mero_buf msg;
    MERO_TRY(mero_gov_group_key(node.store, ns, gk, kid));
    MERO_TRY(mero_buf_append_u8(d, MERO_DELTA_RELAYED_VERSION));
    MERO_TRY(mero_buf_append(d, ctx, sizeof(ctx)));
    MERO_TRY(mero_buf_append(d, member_pk, sizeof(member_pk)));
    MERO_TRY(mero_buf_append_u64le(d, lamport));
    MERO_TRY(mero_buf_append(d, kid, sizeof(kid)));
    MERO_TRY(mero_buf_append(d, nonce, sizeof(nonce)));
    MERO_TRY(mero_buf_append(d, relay_pk, sizeof(relay_pk)));
    MERO_TRY(mero_buf_append_u64le(d, relayed_at));
    size_t aad = d->len;
    MERO_TRY(mero_buf_append_u32le(d, (uint32_t)(n + MERO_AEAD_TAG_LEN)));
    uint8_t *ct = malloc(n + MERO_AEAD_TAG_LEN);
    if (ct == NULL) {
        return -MERO_ENOMEM;
    }
    int rc = mero_aes256gcm_seal(ct, pt, n, d->data, aad, nonce, gk);
    if (rc == 0) {
        rc = mero_buf_append(d, ct, n + MERO_AEAD_TAG_LEN);
    }
    free(ct);
    MERO_TRY(rc);
    mero_buf_init(&msg, MERO_DELTA_MAX + 64);
    rc = mero_buf_append_str(&msg, MERO_DELTA_RELAYED_DOMAIN);
    if (rc == 0) {
        rc = mero_buf_append(&msg, d->data, d->len);
    }
    if (rc == 0) {
        mero_ed25519_sign(sig, msg.data, msg.len, relay_sk);
    }
    mero_buf_cleanup(&msg);
    MERO_TRY(rc);
    return mero_buf_append(d, sig, sizeof(sig));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_err err = {0};
    struct mero_buf d;
    struct mero_cur c;
    uint64_t lamport = 0, relayed_at = 0;
    setup();
    if (mero__node_ctx_apply(&node, data, size, &err) == 0) {
        err.code = 0; /* raw bytes that decode, verify and apply: fine, nothing to check */
    }
    mero_cur_init(&c, data, size);
    if (mero_cur_u64le(&c, &lamport) < 0 || mero_cur_u64le(&c, &relayed_at) < 0) {
        return 0;
    }
    mero_buf_init(&d, MERO_DELTA_MAX);
    if (seal(data + c.off, mero_cur_left(&c), lamport, relayed_at, &d) == 0) {
        uint8_t h[MERO_DELTA_ID_LEN];
        bool have = false;
        mero_sha256(h, d.data, d.len);
        if (mero__node_ctx_apply(&node, d.data, d.len, &err) < 0 &&
            (mero__node_ctx_has(&node, h, &have) < 0 || have)) {
            abort(); /* a refused delta is never stored */
        }
    }
    mero_buf_cleanup(&d);
    return 0;
}
