/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_encrypted.c - the encrypted group-op form (NamespaceOp tag 2) carrying the subgroup
 * TEE admission: what the admitter publishes, what a key-holding peer accepts and refuses
 * after decrypting, what a peer without the key does until the key arrives (deferral, the
 * inert record; a stranger's op refused unseen unless an op waits for its key), the decoder
 * bounds, and rebuild == incremental for nodes with the same keys.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/keys.h"
#include "support/gov_fixture.h"

/* owner with a namespace, a policy and a Restricted subgroup; a TEE admitted at the root */
struct world {
    struct govt_node owner;
    struct govt_tee tee;
    uint8_t sub[32];
    struct mero_admit_request root;
};

static int world_open(struct world *w, int mode)
{
    struct mero_tee_policy p;
    int outcome;
    memset(w, 0, sizeof(*w));
    int rc = govt_open(&w->owner);
    if (rc == 0) {
        rc = govt_create_ns(&w->owner);
    }
    if (rc == 0) {
        rc = govt_policy(&p, mode, true);
        if (rc == 0) {
            rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, NULL, NULL, NULL, NULL);
        }
        mero_tee_policy_cleanup(&p);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_RESTRICTED,
                                      w->sub, NULL, NULL);
    }
    if (rc == 0) {
        rc = govt_tee_open(&w->tee, w->owner.ns);
    }
    if (rc == 0) {
        govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &w->root);
        rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &w->root, &outcome, NULL, NULL);
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

/* tee_subgroup_admit: the root quote carried into the subgroup; l receives the ops */
static int admit_sub(struct world *w, struct mero_gov_oplist *l, int *outcome)
{
    struct mero_admit_request carried = w->root;
    memcpy(carried.group_id, w->sub, 32);
    return mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &carried, outcome, l, NULL);
}

static int give_ns_key(struct world *w, struct govt_node *to)
{
    uint8_t k[32], id[32];
    int rc = mero_gov_group_key(w->owner.s, w->owner.ns, k, id);
    if (rc == 0) {
        rc = mero_gov_group_key_put(to->s, w->owner.ns, k);
    }
    sodium_memzero(k, sizeof(k));
    return rc;
}

static int role_in(struct govt_node *n, const uint8_t g[32], const uint8_t m[32])
{
    int r = -99;
    if (mero_gov_direct_role(n->s, g, m, &r) < 0) {
        return -99;
    }
    return r;
}

/* Re-sign op (as decoded) with sk over the given parents and encode it into out. */
static int resign(struct mero_op *op, const uint8_t sk[64], struct mero_buf *out)
{
    MERO_TRY(mero_op_sign(op, sk));
    return mero_op_encode(op, out);
}

