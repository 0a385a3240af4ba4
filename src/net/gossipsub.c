/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossipsub.c - the gossipsub v1.1 router (/meshsub/1.1.0, also accepting 1.0.0): per-peer
 * subscription tracking, a mesh per subscribed topic maintained by the heartbeat (GRAFT/PRUNE
 * with D=6, D_lo=4, D_hi=12 and a 60 s prune backoff), IHAVE/IWANT lazy gossip from a 5-window
 * message cache (3 windows gossiped), StrictSign validation and signing (message ids are the
 * js-libp2p ones: protobuf public key || seqno), a two-generation seen cache, flood publishing
 * of our own messages and forwarding of accepted messages to the mesh. This file handles what
 * arrives (streams, RPCs, messages, control) and a peer's arrival and departure; the state it
 * works on and the sending are gossip_mesh.c, a floor below it with gossip_px.c, so neither
 * calls back into this file.
 *
 * Invariants: a message is delivered to the application at most once per seen-cache lifetime
 * and only after its signature verified against the key in its `from` peer id; we forward only
 * messages the application accepted and never back to the peer it came from or its author;
 * every queue is bounded (RPC size, pending output per peer, caches), a peer exceeding one is
 * disconnected or its excess dropped.
 *
 * Peer scoring (issue 20, gossip_score.c; docs/network.md "Peer scoring"): a message with a bad
 * signature or one the application rejects (on_gossip < 0) counts against the peer that
 * delivered it (P4), a first delivery of an accepted one for it (P2); MERO_NET_IGNORE does
 * neither. A peer whose score is below the graylist threshold has its RPCs dropped unprocessed
 * (checked before decoding and again before each message of an RPC); below the gossip threshold
 * its IHAVE/IWANT are ignored; a GRAFT from a peer with a negative score is refused, and one
 * while backed off also costs a behaviour penalty (P7). Issue 33: a PRUNE's peer exchange (sent
 * only in the goodbye of gossip_px.c) is taken only above the accept-PX threshold or from a member.
 * A disconnected peer's score is retained.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/gossip_internal.h"
#include "net/protobuf_internal.h"

/* Room for the "libp2p-pubsub:" prefix ahead of a message's own bytes (mero__rpc_sign_bytes). */
#define SIGN_PREFIX_ROOM 32
#define GS_HELLO_MAX     (64u * 1024u) /* our subscriptions, sent when a stream opens */
/* an RPC's fields around its largest message, and its varint length prefix */
#define GS_RPC_SLACK (64u * 1024u + 10u)

/* ---- small helpers ---- */

static bool graylisted(struct mero__gossip *g, struct mero__gpeer *p)
{
    bool below = mero__gs_score_of(g, p) < g->sp.graylist_threshold;
    if (below != p->score.graylisted) {
        p->score.graylisted = below;
        if (below) {
            g->stats.graylistings++;
            MERO_INFO("net: gossip peer %s graylisted (score %.1f after %llu invalid messages): "
                      "its RPCs are dropped",
                      p->c->peer, mero__gs_score_of(g, p),
                      (unsigned long long)p->score.invalid_total);
        } else {
            MERO_INFO("net: gossip peer %s no longer graylisted (score %.1f)", p->c->peer,
                      mero__gs_score_of(g, p));
        }
    }
    return below;
}

void mero__gs_penalise(struct mero__gossip *g, struct mero__gpeer *p, const char *topic)
{
    mero__gs_score_invalid(&p->score, topic);
    g->stats.invalid_messages++;
    (void)graylisted(g, p);
}

/* Copy a wire topic into a C string; 0 or -MERO_EPROTO. */
static int topic_str(const uint8_t *p, size_t n, char out[MERO__TOPIC_MAX + 1])
{
    if (n == 0 || n > MERO__TOPIC_MAX || memchr(p, 0, n) != NULL) {
        return -MERO_EPROTO;
    }
    memcpy(out, p, n);
    out[n] = 0;
    return 0;
}

/* ---- sending ---- */

static int send_raw_msg(struct mero__gpeer *p, const uint8_t *raw, size_t n)
{
    struct mero_buf rpc;
    int rc;
    mero_buf_init(&rpc, n + 16);
    MERO_TRY_OUT(mero__rpc_put_msg(&rpc, raw, n));
    rc = mero__gs_send_rpc(p, &rpc);
out:
    mero_buf_cleanup(&rpc);
    return rc;
}

