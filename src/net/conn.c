/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conn.c - one TCP connection's life: connect/accept (libuv), multistream-select for /noise,
 * the Noise XX handshake (2-byte big-endian length-prefixed messages), multistream-select for
 * /yamux/1.0.0 inside the encrypted channel, then yamux. Also the write path (plaintext queued
 * per connection, encrypted into Noise transport frames at each loop-iteration flush), the
 * handshake timer and the slow-peer bound. With yamux.c it is the transport floor of src/net:
 * it calls nothing above it; what the floors above must act on (an inbound connection accepted
 * or timed out in its handshake, a connection up or down, a dial failed) goes through
 * net->conn_ops, which net.c sets (the budgets, duplicate resolution and the protocols are
 * there and above).
 *
 * Invariants: nothing above this file sees a connection before Noise authenticated the remote
 * identity (and, for a dial to /p2p/<id>, matched it); a connection whose queued output exceeds
 * cfg.max_write_queue is closed rather than buffered; every failure closes the connection once
 * with a logged reason and fails its pending dials; memory is freed only after libuv closed both
 * handles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/conn_internal.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"
#include "net/net_internal.h"
#include "net/noise_internal.h"
#include "net/yamux_internal.h"

#define YAMUX_PROTO       "/yamux/1.0.0"
#define NOISE_PROTO       "/noise"
#define MSS_WHY_MAX       64  /* "multistream-select for <one of the two above> failed" */
#define MSS_HELLO_MAX     256 /* the dialer's header line and its one proposal, each varint-framed */
#define NOISE_PAYLOAD_MAX 1024 /* our signed handshake payload (identity key and signature) */
/* Socket reads land in rxraw, which keeps at most one partial Noise frame between reads, so
 * each read has room for at least RXREAD bytes; with mero_buf's spare byte the storage is
 * exactly 2 * RXREAD. */
#define RXREAD    (256u * 1024u)
#define RXRAW_MAX (2u * RXREAD - 1u)
_Static_assert(RXRAW_MAX - (2u + MERO__NOISE_MAX_MSG) >= RXREAD, "room for a whole read");
#define RXPLAIN_MAX (MERO__YAMUX_RECV_WINDOW + MERO__YAMUX_HDR + 2u * MERO__NOISE_MAX_MSG)
/* issue 33: a read offers RXREAD_MIN bytes at first and doubles each time a read fills what it
 * was offered, up to RXREAD; a keep-alive look that saw no read over RXREAD_MIN since the last
 * one frees the empty receive buffers and the write spare (mero__conn_trim), so a link's memory
 * after a burst falls back to what quiet traffic needs. */
#define RXREAD_MIN (16u * 1024u)

struct wreq {
    uv_write_t req;
    struct mero__conn *c;
    size_t n, cap;
    uint8_t data[];
};

/* One finished write buffer is kept per connection for the next flush (a stream in full flow
 * then reuses warm memory instead of faulting in fresh pages for every flush). Buffers under a
 * page are not kept: malloc serves them from warm heap anyway, and a keep-alive ping written after
 * a trim would otherwise leave a spare on an idle link. */
#define WSPARE_MIN (4u * 1024u)
#define WSPARE_MAX (4u * 1024u * 1024u)

static struct wreq *wreq_get(struct mero__conn *c, size_t n)
{
    struct wreq *w = c->wspare;
    if (w != NULL && w->cap >= n) {
        c->wspare = NULL;
        return w;
    }
    w = malloc(sizeof(*w) + n);
    if (w != NULL) {
        w->cap = n;
    }
    return w;
}

static void wreq_put(struct mero__conn *c, struct wreq *w)
{
    if (c->state == MERO__C_CLOSING || w->cap < WSPARE_MIN || w->cap > WSPARE_MAX ||
        (c->wspare != NULL && ((struct wreq *)c->wspare)->cap >= w->cap)) {
        free(w);
        return;
    }
    free(c->wspare);
    c->wspare = w;
}

