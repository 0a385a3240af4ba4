/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_net_budget.c - connection budgets (issue 21 item 5: 128 silent or established peers
 * locked everyone out). The policy on socket-less connections with made-up addresses,
 * priorities and ages: who is evicted for whom, per-address caps, the handshake slots, the
 * outbound budget; the log rate limiter driven by an injected clock (the 61,318 lines 45 s of
 * churn wrote become a handful). Then live on loopback, bounded in count and time: a node whose
 * inbound budget is full of established idle strangers and whose handshake slots are full of
 * silent TCP connections still lets a member in and still dials out; a stranger over the
 * per-address cap is refused while a member from the same address is not; a connection that
 * trickles its handshake is closed by the handshake timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "support/net_fixture.h"
#include "mero/crypto.h"
#include "mero/net.h"
#include "net/budget_internal.h"
#include "net/conn_internal.h"
#include "net/multiaddr_internal.h"
#include "net/net_internal.h"
#include "support/conn_detached.h"

static uv_loop_t *loop;

/* An authenticated connection to `peer` is up (the set mero_net_connected_peers lists). */
static int is_connected(const struct mero_net *net, const char *peer)
{
    return mero__conn_find(net, peer) != NULL;
}

static void setup(void)
{
    if (loop == NULL) {
        if (mero_crypto_init() < 0) {
            abort();
        }
        loop = uv_default_loop();
    }
}

/* ---- the log rate limiter ---- */

TEST(ratelog_one_line_per_interval)
{
    struct mero__ratelog r = {.interval_ms = 10000};
    uint64_t held = 99;
    CHECK_EQ(mero__ratelog_hit(&r, 1000, &held), 1); /* the first event is logged */
    CHECK_EQ(held, 0);
    for (uint64_t t = 1001; t < 11000; t += 10) {
        CHECK_EQ(mero__ratelog_hit(&r, t, &held), 0);
    }
    CHECK_EQ(r.held, 1000);
    CHECK_EQ(mero__ratelog_flush(&r, 10999, &held), 0); /* interval not over */
    CHECK_EQ(mero__ratelog_hit(&r, 11000, &held), 1);
    CHECK_EQ(held, 1000); /* the next line reports what was held back */
    CHECK_EQ(r.held, 0);
    CHECK_EQ(mero__ratelog_hit(&r, 11001, &held), 0);
    CHECK_EQ(mero__ratelog_flush(&r, 20000, &held), 0);
    CHECK_EQ(mero__ratelog_flush(&r, 21000, &held), 1); /* the heartbeat reports the rest */
    CHECK_EQ(held, 1);
    CHECK_EQ(mero__ratelog_flush(&r, 40000, &held), 0); /* nothing held: nothing to say */
    CHECK_EQ(mero__ratelog_hit(&r, 40000, &held), 1);
    CHECK_EQ(held, 0);
    /* a clock that goes backwards does not silence the log */
    CHECK_EQ(mero__ratelog_hit(&r, 5, &held), 1);
}

/* The churn of the report: 61,318 closes in 45 s. */
TEST(ratelog_flood_of_45_seconds)
{
    struct mero__ratelog r = {.interval_ms = MERO__BUDGET_LOG_MS};
    uint64_t held = 0, lines = 0, reported = 0;
    for (uint64_t i = 0; i < 61318; i++) {
        uint64_t now = i * 45000u / 61318u;
        if (mero__ratelog_hit(&r, now, &held)) {
            lines++;
            reported += 1 + held;
        }
        if (i % 100 == 0 && mero__ratelog_flush(&r, now, &held)) {
            lines++;
            reported += held;
        }
    }
    if (mero__ratelog_flush(&r, 45000 + MERO__BUDGET_LOG_MS, &held)) {
        lines++;
        reported += held;
    }
    CHECK_MSG(lines <= 6, "%llu lines", (unsigned long long)lines);
    CHECK_EQ(reported, 61318); /* every event is counted in some line */
}

/* ---- the policy, on socket-less connections ----
 * An established newcomer is admitted as net.c admits it: mero__net_admit, the budget's
 * decision (mero__budget_up) and, for a refusal, the goodbye that turns it away. */

