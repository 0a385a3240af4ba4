/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sealed.c - the sealed HTTP v2 handshake and envelope (src/net/sealed_*.c) against
 * core's published vectors (crates/server/src/sealed/tests.rs,
 * the_wire_format_matches_the_published_vectors: transport secret 0x22.., client ephemeral
 * 0x33.., node ephemeral 0x44.., session id 0x55..; reproduced by mero-js with WebCrypto), and
 * every refusal the envelope's parsers make: low-order keys, early data, tampered, reordered
 * and truncated frames, lengths past the protocol maxima. Then the API's session table
 * (src/api/sealed_table.c) on a clock the test sets: lifetime and idle limits, the replay
 * window and its floor, a full table displacing unused sessions first, the expiry sweep and
 * the handshake bucket (core's session.rs and sealed.rs limits, as their tests state them).
 * Last, AES-256-GCM's two forms (libsodium's AES-NI one the node takes where it can, OpenSSL's
 * EVP one elsewhere) held to the same bytes.
 */
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sealed.h"
#include "api/sealed_internal.h"
#include "crypto/crypto_internal.h"
#include "harness.h"

static const char TRANSPORT_PUBLIC_VECTOR[] =
    "0faa684ed28867b97f4a6a2dee5df8ce974e76b7018e3f22a1c4cf2678570f20";
static const char HANDSHAKE_REQUEST_VECTOR[] =
    "020faa684ed28867b97f4a6a2dee5df8ce974e76b7018e3f22a1c4cf2678570f207b0d47d93427f831116078"
    "1c7c733fd89f88970aef490d8aa0ee19a4cb8a1b1461fba335b4f3e9be8a34a61900e5b4be";
static const char HANDSHAKE_RESPONSE_VECTOR[] =
    "02ff2ee45601ec1b67310c7790404585ae697331eee1c1f8cf2419731c1fff3e6b7d6339b7296bdc4778248f"
    "57126a10ee5b7fb39b0cb104dcbfcaaaf44d0e6017379638a4";
static const char SEALED_REQUEST_VECTOR[] =
    "025555555555555555555555555555555500000000000000019fa4301264a48bdf6811cfb1d7c3dad713ede5"
    "ea1820608358ff2779cee1605efc3d97879f24d6cf302a7877beda552ca6714ef9d5496f978fdcdde522435c"
    "f663e4be5f60170e8eab74161a913608fe268e5352fcd3090d62e2a12c92b06b51885d43c4d83dcfe544";
static const char SEALED_RESPONSE_VECTOR[] =
    "0000004f4873ec5a589a1e3585360440100bc00d20522fe35bac2221dcfe80341ce3069481d4794b801776f4"
    "a76188b81887eb83cfccd2981229af48a3820df924261b3ff12d4b29340ca07c392ed4e0ee4bed0000001cfa"
    "20a7633655179808da19e2fcbc81bc219262fc4f5406582834f549000000111426897864d7a92eec9261fe29"
    "93415592";

/* The vector's inner request and response, as serde_json writes them. */
static const char REQ_HEAD[] = "{\"method\":\"POST\",\"path\":\"/"
                               "jsonrpc\",\"headers\":[[\"content-type\",\"application/json\"]]}";
static const char RESP_HEAD[] =
    "{\"status\":200,\"headers\":[[\"content-type\",\"application/json\"]]}";

static void fill(uint8_t *p, uint8_t v, size_t n)
{
    memset(p, v, n);
}

static int hex_eq(const uint8_t *p, size_t n, const char *hex)
{
    char h[1024];
    if (2 * n + 1 > sizeof(h)) {
        return 0;
    }
    mero_hex_encode(h, p, n);
    return strlen(hex) == 2 * n && strcmp(h, hex) == 0;
}

/* The vector's session, both sides: keys from the node, the client's from its handshake. */
struct vec {
    uint8_t s_sk[MERO_X25519_LEN], s_pk[MERO_X25519_LEN], sid[MERO_SEALED_SESSION_ID_LEN];
    uint8_t msg1[MERO_SEALED_MSG1_LEN], msg2[MERO_SEALED_MSG2_LEN];
    struct mero_sealed_keys node, client;
    uint8_t client_sid[MERO_SEALED_SESSION_ID_LEN];
    uint32_t lifetime;
};

