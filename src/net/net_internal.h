/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net_internal.h - private structures and cross-file functions of src/net (the libp2p peer).
 * Layering, bottom up: base58/peerid/multiaddr/protobuf (pure codecs), multistream (message
 * codec + negotiator), noise (handshake + transport cipher state, no I/O), yamux (frame codec
 * + stream table over one connection), conn (TCP connection lifecycle and upgrade), identify,
 * gossip_rpc (codec) + gossipsub (router), reqresp, net (public object).
 */
#ifndef MERO_NET_INTERNAL_H
#define MERO_NET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mero/buf.h"
#include "mero/net.h"
#include "mero/sizes.h"

/* ---- base58btc: mero_base58_* in mero/encoding.h (util/base58.c) ---- */
#include "mero/encoding.h"

/* ---- peer ids ---- */
#define MERO__PEER_ID_ED25519_LEN 38 /* 0x00 0x24 | 08 01 12 20 | pk */
#define MERO__PUBKEY_PB_LEN       36 /* 08 01 12 20 | pk */
#define MERO__PUBKEY_PB_HDR       4  /* 08 01 12 20 */
_Static_assert(MERO__PUBKEY_PB_LEN == MERO__PUBKEY_PB_HDR + MERO_ED25519_PK_LEN,
               "a protobuf PublicKey is its 4-byte header and the Ed25519 key");
_Static_assert(MERO__PEER_ID_ED25519_LEN == 2 + MERO__PUBKEY_PB_LEN,
               "an identity multihash is 0x00, the length, then the PublicKey");
void mero__pubkey_pb(const uint8_t pk[MERO_ED25519_PK_LEN], uint8_t out[MERO__PUBKEY_PB_LEN]);
/* Parse a protobuf PublicKey; only Ed25519 (-MERO_EUNSUPPORTED otherwise). */
MERO_MUST_CHECK int mero__pubkey_pb_parse(const uint8_t *p, size_t n,
                                          uint8_t pk[MERO_ED25519_PK_LEN]);
void mero__peer_id_bytes_from_pk(const uint8_t pk[MERO_ED25519_PK_LEN],
                                 uint8_t out[MERO__PEER_ID_ED25519_LEN]);
/* Peer id bytes (multihash) -> Ed25519 public key. */
MERO_MUST_CHECK int mero__peer_id_bytes_pk(const uint8_t *id, size_t n,
                                           uint8_t pk[MERO_ED25519_PK_LEN]);
MERO_MUST_CHECK int mero__peer_id_str_from_bytes(const uint8_t *id, size_t n,
                                                 char out[MERO_PEER_ID_STR_MAX]);

/* ---- multiaddr ---- */
struct mero__maddr {
    int family; /* 4 or 6 */
    uint8_t ip[16];
    uint16_t port;
    char peer[MERO_PEER_ID_STR_MAX]; /* "" when absent */
};
MERO_MUST_CHECK int mero__maddr_parse(const char *s, struct mero__maddr *out);
MERO_MUST_CHECK int mero__maddr_format(const struct mero__maddr *m, int with_peer,
                                       char out[MERO_MULTIADDR_STR_MAX]);
/* Binary multiaddr (identify listenAddrs) <-> struct. */
MERO_MUST_CHECK int mero__maddr_decode(const uint8_t *p, size_t n, struct mero__maddr *out);
MERO_MUST_CHECK int mero__maddr_encode(const struct mero__maddr *m, struct mero_buf *out);
MERO_MUST_CHECK int mero__maddr_to_sockaddr(const struct mero__maddr *m,
                                            struct sockaddr_storage *ss);
MERO_MUST_CHECK int mero__maddr_from_sockaddr(const struct sockaddr *sa, struct mero__maddr *m);

/* ---- protobuf (minimal) ---- */
enum { MERO__PB_VARINT = 0, MERO__PB_I64 = 1, MERO__PB_LEN = 2, MERO__PB_I32 = 5 };
struct mero__pb_field {
    uint32_t num;
    int wt;
    uint64_t v;       /* varint / fixed value */
    const uint8_t *p; /* LEN payload (borrowed) */
    size_t n;
    size_t start, end; /* offsets of the whole field in the input */
};
/* Next field: 1 and *f filled, 0 at end of input, negative on malformed input. */
MERO_MUST_CHECK int mero__pb_next(struct mero_cur *c, struct mero__pb_field *f);
MERO_MUST_CHECK int mero__pb_put_varint(struct mero_buf *b, uint32_t num, uint64_t v);
MERO_MUST_CHECK int mero__pb_put_bytes(struct mero_buf *b, uint32_t num, const void *p, size_t n);
MERO_MUST_CHECK int mero__pb_put_str(struct mero_buf *b, uint32_t num, const char *s);
/* Header (tag + length) of a LEN field whose body follows. */
MERO_MUST_CHECK int mero__pb_put_len(struct mero_buf *b, uint32_t num, size_t n);

