/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yamux.c - yamux 1.0 (hashicorp spec, as used by libp2p /yamux/1.0.0) over one authenticated
 * connection: the 12-byte frame header (version 0, type, flags, stream id, length, big-endian),
 * stream open/accept (SYN/ACK on Data or Window Update frames), per-stream flow control with the
 * 256 KiB initial window, FIN half-close, RST, keep-alive pings (sent to a silent peer, which
 * is dropped when it stays silent) and ping replies, go-away. Each stream then runs
 * multistream-select before its protocol's bytes flow; which protocols an inbound stream may
 * select, and the application bound to it, come from net->conn_ops (net.c), so this file calls
 * nothing above the transport floor. Data for a stream with nothing buffered is handed to its
 * application in place, without a copy.
 *
 * Invariants: a peer never gets more receive credit than we have buffer for (a data frame above
 * the window it was granted is a window violation and ends the connection); we never send more
 * than the peer's window; the stream count per connection is capped (a flood of SYNs ends the
 * connection); stream memory is freed only after the CLOSED event, and on a failed connection
 * only when the connection itself is freed, so no handler (nor this file, after an event)
 * ever touches a freed stream.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/log.h"
#include "net/conn_internal.h"
#include "net/multistream_internal.h"
#include "net/net_internal.h"
#include "net/yamux_internal.h"

#define CHUNK (64u * 1024u)
/* Receive window we grant beyond the protocol's initial 256 KiB (sent right after SYN/ACK):
 * every app consumes synchronously, so this only bounds bytes in flight, and a 1 MiB window
 * keeps a stream busy across loop iterations. */
#define WINDOW_EXTRA (MERO__YAMUX_RECV_WINDOW - MERO__YAMUX_WINDOW)
#define WINDOW_TOTAL MERO__YAMUX_RECV_WINDOW

int mero__yamux_hdr_parse(const uint8_t *p, size_t n, struct mero__yhdr *h)
{
    if (n < MERO__YAMUX_HDR) {
        return -MERO_ETRUNC;
    }
    h->version = p[0];
    h->type = p[1];
    h->flags = (uint16_t)((p[2] << 8) | p[3]);
    h->sid = ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | p[7];
    h->len = ((uint32_t)p[8] << 24) | ((uint32_t)p[9] << 16) | ((uint32_t)p[10] << 8) | p[11];
    if (h->version != 0 || h->type > MERO__YT_GOAWAY) {
        return -MERO_EPROTO;
    }
    return 0;
}

void mero__yamux_hdr_put(uint8_t o[MERO__YAMUX_HDR], const struct mero__yhdr *h)
{
    o[0] = 0;
    o[1] = h->type;
    o[2] = (uint8_t)(h->flags >> 8);
    o[3] = (uint8_t)h->flags;
    o[4] = (uint8_t)(h->sid >> 24);
    o[5] = (uint8_t)(h->sid >> 16);
    o[6] = (uint8_t)(h->sid >> 8);
    o[7] = (uint8_t)h->sid;
    o[8] = (uint8_t)(h->len >> 24);
    o[9] = (uint8_t)(h->len >> 16);
    o[10] = (uint8_t)(h->len >> 8);
    o[11] = (uint8_t)h->len;
}

static int send_frame(struct mero__conn *c, uint8_t type, uint16_t flags, uint32_t sid,
                      uint32_t len, const uint8_t *data, size_t n)
{
    uint8_t hdr[MERO__YAMUX_HDR];
    struct mero__yhdr h = {0, type, flags, sid, len};
    mero__yamux_hdr_put(hdr, &h);
    MERO_TRY(mero__conn_send(c, hdr, sizeof(hdr)));
    return n ? mero__conn_send(c, data, n) : 0;
}

static struct mero__stream *find(struct mero__conn *c, uint32_t sid)
{
    for (struct mero__stream *s = c->streams; s; s = s->next) {
        if (s->id == sid && !s->closed) {
            return s;
        }
    }
    return NULL;
}

static void mark_closed(struct mero__stream *s)
{
    if (!s->closed) {
        s->closed = 1;
        s->c->nstreams--;
    }
}

/* First flags on a frame of stream s: SYN on our first frame, ACK on our first answer. */
static uint16_t open_flags(struct mero__stream *s)
{
    uint16_t f = 0;
    if (s->syn_sent_ack == 1) {
        f = s->inbound ? MERO__YF_ACK : MERO__YF_SYN;
        s->syn_sent_ack = 2;
    }
    return f;
}

