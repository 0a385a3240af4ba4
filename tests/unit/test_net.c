/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_net.c - known-answer and negative tests for the net codecs: peer ids (vectors derived
 * with js-libp2p's @libp2p/crypto + @libp2p/peer-id), base58, multiaddrs (text and binary),
 * varints, protobuf, multistream-select, yamux headers, the Noise XX handshake (vectors from
 * python3-dissononce, tests/interop/noise_vectors.py), the libp2p Noise payload and the
 * gossipsub RPC codec with StrictSign.
 */
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/net.h"
#include "net/gossip_rpc_internal.h"
#include "net/multiaddr_internal.h"
#include "net/multistream_internal.h"
#include "net/noise_internal.h"
#include "net/peerid_internal.h"
#include "net/protobuf_internal.h"
#include "net/yamux_internal.h"

static void hex(uint8_t *out, size_t n, const char *h)
{
    if (mero_hex_decode_exact(out, n, h, strlen(h)) < 0) {
        memset(out, 0, n);
    }
}

/* seed -> (public key, peer id) computed by js-libp2p (generateKeyPairFromSeed,
 * peerIdFromPrivateKey) */
static const struct {
    const char *seed, *pk, *id, *mh;
} PEER_KAT[] = {
    {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8",
     "12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB",
     "00240801122003a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"},
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
     "12D3KooWQK1wnefoLrcVHbbnf5tLzbopUd3K3bFAoJpA7YJgL5pV",
     "002408011220d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"},
};

TEST(peer_id_known_answers)
{
    CHECK_OK(mero_crypto_init());
    for (size_t i = 0; i < sizeof(PEER_KAT) / sizeof(PEER_KAT[0]); i++) {
        uint8_t seed[32], pk[32], sk[64], want_pk[32], mh[64], want_mh[38], back[32];
        char id[MERO_PEER_ID_STR_MAX];
        size_t n = sizeof(mh);
        hex(seed, 32, PEER_KAT[i].seed);
        hex(want_pk, 32, PEER_KAT[i].pk);
        hex(want_mh, 38, PEER_KAT[i].mh);
        mero_ed25519_from_seed(pk, sk, seed);
        CHECK_MEM_EQ(pk, want_pk, 32);
        CHECK_OK(mero_net_peer_id_from_pk(pk, id));
        CHECK_STR_EQ(id, PEER_KAT[i].id);
        CHECK_OK(mero_net_peer_id_bytes(id, mh, &n));
        CHECK_EQ(n, 38);
        CHECK_MEM_EQ(mh, want_mh, 38);
        CHECK_OK(mero_net_peer_id_pk(id, back));
        CHECK_MEM_EQ(back, pk, 32);
    }
}

TEST(peer_id_refusals)
{
    uint8_t pk[32], out[64];
    size_t n = sizeof(out);
    /* an RSA-era sha2-256 id (QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N) */
    CHECK_ERR(mero_net_peer_id_pk("QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N", pk),
              -MERO_EUNSUPPORTED);
    CHECK_ERR(mero_net_peer_id_pk("12D3KooW0000", pk), -MERO_EPEERID); /* '0' not base58 */
    CHECK_ERR(mero_net_peer_id_pk("", pk), -MERO_EPEERID);
    CHECK_FAILS(mero_net_peer_id_pk("12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfe", pk));
    n = 10; /* too small an output */
    CHECK_ERR(
        mero_net_peer_id_bytes("12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB", out, &n),
        -MERO_ETOOBIG);
    /* a secp256k1 key type inside an identity multihash */
    uint8_t sec[] = {0x00, 0x25, 0x08, 0x02, 0x12, 0x21, 0x02, 1,  2,  3,  4,  5,  6,
                     7,    8,    9,    10,   11,   12,   13,   14, 15, 16, 17, 18, 19,
                     20,   21,   22,   23,   24,   25,   26,   27, 28, 29, 30, 31, 32};
    CHECK_ERR(mero__peer_id_bytes_pk(sec, sizeof(sec), pk), -MERO_EUNSUPPORTED);
}

