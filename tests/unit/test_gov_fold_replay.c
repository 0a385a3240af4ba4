/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_fold_replay.c - issue 30 speed: a late op's re-fold replays the ops whose rules read
 * nothing the late op changed (src/gov/fold_replay.c) and judges the rest again. Each case
 * feeds a peer the ops in an order that makes one op late, then checks the outcome the rules
 * give at each op's place, that the re-fold did replay ops, and that the peer's derived tables
 * equal a rebuild's (the full fold, which replays nothing). The two traps: an admin count the
 * late op changes under an op whose signer and member it does not name, and a context id the
 * late op takes before a stored op that created it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h" /* the re-fold's counters, mero__gov_publish */
#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

static int state_of(struct govt_node *n, const struct mero_buf *b)
{
    struct mero_op op;
    struct mero_err e = {0};
    uint8_t h[32];
    int st = -1;
    if (mero_op_decode(b->data, b->len, &op, &e) < 0) {
        return -1;
    }
    if (mero_op_hash(&op, h) < 0 || mero_gov_op_state(n->s, h, &st, NULL, 0) < 0) {
        st = -1;
    }
    mero_op_cleanup(&op);
    return st;
}

/* A node holding an identity in `owner`'s namespace, synced from it. */
static int member_node(struct govt_node *n, struct govt_node *owner, struct mero_err *e)
{
    MERO_TRY(govt_open(n));
    memcpy(n->ns, owner->ns, 32);
    MERO_TRY(mero_gov_identity(n->s, owner->ns, true, n->pk, e));
    return 0;
}

/* A fresh peer x holding every op of `from`'s namespace. */
static int synced_peer(struct govt_node *x, struct govt_node *from, struct mero_err *e)
{
    MERO_TRY(govt_open(x));
    memcpy(x->ns, from->ns, 32);
    return govt_sync(from, x, from->ns, e) < 0 ? -MERO_ESTATE : 0;
}

/* A namespace on a and a second root Admin b, synced (its ops appended to l0). */
static int owner_and_admin(struct govt_node *a, struct govt_node *b, struct mero_gov_oplist *l0,
                           struct mero_err *e)
{
    MERO_TRY(govt_owner_and_admin(a, b, l0, e));
    return govt_sync(a, b, a->ns, e) < 0 ? -MERO_ESTATE : 0;
}

/* The owner a, the second admin b, the peer x and their op lists, freed. */
static void close_abx(struct govt_node *a, struct govt_node *b, struct govt_node *x,
                      struct mero_gov_oplist *l0, struct mero_gov_oplist *la,
                      struct mero_gov_oplist *lb)
{
    mero_gov_oplist_cleanup(l0);
    mero_gov_oplist_cleanup(la);
    mero_gov_oplist_cleanup(lb);
    govt_close(x);
    govt_close(b);
    govt_close(a);
}

/* A ContextCreated of a chosen id in the root group, signed by n. */
static int publish_context(struct govt_node *n, const uint8_t ctx[32], struct mero_gov_oplist *l,
                           struct mero_err *e)
{
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, n->ns, sizeof(op.ns));
    memcpy(op.group_id, n->ns, sizeof(op.group_id));
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_CONTEXT_CREATED;
    memcpy(op.context_id, ctx, sizeof(op.context_id));
    memset(op.application_id, 7, sizeof(op.application_id));
    int rc = mero__gov_publish(n->s, &op, l, e);
    mero_op_cleanup(&op);
    return rc;
}

/*
 * Root Admins Y and Z (the owner stepped down). Z lowers itself to Member; concurrently Y adds
 * two members and then lowers itself. Folded in order, Z's op comes first, so Y is the last
 * Admin when it steps down: refused. A peer that held Y's ops first re-folds when Z's arrives:
 * Y's additions name neither Z nor a changed row and are replayed; Y's step-down names only Y,
 * but the admin count it reads changed, so it is judged again.
 */
