/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identify.c - the libp2p identify protocol (/ipfs/id/1.0.0): we answer with our public key,
 * listen addresses (or, when set, only the announced ones: mero_net_announce), the address
 * we observed for the peer and the protocols we speak (meshsub, identify, every registered
 * request/response id); we ask every new peer once and
 * record a TCP listen address it reports in the address book, so mero_net_request can redial a
 * peer that first dialed us. js-libp2p needs our answer to open its gossipsub stream to us.
 *
 * Issue 33: the answer carries our signed peer record (field 8, peer_record.c); a peer's
 * record is kept on its connection once it verifies and names that peer.
 *
 * Invariants: the answer is read with a 64 KiB cap; addresses that do not decode (other
 * transports, DNS) are skipped; nothing in an identify message changes a connection's
 * authenticated identity.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/log.h"
#include "net/conn_internal.h"
#include "net/dial_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/identify_internal.h"
#include "net/multiaddr_internal.h"
#include "net/net_internal.h"
#include "net/peerid_internal.h"
#include "net/protobuf_internal.h"
#include "net/yamux_internal.h"
#include "net/peer_record_internal.h"

#define IDENTIFY_MAX (64u * 1024u)

int mero__identify_encode(struct mero_net *net, struct mero__conn *c, struct mero_buf *out)
{
    uint8_t pb[MERO__PUBKEY_PB_LEN];
    struct mero_buf a;
    int rc = 0;
    mero__pubkey_pb(net->id_pk, pb);
    mero_buf_init(&a, MERO__SPR_MAX);
    MERO_TRY_OUT(mero__pb_put_str(out, 5, "ipfs/0.1.0"));
    MERO_TRY_OUT(mero__pb_put_str(out, 6, "mero/0.1"));
    MERO_TRY_OUT(mero__pb_put_bytes(out, 1, pb, sizeof(pb)));
    for (size_t i = 0; i < net->nannounce; i++) {
        struct mero__maddr m = net->announce[i];
        m.peer[0] = 0;
        mero_buf_reset(&a);
        MERO_TRY_OUT(mero__maddr_encode(&m, &a));
        MERO_TRY_OUT(mero__pb_put_bytes(out, 2, a.data, a.len));
    }
    for (struct mero__listener *l = net->listeners; l && net->nannounce == 0; l = l->next) {
        struct mero__maddr m = l->addr;
        m.peer[0] = 0;
        mero_buf_reset(&a);
        MERO_TRY_OUT(mero__maddr_encode(&m, &a));
        MERO_TRY_OUT(mero__pb_put_bytes(out, 2, a.data, a.len));
    }
    if (c && c->raddr.family) {
        mero_buf_reset(&a);
        MERO_TRY_OUT(mero__maddr_encode(&c->raddr, &a));
        MERO_TRY_OUT(mero__pb_put_bytes(out, 4, a.data, a.len));
    }
    /* issue 33: our signed peer record, which peers hand on in gossipsub's peer exchange */
    mero_buf_reset(&a);
    MERO_TRY_OUT(mero__spr_own(net, &a));
    MERO_TRY_OUT(mero__pb_put_bytes(out, 8, a.data, a.len));
    MERO_TRY_OUT(mero__pb_put_str(out, 3, MERO__IDENTIFY_PROTO));
    MERO_TRY_OUT(mero__pb_put_str(out, 3, MERO__MESHSUB_11));
    for (struct mero__handler *h = net->handlers; h; h = h->next) {
        if (h->fn) {
            MERO_TRY_OUT(mero__pb_put_str(out, 3, h->proto));
        }
    }
out:
    mero_buf_cleanup(&a);
    return rc;
}

static void serve_ev(struct mero__stream *s, int ev)
{
    if (ev == MERO__SE_DATA) {
        mero__stream_consume(s, s->in_len); /* nothing expected from the asker */
    } else if (ev == MERO__SE_FIN) {
        mero__stream_close(s);
    }
}

