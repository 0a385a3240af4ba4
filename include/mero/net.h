/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net.h - the libp2p peer: TCP over libuv, multistream-select 1.0, Noise XX
 * (Noise_XX_25519_ChaChaPoly_SHA256 with the libp2p handshake payload), yamux 1.0, identify
 * (responder), gossipsub v1.1 (/meshsub/1.1.0, StrictSign) and a request/response protocol
 * (one yamux stream per exchange). Interoperable with js-libp2p. See docs/network.md.
 *
 * Threading / thread safety: everything runs on the caller's uv loop thread; no function is
 * thread-safe (not safe: call only from the loop thread that owns the peer).
 * Callbacks are invoked from the loop; a callback may call any function here except
 * mero_net_free on the same net (defer that with a uv handle).
 *
 * Peer ids are strings in base58btc ("12D3KooW..."), only Ed25519 identities are supported
 * (a peer presenting another key type is refused with -MERO_EUNSUPPORTED).
 *
 * Invariants: a connection is only reported (on_peer) once Noise has authenticated the remote
 * identity and yamux is up; a dial to /p2p/<id> never connects to a different identity; every
 * length read from the wire is bounded by the limits in mero_net_config; one connection per
 * remote peer (simultaneous dials are resolved, the surplus connection is closed).
 */
#ifndef MERO_NET_H
#define MERO_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mero/err.h"
#include "mero/sizes.h"

/* Longest peer id string (Ed25519 identity multihash in base58btc is 52 chars) + NUL. */
#define MERO_PEER_ID_STR_MAX 64
/* Peer id bytes (identity multihash of the protobuf public key): 38 for Ed25519. */
#define MERO_PEER_ID_BYTES_MAX 64
/* Longest multiaddr string we print or accept. */
#define MERO_MULTIADDR_STR_MAX 256

struct mero_net;
struct mero_net_req;

/* Limits and timers. Zero in any field means "use the default" given in brackets. */
struct mero_net_config {
    /* Connection budgets (docs/network.md, "Connection budgets"). Inbound and outbound are
     * counted apart, so a flood of inbound connections never takes the slots our own dials
     * (bootstrap peers, admitters, sync) need. */
    uint32_t max_inbound;          /* [128] established inbound connections; when full, a peer of
                                      higher priority evicts the lowest, others are refused */
    uint32_t max_outbound;         /* [64] outbound connections, dialing or established; beyond
                                      it a dial fails with -MERO_EBUSY */
    uint32_t max_pending;          /* [32] inbound connections still in the handshake; a new one
                                      beyond it closes the oldest */
    uint32_t max_inbound_per_ip;   /* [16] per remote IP: handshaking inbound connections (a new
                                      one beyond it closes that address's oldest) and
                                      established inbound strangers (beyond it, refused); peers
                                      of priority MERO_NET_PRIO_MEMBER or more are not counted */
    uint32_t max_streams_per_conn; /* [256] open yamux streams per connection */
    uint32_t max_frame;            /* [4 MiB] request/response frame payload */
    uint32_t max_gossip_msg;       /* [1 MiB] gossipsub message data; RPC max is this + 64 KiB */
    uint32_t handshake_timeout_ms; /* [10000] TCP accept/connect to yamux up */
    uint32_t max_write_queue;      /* [16 MiB] bytes queued to one connection before it is
                                      dropped as a slow peer */
    uint32_t heartbeat_ms;         /* [1000] gossipsub heartbeat */
    uint32_t request_timeout_ms;   /* [10000] default for mero_net_request timeout_ms == 0 */
    uint32_t seen_ttl_ms;          /* [120000] gossipsub seen-cache lifetime */
    uint32_t max_inflight_inbound; /* [64] unanswered inbound requests per connection */
    uint32_t ping_interval_ms;     /* [15000] a connection silent this long gets a yamux ping */
    uint32_t ping_timeout_ms;      /* [10000] still silent this long after the ping: the peer
                                      is taken for dead and the connection closed */
    /* issue 33: the connection manager (connmgr.c, docs/network.md "Connection manager") */
    uint32_t conn_high_water; /* [64] above this many established connections (both
                                 directions), the heartbeat trims ... */
    uint32_t conn_low_water;  /* [32] ... the least useful unprotected ones down to this */
    uint32_t conn_grace_ms;   /* [10000] a connection younger than this is not trimmed */
};

