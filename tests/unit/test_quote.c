/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_quote.c - TDX quote parsing and PCK facts against every real quote in
 * ../shared/testdata/tdx (each case's expected.json, read with jansson), refusal of the SGX
 * quote, and negative tests: truncation at every offset, each bad field giving its own code.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "mero/encoding.h"
#include "mero/quote.h"
#include "harness.h"

#define MAX_CASES 32

struct qcase {
    char dir[320]; /* relative to the shared folder */
};

static size_t list_cases(struct qcase *out, size_t max)
{
    static const char *const roots[] = {"testdata/tdx", "testdata/tdx/parse-only"};
    size_t n = 0;
    for (size_t r = 0; r < 2; r++) {
        char full[1024];
        snprintf(full, sizeof(full), "%s/%s", mero_test_shared(), roots[r]);
        DIR *d = opendir(full);
        if (d == NULL) {
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < max) {
            if (e->d_name[0] == '.' || strcmp(e->d_name, "parse-only") == 0) {
                continue;
            }
            char probe[1400];
            snprintf(probe, sizeof(probe), "%s/%s/quote.bin", full, e->d_name);
            FILE *f = fopen(probe, "rb");
            if (f == NULL) {
                continue;
            }
            fclose(f);
            snprintf(out[n].dir, sizeof(out[n].dir), "%.60s/%.200s", roots[r], e->d_name);
            n++;
        }
        closedir(d);
    }
    return n;
}

static uint8_t *read_case(const char *dir, const char *file, size_t *len)
{
    char p[512];
    snprintf(p, sizeof(p), "%.300s/%.100s", dir, file);
    return mero_test_read(p, 1, len);
}

static void hex_of(char *out, const uint8_t *p, size_t n)
{
    mero_hex_encode(out, p, n);
}

static void ymd(char out[11], int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "(missing)";
}

static int check_case(const char *dir, char *why, size_t whylen)
{
    size_t qlen = 0, jlen = 0;
    uint8_t *qb = read_case(dir, "quote.bin", &qlen);
    uint8_t *jb = read_case(dir, "expected.json", &jlen);
    json_t *root = NULL;
    int ok = 0;
    struct mero_quote q;
    struct mero_pck_info pi;
    struct mero_err err = {0};
    char hex[256], d1[11], d2[11], valid[32];
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(why, whylen, __VA_ARGS__);                                                        \
        goto out;                                                                                  \
    } while (0)
    if (qb == NULL || jb == NULL) {
        FAIL("%.120s: cannot read files", dir);
    }
    root = json_loadb((const char *)jb, jlen, 0, NULL);
    json_t *ex = json_object_get(root, "quote");
    if (ex == NULL) {
        FAIL("%.120s: expected.json has no quote", dir);
    }
    if (mero_quote_parse(&q, qb, qlen, &err) != 0) {
        FAIL("%.120s: parse failed: %s", dir, err.msg);
    }
    if (q.version != json_integer_value(json_object_get(ex, "version"))) {
        FAIL("%.120s: version %u", dir, q.version);
    }
    if (q.total_len != (size_t)json_integer_value(json_object_get(ex, "total_len"))) {
        FAIL("%.120s: total_len %zu", dir, q.total_len);
    }
    if (qlen != (size_t)json_integer_value(json_object_get(ex, "file_len"))) {
        FAIL("%.120s: file_len %zu", dir, qlen);
    }
    json_t *bt = json_object_get(ex, "body_type");
    if (json_is_integer(bt) ? q.body_type != json_integer_value(bt) : q.body_type != 2) {
        FAIL("%.120s: body_type %u", dir, q.body_type);
    }
    hex_of(hex, q.body.tee_tcb_svn, 16);
    if (strcmp(hex, jstr(ex, "tee_tcb_svn")) != 0) {
        FAIL("%.120s: tee_tcb_svn %s", dir, hex);
    }
    json_t *svn2 = json_object_get(ex, "tee_tcb_svn2");
    if (json_is_string(svn2)) {
        hex_of(hex, q.body.tee_tcb_svn2, 16);
        if (!q.body.td15 || strcmp(hex, json_string_value(svn2)) != 0) {
            FAIL("%.120s: tee_tcb_svn2 %s", dir, hex);
        }
    } else if (q.body.td15) {
        FAIL("%.120s: unexpected TD 1.5 body", dir);
    }
    hex_of(hex, q.body.td_attributes, 8);
    if (strcmp(hex, jstr(ex, "td_attributes")) != 0) {
        FAIL("%.120s: td_attributes %s", dir, hex);
    }
    if (q.qe_report.isvsvn != json_integer_value(json_object_get(ex, "qe_isvsvn"))) {
        FAIL("%.120s: qe isvsvn %u", dir, q.qe_report.isvsvn);
    }
    if (q.signed_len != (q.version == 4 ? 632u : (q.body.td15 ? 702u : 638u))) {
        FAIL("%.120s: signed_len %zu", dir, q.signed_len);
    }
    if (q.cert_type != 6 || q.inner_cert_type != 5 || q.qe_auth_len != 32) {
        FAIL("%.120s: cert types %u/%u auth %zu", dir, q.cert_type, q.inner_cert_type,
             q.qe_auth_len);
    }
    if (mero_quote_pck_info(&q, &pi, &err) != 0) {
        FAIL("%.120s: pck_info failed: %s", dir, err.msg);
    }
    hex_of(hex, pi.fmspc, 6);
    if (strcmp(hex, jstr(ex, "fmspc")) != 0) {
        FAIL("%.120s: fmspc %s", dir, hex);
    }
    hex_of(hex, pi.pceid, 2);
    if (strcmp(hex, jstr(ex, "pceid")) != 0) {
        FAIL("%.120s: pceid %s", dir, hex);
    }
    if (strcmp(pi.issuer_cn, jstr(ex, "pck_issuer")) != 0) {
        FAIL("%.120s: issuer %s", dir, pi.issuer_cn);
    }
    ymd(d1, pi.not_before);
    ymd(d2, pi.not_after);
    snprintf(valid, sizeof(valid), "%s..%s", d1, d2);
    if (strcmp(valid, jstr(ex, "pck_valid")) != 0) {
        FAIL("%.120s: pck_valid %s", dir, valid);
    }
    if (pi.pcesvn != json_integer_value(json_object_get(ex, "pck_pcesvn"))) {
        FAIL("%.120s: pcesvn %u", dir, pi.pcesvn);
    }
    json_t *comps = json_object_get(ex, "pck_cpusvn_comps");
    if (json_array_size(comps) != 16) {
        FAIL("%.120s: expected.json lacks 16 cpusvn comps", dir);
    }
    for (size_t i = 0; i < 16; i++) {
        if (pi.cpusvn[i] != json_integer_value(json_array_get(comps, i))) {
            FAIL("%.120s: cpusvn comp %zu = %u", dir, i, pi.cpusvn[i]);
        }
    }
    ok = 1;
#undef FAIL
out:
    json_decref(root);
    free(qb);
    free(jb);
    return ok;
}