/* ---- streams ---- */

static void out_ev(struct mero__stream *s, int ev)
{
    struct mero__gpeer *p = s->c->gp;
    if (p == NULL || p->out != s) {
        return;
    }
    if (ev == MERO__SE_READY) {
        p->out_ready = 1;
        if (p->pend.len) {
            if (mero__stream_write(s, p->pend.data, p->pend.len) < 0) {
                return;
            }
            mero_buf_reset(&p->pend);
        }
    } else if (ev == MERO__SE_DATA) {
        mero__stream_consume(s, s->in_len);
    } else if (ev == MERO__SE_FAILED || ev == MERO__SE_CLOSED) {
        p->out = NULL;
        p->out_ready = 0;
        p->no_gossip = 1; /* the peer does not speak meshsub (or dropped our stream) */
        mero_buf_reset(&p->pend);
    }
}

static void handle_rpc(struct mero__gossip *g, struct mero__gpeer *p, const uint8_t *b, size_t n);

static void in_ev(struct mero__stream *s, int ev)
{
    struct mero__gpeer *p = s->c->gp;
    struct mero__gossip *g = s->c->net->gossip;
    if (p == NULL || g == NULL) {
        return;
    }
    if (ev != MERO__SE_DATA) {
        return;
    }
    if (mero_buf_append(&p->inbuf, s->in, s->in_len) < 0) {
        mero__conn_fail(s->c, MERO_ETOOBIG, "gossip RPC exceeds the size limit");
        return;
    }
    mero__stream_consume(s, s->in_len);
    size_t off = 0;
    struct mero__conn *c = s->c;
    while (c->state == MERO__C_UP && c->gp == p) {
        struct mero_cur cur;
        uint64_t len;
        const uint8_t *body;
        mero_cur_init(&cur, p->inbuf.data + off, p->inbuf.len - off);
        int rc = mero_cur_uvarint(&cur, &len);
        if (rc == -MERO_ETRUNC && cur.len < 10) {
            break;
        }
        if (rc < 0 || len > p->inbuf.max - 10) {
            mero__conn_fail(c, MERO_ETOOBIG, "gossip RPC frame too large or malformed");
            return;
        }
        if (mero_cur_bytes(&cur, (size_t)len, &body) < 0) {
            break;
        }
        off += cur.off;
        handle_rpc(g, p, body, (size_t)len);
    }
    if (c->state == MERO__C_UP && c->gp == p && off) {
        mero_buf_consume(&p->inbuf, off);
    }
}

void mero__gossip_stream_in(struct mero__stream *s)
{
    s->app = MERO__APP_GOSSIP_IN;
    s->ev = in_ev;
    s->ud = NULL;
}

/* ---- message handling ---- */

static void forward(struct mero__gossip *g, struct mero__gs_topic *t, struct mero__gpeer *src,
                    const uint8_t *from, size_t from_n, const uint8_t *raw, size_t rawn)
{
    (void)g;
    for (size_t i = 0; i < t->nmesh; i++) {
        struct mero__gpeer *q = t->mesh[i];
        uint8_t qid[MERO__PEER_ID_ED25519_LEN];
        if (q == src || !mero__gs_usable(q)) {
            continue;
        }
        mero__peer_id_bytes_from_pk(q->c->peer_pk, qid);
        if (from_n == sizeof(qid) && memcmp(qid, from, from_n) == 0) {
            continue;
        }
        (void)send_raw_msg(q, raw, rawn);
    }
}

