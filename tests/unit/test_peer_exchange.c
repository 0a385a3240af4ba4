/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_peer_exchange.c - issue 33: libp2p signed peer records (peer_record.c) against a record
 * js-libp2p sealed (@libp2p/peer-record's RecordEnvelope.seal, tests/js's node_modules: the
 * vector below, an Ed25519 key from the seed 32 x 0x07, seq 1733389200000, two addresses) both
 * ways: we open js's, and our seal of the same record is byte for byte js's (Ed25519 is
 * deterministic); tampered and malformed envelopes are refused. Then live on loopback: a node
 * turned away by a full owner learns the owner's mesh peer from the PRUNE's peer exchange and
 * dials it; the connection manager trims above its high watermark down to the low one and
 * keeps a mesh peer and a protected peer.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/net.h"
#include "net/net_internal.h"
#include "net/peer_record_internal.h"
#include "net/protobuf_internal.h"
#include "net/conn_internal.h"
#include "net/identify_internal.h"
#include "net/gossip_rpc_internal.h"
#include "net/multiaddr_internal.h"
#include "net/peerid_internal.h"
#include "net/budget_internal.h"

/* js-libp2p (libp2p@2 era @libp2p/peer-record) output for the record described above */
static const char JS_PEER[] = "12D3KooWRawPbxPtP1eZaJpumGnyWX2DcUyd3RQnydr3eAto4Az7";
static const char JS_ENVELOPE[] =
    "0a2408011220ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c120203011a53"
    "0a26002408011220ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c1080d5b0"
    "b0b9321a0a0a08047f000001060fa11a160a142900000000000000000000000000000001060fa22a401efa75"
    "1e882c87f171b0982319903f6be8dd0216ef7deef9319957d5d510c61d5bb7cde35f1e4f9ad2eebaa226b2f1"
    "95c22403141e44ea8fe5d802432533a80d";
#define JS_SEQ  1733389200000ull
#define ENV_CAP MERO__SPR_MAX

static size_t js_envelope(uint8_t out[ENV_CAP])
{
    size_t n = 0;
    if (mero_hex_decode(out, ENV_CAP, JS_ENVELOPE, strlen(JS_ENVELOPE), &n) < 0) {
        return 0;
    }
    return n;
}

TEST(js_record_opens)
{
    uint8_t env[ENV_CAP];
    struct mero__spr r;
    size_t n = js_envelope(env);
    CHECK(n > 0);
    CHECK_OK(mero__spr_open(env, n, &r));
    CHECK_STR_EQ(r.peer, JS_PEER);
    CHECK_U64_EQ(r.seq, JS_SEQ);
    CHECK_EQ(r.naddrs, 2);
    char a[MERO_MULTIADDR_STR_MAX];
    CHECK_OK(mero__maddr_format(&r.addrs[0], 1, a));
    CHECK_STR_EQ(
        a, "/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWRawPbxPtP1eZaJpumGnyWX2DcUyd3RQnydr3eAto4Az7");
    CHECK_OK(mero__maddr_format(&r.addrs[1], 0, a));
    CHECK_STR_EQ(a, "/ip6/::1/tcp/4002");
}

TEST(our_seal_is_js_bytes)
{
    uint8_t seed[MERO_ED25519_SEED_LEN], pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    uint8_t env[ENV_CAP];
    struct mero__maddr addrs[2];
    struct mero_buf b;
    size_t n = js_envelope(env);
    memset(seed, 7, sizeof(seed));
    mero_ed25519_from_seed(pk, sk, seed);
    CHECK_OK(mero__maddr_parse("/ip4/127.0.0.1/tcp/4001", &addrs[0]));
    CHECK_OK(mero__maddr_parse("/ip6/::1/tcp/4002", &addrs[1]));
    mero_buf_init(&b, MERO__SPR_MAX);
    int rc = mero__spr_seal(sk, pk, JS_SEQ, addrs, 2, &b);
    CHECK(rc == 0 && b.len == n && memcmp(b.data, env, n) == 0);
    mero_buf_cleanup(&b);
    mero_wipe(sk, sizeof(sk));
}