/*
 * Connection priority (higher is more valuable), which the application gives a peer through
 * mero_net_callbacks.peer_priority when its connection authenticates, or later with
 * mero_net_set_priority. The net layer knows nothing of namespaces: it only prefers to keep
 * higher priorities when a budget is full. Any value in [0, 255] is allowed.
 */
#define MERO_NET_PRIO_STRANGER 0 /* authenticated, nothing known about it (the default) */
#define MERO_NET_PRIO_MEMBER                                                                       \
    1 /* the application vouches for it (shares a namespace with                                   \
         us, a bootstrap peer, ...) */

/* Fill `cfg` with the defaults. */
void mero_net_config_default(struct mero_net_config *cfg);

/*
 * on_gossip: a gossipsub message on a subscribed topic, first time seen. `from` is the
 * message's signed `from` field (the original publisher's peer id, verified by StrictSign),
 * not the peer that forwarded it. Return 0 to accept (the message is forwarded to the mesh),
 * negative to reject (not forwarded). All pointers are borrowed for the call only.
 *
 * on_peer: a peer connected (connected=1, after Noise + yamux) or disconnected (0).
 *
 * peer_priority: the priority (MERO_NET_PRIO_*) of a peer whose connection just authenticated,
 * asked before it is admitted to the inbound budget (and before on_peer). It must not call
 * back into the net. NULL: every peer is a stranger.
 *
 * gossip_noop (issue 33): asked about a new message on a subscribed topic before its signature
 * is checked, with the author it claims: nonzero when on_gossip would make nothing of it and
 * return MERO_NET_IGNORE whether it is genuine or forged (an admission prompt this node
 * forwarded and answered within the reissue gap). Such a message is dropped unverified: not
 * delivered, not forwarded, not remembered as seen (a forged copy cannot shadow the genuine
 * one), and no fault of the sender's. It must not change any state on the strength of the
 * unverified message. NULL: every message is verified.
 *
 * All may be NULL.
 */
struct mero_net_callbacks {
    int (*on_gossip)(void *ud, const char *topic, const char *from, const uint8_t *data,
                     size_t len);
    void (*on_peer)(void *ud, const char *peer_id, int connected);
    int (*peer_priority)(void *ud, const char *peer_id);
    int (*gossip_noop)(void *ud, const char *topic, const char *from, const uint8_t *data,
                       size_t len);
};

/*
 * Create a peer with identity `ed25519_sk` (libsodium form: seed || pk; copied into secure
 * memory). `cfg` may be NULL (defaults); `cb` may be NULL; both are copied. Call
 * mero_crypto_init() first. On success *out is owned (free with mero_net_free).
 */
MERO_MUST_CHECK int mero_net_new(uv_loop_t *loop, const uint8_t ed25519_sk[MERO_ED25519_SK_LEN],
                                 const struct mero_net_config *cfg,
                                 const struct mero_net_callbacks *cb, void *ud,
                                 struct mero_net **out);

/*
 * Close every listener and connection and free the peer. Pending dial and request callbacks
 * are invoked with -MERO_ECLOSED before this returns; callbacks are never invoked after.
 * Handle memory is released in uv close callbacks, so run the loop afterwards
 * (uv_run(loop, UV_RUN_DEFAULT) returns once they have run). NULL is a no-op.
 */
void mero_net_free(struct mero_net *net);

/*
 * Listen on a TCP multiaddr ("/ip4/127.0.0.1/tcp/0", "/ip6/::1/tcp/4001"). Port 0 picks a
 * free port; mero_net_listen_addrs reports the real one. May be called several times.
 */
MERO_MUST_CHECK int mero_net_listen(struct mero_net *net, const char *multiaddr);

