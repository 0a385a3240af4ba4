/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gossip_score.c - gossipsub v1.1 peer score arithmetic (src/net/gossip_score.c) with the
 * default parameters and with P3/P3b switched on: P1 time in mesh (quantum, cap), P2 first
 * deliveries (cap, decay), P3 delivery deficit once active and P3b on prune, P4 invalid messages
 * squared, the topic score cap, P5, P6 above its threshold (loopback exempt), P7 above its
 * threshold, decay to zero, the thresholds' order, and the bound the defaults promise: a peer
 * with the best possible history is graylisted by its 4th invalid message, a fresh one by its
 * 3rd.
 */
#include <string.h>

#include "harness.h"
#include "net/gossip_score_internal.h"

static const struct mero__gs_score_params *D = &mero__gs_score_default;

static bool near(double a, double b)
{
    return a - b < 1e-9 && b - a < 1e-9;
}

TEST(thresholds_are_ordered_as_the_spec_requires)
{
    CHECK(D->gossip_threshold <= 0);
    CHECK(D->publish_threshold <= D->gossip_threshold);
    CHECK(D->graylist_threshold <= D->publish_threshold);
    CHECK(D->accept_px_threshold >= 0);
    CHECK(D->opportunistic_graft_threshold >= 0);
    CHECK(D->topic.invalid_weight < 0 && D->behaviour_weight < 0 && D->ip_colocation_weight < 0);
    CHECK(D->topic.mesh_deliveries_weight <= 0 && D->topic.mesh_failure_weight <= 0);
}

TEST(p4_invalid_messages_count_squared)
{
    struct mero__gs_score s = {0};
    CHECK(near(mero__gs_score_value(D, &s, 0), 0));
    mero__gs_score_invalid(&s, "t");
    CHECK(near(mero__gs_score_value(D, &s, 0), -10));
    mero__gs_score_invalid(&s, "t");
    CHECK(near(mero__gs_score_value(D, &s, 0), -40));
    CHECK(mero__gs_score_value(D, &s, 0) < D->gossip_threshold);
    CHECK(mero__gs_score_value(D, &s, 0) >= D->graylist_threshold);
    mero__gs_score_invalid(&s, "t");
    CHECK(near(mero__gs_score_value(D, &s, 0), -90));
    CHECK(mero__gs_score_value(D, &s, 0) < D->graylist_threshold); /* a fresh peer: the 3rd */
    CHECK_U64_EQ(s.invalid_total, 3);
    /* one decay interval: 3 * 0.99 */
    mero__gs_score_decay(D, &s);
    CHECK(near(mero__gs_score_value(D, &s, 0), -10 * 2.97 * 2.97));
}

TEST(p1_time_in_mesh_by_quantum_with_cap)
{
    struct mero__gs_score s = {0};
    mero__gs_score_graft(&s, "t", 1000);
    CHECK(near(mero__gs_score_value(D, &s, 1000), 0));
    CHECK(near(mero__gs_score_value(D, &s, 51000), 0.5));   /* 50 quanta * 0.01 */
    CHECK(near(mero__gs_score_value(D, &s, 1000000), 1.0)); /* capped at 100 quanta */
    mero__gs_score_prune(D, &s, "t", 1000000);
    CHECK(near(mero__gs_score_value(D, &s, 2000000), 0)); /* out of the mesh: no P1 */
}

TEST(p2_first_deliveries_capped_and_decayed_and_topics_capped)
{
    struct mero__gs_score s = {0};
    for (int i = 0; i < 15; i++) {
        mero__gs_score_first(D, &s, "a");
    }
    CHECK(near(mero__gs_score_value(D, &s, 0), 10)); /* cap 10 */
    mero__gs_score_decay(D, &s);
    CHECK(near(mero__gs_score_value(D, &s, 0), 9));
    for (int i = 0; i < 15; i++) {
        mero__gs_score_first(D, &s, "b");
    }
    mero__gs_score_first(D, &s, "c");
    CHECK(near(mero__gs_score_value(D, &s, 0), 20)); /* 9 + 10 + 1 over the topic cap 20 */
    /* decay to zero */
    for (int i = 0; i < 200; i++) {
        mero__gs_score_decay(D, &s);
    }
    CHECK(near(mero__gs_score_value(D, &s, 0), 0));
    CHECK(s.t[0].first == 0 && s.t[1].first == 0);
}

