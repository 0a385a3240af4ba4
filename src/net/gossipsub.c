/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossipsub.c - the gossipsub v1.1 router (/meshsub/1.1.0, also accepting 1.0.0): per-peer
 * subscription tracking, a mesh per subscribed topic maintained by the heartbeat (GRAFT/PRUNE
 * with D=6, D_lo=4, D_hi=12 and a 60 s prune backoff), IHAVE/IWANT lazy gossip from a 5-window
 * message cache (3 windows gossiped), StrictSign validation and signing (message ids are the
 * js-libp2p ones: protobuf public key || seqno), a two-generation seen cache, flood publishing
 * of our own messages and forwarding of accepted messages to the mesh.
 *
 * Invariants: a message is delivered to the application at most once per seen-cache lifetime
 * and only after its signature verified against the key in its `from` peer id; we forward only
 * messages the application accepted and never back to the peer it came from or its author;
 * every queue is bounded (RPC size, pending output per peer, caches), a peer exceeding one is
 * disconnected or its excess dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/net_internal.h"

#define D 6
#define D_LO 4
#define D_HI 12
#define D_LAZY 6
#define MESH_MAX 32
#define PEER_TOPICS_MAX 1024
#define BACKOFF_MS 60000
#define BACKOFF_MAX 64
#define MCACHE_LEN 5
#define MCACHE_GOSSIP 3
#define MCACHE_PER_WIN 4096
#define SEEN_SLOTS 65536 /* per generation, power of two */
#define SEEN_KEY 16
#define IHAVE_MAX_IDS 5000
#define IWANT_MAX_IDS 500

struct gtopic {
    struct gtopic *next;
    char name[MERO__TOPIC_MAX + 1];
    struct mero__gpeer *mesh[MESH_MAX];
    size_t nmesh;
};

struct backoff {
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
    struct backoff bo[BACKOFF_MAX];
    size_t nbo;
};

struct mc_entry {
    uint8_t id[MERO__MSGID_MAX];
    size_t idn;
    char topic[MERO__TOPIC_MAX + 1];
    uint8_t *raw;
    size_t rawn;
};

struct seen_gen {
    uint8_t (*keys)[SEEN_KEY];
    uint8_t *used;
    size_t count;
};

struct mero__gossip {
    struct mero_net *net;
    struct gtopic *topics; /* subscribed */
    struct mc_entry *mc[MCACHE_LEN];
    size_t mcn[MCACHE_LEN];
    struct seen_gen seen[2];
    uint64_t seen_rotated;
    uint64_t seqno;
    struct mero__rpc *rpc; /* decode scratch */
};

/* ---- small helpers ---- */

static struct gtopic *topic_find(struct mero__gossip *g, const char *t)
{
    for (struct gtopic *x = g->topics; x; x = x->next) {
        if (strcmp(x->name, t) == 0) {
            return x;
        }
    }
    return NULL;
}

static int peer_has_topic(const struct mero__gpeer *p, const char *t)
{
    for (size_t i = 0; i < p->ntopics; i++) {
        if (strcmp(p->topics[i], t) == 0) {
            return 1;
        }
    }
    return 0;
}

static int in_mesh(const struct gtopic *t, const struct mero__gpeer *p)
{
    for (size_t i = 0; i < t->nmesh; i++) {
        if (t->mesh[i] == p) {
            return 1;
        }
    }
    return 0;
}

static void mesh_remove(struct gtopic *t, const struct mero__gpeer *p)
{
    for (size_t i = 0; i < t->nmesh; i++) {
        if (t->mesh[i] == p) {
            t->mesh[i] = t->mesh[--t->nmesh];
            return;
        }
    }
}

static int usable(const struct mero__gpeer *p)
{
    return p && !p->no_gossip && p->c->state == MERO__C_UP;
}

static int backed_off(const struct mero__gpeer *p, const char *t, uint64_t now)
{
    for (size_t i = 0; i < p->nbo; i++) {
        if (strcmp(p->bo[i].topic, t) == 0 && p->bo[i].until > now) {
            return 1;
        }
    }
    return 0;
}

