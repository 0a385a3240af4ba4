/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sync.c - what a sync catch-up costs against the size of the log (issue 20): a node
 * missing 10 ops of a 100-op log and of a 100,000-op log pulls them from a peer over a real
 * loopback libp2p connection ("/mero/sync/1", tests/support/sync_fixture.h; in-memory stores,
 * the big log's filler rows written straight into both op tables). A first pull takes up the
 * per-peer cursor; each timed round then has the peer write 10 ops and the node pull them.
 * Times are wall-clock, median of 15 rounds. Prints `bench ...` and `ratio ...` lines; the
 * target is a ratio within 2.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mero/clock.h"
#include "node/sync_internal.h"
#include "support/sync_fixture.h"

#define ROUNDS  15
#define MISSING 10

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median microseconds of a catch-up of MISSING ops on a log of about `size` ops. */
static int run(uint64_t size, double *median_us, uint64_t *listed)
{
    struct syncf f;
    double t[ROUNDS];
    int rc = syncf_open(&f);
    uint64_t have = rc == 0 ? syncf_count(&f.a, f.ns) : 0;
    if (rc == 0 && size > have + MISSING) {
        rc = syncf_fill(&f, size - have - MISSING, true);
    }
    if (rc == 0) {
        rc = syncf_pull(&f); /* takes up the cursor */
    }
    struct mero_node_sync_stats s0 = {0}, s1 = {0};
    mero__node_sync_get_stats(&f.b, &s0);
    for (int i = 0; rc == 0 && i < ROUNDS; i++) {
        rc = syncf_write(&f, MISSING);
        uint64_t start = mero_now_us();
        if (rc == 0) {
            rc = syncf_pull(&f);
        }
        t[i] = (double)(mero_now_us() - start);
        if (rc == 0 && syncf_count(&f.b, f.ns) != syncf_count(&f.a, f.ns)) {
            rc = -MERO_EIO; /* the catch-up left something behind */
        }
    }
    mero__node_sync_get_stats(&f.b, &s1);
    if (rc == 0) {
        printf("# log of %llu ops: %llu ops held by the puller\n",
               (unsigned long long)syncf_count(&f.a, f.ns),
               (unsigned long long)syncf_count(&f.b, f.ns));
    }
    syncf_close(&f);
    qsort(t, ROUNDS, sizeof(t[0]), cmp);
    *median_us = t[ROUNDS / 2];
    *listed = (s1.inv_entries - s0.inv_entries) / ROUNDS;
    return rc;
}

int main(void)
{
    double small = 0, big = 0;
    uint64_t ls = 0, lb = 0;
    if (run(100, &small, &ls) < 0 || run(100000, &big, &lb) < 0) {
        fprintf(stderr, "bench_sync: setup or pull failed\n");
        return 1;
    }
    printf("bench sync_catch_up_10_of_log100 %.0f us (%llu inventory entries per pull)\n", small,
           (unsigned long long)ls);
    printf("bench sync_catch_up_10_of_log100000 %.0f us (%llu inventory entries per pull)\n", big,
           (unsigned long long)lb);
    printf("ratio sync_catch_up_log100000_vs_log100 %.2f (target <= 2)\n", big / small);
    return 0;
}
