/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_intent.c - the signed intent codec (mero/intent.h): the test vectors of docs/relay.md
 * byte for byte (and the doc carries the same hex, so code and doc cannot drift), every decode
 * refusal (truncation at every offset, oversize lengths, bad version and op, bad key, trailing
 * bytes, lifetime zero / negative / too long), a flipped bit anywhere is refused by decode or
 * by verify, sign -> encode -> decode -> verify round trips, the expiry window, the warrant,
 * and the client key file (0600, O_EXCL: never overwritten).
 * With MERO_WRITE_CORPUS=<dir> it also writes the vectors as fuzz seeds.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/identity.h"
#include "mero/intent.h"

/* ---- the vectors (docs/relay.md "Test vectors") ------------------------------------------- */

#define VEC_SEED    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define VEC_PK      "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
#define VEC_ISSUED  1767225600u /* 2026-01-01T00:00:00Z */
#define VEC_EXPIRES (VEC_ISSUED + 3600u)

struct vec {
    uint8_t op;
    uint8_t relay_byte; /* the relay field is 32 of these */
    const char *value;  /* NULL for the delete */
    const char *bytes, *sig, *id, *b64;
};

static const struct vec vecs[] = {
    {MERO_INTENT_PUT, 0x00, "hello, relay",
     "01111111111111111111111111111111111111111111111111111111111111111122222222222222222222222222"
     "2222222222222222222222222222222222222203a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc86"
     "64125531b80000000000000000000000000000000000000000000000000000000000000000a0a1a2a3a4a5a6a7a8"
     "a9aaabacadaeaf00b955690000000010c755690000000000080000006772656574696e670c00000068656c6c6f2c"
     "2072656c6179beb249e2b7260edf6f2cfc09921f76bbb1d5412b65985295f89d5e3dea268965281a2e0973f8e908"
     "aa19ef38f573882131e3cae6947ac262546cd12e1ad34f0a",
     "beb249e2b7260edf6f2cfc09921f76bbb1d5412b65985295f89d5e3dea268965281a2e0973f8e908aa19ef38f5738"
     "82131e3cae6947ac262546cd12e1ad34f0a",
     "8e8017b63598fa2ba6424c697dc1c66fdc43be4cad0308282b1853ee83bb2516",
     "ARERERERERERERERERERERERERERERERERERERERERERIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIDoQe/"
     "884Qvh1w3RjnS8CZZ+"
     "TWMJulDV8d3IZkElUxuAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAoKGio6SlpqeoqaqrrK2"
     "urwC5VWkAAAAAEMdVaQAAAAAACAAAAGdyZWV0aW5nDAAAAGhlbGxvLCByZWxheb6ySeK3Jg7fbyz8CZIfdrux1UErZZhS"
     "lf"
     "idXj3qJollKBouCXP46QiqGe849XOIITHjyuaUesJiVGzRLhrTTwo="},
    {MERO_INTENT_DELETE, 0x33, NULL,
     "01111111111111111111111111111111111111111111111111111111111111111122222222222222222222222222"
     "2222222222222222222222222222222222222203a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc86"
     "64125531b83333333333333333333333333333333333333333333333333333333333333333a0a1a2a3a4a5a6a7a8"
     "a9aaabacadaeaf00b955690000000010c755690000000001080000006772656574696e672b2857c3f2488cad92a5"
     "b0ea5b80cd1598a78d6bb7008987f76d31ac317efad62c4af6b9e382759008ae80b88a7c1110f53dd25828f187e5"
     "9ba6005ede5da20f",
     "2b2857c3f2488cad92a5b0ea5b80cd1598a78d6bb7008987f76d31ac317efad62c4af6b9e382759008ae80b88a7c1"
     "110f53dd25828f187e59ba6005ede5da20f",
     "f48ecaeb721eb0057e6e45af20ee125ceeb7f00dd53396cdd386304188c3662d",
     "ARERERERERERERERERERERERERERERERERERERERERERIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIDoQe/"
     "884Qvh1w3RjnS8CZZ+"
     "TWMJulDV8d3IZkElUxuDMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzoKGio6SlpqeoqaqrrK2"
     "urwC5VWkAAAAAEMdVaQAAAAABCAAAAGdyZWV0aW5nKyhXw/"
     "JIjK2SpbDqW4DNFZinjWu3AImH920xrDF++tYsSva544J1kA"
     "iugLiKfBEQ9T3SWCjxh+WbpgBe3l2iDw=="},
};
#define NVEC (sizeof(vecs) / sizeof(vecs[0]))

