/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redial.c - keeping the --bootstrap peers connected (issue 20). merod dialed its bootstrap
 * peers once, at start: a link that a partition, a peer's restart or a network fault closed
 * stayed closed, so a fleet split in two never joined again after the network healed (the
 * fleet harness's partition scenario, docs/fleet-harness.md). Now every sync tick (2 s)
 * redials each bootstrap peer that is not connected, with a back-off per peer that doubles
 * from 2 s to 30 s after each failed dial and restarts at 2 s once a dial succeeds. Issue 33:
 * once REDIAL_ENOUGH_PEERS peers are connected, a missing bootstrap peer is tried only every
 * 30 s (bootstrap addresses are for discovery; docs/network.md "Connection manager"), and one
 * that turned this node away or trimmed it (a goodbye: mero_net_turned_away_within) only
 * REDIAL_AWAY_MS after that, so a hub's trimmed peers do not come back every 30 s to be trimmed
 * again (twice as long each time it turns us away again after we came back, up to 8 min) -
 * but only while REDIAL_ENOUGH_PEERS peers that share a topic with us are connected (a
 * member whose other links are strangers' still needs the bootstrap peer for its namespace's
 * ops), and while this node holds some op of every namespace it joined (sharers of a topic
 * that all wait for the namespace are no reason to stay away from the one that holds it). A
 * link lost any other way (a partition, a restart) is redialed as before. What a tick
 * does with one such peer is mero__redial_step, a function of counts alone (test_redial).
 *
 * Invariants: at most one dial in flight per bootstrap address; a connected peer is never
 * dialed (an address without /p2p/ is matched by the peer id its last successful dial
 * reached); the dial callback touches only its own slot of the node, which outlives the net
 * (mero_net_free completes pending dials with ECLOSED before the node is freed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/log.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

#define REDIAL_MIN_MS 2000u
#define REDIAL_MAX_MS 30000u
/* issue 33: with this many peers connected, bootstrap addresses are for discovery, not a
 * standing link: a bootstrap peer that is not connected is tried again only every
 * REDIAL_MAX_MS (a partition still heals within that), so a fleet does not hold its owner's
 * slots just because everyone was started with its address */
#define REDIAL_ENOUGH_PEERS 3u
/* issue 33: how long a bootstrap peer that turned us away is left alone (while we have enough
 * peers): four times REDIAL_MAX_MS, measured against the hub's trims in docs/scaling.md */
#define REDIAL_AWAY_MS 120000u
/* a peer that turns us away again each time we come back is left alone twice as long each
 * time, up to REDIAL_AWAY_MS << REDIAL_AWAY_DOUBLINGS (8 min, within the 10 min the net keeps
 * a goodbye with the retained score); a link that then stays up REDIAL_AWAY_MS forgets the
 * streak */
#define REDIAL_AWAY_DOUBLINGS 2u

static void on_redialed(void *ud, int status, const char *peer_id)
{
    struct mero_node_redial *r = ud;
    r->dialing = false;
    if (status == -MERO_ECLOSED) {
        return; /* the net is closing */
    }
    if (status < 0) {
        MERO_WARN("bootstrap dial failed: %s (next try in %u s)", mero_strerror(status),
                  r->backoff_ms / 1000u);
        r->next_ms = uv_now(r->node->loop) + r->backoff_ms;
        r->backoff_ms = r->backoff_ms * 2u > REDIAL_MAX_MS ? REDIAL_MAX_MS : r->backoff_ms * 2u;
        return;
    }
    MERO_INFO("bootstrap peer %s", peer_id);
    r->backoff_ms = REDIAL_MIN_MS;
    if (peer_id != NULL) {
        snprintf(r->peer, sizeof(r->peer), "%s", peer_id);
    }
    mero__node_peer_valued(r->node, peer_id);
}

enum mero__redial_step mero__redial_step(size_t connected, size_t sharers, bool turned_away,
                                         bool unheld, uint32_t *gap_ms)
{
    /* the sharers, not every connected peer: a member whose other links are strangers' (TEEs
     * not admitted yet) still needs its bootstrap peer for the namespace's ops; and none of
     * them counts while a namespace we joined is held by none of us here */
    if (turned_away && !unheld && sharers >= REDIAL_ENOUGH_PEERS) {
        *gap_ms = 0;
        return MERO__REDIAL_LEAVE_ALONE;
    }
    *gap_ms = connected >= REDIAL_ENOUGH_PEERS ? REDIAL_MAX_MS : 0;
    return MERO__REDIAL_DIAL;
}

uint32_t mero__redial_away_ms(unsigned streak)
{
    return REDIAL_AWAY_MS << (streak < REDIAL_AWAY_DOUBLINGS ? streak : REDIAL_AWAY_DOUBLINGS);
}

bool mero__redial_note(struct mero_node_redial *r, enum mero__redial_seen seen, uint64_t now)
{
    if (seen == MERO__REDIAL_SEEN_UP) {
        if (r->up_since == 0) {
            r->up_since = now;
        } else if (now - r->up_since >= REDIAL_AWAY_MS) {
            r->away_streak = 0; /* it kept us this time */
        }
        return false;
    }
    r->up_since = 0;
    if (seen == MERO__REDIAL_SEEN_LEFT_ALONE) {
        bool newly = !r->away;
        r->away = true;
        return newly;
    }
    if (r->away && r->away_streak < REDIAL_AWAY_DOUBLINGS) {
        r->away_streak++; /* back after being left alone: if it turns us away again, longer */
    }
    r->away = false;
    return false;
}

/* Whether this node joined a namespace it holds no op of yet: its topic's sharers are then
 * no reason to leave a bootstrap peer alone, for none of them may hold the namespace either
 * (issue 33, N=200: every member had joined, shared the namespace's topic with the others
 * and left the owner alone, and none held the namespace). */
static bool starving(struct mero_node *node)
{
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    bool yes =
        node->store != NULL && mero_gov_namespaces_unheld(node->store, &nss, &n) == 0 && n > 0;
    free(nss);
    return yes;
}

static bool is_connected(char (*peers)[MERO_PEER_ID_STR_MAX], size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(peers[i], id) == 0) {
            return true;
        }
    }
    return false;
}

