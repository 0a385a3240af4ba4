/* SPDX-License-Identifier: Apache-2.0 */
/* test_util.c - buffers, cursors, varints, hex, base64, borsh, errors, crypto wrappers. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "mero/borsh.h"
#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "harness.h"

TEST(buf_respects_max)
{
    struct mero_buf b;
    mero_buf_init(&b, 8);
    CHECK_OK(mero_buf_append(&b, "12345678", 8));
    CHECK_ERR(mero_buf_append_u8(&b, 1), -MERO_ETOOBIG);
    CHECK_EQ(b.len, 8);
    mero_buf_cleanup(&b);
    CHECK(b.data == NULL);
}

TEST(buf_consume_and_reset_wipe_what_they_drop)
{
    struct mero_buf b;
    mero_buf_init(&b, 64);
    CHECK_OK(mero_buf_append(&b, "abcdefgh", 8));
    mero_buf_consume(&b, 3);
    CHECK_EQ(b.len, 5);
    CHECK_MEM_EQ(b.data, "defgh", 5);
    /* the vacated tail holds nothing: cleanup wipes only [0, len) */
    static const uint8_t zero3[3];
    CHECK_MEM_EQ(b.data + 5, zero3, 3);
    mero_buf_consume(&b, 100); /* more than len: drops everything */
    CHECK_EQ(b.len, 0);
    CHECK_OK(mero_buf_append(&b, "secret", 6));
    uint8_t *p = b.data;
    mero_buf_reset(&b);
    CHECK_EQ(b.len, 0);
    static const uint8_t zero6[6];
    CHECK_MEM_EQ(p, zero6, 6); /* storage kept, contents wiped */
    mero_buf_cleanup(&b);
}

TEST(cursor_refuses_past_end)
{
    uint8_t d[5] = {1, 2, 3, 4, 5};
    struct mero_cur c;
    uint32_t v;
    uint16_t w;
    mero_cur_init(&c, d, sizeof(d));
    CHECK_OK(mero_cur_u32le(&c, &v));
    CHECK_EQ(v, 0x04030201);
    CHECK_ERR(mero_cur_u16le(&c, &w), -MERO_ETRUNC);
    CHECK_EQ(c.off, 4); /* unchanged by the failed read */
    const uint8_t *p;
    CHECK_ERR(mero_cur_bytes(&c, SIZE_MAX, &p), -MERO_ETRUNC);
}

TEST(varint_roundtrip_and_limits)
{
    static const uint64_t vals[] = {0, 1, 127, 128, 300, 16384, UINT32_MAX, UINT64_MAX};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        struct mero_buf b;
        mero_buf_init(&b, 16);
        CHECK_OK(mero_buf_append_uvarint(&b, vals[i]));
        struct mero_cur c;
        uint64_t got = 0;
        mero_cur_init(&c, b.data, b.len);
        CHECK_OK(mero_cur_uvarint(&c, &got));
        CHECK_U64_EQ(got, vals[i]);
        CHECK_EQ(c.off, b.len);
        mero_buf_cleanup(&b);
    }
    /* 300 is ac 02 (the protobuf spec's example) */
    uint8_t e[] = {0xac, 0x02};
    struct mero_cur c;
    uint64_t v;
    mero_cur_init(&c, e, 2);
    CHECK_OK(mero_cur_uvarint(&c, &v));
    CHECK_EQ(v, 300);
    uint8_t over[11];
    memset(over, 0xff, sizeof(over));
    mero_cur_init(&c, over, sizeof(over));
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_EOVERFLOW);
    uint8_t nonmin[] = {0x80, 0x00};
    mero_cur_init(&c, nonmin, 2);
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_EPROTO);
    uint8_t trunc[] = {0x80};
    mero_cur_init(&c, trunc, 1);
    CHECK_ERR(mero_cur_uvarint(&c, &v), -MERO_ETRUNC);
}

TEST(hex_strict)
{
    uint8_t out[4];
    size_t n;
    char s[9];
    CHECK_OK(mero_hex_decode(out, sizeof(out), "DEADbeef", 8, &n));
    CHECK_EQ(n, 4);
    mero_hex_encode(s, out, 4);
    CHECK_STR_EQ(s, "deadbeef");
    CHECK_ERR(mero_hex_decode(out, sizeof(out), "abc", 3, &n), -MERO_EHEX);
    CHECK_ERR(mero_hex_decode(out, sizeof(out), "zz", 2, &n), -MERO_EHEX);
    CHECK_ERR(mero_hex_decode(out, 2, "00112233", 8, &n), -MERO_ETOOBIG);
    CHECK_ERR(mero_hex_decode_exact(out, 4, "001122", 6), -MERO_EHEX);
}