/* offsets of the format (docs/relay.md) */
enum {
    OFF_VERSION = 0,
    OFF_AUTHOR = 1 + MERO_NS_ID_LEN + MERO_CONTEXT_ID_LEN,
    OFF_ISSUED = OFF_AUTHOR + 2 * MERO_IDENTITY_LEN + MERO_INTENT_NONCE_LEN,
    OFF_EXPIRES = OFF_ISSUED + 8,
    OFF_OP = OFF_EXPIRES + 8,
    OFF_KEYLEN = OFF_OP + 1,
    OFF_KEY = OFF_KEYLEN + 4,
};

static void vec_key(uint8_t pk[MERO_ED25519_PK_LEN], uint8_t sk[MERO_ED25519_SK_LEN])
{
    uint8_t seed[MERO_ED25519_SEED_LEN];
    if (mero_hex_decode_exact(seed, sizeof(seed), VEC_SEED, strlen(VEC_SEED)) < 0) {
        abort();
    }
    mero_ed25519_from_seed(pk, sk, seed);
}

/* The intent a vector describes, unsigned. */
static void vec_intent(const struct vec *v, struct mero_intent *it)
{
    memset(it, 0, sizeof(*it));
    it->version = MERO_INTENT_VERSION;
    memset(it->ns, 0x11, sizeof(it->ns));
    memset(it->context, 0x22, sizeof(it->context));
    memset(it->relay, v->relay_byte, sizeof(it->relay));
    for (size_t i = 0; i < sizeof(it->nonce); i++) {
        it->nonce[i] = (uint8_t)(0xa0 + i);
    }
    it->issued_at = VEC_ISSUED;
    it->expires_at = VEC_EXPIRES;
    it->op = v->op;
    memcpy(it->key, "greeting", sizeof("greeting"));
    it->key_len = strlen(it->key);
    if (v->value != NULL) {
        it->value = (const uint8_t *)v->value;
        it->value_len = strlen(v->value);
    }
}

static uint8_t *vec_bytes(const struct vec *v, size_t *n)
{
    uint8_t *p = NULL;
    if (mero_hex_decode_alloc(v->bytes, strlen(v->bytes), MERO_INTENT_MAX_LEN, &p, n) < 0) {
        abort();
    }
    return p;
}

static bool hex_eq(const uint8_t *p, size_t n, const char *hex)
{
    char *h = malloc(MERO_HEX_SIZE(n));
    if (h == NULL) {
        return false;
    }
    mero_hex_encode(h, p, n);
    bool eq = strcmp(h, hex) == 0;
    free(h);
    return eq;
}

/* ---- tests -------------------------------------------------------------------------------- */

TEST(vectors_byte_for_byte)
{
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN], id[MERO_INTENT_ID_LEN];
    vec_key(pk, sk);
    CHECK(hex_eq(pk, sizeof(pk), VEC_PK));
    for (size_t i = 0; i < NVEC; i++) {
        struct mero_intent it, d;
        struct mero_buf b;
        vec_intent(&vecs[i], &it);
        CHECK_OK(mero_intent_sign(&it, sk));
        CHECK_MEM_EQ(it.author, pk, sizeof(pk));
        CHECK(hex_eq(it.signature, sizeof(it.signature), vecs[i].sig));
        CHECK_OK(mero_intent_id(&it, id));
        CHECK(hex_eq(id, sizeof(id), vecs[i].id));
        mero_buf_init(&b, MERO_INTENT_MAX_LEN);
        CHECK_OK(mero_intent_encode(&it, &b));
        bool same = hex_eq(b.data, b.len, vecs[i].bytes);
        char *b64 = mero_base64_encode(b.data, b.len);
        bool same64 = b64 != NULL && strcmp(b64, vecs[i].b64) == 0;
        struct mero_err e = {0};
        int rc = mero_intent_decode(b.data, b.len, &d, &e);
        int vrc = rc == 0 ? mero_intent_verify(&d, &e) : rc;
        bool fields = rc == 0 && d.op == it.op && d.issued_at == it.issued_at &&
                      d.expires_at == it.expires_at && strcmp(d.key, it.key) == 0 &&
                      d.value_len == it.value_len &&
                      (d.value_len == 0 || memcmp(d.value, it.value, d.value_len) == 0) &&
                      memcmp(d.relay, it.relay, sizeof(d.relay)) == 0 &&
                      memcmp(d.nonce, it.nonce, sizeof(d.nonce)) == 0;
        free(b64);
        mero_buf_cleanup(&b);
        CHECK(same);
        CHECK(same64);
        CHECK_OK(rc);
        CHECK_OK(vrc);
        CHECK(fields);
    }
}

