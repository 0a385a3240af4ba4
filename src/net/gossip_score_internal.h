/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_score_internal.h - gossipsub v1.1 peer scoring (gossip_score.c): the parameters (one
 * place: mero__gs_score_default, documented in docs/network.md "Peer scoring"), the per-peer
 * counters and the arithmetic, free of any I/O so the unit tests drive it with their own clock.
 * Private to src/net.
 */
#ifndef MERO_GOSSIP_SCORE_INTERNAL_H
#define MERO_GOSSIP_SCORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/gossip_rpc_internal.h"
#include "net/multiaddr_internal.h"

#define GS_SCORE_TOPICS 16 /* scored topics per peer; more share the `other` counters */

struct mero__gs_score_topic_params {
    double topic_weight;
    /* P1 time in mesh: min(time / quantum, cap) * weight */
    double time_in_mesh_weight, time_in_mesh_quantum_ms, time_in_mesh_cap;
    /* P2 first message deliveries: counter (capped) * weight, decayed */
    double first_deliveries_weight, first_deliveries_decay, first_deliveries_cap;
    /* P3 mesh message delivery deficit squared * weight (weight <= 0) once active; P3b the
     * deficit remembered when pruned */
    double mesh_deliveries_weight, mesh_deliveries_decay, mesh_deliveries_cap,
        mesh_deliveries_threshold, mesh_deliveries_activation_ms;
    double mesh_failure_weight, mesh_failure_decay;
    /* P4 invalid messages: counter squared * weight (weight <= 0), decayed */
    double invalid_weight, invalid_decay;
};

struct mero__gs_score_params {
    struct mero__gs_score_topic_params topic; /* every topic is scored alike */
    double topic_score_cap;                   /* cap on the positive sum of topic scores */
    double app_weight;                        /* P5 */
    double ip_colocation_weight, ip_colocation_threshold;          /* P6 (weight <= 0) */
    double behaviour_weight, behaviour_threshold, behaviour_decay; /* P7 (weight <= 0) */
    double decay_to_zero;
    uint32_t decay_interval_ms;
    uint32_t retain_ms; /* a disconnected peer's score is kept this long */
    /* thresholds: 0 >= gossip >= publish >= graylist; accept_px >= 0 */
    double gossip_threshold, publish_threshold, graylist_threshold, accept_px_threshold,
        opportunistic_graft_threshold;
    uint32_t opportunistic_graft_ticks; /* heartbeats between opportunistic grafts */
    uint32_t opportunistic_graft_peers; /* peers grafted at once */
};

extern const struct mero__gs_score_params mero__gs_score_default;

struct mero__gs_tscore {
    char topic[MERO__TOPIC_MAX + 1];
    bool in_mesh;
    uint64_t graft_ms;
    double first, mesh, failure, invalid;
};

struct mero__gs_score {
    struct mero__gs_tscore t[GS_SCORE_TOPICS];
    size_t nt;
    struct mero__gs_tscore other; /* topics beyond GS_SCORE_TOPICS */
    double behaviour;             /* P7 counter */
    double app;                   /* P5 value, set by the application */
    uint32_t ip_peers;            /* peers sharing its IP (itself included); 0: exempt */
    uint64_t invalid_total;       /* invalid messages ever counted (logs, tests) */
    bool graylisted;              /* last known side of the graylist threshold (logs) */
};

/* The score at now_ms. */
double mero__gs_score_value(const struct mero__gs_score_params *pp, const struct mero__gs_score *s,
                            uint64_t now_ms);
/* One decay interval: every decaying counter times its decay, to 0 below decay_to_zero. */
void mero__gs_score_decay(const struct mero__gs_score_params *pp, struct mero__gs_score *s);
/* Mesh membership changes of the peer in topic (P1, P3 activation, P3b on prune). */
void mero__gs_score_graft(struct mero__gs_score *s, const char *topic, uint64_t now_ms);
void mero__gs_score_prune(const struct mero__gs_score_params *pp, struct mero__gs_score *s,
                          const char *topic, uint64_t now_ms);
/* A valid message the peer delivered first (P2, and P3 when in the mesh). */
void mero__gs_score_first(const struct mero__gs_score_params *pp, struct mero__gs_score *s,
                          const char *topic);
/* An invalid message the peer delivered (bad signature, rejected by the application): P4. */
void mero__gs_score_invalid(struct mero__gs_score *s, const char *topic);
/* A protocol misbehaviour (GRAFT while backed off, ...): P7. */
void mero__gs_score_behaviour(struct mero__gs_score *s, double n);
/* Whether an IP address is exempt from P6 (loopback: every test node shares it). */
bool mero__gs_score_ip_exempt(const struct mero__maddr *a);

#endif
