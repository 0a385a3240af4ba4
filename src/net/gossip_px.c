/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_px.c - gossipsub v1.1 peer exchange (issue 33): the PRUNE of a goodbye (below) carries
 * up to GS_PX_PEERS PeerInfo {1: peer id bytes, 2: signed peer record} of other peers of the topic
 * (mesh peers first) whose record we hold (identify, peer_record.c); a PRUNE we receive from a
 * peer we may take PX from has its records verified, their addresses added to the address
 * book, and (when we have fewer than D peers on the topic) a bounded number of them dialed.
 * Mesh-maintenance PRUNEs (gossipsub.c) carry no PX: the peer stays connected. A connection we turn
 * away or trim gets a "goodbye" first: a PRUNE with PX for each of our topics, then it closes after
 * GS_DRAIN_MS.
 *
 * Invariants: a record is used only when its envelope signature verifies and it names the
 * peer it is offered for; at most GS_PX_VERIFY_PER_BEAT signatures are checked per heartbeat
 * (a flood of PRUNEs costs no more); we never dial ourselves or a peer we hold a connection to; at
 * most GS_PX_DIAL_MAX dials per PRUNE (picked at random among its records) and GS_PX_DIALS_PER_BEAT
 * per heartbeat, and none when the outbound budget is full; PX is taken only from a peer whose
 * score reaches the accept-PX threshold or that the application ranks a member (a bootstrap peer,
 * as go-libp2p's advice to give bootstrappers an application score).
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/gossip_internal.h"
#include "net/peer_record_internal.h"
#include "net/protobuf_internal.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/multiaddr_internal.h"
#include "net/peerid_internal.h"
#include "net/budget_internal.h"

/* PeerInfo entries (PRUNE field 2) of up to GS_PX_PEERS peers of topic, not `except`. */
static int px_peers(struct mero__gossip *g, const char *topic, const struct mero__conn *except,
                    struct mero_buf *out, size_t *count)
{
    struct mero__gs_topic *t = mero__gs_topic_find(g, topic);
    struct mero_buf pi;
    int rc = 0;
    *count = 0;
    mero_buf_init(&pi, MERO__SPR_MAX + MERO__PEER_ID_ED25519_LEN + 2 * MERO__VARINT_MAX + 2);
    /* two passes: mesh peers of the topic, then other peers subscribed to it */
    for (int pass = 0; pass < 2 && *count < GS_PX_PEERS; pass++) {
        for (struct mero__conn *c = g->net->conns; c && *count < GS_PX_PEERS; c = c->next) {
            if (c == except || c->state != MERO__C_UP || c->drain_at || c->spr == NULL ||
                c->gp == NULL || !mero__gs_peer_has_topic(c->gp, topic)) {
                continue;
            }
            int in_mesh = t != NULL && mero__gs_in_mesh(t, c->gp);
            if (in_mesh != (pass == 0)) {
                continue;
            }
            uint8_t id[MERO__PEER_ID_ED25519_LEN];
            mero__peer_id_bytes_from_pk(c->peer_pk, id);
            mero_buf_reset(&pi);
            MERO_TRY_OUT(mero__pb_put_bytes(&pi, 1, id, sizeof(id)));
            MERO_TRY_OUT(mero__pb_put_bytes(&pi, 2, c->spr, c->spr_n));
            MERO_TRY_OUT(mero__pb_put_bytes(out, 2, pi.data, pi.len));
            (*count)++;
        }
    }
out:
    mero_buf_cleanup(&pi);
    return rc;
}

int mero__gs_prune_px(struct mero__gossip *g, struct mero_buf *ctl, const char *topic,
                      const struct mero__conn *to)
{
    struct mero_buf peers;
    size_t n = 0;
    int rc;
    mero_buf_init(&peers, GS_PX_PEERS * (MERO__SPR_MAX + 2 * MERO__PEER_ID_ED25519_LEN));
    MERO_TRY_OUT(px_peers(g, topic, to, &peers, &n));
    MERO_TRY_OUT(mero__rpc_ctrl_prune_px(ctl, topic, GS_BACKOFF_MS / 1000, &peers));
    g->stats.px_records_sent += n;
out:
    mero_buf_cleanup(&peers);
    return rc;
}

/* ---- goodbye: PRUNE with PX on every topic, then close ---- */

static void goodbye_ev(struct mero__stream *s, int ev)
{
    struct mero_buf *rpc = s->ud;
    if (rpc == NULL) {
        return;
    }
    if (ev == MERO__SE_READY) {
        if (mero__stream_write(s, rpc->data, rpc->len) == 0) {
            mero__stream_close(s);
        }
    } else if (ev == MERO__SE_DATA) {
        mero__stream_consume(s, s->in_len);
        return;
    }
    if (ev != MERO__SE_DATA) {
        s->ud = NULL;
        mero_buf_cleanup(rpc);
        free(rpc);
    }
}

/* A connection turned away before gossip started gets one stream of its own for the RPC. */
static void goodbye_stream(struct mero__conn *c, const struct mero_buf *ctl)
{
    struct mero_buf body;
    struct mero_buf *rpc = malloc(sizeof(*rpc));
    int rc;
    if (rpc == NULL) {
        return;
    }
    mero_buf_init(&body, ctl->len + 2 * MERO__VARINT_MAX);
    mero_buf_init(rpc, body.max + MERO__VARINT_MAX);
    rc = mero__rpc_put_control(&body, ctl);
    if (rc == 0) {
        rc = mero_buf_append_uvarint(rpc, body.len);
    }
    if (rc == 0) {
        rc = mero_buf_append(rpc, body.data, body.len);
    }
    mero_buf_cleanup(&body);
    if (rc < 0 ||
        mero__yamux_open(c, MERO__MESHSUB_11, MERO__APP_GOSSIP_OUT, goodbye_ev, rpc) == NULL) {
        mero_buf_cleanup(rpc);
        free(rpc);
    }
}

void mero__gossip_goodbye(struct mero__conn *c)
{
    struct mero__gossip *g = c->net->gossip;
    struct mero_buf ctl;
    int rc = 0;
    if (g == NULL || g->topics == NULL || c->state != MERO__C_UP || c->drain_at) {
        c->drain_at = c->drain_at ? c->drain_at : uv_now(c->net->loop) + GS_DRAIN_MS;
        return;
    }
    mero_buf_init(&ctl,
                  (size_t)GS_GOODBYE_TOPICS * GS_PX_PEERS * (MERO__SPR_MAX + MERO__TOPIC_MAX));
    size_t k = 0;
    for (struct mero__gs_topic *t = g->topics; t && k < GS_GOODBYE_TOPICS; t = t->next, k++) {
        MERO_TRY_OUT(mero__gs_prune_px(g, &ctl, t->name, c));
        if (c->gp) {
            mero__gs_mesh_drop(g, t, c->gp);
        }
    }
    if (c->gp && c->gp->out) {
        mero__gs_send_control(c->gp, &ctl); /* a peer we gossip with: its own stream */
    } else {
        goodbye_stream(c, &ctl);
    }
out:
    mero_buf_cleanup(&ctl);
    c->drain_at = uv_now(c->net->loop) + GS_DRAIN_MS; /* after the goodbye went out */
}

void mero__gossip_drain_tick(struct mero_net *net)
{
    uint64_t now = uv_now(net->loop);
    struct mero__conn *next;
    for (struct mero__conn *c = net->conns; c; c = next) {
        next = c->next;
        if (c->drain_at && now >= c->drain_at && c->state != MERO__C_CLOSING) {
            c->quiet = 1;
            mero__yamux_goaway(c, 0);
            mero__conn_fail(c, MERO_EBUSY, "turned away with peer exchange (drained)");
            next = net->conns; /* the list changed: start over (drained ones are skipped) */
        }
    }
    if (net->gossip) {
        net->gossip->px_dials = 0;
        net->gossip->px_verifies = 0;
    }
}

/* ---- receiving PX ---- */

static int may_take_px(struct mero__gossip *g, struct mero__gpeer *p)
{
    return p->c->prio >= MERO_NET_PRIO_MEMBER ||
           mero__gs_score_of(g, p) >= g->sp.accept_px_threshold;
}

void mero__gs_take_px(struct mero__gossip *g, struct mero__gpeer *p, const char *topic,
                      const uint8_t *entry, size_t n)
{
    struct mero_net *net = g->net;
    struct mero_cur cur, pc;
    struct mero__pb_field f, h;
    struct mero__maddr cand[GS_PX_PEERS];
    size_t dialed = 0, records = 0;
    if (!may_take_px(g, p)) {
        return;
    }
    mero_cur_init(&cur, entry, n);
    while (records < GS_PX_PEERS && g->px_verifies < GS_PX_VERIFY_PER_BEAT &&
           mero__pb_next(&cur, &f) == 1) {
        const uint8_t *id = NULL, *spr = NULL;
        size_t id_n = 0, spr_n = 0;
        struct mero__spr r;
        if (f.num != 2 || f.wt != MERO__PB_LEN) {
            continue;
        }
        mero_cur_init(&pc, f.p, f.n);
        while (mero__pb_next(&pc, &h) == 1) {
            if (h.num == 1 && h.wt == MERO__PB_LEN) {
                id = h.p, id_n = h.n;
            } else if (h.num == 2 && h.wt == MERO__PB_LEN) {
                spr = h.p, spr_n = h.n;
            }
        }
        if (spr == NULL) {
            continue; /* a bare peer id tells us no address: nothing to dial */
        }
        g->px_verifies++;
        if (mero__spr_open(spr, spr_n, &r) < 0 || r.naddrs == 0) {
            continue;
        }
        uint8_t rid[MERO__PEER_ID_ED25519_LEN];
        mero__peer_id_bytes_from_pk(r.pk, rid);
        if ((id != NULL && (id_n != sizeof(rid) || memcmp(id, rid, sizeof(rid)) != 0)) ||
            strcmp(r.peer, net->id) == 0) {
            continue;
        }
        g->stats.px_records_accepted++;
        mero__book_add(net, &r.addrs[0]);
        cand[records++] = r.addrs[0];
    }
    /* a node that already has D peers on the topic keeps the addresses but dials none: PX is
     * for a node left with too few (turned away, trimmed), not for churning a healthy mesh */
    if (mero__gs_topic_peers(net, topic) >= GS_D) {
        return;
    }
    /* dial a random few: every peer turned away by one owner gets the same list, and the
     * first few of it would become the next hotspot */
    for (size_t i = records; i > 1; i--) {
        uint32_t x;
        mero_random(&x, sizeof(x));
        size_t k = x % i;
        struct mero__maddr tmp = cand[i - 1];
        cand[i - 1] = cand[k];
        cand[k] = tmp;
    }
    for (size_t i = 0; i < records; i++) {
        char addr[MERO_MULTIADDR_STR_MAX];
        if (dialed >= GS_PX_DIAL_MAX || g->px_dials >= GS_PX_DIALS_PER_BEAT ||
            mero__budget_dial(net) < 0) {
            break;
        }
        if (mero__conn_find(net, cand[i].peer) != NULL ||
            mero__maddr_format(&cand[i], 1, addr) < 0) {
            continue;
        }
        if (mero__dial(net, &cand[i], NULL, NULL) == 0) {
            dialed++;
            g->px_dials++;
            g->stats.px_dials++;
            MERO_DEBUG("net: peer exchange from %s: dialing %s", p->c->peer, addr);
        }
    }
    if (dialed > 0) {
        MERO_INFO("net: peer exchange from %s: %zu signed records, dialing %zu", p->c->peer,
                  records, dialed);
    }
}