static void conn_free_if_done(struct mero__conn *c)
{
    if (c->handles > 0) {
        return;
    }
    mero__yamux_free_all(c);
    mero_buf_cleanup(&c->rxraw);
    free(c->spr);
    mero_buf_cleanup(&c->rxplain);
    mero_buf_cleanup(&c->out);
    free(c->wspare);
    if (c->noise) {
        mero__noise_cleanup(c->noise);
        free(c->noise);
    }
    free(c);
}

static void on_handle_closed(uv_handle_t *h)
{
    struct mero__conn *c = h->data;
    c->handles--;
    conn_free_if_done(c);
}

static void unlink_conn(struct mero__conn *c)
{
    struct mero__conn **pp = &c->net->conns;
    while (*pp && *pp != c) {
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = c->next;
        c->net->nconns--;
    }
}

static void fail_waiters(struct mero__conn *c, int code, const char *peer)
{
    struct mero__dial_waiter *w = c->waiters;
    c->waiters = NULL;
    while (w) {
        struct mero__dial_waiter *next = w->next;
        if (w->cb) {
            w->cb(w->ud, code, code == 0 ? peer : NULL);
        }
        free(w);
        w = next;
    }
}

static const char *who(const struct mero__conn *c, char buf[MERO_MULTIADDR_STR_MAX])
{
    if (c->peer[0]) {
        return c->peer;
    }
    if (mero__maddr_format(&c->raddr, 0, buf) < 0) {
        return "?";
    }
    return buf;
}

void mero__conn_fail(struct mero__conn *c, int code, const char *why)
{
    char wb[MERO_MULTIADDR_STR_MAX];
    int was_up = c->state == MERO__C_UP;
    if (c->state == MERO__C_CLOSING) {
        return;
    }
    if ((code == MERO_ECLOSED && c->net->freeing) || c->quiet) {
        MERO_DEBUG("net: closing connection to %s", who(c, wb));
    } else {
        MERO_INFO("net: connection %s %s closed: %s (%s)", c->outbound ? "to" : "from", who(c, wb),
                  why, mero_strerror(code));
    }
    c->state = MERO__C_CLOSING;
    unlink_conn(c);
    if (was_up) {
        mero__yamux_teardown(c);
        if (c->reported_up) {
            c->net->conn_ops->down(c);
        }
    }
    if (c->expect[0] && !was_up) {
        c->net->conn_ops->dial_failed(c->net, c->expect, -code);
    }
    fail_waiters(c, -code, NULL);
    uv_timer_stop(&c->timer);
    if (!uv_is_closing((uv_handle_t *)&c->tcp)) {
        uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
    }
    if (!uv_is_closing((uv_handle_t *)&c->timer)) {
        uv_close((uv_handle_t *)&c->timer, on_handle_closed);
    }
}

size_t mero__conn_queued(const struct mero__conn *c)
{
    size_t n = c->out.len + c->inflight;
    for (const struct mero__stream *s = c->streams; s; s = s->next) {
        n += s->txq.len - s->txq_off;
    }
    return n;
}

static void on_written(uv_write_t *req, int status)
{
    struct wreq *w = (struct wreq *)req;
    struct mero__conn *c = w->c;
    c->inflight -= w->n;
    wreq_put(c, w);
    if (status < 0 && status != UV_ECANCELED) {
        mero__conn_fail(c, MERO_EIO, uv_strerror(status));
    }
}

static int write_raw(struct mero__conn *c, struct wreq *w)
{
    uv_buf_t b = uv_buf_init((char *)w->data, (unsigned)w->n);
    w->c = c;
    c->inflight += w->n;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written);
    if (rc < 0) {
        c->inflight -= w->n;
        wreq_put(c, w);
        mero__conn_fail(c, MERO_EIO, uv_strerror(rc));
        return -MERO_EIO;
    }
    return 0;
}

