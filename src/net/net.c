/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net.c - the public mero_net object: identity, configuration and limits, listeners, the
 * public address-book and dial calls (parsed here, carried out by dial.c), the protocol
 * registry for inbound streams (identify, meshsub, request/response handlers), connection
 * up/down bookkeeping (duplicate resolution, the inbound budget and turning a refused newcomer
 * away, on_peer), the per-iteration flush and the gossipsub heartbeat timer (which also reports
 * what the connection budgets' log rate limiter held back).
 *
 * The top floor of src/net (docs/network.md "The floors of src/net"): it owns the peer and is
 * the only file that handles the transport's events (struct mero__conn_ops, set in
 * mero_net_new), so no file below it calls it.
 *
 * Invariants: one reported connection per remote peer (a duplicate is resolved the same way by
 * both ends: keep the connection dialed by the smaller peer id string); callbacks are never
 * invoked re-entrantly from a public call nor after mero_net_free; the identity secret key
 * lives in sodium_malloc'd memory and is wiped on free.
 */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/budget_internal.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/identify_internal.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"
#include "net/net_internal.h"
#include "net/peerid_internal.h"
#include "net/yamux_internal.h"

static const struct mero__conn_ops conn_ops; /* the transport's events: end of this file */

void mero_net_config_default(struct mero_net_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_inbound = 128;
    cfg->max_outbound = 64; /* not a length */
    cfg->max_pending = 32;  /* not a length */
    cfg->max_inbound_per_ip = 16;
    cfg->max_streams_per_conn = 256;
    cfg->max_frame = 4u << 20;
    cfg->max_gossip_msg = 1u << 20;
    cfg->handshake_timeout_ms = 10000;
    cfg->max_write_queue = 16u << 20;
    cfg->heartbeat_ms = 1000;
    cfg->request_timeout_ms = 10000;
    cfg->seen_ttl_ms = 120000;
    cfg->max_inflight_inbound = 64; /* not a length */
    cfg->ping_interval_ms = 15000;
    cfg->ping_timeout_ms = 10000;
    cfg->conn_high_water = 64; /* not a length */
    cfg->conn_low_water = 32;  /* not a length */
    cfg->conn_grace_ms = 10000;
}

static void fill(struct mero_net_config *c, const struct mero_net_config *in)
{
    struct mero_net_config d;
    mero_net_config_default(&d);
    if (in == NULL) {
        *c = d;
        return;
    }
    *c = *in;
#define DEF(f)                                                                                     \
    if (c->f == 0) {                                                                               \
        c->f = d.f;                                                                                \
    }
    DEF(max_inbound)
    DEF(max_outbound)
    DEF(max_pending)
    DEF(max_inbound_per_ip)
    DEF(max_streams_per_conn)
    DEF(max_frame)
    DEF(max_gossip_msg)
    DEF(handshake_timeout_ms)
    DEF(max_write_queue)
    DEF(heartbeat_ms)
    DEF(request_timeout_ms)
    DEF(seen_ttl_ms)
    DEF(max_inflight_inbound)
    DEF(ping_interval_ms)
    DEF(ping_timeout_ms)
    DEF(conn_high_water)
    DEF(conn_low_water)
    DEF(conn_grace_ms)
#undef DEF
    if (c->conn_low_water > c->conn_high_water) {
        c->conn_low_water = c->conn_high_water;
    }
    if (c->max_write_queue < (1u << 20)) {
        c->max_write_queue = 1u << 20; /* must hold a full yamux window plus framing */
    }
}

static void on_prepare(uv_prepare_t *p)
{
    struct mero_net *net = p->data;
    mero__defer_run(net);
    mero__conn_flush_all(net);
}

static void on_heartbeat(uv_timer_t *t)
{
    struct mero_net *net = t->data;
    mero__gossip_heartbeat(net->gossip);
    mero__gossip_drain_tick(net);
    mero__connmgr_tick(net);
    mero__budget_tick(net);
#ifdef __GLIBC__
    if (net->heap_trim) {
        /* links freed idle buffers since the last beat (mero__conn_trim): hand the free heap
         * pages back, which glibc keeps otherwise (its mmap threshold rises after the first
         * large free, so later link buffers come from the heap) */
        net->heap_trim = false;
        (void)malloc_trim(0);
    }
#endif
}