TEST(subgroup_admission_is_published_encrypted)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK(l.n >= 1);
    struct mero_op op, inner;
    struct mero_err e = {0};
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, &e));
    CHECK_EQ(op.scope, MERO_SCOPE_GROUP_ENCRYPTED);
    CHECK_MEM_EQ(op.group_id, w.sub, 32);
    CHECK(!op.has_rotation);
    /* key_id names the namespace key; the bytes show no measurement, status or member */
    uint8_t k[32], id[32];
    CHECK_OK(mero_gov_group_key(w.owner.s, w.owner.ns, k, id));
    CHECK_MEM_EQ(op.key_id, id, 32);
    CHECK(memmem(l.v[0].data, l.v[0].len, w.root.m.mrtd, strlen(w.root.m.mrtd)) == NULL);
    CHECK(memmem(l.v[0].data, l.v[0].len, "000000000000", 12) == NULL);
    CHECK(memmem(l.v[0].data, l.v[0].len, "Mock", 4) == NULL);
    CHECK(memmem(l.v[0].data, l.v[0].len, w.tee.node.pk, 32) == NULL);
    CHECK(memmem(l.v[0].data, l.v[0].len, w.root.quote_hash, 32) == NULL);
    /* the signature covers the ciphertext form */
    CHECK_OK(mero_op_verify(&op, &e));
    /* it opens under the namespace key into the GroupOp the cleartext form would carry */
    CHECK_OK(mero_op_open(&op, k, &inner, &e));
    CHECK_EQ(inner.scope, MERO_SCOPE_GROUP);
    CHECK_EQ(inner.kind, MERO_GROUP_MEMBER_JOINED_TEE);
    CHECK_MEM_EQ(inner.join.member, w.tee.node.pk, 32);
    CHECK_MEM_EQ(inner.join.quote_hash, w.root.quote_hash, 32);
    CHECK_STR_EQ(inner.join.m.mrtd, w.root.m.mrtd);
    CHECK_STR_EQ(inner.join.tcb_status, "Mock");
    CHECK_EQ(inner.join.role, MERO_ROLE_READONLY_TEE);
    mero_op_cleanup(&inner);
    /* another key does not open it */
    uint8_t other[32];
    mero_group_key_new(other);
    CHECK_ERR(mero_op_open(&op, other, &inner, &e), -MERO_EINVAL);
    sodium_memzero(k, sizeof(k));
    /* the admitter applied it: the TEE is in the subgroup; the root form stayed cleartext */
    CHECK_EQ(role_in(&w.owner, w.sub, w.tee.node.pk), MERO_ROLE_READONLY_TEE);
    uint8_t(*hs)[32] = NULL;
    size_t nh = 0;
    uint64_t last = 0;
    int root_joins = 0, encrypted = 0;
    CHECK_OK(mero_gov_op_hashes(w.owner.s, w.owner.ns, 0, 1000, &hs, &nh, &last));
    for (size_t i = 0; i < nh; i++) {
        struct mero_buf b;
        struct mero_op o;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        CHECK_OK(mero_gov_op_get(w.owner.s, hs[i], &b));
        CHECK_OK(mero_op_decode(b.data, b.len, &o, &e));
        root_joins += o.scope == MERO_SCOPE_ROOT && o.kind == MERO_ROOT_MEMBER_JOINED_TEE;
        encrypted += o.scope == MERO_SCOPE_GROUP_ENCRYPTED;
        if (o.scope == MERO_SCOPE_ROOT && o.kind == MERO_ROOT_MEMBER_JOINED_TEE) {
            CHECK(memmem(b.data, b.len, w.root.m.mrtd, strlen(w.root.m.mrtd)) != NULL);
        }
        mero_op_cleanup(&o);
        mero_buf_cleanup(&b);
    }
    free(hs);
    CHECK_EQ(root_joins, 1);
    CHECK_EQ(encrypted, 1);
    mero_op_cleanup(&op);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

TEST(key_holding_peer_applies_with_the_policy_role)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_RELAY));
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome));
    struct govt_node peer;
    CHECK_OK(govt_open(&peer));
    CHECK_OK(give_ns_key(&w, &peer));
    struct mero_err e = {0};
    CHECK_MSG(govt_sync(&w.owner, &peer, w.owner.ns, &e) > 0, "%s", e.msg);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_RELAY_TEE);
    CHECK(govt_count(&peer, MERO_EV_TEE_MEMBER_ADMITTED, w.tee.node.pk) == 2); /* root + sub */
    CHECK(govt_dumps_equal(&w.owner, &peer));
    CHECK(govt_matches_rebuild(&peer));
    CHECK(govt_matches_rebuild(&w.owner));
    /* the TEE itself got the namespace key at its root admission and applies it too */
    CHECK_MSG(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0, "%s", e.msg);
    CHECK_EQ(role_in(&w.tee.node, w.sub, w.tee.node.pk), MERO_ROLE_RELAY_TEE);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

