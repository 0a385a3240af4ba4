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

#define MERO_NODE_PATH_MAX      1024
#define MERO_META_GOV_DB        "gov_db" /* node_meta: init made gov.db */
#define MERO_NODE_NAME_MAX      64
#define MERO_NODE_ADDR_MAX      256
#define MERO_NODE_MAX_LISTEN    8
#define MERO_NODE_MAX_BOOTSTRAP 16
#define MERO_TOKEN_HEX_LEN      64
#define MERO_DEFAULT_API        "127.0.0.1:2528"
#define MERO_DEFAULT_LISTEN     "/ip4/127.0.0.1/tcp/2428"

struct mero_node;
struct mero_api_server;
struct sqlite3;
struct mero_store;
struct mero_net;
struct mero_node_sync;
struct mero_node_peers;

/* How quotes are produced (ARCHITECTURE.md §1, spec "Admin API surface"). */
enum mero_node_tee {
    MERO_TEE_NONE = 0, /* no TDX, no --mock-tee: quote requests answer 501 */
    MERO_TEE_MOCK = 1, /* --mock-tee: MOCK_TDX_QUOTE_V1 quotes */
    MERO_TEE_REAL = 2, /* configfs-tsm with provider tdx_guest */
};

/*
 * Completion of an asynchronous fleet join: status is an HTTP status, data_json an owned
 * JSON text of the `data` member on success (2xx) or NULL, message the error text otherwise.
 */
typedef void (*mero_fleet_join_done)(void *ctx, int status, char *data_json, const char *message);

/*
 * Hooks that code merged later installs on the node (the admission helper installs
 * fleet_join from its own start function). A NULL hook means "not available" (501).
 */
struct mero_node_hooks {
    /*
     * Start a fleet join for namespace group_id, asking admitters (n multiaddrs ending in
     * /p2p/<id>) directly first. Must call done exactly once, on the loop thread, possibly
     * later (up to ~30 s). Returns 0 when started, negative when it could not start (then
     * done is not called and the route answers 500 with err's message).
     */
    int (*fleet_join)(struct mero_node *node, const uint8_t group_id[32],
                      const char *const *admitters, size_t n, mero_fleet_join_done done, void *ctx,
                      struct mero_err *err);
    void *fleet_join_state;
    /*
     * A gossip message on a namespace topic ns/<hex> that is neither a governance op nor a
     * state delta (service.c reserves the first bytes MERO_GOSSIP_OP / MERO_GOSSIP_DELTA).
     * Return 0 to accept (forwarded), negative to reject. NULL: such messages are rejected.
     */
    int (*on_gossip)(struct mero_node *node, const uint8_t ns[32], const char *from,
                     const uint8_t *data, size_t len);
    void *gossip_state;
};

/* First byte of our gossip messages on ns/<hex> (service.c). */
#define MERO_GOSSIP_OP    0xA0 /* followed by one encoded signed governance op */
#define MERO_GOSSIP_DELTA 0xA1 /* followed by one encoded state delta (context.c) */

struct mero_node_config {
    char name[MERO_NODE_NAME_MAX];
    char api[MERO_NODE_ADDR_MAX]; /* host:port, port may be 0 */
    char listen[MERO_NODE_MAX_LISTEN][MERO_NODE_ADDR_MAX];
    size_t nlisten;
    /* config.json "net" (netcfg.c): connection budgets, 0 = the net layer's default */
    uint32_t net_max_inbound, net_max_outbound, net_max_pending, net_max_inbound_per_ip;
};