static void handle_msg(struct mero__gossip *g, struct mero__gpeer *p, const struct mero__rpc_msg *m)
{
    char topic[MERO__TOPIC_MAX + 1], from_s[MERO_PEER_ID_STR_MAX];
    uint8_t pk[MERO_ED25519_PK_LEN], pb[MERO__PUBKEY_PB_LEN], id[MERO__MSGID_MAX];
    struct mero_buf sb;
    int ok;
    if (topic_str(m->topic, m->topic_n, topic) < 0 || m->from == NULL || m->seqno_n != 8 ||
        m->sig_n != MERO_ED25519_SIG_LEN || m->data_n > g->net->cfg.max_gossip_msg ||
        mero__peer_id_bytes_pk(m->from, m->from_n, pk) < 0) {
        MERO_DEBUG("net: gossip from %s: message fails StrictSign shape checks", p->c->peer);
        return;
    }
    mero__pubkey_pb(pk, pb);
    if (m->key && (m->key_n != sizeof(pb) || memcmp(m->key, pb, sizeof(pb)) != 0)) {
        MERO_DEBUG("net: gossip from %s: key field differs from the author id", p->c->peer);
        return;
    }
    memcpy(id, pb, sizeof(pb));
    memcpy(id + sizeof(pb), m->seqno, 8);
    if (mero__gs_seen_check_add(g, id, sizeof(pb) + 8, 0)) {
        return;
    }
    if (mero__gs_topic_find(g, topic) == NULL) {
        return; /* not subscribed: not delivered, not forwarded, so not worth a signature check */
    }
    if (mero__peer_id_str_from_bytes(m->from, m->from_n, from_s) < 0) {
        return;
    }
    if (g->net->cb.gossip_noop &&
        g->net->cb.gossip_noop(g->net->ud, topic, from_s, m->data ? m->data : pb, m->data_n)) {
        g->stats.unverified_ignored++; /* nothing would come of it, genuine or not */
        return;
    }
    mero_buf_init(&sb, m->rawlen + SIGN_PREFIX_ROOM);
    ok = mero__rpc_sign_bytes(m, &sb) == 0 && mero_ed25519_verify(m->sig, sb.data, sb.len, pk) == 0;
    mero_buf_cleanup(&sb);
    if (!ok) {
        MERO_INFO("net: gossip from %s: bad message signature, dropped", p->c->peer);
        mero__gs_penalise(g, p, topic);
        return;
    }
    (void)mero__gs_seen_check_add(g, id, sizeof(pb) + 8, 1);
    struct mero__conn *c = p->c;
    int verdict = 0;
    g->stats.delivered++;
    if (g->net->cb.on_gossip) {
        verdict =
            g->net->cb.on_gossip(g->net->ud, topic, from_s, m->data ? m->data : pb, m->data_n);
    }
    if (c->state != MERO__C_UP || c->gp != p || g->net->freeing) {
        return;
    }
    if (verdict < 0) {
        mero__gs_penalise(g, p, topic); /* rejected: invalid (P4) */
        return;
    }
    if (verdict != 0) {
        return; /* MERO_NET_IGNORE: not forwarded, no penalty */
    }
    mero__gs_score_first(&g->sp, &p->score, topic); /* P2 (and P3 in the mesh) */
    struct mero__gs_topic *t =
        mero__gs_topic_find(g, topic); /* the callback may have unsubscribed */
    mero__gs_mc_put(g, id, sizeof(pb) + 8, topic, m->raw, m->rawlen);
    if (t) {
        forward(g, t, p, m->from, m->from_n, m->raw, m->rawlen);
    }
}

static void peer_topic_set(struct mero__gossip *g, struct mero__gpeer *p, const char *t, int sub)
{
    for (size_t i = 0; i < p->ntopics; i++) {
        if (strcmp(p->topics[i], t) == 0) {
            if (!sub) {
                free(p->topics[i]);
                p->topics[i] = p->topics[--p->ntopics];
                struct mero__gs_topic *x = mero__gs_topic_find(g, t);
                if (x) {
                    mero__gs_mesh_drop(g, x, p);
                }
            }
            return;
        }
    }
    if (!sub || p->ntopics >= GS_PEER_TOPICS_MAX) {
        return;
    }
    char **nt = realloc(p->topics, (p->ntopics + 1) * sizeof(*nt));
    if (nt == NULL) {
        return;
    }
    p->topics = nt;
    p->topics[p->ntopics] = strdup(t);
    if (p->topics[p->ntopics]) {
        p->ntopics++;
    }
}