static int send_plain_now(struct mero__conn *c, const void *p, size_t n)
{
    struct wreq *w = wreq_get(c, n);
    if (w == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(w->data, p, n);
    w->n = n;
    return write_raw(c, w);
}

int mero__conn_send(struct mero__conn *c, const void *p, size_t n)
{
    if (c->state == MERO__C_CLOSING) {
        return -MERO_ECLOSED;
    }
    if (c->noise == NULL || !c->noise->done) {
        return send_plain_now(c, p, n);
    }
    if (mero__conn_queued(c) + n > c->net->cfg.max_write_queue) {
        mero__conn_fail(c, MERO_EBUSY, "write queue full (slow peer)");
        return -MERO_EBUSY;
    }
    MERO_TRY(mero_buf_append(&c->out, p, n));
    c->flush_pending = 1;
    return 0;
}

static void conn_flush(struct mero__conn *c)
{
    size_t n = c->out.len, frames, total;
    struct wreq *w;
    if (!c->flush_pending || c->state == MERO__C_CLOSING || n == 0) {
        c->flush_pending = 0;
        return;
    }
    c->flush_pending = 0;
    frames = (n + MERO__NOISE_MAX_PLAIN - 1) / MERO__NOISE_MAX_PLAIN;
    total = n + frames * (2 + MERO__NOISE_TAG);
    w = wreq_get(c, total);
    if (w == NULL) {
        mero__conn_fail(c, MERO_ENOMEM, "out of memory");
        return;
    }
    size_t in = 0, o = 0;
    while (in < n) {
        size_t k = n - in < MERO__NOISE_MAX_PLAIN ? n - in : MERO__NOISE_MAX_PLAIN;
        size_t fl = k + MERO__NOISE_TAG;
        w->data[o] = (uint8_t)(fl >> 8);
        w->data[o + 1] = (uint8_t)fl;
        if (mero__cipher_seal(&c->noise->tx, NULL, 0, c->out.data + in, k, w->data + o + 2) < 0) {
            wreq_put(c, w);
            mero__conn_fail(c, MERO_ECRYPTO, "encrypt failed");
            return;
        }
        in += k;
        o += 2 + fl;
    }
    w->n = o;
    mero_buf_reset(&c->out);
    (void)write_raw(c, w);
}

void mero__conn_flush_all(struct mero_net *net)
{
    for (struct mero__conn *c = net->conns; c;) {
        struct mero__conn *next = c->next;
        if (c->state == MERO__C_UP) {
            mero__yamux_reap(c);
        }
        conn_flush(c);
        c = next;
    }
}

static int match_one(void *ud, const uint8_t *name, size_t len)
{
    const char *want = ud;
    return (len == strlen(want) && memcmp(name, want, len) == 0) ? 0 : -1;
}

/* Multistream-select for `proto` starts: the dialer opens with the header and its proposal
 * (sent in the clear before Noise, encrypted after), the listener waits for the header. */
static int mss_start(struct mero__conn *c, const char *proto)
{
    struct mero_buf h;
    int rc;
    c->mss.dialer = c->outbound;
    c->mss.state = MERO__MSS_WAIT_HDR;
    c->mss.proto = proto;
    if (!c->outbound) {
        return 0;
    }
    mero_buf_init(&h, MSS_HELLO_MAX);
    MERO_TRY_OUT(mero__mss_put(&h, MERO__MSS_PROTO));
    MERO_TRY_OUT(mero__mss_put(&h, proto));
    rc = mero__conn_send(c, h.data, h.len);
out:
    mero_buf_cleanup(&h);
    return rc;
}

/* One multistream-select step for `proto` over `in` (rxraw before Noise, rxplain after), the
 * replies sent back the same way: 1 negotiated, 0 needs more input, negative failed (the
 * connection is then failed with a reason). */
static int mss_negotiate(struct mero__conn *c, struct mero_buf *in, const char *proto)
{
    struct mero_buf out;
    size_t used = 0;
    int sel = -1, rc;
    mero_buf_init(&out, 4 * MERO__MSS_MAX_MSG);
    rc = mero__mss_step(&c->mss, in->data, in->len, &used, &out, match_one, (void *)proto, &sel);
    if (out.len && rc >= 0 && mero__conn_send(c, out.data, out.len) < 0) {
        rc = -MERO_EIO; /* keep rc otherwise: 1 means negotiated */
    }
    mero_buf_cleanup(&out);
    mero_buf_consume(in, used);
    if (rc < 0) {
        char why[MSS_WHY_MAX];
        snprintf(why, sizeof(why), "multistream-select for %s failed", proto);
        mero__conn_fail(c, -rc, why);
    }
    return rc;
}

static int send_noise_msg(struct mero__conn *c, const uint8_t *payload, size_t plen)
{
    struct mero_buf m;
    int rc;
    mero_buf_init(&m, MERO__NOISE_MAX_MSG + 2);
    MERO_TRY_OUT(mero_buf_append_u8(&m, 0)); /* the 2-byte length, filled in below */
    MERO_TRY_OUT(mero_buf_append_u8(&m, 0));
    MERO_TRY_OUT(mero__noise_write(c->noise, payload, plen, &m));
    size_t l = m.len - 2;
    m.data[0] = (uint8_t)(l >> 8);
    m.data[1] = (uint8_t)l;
    rc = send_plain_now(c, m.data, m.len);
out:
    mero_buf_cleanup(&m);
    return rc;
}

static int noise_payload_send(struct mero__conn *c)
{
    struct mero_buf p;
    int rc;
    mero_buf_init(&p, NOISE_PAYLOAD_MAX);
    MERO_TRY_OUT(mero__noise_payload_make(c->net->id_sk, c->net->noise_pk, &p));
    rc = send_noise_msg(c, p.data, p.len);
out:
    mero_buf_cleanup(&p);
    return rc;
}

static int check_remote(struct mero__conn *c, const struct mero_buf *payload)
{
    uint8_t pk[MERO_ED25519_PK_LEN];
    int rc = mero__noise_payload_verify(payload->data, payload->len, c->noise->rs, pk);
    if (rc < 0) {
        mero__conn_fail(c, -rc, "noise handshake payload does not verify");
        return rc;
    }
    memcpy(c->peer_pk, pk, sizeof(c->peer_pk));
    MERO_TRY(mero_net_peer_id_from_pk(pk, c->peer));
    if (strcmp(c->peer, c->net->id) == 0) {
        mero__conn_fail(c, MERO_EPEERID, "connected to ourselves");
        return -MERO_EPEERID;
    }
    if (c->expect[0] && strcmp(c->expect, c->peer) != 0) {
        mero__conn_fail(c, MERO_EPEERID, "remote identity differs from the /p2p/ id dialed");
        return -MERO_EPEERID;
    }
    return 0;
}

/* One Noise handshake message from the peer (len-prefixed, already complete). */
static int noise_step(struct mero__conn *c, const uint8_t *msg, size_t n)
{
    struct mero_buf payload;
    int rc;
    mero_buf_init(&payload, MERO__NOISE_MAX_MSG);
    rc = mero__noise_read(c->noise, msg, n, &payload);
    if (rc < 0) {
        mero_buf_cleanup(&payload);
        mero__conn_fail(c, -rc, "bad noise handshake message");
        return rc;
    }
    if (c->noise->step == 1) { /* responder got e: answer e, ee, s, es + payload */
        MERO_TRY_OUT(noise_payload_send(c));
    } else if (c->noise->step == 2) { /* initiator got the responder's identity */
        MERO_TRY_OUT(check_remote(c, &payload));
        MERO_TRY_OUT(noise_payload_send(c));
    } else { /* responder got the initiator's identity */
        MERO_TRY_OUT(check_remote(c, &payload));
    }
    MERO_ENSURE_OUT(c->state != MERO__C_CLOSING, NULL, MERO_ECLOSED, "connection closed");
    if (c->noise->done) {
        c->state = MERO__C_MSS_MUX;
        rc = mss_start(c, YAMUX_PROTO);
    }
out:
    mero_buf_cleanup(&payload);
    return rc;
}

static void conn_up(struct mero__conn *c)
{
    c->state = MERO__C_UP;
    c->up_ms = uv_now(c->net->loop);
    c->next_sid = c->outbound ? 1 : 2;
    mero__yamux_keepalive_start(c); /* the handshake timer becomes the keep-alive timer */
    c->net->conn_ops->up(c);
}

/* Decrypt every complete Noise frame in rxraw into rxplain: 0 when all were, 1 when rxplain
 * is full and some wait (process() lets yamux drain it, then calls again), negative on a
 * fatal error (the connection is failed). */
static int decrypt_frames(struct mero__conn *c)
{
    int full = 0;
    size_t off = 0;
    while (c->rxraw.len - off >= 2) {
        size_t l = ((size_t)c->rxraw.data[off] << 8) | c->rxraw.data[off + 1];
        if (l < MERO__NOISE_TAG) {
            mero__conn_fail(c, MERO_EPROTO, "noise frame shorter than its tag");
            return -MERO_EPROTO;
        }
        if (c->rxraw.len - off - 2 < l) {
            break;
        }
        size_t at = c->rxplain.len;
        if (at + l - MERO__NOISE_TAG > c->rxplain.max) {
            full = 1;
            break;
        }
        if (mero_buf_reserve(&c->rxplain, l - MERO__NOISE_TAG) < 0) {
            mero__conn_fail(c, MERO_ENOMEM, "out of memory");
            return -MERO_ENOMEM;
        }
        if (mero__cipher_open(&c->noise->rx, NULL, 0, c->rxraw.data + off + 2, l,
                              c->rxplain.data + at) < 0) {
            mero__conn_fail(c, MERO_ECRYPTO, "noise transport message does not decrypt");
            return -MERO_ECRYPTO;
        }
        c->rxplain.len = at + l - MERO__NOISE_TAG;
        off += 2 + l;
    }
    mero_buf_consume(&c->rxraw, off);
    return full;
}

static void process(struct mero__conn *c)
{
    for (;;) {
        size_t used = 0;
        int rc;
        if (c->state == MERO__C_MSS_SEC) {
            if (mss_negotiate(c, &c->rxraw, NOISE_PROTO) <= 0) {
                return; /* failed, or waiting for more input */
            }
            c->state = MERO__C_NOISE;
            c->noise = calloc(1, sizeof(*c->noise));
            if (c->noise == NULL) {
                mero__conn_fail(c, MERO_ENOMEM, "out of memory");
                return;
            }
            mero__noise_init(c->noise, c->outbound, c->net->noise_sk, NULL);
            if (c->outbound && send_noise_msg(c, NULL, 0) < 0) {
                mero__conn_fail(c, MERO_EIO, "noise write failed");
                return;
            }
            continue;
        }
        if (c->state == MERO__C_NOISE) {
            if (c->rxraw.len < 2) {
                return;
            }
            size_t l = ((size_t)c->rxraw.data[0] << 8) | c->rxraw.data[1];
            if (c->rxraw.len < 2 + l) {
                return;
            }
            rc = noise_step(c, c->rxraw.data + 2, l);
            if (rc < 0) {
                return;
            }
            mero_buf_consume(&c->rxraw, 2 + l);
            continue;
        }
        if (c->state != MERO__C_MSS_MUX && c->state != MERO__C_UP) {
            return;
        }
        int more = decrypt_frames(c);
        if (more < 0) {
            return;
        }
        if (c->state == MERO__C_MSS_MUX) {
            if (mss_negotiate(c, &c->rxplain, YAMUX_PROTO) <= 0) {
                return; /* failed, or waiting for more input */
            }
            conn_up(c);
            if (c->state != MERO__C_UP) {
                return;
            }
        }
        rc = mero__yamux_input(c, c->rxplain.data, c->rxplain.len, &used);
        if (c->state == MERO__C_CLOSING) {
            return;
        }
        mero_buf_consume(&c->rxplain, used);
        mero__yamux_reap(c);
        if (rc < 0) {
            mero__conn_fail(c, -rc, "yamux error");
            return;
        }
        if (!more) {
            return;
        }
        if (used == 0) { /* cannot happen within the window: a partial frame leaves room */
            mero__conn_fail(c, MERO_ETOOBIG, "peer overran its receive window");
            return;
        }
    }
}

/* Reads land straight in rxraw's free tail (no staging copy); process() leaves at most one
 * partial Noise frame behind, so the tail always has room for a large read. */
static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    struct mero__conn *c = h->data;
    size_t room = c->rxraw.max - c->rxraw.len;
    (void)hint;
    if (room > c->rx_room) {
        room = c->rx_room;
    }
    if (room == 0 || mero_buf_reserve(&c->rxraw, room) < 0) {
        *buf = uv_buf_init(NULL, 0); /* on_read gets UV_ENOBUFS */
        return;
    }
    *buf = uv_buf_init((char *)c->rxraw.data + c->rxraw.len, (unsigned)room);
}