TEST(p3_deficit_once_active_and_p3b_on_prune)
{
    struct mero__gs_score_params p = *D;
    p.topic.mesh_deliveries_weight = -1;
    p.topic.mesh_failure_weight = -1;
    p.topic.mesh_deliveries_threshold = 4;
    p.topic.mesh_deliveries_activation_ms = 10000;
    p.topic.time_in_mesh_weight = 0;
    p.topic.first_deliveries_weight = 0;
    struct mero__gs_score s = {0};
    mero__gs_score_graft(&s, "t", 0);
    mero__gs_score_first(&p, &s, "t");                    /* in the mesh: one mesh delivery */
    CHECK(near(mero__gs_score_value(&p, &s, 5000), 0));   /* not active yet */
    CHECK(near(mero__gs_score_value(&p, &s, 10000), -9)); /* deficit 3, squared */
    mero__gs_score_prune(&p, &s, "t", 10000);
    CHECK(near(s.t[0].failure, 9));
    CHECK(near(mero__gs_score_value(&p, &s, 10000), -9)); /* P3b remembers it */
}

TEST(p5_p6_p7)
{
    struct mero__gs_score s = {0};
    s.app = 5;
    CHECK(near(mero__gs_score_value(D, &s, 0), 5));
    s.app = 0;
    s.ip_peers = 8; /* at the threshold: nothing */
    CHECK(near(mero__gs_score_value(D, &s, 0), 0));
    s.ip_peers = 10;
    CHECK(near(mero__gs_score_value(D, &s, 0), -40)); /* (10 - 8)^2 * -10 */
    s.ip_peers = 0;
    mero__gs_score_behaviour(&s, 2);
    CHECK(near(mero__gs_score_value(D, &s, 0), 0)); /* at the threshold */
    mero__gs_score_behaviour(&s, 3);
    CHECK(near(mero__gs_score_value(D, &s, 0), -90)); /* (5 - 2)^2 * -10 */
    struct mero__maddr a = {.family = 4, .ip = {127, 0, 0, 1}};
    CHECK(mero__gs_score_ip_exempt(&a));
    a.ip[0] = 10;
    CHECK(!mero__gs_score_ip_exempt(&a));
    struct mero__maddr b = {.family = 6, .ip = {[15] = 1}};
    CHECK(mero__gs_score_ip_exempt(&b));
    b.ip[0] = 0x20;
    CHECK(!mero__gs_score_ip_exempt(&b));
}

TEST(the_best_history_is_graylisted_by_the_fourth_invalid_message)
{
    struct mero__gs_score s = {0};
    mero__gs_score_graft(&s, "t", 0);
    for (int i = 0; i < 100; i++) {
        mero__gs_score_first(D, &s, "t");
        mero__gs_score_first(D, &s, "u");
    }
    const uint64_t later = 10000000;
    CHECK(near(mero__gs_score_value(D, &s, later), D->topic_score_cap));
    int k = 0;
    while (mero__gs_score_value(D, &s, later) >= D->graylist_threshold && k < 100) {
        mero__gs_score_invalid(&s, "t");
        k++;
    }
    CHECK_EQ(k, 4);
}

TEST(topics_beyond_the_table_share_one_slot)
{
    struct mero__gs_score s = {0};
    char name[16];
    for (int i = 0; i < GS_SCORE_TOPICS + 4; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        mero__gs_score_invalid(&s, name);
    }
    CHECK_EQ(s.nt, GS_SCORE_TOPICS);
    CHECK(near(s.other.invalid, 4));
    CHECK_U64_EQ(s.invalid_total, GS_SCORE_TOPICS + 4);
}

MERO_TEST_MAIN(T(thresholds_are_ordered_as_the_spec_requires), T(p4_invalid_messages_count_squared),
               T(p1_time_in_mesh_by_quantum_with_cap),
               T(p2_first_deliveries_capped_and_decayed_and_topics_capped),
               T(p3_deficit_once_active_and_p3b_on_prune), T(p5_p6_p7),
               T(the_best_history_is_graylisted_by_the_fourth_invalid_message),
               T(topics_beyond_the_table_share_one_slot))
