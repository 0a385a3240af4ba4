/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_internal.h - the node's private state (one struct mero_node per merod process), owned by the
 * libuv loop thread: configuration, identity, admin token, TEE mode, the database handle and
 * the hooks later layers (admission) install. Nothing here takes a lock; every function is
 * called on the loop thread.
 */
#ifndef MERO_NODE_NODE_H
#define MERO_NODE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uv.h>

#include "mero/err.h"
#include "mero/net.h"
#include "mero/node.h"

#define MERO_NODE_PATH_MAX   1024
#define MERO_META_GOV_DB     "gov_db" /* node_meta: init made gov.db */
#define MERO_NODE_NAME_MAX   64
#define MERO_NODE_MAX_LISTEN 8
#define MERO_TOKEN_HEX_LEN   64
#define MERO_DEFAULT_API     "127.0.0.1:2528"
#define MERO_DEFAULT_LISTEN  "/ip4/127.0.0.1/tcp/2428"

struct sqlite3;
struct mero_store;
struct mero_net;
struct mero_node_sync;
struct mero_node_peers;

/*
 * Hooks that code merged later installs on the node (the admission helper installs
 * fleet_join from its own start function). A NULL hook means "not available".
 */
struct mero_node_hooks {
    /*
     * Start a fleet join for namespace group_id, asking admitters (n multiaddrs ending in
     * /p2p/<id>) directly first. Must call done exactly once, on the loop thread, possibly
     * later (up to ~30 s). Returns 0 when started, negative when it could not start (then
     * done is not called; err holds the reason).
     */
    int (*fleet_join)(struct mero_node *node, const uint8_t group_id[MERO_GROUP_ID_LEN],
                      const char *const *admitters, size_t n, mero_fleet_join_done done, void *ctx,
                      struct mero_err *err);
    void *fleet_join_state;
    /* The progress of the fleet join for group_id (mero_node_fleet_join_progress). */
    int (*fleet_join_progress)(struct mero_node *node, const uint8_t group_id[MERO_GROUP_ID_LEN],
                               struct mero_fleet_join_progress *out, struct mero_err *err);
    /*
     * A gossip message on a namespace topic ns/<hex> that is neither a governance op nor a
     * state delta (service.c reserves the first bytes MERO_GOSSIP_OP / MERO_GOSSIP_DELTA).
     * Return 0 to accept (forwarded), negative to reject. NULL: such messages are rejected.
     */
    int (*on_gossip)(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], const char *from,
                     const uint8_t *data, size_t len);
    /* issue 33: asked before such a message's signature is checked, with the author it claims:
     * true when on_gossip would make nothing of it, genuine or not (mero_net_callbacks'
     * gossip_noop). Records nothing. NULL: every such message is checked. */
    bool (*gossip_noop)(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], const char *from,
                        const uint8_t *data, size_t len);
    void *gossip_state;
    /*
     * issue 16: a read or an apply in node/context/ met key_id of group, which this node lacks:
     * pull it (rate-limited per key id). NULL: nobody to ask (no admission layer). A hook, so
     * that the context module includes no admission header.
     */
    void (*key_missing)(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t group[MERO_GROUP_ID_LEN],
                        const uint8_t key_id[MERO_KEY_ID_LEN]);
};

/* First byte of our gossip messages on ns/<hex> (service.c). */
#define MERO_GOSSIP_OP    0xA0 /* followed by one encoded signed governance op */
#define MERO_GOSSIP_DELTA 0xA1 /* followed by one encoded state delta (context/codec.c) */

struct mero_node_config {
    char name[MERO_NODE_NAME_MAX];
    char api[MERO_NODE_ADDR_MAX]; /* host:port, port may be 0 */
    char listen[MERO_NODE_MAX_LISTEN][MERO_NODE_ADDR_MAX];
    size_t nlisten;
    /* config.json "net" (netcfg.c): connection budgets, 0 = the net layer's default */
    uint32_t net_max_inbound, net_max_outbound, net_max_pending, net_max_inbound_per_ip;
    uint32_t net_conn_low_water, net_conn_high_water; /* issue 33: connection manager */
};

