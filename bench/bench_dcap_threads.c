/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_dcap_threads.c - DCAP verifications per second from 1 and from 2 threads sharing the
 * process-wide caches (issue 23), on one genuine case (dcapqvl-1):
 *  - cached: every verification finds the collateral trust and the parses cached (the
 *    per-quote cost: PCK leaf, QE report and quote signatures);
 *  - uncached: every verification presents a collateral whose cache key was never seen (the
 *    same parsed collateral with a fresh mero_collateral hash per call, which is what the cache
 *    keys on), so the whole collateral phase (chains, CRLs, TCB info, QE identity) runs each
 *    time and the cache evicts continuously; the leaf and key parse caches stay warm.
 * Each run lasts BENCH_SECONDS (default 0.6) of wall time; 1- and 2-thread runs are interleaved
 * over 5 rounds and the median is reported. On a shared, loaded machine the ratio is what the
 * other processes leave of the second core, so read it with the load average.
 * Prints `bench <name> <value> <unit>` and `ratio <name> <value>` lines.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "support/dcap_cases.h"

#define ROUNDS 5

static struct dcap_case k;
static struct mero_collateral coll;
static atomic_int stop;
static atomic_uint_fast64_t fresh_key;
static atomic_int failures;

struct th {
    pthread_t t;
    bool uncached;
    uint64_t done;
};

static void *run(void *arg)
{
    struct th *w = arg;
    struct mero_collateral c = coll; /* shallow: same immutable fields, own key */
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (w->uncached) {
            uint64_t n = atomic_fetch_add(&fresh_key, 1) + 1;
            memcpy(c.hash, &n, sizeof(n)); /* a key never seen: the collateral phase runs */
        }
        struct mero_dcap_result r;
        struct mero_err e;
        if (mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e) < 0 ||
            !r.quote_verified) {
            atomic_fetch_add(&failures, 1);
        }
        w->done++;
    }
    return NULL;
}

/* verifications per second with n threads */
static double rate(int n, bool uncached, double seconds)
{
    struct th w[2];
    memset(w, 0, sizeof(w));
    atomic_store(&stop, 0);
    uint64_t t0 = mero_now_ns();
    for (int i = 0; i < n; i++) {
        w[i].uncached = uncached;
        pthread_create(&w[i].t, NULL, run, &w[i]);
    }
    while (mero_now_ns() - t0 < (uint64_t)(seconds * 1e9)) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&stop, 1);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].t, NULL);
        total += w[i].done;
    }
    double el = (double)(mero_now_ns() - t0) / 1e9;
    return (double)total / el;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    struct mero_err e;
    if (mero_crypto_init() < 0 || dcap_case_load(&k, "tdx/dcapqvl-1") < 0 ||
        mero_collateral_parse(&coll, k.collateral_json, k.collateral_len, &e) < 0) {
        fprintf(stderr, "bench_dcap_threads: cannot load tdx/dcapqvl-1\n");
        return 1;
    }
    const char *s = getenv("BENCH_SECONDS");
    double seconds = s != NULL ? strtod(s, NULL) : 0.6;
    if (!(seconds > 0.05)) {
        seconds = 0.6;
    }
    for (int u = 0; u < 2; u++) {
        bool uncached = u == 1;
        double one[ROUNDS], two[ROUNDS], ratio[ROUNDS];
        mero_dcap_cache_clear();
        rate(1, uncached, 0.1); /* warm-up */
        for (int r = 0; r < ROUNDS; r++) {
            one[r] = rate(1, uncached, seconds);
            two[r] = rate(2, uncached, seconds);
            ratio[r] = two[r] / one[r];
        }
        qsort(one, ROUNDS, sizeof(double), cmp);
        qsort(two, ROUNDS, sizeof(double), cmp);
        qsort(ratio, ROUNDS, sizeof(double), cmp);
        const char *name = uncached ? "uncached" : "cached";
        printf("bench dcap_threads_%s_1t %.0f verif/s\n", name, one[ROUNDS / 2]);
        printf("bench dcap_threads_%s_2t %.0f verif/s\n", name, two[ROUNDS / 2]);
        /* the median of the per-round ratios (each round's two runs are back to back) */
        printf("ratio dcap_threads_%s_2t_vs_1t %.2f\n", name, ratio[ROUNDS / 2]);
    }
    if (atomic_load(&failures) != 0) {
        fprintf(stderr, "bench_dcap_threads: %d verifications failed\n", atomic_load(&failures));
        return 1;
    }
    mero_collateral_cleanup(&coll);
    dcap_case_free(&k);
    mero_dcap_cache_clear();
    return 0;
}
