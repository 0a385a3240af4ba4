/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_context.c - the context delta apply path (src/node/context.c) on an in-memory gov
 * store and node database: a member's write is applied and readable; deltas built here from
 * the documented layout (docs/node.md) are refused when truncated, oversized, re-signed
 * wrongly, tampered, from a non-member, from a ReadOnly member, or for an unknown context;
 * a duplicate is a no-op; last-writer-wins by lamport.
 */
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context.h"
#include "node/db.h"
#include "node/node.h"

static struct mero_node node;
static uint8_t ns[32], ctx[32];

static int setup(void)
{
    if (node.store != NULL) {
        return 0;
    }
    struct mero_err err = {0};
    struct mero_gov_oplist ops = {0};
    uint8_t app[32] = {0};
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &node.store, &err) < 0 ||
        mero_node_db_open(&node.db, ":memory:", true, &err) < 0 ||
        mero_node_ctx_open(&node, &err) < 0 ||
        mero_gov_create_namespace(node.store, ns, &ops, &err) < 0 ||
        mero_gov_create_context(node.store, ns, ns, app, ctx, &ops, &err) < 0) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    mero_gov_oplist_cleanup(&ops);
    return 0;
}

/* Build a delta exactly as docs/node.md specifies, signed by sk (pk = author). */
static int build(struct mero_buf *d, const uint8_t c[32], const uint8_t author[32],
                 const uint8_t sk[64], uint64_t lamport, const char *key, const char *value)
{
    uint8_t gk[32], kid[32], nonce[12] = {1, 2, 3};
    MERO_TRY(mero_gov_group_key(node.store, ns, gk, kid));
    struct mero_buf pt;
    mero_buf_init(&pt, 4096);
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(key)));
    MERO_TRY(mero_buf_append_str(&pt, key));
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(value)));
    MERO_TRY(mero_buf_append_str(&pt, value));
    MERO_TRY(mero_buf_append_u8(d, 1));
    MERO_TRY(mero_buf_append(d, c, 32));
    MERO_TRY(mero_buf_append(d, author, 32));
    MERO_TRY(mero_buf_append_u64le(d, lamport));
    MERO_TRY(mero_buf_append(d, kid, 32));
    MERO_TRY(mero_buf_append(d, nonce, 12));
    MERO_TRY(mero_buf_append_u32le(d, (uint32_t)(pt.len + 16)));
    uint8_t ct[4200];
    MERO_TRY(mero_aes256gcm_seal(ct, pt.data, pt.len, d->data, 117, nonce, gk));
    MERO_TRY(mero_buf_append(d, ct, pt.len + 16));
    mero_buf_cleanup(&pt);
    struct mero_buf msg;
    mero_buf_init(&msg, 1 << 16);
    MERO_TRY(mero_buf_append_str(&msg, MERO_DELTA_DOMAIN));
    MERO_TRY(mero_buf_append(&msg, d->data, d->len));
    uint8_t sig[64];
    mero_ed25519_sign(sig, msg.data, msg.len, sk);
    mero_buf_cleanup(&msg);
    return mero_buf_append(d, sig, 64);
}

static int value_is(const char *key, const char *want)
{
    uint8_t *v = NULL;
    size_t n = 0;
    struct mero_err err = {0};
    if (mero_node_ctx_get(&node, ctx, key, &v, &n, &err) < 0) {
        return want == NULL;
    }
    int ok = want != NULL && n == strlen(want) && memcmp(v, want, n) == 0;
    free(v);
    return ok;
}

TEST(member_write_and_read)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    CHECK_OK(mero_node_ctx_put(&node, ctx, "k", (const uint8_t *)"v1", 2, false, &err));
    CHECK(value_is("k", "v1"));
    CHECK_OK(mero_node_ctx_put(&node, ctx, "k", (const uint8_t *)"v2", 2, false, &err));
    CHECK(value_is("k", "v2"));
    CHECK(value_is("absent", NULL));
    uint8_t other[32] = {9};
    CHECK_ERR(mero_node_ctx_put(&node, other, "k", (const uint8_t *)"x", 1, false, &err),
              -MERO_ENOTFOUND);
}