TEST(base64_strict)
{
    char *s = mero_base64_encode((const uint8_t *)"hello", 5);
    CHECK(s != NULL);
    CHECK_STR_EQ(s, "aGVsbG8=");
    uint8_t *out = NULL;
    size_t n = 0;
    CHECK_OK(mero_base64_decode_alloc(s, strlen(s), 16, &out, &n));
    CHECK_EQ(n, 5);
    CHECK_MEM_EQ(out, "hello", 5);
    free(out);
    free(s);
    CHECK_ERR(mero_base64_decode_alloc("aGVsbG8", 7, 16, &out, &n), -MERO_EBASE64);
    CHECK_ERR(mero_base64_decode_alloc("aGV*bG8=", 8, 16, &out, &n), -MERO_EBASE64);
    CHECK_ERR(mero_base64_decode_alloc("aGVsbG8=", 8, 2, &out, &n), -MERO_ETOOBIG);
}

TEST(parse_u64_checks_everything)
{
    uint64_t v;
    CHECK_OK(mero_parse_u64("42", 100, &v));
    CHECK_EQ(v, 42);
    CHECK_FAILS(mero_parse_u64("101", 100, &v));
    CHECK_FAILS(mero_parse_u64("-1", 100, &v));
    CHECK_FAILS(mero_parse_u64("4x", 100, &v));
    CHECK_FAILS(mero_parse_u64("", 100, &v));
    CHECK_FAILS(mero_parse_u64("99999999999999999999999", UINT64_MAX, &v));
}

TEST(borsh_roundtrip_and_bounds)
{
    struct mero_buf b;
    mero_buf_init(&b, 256);
    CHECK_OK(mero_borsh_put_str(&b, "abc"));
    CHECK_OK(mero_borsh_put_bool(&b, true));
    CHECK_OK(mero_buf_append_u64le(&b, 7));
    struct mero_cur c;
    mero_cur_init(&c, b.data, b.len);
    char s[8];
    bool t;
    uint64_t u;
    CHECK_OK(mero_borsh_get_str(&c, s, sizeof(s)));
    CHECK_STR_EQ(s, "abc");
    CHECK_OK(mero_borsh_get_bool(&c, &t));
    CHECK(t);
    CHECK_OK(mero_cur_u64le(&c, &u));
    CHECK_EQ(u, 7);
    /* a string longer than the caller's maximum is refused without consuming */
    mero_cur_init(&c, b.data, b.len);
    char tiny[3];
    CHECK_ERR(mero_borsh_get_str(&c, tiny, sizeof(tiny)), -MERO_ETOOBIG);
    CHECK_EQ(c.off, 0);
    /* a bool of 2 is refused */
    uint8_t two = 2;
    mero_cur_init(&c, &two, 1);
    CHECK_ERR(mero_borsh_get_bool(&c, &t), -MERO_EOPDECODE);
    /* a length pointing past the end */
    uint8_t lie[] = {0xff, 0xff, 0xff, 0x0f, 'a'};
    const uint8_t *p;
    size_t n;
    mero_cur_init(&c, lie, sizeof(lie));
    CHECK_ERR(mero_borsh_get_bytes(&c, SIZE_MAX, &p, &n), -MERO_ETRUNC);
    mero_buf_cleanup(&b);
}

TEST(err_names_and_reasons)
{
    struct mero_err e;
    CHECK_STR_EQ(mero_strerror(-MERO_EBADSIG), "EBADSIG");
    CHECK_STR_EQ(mero_strerror(100000), "EUNKNOWN");
    CHECK_EQ(mero_err_set(&e, MERO_ETRUNC, "at %d", 5), -MERO_ETRUNC);
    CHECK_STR_EQ(e.msg, "at 5");
    CHECK_EQ(mero_err_set(NULL, MERO_EIO, NULL), -MERO_EIO);
}

