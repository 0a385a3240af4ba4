/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sync_hello.c - the sync HELLO (src/node/sync.c, issue 35 item 6): what one node encodes
 * the other decodes to the same namespace, identity and name; the signature binds the sender's
 * node key (a HELLO replayed by another peer, or signed by a key other than the identity it
 * names, is EBADSIG); every changed byte of the signed part is refused; a truncated body,
 * trailing bytes, a name over 64 bytes, a length byte that overstates the name and a name
 * with a control character or bad UTF-8 are EPROTO; an empty name is fine.
 */
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/node.h"
#include "node/sync_internal.h"
#include "harness.h"

#define HELLO_BUF_MAX 512 /* a HELLO is 194 bytes at most */

struct keys {
    uint8_t id_pk[MERO_ED25519_PK_LEN], id_sk[MERO_ED25519_SK_LEN];
    uint8_t node_pk[MERO_ED25519_PK_LEN], node_sk[MERO_ED25519_SK_LEN];
};

static void keys_make(struct keys *k, uint8_t seed)
{
    uint8_t s[MERO_ED25519_SEED_LEN];
    memset(s, seed, sizeof(s));
    mero_ed25519_from_seed(k->id_pk, k->id_sk, s);
    memset(s, seed + 1, sizeof(s));
    mero_ed25519_from_seed(k->node_pk, k->node_sk, s);
}

/* A HELLO from k naming `name`, without its kind byte, in b. */
static int make(struct mero_buf *b, const struct keys *k, const char *name)
{
    struct mero_sync_hello h;
    memset(&h, 0, sizeof(h));
    memset(h.ns, 7, sizeof(h.ns));
    memcpy(h.identity, k->id_pk, sizeof(h.identity));
    snprintf(h.name, sizeof(h.name), "%s", name);
    return mero__node_sync_hello_encode(&h, k->id_sk, k->node_pk, b);
}

TEST(a_hello_round_trips)
{
    struct keys k;
    struct mero_buf b;
    struct mero_sync_hello out;
    keys_make(&k, 1);
    mero_buf_init(&b, HELLO_BUF_MAX);
    CHECK_OK(make(&b, &k, "replica \xc3\xa9"));
    CHECK_EQ(b.data[0], 5);
    CHECK_OK(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out));
    CHECK_STR_EQ(out.name, "replica \xc3\xa9");
    CHECK_MEM_EQ(out.identity, k.id_pk, MERO_IDENTITY_LEN);
    CHECK(out.ns[0] == 7 && out.ns[MERO_NS_ID_LEN - 1] == 7);
    mero_buf_reset(&b);
    CHECK_OK(make(&b, &k, ""));
    CHECK_OK(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out));
    CHECK_STR_EQ(out.name, "");
    mero_buf_cleanup(&b);
}

TEST(the_signature_binds_identity_node_and_name)
{
    struct keys k, other;
    struct mero_buf b;
    struct mero_sync_hello out, h;
    keys_make(&k, 1);
    keys_make(&other, 9);
    mero_buf_init(&b, HELLO_BUF_MAX);
    CHECK_OK(make(&b, &k, "owner"));
    /* replayed by another peer: its own node key does not verify */
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, other.node_pk, &out),
              -MERO_EBADSIG);
    /* every byte of ns, identity, signature and name changed alone is refused */
    for (size_t i = 1; i < b.len; i++) {
        if (i == 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN + MERO_ED25519_SIG_LEN) {
            continue; /* the length byte: the truncation test below */
        }
        b.data[i] ^= 0x01;
        CHECK_MSG(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out) < 0,
                  "byte %zu changed was accepted", i);
        b.data[i] ^= 0x01;
    }
    /* a node claiming an identity it does not hold: signed by its own key, not the identity */
    memset(&h, 0, sizeof(h));
    memcpy(h.identity, k.id_pk, sizeof(h.identity));
    mero_buf_reset(&b);
    CHECK_OK(mero__node_sync_hello_encode(&h, other.id_sk, other.node_pk, &b));
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, other.node_pk, &out),
              -MERO_EBADSIG);
    mero_buf_cleanup(&b);
}

TEST(malformed_hellos_are_protocol_errors)
{
    struct keys k;
    struct mero_buf b;
    struct mero_sync_hello out;
    char max[MERO_MEMBER_LABEL_MAX + 1];
    keys_make(&k, 1);
    mero_buf_init(&b, HELLO_BUF_MAX);
    CHECK_OK(make(&b, &k, "abc"));
    for (size_t n = 0; n + 1 < b.len; n++) { /* every truncation */
        CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, n, k.node_pk, &out), -MERO_EPROTO);
    }
    CHECK_OK(mero_buf_append_u8(&b, 0)); /* a trailing byte */
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out), -MERO_EPROTO);
    size_t at = 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN + MERO_ED25519_SIG_LEN;
    b.data[at] = MERO_MEMBER_LABEL_MAX + 1; /* a length over the maximum */
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out), -MERO_EPROTO);
    /* names the encoder refuses: too long, a control character, not UTF-8 */
    struct mero_sync_hello h;
    memset(&h, 0, sizeof(h));
    memset(max, 'a', sizeof(max));
    memcpy(h.name, max, sizeof(h.name) - 1);
    mero_buf_reset(&b);
    CHECK_OK(mero__node_sync_hello_encode(&h, k.id_sk, k.node_pk, &b)); /* 64 bytes: fine */
    snprintf(h.name, sizeof(h.name), "bell\x07");
    CHECK_ERR(mero__node_sync_hello_encode(&h, k.id_sk, k.node_pk, &b), -MERO_EINVAL);
    /* and the decoder refuses them even when signed */
    mero_buf_reset(&b);
    CHECK_OK(make(&b, &k, "abcd"));
    b.data[b.len - 1] = 0x07;
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out), -MERO_EPROTO);
    b.data[b.len - 1] = 0xff;
    CHECK_ERR(mero__node_sync_hello_decode(b.data + 1, b.len - 1, k.node_pk, &out), -MERO_EPROTO);
    mero_buf_cleanup(&b);
}

MERO_TEST_MAIN(T(a_hello_round_trips), T(the_signature_binds_identity_node_and_name),
               T(malformed_hellos_are_protocol_errors))
