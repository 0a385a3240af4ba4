/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_api.c - gossipsub's public operations (subscribe, unsubscribe, publish with
 * StrictSign and flood publishing, topic peer count), the heartbeat (mesh maintenance with
 * GRAFT/PRUNE and backoff, IHAVE gossip, cache rotation) and the router's lifetime.
 *
 * Invariant: publish reports exactly the number of peers the message was queued to, and
 * -MERO_ENOPEERS when that is zero; the mesh of a topic never exceeds D_hi after a heartbeat.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/gossip_internal.h"
#include "net/protobuf_internal.h"

/* ---- public operations ---- */

struct bcast {
    const struct mero_buf *rpc;
};

static void send_sub_to(struct mero__gpeer *p, void *ud)
{
    struct bcast *b = ud;
    (void)mero__gs_send_rpc(p, b->rpc);
}

/* Room for the protobuf tags and varint lengths around a subscription's topic. */
#define SUB_RPC_SLACK 32

static int announce(struct mero__gossip *g, const char *topic, int sub)
{
    struct mero_buf rpc;
    struct bcast b = {&rpc};
    int rc;
    mero_buf_init(&rpc, MERO__TOPIC_MAX + SUB_RPC_SLACK);
    MERO_TRY_OUT(mero__rpc_put_sub(&rpc, sub, topic));
    mero__gs_for_each_peer(g, send_sub_to, &b);
out:
    mero_buf_cleanup(&rpc);
    return rc;
}

static void join(struct mero__gossip *g, struct mero__gs_topic *t)
{
    uint64_t now = uv_now(g->net->loop);
    for (struct mero__conn *c = g->net->conns; c && t->nmesh < GS_D; c = c->next) {
        struct mero__gpeer *p = c->gp;
        if (mero__gs_usable(p) && mero__gs_peer_has_topic(p, t->name) && !mero__gs_in_mesh(t, p) &&
            !mero__gs_backed_off(p, t->name, now) && mero__gs_score_of(g, p) >= 0) {
            mero__gs_mesh_add(g, t, p);
            mero__gs_send_graft_prune(p, t->name, 1);
        }
    }
}