static int pump(struct mero__stream *s)
{
    while (s->txq.len > s->txq_off && s->send_win > 0 && !s->reset) {
        size_t left = s->txq.len - s->txq_off;
        size_t n = left < s->send_win ? left : s->send_win;
        if (n > CHUNK) {
            n = CHUNK;
        }
        MERO_TRY(send_frame(s->c, MERO__YT_DATA, open_flags(s), s->id, (uint32_t)n,
                            s->txq.data + s->txq_off, n));
        s->send_win -= (uint32_t)n;
        s->txq_off += n;
        if (s->txq_off == s->txq.len) {
            s->txq_off = 0;
            mero_buf_reset(&s->txq);
        }
    }
    if (s->txq.len == s->txq_off && s->fin_pending && !s->local_fin) {
        s->fin_pending = 0;
        s->local_fin = 1;
        MERO_TRY(send_frame(s->c, MERO__YT_WINDOW, (uint16_t)(open_flags(s) | MERO__YF_FIN), s->id,
                            0, NULL, 0));
        if (s->remote_fin) {
            mark_closed(s);
        }
    }
    return 0;
}

static int writable(const struct mero__stream *s)
{
    return !(s->closed || s->reset || s->local_fin || s->fin_pending);
}

/* Send straight into the connection while nothing is queued and the window allows; returns
 * how many bytes went, or negative. */
static ssize_t send_now(struct mero__stream *s, const uint8_t *d, size_t n)
{
    size_t sent = 0;
    while (s->txq.len == s->txq_off && sent < n && s->send_win > 0) {
        size_t k = n - sent < s->send_win ? n - sent : s->send_win;
        if (k > CHUNK) {
            k = CHUNK;
        }
        MERO_TRY(send_frame(s->c, MERO__YT_DATA, open_flags(s), s->id, (uint32_t)k, d + sent, k));
        s->send_win -= (uint32_t)k;
        sent += k;
    }
    return (ssize_t)sent;
}

/* The slow-peer bound for n more queued bytes (fails the connection when exceeded). */
static int queue_room(struct mero__stream *s, size_t n)
{
    if (mero__conn_queued(s->c) + n > s->c->net->cfg.max_write_queue) {
        mero__conn_fail(s->c, MERO_EBUSY, "write queue full (slow peer)");
        return -MERO_EBUSY;
    }
    return 0;
}

int mero__stream_write(struct mero__stream *s, const void *p, size_t n)
{
    const uint8_t *d = p;
    ssize_t sent;
    if (!writable(s)) {
        return -MERO_ECLOSED;
    }
    sent = send_now(s, d, n);
    if (sent < 0) {
        return (int)sent;
    }
    d += sent;
    n -= (size_t)sent;
    if (n > 0) {
        MERO_TRY(queue_room(s, n));
        /* drop (and wipe) what was sent before growing, so queued output costs O(n) */
        if (s->txq_off > 0 && s->txq_off >= s->txq.len - s->txq_off) {
            mero_buf_consume(&s->txq, s->txq_off);
            s->txq_off = 0;
        }
        MERO_TRY(mero_buf_append(&s->txq, d, n));
    }
    return 0;
}

int mero__stream_write_buf(struct mero__stream *s, struct mero_buf *frame)
{
    ssize_t sent = 0;
    int rc;
    if (!writable(s)) {
        rc = -MERO_ECLOSED;
    } else if (s->txq.len != s->txq_off) {
        rc = mero__stream_write(s, frame->data, frame->len); /* behind queued bytes: copy */
    } else if ((sent = send_now(s, frame->data, frame->len)) < 0) {
        rc = (int)sent;
    } else if ((size_t)sent == frame->len) {
        rc = 0;
    } else if ((rc = queue_room(s, frame->len - (size_t)sent)) == 0 &&
               (rc = mero_buf_move(&s->txq, frame)) == 0) {
        s->txq_off = (size_t)sent; /* the sent head stays until the queue drains (then wiped) */
        return 0;
    }
    mero__frame_cache_put(s->c->net, frame);
    return rc;
}

void mero__stream_close(struct mero__stream *s)
{
    if (s->closed || s->reset || s->local_fin) {
        return;
    }
    s->fin_pending = 1;
    if (pump(s) < 0) {
        mero__conn_fail(s->c, MERO_EIO, "yamux write failed");
    }
}

