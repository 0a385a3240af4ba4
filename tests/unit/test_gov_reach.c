/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_reach.c - a member's reach over subgroups (issue 16, src/gov/reach.c): a TEE row
 * is direct, never inherited (no row, no vouching, no effective role in a subgroup), yet the
 * TEE reaches every Open subgroup below its root row with that row's role, and no Restricted
 * one; a mode conversion at the root reaches the Open subgroups and converts the rows
 * tee_subgroup_admit made in subgroups the admin administers; tee_subgroup_admit carries the
 * root admission inward (a direct row, the subgroup key delivered) and refuses what is not an
 * admitted TEE; an admission hands over the keys of the Open subgroups it reaches; a pulled
 * past key never becomes current; a rotation outside MemberRemoved reaches everyone but the
 * excluded member.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/keys.h"
#include "support/gov_fixture.h"

/* owner with a namespace and a policy; Open O, Open O2 below O, Restricted R, Open O3 below R;
 * a TEE admitted at the root (after the groups exist); a plain member at the root */
struct world {
    struct govt_node owner;
    struct govt_tee tee;
    uint8_t o[32], o2[32], r[32], o3[32], plain[32];
    struct mero_gov_oplist admit_ops;
};

static int world_open(struct world *w, int mode)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome;
    uint8_t sk[64];
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
    const uint8_t *ns = w->owner.ns;
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, ns, ns, MERO_GROUP_OPEN, w->o, NULL, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, ns, w->o, MERO_GROUP_OPEN, w->o2, NULL, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, ns, ns, MERO_GROUP_RESTRICTED, w->r, NULL, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, ns, w->r, MERO_GROUP_OPEN, w->o3, NULL, NULL);
    }
    mero_ed25519_keypair(w->plain, sk);
    if (rc == 0) {
        rc = mero_gov_add_member(w->owner.s, ns, ns, w->plain, MERO_ROLE_MEMBER, NULL, NULL);
    }
    if (rc == 0) {
        rc = govt_tee_open(&w->tee, ns);
    }
    if (rc == 0) {
        govt_tee_request(&w->tee, ns, ns, ns, &req);
        rc = mero_gov_admit_tee_node(w->owner.s, ns, &req, &outcome, &w->admit_ops, NULL);
    }
    return rc;
}

static void world_close(struct world *w)
{
    mero_gov_oplist_cleanup(&w->admit_ops);
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

static int reach(struct world *w, const uint8_t g[32], const uint8_t m[32])
{
    int r = -99;
    return mero_gov_reach_role(w->owner.s, g, m, &r) < 0 ? -99 : r;
}

/* how many KeyDelivery ops for group in l */
static size_t deliveries(const struct mero_gov_oplist *l, const uint8_t g[32])
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct mero_op op;
        mero_op_init(&op);
        if (mero_op_decode(l->v[i].data, l->v[i].len, &op, NULL) == 0 &&
            op.scope == MERO_SCOPE_ROOT && op.kind == MERO_ROOT_KEY_DELIVERY &&
            memcmp(op.kd_group, g, 32) == 0) {
            n++;
        }
        mero_op_cleanup(&op);
    }
    return n;
}

