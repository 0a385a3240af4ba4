/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_net_adversarial.c - bad input against a live node (one uv loop in the main thread, a
 * blocking "attacker" in a second thread speaking the wire protocol through the library's own
 * codecs): garbage after connect, a Noise payload with a bad signature, encrypted garbage, an
 * oversized yamux frame, a yamux window overflow, a flood of streams, an oversized gossipsub
 * RPC (also on a frame that carries FIN), a slow gossip reader, a peer that stops answering
 * (keep-alive pings). Each must end that connection (the attacker sees EOF/RST), and after each
 * a well-behaved peer still completes a request/response exchange with the node, whose
 * connection count returns to what the good peers account for (memory bounded). Also what a
 * legitimate but demanding peer does: data frames as large as the whole window, sent in one
 * burst with other streams' data behind them, must all be answered.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "harness.h"
#include "support/net_fixture.h"
#include "mero/crypto.h"
#include "mero/log.h"
#include "mero/net.h"
#include "net/conn_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"
#include "net/net_internal.h"
#include "net/noise_internal.h"
#include "net/peerid_internal.h"
#include "net/yamux_internal.h"

static uv_loop_t *loop;
static struct mero_net *srv, *good;
static int srv_port;
static int at_port; /* where the attacker connects: srv_port unless a test says otherwise */
static uv_async_t done_async;
static int attack_result;
static void (*attack_fn)(void);

/* ---- attacker side (blocking sockets, runs in its own thread) ---- */

static int at_connect(void)
{
    struct sockaddr_in a;
    struct timeval tv = {5, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)(at_port ? at_port : srv_port));
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return fd;
}

