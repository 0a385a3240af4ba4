/* SPDX-License-Identifier: Apache-2.0 */
/*
 * connmgr.c - the connection manager (issue 33), after libp2p's: low and high watermarks on
 * the established connections (both directions). When more than cfg.conn_high_water are up,
 * the heartbeat trims the least useful unprotected ones down to cfg.conn_low_water, each with
 * a goodbye that carries peer exchange (gossip_px.c), so a trimmed peer learns whom to dial
 * instead. Protected, never trimmed: gossip mesh peers of our topics, peers the application
 * protects (mero_net_protect: a pending admission's admitter, ...) and connections younger
 * than cfg.conn_grace_ms (a new peer has work to do: an admission, a sync).
 *
 * "Least useful first": lowest priority, then not subscribed to any topic of ours, then the
 * lowest gossip score, then the most recently established.
 *
 * Invariants: after a heartbeat at most max(conn_high_water, protected) connections are
 * established and not draining; the protect table is bounded (MERO_NET_PROTECT_MAX peer ids,
 * refcounted; beyond it a protect call fails with -MERO_EBUSY).
 */
#include <string.h>

#include "mero/log.h"
#include "net/gossip_internal.h"
#include "net/conn_internal.h"

static struct mero__protect *protect_find(struct mero_net *net, const char *peer)
{
    for (size_t i = 0; i < MERO_NET_PROTECT_MAX; i++) {
        if (net->protect[i].refs > 0 && strcmp(net->protect[i].peer, peer) == 0) {
            return &net->protect[i];
        }
    }
    return NULL;
}

void mero_net_unprotect(struct mero_net *net, const char *peer_id)
{
    struct mero__protect *p = protect_find(net, peer_id);
    if (p != NULL) {
        p->refs--;
    }
}

int mero_net_protect(struct mero_net *net, const char *peer_id)
{
    struct mero__protect *p = protect_find(net, peer_id);
    if (strlen(peer_id) >= MERO_PEER_ID_STR_MAX) {
        return -MERO_EINVAL;
    }
    if (p == NULL) {
        for (size_t i = 0; i < MERO_NET_PROTECT_MAX && p == NULL; i++) {
            if (net->protect[i].refs == 0) {
                p = &net->protect[i];
                snprintf(p->peer, sizeof(p->peer), "%s", peer_id);
            }
        }
    }
    if (p == NULL) {
        return -MERO_EBUSY;
    }
    p->refs++;
    return 0;
}

bool mero_net_is_protected(struct mero_net *net, const char *peer_id)
{
    return protect_find(net, peer_id) != NULL;
}

static int in_some_mesh(const struct mero__gossip *g, const struct mero__gpeer *p)
{
    for (const struct mero__gs_topic *t = g ? g->topics : NULL; p && t; t = t->next) {
        if (mero__gs_in_mesh(t, p)) {
            return 1;
        }
    }
    return 0;
}

static int shares_topic(const struct mero__gossip *g, const struct mero__gpeer *p)
{
    for (const struct mero__gs_topic *t = g ? g->topics : NULL; p && t; t = t->next) {
        if (mero__gs_peer_has_topic(p, t->name)) {
            return 1;
        }
    }
    return 0;
}

static int trimmable(struct mero_net *net, const struct mero__conn *c, uint64_t now)
{
    return c->state == MERO__C_UP && c->reported_up && !c->drain_at &&
           now - c->up_ms >= net->cfg.conn_grace_ms && !in_some_mesh(net->gossip, c->gp) &&
           protect_find(net, c->peer) == NULL;
}

/* 1 when a is less useful than b (trimmed first). */
static int less_useful(struct mero_net *net, const struct mero__conn *a, const struct mero__conn *b)
{
    if (a->prio != b->prio) {
        return a->prio < b->prio;
    }
    int sa = shares_topic(net->gossip, a->gp), sb = shares_topic(net->gossip, b->gp);
    if (sa != sb) {
        return sa < sb;
    }
    double xa = a->gp ? mero__gs_score_of(net->gossip, a->gp) : 0;
    double xb = b->gp ? mero__gs_score_of(net->gossip, b->gp) : 0;
    if (xa != xb) {
        return xa < xb;
    }
    return a->up_ms > b->up_ms;
}

size_t mero__connmgr_established(const struct mero_net *net)
{
    size_t n = 0;
    for (const struct mero__conn *c = net->conns; c; c = c->next) {
        n += (c->state == MERO__C_UP && c->reported_up && !c->drain_at) ? 1u : 0u;
    }
    return n;
}

void mero__connmgr_tick(struct mero_net *net)
{
    uint64_t now = uv_now(net->loop);
    size_t n = mero__connmgr_established(net), trimmed = 0;
    if (n <= net->cfg.conn_high_water) {
        return;
    }
    while (n > net->cfg.conn_low_water) {
        struct mero__conn *v = NULL;
        for (struct mero__conn *c = net->conns; c; c = c->next) {
            if (trimmable(net, c, now) && (v == NULL || less_useful(net, c, v))) {
                v = c;
            }
        }
        if (v == NULL) {
            break; /* the rest is protected */
        }
        mero__gossip_goodbye(v); /* PX, then closed at its drain time */
        if (!v->drain_at) {
            v->drain_at = now + GS_DRAIN_MS;
        }
        n--;
        trimmed++;
    }
    if (trimmed > 0) {
        net->conns_trimmed += trimmed;
        MERO_INFO("net: connection manager: %zu connections above the high watermark %u, "
                  "trimmed %zu to %zu (low watermark %u)",
                  n + trimmed, net->cfg.conn_high_water, trimmed, n, net->cfg.conn_low_water);
    }
}

size_t mero_net_conns_trimmed(const struct mero_net *net)
{
    return net->conns_trimmed;
}