/* Our peer id string; borrowed, valid for the life of net. */
const char *mero_net_peer_id(const struct mero_net *net);

/*
 * Write up to `max` listen addresses (each "/ip4/A/tcp/P/p2p/<our id>", NUL-terminated,
 * MERO_MULTIADDR_STR_MAX each) into out; returns how many there are (may exceed max).
 */
size_t mero_net_listen_addrs(const struct mero_net *net, char (*out)[MERO_MULTIADDR_STR_MAX],
                             size_t max);

/*
 * Dial completion: status 0 and the authenticated remote peer id, or a negative code
 * (-MERO_EPEERID when the Noise identity is not the /p2p/ id dialed, -MERO_ETIMEOUT,
 * -MERO_ECLOSED, -MERO_EIO, -MERO_EBUSY (outbound budget full) ...). peer_id is borrowed for the
 * call (NULL on error).
 */
typedef void (*mero_net_dial_cb)(void *ud, int status, const char *peer_id);

/*
 * Dial "/ip4/A/tcp/P[/p2p/<id>]". With a /p2p/ part the remote must prove that identity; the
 * address is recorded in the address book for that peer. If already connected to that peer,
 * cb runs (from the loop, not re-entrantly) with 0. cb may be NULL. Returns 0 when the dial
 * was started (cb then runs exactly once) or a negative code (cb never runs).
 */
MERO_MUST_CHECK int mero_net_dial(struct mero_net *net, const char *multiaddr, mero_net_dial_cb cb,
                                  void *ud);

/* Remember an address ("/ip4/A/tcp/P/p2p/<id>", the /p2p/ part required) for later dials. */
MERO_MUST_CHECK int mero_net_add_addr(struct mero_net *net, const char *multiaddr);

/*
 * Set the priority (MERO_NET_PRIO_*, clamped to [0, 255]) of the connection to peer_id, if one
 * is up; e.g. when the application learns that the peer is a member. Not remembered across
 * reconnections: peer_priority answers for a new connection.
 */
void mero_net_set_priority(struct mero_net *net, const char *peer_id, int prio);

/* Close the connection to a peer, if any (on_peer(…, 0) follows). */
void mero_net_disconnect(struct mero_net *net, const char *peer_id);

/*
 * Write up to `max` connected peer ids into out; returns how many are connected (may exceed
 * max).
 */
size_t mero_net_connected_peers(const struct mero_net *net, char (*out)[MERO_PEER_ID_STR_MAX],
                                size_t max);

/* ---- gossipsub ---- */

/* Subscribe to / leave a topic (at most 256 bytes). Subscribing twice is not an error. */
MERO_MUST_CHECK int mero_net_subscribe(struct mero_net *net, const char *topic);
MERO_MUST_CHECK int mero_net_unsubscribe(struct mero_net *net, const char *topic);

/*
 * Sign (StrictSign) and publish `data` on `topic` (we need not be subscribed). Flood
 * publishing: the message goes to every connected peer subscribed to the topic. Returns the
 * number of peers it was sent to (> 0), -MERO_ENOPEERS when that is zero ("published to zero
 * peers": the caller may retry later), -MERO_ETOOBIG above max_gossip_msg.
 */
MERO_MUST_CHECK int mero_net_publish(struct mero_net *net, const char *topic, const uint8_t *data,
                                     size_t len);

/* Number of connected peers known to be subscribed to topic. */
size_t mero_net_topic_peers(const struct mero_net *net, const char *topic);
/* Number of connected peers subscribed to at least one of our topics (peers that can carry our
 * namespaces' gossip and sync, unlike a stranger's link). */
size_t mero_net_topic_sharers(const struct mero_net *net);

/* ---- request / response ----
 * Framing: on a fresh yamux stream negotiated with multistream-select for `protocol_id`, the
 * requester writes ONE frame = unsigned varint length (protobuf/libp2p style, at most
 * max_frame) followed by that many bytes, then closes its write side (yamux FIN). The
 * responder writes ONE frame back the same way and closes. A zero-length frame is valid.
 */