TEST(base58_round_trip)
{
    uint8_t in[] = {0, 0, 1, 2, 255, 254, 0, 7}, out[16];
    char s[64];
    size_t n = sizeof(out);
    CHECK_OK(mero_base58_encode(in, sizeof(in), s, sizeof(s)));
    CHECK(s[0] == '1' && s[1] == '1');
    CHECK_OK(mero_base58_decode(s, out, &n));
    CHECK_EQ(n, sizeof(in));
    CHECK_MEM_EQ(out, in, sizeof(in));
    /* "Hello World!" -> 2NEpo7TZRRrLZSi2U (base58btc test vector) */
    CHECK_OK(mero_base58_encode((const uint8_t *)"Hello World!", 12, s, sizeof(s)));
    CHECK_STR_EQ(s, "2NEpo7TZRRrLZSi2U");
    n = sizeof(out);
    CHECK_ERR(mero_base58_decode("abc0", out, &n), -MERO_EINVAL);
    n = sizeof(out);
    CHECK_ERR(mero_base58_decode("abcIl", out, &n), -MERO_EINVAL);
    CHECK_ERR(mero_base58_encode(in, sizeof(in), s, 3), -MERO_ETOOBIG);
}

TEST(multiaddr_round_trips)
{
    static const char *const good[][2] = {
        {"/ip4/127.0.0.1/tcp/4001", "/ip4/127.0.0.1/tcp/4001"},
        {"/ip4/10.1.2.3/tcp/0", "/ip4/10.1.2.3/tcp/0"},
        {"/ip6/::1/tcp/65535", "/ip6/::1/tcp/65535"},
        {"/ip6/2001:db8:0:0:0:0:0:1/tcp/80", "/ip6/2001:db8::1/tcp/80"},
        {"/ip4/1.2.3.4/tcp/5/p2p/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB",
         "/ip4/1.2.3.4/tcp/5/p2p/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB"},
        {"/ip4/1.2.3.4/tcp/5/ipfs/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB",
         "/ip4/1.2.3.4/tcp/5/p2p/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB"},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        char out[MERO_MULTIADDR_STR_MAX], peer[MERO_PEER_ID_STR_MAX];
        struct mero__maddr m, m2;
        struct mero_buf b;
        CHECK_OK(mero_net_multiaddr_check(good[i][0], out, peer));
        CHECK_STR_EQ(out, good[i][1]);
        CHECK_OK(mero__maddr_parse(good[i][0], &m));
        mero_buf_init(&b, 256);
        CHECK_OK(mero__maddr_encode(&m, &b));
        CHECK_OK(mero__maddr_decode(b.data, b.len, &m2));
        mero_buf_cleanup(&b);
        CHECK_OK(mero__maddr_format(&m2, 1, out));
        CHECK_STR_EQ(out, good[i][1]);
    }
    /* binary form: /ip4/127.0.0.1/tcp/4001 = 04 7f000001 06 0fa1 (multiaddr spec) */
    uint8_t bin[] = {0x04, 127, 0, 0, 1, 0x06, 0x0f, 0xa1};
    struct mero__maddr m;
    CHECK_OK(mero__maddr_decode(bin, sizeof(bin), &m));
    CHECK_EQ(m.port, 4001);
    CHECK_EQ(m.family, 4);
    CHECK_ERR(mero__maddr_decode(bin, 7, &m), -MERO_ETRUNC);
    uint8_t udp[] = {0x04, 127, 0, 0, 1, 0x91, 0x02, 0x0f, 0xa1}; /* udp = 273 */
    CHECK_ERR(mero__maddr_decode(udp, sizeof(udp), &m), -MERO_EUNSUPPORTED);
}

