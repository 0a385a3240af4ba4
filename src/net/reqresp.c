/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reqresp.c - request/response over yamux: one stream per exchange, negotiated with
 * multistream-select for the caller's protocol id; the requester writes one frame (unsigned
 * varint length + bytes) and half-closes, the responder answers with one frame and closes.
 * Client side: dial on demand through the address book, per-request timer. Server side: a
 * registered handler gets the frame and answers now or later through struct mero_net_req.
 *
 * Invariants: a frame length above cfg.max_frame ends the exchange before any allocation of
 * that size; every request callback runs exactly once (reply, error, timeout or shutdown) and
 * never from inside mero_net_request; inbound requests per connection are capped
 * (cfg.max_inflight_inbound) so a peer cannot pin unbounded memory in slow handlers.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/log.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/multiaddr_internal.h"
#include "net/net_internal.h"
#include "net/yamux_internal.h"

enum { RQ_WAIT_CONN = 0, RQ_WAIT_STREAM, RQ_SENT };

struct mero__pending_req {
    struct mero__pending_req *next;
    struct mero_net *net;
    char peer[MERO_PEER_ID_STR_MAX];
    char proto[129];
    struct mero_buf frame; /* the whole request (varint length + bytes) until the stream takes it */
    mero_net_reply_cb cb;
    void *ud;
    uv_timer_t timer;
    struct mero__stream *s;
    struct mero_buf resp;
    int state;
    int done;
};

struct mero_net_req {
    struct mero__stream *s;
    struct mero__conn *counted; /* the connection whose inbound_reqs counts us */
    struct mero__handler *h;
    struct mero_buf in;
    uint32_t max_frame;
    int delivered;
};

/* ---- framing ---- */

/* A complete frame in p[0..n): 1 with body, blen and used; 0 need more; negative bad. */
static int frame_parse(const uint8_t *p, size_t n, uint32_t max, const uint8_t **body, size_t *blen,
                       size_t *used)
{
    struct mero_cur c;
    uint64_t len;
    int rc;
    mero_cur_init(&c, p, n);
    rc = mero_cur_uvarint(&c, &len);
    if (rc == -MERO_ETRUNC) {
        return n >= 10 ? -MERO_EPROTO : 0;
    }
    if (rc < 0) {
        return -MERO_EPROTO;
    }
    if (len > max) {
        return -MERO_ETOOBIG;
    }
    if (mero_cur_left(&c) < len) {
        return 0;
    }
    *body = p + c.off;
    *blen = (size_t)len;
    *used = c.off + (size_t)len;
    return 1;
}

/* The frame's length prefix (unsigned LEB128) into hdr; returns its size (1..10). */
static size_t frame_hdr(uint8_t hdr[10], uint64_t len)
{
    size_t n = 0;
    do {
        hdr[n++] = (uint8_t)((len & 0x7f) | (len >> 7 ? 0x80 : 0));
        len >>= 7;
    } while (len);
    return n;
}

/* Build a whole frame in b (storage from the frame cache when large). */
static int frame_build(struct mero_net *net, struct mero_buf *b, const uint8_t *data, size_t len)
{
    uint8_t hdr[10];
    size_t hlen = frame_hdr(hdr, len);
    mero_buf_init(b, hlen + len);
    MERO_TRY(mero__frame_cache_get(net, b, hlen + len));
    if (mero_buf_append(b, hdr, hlen) < 0 || (len && mero_buf_append(b, data, len) < 0)) {
        mero_buf_cleanup(b);
        return -MERO_ENOMEM;
    }
    return 0;
}

/* Write one frame on s: a small one straight to the stream (what the window allows goes out
 * without a copy), a large one built whole and moved into the send queue. */
static int frame_write(struct mero__stream *s, const uint8_t *data, size_t len)
{
    uint8_t hdr[10];
    size_t hlen = frame_hdr(hdr, len);
    struct mero_buf frame;
    if (hlen + len < MERO__FRAME_CACHE_MIN) {
        int rc = mero__stream_write(s, hdr, hlen);
        if (rc < 0 || len == 0) {
            return rc;
        }
        return mero__stream_write(s, data, len);
    }
    MERO_TRY(frame_build(s->c->net, &frame, data, len));
    return mero__stream_write_buf(s, &frame);
}

/* Append stream input to a frame being assembled; a large frame whose length prefix is already
 * here first takes the cached buffer (never fresh memory on the peer's word alone). */
static int frame_gather(struct mero_net *net, struct mero_buf *acc, const uint8_t *p, size_t n)
{
    if (acc->data == NULL) {
        struct mero_cur c;
        uint64_t len;
        mero_cur_init(&c, p, n);
        if (mero_cur_uvarint(&c, &len) == 0 && len <= acc->max - c.off) {
            (void)mero__frame_cache_take(net, acc, c.off + (size_t)len);
        }
    }
    return mero_buf_append(acc, p, n);
}

/* ---- client ---- */

