/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_admission_msg.c - the admission wire messages (src/node/admission/msg.c): the tag
 * values we chose (docs/admission.md) pinned by golden bytes, round trips of every variant,
 * every truncation refused, trailing bytes, unknown tags, a missing proof, over-long fields,
 * reasons cut at a UTF-8 boundary and cleaned, and the proof of possession bound to the
 * namespace, the key and the dialer's peer id; the one "ns/<hex>" gossip topic builder and
 * parser (src/node/topic_internal.h) give back the namespace and refuse any other shape.
 */
#include <stdio.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "node/admission/msg_internal.h"
#include "node/topic_internal.h"
#include "harness.h"

static const uint8_t QUOTE[300] = {0x4d, 0x4f, 0x43, 0x4b};
static const uint8_t CRED[237] = {1, 2, 3};

static void fill_request(struct mero_adm_init *m, enum mero_adm_init_kind k)
{
    memset(m, 0, sizeof(*m));
    m->kind = k;
    memset(m->party_id, 0x11, 32);
    memset(m->ns, 0x22, 32);
    memset(m->challenge, 0x33, 32);
    memset(m->public_key, 0x11, 32);
    memset(m->group_id, 0x44, 32);
    m->quote = QUOTE;
    m->quote_len = sizeof(QUOTE);
    m->credential = CRED;
    m->credential_len = sizeof(CRED);
    m->has_pop = k != MERO_ADM_INIT_CHALLENGE_OFFER;
    memset(m->pop, 0x55, 64);
    memcpy(m->release, "2.3.72", 7);
}

/* Every strict prefix of a valid frame is refused, and one extra byte is refused. */
static int prefixes_refused_init(const struct mero_buf *b)
{
    struct mero_adm_init m;
    for (size_t n = 0; n < b->len; n++) {
        if (mero__adm_init_decode(b->data, n, &m, NULL) == 0) {
            return 0;
        }
    }
    static uint8_t extra[MERO_ADM_MAX_FRAME + 1];
    memcpy(extra, b->data, b->len);
    extra[b->len] = 0;
    return mero__adm_init_decode(extra, b->len + 1, &m, NULL) < 0;
}

static int prefixes_refused_msg(const struct mero_buf *b)
{
    struct mero_adm_msg m;
    for (size_t n = 0; n < b->len; n++) {
        if (mero__adm_msg_decode(b->data, n, &m, NULL) == 0) {
            return 0;
        }
    }
    static uint8_t extra[MERO_ADM_MAX_FRAME + 1];
    memcpy(extra, b->data, b->len);
    extra[b->len] = 0;
    return mero__adm_msg_decode(extra, b->len + 1, &m, NULL) < 0;
}

TEST(prompt_is_one_tag_byte)
{
    struct mero_buf b;
    mero_buf_init(&b, 16);
    CHECK_OK(mero__adm_prompt_encode(&b));
    CHECK_EQ(b.len, 1);
    CHECK_EQ(b.data[0], 0xA2);
    CHECK(mero__adm_is_prompt(b.data, b.len));
    uint8_t other[2] = {0xA2, 0};
    CHECK(!mero__adm_is_prompt(other, 2));
    CHECK(!mero__adm_is_prompt(other + 1, 1));
    mero_buf_cleanup(&b);
}

TEST(challenge_request_golden_and_roundtrip)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_CHALLENGE_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    /* Init tag, context_id, party_id, payload tag, ns, Some(pop) */
    CHECK_EQ(b.len, 1 + 32 + 32 + 1 + 32 + 1 + 64);
    CHECK_EQ(b.data[0], 0);
    CHECK_EQ(b.data[65], 0x20);
    CHECK_EQ(b.data[98], 1);
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.kind, MERO_ADM_INIT_CHALLENGE_REQUEST);
    CHECK_MEM_EQ(d.ns, m.ns, 32);
    CHECK_MEM_EQ(d.party_id, m.party_id, 32);
    CHECK(d.has_pop);
    CHECK_MEM_EQ(d.pop, m.pop, 64);
    CHECK(prefixes_refused_init(&b));
    mero_buf_cleanup(&b);
}

TEST(offer_roundtrip_without_pop)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_CHALLENGE_OFFER);
    memset(m.party_id, 0, 32);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_EQ(b.data[65], 0x21);
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK(!d.has_pop);
    CHECK_MEM_EQ(d.challenge, m.challenge, 32);
    CHECK(prefixes_refused_init(&b));
    mero_buf_cleanup(&b);
}