int mero_net_subscribe(struct mero_net *net, const char *topic)
{
    struct mero__gossip *g = net->gossip;
    struct mero__gs_topic *t;
    size_t n = topic ? strlen(topic) : 0;
    if (n == 0 || n > MERO__TOPIC_MAX || g == NULL) {
        return -MERO_EINVAL;
    }
    if (mero__gs_topic_find(g, topic)) {
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
    struct mero__gs_topic **pp;
    if (topic == NULL || g == NULL) {
        return -MERO_EINVAL;
    }
    for (pp = &g->topics; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, topic) == 0) {
            struct mero__gs_topic *t = *pp;
            *pp = t->next;
            for (size_t i = 0; i < t->nmesh; i++) {
                if (mero__gs_usable(t->mesh[i])) {
                    mero__gs_send_graft_prune(t->mesh[i], t->name, 0);
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
    return mero__gs_topic_peers(net, topic);
}

size_t mero_net_topic_sharers(const struct mero_net *net)
{
    return mero__gs_topic_sharers(net);
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
    MERO_TRY_OUT(mero__rpc_msg_build(&msg, net->id_sk, net->id_bytes, sizeof(net->id_bytes), data,
                                     len, seq, topic));
    MERO_TRY_OUT(mero__rpc_put_msg(&rpc, msg.data, msg.len));
    mero__pubkey_pb(net->id_pk, id);
    memcpy(id + MERO__PUBKEY_PB_LEN, seq, 8);
    (void)mero__gs_seen_check_add(g, id, MERO__PUBKEY_PB_LEN + 8, 1);
    mero__gs_mc_put(g, id, MERO__PUBKEY_PB_LEN + 8, topic, msg.data, msg.len);
    /* flood publishing: every connected peer subscribed to the topic */
    for (struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->state == MERO__C_UP && mero__gs_usable(c->gp) &&
            mero__gs_peer_has_topic(c->gp, topic) &&
            mero__gs_score_of(g, c->gp) >= g->sp.publish_threshold &&
            mero__gs_send_rpc(c->gp, &rpc) == 0) {
            sent++;
        }
    }
    rc = sent > 0 ? sent : -MERO_ENOPEERS;
    g->stats.published += sent > 0;
out:
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&rpc);
    return rc;
}

/* ---- heartbeat ---- */

/* Decay every connected peer's counters once per elapsed decay interval, count the peers that
 * share each one's IP (P6; loopback exempt), and decay the retained scores. */
static void score_tick(struct mero__gossip *g, uint64_t now)
{
    g->ticks++;
    if (g->last_decay == 0) {
        g->last_decay = now;
    }
    unsigned rounds = 0;
    while (g->sp.decay_interval_ms > 0 && now - g->last_decay >= g->sp.decay_interval_ms &&
           rounds < 3600) {
        g->last_decay += g->sp.decay_interval_ms;
        rounds++;
    }
    for (struct mero__conn *c = g->net->conns; c; c = c->next) {
        struct mero__gpeer *p = c->gp;
        if (p == NULL) {
            continue;
        }
        for (unsigned k = 0; k < rounds; k++) {
            mero__gs_score_decay(&g->sp, &p->score);
        }
        if (mero__gs_score_ip_exempt(&c->raddr)) {
            p->score.ip_peers = 0;
            continue;
        }
        uint32_t same = 0;
        for (const struct mero__conn *d = g->net->conns; d; d = d->next) {
            if (d->gp != NULL && d->raddr.family == c->raddr.family &&
                memcmp(d->raddr.ip, c->raddr.ip, sizeof(d->raddr.ip)) == 0) {
                same++;
            }
        }
        p->score.ip_peers = same;
    }
    for (size_t i = 0; i < GS_RETAIN_MAX; i++) {
        for (unsigned k = 0; k < rounds && g->retained[i].until > now; k++) {
            mero__gs_score_decay(&g->sp, &g->retained[i].score);
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* When the mesh's median score is below the opportunistic graft threshold, graft a few peers
 * that score above that median (gossipsub v1.1 "opportunistic grafting"). */
static void opportunistic_graft(struct mero__gossip *g, struct mero__gs_topic *t, uint64_t now)
{
    double s[GS_MESH_MAX];
    if (t->nmesh <= 1) {
        return;
    }
    for (size_t i = 0; i < t->nmesh; i++) {
        s[i] = mero__gs_score_of(g, t->mesh[i]);
    }
    qsort(s, t->nmesh, sizeof(s[0]), cmp_double);
    double median = s[t->nmesh / 2];
    if (median >= g->sp.opportunistic_graft_threshold) {
        return;
    }
    uint32_t added = 0;
    for (struct mero__conn *c = g->net->conns;
         c && added < g->sp.opportunistic_graft_peers && t->nmesh < GS_MESH_MAX; c = c->next) {
        struct mero__gpeer *p = c->gp;
        if (mero__gs_usable(p) && mero__gs_peer_has_topic(p, t->name) && !mero__gs_in_mesh(t, p) &&
            !mero__gs_backed_off(p, t->name, now) && mero__gs_score_of(g, p) > median) {
            mero__gs_mesh_add(g, t, p);
            mero__gs_send_graft_prune(p, t->name, 1);
            added++;
        }
    }
}

static void emit_gossip(struct mero__gossip *g, struct mero__gs_topic *t)
{
    struct mero_buf ids, ctl;
    size_t nid = 0, sent = 0;
    mero_buf_init(&ids, GS_IHAVE_MAX_IDS * (MERO__MSGID_MAX + 4));
    for (size_t w = 0; w < GS_MCACHE_GOSSIP; w++) {
        for (size_t i = 0; i < g->mcn[w] && nid < GS_IHAVE_MAX_IDS; i++) {
            const struct mero__gs_mc_entry *e = &g->mc[w][i];
            if (strcmp(e->topic, t->name) == 0 && mero__pb_put_bytes(&ids, 2, e->id, e->idn) == 0) {
                nid++;
            }
        }
    }
    if (nid) {
        mero_buf_init(&ctl, ids.len + 400);
        if (mero__rpc_ctrl_ihave(&ctl, t->name, &ids) == 0) {
            for (struct mero__conn *c = g->net->conns; c && sent < GS_D_LAZY; c = c->next) {
                struct mero__gpeer *p = c->gp;
                if (c->state == MERO__C_UP && mero__gs_usable(p) &&
                    mero__gs_peer_has_topic(p, t->name) && !mero__gs_in_mesh(t, p) &&
                    mero__gs_score_of(g, p) >= g->sp.gossip_threshold) {
                    mero__gs_send_control(p, &ctl);
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
    score_tick(g, now);
    for (struct mero__gs_topic *t = g->topics; t; t = t->next) {
        for (size_t i = 0; i < t->nmesh;) {
            struct mero__gpeer *p = t->mesh[i];
            if (!mero__gs_usable(p) || !mero__gs_peer_has_topic(p, t->name)) {
                t->mesh[i] = t->mesh[--t->nmesh];
                mero__gs_score_prune(&g->sp, &p->score, t->name, now);
            } else if (mero__gs_score_of(g, p) < 0) {
                /* a negative score leaves the mesh (and is not grafted again while negative) */
                mero__gs_mesh_drop(g, t, p);
                mero__gs_set_backoff(p, t->name, now + GS_BACKOFF_MS);
                mero__gs_send_graft_prune(p, t->name, 0);
            } else {
                i++;
            }
        }
        if (t->nmesh < GS_D_LO) {
            join(g, t);
        }
        while (t->nmesh > GS_D_HI) {
            uint32_t r;
            mero_random(&r, sizeof(r));
            struct mero__gpeer *p = t->mesh[r % t->nmesh];
            mero__gs_mesh_drop(g, t, p);
            mero__gs_set_backoff(p, t->name, now + GS_BACKOFF_MS);
            mero__gs_send_graft_prune(p, t->name, 0);
            if (t->nmesh <= GS_D) {
                break;
            }
        }
        if (g->sp.opportunistic_graft_ticks > 0 &&
            g->ticks % g->sp.opportunistic_graft_ticks == 0) {
            opportunistic_graft(g, t, now);
        }
        emit_gossip(g, t);
    }
    mero__gs_mc_shift(g);
    if (now - g->seen_rotated >= g->net->cfg.seen_ttl_ms / 2) {
        mero__gs_seen_rotate(g, now);
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
            g->seen[i].keys = calloc(GS_SEEN_SLOTS, GS_SEEN_KEY);
            g->seen[i].used = calloc(GS_SEEN_SLOTS, 1);
            ok = g->seen[i].keys && g->seen[i].used;
        }
        for (int i = 0; ok && i < GS_MCACHE_LEN; i++) {
            g->mc[i] = calloc(GS_MCACHE_PER_WIN, sizeof(struct mero__gs_mc_entry));
            ok = g->mc[i] != NULL;
        }
    }
    if (!ok) {
        mero__gossip_free(g);
        return -MERO_ENOMEM;
    }
    mero_random(&g->seqno, sizeof(g->seqno));
    g->seqno >>= 1;
    g->sp = mero__gs_score_default;
    *out = g;
    return 0;
}

void mero__gossip_free(struct mero__gossip *g)
{
    if (g == NULL) {
        return;
    }
    while (g->topics) {
        struct mero__gs_topic *t = g->topics;
        g->topics = t->next;
        free(t);
    }
    for (int i = 0; i < GS_MCACHE_LEN; i++) {
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

/* ---- issue 20: peer scoring ---- */

static struct mero__gpeer *peer_by_id(const struct mero_net *net, const char *peer_id)
{
    for (struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->gp != NULL && c->state == MERO__C_UP && strcmp(c->peer, peer_id) == 0) {
            return c->gp;
        }
    }
    return NULL;
}

void mero_net_set_app_score(struct mero_net *net, const char *peer_id, double score)
{
    struct mero__gpeer *p = net->gossip ? peer_by_id(net, peer_id) : NULL;
    if (p != NULL) {
        p->score.app = score;
    }
}

double mero_net_peer_score(const struct mero_net *net, const char *peer_id, bool *graylisted)
{
    const struct mero__gossip *g = net->gossip;
    const struct mero__gpeer *p = g ? peer_by_id(net, peer_id) : NULL;
    uint64_t now = uv_now(net->loop);
    double v = 0;
    if (p != NULL) {
        v = mero__gs_score_value(&g->sp, &p->score, now);
    } else if (g != NULL) {
        uint8_t pk[MERO_ED25519_PK_LEN];
        for (size_t i = 0; mero_net_peer_id_pk(peer_id, pk) == 0 && i < GS_RETAIN_MAX; i++) {
            if (g->retained[i].until > now && memcmp(g->retained[i].pk, pk, sizeof(pk)) == 0) {
                v = mero__gs_score_value(&g->sp, &g->retained[i].score, now);
            }
        }
    }
    if (graylisted != NULL) {
        *graylisted = g != NULL && v < g->sp.graylist_threshold;
    }
    return v;
}

bool mero_net_turned_away_within(const struct mero_net *net, const char *peer_id, uint64_t ms)
{
    const struct mero__gossip *g = net->gossip;
    uint8_t pk[MERO_ED25519_PK_LEN];
    uint64_t now = uv_now(net->loop);
    if (g == NULL || peer_by_id(net, peer_id) != NULL || mero_net_peer_id_pk(peer_id, pk) < 0) {
        return false;
    }
    for (size_t i = 0; i < GS_RETAIN_MAX; i++) {
        const struct mero__gs_retained *r = &g->retained[i];
        if (r->until > now && r->turned_away_at != 0 && now - r->turned_away_at < ms &&
            memcmp(r->pk, pk, sizeof(pk)) == 0) {
            return true;
        }
    }
    return false;
}

void mero_net_gossip_stats(const struct mero_net *net, struct mero_net_gossip_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (net->gossip != NULL) {
        *out = net->gossip->stats;
    }
}
