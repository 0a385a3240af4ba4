/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_eventlog.c - replay speed on the largest real log in ../shared/testdata/ccel (the one
 * with the most records: GCE COS-113, 43 records). Reports parse + replay per log (what
 * `meroctl eventlog check` and a verifier do), that per record, and replay alone per log.
 * Prints `bench <name> <value> <unit>` lines; never decides a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/eventlog.h"
#include "support/bench_util.h"

static const char *const files[] = {
    "gce-cos113-tdx-with-quote/ccel_data.bin",
    "gce-cos113-tdx-dupe-separator/ccel_data.bin",
    "intel-edk2-ccel-unpadded/ccel_data_unpadded.bin",
    "dstack-ccel-sample/ccel_data.bin",
    "trustee-ovmf/ccel_data.bin",
    "trustee-gcp/ccel_data.bin",
};

int main(void)
{
    const char *shared = getenv("MERO_SHARED");
    char path[1024];
    uint8_t *best = NULL;
    size_t best_len = 0, best_events = 0;
    const char *best_name = NULL;

    if (shared == NULL) {
        shared = MERO_SHARED_DIR;
    }
    if (mero_crypto_init() < 0) {
        return 1;
    }
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t n = 0;
        struct mero_eventlog log;
        snprintf(path, sizeof(path), "%s/testdata/ccel/%s", shared, files[i]);
        uint8_t *d = mero_bench_read(path, &n);
        if (d == NULL || mero_eventlog_parse(&log, d, n, NULL) < 0) {
            free(d);
            continue;
        }
        if (log.n_events > best_events) {
            free(best);
            best = d;
            best_len = n;
            best_events = log.n_events;
            best_name = files[i];
        } else {
            free(d);
        }
        mero_eventlog_cleanup(&log);
    }
    if (best == NULL) {
        fprintf(stderr, "bench_eventlog: no CCEL test data under %s\n", shared);
        return 1;
    }
    printf("# largest log: %s (%zu records, %zu bytes)\n", best_name, best_events, best_len);

    enum { ITER = 20000 };
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    unsigned sink = 0;
    uint64_t t0 = mero_now_us();
    for (int i = 0; i < ITER; i++) {
        struct mero_eventlog log;
        if (mero_eventlog_parse(&log, best, best_len, NULL) < 0) {
            return 1;
        }
        mero_eventlog_replay(&log, rtmr);
        sink += rtmr[0][0];
        mero_eventlog_cleanup(&log);
    }
    uint64_t t1 = mero_now_us();
    double per_log = (double)(t1 - t0) / ITER;
    printf("bench eventlog_replay_log %.2f us\n", per_log);
    printf("bench eventlog_replay_event %.0f ns\n", per_log * 1000.0 / (double)best_events);

    struct mero_eventlog log;
    if (mero_eventlog_parse(&log, best, best_len, NULL) < 0) {
        return 1;
    }
    t0 = mero_now_us();
    for (int i = 0; i < ITER; i++) {
        mero_eventlog_replay(&log, rtmr);
        sink += rtmr[1][0];
    }
    t1 = mero_now_us();
    printf("bench eventlog_replay_only_log %.2f us\n", (double)(t1 - t0) / ITER);
    mero_eventlog_cleanup(&log);
    free(best);
    printf("# checksum %u\n", sink);
    return 0;
}
