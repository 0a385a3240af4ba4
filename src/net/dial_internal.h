/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dial_internal.h - the address book, dialing a parsed address and the deferred dial
 * callbacks (dial.c). Private to src/net.
 */
#ifndef MERO_NET_DIAL_INTERNAL_H
#define MERO_NET_DIAL_INTERNAL_H

#include "mero/err.h"
#include "mero/net.h"
#include "net/multiaddr_internal.h"

struct mero_net;

struct mero__addr_entry {
    struct mero__addr_entry *next;
    struct mero__maddr m; /* with peer */
};
struct mero__defer {
    struct mero__defer *next;
    mero_net_dial_cb cb;
    void *ud;
    int status;
    char peer[MERO_PEER_ID_STR_MAX];
};

/* Remember m (with a peer id; ours is ignored) as where its peer listens: the newest wins. */
void mero__book_add(struct mero_net *net, const struct mero__maddr *m);
const struct mero__maddr *mero__book_find(const struct mero_net *net, const char *peer);
void mero__book_free(struct mero_net *net);

/* The outbound connection still coming up to peer (its dial under way), or NULL. */
struct mero__conn *mero__dial_pending(const struct mero_net *net, const char *peer);
/* Dial m: a peer already connected completes from the loop (deferred), a dial under way to it
 * gains cb as one more waiter, else a new connection starts when the outbound budget allows
 * (-MERO_EBUSY otherwise). m's address goes to the book first; dialing ourselves is
 * -MERO_EPEERID, and nothing is dialed once the net is being freed (-MERO_ECLOSED). */
MERO_MUST_CHECK int mero__dial(struct mero_net *net, const struct mero__maddr *m,
                               mero_net_dial_cb cb, void *ud);

/* Run cb(ud, status, peer) from the loop's next prepare phase (never re-entrantly). */
MERO_MUST_CHECK int mero__defer(struct mero_net *net, mero_net_dial_cb cb, void *ud, int status,
                                const char *peer);
/* The prepare phase: run the deferred callbacks, in order (none once the net is freeing). */
void mero__defer_run(struct mero_net *net);
/* The net is being freed: every deferred callback runs now with -MERO_ECLOSED. */
void mero__defer_cancel(struct mero_net *net);

#endif
