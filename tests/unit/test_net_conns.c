/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_net_conns.c - connection management and request/response semantics between in-process
 * nodes on one uv loop: simultaneous dials collapse into one connection per pair, a dial to
 * the wrong /p2p/ id is refused, request timeouts, unknown peers and protocols, a 3 MiB
 * request/response (flow control across many yamux windows), oversized frames, a handshake
 * timeout against a silent listener, publish to zero peers, and clean shutdown with pending
 * requests. Also the receive path's edges: repeated large frames through the frame cache (each
 * checked whole, the cache left holding none of their bytes), and data frames as large as the
 * whole window followed by more, fed to a connection in reads as large as its buffer takes,
 * which fills the decrypted-input buffer before yamux has drained it.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support/net_fixture.h"
#include "mero/crypto.h"
#include "mero/net.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"
#include "net/net_internal.h"
#include "net/noise_internal.h"
#include "net/yamux_internal.h"
#include "support/conn_detached.h"

static uv_loop_t *loop;

static void stop_cb(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

/* Run the loop until *flag becomes nonzero or ms elapse; returns *flag. */
static int run_until(volatile int *flag, uint64_t ms)
{
    uv_timer_t t;
    int expired = 0;
    uv_timer_init(loop, &t);
    t.data = &expired;
    uv_timer_start(&t, stop_cb, ms, 0);
    while (!*flag && !expired) {
        uv_run(loop, UV_RUN_ONCE);
    }
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return *flag;
}

static struct mero_net *node(uint8_t seed_byte, const struct mero_net_config *cfg)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net *n = NULL;
    memset(seed, seed_byte, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, cfg, NULL, NULL, &n) < 0 ||
        mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0) {
        return NULL;
    }
    return n;
}

static void addr_of(struct mero_net *n, char out[MERO_MULTIADDR_STR_MAX])
{
    char a[1][MERO_MULTIADDR_STR_MAX];
    mero_net_listen_addrs(n, a, 1);
    memcpy(out, a[0], MERO_MULTIADDR_STR_MAX);
}

struct dial_res {
    int done, status;
    char peer[MERO_PEER_ID_STR_MAX];
};

static void on_dial(void *ud, int status, const char *peer)
{
    struct dial_res *r = ud;
    r->done++;
    r->status = status;
    if (peer) {
        snprintf(r->peer, sizeof(r->peer), "%s", peer);
    }
}

struct reply_res {
    int done, status;
    size_t len;
    uint8_t first, last;
};

static void on_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    struct reply_res *r = ud;
    r->done++;
    r->status = status;
    r->len = n;
    if (n) {
        r->first = d[0];
        r->last = d[n - 1];
    }
}

static struct mero_net_req *held;
static void hold(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    (void)d;
    (void)n;
    held = req;
}

static void big_echo(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d,
                     size_t n)
{
    (void)ud;
    (void)from;
    if (mero_net_respond(req, d, n) < 0) {
        held = NULL;
    }
}

static void finish(struct mero_net *a, struct mero_net *b)
{
    mero_net_free(a);
    mero_net_free(b);
    uv_run(loop, UV_RUN_DEFAULT);
}

TEST(simultaneous_dials_collapse)
{
    CHECK_OK(mero_crypto_init());
    loop = uv_default_loop();
    struct mero_net *a = node(1, NULL), *b = node(2, NULL);
    char aa[MERO_MULTIADDR_STR_MAX], ba[MERO_MULTIADDR_STR_MAX];
    struct dial_res ra = {0}, rb = {0};
    CHECK(a && b);
    addr_of(a, aa);
    addr_of(b, ba);
    CHECK_OK(mero_net_dial(a, ba, on_dial, &ra));
    CHECK_OK(mero_net_dial(b, aa, on_dial, &rb));
    CHECK(run_until(&ra.done, 5000) && run_until(&rb.done, 5000));
    CHECK_EQ(ra.status, 0);
    CHECK_EQ(rb.status, 0);
    CHECK_STR_EQ(ra.peer, mero_net_peer_id(b));
    int never = 0;
    run_until(&never, 300);
    CHECK_EQ(mero_net_connected_peers(a, NULL, 0), 1);
    CHECK_EQ(mero_net_connected_peers(b, NULL, 0), 1);
    CHECK_EQ(a->nconns, 1);
    CHECK_EQ(b->nconns, 1);
    /* dialing again while connected completes at once, from the loop */
    struct dial_res again = {0};
    CHECK_OK(mero_net_dial(a, ba, on_dial, &again));
    CHECK_EQ(again.done, 0);
    CHECK(run_until(&again.done, 1000));
    CHECK_EQ(again.status, 0);
    CHECK_EQ(a->nconns, 1);
    finish(a, b);
}

