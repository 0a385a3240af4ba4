/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tsm.c - configfs-tsm quote generation against a fake directory tree (plain files stand
 * in for the kernel's attributes: the test pre-creates the entry the code will use), the
 * generate-or-mock-or-refuse decision, and quote_report_data.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest/tsm_internal.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/tsm.h"
#include "harness.h"

static char root[256];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static void fresh_root(void)
{
    if (root[0] != '\0') {
        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    snprintf(root, sizeof(root), "%s/mero-tsm.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(root) == NULL) {
        root[0] = '\0';
    }
    mero__tsm_set_root(root);
}

static void cleanup_root(void)
{
    if (root[0] != '\0') {
        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        root[0] = '\0';
    }
    mero__tsm_set_root(NULL);
}

static int put_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

/* Pre-create the entry the code will mkdir for rd, as the kernel would populate it. */
static int fake_entry(const uint8_t rd[64], const char *provider, const void *outblob, size_t n,
                      char *dir_out, size_t cap)
{
    char name[64];
    mero__tsm_entry_name(name, rd);
    snprintf(dir_out, cap, "%s/%s", root, name);
    if (mkdir(dir_out, 0700) != 0) {
        return -1;
    }
    if (put_file(dir_out, "provider", provider, strlen(provider)) != 0 ||
        put_file(dir_out, "generation", "7\n", 2) != 0 || put_file(dir_out, "inblob", "", 0) != 0) {
        return -1;
    }
    return outblob ? put_file(dir_out, "outblob", outblob, n) : 0;
}

static uint8_t *real_quote(size_t *len, uint8_t rd[64])
{
    uint8_t *p = mero_test_read("testdata/tdx/parse-only/gcp-cos-v4/quote.bin", 1, len);
    bool is_mock = true;
    if (p == NULL || mero_quote_report_data(p, *len, rd, &is_mock) != 0 || is_mock) {
        free(p);
        return NULL;
    }
    return p;
}

TEST(no_tsm_refuses_or_mocks)
{
    mero__tsm_set_root("/nonexistent/mero/tsm/report");
    uint8_t rd[64], *q = NULL, back[64];
    size_t len = 0;
    bool is_mock = false;
    memset(rd, 0x5c, sizeof(rd));
    struct mero_err err = {0};
    CHECK(!mero_tsm_present());
    CHECK_ERR(mero_attest_generate(rd, false, &q, &len, &is_mock, &err), -MERO_EUNSUPPORTED);
    CHECK_STR_EQ(err.msg,
                 "TDX attestation generation is only supported on Linux with TDX hardware");
    CHECK(q == NULL);
    CHECK_OK(mero_attest_generate(rd, true, &q, &len, &is_mock, &err));
    CHECK(is_mock);
    CHECK_EQ(len, MERO_MOCK_QUOTE_LEN);
    CHECK(mero_mock_is_mock(q, len));
    int rc = mero_quote_report_data(q, len, back, &is_mock);
    free(q);
    mero__tsm_set_root(NULL);
    CHECK_OK(rc);
    CHECK(is_mock);
    CHECK_MEM_EQ(back, rd, 64);
}

TEST(env_root_is_honoured)
{
    setenv("MERO_TSM_ROOT", "/nonexistent/mero/env-root", 1);
    bool present = mero_tsm_present();
    setenv("MERO_TSM_ROOT", "/", 1);
    bool present2 = mero_tsm_present();
    unsetenv("MERO_TSM_ROOT");
    CHECK(!present);
    CHECK(present2);
}

TEST(real_quote_from_fake_configfs)
{
    fresh_root();
    CHECK(root[0] != '\0');
    size_t qlen;
    uint8_t rd[64];
    uint8_t *qb = real_quote(&qlen, rd);
    CHECK(qb != NULL);
    char dir[512];
    int frc = fake_entry(rd, "tdx_guest\n", qb, qlen, dir, sizeof(dir));
    uint8_t *q = NULL;
    size_t len = 0;
    bool is_mock = true;
    struct mero_err err = {0};
    CHECK(mero_tsm_present());
    int rc = frc == 0 ? mero_attest_generate(rd, true, &q, &len, &is_mock, &err) : -1;
    size_t inlen = 0;
    char inpath[600];
    snprintf(inpath, sizeof(inpath), "%s/inblob", dir);
    uint8_t *in = mero_test_read(inpath, 0, &inlen);
    int in_ok = in != NULL && inlen == 64 && memcmp(in, rd, 64) == 0;
    int same = q != NULL && len == 4935 && memcmp(q, qb, len) == 0;
    free(in);
    free(q);
    free(qb);
    cleanup_root();
    CHECK_EQ(frc, 0);
    CHECK_MSG(rc == 0, "generate: %s (%s)", mero_strerror(rc), err.msg);
    CHECK(!is_mock);
    CHECK(same); /* the quote proper, 8000-byte outblob padding cut */
    CHECK(in_ok);
}

TEST(other_provider_is_not_tdx)
{
    fresh_root();
    uint8_t rd[64], *q = NULL;
    size_t len = 0;
    bool is_mock = false;
    memset(rd, 0x42, sizeof(rd));
    char dir[512];
    int frc = fake_entry(rd, "sev_guest\n", NULL, 0, dir, sizeof(dir));
    struct mero_err err = {0};
    int rc1 = mero_tsm_quote(rd, &q, &len, &err);
    char msg1[MERO_ERR_MSG_MAX];
    snprintf(msg1, sizeof(msg1), "%s", err.msg);
    int rc2 = mero_attest_generate(rd, false, &q, &len, &is_mock, &err);
    int rc3 = mero_attest_generate(rd, true, &q, &len, &is_mock, NULL);
    free(q);
    cleanup_root();
    CHECK_EQ(frc, 0);
    CHECK_ERR(rc1, -MERO_EUNSUPPORTED);
    CHECK(strstr(msg1, "sev_guest") != NULL);
    CHECK_ERR(rc2, -MERO_EUNSUPPORTED);
    CHECK_OK(rc3);
    CHECK(is_mock);
}

TEST(tdx_failure_never_falls_back_to_mock)
{
    uint8_t rd[64], *q = NULL;
    size_t len = 0;
    bool is_mock = false;
    struct mero_err err = {0};
    char dir[512];
    memset(rd, 0x24, sizeof(rd));

    /* an entry with no attributes at all (kernel without a provider): I/O error, no mock */
    fresh_root();
    int rc = mero_attest_generate(rd, true, &q, &len, &is_mock, &err);
    CHECK_ERR(rc, -MERO_EIO);
    CHECK(q == NULL);

    /* garbage outblob from a tdx_guest provider: a parse error, no mock */
    fresh_root();
    static const uint8_t junk[100] = {4, 0, 2, 0, 0x81};
    CHECK_EQ(fake_entry(rd, "tdx_guest", junk, sizeof(junk), dir, sizeof(dir)), 0);
    rc = mero_attest_generate(rd, true, &q, &len, &is_mock, &err);
    CHECK_ERR(rc, -MERO_ETRUNC);
    CHECK(strstr(err.msg, "Failed to parse TDX quote") != NULL);

    /* a quote over other report data (a racing writer's): refused */
    fresh_root();
    size_t qlen;
    uint8_t realrd[64];
    uint8_t *qb = real_quote(&qlen, realrd);
    CHECK(qb != NULL);
    int frc = fake_entry(rd, "tdx_guest", qb, qlen, dir, sizeof(dir));
    free(qb);
    CHECK_EQ(frc, 0);
    rc = mero_attest_generate(rd, true, &q, &len, &is_mock, &err);
    CHECK_ERR(rc, -MERO_ESTATE);

    /* an outblob larger than any quote: refused before parsing */
    fresh_root();
    uint8_t *big = calloc(1, MERO_TSM_MAX_OUTBLOB + 1);
    CHECK(big != NULL);
    frc = fake_entry(rd, "tdx_guest", big, MERO_TSM_MAX_OUTBLOB + 1, dir, sizeof(dir));
    free(big);
    CHECK_EQ(frc, 0);
    rc = mero_attest_generate(rd, true, &q, &len, &is_mock, &err);
    cleanup_root();
    CHECK_ERR(rc, -MERO_ETOOBIG);
    CHECK(q == NULL);
}

TEST(quote_report_data_reads_both_kinds)
{
    size_t qlen;
    uint8_t rd[64], out[64];
    uint8_t *qb = real_quote(&qlen, rd);
    CHECK(qb != NULL);
    struct mero_quote q;
    int rc = mero_quote_parse(&q, qb, qlen, NULL);
    bool is_mock = true;
    int rc2 = mero_quote_report_data(qb, 700, out, &is_mock); /* truncated real quote */
    free(qb);
    CHECK_OK(rc);
    CHECK_MEM_EQ(q.body.report_data, rd, 64);
    CHECK_ERR(rc2, -MERO_EOVERFLOW);
    uint8_t m[MERO_MOCK_QUOTE_LEN];
    mero_mock_quote_create(m, rd);
    CHECK_ERR(mero_quote_report_data(m, 80, out, &is_mock), -MERO_ETRUNC);
    CHECK_OK(mero_quote_report_data(m, 81, out, &is_mock));
    CHECK(is_mock);
    CHECK_MEM_EQ(out, rd, 64);
    CHECK_ERR(mero_quote_report_data(NULL, 0, out, &is_mock), -MERO_EINVAL);
}

MERO_TEST_MAIN(T(no_tsm_refuses_or_mocks), T(env_root_is_honoured),
               T(real_quote_from_fake_configfs), T(other_provider_is_not_tdx),
               T(tdx_failure_never_falls_back_to_mock), T(quote_report_data_reads_both_kinds))
