/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_mesh.c - the gossipsub router's state and its sending, shared by every gossip file:
 * the topics we subscribe to and their meshes (adding and dropping a mesh peer tells the
 * score: P1, P3b), what each peer subscribes to, prune backoffs, a peer's score, the peers a
 * topic has, and sending an RPC or a control message to a peer (on its outbound stream, or
 * queued until that stream is ready).
 *
 * Floor (docs/network.md "The floors of src/net"): the lowest of the router's files. It calls
 * the score (gossip_score.c), the RPC codec and the streams below it, never gossipsub.c,
 * gossip_px.c or gossip_api.c; they and the connection manager call it.
 *
 * Invariants: a mesh holds at most GS_MESH_MAX peers, each once; a peer holds at most
 * GS_BACKOFF_MAX backoffs (the oldest slot is reused); nothing is sent to a peer that is not
 * usable (no meshsub, or its connection draining or closed), and a peer whose pending output
 * exceeds its bound is disconnected as slow.
 */
#include <stdio.h>
#include <string.h>

#include "net/gossip_internal.h"

#define GS_CONTROL_MAX 512 /* one GRAFT or PRUNE control message */

double mero__gs_score_of(const struct mero__gossip *g, const struct mero__gpeer *p)
{
    return mero__gs_score_value(&g->sp, &p->score, uv_now(g->net->loop));
}

void mero__gs_mesh_drop(struct mero__gossip *g, struct mero__gs_topic *t, struct mero__gpeer *p)
{
    if (mero__gs_in_mesh(t, p)) {
        mero__gs_mesh_remove(t, p);
        mero__gs_score_prune(&g->sp, &p->score, t->name, uv_now(g->net->loop));
    }
}

void mero__gs_mesh_add(struct mero__gossip *g, struct mero__gs_topic *t, struct mero__gpeer *p)
{
    if (!mero__gs_in_mesh(t, p) && t->nmesh < GS_MESH_MAX) {
        t->mesh[t->nmesh++] = p;
        mero__gs_score_graft(&p->score, t->name, uv_now(g->net->loop));
    }
}

struct mero__gs_topic *mero__gs_topic_find(struct mero__gossip *g, const char *t)
{
    for (struct mero__gs_topic *x = g->topics; x; x = x->next) {
        if (strcmp(x->name, t) == 0) {
            return x;
        }
    }
    return NULL;
}

int mero__gs_peer_has_topic(const struct mero__gpeer *p, const char *t)
{
    for (size_t i = 0; i < p->ntopics; i++) {
        if (strcmp(p->topics[i], t) == 0) {
            return 1;
        }
    }
    return 0;
}

int mero__gs_in_mesh(const struct mero__gs_topic *t, const struct mero__gpeer *p)
{
    for (size_t i = 0; i < t->nmesh; i++) {
        if (t->mesh[i] == p) {
            return 1;
        }
    }
    return 0;
}

void mero__gs_mesh_remove(struct mero__gs_topic *t, const struct mero__gpeer *p)
{
    for (size_t i = 0; i < t->nmesh; i++) {
        if (t->mesh[i] == p) {
            t->mesh[i] = t->mesh[--t->nmesh];
            return;
        }
    }
}

size_t mero__gs_topic_peers(const struct mero_net *net, const char *topic)
{
    size_t n = 0;
    for (const struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->state == MERO__C_UP && mero__gs_usable(c->gp) &&
            mero__gs_peer_has_topic(c->gp, topic)) {
            n++;
        }
    }
    return n;
}

size_t mero__gs_topic_sharers(const struct mero_net *net)
{
    const struct mero__gossip *g = net->gossip;
    size_t n = 0;
    for (const struct mero__conn *c = net->conns; g != NULL && c != NULL; c = c->next) {
        const struct mero__gs_topic *t = g->topics;
        if (!mero__gs_usable(c->gp)) {
            continue; /* usable: up, gossiping, not draining */
        }
        while (t != NULL && !mero__gs_peer_has_topic(c->gp, t->name)) {
            t = t->next;
        }
        n += t != NULL ? 1u : 0u;
    }
    return n;
}

int mero__gs_usable(const struct mero__gpeer *p)
{
    /* issue 33: a draining connection (turned away, trimmed) is grafted and sent nothing more */
    return p && !p->no_gossip && p->c->state == MERO__C_UP && !p->c->drain_at;
}

int mero__gs_backed_off(const struct mero__gpeer *p, const char *t, uint64_t now)
{
    for (size_t i = 0; i < p->nbo; i++) {
        if (strcmp(p->bo[i].topic, t) == 0 && p->bo[i].until > now) {
            return 1;
        }
    }
    return 0;
}

void mero__gs_set_backoff(struct mero__gpeer *p, const char *t, uint64_t until)
{
    size_t i;
    for (i = 0; i < p->nbo; i++) {
        if (strcmp(p->bo[i].topic, t) == 0) {
            break;
        }
    }
    if (i == p->nbo) {
        if (p->nbo == GS_BACKOFF_MAX) {
            i = 0; /* overwrite the first: bounded, and backoff is advisory */
        } else {
            p->nbo++;
        }
    }
    snprintf(p->bo[i].topic, sizeof(p->bo[i].topic), "%s", t);
    p->bo[i].until = until;
}

void mero__gs_for_each_peer(struct mero__gossip *g, void (*fn)(struct mero__gpeer *, void *),
                            void *ud)
{
    for (struct mero__conn *c = g->net->conns; c; c = c->next) {
        if (c->gp && c->state == MERO__C_UP) {
            fn(c->gp, ud);
        }
    }
}

int mero__gs_send_rpc(struct mero__gpeer *p, const struct mero_buf *rpc)
{
    uint8_t hdr[10];
    size_t hn = 0;
    uint64_t v = rpc->len;
    if (!mero__gs_usable(p)) {
        return -MERO_ECLOSED;
    }
    do {
        hdr[hn++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    if (p->out_ready && p->out) {
        if (mero__stream_write(p->out, hdr, hn) < 0 ||
            mero__stream_write(p->out, rpc->data, rpc->len) < 0) {
            return -MERO_ECLOSED;
        }
        return 0;
    }
    if (mero_buf_append(&p->pend, hdr, hn) < 0 || mero_buf_append(&p->pend, rpc->data, rpc->len)) {
        mero__conn_fail(p->c, MERO_EBUSY, "gossip output queue full (slow peer)");
        return -MERO_EBUSY;
    }
    return 0;
}

void mero__gs_send_control(struct mero__gpeer *p, const struct mero_buf *ctl)
{
    struct mero_buf rpc;
    mero_buf_init(&rpc, ctl->len + 16);
    if (mero__rpc_put_control(&rpc, ctl) == 0) {
        (void)mero__gs_send_rpc(p, &rpc);
    }
    mero_buf_cleanup(&rpc);
}

void mero__gs_send_graft_prune(struct mero__gpeer *p, const char *topic, int graft)
{
    struct mero_buf ctl;
    int rc;
    mero_buf_init(&ctl, GS_CONTROL_MAX);
    /* issue 33: a mesh-maintenance PRUNE carries no peer exchange (the peer stays connected;
     * PX there made pruned peers dial more peers and cost a loaded fleet its joins); the
     * goodbye of a turned-away or trimmed connection does (gossip_px.c) */
    MERO_TRY_OUT(graft ? mero__rpc_ctrl_graft(&ctl, topic)
                       : mero__rpc_ctrl_prune(&ctl, topic, GS_BACKOFF_MS / 1000));
    mero__gs_send_control(p, &ctl);
out:
    mero_buf_cleanup(&ctl);
}
