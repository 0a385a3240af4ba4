/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net_internal.h - the net object (struct mero_net: listeners, connections, address book,
 * handlers, gossip, deferred callbacks) and what it drives: request/response, the large-frame
 * buffer cache and the gossip router's lifecycle. Private to src/net.
 *
 * Each part of the peer has its own private header, bottom up (the floors of
 * docs/network.md): peerid, multiaddr, protobuf (pure codecs), multistream (message codec +
 * negotiator), noise (handshake + transport cipher state, no I/O), yamux (frame codec + stream
 * table over one connection), conn (TCP connection lifecycle and upgrade, and the events it
 * reports upward: struct mero__conn_ops), budget, dial (address book, dialing, deferred
 * callbacks), identify, gossip_rpc (codec) + gossip (router, in gossip_internal.h), and this
 * one; a file includes the parts it uses.
 */
#ifndef MERO_NET_INTERNAL_H
#define MERO_NET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/net.h"
#include "mero/sizes.h"
#include "net/budget_internal.h"
#include "net/multiaddr_internal.h"
#include "net/peerid_internal.h"

struct mero__conn;
struct mero__stream;

struct mero__gossip;
MERO_MUST_CHECK int mero__gossip_new(struct mero_net *net, struct mero__gossip **out);
void mero__gossip_free(struct mero__gossip *g);
void mero__gossip_peer_up(struct mero__conn *c);
void mero__gossip_peer_down(struct mero__conn *c);
void mero__gossip_stream_in(struct mero__stream *s);
void mero__gossip_heartbeat(struct mero__gossip *g);
/* issue 33 (gossip_px.c): turn c away gracefully: a PRUNE with peer exchange for each of our
 * topics, then c closes at the first heartbeat GS_DRAIN_MS later (c->drain_at). */
void mero__gossip_goodbye(struct mero__conn *c);
/* Heartbeat: close the drained connections; reset the PX dial allowance. */
void mero__gossip_drain_tick(struct mero_net *net);

/* ---- request/response ---- */
struct mero__handler {
    struct mero__handler *next;
    char proto[129];
    mero_net_handler fn;
    void *ud;
};
void mero__reqresp_serve(struct mero__stream *s, struct mero__handler *h);
void mero__reqresp_conn_up(struct mero_net *net, struct mero__conn *c);
void mero__reqresp_dial_failed(struct mero_net *net, const char *peer, int code);
void mero__reqresp_free_all(struct mero_net *net);

/* ---- the large-frame buffer cache (frame_cache.c) ---- */
#define MERO__FRAME_CACHE_MIN (1024u * 1024u)
/* Give b (initialised, no storage yet) room for n bytes without growing: the cached buffer when
 * it is big enough, else exactly n (+1) fresh bytes. */
MERO_MUST_CHECK int mero__frame_cache_get(struct mero_net *net, struct mero_buf *b, size_t n);
/* The same, but only from the cache and only for a large n (1 when b got it, else 0 and b
 * unchanged). */
int mero__frame_cache_take(struct mero_net *net, struct mero_buf *b, size_t n);
/* b's storage goes back to the cache (wiped) or is freed; b becomes empty. */
void mero__frame_cache_put(struct mero_net *net, struct mero_buf *b);
void mero__frame_cache_free(struct mero_net *net);

/* ---- the connection manager (connmgr.c, issue 33) ---- */
struct mero__protect {
    char peer[MERO_PEER_ID_STR_MAX];
    uint32_t refs; /* 0: a free slot */
};
/* Established, reported, not draining connections. */
size_t mero__connmgr_established(const struct mero_net *net);
/* Heartbeat: above the high watermark, trim to the low one (goodbye with PX). */
void mero__connmgr_tick(struct mero_net *net);

/* ---- the net object ---- */
struct mero__addr_entry; /* dial.c */
struct mero__conn_ops;   /* conn_internal.h */
struct mero__listener {
    struct mero__listener *next;
    struct mero_net *net;
    uv_tcp_t tcp;
    struct mero__maddr addr;
};
struct mero__pending_req; /* reqresp.c */
struct mero__defer;       /* dial.c */

struct mero_net {
    uv_loop_t *loop;
    struct mero_net_config cfg;
    struct mero_net_callbacks cb;
    void *ud;
    const struct mero__conn_ops *conn_ops; /* net.c's handlers of the transport's events */
    uint8_t *id_sk;                        /* sodium_malloc'd MERO_ED25519_SK_LEN bytes */
    uint8_t id_pk[MERO_ED25519_PK_LEN];
    uint8_t noise_sk[MERO_NOISE_DH_LEN]; /* static X25519 key for Noise (per process) */
    uint8_t noise_pk[MERO_NOISE_DH_LEN];
    char id[MERO_PEER_ID_STR_MAX];
    uint8_t id_bytes[MERO__PEER_ID_ED25519_LEN];
    struct mero__listener *listeners;
    struct mero__conn *conns;
    uint32_t nconns;
    struct mero__addr_entry *book; /* dial.c */
    size_t nbook;
    struct mero__handler *handlers;
    struct mero__pending_req *reqs;
    struct mero__gossip *gossip;
    struct mero__defer *defer; /* dial.c */
    uv_prepare_t flush;
    uv_timer_t heartbeat;
    struct mero_buf spare;           /* frame_cache.c: len always 0 */
    struct mero__ratelog budget_log; /* budget.c */
    const char *budget_last;         /* the last budget event's reason (static string) */
    int handles;
    int freeing;
    /* ---- issue 20: announced addresses (net.c mero_net_announce) ---- */
    struct mero__maddr announce[MERO_NET_MAX_ANNOUNCE]; /* identify lists these, when any */
    size_t nannounce;
    uint64_t spr_seq; /* issue 33: the seq of our last signed peer record */
    struct mero__protect protect[MERO_NET_PROTECT_MAX]; /* issue 33: connmgr.c */
    size_t conns_trimmed;
    uint64_t bufs_trimmed; /* conn.c: links whose idle buffers a keep-alive look freed */
    bool heap_trim;        /* conn.c sets, the heartbeat (net.c) returns free heap to the OS */
};

struct mero__handler *mero__net_find_handler(struct mero_net *net, const char *proto);
/* A new peer's inbound connection authenticated: the inbound budget (mero__budget_up), and a
 * refused newcomer turned away (a goodbye with peer exchange, identify asked). 0 or
 * -MERO_EBUSY, as mero__budget_up. */
MERO_MUST_CHECK int mero__net_admit(struct mero__conn *c);

#endif
