/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tee_info.c - what /tee/info gathers about the host (issue 16; src/node/tee_info.c):
 * on a TDX host the MRTD of a quote made through configfs-tsm (a fake tree whose entry holds a
 * real quote from ../shared/testdata with the start-up quote's report data, 64 zero bytes),
 * no MRTD without configfs-tsm or for a mock node, and "unknown" cloud facts when the metadata
 * server cannot be reached (a closed port on 127.0.0.1). The metadata server itself is
 * covered by tests/e2e/tee_info_host.sh.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest/tsm_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "mero/quote.h"
#include "mero/tsm.h"
#include "node/tee_internal.h"

#define CLOSED "http://127.0.0.1:1" /* nothing listens on port 1 */
#define RD_OFF (48 + 520)           /* v4 header, then the TD report's report_data */

static char root[256];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
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

/* A fake configfs-tsm root whose entry for the zero report data holds q. */
static int fake_tsm(const uint8_t *q, size_t n)
{
    static const uint8_t zero[MERO_REPORT_DATA_LEN];
    char name[64], dir[512];
    snprintf(root, sizeof(root), "%s/mero-teeinfo.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(root) == NULL) {
        root[0] = '\0';
        return -1;
    }
    mero__tsm_set_root(root);
    mero__tsm_entry_name(name, zero);
    snprintf(dir, sizeof(dir), "%s/%s", root, name);
    if (mkdir(dir, 0700) != 0 || put_file(dir, "provider", "tdx_guest\n", 10) != 0 ||
        put_file(dir, "generation", "1\n", 2) != 0 || put_file(dir, "inblob", "", 0) != 0) {
        return -1;
    }
    return put_file(dir, "outblob", q, n);
}

TEST(tdx_host_reports_the_startup_quotes_mrtd)
{
    size_t n = 0;
    uint8_t *q = mero_test_read("testdata/tdx/parse-only/gcp-cos-v4/quote.bin", 1, &n);
    CHECK(q != NULL && n > RD_OFF + MERO_REPORT_DATA_LEN);
    memset(q + RD_OFF, 0, MERO_REPORT_DATA_LEN);
    struct mero_quote pq;
    struct mero_err e = {0};
    CHECK_OK(mero_quote_parse(&pq, q, n, &e));
    static const uint8_t zero_mr[MERO_MR_LEN];
    CHECK(memcmp(pq.body.mrtd, zero_mr, sizeof(zero_mr)) != 0); /* the check below can fail */
    CHECK_OK(fake_tsm(q, n));
    struct mero_tee_facts f = {.cloud = "unknown", .os_image = "unknown"};
    CHECK_OK(mero__tee_facts_collect(true, CLOSED, &f));
    CHECK(f.have_mrtd);
    CHECK_MEM_EQ(f.mrtd, pq.body.mrtd, MERO_MR_LEN);
    CHECK_STR_EQ(f.cloud, "unknown");
    CHECK_STR_EQ(f.os_image, "unknown");
    cleanup_root();
    free(q);
}

TEST(a_quote_with_other_report_data_gives_no_mrtd)
{
    size_t n = 0;
    uint8_t *q = mero_test_read("testdata/tdx/parse-only/gcp-cos-v4/quote.bin", 1, &n);
    CHECK(q != NULL && n > RD_OFF + MERO_REPORT_DATA_LEN);
    memset(q + RD_OFF, 0x5c, MERO_REPORT_DATA_LEN); /* not the zeros the start-up quote asks */
    CHECK_OK(fake_tsm(q, n));
    struct mero_tee_facts f = {.cloud = "unknown", .os_image = "unknown"};
    CHECK(mero__tee_facts_collect(true, CLOSED, &f) < 0);
    CHECK(!f.have_mrtd);
    cleanup_root();
    free(q);
}

TEST(no_configfs_tsm_or_mock_gives_no_mrtd)
{
    mero__tsm_set_root("/nonexistent/mero/tsm/report");
    struct mero_tee_facts f = {.cloud = "unknown", .os_image = "unknown"};
    CHECK(mero__tee_facts_collect(true, CLOSED, &f) < 0);
    CHECK(!f.have_mrtd);
    CHECK_STR_EQ(f.cloud, "unknown");
    struct mero_tee_facts m = {.cloud = "unknown", .os_image = "unknown"};
    CHECK_OK(mero__tee_facts_collect(false, CLOSED, &m));
    CHECK(!m.have_mrtd);
    CHECK_STR_EQ(m.cloud, "unknown");
    CHECK_STR_EQ(m.os_image, "unknown");
    mero__tsm_set_root(NULL);
}

MERO_TEST_MAIN(T(tdx_host_reports_the_startup_quotes_mrtd),
               T(a_quote_with_other_report_data_gives_no_mrtd),
               T(no_configfs_tsm_or_mock_gives_no_mrtd))
