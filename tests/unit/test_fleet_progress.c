/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fleet_progress.c - the fleet join's progress (node/admission/progress.c, issue 18): no
 * join means not found; a step only on a change, numbered by seq; the last
 * MERO_FLEET_JOIN_STEPS kept, oldest first; a finished join takes no notes but stays readable
 * until its namespace joins again; a full table reuses a finished join's slot first.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/err.h"
#include "node/admission/service_internal.h"
#include "harness.h"

static uint64_t fake_ms;
static uint64_t fake_now(void *ud)
{
    (void)ud;
    return fake_ms;
}

static struct mero_admission *adm_new(void)
{
    struct mero_admission *a = calloc(1, sizeof(*a));
    if (a != NULL) {
        a->env.now_ms = fake_now;
    }
    return a;
}

static void ns_of(uint8_t ns[MERO_NS_ID_LEN], uint8_t v)
{
    memset(ns, v, MERO_NS_ID_LEN);
}

TEST(no_join_is_not_found_and_takes_no_notes)
{
    struct mero_admission *a = adm_new();
    struct mero_fleet_join_progress p;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN];
    CHECK(a != NULL);
    ns_of(ns, 1);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_PROMPTED, NULL, NULL);
    CHECK_ERR(mero__adm_fj_progress_get(a, ns, &p, &e), -MERO_ENOTFOUND);
    CHECK_EQ(mero__adm_fj_progress_state(a, ns), 0);
    free(a);
}

TEST(a_step_only_on_a_change_in_order)
{
    struct mero_admission *a = adm_new();
    struct mero_fleet_join_progress p;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN], other[MERO_NS_ID_LEN];
    CHECK(a != NULL);
    ns_of(ns, 1);
    ns_of(other, 2);
    mero__adm_fj_progress_start(a, ns);
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK(p.running);
    CHECK_EQ(p.nsteps, 0);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_PROMPTED, NULL, NULL);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_PROMPTED, NULL, NULL); /* a re-prompt: no change */
    mero__adm_fj_progress_note(a, ns, MERO_FJ_CHALLENGED, "peerA", NULL);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_ANSWERED, "peerA", NULL);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_ANSWERED, "peerA", NULL);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_REFUSED, "peerA", "no");
    mero__adm_fj_progress_note(a, ns, MERO_FJ_REFUSED, "peerA", "another reason"); /* a change */
    mero__adm_fj_progress_note(a, other, MERO_FJ_PROMPTED, NULL, NULL); /* no join for other */
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK_EQ(p.nsteps, 5);
    CHECK_EQ(p.steps[0].state, MERO_FJ_PROMPTED);
    CHECK_STR_EQ(p.steps[0].peer, "");
    CHECK_EQ(p.steps[1].state, MERO_FJ_CHALLENGED);
    CHECK_STR_EQ(p.steps[1].peer, "peerA");
    CHECK_EQ(p.steps[2].state, MERO_FJ_ANSWERED);
    CHECK_EQ(p.steps[3].state, MERO_FJ_REFUSED);
    CHECK_STR_EQ(p.steps[3].reason, "no");
    CHECK_STR_EQ(p.steps[4].reason, "another reason");
    for (size_t i = 0; i < p.nsteps; i++) {
        CHECK_U64_EQ(p.steps[i].seq, i + 1);
    }
    CHECK_EQ(mero__adm_fj_progress_state(a, ns), MERO_FJ_REFUSED);
    CHECK_ERR(mero__adm_fj_progress_get(a, other, &p, &e), -MERO_ENOTFOUND);
    free(a);
}

TEST(the_last_steps_are_kept_oldest_first)
{
    struct mero_admission *a = adm_new();
    struct mero_fleet_join_progress p;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN];
    CHECK(a != NULL);
    ns_of(ns, 3);
    mero__adm_fj_progress_start(a, ns);
    const size_t total = MERO_FLEET_JOIN_STEPS + 3;
    for (size_t i = 0; i < total; i++) {
        mero__adm_fj_progress_note(a, ns, i % 2 ? MERO_FJ_ASKING : MERO_FJ_REFUSED, "p", "r");
    }
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK_EQ(p.nsteps, MERO_FLEET_JOIN_STEPS);
    CHECK_U64_EQ(p.steps[0].seq, total - MERO_FLEET_JOIN_STEPS + 1);
    CHECK_U64_EQ(p.steps[MERO_FLEET_JOIN_STEPS - 1].seq, total);
    free(a);
}

TEST(a_finished_join_stays_readable_until_the_namespace_joins_again)
{
    struct mero_admission *a = adm_new();
    struct mero_fleet_join_progress p;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN];
    CHECK(a != NULL);
    ns_of(ns, 4);
    mero__adm_fj_progress_start(a, ns);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_ADMITTED, "peerB", NULL);
    mero__adm_fj_progress_end(a, ns);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_REFUSED, "peerB", "late"); /* ignored */
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK(!p.running);
    CHECK_EQ(p.nsteps, 1);
    CHECK_EQ(p.steps[0].state, MERO_FJ_ADMITTED);
    CHECK_EQ(mero__adm_fj_progress_state(a, ns), 0); /* no join runs */
    mero__adm_fj_progress_start(a, ns);
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK(p.running);
    CHECK_EQ(p.nsteps, 0);
    mero__adm_fj_progress_note(a, ns, MERO_FJ_PROMPTED, NULL, NULL);
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    CHECK_U64_EQ(p.steps[0].seq, 1); /* seq starts again with the new join */
    free(a);
}

TEST(a_full_table_reuses_a_finished_slot_first)
{
    struct mero_admission *a = adm_new();
    struct mero_fleet_join_progress p;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN];
    CHECK(a != NULL);
    for (uint8_t i = 0; i < MERO_FJ_PROGRESS_SLOTS; i++) {
        fake_ms = 100 + i;
        ns_of(ns, (uint8_t)(10 + i));
        mero__adm_fj_progress_start(a, ns);
    }
    fake_ms = 200;
    ns_of(ns, 13); /* not the oldest, but the only finished one */
    mero__adm_fj_progress_end(a, ns);
    fake_ms = 300;
    ns_of(ns, 99);
    mero__adm_fj_progress_start(a, ns);
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    ns_of(ns, 13);
    CHECK_ERR(mero__adm_fj_progress_get(a, ns, &p, &e), -MERO_ENOTFOUND);
    ns_of(ns, 10); /* the oldest running join keeps its slot */
    CHECK_OK(mero__adm_fj_progress_get(a, ns, &p, &e));
    free(a);
}

MERO_TEST_MAIN(T(no_join_is_not_found_and_takes_no_notes), T(a_step_only_on_a_change_in_order),
               T(the_last_steps_are_kept_oldest_first),
               T(a_finished_join_stays_readable_until_the_namespace_joins_again),
               T(a_full_table_reuses_a_finished_slot_first))
