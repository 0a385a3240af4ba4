/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mock.c - MOCK_TDX_QUOTE_V1 (reference-calimero.md §1.3): exact bytes, detection,
 * verification flags and errors, the JSON form, and that the real parser refuses a mock.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "harness.h"

static void fill(uint8_t *p, size_t n, uint8_t v)
{
    memset(p, v, n);
}

TEST(mock_bytes_exact)
{
    uint8_t rd[64], q[MERO_MOCK_QUOTE_LEN];
    for (int i = 0; i < 64; i++) {
        rd[i] = (uint8_t)(i + 1);
    }
    mero_mock_quote_create(q, rd);
    char hdr[35];
    mero_hex_encode(hdr, q, 17);
    CHECK_STR_EQ(hdr, "4d4f434b5f5444585f51554f54455f5631");
    CHECK_MEM_EQ(q + 17, rd, 64);
    for (size_t i = 81; i < sizeof(q); i++) {
        CHECK_EQ(q[i], 0);
    }
    CHECK(mero_mock_is_mock(q, sizeof(q)));
    CHECK(mero_mock_is_mock(q, 17));
    CHECK(!mero_mock_is_mock(q, 16));
    CHECK(!mero_mock_is_mock(NULL, 0));
    q[16] = '2';
    CHECK(!mero_mock_is_mock(q, sizeof(q)));
}

TEST(mock_verify_flags)
{
    uint8_t nonce[32], app[32], other[32], rd[64], q[MERO_MOCK_QUOTE_LEN];
    fill(nonce, 32, 0x11);
    fill(app, 32, 0x22);
    fill(other, 32, 0x33);
    memcpy(rd, nonce, 32);
    memcpy(rd + 32, app, 32);
    mero_mock_quote_create(q, rd);
    struct mero_mock_result r;
    CHECK_OK(mero_mock_verify(q, sizeof(q), nonce, app, &r, NULL));
    CHECK(r.quote_verified && r.nonce_verified && r.application_hash_verified);
    CHECK_STR_EQ(r.tcb_status, "Mock");
    CHECK_MEM_EQ(r.report_data, rd, 64);
    CHECK_OK(mero_mock_verify(q, sizeof(q), other, app, &r, NULL));
    CHECK(r.quote_verified && !r.nonce_verified && r.application_hash_verified);
    CHECK_OK(mero_mock_verify(q, sizeof(q), nonce, other, &r, NULL));
    CHECK(r.quote_verified && r.nonce_verified && !r.application_hash_verified);
    /* exactly 81 bytes is enough */
    CHECK_OK(mero_mock_verify(q, 81, nonce, app, &r, NULL));
    CHECK(r.nonce_verified && r.application_hash_verified);
}

TEST(mock_verify_errors)
{
    uint8_t nonce[32] = {0}, app[32] = {0}, rd[64] = {0}, q[MERO_MOCK_QUOTE_LEN];
    mero_mock_quote_create(q, rd);
    struct mero_mock_result r;
    memset(&r, 0x7e, sizeof(r));
    struct mero_err err = {0};
    CHECK_ERR(mero_mock_verify(q, 80, nonce, app, &r, &err), -MERO_ETRUNC);
    CHECK_STR_EQ(err.msg, "Mock quote too short to contain report data");
    CHECK_EQ(r.report_data[0], 0x7e); /* untouched */
    CHECK_ERR(mero_mock_verify(q, 16, nonce, app, &r, &err), -MERO_EQUOTE_MOCK);
    CHECK_STR_EQ(err.msg, "Not a valid mock quote - missing MOCK_TDX_QUOTE_V1 header");
    q[0] = 'm';
    CHECK_ERR(mero_mock_verify(q, sizeof(q), nonce, app, &r, &err), -MERO_EQUOTE_MOCK);
    uint8_t *big = calloc(1, MERO_MAX_TEE_QUOTE_BYTES + 1);
    CHECK(big != NULL);
    mero_mock_quote_create(big, rd);
    int rc = mero_mock_verify(big, MERO_MAX_TEE_QUOTE_BYTES + 1, nonce, app, &r, NULL);
    free(big);
    CHECK_ERR(rc, -MERO_ETOOBIG);
    CHECK_ERR(mero_mock_verify(q, sizeof(q), nonce, app, NULL, NULL), -MERO_EINVAL);
}