static int vec_run(struct vec *v)
{
    uint8_t ce[MERO_X25519_LEN], ne[MERO_X25519_LEN];
    struct mero_sealed_client c;
    MERO_TRY(mero_crypto_init());
    fill(v->s_sk, 0x22, sizeof(v->s_sk));
    fill(ce, 0x33, sizeof(ce));
    fill(ne, 0x44, sizeof(ne));
    fill(v->sid, 0x55, sizeof(v->sid));
    mero_x25519_public(v->s_pk, v->s_sk);
    MERO_TRY(mero_sealed_initiate(&c, v->s_pk, ce, v->msg1));
    MERO_TRY(mero_sealed_respond(v->s_sk, ne, v->msg1, sizeof(v->msg1), v->sid,
                                 MERO_SEALED_LIFETIME_S, v->msg2, &v->node));
    return mero_sealed_finish(&c, v->msg2, sizeof(v->msg2), v->client_sid, &v->lifetime,
                              &v->client);
}

TEST(handshake_matches_published_vectors)
{
    struct vec v;
    uint8_t body[MERO_SEALED_HANDSHAKE_LEN], reply[MERO_SEALED_HANDSHAKE_REPLY_LEN];
    CHECK_OK(mero_crypto_init()); /* AES-GCM as the node runs it (libsodium's where it can) */
    CHECK_OK(vec_run(&v));
    CHECK(hex_eq(v.s_pk, sizeof(v.s_pk), TRANSPORT_PUBLIC_VECTOR));
    body[0] = MERO_SEALED_VERSION;
    memcpy(body + 1, v.s_pk, sizeof(v.s_pk));
    memcpy(body + 1 + sizeof(v.s_pk), v.msg1, sizeof(v.msg1));
    CHECK(hex_eq(body, sizeof(body), HANDSHAKE_REQUEST_VECTOR));
    reply[0] = MERO_SEALED_VERSION;
    memcpy(reply + 1, v.msg2, sizeof(v.msg2));
    CHECK(hex_eq(reply, sizeof(reply), HANDSHAKE_RESPONSE_VECTOR));
    CHECK_MEM_EQ(v.client_sid, v.sid, sizeof(v.sid));
    CHECK_EQ(v.lifetime, 3600);
    CHECK_MEM_EQ(&v.client, &v.node, sizeof(v.node));
    CHECK(memcmp(v.node.request, v.node.response, sizeof(v.node.request)) != 0);
}

