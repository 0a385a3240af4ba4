/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_ctx_scale.c - what context work costs against the size of what the node holds
 * (2026-12-08), in-memory stores (tests/support/snap_fixture.h):
 *   - a write against the number of contexts: every delta applied, and every read, finds its
 *     context's namespace and group (context/store.c, mero__node_ctx_lookup). A node writes
 *     WRITES values into one context of a namespace holding 1 and CONTEXTS contexts; each timed
 *     write is signed, sealed, applied and stored as on `PUT /contexts/...`; median of ROUNDS;
 *   - a live-state page against the size of the context: serving every page (256 values) of a
 *     context of SMALL and of BIG keys (context/snap.c, mero__node_ctx_snap_values), per page.
 * Prints `bench ...` and `ratio ...` lines; the targets are ratios within 1.5.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mero/clock.h"
#include "mero/gov.h"
#include "node/context/context_internal.h"
#include "support/snap_fixture.h"

#define WRITES   500u
#define ROUNDS   5
#define CONTEXTS 3000u
#define SMALL    1000u
#define BIG      10000u

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median microseconds per write in a namespace holding `contexts` contexts. */
static int run(unsigned contexts, double *us)
{
    struct snapf f;
    struct mero_err err = {0};
    double t[ROUNDS];
    int rc = snapf_open(&f);
    if (rc == 0) {
        rc = mero_store_begin(f.n[0].store); /* the filler contexts in one transaction */
    }
    for (unsigned i = 1; rc == 0 && i < contexts; i++) {
        uint8_t app[MERO_APP_ID_LEN] = {(uint8_t)(i & 0xff), (uint8_t)(i >> 8)}, id[32];
        rc = mero_gov_create_context(f.n[0].store, f.ns, f.ns, app, id, NULL, &err);
    }
    if (rc == 0) {
        rc = mero_store_commit(f.n[0].store);
    }
    for (int r = 0; rc == 0 && r < ROUNDS; r++) {
        uint64_t t0 = mero_now_us();
        rc = snapf_write(&f.n[2], f.ctx, WRITES, 64);
        t[r] = (double)(mero_now_us() - t0) / WRITES;
    }
    if (rc < 0) {
        fprintf(stderr, "bench_ctx_scale: %s (%d)\n", err.msg, rc);
    }
    snapf_close(&f);
    qsort(t, ROUNDS, sizeof(t[0]), cmp);
    *us = t[ROUNDS / 2];
    return rc;
}

/* Microseconds per live-state page, serving every page of a context of `keys` keys. */
static int pages(unsigned keys, double *us)
{
    struct snapf f;
    uint64_t after = 0, served = 0, npages = 0;
    int rc = snapf_open(&f);
    if (rc == 0) {
        rc = snapf_write(&f.n[0], f.ctx, keys, keys);
    }
    uint64_t t0 = mero_now_us();
    do {
        struct mero_buf page;
        uint32_t n = 0;
        mero_buf_init(&page, MERO_SNAP_PAGE_BYTES + MERO_DELTA_MAX);
        rc = rc < 0 ? rc : mero__node_ctx_snap_values(&f.n[0], f.ctx, after, 0, &page, &n, &after);
        mero_buf_cleanup(&page);
        served += n;
        npages++;
    } while (rc == 0 && after != 0);
    *us = (double)(mero_now_us() - t0) / (double)npages;
    if (rc == 0 && served != keys) {
        rc = -MERO_ESTATE; /* every value once */
    }
    snapf_close(&f);
    return rc;
}

int main(void)
{
    double one = 0, many = 0, small = 0, big = 0;
    if (run(1, &one) < 0 || run(CONTEXTS, &many) < 0 || pages(SMALL, &small) < 0 ||
        pages(BIG, &big) < 0) {
        fprintf(stderr, "bench_ctx_scale: setup or run failed\n");
        return 1;
    }
    printf("bench ctx_snap_page_of_%u_keys %.0f us per page\n", SMALL, small);
    printf("bench ctx_snap_page_of_%u_keys %.0f us per page\n", BIG, big);
    printf("ratio ctx_snap_page_%u_vs_%u_keys %.2f (target <= 1.5)\n", BIG, SMALL, big / small);
    printf("bench ctx_write_1_context %.1f us per write\n", one);
    printf("bench ctx_write_%u_contexts %.1f us per write\n", CONTEXTS, many);
    printf("ratio ctx_write_%u_vs_1_context %.2f (target <= 1.5)\n", CONTEXTS, many / one);
    return 0;
}