/* A peer synced up to (not including) the encrypted join, holding the namespace key. */
static int peer_before_join(struct world *w, struct govt_node *peer, struct mero_err *e)
{
    MERO_TRY(govt_open(peer));
    MERO_TRY(give_ns_key(w, peer));
    int n = govt_sync(&w->owner, peer, w->owner.ns, e);
    return n < 0 ? n : 0;
}

TEST(tampered_ciphertext_and_wrong_key_id_refused)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct govt_node peer;
    struct mero_err e = {0};
    CHECK_OK(peer_before_join(&w, &peer, &e));
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome));
    struct mero_op op;
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, &e));
    uint8_t sk[64];
    CHECK_OK(mero_gov_identity_secret(w.owner.s, w.owner.ns, sk));
    /* a flipped ciphertext byte without re-signing: the signature refuses it */
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    op.ciphertext[3] ^= 1;
    CHECK_OK(mero_op_encode(&op, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_EBADSIG);
    /* re-signed by the admin itself: the ciphertext does not authenticate; refused, and kept
     * without effect like any refused op of a member (issue 30: every peer folds one set) */
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    uint8_t h[32];
    int status = -1;
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, &status, h, NULL, &e), -MERO_ECRYPTO);
    CHECK(strstr(e.msg, "does not decrypt") != NULL);
    CHECK_EQ(status, MERO_APPLY_REJECTED);
    bool have = false;
    CHECK_OK(mero_op_hash(&op, h));
    CHECK_OK(mero_gov_has_op(peer.s, h, &have));
    CHECK(have);
    int state = -1;
    char why[128];
    CHECK_OK(mero_gov_op_state(peer.s, h, &state, why, sizeof(why)));
    CHECK_EQ(state, MERO_OP_REJECTED);
    CHECK(strstr(why, "does not decrypt") != NULL);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    op.ciphertext[3] ^= 1;
    /* a key id naming another key the peer holds: refused the same way */
    uint8_t other[32];
    mero_group_key_new(other);
    CHECK_OK(mero_gov_group_key_put(peer.s, w.owner.ns, other));
    mero_group_key_id(op.key_id, other);
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_ECRYPTO);
    /* the ciphertext moved to another group's envelope (AAD = group_id): refused */
    CHECK_OK(mero_gov_group_key(w.owner.s, w.owner.ns, other, op.key_id));
    memcpy(op.group_id, w.owner.ns, 32);
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_ECRYPTO);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    /* the genuine op still applies */
    CHECK_OK(govt_apply_list(&peer, &l, &e));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_READONLY_TEE);
    sodium_memzero(sk, sizeof(sk));
    sodium_memzero(other, sizeof(other));
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

/* An encrypted admission of the TEE into the subgroup built and signed by `signer_sk`. */
static int forge(struct world *w, const uint8_t signer_sk[64], int role, struct mero_buf *out)
{
    struct mero_op op;
    uint8_t k[32], id[32];
    uint8_t(*heads)[32] = NULL;
    size_t n = 0;
    mero_op_init(&op);
    memcpy(op.ns, w->owner.ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
    memcpy(op.group_id, w->sub, 32);
    memcpy(op.join.group_id, w->sub, 32);
    memcpy(op.join.member, w->tee.node.pk, 32);
    memcpy(op.join.quote_hash, w->root.quote_hash, 32);
    op.join.m = w->root.m;
    memcpy(op.join.tcb_status, "Mock", 5);
    op.join.role = (uint8_t)role;
    op.nonce = 77;
    int rc = mero_gov_group_key(w->owner.s, w->owner.ns, k, id);
    if (rc == 0) {
        rc = mero_op_seal(&op, k, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_heads(w->owner.s, w->owner.ns, &heads, &n);
    }
    if (rc == 0) {
        rc = mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)n);
    }
    if (rc == 0) {
        rc = resign(&op, signer_sk, out);
    }
    sodium_memzero(k, sizeof(k));
    free(heads);
    mero_op_cleanup(&op);
    return rc;
}