TEST(dial_wrong_peer_id_refused)
{
    struct mero_net *a = node(3, NULL), *b = node(4, NULL);
    char ba[MERO_MULTIADDR_STR_MAX], wrong[MERO_MULTIADDR_STR_MAX + 64];
    struct dial_res r = {0};
    CHECK(a && b);
    addr_of(b, ba);
    char *p2p = strstr(ba, "/p2p/");
    CHECK(p2p != NULL);
    *p2p = 0;
    snprintf(wrong, sizeof(wrong), "%s/p2p/%s", ba,
             "12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB");
    CHECK_OK(mero_net_dial(a, wrong, on_dial, &r));
    CHECK(run_until(&r.done, 5000));
    CHECK_EQ(r.status, -MERO_EPEERID);
    CHECK_EQ(mero_net_connected_peers(a, NULL, 0), 0);
    CHECK_ERR(mero_net_dial(a, "/dns4/localhost/tcp/1", on_dial, &r), -MERO_EUNSUPPORTED);
    char self[MERO_MULTIADDR_STR_MAX];
    addr_of(a, self);
    CHECK_ERR(mero_net_dial(a, self, on_dial, &r), -MERO_EPEERID);
    finish(a, b);
}

TEST(request_semantics)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.max_frame = 4u << 20;
    struct mero_net *a = node(5, &cfg), *b = node(6, &cfg);
    char ba[MERO_MULTIADDR_STR_MAX];
    CHECK(a && b);
    addr_of(b, ba);
    CHECK_OK(mero_net_handle(b, "/t/hold", hold, NULL));
    CHECK_OK(mero_net_handle(b, "/t/big", big_echo, NULL));
    /* unknown peer: no address */
    struct reply_res r0 = {0};
    CHECK_ERR(mero_net_request(a, mero_net_peer_id(b), "/t/big", (const uint8_t *)"x", 1, 1000,
                               on_reply, &r0),
              -MERO_ENOTFOUND);
    CHECK_ERR(mero_net_request(a, mero_net_peer_id(b), "no-slash", (const uint8_t *)"x", 1, 1000,
                               on_reply, &r0),
              -MERO_EINVAL);
    CHECK_OK(mero_net_add_addr(a, ba));
    /* 3 MiB each way: many windows of flow control */
    static uint8_t big[3u << 20];
    for (size_t i = 0; i < sizeof(big); i++) {
        big[i] = (uint8_t)(i * 31 + 7);
    }
    struct reply_res r1 = {0};
    CHECK_OK(
        mero_net_request(a, mero_net_peer_id(b), "/t/big", big, sizeof(big), 10000, on_reply, &r1));
    CHECK_EQ(r1.done, 0); /* never from inside the call */
    CHECK(run_until(&r1.done, 10000));
    CHECK_EQ(r1.status, 0);
    CHECK_EQ(r1.len, sizeof(big));
    CHECK_EQ(r1.first, big[0]);
    CHECK_EQ(r1.last, big[sizeof(big) - 1]);
    /* timeout while the handler holds the request; answering later is harmless */
    struct reply_res r2 = {0};
    held = NULL;
    CHECK_OK(mero_net_request(a, mero_net_peer_id(b), "/t/hold", (const uint8_t *)"q", 1, 300,
                              on_reply, &r2));
    CHECK(run_until(&r2.done, 3000));
    CHECK_EQ(r2.status, -MERO_ETIMEOUT);
    CHECK(held != NULL);
    int never = 0;
    run_until(&never, 100);
    CHECK_FAILS(mero_net_respond(held, (const uint8_t *)"late", 4));
    held = NULL;
    /* unknown protocol */
    struct reply_res r3 = {0};
    CHECK_OK(mero_net_request(a, mero_net_peer_id(b), "/t/none", (const uint8_t *)"q", 1, 3000,
                              on_reply, &r3));
    CHECK(run_until(&r3.done, 3000));
    CHECK_EQ(r3.status, -MERO_EUNSUPPORTED);
    /* handler removed -> refused */
    CHECK_OK(mero_net_handle(b, "/t/big", NULL, NULL));
    struct reply_res r4 = {0};
    CHECK_OK(mero_net_request(a, mero_net_peer_id(b), "/t/big", (const uint8_t *)"q", 1, 3000,
                              on_reply, &r4));
    CHECK(run_until(&r4.done, 3000));
    CHECK_EQ(r4.status, -MERO_EUNSUPPORTED);
    /* too large to send */
    static uint8_t huge[(4u << 20) + 1];
    CHECK_ERR(mero_net_request(a, mero_net_peer_id(b), "/t/hold", huge, sizeof(huge), 1000,
                               on_reply, &r4),
              -MERO_ETOOBIG);
    /* a pending request is failed with ECLOSED at shutdown */
    struct reply_res r5 = {0};
    CHECK_OK(mero_net_request(a, mero_net_peer_id(b), "/t/hold", (const uint8_t *)"q", 1, 5000,
                              on_reply, &r5));
    run_until(&never, 200);
    mero_net_free(a);
    CHECK_EQ(r5.done, 1);
    CHECK_EQ(r5.status, -MERO_ECLOSED);
    if (held) {
        mero_net_req_drop(held);
        held = NULL;
    }
    mero_net_free(b);
    uv_run(loop, UV_RUN_DEFAULT);
}