/* The doc's vectors are the test's: every hex and base64 string above appears in
 * docs/relay.md (whitespace ignored, so the doc may wrap them). */
TEST(doc_carries_the_same_vectors)
{
    const char *root = getenv("MERO_ROOT");
    char path[4096];
    snprintf(path, sizeof(path), "%s/docs/relay.md", root != NULL ? root : ".");
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    static char doc[1 << 17];
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) != EOF && n + 1 < sizeof(doc)) {
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            doc[n++] = (char)c;
        }
    }
    doc[n] = '\0';
    fclose(f);
    CHECK(strstr(doc, VEC_SEED) != NULL);
    CHECK(strstr(doc, VEC_PK) != NULL);
    for (size_t i = 0; i < NVEC; i++) {
        CHECK_MSG(strstr(doc, vecs[i].bytes) != NULL, "vector %zu bytes not in the doc", i);
        CHECK_MSG(strstr(doc, vecs[i].sig) != NULL, "vector %zu signature not in the doc", i);
        CHECK_MSG(strstr(doc, vecs[i].id) != NULL, "vector %zu id not in the doc", i);
        CHECK_MSG(strstr(doc, vecs[i].b64) != NULL, "vector %zu base64 not in the doc", i);
    }
    CHECK(strstr(doc, MERO_INTENT_SIGN_DOMAIN) != NULL);
}

TEST(truncation_at_every_offset_refused)
{
    for (size_t i = 0; i < NVEC; i++) {
        size_t n;
        uint8_t *p = vec_bytes(&vecs[i], &n);
        struct mero_intent d;
        for (size_t cut = 0; cut < n; cut++) {
            int rc = mero_intent_decode(p, cut, &d, NULL);
            if (rc != -MERO_ETRUNC) {
                free(p);
                CHECK_MSG(false, "vector %zu cut at %zu: %s", i, cut, mero_strerror(rc));
            }
        }
        free(p);
    }
}