void mero__stream_reset(struct mero__stream *s)
{
    s->ev = NULL;
    if (s->closed) {
        return;
    }
    if (!s->reset && s->c->state == MERO__C_UP) {
        (void)send_frame(s->c, MERO__YT_WINDOW, MERO__YF_RST, s->id, 0, NULL, 0);
    }
    s->reset = 1;
    mark_closed(s);
}

void mero__stream_consume(struct mero__stream *s, size_t n)
{
    size_t avail = s->in_borrowed ? s->in_len : s->rx.len;
    if (n > avail) {
        n = avail;
    }
    if (n == 0) {
        return;
    }
    if (s->in_borrowed) {
        s->in += n;
        s->in_len -= n;
    } else {
        mero_buf_consume(&s->rx, n);
        s->in = s->rx.data;
        s->in_len = s->rx.len;
    }
    s->consumed += (uint32_t)n;
    if (s->consumed >= WINDOW_TOTAL / 2 && !s->remote_fin && !s->closed) {
        if (send_frame(s->c, MERO__YT_WINDOW, open_flags(s), s->id, s->consumed, NULL, 0) == 0) {
            s->recv_win += s->consumed;
            s->consumed = 0;
        }
    }
}

static struct mero__stream *stream_new(struct mero__conn *c, uint32_t sid, int inbound)
{
    struct mero__stream *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->c = c;
    s->id = sid;
    s->inbound = inbound;
    s->syn_sent_ack = 1;
    s->send_win = MERO__YAMUX_WINDOW;
    s->recv_win = MERO__YAMUX_WINDOW;
    mero_buf_init(&s->rx, WINDOW_TOTAL);
    mero_buf_init(&s->txq, (size_t)c->net->cfg.max_write_queue);
    s->mss.dialer = !inbound;
    s->next = c->streams;
    c->streams = s;
    c->nstreams++;
    return s;
}

struct mero__stream *mero__yamux_open(struct mero__conn *c, const char *proto, int app,
                                      mero__stream_ev ev, void *ud)
{
    struct mero_buf hello;
    struct mero__stream *s;
    if (c->state != MERO__C_UP || c->goaway || c->nstreams >= c->net->cfg.max_streams_per_conn ||
        c->next_sid > 0x7ffffff0u) {
        return NULL;
    }
    s = stream_new(c, c->next_sid, 0);
    if (s == NULL) {
        return NULL;
    }
    c->next_sid += 2;
    s->app = app;
    s->proto = proto;
    s->mss.proto = proto;
    s->ev = ev;
    s->ud = ud;
    mero_buf_init(&hello, 2 * MERO__MSS_MAX_MSG);
    if (mero__mss_put(&hello, MERO__MSS_PROTO) < 0 || mero__mss_put(&hello, proto) < 0 ||
        mero__stream_write(s, hello.data, hello.len) < 0) {
        mero_buf_cleanup(&hello);
        s->ev = NULL;
        mark_closed(s);
        return NULL;
    }
    mero_buf_cleanup(&hello);
    if (send_frame(c, MERO__YT_WINDOW, 0, s->id, WINDOW_EXTRA, NULL, 0) == 0) {
        s->recv_win += WINDOW_EXTRA;
    }
    return s;
}

static void emit(struct mero__stream *s, int ev)
{
    if (s->ev && !s->closed) {
        s->ev(s, ev);
    }
}

/* Run stream-level multistream-select over s->rx; then hand the rest to the app. */
static int stream_data(struct mero__stream *s)
{
    if (!s->negotiated) {
        struct mero_buf out;
        size_t used = 0;
        int sel = -1, rc;
        mero_buf_init(&out, MERO__MSS_STREAM_REPLY_MAX);
        rc = mero__mss_step(&s->mss, s->rx.data, s->rx.len, &used, &out,
                            s->c->net->conn_ops->proto_match, s, &sel);
        if (out.len && rc >= 0) {
            rc = mero__stream_write(s, out.data, out.len) < 0 ? -MERO_EIO : rc;
        }
        mero_buf_cleanup(&out);
        if (used) {
            mero__stream_consume(s, used);
        }
        if (rc < 0) {
            if (!s->inbound) {
                emit(s, MERO__SE_FAILED);
            }
            mero__stream_reset(s);
            return 0;
        }
        if (rc == 0) {
            return 0;
        }
        s->negotiated = 1;
        if (s->inbound) {
            /* the echoed name is what we selected; conn binds the app by it */
            s->c->net->conn_ops->stream_bind(s, sel);
            if (s->closed) {
                return 0;
            }
        }
        emit(s, MERO__SE_READY);
    }
    if (s->rx.len && !s->closed) {
        s->in = s->rx.data;
        s->in_len = s->rx.len;
        emit(s, MERO__SE_DATA);
    }
    return 0;
}