static struct mero_net *bare_net(const struct mero_net_config *cfg, uint8_t seed_byte)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net *n = NULL;
    setup();
    memset(seed, seed_byte, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, cfg, NULL, NULL, &n) < 0) {
        return NULL;
    }
    return n;
}

/* A socket-less inbound connection from 10.0.0.<ip> (IPv4), established or handshaking. */
static struct mero__conn *fake(struct mero_net *net, uint8_t ip, int up, int prio, uint64_t t)
{
    struct mero__conn *c = test_conn_detached(net);
    if (c == NULL) {
        return NULL;
    }
    c->raddr.family = 4;
    c->raddr.ip[0] = 10;
    c->raddr.ip[3] = ip;
    c->raddr.port = (uint16_t)(40000 + t);
    c->state = up ? MERO__C_UP : MERO__C_MSS_SEC;
    c->prio = prio;
    c->started_ms = t;
    c->up_ms = up ? t : 0;
    snprintf(c->peer, sizeof(c->peer), "fake-%u-%llu", ip, (unsigned long long)t);
    return c;
}

static int is_open(const struct mero__conn *c)
{
    return c->state != MERO__C_CLOSING;
}

/* issue 33: a refused newcomer is turned away with peer exchange and closes at its drain time;
 * run the heartbeat's drain as if that time had come */
static void drain_now(struct mero_net *n)
{
    for (struct mero__conn *c = n->conns; c; c = c->next) {
        if (c->drain_at) {
            c->drain_at = 1;
        }
    }
    mero__gossip_drain_tick(n);
}

static void free_net(struct mero_net *n)
{
    mero_net_free(n);
    uv_run(loop, UV_RUN_DEFAULT);
}

TEST(victim_lowest_priority_then_busiest_address_then_newest)
{
    struct mero_net *n = bare_net(NULL, 0x31);
    CHECK(n != NULL);
    struct mero__conn *m = fake(n, 1, 1, MERO_NET_PRIO_MEMBER, 1);
    struct mero__conn *s1 = fake(n, 2, 1, MERO_NET_PRIO_STRANGER, 2);
    struct mero__conn *s2 = fake(n, 3, 1, MERO_NET_PRIO_STRANGER, 3);
    struct mero__conn *s3 = fake(n, 3, 1, MERO_NET_PRIO_STRANGER, 4);
    struct mero__conn *s4 = fake(n, 4, 1, MERO_NET_PRIO_STRANGER, 5);
    CHECK(m && s1 && s2 && s3 && s4);
    /* a stranger never evicts a stranger */
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_STRANGER, NULL) == NULL);
    /* a member evicts a stranger of the address holding most connections, the newest of them */
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_MEMBER, NULL) == s3);
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_MEMBER, s3) == s2);
    /* a higher priority evicts strangers before members */
    CHECK(mero__budget_victim(n, 2, NULL) == s3);
    s1->prio = s2->prio = s3->prio = s4->prio = MERO_NET_PRIO_MEMBER;
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_MEMBER, NULL) == NULL);
    /* equal load: the most recently established goes first */
    s2->prio = s4->prio = MERO_NET_PRIO_STRANGER;
    struct mero__conn *p = fake(n, 4, 0, MERO_NET_PRIO_STRANGER, 6); /* a handshake from 4 */
    CHECK(p != NULL);
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_MEMBER, NULL) == s4); /* 10.0.0.4 holds two */
    /* handshaking and outbound connections are not established inbound ones */
    s2->outbound = 1;
    s4->prio = MERO_NET_PRIO_MEMBER;
    CHECK(mero__budget_victim(n, MERO_NET_PRIO_MEMBER, NULL) == NULL);
    s2->outbound = 0;
    free_net(n);
}

