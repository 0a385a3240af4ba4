/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_redial.c - the bootstrap redial's decision (node/redial.c, issues 20 and 33) for one
 * bootstrap peer that is not connected: a peer that turned us away is left alone only while
 * enough peers that share a topic with us are connected - counted among the sharers, not among
 * every connected peer (a member whose other links are strangers' needs its bootstrap peer for
 * the namespace's ops: with every peer counted, the N=100 fleet did not come up), and none of
 * them counts while a namespace this node joined has no op here (at N=200 the members, each
 * waiting for the namespace, kept each other company away from the owner); a peer lost
 * any other way is dialed; with enough peers connected, a dial waits 30 s before the next try,
 * with fewer the peer's back-off decides; a peer that turns us away again each time we come
 * back is left alone twice as long each time, at most 8 min; the streak behind that counts a
 * dial after being left alone and is forgotten once a link stays up two minutes.
 */
#include <string.h>

#include "node/node_internal.h"
#include "node/service_internal.h"
#include "harness.h"

TEST(a_peer_that_turned_us_away_is_left_alone_while_three_sharers_remain)
{
    uint32_t gap = 1;
    CHECK_EQ(mero__redial_step(3, 3, true, false, &gap), MERO__REDIAL_LEAVE_ALONE);
    CHECK_EQ(gap, 0);
    CHECK_EQ(mero__redial_step(40, 12, true, false, &gap), MERO__REDIAL_LEAVE_ALONE);
}

TEST(strangers_do_not_count_toward_leaving_it_alone)
{
    uint32_t gap = 0;
    /* ten links, but only two share a topic: the turned-away bootstrap peer is dialed */
    CHECK_EQ(mero__redial_step(10, 2, true, false, &gap), MERO__REDIAL_DIAL);
    CHECK_EQ(gap, 30000);
    CHECK_EQ(mero__redial_step(2, 2, true, false, &gap), MERO__REDIAL_DIAL);
    CHECK_EQ(gap, 0);
    CHECK_EQ(mero__redial_step(0, 0, true, false, &gap), MERO__REDIAL_DIAL);
}

TEST(sharers_do_not_count_while_a_joined_namespace_is_held_by_none_here)
{
    uint32_t gap = 0;
    /* issue 33, N=200: members that had joined shared the namespace's topic with each other,
     * left the owner (which had trimmed them) alone, and none of them held the namespace */
    CHECK_EQ(mero__redial_step(12, 12, true, true, &gap), MERO__REDIAL_DIAL);
    CHECK_EQ(gap, 30000);
    CHECK_EQ(mero__redial_step(12, 12, true, false, &gap), MERO__REDIAL_LEAVE_ALONE);
}

TEST(a_peer_lost_without_a_goodbye_is_dialed)
{
    uint32_t gap = 0;
    CHECK_EQ(mero__redial_step(40, 40, false, false, &gap), MERO__REDIAL_DIAL);
    CHECK_EQ(gap, 30000); /* bootstrap addresses are for discovery once we have peers */
    CHECK_EQ(mero__redial_step(2, 0, false, false, &gap), MERO__REDIAL_DIAL);
    CHECK_EQ(gap, 0); /* too few peers: the back-off (2 s doubling to 30 s) decides */
}

TEST(a_peer_that_turns_us_away_again_is_left_alone_longer)
{
    CHECK_EQ(mero__redial_away_ms(0), 120000);
    CHECK_EQ(mero__redial_away_ms(1), 240000);
    CHECK_EQ(mero__redial_away_ms(2), 480000);
    /* at most 8 min: the net keeps a goodbye 10 min with the peer's retained score */
    CHECK_EQ(mero__redial_away_ms(3), 480000);
    CHECK_EQ(mero__redial_away_ms(200), 480000);
}

TEST(coming_back_after_being_left_alone_counts_toward_the_streak)
{
    struct mero_node_redial r;
    memset(&r, 0, sizeof(r));
    uint64_t t = 1000;
    /* a dial without having been left alone counts nothing */
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_DIALED, t));
    CHECK_EQ(r.away_streak, 0);
    /* left alone: reported once, however many ticks it lasts */
    CHECK(mero__redial_note(&r, MERO__REDIAL_SEEN_LEFT_ALONE, t));
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_LEFT_ALONE, t + 2000));
    /* back after it: one more in a row, so the next stay away is 240 s */
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_DIALED, t + 120000));
    CHECK_EQ(r.away_streak, 1);
    CHECK_EQ(mero__redial_away_ms(r.away_streak), 240000);
    for (int i = 0; i < 3; i++) {
        CHECK(mero__redial_note(&r, MERO__REDIAL_SEEN_LEFT_ALONE, t));
        CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_DIALED, t));
    }
    CHECK_EQ(r.away_streak, 2); /* at most two doublings */
}

TEST(a_link_that_stays_up_two_minutes_forgets_the_streak)
{
    struct mero_node_redial r;
    memset(&r, 0, sizeof(r));
    r.away_streak = 2;
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_UP, 5000));
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_UP, 5000 + 119999));
    CHECK_EQ(r.away_streak, 2); /* not yet */
    /* lost before the two minutes: seen up again later starts counting afresh */
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_DIALED, 200000));
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_UP, 300000));
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_UP, 300000 + 119999));
    CHECK_EQ(r.away_streak, 2);
    CHECK(!mero__redial_note(&r, MERO__REDIAL_SEEN_UP, 300000 + 120000));
    CHECK_EQ(r.away_streak, 0);
}

MERO_TEST_MAIN(T(a_peer_that_turned_us_away_is_left_alone_while_three_sharers_remain),
               T(strangers_do_not_count_toward_leaving_it_alone),
               T(sharers_do_not_count_while_a_joined_namespace_is_held_by_none_here),
               T(a_peer_lost_without_a_goodbye_is_dialed),
               T(a_peer_that_turns_us_away_again_is_left_alone_longer),
               T(coming_back_after_being_left_alone_counts_toward_the_streak),
               T(a_link_that_stays_up_two_minutes_forgets_the_streak))
