/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_net.c - network benchmark (driven by bench/net.bench.sh, which runs the same exchanges
 * between js-libp2p nodes and prints the ratios): two or five of our nodes in one process on
 * one loop over 127.0.0.1.
 *   1. one yamux stream: a request/response exchange carrying MB megabytes in one frame
 *      (Noise + yamux flow control end to end), reported in MB/s;
 *   2. gossipsub: one publisher, 4 subscribers, N messages of 256 bytes, reported as messages
 *      delivered per second (N*4 deliveries / time until the last arrives);
 *   3. memory after a burst (issue 33): 12 nodes (the per-address budget allows 16) each send a hub
 * one 1 MiB request, then every link idles for 1.5 s (keep-alive looks every 200 ms); the process's
 * resident memory right after the burst and after the idle time, in KiB. Each is repeated R times
 * over the same connections; the median is the figure (one run of either is a fraction of a second,
 * and a shared machine's noise is larger than that), and the spread goes to a `#` line. Usage:
 * MERO_NET_BENCH=1 bench_net [MB] [N] [R]   (without MERO_NET_BENCH it prints nothing)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/clock.h"
#include "mero/net.h"

static uv_loop_t *loop;
static size_t delivered;
static int reply_done, reply_status, dialed;

static int on_gossip(void *ud, const char *t, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)t;
    (void)from;
    (void)d;
    (void)n;
    delivered++;
    return 0;
}

static void sink(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    (void)d;
    (void)n;
    if (mero_net_respond(req, (const uint8_t *)"k", 1) < 0) {
        reply_status = -1;
    }
}

static void on_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)d;
    (void)n;
    reply_done = 1;
    reply_status = status;
}

static void on_dial(void *ud, int status, const char *peer)
{
    (void)ud;
    (void)peer;
    if (status == 0) {
        dialed++;
    }
}

static struct mero_net *mk(int i, const struct mero_net_config *cfg)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net_callbacks cb = {.on_gossip = on_gossip};
    struct mero_net *n;
    memset(seed, 0x40 + i, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, cfg, &cb, NULL, &n) < 0 ||
        mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0) {
        exit(2);
    }
    return n;
}

static void spin_until(int (*cond)(void), double limit)
{
    double t0 = ((double)mero_now_ns() / 1e9);
    while (!cond() && ((double)mero_now_ns() / 1e9) - t0 < limit) {
        uv_run(loop, UV_RUN_NOWAIT);
    }
}

static size_t want_dials, want_delivered;
static int dials_done(void)
{
    return (size_t)dialed >= want_dials;
}
static int replied(void)
{
    return reply_done;
}
static int all_delivered(void)
{
    return delivered >= want_delivered;
}
static struct mero_net *g_pub;
static int subs_seen(void)
{
    return mero_net_topic_peers(g_pub, "ns/bench") >= 4;
}

#define HUB_LINKS 12

static size_t replies;
static void on_hub_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)d;
    (void)n;
    replies += status == 0;
}
static int hub_replied(void)
{
    return replies >= HUB_LINKS;
}
static int never(void)
{
    return 0;
}

/* Resident set of this process in KiB (/proc/self/statm), 0 when unreadable. */
static size_t rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%lu %lu", &size, &res) != 2) {
        res = 0;
    }
    fclose(f);
    return (size_t)res * 4u;
}