TEST(envelope_matches_published_vectors)
{
    struct vec v;
    struct mero_buf plain, env, resp, data;
    uint8_t hdr[MERO_SEALED_HEADER_LEN], opened[512], kind = 0xff;
    size_t n = 0, head_len = 0, used = 0;
    CHECK_OK(mero_crypto_init());
    CHECK_OK(vec_run(&v));
    mero_buf_init(&plain, 4096);
    mero_buf_init(&env, 4096);
    mero_buf_init(&resp, 4096);
    mero_buf_init(&data, 4096);
    size_t hl = strlen(REQ_HEAD);
    uint8_t len4[4] = {0, 0, (uint8_t)(hl >> 8), (uint8_t)hl};
    CHECK_OK(mero_buf_append(&plain, len4, 4));
    CHECK_OK(mero_buf_append(&plain, REQ_HEAD, hl));
    CHECK_OK(mero_buf_append(&plain, "{}", 2));
    CHECK_OK(mero_sealed_request_seal(v.client.request, v.sid, 1, plain.data, plain.len, &env));
    CHECK(hex_eq(env.data, env.len, SEALED_REQUEST_VECTOR));

    /* the node's side opens it: head and body where they were */
    CHECK_OK(mero_sealed_request_open(v.node.request, env.data, env.len, opened, &n));
    CHECK_EQ(n, plain.len);
    CHECK_OK(mero_sealed_inner_split(opened, n, &head_len));
    CHECK_EQ(head_len, hl);
    CHECK_MEM_EQ(opened + 4 + head_len, "{}", 2);

    mero_sealed_header(hdr, v.sid, 1);
    CHECK_OK(mero_sealed_frame_seal(v.node.response, hdr, 0, MERO_SEALED_HEAD,
                                    (const uint8_t *)RESP_HEAD, strlen(RESP_HEAD), &resp));
    CHECK_OK(mero_sealed_frame_seal(v.node.response, hdr, 1, MERO_SEALED_DATA,
                                    (const uint8_t *)"{\"ok\":true}", 11, &resp));
    CHECK_OK(mero_sealed_frame_seal(v.node.response, hdr, 2, MERO_SEALED_END, NULL, 0, &resp));
    CHECK(hex_eq(resp.data, resp.len, SEALED_RESPONSE_VECTOR));

    /* and the client reads the frames back, in order */
    size_t off = 0;
    uint8_t kinds[3];
    for (uint32_t i = 0; i < 3; i++) {
        CHECK_OK(mero_sealed_frame_open(v.client.response, hdr, i, resp.data + off, resp.len - off,
                                        &used, &kind, &data));
        kinds[i] = kind;
        off += used;
        if (i == 1) {
            CHECK_EQ(data.len, 11);
            CHECK_MEM_EQ(data.data, "{\"ok\":true}", 11);
        }
    }
    CHECK_EQ(off, resp.len);
    CHECK_EQ(kinds[0], MERO_SEALED_HEAD);
    CHECK_EQ(kinds[1], MERO_SEALED_DATA);
    CHECK_EQ(kinds[2], MERO_SEALED_END);
    mero_buf_cleanup(&plain);
    mero_buf_cleanup(&env);
    mero_buf_cleanup(&resp);
    mero_buf_cleanup(&data);
}

TEST(handshake_refusals)
{
    struct vec v;
    struct mero_sealed_keys k;
    uint8_t msg2[MERO_SEALED_MSG2_LEN], low[MERO_SEALED_MSG1_LEN + 5];
    CHECK_OK(vec_run(&v));
    /* a low-order ephemeral makes every DH zero: malformed */
    memset(low, 0, sizeof(low));
    CHECK_ERR(mero_sealed_respond(v.s_sk, NULL, low, MERO_SEALED_MSG1_LEN, v.sid, 1, msg2, &k),
              -MERO_EPROTO);
    /* a message 1 carrying data (or of any other length) is refused before any DH */
    memcpy(low, v.msg1, sizeof(v.msg1));
    CHECK_ERR(mero_sealed_respond(v.s_sk, NULL, low, sizeof(low), v.sid, 1, msg2, &k),
              -MERO_EPROTO);
    CHECK_ERR(mero_sealed_respond(v.s_sk, NULL, low, MERO_SEALED_MSG1_LEN - 1, v.sid, 1, msg2, &k),
              -MERO_EPROTO);
    /* a flipped tag bit, or another node's key: undecryptable */
    low[MERO_SEALED_MSG1_LEN - 1] ^= 1;
    CHECK_ERR(mero_sealed_respond(v.s_sk, NULL, low, MERO_SEALED_MSG1_LEN, v.sid, 1, msg2, &k),
              -MERO_ECRYPTO);
    uint8_t other[MERO_X25519_LEN];
    fill(other, 0x66, sizeof(other));
    CHECK_ERR(mero_sealed_respond(other, NULL, v.msg1, sizeof(v.msg1), v.sid, 1, msg2, &k),
              -MERO_ECRYPTO);
    /* a fresh node ephemeral gives other keys from the same message 1 (forward secrecy) */
    CHECK_OK(mero_sealed_respond(v.s_sk, NULL, v.msg1, sizeof(v.msg1), v.sid, 1, msg2, &k));
    CHECK(memcmp(k.request, v.node.request, sizeof(k.request)) != 0);
    /* the client refuses a tampered message 2 */
    struct mero_sealed_client c;
    uint8_t m1[MERO_SEALED_MSG1_LEN], sid[MERO_SEALED_SESSION_ID_LEN];
    uint32_t life = 0;
    CHECK_OK(mero_sealed_initiate(&c, v.s_pk, NULL, m1));
    CHECK_OK(mero_sealed_respond(v.s_sk, NULL, m1, sizeof(m1), v.sid, 7, msg2, &k));
    msg2[MERO_SEALED_MSG2_LEN - 3] ^= 0x80;
    CHECK_ERR(mero_sealed_finish(&c, msg2, sizeof(msg2), sid, &life, &k), -MERO_ECRYPTO);
}

