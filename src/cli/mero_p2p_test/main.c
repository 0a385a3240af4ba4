/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mero_p2p_test - a TEST TOOL, not a product binary: a tiny command-line peer over libmero's
 * net layer so shell scripts can drive interop (js-libp2p) and multi-node tests. It listens,
 * dials, subscribes, publishes and serves an echo request/response protocol; it reads commands
 * from stdin, one per line, and prints events on stdout, one per line:
 *
 *   commands: dial ADDR | sub TOPIC | unsub TOPIC | pub TOPIC TEXT | req PEER PROTO TEXT |
 *             peers | addr PEERADDR | flood N ADDR | pubhex TOPIC N HEX | prio PEER N |
 *             pxstats | quit
 *   events:   id ID | listen ADDR | peer up|down ID | msg TOPIC FROM TEXT | pub N|ERR |
 *             dial ok ID|err CODE | reply ok TEXT|err CODE | served PROTO FROM TEXT | peers N |
 *             flood done OK ERR | pubhex SENT | prio ok|err CODE |
 *             pxstats SENT ACCEPTED DIALS
 *
 * `prio PEER N` sets the connection priority of PEER (0..255; MERO_NET_PRIO_MEMBER and more
 * lets us take peer exchange from it whatever its score). `pxstats` prints the gossipsub peer
 * exchange counters (mero_net_gossip_stats: records sent in PRUNEs, records received that
 * verified, dials made from them): the js-libp2p interop test's peer exchange checks.
 *
 * `pubhex TOPIC N HEX` (the gossip scoring test): publish the bytes HEX (at most 4 KiB) N times,
 * each a message of its own; "pubhex SENT" counts the publishes that reached a peer.
 *
 * `flood N ADDR` (connection-budget tests): N more identities (random keys, at most 256 in
 * all) in this process dial ADDR one after another and then stay connected and idle; "flood
 * done" counts the dials that completed and those that failed (the remote may still close a
 * connection that completed, when its budget refuses it).
 *
 * Options: --seed HEX32 (identity seed; random otherwise), --listen MA (repeatable),
 * --echo PROTO (answer requests on PROTO with "echo:" + request), --sub TOPIC, --dial MA,
 * --slow-ms N (answer each echo request N ms after it arrived, 0..600000; 0, the default,
 * answers at once: a slow peer for timeout tests), --max-inbound N (established inbound
 * connections, 1..65536; a newcomer beyond it is turned away with a peer exchange goodbye).
 * Exits on "quit" or end of input; echo
 * answers still waiting then are dropped (the stream is reset).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/net.h"

static struct mero_net *g_net;
static uv_loop_t *g_loop;
static uv_pipe_t g_in;
static char g_line[1 << 20];
static size_t g_linelen;
static int g_quit;

static void out(const char *fmt, ...) MERO_PRINTF(1, 2);
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static int on_gossip(void *ud, const char *topic, const char *from, const uint8_t *data, size_t len)
{
    (void)ud;
    out("msg %s %s %.*s", topic, from, (int)len, (const char *)data);
    return 0;
}

static void on_peer(void *ud, const char *peer, int up)
{
    (void)ud;
    out("peer %s %s", up ? "up" : "down", peer);
}

static void on_dial(void *ud, int status, const char *peer)
{
    (void)ud;
    if (status == 0) {
        out("dial ok %s", peer);
    } else {
        out("dial err %s", mero_strerror(status));
    }
}

static void on_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    (void)ud;
    if (status == 0) {
        out("reply ok %.*s", (int)len, (const char *)data);
    } else {
        out("reply err %s", mero_strerror(status));
    }
}

#define SLOW_MS_MAX 600000u
static uint64_t g_slow_ms; /* --slow-ms: how long an echo answer waits */

/* An echo answer waiting for its --slow-ms (a list, so quit can drop the ones left). */
struct slow_echo {
    uv_timer_t t;
    struct mero_net_req *req; /* NULL once answered or dropped */
    uint8_t *buf;
    size_t len;
    struct slow_echo *next;
};
static struct slow_echo *g_slow;

static void slow_closed(uv_handle_t *h)
{
    struct slow_echo *e = h->data;
    free(e->buf);
    free(e);
}

static void slow_remove(struct slow_echo *e)
{
    for (struct slow_echo **pp = &g_slow; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    }
    uv_close((uv_handle_t *)&e->t, slow_closed);
}