TEST(hex_is_and_json_hex)
{
    CHECK(mero_hex_is("00aaBBff", 8, 4));
    CHECK(!mero_hex_is("00aaBBff", 8, 3));
    CHECK(!mero_hex_is("00aaBBfg", 8, 4));
    CHECK(!mero_hex_is("00aa BBf", 8, 4));
    CHECK(!mero_hex_is(NULL, 0, 0));
    const uint8_t b[3] = {0x01, 0xab, 0xff};
    json_t *j = mero_json_hex(b, sizeof(b));
    CHECK(j != NULL && json_is_string(j));
    CHECK_STR_EQ(json_string_value(j), "01abff");
    json_decref(j);
    j = mero_json_hex(b, 0);
    CHECK(j != NULL && json_string_length(j) == 0);
    json_decref(j);
}

/* mero_timegm against timegm(3) across leap years, centuries and the far past and future. */
TEST(timegm_matches_the_c_library)
{
    static const int years[] = {1601, 1899, 1900, 1969, 1970, 1999,
                                2000, 2024, 2038, 2100, 2400, 9999};
    for (size_t i = 0; i < sizeof(years) / sizeof(years[0]); i++) {
        for (int mon = 0; mon < 12; mon++) {
            for (int mday = 1; mday <= 28; mday += 9) {
                struct tm t = {.tm_year = years[i] - 1900,
                               .tm_mon = mon,
                               .tm_mday = mday,
                               .tm_hour = 23,
                               .tm_min = 59,
                               .tm_sec = 58};
                struct tm c = t;
                CHECK_MSG(mero_timegm(&t) == (int64_t)timegm(&c), "%d-%d-%d", years[i], mon + 1,
                          mday);
            }
        }
    }
    struct tm leap = {.tm_year = 2024 - 1900, .tm_mon = 1, .tm_mday = 29};
    CHECK(mero_timegm(&leap) == 1709164800);
    struct tm epoch = {.tm_year = 70, .tm_mon = 0, .tm_mday = 1};
    CHECK(mero_timegm(&epoch) == 0);
}

static int try_out_demo(int first, int second, struct mero_err *err, int *cleaned)
{
    int rc = 0;
    MERO_TRY_OUT(first);
    MERO_ENSURE_OUT(second > 0, err, MERO_EREFUSED, "second was %d", second);
out:
    *cleaned = 1;
    return rc;
}

static int try_demo(int first, int second, struct mero_err *err)
{
    MERO_TRY(first);
    MERO_ENSURE(second > 0, err, MERO_EINVAL, "second was %d", second);
    return 0;
}

/* The one error style (docs/errors.md): propagate, refuse with a reason, always clean up. */
TEST(error_macros_propagate_refuse_and_clean_up)
{
    struct mero_err e = {0};
    int cleaned = 0;
    CHECK_EQ(try_out_demo(0, 1, &e, &cleaned), 0);
    CHECK_EQ(cleaned, 1);
    cleaned = 0;
    CHECK_EQ(try_out_demo(-MERO_EIO, 1, &e, &cleaned), -MERO_EIO);
    CHECK_EQ(cleaned, 1);
    cleaned = 0;
    CHECK_EQ(try_out_demo(0, -2, &e, &cleaned), -MERO_EREFUSED);
    CHECK_EQ(cleaned, 1);
    CHECK_EQ(e.code, MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "second was -2");
    CHECK_EQ(try_demo(-MERO_ETRUNC, 1, &e), -MERO_ETRUNC);
    CHECK_EQ(try_demo(0, 0, NULL), -MERO_EINVAL);
    CHECK_EQ(try_demo(0, 1, NULL), 0);
}