void mero__node_redial_tick(struct mero_node *node, bool first)
{
    if (node->nbootstrap == 0) {
        return; /* nothing to keep: no peer list copied, no topic peers counted every tick */
    }
    char peers[MERO_NODE_REDIAL_SCAN][MERO_PEER_ID_STR_MAX];
    size_t n = mero_net_connected_peers(node->net, peers, MERO_NODE_REDIAL_SCAN);
    uint64_t now = uv_now(node->loop);
    /* peers that share a topic with us: enough of them and a bootstrap peer that turned us
     * away is left alone */
    size_t sharers = mero_net_topic_sharers(node->net);
    if (n > MERO_NODE_REDIAL_SCAN) {
        n = MERO_NODE_REDIAL_SCAN;
    }
    for (size_t i = 0; i < node->nbootstrap; i++) {
        struct mero_node_redial *r = &node->redial[i];
        char canon[MERO_MULTIADDR_STR_MAX], id[MERO_PEER_ID_STR_MAX];
        if (first) {
            memset(r, 0, sizeof(*r));
            r->node = node;
            r->backoff_ms = REDIAL_MIN_MS;
        }
        if (r->dialing || now < r->next_ms) {
            continue;
        }
        if (mero_net_multiaddr_check(node->bootstrap[i], canon, id) < 0 || id[0] == '\0') {
            snprintf(id, sizeof(id), "%s", r->peer); /* no /p2p/: the id a dial reached */
        }
        if (id[0] != '\0' && is_connected(peers, n, id)) {
            (void)mero__redial_note(r, MERO__REDIAL_SEEN_UP, now);
            continue;
        }
        uint32_t away_ms = mero__redial_away_ms(r->away_streak);
        bool away = id[0] != '\0' && mero_net_turned_away_within(node->net, id, away_ms);
        /* asked only where it could change the answer: a query of the store */
        bool unheld = away && sharers >= REDIAL_ENOUGH_PEERS && starving(node);
        uint32_t gap_ms;
        if (mero__redial_step(n, sharers, away, unheld, &gap_ms) == MERO__REDIAL_LEAVE_ALONE) {
            if (mero__redial_note(r, MERO__REDIAL_SEEN_LEFT_ALONE, now)) {
                MERO_INFO("bootstrap peer %s turned us away: left alone for %u s while %zu peers "
                          "of our topics are connected",
                          id, away_ms / 1000u, sharers);
            }
            continue;
        }
        (void)mero__redial_note(r, MERO__REDIAL_SEEN_DIALED, now);
        if (!first) {
            MERO_INFO("bootstrap peer %s is not connected: dialing it again",
                      id[0] ? id : node->bootstrap[i]);
        }
        if (gap_ms > 0) {
            r->next_ms = now + gap_ms;
        }
        if (mero_net_dial(node->net, node->bootstrap[i], on_redialed, r) < 0) {
            MERO_WARN("cannot dial %s", node->bootstrap[i]);
            r->next_ms = now + r->backoff_ms;
            continue;
        }
        r->dialing = true;
    }
}
