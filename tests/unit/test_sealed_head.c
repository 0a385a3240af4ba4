/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sealed_head.c - the sealed exchange's two JSON heads (src/api/sealed_head.c) held to
 * jansson, their reference: the answer's head written by hand is json_dumps(JSON_COMPACT)'s
 * bytes for every status and content type (those needing escapes go to jansson), and the
 * inner request's head read by the fast path gives jansson's verdict and jansson's strings, for
 * well-formed heads and for a hundred thousand mutations of them (a fixed seed, so a
 * failure repeats).
 */
#include <limits.h>
#include <string.h>

#include "api/sealed_internal.h"
#include "harness.h"

static const char *const HEADS[] = {
    "{\"method\":\"GET\",\"path\":\"/admin-api/identity\",\"headers\":[[\"authorization\","
    "\"Bearer 2b67d18bb0d407d6801b3cc2daa0cfb71bd7d03e2c030d08ed98daac939f854b\"]]}",
    "{\"method\":\"POST\",\"path\":\"/jsonrpc\",\"headers\":[[\"content-type\",\"application/"
    "json\"]]}",
    " { \"headers\" : [ ] , \"path\" : \"/a?b=c&d=%20\" , \"method\" : \"PUT\" } \n",
    "{\"path\":\"/x\",\"method\":\"DELETE\",\"headers\":[[\"X-A\",\"1\"],[\"Authorization\","
    "\"Bearer t\"],[\"accept\",\"*/*\"]]}",
    "{\"method\":\"GET\",\"path\":\"/\"}",
};

/* mutations: JSON's own characters, escapes, controls, non-ASCII, NUL */
static const char ALPHABET[] = "{}[]\":, \t\n\r\\/aAmp0-\x01\x1f\x7f\xc3\xa9u";

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next(void)
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng >> 33);
}

/* The fast reading and jansson's agree on buf[0..n): verdict, strings, Authorization. */
static int agree(const uint8_t *buf, size_t n, int *fast_took)
{
    static uint8_t a[1024], b[1024];
    struct sealed_head fa, ja;
    memcpy(a, buf, n);
    memcpy(b, buf, n);
    int rf = mero__sealed_head_parse(a, n, true, &fa);
    int rj = mero__sealed_head_parse(b, n, false, &ja);
    int same = rf == rj;
    if (same && rf == 0) {
        same = strcmp(fa.method, ja.method) == 0 && strcmp(fa.path, ja.path) == 0 &&
               (fa.auth == NULL) == (ja.auth == NULL) && fa.alen == ja.alen &&
               (fa.auth == NULL || memcmp(fa.auth, ja.auth, fa.alen + 1) == 0);
        *fast_took += fa.root == NULL;
    }
    mero__sealed_head_cleanup(&fa);
    mero__sealed_head_cleanup(&ja);
    return same;
}

TEST(the_fast_reading_takes_the_common_heads)
{
    int fast = 0;
    for (size_t i = 0; i < sizeof(HEADS) / sizeof(HEADS[0]); i++) {
        CHECK_MSG(agree((const uint8_t *)HEADS[i], strlen(HEADS[i]), &fast), "head %zu", i);
    }
    CHECK_EQ(fast, (int)(sizeof(HEADS) / sizeof(HEADS[0])));
    /* what the fast reading returns, exactly */
    uint8_t buf[512];
    struct sealed_head h;
    memcpy(buf, HEADS[3], strlen(HEADS[3]));
    CHECK_OK(mero__sealed_head_parse(buf, strlen(HEADS[3]), true, &h));
    CHECK(h.root == NULL);
    CHECK_STR_EQ(h.method, "DELETE");
    CHECK_STR_EQ(h.path, "/x");
    CHECK_STR_EQ(h.auth, "Bearer t");
    CHECK_EQ(h.alen, strlen("Bearer t"));
    mero__sealed_head_cleanup(&h);
}