TEST(inbound_full_member_evicts_stranger_is_refused)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.max_inbound = 3;
    struct mero_net *n = bare_net(&cfg, 0x32);
    CHECK(n != NULL);
    struct mero__conn *a = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 1);
    struct mero__conn *b = fake(n, 2, 1, MERO_NET_PRIO_STRANGER, 2);
    struct mero__conn *c = fake(n, 3, 1, MERO_NET_PRIO_STRANGER, 3);
    CHECK(a && b && c);
    /* a fourth stranger: refused, nobody else touched */
    struct mero__conn *d = fake(n, 4, 1, MERO_NET_PRIO_STRANGER, 4);
    CHECK(d != NULL);
    CHECK_EQ(mero__net_admit(d), -MERO_EBUSY);
    CHECK(is_open(d) && d->drain_at != 0); /* turned away: draining, holds no slot */
    drain_now(n);
    CHECK(!is_open(d));
    CHECK(is_open(a) && is_open(b) && is_open(c));
    CHECK_EQ(n->nconns, 3);
    /* a member: admitted, the newest stranger evicted */
    struct mero__conn *m = fake(n, 5, 1, MERO_NET_PRIO_MEMBER, 5);
    CHECK(m != NULL);
    CHECK_EQ(mero__net_admit(m), 0);
    CHECK(is_open(m) && is_open(a) && is_open(b) && !is_open(c));
    CHECK_EQ(n->nconns, 3);
    /* members only: a stranger is refused, a member too (nobody of lower priority) */
    a->prio = b->prio = MERO_NET_PRIO_MEMBER;
    struct mero__conn *m2 = fake(n, 6, 1, MERO_NET_PRIO_MEMBER, 6);
    CHECK(m2 != NULL);
    CHECK_EQ(mero__net_admit(m2), -MERO_EBUSY);
    CHECK(is_open(a) && is_open(b) && is_open(m));
    /* room again: anyone is admitted */
    mero__conn_fail(b, MERO_ECLOSED, "test");
    struct mero__conn *s = fake(n, 7, 1, MERO_NET_PRIO_STRANGER, 7);
    CHECK(s != NULL);
    CHECK_EQ(mero__net_admit(s), 0);
    CHECK(is_open(s));
    /* every close went through the rate limiter: one line, the rest held back (uv_now does not
     * move while the loop does not run) */
    CHECK_EQ(n->budget_log.logged, 1);
    CHECK_EQ(n->budget_log.held, 2);
    free_net(n);
}

TEST(per_address_cap_counts_strangers_not_members)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.max_inbound_per_ip = 2;
    struct mero_net *n = bare_net(&cfg, 0x33);
    CHECK(n != NULL);
    struct mero__conn *a = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 1);
    struct mero__conn *b = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 2);
    struct mero__conn *o = fake(n, 2, 1, MERO_NET_PRIO_STRANGER, 3);
    CHECK(a && b && o);
    struct mero__conn *c = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 4);
    CHECK(c != NULL);
    CHECK_EQ(mero__net_admit(c), -MERO_EBUSY); /* a third stranger from 10.0.0.1 */
    CHECK(c->drain_at != 0);
    drain_now(n);
    CHECK(!is_open(c) && is_open(a) && is_open(b));
    struct mero__conn *d = fake(n, 2, 1, MERO_NET_PRIO_STRANGER, 5);
    CHECK(d != NULL);
    CHECK_EQ(mero__net_admit(d), 0); /* another address has its own cap */
    struct mero__conn *m = fake(n, 1, 1, MERO_NET_PRIO_MEMBER, 6);
    CHECK(m != NULL);
    CHECK_EQ(mero__net_admit(m), 0); /* members are not capped per address */
    struct mero__conn *m2 = fake(n, 1, 1, MERO_NET_PRIO_MEMBER, 7);
    CHECK(m2 != NULL);
    CHECK_EQ(mero__net_admit(m2), 0);
    CHECK(is_open(a) && is_open(b) && is_open(m) && is_open(m2));
    /* members from the address do not count against its strangers either */
    mero__conn_fail(a, MERO_ECLOSED, "test");
    struct mero__conn *e = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 8);
    CHECK(e != NULL);
    CHECK_EQ(mero__net_admit(e), 0);
    /* an IPv6 /64 is one address */
    for (int i = 0; i < 3; i++) {
        struct mero__conn *v = fake(n, 9, 1, MERO_NET_PRIO_STRANGER, 20 + (uint64_t)i);
        CHECK(v != NULL);
        v->raddr.family = 6;
        memset(v->raddr.ip, 0x20, 8);
        v->raddr.ip[15] = (uint8_t)i; /* different hosts of one /64 */
        CHECK_EQ(mero__net_admit(v), i < 2 ? 0 : -MERO_EBUSY);
    }
    /* an IPv4-mapped IPv6 address (dual-stack listener) is that IPv4 address, not a /64 shared
     * by every IPv4 client: 10.0.0.2 already holds two strangers (o, d), 10.0.0.3 none */
    for (int i = 0; i < 2; i++) {
        struct mero__conn *v = fake(n, 0, 1, MERO_NET_PRIO_STRANGER, 30 + (uint64_t)i);
        CHECK(v != NULL);
        memset(v->raddr.ip, 0, 16);
        v->raddr.family = 6;
        v->raddr.ip[10] = v->raddr.ip[11] = 0xff;
        v->raddr.ip[12] = 10;
        v->raddr.ip[15] = (uint8_t)(2 + i);
        CHECK_EQ(mero__net_admit(v), i == 0 ? -MERO_EBUSY : 0);
    }
    free_net(n);
}

