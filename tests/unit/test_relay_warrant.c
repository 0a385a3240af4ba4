/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_relay_warrant.c - mero_gov_relay_standing (spec "Converting TEEs already admitted",
 * warrant_gate::executor_standing): the root row's TEE role decides relaying wherever the TEE
 * acts and replaces a subgroup row's TEE role; a TEE with no root TEE row keeps its subgroup
 * row's role; a TEE converted back to replica stops relaying at once; a relay must reach the
 * group. Each refusal beside its accepted case.
 */
#include <string.h>

#include "gov/gov_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner;
    struct govt_tee tee;
    uint8_t open_g[MERO_GROUP_ID_LEN], restr[MERO_GROUP_ID_LEN];
};

/* An owner's namespace under a policy of mode, one TEE admitted at its root, an Open and a
 * Restricted subgroup. */
static int world_open(struct world *w, int mode)
{
    int rc = govt_ns_with_root_tee(&w->owner, &w->tee, mode);
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_OPEN,
                                      w->open_g, NULL, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_RESTRICTED,
                                      w->restr, NULL, NULL);
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

static bool relays(struct world *w, const uint8_t group[MERO_GROUP_ID_LEN], int *standing)
{
    bool yes = true;
    if (mero_gov_relay_standing(w->owner.s, group, w->tee.node.pk, standing, &yes) < 0) {
        return false;
    }
    return yes;
}

TEST(root_relay_tee_relays_in_root_and_open_subgroup)
{
    struct world w;
    int r;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_RELAY));
    CHECK(relays(&w, w.owner.ns, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    CHECK(relays(&w, w.open_g, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    /* a Restricted subgroup it holds no row in is out of its reach */
    CHECK(!relays(&w, w.restr, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    world_close(&w);
}

TEST(root_read_only_tee_with_subgroup_relay_copy_refused)
{
    struct world w;
    int r;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    CHECK(!relays(&w, w.owner.ns, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* a stale RelayTee copy in the Restricted subgroup: the root row replaces it */
    CHECK_OK(mero__gov_row_plain(w.owner.s, w.restr, w.tee.node.pk, MERO_ROLE_RELAY_TEE));
    CHECK(!relays(&w, w.restr, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    world_close(&w);
}

TEST(no_root_row_subgroup_relay_tee_relays)
{
    struct world w;
    int r;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_REPLICA));
    /* admitted into the subgroup alone: no TEE row at the root */
    CHECK_OK(mero__gov_row_del(w.owner.s, w.owner.ns, w.tee.node.pk));
    CHECK_OK(mero__gov_row_plain(w.owner.s, w.restr, w.tee.node.pk, MERO_ROLE_RELAY_TEE));
    CHECK(relays(&w, w.restr, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    /* the same with a ReadOnlyTee subgroup row: refused */
    CHECK_OK(mero__gov_row_plain(w.owner.s, w.restr, w.tee.node.pk, MERO_ROLE_READONLY_TEE));
    CHECK(!relays(&w, w.restr, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    /* and nowhere else */
    CHECK(!relays(&w, w.owner.ns, &r));
    CHECK_EQ(r, MERO_ROLE_NONE);
    world_close(&w);
}

TEST(converted_back_to_replica_refused_at_once)
{
    struct world w;
    int r;
    struct mero_tee_policy p;
    size_t conv = 0, skip = 0;
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, MERO_TEE_MODE_RELAY));
    CHECK(relays(&w, w.open_g, &r));
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
    CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, NULL, &conv, &skip, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_EQ(conv, 1);
    CHECK(!relays(&w, w.owner.ns, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    CHECK(!relays(&w, w.open_g, &r));
    CHECK_EQ(r, MERO_ROLE_READONLY_TEE);
    world_close(&w);
}

TEST(plain_member_and_stranger_never_relay)
{
    struct world w;
    int r;
    uint8_t pk[MERO_IDENTITY_LEN], sk[MERO_ED25519_SK_LEN];
    bool yes = true;
    CHECK_OK(world_open(&w, MERO_TEE_MODE_RELAY));
    mero_ed25519_keypair(pk, sk);
    CHECK_OK(mero_gov_relay_standing(w.owner.s, w.owner.ns, pk, &r, &yes));
    CHECK(!yes);
    CHECK_EQ(r, MERO_ROLE_NONE);
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, pk, MERO_ROLE_MEMBER, NULL, NULL));
    yes = true;
    CHECK_OK(mero_gov_relay_standing(w.owner.s, w.owner.ns, pk, &r, &yes));
    CHECK(!yes);
    yes = true;
    CHECK_OK(mero_gov_relay_standing(w.owner.s, w.owner.ns, w.owner.pk, &r, &yes));
    CHECK(!yes);
    world_close(&w);
}

MERO_TEST_MAIN(T(root_relay_tee_relays_in_root_and_open_subgroup),
               T(root_read_only_tee_with_subgroup_relay_copy_refused),
               T(no_root_row_subgroup_relay_tee_relays),
               T(converted_back_to_replica_refused_at_once),
               T(plain_member_and_stranger_never_relay))