static void on_silent_conn(uv_stream_t *server, int status)
{
    uv_tcp_t *c = malloc(sizeof(*c));
    (void)status;
    uv_tcp_init(server->loop, c);
    if (uv_accept(server, (uv_stream_t *)c) != 0) {
        uv_close((uv_handle_t *)c, (uv_close_cb)free);
    }
    server->data = c; /* accepted, never read or written */
}

TEST(handshake_timeout)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.handshake_timeout_ms = 300;
    struct mero_net *a = node(7, &cfg);
    uv_tcp_t silent;
    struct sockaddr_in sa;
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    char ma[128];
    CHECK(a != NULL);
    uv_tcp_init(loop, &silent);
    silent.data = NULL;
    uv_ip4_addr("127.0.0.1", 0, &sa);
    CHECK(uv_tcp_bind(&silent, (struct sockaddr *)&sa, 0) == 0);
    CHECK(uv_listen((uv_stream_t *)&silent, 4, on_silent_conn) == 0);
    CHECK(uv_tcp_getsockname(&silent, (struct sockaddr *)&ss, &len) == 0);
    snprintf(ma, sizeof(ma), "/ip4/127.0.0.1/tcp/%u",
             (unsigned)ntohs(((struct sockaddr_in *)&ss)->sin_port));
    struct dial_res r = {0};
    CHECK_OK(mero_net_dial(a, ma, on_dial, &r));
    CHECK(run_until(&r.done, 3000));
    CHECK_EQ(r.status, -MERO_ETIMEOUT);
    if (silent.data) {
        uv_close((uv_handle_t *)silent.data, (uv_close_cb)free);
    }
    uv_close((uv_handle_t *)&silent, NULL);
    mero_net_free(a);
    uv_run(loop, UV_RUN_DEFAULT);
}