int mero_net_new(uv_loop_t *loop, const uint8_t ed25519_sk[MERO_ED25519_SK_LEN],
                 const struct mero_net_config *cfg, const struct mero_net_callbacks *cb, void *ud,
                 struct mero_net **out)
{
    struct mero_net *net;
    if (loop == NULL || ed25519_sk == NULL || out == NULL) {
        return -MERO_EINVAL;
    }
    net = calloc(1, sizeof(*net));
    if (net == NULL) {
        return -MERO_ENOMEM;
    }
    net->id_sk = sodium_malloc(MERO_ED25519_SK_LEN);
    if (net->id_sk == NULL) {
        free(net);
        return -MERO_ENOMEM;
    }
    memcpy(net->id_sk, ed25519_sk, MERO_ED25519_SK_LEN);
    memcpy(net->id_pk, ed25519_sk + MERO_ED25519_SEED_LEN, sizeof(net->id_pk)); /* seed || pk */
    net->loop = loop;
    fill(&net->cfg, cfg);
    if (cb) {
        net->cb = *cb;
    }
    net->ud = ud;
    net->conn_ops = &conn_ops;
    net->budget_log.interval_ms = MERO__BUDGET_LOG_MS;
    mero_x25519_keypair(net->noise_pk, net->noise_sk);
    mero__peer_id_bytes_from_pk(net->id_pk, net->id_bytes);
    if (mero_net_peer_id_from_pk(net->id_pk, net->id) < 0 ||
        mero__gossip_new(net, &net->gossip) < 0) {
        sodium_free(net->id_sk);
        free(net);
        return -MERO_ENOMEM;
    }
    uv_prepare_init(loop, &net->flush);
    net->flush.data = net;
    uv_prepare_start(&net->flush, on_prepare);
    uv_unref((uv_handle_t *)&net->flush);
    uv_timer_init(loop, &net->heartbeat);
    net->heartbeat.data = net;
    uv_timer_start(&net->heartbeat, on_heartbeat, net->cfg.heartbeat_ms, net->cfg.heartbeat_ms);
    uv_unref((uv_handle_t *)&net->heartbeat);
    net->handles = 2;
    *out = net;
    return 0;
}

static void net_release(struct mero_net *net)
{
    mero__book_free(net);
    while (net->handlers) {
        struct mero__handler *h = net->handlers;
        net->handlers = h->next;
        free(h);
    }
    mero__frame_cache_free(net);
    sodium_free(net->id_sk);
    mero_wipe(net->noise_sk, sizeof(net->noise_sk));
    free(net);
}

static void on_net_handle_closed(uv_handle_t *h)
{
    struct mero_net *net = h->data;
    if (--net->handles == 0) {
        net_release(net);
    }
}

static void on_listener_closed(uv_handle_t *h)
{
    struct mero__listener *l = h->data;
    struct mero_net *net = l->net;
    free(l);
    if (--net->handles == 0) {
        net_release(net);
    }
}

void mero_net_free(struct mero_net *net)
{
    if (net == NULL || net->freeing) {
        return;
    }
    net->freeing = 1;
    mero__defer_cancel(net);
    while (net->conns) {
        struct mero__conn *c = net->conns;
        mero__yamux_goaway(c, 0);
        mero__conn_fail(c, MERO_ECLOSED, "shutting down");
    }
    mero__reqresp_free_all(net);
    mero__gossip_free(net->gossip);
    net->gossip = NULL;
    while (net->listeners) {
        struct mero__listener *l = net->listeners;
        net->listeners = l->next;
        uv_close((uv_handle_t *)&l->tcp, on_listener_closed);
    }
    uv_prepare_stop(&net->flush);
    uv_close((uv_handle_t *)&net->flush, on_net_handle_closed);
    uv_close((uv_handle_t *)&net->heartbeat, on_net_handle_closed);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct mero__listener *l = server->data;
    if (status < 0 || l->net->freeing) {
        return;
    }
    mero__conn_accept(l->net, server);
}

int mero_net_listen(struct mero_net *net, const char *multiaddr)
{
    struct mero__maddr m;
    struct sockaddr_storage ss;
    struct mero__listener *l;
    int len = sizeof(ss), rc;
    MERO_TRY(mero__maddr_parse(multiaddr, &m));
    if (m.peer[0] && strcmp(m.peer, net->id) != 0) {
        return -MERO_EPEERID;
    }
    MERO_TRY(mero__maddr_to_sockaddr(&m, &ss));
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return -MERO_ENOMEM;
    }
    l->net = net;
    uv_tcp_init(net->loop, &l->tcp);
    l->tcp.data = l;
    net->handles++;
    /* rc holds a libuv code (negative on failure) until out: maps it */
    MERO_TRY_OUT(uv_tcp_bind(&l->tcp, (const struct sockaddr *)&ss, 0));
    MERO_TRY_OUT(uv_listen((uv_stream_t *)&l->tcp, 128, on_connection));
    MERO_TRY_OUT(uv_tcp_getsockname(&l->tcp, (struct sockaddr *)&ss, &len));
    /* a bound address with no multiaddr form: an address family this node does not speak */
    MERO_TRY_OUT(mero__maddr_from_sockaddr((struct sockaddr *)&ss, &l->addr) < 0 ? UV_EAFNOSUPPORT
                                                                                 : 0);
    memcpy(l->addr.peer, net->id, sizeof(net->id));
    l->next = net->listeners;
    net->listeners = l;
    return 0;
