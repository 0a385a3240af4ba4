/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pending_join.c - the joiner's pending joins (src/node/admission/pending_join.c), mirroring
 * reference-calimero.md §8: a pending join answers only its namespace, not twice in 2 s,
 * stops after 120 s, and one offering peer cannot hog the slot (10 s per peer).
 */
#include <string.h>

#include "node/admission/pending_join_internal.h"
#include "harness.h"

static const uint8_t NS[32] = {1};
static const uint8_t NS2[32] = {2};
static const uint8_t PA[] = "admitter-a";
static const uint8_t PB[] = "admitter-b";
#define A PA, sizeof(PA)
#define B PB, sizeof(PB)

TEST(answers_only_its_namespace)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS, A, 0), -MERO_ENOTFOUND);
    CHECK_OK(mero__adm_pending_register(&p, NS, 0));
    CHECK(mero__adm_pending_is_pending(&p, NS, 1));
    CHECK(!mero__adm_pending_is_pending(&p, NS2, 1));
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS2, A, 1), -MERO_ENOTFOUND);
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, A, 1));
    mero__adm_pending_remove(&p, NS);
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS, B, 20000), -MERO_ENOTFOUND);
}

TEST(not_twice_in_2_s)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    CHECK_OK(mero__adm_pending_register(&p, NS, 0));
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, A, 100));
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS, B, 2099), -MERO_EBUSY);
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, B, 2100));
}

TEST(stops_after_120_s)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    CHECK_OK(mero__adm_pending_register(&p, NS, 1000));
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, A, 120999));
    CHECK(!mero__adm_pending_is_pending(&p, NS, 121000));
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS, B, 121000), -MERO_ENOTFOUND);
    /* a new fleet-join call registers again */
    CHECK_OK(mero__adm_pending_register(&p, NS, 130000));
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, B, 130001));
}

TEST(one_offering_peer_cannot_hog_the_slot)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    CHECK_OK(mero__adm_pending_register(&p, NS, 0));
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, A, 0));
    /* A re-offers every 500 ms: refused each time, and the refusals do not take the slot */
    for (uint64_t t = 2000; t < 10000; t += 500) {
        CHECK_ERR(mero__adm_pending_may_answer(&p, NS, A, t), -MERO_EBUSY);
    }
    CHECK_OK(
        mero__adm_pending_may_answer(&p, NS, B, 4000)); /* B is answered as soon as 2 s passed */
    CHECK_OK(mero__adm_pending_may_answer(&p, NS, A, 10000)); /* A again after 10 s */
}

TEST(offerer_table_is_bounded)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    CHECK_OK(mero__adm_pending_register(&p, NS, 0));
    uint8_t peer[8] = "flood";
    unsigned answered = 0;
    for (unsigned i = 0; i < 500; i++) {
        peer[6] = (uint8_t)(i >> 8);
        peer[7] = (uint8_t)i;
        if (mero__adm_pending_may_answer(&p, NS, peer, sizeof(peer), (uint64_t)i * 100) == 0) {
            answered++;
        }
    }
    CHECK_EQ(answered, 25); /* 50 s of offers, one quote per 2 s */
    size_t used = 0;
    for (size_t i = 0; i < MERO_MAX_TRACKED_OFFERERS; i++) {
        used += p.offerers[i].used ? 1 : 0;
    }
    CHECK(used <= MERO_MAX_TRACKED_OFFERERS);
    CHECK_ERR(mero__adm_pending_may_answer(&p, NS, peer, 0, 60000), -MERO_EINVAL);
}

TEST(pending_namespaces_are_bounded)
{
    struct mero_pending_joins p;
    mero__adm_pending_init(&p);
    uint8_t ns[32] = {0};
    for (unsigned i = 0; i < MERO_MAX_PENDING_NAMESPACES; i++) {
        ns[0] = (uint8_t)(i + 10);
        CHECK_OK(mero__adm_pending_register(&p, ns, 0));
    }
    CHECK_ERR(mero__adm_pending_register(&p, NS, 1), -MERO_EBUSY);
    CHECK_OK(mero__adm_pending_register(&p, NS, 120000)); /* the others lapsed */
}

MERO_TEST_MAIN(T(answers_only_its_namespace), T(not_twice_in_2_s), T(stops_after_120_s),
               T(one_offering_peer_cannot_hog_the_slot), T(offerer_table_is_bounded),
               T(pending_namespaces_are_bounded))