static void echo_h(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    if (mero_net_respond(req, d, n) < 0) {
        held = NULL;
    }
}

TEST(redial_through_identify)
{
    /* a dials b; b learns a's listen address from identify; after the connection is gone,
     * b's request to a dials a again on its own */
    struct mero_net *a = node(9, NULL), *b = node(10, NULL);
    char ba[MERO_MULTIADDR_STR_MAX];
    struct dial_res r = {0};
    CHECK(a && b);
    CHECK_OK(mero_net_handle(a, "/t/echo", echo_h, NULL));
    addr_of(b, ba);
    CHECK_OK(mero_net_dial(a, ba, on_dial, &r));
    CHECK(run_until(&r.done, 5000));
    CHECK_EQ(r.status, 0);
    int never = 0;
    run_until(&never, 300); /* identify */
    mero_net_disconnect(b, mero_net_peer_id(a));
    run_until(&never, 200);
    CHECK_EQ(mero_net_connected_peers(b, NULL, 0), 0);
    struct reply_res q = {0};
    CHECK_OK(mero_net_request(b, mero_net_peer_id(a), "/t/echo", (const uint8_t *)"hey", 3, 5000,
                              on_reply, &q));
    CHECK(run_until(&q.done, 5000));
    CHECK_EQ(q.status, 0);
    CHECK_EQ(q.len, 3);
    CHECK_EQ(mero_net_connected_peers(b, NULL, 0), 1);
    finish(a, b);
}

TEST(identify_tells_the_announced_address)
{
    /* issue 20: a node behind a proxy announces the proxy's address; a peer it dials records
     * that address (not the listen address) from identify, and bad announces are refused */
    struct mero_net *a = node(11, NULL), *b = node(12, NULL);
    char ba[MERO_MULTIADDR_STR_MAX], other[MERO_MULTIADDR_STR_MAX];
    struct dial_res r = {0};
    CHECK(a && b);
    snprintf(other, sizeof(other), "/ip4/127.0.0.9/tcp/4001/p2p/%s", mero_net_peer_id(b));
    CHECK_EQ(mero_net_announce(a, other), -MERO_EPEERID);
    CHECK_EQ(mero_net_announce(a, "/ip4/127.0.0.9/tcp/0"), -MERO_EMULTIADDR);
    CHECK(mero_net_announce(a, "/dns4/example.com/tcp/1") < 0);
    CHECK_OK(mero_net_announce(a, "/ip4/127.0.0.9/tcp/4242"));
    for (int i = 1; i < MERO_NET_MAX_ANNOUNCE; i++) {
        CHECK_OK(mero_net_announce(a, "/ip4/127.0.0.9/tcp/4242"));
    }
    CHECK_EQ(mero_net_announce(a, "/ip4/127.0.0.9/tcp/4243"), -MERO_ETOOBIG);
    addr_of(b, ba);
    CHECK_OK(mero_net_dial(a, ba, on_dial, &r));
    CHECK(run_until(&r.done, 5000));
    CHECK_EQ(r.status, 0);
    const struct mero__maddr *m = NULL;
    for (int i = 0; i < 50 && m == NULL; i++) {
        int never = 0;
        run_until(&never, 20); /* identify */
        m = mero__book_find(b, mero_net_peer_id(a));
    }
    CHECK(m != NULL);
    CHECK_EQ(m ? m->port : 0, 4242);
    CHECK(m && m->ip[0] == 127 && m->ip[3] == 9);
    /* the listen address is unchanged */
    char aa[MERO_MULTIADDR_STR_MAX];
    addr_of(a, aa);
    CHECK(strstr(aa, "/ip4/127.0.0.1/tcp/") == aa);
    finish(a, b);
}

struct gossip_seen {
    int got_ok, got_reject;
};