void mero__identify_serve(struct mero__stream *s)
{
    struct mero_buf msg, frame;
    int rc;
    s->app = MERO__APP_IDENTIFY_SERVE;
    s->ev = serve_ev;
    mero_buf_init(&msg, IDENTIFY_MAX);
    mero_buf_init(&frame, IDENTIFY_MAX + 10);
    MERO_TRY_OUT(mero__identify_encode(s->c->net, s->c, &msg));
    MERO_TRY_OUT(mero_buf_append_uvarint(&frame, msg.len));
    MERO_TRY_OUT(mero_buf_append(&frame, msg.data, msg.len));
    MERO_TRY_OUT(mero__stream_write(s, frame.data, frame.len));
out:
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&frame);
    if (rc < 0) {
        mero__stream_reset(s);
        return;
    }
    mero__stream_close(s);
}

/* issue 33: keep the peer's signed peer record when it verifies and is the peer's own. */
static void keep_record(struct mero__conn *c, const uint8_t *p, size_t n)
{
    struct mero__spr r;
    if (mero__spr_open(p, n, &r) < 0 || memcmp(r.pk, c->peer_pk, sizeof(r.pk)) != 0) {
        MERO_DEBUG("net: identify from %s: signed peer record refused", c->peer);
        return;
    }
    uint8_t *copy = malloc(n);
    if (copy == NULL) {
        return;
    }
    memcpy(copy, p, n);
    free(c->spr);
    c->spr = copy;
    c->spr_n = n;
}

/* Parse a complete identify message and record one TCP listen address. */
static void learn(struct mero__conn *c, const uint8_t *p, size_t n)
{
    struct mero_cur cur;
    struct mero__pb_field f;
    struct mero__maddr best, m;
    int have = 0;
    mero_cur_init(&cur, p, n);
    while (mero__pb_next(&cur, &f) == 1) {
        if (f.num == 8 && f.wt == MERO__PB_LEN) {
            keep_record(c, f.p, f.n);
            continue;
        }
        if (f.num != 2 || f.wt != MERO__PB_LEN || mero__maddr_decode(f.p, f.n, &m) < 0) {
            continue;
        }
        if (m.port == 0 || (m.peer[0] && strcmp(m.peer, c->peer) != 0)) {
            continue;
        }
        /* prefer an address on the interface the peer reached us from */
        if (!have || (m.family == c->raddr.family &&
                      memcmp(m.ip, c->raddr.ip, m.family == 4 ? 4 : 16) == 0)) {
            best = m;
            have = 1;
        }
    }
    if (have) {
        memcpy(best.peer, c->peer, sizeof(best.peer));
        mero__book_add(c->net, &best);
    }
}

static void ask_ev(struct mero__stream *s, int ev)
{
    if (ev == MERO__SE_DATA) {
        struct mero_cur cur;
        uint64_t len;
        const uint8_t *body;
        mero_cur_init(&cur, s->in, s->in_len);
        if (mero_cur_uvarint(&cur, &len) < 0) {
            if (s->in_len >= 10) {
                mero__stream_reset(s);
            }
            return;
        }
        if (len > IDENTIFY_MAX) {
            MERO_DEBUG("net: identify answer from %s too large", s->c->peer);
            mero__stream_reset(s);
            return;
        }
        if (mero_cur_bytes(&cur, (size_t)len, &body) < 0) {
            return; /* wait for more */
        }
        learn(s->c, body, (size_t)len);
        mero__stream_reset(s);
    } else if (ev == MERO__SE_FIN) {
        mero__stream_reset(s);
    }
}

void mero__identify_ask(struct mero__conn *c)
{
    struct mero__stream *s =
        mero__yamux_open(c, MERO__IDENTIFY_PROTO, MERO__APP_IDENTIFY_ASK, ask_ev, NULL);
    if (s != NULL) {
        mero__stream_close(s); /* we send nothing beyond negotiation */
    }
}