/*
 * Handler for an inbound request. `req` is owned by the library until answered: call
 * mero_net_respond or mero_net_req_drop exactly once, now or later. If the connection dies
 * first, req stays valid until answered (the answer is then discarded). remote_peer_id and
 * data are borrowed for the call only.
 */
typedef void (*mero_net_handler)(void *ud, struct mero_net_req *req, const char *remote_peer_id,
                                 const uint8_t *data, size_t len);

/*
 * Register (or replace, when handler is non-NULL) / remove (handler NULL) the handler for a
 * protocol id such as "/mero/admission/1". Protocol ids are at most 128 bytes and must start
 * with '/'.
 */
MERO_MUST_CHECK int mero_net_handle(struct mero_net *net, const char *protocol_id,
                                    mero_net_handler handler, void *ud);

/*
 * Answer an inbound request with one frame and release req (also on error). Returns 0, or
 * -MERO_ECLOSED if the stream is gone, -MERO_ETOOBIG above max_frame.
 */
MERO_MUST_CHECK int mero_net_respond(struct mero_net_req *req, const uint8_t *data, size_t len);

/* Release an inbound request without answering (the stream is reset). */
void mero_net_req_drop(struct mero_net_req *req);

/*
 * Request completion: status 0 with the response frame (borrowed for the call), or negative:
 * -MERO_ETIMEOUT, -MERO_EUNSUPPORTED (peer does not speak the protocol), -MERO_ECLOSED
 * (connection lost, or mero_net_free), -MERO_EPEERID, -MERO_EPROTO (peer closed before a whole
 * frame), -MERO_ETOOBIG (response above max_frame), -MERO_EIO (dial failed), -MERO_EBUSY.
 */
typedef void (*mero_net_reply_cb)(void *ud, int status, const uint8_t *data, size_t len);

/*
 * Send one request to peer_id on protocol_id, dialing first if not connected (using the
 * address book: earlier dials, identify answers from peers that dialed us, mero_net_add_addr).
 * timeout_ms 0 means cfg.request_timeout_ms; the timeout covers dial + exchange. Returns 0
 * when started (cb then runs exactly once, never from inside this call) or negative, and then
 * cb never runs: -MERO_ENOTFOUND (not connected and no address known), -MERO_EINVAL,
 * -MERO_ETOOBIG (len > max_frame), -MERO_EPEERID / -MERO_EUNSUPPORTED (not an Ed25519 peer
 * id), -MERO_EBUSY (outbound budget full), -MERO_ECLOSED (net is being freed).
 */
MERO_MUST_CHECK int mero_net_request(struct mero_net *net, const char *peer_id,
                                     const char *protocol_id, const uint8_t *data, size_t len,
                                     uint32_t timeout_ms, mero_net_reply_cb cb, void *ud);

/* ---- peer ids and multiaddrs (pure functions) ---- */

/* Peer id string of an Ed25519 public key. out gets at most MERO_PEER_ID_STR_MAX bytes. */
MERO_MUST_CHECK int mero_net_peer_id_from_pk(const uint8_t pk[MERO_ED25519_PK_LEN],
                                             char out[MERO_PEER_ID_STR_MAX]);

/*
 * Decode a peer id string into its multihash bytes (what proof-of-possession signatures
 * cover): *len in/out (capacity in, length out; MERO_PEER_ID_BYTES_MAX is enough).
 */
MERO_MUST_CHECK int mero_net_peer_id_bytes(const char *peer_id, uint8_t *out, size_t *len);

/* The Ed25519 public key inside an (identity-multihash) peer id; -MERO_EUNSUPPORTED else. */
MERO_MUST_CHECK int mero_net_peer_id_pk(const char *peer_id, uint8_t pk[MERO_ED25519_PK_LEN]);

/*
 * Check a multiaddr string (/ip4|/ip6 .../tcp/N[/p2p/<id>]) and canonicalise it into out
 * (MERO_MULTIADDR_STR_MAX); /dns4, /dns6 and others are refused with -MERO_EUNSUPPORTED.
 * peer_id (may be NULL) gets the /p2p/ id or "" when absent.
 */