/* a plain member of the namespace and the subgroup, holding the namespace key */
static int plain_member(struct world *w, uint8_t sk[64])
{
    uint8_t pk[32];
    mero_ed25519_keypair(pk, sk);
    MERO_TRY(mero_gov_add_member(w->owner.s, w->owner.ns, w->owner.ns, pk, MERO_ROLE_MEMBER, NULL,
                                 NULL));
    MERO_TRY(
        mero_gov_add_member(w->owner.s, w->owner.ns, w->sub, pk, MERO_ROLE_MEMBER, NULL, NULL));
    return mero_gov_deliver_key(w->owner.s, w->owner.ns, w->owner.ns, pk, NULL, NULL);
}

TEST(forged_encrypted_admission_by_a_plain_member_refused_after_decryption)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    uint8_t msk[64];
    CHECK_OK(plain_member(&w, msk));
    struct govt_node peer;
    struct mero_err e = {0};
    CHECK_OK(peer_before_join(&w, &peer, &e));
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forge(&w, msk, MERO_ROLE_READONLY_TEE, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_ENOTVOUCHER);
    CHECK(strstr(e.msg, "may not vouch") != NULL);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    /* signed by the admin but recording the wrong role: refused by the same rule as cleartext */
    uint8_t sk[64];
    CHECK_OK(mero_gov_identity_secret(w.owner.s, w.owner.ns, sk));
    mero_buf_reset(&b);
    CHECK_OK(forge(&w, sk, MERO_ROLE_RELAY_TEE, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "policy mode names") != NULL);
    /* and the right role from the admin is accepted */
    mero_buf_reset(&b);
    CHECK_OK(forge(&w, sk, MERO_ROLE_READONLY_TEE, &b));
    CHECK_OK(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_READONLY_TEE);
    sodium_memzero(sk, sizeof(sk));
    sodium_memzero(msk, sizeof(msk));
    mero_buf_cleanup(&b);
    govt_close(&peer);
    world_close(&w);
}

TEST(peer_without_the_key_defers_then_catches_up)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome)); /* encrypted join + KeyDelivery of the sub key */
    /* dependents: the TEE is removed from the subgroup again, then a context is created */
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.sub, w.tee.node.pk, &l, NULL));
    uint8_t app[32] = {1}, ctx[32];
    CHECK_OK(mero_gov_create_context(w.owner.s, w.owner.ns, w.sub, app, ctx, &l, NULL));
    struct govt_node peer;
    CHECK_OK(govt_open(&peer));
    struct mero_err e = {0};
    CHECK_MSG(govt_sync(&w.owner, &peer, w.owner.ns, &e) > 0, "%s", e.msg);
    /* every op is stored (the DAG is whole), the admission has no effect yet */
    uint64_t no, np;
    CHECK_OK(mero_gov_op_count(w.owner.s, w.owner.ns, &no));
    CHECK_OK(mero_gov_op_count(peer.s, w.owner.ns, &np));
    CHECK_EQ(no, np);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    bool denied = true;
    CHECK_OK(mero_gov_is_denied(peer.s, w.sub, w.tee.node.pk, &denied));
    CHECK(!denied);
    CHECK(!govt_dumps_equal(&w.owner, &peer));
    /* rebuild without the key gives the same deferred state */
    CHECK(govt_matches_rebuild(&peer));
    /* the key arrives: the namespace is re-folded, the admission and its dependents take
     * effect at their places; the events report the net change (admitted, then removed:
     * none for the TEE) */
    govt_clear_events(&peer);
    CHECK_OK(give_ns_key(&w, &peer));
    CHECK_EQ(govt_count(&peer, MERO_EV_TEE_MEMBER_ADMITTED, w.tee.node.pk), 0);
    CHECK_EQ(govt_count(&peer, MERO_EV_TEE_MEMBER_REMOVED, w.tee.node.pk), 0);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    CHECK_OK(mero_gov_is_denied(peer.s, w.sub, w.tee.node.pk, &denied));
    CHECK(denied);
    CHECK(govt_dumps_equal(&w.owner, &peer));
    CHECK(govt_matches_rebuild(&peer));
    CHECK(govt_dumps_equal(&w.owner, &peer));
    /* later ops apply normally */
    struct mero_gov_oplist l2 = {0};
    uint8_t pk[32], sk[64];
    mero_ed25519_keypair(pk, sk);
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.sub, pk, MERO_ROLE_MEMBER, &l2, NULL));
    CHECK_OK(govt_apply_list(&peer, &l2, &e));
    CHECK(govt_dumps_equal(&w.owner, &peer));
    mero_gov_oplist_cleanup(&l2);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