TEST(request_refusals)
{
    struct vec v;
    struct mero_buf env;
    uint8_t out[256];
    size_t n = 0;
    uint64_t rid = 0;
    uint8_t sid[MERO_SEALED_SESSION_ID_LEN];
    CHECK_OK(vec_run(&v));
    mero_buf_init(&env, 1024);
    CHECK_OK(
        mero_sealed_request_seal(v.client.request, v.sid, 9, (const uint8_t *)"abcd", 4, &env));
    CHECK_OK(mero_sealed_header_parse(env.data, env.len, sid, &rid));
    CHECK_U64_EQ(rid, 9);
    CHECK_ERR(mero_sealed_header_parse(env.data, MERO_SEALED_HEADER_LEN + 15, sid, &rid),
              -MERO_EPROTO);
    /* the response key, the wrong direction, does not open a request */
    CHECK_ERR(mero_sealed_request_open(v.node.response, env.data, env.len, out, &n), -MERO_ECRYPTO);
    /* the request id is in the AAD and the nonce: another id does not open */
    env.data[MERO_SEALED_HEADER_LEN - 1] ^= 1;
    CHECK_ERR(mero_sealed_request_open(v.node.request, env.data, env.len, out, &n), -MERO_ECRYPTO);
    env.data[MERO_SEALED_HEADER_LEN - 1] ^= 1;
    env.data[env.len - 1] ^= 1;
    CHECK_ERR(mero_sealed_request_open(v.node.request, env.data, env.len, out, &n), -MERO_ECRYPTO);
    env.data[env.len - 1] ^= 1;
    CHECK_OK(mero_sealed_request_open(v.node.request, env.data, env.len, out, &n));
    CHECK_EQ(n, 4);
    env.data[0] = 3;
    CHECK_ERR(mero_sealed_request_open(v.node.request, env.data, env.len, out, &n),
              -MERO_EUNSUPPORTED);
    mero_buf_cleanup(&env);
    /* the inner split: the head length within what remains and the protocol maximum */
    size_t hl = 0;
    const uint8_t ok[] = {0, 0, 0, 2, '{', '}', 'x'};
    const uint8_t past[] = {0, 0, 0, 4, '{', '}'};
    const uint8_t huge[] = {0, 1, 0, 1, '{'};
    CHECK_OK(mero_sealed_inner_split(ok, sizeof(ok), &hl));
    CHECK_EQ(hl, 2);
    CHECK_ERR(mero_sealed_inner_split(past, sizeof(past), &hl), -MERO_EPROTO);
    CHECK_ERR(mero_sealed_inner_split(huge, sizeof(huge), &hl), -MERO_EPROTO);
    CHECK_ERR(mero_sealed_inner_split(ok, 3, &hl), -MERO_EPROTO);
}