TEST(refusals_are_jansson_s)
{
    static const char *const bad[] = {
        "{\"method\":\"GET\",\"path\":\"/a\",\"method\":\"GET\"}", /* duplicate */
        "{\"method\":\"GET\",\"path\":\"a\"}",                     /* not absolute */
        "{\"method\":\"GET\",\"path\":\"\"}",
        "{\"method\":\"GET\"}",
        "{\"method\":\"GET\",\"path\":\"/a\",\"extra\":1}",
        "{\"method\":\"GET\",\"path\":\"/a\",\"headers\":[[\"authorization\",\"a\"],"
        "[\"AUTHORIZATION\",\"b\"]]}", /* two tokens */
        "{\"method\":\"GET\",\"path\":\"/a\",\"headers\":[[\"a\",\"b\",\"c\"]]}",
        "{\"method\":\"GET\",\"path\":\"/a\",\"headers\":[[\"a\",1]]}",
        "{\"method\":\"GET\",\"path\":\"/a\",}",
        "{\"method\":\"GET\",\"path\":\"/a\"} x",
        "{\"method\":\"GET\",\"path\":\"/a\"",
        "[\"method\",\"GET\"]",
        "",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t buf[256];
        struct sealed_head h;
        size_t n = strlen(bad[i]);
        memcpy(buf, bad[i], n);
        CHECK_MSG(mero__sealed_head_parse(buf, n, true, &h) == -MERO_EJSON, "bad %zu", i);
        CHECK(h.method == NULL && h.path == NULL && h.auth == NULL);
        mero__sealed_head_cleanup(&h);
    }
    /* escapes are jansson's to decode: the same head, read the slow way */
    const char *esc =
        "{\"m\\u0065thod\":\"GET\",\"path\":\"/a\\/b\",\"headers\":[[\"authorization\","
        "\"Bearer \\u0074\"]]}";
    uint8_t buf[256];
    struct sealed_head h;
    memcpy(buf, esc, strlen(esc));
    CHECK_OK(mero__sealed_head_parse(buf, strlen(esc), true, &h));
    CHECK(h.root != NULL);
    CHECK_STR_EQ(h.path, "/a/b");
    CHECK_STR_EQ(h.auth, "Bearer t");
    mero__sealed_head_cleanup(&h);
}

TEST(mutated_heads_get_jansson_s_verdict)
{
    uint8_t buf[512];
    int fast = 0, accepted = 0;
    for (int i = 0; i < 100000; i++) {
        const char *base = HEADS[next() % (sizeof(HEADS) / sizeof(HEADS[0]))];
        size_t n = strlen(base);
        memcpy(buf, base, n);
        for (uint32_t m = 0, k = 1 + next() % 3; m < k; m++) {
            size_t at = next() % (n + 1);
            uint8_t c = (uint8_t)ALPHABET[next() % (sizeof(ALPHABET) - 1)];
            switch (next() % 3) {
            case 0: /* replace */
                if (at < n) {
                    buf[at] = c;
                }
                break;
            case 1: /* insert */
                if (n + 1 < sizeof(buf)) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = c;
                    n++;
                }
                break;
            default: /* delete */
                if (at < n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
            }
        }
        int before = fast;
        CHECK_MSG(agree(buf, n, &fast), "mutation %d: %.*s", i, (int)n, (const char *)buf);
        accepted += fast > before;
    }
    printf("# %d of 100000 mutated heads were read the fast way, all as jansson reads them\n",
           accepted);
    CHECK(accepted > 1000); /* the comparison is not empty */
}

TEST(the_answer_head_is_jansson_s_bytes)
{
    static const int statuses[] = {200, 201, 204, 301, 400, 401, 404, 405,     413,    500,
                                   503, 0,   -1,  7,   10,  99,  100, INT_MAX, INT_MIN};
    static const char *const ctypes[] = {
        "application/json",
        "text/html; charset=utf-8",
        "application/octet-stream",
        "text/plain",
        "a\"b",
        "a\\b",
        "tab\there",
        "caf\xc3\xa9",
        "",
        "x-y+z/w; q=0.5, */*",
    };
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        for (size_t j = 0; j < sizeof(ctypes) / sizeof(ctypes[0]); j++) {
            char *fast = mero__sealed_answer_head(statuses[i], ctypes[j], true);
            char *ref = mero__sealed_answer_head(statuses[i], ctypes[j], false);
            CHECK(fast != NULL && ref != NULL);
            CHECK_MSG(strcmp(fast, ref) == 0, "%s vs %s", fast, ref);
            free(fast);
            free(ref);
        }
    }
    char *h = mero__sealed_answer_head(200, "application/json", true);
    CHECK_STR_EQ(h, "{\"status\":200,\"headers\":[[\"content-type\",\"application/json\"],"
                    "[\"cache-control\",\"no-store\"],[\"x-content-type-options\",\"nosniff\"]]}");
    free(h);
}

MERO_TEST_MAIN(T(the_fast_reading_takes_the_common_heads), T(refusals_are_jansson_s),
               T(mutated_heads_get_jansson_s_verdict), T(the_answer_head_is_jansson_s_bytes))
