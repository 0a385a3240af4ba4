/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_quote_json.c - the reference-calimero.md §4.2 JSON form of real quotes: parsed back
 * with jansson, every field compared with the parsed quote, key spellings and lowercase hex.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mero/encoding.h"
#include "mero/quote.h"
#include "harness.h"

static const char *const cases[] = {
    "testdata/tdx/dcapqvl-1/quote.bin",
    "testdata/tdx/dcapqvl-2/quote.bin",
    "testdata/tdx/gotdxguest-1/quote.bin",
    "testdata/tdx/gotdxguest-2/quote.bin",
    "testdata/tdx/nearmpc-2/quote.bin",
    "testdata/tdx/parse-only/trustee-v5-td15/quote.bin",
    "testdata/tdx/parse-only/gcp-cos-v4/quote.bin",
    "testdata/tdx/parse-only/azure-v4/quote.bin",
};

static const char *jsv(json_t *v)
{
    const char *s = json_string_value(v);
    return s ? s : "";
}

/* hex_is compares with mero_hex_encode's output, so it also checks the hex is lowercase. */
static int hex_is(json_t *o, const char *key, const uint8_t *p, size_t n)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (s == NULL || strlen(s) != 2 * n) {
        return 0;
    }
    char *want = malloc(2 * n + 1);
    if (want == NULL) {
        return 0;
    }
    mero_hex_encode(want, p, n);
    int ok = strcmp(want, s) == 0;
    free(want);
    return ok;
}

static void one(const char *path)
{
    size_t len;
    uint8_t *p = mero_test_read(path, 1, &len);
    CHECK_MSG(p != NULL, "cannot read %s", path);
    struct mero_quote q;
    int rc = mero_quote_parse(&q, p, len, NULL);
    struct mero_buf b;
    mero_buf_init(&b, 1 << 16);
    int jrc = rc == 0 ? mero_quote_to_json(&q, &b) : rc;
    json_error_t je;
    json_t *root =
        jrc == 0 ? json_loadb((const char *)b.data, b.len, JSON_REJECT_DUPLICATES, &je) : NULL;
    json_t *h = json_object_get(root, "header");
    json_t *bd = json_object_get(root, "body");
    json_t *cd = json_object_get(root, "certificationData");
    json_t *d = json_object_get(cd, "data");
    const char *ak = json_string_value(json_object_get(root, "attestationKey"));
    const char *chain_hex = json_string_value(json_object_get(d, "certificationData"));
    uint8_t *chain = NULL;
    size_t chain_len = 0;
    int crc = chain_hex
                  ? mero_hex_decode_alloc(chain_hex, strlen(chain_hex), 1 << 16, &chain, &chain_len)
                  : -MERO_EJSON;
    int ok_chain = crc == 0 && chain_len == q.pck_chain_len &&
                   memcmp(chain, q.pck_chain, chain_len) == 0 &&
                   memcmp(chain, "-----BEGIN CERTIFICATE-----", 27) == 0;
    free(chain);
    int ok_ak = ak != NULL && strlen(ak) == 130 && strncmp(ak, "04", 2) == 0;
    if (ok_ak) {
        uint8_t raw[65];
        ok_ak =
            mero_hex_decode_exact(raw, 65, ak, 130) == 0 && memcmp(raw + 1, q.attest_key, 64) == 0;
    }
    int f[32], k = 0;
    f[k++] = json_integer_value(json_object_get(h, "version")) == q.version;
    f[k++] = json_integer_value(json_object_get(h, "attestationKeyType")) == 2;
    f[k++] = json_integer_value(json_object_get(h, "teeType")) == 129;
    f[k++] = hex_is(h, "qeVendorId", q.qe_vendor_id, 16);
    f[k++] = hex_is(h, "userData", q.user_data, 20);
    f[k++] = json_object_size(h) == 5;
    f[k++] = strcmp(jsv(json_object_get(bd, "tdxVersion")), q.body.td15 ? "1.5" : "1.0") == 0;
    f[k++] = hex_is(bd, "teeTcbSvn", q.body.tee_tcb_svn, 16);
    f[k++] = hex_is(bd, "mrseam", q.body.mrseam, 48) &&
             hex_is(bd, "mrsignerseam", q.body.mrsignerseam, 48);
    f[k++] = hex_is(bd, "seamattributes", q.body.seam_attributes, 8) &&
             hex_is(bd, "tdattributes", q.body.td_attributes, 8) &&
             hex_is(bd, "xfam", q.body.xfam, 8);
    f[k++] = hex_is(bd, "mrtd", q.body.mrtd, 48) &&
             hex_is(bd, "mrconfigid", q.body.mrconfigid, 48) &&
             hex_is(bd, "mrowner", q.body.mrowner, 48) &&
             hex_is(bd, "mrownerconfig", q.body.mrownerconfig, 48);
    f[k++] = hex_is(bd, "rtmr0", q.body.rtmr[0], 48) && hex_is(bd, "rtmr1", q.body.rtmr[1], 48) &&
             hex_is(bd, "rtmr2", q.body.rtmr[2], 48) && hex_is(bd, "rtmr3", q.body.rtmr[3], 48);
    f[k++] = hex_is(bd, "reportdata", q.body.report_data, 64);
    f[k++] = q.body.td15 ? hex_is(bd, "teeTcbSvn2", q.body.tee_tcb_svn2, 16) &&
                               hex_is(bd, "mrservicetd", q.body.mrservicetd, 48)
                         : json_object_get(bd, "teeTcbSvn2") == NULL &&
                               json_object_get(bd, "mrservicetd") == NULL;
    f[k++] = json_object_size(bd) == (q.body.td15 ? 18u : 16u);
    f[k++] = hex_is(root, "signature", q.signature, 64);
    f[k++] = ok_ak;
    f[k++] = strcmp(jsv(json_object_get(cd, "type")), "qeReportCertificationData") == 0;
    f[k++] = hex_is(d, "qeReport", q.qe_report_raw, 384);
    f[k++] = hex_is(d, "signature", q.qe_report_sig, 64);
    f[k++] = hex_is(d, "qeAuthenticationData", q.qe_auth_data, q.qe_auth_len);
    f[k++] = strcmp(jsv(json_object_get(d, "certificationDataType")), "PckCertChain") == 0;
    f[k++] = ok_chain;
    f[k++] = json_object_size(root) == 5 && json_object_size(d) == 5;
    json_decref(root);
    mero_buf_cleanup(&b);
    free(p);
    CHECK_MSG(rc == 0 && jrc == 0, "%s: parse %s json %s", path, mero_strerror(rc),
              mero_strerror(jrc));
    for (int i = 0; i < k; i++) {
        CHECK_MSG(f[i], "%s: json check %d failed", path, i);
    }
}

TEST(json_of_real_quotes)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        one(cases[i]);
        if (mero_test_failed_) {
            return;
        }
    }
}

TEST(json_respects_buffer_max)
{
    size_t len;
    uint8_t *p = mero_test_read(cases[0], 1, &len);
    CHECK(p != NULL);
    struct mero_quote q;
    int rc = mero_quote_parse(&q, p, len, NULL);
    struct mero_buf b;
    mero_buf_init(&b, 4096); /* the chain alone is 7 KiB of hex */
    int jrc = mero_quote_to_json(&q, &b);
    mero_buf_cleanup(&b);
    free(p);
    CHECK_OK(rc);
    CHECK_ERR(jrc, -MERO_ETOOBIG);
    CHECK_ERR(mero_quote_to_json(NULL, &b), -MERO_EINVAL);
}

MERO_TEST_MAIN(T(json_of_real_quotes), T(json_respects_buffer_max))
