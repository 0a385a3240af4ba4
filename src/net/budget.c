/* SPDX-License-Identifier: Apache-2.0 */
/*
 * budget.c - connection budgets: which connections a node keeps when peers flood it, and a
 * rate limiter for the log lines that floods cause.
 *
 * Budgets (docs/network.md, "Connection budgets"): inbound connections still in the handshake
 * (at most cfg.max_pending overall and cfg.max_inbound_per_ip per source address; a new one
 * beyond either closes the oldest, so silent connections cannot keep a legitimate peer from
 * starting its handshake), established inbound connections (at most cfg.max_inbound; when
 * full, a newcomer of higher priority evicts the lowest-priority one, others are refused; at
 * most cfg.max_inbound_per_ip established strangers per source address) and outbound
 * connections (at most cfg.max_outbound, counted apart, so no inbound flood takes the slots of
 * our own dials). A source address is an IPv4 address (also IPv4-mapped) or an IPv6 /64. The
 * priority is the
 * application's (mero_net_callbacks.peer_priority): the net layer does not know what a member
 * is, only which connections are worth more.
 *
 * This file stands one floor above the transport (conn.c, yamux.c: it closes connections
 * through them) and below the protocols: conn.c reaches it only through net->conn_ops, and a
 * refused newcomer is turned away (goodbye with peer exchange) by net.c, not here.
 *
 * Invariants: the counts bound the connections the net holds at any moment (pending + inbound
 * + outbound); a budget never closes the connection that is being admitted in favour of one
 * of equal or lower priority; every close for a budget reason goes through the rate limiter,
 * so a flood writes at most one line per MERO__BUDGET_LOG_MS (plus the count it held back).
 */
#include <string.h>

#include "mero/log.h"
#include "net/budget_internal.h"
#include "net/conn_internal.h"
#include "net/multiaddr_internal.h"
#include "net/net_internal.h"
#include "net/yamux_internal.h"

int mero__ratelog_hit(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held)
{
    if (r->logged && now_ms - r->last_ms < r->interval_ms && now_ms >= r->last_ms) {
        r->held++;
        return 0;
    }
    *held = r->held;
    r->held = 0;
    r->logged = 1;
    r->last_ms = now_ms;
    return 1;
}

int mero__ratelog_flush(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held)
{
    if (r->held == 0 || (now_ms - r->last_ms < r->interval_ms && now_ms >= r->last_ms)) {
        return 0;
    }
    *held = r->held;
    r->held = 0;
    r->last_ms = now_ms;
    return 1;
}

/* The bytes that identify a source: an IPv4 address (also when it arrives IPv4-mapped,
 * ::ffff:a.b.c.d, on a dual-stack listener), or an IPv6 /64 (one host commonly holds a whole
 * /64). NULL when the address is unknown. */
static const uint8_t *source_key(const struct mero__maddr *a, int *family, size_t *len)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (a->family == 4) {
        *family = 4;
        *len = 4;
        return a->ip;
    }
    if (a->family == 6 && memcmp(a->ip, mapped, sizeof(mapped)) == 0) {
        *family = 4;
        *len = 4;
        return a->ip + 12;
    }
    if (a->family == 6) {
        *family = 6;
        *len = 8;
        return a->ip;
    }
    return NULL;
}

static int same_source(const struct mero__maddr *a, const struct mero__maddr *b)
{
    int fa = 0, fb = 0;
    size_t la = 0, lb = 0;
    const uint8_t *ka = source_key(a, &fa, &la), *kb = source_key(b, &fb, &lb);
    return ka != NULL && kb != NULL && fa == fb && memcmp(ka, kb, la) == 0;
}

static int pending_in(const struct mero__conn *c)
{
    return !c->outbound && c->state != MERO__C_UP && c->state != MERO__C_CLOSING;
}

/* Draining connections (turned away, closing at their drain time) hold no slot. */
static int established_in(const struct mero__conn *c)
{
    return !c->outbound && c->state == MERO__C_UP && !c->drain_at;
}

/* The rate-limited log line of a budget close or refusal. */
static void budget_log(struct mero__conn *c, const char *why)
{
    struct mero_net *net = c->net;
    char addr[MERO_MULTIADDR_STR_MAX];
    uint64_t held = 0;
    if (net->budget_log.interval_ms == 0) {
        net->budget_log.interval_ms = MERO__BUDGET_LOG_MS;
    }
    net->budget_last = why;
    if (mero__ratelog_hit(&net->budget_log, uv_now(net->loop), &held)) {
        if (mero__maddr_format(&c->raddr, 0, addr) < 0) {
            memcpy(addr, "?", 2);
        }
        MERO_WARN("net: connection %s %s closed: %s (%llu more such closes in the last %u s "
                  "not logged)",
                  c->outbound ? "to" : "from", c->peer[0] ? c->peer : addr, why,
                  (unsigned long long)held, MERO__BUDGET_LOG_MS / 1000u);
    }
}