MERO_MUST_CHECK int mero_net_multiaddr_check(const char *multiaddr,
                                             char out[MERO_MULTIADDR_STR_MAX],
                                             char peer_id[MERO_PEER_ID_STR_MAX]);

/* ---- issue 20: gossipsub v1.1 peer scoring (src/net/gossip_score.c, gossipsub.c) ---- */

/*
 * on_gossip may also return MERO_NET_IGNORE: the message is not forwarded and its sender is not
 * penalised (libp2p's "ignore": e.g. an op whose parents are not here yet). A negative return
 * is a rejection: the message is invalid and counts against the peer that delivered it (P4).
 */
#define MERO_NET_IGNORE 1

/* P5: the application's opinion of a connected peer (added to its score with weight 1; 0 by
 * default). Not remembered once the peer's retained score expires. */
void mero_net_set_app_score(struct mero_net *net, const char *peer_id, double score);
/* The current gossip score of a connected (or recently disconnected, retained) peer; 0 when the
 * peer is unknown. *graylisted tells whether its RPCs are being dropped (may be NULL). */
double mero_net_peer_score(const struct mero_net *net, const char *peer_id, bool *graylisted);
/* Issue 33: whether peer_id, not connected now, turned us away or trimmed us (its link closed
 * within a few seconds of a PRUNE from it: the goodbye of gossip_px.c) less than ms ago. Known
 * while its retained score is (at most 64 peers); false for a link lost any other way. */
bool mero_net_turned_away_within(const struct mero_net *net, const char *peer_id, uint64_t ms);

struct mero_net_gossip_stats {
    uint64_t invalid_messages; /* messages counted against their sender (P4) */
    uint64_t graylisted_rpcs;  /* RPCs dropped unprocessed from graylisted peers */
    uint64_t graylistings;     /* times a peer crossed the graylist threshold */
    /* issue 19 (metrics): messages delivered to the application (new, signature-checked, on a
     * subscribed topic) and published by it to at least one peer, since mero_net_new */
    uint64_t delivered, published;
    /* issue 33: peer exchange - records we put into PRUNEs, records we received that verified,
     * dials we started for them */
    uint64_t px_records_sent, px_records_accepted, px_dials;
    /* issue 33: messages dropped before their signature was checked (gossip_noop) */
    uint64_t unverified_ignored;
};
/* The counters above (all zero without gossip). Loop thread. */
void mero_net_gossip_stats(const struct mero_net *net, struct mero_net_gossip_stats *out);

/* ---- issue 33: the connection manager (src/net/connmgr.c) ---- */
#define MERO_NET_PROTECT_MAX 64 /* peer ids protected at once */
/*
 * Protect the connection to peer_id (now or later) from the connection manager's trim, until
 * mero_net_unprotect (refcounted: each protect needs its release). For a pending admission's
 * admitter, say. -MERO_EBUSY when MERO_NET_PROTECT_MAX peers are protected already.
 */
MERO_MUST_CHECK int mero_net_protect(struct mero_net *net, const char *peer_id);
void mero_net_unprotect(struct mero_net *net, const char *peer_id);
bool mero_net_is_protected(struct mero_net *net, const char *peer_id);
/* Connections the connection manager trimmed since mero_net_new. */
size_t mero_net_conns_trimmed(const struct mero_net *net);

/* ---- issue 20: announced addresses (src/net/net.c) ---- */
#define MERO_NET_MAX_ANNOUNCE 4

/*
 * Announce `multiaddr` (/ip4|/ip6 .../tcp/N, optionally /p2p/<our id>) to peers in identify
 * instead of our listen addresses: for a node reached through a proxy or a port forward.
 * Once one is set, identify lists only announced addresses; listen addresses (run.json,
 * mero_net_listen_addrs) are unchanged. -MERO_ETOOBIG beyond MERO_NET_MAX_ANNOUNCE,
 * -MERO_EPEERID for another peer's id, a parse error for a bad multiaddr.
 */
MERO_MUST_CHECK int mero_net_announce(struct mero_net *net, const char *multiaddr);

#endif