/* A peer synced with the owner but without the namespace key, and in b (initialised here) an
 * encrypted subgroup admission of the TEE forged and signed by sk. */
static int keyless_peer_and_forgery(struct world *w, const uint8_t sk[64], struct govt_node *peer,
                                    struct mero_buf *b, struct mero_err *e)
{
    mero_buf_init(b, MERO_GOV_MAX_OP_BYTES);
    MERO_TRY(govt_open(peer));
    int n = govt_sync(&w->owner, peer, w->owner.ns, e);
    if (n <= 0) {
        return n < 0 ? n : -MERO_ESTATE;
    }
    return forge(w, sk, MERO_ROLE_READONLY_TEE, b);
}

TEST(deferred_forgery_is_refused_when_the_key_arrives_and_stays_inert)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    uint8_t msk[64];
    CHECK_OK(plain_member(&w, msk));
    struct govt_node peer;
    struct mero_err e = {0};
    struct mero_buf b;
    CHECK_OK(keyless_peer_and_forgery(&w, msk, &peer, &b, &e));
    /* without the key the forgery cannot be judged: it is stored, without effect */
    int st = -1;
    uint8_t h[32];
    CHECK_OK(mero_gov_apply(peer.s, b.data, b.len, &st, h, NULL, &e));
    CHECK_EQ(st, MERO_APPLY_APPLIED);
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    CHECK_OK(give_ns_key(&w, &peer));
    /* judged now: refused, no effect, and a rebuild keeps it that way */
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    CHECK_EQ(govt_count(&peer, MERO_EV_TEE_MEMBER_ADMITTED, w.tee.node.pk), 1); /* root only */
    bool have = false;
    CHECK_OK(mero_gov_has_op(peer.s, h, &have));
    CHECK(have);
    CHECK(govt_matches_rebuild(&peer));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    /* a second delivery of the same key changes nothing */
    CHECK_OK(give_ns_key(&w, &peer));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    sodium_memzero(msk, sizeof(msk));
    mero_buf_cleanup(&b);
    govt_close(&peer);
    world_close(&w);
}

/* An identity that never held a row in the namespace: its encrypted op under a key the peer
 * lacks is refused unseen, not stored as deferred (apply.c, refuse_stranger), while nothing of
 * the namespace waits for a key; once an op does (the genuine subgroup admission), the signer
 * may hold a row through it, so the fold takes the op and defers it until the key arrives. */