/* Issue 18: the admitter's verdict on an offered claim, tag 0x25, no PoP, reason cleaned. */
TEST(verdict_roundtrip_without_pop)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_VERDICT);
    memset(m.party_id, 0, 32);
    m.has_pop = false;
    m.admitted = false;
    snprintf(m.reason, sizeof(m.reason), "%s", "mock attestation rejected by group policy");
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_EQ(b.data[65], 0x25);
    /* 1 + 32 + 32 + tag + ns + challenge + bool + u32 length + reason + Option */
    CHECK_EQ(b.len, 1 + 32 + 32 + 1 + 32 + 32 + 1 + 4 + strlen(m.reason) + 1);
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.kind, MERO_ADM_INIT_VERDICT);
    CHECK(!d.has_pop);
    CHECK(!d.admitted);
    CHECK_MEM_EQ(d.ns, m.ns, 32);
    CHECK_MEM_EQ(d.challenge, m.challenge, 32);
    CHECK_STR_EQ(d.reason, m.reason);
    CHECK(prefixes_refused_init(&b));
    b.data[65 + 1 + 64] = 2; /* not a bool */
    CHECK(mero__adm_init_decode(b.data, b.len, &d, NULL) < 0);
    mero_buf_cleanup(&b);
}

TEST(admission_request_roundtrip)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_ADMISSION_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_EQ(b.data[65], 0x22);
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.quote_len, sizeof(QUOTE));
    CHECK_MEM_EQ(d.quote, QUOTE, sizeof(QUOTE));
    CHECK_EQ(d.credential_len, sizeof(CRED));
    CHECK_MEM_EQ(d.credential, CRED, sizeof(CRED));
    CHECK_MEM_EQ(d.public_key, m.public_key, 32);
    CHECK_MEM_EQ(d.challenge, m.challenge, 32);
    CHECK(prefixes_refused_init(&b));
    mero_buf_cleanup(&b);
}

TEST(release_admission_request_names_the_release)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_EQ(b.data[65], 0x23);
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_STR_EQ(d.release, "2.3.72");
    CHECK(prefixes_refused_init(&b));
    mero_buf_cleanup(&b);
    /* a release that is not a release name is refused on both sides */
    memcpy(m.release, "2.3 72", 7);
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_ERR(mero__adm_init_encode(&b, &m), -MERO_EINVAL);
    mero_buf_cleanup(&b);
}

TEST(group_key_request_roundtrip)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_GROUP_KEY_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_MEM_EQ(d.group_id, m.group_id, 32);
    CHECK(prefixes_refused_init(&b));
    mero_buf_cleanup(&b);
}

TEST(request_without_pop_refused)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_CHALLENGE_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    m.has_pop = false;
    CHECK_ERR(mero__adm_init_encode(&b, &m), -MERO_EINVAL);
    m.has_pop = true;
    CHECK_OK(mero__adm_init_encode(&b, &m));
    /* strip the proof: Option None */
    b.len -= 64;
    b.data[b.len - 1] = 0;
    struct mero_err e = {0};
    CHECK_ERR(mero__adm_init_decode(b.data, b.len, &d, &e), -MERO_EPROTO);
    CHECK(strstr(e.msg, "proof") != NULL);
    b.data[b.len - 1] = 2; /* not an Option tag */
    CHECK_ERR(mero__adm_init_decode(b.data, b.len, &d, NULL), -MERO_EPROTO);
    mero_buf_cleanup(&b);
}

TEST(unknown_tags_refused)
{
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_CHALLENGE_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    b.data[65] = 0x7f;
    CHECK_ERR(mero__adm_init_decode(b.data, b.len, &d, NULL), -MERO_EPROTO);
    b.data[65] = 0x20;
    b.data[0] = 1; /* a Message where an Init is expected */
    CHECK_ERR(mero__adm_init_decode(b.data, b.len, &d, NULL), -MERO_EPROTO);
    struct mero_adm_msg mm;
    uint8_t msg[10] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f};
    CHECK_ERR(mero__adm_msg_decode(msg, sizeof(msg), &mm, NULL), -MERO_EPROTO);
    msg[0] = 0;
    CHECK_ERR(mero__adm_msg_decode(msg, sizeof(msg), &mm, NULL), -MERO_EPROTO);
    mero_buf_cleanup(&b);
}

TEST(oversized_fields_refused)
{
    static uint8_t big[MERO_ADM_MAX_QUOTE_WIRE + 1];
    struct mero_adm_init m, d;
    fill_request(&m, MERO_ADM_INIT_ADMISSION_REQUEST);
    struct mero_buf b;
    mero_buf_init(&b, 2 * MERO_ADM_MAX_FRAME);
    m.quote = big;
    m.quote_len = sizeof(big);
    CHECK_ERR(mero__adm_init_encode(&b, &m), -MERO_EINVAL);
    /* a 20 KiB quote decodes (verify_and_admit refuses it on its length, after the challenge) */
    m.quote_len = 20480;
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.quote_len, 20480);
    /* a length field claiming more than the maximum is refused before anything is read */
    mero_buf_reset(&b);
    fill_request(&m, MERO_ADM_INIT_ADMISSION_REQUEST);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    uint32_t huge = MERO_ADM_MAX_QUOTE_WIRE + 1;
    memcpy(b.data + 66 + 32, &huge, 4);
    CHECK_ERR(mero__adm_init_decode(b.data, b.len, &d, NULL), -MERO_ETOOBIG);
    mero_buf_cleanup(&b);
}