TEST(handshake_slots_close_the_oldest)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.max_pending = 3;
    cfg.max_inbound_per_ip = 2;
    struct mero_net *n = bare_net(&cfg, 0x34);
    CHECK(n != NULL);
    struct mero__conn *up = fake(n, 1, 1, MERO_NET_PRIO_STRANGER, 1); /* not a handshake */
    struct mero__conn *p1 = fake(n, 1, 0, 0, 10);
    struct mero__conn *p2 = fake(n, 2, 0, 0, 11);
    struct mero__conn *p3 = fake(n, 1, 0, 0, 12);
    CHECK(up && p1 && p2 && p3);
    /* a third handshake from 10.0.0.1 closes that address's oldest (p1), not p2 */
    struct mero__conn *p4 = fake(n, 1, 0, 0, 13);
    CHECK(p4 != NULL);
    mero__budget_accept(p4);
    CHECK(!is_open(p1) && is_open(p2) && is_open(p3) && is_open(p4) && is_open(up));
    /* the slots are full (p2, p3, p4): a handshake from elsewhere closes the oldest overall */
    struct mero__conn *p5 = fake(n, 3, 0, 0, 14);
    CHECK(p5 != NULL);
    mero__budget_accept(p5);
    CHECK(!is_open(p2) && is_open(p3) && is_open(p4) && is_open(p5) && is_open(up));
    /* under the limits nothing is closed */
    mero__conn_fail(p3, MERO_ECLOSED, "test");
    struct mero__conn *p6 = fake(n, 4, 0, 0, 15);
    CHECK(p6 != NULL);
    mero__budget_accept(p6);
    CHECK(is_open(p4) && is_open(p5) && is_open(p6));
    free_net(n);
}

TEST(outbound_budget_is_separate)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.max_outbound = 2;
    cfg.max_inbound = 1;
    struct mero_net *n = bare_net(&cfg, 0x35);
    CHECK(n != NULL);
    for (int i = 0; i < 5; i++) { /* inbound connections do not use outbound slots */
        CHECK(fake(n, (uint8_t)i, i % 2, 0, (uint64_t)i) != NULL);
    }
    CHECK_EQ(mero__budget_dial(n), 0);
    struct mero__conn *o1 = fake(n, 9, 0, 0, 10), *o2 = fake(n, 9, 1, 0, 11);
    CHECK(o1 && o2);
    o1->outbound = o2->outbound = 1;
    CHECK_EQ(mero__budget_dial(n), -MERO_EBUSY);
    CHECK_EQ(mero_net_dial(n, "/ip4/127.0.0.1/tcp/9", NULL, NULL), -MERO_EBUSY);
    mero__conn_fail(o1, MERO_ECLOSED, "test");
    CHECK_EQ(mero__budget_dial(n), 0);
    free_net(n);
}

/* ---- live, on loopback ---- */

static struct mero_net *g_victim;
static char g_member[MERO_PEER_ID_STR_MAX];