TEST(sha_known_answers)
{
    uint8_t d[48];
    char h[97];
    mero_sha256(d, "abc", 3);
    mero_hex_encode(h, d, 32);
    CHECK_STR_EQ(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    mero_sha384(d, "abc", 3);
    mero_hex_encode(h, d, 48);
    CHECK_STR_EQ(h, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc"
                    "2358baeca134c825a7");
    uint8_t e[48];
    mero_sha384_2(e, "a", 1, "bc", 2);
    CHECK_MEM_EQ(d, e, 48);
    struct mero_sha256 st;
    mero_sha256_init(&st);
    mero_sha256_update(&st, "a", 1);
    mero_sha256_update(&st, "bc", 2);
    mero_sha256_final(&st, e);
    mero_sha256(d, "abc", 3);
    CHECK_MEM_EQ(d, e, 32);
}

TEST(hkdf_rfc5869_case1)
{
    uint8_t ikm[22], salt[13], info[10], okm[42];
    memset(ikm, 0x0b, sizeof(ikm));
    for (int i = 0; i < 13; i++) {
        salt[i] = (uint8_t)i;
    }
    for (int i = 0; i < 10; i++) {
        info[i] = (uint8_t)(0xf0 + i);
    }
    CHECK_OK(mero_hkdf_sha256(okm, sizeof(okm), salt, sizeof(salt), ikm, sizeof(ikm), info, 10));
    char h[85];
    mero_hex_encode(h, okm, 42);
    CHECK_STR_EQ(h,
                 "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b88718"
                 "5865");
}

TEST(ed25519_sign_verify)
{
    uint8_t pk[32], sk[64], sig[64];
    mero_ed25519_keypair(pk, sk);
    mero_ed25519_sign(sig, "msg", 3, sk);
    CHECK_OK(mero_ed25519_verify(sig, "msg", 3, pk));
    sig[0] ^= 1;
    CHECK_ERR(mero_ed25519_verify(sig, "msg", 3, pk), -MERO_EBADSIG);
}

TEST(x25519_refuses_small_order)
{
    uint8_t a_pk[32], a_sk[32], b_pk[32], b_sk[32], s1[32], s2[32], zero[32] = {0};
    mero_x25519_keypair(a_pk, a_sk);
    mero_x25519_keypair(b_pk, b_sk);
    CHECK_OK(mero_x25519(s1, a_sk, b_pk));
    CHECK_OK(mero_x25519(s2, b_sk, a_pk));
    CHECK_MEM_EQ(s1, s2, 32);
    CHECK_ERR(mero_x25519(s1, a_sk, zero), -MERO_ECRYPTO);
}

TEST(aead_roundtrip_and_tamper)
{
    uint8_t key[32], nonce[12], ct[5 + 16], pt[5];
    mero_random(key, sizeof(key));
    mero_random(nonce, sizeof(nonce));
    CHECK_OK(mero_aes256gcm_seal(ct, (const uint8_t *)"hello", 5, NULL, 0, nonce, key));
    CHECK_OK(mero_aes256gcm_open(pt, ct, sizeof(ct), NULL, 0, nonce, key));
    CHECK_MEM_EQ(pt, "hello", 5);
    ct[2] ^= 1;
    CHECK_ERR(mero_aes256gcm_open(pt, ct, sizeof(ct), NULL, 0, nonce, key), -MERO_ECRYPTO);
    CHECK_OK(mero_chacha_seal(ct, (const uint8_t *)"hello", 5, NULL, 0, nonce, key));
    CHECK_OK(mero_chacha_open(pt, ct, sizeof(ct), NULL, 0, nonce, key));
    CHECK_MEM_EQ(pt, "hello", 5);
    ct[20] ^= 1;
    CHECK_ERR(mero_chacha_open(pt, ct, sizeof(ct), NULL, 0, nonce, key), -MERO_ECRYPTO);
}

/* RFC 8439 §2.8.2: the keyed context against the RFC's vector, against libsodium on every
 * length up to a full Noise frame, in place, and a bad tag leaving no plaintext behind. */
TEST(chacha_key_rfc8439_and_differential)
{
    static const char m[] = "Ladies and Gentlemen of the class of '99: If I could offer you only "
                            "one tip for the future, sunscreen would be it.";
    static const char want_hex[] =
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69"
        "da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad67594"
        "5585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
        "1ae10b594f09e26a7e902ecbd0600691";
    uint8_t key[32], nonce[12] = {7, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47};
    uint8_t ad[12] = {0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7};
    uint8_t want[sizeof(m) - 1 + 16], ct[sizeof(want)], pt[sizeof(m)];
    struct mero_chacha_key *k = NULL;
    for (int i = 0; i < 32; i++) {
        key[i] = (uint8_t)(0x80 + i);
    }
    CHECK_OK(mero_hex_decode_exact(want, sizeof(want), want_hex, strlen(want_hex)));
    CHECK_OK(mero_chacha_key_new(key, &k));
    CHECK_OK(mero_chacha_key_seal(k, ct, (const uint8_t *)m, sizeof(m) - 1, ad, 12, nonce));
    CHECK_MEM_EQ(ct, want, sizeof(want));
    CHECK_OK(mero_chacha_key_open(k, pt, ct, sizeof(ct), ad, 12, nonce));
    CHECK_MEM_EQ(pt, m, sizeof(m) - 1);
    ct[0] ^= 1; /* a bad tag: refused, and the output wiped */
    memset(pt, 'x', sizeof(pt));
    CHECK_ERR(mero_chacha_key_open(k, pt, ct, sizeof(ct), ad, 12, nonce), -MERO_ECRYPTO);
    static const uint8_t zero[sizeof(m) - 1];
    CHECK_MEM_EQ(pt, zero, sizeof(zero));
    CHECK_ERR(mero_chacha_key_open(k, pt, ct, 15, NULL, 0, nonce), -MERO_ECRYPTO);
    mero_chacha_key_free(k);

    /* the same bytes as libsodium's one-shot call, for lengths 0..65519, with and without AD,
     * sealing and opening in place */
    static uint8_t in[65519], a[65519 + 16], b[65519 + 16];
    static const size_t lens[] = {0, 1, 15, 16, 17, 63, 64, 65, 255, 4096, 65519};
    mero_random(key, 32);
    mero_random(in, sizeof(in));
    CHECK_OK(mero_chacha_key_new(key, &k));
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t n = lens[i];
        size_t adl = i & 1 ? 12 : 0;
        nonce[4] = (uint8_t)i;
        CHECK_OK(mero_chacha_seal(a, in, n, ad, adl, nonce, key));
        memcpy(b, in, n);
        CHECK_OK(mero_chacha_key_seal(k, b, b, n, ad, adl, nonce));
        CHECK_MEM_EQ(a, b, n + 16);
        CHECK_OK(mero_chacha_key_open(k, b, b, n + 16, ad, adl, nonce));
        CHECK_MEM_EQ(b, in, n);
    }
    mero_chacha_key_free(k);
    mero_chacha_key_free(NULL);
}

