/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_snapshot.c - issue 37: how soon a new replica serves a context, against the number of
 * writes ever made in it. A writer makes 20,000 and then 100,000 writes over 100 keys (real
 * signed, encrypted deltas through the local write path); a new node, which knows the context
 * from governance but holds none of its state (tests/support/snap_fixture.h: shared gov store,
 * own node.db), pulls from the writer over a real loopback libp2p connection ("/mero/sync/1",
 * STATE pages), verifies and installs the live state, and the clock stops once it serves all
 * 100 latest values (each read checked against its delta). Wall-clock, median of 3 rounds, each
 * with a fresh replica. Prints `bench ...` and `ratio ...` lines; the targets are within 2 s and
 * a ratio within 1.5.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mero/clock.h"
#include "node/context/context_internal.h"
#include "node/sync_internal.h"
#include "support/snap_fixture.h"

#define KEYS    100u
#define ROUNDS  3
#define VAL_MAX 32u

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every key's latest value is served by n (write i set k<i % KEYS> = v<i>). */
static int serves_all(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t writes)
{
    for (unsigned k = 0; k < KEYS; k++) {
        char key[VAL_MAX], want[VAL_MAX];
        uint64_t last = writes - KEYS + k;
        snprintf(key, sizeof(key), "k%u", k);
        snprintf(want, sizeof(want), "v%llu", (unsigned long long)last);
        if (!snapf_value_is(n, ctx, key, want)) {
            return 0;
        }
    }
    return 1;
}

/* A fresh replica's time to serve: drop what it holds, pull, read. */
static int round_ms(struct snapf *f, uint64_t writes, double *ms)
{
    struct mero_node *r = &f->n[SNAPF_NODES - 1];
    if (mero__node_ctx_purge(r, f->ns, f->ns) < 0) {
        return -MERO_EIO;
    }
    uint64_t start = mero_now_us();
    MERO_TRY(snapf_pull(f, 0));
    int ok = serves_all(r, f->ctx, writes);
    *ms = (double)(mero_now_us() - start) / 1000.0;
    if (!ok) {
        struct mero_node_sync_stats st;
        mero__node_sync_get_stats(r, &st);
        fprintf(stderr, "# round: inv %llu snap pages %llu installed %llu refused %llu busy %llu\n",
                (unsigned long long)st.inv_sent, (unsigned long long)st.snap_pages,
                (unsigned long long)st.snap_installed, (unsigned long long)st.snap_refused,
                (unsigned long long)st.snap_busy);
        fprintf(stderr, "# round: %llu deltas held, not every value served\n",
                (unsigned long long)snapf_deltas(r));
    }
    return ok ? 0 : -MERO_ESTATE;
}

static int run(uint64_t writes, double *median_ms, double *write_s, uint64_t *held)
{
    struct snapf f;
    double t[ROUNDS];
    int rc = snapf_open(&f);
    if (rc == 0) {
        rc = snapf_pull(&f, 0); /* connects the replica, before the writer's long write */
    }
    uint64_t w0 = mero_now_us();
    if (rc == 0) {
        rc = snapf_write(&f.n[0], f.ctx, writes, KEYS);
    }
    *write_s = (double)(mero_now_us() - w0) / 1e6;
    for (int i = 0; rc == 0 && i < ROUNDS; i++) {
        rc = round_ms(&f, writes, &t[i]);
    }
    *held = snapf_deltas(&f.n[SNAPF_NODES - 1]);
    snapf_close(&f);
    qsort(t, ROUNDS, sizeof(t[0]), cmp);
    *median_ms = t[ROUNDS / 2];
    return rc;
}

int main(void)
{
    double small = 0, big = 0, ws = 0, wb = 0;
    uint64_t hs = 0, hb = 0;
    if (run(20000, &small, &ws, &hs) < 0 || run(100000, &big, &wb, &hb) < 0) {
        fprintf(stderr, "bench_snapshot: setup, pull or read failed\n");
        return 1;
    }
    printf("# writer: 20,000 writes in %.1f s, 100,000 in %.1f s; the replica then holds %llu and "
           "%llu deltas\n",
           ws, wb, (unsigned long long)hs, (unsigned long long)hb);
    printf("bench snapshot_serve_100_keys_of_20000_writes %.1f ms (target <= 2000)\n", small);
    printf("bench snapshot_serve_100_keys_of_100000_writes %.1f ms\n", big);
    printf("ratio snapshot_serve_100000_vs_20000_writes %.2f (target <= 1.5)\n", big / small);
    return 0;
}