TEST(frame_refusals)
{
    struct vec v;
    struct mero_buf f, data;
    uint8_t hdr[MERO_SEALED_HEADER_LEN], other[MERO_SEALED_HEADER_LEN], kind = 0;
    size_t used = 0;
    static uint8_t big[MERO_SEALED_FRAME_DATA_MAX + 1];
    CHECK_OK(vec_run(&v));
    mero_buf_init(&f, 1u << 20);
    mero_buf_init(&data, 1u << 20);
    mero_sealed_header(hdr, v.sid, 5);
    mero_sealed_header(other, v.sid, 6);
    CHECK_OK(mero_sealed_frame_seal(v.node.response, hdr, 0, MERO_SEALED_DATA, big,
                                    MERO_SEALED_FRAME_DATA_MAX, &f));
    CHECK_ERR(
        mero_sealed_frame_seal(v.node.response, hdr, 1, MERO_SEALED_DATA, big, sizeof(big), &f),
        -MERO_ETOOBIG);
    /* a whole 64 KiB frame opens; out of order, for another request, cut short: refused */
    CHECK_OK(mero_sealed_frame_open(v.client.response, hdr, 0, f.data, f.len, &used, &kind, &data));
    CHECK_EQ(data.len, MERO_SEALED_FRAME_DATA_MAX);
    CHECK_EQ(used, f.len);
    CHECK_ERR(mero_sealed_frame_open(v.client.response, hdr, 1, f.data, f.len, &used, &kind, &data),
              -MERO_ECRYPTO);
    CHECK_ERR(
        mero_sealed_frame_open(v.client.response, other, 0, f.data, f.len, &used, &kind, &data),
        -MERO_ECRYPTO);
    CHECK_ERR(
        mero_sealed_frame_open(v.client.response, hdr, 0, f.data, f.len - 1, &used, &kind, &data),
        -MERO_ETRUNC);
    CHECK_ERR(mero_sealed_frame_open(v.client.response, hdr, 0, f.data, 3, &used, &kind, &data),
              -MERO_ETRUNC);
    /* a length field past the protocol maximum, or too short for a kind and a tag */
    f.data[1] += 1;
    CHECK_ERR(mero_sealed_frame_open(v.client.response, hdr, 0, f.data, f.len, &used, &kind, &data),
              -MERO_EPROTO);
    const uint8_t tiny[] = {0, 0, 0, 16};
    CHECK_ERR(
        mero_sealed_frame_open(v.client.response, hdr, 0, tiny, sizeof(tiny), &used, &kind, &data),
        -MERO_EPROTO);
    mero_buf_cleanup(&f);
    mero_buf_cleanup(&data);
}

static struct mero_sealed_keys some_keys(void)
{
    struct mero_sealed_keys k;
    fill(k.request, 1, sizeof(k.request));
    fill(k.response, 2, sizeof(k.response));
    return k;
}

static void sid_of(uint8_t id[MERO_SEALED_SESSION_ID_LEN], uint32_t n)
{
    memset(id, 0, MERO_SEALED_SESSION_ID_LEN);
    for (int i = 0; i < 4; i++) {
        id[i] = (uint8_t)(n >> (8 * (3 - i)));
    }
}

TEST(session_lifetime_and_idle_limits)
{
    struct sealed_table t;
    struct mero_sealed_keys k = some_keys();
    uint8_t a[MERO_SEALED_SESSION_ID_LEN], b[MERO_SEALED_SESSION_ID_LEN];
    const uint64_t start = 1000000;
    sid_of(a, 1);
    sid_of(b, 2);
    CHECK_OK(mero__sealed_table_init(&t, start));
    CHECK_OK(mero__sealed_insert(&t, a, &k, start));
    CHECK(mero__sealed_live(&t, a, start) != NULL);
    /* unused for eleven minutes: gone */
    CHECK(mero__sealed_live(&t, a, start + 11u * 60u * 1000u) == NULL);
    CHECK_EQ(t.n, 0);
    /* kept busy, a session still ends at its lifetime */
    CHECK_OK(mero__sealed_insert(&t, b, &k, start));
    uint64_t now = start, rid = 1;
    while (now < start + SEALED_LIFETIME_MS) {
        CHECK_OK(mero__sealed_admit(&t, b, rid++, now));
        now += 5u * 60u * 1000u;
    }
    CHECK(mero__sealed_live(&t, b, now) == NULL);
    CHECK_ERR(mero__sealed_admit(&t, b, rid, now), -MERO_ENOTFOUND);
    mero__sealed_table_cleanup(&t);
}