TEST(tampered_records_refused)
{
    uint8_t env[ENV_CAP], bad[ENV_CAP];
    struct mero__spr r;
    size_t n = js_envelope(env);
    CHECK(n > MERO_ED25519_SIG_LEN);
    /* the signature (the last 64 bytes) */
    memcpy(bad, env, n);
    bad[n - 1] ^= 1;
    CHECK_ERR(mero__spr_open(bad, n, &r), -MERO_EBADSIG);
    /* a byte of the payload: the seq's first byte sits right after the record's peer id */
    memcpy(bad, env, n);
    bad[38 + 4 + 2 + 2 + 38 + 1] ^= 1;
    CHECK_FAILS(mero__spr_open(bad, n, &r));
    /* another payload type (0x0302) */
    memcpy(bad, env, n);
    CHECK_EQ(bad[38], 0x12);
    bad[41] = 0x02;
    CHECK_ERR(mero__spr_open(bad, n, &r), -MERO_EPROTO);
    /* truncated at every length, and oversized */
    for (size_t k = 0; k < n; k++) {
        CHECK_FAILS(mero__spr_open(env, k, &r));
    }
    CHECK_ERR(mero__spr_open(env, MERO__SPR_MAX + 1, &r), -MERO_ETOOBIG);
}

/* ---- live ---- */

static uv_loop_t *loop;