/* 3. memory after a burst: 0, or 1 when the burst failed */
static int hub_memory(void)
{
    struct mero_net_config cfg;
    char addr[1][MERO_MULTIADDR_STR_MAX];
    struct mero_net *cl[HUB_LINKS];
    mero_net_config_default(&cfg);
    cfg.ping_interval_ms = 200;
    cfg.max_frame = 2u << 20;
    struct mero_net *hub = mk(10, &cfg);
    if (mero_net_handle(hub, "/bench/sink/1", sink, NULL) < 0) {
        return 1;
    }
    mero_net_listen_addrs(hub, addr, 1);
    dialed = 0;
    want_dials = HUB_LINKS;
    for (int i = 0; i < HUB_LINKS; i++) {
        cl[i] = mk(11 + i, &cfg);
        if (mero_net_dial(cl[i], addr[0], on_dial, NULL) < 0) {
            return 1;
        }
    }
    spin_until(dials_done, 20);
    size_t before = rss_kib();
    uint8_t *blob = malloc(1u << 20);
    if (blob == NULL) {
        return 1;
    }
    mero_random(blob, 1u << 20);
    replies = 0;
    for (int i = 0; i < HUB_LINKS; i++) {
        if (mero_net_request(cl[i], mero_net_peer_id(hub), "/bench/sink/1", blob, 1u << 20, 60000,
                             on_hub_reply, NULL) < 0) {
            return 1;
        }
    }
    free(blob);
    spin_until(hub_replied, 60);
    if (replies < HUB_LINKS) {
        fprintf(stderr, "bench_net: %zu of %d burst replies\n", replies, HUB_LINKS);
        return 1;
    }
    size_t burst = rss_kib();
    spin_until(never, 1.5);
    size_t idle = rss_kib();
    printf("# net_rss: %d links, %zu KiB before the burst\n", HUB_LINKS, before);
    printf("bench net_rss_after_burst_%d_links %zu KiB\n", HUB_LINKS, burst);
    printf("bench net_rss_after_idle_%d_links %zu KiB\n", HUB_LINKS, idle);
    mero_net_free(hub);
    for (int i = 0; i < HUB_LINKS; i++) {
        mero_net_free(cl[i]);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); the spread goes to a `#` line under `name`. */
static double median(const char *name, double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    printf("# %s: %zu rounds, min %.1f median %.1f max %.1f\n", name, n, v[0], v[n / 2], v[n - 1]);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 50

int main(int argc, char **argv)
{
    if (getenv("MERO_NET_BENCH") == NULL) {
        printf("# bench_net: run through bench/net.bench.sh\n");
        return 0;
    }
    size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    size_t nmsg = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
    size_t rounds = argc > 3 ? strtoul(argv[3], NULL, 10) : 7;
    double rate[MAX_ROUNDS];
    struct mero_net_config cfg;
    char addr[1][MERO_MULTIADDR_STR_MAX];
    if (mero_crypto_init() < 0 || mb == 0 || mb > 1024 || nmsg == 0 || rounds == 0 ||
        rounds > MAX_ROUNDS) {
        return 1;
    }
    loop = uv_default_loop();
    mero_net_config_default(&cfg);
    cfg.max_frame = (uint32_t)(mb << 20);
    cfg.max_write_queue = (uint32_t)((mb << 20) + (64u << 20));
    cfg.request_timeout_ms = 120000;
    /* 1. one stream */
    struct mero_net *a = mk(0, &cfg), *b = mk(1, &cfg);
    if (mero_net_handle(b, "/bench/sink/1", sink, NULL) < 0) {
        return 1;
    }
    mero_net_listen_addrs(b, addr, 1);
    want_dials = 1;
    if (mero_net_dial(a, addr[0], on_dial, NULL) < 0) {
        return 1;
    }
    spin_until(dials_done, 10);
    uint8_t *blob = malloc(mb << 20);
    if (blob == NULL) {
        return 1;
    }
    mero_random(blob, mb << 20);
    for (size_t r = 0; r < rounds; r++) {
        reply_done = 0;
        double t0 = ((double)mero_now_ns() / 1e9);
        if (mero_net_request(a, mero_net_peer_id(b), "/bench/sink/1", blob, mb << 20, 120000,
                             on_reply, NULL) < 0) {
            return 1;
        }
        spin_until(replied, 120);
        double dt = ((double)mero_now_ns() / 1e9) - t0;
        if (!reply_done || reply_status != 0) {
            fprintf(stderr, "bench_net: stream exchange failed: %s\n",
                    reply_done ? mero_strerror(reply_status) : "no reply");
            return 1;
        }
        rate[r] = (double)mb / dt;
    }
    printf("bench net_yamux_stream_c %.1f MB/s\n", median("net_yamux_stream_c", rate, rounds));
    free(blob);
    mero_net_free(a);
    mero_net_free(b);
    uv_run(loop, UV_RUN_DEFAULT);

    /* 2. gossipsub: 1 publisher, 4 subscribers */
    mero_net_config_default(&cfg);
    cfg.max_write_queue = 256u << 20;
    struct mero_net *pub = mk(2, &cfg), *sub[4];
    g_pub = pub;
    mero_net_listen_addrs(pub, addr, 1);
    dialed = 0;
    want_dials = 4;
    for (int i = 0; i < 4; i++) {
        sub[i] = mk(3 + i, &cfg);
        if (mero_net_subscribe(sub[i], "ns/bench") < 0 ||
            mero_net_dial(sub[i], addr[0], on_dial, NULL) < 0) {
            return 1;
        }
    }
    spin_until(dials_done, 10);
    spin_until(subs_seen, 10);
    uint8_t msg[256];
    memset(msg, 'm', sizeof(msg));
    size_t seq = 0;
    for (size_t r = 0; r < rounds; r++) {
        delivered = 0;
        want_delivered = nmsg * 4;
        double t0 = ((double)mero_now_ns() / 1e9);
        for (size_t i = 0; i < nmsg; i++, seq++) {
            memcpy(msg, &seq, sizeof(seq)); /* every message distinct (the seen cache) */
            if (mero_net_publish(pub, "ns/bench", msg, sizeof(msg)) != 4) {
                fprintf(stderr, "bench_net: publish %zu did not reach 4 peers\n", i);
                return 1;
            }
            if ((i & 255) == 255) {
                uv_run(loop, UV_RUN_NOWAIT);
            }
        }
        spin_until(all_delivered, 120);
        double dt = ((double)mero_now_ns() / 1e9) - t0;
        if (delivered < want_delivered) {
            fprintf(stderr, "bench_net: only %zu of %zu deliveries\n", delivered, want_delivered);
            return 1;
        }
        rate[r] = (double)delivered / dt;
    }
    printf("bench net_gossip_4subs_c %.0f msgs/s\n", median("net_gossip_4subs_c", rate, rounds));
    mero_net_free(pub);
    for (int i = 0; i < 4; i++) {
        mero_net_free(sub[i]);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    return hub_memory();
}
