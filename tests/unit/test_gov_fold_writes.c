/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_fold_writes.c - issue 30 speed: how a re-fold (src/gov/fold.c) writes the rows it
 * rebuilds. A store holding one namespace empties the derived tables whole; one holding others
 * deletes that namespace's rows only. The member rows of replayed additions go GOV_ROWS_BATCH to
 * a statement. The deny entries a fold wrote are remembered (up to
 * GOV_FOLD_DENIED_MAX, then the table is asked), so a replayed addition lifts a deny entry only
 * where one may exist.
 *
 * Each case feeds peer x the owner's log and then a second admin's op that sorts near the log's
 * start: a late authority change, re-folded in full. Peer y gets the same ops in canonical order
 * (no op is late there), so its tables come from the in-order path, which none of the three
 * shortcuts touches. The two must be byte for byte the same.
 */
#include <string.h>

#include "gov/gov_internal.h" /* the re-fold's counters, GOV_FOLD_DENIED_MAX, GOV_ROWS_BATCH */
#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

#define MEMBERS_MAX 48

struct world {
    struct govt_node a, b, c, x, y; /* owner, second admin, another namespace's owner, peers */
    struct mero_gov_oplist l0, la, lb, lc;
    uint8_t m[MEMBERS_MAX][32]; /* the owner's later members; m0 is added before b syncs */
    uint8_t mc[3][32];          /* the other namespace's members */
};

/* The other namespace: three members, one removed (a deny entry), a context, auto-follow. */
static int other_namespace(struct world *w, struct mero_err *e)
{
    uint8_t sk[64], app[32] = {9}, ctx[32];
    MERO_TRY(govt_open(&w->c));
    MERO_TRY(govt_create_ns(&w->c));
    for (int i = 0; i < 3; i++) {
        mero_ed25519_keypair(w->mc[i], sk);
        MERO_TRY(
            mero_gov_add_member(w->c.s, w->c.ns, w->c.ns, w->mc[i], MERO_ROLE_MEMBER, &w->lc, e));
    }
    MERO_TRY(mero_gov_remove_member(w->c.s, w->c.ns, w->c.ns, w->mc[0], &w->lc, e));
    MERO_TRY(mero_gov_create_context(w->c.s, w->c.ns, w->c.ns, app, ctx, &w->lc, e));
    MERO_TRY(mero_gov_set_auto_follow(w->c.s, w->c.ns, w->c.ns, w->mc[1], true, false, &w->lc, e));
    MERO_TRY(govt_sync(&w->c, &w->x, w->c.ns, e) < 0 ? -MERO_ESTATE : 0);
    return govt_sync(&w->c, &w->y, w->c.ns, e) < 0 ? -MERO_ESTATE : 0;
}

/*
 * The owner a adds m0 and makes b an Admin; b syncs. Then a adds n members, removes the first
 * `removed` of them and adds the first `readded` again; b's op, late on x, removes m0 where a
 * removed nobody, else makes m0 an Admin (a removal would void a's key rotations, which wrap
 * the key for m0). A new Admin makes the re-fold write each replayed row before the next op
 * (its decisions may read rows); after the removal they are held and written in key order
 * when the run of replayed additions ends (fold.c, struct pending_rows). with_other:
 * x and y hold another namespace first.
 */
