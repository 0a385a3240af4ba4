/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_dcap.c - DCAP verification cost, side by side in one run on one genuine case
 * (dcapqvl-1): (a) full verification with nothing cached (collateral JSON parse, chains, CRLs,
 * TCB info, QE identity, quote), (b) per-quote verification with the collateral cached,
 * (c) one ECDSA P-256 verification in this process, (d) @phala/dcap-qvl and
 * @phala/dcap-qvl-web on the same quote and collateral (tests/js/dcap_bench.mjs, when node is
 * there). Rounds are interleaved and the median round is reported, so the ratios hold on a
 * loaded machine. Then the RSS growth over 10,000 verifications.
 * Prints `bench <name> <value> <unit>` and `ratio <name> <value>` lines.
 * BENCH_SHORT=1: a short loop for valgrind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/x509_internal.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "support/dcap_cases.h"

void mero__dcap_parse_cache_clear(void);

#define ROUNDS 9

static struct dcap_case k;
static struct mero_collateral coll;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return v[n / 2];
}

/* (a) from the parsed collateral (dcap-qvl's verify also takes a parsed QuoteCollateralV3). */
static int full_once(void)
{
    struct mero_dcap_result r;
    struct mero_err e;
    mero_dcap_cache_clear();
    int rc = mero_dcap_verify_quote(k.quote, k.quote_len, &coll, k.verify_time, &r, &e);
    return rc == 0 && r.quote_verified ? 0 : -1;
}

/* (a') the same starting from the JSON text. */
static int full_json_once(void)
{
    struct mero_collateral c;
    struct mero_dcap_result r;
    struct mero_err e;
    mero_dcap_cache_clear();
    if (mero_collateral_parse(&c, k.collateral_json, k.collateral_len, &e) < 0) {
        return -1;
    }
    int rc = mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e);
    mero_collateral_cleanup(&c);
    return rc == 0 && r.quote_verified ? 0 : -1;
}