/* ---- multistream-select 1.0 ---- */
#define MERO__MSS_PROTO   "/multistream/1.0.0"
#define MERO__MSS_MAX_MSG 1024
/* One message: 1 with msg, mlen (without the newline) and used; 0 need more; negative bad. */
MERO_MUST_CHECK int mero__mss_parse(const uint8_t *p, size_t n, const uint8_t **msg, size_t *mlen,
                                    size_t *used);
MERO_MUST_CHECK int mero__mss_put(struct mero_buf *b, const char *line);

enum { MERO__MSS_WAIT_HDR = 0, MERO__MSS_WAIT_PROTO, MERO__MSS_DONE };
struct mero__mss {
    int dialer;
    int state;
    const char *proto; /* dialer: the one protocol we ask for */
};
/*
 * Negotiation step over input p[0..n). Consumes into *used; writes replies to out.
 * Dialer: returns 1 when the listener accepted m->proto, -MERO_EUNSUPPORTED on "na".
 * Listener: `match(ud, name, len)` returns >= 0 (an index) to accept; returns 1 with *sel.
 * 0 means "need more input".
 */
typedef int (*mero__mss_match_fn)(void *ud, const uint8_t *name, size_t len);
MERO_MUST_CHECK int mero__mss_step(struct mero__mss *m, const uint8_t *p, size_t n, size_t *used,
                                   struct mero_buf *out, mero__mss_match_fn match, void *ud,
                                   int *sel);

/* ---- the Noise SymmetricState over SHA-256 (noise_sym.c), shared by XX and the sealed NK ---- */
void mero__noise_mix_hash(uint8_t h[MERO_NOISE_HASH_LEN], const uint8_t *p, size_t n);
/* InitializeSymmetric(name) (padded, or hashed when longer than HASHLEN), then MixHash(prologue).
 */
void mero__noise_symmetric_init(uint8_t h[MERO_NOISE_HASH_LEN], uint8_t ck[MERO_NOISE_HASH_LEN],
                                const char *name, const uint8_t *prologue, size_t plen);
/* HKDF(ck, ikm) with two outputs (§4.3): MixKey is (ck, k) = hkdf2(ck, dh), Split is
 * (k1, k2) = hkdf2(ck, empty). Outputs may alias ck. */
MERO_MUST_CHECK int mero__noise_hkdf2(const uint8_t ck[MERO_NOISE_HASH_LEN], const uint8_t *ikm,
                                      size_t n, uint8_t out1[MERO_NOISE_HASH_LEN],
                                      uint8_t out2[MERO_NOISE_HASH_LEN]);

/* ---- Noise XX ---- */
#define MERO__NOISE_MAX_MSG   65535
#define MERO__NOISE_TAG       MERO_NOISE_TAG_LEN
#define MERO__NOISE_MAX_PLAIN (MERO__NOISE_MAX_MSG - MERO__NOISE_TAG)
struct mero__cipher {
    uint8_t k[MERO_NOISE_KEY_LEN]; /* the handshake CipherState key (unused in transport) */
    uint64_t n;
    int has_key;
    struct mero_chacha_key *key; /* transport (after Split): the key set up once */
};
struct mero__noise {
    int initiator;
    int step; /* messages processed so far (0..3) */
    uint8_t ck[MERO_NOISE_HASH_LEN], h[MERO_NOISE_HASH_LEN];
    struct mero__cipher cs;
    uint8_t s_sk[MERO_NOISE_DH_LEN], s_pk[MERO_NOISE_DH_LEN]; /* our static X25519 */
    uint8_t e_sk[MERO_NOISE_DH_LEN], e_pk[MERO_NOISE_DH_LEN]; /* our ephemeral */
    uint8_t rs[MERO_NOISE_DH_LEN], re[MERO_NOISE_DH_LEN];     /* remote static / ephemeral */
    struct mero__cipher tx, rx;                               /* after split */
    uint8_t remote_id_pk[MERO_ED25519_PK_LEN]; /* authenticated remote Ed25519 identity */
    int done;
};
/* Start a handshake. `e_sk` NULL picks a fresh ephemeral (tests pass a fixed one). */
void mero__noise_init(struct mero__noise *ns, int initiator, const uint8_t s_sk[MERO_NOISE_DH_LEN],
                      const uint8_t *e_sk);