static void slow_fire(uv_timer_t *t)
{
    struct slow_echo *e = t->data;
    if (mero_net_respond(e->req, e->buf, e->len) < 0) {
        out("respond failed");
    }
    e->req = NULL;
    slow_remove(e);
}

/* quit: the answers still waiting are dropped before the net goes */
static void slow_drop_all(void)
{
    while (g_slow != NULL) {
        struct slow_echo *e = g_slow;
        uv_timer_stop(&e->t);
        mero_net_req_drop(e->req);
        e->req = NULL;
        slow_remove(e);
    }
}

static void echo(void *ud, struct mero_net_req *req, const char *from, const uint8_t *data,
                 size_t len)
{
    const char *proto = ud;
    uint8_t *buf = malloc(len + 5);
    if (buf == NULL) {
        mero_net_req_drop(req);
        return;
    }
    memcpy(buf, "echo:", 5);
    if (len) {
        memcpy(buf + 5, data, len);
    }
    out("served %s %s %.*s", proto, from, (int)len, (const char *)data);
    if (g_slow_ms > 0) {
        struct slow_echo *e = calloc(1, sizeof(*e));
        if (e == NULL) {
            free(buf);
            mero_net_req_drop(req);
            return;
        }
        e->req = req;
        e->buf = buf;
        e->len = len + 5;
        uv_timer_init(g_loop, &e->t);
        e->t.data = e;
        uv_timer_start(&e->t, slow_fire, g_slow_ms, 0);
        e->next = g_slow;
        g_slow = e;
        return;
    }
    if (mero_net_respond(req, buf, len + 5) < 0) {
        out("respond failed");
    }
    free(buf);
}

/* flood: idle extra identities */
#define CLONES_MAX 256
static struct mero_net *g_clone[CLONES_MAX];
static size_t g_nclone, g_clone_want, g_clone_ok, g_clone_err;
static char g_clone_addr[MERO_MULTIADDR_STR_MAX];

static void clone_next(void);

static void on_clone_dial(void *ud, int status, const char *peer)
{
    (void)ud;
    (void)peer;
    if (status == 0) {
        g_clone_ok++;
    } else {
        g_clone_err++;
    }
    clone_next();
}

/* Start the next clone's dial (each waits for the previous one: the remote's handshake slots
 * are not what this floods). */
static void clone_next(void)
{
    while (!g_quit && g_nclone < g_clone_want) {
        uint8_t seed[MERO_ED25519_SEED_LEN], pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
        struct mero_net *n = NULL;
        mero_random(seed, sizeof(seed));
        mero_ed25519_from_seed(pk, sk, seed);
        mero_wipe(seed, sizeof(seed));
        int rc = mero_net_new(g_loop, sk, NULL, NULL, NULL, &n);
        mero_wipe(sk, sizeof(sk));
        if (rc < 0) {
            break;
        }
        g_clone[g_nclone++] = n;
        if (mero_net_dial(n, g_clone_addr, on_clone_dial, NULL) == 0) {
            return; /* on_clone_dial continues */
        }
        g_clone_err++;
    }
    out("flood done %zu %zu", g_clone_ok, g_clone_err);
    g_clone_want = g_nclone;
}

static void shutdown_all(void)
{
    if (!g_quit) {
        g_quit = 1;
        uv_read_stop((uv_stream_t *)&g_in);
        uv_close((uv_handle_t *)&g_in, NULL);
        slow_drop_all();
        mero_net_free(g_net);
        g_net = NULL;
        for (size_t i = 0; i < g_nclone; i++) {
            mero_net_free(g_clone[i]);
        }
        g_nclone = 0;
    }
}