static void on_timer_closed(uv_handle_t *h)
{
    struct mero__pending_req *r = h->data;
    mero_buf_cleanup(&r->resp);
    mero_buf_cleanup(&r->frame);
    free(r);
}

static void complete(struct mero__pending_req *r, int status, const uint8_t *data, size_t len)
{
    struct mero__pending_req **pp = &r->net->reqs;
    if (r->done) {
        return;
    }
    r->done = 1;
    while (*pp && *pp != r) {
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = r->next;
    }
    if (r->s) {
        r->s->ev = NULL;
        r->s->ud = NULL;
        if (status < 0) {
            mero__stream_reset(r->s);
        } /* on success our FIN is sent; the responder's FIN completes the close */
        r->s = NULL;
    }
    uv_timer_stop(&r->timer);
    if (r->cb) {
        r->cb(r->ud, status, data, len);
    }
    mero__frame_cache_put(r->net, &r->resp);
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
}

static void client_ev(struct mero__stream *s, int ev)
{
    struct mero__pending_req *r = s->ud;
    const uint8_t *body;
    size_t blen, used;
    int rc;
    if (r == NULL) {
        return;
    }
    switch (ev) {
    case MERO__SE_READY:
        r->state = RQ_SENT;
        rc = mero__stream_write_buf(s, &r->frame); /* the frame moves to the stream */
        if (rc < 0) {
            complete(r, -MERO_ECLOSED, NULL, 0);
            return;
        }
        mero__stream_close(s);
        break;
    case MERO__SE_DATA:
        if (frame_gather(r->net, &r->resp, s->in, s->in_len) < 0) {
            complete(r, -MERO_ETOOBIG, NULL, 0);
            return;
        }
        mero__stream_consume(s, s->in_len);
        rc = frame_parse(r->resp.data, r->resp.len, r->net->cfg.max_frame, &body, &blen, &used);
        if (rc < 0) {
            complete(r, rc, NULL, 0);
        } else if (rc == 1) {
            complete(r, 0, body, blen);
        }
        break;
    case MERO__SE_FIN:
        complete(r, -MERO_EPROTO, NULL, 0); /* closed before a whole frame */
        break;
    case MERO__SE_FAILED:
        r->s = NULL;
        complete(r, -MERO_EUNSUPPORTED, NULL, 0);
        break;
    default: /* CLOSED */
        r->s = NULL;
        complete(r, -MERO_ECLOSED, NULL, 0);
        break;
    }
}

static void start_on(struct mero__pending_req *r, struct mero__conn *c)
{
    r->state = RQ_WAIT_STREAM;
    r->s = mero__yamux_open(c, r->proto, MERO__APP_REQ_ASK, client_ev, r);
    if (r->s == NULL) {
        complete(r, -MERO_EBUSY, NULL, 0);
    }
}

static void on_req_timeout(uv_timer_t *t)
{
    complete(t->data, -MERO_ETIMEOUT, NULL, 0);
}

int mero_net_request(struct mero_net *net, const char *peer_id, const char *protocol_id,
                     const uint8_t *data, size_t len, uint32_t timeout_ms, mero_net_reply_cb cb,
                     void *ud)
{
    struct mero__pending_req *r;
    struct mero__conn *c;
    const struct mero__maddr *m = NULL;
    uint8_t pk[MERO_ED25519_PK_LEN];
    size_t plen = protocol_id ? strlen(protocol_id) : 0;
    if (net->freeing) {
        return -MERO_ECLOSED;
    }
    if (peer_id == NULL || plen == 0 || plen > 128 || protocol_id[0] != '/' ||
        memchr(protocol_id, '\n', plen) || (data == NULL && len)) {
        return -MERO_EINVAL;
    }
    if (len > net->cfg.max_frame) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(mero_net_peer_id_pk(peer_id, pk));
    c = mero__conn_find(net, peer_id);
    if (c == NULL && mero__dial_pending(net, peer_id) == NULL) {
        m = mero__book_find(net, peer_id);
        if (m == NULL) {
            return -MERO_ENOTFOUND;
        }
    }
    r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return -MERO_ENOMEM;
    }
    /* the frame is built once, here; the stream takes it whole when it is ready */
    if (frame_build(net, &r->frame, data, len) < 0) {
        free(r);
        return -MERO_ENOMEM;
    }
    r->net = net;
    snprintf(r->peer, sizeof(r->peer), "%s", peer_id);
    memcpy(r->proto, protocol_id, plen + 1);
    r->cb = cb;
    r->ud = ud;
    mero_buf_init(&r->resp, (size_t)net->cfg.max_frame + 10);
    if (m) {
        int rc = mero__dial(net, m, NULL, NULL); /* neither connected nor being dialed */
        if (rc < 0) {
            mero_buf_cleanup(&r->resp);
            mero_buf_cleanup(&r->frame);
            free(r);
            return rc;
        }
    }
    uv_timer_init(net->loop, &r->timer);
    r->timer.data = r;
    uv_timer_start(&r->timer, on_req_timeout, timeout_ms ? timeout_ms : net->cfg.request_timeout_ms,
                   0);
    r->next = net->reqs;
    net->reqs = r;
    if (c) {
        start_on(r, c); /* only opens the stream: callbacks come from the loop */
    }
    return 0;
}