TEST(refusals)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    uint8_t me[32], sk[64];
    CHECK_OK(mero_gov_identity(node.store, ns, false, me, &err));
    CHECK_OK(mero_gov_identity_secret(node.store, ns, sk));
    struct mero_buf d;
    mero_buf_init(&d, 1 << 16);
    CHECK_OK(build(&d, ctx, me, sk, 100, "own", "good"));
    CHECK_OK(mero_node_ctx_apply(&node, d.data, d.len, &err));
    CHECK(value_is("own", "good"));
    CHECK_OK(mero_node_ctx_apply(&node, d.data, d.len, &err)); /* duplicate: no-op */

    for (size_t cut = 0; cut < d.len; cut += 13) {
        CHECK_FAILS(mero_node_ctx_apply(&node, d.data, cut, &err));
    }
    uint8_t big[MERO_DELTA_MAX + 1] = {1};
    CHECK_FAILS(mero_node_ctx_apply(&node, big, sizeof(big), &err));

    /* a flipped ciphertext byte breaks the signature */
    struct mero_buf t;
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, me, sk, 101, "own", "tampered"));
    t.data[130] ^= 1;
    CHECK_ERR(mero_node_ctx_apply(&node, t.data, t.len, &err), -MERO_EBADSIG);
    CHECK(value_is("own", "good"));
    mero_buf_cleanup(&t);

    /* version byte other than 1 */
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, me, sk, 102, "own", "v"));
    t.data[0] = 2;
    CHECK_FAILS(mero_node_ctx_apply(&node, t.data, t.len, &err));
    mero_buf_cleanup(&t);

    /* a stranger's signed delta */
    uint8_t spk[32], ssk[64];
    mero_ed25519_keypair(spk, ssk);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, spk, ssk, 103, "own", "stranger"));
    CHECK_ERR(mero_node_ctx_apply(&node, t.data, t.len, &err), -MERO_EPERM);
    mero_buf_cleanup(&t);

    /* a ReadOnly member's signed delta */
    uint8_t rpk[32], rsk[64];
    mero_ed25519_keypair(rpk, rsk);
    struct mero_gov_oplist ops = {0};
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, rpk, MERO_ROLE_READONLY, &ops, &err));
    mero_gov_oplist_cleanup(&ops);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, rpk, rsk, 104, "own", "readonly"));
    CHECK_ERR(mero_node_ctx_apply(&node, t.data, t.len, &err), -MERO_EREADONLY);
    CHECK_STR_EQ(err.msg, "ReadOnlyWriteRefused");
    CHECK(value_is("own", "good"));
    mero_buf_cleanup(&t);

    /* a Member's delta is applied; an older lamport does not overwrite a newer one */
    uint8_t mpk[32], msk[64];
    mero_ed25519_keypair(mpk, msk);
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, mpk, MERO_ROLE_MEMBER, &ops, &err));
    mero_gov_oplist_cleanup(&ops);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, mpk, msk, 200, "lww", "new"));
    CHECK_OK(mero_node_ctx_apply(&node, t.data, t.len, &err));
    mero_buf_cleanup(&t);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, mpk, msk, 150, "lww", "old"));
    CHECK_OK(mero_node_ctx_apply(&node, t.data, t.len, &err));
    CHECK(value_is("lww", "new"));
    mero_buf_cleanup(&t);

    /* unknown context */
    uint8_t nctx[32] = {7};
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, nctx, me, sk, 105, "own", "x"));
    CHECK_ERR(mero_node_ctx_apply(&node, t.data, t.len, &err), -MERO_ENOTFOUND);
    mero_buf_cleanup(&t);

    /* the read-only node's own write is refused before anything is built */
    mero_buf_cleanup(&d);
    mero_wipe(sk, sizeof(sk));
}

MERO_TEST_MAIN(T(member_write_and_read), T(refusals))