TEST(buf_reserve_and_move)
{
    struct mero_buf a, b;
    mero_buf_init(&a, 16);
    mero_buf_init(&b, 4);
    CHECK_ERR(mero_buf_reserve(&a, 17), -MERO_ETOOBIG);
    CHECK_OK(mero_buf_reserve(&a, 16));
    CHECK(a.cap >= 16 && a.len == 0);
    memcpy(a.data, "abcdef", 6); /* a writer fills the tail, then advances len */
    a.len = 6;
    CHECK_ERR(mero_buf_move(&b, &a), -MERO_ETOOBIG); /* 6 bytes do not fit b's max of 4 */
    CHECK_EQ(a.len, 6);
    CHECK(b.data == NULL);
    b.max = 8;
    CHECK_OK(mero_buf_append(&b, "zz", 2));
    uint8_t *storage = a.data;
    CHECK_OK(mero_buf_move(&b, &a));
    CHECK(b.data == storage && b.len == 6 && b.max == 8);
    CHECK_MEM_EQ(b.data, "abcdef", 6);
    CHECK(a.data == NULL && a.len == 0 && a.cap == 0 && a.max == 16);
    mero_buf_cleanup(&a);
    mero_buf_cleanup(&b);
}

static void init_crypto(void)
{
    if (mero_crypto_init() < 0) {
        abort();
    }
}

TEST(crypto_init)
{
    init_crypto();
    CHECK(1);
}

MERO_TEST_MAIN(T(crypto_init), T(buf_respects_max), T(buf_consume_and_reset_wipe_what_they_drop),
               T(cursor_refuses_past_end), T(varint_roundtrip_and_limits), T(hex_strict),
               T(base64_strict), T(parse_u64_checks_everything), T(borsh_roundtrip_and_bounds),
               T(err_names_and_reasons), T(sha_known_answers), T(hkdf_rfc5869_case1),
               T(ed25519_sign_verify), T(x25519_refuses_small_order), T(aead_roundtrip_and_tamper),
               T(chacha_key_rfc8439_and_differential), T(buf_reserve_and_move),
               T(hex_is_and_json_hex), T(timegm_matches_the_c_library),
               T(error_macros_propagate_refuse_and_clean_up))