TEST(a_stranger_s_encrypted_op_is_deferred_only_while_an_op_waits_for_its_key)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    uint8_t xpk[32], xsk[64];
    mero_ed25519_keypair(xpk, xsk);
    struct govt_node peer;
    struct mero_err e = {0};
    struct mero_buf b;
    CHECK_OK(keyless_peer_and_forgery(&w, xsk, &peer, &b, &e));
    uint64_t before = 0, after = 0;
    CHECK_OK(mero_gov_op_count(peer.s, w.owner.ns, &before));
    int st = -1;
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, &st, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "has never held a row in the namespace") != NULL);
    CHECK_EQ(st, -1);
    CHECK_OK(mero_gov_op_count(peer.s, w.owner.ns, &after));
    CHECK_EQ(after, before);
    /* the genuine encrypted admission, deferred at the peer */
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome));
    CHECK_OK(govt_apply_list(&peer, &l, &e));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_NONE);
    mero_buf_reset(&b);
    CHECK_OK(forge(&w, xsk, MERO_ROLE_READONLY_TEE, &b));
    uint8_t h[32];
    CHECK_OK(mero_gov_apply(peer.s, b.data, b.len, &st, h, NULL, &e));
    CHECK_EQ(st, MERO_APPLY_APPLIED);
    bool have = false;
    CHECK_OK(mero_gov_has_op(peer.s, h, &have));
    CHECK(have);
    /* the key arrives: the admission takes effect, the stranger's op none */
    CHECK_OK(give_ns_key(&w, &peer));
    CHECK_EQ(role_in(&peer, w.sub, w.tee.node.pk), MERO_ROLE_READONLY_TEE);
    CHECK(govt_matches_rebuild(&peer));
    sodium_memzero(xsk, sizeof(xsk));
    mero_buf_cleanup(&b);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

TEST(decoder_bounds_the_ciphertext)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(admit_sub(&w, &l, &outcome));
    struct mero_op op;
    struct mero_err e = {0};
    uint8_t sk[64];
    CHECK_OK(mero_gov_identity_secret(w.owner.s, w.owner.ns, sk));
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, &e));
    /* one encoding per op */
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_encode(&op, &b));
    CHECK_EQ(b.len, l.v[0].len);
    CHECK(memcmp(b.data, l.v[0].data, b.len) == 0);
    /* too short (no room for the tag and a GroupOp tag) and too long: refused */
    uint8_t *keep = op.ciphertext;
    size_t keep_len = op.ciphertext_len;
    op.ciphertext_len = MERO_GOV_MIN_SEALED_BYTES - 1;
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    struct mero_op d;
    CHECK_ERR(mero_op_decode(b.data, b.len, &d, &e), -MERO_EOPDECODE);
    uint8_t *big = calloc(1, MERO_GOV_MAX_SEALED_BYTES + 1);
    CHECK(big != NULL);
    op.ciphertext = big;
    op.ciphertext_len = MERO_GOV_MAX_SEALED_BYTES + 1;
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    CHECK(mero_op_decode(b.data, b.len, &d, &e) < 0);
    free(big);
    op.ciphertext = keep;
    op.ciphertext_len = keep_len;
    /* truncated anywhere: refused */
    for (size_t cut = 0; cut < l.v[0].len; cut += 7) {
        CHECK(mero_op_decode(l.v[0].data, cut, &d, &e) < 0);
    }
    /* an encrypted op carrying a rotation is refused at apply */
    struct govt_node peer;
    CHECK_OK(peer_before_join(&w, &peer, &e));
    op.has_rotation = true;
    memset(op.rotation.new_key_id, 1, 32);
    mero_buf_reset(&b);
    CHECK_OK(resign(&op, sk, &b));
    CHECK_ERR(mero_gov_apply(peer.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "key rotation") != NULL);
    /* sealing refuses what is not a plain group op */
    struct mero_op r;
    mero_op_init(&r);
    r.scope = MERO_SCOPE_ROOT;
    CHECK_ERR(mero_op_seal(&r, sk, &e), -MERO_EINVAL);
    mero_op_cleanup(&r);
    sodium_memzero(sk, sizeof(sk));
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

MERO_TEST_MAIN(T(subgroup_admission_is_published_encrypted),
               T(key_holding_peer_applies_with_the_policy_role),
               T(tampered_ciphertext_and_wrong_key_id_refused),
               T(forged_encrypted_admission_by_a_plain_member_refused_after_decryption),
               T(peer_without_the_key_defers_then_catches_up),
               T(deferred_forgery_is_refused_when_the_key_arrives_and_stays_inert),
               T(a_stranger_s_encrypted_op_is_deferred_only_while_an_op_waits_for_its_key),
               T(decoder_bounds_the_ciphertext))