struct mero_node {
    uv_loop_t *loop;
    char home[MERO_NODE_PATH_MAX];
    struct mero_node_config cfg;
    char *bootstrap[MERO_NODE_MAX_BOOTSTRAP];
    size_t nbootstrap;
    /* node identity (Ed25519); sk in sodium_malloc'd memory */
    uint8_t id_pk[32];
    uint8_t *id_sk;
    /* the transport key /tee/attest binds: X25519, generated at startup, memory only */
    uint8_t transport_pk[32];
    uint8_t *transport_sk;
    char token[MERO_TOKEN_HEX_LEN + 1]; /* admin bearer token (secret) */
    enum mero_node_tee tee;
    bool test_routes; /* --test: test-only routes (docs/node.md) */
    struct sqlite3 *db;
    struct mero_api_server *api;
    char api_bound[MERO_NODE_ADDR_MAX]; /* actual host:port once listening */
    char peer_id[64];
    struct mero_node_hooks hooks;
    struct mero_net *net;     /* the libp2p peer (service.c) */
    struct mero_store *store; /* governance store, DIR/gov.db */
    struct mero_node_sync *sync;
    struct mero_node_peers *peers; /* peers.c: peers the connection budgets keep */
    uv_timer_t sync_timer;
    bool sync_timer_on;
    uv_signal_t sigint, sigterm;
    bool stopping;
};

/* merod init: create DIR (0700), identity key, database, config and admin-token (0600). */
MERO_MUST_CHECK int mero_node_init_home(const char *home, const char *name, const char *listen,
                                        const char *api, struct mero_err *err);
/*
 * Take DIR/merod.lock (exclusive flock, held for the process's life; the pid is written in
 * it): -MERO_EBUSY naming the running merod's pid when another process holds it.
 */
MERO_MUST_CHECK int mero_node_lock_home(const char *home, struct mero_err *err);
/* Load DIR (after taking its lock): config, keys (refused if looser than 0600), token, database. */
MERO_MUST_CHECK int mero_node_open(struct mero_node *node, const char *home, struct mero_err *err);
/*
 * Open DIR/gov.db into node->store (after mero_node_open): never recreated once made (node_meta
 * MERO_META_GOV_DB records that it was); refused when missing, empty or failing quick_check.
 */
MERO_MUST_CHECK int mero_node_open_gov(struct mero_node *node, struct mero_err *err);
/*
 * `merod check --home DIR`: integrity_check of node.db and gov.db, the op log re-verified
 * (hashes, signatures, derived tables equal a replay), every context delta and visible value
 * checked against its signed, encrypted delta. Findings are printed to out; 0 when all is
 * well, -MERO_ESTATE when something is damaged, another code when the check could not run.
 */
MERO_MUST_CHECK int mero_node_check(const char *home, FILE *out, struct mero_err *err);
/* Free everything opened by mero_node_open (keys wiped, database closed). */
void mero_node_close(struct mero_node *node);
/* Run until SIGINT/SIGTERM; returns 0 on a clean stop. */
MERO_MUST_CHECK int mero_node_run(struct mero_node *node, struct mero_err *err);
/* Stop the loop cleanly (from any loop callback). */
void mero_node_stop(struct mero_node *node);

/* home.c: 0600 secret files */
MERO_MUST_CHECK int mero_node_write_secret(const char *path, const void *data, size_t len,
                                           struct mero_err *err);
MERO_MUST_CHECK int mero_node_read_secret(const char *path, void *out, size_t cap, size_t *len,
                                          struct mero_err *err);
/* Content checks run at open, before anything uses the secret: 0 when good, else -MERO_EINVAL
 * with a message naming PATH and the fix (never the content). The token: exactly 64 hex
 * characters, optionally followed by one newline (n counts every byte read). The identity
 * seed: exactly 32 bytes, not all zero. */
MERO_MUST_CHECK int mero_node_check_token(const char *path, const char *tok, size_t n,
                                          struct mero_err *err);
MERO_MUST_CHECK int mero_node_check_identity_key(const char *path, const uint8_t *seed, size_t n,
                                                 struct mero_err *err);
/* Write a file atomically (tmp + fsync + rename) with the given mode. */
MERO_MUST_CHECK int mero_node_write_file(const char *path, const void *data, size_t len, int mode,
                                         struct mero_err *err);

/* tee.c */
/* Detect the TEE: real when configfs-tsm offers tdx_guest, else mock when asked, else none. */
enum mero_node_tee mero_node_tee_detect(bool mock_requested);
/* The 96-hex MRTD of the host TD (zeros for mock/none) and the cloud/os facts of §1.6. */
void mero_node_tee_info(const struct mero_node *node, char cloud[32], char os_image[128],
                        char mrtd[97]);

#endif
