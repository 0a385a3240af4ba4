/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_internal.h - state shared by the gossipsub router's files, bottom up: its state and
 * sending (gossip_mesh.c), its caches (gossip_cache.c), peer exchange (gossip_px.c), RPC
 * handling (gossipsub.c), and its public operations and heartbeat (gossip_api.c). Private to
 * src/net.
 */
#ifndef MERO_GOSSIP_INTERNAL_H
#define MERO_GOSSIP_INTERNAL_H

#include "net/gossip_score_internal.h"
#include "net/conn_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/net_internal.h"
#include "net/yamux_internal.h"

#define GS_D               6
#define GS_D_LO            4
#define GS_D_HI            12
#define GS_D_LAZY          6
#define GS_MESH_MAX        32
#define GS_PEER_TOPICS_MAX 1024
#define GS_BACKOFF_MS      60000
#define GS_BACKOFF_MAX     64
#define GS_MCACHE_LEN      5
#define GS_MCACHE_GOSSIP   3
#define GS_MCACHE_PER_WIN  4096
#define GS_SEEN_SLOTS      65536 /* per generation, power of two */
#define GS_SEEN_KEY        16
#define GS_IHAVE_MAX_IDS   5000
#define GS_IWANT_MAX_IDS   500
/* issue 33: peer exchange (gossip_px.c) */
#define GS_PX_PEERS           16  /* PeerInfo entries in one PRUNE (the spec's PrunePeers) */
#define GS_PX_DIAL_MAX        4   /* dials started for one PRUNE's records */
#define GS_PX_DIALS_PER_BEAT  8   /* dials started for PX per heartbeat, all peers together */
#define GS_PX_VERIFY_PER_BEAT 64  /* PX record signatures checked per heartbeat */
#define GS_DRAIN_MS           500 /* a turned-away connection closes this long after goodbye */
#define GS_GOODBYE_TOPICS     4   /* topics a goodbye carries a PRUNE (with PX) for */
/* a connection that closes within this long after its peer pruned us was a goodbye: the peer
 * turned us away or trimmed us (mero_net_turned_away_within) */
#define GS_AWAY_WINDOW_MS 5000

struct mero__gs_topic {
    struct mero__gs_topic *next;
    char name[MERO__TOPIC_MAX + 1];
    struct mero__gpeer *mesh[GS_MESH_MAX];
    size_t nmesh;
};

struct mero__gs_backoff {
    char topic[MERO__TOPIC_MAX + 1];
    uint64_t until;
};

struct mero__gpeer {
    struct mero__conn *c;
    struct mero__stream *out;
    int out_ready, no_gossip;
    struct mero_buf pend;  /* framed RPCs waiting for the outbound stream */
    struct mero_buf inbuf; /* partial inbound RPC frame */
    char **topics;
    size_t ntopics;
    struct mero__gs_backoff bo[GS_BACKOFF_MAX];
    size_t nbo;
    uint64_t pruned_at; /* when it last pruned us on any topic (0: never) */
    /* ---- issue 20: peer scoring ---- */
    struct mero__gs_score score;
};

/* A disconnected peer's score, kept for the retain period (so reconnecting resets nothing). */
#define GS_RETAIN_MAX 64
struct mero__gs_retained {
    uint8_t pk[MERO_ED25519_PK_LEN];
    uint64_t until;
    struct mero__gs_score score;
    uint64_t turned_away_at; /* the link closed right after a PRUNE: a goodbye (0: not) */
};

struct mero__gs_mc_entry {
    uint8_t id[MERO__MSGID_MAX];
    size_t idn;
    char topic[MERO__TOPIC_MAX + 1];
    uint8_t *raw;
    size_t rawn;
};

struct mero__gs_seen_gen {
    uint8_t (*keys)[GS_SEEN_KEY];
    uint8_t *used;
    size_t count;
};