static int victim_prio(void *ud, const char *peer)
{
    (void)ud;
    return strcmp(peer, g_member) == 0 ? MERO_NET_PRIO_MEMBER : MERO_NET_PRIO_STRANGER;
}

static struct mero_net *live_node(uint8_t seed_byte, const struct mero_net_config *cfg, int listen,
                                  int member_cb)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net *n = NULL;
    struct mero_net_callbacks cb = {.peer_priority = member_cb ? victim_prio : NULL};
    setup();
    memset(seed, seed_byte, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, cfg, &cb, NULL, &n) < 0) {
        return NULL;
    }
    if (listen && mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0) {
        mero_net_free(n);
        return NULL;
    }
    return n;
}

static void addr_of(struct mero_net *n, char out[MERO_MULTIADDR_STR_MAX])
{
    char a[1][MERO_MULTIADDR_STR_MAX];
    out[0] = 0;
    if (mero_net_listen_addrs(n, a, 1) == 1) {
        memcpy(out, a[0], MERO_MULTIADDR_STR_MAX);
    }
}

static int port_of(struct mero_net *n)
{
    char a[MERO_MULTIADDR_STR_MAX];
    struct mero__maddr m;
    addr_of(n, a);
    return mero__maddr_parse(a, &m) == 0 ? m.port : -1;
}

static void expire_cb(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

/* Run the loop until pred() holds or ms pass; returns pred(). */
static int run_until(int (*pred)(void), uint64_t ms)
{
    uv_timer_t t;
    int expired = 0;
    uv_timer_init(loop, &t);
    t.data = &expired;
    uv_timer_start(&t, expire_cb, ms, 0);
    while (!pred() && !expired) {
        uv_run(loop, UV_RUN_ONCE);
    }
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return pred();
}

static size_t count_in(const struct mero_net *n, int up)
{
    size_t k = 0;
    for (const struct mero__conn *c = n->conns; c; c = c->next) {
        if (!c->outbound && (c->state == MERO__C_UP) == (up != 0)) {
            k++;
        }
    }
    return k;
}

/* Silent TCP connections (they never send a byte). */
#define SILENT 24
static int g_fd[SILENT];
static int g_fd_closed[SILENT];

static int silent_open(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return -1;
    }
    (void)fcntl(fd, F_SETFL, O_NONBLOCK);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

/* How many silent connections the node has closed (EOF or reset seen). */
static int silent_closed(void)
{
    int k = 0;
    for (int i = 0; i < SILENT; i++) {
        if (!g_fd_closed[i] && g_fd[i] >= 0) {
            uint8_t b[64];
            ssize_t r = recv(g_fd[i], b, sizeof(b), MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
                g_fd_closed[i] = 1;
            }
        }
        k += g_fd_closed[i];
    }
    return k;
}

static int g_want_closed;
static size_t g_want_pending;
static int silent_flood_settled(void)
{
    return silent_closed() >= g_want_closed && count_in(g_victim, 0) == g_want_pending;
}

struct dres {
    int done, status;
};

static void on_dial(void *ud, int status, const char *peer)
{
    struct dres *r = ud;
    (void)peer;
    r->done = 1;
    r->status = status;
}

static void on_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    struct dres *r = ud;
    (void)d;
    r->done = 1;
    r->status = status == 0 && n == 32 ? 0 : (status ? status : -1);
}

#define STRANGERS 7
static struct mero_net *g_str[STRANGERS];
static struct dres g_str_dial[STRANGERS];
static size_t g_want_up;
static int established_reached(void)
{
    return count_in(g_victim, 1) == g_want_up;
}
static struct dres *g_wait;
static int waited_done(void)
{
    return g_wait->done;
}
static struct mero_net *g_last;
static int last_refused(void)
{
    return g_str_dial[STRANGERS - 1].done && !is_connected(g_last, g_victim->id);
}