/* Frees the transport keys and wipes the whole state. */
void mero__noise_cleanup(struct mero__noise *ns);
/* Write the next handshake message (without the 2-byte length) carrying `payload`. */
MERO_MUST_CHECK int mero__noise_write(struct mero__noise *ns, const uint8_t *payload, size_t plen,
                                      struct mero_buf *out);
/* Read the next handshake message; the decrypted payload goes to `payload` (may be empty). */
MERO_MUST_CHECK int mero__noise_read(struct mero__noise *ns, const uint8_t *msg, size_t n,
                                     struct mero_buf *payload);
/* libp2p handshake payload: identity key + sig over "noise-libp2p-static-key:" || s_pk. */
MERO_MUST_CHECK int mero__noise_payload_make(const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                             const uint8_t s_pk[MERO_NOISE_DH_LEN],
                                             struct mero_buf *out);
/* Verify a remote payload against the remote static key; *id_pk gets the identity key. */
MERO_MUST_CHECK int mero__noise_payload_verify(const uint8_t *p, size_t n,
                                               const uint8_t rs[MERO_NOISE_DH_LEN],
                                               uint8_t id_pk[MERO_ED25519_PK_LEN]);
MERO_MUST_CHECK int mero__cipher_seal(struct mero__cipher *c, const uint8_t *ad, size_t adlen,
                                      const uint8_t *in, size_t n, uint8_t *out);
MERO_MUST_CHECK int mero__cipher_open(struct mero__cipher *c, const uint8_t *ad, size_t adlen,
                                      const uint8_t *in, size_t n, uint8_t *out);

/* ---- yamux ---- */
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

/* ---- signed peer records (peer_record.c) ---- */
#define MERO__VARINT_MAX    10   /* an unsigned LEB128 uint64 */
#define MERO__SPR_MAX       1024 /* a signed envelope we build, keep or open */
#define MERO__SPR_ADDRS_MAX 8    /* addresses read from (or put into) one record */
struct mero__spr {
    char peer[MERO_PEER_ID_STR_MAX]; /* the signer, = the record's peer id */
    uint8_t pk[MERO_ED25519_PK_LEN];
    uint64_t seq;
    struct mero__maddr addrs[MERO__SPR_ADDRS_MAX]; /* with .peer set */
    size_t naddrs;
};
/* Seal a PeerRecord {peer id of pk, seq, addrs} in a signed envelope appended to out. */
MERO_MUST_CHECK int mero__spr_seal(const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                   const uint8_t pk[MERO_ED25519_PK_LEN], uint64_t seq,
                                   const struct mero__maddr *addrs, size_t naddrs,
                                   struct mero_buf *out);
/* Open a signed envelope: 0 when its signature verifies and the record's peer id is its
 * signer; -MERO_EBADSIG, -MERO_EPEERID, -MERO_EPROTO, -MERO_ETOOBIG, -MERO_EUNSUPPORTED. */
MERO_MUST_CHECK int mero__spr_open(const uint8_t *p, size_t n, struct mero__spr *out);
struct mero_net;
/* Our own record (announced addresses, else concrete listen addresses), appended to out. */
MERO_MUST_CHECK int mero__spr_own(struct mero_net *net, struct mero_buf *out);

/* ---- connections ---- */
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

/* Queue plaintext for the peer (after Noise) / raw bytes (before); schedules a flush. */
MERO_MUST_CHECK int mero__conn_send(struct mero__conn *c, const void *p, size_t n);
/* Close with a logged reason (idempotent). */
void mero__conn_fail(struct mero__conn *c, int code, const char *why);
/* Flush every connection's pending output (the loop's prepare handle calls this). */
void mero__conn_flush_all(struct mero_net *net);
/* Start an outbound connection (address already parsed). */
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
/* Inbound stream negotiation: which protocols we speak (>= 0 accepts), and binding the app. */
int mero__conn_proto_match(void *stream, const uint8_t *name, size_t len);
void mero__conn_stream_bind(struct mero__stream *s, int sel, const uint8_t *name, size_t len);

