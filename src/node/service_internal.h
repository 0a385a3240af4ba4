/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_internal.h - the node's namespace service (service.c): the network, governance store,
 * sync and contexts, started and stopped by the loop. Every function runs on the loop.
 */
#ifndef MERO_NODE_SERVICE_H
#define MERO_NODE_SERVICE_H

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "node/topic_internal.h"

struct mero_node;
struct mero_gov_oplist;

MERO_MUST_CHECK int mero__node_service_start(struct mero_node *node, struct mero_err *err);
void mero__node_service_stop(struct mero_node *node);
/* Our listen multiaddrs (with /p2p/<id>), a new JSON array. */
json_t *mero__node_listen_addrs(struct mero_node *node);

struct mero_gov_hooks;
/* The hooks merod installs on its governance store: the event listener and the release
 * source only - evidence and carried quotes are verified by the library's own path. */
void mero__node_gov_hooks(struct mero_node *node, struct mero_gov_hooks *h);

/* peers.c: the connection budgets' peer_priority callback (ud = node): MERO_NET_PRIO_MEMBER for
 * bootstrap peers, peers we dialed and peers whose ops or deltas applied; else a stranger. */
int mero__node_peer_priority(void *ud, const char *peer_id);
/* Remember peer_id as a member (bounded set, oldest replaced) and raise its live connection. */
void mero__node_peer_valued(struct mero_node *node, const char *peer_id);
void mero__node_peers_free(struct mero_node *node);

/* netcfg.c: config.json's optional "net" object (connection budgets) into out's net_* fields;
 * -MERO_EINVAL with a message naming path and the field. */
struct mero_node_config;
struct mero_net_config;
MERO_MUST_CHECK int mero__node_netcfg_parse(const json_t *cfg, const char *path,
                                            struct mero_node_config *out, struct mero_err *err);
/* The net configuration for mero_net_new: defaults with the configured budgets. */
void mero__node_netcfg_apply(const struct mero_node_config *in, struct mero_net_config *out);

/* ---- issue 20: bootstrap redials (src/node/redial.c) ---- */
#define MERO_NODE_REDIAL_SCAN 256 /* connected peers looked at per tick */
/* Dial every --bootstrap peer that is not connected and whose back-off has passed; first:
 * the dial at start (resets the per-peer state). */
void mero__node_redial_tick(struct mero_node *node, bool first);
/* What a tick does with one bootstrap peer that is not connected (issue 33), from the peers we
 * hold (connected: all of them; sharers: those that share a topic with us) and whether that
 * peer turned us away lately: leave it alone (it turned us away and enough sharers remain,
 * and unheld is false: no namespace we joined is still without any op here) or dial it, and
 * then wait *gap_ms before the next try (0: the peer's back-off decides). */
enum mero__redial_step { MERO__REDIAL_DIAL, MERO__REDIAL_LEAVE_ALONE };
enum mero__redial_step mero__redial_step(size_t connected, size_t sharers, bool turned_away,
                                         bool unheld, uint32_t *gap_ms);
/* How long a bootstrap peer that turned us away is left alone after `streak` turn-aways in a
 * row, each after we came back: 120 s, doubling, at most 480 s. */
uint32_t mero__redial_away_ms(unsigned streak);
/* What a tick saw of one bootstrap peer, for its streak (issue 33): connected; not connected and
 * left alone; not connected and dialed. */
enum mero__redial_seen {
    MERO__REDIAL_SEEN_UP,
    MERO__REDIAL_SEEN_LEFT_ALONE,
    MERO__REDIAL_SEEN_DIALED
};
struct mero_node_redial;
/* Keep r's streak: a dial after being left alone counts one more turn-away in a row (at most
 * two doublings); a link seen up for 120 s forgets them. True when r was newly left alone (the
 * tick logs that once). */
bool mero__redial_note(struct mero_node_redial *r, enum mero__redial_seen seen, uint64_t now);

#endif