TEST(flood_member_and_outbound_dial_get_through)
{
    struct mero_net_config cfg;
    char vaddr[MERO_MULTIADDR_STR_MAX], waddr[MERO_MULTIADDR_STR_MAX];
    mero_net_config_default(&cfg);
    cfg.max_inbound = STRANGERS - 1; /* the last stranger finds the inbound budget full */
    cfg.max_pending = 4;
    cfg.max_inbound_per_ip = 100; /* everyone is on 127.0.0.1 here */
    struct mero_net *member = live_node(0x41, NULL, 0, 0);
    struct mero_net *w = live_node(0x42, NULL, 1, 0); /* a peer the victim dials out to */
    CHECK(member != NULL && w != NULL);
    snprintf(g_member, sizeof(g_member), "%s", mero_net_peer_id(member));
    g_victim = live_node(0x40, &cfg, 1, 1);
    CHECK(g_victim != NULL);
    CHECK_EQ(mero_net_handle(g_victim, "/t/sum", netf_sum_handler, NULL), 0);
    addr_of(g_victim, vaddr);
    addr_of(w, waddr);

    /* established idle strangers fill the inbound budget (one after the other: more handshakes
     * at once than max_pending would close the oldest); one more is refused */
    for (int i = 0; i < STRANGERS - 1; i++) {
        g_str[i] = live_node((uint8_t)(0x50 + i), NULL, 0, 0);
        CHECK(g_str[i] != NULL);
        CHECK_EQ(mero_net_dial(g_str[i], vaddr, on_dial, &g_str_dial[i]), 0);
        g_want_up = (size_t)i + 1;
        CHECK_MSG(run_until(established_reached, 10000), "%zu established", count_in(g_victim, 1));
    }
    g_last = g_str[STRANGERS - 1] = live_node(0x50 + STRANGERS - 1, NULL, 0, 0);
    CHECK(g_last != NULL);
    CHECK_EQ(mero_net_dial(g_last, vaddr, on_dial, &g_str_dial[STRANGERS - 1]), 0);
    CHECK_MSG(run_until(last_refused, 10000), "the stranger over the budget got in");
    CHECK_EQ(count_in(g_victim, 1), STRANGERS - 1);

    /* silent TCP connections: only max_pending stay, the older ones are closed */
    int port = port_of(g_victim);
    CHECK(port > 0);
    for (int i = 0; i < SILENT; i++) {
        g_fd[i] = silent_open(port);
        g_fd_closed[i] = 0;
        CHECK(g_fd[i] >= 0);
    }
    g_want_closed = SILENT - (int)cfg.max_pending;
    g_want_pending = cfg.max_pending;
    CHECK_MSG(run_until(silent_flood_settled, 10000), "%d silent closed, %zu handshaking",
              silent_closed(), count_in(g_victim, 0));

    /* the member gets in (a stranger makes room) and is answered */
    struct dres req = {0};
    CHECK_EQ(mero_net_add_addr(member, vaddr), 0);
    CHECK_EQ(mero_net_request(member, g_victim->id, "/t/sum", (const uint8_t *)"hi", 2, 10000,
                              on_reply, &req),
             0);
    g_wait = &req;
    CHECK(run_until(waited_done, 15000));
    CHECK_EQ(req.status, 0);
    CHECK(is_connected(g_victim, g_member));
    CHECK_EQ(count_in(g_victim, 1), STRANGERS - 1);
    int strangers_left = 0;
    for (int i = 0; i < STRANGERS; i++) {
        strangers_left += is_connected(g_victim, mero_net_peer_id(g_str[i]));
    }
    CHECK_EQ(strangers_left, STRANGERS - 2);

    /* and the victim still dials out (its outbound budget is its own) */
    struct dres d = {0};
    CHECK_EQ(mero_net_dial(g_victim, waddr, on_dial, &d), 0);
    g_wait = &d;
    CHECK(run_until(waited_done, 10000));
    CHECK_EQ(d.status, 0);

    for (int i = 0; i < SILENT; i++) {
        close(g_fd[i]);
    }
    for (int i = 0; i < STRANGERS; i++) {
        mero_net_free(g_str[i]);
    }
    mero_net_free(member);
    mero_net_free(w);
    mero_net_free(g_victim);
    uv_run(loop, UV_RUN_DEFAULT);
    g_victim = NULL;
}

