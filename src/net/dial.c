/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dial.c - the address book (where the peers we learned of listen: successful dials,
 * mero_net_add_addr, identify answers, peer exchange), dialing a parsed address (a peer
 * already connected completes at once, from the loop; a dial under way to the same peer gains
 * one more waiter; else a new outbound connection, within the outbound budget) and the
 * deferred dial callbacks.
 *
 * Floor (docs/network.md "The floors of src/net"): above the transport (conn.c) and the
 * budgets (budget.c), which it calls; below the protocols that learn addresses (identify.c,
 * gossip_px.c) or dial on demand (reqresp.c), and below net.c, which parses the public API's
 * strings and drives the deferred callbacks from the loop.
 *
 * Invariants: the book holds at most BOOK_MAX entries, one per peer (its newest address) and
 * never our own id; when it is full the oldest entry of a peer we hold no connection to makes
 * room. A deferred callback runs exactly once: from the loop's prepare phase, never
 * re-entrantly from a public call, or with -MERO_ECLOSED when the net is freed first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/budget_internal.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/net_internal.h"

#define BOOK_MAX 1024 /* address book entries (the oldest unconnected one is replaced) */

void mero__book_add(struct mero_net *net, const struct mero__maddr *m)
{
    struct mero__addr_entry *e;
    if (!m->peer[0] || strcmp(m->peer, net->id) == 0) {
        return;
    }
    for (e = net->book; e; e = e->next) {
        if (strcmp(e->m.peer, m->peer) == 0) {
            e->m = *m; /* the newest address wins */
            return;
        }
    }
    if (net->nbook >= BOOK_MAX) {
        /* issue 33: full (peer exchange teaches many addresses): the oldest entry of a peer we
         * hold no connection to makes room, so the book stays bounded and current */
        struct mero__addr_entry **pp = &net->book, **victim = NULL;
        for (; *pp; pp = &(*pp)->next) {
            if (mero__conn_find(net, (*pp)->m.peer) == NULL) {
                victim = pp; /* the list is newest first: the last such is the oldest */
            }
        }
        if (victim == NULL) {
            return;
        }
        e = *victim;
        *victim = e->next;
        e->m = *m;
        e->next = net->book;
        net->book = e;
        return;
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        return;
    }
    e->m = *m;
    e->next = net->book;
    net->book = e;
    net->nbook++;
}

const struct mero__maddr *mero__book_find(const struct mero_net *net, const char *peer)
{
    for (const struct mero__addr_entry *e = net->book; e; e = e->next) {
        if (strcmp(e->m.peer, peer) == 0) {
            return &e->m;
        }
    }
    return NULL;
}

void mero__book_free(struct mero_net *net)
{
    while (net->book) {
        struct mero__addr_entry *e = net->book;
        net->book = e->next;
        free(e);
    }
    net->nbook = 0;
}

int mero__defer(struct mero_net *net, mero_net_dial_cb cb, void *ud, int status, const char *peer)
{
    struct mero__defer *d = calloc(1, sizeof(*d)), **pp = &net->defer;
    if (d == NULL) {
        return -MERO_ENOMEM;
    }
    d->cb = cb;
    d->ud = ud;
    d->status = status;
    if (peer) {
        snprintf(d->peer, sizeof(d->peer), "%s", peer);
    }
    while (*pp) {
        pp = &(*pp)->next;
    }
    *pp = d;
    return 0;
}

void mero__defer_run(struct mero_net *net)
{
    while (net->defer && !net->freeing) {
        struct mero__defer *d = net->defer;
        net->defer = d->next;
        if (d->cb) {
            d->cb(d->ud, d->status, d->status == 0 ? d->peer : NULL);
        }
        free(d);
    }
}

void mero__defer_cancel(struct mero_net *net)
{
    while (net->defer) {
        struct mero__defer *d = net->defer;
        net->defer = d->next;
        if (d->cb) {
            d->cb(d->ud, -MERO_ECLOSED, NULL);
        }
        free(d);
    }
}

struct mero__conn *mero__dial_pending(const struct mero_net *net, const char *peer)
{
    for (struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->outbound && c->state != MERO__C_UP && strcmp(c->expect, peer) == 0) {
            return c;
        }
    }
    return NULL;
}

int mero__dial(struct mero_net *net, const struct mero__maddr *m, mero_net_dial_cb cb, void *ud)
{
    if (net->freeing) {
        return -MERO_ECLOSED;
    }
    if (m->peer[0]) {
        if (strcmp(m->peer, net->id) == 0) {
            return -MERO_EPEERID;
        }
        mero__book_add(net, m);
        if (mero__conn_find(net, m->peer)) {
            return mero__defer(net, cb, ud, 0, m->peer);
        }
        struct mero__conn *c = mero__dial_pending(net, m->peer);
        if (c != NULL) {
            struct mero__dial_waiter *w = calloc(1, sizeof(*w));
            if (w == NULL) {
                return -MERO_ENOMEM;
            }
            w->cb = cb;
            w->ud = ud;
            w->next = c->waiters;
            c->waiters = w;
            return 0;
        }
    }
    MERO_TRY(mero__budget_dial(net));
    return mero__conn_dial(net, m, cb, ud);
}