TEST(multiaddr_refusals)
{
    char out[MERO_MULTIADDR_STR_MAX];
    CHECK_ERR(mero_net_multiaddr_check("/dns4/example.com/tcp/443", out, NULL), -MERO_EUNSUPPORTED);
    CHECK_ERR(mero_net_multiaddr_check("/dns6/example.com/tcp/443/p2p/x", out, NULL),
              -MERO_EUNSUPPORTED);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/udp/5", out, NULL), -MERO_EUNSUPPORTED);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/tcp/65536", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/tcp/", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/tcp/5/", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3/tcp/5", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("ip4/1.2.3.4/tcp/5", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/tcp/5/p2p/Qmnotanid", out, NULL),
              -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip6/1.2.3.4/tcp/5", out, NULL), -MERO_EMULTIADDR);
    CHECK_ERR(mero_net_multiaddr_check("/ip4/1.2.3.4/tcp/-1", out, NULL), -MERO_EMULTIADDR);
}

TEST(varints)
{
    static const struct {
        uint64_t v;
        const char *hex;
    } kat[] = {{0, "00"},
               {1, "01"},
               {127, "7f"},
               {128, "8001"},
               {300, "ac02"},
               {16384, "808001"},
               {UINT64_MAX, "ffffffffffffffffff01"}};
    for (size_t i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
        struct mero_buf b;
        struct mero_cur c;
        uint8_t want[10];
        uint64_t v;
        size_t n = strlen(kat[i].hex) / 2;
        hex(want, n, kat[i].hex);
        mero_buf_init(&b, 16);
        CHECK_OK(mero_buf_append_uvarint(&b, kat[i].v));
        CHECK_EQ(b.len, n);
        CHECK_MEM_EQ(b.data, want, n);
        mero_cur_init(&c, want, n);
        CHECK_OK(mero_cur_uvarint(&c, &v));
        CHECK_U64_EQ(v, kat[i].v);
        mero_buf_cleanup(&b);
    }
    struct mero_cur c;
    uint64_t v;
    uint8_t nonmin[] = {0x80, 0x00},
            over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    uint8_t trunc[] = {0x80};
    mero_cur_init(&c, nonmin, 2);
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_EPROTO);
    mero_cur_init(&c, over, sizeof(over));
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_EOVERFLOW);
    mero_cur_init(&c, trunc, 1);
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_ETRUNC);
}

