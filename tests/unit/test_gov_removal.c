/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_removal.c - eviction (spec "Eviction and self-purge", reference-calimero.md §7):
 * TeeMemberRemoved for the root and each descendant subgroup row, only for TEE removals;
 * MemberRemoved rotates the group key for the remaining members (never the removed one);
 * MemberLeft does not rotate; the deny list; self-purge with its pending marker.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/keys.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner;
    struct govt_tee tee;
    uint8_t sub[32], sub2[32];
};

static int world_open(struct world *w)
{
    int rc = govt_ns_with_root_tee(&w->owner, &w->tee, MERO_TEE_MODE_REPLICA);
    /* the TEE also holds rows in a Restricted subgroup and a nested one */
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_RESTRICTED,
                                      w->sub, NULL, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->sub, MERO_GROUP_RESTRICTED,
                                      w->sub2, NULL, NULL);
    }
    for (int i = 0; i < 2 && rc == 0; i++) {
        struct mero_admit_request req;
        int outcome;
        govt_tee_request(&w->tee, w->owner.ns, i ? w->sub2 : w->sub, w->owner.ns, &req);
        rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &req, &outcome, NULL, NULL);
    }
    if (rc == 0) {
        rc = govt_sync(&w->owner, &w->tee.node, w->owner.ns, NULL) > 0 ? 0 : -MERO_EINTERNAL;
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

/* Namespaces with a pending self-purge marker in s (999 on error). */
static size_t marked(struct mero_store *s, const uint8_t ns[32])
{
    uint8_t(*v)[32] = NULL;
    size_t n = 0, hit = 0;
    if (mero_gov_purge_pending(s, &v, &n) < 0) {
        return 999;
    }
    for (size_t i = 0; i < n; i++) {
        hit += memcmp(v[i], ns, 32) == 0 ? 1u : 0u;
    }
    free(v);
    return n == hit ? hit : 999;
}

TEST(tee_removal_cascades_tee_member_removed)
{
    struct world w;
    CHECK_OK(world_open(&w));
    govt_clear_events(&w.owner);
    govt_clear_events(&w.tee.node);
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, w.tee.node.pk, &l, &e));
    CHECK_EQ(govt_count(&w.owner, MERO_EV_MEMBER_REMOVED, w.tee.node.pk), 1);
    CHECK_EQ(govt_count(&w.owner, MERO_EV_TEE_MEMBER_REMOVED, w.tee.node.pk), 3);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.sub2, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    /* the evicted node sees the same events, marked for_us */
    CHECK_EQ(marked(w.tee.node.s, w.owner.ns), 0);
    CHECK_OK(govt_apply_list(&w.tee.node, &l, &e));
    /* issue 21 item 3: the marker committed with the removal, no event handler involved */
    CHECK_EQ(marked(w.tee.node.s, w.owner.ns), 1);
    CHECK_EQ(marked(w.owner.s, w.owner.ns), 0); /* only the evicted node marks */
    size_t for_us = 0;
    for (size_t i = 0; i < w.tee.node.nev; i++) {
        if (w.tee.node.ev[i].kind == MERO_EV_TEE_MEMBER_REMOVED && w.tee.node.ev[i].for_us) {
            for_us++;
        }
    }
    CHECK_EQ(for_us, 3);
    bool denied;
    CHECK_OK(mero_gov_is_denied(w.owner.s, w.owner.ns, w.tee.node.pk, &denied));
    CHECK(denied);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

TEST(subgroup_tee_removal_only_that_group)
{
    struct world w;
    CHECK_OK(world_open(&w));
    govt_clear_events(&w.owner);
    struct mero_err e = {0};
    struct mero_gov_oplist l = {0};
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.sub, w.tee.node.pk, &l, &e));
    /* the evicted node marks the subgroup (not the namespace) with the removal itself */
    CHECK_OK(govt_apply_list(&w.tee.node, &l, &e));
    mero_gov_oplist_cleanup(&l);
    CHECK_EQ(marked(w.tee.node.s, w.sub), 1);
    uint8_t k[32], kid[32];
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.sub, k, kid));
    CHECK_OK(mero_gov_self_purge(w.tee.node.s, w.owner.ns, w.sub, &e));
    CHECK_EQ(marked(w.tee.node.s, w.sub), 0); /* cleared by the purge */
    CHECK_ERR(mero_gov_group_key(w.tee.node.s, w.sub, k, kid), -MERO_ENOTFOUND);
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.owner.ns, k, kid)); /* the namespace stays */
    CHECK_EQ(govt_count(&w.owner, MERO_EV_TEE_MEMBER_REMOVED, w.tee.node.pk), 1);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.sub2, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    world_close(&w);
}