TEST(a_step_down_judged_again_when_a_late_op_changed_the_admin_count)
{
    struct govt_node a, y, z, x, x2;
    struct mero_err e = {0};
    struct mero_gov_oplist l0 = {0}, ly = {0}, lz = {0};
    uint8_t m[2][32], sk[64];
    CHECK_OK(govt_open(&a));
    CHECK_OK(govt_create_ns(&a));
    CHECK_OK(member_node(&y, &a, &e));
    CHECK_OK(member_node(&z, &a, &e));
    CHECK_OK(mero_gov_change_admin(a.s, a.ns, y.pk, &l0, &e));
    CHECK_OK(mero_gov_change_admin(a.s, a.ns, z.pk, &l0, &e));
    CHECK_OK(mero_gov_set_member_role(a.s, a.ns, a.ns, a.pk, MERO_ROLE_MEMBER, &l0, &e));
    CHECK_EQ(govt_root_role(&a, a.ns, a.pk), MERO_ROLE_MEMBER);
    CHECK(govt_sync(&a, &y, a.ns, &e) >= 0);
    CHECK(govt_sync(&a, &z, a.ns, &e) >= 0);
    CHECK_OK(mero_gov_add_member(z.s, a.ns, a.ns, z.pk, MERO_ROLE_MEMBER, &lz, &e));
    for (int i = 0; i < 2; i++) {
        mero_ed25519_keypair(m[i], sk);
        CHECK_OK(mero_gov_add_member(y.s, a.ns, a.ns, m[i], MERO_ROLE_MEMBER, &ly, &e));
    }
    CHECK_OK(mero_gov_add_member(y.s, a.ns, a.ns, y.pk, MERO_ROLE_MEMBER, &ly, &e));
    CHECK_EQ(ly.n, 3u);
    /* x: Y's ops first (the step-down takes effect), then Z's, late */
    CHECK_OK(synced_peer(&x, &a, &e));
    CHECK_OK(govt_apply_list(&x, &ly, &e));
    CHECK_EQ(state_of(&x, &ly.v[2]), MERO_OP_EFFECTIVE);
    uint64_t r0 = x.s->late_refolds, p0 = x.s->refold_replayed;
    CHECK_OK(govt_apply_list(&x, &lz, &e));
    CHECK_EQ(x.s->late_refolds - r0, 1u);
    CHECK_MSG(x.s->refold_replayed - p0 >= 2, "replayed %llu ops",
              (unsigned long long)(x.s->refold_replayed - p0));
    CHECK_EQ(state_of(&x, &lz.v[0]), MERO_OP_EFFECTIVE);
    CHECK_EQ(state_of(&x, &ly.v[2]), MERO_OP_REJECTED);
    CHECK_EQ(govt_root_role(&x, x.ns, y.pk), MERO_ROLE_ADMIN);
    CHECK_EQ(govt_root_role(&x, x.ns, z.pk), MERO_ROLE_MEMBER);
    CHECK_EQ(govt_root_role(&x, x.ns, m[1]), MERO_ROLE_MEMBER);
    /* x2: Z's first; the same end */
    CHECK_OK(synced_peer(&x2, &a, &e));
    CHECK_OK(govt_apply_list(&x2, &lz, &e));
    (void)govt_apply_list(&x2, &ly, &e);
    CHECK(govt_dumps_equal(&x, &x2));
    CHECK(govt_matches_rebuild(&x));
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&ly);
    mero_gov_oplist_cleanup(&lz);
    govt_close(&x2);
    govt_close(&x);
    govt_close(&z);
    govt_close(&y);
    govt_close(&a);
}

/*
 * Admins A and B each create a context of the same id; B's sorts first. A peer that held A's
 * first re-folds when B's arrives: the contexts changed, so A's later op is judged again (not
 * replayed): refused, and the context is B's.
 */
TEST(a_late_context_takes_its_id_from_a_stored_one)
{
    struct govt_node a, b, x;
    struct mero_err e = {0};
    struct mero_gov_oplist l0 = {0}, la = {0}, lb = {0};
    uint8_t ctx[32], m[32], sk[64];
    mero_random(ctx, sizeof(ctx));
    CHECK_OK(owner_and_admin(&a, &b, &l0, &e));
    CHECK_OK(publish_context(&b, ctx, &lb, &e));
    mero_ed25519_keypair(m, sk);
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, m, MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(publish_context(&a, ctx, &la, &e));
    CHECK_OK(synced_peer(&x, &a, &e));
    CHECK_EQ(state_of(&x, &la.v[1]), MERO_OP_EFFECTIVE);
    uint64_t r0 = x.s->late_refolds;
    int status = -1;
    CHECK_OK(mero_gov_apply(x.s, lb.v[0].data, lb.v[0].len, &status, NULL, NULL, &e));
    CHECK_EQ(x.s->late_refolds - r0, 1u);
    CHECK_EQ(state_of(&x, &lb.v[0]), MERO_OP_EFFECTIVE);
    CHECK_EQ(state_of(&x, &la.v[1]), MERO_OP_REJECTED);
    CHECK(govt_matches_rebuild(&x));
    close_abx(&a, &b, &x, &l0, &la, &lb);
}

/*
 * The bench's shape, small: the owner adds 200 members, then sets an early member's auto-follow,
 * while a second admin's role change of that member travels late. The log's last op names the
 * member, so the role change does not commute (fold_commute.c): every later addition is
 * replayed, the op naming the member is judged, the end equals a rebuild and the membership
 * events name only what changed. Without the op naming the member the role change commutes,
 * and is judged without a re-fold (last case).
 */