TEST(challenge_and_offer_reply_roundtrip)
{
    struct mero_adm_msg m, d;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_MSG_CHALLENGE;
    m.sequence_id = 7;
    memset(m.challenge, 0x99, 32);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_msg_encode(&b, &m));
    CHECK_EQ(b.len, 1 + 8 + 1 + 32);
    CHECK_EQ(b.data[0], 1);
    CHECK_EQ(b.data[1], 7);
    CHECK_EQ(b.data[9], 0x20);
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &d, NULL));
    CHECK_MEM_EQ(d.challenge, m.challenge, 32);
    CHECK(prefixes_refused_msg(&b));

    mero_buf_reset(&b);
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_MSG_OFFER_REPLY;
    m.offered = true;
    m.quote = QUOTE;
    m.quote_len = sizeof(QUOTE);
    memset(m.public_key, 0x12, 32);
    m.credential = CRED;
    m.credential_len = sizeof(CRED);
    m.has_release = true;
    memcpy(m.release, "2.3.87", 7);
    CHECK_OK(mero__adm_msg_encode(&b, &m));
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &d, NULL));
    CHECK(d.offered);
    CHECK_EQ(d.quote_len, sizeof(QUOTE));
    CHECK_MEM_EQ(d.public_key, m.public_key, 32);
    CHECK(d.has_release);
    CHECK_STR_EQ(d.release, "2.3.87");
    CHECK(prefixes_refused_msg(&b));

    /* None: "a node that is not waiting answers with nothing" */
    mero_buf_reset(&b);
    m.offered = false;
    CHECK_OK(mero__adm_msg_encode(&b, &m));
    CHECK_EQ(b.len, 11);
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &d, NULL));
    CHECK(!d.offered);
    mero_buf_cleanup(&b);
}

TEST(group_key_reply_roundtrip)
{
    uint8_t env[150] = {9};
    struct mero_adm_msg m, d;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_MSG_GROUP_KEY;
    m.envelope = env;
    m.envelope_len = sizeof(env);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_msg_encode(&b, &m));
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.envelope_len, sizeof(env));
    CHECK(prefixes_refused_msg(&b));
    mero_buf_cleanup(&b);
}

TEST(response_reason_cut_at_utf8_boundary)
{
    /* 255 ASCII bytes then a 3-byte character: the character does not fit and is dropped */
    char in[300];
    memset(in, 'x', 255);
    memcpy(in + 255, "\xe2\x82\xac tail", 8);
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_response_encode(&b, false, in));
    struct mero_adm_msg d;
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &d, NULL));
    CHECK(!d.admitted);
    CHECK_EQ(strlen(d.reason), 255);
    CHECK(prefixes_refused_msg(&b));
    /* a peer sending a long reason: cut on receipt to MAX_REASON_LEN */
    mero_buf_reset(&b);
    uint8_t raw[1 + 8 + 1 + 1 + 4 + 600];
    memset(raw, 0, sizeof(raw));
    raw[0] = 1;
    raw[9] = 0x21;
    raw[10] = 0;
    uint32_t n = 600;
    memcpy(raw + 11, &n, 4);
    memset(raw + 15, 'y', 600);
    CHECK_OK(mero__adm_msg_decode(raw, sizeof(raw), &d, NULL));
    CHECK_EQ(strlen(d.reason), MERO_ADM_MAX_REASON_LEN);
    /* and one past the wire maximum is refused */
    n = MERO_ADM_MAX_REASON_WIRE + 1;
    memcpy(raw + 11, &n, 4);
    CHECK_ERR(mero__adm_msg_decode(raw, sizeof(raw), &d, NULL), -MERO_ETOOBIG);
    raw[10] = 2; /* bool must be 0 or 1 */
    CHECK_FAILS(mero__adm_msg_decode(raw, sizeof(raw), &d, NULL));
    mero_buf_cleanup(&b);
}

TEST(reason_cleaned_of_bad_utf8_and_controls)
{
    char out[MERO_ADM_MAX_REASON_LEN + 1];
    mero__adm_reason_cut(out, "ok\n\x01\xff\xc0\xafz\xe2\x82", 10);
    CHECK_STR_EQ(out, "ok?????z??");
    mero__adm_reason_cut(out, "caf\xc3\xa9", 5);
    CHECK_STR_EQ(out, "caf\xc3\xa9");
    mero__adm_reason_cut(out, "\xed\xa0\x80", 3); /* a surrogate */
    CHECK_STR_EQ(out, "???");
    mero__adm_reason_cut(out, NULL, 4);
    CHECK_STR_EQ(out, "");
}