static int gossip_cb(void *ud, const char *topic, const char *from, const uint8_t *d, size_t n)
{
    struct gossip_seen *g = ud;
    (void)topic;
    (void)from;
    if (n == 6 && memcmp(d, "reject", 6) == 0) {
        g->got_reject++;
        return -1; /* the application refuses it: it must not travel further */
    }
    g->got_ok++;
    return 0;
}

static struct mero_net *gnode(uint8_t seed_byte, struct gossip_seen *g)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net_callbacks cb = {.on_gossip = gossip_cb};
    struct mero_net_config cfg;
    struct mero_net *n = NULL;
    mero_net_config_default(&cfg);
    cfg.heartbeat_ms = 100;
    memset(seed, seed_byte, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, &cfg, &cb, g, &n) < 0 ||
        mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0 || mero_net_subscribe(n, "ns/chain") < 0) {
        return NULL;
    }
    return n;
}

TEST(rejected_gossip_is_not_forwarded)
{
    struct gossip_seen ga = {0}, gb = {0}, gc = {0};
    struct mero_net *a = gnode(11, &ga), *b = gnode(12, &gb), *c = gnode(13, &gc);
    char ba[MERO_MULTIADDR_STR_MAX];
    struct dial_res r1 = {0}, r2 = {0};
    CHECK(a && b && c);
    addr_of(b, ba);
    CHECK_OK(mero_net_dial(a, ba, on_dial, &r1)); /* chain a - b - c */
    CHECK_OK(mero_net_dial(c, ba, on_dial, &r2));
    CHECK(run_until(&r1.done, 5000) && run_until(&r2.done, 5000));
    int never = 0;
    run_until(&never, 600); /* subscriptions + GRAFTs at the 100 ms heartbeat */
    CHECK_EQ(mero_net_topic_peers(a, "ns/chain"), 1);
    CHECK_EQ(mero_net_publish(a, "ns/chain", (const uint8_t *)"reject", 6), 1);
    CHECK_EQ(mero_net_publish(a, "ns/chain", (const uint8_t *)"fine!", 5), 1);
    CHECK(run_until(&gc.got_ok, 3000));
    run_until(&never, 300);
    CHECK_EQ(gb.got_reject, 1);
    CHECK_EQ(gb.got_ok, 1);
    CHECK_EQ(gc.got_ok, 1);                 /* forwarded by b's mesh */
    CHECK_EQ(gc.got_reject, 0);             /* b refused it, so it stopped there */
    CHECK_EQ(ga.got_ok + ga.got_reject, 0); /* our own messages never come back to us */
    mero_net_free(c);
    finish(a, b);
}

TEST(publish_to_zero_peers)
{
    struct mero_net *a = node(8, NULL);
    CHECK(a != NULL);
    CHECK_ERR(mero_net_publish(a, "ns/00", (const uint8_t *)"x", 1), -MERO_ENOPEERS);
    CHECK_OK(mero_net_subscribe(a, "ns/00"));
    CHECK_OK(mero_net_subscribe(a, "ns/00"));
    CHECK_ERR(mero_net_publish(a, "ns/00", (const uint8_t *)"x", 1), -MERO_ENOPEERS);
    static uint8_t big[(1u << 20) + 1];
    CHECK_ERR(mero_net_publish(a, "ns/00", big, sizeof(big)), -MERO_ETOOBIG);
    CHECK_ERR(mero_net_subscribe(a, ""), -MERO_EINVAL);
    CHECK_OK(mero_net_unsubscribe(a, "ns/00"));
    CHECK_EQ(mero_net_topic_peers(a, "ns/00"), 0);
    mero_net_free(a);
    uv_run(loop, UV_RUN_DEFAULT);
}

struct hash_res {
    int done, status;
    size_t len;
    uint8_t h[32];
};

static void on_hashed_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    struct hash_res *r = ud;
    r->done++;
    r->status = status;
    r->len = n;
    mero_sha256(r->h, d, n);
}

