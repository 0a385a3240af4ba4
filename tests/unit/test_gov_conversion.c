/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_conversion.c - converting admitted TEEs (spec "Converting TEEs already admitted",
 * issue 15 "Conversion") as a PEER sees it: the admin's mode switch (policy + MemberRoleSet)
 * applies on a replaying peer, which then reads the TEE's relaying standing from its root row
 * in the root and in an Open subgroup; switched back to replica, it stops relaying in both at
 * once; and a peer refuses a MemberRoleSet on a TEE row that names another role than the
 * policy it has just applied (even signed by the admin), accepting the genuine conversion.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner, peer;
    struct govt_tee tee;
    uint8_t open_g[MERO_GROUP_ID_LEN];
};

static int world_open(struct world *w)
{
    uint8_t ppk[MERO_IDENTITY_LEN];
    int rc = govt_ns_with_root_tee(&w->owner, &w->tee, MERO_TEE_MODE_REPLICA);
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_OPEN,
                                      w->open_g, NULL, NULL);
    }
    /* the peer: a plain member replaying the namespace's ops */
    if (rc == 0) {
        rc = govt_open(&w->peer);
    }
    if (rc == 0) {
        rc = mero_gov_identity(w->peer.s, w->owner.ns, true, ppk, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_add_member(w->owner.s, w->owner.ns, w->owner.ns, ppk, MERO_ROLE_MEMBER, NULL,
                                 NULL);
    }
    if (rc == 0 && govt_sync(&w->owner, &w->peer, w->owner.ns, NULL) <= 0) {
        rc = -MERO_EINTERNAL;
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->peer);
    govt_close(&w->tee.node);
}

/* The owner switches the policy's mode; returns the ops it published (policy, conversions). */
static int switch_mode(struct world *w, int mode, struct mero_gov_oplist *l, size_t *conv)
{
    struct mero_tee_policy p;
    int rc = govt_policy(&p, mode, true);
    if (rc == 0) {
        rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, l, conv, NULL, NULL);
    }
    mero_tee_policy_cleanup(&p);
    return rc;
}

/* A MemberRoleSet on the root for the TEE, signed by the owner over the peer's heads. */
static int forged_role_set(struct world *w, int role, struct mero_buf *out)
{
    struct mero_op op;
    uint8_t(*heads)[MERO_OP_ID_LEN] = NULL;
    size_t nh = 0;
    uint8_t sk[MERO_ED25519_SK_LEN];
    mero_op_init(&op);
    memcpy(op.ns, w->owner.ns, sizeof(op.ns));
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_ROLE_SET;
    memcpy(op.group_id, w->owner.ns, sizeof(op.group_id));
    memcpy(op.member, w->tee.node.pk, sizeof(op.member));
    op.role = (uint8_t)role;
    op.nonce = 4242;
    int rc = mero_gov_heads(w->peer.s, w->owner.ns, &heads, &nh);
    if (rc == 0) {
        rc = mero_op_set_parents(&op, (const uint8_t(*)[MERO_OP_ID_LEN])heads, (uint32_t)nh);
    }
    free(heads);
    if (rc == 0) {
        rc = mero_gov_identity_secret(w->owner.s, w->owner.ns, sk);
    }
    if (rc == 0) {
        rc = mero_op_sign(&op, sk);
    }
    mero_wipe(sk, sizeof(sk));
    if (rc == 0) {
        rc = mero_op_encode(&op, out);
    }
    mero_op_cleanup(&op);
    return rc;
}

TEST(peer_applies_the_conversion_and_back_in_every_subgroup)
{
    struct world w;
    CHECK_OK(world_open(&w));
    int r;
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);

    struct mero_gov_oplist l = {0};
    size_t conv = 0;
    CHECK_OK(switch_mode(&w, MERO_TEE_MODE_RELAY, &l, &conv));
    CHECK_EQ(conv, 1);
    CHECK_EQ(l.n, 2); /* the policy, then the TEE's MemberRoleSet */
    struct mero_err e = {0};
    int rc = govt_apply_list(&w.peer, &l, &e);
    mero_gov_oplist_cleanup(&l);
    CHECK_OK(rc);
    CHECK_OK(mero_gov_direct_role(w.peer.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);

    /* switched back to replica: it stops relaying at the root and in the subgroup at once */
    conv = 0;
    CHECK_OK(switch_mode(&w, MERO_TEE_MODE_REPLICA, &l, &conv));
    CHECK_EQ(conv, 1);
    rc = govt_apply_list(&w.peer, &l, &e);
    mero_gov_oplist_cleanup(&l);
    CHECK_OK(rc);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* the same mode again converts nothing */
    conv = 7;
    CHECK_OK(switch_mode(&w, MERO_TEE_MODE_REPLICA, &l, &conv));
    CHECK_EQ(conv, 0);
    CHECK_EQ(l.n, 1);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

TEST(peer_checks_each_conversion_against_the_policy_it_just_applied)
{
    struct world w;
    CHECK_OK(world_open(&w));
    struct mero_err e = {0};
    struct mero_buf b;
    int r;
    /* under the replica policy an admin-signed MemberRoleSet to RelayTee is refused */
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forged_role_set(&w, MERO_ROLE_RELAY_TEE, &b));
    int rc = mero_gov_apply(w.peer.s, b.data, b.len, NULL, NULL, NULL, &e);
    mero_buf_cleanup(&b);
    CHECK_ERR(rc, -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "policy mode names (ReadOnlyTee)") != NULL);
    /* nor to a plain role */
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forged_role_set(&w, MERO_ROLE_MEMBER, &b));
    rc = mero_gov_apply(w.peer.s, b.data, b.len, NULL, NULL, NULL, &e);
    mero_buf_cleanup(&b);
    CHECK_ERR(rc, -MERO_ETEE_ROLE_LOCKED);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);

    /* the owner switches to relay; the peer applies the policy alone first */
    struct mero_gov_oplist l = {0};
    size_t conv = 0;
    CHECK_OK(switch_mode(&w, MERO_TEE_MODE_RELAY, &l, &conv));
    CHECK_EQ(l.n, 2);
    rc = mero_gov_apply(w.peer.s, l.v[0].data, l.v[0].len, NULL, NULL, NULL, &e);
    if (rc < 0) {
        mero_gov_oplist_cleanup(&l);
    }
    CHECK_OK(rc);
    /* a conversion back to ReadOnlyTee under the relay policy it just applied: refused */
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    rc = forged_role_set(&w, MERO_ROLE_READONLY_TEE, &b);
    int arc = rc == 0 ? mero_gov_apply(w.peer.s, b.data, b.len, NULL, NULL, NULL, &e) : rc;
    mero_buf_cleanup(&b);
    /* the genuine conversion is accepted */
    int grc = mero_gov_apply(w.peer.s, l.v[1].data, l.v[1].len, NULL, NULL, NULL, NULL);
    mero_gov_oplist_cleanup(&l);
    CHECK_OK(rc);
    CHECK_ERR(arc, -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "policy mode names (RelayTee)") != NULL);
    CHECK_OK(grc);
    CHECK_OK(mero_gov_executor_standing(w.peer.s, w.open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    world_close(&w);
}

MERO_TEST_MAIN(T(peer_applies_the_conversion_and_back_in_every_subgroup),
               T(peer_checks_each_conversion_against_the_policy_it_just_applied))