TEST(tee_member_left_cascades_without_rotation)
{
    struct world w;
    CHECK_OK(world_open(&w));
    uint8_t k0[32], id0[32], k1[32], id1[32];
    CHECK_OK(mero_gov_group_key(w.owner.s, w.owner.ns, k0, id0));
    govt_clear_events(&w.owner);
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    CHECK_OK(mero_gov_leave(w.tee.node.s, w.owner.ns, w.owner.ns, &l, &e));
    CHECK_EQ(marked(w.tee.node.s, w.owner.ns), 1); /* our own leave marks at once */
    CHECK_OK(govt_apply_list(&w.owner, &l, &e));
    CHECK_EQ(govt_count(&w.owner, MERO_EV_TEE_MEMBER_REMOVED, w.tee.node.pk), 3);
    CHECK_EQ(govt_count(&w.owner, MERO_EV_KEY_ROTATED, NULL), 0);
    CHECK_OK(mero_gov_group_key(w.owner.s, w.owner.ns, k1, id1));
    CHECK_MEM_EQ(id0, id1, 32);
    bool denied;
    CHECK_OK(mero_gov_is_denied(w.owner.s, w.owner.ns, w.tee.node.pk, &denied));
    CHECK(!denied);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

TEST(non_tee_removal_is_soft)
{
    struct world w;
    CHECK_OK(world_open(&w));
    uint8_t pk[32], sk[64];
    mero_ed25519_keypair(pk, sk);
    struct mero_err e = {0};
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, pk, MERO_ROLE_MEMBER, NULL, &e));
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.sub, pk, MERO_ROLE_MEMBER, NULL, &e));
    govt_clear_events(&w.owner);
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, pk, NULL, &e));
    CHECK_EQ(govt_count(&w.owner, MERO_EV_MEMBER_REMOVED, pk), 1);
    CHECK_EQ(govt_count(&w.owner, MERO_EV_TEE_MEMBER_REMOVED, pk), 0);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.sub, pk, &r));
    CHECK_EQ(r, MERO_ROLE_MEMBER);
    /* kick and re-add */
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, pk, MERO_ROLE_READONLY, NULL, &e));
    world_close(&w);
}

TEST(member_removed_rotates_key_for_remaining_members)
{
    struct world w;
    CHECK_OK(world_open(&w));
    /* a third node, a plain member holding the key */
    struct govt_node m;
    CHECK_OK(govt_open(&m));
    uint8_t mpk[32];
    struct mero_err e = {0};
    CHECK_OK(mero_gov_identity(m.s, w.owner.ns, true, mpk, NULL));
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, mpk, MERO_ROLE_MEMBER, NULL, &e));
    CHECK_OK(mero_gov_deliver_key(w.owner.s, w.owner.ns, w.owner.ns, mpk, NULL, &e));
    CHECK(govt_sync(&w.owner, &m, w.owner.ns, &e) > 0);
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    uint8_t k0[32], id0[32], k[32], id[32];
    CHECK_OK(mero_gov_group_key(m.s, w.owner.ns, k0, id0));
    /* the owner removes the TEE: rotation with one envelope per remaining member */
    struct mero_gov_oplist l = {0};
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, w.tee.node.pk, &l, &e));
    struct mero_op op;
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, &e));
    CHECK(op.has_rotation);
    CHECK_EQ(op.rotation.n, 2); /* owner + member */
    for (uint32_t i = 0; i < op.rotation.n; i++) {
        CHECK(memcmp(op.rotation.env[i].identity, w.tee.node.pk, 32) != 0);
    }
    mero_op_cleanup(&op);
    CHECK_OK(govt_apply_list(&m, &l, &e));
    CHECK_OK(govt_apply_list(&w.tee.node, &l, &e));
    CHECK_OK(mero_gov_group_key(m.s, w.owner.ns, k, id));
    CHECK(memcmp(id, id0, 32) != 0);
    uint8_t ko[32], ido[32];
    CHECK_OK(mero_gov_group_key(w.owner.s, w.owner.ns, ko, ido));
    CHECK_MEM_EQ(ko, k, 32);
    /* the evicted TEE holds only the old key */
    uint8_t kt[32], idt[32];
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.owner.ns, kt, idt));
    CHECK_MEM_EQ(idt, id0, 32);
    CHECK(govt_count(&m, MERO_EV_KEY_ROTATED, mpk) == 1);
    mero_gov_oplist_cleanup(&l);
    govt_close(&m);
    world_close(&w);
}