TEST(tee_row_is_direct_but_reaches_open_subgroups_with_its_root_role)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    const uint8_t *t = w.tee.node.pk;
    CHECK_EQ(reach(&w, w.owner.ns, t), MERO_ROLE_READONLY_TEE);
    CHECK_EQ(reach(&w, w.o, t), MERO_ROLE_READONLY_TEE);
    CHECK_EQ(reach(&w, w.o2, t), MERO_ROLE_READONLY_TEE);
    CHECK_EQ(reach(&w, w.r, t), MERO_ROLE_NONE);  /* a Restricted boundary */
    CHECK_EQ(reach(&w, w.o3, t), MERO_ROLE_NONE); /* Open, but below the boundary */
    CHECK_EQ(reach(&w, w.o2, w.plain), MERO_ROLE_MEMBER);
    /* direct, never inherited: no row, no effective role, no vouching in the subgroup */
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.o, t, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    CHECK_OK(mero_gov_effective_role(w.owner.s, w.o, t, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    bool yes = true;
    CHECK_OK(mero_gov_may_vouch(w.owner.s, w.o, t, &yes));
    CHECK(!yes);
    /* the groups it reaches: the root and the Open chain */
    uint8_t(*g)[32] = NULL;
    size_t n = 0;
    CHECK_OK(mero_gov_reached_groups(w.owner.s, w.owner.ns, t, &g, &n));
    CHECK_EQ(n, (size_t)3);
    bool saw_r = false;
    for (size_t i = 0; i < n; i++) {
        saw_r |= memcmp(g[i], w.r, 32) == 0 || memcmp(g[i], w.o3, 32) == 0;
    }
    CHECK(!saw_r);
    free(g);
    /* the members an Open subgroup's key is for: the owner, the plain member and the TEE */
    struct mero_gov_member *m = NULL;
    CHECK_OK(mero_gov_reach_members(w.owner.s, w.o2, &m, &n));
    CHECK_EQ(n, (size_t)3);
    free(m);
    CHECK_OK(mero_gov_reach_members(w.owner.s, w.r, &m, &n));
    CHECK_EQ(n, (size_t)1); /* only its creator */
    free(m);
    world_close(&w);
}

TEST(admission_delivers_the_keys_of_the_open_subgroups_it_reaches)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    CHECK_EQ(deliveries(&w.admit_ops, w.owner.ns), (size_t)1);
    CHECK_EQ(deliveries(&w.admit_ops, w.o), (size_t)1);
    CHECK_EQ(deliveries(&w.admit_ops, w.o2), (size_t)1);
    CHECK_EQ(deliveries(&w.admit_ops, w.r), (size_t)0);
    CHECK_EQ(deliveries(&w.admit_ops, w.o3), (size_t)0);
    /* the TEE, applying the log, holds the keys of what it reaches and nothing else */
    struct mero_err e = {0};
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    uint8_t k[32], id[32], ko[32], ido[32];
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.o2, k, id));
    CHECK_OK(mero_gov_group_key(w.owner.s, w.o2, ko, ido));
    CHECK_MEM_EQ(id, ido, 32);
    CHECK_ERR(mero_gov_group_key(w.tee.node.s, w.r, k, id), -MERO_ENOTFOUND);
    world_close(&w);
}

