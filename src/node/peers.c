/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peers.c - which peers the node values, for the network's connection budgets
 * (docs/network.md, "Connection budgets"): the net layer knows nothing of namespaces, so the
 * node answers its peer_priority question. A peer is a member (MERO_NET_PRIO_MEMBER) when it
 * is one of our --bootstrap peers, when we dialed it successfully, or when a governance op or
 * state delta it published (its signed gossip `from`) was new here and applied (service.c);
 * anyone else is a stranger.
 *
 * Invariants: the set is bounded (VALUED_MAX peer ids; the oldest entry is replaced when
 * full), lives in memory only, and is read and written on the loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/net.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

#define VALUED_MAX 256

struct mero_node_peers {
    char id[VALUED_MAX][MERO_PEER_ID_STR_MAX];
    size_t n, next; /* entries in use; where the next new entry goes */
};

static int known(const struct mero_node_peers *p, const char *peer)
{
    for (size_t i = 0; p != NULL && i < p->n; i++) {
        if (strcmp(p->id[i], peer) == 0) {
            return 1;
        }
    }
    return 0;
}

static int is_bootstrap(const struct mero_node *node, const char *peer)
{
    char canon[MERO_MULTIADDR_STR_MAX], id[MERO_PEER_ID_STR_MAX];
    for (size_t i = 0; i < node->nbootstrap; i++) {
        if (mero_net_multiaddr_check(node->bootstrap[i], canon, id) == 0 && strcmp(id, peer) == 0) {
            return 1;
        }
    }
    return 0;
}

int mero__node_peer_priority(void *ud, const char *peer_id)
{
    const struct mero_node *node = ud;
    if (peer_id == NULL) {
        return MERO_NET_PRIO_STRANGER;
    }
    if (known(node->peers, peer_id) || is_bootstrap(node, peer_id)) {
        return MERO_NET_PRIO_MEMBER;
    }
    return MERO_NET_PRIO_STRANGER;
}

void mero__node_peer_valued(struct mero_node *node, const char *peer_id)
{
    size_t len = peer_id ? strlen(peer_id) : 0;
    if (len == 0 || len >= MERO_PEER_ID_STR_MAX) {
        return;
    }
    if (node->peers == NULL) {
        node->peers = calloc(1, sizeof(*node->peers));
        if (node->peers == NULL) {
            return; /* the peer stays a stranger */
        }
    }
    struct mero_node_peers *p = node->peers;
    if (!known(p, peer_id)) {
        memcpy(p->id[p->next], peer_id, len + 1);
        p->next = (p->next + 1) % VALUED_MAX;
        if (p->n < VALUED_MAX) {
            p->n++;
        }
    }
    if (node->net != NULL) {
        mero_net_set_priority(node->net, peer_id, MERO_NET_PRIO_MEMBER);
    }
}

void mero__node_peers_free(struct mero_node *node)
{
    free(node->peers);
    node->peers = NULL;
}