/* 1 when no 64-byte slice of p (taken at a few offsets) occurs in hay[0..n). */
static int holds_none_of(const uint8_t *hay, size_t n, const uint8_t *p, size_t plen)
{
    for (size_t off = 0; off + 64 <= plen; off += plen / 5) {
        if (hay != NULL && memmem(hay, n, p + off, 64) != NULL) {
            return 0;
        }
    }
    return 1;
}

TEST(large_frames_reuse_the_frame_cache)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    struct mero_net *a = node(11, &cfg), *b = node(12, &cfg);
    char ba[MERO_MULTIADDR_STR_MAX];
    CHECK(a && b);
    addr_of(b, ba);
    CHECK_OK(mero_net_handle(b, "/t/big", big_echo, NULL));
    CHECK_OK(mero_net_add_addr(a, ba));
    static uint8_t big[(2u << 20) + 12345];
    for (int round = 0; round < 4; round++) {
        uint8_t want[32];
        struct hash_res r = {0};
        size_t n = sizeof(big) - (size_t)round * 1000; /* a different length each round */
        mero_random(big, n);
        mero_sha256(want, big, n);
        CHECK_OK(
            mero_net_request(a, mero_net_peer_id(b), "/t/big", big, n, 10000, on_hashed_reply, &r));
        CHECK(run_until(&r.done, 10000));
        CHECK_EQ(r.status, 0);
        CHECK_EQ(r.len, n);
        CHECK_MEM_EQ(r.h, want, 32); /* every byte, not a stale one from a reused buffer */
    }
    int settle = 0;
    run_until(&settle, 100); /* the streams close and give their buffers back */
    CHECK_MSG(b->spare.cap > sizeof(big) && a->spare.cap > sizeof(big),
              "caches hold %zu and %zu bytes", a->spare.cap, b->spare.cap);
    CHECK(a->spare.cap <= cfg.max_frame + 16 && b->spare.cap <= cfg.max_frame + 16);
    CHECK_EQ(a->spare.len, 0);
    CHECK(holds_none_of(a->spare.data, a->spare.cap, big, sizeof(big) - 3000));
    CHECK(holds_none_of(b->spare.data, b->spare.cap, big, sizeof(big) - 3000));
    finish(a, b);
}

/* Append one yamux frame, as a peer would send it, to plain. */
static int yframe(struct mero_buf *plain, uint8_t type, uint16_t flags, uint32_t sid,
                  const uint8_t *d, uint32_t n)
{
    uint8_t h[MERO__YAMUX_HDR];
    struct mero__yhdr y = {0, type, flags, sid, n};
    mero__yamux_hdr_put(h, &y);
    MERO_TRY(mero_buf_append(plain, h, sizeof(h)));
    return n ? mero_buf_append(plain, d, n) : 0;
}