static int role_change_shape(struct govt_node *a, struct govt_node *b, uint8_t m[32],
                             bool named_last, struct mero_gov_oplist *l0,
                             struct mero_gov_oplist *la, struct mero_gov_oplist *lb,
                             struct mero_err *e)
{
    uint8_t sk[64];
    MERO_TRY(owner_and_admin(a, b, l0, e));
    mero_ed25519_keypair(m, sk);
    MERO_TRY(mero_gov_add_member(a->s, a->ns, a->ns, m, MERO_ROLE_MEMBER, l0, e));
    MERO_TRY(govt_sync(a, b, a->ns, e) >= 0 ? 0 : -MERO_ESTATE);
    MERO_TRY(mero_gov_set_member_role(b->s, a->ns, a->ns, m, MERO_ROLE_READONLY, lb, e));
    for (int i = 0; i < 200; i++) {
        uint8_t f[32];
        mero_ed25519_keypair(f, sk);
        MERO_TRY(mero_gov_add_member(a->s, a->ns, a->ns, f, MERO_ROLE_MEMBER, la, e));
    }
    return named_last ? mero_gov_set_auto_follow(a->s, a->ns, a->ns, m, true, false, la, e) : 0;
}

TEST(a_late_role_change_replays_the_log_after_it)
{
    struct govt_node a, b, x;
    struct mero_err e = {0};
    struct mero_gov_oplist l0 = {0}, la = {0}, lb = {0};
    uint8_t m[32];
    CHECK_OK(role_change_shape(&a, &b, m, true, &l0, &la, &lb, &e));
    CHECK_OK(synced_peer(&x, &a, &e));
    govt_clear_events(&x);
    uint64_t p0 = x.s->refold_replayed, r0 = x.s->late_refolds;
    CHECK_OK(govt_apply_list(&x, &lb, &e));
    CHECK_EQ(x.s->late_refolds - r0, 1u);
    CHECK_MSG(x.s->refold_replayed - p0 >= 200, "replayed %llu ops",
              (unsigned long long)(x.s->refold_replayed - p0));
    CHECK_EQ(state_of(&x, &la.v[la.n - 1]), MERO_OP_EFFECTIVE);
    CHECK_EQ(govt_root_role(&x, x.ns, m), MERO_ROLE_READONLY);
    CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ROLE_SET, m), 1u);
    CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ADDED, NULL), 0u);
    CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_REMOVED, NULL), 0u);
    CHECK(govt_matches_rebuild(&x));
    close_abx(&a, &b, &x, &l0, &la, &lb);
}

/* A late role change between two plain roles that no later op names commutes with the log
 * after it: judged at once, no re-fold, the same rows, outcomes and events as the full fold
 * (compared with a rebuild). A later op that adds the member again (which, for an addition,
 * would be a rewrite) is a conflict for a role change: the namespace is re-folded. */
TEST(a_late_role_change_no_later_op_names_is_judged_without_a_re_fold)
{
    for (int readd = 0; readd < 2; readd++) {
        struct govt_node a, b, x;
        struct mero_err e = {0};
        struct mero_gov_oplist l0 = {0}, la = {0}, lb = {0};
        uint8_t m[32];
        CHECK_OK(role_change_shape(&a, &b, m, false, &l0, &la, &lb, &e));
        if (readd) {
            CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, m, MERO_ROLE_MEMBER, &la, &e));
        }
        CHECK_OK(synced_peer(&x, &a, &e));
        govt_clear_events(&x);
        uint64_t f0 = x.s->late_fast, r0 = x.s->late_refolds, p0 = x.s->refold_replayed;
        CHECK_OK(govt_apply_list(&x, &lb, &e));
        CHECK_EQ(state_of(&x, &lb.v[0]), MERO_OP_EFFECTIVE);
        CHECK_EQ(x.s->late_fast - f0, readd ? 0u : 1u);
        CHECK_EQ(x.s->late_refolds - r0, readd ? 1u : 0u);
        CHECK_EQ(x.s->refold_replayed - p0 >= 200, (bool)readd);
        /* re-added after the change, the member is a Member again: no event for it */
        CHECK_EQ(govt_root_role(&x, x.ns, m), readd ? MERO_ROLE_MEMBER : MERO_ROLE_READONLY);
        CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ROLE_SET, m), readd ? 0u : 1u);
        CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ADDED, NULL), 0u);
        CHECK(govt_matches_rebuild(&x));
        close_abx(&a, &b, &x, &l0, &la, &lb);
    }
}

MERO_TEST_MAIN(T(a_step_down_judged_again_when_a_late_op_changed_the_admin_count),
               T(a_late_context_takes_its_id_from_a_stored_one),
               T(a_late_role_change_replays_the_log_after_it),
               T(a_late_role_change_no_later_op_names_is_judged_without_a_re_fold))