/* ---- identify ---- */
#define MERO__IDENTIFY_PROTO "/ipfs/id/1.0.0"
void mero__identify_serve(struct mero__stream *s);
void mero__identify_ask(struct mero__conn *c);
/* The identify codec (fuzzable): listen addrs go to the address book through cb. */
MERO_MUST_CHECK int mero__identify_encode(struct mero_net *net, struct mero__conn *c,
                                          struct mero_buf *out);

/* ---- gossipsub ---- */
#define MERO__MESHSUB_11 "/meshsub/1.1.0"
#define MERO__MESHSUB_10 "/meshsub/1.0.0"
#define MERO__TOPIC_MAX  256
#define MERO__MSGID_MAX  (MERO__PUBKEY_PB_LEN + 8 + 64)

/* Decoded RPC (borrowed pointers into the input). Limits bound every array. */
#define MERO__RPC_MAX_SUBS 256
#define MERO__RPC_MAX_MSGS 256
#define MERO__RPC_MAX_CTRL 512
struct mero__rpc_sub {
    int subscribe;
    const uint8_t *topic;
    size_t tlen;
};
struct mero__rpc_msg {
    const uint8_t *raw; /* the whole encoded Message */
    size_t rawlen;
    const uint8_t *from, *data, *seqno, *topic, *sig, *key;
    size_t from_n, data_n, seqno_n, topic_n, sig_n, key_n;
};
struct mero__rpc_ctrl {
    int kind; /* 1 ihave, 2 iwant, 3 graft, 4 prune */
    const uint8_t *topic;
    size_t tlen;
    const uint8_t *ids; /* ihave/iwant: the raw repeated-bytes region (parse again) */
    size_t ids_n;
    uint64_t backoff;
};
struct mero__rpc {
    struct mero__rpc_sub subs[MERO__RPC_MAX_SUBS];
    size_t nsubs;
    struct mero__rpc_msg msgs[MERO__RPC_MAX_MSGS];
    size_t nmsgs;
    struct mero__rpc_ctrl ctrl[MERO__RPC_MAX_CTRL];
    size_t nctrl;
};
MERO_MUST_CHECK int mero__rpc_decode(const uint8_t *p, size_t n, struct mero__rpc *rpc);
/* Iterate message ids inside an ihave/iwant body: 1 with *id, 0 at end, negative bad. */
MERO_MUST_CHECK int mero__rpc_next_id(struct mero_cur *c, uint32_t field, const uint8_t **id,
                                      size_t *n);
/* Encoders: each appends one top-level RPC field (or control entry) to b. */
MERO_MUST_CHECK int mero__rpc_put_sub(struct mero_buf *b, int subscribe, const char *topic);
MERO_MUST_CHECK int mero__rpc_put_msg(struct mero_buf *b, const uint8_t *raw, size_t n);
/* Control bodies (wrap the whole control body with mero__rpc_put_control). */
MERO_MUST_CHECK int mero__rpc_ctrl_graft(struct mero_buf *ctl, const char *topic);
MERO_MUST_CHECK int mero__rpc_ctrl_prune(struct mero_buf *ctl, const char *topic, uint64_t backoff);
/* A PRUNE with peer exchange: peers_field2 holds encoded PeerInfo entries (field 2). */
MERO_MUST_CHECK int mero__rpc_ctrl_prune_px(struct mero_buf *ctl, const char *topic,
                                            uint64_t backoff, const struct mero_buf *peers_field2);
MERO_MUST_CHECK int mero__rpc_ctrl_ihave(struct mero_buf *ctl, const char *topic,
                                         const struct mero_buf *ids_field2);
MERO_MUST_CHECK int mero__rpc_ctrl_iwant(struct mero_buf *ctl, const struct mero_buf *ids_field1);
MERO_MUST_CHECK int mero__rpc_put_control(struct mero_buf *b, const struct mero_buf *ctl);
/* A signed Message (StrictSign, no key field) into out. */
MERO_MUST_CHECK int mero__rpc_msg_build(struct mero_buf *out,
                                        const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                        const uint8_t *from, size_t from_n, const uint8_t *data,
                                        size_t len, const uint8_t seqno[8], const char *topic);
/* The bytes a StrictSign signature covers: "libp2p-pubsub:" || Message without fields 5, 6. */
MERO_MUST_CHECK int mero__rpc_sign_bytes(const struct mero__rpc_msg *m, struct mero_buf *out);

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