/* A data frame for a negotiated stream with nothing buffered goes to the app in place (no
 * copy); what it leaves is kept in rx. */
static int deliver_in_place(struct mero__stream *s, const uint8_t *data, size_t n)
{
    s->in = data;
    s->in_len = n;
    s->in_borrowed = 1;
    emit(s, MERO__SE_DATA);
    s->in_borrowed = 0;
    int rc = 0;
    if (s->in_len && !s->closed && s->c->state == MERO__C_UP) {
        rc = mero_buf_append(&s->rx, s->in, s->in_len);
    }
    s->in = s->rx.data;
    s->in_len = s->rx.len;
    return rc;
}

static int on_stream_frame(struct mero__conn *c, const struct mero__yhdr *h, const uint8_t *data)
{
    struct mero__stream *s = find(c, h->sid);
    if (h->flags & MERO__YF_SYN) {
        if (s != NULL || h->sid == 0) {
            return -MERO_EPROTO;
        }
        if ((h->sid & 1) == (c->outbound ? 1u : 0u)) {
            return -MERO_EPROTO; /* the remote used our id parity */
        }
        if (c->goaway) {
            return 0;
        }
        if (c->nstreams >= c->net->cfg.max_streams_per_conn) {
            mero__conn_fail(c, MERO_EBUSY, "stream flood: too many yamux streams");
            return -MERO_EBUSY;
        }
        s = stream_new(c, h->sid, 1);
        if (s == NULL) {
            return -MERO_ENOMEM;
        }
        s->syn_sent_ack = 1;
        /* acknowledge at once (granting the larger window) so the opener need not wait */
        MERO_TRY(send_frame(c, MERO__YT_WINDOW, open_flags(s), s->id, WINDOW_EXTRA, NULL, 0));
        s->recv_win += WINDOW_EXTRA;
    }
    if (s == NULL) {
        /* a late frame for a stream we already forgot: ignore (data was bounded by the caller) */
        return 0;
    }
    if (h->flags & MERO__YF_RST) {
        s->reset = 1;
        mark_closed(s);
        return 0;
    }
    if (h->type == MERO__YT_WINDOW) {
        if ((uint64_t)s->send_win + h->len > 0x7fffffffu) {
            return -MERO_EPROTO;
        }
        s->send_win += h->len;
        if (pump(s) < 0) {
            return -MERO_EIO;
        }
    } else if (h->len > 0) {
        if (h->len > s->recv_win || s->remote_fin) {
            mero__conn_fail(c, MERO_EPROTO, "yamux window violation");
            return -MERO_EPROTO;
        }
        s->recv_win -= h->len;
        if (s->negotiated && s->rx.len == 0 && s->ev != NULL) {
            MERO_TRY(deliver_in_place(s, data, h->len));
        } else {
            MERO_TRY(mero_buf_append(&s->rx, data, h->len));
            MERO_TRY(stream_data(s));
        }
        if (c->state != MERO__C_UP) {
            return 0; /* the app closed the connection; s lives until the connection is freed */
        }
    }
    if ((h->flags & MERO__YF_FIN) && !s->closed && !s->remote_fin) {
        s->remote_fin = 1;
        emit(s, MERO__SE_FIN);
        if (s->local_fin && !s->closed) {
            mark_closed(s);
        }
    }
    return 0;
}

int mero__yamux_input(struct mero__conn *c, const uint8_t *p, size_t n, size_t *used)
{
    size_t off = 0;
    *used = 0;
    while (n - off >= MERO__YAMUX_HDR && c->state == MERO__C_UP) {
        struct mero__yhdr h;
        int rc = mero__yamux_hdr_parse(p + off, n - off, &h);
        if (rc < 0) {
            mero__conn_fail(c, MERO_EPROTO, "bad yamux header");
            return rc;
        }
        if (h.type == MERO__YT_DATA) {
            if (h.len > WINDOW_TOTAL) {
                mero__conn_fail(c, MERO_EPROTO, "yamux window violation (oversized frame)");
                return -MERO_EPROTO;
            }
            if (n - off - MERO__YAMUX_HDR < h.len) {
                break;
            }
        }
        const uint8_t *data = p + off + MERO__YAMUX_HDR;
        off += MERO__YAMUX_HDR + (h.type == MERO__YT_DATA ? h.len : 0);
        *used = off;
        switch (h.type) {
        case MERO__YT_PING:
            if (h.flags & MERO__YF_SYN) {
                rc = send_frame(c, MERO__YT_PING, MERO__YF_ACK, 0, h.len, NULL, 0);
            }
            break;
        case MERO__YT_GOAWAY:
            c->goaway = 1;
            mero__conn_fail(c, MERO_ECLOSED, "peer sent go-away");
            return 0;
        default:
            rc = on_stream_frame(c, &h, data);
            break;
        }
        if (rc < 0) {
            if (c->state != MERO__C_CLOSING) {
                mero__conn_fail(c, -rc, "yamux protocol error");
            }
            return rc;
        }
    }
    return 0;
}