TEST(trailing_bytes_refused)
{
    size_t n;
    uint8_t *p = vec_bytes(&vecs[0], &n);
    uint8_t *q = realloc(p, n + 1);
    CHECK(q != NULL);
    q[n] = 0;
    struct mero_intent d;
    struct mero_err e = {0};
    int rc = mero_intent_decode(q, n + 1, &d, &e);
    int whole = mero_intent_decode(q, n, &d, NULL);
    free(q);
    CHECK_ERR(rc, -MERO_EINVAL);
    CHECK(strstr(e.msg, "trailing") != NULL);
    CHECK_OK(whole);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static int decode_patched(const struct vec *v, size_t off, const uint8_t *patch, size_t plen)
{
    size_t n;
    uint8_t *p = vec_bytes(v, &n);
    memcpy(p + off, patch, plen);
    struct mero_intent d;
    int rc = mero_intent_decode(p, n, &d, NULL);
    free(p);
    return rc;
}

TEST(oversize_lengths_refused)
{
    uint8_t l[4];
    put_u32(l, MERO_INTENT_MAX_KEY_LEN + 1);
    CHECK_ERR(decode_patched(&vecs[0], OFF_KEYLEN, l, 4), -MERO_ETOOBIG);
    put_u32(l, UINT32_MAX);
    CHECK_ERR(decode_patched(&vecs[0], OFF_KEYLEN, l, 4), -MERO_ETOOBIG);
    put_u32(l, MERO_INTENT_MAX_KEY_LEN); /* under the cap, past the end */
    CHECK_ERR(decode_patched(&vecs[1], OFF_KEYLEN, l, 4), -MERO_ETRUNC);
    size_t off_vlen = OFF_KEY + strlen("greeting");
    put_u32(l, MERO_INTENT_MAX_VALUE_LEN + 1);
    CHECK_ERR(decode_patched(&vecs[0], off_vlen, l, 4), -MERO_ETOOBIG);
    put_u32(l, UINT32_MAX);
    CHECK_ERR(decode_patched(&vecs[0], off_vlen, l, 4), -MERO_ETOOBIG);
    put_u32(l, MERO_INTENT_MAX_VALUE_LEN);
    CHECK_ERR(decode_patched(&vecs[0], off_vlen, l, 4), -MERO_ETRUNC);

    /* the largest intent round-trips; one more byte of value is refused by encode */
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    vec_key(pk, sk);
    struct mero_intent it, d;
    struct mero_buf b;
    static uint8_t value[MERO_INTENT_MAX_VALUE_LEN + 1];
    memset(value, 'v', sizeof(value));
    vec_intent(&vecs[0], &it);
    memset(it.key, 'k', MERO_INTENT_MAX_KEY_LEN);
    it.key[MERO_INTENT_MAX_KEY_LEN] = '\0';
    it.key_len = MERO_INTENT_MAX_KEY_LEN;
    it.value = value;
    it.value_len = MERO_INTENT_MAX_VALUE_LEN;
    CHECK_OK(mero_intent_sign(&it, sk));
    mero_buf_init(&b, MERO_INTENT_MAX_LEN);
    int rc = mero_intent_encode(&it, &b);
    size_t len = b.len;
    int drc = rc == 0 ? mero_intent_decode(b.data, b.len, &d, NULL) : rc;
    int vrc = drc == 0 ? mero_intent_verify(&d, NULL) : drc;
    mero_buf_cleanup(&b);
    CHECK_OK(rc);
    CHECK_EQ(len, MERO_INTENT_MAX_LEN);
    CHECK_OK(drc);
    CHECK_OK(vrc);
    it.value_len++;
    mero_buf_init(&b, MERO_INTENT_MAX_LEN * 2);
    rc = mero_intent_encode(&it, &b);
    mero_buf_cleanup(&b);
    CHECK_ERR(rc, -MERO_ETOOBIG);
    CHECK_ERR(mero_intent_sign(&it, sk), -MERO_ETOOBIG);
    it.value_len--;
    it.key_len++;
    it.key[MERO_INTENT_MAX_KEY_LEN] = 'k';
    CHECK_ERR(mero_intent_check(&it, NULL), -MERO_ETOOBIG);
}

TEST(bad_version_and_op_refused)
{
    static const uint8_t versions[] = {0, 2, 0x7f, 0xff};
    for (size_t i = 0; i < sizeof(versions); i++) {
        CHECK_ERR(decode_patched(&vecs[0], OFF_VERSION, &versions[i], 1), -MERO_EUNSUPPORTED);
    }
    static const uint8_t ops[] = {2, 3, 0xff};
    for (size_t i = 0; i < sizeof(ops); i++) {
        CHECK_ERR(decode_patched(&vecs[0], OFF_OP, &ops[i], 1), -MERO_EINVAL);
    }
    /* a delete turned into a put reads the signature as a value: refused either way */
    uint8_t put = MERO_INTENT_PUT;
    CHECK_FAILS(decode_patched(&vecs[1], OFF_OP, &put, 1));
    /* a put turned into a delete has trailing bytes */
    uint8_t del = MERO_INTENT_DELETE;
    CHECK_ERR(decode_patched(&vecs[0], OFF_OP, &del, 1), -MERO_EINVAL);
    /* a delete never carries a value (encode side) */
    struct mero_intent it;
    vec_intent(&vecs[1], &it);
    it.value = (const uint8_t *)"x";
    it.value_len = 1;
    CHECK_ERR(mero_intent_check(&it, NULL), -MERO_EINVAL);
}

TEST(bad_key_refused)
{
    static const uint8_t bad[] = {'/', ' ', 0, 0x80, '"', '\n'};
    for (size_t i = 0; i < sizeof(bad); i++) {
        CHECK_ERR(decode_patched(&vecs[0], OFF_KEY + 3, &bad[i], 1), -MERO_EINVAL);
    }
    CHECK_OK(decode_patched(&vecs[0], OFF_KEY + 3, (const uint8_t *)":", 1));
    /* an empty key: length 0, then the remaining key bytes become trailing garbage */
    uint8_t l[4];
    put_u32(l, 0);
    CHECK_ERR(decode_patched(&vecs[1], OFF_KEYLEN, l, 4), -MERO_EINVAL);
    CHECK(!mero_intent_key_ok("", 0));
    CHECK(mero_intent_key_ok("a.b_c:d-E9", 10));
}

TEST(lifetime_zero_negative_or_too_long_refused)
{
    uint8_t t[8];
    put_u64(t, VEC_ISSUED);
    CHECK_ERR(decode_patched(&vecs[0], OFF_EXPIRES, t, 8), -MERO_EINVAL); /* zero */
    put_u64(t, VEC_ISSUED - 1);
    CHECK_ERR(decode_patched(&vecs[0], OFF_EXPIRES, t, 8), -MERO_EINVAL); /* negative */
    put_u64(t, VEC_ISSUED + MERO_INTENT_MAX_LIFETIME_SECS + 1);
    CHECK_ERR(decode_patched(&vecs[0], OFF_EXPIRES, t, 8), -MERO_EINVAL); /* too long */
    put_u64(t, VEC_ISSUED + MERO_INTENT_MAX_LIFETIME_SECS);
    CHECK_OK(decode_patched(&vecs[0], OFF_EXPIRES, t, 8)); /* the longest */
    put_u64(t, UINT64_MAX);
    CHECK_ERR(decode_patched(&vecs[0], OFF_EXPIRES, t, 8), -MERO_EINVAL);
    put_u64(t, 0);
    CHECK_ERR(decode_patched(&vecs[0], OFF_EXPIRES, t, 8), -MERO_EINVAL);
}

/* Flip each bit of the put vector: decode refuses or the signature no longer verifies. */
TEST(every_bit_is_covered_by_the_signature)
{
    for (size_t v = 0; v < NVEC; v++) {
        size_t n;
        uint8_t *p = vec_bytes(&vecs[v], &n);
        for (size_t i = 0; i < n * 8; i++) {
            p[i / 8] ^= (uint8_t)(1u << (i % 8));
            struct mero_intent d;
            int rc = mero_intent_decode(p, n, &d, NULL);
            if (rc == 0) {
                rc = mero_intent_verify(&d, NULL);
                if (rc != -MERO_EBADSIG) {
                    free(p);
                    CHECK_MSG(false, "vector %zu bit %zu: verify gave %s", v, i, mero_strerror(rc));
                }
            }
            p[i / 8] ^= (uint8_t)(1u << (i % 8));
        }
        free(p);
    }
}

TEST(forgeries_refused)
{
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    uint8_t pk2[MERO_ED25519_PK_LEN], sk2[MERO_ED25519_SK_LEN];
    vec_key(pk, sk);
    mero_ed25519_keypair(pk2, sk2);
    struct mero_intent it;
    struct mero_err e = {0};
    /* signed by another key, claiming the vector's author */
    vec_intent(&vecs[0], &it);
    CHECK_OK(mero_intent_sign(&it, sk2));
    memcpy(it.author, pk, sizeof(pk));
    CHECK_ERR(mero_intent_verify(&it, &e), -MERO_EBADSIG);
    CHECK(strstr(e.msg, "signature") != NULL);
    /* a relay re-pointing the warrant, the context, the nonce or the value */
    const struct {
        size_t off, n;
    } regions[] = {
        {offsetof(struct mero_intent, ns), MERO_NS_ID_LEN},
        {offsetof(struct mero_intent, context), MERO_CONTEXT_ID_LEN},
        {offsetof(struct mero_intent, relay), MERO_IDENTITY_LEN},
        {offsetof(struct mero_intent, nonce), MERO_INTENT_NONCE_LEN},
    };
    for (size_t r = 0; r < sizeof(regions) / sizeof(regions[0]); r++) {
        vec_intent(&vecs[0], &it);
        CHECK_OK(mero_intent_sign(&it, sk));
        CHECK_OK(mero_intent_verify(&it, NULL));
        ((uint8_t *)&it)[regions[r].off + regions[r].n - 1] ^= 1;
        CHECK_ERR(mero_intent_verify(&it, NULL), -MERO_EBADSIG);
    }
    vec_intent(&vecs[0], &it);
    CHECK_OK(mero_intent_sign(&it, sk));
    it.value = (const uint8_t *)"hello, relaY";
    CHECK_ERR(mero_intent_verify(&it, NULL), -MERO_EBADSIG);
    vec_intent(&vecs[0], &it);
    CHECK_OK(mero_intent_sign(&it, sk));
    it.expires_at++;
    CHECK_ERR(mero_intent_verify(&it, NULL), -MERO_EBADSIG);
    vec_intent(&vecs[0], &it);
    CHECK_OK(mero_intent_sign(&it, sk));
    it.key[0] = 'G';
    CHECK_ERR(mero_intent_verify(&it, NULL), -MERO_EBADSIG);
    /* the same body signed without the domain, or under an op's domain, does not verify */
    static const char *const domains[] = {"", "calimero.namespace.v1", "mero.relay.intent.v2"};
    size_t dlen = strlen(MERO_INTENT_SIGN_DOMAIN);
    for (size_t k = 0; k < sizeof(domains) / sizeof(domains[0]); k++) {
        struct mero_buf b, m;
        vec_intent(&vecs[0], &it);
        memcpy(it.author, pk, sizeof(pk));
        mero_buf_init(&b, MERO_INTENT_MAX_LEN + 64);
        mero_buf_init(&m, MERO_INTENT_MAX_LEN + 64);
        int rc = mero_intent_signed_bytes(&it, &b);
        if (rc == 0) {
            rc = mero_buf_append_str(&m, domains[k]);
        }
        if (rc == 0) {
            rc = mero_buf_append(&m, b.data + dlen, b.len - dlen);
        }
        if (rc == 0) {
            mero_ed25519_sign(it.signature, m.data, m.len, sk);
        }
        mero_buf_cleanup(&b);
        mero_buf_cleanup(&m);
        CHECK_OK(rc);
        CHECK_ERR(mero_intent_verify(&it, NULL), -MERO_EBADSIG);
    }
}

TEST(sign_encode_decode_verify_round_trip)
{
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    for (int k = 0; k < 20; k++) {
        mero_ed25519_keypair(pk, sk);
        struct mero_intent it, d;
        uint8_t value[64], id1[MERO_INTENT_ID_LEN], id2[MERO_INTENT_ID_LEN];
        mero_random(value, sizeof(value));
        memset(&it, 0, sizeof(it));
        it.version = MERO_INTENT_VERSION;
        mero_random(it.ns, sizeof(it.ns));
        mero_random(it.context, sizeof(it.context));
        mero_random(it.nonce, sizeof(it.nonce));
        if (k % 3 == 0) {
            mero_random(it.relay, sizeof(it.relay));
        }
        it.issued_at = 1000000u + (uint64_t)k;
        it.expires_at = it.issued_at + 1 + (uint64_t)k * 100;
        it.op = (uint8_t)(k % 2);
        it.key_len = (size_t)snprintf(it.key, sizeof(it.key), "key-%d", k);
        if (it.op == MERO_INTENT_PUT) {
            it.value = value;
            it.value_len = (size_t)k * 3 % sizeof(value); /* 0 included */
            if (it.value_len == 0) {
                it.value = NULL;
            }
        }
        CHECK_OK(mero_intent_sign(&it, sk));
        CHECK_MEM_EQ(it.author, pk, sizeof(pk));
        struct mero_buf b, b2;
        mero_buf_init(&b, MERO_INTENT_MAX_LEN);
        mero_buf_init(&b2, MERO_INTENT_MAX_LEN);
        int rc = mero_intent_encode(&it, &b);
        int drc = rc == 0 ? mero_intent_decode(b.data, b.len, &d, NULL) : rc;
        int vrc = drc == 0 ? mero_intent_verify(&d, NULL) : drc;
        int erc = vrc == 0 ? mero_intent_encode(&d, &b2) : vrc;
        bool same = erc == 0 && b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0;
        int irc = mero_intent_id(&it, id1);
        int irc2 = drc == 0 ? mero_intent_id(&d, id2) : drc;
        mero_buf_cleanup(&b);
        mero_buf_cleanup(&b2);
        CHECK_OK(rc);
        CHECK_OK(drc);
        CHECK_OK(vrc);
        CHECK_OK(erc);
        CHECK(same);
        CHECK_OK(irc);
        CHECK_OK(irc2);
        CHECK_MEM_EQ(id1, id2, sizeof(id1));
    }
}

TEST(expiry_window)
{
    struct mero_intent it;
    struct mero_err e = {0};
    vec_intent(&vecs[0], &it);
    CHECK_OK(mero_intent_live_at(&it, VEC_ISSUED, NULL));
    CHECK_OK(mero_intent_live_at(&it, VEC_EXPIRES - 1, NULL));
    CHECK_ERR(mero_intent_live_at(&it, VEC_EXPIRES, &e), -MERO_EEXPIRED);
    CHECK(strstr(e.msg, "expired") != NULL);
    CHECK_ERR(mero_intent_live_at(&it, UINT64_MAX, NULL), -MERO_EEXPIRED);
    CHECK_OK(mero_intent_live_at(&it, VEC_ISSUED - MERO_INTENT_MAX_SKEW_SECS, NULL));
    CHECK_ERR(mero_intent_live_at(&it, VEC_ISSUED - MERO_INTENT_MAX_SKEW_SECS - 1, NULL),
              -MERO_EEXPIRED);
    CHECK_ERR(mero_intent_live_at(&it, 0, NULL), -MERO_EEXPIRED);
}

TEST(warrant)
{
    struct mero_intent it;
    uint8_t r1[MERO_IDENTITY_LEN], r2[MERO_IDENTITY_LEN];
    memset(r1, 0x33, sizeof(r1));
    memset(r2, 0x44, sizeof(r2));
    vec_intent(&vecs[0], &it); /* relay all zero: any RelayTee */
    CHECK(mero_intent_warrant_allows(&it, r1));
    CHECK(mero_intent_warrant_allows(&it, r2));
    vec_intent(&vecs[1], &it); /* relay 0x33.. only */
    CHECK(mero_intent_warrant_allows(&it, r1));
    CHECK(!mero_intent_warrant_allows(&it, r2));
}

/* meroctl key generate's file: 0600, never overwriting, read back by mero_keyfile_load. */
TEST(client_key_file_created_once)
{
    char dir[] = "/tmp/mero-intent-key.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], link_path[256];
    snprintf(path, sizeof(path), "%s/client.key", dir);
    snprintf(link_path, sizeof(link_path), "%s/link.key", dir);
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN], sk2[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(pk, sk);
    struct mero_err e = {0};
    int rc = mero_keyfile_create(path, sk, &e);
    struct stat st;
    int mode = stat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
    int lrc = mero_keyfile_load(path, sk2, NULL);
    bool same = lrc == 0 && memcmp(sk, sk2, sizeof(sk)) == 0;
    uint8_t other[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(pk, other);
    int again = mero_keyfile_create(path, other, &e); /* refused: the file exists */
    int lrc2 = mero_keyfile_load(path, sk2, NULL);
    bool kept = lrc2 == 0 && memcmp(sk, sk2, sizeof(sk)) == 0;
    int sym = symlink(path, link_path);
    int via_link = mero_keyfile_create(link_path, other, NULL); /* never through a link */
    unlink(link_path);
    unlink(path);
    rmdir(dir);
    CHECK_OK(rc);
    CHECK_EQ(mode, 0600);
    CHECK_OK(lrc);
    CHECK(same);
    CHECK_ERR(again, -MERO_EEXIST);
    CHECK(strstr(e.msg, "never overwritten") != NULL);
    CHECK(kept);
    CHECK_EQ(sym, 0);
    CHECK_ERR(via_link, -MERO_EEXIST);
}

/* MERO_WRITE_CORPUS=<dir>: the vectors as fuzz seeds (tests/fuzz/corpus/intent). */
TEST(write_corpus_when_asked)
{
    const char *dir = getenv("MERO_WRITE_CORPUS");
    if (dir == NULL) {
        CHECK(true);
        return;
    }
    for (size_t i = 0; i < NVEC; i++) {
        size_t n;
        uint8_t *p = vec_bytes(&vecs[i], &n);
        char path[4096];
        snprintf(path, sizeof(path), "%s/vector-%zu", dir, i);
        FILE *f = fopen(path, "wb");
        bool ok = f != NULL && fwrite(p, 1, n, f) == n;
        if (f != NULL) {
            ok = fclose(f) == 0 && ok;
        }
        free(p);
        CHECK(ok);
    }
}

MERO_TEST_MAIN(T(vectors_byte_for_byte), T(doc_carries_the_same_vectors),
               T(truncation_at_every_offset_refused), T(trailing_bytes_refused),
               T(oversize_lengths_refused), T(bad_version_and_op_refused), T(bad_key_refused),
               T(lifetime_zero_negative_or_too_long_refused),
               T(every_bit_is_covered_by_the_signature), T(forgeries_refused),
               T(sign_encode_decode_verify_round_trip), T(expiry_window), T(warrant),
               T(client_key_file_created_once), T(write_corpus_when_asked))