TEST(real_parser_refuses_mock)
{
    uint8_t rd[64] = {0}, q[MERO_MOCK_QUOTE_LEN];
    mero_mock_quote_create(q, rd);
    struct mero_quote pq;
    /* "MO" = version 0x4f4d: not a TDX quote, whatever follows */
    CHECK_ERR(mero_quote_parse(&pq, q, sizeof(q), NULL), -MERO_EQUOTE_VERSION);
}

static const char *js(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int zeros_hex(json_t *o, const char *k, size_t nchars)
{
    const char *s = json_string_value(json_object_get(o, k));
    if (s == NULL || strlen(s) != nchars) {
        return 0;
    }
    for (size_t i = 0; i < nchars; i++) {
        if (s[i] != '0') {
            return 0;
        }
    }
    return 1;
}

TEST(mock_json_form)
{
    uint8_t rd[64], q[MERO_MOCK_QUOTE_LEN];
    for (int i = 0; i < 64; i++) {
        rd[i] = (uint8_t)(0xa0 + i);
    }
    mero_mock_quote_create(q, rd);
    struct mero_buf b;
    mero_buf_init(&b, 1 << 14);
    CHECK_OK(mero_mock_to_json(q, sizeof(q), &b));
    json_t *root = json_loadb((const char *)b.data, b.len, JSON_REJECT_DUPLICATES, NULL);
    mero_buf_cleanup(&b);
    CHECK(root != NULL);
    json_t *h = json_object_get(root, "header"), *bd = json_object_get(root, "body");
    json_t *cd = json_object_get(root, "certificationData");
    json_t *d = json_object_get(cd, "data");
    char rdhex[129];
    mero_hex_encode(rdhex, rd, 64);
    int f[24], k = 0;
    f[k++] = json_integer_value(json_object_get(h, "version")) == 4;
    f[k++] = json_integer_value(json_object_get(h, "attestationKeyType")) == 2;
    f[k++] = json_integer_value(json_object_get(h, "teeType")) == 129;
    f[k++] = strcmp(js(h, "qeVendorId"), "939a7233f79c4ca9940a0db3957f0607") == 0;
    f[k++] = zeros_hex(h, "userData", 32);
    f[k++] = strcmp(js(bd, "tdxVersion"), "1.0") == 0;
    f[k++] = zeros_hex(bd, "teeTcbSvn", 32);
    static const char *const regs[] = {"mrseam",  "mrsignerseam",  "mrtd",  "mrconfigid",
                                       "mrowner", "mrownerconfig", "rtmr0", "rtmr1",
                                       "rtmr2",   "rtmr3"};
    int regs_ok = 1;
    for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
        regs_ok &= zeros_hex(bd, regs[i], 96);
    }
    f[k++] = regs_ok;
    f[k++] = zeros_hex(bd, "seamattributes", 16) && zeros_hex(bd, "tdattributes", 16) &&
             zeros_hex(bd, "xfam", 16);
    f[k++] = strcmp(js(bd, "reportdata"), rdhex) == 0;
    f[k++] =
        json_object_get(bd, "teeTcbSvn2") == NULL && json_object_get(bd, "mrservicetd") == NULL;
    f[k++] = zeros_hex(root, "signature", 128);
    const char *ak = json_string_value(json_object_get(root, "attestationKey"));
    f[k++] =
        ak != NULL && strlen(ak) == 130 && strncmp(ak, "04", 2) == 0 && strspn(ak + 2, "0") == 128;
    f[k++] = strcmp(js(cd, "type"), "qeReportCertificationData") == 0;
    f[k++] = zeros_hex(d, "qeReport", 768) && zeros_hex(d, "signature", 128) &&
             zeros_hex(d, "qeAuthenticationData", 64);
    f[k++] = strcmp(js(d, "certificationDataType"), "PckCertChain") == 0;
    f[k++] = zeros_hex(d, "certificationData", 200);
    json_decref(root);
    for (int i = 0; i < k; i++) {
        CHECK_MSG(f[i], "mock json check %d failed", i);
    }
    mero_buf_init(&b, 1 << 14);
    CHECK_ERR(mero_mock_to_json(q, 80, &b), -MERO_ETRUNC);
    CHECK_ERR(mero_mock_to_json(q + 1, 200, &b), -MERO_EQUOTE_MOCK);
    mero_buf_cleanup(&b);
}

MERO_TEST_MAIN(T(mock_bytes_exact), T(mock_verify_flags), T(mock_verify_errors),
               T(real_parser_refuses_mock), T(mock_json_form))