TEST(rotation_wrapping_for_the_removed_member_refused)
{
    struct world w;
    CHECK_OK(world_open(&w));
    /* build a MemberRemoved whose rotation includes the removed TEE */
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, w.owner.ns, 32);
    memcpy(op.group_id, w.owner.ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_REMOVED;
    memcpy(op.member, w.tee.node.pk, 32);
    uint8_t sk[64], key[32];
    CHECK_OK(mero_gov_identity_secret(w.owner.s, w.owner.ns, sk));
    mero_group_key_new(key);
    op.has_rotation = true;
    mero_group_key_id(op.rotation.new_key_id, key);
    op.rotation.env = calloc(1, sizeof(*op.rotation.env));
    CHECK(op.rotation.env != NULL);
    op.rotation.n = 1;
    CHECK_OK(mero_envelope_wrap(&op.rotation.env[0], w.owner.ns, w.tee.node.pk, sk, key, NULL));
    uint8_t(*heads)[32] = NULL;
    size_t nh;
    CHECK_OK(mero_gov_heads(w.owner.s, w.owner.ns, &heads, &nh));
    CHECK_OK(mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh));
    free(heads);
    op.nonce = 1000;
    CHECK_OK(mero_op_sign(&op, sk));
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_encode(&op, &b));
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_apply(w.owner.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "removed member") != NULL);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE); /* nothing applied */
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    world_close(&w);
}

TEST(only_an_admin_removes)
{
    struct world w;
    CHECK_OK(world_open(&w));
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_remove_member(w.tee.node.s, w.owner.ns, w.owner.ns, w.owner.pk, NULL, &e),
              -MERO_ENOTADMIN);
    world_close(&w);
}

TEST(self_purge_with_pending_marker)
{
    struct world w;
    CHECK_OK(world_open(&w));
    struct mero_err e = {0};
    struct mero_gov_oplist l = {0};
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, w.tee.node.pk, &l, &e));
    CHECK_OK(govt_apply_list(&w.tee.node, &l, &e));
    mero_gov_oplist_cleanup(&l);
    /* a crash after marking: the reconcile sweep finds the marker */
    CHECK_OK(mero_gov_purge_mark(w.tee.node.s, w.owner.ns));
    uint8_t(*pend)[32] = NULL;
    size_t np = 0;
    CHECK_OK(mero_gov_purge_pending(w.tee.node.s, &pend, &np));
    CHECK_EQ(np, 1);
    CHECK_MEM_EQ(pend[0], w.owner.ns, 32);
    free(pend);
    /* a subgroup purge drops only that group's key */
    uint8_t k[32], id[32];
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.sub, k, id));
    CHECK_OK(mero_gov_self_purge(w.tee.node.s, w.owner.ns, w.sub, &e));
    CHECK_ERR(mero_gov_group_key(w.tee.node.s, w.sub, k, id), -MERO_ENOTFOUND);
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.owner.ns, k, id));
    /* the namespace purge removes the log (through the purge gate), keys and identity */
    CHECK_OK(mero_gov_self_purge(w.tee.node.s, w.owner.ns, w.owner.ns, &e));
    uint64_t n;
    CHECK_OK(mero_gov_op_count(w.tee.node.s, w.owner.ns, &n));
    CHECK_EQ(n, 0);
    CHECK_ERR(mero_gov_group_key(w.tee.node.s, w.owner.ns, k, id), -MERO_ENOTFOUND);
    uint8_t pk[32];
    CHECK_ERR(mero_gov_identity(w.tee.node.s, w.owner.ns, false, pk, NULL), -MERO_ENOTFOUND);
    CHECK_OK(mero_gov_purge_pending(w.tee.node.s, &pend, &np));
    CHECK_EQ(np, 0);
    free(pend);
    /* the owner's log is untouched */
    CHECK_OK(mero_gov_op_count(w.owner.s, w.owner.ns, &n));
    CHECK(n > 5);
    world_close(&w);
}

MERO_TEST_MAIN(T(tee_removal_cascades_tee_member_removed), T(subgroup_tee_removal_only_that_group),
               T(tee_member_left_cascades_without_rotation), T(non_tee_removal_is_soft),
               T(member_removed_rotates_key_for_remaining_members),
               T(rotation_wrapping_for_the_removed_member_refused), T(only_an_admin_removes),
               T(self_purge_with_pending_marker))