TEST(protobuf_fields)
{
    struct mero_buf b;
    struct mero_cur c;
    struct mero__pb_field f;
    mero_buf_init(&b, 64);
    CHECK_OK(mero__pb_put_varint(&b, 1, 150));
    CHECK_OK(mero__pb_put_str(&b, 2, "testing"));
    /* protobuf encoding guide: field 1 = 150 -> 08 96 01; field 2 "testing" -> 12 07 ... */
    uint8_t want[] = {0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
    CHECK_EQ(b.len, sizeof(want));
    CHECK_MEM_EQ(b.data, want, sizeof(want));
    mero_cur_init(&c, b.data, b.len);
    CHECK_EQ(mero__pb_next(&c, &f), 1);
    CHECK_EQ(f.num, 1);
    CHECK_U64_EQ(f.v, 150);
    CHECK_EQ(mero__pb_next(&c, &f), 1);
    CHECK_EQ(f.n, 7);
    CHECK_EQ(mero__pb_next(&c, &f), 0);
    uint8_t bad_len[] = {0x12, 0x08, 'a'}, group[] = {0x0b}, zero[] = {0x00, 0x01};
    mero_cur_init(&c, bad_len, sizeof(bad_len));
    CHECK_ERR(mero__pb_next(&c, &f), -MERO_ETRUNC);
    mero_cur_init(&c, group, sizeof(group));
    CHECK_ERR(mero__pb_next(&c, &f), -MERO_EPROTO);
    mero_cur_init(&c, zero, sizeof(zero));
    CHECK_ERR(mero__pb_next(&c, &f), -MERO_EPROTO);
    mero_buf_cleanup(&b);
}

static int match_noise(void *ud, const uint8_t *name, size_t len)
{
    (void)ud;
    return (len == 6 && memcmp(name, "/noise", 6) == 0) ? 0 : -1;
}

TEST(multistream_negotiation)
{
    struct mero_buf d2l, l2d;
    struct mero__mss dialer = {1, MERO__MSS_WAIT_HDR, "/noise"};
    struct mero__mss listener = {0, MERO__MSS_WAIT_HDR, NULL};
    size_t used;
    int sel = -1;
    mero_buf_init(&d2l, 1024);
    mero_buf_init(&l2d, 1024);
    CHECK_OK(mero__mss_put(&d2l, MERO__MSS_PROTO));
    /* wire form: 0x13 "/multistream/1.0.0\n" */
    CHECK_EQ(d2l.data[0], 0x13);
    CHECK_EQ(d2l.data[19], '\n');
    CHECK_OK(mero__mss_put(&d2l, "/tls/1.0.0"));
    CHECK_OK(mero__mss_put(&d2l, "/noise"));
    CHECK_EQ(mero__mss_step(&listener, d2l.data, d2l.len - 1, &used, &l2d, match_noise, NULL, &sel),
             0); /* the last message is incomplete */
    size_t first = used;
    CHECK_EQ(mero__mss_step(&listener, d2l.data + first, d2l.len - first, &used, &l2d, match_noise,
                            NULL, &sel),
             1);
    CHECK_EQ(sel, 0);
    CHECK_EQ(first + used, d2l.len);
    /* the listener answered: header, na (for /tls), /noise */
    CHECK_EQ(mero__mss_step(&dialer, l2d.data, l2d.len, &used, &d2l, NULL, NULL, &sel),
             -MERO_EUNSUPPORTED);
    struct mero__mss d2 = {1, MERO__MSS_WAIT_HDR, "/noise"};
    struct mero_buf ok;
    mero_buf_init(&ok, 256);
    CHECK_OK(mero__mss_put(&ok, MERO__MSS_PROTO));
    CHECK_OK(mero__mss_put(&ok, "/noise"));
    CHECK_EQ(mero__mss_step(&d2, ok.data, ok.len, &used, &d2l, NULL, NULL, &sel), 1);
    mero_buf_cleanup(&ok);
    /* malformed: wrong header, no newline, oversize, NUL */
    const uint8_t *msg;
    size_t mlen;
    uint8_t nonl[] = {0x03, 'a', 'b', 'c'}, big[] = {0x81, 0x10}, nul[] = {0x02, 0, '\n'};
    CHECK_ERR(mero__mss_parse(nonl, sizeof(nonl), &msg, &mlen, &used), -MERO_EPROTO);
    CHECK_ERR(mero__mss_parse(big, sizeof(big), &msg, &mlen, &used), -MERO_EPROTO);
    CHECK_ERR(mero__mss_parse(nul, sizeof(nul), &msg, &mlen, &used), -MERO_EPROTO);
    struct mero__mss l2 = {0, MERO__MSS_WAIT_HDR, NULL};
    uint8_t wrong[] = {0x04, '/', 'x', 'y', '\n'};
    CHECK_ERR(mero__mss_step(&l2, wrong, sizeof(wrong), &used, &l2d, match_noise, NULL, &sel),
              -MERO_EPROTO);
    mero_buf_cleanup(&d2l);
    mero_buf_cleanup(&l2d);
}

TEST(yamux_header)
{
    struct mero__yhdr h = {0, MERO__YT_WINDOW, MERO__YF_SYN | MERO__YF_ACK, 0x01020304, 262144}, g;
    uint8_t o[12];
    mero__yamux_hdr_put(o, &h);
    uint8_t want[] = {0, 1, 0, 3, 1, 2, 3, 4, 0, 4, 0, 0};
    CHECK_MEM_EQ(o, want, 12);
    CHECK_OK(mero__yamux_hdr_parse(o, 12, &g));
    CHECK_EQ(g.sid, 0x01020304);
    CHECK_EQ(g.len, 262144);
    CHECK_EQ(g.flags, 3);
    o[0] = 1;
    CHECK_ERR(mero__yamux_hdr_parse(o, 12, &g), -MERO_EPROTO);
    o[0] = 0;
    o[1] = 4;
    CHECK_ERR(mero__yamux_hdr_parse(o, 12, &g), -MERO_EPROTO);
    CHECK_ERR(mero__yamux_hdr_parse(o, 11, &g), -MERO_ETRUNC);
}

/* Vectors from tests/interop/noise_vectors.py (python3-dissononce). */
static const char *const NV_MSG1 =
    "ce8d3ad1ccb633ec7b70c17814a5c76ecd029685050d344745ba05870e587d59";
static const char *const NV_MSG2 =
    "ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10bb719b14d19eaf5ca91c89748c5ce8"
    "668e6864f05ee2367682b3e0c2fd086f0b4f64162733f3fe548251c518fe8c03cced86cd812a109fc6c40e295ef71"
    "69bdb445af0ebf490aa3d68c092a24";
static const char *const NV_MSG3 =
    "539a5cf3ae8a0a9134b32bfa775a1522db3558a1351ed4101989b8b88aa6a6f08cdfd61de1fddb02ed7efcfeda84"
    "15562e0cdd5f8ce7bcf106f4eb71b197e41ae72ea6449db0343ab9e24e62";
static const char *const NV_T1 = "f5c8fdccae8939c5a6d0d9be2753d6cf345c85961d";
static const char *const NV_T2 = "ef940bdf5a86302dad53e2e4243977a108057c9693";

TEST(noise_xx_known_answer)
{
    uint8_t k1[32], k2[32], k3[32], k4[32], want[256], ct[64], pt[64];
    struct mero__noise i, r;
    struct mero_buf m, p;
    memset(k1, 1, 32);
    memset(k2, 2, 32);
    memset(k3, 3, 32);
    memset(k4, 4, 32);
    mero__noise_init(&i, 1, k1, k2);
    mero__noise_init(&r, 0, k3, k4);
    mero_buf_init(&m, 70000);
    mero_buf_init(&p, 70000);
    CHECK_OK(mero__noise_write(&i, NULL, 0, &m));
    hex(want, 32, NV_MSG1);
    CHECK_EQ(m.len, 32);
    CHECK_MEM_EQ(m.data, want, 32);
    CHECK_OK(mero__noise_read(&r, m.data, m.len, &p));
    CHECK_EQ(p.len, 0);
    mero_buf_reset(&m);
    CHECK_OK(mero__noise_write(&r, (const uint8_t *)"resp-payload", 12, &m));
    hex(want, strlen(NV_MSG2) / 2, NV_MSG2);
    CHECK_EQ(m.len, strlen(NV_MSG2) / 2);
    CHECK_MEM_EQ(m.data, want, m.len);
    CHECK_OK(mero__noise_read(&i, m.data, m.len, &p));
    CHECK_EQ(p.len, 12);
    CHECK_MEM_EQ(p.data, "resp-payload", 12);
    mero_buf_reset(&m);
    CHECK_OK(mero__noise_write(&i, (const uint8_t *)"init-payload", 12, &m));
    hex(want, strlen(NV_MSG3) / 2, NV_MSG3);
    CHECK_EQ(m.len, strlen(NV_MSG3) / 2);
    CHECK_MEM_EQ(m.data, want, m.len);
    CHECK_OK(mero__noise_read(&r, m.data, m.len, &p));
    CHECK_MEM_EQ(p.data, "init-payload", 12);
    CHECK(i.done && r.done);
    CHECK_MEM_EQ(r.rs, i.s_pk, 32);
    CHECK_MEM_EQ(i.rs, r.s_pk, 32);
    /* transport, both directions */
    CHECK_OK(mero__cipher_seal(&i.tx, NULL, 0, (const uint8_t *)"hello", 5, ct));
    hex(want, 21, NV_T1);
    CHECK_MEM_EQ(ct, want, 21);
    CHECK_OK(mero__cipher_open(&r.rx, NULL, 0, ct, 21, pt));
    CHECK_MEM_EQ(pt, "hello", 5);
    CHECK_OK(mero__cipher_seal(&r.tx, NULL, 0, (const uint8_t *)"world", 5, ct));
    hex(want, 21, NV_T2);
    CHECK_MEM_EQ(ct, want, 21);
    /* replaying the same ciphertext fails (the nonce moved on) */
    CHECK_OK(mero__cipher_open(&i.rx, NULL, 0, ct, 21, pt));
    CHECK_ERR(mero__cipher_open(&i.rx, NULL, 0, ct, 21, pt), -MERO_ECRYPTO);
    /* out of turn */
    CHECK_ERR(mero__noise_write(&i, NULL, 0, &m), -MERO_ESTATE);
    mero__noise_cleanup(&i);
    mero__noise_cleanup(&r);
    mero_buf_cleanup(&m);
    mero_buf_cleanup(&p);
}

TEST(noise_tampered_handshake)
{
    uint8_t k1[32], k3[32];
    struct mero__noise i, r;
    struct mero_buf m, p;
    memset(k1, 1, 32);
    memset(k3, 3, 32);
    mero__noise_init(&i, 1, k1, NULL);
    mero__noise_init(&r, 0, k3, NULL);
    mero_buf_init(&m, 70000);
    mero_buf_init(&p, 70000);
    CHECK_OK(mero__noise_write(&i, NULL, 0, &m));
    CHECK_OK(mero__noise_read(&r, m.data, m.len, &p));
    mero_buf_reset(&m);
    CHECK_OK(mero__noise_write(&r, (const uint8_t *)"x", 1, &m));
    m.data[40] ^= 1; /* inside the encrypted static key */
    CHECK_ERR(mero__noise_read(&i, m.data, m.len, &p), -MERO_ECRYPTO);
    CHECK_ERR(mero__noise_read(&i, m.data, m.len, &p), -MERO_ESTATE); /* poisoned */
    CHECK_ERR(mero__noise_write(&i, NULL, 0, &m), -MERO_ESTATE);
    mero__noise_cleanup(&i);
    mero__noise_cleanup(&r);
    mero_buf_cleanup(&m);
    mero_buf_cleanup(&p);
}

TEST(noise_libp2p_payload)
{
    uint8_t seed[32], pk[32], sk[64], spk[32], got[32];
    struct mero_buf p;
    memset(seed, 7, 32);
    memset(spk, 9, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    mero_buf_init(&p, 512);
    CHECK_OK(mero__noise_payload_make(sk, spk, &p));
    /* identity_key (field 1) holds the 36-byte protobuf PublicKey, identity_sig (2) 64 bytes */
    CHECK_EQ(p.len, 2 + 36 + 2 + 64);
    CHECK_EQ(p.data[0], 0x0a);
    CHECK_EQ(p.data[1], 36);
    CHECK_OK(mero__noise_payload_verify(p.data, p.len, spk, got));
    CHECK_MEM_EQ(got, pk, 32);
    uint8_t other[32];
    memset(other, 8, 32);
    CHECK_ERR(mero__noise_payload_verify(p.data, p.len, other, got), -MERO_EBADSIG);
    p.data[p.len - 1] ^= 1;
    CHECK_ERR(mero__noise_payload_verify(p.data, p.len, spk, got), -MERO_EBADSIG);
    CHECK_ERR(mero__noise_payload_verify(p.data, 20, spk, got), -MERO_ETRUNC);
    CHECK_ERR(mero__noise_payload_verify(p.data + 38, p.len - 38, spk, got), -MERO_EPROTO);
    mero_buf_cleanup(&p);
}

TEST(gossip_rpc_codec)
{
    uint8_t seed[32], pk[32], sk[64], idb[38], seq[8] = {0, 0, 0, 0, 0, 0, 1, 2};
    struct mero_buf msg, rpc, sb, ctl, ids;
    static struct mero__rpc d;
    memset(seed, 5, 32);
    mero_ed25519_from_seed(pk, sk, seed);
    mero__peer_id_bytes_from_pk(pk, idb);
    mero_buf_init(&msg, 4096);
    mero_buf_init(&rpc, 8192);
    mero_buf_init(&sb, 8192);
    mero_buf_init(&ctl, 4096);
    mero_buf_init(&ids, 4096);
    CHECK_OK(mero__rpc_msg_build(&msg, sk, idb, 38, (const uint8_t *)"data", 4, seq, "ns/ab"));
    CHECK_OK(mero__rpc_put_sub(&rpc, 1, "ns/ab"));
    CHECK_OK(mero__rpc_put_msg(&rpc, msg.data, msg.len));
    CHECK_OK(mero__pb_put_bytes(&ids, 2, "id-1", 4));
    CHECK_OK(mero__rpc_ctrl_ihave(&ctl, "ns/ab", &ids));
    CHECK_OK(mero__rpc_ctrl_graft(&ctl, "ns/ab"));
    CHECK_OK(mero__rpc_ctrl_prune(&ctl, "ns/ab", 60));
    CHECK_OK(mero__rpc_put_control(&rpc, &ctl));
    CHECK_OK(mero__rpc_decode(rpc.data, rpc.len, &d));
    CHECK_EQ(d.nsubs, 1);
    CHECK_EQ(d.subs[0].subscribe, 1);
    CHECK_EQ(d.nmsgs, 1);
    CHECK_EQ(d.msgs[0].data_n, 4);
    CHECK_EQ(d.msgs[0].sig_n, 64);
    CHECK_EQ(d.msgs[0].seqno_n, 8);
    CHECK(d.msgs[0].key == NULL);
    CHECK_EQ(d.nctrl, 3);
    CHECK_EQ(d.ctrl[0].kind, 1);
    CHECK_EQ(d.ctrl[2].kind, 4);
    CHECK_U64_EQ(d.ctrl[2].backoff, 60);
    struct mero_cur c;
    const uint8_t *id;
    size_t idn;
    mero_cur_init(&c, d.ctrl[0].ids, d.ctrl[0].ids_n);
    CHECK_EQ(mero__rpc_next_id(&c, 2, &id, &idn), 1);
    CHECK_EQ(idn, 4);
    CHECK_EQ(mero__rpc_next_id(&c, 2, &id, &idn), 0);
    /* StrictSign: the signature covers "libp2p-pubsub:" || fields 1..4 */
    CHECK_OK(mero__rpc_sign_bytes(&d.msgs[0], &sb));
    CHECK_MEM_EQ(sb.data, "libp2p-pubsub:", 14);
    CHECK_OK(mero_ed25519_verify(d.msgs[0].sig, sb.data, sb.len, pk));
    /* truncations never decode */
    for (size_t cut = 1; cut < rpc.len; cut += 7) {
        static struct mero__rpc t;
        int rc = mero__rpc_decode(rpc.data, rpc.len - cut, &t);
        CHECK(rc <= 0);
    }
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&rpc);
    mero_buf_cleanup(&sb);
    mero_buf_cleanup(&ctl);
    mero_buf_cleanup(&ids);
}

MERO_TEST_MAIN(T(peer_id_known_answers), T(peer_id_refusals), T(base58_round_trip),
               T(multiaddr_round_trips), T(multiaddr_refusals), T(varints), T(protobuf_fields),
               T(multistream_negotiation), T(yamux_header), T(noise_xx_known_answer),
               T(noise_tampered_handshake), T(noise_libp2p_payload), T(gossip_rpc_codec))
