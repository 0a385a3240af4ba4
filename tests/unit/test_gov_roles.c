/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_roles.c - the TEE roles (spec "The TEE roles", "Converting TEEs already admitted"):
 * only attestation mints a TEE role, TEE rows are locked to the TEE roles, MemberRoleSet on a
 * TEE row only to the policy mode's role, effective roles through Open subgroups (never TEE
 * roles), may_vouch, executor_standing. Each refusal beside its accepted case.
 */
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner;
    struct govt_tee tee;
    uint8_t plain[32];
};

static int world_open(struct world *w, int mode)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome;
    uint8_t sk[64];
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
        rc = govt_tee_open(&w->tee, w->owner.ns);
    }
    if (rc == 0) {
        govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &req);
        rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &req, &outcome, NULL, NULL);
    }
    mero_ed25519_keypair(w->plain, sk);
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

TEST(reject_read_only_tee_via_member_added)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain,
                                  MERO_ROLE_READONLY_TEE, NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "TeeMemberRoleLocked") != NULL);
    CHECK_ERR(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain, MERO_ROLE_RELAY_TEE,
                                  NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain, MERO_ROLE_READONLY,
                                 NULL, &e));
    world_close(&w);
}

TEST(reject_read_only_tee_via_member_role_set)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain, MERO_ROLE_MEMBER, NULL,
                                 &e));
    CHECK_ERR(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.plain,
                                       MERO_ROLE_READONLY_TEE, NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "TeeMemberRoleLocked") != NULL);
    CHECK_OK(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.plain,
                                      MERO_ROLE_READONLY, NULL, &e));
    world_close(&w);
}

TEST(tee_row_locked_to_tee_roles)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    const uint8_t *tee = w.tee.node.pk;
    /* MemberRoleSet to a non-TEE role */
    CHECK_ERR(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, tee, MERO_ROLE_MEMBER,
                                       NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "only to the other TEE role") != NULL);
    /* MemberAdded over the TEE row */
    CHECK_ERR(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, tee, MERO_ROLE_ADMIN, NULL, &e),
        -MERO_ETEE_ROLE_LOCKED);
    /* AdminChanged naming the TEE */
    CHECK_ERR(mero_gov_change_admin(w.owner.s, w.owner.ns, tee, NULL, &e), -MERO_ETEE_ROLE_LOCKED);
    /* the other TEE role, but not the one the (replica) policy names */
    CHECK_ERR(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, tee, MERO_ROLE_RELAY_TEE,
                                       NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK(strstr(e.msg, "policy mode names (ReadOnlyTee)") != NULL);
    /* AdminChanged for a plain identity works; removal of a TEE works, then re-add as anything */
    CHECK_OK(mero_gov_change_admin(w.owner.s, w.owner.ns, w.plain, NULL, &e));
    CHECK_OK(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, tee, NULL, &e));
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, tee, MERO_ROLE_MEMBER, NULL, &e));
    world_close(&w);
}

TEST(member_role_set_moves_tee_only_to_mode_role)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    /* switch to relay with a v2 policy; conversion is emitted, and a later manual move back to
     * ReadOnlyTee is refused under relay */
    struct mero_tee_policy p;
    struct mero_err e = {0};
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_RELAY, true));
    size_t conv = 0;
    CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, NULL, &conv, NULL, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_EQ(conv, 1);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    CHECK_ERR(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.tee.node.pk,
                                       MERO_ROLE_READONLY_TEE, NULL, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK_OK(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.tee.node.pk,
                                      MERO_ROLE_RELAY_TEE, NULL, &e));
    world_close(&w);
}