struct mero_node {
    uv_loop_t *loop;
    char home[MERO_NODE_PATH_MAX];
    struct mero_node_config cfg;
    char *bootstrap[MERO_NODE_MAX_BOOTSTRAP];
    size_t nbootstrap;
    /* node identity (Ed25519); sk in sodium_malloc'd memory */
    uint8_t id_pk[MERO_ED25519_PK_LEN];
    uint8_t *id_sk;
    /* the transport key /tee/attest binds: X25519, generated at startup, memory only */
    uint8_t transport_pk[MERO_X25519_LEN];
    uint8_t *transport_sk;
    char token[MERO_TOKEN_HEX_LEN + 1]; /* admin bearer token (secret) */
    enum mero_node_tee tee;
    bool test_routes;  /* --test: test-only routes (docs/node.md) */
    bool full_history; /* issue 37: --full-history: catch up by the whole delta history, never
                          by live state (docs/sync.md) */
    struct sqlite3 *db;
    void (*on_stop)(void *ctx); /* mero_node_on_stop: the server on our loop (merod) */
    void *on_stop_ctx;
    char api_bound[MERO_NODE_ADDR_MAX]; /* actual host:port once listening */
    char peer_id[MERO_PEER_ID_STR_MAX];
    struct mero_node_hooks hooks;
    struct mero_net *net;     /* the libp2p peer (service.c) */
    struct mero_store *store; /* governance store, DIR/gov.db */
    struct mero_node_sync *sync;
    struct mero_node_peers *peers; /* peers.c: peers the connection budgets keep */
    uv_timer_t sync_timer;
    bool sync_timer_on;
    uv_signal_t sigint, sigterm;
    bool stopping;
    /* ---- issue 19: the fleet view's last-seen map (fleet.c), memory only ---- */
    struct mero_fleet_seen *seen; /* MERO_FLEET_SEEN_MAX entries once the first is fed */
    size_t seen_next;
    /* ---- issue 19: metrics (node/metrics.c) ---- */
    bool metrics_public;      /* merod run --metrics-public */
    bool sealed_only;         /* issue 31: merod run --sealed-only (node/sealed.c) */
    char *tls_cert, *tls_key; /* issue 31: merod run --tls-cert/--tls-key PEM (owned) */
    uint8_t tls_spki[MERO_SHA256_LEN];
    uint64_t started_unix; /* mero_node_start */
    uint64_t gov_rejected; /* issue 30: peers' ops kept without effect (sync.c) */
    bool gov_checked;      /* issue 32 item 6: gov.db's derived tables passed the start check,
                              so a clean stop may seal them (home.c) */

    /* ---- issue 20: --announce (public.c, service.c), bootstrap redials (redial.c) ---- */
    char *announce[MERO_NODE_MAX_ANNOUNCE];
    size_t nannounce;
    struct mero_node_redial {
        struct mero_node *node;
        bool dialing;                    /* a dial is in flight */
        uint64_t next_ms;                /* uv_now before which no dial starts */
        uint32_t backoff_ms;             /* the wait after the next failure */
        bool away;                       /* left alone: it turned us away (logged once) */
        uint8_t away_streak;             /* turn-aways in a row, each after we came back */
        uint64_t up_since;               /* uv_now when first seen connected (0: not) */
        char peer[MERO_PEER_ID_STR_MAX]; /* the peer id a dial reached ("" before), for an address
                                            without /p2p */
    } redial[MERO_NODE_MAX_BOOTSTRAP];