TEST(pop_binds_namespace_key_and_peer)
{
    uint8_t pk[32], sk[64], pk2[32], sk2[64], sig[64];
    mero_ed25519_keypair(pk, sk);
    mero_ed25519_keypair(pk2, sk2);
    uint8_t ns[32] = {7}, ns2[32] = {8};
    const uint8_t peer[] = {0x00, 0x24, 0x08, 0x01, 0x12, 0x20, 1, 2, 3};
    const uint8_t peer2[] = {0x00, 0x24, 0x08, 0x01, 0x12, 0x20, 1, 2, 4};
    CHECK_OK(mero__adm_pop_sign(sig, ns, pk, peer, sizeof(peer), sk));
    CHECK_OK(mero__adm_pop_verify(sig, ns, pk, peer, sizeof(peer)));
    CHECK_ERR(mero__adm_pop_verify(sig, ns, pk, peer2, sizeof(peer2)), -MERO_EBADSIG);
    CHECK_ERR(mero__adm_pop_verify(sig, ns2, pk, peer, sizeof(peer)), -MERO_EBADSIG);
    CHECK_ERR(mero__adm_pop_verify(sig, ns, pk2, peer, sizeof(peer)), -MERO_EBADSIG);
    /* the signed message is exactly domain || ns || party || peer */
    uint8_t msg[25 + 32 + 32 + sizeof(peer)];
    memcpy(msg, "calimero:sync:init-pop:v1", 25);
    memcpy(msg + 25, ns, 32);
    memcpy(msg + 57, pk, 32);
    memcpy(msg + 89, peer, sizeof(peer));
    CHECK_OK(mero_ed25519_verify(sig, msg, sizeof(msg), pk));
    CHECK_ERR(mero__adm_pop_verify(sig, ns, pk, peer, 0), -MERO_EINVAL);
}

TEST(ns_topic_built_and_parsed_by_one_pair)
{
    uint8_t ns[MERO_NS_ID_LEN], back[MERO_NS_ID_LEN];
    char topic[MERO_NS_TOPIC_SIZE], bad[MERO_NS_TOPIC_SIZE + 1];
    for (size_t i = 0; i < sizeof(ns); i++) {
        ns[i] = (uint8_t)(0xf0 + i);
    }
    CHECK_EQ(MERO_NS_TOPIC_SIZE, 68);
    mero__node_topic(topic, ns);
    CHECK_EQ(strlen(topic), MERO_NS_TOPIC_LEN);
    CHECK(strncmp(topic, "ns/f0f1f2", 9) == 0);
    CHECK_OK(mero__node_topic_ns(topic, back));
    CHECK_MEM_EQ(back, ns, sizeof(ns));
    /* either hex case */
    memcpy(bad, topic, sizeof(topic));
    bad[3] = 'F';
    CHECK_OK(mero__node_topic_ns(bad, back));
    CHECK_MEM_EQ(back, ns, sizeof(ns));
    /* not a namespace topic: wrong prefix, one digit short or long, not hex, NULL */
    memcpy(bad, topic, sizeof(topic));
    bad[0] = 'N';
    CHECK_ERR(mero__node_topic_ns(bad, back), -MERO_EINVAL);
    memcpy(bad, topic, sizeof(topic));
    bad[MERO_NS_TOPIC_LEN - 1] = '\0';
    CHECK_FAILS(mero__node_topic_ns(bad, back));
    memcpy(bad, topic, sizeof(topic));
    bad[MERO_NS_TOPIC_LEN] = '0';
    bad[MERO_NS_TOPIC_LEN + 1] = '\0';
    CHECK_FAILS(mero__node_topic_ns(bad, back));
    memcpy(bad, topic, sizeof(topic));
    bad[10] = 'g';
    CHECK_FAILS(mero__node_topic_ns(bad, back));
    CHECK_FAILS(mero__node_topic_ns(NULL, back));
    CHECK_FAILS(mero__node_topic_ns("ns/ab", back));
}

MERO_TEST_MAIN(T(prompt_is_one_tag_byte), T(challenge_request_golden_and_roundtrip),
               T(offer_roundtrip_without_pop), T(verdict_roundtrip_without_pop),
               T(admission_request_roundtrip), T(release_admission_request_names_the_release),
               T(group_key_request_roundtrip), T(request_without_pop_refused),
               T(unknown_tags_refused), T(oversized_fields_refused),
               T(challenge_and_offer_reply_roundtrip), T(group_key_reply_roundtrip),
               T(response_reason_cut_at_utf8_boundary), T(reason_cleaned_of_bad_utf8_and_controls),
               T(pop_binds_namespace_key_and_peer), T(ns_topic_built_and_parsed_by_one_pair))