static int per_quote_once(void)
{
    struct mero_dcap_result r;
    struct mero_err e;
    int rc = mero_dcap_verify_quote(k.quote, k.quote_len, &coll, k.verify_time, &r, &e);
    return rc == 0 && r.quote_verified ? 0 : -1;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f == NULL) {
        return -1;
    }
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) {
        res = -1;
    }
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(void)
{
    struct mero_err e;
    bool shortrun = getenv("BENCH_SHORT") != NULL;
    if (mero_crypto_init() < 0 || dcap_case_load(&k, "tdx/dcapqvl-1") < 0 ||
        mero_collateral_parse(&coll, k.collateral_json, k.collateral_len, &e) < 0) {
        fprintf(stderr, "bench_dcap: cannot load tdx/dcapqvl-1 from ../shared\n");
        return 1;
    }
    /* (c) one ECDSA P-256 verify: the quote's own signature, key built once, hash included. */
    struct mero_quote q;
    EVP_PKEY *ak = NULL;
    if (mero_quote_parse(&q, k.quote, k.quote_len, &e) < 0 ||
        mero__x509_key(q.attest_key, &ak) < 0) {
        return 1;
    }
    int na = shortrun ? 3 : 40, nb = shortrun ? 3 : 300, nc = shortrun ? 3 : 300;
    double a[ROUNDS], aj[ROUNDS], b[ROUNDS], c[ROUNDS], b2[ROUNDS];
    int rounds = shortrun ? 1 : ROUNDS;
    if (full_once() < 0 || per_quote_once() < 0) {
        fprintf(stderr, "bench_dcap: the genuine case does not verify\n");
        return 1;
    }
    long rss_first = rss_kib(); /* after the first verification of each kind */
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = mero_now_us();
        for (int i = 0; i < na; i++) {
            if (full_once() < 0) {
                return 1;
            }
        }
        a[r] = (double)(mero_now_us() - t0) / na;
        t0 = mero_now_us();
        for (int i = 0; i < na; i++) {
            if (full_json_once() < 0) {
                return 1;
            }
        }
        aj[r] = (double)(mero_now_us() - t0) / na;
        per_quote_once(); /* re-warm the collateral cache */
        t0 = mero_now_us();
        for (int i = 0; i < nb; i++) {
            if (per_quote_once() < 0) {
                return 1;
            }
        }
        b[r] = (double)(mero_now_us() - t0) / nb;
        t0 = mero_now_us();
        for (int i = 0; i < nb / 4 + 1; i++) {
            mero__dcap_parse_cache_clear();
            if (per_quote_once() < 0) {
                return 1;
            }
        }
        b2[r] = (double)(mero_now_us() - t0) / (nb / 4 + 1);
        t0 = mero_now_us();
        for (int i = 0; i < nc; i++) {
            if (mero__x509_ecdsa_verify(ak, q.signature, q.signed_data, q.signed_len) < 0) {
                return 1;
            }
        }
        c[r] = (double)(mero_now_us() - t0) / nc;
    }
    double ma = median(a, rounds), maj = median(aj, rounds), mb = median(b, rounds),
           mb2 = median(b2, rounds), mc = median(c, rounds);
    printf("bench dcap_full_uncached %.1f us\n", ma);
    printf("bench dcap_full_uncached_from_json %.1f us\n", maj);
    printf("bench dcap_per_quote_cached %.1f us\n", mb);
    printf("bench dcap_per_quote_cold_parse %.1f us\n", mb2);
    printf("bench ecdsa_p256_verify %.1f us\n", mc);
    printf("ratio dcap_per_quote_vs_3_ecdsa %.2f\n", mb / (3 * mc));
    printf("ratio dcap_full_vs_10_ecdsa %.2f\n", ma / (10 * mc));
    printf("ratio dcap_full_from_json_vs_10_ecdsa %.2f\n", maj / (10 * mc));
    fflush(stdout);

    /* (d) dcap-qvl and dcap-qvl-web, same case, same machine, same run. */
    const char *root = getenv("MERO_ROOT");
    if (!shortrun && root != NULL) {
        char cmd[1200];
        snprintf(cmd, sizeof(cmd), "cd '%s/tests/js' && node dcap_bench.mjs dcapqvl-1 2>/dev/null",
                 root);
        FILE *p = popen(cmd, "r");
        char line[256];
        double js = 0, web = 0;
        while (p != NULL && fgets(line, sizeof(line), p) != NULL) {
            fputs(line, stdout);
            sscanf(line, "bench dcap_qvl_js_verify %lf", &js);
            sscanf(line, "bench dcap_qvl_web_verify %lf", &web);
        }
        if (p != NULL) {
            pclose(p);
        }
        if (js > 0) {
            printf("ratio dcap_qvl_js_vs_full %.2f\n", js / ma);
        }
        if (web > 0) {
            printf("ratio dcap_qvl_web_vs_full %.2f\n", web / ma);
            printf("ratio dcap_qvl_web_vs_full_from_json %.2f\n", web / maj);
            printf("ratio dcap_qvl_web_vs_per_quote %.2f\n", web / mb);
        }
    }

    /* Memory: 10,000 verifications (every 10th with every cache cleared). */
    int total = shortrun ? 20 : 10000;
    for (int i = 0; i < 200 && !shortrun; i++) {
        (void)(i % 10 == 0 ? full_once() : per_quote_once());
    }
    long before = rss_kib();
    for (int i = 0; i < total; i++) {
        if ((i % 10 == 0 ? full_once() : per_quote_once()) < 0) {
            return 1;
        }
    }
    long after = rss_kib();
    printf("bench dcap_rss_growth_%dk %ld KiB\n", total / 1000, after - before);
    printf("bench dcap_rss_growth_since_first_verification %ld KiB\n", after - rss_first);
    EVP_PKEY_free(ak);
    mero_dcap_cache_clear();
    mero_collateral_cleanup(&coll);
    dcap_case_free(&k);
    return 0;
}