static int build(struct world *w, size_t n, size_t removed, size_t readded, bool with_other,
                 struct mero_err *e)
{
    uint8_t sk[64];
    memset(w, 0, sizeof(*w));
    MERO_TRY(govt_open(&w->a));
    MERO_TRY(govt_create_ns(&w->a));
    MERO_TRY(govt_open(&w->b));
    MERO_TRY(govt_open(&w->x));
    MERO_TRY(govt_open(&w->y));
    if (with_other) {
        MERO_TRY(other_namespace(w, e));
    }
    memcpy(w->b.ns, w->a.ns, 32);
    MERO_TRY(mero_gov_identity(w->b.s, w->a.ns, true, w->b.pk, e));
    MERO_TRY(mero_gov_change_admin(w->a.s, w->a.ns, w->b.pk, &w->l0, e));
    mero_ed25519_keypair(w->m[0], sk);
    MERO_TRY(mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[0], MERO_ROLE_MEMBER, &w->l0, e));
    MERO_TRY(govt_sync(&w->a, &w->b, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    for (size_t i = 1; i <= n; i++) {
        mero_ed25519_keypair(w->m[i], sk);
        int role = i % 3 == 0 ? MERO_ROLE_READONLY : MERO_ROLE_MEMBER;
        MERO_TRY(mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[i], role, &w->la, e));
    }
    for (size_t i = 1; i <= removed; i++) {
        MERO_TRY(mero_gov_remove_member(w->a.s, w->a.ns, w->a.ns, w->m[i], &w->la, e));
    }
    for (size_t i = 1; i <= readded; i++) {
        MERO_TRY(
            mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[i], MERO_ROLE_MEMBER, &w->la, e));
    }
    if (removed == 0) {
        MERO_TRY(mero_gov_remove_member(w->b.s, w->a.ns, w->a.ns, w->m[0], &w->lb, e));
    } else {
        MERO_TRY(mero_gov_set_member_role(w->b.s, w->a.ns, w->a.ns, w->m[0], MERO_ROLE_ADMIN,
                                          &w->lb, e));
    }
    /* x: the owner's whole log, then b's op, late; y: b's first, then the owner's */
    MERO_TRY(govt_sync(&w->a, &w->x, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    MERO_TRY(govt_apply_list(&w->x, &w->lb, e));
    MERO_TRY(govt_sync(&w->b, &w->y, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    return govt_apply_list(&w->y, &w->la, e);
}

static void world_free(struct world *w)
{
    mero_gov_oplist_cleanup(&w->l0);
    mero_gov_oplist_cleanup(&w->la);
    mero_gov_oplist_cleanup(&w->lb);
    mero_gov_oplist_cleanup(&w->lc);
    govt_close(&w->y);
    govt_close(&w->x);
    govt_close(&w->c);
    govt_close(&w->b);
    govt_close(&w->a);
}

/* x re-folded once and replayed at least `replayed` ops; y took no late-op path; both end with
 * the same tables, which a rebuild gives again; m0 is gone or an Admin, the re-added members
 * are back. */
static void check_world(struct world *w, size_t n, size_t removed, size_t readded,
                        uint64_t replayed)
{
    CHECK_EQ(w->x.s->late_refolds, 1u);
    CHECK_MSG(w->x.s->refold_replayed >= replayed, "replayed %llu ops",
              (unsigned long long)w->x.s->refold_replayed);
    CHECK_EQ(w->y.s->late_refolds + w->y.s->late_fast, 0u);
    CHECK(govt_dumps_equal(&w->x, &w->y));
    CHECK_EQ(govt_root_role(&w->x, w->a.ns, w->m[0]),
             removed == 0 ? MERO_ROLE_NONE : MERO_ROLE_ADMIN);
    for (size_t i = 1; i <= n; i++) {
        int want = i <= readded   ? MERO_ROLE_MEMBER
                   : i <= removed ? MERO_ROLE_NONE
                   : i % 3 == 0   ? MERO_ROLE_READONLY
                                  : MERO_ROLE_MEMBER;
        CHECK_EQ(govt_root_role(&w->x, w->a.ns, w->m[i]), want);
    }
    CHECK(govt_matches_rebuild(&w->x));
    CHECK(govt_dumps_equal(&w->x, &w->y));
}

/*
 * A store holding only the namespace: the re-fold empties the derived tables whole, and its
 * replayed additions are held and written when their run ends, GOV_ROWS_BATCH to a statement
 * (37: two full batches and a remainder written row by row).
 */
TEST(a_re_fold_of_the_only_namespace_ends_as_the_in_order_peer)
{
    struct world w;
    struct mero_err e = {0};
    const size_t n = 2 * GOV_ROWS_BATCH + 5;
    CHECK_OK(build(&w, n, 0, 0, false, &e));
    check_world(&w, n, 0, 0, n);
    world_free(&w);
}

/*
 * A store holding another namespace too: the re-fold deletes this namespace's rows only, and the
 * other's members, deny entry, context and auto-follow stay (the dump compares them with y's,
 * which folded nothing again).
 */
TEST(a_re_fold_beside_another_namespace_keeps_that_namespace_s_rows)
{
    struct world w;
    struct mero_err e = {0};
    const size_t n = GOV_ROWS_BATCH + 3;
    CHECK_OK(build(&w, n, 0, 0, true, &e));
    check_world(&w, n, 0, 0, n);
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[0]), MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[1]), MERO_ROLE_MEMBER);
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[2]), MERO_ROLE_MEMBER);
    world_free(&w);
}

/*
 * Members removed (each writes a deny entry) and some added again (each lifts its entry), fewer
 * than the fold remembers and then more: a replayed addition must lift the entry its removal
 * wrote in this fold, both while the fold remembers every entry and once it has stopped.
 */
TEST(a_re_fold_lifts_the_deny_entries_it_wrote_within_and_past_its_memory)
{
    const size_t counts[2] = {GOV_FOLD_DENIED_MAX / 4, GOV_FOLD_DENIED_MAX + 6};
    for (size_t k = 0; k < 2; k++) {
        struct world w;
        struct mero_err e = {0};
        size_t removed = counts[k], readded = counts[k] / 2 + 1;
        CHECK_MSG(build(&w, removed + 2, removed, readded, false, &e) == 0, "%s", e.msg);
        check_world(&w, removed + 2, removed, readded, readded);
        world_free(&w);
    }
}

MERO_TEST_MAIN(T(a_re_fold_of_the_only_namespace_ends_as_the_in_order_peer),
               T(a_re_fold_beside_another_namespace_keeps_that_namespace_s_rows),
               T(a_re_fold_lifts_the_deny_entries_it_wrote_within_and_past_its_memory))