out:
    MERO_WARN("net: listen on %s failed: %s", multiaddr, uv_strerror(rc));
    uv_close((uv_handle_t *)&l->tcp, on_listener_closed);
    return rc == UV_EADDRINUSE ? -MERO_EEXIST : -MERO_EIO;
}

const char *mero_net_peer_id(const struct mero_net *net)
{
    return net->id;
}

size_t mero_net_listen_addrs(const struct mero_net *net, char (*out)[MERO_MULTIADDR_STR_MAX],
                             size_t max)
{
    size_t n = 0;
    for (const struct mero__listener *l = net->listeners; l; l = l->next, n++) {
        if (n < max && mero__maddr_format(&l->addr, 1, out[n]) < 0) {
            out[n][0] = 0;
        }
    }
    return n;
}

int mero_net_announce(struct mero_net *net, const char *multiaddr)
{
    struct mero__maddr m;
    MERO_TRY(mero__maddr_parse(multiaddr, &m));
    if (m.peer[0] && strcmp(m.peer, net->id) != 0) {
        return -MERO_EPEERID;
    }
    if (m.port == 0) {
        return -MERO_EMULTIADDR;
    }
    if (net->nannounce >= MERO_NET_MAX_ANNOUNCE) {
        return -MERO_ETOOBIG;
    }
    net->announce[net->nannounce++] = m;
    return 0;
}

int mero_net_add_addr(struct mero_net *net, const char *multiaddr)
{
    struct mero__maddr m;
    MERO_TRY(mero__maddr_parse(multiaddr, &m));
    if (!m.peer[0]) {
        return -MERO_EMULTIADDR;
    }
    mero__book_add(net, &m);
    return 0;
}

int mero_net_dial(struct mero_net *net, const char *multiaddr, mero_net_dial_cb cb, void *ud)
{
    struct mero__maddr m;
    if (net->freeing) {
        return -MERO_ECLOSED;
    }
    MERO_TRY(mero__maddr_parse(multiaddr, &m));
    return mero__dial(net, &m, cb, ud);
}

void mero_net_set_priority(struct mero_net *net, const char *peer_id, int prio)
{
    struct mero__conn *c = peer_id ? mero__conn_find(net, peer_id) : NULL;
    if (c != NULL) {
        c->prio = prio < 0 ? 0 : prio > 255 ? 255 : prio;
    }
}

void mero_net_disconnect(struct mero_net *net, const char *peer_id)
{
    struct mero__conn *c;
    while ((c = mero__conn_find(net, peer_id)) != NULL) {
        mero__yamux_goaway(c, 0);
        mero__conn_fail(c, MERO_ECLOSED, "disconnect requested");
    }
}

size_t mero_net_connected_peers(const struct mero_net *net, char (*out)[MERO_PEER_ID_STR_MAX],
                                size_t max)
{
    size_t n = 0;
    for (const struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->state == MERO__C_UP && c->reported_up) {
            if (n < max) {
                memcpy(out[n], c->peer, MERO_PEER_ID_STR_MAX);
            }
            n++;
        }
    }
    return n;
}

struct mero__handler *mero__net_find_handler(struct mero_net *net, const char *proto)
{
    for (struct mero__handler *h = net->handlers; h; h = h->next) {
        if (h->fn && strcmp(h->proto, proto) == 0) {
            return h;
        }
    }
    return NULL;
}