static void stop_cb(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

static void run_for(uint64_t ms)
{
    uv_timer_t t;
    int expired = 0;
    uv_timer_init(loop, &t);
    t.data = &expired;
    uv_timer_start(&t, stop_cb, ms, 0);
    while (!expired) {
        uv_run(loop, UV_RUN_ONCE);
    }
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

static int member_prio(void *ud, const char *peer)
{
    (void)ud;
    (void)peer;
    return MERO_NET_PRIO_MEMBER; /* as merod ranks its bootstrap peers */
}

static struct mero_net *node(uint8_t seed_byte, const struct mero_net_config *cfg,
                             const char *topic)
{
    uint8_t seed[MERO_ED25519_SEED_LEN], pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    struct mero_net_callbacks cb = {.peer_priority = member_prio};
    struct mero_net *n = NULL;
    memset(seed, seed_byte, sizeof(seed));
    mero_ed25519_from_seed(pk, sk, seed);
    int rc = mero_net_new(loop, sk, cfg, &cb, NULL, &n);
    mero_wipe(sk, sizeof(sk));
    if (rc < 0 || mero_net_listen(n, "/ip4/127.0.0.1/tcp/0") < 0 ||
        (topic && mero_net_subscribe(n, topic) < 0)) {
        return NULL;
    }
    return n;
}

static void addr_of(struct mero_net *n, char out[MERO_MULTIADDR_STR_MAX])
{
    char a[1][MERO_MULTIADDR_STR_MAX];
    mero_net_listen_addrs(n, a, 1);
    memcpy(out, a[0], MERO_MULTIADDR_STR_MAX);
}

static int connected_to_id(struct mero_net *n, const char *id)
{
    char ids[8][MERO_PEER_ID_STR_MAX];
    size_t k = mero_net_connected_peers(n, ids, 8);
    for (size_t i = 0; i < k && i < 8; i++) {
        if (strcmp(ids[i], id) == 0) {
            return 1;
        }
    }
    return 0;
}

static int connected_to(struct mero_net *n, struct mero_net *to)
{
    return connected_to_id(n, mero_net_peer_id(to));
}

TEST(turned_away_peer_dials_a_mesh_peer_it_learned_by_px)
{
    struct mero_net_config cfg, full;
    char oa[MERO_MULTIADDR_STR_MAX];
    CHECK_OK(mero_crypto_init());
    loop = uv_default_loop();
    mero_net_config_default(&cfg);
    cfg.heartbeat_ms = 100;
    full = cfg;
    full.max_inbound = 1;
    struct mero_net *owner = node(0x41, &full, "ns/px"), *b = node(0x42, &cfg, "ns/px"),
                    *c = node(0x43, &cfg, "ns/px");
    CHECK(owner && b && c);
    addr_of(owner, oa);
    CHECK_OK(mero_net_dial(b, oa, NULL, NULL));
    run_for(600); /* b takes the owner's one inbound slot and joins its mesh */
    CHECK_EQ(mero_net_topic_peers(owner, "ns/px"), 1);
    CHECK_OK(mero_net_dial(c, oa, NULL, NULL));
    run_for(1500); /* c is turned away with PX, dials b; the drained connection closes */
    struct mero_net_gossip_stats so, sc;
    mero_net_gossip_stats(owner, &so);
    mero_net_gossip_stats(c, &sc);
    CHECK(so.px_records_sent >= 1);
    CHECK(sc.px_records_accepted >= 1);
    CHECK(sc.px_dials >= 1);
    CHECK(connected_to(c, b));      /* c learned b from the owner's PRUNE */
    CHECK(!connected_to(c, owner)); /* and the owner kept its budget */
    CHECK(connected_to(owner, b));
    /* c knows the owner turned it away (merod's redial leaves such a bootstrap peer alone) */
    CHECK(mero_net_turned_away_within(c, mero_net_peer_id(owner), 60000));
    CHECK(!mero_net_turned_away_within(c, mero_net_peer_id(owner), 1));
    CHECK_EQ(mero_net_connected_peers(owner, NULL, 0), 1);
    mero_net_free(owner);
    mero_net_free(b);
    mero_net_free(c);
    uv_run(loop, UV_RUN_DEFAULT);
}

TEST(connection_manager_trims_to_low_keeping_mesh_and_protected)
{
    struct mero_net_config cfg, hub;
    char ha[MERO_MULTIADDR_STR_MAX];
    loop = uv_default_loop();
    mero_net_config_default(&cfg);
    cfg.heartbeat_ms = 100;
    hub = cfg;
    hub.conn_high_water = 3;
    hub.conn_low_water = 2;
    hub.conn_grace_ms = 1;
    struct mero_net *h = node(0x51, &hub, "ns/cm");
    struct mero_net *mesh = node(0x52, &cfg, "ns/cm"), *prot = node(0x53, &cfg, NULL),
                    *s1 = node(0x54, &cfg, NULL), *s2 = node(0x55, &cfg, NULL);
    CHECK(h && mesh && prot && s1 && s2);
    CHECK_OK(mero_net_protect(h, mero_net_peer_id(prot)));
    addr_of(h, ha);
    CHECK_OK(mero_net_dial(mesh, ha, NULL, NULL));
    CHECK_OK(mero_net_dial(prot, ha, NULL, NULL));
    run_for(500); /* mesh is grafted; 2 connections: nothing to trim */
    CHECK_EQ(mero_net_conns_trimmed(h), 0);
    CHECK_OK(mero_net_dial(s1, ha, NULL, NULL));
    CHECK_OK(mero_net_dial(s2, ha, NULL, NULL));
    run_for(1500); /* 4 > high 3: trimmed to 2, the mesh peer and the protected one kept */
    CHECK_EQ(mero_net_conns_trimmed(h), 2);
    CHECK(connected_to(h, mesh));
    CHECK(connected_to(h, prot));
    CHECK(!connected_to(h, s1) && !connected_to(h, s2));
    CHECK_EQ(mero_net_connected_peers(h, NULL, 0), 2);
    /* each trimmed peer knows the hub trimmed it */
    CHECK(mero_net_turned_away_within(s1, mero_net_peer_id(h), 60000));
    CHECK(mero_net_turned_away_within(s2, mero_net_peer_id(h), 60000));
    /* of h's two links only the mesh peer shares a topic (prot follows none): merod's redial
     * counts such peers, not strangers', before it leaves a bootstrap peer alone */
    CHECK_EQ(mero_net_topic_sharers(h), 1);
    /* released: prot is an ordinary peer again (still 2 <= high: nothing trimmed) */
    mero_net_unprotect(h, mero_net_peer_id(prot));
    CHECK(!mero_net_is_protected(h, mero_net_peer_id(prot)));
    /* a link lost without a goodbye (the peer went away) is no turn-away */
    char prot_id[MERO_PEER_ID_STR_MAX];
    snprintf(prot_id, sizeof(prot_id), "%s", mero_net_peer_id(prot));
    mero_net_free(prot);
    run_for(500);
    CHECK(!connected_to_id(h, prot_id));
    CHECK(!mero_net_turned_away_within(h, prot_id, 60000));
    mero_net_free(h);
    mero_net_free(mesh);
    mero_net_free(s1);
    mero_net_free(s2);
    uv_run(loop, UV_RUN_DEFAULT);
}

MERO_TEST_MAIN(T(js_record_opens), T(our_seal_is_js_bytes), T(tampered_records_refused),
               T(turned_away_peer_dials_a_mesh_peer_it_learned_by_px),
               T(connection_manager_trims_to_low_keeping_mesh_and_protected))