static void handle_ctrl(struct mero__gossip *g, struct mero__gpeer *p,
                        const struct mero__rpc_ctrl *e, struct mero_buf *iwant, size_t *nwant)
{
    char topic[MERO__TOPIC_MAX + 1];
    uint64_t now = uv_now(g->net->loop);
    struct mero_cur cur;
    const uint8_t *id;
    size_t idn;
    if (e->kind != 2 && topic_str(e->topic, e->tlen, topic) < 0) {
        return;
    }
    struct mero__gs_topic *t = e->kind != 2 ? mero__gs_topic_find(g, topic) : NULL;
    if ((e->kind == 1 || e->kind == 2) && mero__gs_score_of(g, p) < g->sp.gossip_threshold) {
        return; /* below the gossip threshold: its IHAVE / IWANT are ignored */
    }
    switch (e->kind) {
    case 1: /* IHAVE */
        if (t == NULL) {
            return;
        }
        mero_cur_init(&cur, e->ids, e->ids_n);
        while (*nwant < GS_IWANT_MAX_IDS && mero__rpc_next_id(&cur, 2, &id, &idn) == 1) {
            if (!mero__gs_seen_check_add(g, id, idn, 0) &&
                mero__pb_put_bytes(iwant, 1, id, idn) == 0) {
                (*nwant)++;
            }
        }
        break;
    case 2: /* IWANT */
        mero_cur_init(&cur, e->ids, e->ids_n);
        for (size_t k = 0; k < GS_IWANT_MAX_IDS && mero__rpc_next_id(&cur, 1, &id, &idn) == 1;
             k++) {
            const struct mero__gs_mc_entry *me = mero__gs_mc_get(g, id, idn);
            if (me && send_raw_msg(p, me->raw, me->rawn) < 0) {
                return;
            }
        }
        break;
    case 3: /* GRAFT */
        if (t != NULL && mero__gs_backed_off(p, topic, now)) {
            mero__gs_score_behaviour(&p->score, 1); /* GRAFT while backed off: P7 */
        }
        if (t == NULL || mero__gs_backed_off(p, topic, now) || mero__gs_score_of(g, p) < 0) {
            mero__gs_send_graft_prune(p, topic, 0);
            return;
        }
        mero__gs_mesh_add(g, t, p);
        break;
    case 4: /* PRUNE, with peer exchange (issue 33, gossip_px.c) on a topic of ours */
        if (t) {
            mero__gs_mesh_drop(g, t, p);
            mero__gs_take_px(g, p, topic, e->ids, e->ids_n);
        }
        mero__gs_set_backoff(p, topic, now + (e->backoff ? e->backoff * 1000 : GS_BACKOFF_MS));
        p->pruned_at = now;
        break;
    default:
        break;
    }
}

static void handle_rpc(struct mero__gossip *g, struct mero__gpeer *p, const uint8_t *b, size_t n)
{
    struct mero__rpc *rpc = g->rpc;
    struct mero__conn *c = p->c;
    char topic[MERO__TOPIC_MAX + 1];
    if (graylisted(g, p)) {
        g->stats.graylisted_rpcs++; /* dropped without processing, not even decoded */
        return;
    }
    if (mero__rpc_decode(b, n, rpc) < 0) {
        mero__conn_fail(c, MERO_EPROTO, "malformed gossipsub RPC");
        return;
    }
    for (size_t i = 0; i < rpc->nsubs; i++) {
        if (topic_str(rpc->subs[i].topic, rpc->subs[i].tlen, topic) == 0) {
            peer_topic_set(g, p, topic, rpc->subs[i].subscribe);
        }
    }
    /* the application callback may re-enter (publish, subscribe): copy the views first */
    size_t nmsgs = rpc->nmsgs, nctrl = rpc->nctrl;
    struct mero__rpc_msg *msgs = NULL;
    struct mero__rpc_ctrl *ctrl = NULL;
    if (nmsgs) {
        msgs = malloc(nmsgs * sizeof(*msgs));
    }
    if (nctrl) {
        ctrl = malloc(nctrl * sizeof(*ctrl));
    }
    if ((nmsgs && !msgs) || (nctrl && !ctrl)) {
        free(msgs);
        free(ctrl);
        return;
    }
    if (nmsgs) {
        memcpy(msgs, rpc->msgs, nmsgs * sizeof(*msgs));
    }
    if (nctrl) {
        memcpy(ctrl, rpc->ctrl, nctrl * sizeof(*ctrl));
    }
    for (size_t i = 0; i < nmsgs && c->state == MERO__C_UP && c->gp == p; i++) {
        if (graylisted(g, p)) {
            g->stats.graylisted_rpcs++; /* the rest of this RPC is dropped */
            break;
        }
        handle_msg(g, p, &msgs[i]);
    }
    struct mero_buf iwant;
    size_t nwant = 0;
    mero_buf_init(&iwant, GS_IWANT_MAX_IDS * (MERO__MSGID_MAX + 4));
    for (size_t i = 0; i < nctrl && c->state == MERO__C_UP && c->gp == p; i++) {
        handle_ctrl(g, p, &ctrl[i], &iwant, &nwant);
    }
    if (nwant && c->state == MERO__C_UP && c->gp == p) {
        struct mero_buf ctl;
        mero_buf_init(&ctl, iwant.len + 16);
        if (mero__rpc_ctrl_iwant(&ctl, &iwant) == 0) {
            mero__gs_send_control(p, &ctl);
        }
        mero_buf_cleanup(&ctl);
    }
    mero_buf_cleanup(&iwant);
    free(msgs);
    free(ctrl);
}