/*
 * Keep-alive: a connection we have heard nothing from for ping_interval_ms gets a ping (SYN,
 * an opaque counter); anything heard afterwards, the ACK or any other byte, proves the peer
 * alive. Silence for ping_timeout_ms after the ping closes the connection, so a peer that
 * vanished without a FIN or RST (power loss, a dropped route) is noticed, and gossip stops
 * counting it as a mesh member.
 */
static void on_keepalive(uv_timer_t *t)
{
    struct mero__conn *c = t->data;
    const struct mero_net_config *cfg = &c->net->cfg;
    uint64_t now = uv_now(c->net->loop);
    if (c->state != MERO__C_UP) {
        return;
    }
    mero__conn_trim(c);
    if (c->ping_out && c->reads == c->reads_at_ping) {
        if (now - c->ping_at >= cfg->ping_timeout_ms) {
            mero__conn_fail(c, MERO_ETIMEOUT, "no answer to a yamux ping (peer unresponsive)");
            return;
        }
        uv_timer_start(t, on_keepalive, cfg->ping_timeout_ms - (now - c->ping_at), 0);
        return;
    }
    if (c->reads != c->reads_at_ping) { /* heard from since the last look: look again later */
        c->ping_out = 0;
        c->reads_at_ping = c->reads;
        c->ping_at = now;
        uv_timer_start(t, on_keepalive, cfg->ping_interval_ms, 0);
        return;
    }
    /* silent for a whole interval (timers never fire early) */
    c->ping_id++;
    if (send_frame(c, MERO__YT_PING, MERO__YF_SYN, 0, c->ping_id, NULL, 0) < 0) {
        return; /* the connection was failed */
    }
    c->ping_out = 1;
    c->ping_at = now;
    uv_timer_start(t, on_keepalive, cfg->ping_timeout_ms, 0);
}

void mero__yamux_keepalive_start(struct mero__conn *c)
{
    c->reads_at_ping = c->reads;
    c->ping_at = uv_now(c->net->loop);
    c->ping_out = 0;
    uv_timer_start(&c->timer, on_keepalive, c->net->cfg.ping_interval_ms, 0);
}

void mero__yamux_goaway(struct mero__conn *c, uint32_t code)
{
    if (c->state == MERO__C_UP) {
        (void)send_frame(c, MERO__YT_GOAWAY, 0, 0, code, NULL, 0);
    }
}

static void stream_free(struct mero__stream *s)
{
    mero_buf_cleanup(&s->rx);
    mero_buf_cleanup(&s->txq);
    free(s);
}

void mero__yamux_reap(struct mero__conn *c)
{
    struct mero__stream **pp = &c->streams;
    while (*pp) {
        struct mero__stream *s = *pp;
        if (!s->closed) {
            pp = &s->next;
            continue;
        }
        if (s->ev) {
            mero__stream_ev ev = s->ev;
            s->ev = NULL;
            ev(s, MERO__SE_CLOSED); /* the handler drops its pointer; writes now fail */
        }
        if (c->state != MERO__C_UP) { /* failed meanwhile: freed with the connection */
            pp = &s->next;
            continue;
        }
        *pp = s->next;
        mero__frame_cache_put(c->net, &s->txq); /* a large sent frame's storage */
        stream_free(s);
    }
}

void mero__yamux_teardown(struct mero__conn *c)
{
    for (struct mero__stream *s = c->streams; s; s = s->next) {
        s->reset = 1;
        mark_closed(s);
    }
    mero__yamux_reap(c); /* CLOSED events only: c is not UP */
}

void mero__yamux_free_all(struct mero__conn *c)
{
    while (c->streams) {
        struct mero__stream *s = c->streams;
        c->streams = s->next;
        stream_free(s);
    }
}
