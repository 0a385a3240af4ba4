/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yamux_internal.h - the yamux frame header codec and the stream table over one connection
 * (yamux.c): a stream's state, its events, and the calls the protocols on top of it make.
 * Private to src/net.
 */
#ifndef MERO_NET_YAMUX_INTERNAL_H
#define MERO_NET_YAMUX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "net/multistream_internal.h"

#define MERO__YAMUX_HDR         12
#define MERO__YAMUX_WINDOW      (256u * 1024u)  /* the protocol's initial window */
#define MERO__YAMUX_RECV_WINDOW (1024u * 1024u) /* what we grant (see yamux.c) */
enum { MERO__YT_DATA = 0, MERO__YT_WINDOW = 1, MERO__YT_PING = 2, MERO__YT_GOAWAY = 3 };
enum { MERO__YF_SYN = 1, MERO__YF_ACK = 2, MERO__YF_FIN = 4, MERO__YF_RST = 8 };
struct mero__yhdr {
    uint8_t version, type;
    uint16_t flags;
    uint32_t sid, len;
};
MERO_MUST_CHECK int mero__yamux_hdr_parse(const uint8_t *p, size_t n, struct mero__yhdr *h);
void mero__yamux_hdr_put(uint8_t out[MERO__YAMUX_HDR], const struct mero__yhdr *h);

struct mero__conn;
struct mero__stream;

/* Stream events delivered to s->ev. */
enum { MERO__SE_READY = 1, MERO__SE_DATA, MERO__SE_FIN, MERO__SE_CLOSED, MERO__SE_FAILED };
typedef void (*mero__stream_ev)(struct mero__stream *s, int ev);

enum {
    MERO__APP_NONE = 0,
    MERO__APP_IDENTIFY_SERVE,
    MERO__APP_IDENTIFY_ASK,
    MERO__APP_GOSSIP_OUT,
    MERO__APP_GOSSIP_IN,
    MERO__APP_REQ_SERVE,
    MERO__APP_REQ_ASK
};

struct mero__stream {
    struct mero__stream *next;
    struct mero__conn *c;
    uint32_t id;
    int inbound;
    int syn_sent_ack; /* inbound: we still owe an ACK */
    int local_fin, remote_fin, reset, closed;
    uint32_t send_win;  /* bytes we may still send */
    uint32_t recv_win;  /* credit the peer still has */
    uint32_t consumed;  /* bytes consumed since the last window update */
    struct mero_buf rx; /* received, not yet consumed by the app */
    /* What the app reads on SE_DATA and consumes with mero__stream_consume: rx's contents, or
     * (when rx is empty) a data frame borrowed straight from the connection's input for the
     * duration of the event; what the app leaves of a borrowed frame is copied into rx. */
    const uint8_t *in;
    size_t in_len;
    int in_borrowed;
    struct mero_buf txq; /* waiting for send window: bytes [txq_off, txq.len) */
    size_t txq_off;
    int fin_pending;      /* send FIN once txq drains */
    struct mero__mss mss; /* per-stream protocol negotiation */
    int negotiated;
    int app;           /* MERO__APP_* */
    const char *proto; /* negotiated protocol (borrowed, static or handler's copy) */
    mero__stream_ev ev;
    void *ud;
};

/* Open an outbound stream negotiating `proto`; READY or FAILED follows via ev. */
struct mero__stream *mero__yamux_open(struct mero__conn *c, const char *proto, int app,
                                      mero__stream_ev ev, void *ud);
/* Queue data (respecting the send window). */
MERO_MUST_CHECK int mero__stream_write(struct mero__stream *s, const void *p, size_t n);
/* The same for a whole buffer the stream takes in every case: what waits for the window is
 * not copied when nothing else is queued. *frame is left empty (its storage goes to the
 * frame cache on failure and once sent). */
MERO_MUST_CHECK int mero__stream_write_buf(struct mero__stream *s, struct mero_buf *frame);
/* Half-close our side (FIN after queued data). */
void mero__stream_close(struct mero__stream *s);
/* Abort (RST); the stream is freed later, no more events except none. */
void mero__stream_reset(struct mero__stream *s);
/* The app consumed n bytes of s->in (front); sends window updates as needed. */
void mero__stream_consume(struct mero__stream *s, size_t n);
/* Feed decrypted connection bytes to yamux; returns bytes consumed or negative (conn error). */
MERO_MUST_CHECK int mero__yamux_input(struct mero__conn *c, const uint8_t *p, size_t n,
                                      size_t *used);
/* Connection going away: every stream gets CLOSED now; their memory stays until
 * mero__yamux_free_all (when the connection itself is freed), so a caller still inside a
 * stream event never touches freed memory. */
void mero__yamux_teardown(struct mero__conn *c);
void mero__yamux_free_all(struct mero__conn *c);
/* Send a go-away. */
void mero__yamux_goaway(struct mero__conn *c, uint32_t code);
/* Start pinging c when it falls silent (on its timer, once it is up). */
void mero__yamux_keepalive_start(struct mero__conn *c);
/* Deliver CLOSED to streams marked closed; free them while c is UP (a failed connection's
 * streams are freed with it). Called after event processing, never from inside a stream
 * event. */
void mero__yamux_reap(struct mero__conn *c);

#endif
