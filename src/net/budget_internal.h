/* SPDX-License-Identifier: Apache-2.0 */
/*
 * budget_internal.h - connection budgets (budget.c): the rate-limited log and the admission of
 * inbound, outbound and handshaking connections by priority. Private to src/net.
 */
#ifndef MERO_NET_BUDGET_INTERNAL_H
#define MERO_NET_BUDGET_INTERNAL_H

#include <stdint.h>

#include "mero/err.h"

struct mero_net;
struct mero__conn;

/*
 * A log line rate limiter with the clock passed in (tests drive it with made-up times): at
 * most one line per interval_ms; the events in between are counted and reported with the next
 * line.
 */
struct mero__ratelog {
    uint32_t interval_ms;
    int logged;       /* a line was written at last_ms */
    uint64_t last_ms; /* when the last line was written */
    uint64_t held;    /* events not logged since then */
};
/* An event at now_ms: 1 when a line may be written now (*held gets the number of events held
 * back since the last line, then reset), 0 when it is held back (counted). */
int mero__ratelog_hit(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held);
/* Periodic: 1 when events were held back and interval_ms passed since the last line (*held
 * gets their count; the call counts as a line written), else 0. */
int mero__ratelog_flush(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held);

#define MERO__BUDGET_LOG_MS 10000u /* at most one budget log line per 10 s */
/* A new inbound connection was accepted (raddr known, not yet reading): makes room for it
 * among the handshaking connections (closes the oldest of its address or overall). */
void mero__budget_accept(struct mero__conn *c);
/* An inbound connection authenticated (c->prio set): 0 when admitted (a lower-priority
 * connection may have been evicted for it), -MERO_EBUSY when c was refused (logged, marked
 * quiet; the caller turns it away: mero__net_admit sends the goodbye with peer exchange, and
 * the heartbeat closes c at c->drain_at). */
MERO_MUST_CHECK int mero__budget_up(struct mero__conn *c);
/* 0 when another outbound connection fits, -MERO_EBUSY otherwise (every dialer asks first:
 * dial.c, reqresp.c, gossip_px.c). */
MERO_MUST_CHECK int mero__budget_dial(const struct mero_net *net);
/* The established inbound connection a newcomer of priority prio would evict (NULL: none has
 * a lower priority). Lowest priority first, then the address holding most inbound connections,
 * then the most recently established. `except` is never chosen. */
struct mero__conn *mero__budget_victim(const struct mero_net *net, int prio,
                                       const struct mero__conn *except);
/* Close c (code: MERO_EBUSY, MERO_ETIMEOUT) for a budget reason or a handshake timeout,
 * logged through the net's rate limiter. */
void mero__budget_close(struct mero__conn *c, int code, const char *why);
/* Heartbeat: report events held back by the rate limiter. */
void mero__budget_tick(struct mero_net *net);

#endif
