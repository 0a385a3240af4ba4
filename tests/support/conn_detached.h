/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conn_detached.h - a connection with no socket behind it, for the yamux fuzz target and the
 * network unit tests. Header-only so that the fuzz replays and `make fuzz` (which link only the
 * target and libmero) get it without a support object; it stays out of libmero.
 *
 * Invariant: the connection is UP with its Noise handshake marked done and an all-zero transport
 * key (libsodium path, nonces from 0), its handshake timer stopped; yamux input is fed with
 * mero__yamux_input or mero__conn_feed, output accumulates in c->out and is never flushed to a
 * socket. Close it with mero__conn_fail.
 */
#ifndef MERO_TEST_CONN_DETACHED_H
#define MERO_TEST_CONN_DETACHED_H

#include <stdlib.h>
#include <string.h>

#include "net/conn_internal.h"
#include "net/net_internal.h"
#include "net/noise_internal.h"

static inline struct mero__conn *test_conn_detached(struct mero_net *net)
{
    struct mero__conn *c = mero__conn_new(net, 0);
    if (c == NULL) {
        return NULL;
    }
    uv_timer_stop(&c->timer);
    c->noise = calloc(1, sizeof(*c->noise));
    if (c->noise == NULL) {
        mero__conn_fail(c, MERO_ENOMEM, "out of memory");
        return NULL;
    }
    c->noise->done = 1;
    c->state = MERO__C_UP;
    c->next_sid = 2;
    memset(c->peer, 0, sizeof(c->peer));
    memcpy(c->peer, "fuzz", 4);
    return c;
}

#endif