void mero__conn_trim(struct mero__conn *c)
{
    if (c->rx_peak <= RXREAD_MIN) {
        bool freed = c->wspare != NULL;
        if (c->rxraw.len == 0 && c->rxraw.cap > 0) {
            mero_buf_cleanup(&c->rxraw);
            freed = true;
        }
        if (c->rxplain.len == 0 && c->rxplain.cap > 0) {
            mero_buf_cleanup(&c->rxplain);
            freed = true;
        }
        free(c->wspare);
        c->wspare = NULL;
        c->rx_room = RXREAD_MIN;
        c->net->bufs_trimmed += freed;
        c->net->heap_trim = c->net->heap_trim || freed;
    }
    c->rx_peak = 0;
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    struct mero__conn *c = st->data;
    if (c->state == MERO__C_CLOSING) {
        return;
    }
    if (nread == UV_ENOBUFS) {
        mero__conn_fail(c, MERO_ETOOBIG, "input buffer limit (oversized frame)");
        return;
    }
    if (nread < 0) {
        mero__conn_fail(c, nread == UV_EOF ? MERO_ECLOSED : MERO_EIO,
                        nread == UV_EOF ? "peer closed" : uv_strerror((int)nread));
        return;
    }
    if (nread == 0) {
        return;
    }
    c->rxraw.len += (size_t)nread;
    c->reads++;
    if ((size_t)nread > c->rx_peak) {
        c->rx_peak = (size_t)nread;
    }
    if ((size_t)nread == buf->len && c->rx_room < RXREAD) {
        c->rx_room *= 2; /* a full read: offer more next time */
    }
    process(c);
}

