/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conn_internal.h - one TCP connection's lifecycle and upgrade (conn.c): multistream-select,
 * Noise, yamux; its write queue, dial waiters and budget fields, and the events it reports
 * upward (struct mero__conn_ops). Private to src/net.
 */
#ifndef MERO_NET_CONN_INTERNAL_H
#define MERO_NET_CONN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/net.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"

struct mero__noise;
struct mero__stream;

enum {
    MERO__C_CONNECTING = 0,
    MERO__C_MSS_SEC,
    MERO__C_NOISE,
    MERO__C_MSS_MUX,
    MERO__C_UP,
    MERO__C_CLOSING
};

struct mero__dial_waiter {
    struct mero__dial_waiter *next;
    mero_net_dial_cb cb;
    void *ud;
};

struct mero__gpeer; /* gossipsub per-peer state */

struct mero__conn {
    struct mero__conn *next;
    struct mero_net *net;
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_connect_t creq;
    int handles; /* open uv handles (freed when 0 after closing) */
    int outbound;
    int state;
    int reported_up;
    char expect[MERO_PEER_ID_STR_MAX]; /* dial target, "" if any */
    char peer[MERO_PEER_ID_STR_MAX];   /* authenticated remote id */
    uint8_t peer_pk[MERO_ED25519_PK_LEN];
    struct mero__maddr raddr;
    struct mero_buf rxraw;   /* bytes from TCP not yet consumed */
    struct mero_buf rxplain; /* decrypted, not yet consumed */
    struct mero_buf out;     /* plaintext to encrypt at the next flush */
    int flush_pending;
    size_t inflight; /* bytes handed to uv_write, not yet written */
    void *wspare;    /* conn.c: one finished write buffer kept for reuse */
    /* conn.c (issue 33): what the next socket read is offered, and the largest read since the
     * last keep-alive look (mero__conn_trim) */
    size_t rx_room, rx_peak;
    struct mero__mss mss;
    struct mero__noise *noise;
    /* yamux */
    struct mero__stream *streams;
    uint32_t nstreams;
    uint32_t next_sid;
    uint32_t inbound_reqs;
    int goaway;
    /* keep-alive (yamux.c): reads counts socket reads; a ping is outstanding while ping_out */
    uint64_t reads, reads_at_ping, ping_at;
    uint32_t ping_id;
    int ping_out;
    struct mero__dial_waiter *waiters;
    struct mero__gpeer *gp;
    /* budgets (budget.c) */
    int prio;            /* MERO_NET_PRIO_*, set when authenticated */
    int quiet;           /* closed by a budget: conn_fail logs at debug level only */
    uint64_t started_ms; /* uv_now at creation (age of a handshaking connection) */
    uint64_t up_ms;      /* uv_now when it came up (0 before) */
    /* issue 33: the peer's signed peer record (identify), verified; freed with c */
    uint8_t *spr;
    size_t spr_n;
    /* issue 33: closing gracefully (budget refusal with PX, connection-manager trim): no new
     * streams are served, the connection closes at drain_at (heartbeat) */
    uint64_t drain_at;
};

/*
 * What the transport floor reports upward (issue 34, docs/network.md "The floors of src/net").
 * conn.c and yamux.c call no file above them: the owner of the peer (net.c) sets
 * net->conn_ops once, in mero_net_new, and handles each event with the floors above (the
 * budgets, the protocols, the application's callbacks).
 */
struct mero__conn_ops {
    /* An inbound connection was accepted (raddr known, not yet reading); it may close older
     * handshaking connections, never c. */
    void (*accepted)(struct mero__conn *c);
    /* An inbound connection's handshake timer fired: close c. */
    void (*handshake_timeout)(struct mero__conn *c);
    /* c authenticated and yamux is up; c may be closed on return. */
    void (*up)(struct mero__conn *c);
    /* A reported connection (c->reported_up) went down; its streams are already torn down. */
    void (*down)(struct mero__conn *c);
    /* A dial to peer (c->expect) failed before it came up; code is negative. */
    void (*dial_failed)(struct mero_net *net, const char *peer, int code);
    /* Inbound stream negotiation (yamux.c): which protocols we speak (>= 0 accepts: a selector
     * the application is bound by once the stream is negotiated). */
    int (*proto_match)(void *stream, const uint8_t *name, size_t len);
    void (*stream_bind)(struct mero__stream *s, int sel);
};

/* Queue plaintext for the peer (after Noise) / raw bytes (before); schedules a flush. */
MERO_MUST_CHECK int mero__conn_send(struct mero__conn *c, const void *p, size_t n);
/* Close with a logged reason (idempotent). */
void mero__conn_fail(struct mero__conn *c, int code, const char *why);
/* At each keep-alive look: when no read since the last one exceeded the smallest read size,
 * free the empty receive buffers and the write spare (they grow again on demand). */
void mero__conn_trim(struct mero__conn *c);
/* Flush every connection's pending output (the loop's prepare handle calls this). */
void mero__conn_flush_all(struct mero_net *net);
/* Start an outbound connection (address already parsed; the caller checked the outbound
 * budget: budget.c). */
MERO_MUST_CHECK int mero__conn_dial(struct mero_net *net, const struct mero__maddr *m,
                                    mero_net_dial_cb cb, void *ud);
/* Accept a new inbound connection on `server`. */
void mero__conn_accept(struct mero_net *net, uv_stream_t *server);
/* Complete c's dial callbacks successfully (c authenticated, or its duplicate kept). */
void mero__conn_waiters_ok(struct mero__conn *c);
/* A new connection linked into net (handshake timer running, handles initialised, no socket
 * connected yet); the dial and accept paths use it, and the tests' detached connection
 * (tests/support/conn_detached.h) starts from it. */
struct mero__conn *mero__conn_new(struct mero_net *net, int outbound);
/* For fuzzing and tests only: bytes as if read from c's socket, in reads as large as the
 * receive buffer has room for (as on_read gets them); a detached connection's Noise transport
 * key is all zeros (libsodium path), nonces counting from 0. */
void mero__conn_feed(struct mero__conn *c, const uint8_t *p, size_t n);
struct mero__conn *mero__conn_find(const struct mero_net *net, const char *peer);
/* Total bytes queued to c (out + in flight + stream queues): the slow-peer bound. */
size_t mero__conn_queued(const struct mero__conn *c);

#endif