static void command(char *line)
{
    char *sp = strchr(line, ' ');
    char *arg = sp ? sp + 1 : (char *)"";
    int rc;
    if (sp) {
        *sp = 0;
    }
    if (!strcmp(line, "quit")) {
        shutdown_all();
    } else if (!strcmp(line, "dial")) {
        rc = mero_net_dial(g_net, arg, on_dial, NULL);
        if (rc < 0) {
            out("dial err %s", mero_strerror(rc));
        }
    } else if (!strcmp(line, "flood")) {
        char *addr = strchr(arg, ' ');
        uint64_t k = 0;
        if (addr != NULL) {
            *addr++ = 0;
        }
        if (addr == NULL || mero_parse_u64(arg, CLONES_MAX - g_nclone, &k) < 0 || k == 0 ||
            g_clone_want > g_nclone || strlen(addr) >= sizeof(g_clone_addr)) {
            out("flood err EINVAL");
            return;
        }
        snprintf(g_clone_addr, sizeof(g_clone_addr), "%s", addr);
        g_clone_ok = g_clone_err = 0;
        g_clone_want = g_nclone + k;
        clone_next();
    } else if (!strcmp(line, "addr")) {
        rc = mero_net_add_addr(g_net, arg);
        out("addr %s", rc < 0 ? mero_strerror(rc) : "ok");
    } else if (!strcmp(line, "sub")) {
        rc = mero_net_subscribe(g_net, arg);
        out("sub %s", rc < 0 ? mero_strerror(rc) : "ok");
    } else if (!strcmp(line, "unsub")) {
        rc = mero_net_unsubscribe(g_net, arg);
        out("unsub %s", rc < 0 ? mero_strerror(rc) : "ok");
    } else if (!strcmp(line, "pub")) {
        char *text = strchr(arg, ' ');
        if (text == NULL) {
            out("pub EINVAL");
            return;
        }
        *text++ = 0;
        rc = mero_net_publish(g_net, arg, (const uint8_t *)text, strlen(text));
        if (rc < 0) {
            out("pub %s", mero_strerror(rc));
        } else {
            out("pub %d", rc);
        }
    } else if (!strcmp(line, "pubhex")) {
        /* pubhex TOPIC N HEX: publish the bytes of HEX N times (each its own message) */
        char *n_s = strchr(arg, ' ');
        char *hex = n_s ? strchr(n_s + 1, ' ') : NULL;
        uint8_t bytes[4096];
        size_t blen = 0;
        uint64_t n = 0;
        if (hex == NULL) {
            out("pubhex EINVAL");
            return;
        }
        *n_s++ = 0;
        *hex++ = 0;
        if (mero_parse_u64(n_s, 100000, &n) < 0 ||
            mero_hex_decode(bytes, sizeof(bytes), hex, strlen(hex), &blen) < 0) {
            out("pubhex EINVAL");
            return;
        }
        uint64_t sent = 0;
        for (uint64_t i = 0; i < n; i++) {
            sent += mero_net_publish(g_net, arg, bytes, blen) > 0;
        }
        out("pubhex %llu", (unsigned long long)sent);
    } else if (!strcmp(line, "req")) {
        char *proto = strchr(arg, ' ');
        char *text = proto ? strchr(proto + 1, ' ') : NULL;
        if (text == NULL) {
            out("reply err EINVAL");
            return;
        }
        *proto++ = 0;
        *text++ = 0;
        rc = mero_net_request(g_net, arg, proto, (const uint8_t *)text, strlen(text), 0, on_reply,
                              NULL);
        if (rc < 0) {
            out("reply err %s", mero_strerror(rc));
        }
    } else if (!strcmp(line, "peers")) {
        out("peers %zu", mero_net_connected_peers(g_net, NULL, 0));
    } else if (!strcmp(line, "prio")) {
        char *n_s = strchr(arg, ' ');
        uint64_t prio = 0;
        if (n_s == NULL) {
            out("prio err EINVAL");
            return;
        }
        *n_s++ = 0;
        if (mero_parse_u64(n_s, 255, &prio) < 0) {
            out("prio err EINVAL");
            return;
        }
        mero_net_set_priority(g_net, arg, (int)prio);
        out("prio ok");
    } else if (!strcmp(line, "pxstats")) {
        struct mero_net_gossip_stats st;
        mero_net_gossip_stats(g_net, &st);
        out("pxstats %llu %llu %llu", (unsigned long long)st.px_records_sent,
            (unsigned long long)st.px_records_accepted, (unsigned long long)st.px_dials);
    } else if (!strcmp(line, "topicpeers")) {
        out("topicpeers %zu", mero_net_topic_peers(g_net, arg));
    } else if (line[0]) {
        out("unknown %s", line);
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    static char slab[65536];
    (void)h;
    (void)hint;
    *b = uv_buf_init(slab, sizeof(slab));
}

static void on_stdin(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    (void)s;
    if (n < 0) {
        shutdown_all();
        return;
    }
    for (ssize_t i = 0; i < n && !g_quit; i++) {
        char ch = b->base[i];
        if (ch == '\n') {
            g_line[g_linelen] = 0;
            g_linelen = 0;
            command(g_line);
        } else if (g_linelen + 1 < sizeof(g_line)) {
            g_line[g_linelen++] = ch;
        }
    }
}

int main(int argc, char **argv)
{
    uint8_t seed[MERO_ED25519_SEED_LEN], pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    int have_seed = 0;
    struct mero_net_callbacks cb = {.on_gossip = on_gossip, .on_peer = on_peer};
    struct mero_net_config cfg;
    uint64_t max_inbound = 0;
    const char *listens[8], *subs[8], *dials[8], *echo_proto = NULL;
    size_t nl = 0, ns = 0, nd = 0;
    if (mero_crypto_init() < 0) {
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "mero_p2p_test: %s needs a value\n", a);
            return 1;
        }
        i++;
        if (!strcmp(a, "--seed")) {
            if (mero_hex_decode_exact(seed, sizeof(seed), v, strlen(v)) < 0) {
                fprintf(stderr, "mero_p2p_test: bad seed\n");
                return 1;
            }
            have_seed = 1;
        } else if (!strcmp(a, "--listen") && nl < 8) {
            listens[nl++] = v;
        } else if (!strcmp(a, "--sub") && ns < 8) {
            subs[ns++] = v;
        } else if (!strcmp(a, "--dial") && nd < 8) {
            dials[nd++] = v;
        } else if (!strcmp(a, "--echo")) {
            echo_proto = v;
        } else if (!strcmp(a, "--slow-ms")) {
            if (mero_parse_u64(v, SLOW_MS_MAX, &g_slow_ms) < 0) {
                fprintf(stderr, "mero_p2p_test: --slow-ms takes milliseconds, 0 to %u\n",
                        SLOW_MS_MAX);
                return 1;
            }
        } else if (!strcmp(a, "--max-inbound")) {
            if (mero_parse_u64(v, 65536, &max_inbound) < 0 || max_inbound == 0) {
                fprintf(stderr, "mero_p2p_test: --max-inbound takes 1 to 65536\n");
                return 1;
            }
        } else {
            fprintf(stderr, "mero_p2p_test: unknown option %s\n", a);
            return 1;
        }
    }
    if (!have_seed) {
        mero_random(seed, sizeof(seed));
    }
    mero_ed25519_from_seed(pk, sk, seed);
    g_loop = uv_default_loop();
    mero_net_config_default(&cfg);
    if (max_inbound > 0) {
        cfg.max_inbound = (uint32_t)max_inbound;
    }
    if (mero_net_new(g_loop, sk, &cfg, &cb, NULL, &g_net) < 0) {
        fprintf(stderr, "mero_p2p_test: net init failed\n");
        return 1;
    }
    mero_wipe(sk, sizeof(sk));
    out("id %s", mero_net_peer_id(g_net));
    for (size_t i = 0; i < nl; i++) {
        int rc = mero_net_listen(g_net, listens[i]);
        if (rc < 0) {
            fprintf(stderr, "mero_p2p_test: listen %s: %s\n", listens[i], mero_strerror(rc));
            return 1;
        }
    }
    char addrs[8][MERO_MULTIADDR_STR_MAX];
    size_t na = mero_net_listen_addrs(g_net, addrs, 8);
    for (size_t i = 0; i < na && i < 8; i++) {
        out("listen %s", addrs[i]);
    }
    if (echo_proto && mero_net_handle(g_net, echo_proto, echo, (void *)echo_proto) < 0) {
        return 1;
    }
    for (size_t i = 0; i < ns; i++) {
        if (mero_net_subscribe(g_net, subs[i]) < 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < nd; i++) {
        int rc = mero_net_dial(g_net, dials[i], on_dial, NULL);
        if (rc < 0) {
            out("dial err %s", mero_strerror(rc));
        }
    }
    uv_pipe_init(g_loop, &g_in, 0);
    if (uv_pipe_open(&g_in, 0) == 0) {
        uv_read_start((uv_stream_t *)&g_in, on_alloc, on_stdin);
    }
    uv_run(g_loop, UV_RUN_DEFAULT);
    if (g_net) {
        mero_net_free(g_net);
        uv_run(g_loop, UV_RUN_DEFAULT);
    }
    return 0;
}