TEST(per_address_cap_live_member_still_admitted)
{
    struct mero_net_config cfg;
    char vaddr[MERO_MULTIADDR_STR_MAX];
    mero_net_config_default(&cfg);
    cfg.max_inbound_per_ip = 3;
    struct mero_net *member = live_node(0x61, NULL, 0, 0);
    CHECK(member != NULL);
    snprintf(g_member, sizeof(g_member), "%s", mero_net_peer_id(member));
    g_victim = live_node(0x60, &cfg, 1, 1);
    CHECK(g_victim != NULL);
    addr_of(g_victim, vaddr);
    struct mero_net *s[5];
    struct dres sd[5];
    memset(sd, 0, sizeof(sd));
    for (int i = 0; i < 5; i++) {
        s[i] = live_node((uint8_t)(0x70 + i), NULL, 0, 0);
        CHECK(s[i] != NULL);
        CHECK_EQ(mero_net_dial(s[i], vaddr, on_dial, &sd[i]), 0);
        g_wait = &sd[i];
        CHECK(run_until(waited_done, 10000));
    }
    g_want_up = 3;
    CHECK_MSG(run_until(established_reached, 10000), "%zu established", count_in(g_victim, 1));
    struct dres d = {0};
    CHECK_EQ(mero_net_dial(member, vaddr, on_dial, &d), 0);
    g_want_up = 4;
    CHECK_MSG(run_until(established_reached, 10000), "%zu established", count_in(g_victim, 1));
    CHECK(is_connected(g_victim, g_member));
    for (int i = 0; i < 5; i++) {
        mero_net_free(s[i]);
    }
    mero_net_free(member);
    mero_net_free(g_victim);
    uv_run(loop, UV_RUN_DEFAULT);
    g_victim = NULL;
}

/* An unauthenticated connection cannot hold a slot: trickling the handshake one byte at a time
 * does not reset the handshake timer. */
static int g_trickle_fd;
static int g_trickle_closed;
static int g_trickle_sent;
static const char g_mss[] = "\x13/multistream/1.0.0\n";
static void trickle_cb(uv_timer_t *t)
{
    uint8_t b[64];
    ssize_t r = recv(g_trickle_fd, b, sizeof(b), MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        g_trickle_closed = 1;
        uv_timer_stop(t);
        return;
    }
    if (g_trickle_sent < (int)sizeof(g_mss) - 1) {
        (void)send(g_trickle_fd, g_mss + g_trickle_sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        g_trickle_sent++;
    }
}
static int trickle_done(void)
{
    return g_trickle_closed;
}

TEST(handshake_timeout_closes_a_trickling_connection)
{
    struct mero_net_config cfg;
    mero_net_config_default(&cfg);
    cfg.handshake_timeout_ms = 300;
    g_victim = live_node(0x80, &cfg, 1, 0);
    CHECK(g_victim != NULL);
    g_trickle_fd = silent_open(port_of(g_victim));
    CHECK(g_trickle_fd >= 0);
    g_trickle_closed = g_trickle_sent = 0;
    uv_timer_t t;
    uv_timer_init(loop, &t);
    uv_timer_start(&t, trickle_cb, 20, 20); /* one byte per 20 ms: 20 bytes take 400 ms */
    int closed = run_until(trickle_done, 10000);
    uv_close((uv_handle_t *)&t, NULL);
    close(g_trickle_fd);
    CHECK_MSG(closed, "still open after 10 s");
    CHECK_EQ(count_in(g_victim, 0), 0);
    CHECK_EQ(g_victim->nconns, 0);
    mero_net_free(g_victim);
    uv_run(loop, UV_RUN_DEFAULT);
    g_victim = NULL;
}

MERO_TEST_MAIN(T(ratelog_one_line_per_interval), T(ratelog_flood_of_45_seconds),
               T(victim_lowest_priority_then_busiest_address_then_newest),
               T(inbound_full_member_evicts_stranger_is_refused),
               T(per_address_cap_counts_strangers_not_members), T(handshake_slots_close_the_oldest),
               T(outbound_budget_is_separate), T(flood_member_and_outbound_dial_get_through),
               T(per_address_cap_live_member_still_admitted),
               T(handshake_timeout_closes_a_trickling_connection))
