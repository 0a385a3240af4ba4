/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_score.c - gossipsub v1.1 peer scoring arithmetic (libp2p gossipsub v1.1 spec, "Peer
 * Scoring"): per topic P1 time in mesh, P2 first message deliveries, P3 mesh message delivery
 * deficit and P3b its remembered failure penalty, P4 invalid messages; per peer P5 application
 * score, P6 IP colocation, P7 behaviour penalty; counters decayed once per decay interval. The
 * router (gossipsub.c, gossip_api.c) feeds the events and applies the thresholds.
 *
 * Invariant: a weight that the spec says is negative (P3, P3b, P4, P6, P7) can only lower the
 * score, and the positive part of the topic scores is capped (topic_score_cap), so a peer's
 * good history cannot outweigh more than a bounded number of invalid messages (docs/network.md
 * gives the bound for the defaults).
 */
#include <string.h>

#include "net/gossip_score_internal.h"

/* The defaults: P3/P3b are off (weight 0) as in many deployments, since a quiet namespace
 * topic legitimately delivers nothing for long stretches. See docs/network.md. */
const struct mero__gs_score_params mero__gs_score_default = {
    .topic =
        {
            .topic_weight = 1.0,
            .time_in_mesh_weight = 0.01,
            .time_in_mesh_quantum_ms = 1000,
            .time_in_mesh_cap = 100,
            .first_deliveries_weight = 1.0,
            .first_deliveries_decay = 0.9,
            .first_deliveries_cap = 10,
            .mesh_deliveries_weight = 0,
            .mesh_deliveries_decay = 0.9,
            .mesh_deliveries_cap = 20,
            .mesh_deliveries_threshold = 1,
            .mesh_deliveries_activation_ms = 30000,
            .mesh_failure_weight = 0,
            .mesh_failure_decay = 0.9,
            .invalid_weight = -10,
            .invalid_decay = 0.99,
        },
    .topic_score_cap = 20,
    .app_weight = 1.0,
    .ip_colocation_weight = -10,
    .ip_colocation_threshold = 8,
    .behaviour_weight = -10,
    .behaviour_threshold = 2,
    .behaviour_decay = 0.9,
    .decay_to_zero = 0.01,
    .decay_interval_ms = 1000,
    .retain_ms = 600000,
    .gossip_threshold = -10,
    .publish_threshold = -50,
    .graylist_threshold = -80,
    .accept_px_threshold = 10,
    .opportunistic_graft_threshold = 1,
    .opportunistic_graft_ticks = 60,
    .opportunistic_graft_peers = 2,
};

static struct mero__gs_tscore *slot(struct mero__gs_score *s, const char *topic, bool add)
{
    for (size_t i = 0; i < s->nt; i++) {
        if (strcmp(s->t[i].topic, topic) == 0) {
            return &s->t[i];
        }
    }
    if (!add || s->nt >= GS_SCORE_TOPICS || strlen(topic) > MERO__TOPIC_MAX) {
        return &s->other;
    }
    struct mero__gs_tscore *t = &s->t[s->nt++];
    memset(t, 0, sizeof(*t));
    memcpy(t->topic, topic, strlen(topic) + 1);
    return t;
}

static double topic_value(const struct mero__gs_score_topic_params *tp,
                          const struct mero__gs_tscore *t, uint64_t now_ms)
{
    double v = 0;
    if (t->in_mesh && now_ms > t->graft_ms && tp->time_in_mesh_quantum_ms > 0) {
        double p1 = (double)(now_ms - t->graft_ms) / tp->time_in_mesh_quantum_ms;
        v += tp->time_in_mesh_weight * (p1 > tp->time_in_mesh_cap ? tp->time_in_mesh_cap : p1);
    }
    v += tp->first_deliveries_weight * t->first;
    if (t->in_mesh && now_ms >= t->graft_ms + (uint64_t)tp->mesh_deliveries_activation_ms &&
        t->mesh < tp->mesh_deliveries_threshold) {
        double deficit = tp->mesh_deliveries_threshold - t->mesh;
        v += tp->mesh_deliveries_weight * deficit * deficit;
    }
    v += tp->mesh_failure_weight * t->failure;
    v += tp->invalid_weight * t->invalid * t->invalid;
    return tp->topic_weight * v;
}

double mero__gs_score_value(const struct mero__gs_score_params *pp, const struct mero__gs_score *s,
                            uint64_t now_ms)
{
    double topics = topic_value(&pp->topic, &s->other, now_ms);
    for (size_t i = 0; i < s->nt; i++) {
        topics += topic_value(&pp->topic, &s->t[i], now_ms);
    }
    if (pp->topic_score_cap > 0 && topics > pp->topic_score_cap) {
        topics = pp->topic_score_cap;
    }
    double v = topics + pp->app_weight * s->app;
    if (s->ip_peers > 0 && (double)s->ip_peers > pp->ip_colocation_threshold) {
        double surplus = (double)s->ip_peers - pp->ip_colocation_threshold;
        v += pp->ip_colocation_weight * surplus * surplus;
    }
    if (s->behaviour > pp->behaviour_threshold) {
        double excess = s->behaviour - pp->behaviour_threshold;
        v += pp->behaviour_weight * excess * excess;
    }
    return v;
}

static void decay_one(double *v, double d, double zero)
{
    *v *= d;
    if (*v < zero) {
        *v = 0;
    }
}

static void decay_topic(const struct mero__gs_score_params *pp, struct mero__gs_tscore *t)
{
    decay_one(&t->first, pp->topic.first_deliveries_decay, pp->decay_to_zero);
    decay_one(&t->mesh, pp->topic.mesh_deliveries_decay, pp->decay_to_zero);
    decay_one(&t->failure, pp->topic.mesh_failure_decay, pp->decay_to_zero);
    decay_one(&t->invalid, pp->topic.invalid_decay, pp->decay_to_zero);
}

void mero__gs_score_decay(const struct mero__gs_score_params *pp, struct mero__gs_score *s)
{
    for (size_t i = 0; i < s->nt; i++) {
        decay_topic(pp, &s->t[i]);
    }
    decay_topic(pp, &s->other);
    decay_one(&s->behaviour, pp->behaviour_decay, pp->decay_to_zero);
}

void mero__gs_score_graft(struct mero__gs_score *s, const char *topic, uint64_t now_ms)
{
    struct mero__gs_tscore *t = slot(s, topic, true);
    if (!t->in_mesh) {
        t->in_mesh = true;
        t->graft_ms = now_ms;
        t->mesh = 0;
    }
}

void mero__gs_score_prune(const struct mero__gs_score_params *pp, struct mero__gs_score *s,
                          const char *topic, uint64_t now_ms)
{
    struct mero__gs_tscore *t = slot(s, topic, false);
    if (!t->in_mesh) {
        return;
    }
    const struct mero__gs_score_topic_params *tp = &pp->topic;
    if (now_ms >= t->graft_ms + (uint64_t)tp->mesh_deliveries_activation_ms &&
        t->mesh < tp->mesh_deliveries_threshold) {
        double deficit = tp->mesh_deliveries_threshold - t->mesh;
        t->failure += deficit * deficit; /* P3b */
    }
    t->in_mesh = false;
}

void mero__gs_score_first(const struct mero__gs_score_params *pp, struct mero__gs_score *s,
                          const char *topic)
{
    struct mero__gs_tscore *t = slot(s, topic, true);
    t->first += 1;
    if (t->first > pp->topic.first_deliveries_cap) {
        t->first = pp->topic.first_deliveries_cap;
    }
    if (t->in_mesh) {
        t->mesh += 1;
        if (t->mesh > pp->topic.mesh_deliveries_cap) {
            t->mesh = pp->topic.mesh_deliveries_cap;
        }
    }
}

void mero__gs_score_invalid(struct mero__gs_score *s, const char *topic)
{
    slot(s, topic, true)->invalid += 1;
    s->invalid_total++;
}

void mero__gs_score_behaviour(struct mero__gs_score *s, double n)
{
    s->behaviour += n;
}

bool mero__gs_score_ip_exempt(const struct mero__maddr *a)
{
    static const uint8_t v6_loop[16] = {[15] = 1};
    if (a->family == 4) {
        return a->ip[0] == 127;
    }
    return a->family != 6 || memcmp(a->ip, v6_loop, sizeof(v6_loop)) == 0;
}