void mero__budget_close(struct mero__conn *c, int code, const char *why)
{
    budget_log(c, why);
    c->quiet = 1;
    if (c->state == MERO__C_UP) {
        mero__yamux_goaway(c, 0);
    }
    mero__conn_fail(c, code, why);
}

void mero__budget_tick(struct mero_net *net)
{
    uint64_t held = 0;
    if (net->budget_log.interval_ms != 0 &&
        mero__ratelog_flush(&net->budget_log, uv_now(net->loop), &held)) {
        MERO_WARN("net: %llu more connections closed by the connection budgets in the last %u s "
                  "(last: %s)",
                  (unsigned long long)held, MERO__BUDGET_LOG_MS / 1000u,
                  net->budget_last ? net->budget_last : "?");
    }
}

/* The oldest handshaking inbound connection (of c's source address when same_src), not c. */
static struct mero__conn *oldest_pending(struct mero_net *net, const struct mero__conn *c,
                                         int same_src, size_t *count)
{
    struct mero__conn *old = NULL;
    *count = 0;
    for (struct mero__conn *o = net->conns; o; o = o->next) {
        if (o == c || !pending_in(o) || (same_src && !same_source(&o->raddr, &c->raddr))) {
            continue;
        }
        (*count)++;
        if (old == NULL || o->started_ms <= old->started_ms) {
            old = o; /* the list is newest first: <= picks the oldest of equal times */
        }
    }
    return old;
}

void mero__budget_accept(struct mero__conn *c)
{
    struct mero_net *net = c->net;
    size_t n;
    struct mero__conn *old = oldest_pending(net, c, 1, &n);
    if (n >= net->cfg.max_inbound_per_ip && old != NULL) {
        mero__budget_close(old, MERO_EBUSY, "handshake slots of its address full (oldest closed)");
        return;
    }
    old = oldest_pending(net, c, 0, &n);
    if (n >= net->cfg.max_pending && old != NULL) {
        mero__budget_close(old, MERO_EBUSY, "handshake slots full (oldest closed)");
    }
}

/* Inbound connections (handshaking or established) from a's source address. */
static size_t source_load(const struct mero_net *net, const struct mero__maddr *a)
{
    size_t n = 0;
    for (const struct mero__conn *o = net->conns; o; o = o->next) {
        if (!o->outbound && same_source(&o->raddr, a)) {
            n++;
        }
    }
    return n;
}

struct mero__conn *mero__budget_victim(const struct mero_net *net, int prio,
                                       const struct mero__conn *except)
{
    struct mero__conn *v = NULL;
    size_t vload = 0;
    for (struct mero__conn *o = net->conns; o; o = o->next) {
        if (o == except || !established_in(o) || o->prio >= prio) {
            continue;
        }
        size_t load = source_load(net, &o->raddr);
        if (v == NULL || o->prio < v->prio ||
            (o->prio == v->prio && (load > vload || (load == vload && o->up_ms > v->up_ms)))) {
            v = o;
            vload = load;
        }
    }
    return v;
}

/* A newcomer refused: logged (rate-limited) and closed quietly later; turning it away (the
 * goodbye with peer exchange, identify) is the caller's, mero__net_admit (net.c), a floor up. */
static void budget_refuse(struct mero__conn *c, const char *why)
{
    budget_log(c, why);
    c->quiet = 1;
}

int mero__budget_up(struct mero__conn *c)
{
    struct mero_net *net = c->net;
    size_t total = 0, strangers = 0;
    for (const struct mero__conn *o = net->conns; o; o = o->next) {
        if (o == c || !established_in(o)) {
            continue;
        }
        total++;
        if (o->prio < MERO_NET_PRIO_MEMBER && same_source(&o->raddr, &c->raddr)) {
            strangers++;
        }
    }
    if (c->prio < MERO_NET_PRIO_MEMBER && strangers >= net->cfg.max_inbound_per_ip) {
        budget_refuse(c, "per-address limit of established strangers reached");
        return -MERO_EBUSY;
    }
    if (total < net->cfg.max_inbound) {
        return 0;
    }
    struct mero__conn *v = mero__budget_victim(net, c->prio, c);
    if (v == NULL) {
        budget_refuse(c, "inbound connection limit reached");
        return -MERO_EBUSY;
    }
    mero__budget_close(v, MERO_EBUSY,
                       "evicted for a peer of higher priority (inbound limit reached)");
    return 0;
}

int mero__budget_dial(const struct mero_net *net)
{
    size_t n = 0;
    for (const struct mero__conn *o = net->conns; o; o = o->next) {
        n += o->outbound ? 1u : 0u;
    }
    return n >= net->cfg.max_outbound ? -MERO_EBUSY : 0;
}