/* ---- connection budgets (budget.c) ---- */
/*
 * A log line rate limiter with the clock passed in (tests drive it with made-up times): at
 * most one line per interval_ms; the events in between are counted and reported with the next
 * line.
 */
struct mero__ratelog {
    uint32_t interval_ms;
    int logged;       /* a line was written at last_ms */
    uint64_t last_ms; /* when the last line was written */
    uint64_t held;    /* events not logged since then */
};
/* An event at now_ms: 1 when a line may be written now (*held gets the number of events held
 * back since the last line, then reset), 0 when it is held back (counted). */
int mero__ratelog_hit(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held);
/* Periodic: 1 when events were held back and interval_ms passed since the last line (*held
 * gets their count; the call counts as a line written), else 0. */
int mero__ratelog_flush(struct mero__ratelog *r, uint64_t now_ms, uint64_t *held);

#define MERO__BUDGET_LOG_MS 10000u /* at most one budget log line per 10 s */
/* A new inbound connection was accepted (raddr known, not yet reading): makes room for it
 * among the handshaking connections (closes the oldest of its address or overall). */
void mero__budget_accept(struct mero__conn *c);
/* An inbound connection authenticated (c->prio set): 0 when admitted (a lower-priority
 * connection may have been evicted for it), -MERO_EBUSY when c was refused (turned away with peer
 * exchange, closed at c->drain_at by the heartbeat). */
MERO_MUST_CHECK int mero__budget_up(struct mero__conn *c);
/* 0 when another outbound connection fits, -MERO_EBUSY otherwise. */
MERO_MUST_CHECK int mero__budget_dial(const struct mero_net *net);
/* The established inbound connection a newcomer of priority prio would evict (NULL: none has
 * a lower priority). Lowest priority first, then the address holding most inbound connections,
 * then the most recently established. `except` is never chosen. */
struct mero__conn *mero__budget_victim(const struct mero_net *net, int prio,
                                       const struct mero__conn *except);
/* Close c (code: MERO_EBUSY, MERO_ETIMEOUT) for a budget reason or a handshake timeout,
 * logged through the net's rate limiter. */
void mero__budget_close(struct mero__conn *c, int code, const char *why);
/* Heartbeat: report events held back by the rate limiter. */
void mero__budget_tick(struct mero_net *net);

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
struct mero__addr_entry {
    struct mero__addr_entry *next;
    struct mero__maddr m; /* with peer */
};
struct mero__listener {
    struct mero__listener *next;
    struct mero_net *net;
    uv_tcp_t tcp;
    struct mero__maddr addr;
};
struct mero__pending_req; /* reqresp.c */
struct mero__defer {
    struct mero__defer *next;
    mero_net_dial_cb cb;
    void *ud;
    int status;
    char peer[MERO_PEER_ID_STR_MAX];
};

struct mero_net {
    uv_loop_t *loop;
    struct mero_net_config cfg;
    struct mero_net_callbacks cb;
    void *ud;
    uint8_t *id_sk; /* sodium_malloc'd MERO_ED25519_SK_LEN bytes */
    uint8_t id_pk[MERO_ED25519_PK_LEN];
    uint8_t noise_sk[MERO_NOISE_DH_LEN]; /* static X25519 key for Noise (per process) */
    uint8_t noise_pk[MERO_NOISE_DH_LEN];
    char id[MERO_PEER_ID_STR_MAX];
    uint8_t id_bytes[MERO__PEER_ID_ED25519_LEN];
    struct mero__listener *listeners;
    struct mero__conn *conns;
    uint32_t nconns;
    struct mero__addr_entry *book;
    size_t nbook;
    struct mero__handler *handlers;
    struct mero__pending_req *reqs;
    struct mero__gossip *gossip;
    struct mero__defer *defer;
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
};

/* Address book. */
void mero__book_add(struct mero_net *net, const struct mero__maddr *m);
const struct mero__maddr *mero__book_find(const struct mero_net *net, const char *peer);
/* A connection finished its upgrade / closed (conn.c calls these). */
void mero__net_conn_up(struct mero__conn *c);
void mero__net_conn_down(struct mero__conn *c);
struct mero__handler *mero__net_find_handler(struct mero_net *net, const char *proto);
/* Run cb(ud, status, peer) from the loop's next prepare phase (never re-entrantly). */
MERO_MUST_CHECK int mero__net_defer(struct mero_net *net, mero_net_dial_cb cb, void *ud, int status,
                                    const char *peer);

#endif