static int at_send(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
        if (k <= 0) {
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int at_recv(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t k = recv(fd, b, n, 0);
        if (k <= 0) {
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* 1 when the server closed the connection within the receive timeout. */
static int at_closed(int fd)
{
    uint8_t buf[4096];
    for (int i = 0; i < 4000; i++) {
        ssize_t k = recv(fd, buf, sizeof(buf), 0);
        if (k == 0 || (k < 0 && errno == ECONNRESET)) {
            return 1;
        }
        if (k < 0) {
            return 0; /* timeout: still open */
        }
    }
    return 0;
}

static int at_read_mss(int fd, char *out, size_t cap)
{
    uint8_t len;
    if (at_recv(fd, &len, 1) < 0 || len == 0 || len >= cap || len > 127) {
        return -1;
    }
    if (at_recv(fd, out, len) < 0) {
        return -1;
    }
    out[len - 1] = 0;
    return 0;
}

static int at_mss_noise(int fd)
{
    struct mero_buf b;
    char m[256];
    int rc;
    mero_buf_init(&b, 256);
    rc = mero__mss_put(&b, MERO__MSS_PROTO) | mero__mss_put(&b, "/noise");
    rc = rc ? rc : at_send(fd, b.data, b.len);
    mero_buf_cleanup(&b);
    if (rc || at_read_mss(fd, m, sizeof(m)) < 0 || at_read_mss(fd, m, sizeof(m)) < 0) {
        return -1;
    }
    return strcmp(m, "/noise") == 0 ? 0 : -1;
}

struct at_sess {
    int fd;
    struct mero__noise ns;
    uint8_t plain[70000];
    size_t plen;
};

static int at_noise_frame(int fd, const struct mero_buf *m)
{
    uint8_t l[2] = {(uint8_t)(m->len >> 8), (uint8_t)m->len};
    return at_send(fd, l, 2) || at_send(fd, m->data, m->len) ? -1 : 0;
}

static int at_handshake(struct at_sess *a, int bad_sig)
{
    uint8_t seed[32], pk[32], sk[64], s_sk[32], l[2], msg[70000];
    struct mero_buf m, p;
    int rc = -1;
    mero_random(seed, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    mero_random(s_sk, 32);
    mero__noise_init(&a->ns, 1, s_sk, NULL);
    mero_buf_init(&m, 70000);
    mero_buf_init(&p, 70000);
    if (at_mss_noise(a->fd) < 0 || mero__noise_write(&a->ns, NULL, 0, &m) < 0 ||
        at_noise_frame(a->fd, &m) < 0 || at_recv(a->fd, l, 2) < 0) {
        goto out;
    }
    size_t n = ((size_t)l[0] << 8) | l[1];
    if (at_recv(a->fd, msg, n) < 0 || mero__noise_read(&a->ns, msg, n, &p) < 0) {
        goto out;
    }
    mero_buf_reset(&p);
    mero_buf_reset(&m);
    if (mero__noise_payload_make(sk, a->ns.s_pk, &p) < 0) {
        goto out;
    }
    if (bad_sig) {
        p.data[p.len - 5] ^= 0x40;
    }
    if (mero__noise_write(&a->ns, p.data, p.len, &m) < 0 || at_noise_frame(a->fd, &m) < 0) {
        goto out;
    }
    rc = 0;
out:
    mero_buf_cleanup(&m);
    mero_buf_cleanup(&p);
    return rc;
}

static int at_send_enc(struct at_sess *a, const uint8_t *p, size_t n)
{
    uint8_t frame[2 + MERO__NOISE_MAX_MSG];
    while (n) {
        size_t k = n < MERO__NOISE_MAX_PLAIN ? n : MERO__NOISE_MAX_PLAIN;
        frame[0] = (uint8_t)((k + 16) >> 8);
        frame[1] = (uint8_t)(k + 16);
        if (mero__cipher_seal(&a->ns.tx, NULL, 0, p, k, frame + 2) < 0 ||
            at_send(a->fd, frame, k + 18) < 0) {
            return -1;
        }
        p += k;
        n -= k;
    }
    return 0;
}

/* Read decrypted bytes until at least `want` are buffered. */
static int at_recv_enc(struct at_sess *a, size_t want)
{
    uint8_t l[2], frame[MERO__NOISE_MAX_MSG];
    while (a->plen < want) {
        if (at_recv(a->fd, l, 2) < 0) {
            return -1;
        }
        size_t n = ((size_t)l[0] << 8) | l[1];
        if (n < 16 || at_recv(a->fd, frame, n) < 0 || a->plen + n > sizeof(a->plain) ||
            mero__cipher_open(&a->ns.rx, NULL, 0, frame, n, a->plain + a->plen) < 0) {
            return -1;
        }
        a->plen += n - 16;
    }
    return 0;
}

static int at_yamux_up(struct at_sess *a)
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, 256);
    rc = mero__mss_put(&b, MERO__MSS_PROTO) | mero__mss_put(&b, "/yamux/1.0.0");
    rc = rc ? rc : at_send_enc(a, b.data, b.len);
    size_t want = b.len; /* the listener echoes exactly these two messages */
    mero_buf_cleanup(&b);
    if (rc || at_recv_enc(a, want) < 0) {
        return -1;
    }
    a->plen -= want; /* keep what followed the echo: the node's first yamux frames */
    memmove(a->plain, a->plain + want, a->plen);
    return 0;
}

static int at_frame(struct at_sess *a, uint8_t type, uint16_t flags, uint32_t sid, uint32_t len,
                    const uint8_t *data, size_t n)
{
    uint8_t h[12];
    struct mero__yhdr y = {0, type, flags, sid, len};
    mero__yamux_hdr_put(h, &y);
    if (at_send_enc(a, h, 12) < 0) {
        return -1;
    }
    return n ? at_send_enc(a, data, n) : 0;
}

static int at_session(struct at_sess *a)
{
    a->plen = 0;
    a->fd = at_connect();
    if (a->fd < 0 || at_handshake(a, 0) < 0 || at_yamux_up(a) < 0) {
        return -1;
    }
    return 0;
}

static void at_finish(struct at_sess *a, int closed)
{
    attack_result = closed;
    if (a->fd >= 0) {
        close(a->fd);
    }
    mero__noise_cleanup(&a->ns);
}

static void attack_garbage(void)
{
    int fd = at_connect();
    /* an HTTP request: 'G' reads as a 71-byte multistream message that does not end in \n */
    const char req[] = "GET / HTTP/1.1\r\nHost: example.org\r\nUser-Agent: x\r\nAccept: */*\r\n"
                       "Connection: close\r\n\r\n";
    attack_result = fd >= 0 && at_send(fd, req, sizeof(req) - 1) == 0 && at_closed(fd);
    if (fd >= 0) {
        close(fd);
    }
}

static void attack_bad_sig(void)
{
    static struct at_sess a;
    a.fd = at_connect();
    int ok = a.fd >= 0 && at_handshake(&a, 1) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

static void attack_enc_garbage(void)
{
    static struct at_sess a;
    a.fd = at_connect();
    uint8_t junk[100] = {0, 60};
    int ok = a.fd >= 0 && at_handshake(&a, 0) == 0 && at_send(a.fd, junk, 62) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

static void attack_oversized(void)
{
    static struct at_sess a;
    int ok = at_session(&a) == 0 &&
             at_frame(&a, MERO__YT_DATA, MERO__YF_SYN, 1, 16u << 20, NULL, 0) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

static void attack_window(void)
{
    static struct at_sess a;
    int ok = at_session(&a) == 0 &&
             at_frame(&a, MERO__YT_WINDOW, MERO__YF_SYN, 1, 0, NULL, 0) == 0 &&
             at_frame(&a, MERO__YT_WINDOW, 0, 1, 0x7fffff00u, NULL, 0) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

static void attack_window_data(void)
{
    static struct at_sess a;
    static uint8_t big[MERO__YAMUX_RECV_WINDOW + 1];
    int ok = at_session(&a) == 0;
    /* the node may close while we are still sending: a failed send counts as closed */
    int sent =
        ok && at_frame(&a, MERO__YT_DATA, MERO__YF_SYN, 1, sizeof(big), big, sizeof(big)) == 0;
    at_finish(&a, ok && (!sent || at_closed(a.fd)));
}

static void attack_flood(void)
{
    static struct at_sess a;
    int ok = at_session(&a) == 0;
    for (uint32_t i = 0; ok && i < 400; i++) {
        if (at_frame(&a, MERO__YT_WINDOW, MERO__YF_SYN, 1 + 2 * i, 0, NULL, 0) < 0) {
            break; /* the server may already have closed */
        }
    }
    at_finish(&a, ok && at_closed(a.fd));
}

static int at_open_meshsub(struct at_sess *a, uint32_t sid)
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, 256);
    rc = mero__mss_put(&b, MERO__MSS_PROTO) | mero__mss_put(&b, MERO__MESHSUB_11);
    rc = rc ? rc : at_frame(a, MERO__YT_DATA, MERO__YF_SYN, sid, (uint32_t)b.len, b.data, b.len);
    mero_buf_cleanup(&b);
    return rc;
}

static void attack_big_rpc(void)
{
    static struct at_sess a;
    uint8_t lenp[] = {0x80, 0x80, 0x80, 0x32}; /* 100 MiB */
    int ok = at_session(&a) == 0 && at_open_meshsub(&a, 1) == 0 &&
             at_frame(&a, MERO__YT_DATA, 0, 1, sizeof(lenp), lenp, sizeof(lenp)) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

/* The same on a frame that also half-closes: the node fails the connection from inside the
 * stream's data event, then reads the frame's FIN flag (the stream must still be there). */
static void attack_big_rpc_fin(void)
{
    static struct at_sess a;
    uint8_t lenp[] = {0x80, 0x80, 0x80, 0x32};
    int ok = at_session(&a) == 0 && at_open_meshsub(&a, 1) == 0 &&
             at_frame(&a, MERO__YT_DATA, MERO__YF_FIN, 1, sizeof(lenp), lenp, sizeof(lenp)) == 0;
    at_finish(&a, ok && at_closed(a.fd));
}

/* Next yamux frame from the node: header into *h, its data (DATA frames) into data[cap]. */
static int at_yamux_next(struct at_sess *a, struct mero__yhdr *h, uint8_t *data, size_t cap)
{
    if (at_recv_enc(a, MERO__YAMUX_HDR) < 0 || mero__yamux_hdr_parse(a->plain, a->plen, h) < 0) {
        return -1;
    }
    size_t n = h->type == MERO__YT_DATA ? h->len : 0;
    if (n > cap || MERO__YAMUX_HDR + n > sizeof(a->plain) ||
        at_recv_enc(a, MERO__YAMUX_HDR + n) < 0) {
        return -1;
    }
    memcpy(data, a->plain + MERO__YAMUX_HDR, n);
    a->plen -= MERO__YAMUX_HDR + n;
    memmove(a->plain, a->plain + MERO__YAMUX_HDR + n, a->plen);
    return 0;
}

#define BURST_STREAMS 3
static volatile int burst_answers;

/* A legitimate peer at the edge of the rules: three /t/sum streams; on the first, once its
 * window has been raised, the whole request in one data frame exactly as large as the window;
 * right behind it, in the same burst, the other two streams' requests. Each answer is the
 * SHA-256 of that stream's request. */
static void attack_window_burst(void)
{
    static struct at_sess a;
    static uint8_t body[MERO__YAMUX_RECV_WINDOW];
    static uint8_t got[BURST_STREAMS][64];
    uint8_t want[BURST_STREAMS][32], data[4096];
    size_t got_n[BURST_STREAMS] = {0}, blen[BURST_STREAMS];
    struct mero_buf hello;
    struct mero__yhdr h;
    int ok = at_session(&a) == 0, raised = 0, answered = 0;
    burst_answers = 0;
    mero_buf_init(&hello, 256);
    ok = ok && mero__mss_put(&hello, MERO__MSS_PROTO) == 0 && mero__mss_put(&hello, "/t/sum") == 0;
    for (uint32_t i = 0; ok && i < BURST_STREAMS; i++) {
        ok = at_frame(&a, MERO__YT_DATA, MERO__YF_SYN, 1 + 2 * i, (uint32_t)hello.len, hello.data,
                      hello.len) == 0;
    }
    while (ok && !raised) { /* the node raises each new stream's window right away */
        ok = at_yamux_next(&a, &h, data, sizeof(data)) == 0;
        raised = ok && h.type == MERO__YT_WINDOW && h.sid == 1 &&
                 h.len == MERO__YAMUX_RECV_WINDOW - MERO__YAMUX_WINDOW;
    }
    /* stream 1: varint length + bytes, all in one frame of exactly the remaining window */
    blen[0] = MERO__YAMUX_RECV_WINDOW - hello.len;
    mero_random(body, sizeof(body));
    size_t payload = blen[0] - 3; /* a 3-byte varint: 2^14 <= payload < 2^21 */
    body[0] = (uint8_t)(payload | 0x80);
    body[1] = (uint8_t)((payload >> 7) | 0x80);
    body[2] = (uint8_t)(payload >> 14);
    mero_sha256(want[0], body + 3, payload);
    ok = ok && at_frame(&a, MERO__YT_DATA, MERO__YF_FIN, 1, (uint32_t)blen[0], body, blen[0]) == 0;
    for (uint32_t i = 1; ok && i < BURST_STREAMS; i++) { /* 200 KiB each, within 256 KiB */
        uint8_t *p = body + 64 * 1024 * i;
        blen[i] = 200 * 1024;
        payload = blen[i] - 3;
        p[0] = (uint8_t)(payload | 0x80);
        p[1] = (uint8_t)((payload >> 7) | 0x80);
        p[2] = (uint8_t)(payload >> 14);
        mero_sha256(want[i], p + 3, payload);
        ok = at_frame(&a, MERO__YT_DATA, MERO__YF_FIN, 1 + 2 * i, (uint32_t)blen[i], p, blen[i]) ==
             0;
    }
    while (ok && answered < BURST_STREAMS) {
        ok = at_yamux_next(&a, &h, data, sizeof(data)) == 0;
        if (!ok || h.type != MERO__YT_DATA || h.len == 0 || (h.sid & 1) == 0 ||
            h.sid > 2 * BURST_STREAMS) {
            continue;
        }
        size_t i = (h.sid - 1) / 2;
        if (got_n[i] + h.len > sizeof(got[i])) {
            ok = 0;
            break;
        }
        memcpy(got[i] + got_n[i], data, h.len);
        got_n[i] += h.len;
        /* skip the multistream echo (header + protocol): the answer frame is 0x20 + 32 bytes */
        if (got_n[i] >= hello.len + 33 && got[i][hello.len] == 32 &&
            memcmp(got[i] + hello.len + 1, want[i], 32) == 0) {
            answered++;
        }
    }
    mero_buf_cleanup(&hello);
    burst_answers = answered;
    uint8_t b;
    ssize_t k = recv(a.fd, &b, 1, MSG_DONTWAIT);
    int still_open = k > 0 || (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    at_finish(&a, ok && answered == BURST_STREAMS && still_open);
}

static volatile int silent_saw_ping;

/* Completes the handshake, then never answers (nor sends) anything: a peer that vanished. */
static void attack_silent_peer(void)
{
    static struct at_sess a;
    uint8_t data[4096];
    struct mero__yhdr h;
    int ok = at_session(&a) == 0;
    silent_saw_ping = 0;
    while (ok && at_yamux_next(&a, &h, data, sizeof(data)) == 0) {
        if (h.type == MERO__YT_PING && (h.flags & MERO__YF_SYN)) {
            silent_saw_ping = 1; /* and we do not answer it */
        }
    }
    at_finish(&a, ok && at_closed(a.fd));
}

/* written by the attacker thread, read by the test's loop: an atomic (make tsan, issue 32) */
static atomic_int slow_subscribed;

static void attack_slow_reader(void)
{
    static struct at_sess a;
    struct mero_buf rpc, fr;
    int ok = at_session(&a) == 0 && at_open_meshsub(&a, 1) == 0;
    mero_buf_init(&rpc, 256);
    mero_buf_init(&fr, 256);
    ok = ok && mero__rpc_put_sub(&rpc, 1, "slow") == 0 &&
         mero_buf_append_uvarint(&fr, rpc.len) == 0 &&
         mero_buf_append(&fr, rpc.data, rpc.len) == 0 &&
         at_frame(&a, MERO__YT_DATA, 0, 1, (uint32_t)fr.len, fr.data, fr.len) == 0;
    mero_buf_cleanup(&rpc);
    mero_buf_cleanup(&fr);
    atomic_store(&slow_subscribed, ok);
    /* now never read: the node's output to us must be bounded, then we get dropped */
    sleep(2);
    at_finish(&a, ok && at_closed(a.fd));
}

static int at_send_rpc(struct at_sess *a, uint32_t sid, const struct mero_buf *rpc)
{
    struct mero_buf fr;
    int rc;
    mero_buf_init(&fr, rpc->len + 16);
    rc = mero_buf_append_uvarint(&fr, rpc->len) | mero_buf_append(&fr, rpc->data, rpc->len);
    rc = rc ? rc : at_frame(a, MERO__YT_DATA, 0, sid, (uint32_t)fr.len, fr.data, fr.len);
    mero_buf_cleanup(&fr);
    return rc;
}

/* Two gossip authors from seed bytes s1 and s2: their secret keys, and the first one's peer id
 * (the `from` a message of either may claim). */
static void two_authors(uint8_t s1, uint8_t s2, uint8_t sk[64], uint8_t sk2[64], uint8_t from[38])
{
    uint8_t seed[32], pk[32], pk2[32];
    memset(seed, s1, sizeof(seed));
    mero_ed25519_from_seed(pk, sk, seed);
    memset(seed, s2, sizeof(seed));
    mero_ed25519_from_seed(pk2, sk2, seed);
    mero__peer_id_bytes_from_pk(pk, from);
}

/* One RPC that subscribes to "sig" and carries msgs[0..n) in order, then a second for the node to
 * handle it: 1 when it was sent and the connection is still up (bad messages are dropped, not
 * fatal). */
static int send_on_sig(struct at_sess *a, const struct mero_buf *const *msgs, size_t n)
{
    struct mero_buf rpc;
    mero_buf_init(&rpc, 4096);
    int ok = mero__rpc_put_sub(&rpc, 1, "sig") == 0;
    for (size_t i = 0; i < n && ok; i++) {
        ok = mero__rpc_put_msg(&rpc, msgs[i]->data, msgs[i]->len) == 0;
    }
    ok = ok && at_send_rpc(a, 1, &rpc) == 0;
    mero_buf_cleanup(&rpc);
    sleep(1);
    uint8_t b;
    ssize_t k = recv(a->fd, &b, 1, MSG_DONTWAIT);
    return ok && (k > 0 || (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)));
}

/* Three messages on "sig" by the author `from`: message i signed by sks[i], with the 4-byte
 * data[i] and the seqno {0, ..., 0, hi, i + 1}. out[] is initialised whatever happens; 1 when
 * all three were built. */
static int build_three(struct mero_buf out[3], const uint8_t *const sks[3], const uint8_t *from,
                       const char *const data[3], uint8_t hi)
{
    for (int i = 0; i < 3; i++) {
        mero_buf_init(&out[i], 512);
    }
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        uint8_t seq[8] = {0, 0, 0, 0, 0, 0, hi, (uint8_t)(i + 1)};
        ok = mero__rpc_msg_build(&out[i], sks[i], from, 38, (const uint8_t *)data[i], 4, seq,
                                 "sig") == 0;
    }
    return ok;
}

static void cleanup_three(struct mero_buf m[3])
{
    for (int i = 0; i < 3; i++) {
        mero_buf_cleanup(&m[i]);
    }
}

/* Three messages on "sig": one good, one with its data changed after signing, one whose
 * `from` names another key than the one that signed it. */
static void attack_gossip_signatures(void)
{
    static struct at_sess a;
    uint8_t sk[64], sk2[64], from[38];
    struct mero_buf m[3]; /* good, evil, fake */
    two_authors(0x5a, 0x5b, sk, sk2, from);
    const uint8_t *const sks[3] = {sk, sk, sk2};
    const char *const data[3] = {"good", "evil", "fake"};
    int ok = at_session(&a) == 0 && at_open_meshsub(&a, 1) == 0;
    ok = build_three(m, sks, from, data, 0) && ok;
    if (ok) {
        /* m[1]: flip a data byte after signing ("evil" -> "evim") */
        for (size_t i = 0; i + 4 <= m[1].len; i++) {
            if (memcmp(m[1].data + i, "evil", 4) == 0) {
                m[1].data[i + 3] = 'm';
                break;
            }
        }
    }
    const struct mero_buf *msgs[] = {&m[1], &m[2], &m[0], &m[0] /* a duplicate: seen cache */};
    ok = ok && send_on_sig(&a, msgs, sizeof(msgs) / sizeof(msgs[0]));
    cleanup_three(m);
    at_finish(&a, ok);
}

/* Issue 33 (gossip_noop): on "sig", a "skip" message with a forged signature sent twice, a
 * genuine "skip", then a forged "nope" (which the application would act on). */
static void attack_gossip_noop(void)
{
    static struct at_sess a;
    uint8_t sk[64], sk2[64], from[38];
    struct mero_buf m[3]; /* forged, genuine, nope */
    two_authors(0x5c, 0x5d, sk, sk2, from);
    /* the forged ones are signed by another key than the one `from` names */
    const uint8_t *const sks[3] = {sk2, sk, sk2};
    const char *const data[3] = {"skip", "skip", "nope"};
    int ok = at_session(&a) == 0 && at_open_meshsub(&a, 1) == 0;
    ok = build_three(m, sks, from, data, 1) && ok;
    const struct mero_buf *msgs[] = {&m[0], &m[0], &m[1], &m[2]};
    ok = ok && send_on_sig(&a, msgs, sizeof(msgs) / sizeof(msgs[0]));
    cleanup_three(m);
    at_finish(&a, ok);
}

/* ---- loop side ---- */

static int gossip_good, gossip_bad, gossip_noop_asked;
/* The application's answer before the signature check: a "skip" would come to nothing. */
static int gossip_noop(void *ud, const char *topic, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    gossip_noop_asked++;
    return strcmp(topic, "sig") == 0 && n == 4 && memcmp(d, "skip", 4) == 0;
}
static int on_gossip(void *ud, const char *topic, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    if (strcmp(topic, "sig") == 0 && n == 4 && memcmp(d, "good", 4) == 0) {
        gossip_good++;
    } else {
        gossip_bad++;
    }
    return 0;
}

static void *attack_thread(void *arg)
{
    (void)arg;
    attack_fn();
    uv_async_send(&done_async);
    return NULL;
}

static void on_done(uv_async_t *h)
{
    (void)h;
    uv_stop(loop);
}

static void echo(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)from;
    if (mero_net_respond(req, d, n) < 0) {
        MERO_WARN("respond failed");
    }
}

static int reply_status = 1;
static void on_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    (void)ud;
    reply_status =
        (status == 0 && n == 4 && memcmp(d, "ping", 4) == 0) ? 0 : (status ? status : -1);
    uv_stop(loop);
}

static void stop_timer_cb(uv_timer_t *t)
{
    (void)t;
    uv_stop(loop);
}

static void run_for(uint64_t ms)
{
    uv_timer_t t;
    uv_timer_init(loop, &t);
    uv_timer_start(&t, stop_timer_cb, ms, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

/* Run the loop until a callback stops it, 8 s at most. */
static void run_until_stopped(void)
{
    uv_timer_t guard;
    uv_timer_init(loop, &guard);
    uv_timer_start(&guard, stop_timer_cb, 8000, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

static int good_exchange(void)
{
    reply_status = 1;
    if (mero_net_request(good, mero_net_peer_id(srv), "/t/echo", (const uint8_t *)"ping", 4, 5000,
                         on_reply, NULL) < 0) {
        return -1;
    }
    run_until_stopped();
    return reply_status;
}

static int run_attack(void (*fn)(void))
{
    pthread_t th;
    attack_fn = fn;
    attack_result = 0;
    uv_async_init(loop, &done_async, on_done);
    if (pthread_create(&th, NULL, attack_thread, NULL) != 0) {
        return -1;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    pthread_join(th, NULL);
    uv_close((uv_handle_t *)&done_async, NULL);
    run_for(100); /* let the node reap the closed connection */
    return attack_result;
}

static void setup_nodes(void)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net_config cfg;
    char addrs[2][MERO_MULTIADDR_STR_MAX];
    if (srv) {
        return;
    }
    if (mero_crypto_init() < 0) {
        return;
    }
    loop = uv_default_loop();
    mero_net_config_default(&cfg);
    cfg.max_write_queue = 1u << 20;
    cfg.handshake_timeout_ms = 3000;
    memset(seed, 0x11, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    struct mero_net_callbacks cb = {.on_gossip = on_gossip, .gossip_noop = gossip_noop};
    if (mero_net_new(loop, sk, &cfg, &cb, NULL, &srv) < 0 || mero_net_subscribe(srv, "sig") < 0 ||
        mero_net_listen(srv, "/ip4/127.0.0.1/tcp/0") < 0 ||
        mero_net_handle(srv, "/t/echo", echo, NULL) < 0 ||
        mero_net_handle(srv, "/t/sum", netf_sum_handler, NULL) < 0 ||
        mero_net_subscribe(srv, "slow") < 0) {
        return;
    }
    memset(seed, 0x22, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, NULL, NULL, NULL, &good) < 0) {
        return;
    }
    mero_net_listen_addrs(srv, addrs, 2);
    struct mero__maddr m;
    if (mero__maddr_parse(addrs[0], &m) == 0) {
        srv_port = m.port;
    }
    if (mero_net_add_addr(good, addrs[0]) < 0) {
        srv_port = 0;
    }
}

#define ATTACK_TEST(name, fn)                                                                      \
    TEST(name)                                                                                     \
    {                                                                                              \
        setup_nodes();                                                                             \
        CHECK(srv_port > 0);                                                                       \
        CHECK_MSG(run_attack(fn) == 1, "the node did not close the attacking connection");         \
        CHECK_EQ(good_exchange(), 0);                                                              \
        CHECK_MSG(srv->nconns == 1, "node holds %u connections", (unsigned)srv->nconns);           \
    }

ATTACK_TEST(garbage_after_connect, attack_garbage)
ATTACK_TEST(noise_bad_payload_signature, attack_bad_sig)
ATTACK_TEST(noise_encrypted_garbage, attack_enc_garbage)
ATTACK_TEST(yamux_oversized_frame, attack_oversized)
ATTACK_TEST(yamux_window_overflow, attack_window)
ATTACK_TEST(yamux_data_beyond_window, attack_window_data)
ATTACK_TEST(yamux_stream_flood, attack_flood)
ATTACK_TEST(gossip_oversized_rpc, attack_big_rpc)
ATTACK_TEST(gossip_oversized_rpc_with_fin, attack_big_rpc_fin)

TEST(yamux_window_sized_frame_in_a_burst)
{
    setup_nodes();
    CHECK(srv_port > 0);
    CHECK_MSG(run_attack(attack_window_burst) == 1, "answered %d of %d streams (or closed)",
              burst_answers, BURST_STREAMS);
    CHECK_EQ(burst_answers, BURST_STREAMS);
    CHECK_EQ(good_exchange(), 0);
    CHECK_EQ(srv->nconns, 1);
}

/* A node that pings after 200 ms of silence and gives up 300 ms later. */
static struct mero_net *pinger_new(int seedbyte, int *port)
{
    uint8_t seed[32], pk[32], sk[64];
    struct mero_net_config cfg;
    struct mero_net *n = NULL;
    char addr[1][MERO_MULTIADDR_STR_MAX];
    struct mero__maddr m;
    mero_net_config_default(&cfg);
    cfg.ping_interval_ms = 200;
    cfg.ping_timeout_ms = 300;
    memset(seed, seedbyte, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    if (mero_net_new(loop, sk, &cfg, NULL, NULL, &n) < 0 ||
        mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0 || mero_net_listen_addrs(n, addr, 1) < 1 ||
        mero__maddr_parse(addr[0], &m) < 0) {
        mero_net_free(n);
        return NULL;
    }
    *port = m.port;
    return n;
}

TEST(keepalive_drops_a_silent_peer)
{
    int port = 0;
    setup_nodes();
    struct mero_net *p = pinger_new(0x33, &port);
    CHECK(p != NULL);
    at_port = port;
    uint64_t t0 = uv_now(loop);
    CHECK_MSG(run_attack(attack_silent_peer) == 1, "the silent peer was not dropped");
    at_port = 0;
    CHECK_MSG(silent_saw_ping, "closed without a ping first");
    CHECK_MSG(uv_now(loop) - t0 < 4000, "took %llu ms", (unsigned long long)(uv_now(loop) - t0));
    CHECK_EQ(p->nconns, 0);
    mero_net_free(p);
    run_for(50);
}

static int pinged_peer_up;
static void on_pinged_peer(void *ud, int status, const char *peer)
{
    (void)ud;
    (void)peer;
    pinged_peer_up = status == 0;
}

TEST(keepalive_keeps_an_answering_peer)
{
    int port = 0;
    char addr[1][MERO_MULTIADDR_STR_MAX];
    setup_nodes();
    struct mero_net *p = pinger_new(0x44, &port);
    CHECK(p != NULL);
    CHECK(mero_net_listen_addrs(p, addr, 1) == 1);
    pinged_peer_up = 0;
    CHECK_OK(mero_net_dial(good, addr[0], on_pinged_peer, NULL));
    run_for(300);
    CHECK(pinged_peer_up);
    run_for(1500); /* idle: several ping rounds, each answered by good's yamux */
    CHECK_EQ(p->nconns, 1);
    CHECK_MSG(p->conns != NULL && p->conns->ping_id >= 2, "pinged %u times",
              p->conns ? p->conns->ping_id : 0);
    mero_net_free(p);
    run_for(100);
}

/* issue 33: a link's buffers after a burst. The big echo's reply length, and the test. */
static size_t big_reply_len;
static void on_big_reply(void *ud, int status, const uint8_t *d, size_t n)
{
    (void)ud;
    (void)d;
    big_reply_len = status == 0 ? n : 0;
    uv_stop(loop);
}

static int big_exchange(struct mero_net *to, size_t n)
{
    uint8_t *body = malloc(n);
    if (body == NULL) {
        return -1;
    }
    memset(body, 0x5a, n);
    big_reply_len = 0;
    int rc =
        mero_net_request(good, mero_net_peer_id(to), "/t/echo", body, n, 5000, on_big_reply, NULL);
    free(body);
    if (rc < 0) {
        return -1;
    }
    run_until_stopped();
    return big_reply_len == n ? 0 : -1;
}

TEST(an_idle_link_frees_its_buffers_after_a_burst)
{
    int port = 0;
    char addr[1][MERO_MULTIADDR_STR_MAX];
    setup_nodes();
    struct mero_net *p = pinger_new(0x55, &port);
    CHECK(p != NULL);
    /* every reading is taken first and p freed before any check, so a failing check leaves no
     * live link behind for the next test */
    bool up = false, burst1 = false, burst2 = false, wspare_gone = false;
    size_t room_after_burst = 0, raw_after_burst = 0, raw_idle = 0, plain_idle = 0, room_idle = 0;
    uint64_t trimmed = 0;
    int nconns = 0;
    if (mero_net_handle(p, "/t/echo", echo, NULL) == 0 && mero_net_listen_addrs(p, addr, 1) == 1) {
        pinged_peer_up = 0;
        up = mero_net_dial(good, addr[0], on_pinged_peer, NULL) == 0;
        run_for(300);
        up = up && pinged_peer_up && p->conns != NULL;
    }
    if (up) {
        burst1 = big_exchange(p, 1024u * 1024u) == 0 && p->conns != NULL;
    }
    if (burst1) {
        room_after_burst = p->conns->rx_room;
        raw_after_burst = p->conns->rxraw.cap;
        uint64_t t0 = p->bufs_trimmed;
        run_for(1200); /* idle: keep-alive looks every 200 ms, answered pings are small reads */
        nconns = p->nconns;
        trimmed = p->bufs_trimmed - t0;
        if (p->conns != NULL) {
            raw_idle = p->conns->rxraw.cap;
            plain_idle = p->conns->rxplain.cap;
            room_idle = p->conns->rx_room;
            wspare_gone = p->conns->wspare == NULL;
        }
        burst2 = big_exchange(p, 1024u * 1024u) == 0; /* the link still carries a burst */
    }
    mero_net_free(p);
    run_for(100);
    CHECK(up);
    CHECK(burst1);
    /* the burst grew the read offer and the buffers */
    CHECK_MSG(room_after_burst > 16u * 1024u, "read offer %zu", room_after_burst);
    CHECK_MSG(raw_after_burst >= 64u * 1024u, "rxraw %zu", raw_after_burst);
    CHECK_EQ(nconns, 1);
    CHECK_MSG(trimmed > 0, "no buffer freed");
    CHECK_MSG(raw_idle <= 32u * 1024u, "rxraw %zu after idling", raw_idle);
    CHECK_MSG(plain_idle <= 32u * 1024u, "rxplain %zu after idling", plain_idle);
    CHECK(wspare_gone);
    CHECK_EQ(room_idle, 16u * 1024u);
    CHECK(burst2);
}

static void slow_publisher_thread_waiter(void)
{
    attack_slow_reader();
}

TEST(slow_gossip_reader_is_dropped)
{
    pthread_t th;
    setup_nodes();
    CHECK(srv_port > 0);
    attack_fn = slow_publisher_thread_waiter;
    attack_result = 0;
    atomic_store(&slow_subscribed, 0);
    uv_async_init(loop, &done_async, on_done);
    CHECK(pthread_create(&th, NULL, attack_thread, NULL) == 0);
    static uint8_t blob[512 * 1024];
    int published = 0, dropped = 0;
    for (int i = 0; i < 100 && !dropped; i++) {
        run_for(50);
        if (!atomic_load(&slow_subscribed)) {
            continue;
        }
        int rc = mero_net_publish(srv, "slow", blob, sizeof(blob));
        if (rc > 0) {
            published++;
        } else if (published) {
            dropped = 1;
        }
    }
    uv_run(loop, UV_RUN_DEFAULT); /* until the attacker thread reports */
    pthread_join(th, NULL);
    uv_close((uv_handle_t *)&done_async, NULL);
    run_for(100);
    CHECK_MSG(published >= 1, "never saw the subscriber");
    CHECK_MSG(dropped, "publishing kept succeeding: output not bounded");
    CHECK(attack_result == 1);
    CHECK_EQ(good_exchange(), 0);
    CHECK_EQ(srv->nconns, 1);
}

TEST(gossip_strictsign_enforced)
{
    setup_nodes();
    CHECK(srv_port > 0);
    gossip_good = gossip_bad = 0;
    CHECK_MSG(run_attack(attack_gossip_signatures) == 1, "connection closed or attack failed");
    CHECK_EQ(gossip_good, 1); /* delivered once despite the duplicate */
    CHECK_EQ(gossip_bad, 0);  /* tampered data and wrong-key messages dropped */
    CHECK_EQ(good_exchange(), 0);
}

/* Issue 33: a message the application says would come to nothing is dropped before its
 * signature is checked: not delivered, no penalty for a forged one, and not remembered as seen
 * (asked again for the second copy, so a forged copy cannot shadow the genuine one); any other
 * is checked as before, and a forged one penalised. */
TEST(gossip_noop_skips_the_signature_check)
{
    setup_nodes();
    CHECK(srv_port > 0);
    struct mero_net_gossip_stats before, after;
    mero_net_gossip_stats(srv, &before);
    gossip_good = gossip_bad = gossip_noop_asked = 0;
    CHECK_MSG(run_attack(attack_gossip_noop) == 1, "connection closed or attack failed");
    mero_net_gossip_stats(srv, &after);
    CHECK_EQ(gossip_noop_asked, 4); /* both forged copies, the genuine one, the "nope" */
    CHECK_EQ(after.unverified_ignored - before.unverified_ignored, 3);
    CHECK_EQ(gossip_good + gossip_bad, 0);                         /* none delivered */
    CHECK_EQ(after.invalid_messages - before.invalid_messages, 1); /* the "nope" only */
    CHECK_EQ(after.delivered, before.delivered);
    CHECK_EQ(good_exchange(), 0);
}

TEST(teardown)
{
    setup_nodes();
    CHECK(srv != NULL && good != NULL);
    mero_net_free(good);
    mero_net_free(srv);
    uv_run(loop, UV_RUN_DEFAULT);
    CHECK_EQ(uv_loop_close(loop), 0);
}

MERO_TEST_MAIN(T(garbage_after_connect), T(noise_bad_payload_signature), T(noise_encrypted_garbage),
               T(yamux_oversized_frame), T(yamux_window_overflow), T(yamux_data_beyond_window),
               T(yamux_stream_flood), T(gossip_oversized_rpc), T(gossip_oversized_rpc_with_fin),
               T(yamux_window_sized_frame_in_a_burst), T(slow_gossip_reader_is_dropped),
               T(gossip_strictsign_enforced), T(gossip_noop_skips_the_signature_check),
               T(keepalive_drops_a_silent_peer), T(keepalive_keeps_an_answering_peer),
               T(an_idle_link_frees_its_buffers_after_a_burst), T(teardown))