static void set_backoff(struct mero__gpeer *p, const char *t, uint64_t until)
{
    size_t i;
    for (i = 0; i < p->nbo; i++) {
        if (strcmp(p->bo[i].topic, t) == 0) {
            break;
        }
    }
    if (i == p->nbo) {
        if (p->nbo == BACKOFF_MAX) {
            i = 0; /* overwrite the first: bounded, and backoff is advisory */
        } else {
            p->nbo++;
        }
    }
    snprintf(p->bo[i].topic, sizeof(p->bo[i].topic), "%s", t);
    p->bo[i].until = until;
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

static void for_each_peer(struct mero__gossip *g, void (*fn)(struct mero__gpeer *, void *),
                          void *ud)
{
    for (struct mero__conn *c = g->net->conns; c; c = c->next) {
        if (c->gp && c->state == MERO__C_UP) {
            fn(c->gp, ud);
        }
    }
}

/* ---- seen cache ---- */

static void seen_key(const uint8_t *id, size_t n, uint8_t key[SEEN_KEY])
{
    uint8_t h[32];
    mero_sha256(h, id, n);
    memcpy(key, h, SEEN_KEY);
}

static int seen_in(const struct seen_gen *s, const uint8_t key[SEEN_KEY], size_t *slot)
{
    size_t i = ((size_t)key[0] | ((size_t)key[1] << 8)) & (SEEN_SLOTS - 1);
    for (size_t k = 0; k < SEEN_SLOTS; k++, i = (i + 1) & (SEEN_SLOTS - 1)) {
        if (!s->used[i]) {
            *slot = i;
            return 0;
        }
        if (memcmp(s->keys[i], key, SEEN_KEY) == 0) {
            *slot = i;
            return 1;
        }
    }
    *slot = SEEN_SLOTS;
    return 0;
}

static void seen_rotate(struct mero__gossip *g, uint64_t now)
{
    struct seen_gen t = g->seen[1];
    g->seen[1] = g->seen[0];
    g->seen[0] = t;
    memset(g->seen[0].used, 0, SEEN_SLOTS);
    g->seen[0].count = 0;
    g->seen_rotated = now;
}

static int seen_check_add(struct mero__gossip *g, const uint8_t *id, size_t n, int add)
{
    uint8_t key[SEEN_KEY];
    size_t slot;
    seen_key(id, n, key);
    if (seen_in(&g->seen[0], key, &slot) || seen_in(&g->seen[1], key, &slot)) {
        return 1;
    }
    if (!add) {
        return 0;
    }
    if (g->seen[0].count >= SEEN_SLOTS / 2) {
        seen_rotate(g, uv_now(g->net->loop));
    }
    (void)seen_in(&g->seen[0], key, &slot);
    if (slot < SEEN_SLOTS) {
        memcpy(g->seen[0].keys[slot], key, SEEN_KEY);
        g->seen[0].used[slot] = 1;
        g->seen[0].count++;
    }
    return 0;
}

/* ---- message cache ---- */

static void mc_put(struct mero__gossip *g, const uint8_t *id, size_t idn, const char *topic,
                   const uint8_t *raw, size_t rawn)
{
    struct mc_entry *e;
    if (g->mcn[0] >= MCACHE_PER_WIN || idn > MERO__MSGID_MAX) {
        return;
    }
    e = &g->mc[0][g->mcn[0]];
    e->raw = malloc(rawn);
    if (e->raw == NULL) {
        return;
    }
    memcpy(e->raw, raw, rawn);
    e->rawn = rawn;
    memcpy(e->id, id, idn);
    e->idn = idn;
    snprintf(e->topic, sizeof(e->topic), "%s", topic);
    g->mcn[0]++;
}

static const struct mc_entry *mc_get(struct mero__gossip *g, const uint8_t *id, size_t idn)
{
    for (size_t w = 0; w < MCACHE_LEN; w++) {
        for (size_t i = 0; i < g->mcn[w]; i++) {
            if (g->mc[w][i].idn == idn && memcmp(g->mc[w][i].id, id, idn) == 0) {
                return &g->mc[w][i];
            }
        }
    }
    return NULL;
}

static void mc_shift(struct mero__gossip *g)
{
    struct mc_entry *last = g->mc[MCACHE_LEN - 1];
    for (size_t i = 0; i < g->mcn[MCACHE_LEN - 1]; i++) {
        free(last[i].raw);
    }
    memmove(&g->mc[1], &g->mc[0], sizeof(g->mc[0]) * (MCACHE_LEN - 1));
    memmove(&g->mcn[1], &g->mcn[0], sizeof(g->mcn[0]) * (MCACHE_LEN - 1));
    g->mc[0] = last;
    g->mcn[0] = 0;
}

/* ---- sending ---- */

static int send_rpc(struct mero__gpeer *p, const struct mero_buf *rpc)
{
    uint8_t hdr[10];
    size_t hn = 0;
    uint64_t v = rpc->len;
    if (!usable(p)) {
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

static void send_control(struct mero__gpeer *p, const struct mero_buf *ctl)
{
    struct mero_buf rpc;
    mero_buf_init(&rpc, ctl->len + 16);
    if (mero__rpc_put_control(&rpc, ctl) == 0) {
        (void)send_rpc(p, &rpc);
    }
    mero_buf_cleanup(&rpc);
}

static void send_graft_prune(struct mero__gpeer *p, const char *topic, int graft)
{
    struct mero_buf ctl;
    int rc;
    mero_buf_init(&ctl, 512);
    rc = graft ? mero__rpc_ctrl_graft(&ctl, topic)
               : mero__rpc_ctrl_prune(&ctl, topic, BACKOFF_MS / 1000);
    if (rc == 0) {
        send_control(p, &ctl);
    }
    mero_buf_cleanup(&ctl);
}

static int send_raw_msg(struct mero__gpeer *p, const uint8_t *raw, size_t n)
{
    struct mero_buf rpc;
    int rc;
    mero_buf_init(&rpc, n + 16);
    rc = mero__rpc_put_msg(&rpc, raw, n);
    rc = rc < 0 ? rc : send_rpc(p, &rpc);
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
        mero__stream_consume(s, s->rx.len);
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
    if (mero_buf_append(&p->inbuf, s->rx.data, s->rx.len) < 0) {
        mero__conn_fail(s->c, MERO_ETOOBIG, "gossip RPC exceeds the size limit");
        return;
    }
    mero__stream_consume(s, s->rx.len);
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
        memmove(p->inbuf.data, p->inbuf.data + off, p->inbuf.len - off);
        p->inbuf.len -= off;
    }
}

void mero__gossip_stream_in(struct mero__stream *s)
{
    s->app = MERO__APP_GOSSIP_IN;
    s->ev = in_ev;
    s->ud = NULL;
}

/* ---- message handling ---- */

static void forward(struct mero__gossip *g, struct gtopic *t, struct mero__gpeer *src,
                    const uint8_t *from, size_t from_n, const uint8_t *raw, size_t rawn)
{
    (void)g;
    for (size_t i = 0; i < t->nmesh; i++) {
        struct mero__gpeer *q = t->mesh[i];
        uint8_t qid[MERO__PEER_ID_ED25519_LEN];
        if (q == src || !usable(q)) {
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
    uint8_t pk[32], pb[MERO__PUBKEY_PB_LEN], id[MERO__MSGID_MAX];
    struct mero_buf sb;
    int ok;
    if (topic_str(m->topic, m->topic_n, topic) < 0 || m->from == NULL || m->seqno_n != 8 ||
        m->sig_n != 64 || m->data_n > g->net->cfg.max_gossip_msg ||
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
    if (seen_check_add(g, id, sizeof(pb) + 8, 0)) {
        return;
    }
    mero_buf_init(&sb, m->rawlen + 32);
    ok = mero__rpc_sign_bytes(m, &sb) == 0 && mero_ed25519_verify(m->sig, sb.data, sb.len, pk) == 0;
    mero_buf_cleanup(&sb);
    if (!ok) {
        MERO_INFO("net: gossip from %s: bad message signature, dropped", p->c->peer);
        return;
    }
    (void)seen_check_add(g, id, sizeof(pb) + 8, 1);
    struct gtopic *t = topic_find(g, topic);
    if (t == NULL) {
        return; /* not subscribed: not delivered, not forwarded */
    }
    if (mero__peer_id_str_from_bytes(m->from, m->from_n, from_s) < 0) {
        return;
    }
    struct mero__conn *c = p->c;
    int verdict = 0;
    if (g->net->cb.on_gossip) {
        verdict = g->net->cb.on_gossip(g->net->ud, topic, from_s, m->data ? m->data : pb,
                                       m->data_n);
    }
    if (verdict < 0 || c->state != MERO__C_UP || c->gp != p || g->net->freeing) {
        return;
    }
    t = topic_find(g, topic); /* the callback may have unsubscribed */
    mc_put(g, id, sizeof(pb) + 8, topic, m->raw, m->rawlen);
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
                struct gtopic *x = topic_find(g, t);
                if (x) {
                    mesh_remove(x, p);
                }
            }
            return;
        }
    }
    if (!sub || p->ntopics >= PEER_TOPICS_MAX) {
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
    struct gtopic *t = e->kind != 2 ? topic_find(g, topic) : NULL;
    switch (e->kind) {
    case 1: /* IHAVE */
        if (t == NULL) {
            return;
        }
        mero_cur_init(&cur, e->ids, e->ids_n);
        while (*nwant < IWANT_MAX_IDS && mero__rpc_next_id(&cur, 2, &id, &idn) == 1) {
            if (!seen_check_add(g, id, idn, 0) && mero__pb_put_bytes(iwant, 1, id, idn) == 0) {
                (*nwant)++;
            }
        }
        break;
    case 2: /* IWANT */
        mero_cur_init(&cur, e->ids, e->ids_n);
        for (size_t k = 0; k < IWANT_MAX_IDS && mero__rpc_next_id(&cur, 1, &id, &idn) == 1; k++) {
            const struct mc_entry *me = mc_get(g, id, idn);
            if (me && send_raw_msg(p, me->raw, me->rawn) < 0) {
                return;
            }
        }
        break;
    case 3: /* GRAFT */
        if (t == NULL || backed_off(p, topic, now)) {
            send_graft_prune(p, topic, 0);
            return;
        }
        if (!in_mesh(t, p) && t->nmesh < MESH_MAX) {
            t->mesh[t->nmesh++] = p;
        }
        break;
    case 4: /* PRUNE */
        if (t) {
            mesh_remove(t, p);
        }
        set_backoff(p, topic, now + (e->backoff ? e->backoff * 1000 : BACKOFF_MS));
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
        handle_msg(g, p, &msgs[i]);
    }
    struct mero_buf iwant;
    size_t nwant = 0;
    mero_buf_init(&iwant, IWANT_MAX_IDS * (MERO__MSGID_MAX + 4));
    for (size_t i = 0; i < nctrl && c->state == MERO__C_UP && c->gp == p; i++) {
        handle_ctrl(g, p, &ctrl[i], &iwant, &nwant);
    }
    if (nwant && c->state == MERO__C_UP && c->gp == p) {
        struct mero_buf ctl;
        mero_buf_init(&ctl, iwant.len + 16);
        if (mero__rpc_ctrl_iwant(&ctl, &iwant) == 0) {
            send_control(p, &ctl);
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
    mero_buf_init(&p->pend, c->net->cfg.max_write_queue);
    mero_buf_init(&p->inbuf, (size_t)c->net->cfg.max_gossip_msg + 64 * 1024 + 10);
    c->gp = p;
    p->out = mero__yamux_open(c, MERO__MESHSUB_11, MERO__APP_GOSSIP_OUT, out_ev, NULL);
    if (p->out == NULL) {
        p->no_gossip = 1;
        return;
    }
    mero_buf_init(&hello, 64 * 1024);
    int rc = 0;
    for (struct gtopic *t = g->topics; t && rc == 0; t = t->next) {
        rc = mero__rpc_put_sub(&hello, 1, t->name);
    }
    if (rc == 0 && hello.len) {
        (void)send_rpc(p, &hello);
    }
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
        for (struct gtopic *t = g->topics; t; t = t->next) {
            mesh_remove(t, p);
        }
    }
    for (size_t i = 0; i < p->ntopics; i++) {
        free(p->topics[i]);
    }
    free(p->topics);
    mero_buf_cleanup(&p->pend);
    mero_buf_cleanup(&p->inbuf);
    free(p);
}

/* ---- public operations ---- */

struct bcast {
    const struct mero_buf *rpc;
};

static void send_sub_to(struct mero__gpeer *p, void *ud)
{
    struct bcast *b = ud;
    (void)send_rpc(p, b->rpc);
}

static int announce(struct mero__gossip *g, const char *topic, int sub)
{
    struct mero_buf rpc;
    struct bcast b = {&rpc};
    mero_buf_init(&rpc, MERO__TOPIC_MAX + 32);
    int rc = mero__rpc_put_sub(&rpc, sub, topic);
    if (rc == 0) {
        for_each_peer(g, send_sub_to, &b);
    }
    mero_buf_cleanup(&rpc);
    return rc;
}

static void join(struct mero__gossip *g, struct gtopic *t)
{
    uint64_t now = uv_now(g->net->loop);
    for (struct mero__conn *c = g->net->conns; c && t->nmesh < D; c = c->next) {
        struct mero__gpeer *p = c->gp;
        if (usable(p) && peer_has_topic(p, t->name) && !in_mesh(t, p) &&
            !backed_off(p, t->name, now)) {
            t->mesh[t->nmesh++] = p;
            send_graft_prune(p, t->name, 1);
        }
    }
}

int mero_net_subscribe(struct mero_net *net, const char *topic)
{
    struct mero__gossip *g = net->gossip;
    struct gtopic *t;
    size_t n = topic ? strlen(topic) : 0;
    if (n == 0 || n > MERO__TOPIC_MAX || g == NULL) {
        return -MERO_EINVAL;
    }
    if (topic_find(g, topic)) {
        return 0;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(t->name, topic, n + 1);
    t->next = g->topics;
    g->topics = t;
    MERO_TRY(announce(g, topic, 1));
    join(g, t);
    return 0;
}

int mero_net_unsubscribe(struct mero_net *net, const char *topic)
{
    struct mero__gossip *g = net->gossip;
    struct gtopic **pp;
    if (topic == NULL || g == NULL) {
        return -MERO_EINVAL;
    }
    for (pp = &g->topics; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, topic) == 0) {
            struct gtopic *t = *pp;
            *pp = t->next;
            for (size_t i = 0; i < t->nmesh; i++) {
                if (usable(t->mesh[i])) {
                    send_graft_prune(t->mesh[i], t->name, 0);
                }
            }
            free(t);
            return announce(g, topic, 0);
        }
    }
    return 0;
}

size_t mero_net_topic_peers(const struct mero_net *net, const char *topic)
{
    size_t n = 0;
    for (const struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->state == MERO__C_UP && usable(c->gp) && peer_has_topic(c->gp, topic)) {
            n++;
        }
    }
    return n;
}

int mero_net_publish(struct mero_net *net, const char *topic, const uint8_t *data, size_t len)
{
    struct mero__gossip *g = net->gossip;
    struct mero_buf msg, rpc;
    uint8_t seq[8], id[MERO__MSGID_MAX];
    int rc, sent = 0;
    size_t tn = topic ? strlen(topic) : 0;
    if (g == NULL || tn == 0 || tn > MERO__TOPIC_MAX || (data == NULL && len)) {
        return -MERO_EINVAL;
    }
    if (len > net->cfg.max_gossip_msg) {
        return -MERO_ETOOBIG;
    }
    g->seqno++;
    for (int i = 0; i < 8; i++) {
        seq[i] = (uint8_t)(g->seqno >> (56 - 8 * i));
    }
    mero_buf_init(&msg, len + tn + 256);
    mero_buf_init(&rpc, len + tn + 300);
    rc = mero__rpc_msg_build(&msg, net->id_sk, net->id_bytes, sizeof(net->id_bytes), data, len,
                             seq, topic);
    rc = rc < 0 ? rc : mero__rpc_put_msg(&rpc, msg.data, msg.len);
    if (rc == 0) {
        mero__pubkey_pb(net->id_pk, id);
        memcpy(id + MERO__PUBKEY_PB_LEN, seq, 8);
        (void)seen_check_add(g, id, MERO__PUBKEY_PB_LEN + 8, 1);
        mc_put(g, id, MERO__PUBKEY_PB_LEN + 8, topic, msg.data, msg.len);
        /* flood publishing: every connected peer subscribed to the topic */
        for (struct mero__conn *c = net->conns; c; c = c->next) {
            if (c->state == MERO__C_UP && usable(c->gp) && peer_has_topic(c->gp, topic) &&
                send_rpc(c->gp, &rpc) == 0) {
                sent++;
            }
        }
    }
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&rpc);
    if (rc < 0) {
        return rc;
    }
    return sent > 0 ? sent : -MERO_ENOPEERS;
}

/* ---- heartbeat ---- */

static void emit_gossip(struct mero__gossip *g, struct gtopic *t)
{
    struct mero_buf ids, ctl;
    size_t nid = 0, sent = 0;
    mero_buf_init(&ids, IHAVE_MAX_IDS * (MERO__MSGID_MAX + 4));
    for (size_t w = 0; w < MCACHE_GOSSIP; w++) {
        for (size_t i = 0; i < g->mcn[w] && nid < IHAVE_MAX_IDS; i++) {
            const struct mc_entry *e = &g->mc[w][i];
            if (strcmp(e->topic, t->name) == 0 &&
                mero__pb_put_bytes(&ids, 2, e->id, e->idn) == 0) {
                nid++;
            }
        }
    }
    if (nid) {
        mero_buf_init(&ctl, ids.len + 400);
        if (mero__rpc_ctrl_ihave(&ctl, t->name, &ids) == 0) {
            for (struct mero__conn *c = g->net->conns; c && sent < D_LAZY; c = c->next) {
                struct mero__gpeer *p = c->gp;
                if (c->state == MERO__C_UP && usable(p) && peer_has_topic(p, t->name) &&
                    !in_mesh(t, p)) {
                    send_control(p, &ctl);
                    sent++;
                }
            }
        }
        mero_buf_cleanup(&ctl);
    }
    mero_buf_cleanup(&ids);
}

void mero__gossip_heartbeat(struct mero__gossip *g)
{
    uint64_t now;
    if (g == NULL) {
        return;
    }
    now = uv_now(g->net->loop);
    for (struct gtopic *t = g->topics; t; t = t->next) {
        for (size_t i = 0; i < t->nmesh;) {
            struct mero__gpeer *p = t->mesh[i];
            if (!usable(p) || !peer_has_topic(p, t->name)) {
                t->mesh[i] = t->mesh[--t->nmesh];
            } else {
                i++;
            }
        }
        if (t->nmesh < D_LO) {
            join(g, t);
        }
        while (t->nmesh > D_HI) {
            uint32_t r;
            mero_random(&r, sizeof(r));
            struct mero__gpeer *p = t->mesh[r % t->nmesh];
            mesh_remove(t, p);
            set_backoff(p, t->name, now + BACKOFF_MS);
            send_graft_prune(p, t->name, 0);
            if (t->nmesh <= D) {
                break;
            }
        }
        emit_gossip(g, t);
    }
    mc_shift(g);
    if (now - g->seen_rotated >= g->net->cfg.seen_ttl_ms / 2) {
        seen_rotate(g, now);
    }
}

int mero__gossip_new(struct mero_net *net, struct mero__gossip **out)
{
    struct mero__gossip *g = calloc(1, sizeof(*g));
    int ok = g != NULL;
    if (ok) {
        g->net = net;
        g->rpc = malloc(sizeof(*g->rpc));
        ok = g->rpc != NULL;
        for (int i = 0; ok && i < 2; i++) {
            g->seen[i].keys = calloc(SEEN_SLOTS, SEEN_KEY);
            g->seen[i].used = calloc(SEEN_SLOTS, 1);
            ok = g->seen[i].keys && g->seen[i].used;
        }
        for (int i = 0; ok && i < MCACHE_LEN; i++) {
            g->mc[i] = calloc(MCACHE_PER_WIN, sizeof(struct mc_entry));
            ok = g->mc[i] != NULL;
        }
    }
    if (!ok) {
        mero__gossip_free(g);
        return -MERO_ENOMEM;
    }
    mero_random(&g->seqno, sizeof(g->seqno));
    g->seqno >>= 1;
    *out = g;
    return 0;
}

void mero__gossip_free(struct mero__gossip *g)
{
    if (g == NULL) {
        return;
    }
    while (g->topics) {
        struct gtopic *t = g->topics;
        g->topics = t->next;
        free(t);
    }
    for (int i = 0; i < MCACHE_LEN; i++) {
        if (g->mc[i]) {
            for (size_t k = 0; k < g->mcn[i]; k++) {
                free(g->mc[i][k].raw);
            }
            free(g->mc[i]);
        }
    }
    for (int i = 0; i < 2; i++) {
        free(g->seen[i].keys);
        free(g->seen[i].used);
    }
    free(g->rpc);
    free(g);
}