struct mero__gossip {
    struct mero_net *net;
    struct mero__gs_topic *topics; /* subscribed */
    struct mero__gs_mc_entry *mc[GS_MCACHE_LEN];
    size_t mcn[GS_MCACHE_LEN];
    struct mero__gs_seen_gen seen[2];
    uint64_t seen_rotated;
    uint64_t seqno;
    struct mero__rpc *rpc; /* decode scratch */
    /* ---- issue 20: peer scoring ---- */
    struct mero__gs_score_params sp;
    uint64_t last_decay;
    uint32_t ticks;
    struct mero__gs_retained retained[GS_RETAIN_MAX];
    struct mero_net_gossip_stats stats; /* issue 19 delivered/published too */
    uint32_t px_dials;                  /* issue 33: PX dials started this heartbeat */
    uint32_t px_verifies;               /* issue 33: PX signatures checked this heartbeat */
};

/* ---- the router's state and sending (gossip_mesh.c) ---- */
struct mero__gs_topic *mero__gs_topic_find(struct mero__gossip *g, const char *t);
int mero__gs_peer_has_topic(const struct mero__gpeer *p, const char *t);
int mero__gs_in_mesh(const struct mero__gs_topic *t, const struct mero__gpeer *p);
void mero__gs_mesh_remove(struct mero__gs_topic *t, const struct mero__gpeer *p);
int mero__gs_usable(const struct mero__gpeer *p);
/* Connected peers we gossip with that are subscribed to topic (mero_net_topic_peers). */
size_t mero__gs_topic_peers(const struct mero_net *net, const char *topic);
/* connected peers subscribed to at least one topic we are subscribed to */
size_t mero__gs_topic_sharers(const struct mero_net *net);
int mero__gs_backed_off(const struct mero__gpeer *p, const char *t, uint64_t now);
void mero__gs_set_backoff(struct mero__gpeer *p, const char *t, uint64_t until);
int mero__gs_send_rpc(struct mero__gpeer *p, const struct mero_buf *rpc);
void mero__gs_send_control(struct mero__gpeer *p, const struct mero_buf *ctl);
void mero__gs_send_graft_prune(struct mero__gpeer *p, const char *topic, int graft);
void mero__gs_for_each_peer(struct mero__gossip *g, void (*fn)(struct mero__gpeer *, void *),
                            void *ud);
/* ---- the caches (gossip_cache.c) ---- */
int mero__gs_seen_check_add(struct mero__gossip *g, const uint8_t *id, size_t n, int add);
void mero__gs_seen_rotate(struct mero__gossip *g, uint64_t now);
void mero__gs_mc_put(struct mero__gossip *g, const uint8_t *id, size_t idn, const char *topic,
                     const uint8_t *raw, size_t rawn);
const struct mero__gs_mc_entry *mero__gs_mc_get(struct mero__gossip *g, const uint8_t *id,
                                                size_t idn);
void mero__gs_mc_shift(struct mero__gossip *g);
/* ---- issue 20: peer scoring (gossip_mesh.c; mero__gs_penalise: gossipsub.c) ---- */
double mero__gs_score_of(const struct mero__gossip *g, const struct mero__gpeer *p);
/* Count an invalid message against p (P4) and log when it crosses the graylist threshold. */
void mero__gs_penalise(struct mero__gossip *g, struct mero__gpeer *p, const char *topic);
/* Remove p from t's mesh and tell the score (P3b). */
void mero__gs_mesh_drop(struct mero__gossip *g, struct mero__gs_topic *t, struct mero__gpeer *p);
/* Add p to t's mesh (P1 starts). */
void mero__gs_mesh_add(struct mero__gossip *g, struct mero__gs_topic *t, struct mero__gpeer *p);

/* ---- issue 33: peer exchange (gossip_px.c) ---- */
/* Append a PRUNE for topic carrying PX records of other peers of the topic (not `to`). */
MERO_MUST_CHECK int mero__gs_prune_px(struct mero__gossip *g, struct mero_buf *ctl,
                                      const char *topic, const struct mero__conn *to);
/* A PRUNE entry (its raw bytes) received from p: verify its PX records and dial a few. */
void mero__gs_take_px(struct mero__gossip *g, struct mero__gpeer *p, const char *topic,
                      const uint8_t *entry, size_t n);

#endif
