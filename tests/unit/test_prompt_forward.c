/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_prompt_forward.c - which admission prompts a node passes on (node/admission/
 * prompt_forward.c, issue 33): one publisher's prompts on one namespace at most once per
 * MIN_REISSUE (5 s); another publisher or another namespace is not held back by it; the
 * table is fixed, and a flood of publishers sharing its slots makes a node forward more, never
 * hold back a publisher it has not forwarded within the gap.
 */
#include <stdio.h>
#include <string.h>

#include "node/admission/prompt_forward_internal.h"
#include "harness.h"

static struct mero_prompt_forward f;
static const uint8_t NS_A[MERO_NS_ID_LEN] = {1};
static const uint8_t NS_B[MERO_NS_ID_LEN] = {2};
#define JOINER "12D3KooWJoinerJoinerJoinerJoinerJoinerJoinerJoiner"

TEST(a_publishers_prompts_are_forwarded_once_per_reissue_gap)
{
    mero__adm_prompt_forward_init(&f);
    uint64_t t = 50000;
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, t));
    /* the re-prompts every 2 s within the gap are held back */
    CHECK(!mero__adm_prompt_forward(&f, NS_A, JOINER, t + 2000));
    CHECK(!mero__adm_prompt_forward(&f, NS_A, JOINER, t + 4000));
    CHECK(!mero__adm_prompt_forward(&f, NS_A, JOINER, t + MERO_PROMPT_FORWARD_GAP_MS - 1));
    /* the first one after it goes out, and starts the next gap */
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, t + 6000));
    CHECK(!mero__adm_prompt_forward(&f, NS_A, JOINER, t + 8000));
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, t + 12000));
    CHECK_EQ(f.forwarded, 3);
    CHECK_EQ(f.held, 4);
    CHECK_EQ(MERO_PROMPT_FORWARD_GAP_MS, MERO_CHALLENGE_MIN_REISSUE_MS);
}

TEST(another_publisher_or_namespace_is_not_held_back)
{
    mero__adm_prompt_forward_init(&f);
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, 1000));
    CHECK(mero__adm_prompt_forward(&f, NS_B, JOINER, 1000));
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER "x", 1000));
    CHECK(!mero__adm_prompt_forward(&f, NS_A, JOINER, 1001));
    CHECK(!mero__adm_prompt_forward(&f, NS_B, JOINER, 1001));
}

TEST(a_flood_of_publishers_never_holds_back_one_not_forwarded_within_the_gap)
{
    mero__adm_prompt_forward_init(&f);
    char id[64];
    unsigned n = MERO_PROMPT_FORWARD_SLOTS * 8u;
    /* eight times as many publishers as slots, every one heard for the first time: each
     * goes out, although most share a slot with another */
    for (unsigned i = 0; i < n; i++) {
        snprintf(id, sizeof(id), "peer-%u", i);
        CHECK(mero__adm_prompt_forward(&f, NS_A, id, 7000));
    }
    CHECK_EQ(f.forwarded, n);
    CHECK_EQ(f.held, 0);
    size_t used = 0;
    for (size_t i = 0; i < MERO_PROMPT_FORWARD_SLOTS; i++) {
        used += f.slot[i].used;
    }
    CHECK(used > MERO_PROMPT_FORWARD_SLOTS / 2);
    /* heard again within the gap, last first: only the one still in its slot (the last
     * written there) is held back, one per used slot; every other goes out */
    for (unsigned i = n; i-- > 0;) {
        snprintf(id, sizeof(id), "peer-%u", i);
        (void)mero__adm_prompt_forward(&f, NS_A, id, 7001);
    }
    CHECK_EQ(f.held, used);
    CHECK_EQ(f.forwarded, 2 * n - used);
    CHECK_EQ(sizeof(f.slot) / sizeof(f.slot[0]), MERO_PROMPT_FORWARD_SLOTS);
}

TEST(a_clock_that_steps_back_forwards)
{
    mero__adm_prompt_forward_init(&f);
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, 90000));
    CHECK(mero__adm_prompt_forward(&f, NS_A, JOINER, 10000));
}

MERO_TEST_MAIN(T(a_publishers_prompts_are_forwarded_once_per_reissue_gap),
               T(another_publisher_or_namespace_is_not_held_back),
               T(a_flood_of_publishers_never_holds_back_one_not_forwarded_within_the_gap),
               T(a_clock_that_steps_back_forwards))