void mero__reqresp_conn_up(struct mero_net *net, struct mero__conn *c)
{
    for (struct mero__pending_req *r = net->reqs, *next; r; r = next) {
        next = r->next;
        if (r->state == RQ_WAIT_CONN && strcmp(r->peer, c->peer) == 0) {
            start_on(r, c);
        }
    }
}

void mero__reqresp_dial_failed(struct mero_net *net, const char *peer, int code)
{
    struct mero__pending_req *r = net->reqs;
    while (r) {
        if (r->state == RQ_WAIT_CONN && !r->done && strcmp(r->peer, peer) == 0 &&
            mero__dial_pending(net, peer) == NULL) {
            complete(r, code, NULL, 0);
            r = net->reqs; /* the list changed */
            continue;
        }
        r = r->next;
    }
}

void mero__reqresp_free_all(struct mero_net *net)
{
    while (net->reqs) {
        complete(net->reqs, -MERO_ECLOSED, NULL, 0);
    }
}

/* ---- server ---- */

static void uncount(struct mero_net_req *q)
{
    if (q->counted) {
        q->counted->inbound_reqs--;
        q->counted = NULL;
    }
}

static void req_free(struct mero_net_req *q)
{
    uncount(q);
    if (q->s != NULL) { /* the stream, so the net, is still there */
        mero__frame_cache_put(q->s->c->net, &q->in);
    }
    mero_buf_cleanup(&q->in);
    free(q);
}

static void server_ev(struct mero__stream *s, int ev)
{
    struct mero_net_req *q = s->ud;
    const uint8_t *body;
    size_t blen, used;
    int rc;
    if (q == NULL || ev == MERO__SE_READY) {
        return;
    }
    if (ev == MERO__SE_DATA) {
        if (q->delivered || frame_gather(s->c->net, &q->in, s->in, s->in_len) < 0) {
            MERO_INFO("net: request on %s from %s: data beyond its frame", s->proto, s->c->peer);
            s->ud = NULL;
            mero__stream_reset(s);
            req_free(q);
            return;
        }
        mero__stream_consume(s, s->in_len);
        rc = frame_parse(q->in.data, q->in.len, q->max_frame, &body, &blen, &used);
        if (rc < 0 || (rc == 1 && used != q->in.len)) {
            MERO_INFO("net: bad request frame on %s from %s (%s)", s->proto, s->c->peer,
                      mero_strerror(rc < 0 ? rc : MERO_EPROTO));
            s->ud = NULL;
            mero__stream_reset(s);
            req_free(q);
            return;
        }
        if (rc == 1) {
            q->delivered = 1;
            q->h->fn(q->h->ud, q, s->c->peer, body, blen);
        }
        return;
    }
    if (ev == MERO__SE_FIN) {
        if (!q->delivered) {
            s->ud = NULL;
            mero__stream_reset(s);
            req_free(q);
        }
        return;
    }
    /* CLOSED: the stream is gone */
    q->s = NULL;
    uncount(q);
    if (!q->delivered) {
        req_free(q);
    }
}

void mero__reqresp_serve(struct mero__stream *s, struct mero__handler *h)
{
    struct mero_net_req *q;
    if (s->c->inbound_reqs >= s->c->net->cfg.max_inflight_inbound) {
        MERO_INFO("net: too many unanswered requests from %s", s->c->peer);
        mero__stream_reset(s);
        return;
    }
    q = calloc(1, sizeof(*q));
    if (q == NULL) {
        mero__stream_reset(s);
        return;
    }
    q->s = s;
    q->h = h;
    q->max_frame = s->c->net->cfg.max_frame;
    q->counted = s->c;
    s->c->inbound_reqs++;
    mero_buf_init(&q->in, (size_t)q->max_frame + 10);
    s->app = MERO__APP_REQ_SERVE;
    s->ev = server_ev;
    s->ud = q;
}

int mero_net_respond(struct mero_net_req *req, const uint8_t *data, size_t len)
{
    struct mero__stream *s;
    int rc;
    if (req == NULL) {
        return -MERO_EINVAL;
    }
    s = req->s;
    if (s == NULL || s->closed) {
        req_free(req);
        return -MERO_ECLOSED;
    }
    s->ev = NULL;
    s->ud = NULL;
    if (len > req->max_frame) {
        mero__stream_reset(s);
        req_free(req);
        return -MERO_ETOOBIG;
    }
    rc = frame_write(s, data, len);
    if (rc < 0) {
        mero__stream_reset(s);
    } else {
        mero__stream_close(s);
    }
    req_free(req);
    return rc < 0 ? -MERO_ECLOSED : 0;
}

void mero_net_req_drop(struct mero_net_req *req)
{
    if (req == NULL) {
        return;
    }
    if (req->s) {
        req->s->ud = NULL;
        mero__stream_reset(req->s);
    }
    req_free(req);
}