TEST(request_ids_once_and_not_below_the_window)
{
    struct sealed_table t;
    struct mero_sealed_keys k = some_keys();
    uint8_t a[MERO_SEALED_SESSION_ID_LEN];
    sid_of(a, 4);
    CHECK_OK(mero__sealed_table_init(&t, 0));
    CHECK_OK(mero__sealed_insert(&t, a, &k, 0));
    CHECK_ERR(mero__sealed_admit(&t, a, 0, 0), -MERO_EEXIST); /* ids start at 1 */
    for (uint64_t id = 2; id <= 5000; id++) {
        CHECK_OK(mero__sealed_admit(&t, a, id, 0));
    }
    CHECK_ERR(mero__sealed_admit(&t, a, 1, 0), -MERO_EEXIST);    /* below the window */
    CHECK_ERR(mero__sealed_admit(&t, a, 4000, 0), -MERO_EEXIST); /* seen */
    CHECK_OK(mero__sealed_admit(&t, a, 5001, 0));
    /* out of order inside the window is fine, once */
    CHECK_OK(mero__sealed_admit(&t, a, 7000, 0));
    CHECK_OK(mero__sealed_admit(&t, a, 6000, 0));
    CHECK_ERR(mero__sealed_admit(&t, a, 6000, 0), -MERO_EEXIST);
    struct sealed_session *s = mero__sealed_live(&t, a, 0);
    CHECK(s != NULL);
    CHECK(s->nseen <= SEALED_REPLAY_WINDOW);
    mero__sealed_table_cleanup(&t);
}

TEST(a_full_table_drops_unused_sessions_first)
{
    struct sealed_table t;
    struct mero_sealed_keys k = some_keys();
    uint8_t used[MERO_SEALED_SESSION_ID_LEN], id[MERO_SEALED_SESSION_ID_LEN];
    memset(used, 0xff, sizeof(used));
    CHECK_OK(mero__sealed_table_init(&t, 0));
    CHECK_OK(mero__sealed_insert(&t, used, &k, 0));
    CHECK_OK(mero__sealed_admit(&t, used, 1, 0));
    /* a flood of handshakes that never carry a request, a minute later */
    for (uint32_t n = 0; n < SEALED_MAX_SESSIONS + 64; n++) {
        sid_of(id, n);
        CHECK_OK(mero__sealed_insert(&t, id, &k, 60000));
        CHECK(t.n <= SEALED_MAX_SESSIONS);
    }
    CHECK_EQ(t.n, SEALED_MAX_SESSIONS);
    CHECK(mero__sealed_live(&t, used, 60000) != NULL);
    /* every session the table holds can still be found (the probing survived the removals) */
    size_t found = 0;
    for (uint32_t n = 0; n < SEALED_MAX_SESSIONS + 64; n++) {
        sid_of(id, n);
        found += mero__sealed_live(&t, id, 60000) != NULL;
    }
    CHECK_EQ(found, SEALED_MAX_SESSIONS - 1);
    mero__sealed_table_cleanup(&t);
}

TEST(expiry_drops_sessions_nobody_names)
{
    struct sealed_table t;
    struct mero_sealed_keys k = some_keys();
    uint8_t id[MERO_SEALED_SESSION_ID_LEN];
    CHECK_OK(mero__sealed_table_init(&t, 0));
    for (uint32_t n = 0; n < 100; n++) {
        sid_of(id, n);
        CHECK_OK(mero__sealed_insert(&t, id, &k, n < 50 ? 0 : SEALED_IDLE_MS));
    }
    mero__sealed_expire(&t, 60000);
    CHECK_EQ(t.n, 100);
    mero__sealed_expire(&t, SEALED_IDLE_MS + 1);
    CHECK_EQ(t.n, 50);
    for (uint32_t n = 50; n < 100; n++) {
        sid_of(id, n);
        CHECK(mero__sealed_live(&t, id, SEALED_IDLE_MS + 1) != NULL);
    }
    mero__sealed_expire(&t, SEALED_LIFETIME_MS + SEALED_IDLE_MS);
    CHECK_EQ(t.n, 0);
    mero__sealed_table_cleanup(&t);
}