TEST(mode_switch_leaves_restricted_rows_it_does_not_administer)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    /* a second admin creates a Restricted subgroup, admits the TEE there, and is the only
     * admin of it */
    struct govt_node sub_admin;
    CHECK_OK(govt_open(&sub_admin));
    uint8_t apk[32], sub[32];
    CHECK_OK(mero_gov_identity(sub_admin.s, w.owner.ns, true, apk, NULL));
    CHECK_OK(mero_gov_change_admin(w.owner.s, w.owner.ns, apk, NULL, &e));
    CHECK(govt_sync(&w.owner, &sub_admin, w.owner.ns, &e) > 0);
    CHECK_OK(mero_gov_create_subgroup(sub_admin.s, w.owner.ns, w.owner.ns, MERO_GROUP_RESTRICTED,
                                      sub, NULL, &e));
    struct mero_admit_request req;
    govt_tee_request(&w.tee, w.owner.ns, sub, w.owner.ns, &req);
    /* the root quote is already spent at the root; carry the one the owner admitted with */
    int outcome;
    struct mero_gov_member *m = NULL;
    size_t nm;
    CHECK_OK(mero_gov_members(w.owner.s, w.owner.ns, &m, &nm));
    free(m);
    CHECK_OK(mero_gov_admit_tee_node(sub_admin.s, w.owner.ns, &req, &outcome, NULL, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK(govt_sync(&sub_admin, &w.owner, w.owner.ns, &e) > 0);
    /* the owner switches to relay: the root row converts, the Restricted row is left */
    struct mero_tee_policy p;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_RELAY, true));
    size_t conv = 0, skip = 0;
    CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, NULL, &conv, &skip, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_EQ(conv, 1);
    CHECK_EQ(skip, 1);
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, sub, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* executor standing reads the root row: relay everywhere */
    CHECK_OK(mero_gov_executor_standing(w.owner.s, sub, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    govt_close(&sub_admin);
    world_close(&w);
}

TEST(effective_role_through_open_subgroups_never_tee)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    uint8_t open_g[32], open2[32], restr[32];
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain, MERO_ROLE_MEMBER, NULL,
                                 &e));
    CHECK_OK(mero_gov_create_subgroup(w.owner.s, w.owner.ns, w.owner.ns, MERO_GROUP_OPEN, open_g,
                                      NULL, &e));
    CHECK_OK(
        mero_gov_create_subgroup(w.owner.s, w.owner.ns, open_g, MERO_GROUP_OPEN, open2, NULL, &e));
    CHECK_OK(mero_gov_create_subgroup(w.owner.s, w.owner.ns, w.owner.ns, MERO_GROUP_RESTRICTED,
                                      restr, NULL, &e));
    int r;
    CHECK_OK(mero_gov_effective_role(w.owner.s, open2, w.plain, &r));
    CHECK_EQ(r, MERO_ROLE_MEMBER);
    CHECK_OK(mero_gov_effective_role(w.owner.s, restr, w.plain, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    /* a TEE at the root is not inherited into the Open subgroup */
    CHECK_OK(mero_gov_effective_role(w.owner.s, open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    CHECK_OK(mero_gov_effective_role(w.owner.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* but its executor standing follows the root row */
    CHECK_OK(mero_gov_executor_standing(w.owner.s, open_g, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* admin authority crosses Open boundaries, not Restricted ones (the owner created restr, so
     * use a second root admin) */
    uint8_t admin2[32], sk[64];
    mero_ed25519_keypair(admin2, sk);
    CHECK_OK(mero_gov_change_admin(w.owner.s, w.owner.ns, admin2, NULL, &e));
    bool yes;
    CHECK_OK(mero_gov_is_admin(w.owner.s, open2, admin2, &yes));
    CHECK(yes);
    CHECK_OK(mero_gov_is_admin(w.owner.s, restr, admin2, &yes));
    CHECK(!yes);
    world_close(&w);
}

TEST(may_vouch_admin_or_tee_not_plain_member)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    CHECK_OK(mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, w.plain, MERO_ROLE_MEMBER, NULL,
                                 &e));
    bool yes;
    CHECK_OK(mero_gov_may_vouch(w.owner.s, w.owner.ns, w.plain, &yes));
    CHECK(!yes);
    CHECK_OK(mero_gov_may_vouch(w.owner.s, w.owner.ns, w.owner.pk, &yes));
    CHECK(yes);
    CHECK_OK(mero_gov_may_vouch(w.owner.s, w.owner.ns, w.tee.node.pk, &yes));
    CHECK(yes);
    /* an admitted TEE may admit another TEE, and its op applies on the owner */
    struct mero_err se = {0};
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &se) > 0);
    struct govt_tee second;
    CHECK_OK(govt_tee_open(&second, w.owner.ns));
    struct mero_admit_request req;
    govt_tee_request(&second, w.owner.ns, w.owner.ns, w.owner.ns, &req);
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(mero_gov_admit_tee_node(w.tee.node.s, w.owner.ns, &req, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_OK(govt_apply_list(&w.owner, &l, &e));
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.owner.ns, second.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    mero_gov_oplist_cleanup(&l);
    govt_close(&second.node);
    world_close(&w);
}

TEST(tee_self_auto_follow_and_contexts)
{
    struct world w;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    struct mero_err e = {0};
    uint8_t app[32] = {1}, ctx[32];
    CHECK_OK(mero_gov_create_context(w.owner.s, w.owner.ns, w.owner.ns, app, ctx, NULL, &e));
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    /* the TEE cannot create a context (read-only), but may set its own auto-follow */
    CHECK_ERR(mero_gov_create_context(w.tee.node.s, w.owner.ns, w.owner.ns, app, ctx, NULL, &e),
              -MERO_EREFUSED);
    struct mero_gov_oplist l = {0};
    CHECK_OK(mero_gov_set_auto_follow(w.tee.node.s, w.owner.ns, w.owner.ns, w.tee.node.pk, true,
                                      true, &l, &e));
    CHECK_OK(govt_apply_list(&w.owner, &l, &e));
    bool c, sg;
    CHECK_OK(mero_gov_auto_follow(w.owner.s, w.owner.ns, w.tee.node.pk, &c, &sg));
    CHECK(c && sg);
    /* nor for someone else */
    CHECK_ERR(mero_gov_set_auto_follow(w.tee.node.s, w.owner.ns, w.owner.ns, w.owner.pk, true, true,
                                       NULL, &e),
              -MERO_ENOTADMIN);
    struct mero_gov_context *cx = NULL;
    size_t n = 0;
    CHECK_OK(mero_gov_contexts(w.tee.node.s, w.owner.ns, &cx, &n));
    CHECK_EQ(n, 1);
    free(cx);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

MERO_TEST_MAIN(T(reject_read_only_tee_via_member_added),
               T(reject_read_only_tee_via_member_role_set), T(tee_row_locked_to_tee_roles),
               T(member_role_set_moves_tee_only_to_mode_role),
               T(mode_switch_leaves_restricted_rows_it_does_not_administer),
               T(effective_role_through_open_subgroups_never_tee),
               T(may_vouch_admin_or_tee_not_plain_member), T(tee_self_auto_follow_and_contexts))