TEST(mode_conversion_at_the_root_reaches_the_subgroups)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    const uint8_t *t = w.tee.node.pk;
    int outcome = -1;
    struct mero_err e = {0};
    /* tee_subgroup_admit into R: a direct row there, in the mode's role */
    CHECK_OK(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, w.r, t, 1000, &outcome, NULL, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_EQ(reach(&w, w.r, t), MERO_ROLE_READONLY_TEE);
    CHECK_EQ(reach(&w, w.o3, t), MERO_ROLE_READONLY_TEE); /* Open below its new row */
    /* switch to relay: the root row converts, the Open subgroups follow it, and the owner
     * (R's admin) converts the row tee_subgroup_admit made there */
    struct mero_tee_policy p;
    size_t converted = 0, skipped = 0;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_RELAY, true));
    CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, NULL, &converted, &skipped, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_EQ(converted, (size_t)2);
    CHECK_EQ(skipped, (size_t)0);
    CHECK_EQ(reach(&w, w.owner.ns, t), MERO_ROLE_RELAY_TEE);
    CHECK_EQ(reach(&w, w.o2, t), MERO_ROLE_RELAY_TEE);
    CHECK_EQ(reach(&w, w.r, t), MERO_ROLE_RELAY_TEE);
    int r;
    CHECK_OK(mero_gov_executor_standing(w.owner.s, w.o2, t, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    /* still no row in the Open subgroups */
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.o2, t, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    world_close(&w);
}

TEST(subgroup_admit_carries_the_root_admission_and_refuses_the_rest)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    const uint8_t *t = w.tee.node.pk;
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    int outcome = -1;
    CHECK_ERR(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, w.r, w.plain, 1000, &outcome, &l, &e),
              -MERO_ESTATE);
    CHECK(strstr(e.msg, "not an admitted TEE") != NULL);
    CHECK_ERR(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, w.owner.ns, t, 1000, &outcome, &l, &e),
              -MERO_EINVAL);
    uint8_t other[32] = {9};
    CHECK_ERR(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, other, t, 1000, &outcome, &l, &e),
              -MERO_ENOTFOUND);
    CHECK_EQ(l.n, (size_t)0);
    CHECK_OK(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, w.r, t, 1000, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_EQ(deliveries(&l, w.r), (size_t)1);
    CHECK_EQ(deliveries(&l, w.o3), (size_t)1); /* the Open subgroup below R comes with it */
    /* the TEE follows: it opens the sealed join with the namespace key and holds R's key */
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    int r;
    CHECK_OK(mero_gov_direct_role(w.tee.node.s, w.r, t, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    uint8_t k[32], id[32];
    CHECK_OK(mero_gov_group_key(w.tee.node.s, w.r, k, id));
    /* again: already a member, nothing published */
    mero_gov_oplist_cleanup(&l);
    CHECK_OK(mero_gov_subgroup_admit(w.owner.s, w.owner.ns, w.r, t, 1000, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ALREADY_MEMBER);
    CHECK_EQ(l.n, (size_t)0);
    /* the TEE itself administers nothing: not a voucher there */
    uint8_t o4[32];
    CHECK_OK(mero_gov_create_subgroup(w.owner.s, w.owner.ns, w.owner.ns, MERO_GROUP_RESTRICTED, o4,
                                      NULL, &e));
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    CHECK_ERR(mero_gov_subgroup_admit(w.tee.node.s, w.owner.ns, o4, t, 1000, &outcome, &l, &e),
              -MERO_ENOTADMIN);
    CHECK(strstr(e.msg, "not an admin of the subgroup") != NULL);
    CHECK_EQ(l.n, (size_t)0);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

/* a subgroup-form MemberJoinedTee for member into group, signed with signer's namespace key
 * on top of to's heads (the op a TEE's node would publish if it vouched there) */
static int forge_subgroup_join(struct govt_node *signer, struct govt_node *to, const uint8_t ns[32],
                               const uint8_t group[32], const struct mero_admit_request *req,
                               struct mero_buf *b)
{
    struct mero_op op;
    uint8_t(*heads)[32] = NULL;
    size_t nh = 0;
    uint8_t sk[64];
    mero_op_init(&op);
    memcpy(op.ns, ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
    memcpy(op.group_id, group, 32);
    memcpy(op.join.group_id, group, 32);
    memcpy(op.join.member, req->member, 32);
    memcpy(op.join.quote_hash, req->quote_hash, 32);
    op.join.m = req->m;
    snprintf(op.join.tcb_status, sizeof(op.join.tcb_status), "Mock");
    op.join.role = MERO_ROLE_READONLY_TEE;
    int rc = mero_gov_heads(to->s, ns, &heads, &nh);
    if (rc == 0) {
        rc = mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh);
    }
    free(heads);
    op.nonce = 7;
    if (rc == 0) {
        rc = mero_gov_identity_secret(signer->s, ns, sk);
    }
    if (rc == 0) {
        rc = mero_op_sign(&op, sk);
    }
    if (rc == 0) {
        rc = mero_op_encode(&op, b);
    }
    mero_op_cleanup(&op);
    return rc;
}

/* issue 32 item 2: a TEE member of a Restricted subgroup (no admin there) does not pull another
 * TEE in: its gov refuses the action, and every peer refuses the subgroup-form admission it
 * would sign; the same op signed by the subgroup's admin is accepted */
TEST(restricted_subgroup_admits_only_through_its_admins)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    const uint8_t *ns = w.owner.ns, *t = w.tee.node.pk;
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    int outcome = -1, r;
    CHECK_OK(mero_gov_subgroup_admit(w.owner.s, ns, w.r, t, 1000, &outcome, &l, &e));
    mero_gov_oplist_cleanup(&l);
    /* a second TEE, admitted at the root */
    struct govt_tee t2;
    struct mero_admit_request req;
    CHECK_OK(govt_tee_open(&t2, ns));
    govt_tee_request(&t2, ns, ns, ns, &req);
    CHECK_OK(mero_gov_admit_tee_node(w.owner.s, ns, &req, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    mero_gov_oplist_cleanup(&l);
    CHECK(govt_sync(&w.owner, &w.tee.node, ns, &e) > 0);
    CHECK_OK(mero_gov_direct_role(w.tee.node.s, w.r, t, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE); /* the TEE is a member of R (it may vouch there) */
    /* its own gov refuses the action, nothing published */
    CHECK_ERR(mero_gov_subgroup_admit(w.tee.node.s, ns, w.r, t2.node.pk, 1000, &outcome, &l, &e),
              -MERO_ENOTADMIN);
    CHECK_EQ(l.n, (size_t)0);
    /* a peer refuses the subgroup-form admission the TEE signs */
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forge_subgroup_join(&w.tee.node, &w.owner, ns, w.r, &req, &b));
    CHECK_ERR(mero_gov_apply(w.owner.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_ENOTVOUCHER);
    CHECK(strstr(e.msg, "Restricted subgroup") != NULL);
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.r, t2.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    /* the TEE's own store refuses it too (its publish applies locally first) */
    CHECK_ERR(mero_gov_apply(w.tee.node.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_ENOTVOUCHER);
    /* the same op signed by R's admin is accepted: the boundary is who signs, not the form */
    mero_buf_reset(&b);
    CHECK_OK(forge_subgroup_join(&w.owner, &w.owner, ns, w.r, &req, &b));
    CHECK_OK(mero_gov_apply(w.owner.s, b.data, b.len, NULL, NULL, NULL, &e));
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.r, t2.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    mero_buf_cleanup(&b);
    govt_close(&t2.node);
    world_close(&w);
}

TEST(a_past_key_never_becomes_current)
{
    struct govt_node n;
    CHECK_OK(govt_open(&n));
    uint8_t g[32] = {4}, k0[32], k1[32], k[32], id[32], id0[32], id1[32];
    mero_group_key_new(k0);
    mero_group_key_new(k1);
    mero_group_key_id(id0, k0);
    mero_group_key_id(id1, k1);
    CHECK_OK(mero_gov_group_key_put_past(n.s, g, k1)); /* none held: it is the current one */
    CHECK_OK(mero_gov_group_key(n.s, g, k, id));
    CHECK_MEM_EQ(id, id1, 32);
    CHECK_OK(mero_gov_group_key_put_past(n.s, g, k0));
    CHECK_OK(mero_gov_group_key(n.s, g, k, id));
    CHECK_MEM_EQ(id, id1, 32);
    CHECK_OK(mero_gov_group_key_by_id(n.s, g, id0, k));
    CHECK_MEM_EQ(k, k0, 32);
    uint8_t(*ids)[32] = NULL;
    size_t cnt = 0;
    CHECK_OK(mero_gov_group_key_ids(n.s, g, &ids, &cnt));
    CHECK_EQ(cnt, (size_t)2);
    CHECK_MEM_EQ(ids[0], id1, 32); /* newest first */
    CHECK_MEM_EQ(ids[1], id0, 32);
    free(ids);
    govt_close(&n);
}

TEST(rotation_reaches_everyone_but_the_excluded_member)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    uint8_t k[32], before[32], after[32];
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    CHECK_OK(mero_gov_group_key(w.owner.s, w.o2, k, before));
    CHECK_OK(mero_gov_rotate_key(w.owner.s, w.owner.ns, w.o2, w.tee.node.pk, &l, &e));
    CHECK_OK(mero_gov_group_key(w.owner.s, w.o2, k, after));
    CHECK(memcmp(before, after, 32) != 0);
    CHECK_EQ(deliveries(&l, w.o2), (size_t)1); /* the plain member; not the TEE, not us */
    struct mero_op op;
    mero_op_init(&op);
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, NULL));
    CHECK_MEM_EQ(op.envelope.identity, w.plain, 32);
    mero_op_cleanup(&op);
    mero_gov_oplist_cleanup(&l);
    /* only an admin rotates */
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    CHECK_ERR(mero_gov_rotate_key(w.tee.node.s, w.owner.ns, w.o2, w.plain, &l, &e),
              -MERO_ENOTADMIN);
    CHECK_EQ(l.n, (size_t)0);
    world_close(&w);
}

MERO_TEST_MAIN(T(tee_row_is_direct_but_reaches_open_subgroups_with_its_root_role),
               T(admission_delivers_the_keys_of_the_open_subgroups_it_reaches),
               T(mode_conversion_at_the_root_reaches_the_subgroups),
               T(subgroup_admit_carries_the_root_admission_and_refuses_the_rest),
               T(restricted_subgroup_admits_only_through_its_admins),
               T(a_past_key_never_becomes_current),
               T(rotation_reaches_everyone_but_the_excluded_member))