TEST(handshake_bucket)
{
    struct sealed_table t;
    const uint64_t start = 5000;
    CHECK_OK(mero__sealed_table_init(&t, start));
    for (int i = 0; i < (int)SEALED_HS_BURST; i++) {
        CHECK(mero__sealed_hs_admit(&t, start));
    }
    CHECK(!mero__sealed_hs_admit(&t, start));     /* the burst is spent */
    CHECK(mero__sealed_hs_admit(&t, start + 10)); /* one more per 10 ms */
    CHECK(!mero__sealed_hs_admit(&t, start + 10));
    /* a long quiet refills to the burst, not beyond */
    int n = 0;
    while (mero__sealed_hs_admit(&t, start + 3600000) && n < 1000) {
        n++;
    }
    CHECK_EQ(n, SEALED_HS_BURST);
    mero__sealed_table_cleanup(&t);
}

/* mero_crypto_init picks libsodium's AES-NI AES-256-GCM where the CPU has it, EVP elsewhere
 * (crypto.c): both forms give the same bytes, open each other's, in place too, and refuse a
 * tampered tag leaving zeros. */
TEST(aes_gcm_forms_agree)
{
    static uint8_t key[MERO_AEAD_KEY_LEN], nonce[12], aad[40], msg[70000 + 16], a[70000 + 16],
        b[70000 + 16], c[70000 + 16];
    static const size_t lens[] = {0, 1, 15, 16, 17, 100, 255, 4096, 65537, 70000};
    CHECK_OK(mero_crypto_init());
    printf("# AES-256-GCM through %s\n",
           crypto_aead_aes256gcm_is_available() ? "libsodium (AES-NI)" : "OpenSSL EVP");
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t n = lens[i], al = i % 3 == 0 ? 0 : (i * 7) % sizeof(aad);
        mero_random(key, sizeof(key));
        mero_random(nonce, sizeof(nonce));
        mero_random(aad, sizeof(aad));
        mero_random(msg, n);
        CHECK_OK(mero_aes256gcm_seal(a, msg, n, aad, al, nonce, key));
        CHECK_OK(mero__aes256gcm_evp(1, b, msg, n, aad, al, nonce, key));
        CHECK_MEM_EQ(a, b, n + 16);
        memcpy(c, msg, n); /* in place, as a frame is sealed */
        CHECK_OK(mero_aes256gcm_seal(c, c, n, aad, al, nonce, key));
        CHECK_MEM_EQ(c, a, n + 16);
        CHECK_OK(mero_aes256gcm_open(c, a, n + 16, aad, al, nonce, key));
        CHECK_MEM_EQ(c, msg, n);
        CHECK_OK(mero__aes256gcm_evp(0, c, b, n + 16, aad, al, nonce, key));
        CHECK_MEM_EQ(c, msg, n);
        memcpy(c, a, n + 16);
        CHECK_OK(mero_aes256gcm_open(c, c, n + 16, aad, al, nonce, key));
        CHECK_MEM_EQ(c, msg, n);
        a[n / 2] ^= 1; /* a ciphertext byte, or the tag's first when empty */
        memset(c, 0xee, n);
        CHECK_ERR(mero_aes256gcm_open(c, a, n + 16, aad, al, nonce, key), -MERO_ECRYPTO);
        for (size_t j = 0; j < n; j++) {
            CHECK(c[j] == 0);
        }
        CHECK_ERR(mero__aes256gcm_evp(0, c, a, n + 16, aad, al, nonce, key), -MERO_ECRYPTO);
        a[n / 2] ^= 1;
        aad[0] ^= (uint8_t)(al > 0);
        CHECK(al == 0 || mero_aes256gcm_open(c, a, n + 16, aad, al, nonce, key) < 0);
    }
    CHECK_ERR(mero_aes256gcm_open(c, a, 15, NULL, 0, nonce, key), -MERO_ECRYPTO);
}

MERO_TEST_MAIN(T(handshake_matches_published_vectors), T(envelope_matches_published_vectors),
               T(handshake_refusals), T(request_refusals), T(frame_refusals),
               T(session_lifetime_and_idle_limits), T(request_ids_once_and_not_below_the_window),
               T(a_full_table_drops_unused_sessions_first), T(expiry_drops_sessions_nobody_names),
               T(handshake_bucket), T(aes_gcm_forms_agree))