/* ---- peers ---- */

void mero__gossip_peer_up(struct mero__conn *c)
{
    struct mero__gossip *g = c->net->gossip;
    struct mero__gpeer *p;
    struct mero_buf hello;
    if (g == NULL || c->gp) {
        return;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return;
    }
    p->c = c;
    uint64_t now = uv_now(c->net->loop);
    for (size_t i = 0; i < GS_RETAIN_MAX; i++) {
        struct mero__gs_retained *r = &g->retained[i];
        if (r->until > now && memcmp(r->pk, c->peer_pk, sizeof(r->pk)) == 0) {
            p->score = r->score; /* reconnecting does not reset a score */
            memset(r, 0, sizeof(*r));
        }
    }
    if (!mero__gs_score_ip_exempt(&c->raddr)) {
        p->score.ip_peers = 1;
    }
    mero_buf_init(&p->pend, c->net->cfg.max_write_queue);
    mero_buf_init(&p->inbuf, (size_t)c->net->cfg.max_gossip_msg + GS_RPC_SLACK);
    c->gp = p;
    p->out = mero__yamux_open(c, MERO__MESHSUB_11, MERO__APP_GOSSIP_OUT, out_ev, NULL);
    if (p->out == NULL) {
        p->no_gossip = 1;
        return;
    }
    mero_buf_init(&hello, GS_HELLO_MAX);
    int rc = 0;
    for (struct mero__gs_topic *t = g->topics; t; t = t->next) {
        MERO_TRY_OUT(mero__rpc_put_sub(&hello, 1, t->name));
    }
    if (hello.len) {
        (void)mero__gs_send_rpc(p, &hello);
    }
out:
    mero_buf_cleanup(&hello);
}

void mero__gossip_peer_down(struct mero__conn *c)
{
    struct mero__gossip *g = c->net->gossip;
    struct mero__gpeer *p = c->gp;
    if (p == NULL) {
        return;
    }
    c->gp = NULL;
    if (g) {
        uint64_t now = uv_now(c->net->loop);
        for (struct mero__gs_topic *t = g->topics; t; t = t->next) {
            mero__gs_mesh_drop(g, t, p);
        }
        /* retain the score (the oldest retained one makes room) */
        struct mero__gs_retained *r = &g->retained[0];
        for (size_t i = 0; i < GS_RETAIN_MAX; i++) {
            if (g->retained[i].until < r->until) {
                r = &g->retained[i];
            }
        }
        memcpy(r->pk, c->peer_pk, sizeof(r->pk));
        r->until = now + g->sp.retain_ms;
        r->score = p->score;
        r->score.graylisted = false;
        r->turned_away_at = p->pruned_at != 0 && now - p->pruned_at <= GS_AWAY_WINDOW_MS ? now : 0;
    }
    for (size_t i = 0; i < p->ntopics; i++) {
        free(p->topics[i]);
    }
    free(p->topics);
    mero_buf_cleanup(&p->pend);
    mero_buf_cleanup(&p->inbuf);
    free(p);
}