TEST(window_sized_frames_fill_the_decrypt_buffer)
{
    enum { STREAMS = 3 };
    struct mero_net *n = node(13, NULL);
    CHECK(n != NULL);
    CHECK_OK(mero_net_handle(n, "/t/sum", netf_sum_handler, NULL));
    struct mero__conn *c = test_conn_detached(n);
    CHECK(c != NULL);
    static uint8_t body[MERO__YAMUX_RECV_WINDOW];
    struct mero_buf plain, wire, hello;
    uint8_t want[STREAMS][32];
    size_t blen[STREAMS] = {0, 200 * 1024, 200 * 1024};
    mero_buf_init(&plain, 4u << 20);
    mero_buf_init(&wire, 4u << 20);
    mero_buf_init(&hello, 256);
    CHECK_OK(mero__mss_put(&hello, MERO__MSS_PROTO));
    CHECK_OK(mero__mss_put(&hello, "/t/sum"));
    for (uint32_t i = 0; i < STREAMS; i++) { /* the node raises each window on SYN */
        CHECK_OK(yframe(&plain, MERO__YT_DATA, MERO__YF_SYN, 1 + 2 * i, hello.data,
                        (uint32_t)hello.len));
    }
    /* stream 1: its whole request in one frame of the whole (raised) window; then the others */
    blen[0] = MERO__YAMUX_RECV_WINDOW - hello.len;
    mero_random(body, sizeof(body));
    for (uint32_t i = 0; i < STREAMS; i++) {
        uint8_t *p = body + 64 * 1024 * i;
        size_t payload = blen[i] - 3; /* a 3-byte varint length */
        p[0] = (uint8_t)(payload | 0x80);
        p[1] = (uint8_t)((payload >> 7) | 0x80);
        p[2] = (uint8_t)(payload >> 14);
        mero_sha256(want[i], p + 3, payload);
        CHECK_OK(yframe(&plain, MERO__YT_DATA, MERO__YF_FIN, 1 + 2 * i, p, (uint32_t)blen[i]));
    }
    /* encrypt as the peer's Noise transport (a detached connection's key is all zeros) */
    struct mero__cipher tx;
    memset(&tx, 0, sizeof(tx));
    tx.has_key = 1;
    for (size_t off = 0; off < plain.len;) {
        size_t k =
            plain.len - off < MERO__NOISE_MAX_PLAIN ? plain.len - off : MERO__NOISE_MAX_PLAIN;
        uint8_t l[2] = {(uint8_t)((k + 16) >> 8), (uint8_t)(k + 16)};
        CHECK_OK(mero_buf_append(&wire, l, 2));
        CHECK_OK(mero_buf_reserve(&wire, k + 16));
        CHECK_OK(mero__cipher_seal(&tx, NULL, 0, plain.data + off, k, wire.data + wire.len));
        wire.len += k + 16;
        off += k;
    }
    mero__conn_feed(c, wire.data, wire.len);
    CHECK_MSG(c->state == MERO__C_UP, "the connection was closed");
    /* the node's output (plaintext: a detached connection is never flushed): per stream, the
     * multistream echo, then the answer frame 0x20 + SHA-256 */
    uint8_t got[STREAMS][128];
    size_t got_n[STREAMS] = {0};
    int answered = 0;
    struct mero_cur cur;
    mero_cur_init(&cur, c->out.data, c->out.len);
    while (mero_cur_left(&cur) >= MERO__YAMUX_HDR) {
        struct mero__yhdr h;
        const uint8_t *d;
        CHECK_OK(mero__yamux_hdr_parse(cur.p + cur.off, MERO__YAMUX_HDR, &h));
        CHECK_OK(mero_cur_skip(&cur, MERO__YAMUX_HDR));
        if (h.type != MERO__YT_DATA) {
            continue;
        }
        CHECK_OK(mero_cur_bytes(&cur, h.len, &d));
        size_t i = (h.sid - 1) / 2;
        if (i < STREAMS && got_n[i] + h.len <= sizeof(got[i])) {
            memcpy(got[i] + got_n[i], d, h.len);
            got_n[i] += h.len;
        }
    }
    for (size_t i = 0; i < STREAMS; i++) {
        if (got_n[i] == hello.len + 33 && got[i][hello.len] == 32 &&
            memcmp(got[i] + hello.len + 1, want[i], 32) == 0) {
            answered++;
        }
    }
    CHECK_EQ(answered, STREAMS);
    mero_buf_cleanup(&plain);
    mero_buf_cleanup(&wire);
    mero_buf_cleanup(&hello);
    mero_buf_reset(&c->out);
    mero__conn_fail(c, MERO_ECLOSED, "test done");
    mero_net_free(n);
    uv_run(loop, UV_RUN_DEFAULT);
}

MERO_TEST_MAIN(T(simultaneous_dials_collapse), T(dial_wrong_peer_id_refused), T(request_semantics),
               T(handshake_timeout), T(redial_through_identify),
               T(identify_tells_the_announced_address), T(rejected_gossip_is_not_forwarded),
               T(publish_to_zero_peers), T(large_frames_reuse_the_frame_cache),
               T(window_sized_frames_fill_the_decrypt_buffer))