static void on_timer(uv_timer_t *t)
{
    struct mero__conn *c = t->data;
    if (!c->outbound) { /* a flood of silent connections: rate-limited log */
        c->net->conn_ops->handshake_timeout(c);
        return;
    }
    mero__conn_fail(c, MERO_ETIMEOUT, "handshake timeout");
}

struct mero__conn *mero__conn_new(struct mero_net *net, int outbound)
{
    struct mero__conn *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    c->net = net;
    c->outbound = outbound;
    mero_buf_init(&c->rxraw, RXRAW_MAX);
    c->rx_room = RXREAD_MIN;
    mero_buf_init(&c->rxplain, RXPLAIN_MAX);
    mero_buf_init(&c->out, (size_t)net->cfg.max_write_queue);
    uv_tcp_init(net->loop, &c->tcp);
    uv_timer_init(net->loop, &c->timer);
    c->tcp.data = c;
    c->timer.data = c;
    c->handles = 2;
    c->next = net->conns;
    net->conns = c;
    net->nconns++;
    c->started_ms = uv_now(net->loop);
    uv_timer_start(&c->timer, on_timer, net->cfg.handshake_timeout_ms, 0);
    return c;
}

static void start_reading(struct mero__conn *c)
{
    uv_tcp_nodelay(&c->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc < 0) {
        mero__conn_fail(c, MERO_EIO, uv_strerror(rc));
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    struct mero__conn *c = req->data;
    if (c->state == MERO__C_CLOSING) {
        return;
    }
    if (status < 0) {
        mero__conn_fail(c, MERO_EIO, uv_strerror(status));
        return;
    }
    c->state = MERO__C_MSS_SEC;
    start_reading(c);
    if (c->state == MERO__C_CLOSING) {
        return;
    }
    if (mss_start(c, NOISE_PROTO) < 0) {
        mero__conn_fail(c, MERO_EIO, "write failed");
    }
}

int mero__conn_dial(struct mero_net *net, const struct mero__maddr *m, mero_net_dial_cb cb,
                    void *ud)
{
    struct sockaddr_storage ss;
    struct mero__conn *c;
    struct mero__dial_waiter *w;
    MERO_TRY(mero__maddr_to_sockaddr(m, &ss));
    w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return -MERO_ENOMEM;
    }
    c = mero__conn_new(net, 1);
    if (c == NULL) {
        free(w);
        return -MERO_ENOMEM;
    }
    w->cb = cb;
    w->ud = ud;
    c->waiters = w;
    c->raddr = *m;
    memcpy(c->expect, m->peer, sizeof(c->expect));
    c->creq.data = c;
    int rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&ss, on_connect);
    if (rc < 0) {
        c->waiters = NULL;
        free(w);
        c->expect[0] = 0;
        mero__conn_fail(c, MERO_EIO, uv_strerror(rc));
        return -MERO_EIO;
    }
    return 0;
}