int mero_net_handle(struct mero_net *net, const char *protocol_id, mero_net_handler handler,
                    void *ud)
{
    struct mero__handler *h;
    size_t n = protocol_id ? strlen(protocol_id) : 0;
    if (n == 0 || n >= sizeof(h->proto) || protocol_id[0] != '/' ||
        memchr(protocol_id, '\n', n) != NULL) {
        return -MERO_EINVAL;
    }
    for (h = net->handlers; h; h = h->next) {
        if (strcmp(h->proto, protocol_id) == 0) {
            h->fn = handler; /* removal keeps the entry: streams may borrow h->proto */
            h->ud = ud;
            return 0;
        }
    }
    if (handler == NULL) {
        return 0;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(h->proto, protocol_id, n + 1);
    h->fn = handler;
    h->ud = ud;
    h->next = net->handlers;
    net->handlers = h;
    return 0;
}

enum { SEL_IDENTIFY = 0, SEL_MESHSUB = 1, SEL_HANDLER = 2 };

static int name_is(const uint8_t *name, size_t len, const char *s)
{
    return len == strlen(s) && memcmp(name, s, len) == 0;
}

static int proto_match(void *stream, const uint8_t *name, size_t len)
{
    struct mero__stream *s = stream;
    char tmp[130];
    if (name_is(name, len, MERO__IDENTIFY_PROTO)) {
        s->proto = MERO__IDENTIFY_PROTO;
        return SEL_IDENTIFY;
    }
    if (name_is(name, len, MERO__MESHSUB_11) || name_is(name, len, MERO__MESHSUB_10)) {
        s->proto = MERO__MESHSUB_11;
        return SEL_MESHSUB;
    }
    if (len < sizeof(tmp)) {
        memcpy(tmp, name, len);
        tmp[len] = 0;
        struct mero__handler *h = mero__net_find_handler(s->c->net, tmp);
        if (h && !s->c->drain_at) { /* a connection being turned away serves no request */
            s->proto = h->proto;
            return SEL_HANDLER;
        }
    }
    return MERO__MSS_NO_MATCH;
}

static void stream_bind(struct mero__stream *s, int sel)
{
    switch (sel) {
    case SEL_IDENTIFY:
        mero__identify_serve(s);
        break;
    case SEL_MESHSUB:
        mero__gossip_stream_in(s);
        break;
    case SEL_HANDLER: {
        struct mero__handler *h = mero__net_find_handler(s->c->net, s->proto);
        if (h == NULL) {
            mero__stream_reset(s);
            return;
        }
        mero__reqresp_serve(s, h);
        break;
    }
    default:
        mero__stream_reset(s);
        break;
    }
}

static const char *dialer_of(const struct mero__conn *c)
{
    return c->outbound ? c->net->id : c->peer;
}

int mero__net_admit(struct mero__conn *c)
{
    int rc = mero__budget_up(c);
    if (rc < 0) {
        /* issue 33: a newcomer turned away learns whom to dial instead: a PRUNE with peer
         * exchange (gossip_px.c) on a stream of its own, then the connection closes at its
         * drain time; and we learn its listen address (identify), so that we can still reach
         * it by dialing out: e.g. to offer a challenge for the admission prompt it will
         * publish elsewhere */
        mero__gossip_goodbye(c);
        mero__identify_ask(c);
    }
    return rc;
}

static void conn_up(struct mero__conn *c)
{
    struct mero_net *net = c->net;
    struct mero__conn *other = mero__conn_find(net, c->peer);
    int prio =
        net->cb.peer_priority ? net->cb.peer_priority(net->ud, c->peer) : MERO_NET_PRIO_STRANGER;
    c->prio = prio < 0 ? 0 : prio > 255 ? 255 : prio;
    /* A duplicate replaces a connection to a peer we already hold (one of the two is closed
     * just below): only a new peer's inbound connection must fit the inbound budget. */
    if (other == NULL && !c->outbound && mero__net_admit(c) < 0) {
        return;
    }
    if (other) {
        /* Both ends keep the connection dialed by the smaller peer id (ties: the older). */
        int new_wins = strcmp(dialer_of(c), dialer_of(other)) < 0;
        if (!new_wins) {
            mero__conn_waiters_ok(c);
            mero__conn_fail(c, MERO_ECLOSED, "duplicate connection");
            return;
        }
        other->reported_up = 0;
        mero__gossip_peer_down(other);
        mero__conn_fail(other, MERO_ECLOSED, "duplicate connection (replaced)");
    }
    c->reported_up = 1;
    if (c->outbound) {
        struct mero__maddr m = c->raddr;
        memcpy(m.peer, c->peer, sizeof(m.peer));
        mero__book_add(net, &m);
    }
    MERO_INFO("net: connected %s %s", c->outbound ? "to" : "from", c->peer);
    if (!other && net->cb.on_peer) {
        net->cb.on_peer(net->ud, c->peer, 1);
        if (c->state != MERO__C_UP) {
            return;
        }
    }
    mero__conn_waiters_ok(c);
    if (c->state != MERO__C_UP) {
        return;
    }
    mero__identify_ask(c);
    mero__gossip_peer_up(c);
    mero__reqresp_conn_up(net, c);
}

static void conn_down(struct mero__conn *c)
{
    struct mero_net *net = c->net;
    c->reported_up = 0;
    mero__gossip_peer_down(c);
    if (!net->freeing && net->cb.on_peer && mero__conn_find(net, c->peer) == NULL) {
        net->cb.on_peer(net->ud, c->peer, 0);
    }
}

static void handshake_timeout(struct mero__conn *c)
{
    mero__budget_close(c, MERO_ETIMEOUT, "handshake timeout"); /* a flood: rate-limited log */
}

/* The transport floor's events (conn_internal.h), handled here and on the floors above. */
static const struct mero__conn_ops conn_ops = {
    .accepted = mero__budget_accept,
    .handshake_timeout = handshake_timeout,
    .up = conn_up,
    .down = conn_down,
    .dial_failed = mero__reqresp_dial_failed,
    .proto_match = proto_match,
    .stream_bind = stream_bind,
};