TEST(every_real_quote_parses_with_expected_fields)
{
    struct qcase cases[MAX_CASES];
    size_t n = list_cases(cases, MAX_CASES);
    CHECK_MSG(n >= 13, "found only %zu quote cases under %s", n, mero_test_shared());
    size_t v5 = 0;
    for (size_t i = 0; i < n; i++) {
        char why[400];
        CHECK_MSG(check_case(cases[i].dir, why, sizeof(why)), "%s", why);
        v5 += strstr(cases[i].dir, "dcapqvl-2") || strstr(cases[i].dir, "v5") ||
              strstr(cases[i].dir, "gotdxguest-2");
    }
    CHECK(v5 >= 3);
}

/* Load a case (the caller frees); parses it once so offsets can be taken from the result. */
static uint8_t *load(const char *dir, size_t *len, struct mero_quote *q)
{
    uint8_t *p = read_case(dir, "quote.bin", len);
    if (p == NULL || mero_quote_parse(q, p, *len, NULL) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

TEST(sgx_quote_is_refused)
{
    size_t len;
    uint8_t *p = mero_test_read("testdata/sgx/dcapqvl-1/quote.bin", 1, &len);
    CHECK(p != NULL);
    struct mero_quote q;
    struct mero_err err = {0};
    int rc = mero_quote_parse(&q, p, len, &err);
    free(p);
    CHECK_ERR(rc, -MERO_EQUOTE_SGX);
    CHECK_EQ(err.code, MERO_EQUOTE_SGX);
    CHECK(strstr(err.msg, "SGX") != NULL);
    CHECK(strstr(err.msg, "TDX") != NULL);
}

static void truncation_case(const char *dir)
{
    size_t len;
    struct mero_quote q;
    uint8_t *p = load(dir, &len, &q);
    CHECK(p != NULL);
    size_t sig_len_end = q.signed_len + 4;
    for (size_t cut = 0; cut < q.total_len; cut++) {
        uint8_t *c = malloc(cut ? cut : 1); /* exact-size copy so ASan sees any overread */
        CHECK(c != NULL);
        memcpy(c, p, cut);
        struct mero_err err = {0};
        struct mero_quote t;
        int rc = mero_quote_parse(&t, c, cut, &err);
        free(c);
        int want = cut < sig_len_end ? -MERO_ETRUNC : -MERO_EOVERFLOW;
        if (rc != want || strstr(err.msg, "offset") == NULL) {
            free(p);
            CHECK_MSG(0, "%s cut at %zu: got %s (%s)", dir, cut, mero_strerror(rc), err.msg);
        }
    }
    free(p);
}

TEST(truncation_at_every_offset_v4)
{
    truncation_case("testdata/tdx/dcapqvl-1");
}

TEST(truncation_at_every_offset_v5)
{
    truncation_case("testdata/tdx/dcapqvl-2");
}

TEST(padding_is_ignored)
{
    size_t len;
    struct mero_quote q, t;
    uint8_t *p = load("testdata/tdx/dcapqvl-1", &len, &q);
    CHECK(p != NULL);
    CHECK(len > q.total_len);
    memset(p + q.total_len, 0xa5, len - q.total_len);
    int rc = mero_quote_parse(&t, p, len, NULL);
    int rc2 = mero_quote_parse(&t, p, q.total_len, NULL); /* and no padding at all */
    free(p);
    CHECK_OK(rc);
    CHECK_OK(rc2);
    CHECK_EQ(t.total_len, q.total_len);
}

/* One mutation of a real quote and the code it must give. */
enum field {
    F_VERSION,
    F_VERSION3,
    F_TEE,
    F_KEYTYPE,
    F_V5_SIZE,
    F_V5_TYPE1,
    F_CERTTYPE,
    F_CERTSIZE_BIG,
    F_CERTSIZE_SMALL,
    F_INNERTYPE,
    F_INNERSIZE_BIG,
    F_INNERSIZE_SMALL,
    F_SIGLEN_PAST,
    F_SIGLEN_SLACK,
    F_SIGLEN_TINY,
    F_AUTH_PAST,
};

static int mutate(const char *dir, enum field f, struct mero_err *err)
{
    size_t len;
    struct mero_quote q;
    uint8_t *p = load(dir, &len, &q);
    if (p == NULL) {
        return 1; /* not a negative code: the caller's CHECK_ERR fails */
    }
    size_t sl = q.signed_len;      /* sig_data_len */
    size_t ct = sl + 4 + 128;      /* cert type, then u32 size */
    size_t au = ct + 6 + 384 + 64; /* auth size */
    size_t in = au + 2 + q.qe_auth_len;
    switch (f) {
    case F_VERSION:
        put16(p, 6);
        break;
    case F_VERSION3:
        put16(p, 3);
        break;
    case F_TEE:
        put32(p + 4, 0x80);
        break;
    case F_KEYTYPE:
        put16(p + 2, 3);
        break;
    case F_V5_SIZE:
        put32(p + 50, get32(p + 50) + 1);
        break;
    case F_V5_TYPE1:
        put16(p + 48, 1);
        break;
    case F_CERTTYPE:
        put16(p + ct, 5);
        break;
    case F_CERTSIZE_BIG:
        put32(p + ct + 2, get32(p + ct + 2) + 1);
        break;
    case F_CERTSIZE_SMALL:
        put32(p + ct + 2, get32(p + ct + 2) - 1);
        break;
    case F_INNERTYPE:
        put16(p + in, 4);
        break;
    case F_INNERSIZE_BIG:
        put32(p + in + 2, get32(p + in + 2) + 1);
        break;
    case F_INNERSIZE_SMALL:
        put32(p + in + 2, get32(p + in + 2) - 1);
        break;
    case F_SIGLEN_PAST:
        put32(p + sl, 0xfffffff0u);
        break;
    case F_SIGLEN_SLACK:
        put32(p + sl, get32(p + sl) + 1); /* still inside the padded file */
        break;
    case F_SIGLEN_TINY:
        put32(p + sl, 100);
        break;
    case F_AUTH_PAST:
        put16(p + au, 0xfff0);
        break;
    default:
        break;
    }
    struct mero_quote t;
    int rc = mero_quote_parse(&t, p, len, err);
    free(p);
    return rc;
}

#define V4 "testdata/tdx/dcapqvl-1"
#define V5 "testdata/tdx/dcapqvl-2"

TEST(bad_fields_give_distinct_codes)
{
    static const struct {
        const char *dir;
        enum field f;
        int code;
        const char *needle; /* the message names the field */
    } t[] = {
        {V4, F_VERSION, MERO_EQUOTE_VERSION, "version"},
        {V4, F_VERSION3, MERO_EQUOTE_SGX, "SGX"},
        {V4, F_TEE, MERO_EQUOTE_TEE, "tee_type"},
        {V4, F_KEYTYPE, MERO_EQUOTE_KEYTYPE, "key type"},
        {V5, F_V5_SIZE, MERO_EQUOTE_BODY, "body size"},
        {V5, F_V5_TYPE1, MERO_EQUOTE_BODY, "body type"},
        {V4, F_CERTTYPE, MERO_EQUOTE_CERTTYPE, "certification data type"},
        {V5, F_CERTTYPE, MERO_EQUOTE_CERTTYPE, "certification data type"},
        {V4, F_CERTSIZE_BIG, MERO_EOVERFLOW, "certification data size"},
        {V4, F_CERTSIZE_SMALL, MERO_EQUOTE_LENGTH, "certification data size"},
        {V4, F_INNERTYPE, MERO_EQUOTE_PCKCHAIN, "inner certification data type"},
        {V5, F_INNERTYPE, MERO_EQUOTE_PCKCHAIN, "inner certification data type"},
        {V4, F_INNERSIZE_BIG, MERO_EOVERFLOW, "inner certification data size"},
        {V4, F_INNERSIZE_SMALL, MERO_EQUOTE_LENGTH, "inner certification data size"},
        {V4, F_SIGLEN_PAST, MERO_EOVERFLOW, "sig_data_len"},
        {V5, F_SIGLEN_PAST, MERO_EOVERFLOW, "sig_data_len"},
        {V4, F_SIGLEN_SLACK, MERO_EQUOTE_LENGTH, "certification data size"},
        {V4, F_SIGLEN_TINY, MERO_ETRUNC, "attestation key"},
        {V4, F_AUTH_PAST, MERO_EQUOTE_AUTHDATA, "auth data"},
        {V5, F_AUTH_PAST, MERO_EQUOTE_AUTHDATA, "auth data"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct mero_err err = {0};
        int rc = mutate(t[i].dir, t[i].f, &err);
        CHECK_MSG(rc == -t[i].code, "case %zu: want %s, got %s (%s)", i, mero_strerror(t[i].code),
                  mero_strerror(rc), err.msg);
        CHECK_EQ(err.code, t[i].code);
        CHECK_MSG(strstr(err.msg, t[i].needle) != NULL, "case %zu: message \"%s\" lacks \"%s\"", i,
                  err.msg, t[i].needle);
        CHECK_MSG(strstr(err.msg, "offset") != NULL, "case %zu: no offset in \"%s\"", i, err.msg);
    }
}

TEST(oversized_quote_is_refused)
{
    size_t len;
    struct mero_quote q;
    uint8_t *p = load(V4, &len, &q);
    CHECK(p != NULL);
    size_t big = MERO_MAX_TEE_QUOTE_BYTES + 4096;
    uint8_t *b = calloc(1, big);
    CHECK(b != NULL);
    memcpy(b, p, q.total_len);
    free(p);
    put32(b + q.signed_len, (uint32_t)(MERO_MAX_TEE_QUOTE_BYTES - q.signed_len)); /* 4 over */
    struct mero_err err = {0};
    struct mero_quote t;
    int rc = mero_quote_parse(&t, b, big, &err);
    free(b);
    CHECK_ERR(rc, -MERO_ETOOBIG);
    CHECK(strstr(err.msg, "max") != NULL);
}

/* No real v5 quote has a TD 1.0 body: build one from a v4 quote by inserting the descriptor. */
TEST(v5_td10_body_parses)
{
    size_t len;
    struct mero_quote q4, q5;
    uint8_t *p = load(V4, &len, &q4);
    CHECK(p != NULL);
    uint8_t *v5 = malloc(q4.total_len + 6);
    CHECK(v5 != NULL);
    memcpy(v5, p, 48);
    put16(v5, 5);
    put16(v5 + 48, 2);
    put32(v5 + 50, MERO_TD10_BODY_LEN);
    memcpy(v5 + 54, p + 48, q4.total_len - 48);
    int rc = mero_quote_parse(&q5, v5, q4.total_len + 6, NULL);
    put32(v5 + 50, MERO_TD15_BODY_LEN); /* type 2 with the TD 1.5 size */
    struct mero_quote t;
    int rc2 = mero_quote_parse(&t, v5, q4.total_len + 6, NULL);
    /* the chains are borrowed from the buffers: compare before freeing them */
    int same_chain = rc == 0 && q5.pck_chain_len == q4.pck_chain_len &&
                     memcmp(q5.pck_chain, q4.pck_chain, q4.pck_chain_len) == 0;
    free(v5);
    free(p);
    CHECK_OK(rc);
    CHECK_EQ(q5.version, 5);
    CHECK_EQ(q5.body_type, 2);
    CHECK(!q5.body.td15);
    CHECK_EQ(q5.signed_len, 638);
    CHECK_EQ(q5.total_len, q4.total_len + 6);
    CHECK_MEM_EQ(q5.body.mrtd, q4.body.mrtd, 48);
    CHECK(same_chain);
    CHECK_ERR(rc2, -MERO_EQUOTE_BODY);
}

TEST(null_and_empty_input)
{
    struct mero_quote q;
    CHECK_ERR(mero_quote_parse(&q, NULL, 10, NULL), -MERO_EINVAL);
    CHECK_ERR(mero_quote_parse(NULL, (const uint8_t *)"x", 1, NULL), -MERO_EINVAL);
    CHECK_ERR(mero_quote_parse(&q, (const uint8_t *)"", 0, NULL), -MERO_ETRUNC);
}

TEST(output_untouched_on_failure)
{
    size_t len;
    struct mero_quote q;
    uint8_t *p = load(V4, &len, &q);
    CHECK(p != NULL);
    struct mero_quote t;
    memset(&t, 0x5a, sizeof(t));
    int rc = mero_quote_parse(&t, p, 1000, NULL);
    free(p);
    CHECK_ERR(rc, -MERO_EOVERFLOW);
    CHECK_EQ(t.version, 0x5a5a);
}

TEST(pck_info_refuses_bad_chain)
{
    size_t len;
    struct mero_quote q;
    uint8_t *p = load(V4, &len, &q);
    CHECK(p != NULL);
    struct mero_pck_info pi;
    struct mero_err err = {0};
    /* the chain is borrowed from p: corrupt its first PEM line */
    uint8_t *chain = p + (q.pck_chain - p);
    CHECK(memcmp(chain, "-----BEGIN", 10) == 0);
    chain[5] = 'X';
    chain[6] = 'X';
    int rc = mero_quote_parse(&q, p, len, NULL);
    int rc2 = rc == 0 ? mero_quote_pck_info(&q, &pi, &err) : rc;
    struct mero_quote empty;
    memset(&empty, 0, sizeof(empty));
    int rc3 = mero_quote_pck_info(&empty, &pi, NULL);
    free(p);
    CHECK_OK(rc); /* structure is fine; the certificate is not */
    CHECK_ERR(rc2, -MERO_EQUOTE_PCKCHAIN);
    CHECK(strstr(err.msg, "PEM") != NULL);
    CHECK_ERR(rc3, -MERO_EQUOTE_PCKCHAIN);
}

MERO_TEST_MAIN(T(every_real_quote_parses_with_expected_fields), T(sgx_quote_is_refused),
               T(truncation_at_every_offset_v4), T(truncation_at_every_offset_v5),
               T(padding_is_ignored), T(bad_fields_give_distinct_codes),
               T(oversized_quote_is_refused), T(v5_td10_body_parses), T(null_and_empty_input),
               T(output_untouched_on_failure), T(pck_info_refuses_bad_chain))