void mero__conn_accept(struct mero_net *net, uv_stream_t *server)
{
    struct mero__conn *c = mero__conn_new(net, 0);
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    if (c == NULL) {
        return;
    }
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
        mero__conn_fail(c, MERO_EIO, "accept failed");
        return;
    }
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0 &&
        mero__maddr_from_sockaddr((struct sockaddr *)&ss, &c->raddr) < 0) {
        memset(&c->raddr, 0, sizeof(c->raddr));
    }
    c->state = MERO__C_MSS_SEC;
    (void)mss_start(c, NOISE_PROTO); /* a listener only waits: nothing to send, cannot fail */
    net->conn_ops->accepted(c);      /* may close older handshaking connections, never c */
    start_reading(c);
}

struct mero__conn *mero__conn_find(const struct mero_net *net, const char *peer)
{
    for (struct mero__conn *c = net->conns; c; c = c->next) {
        if (c->state == MERO__C_UP && c->reported_up && !c->drain_at &&
            strcmp(c->peer, peer) == 0) {
            return c;
        }
    }
    return NULL;
}

void mero__conn_waiters_ok(struct mero__conn *c)
{
    fail_waiters(c, 0, c->peer);
}

void mero__conn_feed(struct mero__conn *c, const uint8_t *p, size_t n)
{
    while (n > 0 && c->state != MERO__C_CLOSING) {
        size_t room = c->rxraw.max - c->rxraw.len, k = n < room ? n : room;
        if (k == 0 || mero_buf_append(&c->rxraw, p, k) < 0) {
            mero__conn_fail(c, MERO_ETOOBIG, "input buffer limit (oversized frame)");
            return;
        }
        c->reads++;
        process(c);
        p += k;
        n -= k;
    }
}