    /* ---- issue 30: counts governance events (service.c), so a delta refused for the state of
     * governance is judged again once it changes (context/refused.c); memory only ---- */
    uint64_t gov_gen;
    /* issue 30: a governance event came since the deltas kept without effect were last judged
     * (context/kept.c); they are judged again from the next sync tick, once the store committed,
     * MERO_CTX_REJUDGE_TICK a tick: ctx_rejudge_after is the seq a pass has reached (0: none under
     * way), and an event during a pass asks for another from the first once it ends */
    bool ctx_rejudge_due;
    uint64_t ctx_rejudge_after;
    uint64_t ctx_rejudge_end; /* the newest kept delta's seq when the pass started */
    /* issue 30 (context/chain.c): moves with every chain link stored; and the deltas one
     * (context, author)'s cuts vouch for, read once for a judging of many (owned) */
    uint64_t ctx_chain_gen;
    struct mero_ctx_vouch *ctx_vouch;
};

/*
 * Take DIR/merod.lock (exclusive flock, held for the process's life; the pid is written in
 * it): -MERO_EBUSY naming the running merod's pid when another process holds it.
 */
MERO_MUST_CHECK int mero__node_lock_home(const char *home, struct mero_err *err);
/*
 * Open DIR/gov.db into node->store (after mero_node_open): never recreated once made (node_meta
 * MERO_META_GOV_DB records that it was); refused when missing, empty or failing quick_check.
 */
MERO_MUST_CHECK int mero__node_open_gov(struct mero_node *node, struct mero_err *err);
/* Issue 32 item 6: gov.db's derived tables against the seal of the last clean stop (or, after
 * a crash, a replay of the log); the hooks must be set. Refuses the start with the fix named. */
int mero__node_check_gov(struct mero_node *node, struct mero_err *err);
/* At a clean stop: seal gov.db's derived tables (a failure is logged: the next start replays). */
void mero__node_seal_gov(struct mero_node *node);

/* home.c: 0600 secret files */
MERO_MUST_CHECK int mero__node_write_secret(const char *path, const void *data, size_t len,
                                            struct mero_err *err);
MERO_MUST_CHECK int mero__node_read_secret(const char *path, void *out, size_t cap, size_t *len,
                                           struct mero_err *err);
/* Content checks run at open, before anything uses the secret: 0 when good, else -MERO_EINVAL
 * with a message naming PATH and the fix (never the content). The token: exactly 64 hex
 * characters, optionally followed by one newline (n counts every byte read). The identity
 * seed: exactly 32 bytes, not all zero. */
MERO_MUST_CHECK int mero__node_check_token(const char *path, const char *tok, size_t n,
                                           struct mero_err *err);
MERO_MUST_CHECK int mero__node_check_identity_key(const char *path, const uint8_t *seed, size_t n,
                                                  struct mero_err *err);
/* Write a file atomically (tmp + fsync + rename) with the given mode. */
MERO_MUST_CHECK int mero__node_write_file(const char *path, const void *data, size_t len, int mode,
                                          struct mero_err *err);

/* ---- issue 16: reach (src/node/subgroup_admit.c), called by usecase.c ---- */
/* A subgroup was created here: an Open one's key goes to every member reaching it. */
void mero__node_reach_subgroup_created(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                       const uint8_t group[MERO_GROUP_ID_LEN]);
/* Before removing id from group: when it holds a TEE row there, the groups it reaches now
 * (*reached owned, free()); else none. */
MERO_MUST_CHECK int mero__node_reach_before_removal(struct mero_node *node,
                                                    const uint8_t ns[MERO_NS_ID_LEN],
                                                    const uint8_t group[MERO_GROUP_ID_LEN],
                                                    const uint8_t id[MERO_IDENTITY_LEN],
                                                    uint8_t (**reached)[MERO_GROUP_ID_LEN],
                                                    size_t *n);
/* After the removal committed: rotate the key of every other group it reached and reaches no
 * more, where we are an admin (else logged and left). */
void mero__node_reach_after_removal(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                    const uint8_t group[MERO_GROUP_ID_LEN],
                                    const uint8_t id[MERO_IDENTITY_LEN],
                                    const uint8_t (*reached)[MERO_GROUP_ID_LEN], size_t n);

#endif
