/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_tee_verify.c - the calimero-tee-verify contract in process (mero_tee_verify_json), the
 * baseline of bench/verify_langs.bench.sh: one request (JSON text in a file) judged N times per
 * round after a warm-up, so the collateral is cached as it is in a long-lived --serve process or
 * a Python program; the median round's cost per verification is printed as
 * `bench tee_verify_inproc <us> us` (wall clock) and `bench tee_verify_inproc_cpu <us> us`
 * (this process's CPU time, which a loaded machine disturbs far less). Without arguments it
 * only says it is driven by that script.
 * Usage: bench_tee_verify REQUEST.json [N [SUFFIX]]   (SUFFIX is appended to the bench names)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/tee_verify.h"
#include "support/bench_util.h"

#define ROUNDS 7

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        puts("# bench_tee_verify: run by bench/verify_langs.bench.sh (needs a request file)");
        return 0;
    }
    uint64_t n = 300;
    if (argc > 2 && (mero_parse_u64(argv[2], 1000000, &n) < 0 || n == 0)) {
        fprintf(stderr, "bench_tee_verify: N must be a positive integer\n");
        return 1;
    }
    size_t len = 0;
    uint8_t *req = mero_bench_read(argv[1], &len);
    if (req == NULL) {
        fprintf(stderr, "bench_tee_verify: cannot read %s\n", argv[1]);
        return 1;
    }
    struct mero_buf out;
    char msg[1100];
    int rc = 0;
    double per[ROUNDS], cpu[ROUNDS];
    mero_buf_init(&out, 1u << 20);
    for (int i = 0; i < 20 && rc == 0; i++) {
        rc = mero_tee_verify_json((const char *)req, len, true, &out, msg, sizeof(msg));
    }
    if (rc != 0 || strstr((const char *)out.data, "\"valid\":true") == NULL) {
        fprintf(stderr, "bench_tee_verify: the request is not a valid verdict (exit %d)\n", rc);
        rc = 1;
        goto out;
    }
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = mero_now_ns(), c0 = cpu_ns();
        for (uint64_t i = 0; i < n; i++) {
            rc |= mero_tee_verify_json((const char *)req, len, true, &out, msg, sizeof(msg));
        }
        per[r] = (double)(mero_now_ns() - t0) / 1000.0 / (double)n;
        cpu[r] = (double)(cpu_ns() - c0) / 1000.0 / (double)n;
    }
    qsort(per, ROUNDS, sizeof(per[0]), cmp);
    qsort(cpu, ROUNDS, sizeof(cpu[0]), cmp);
    const char *sfx = argc > 3 ? argv[3] : "";
    printf("bench tee_verify_inproc%s %.1f us\n", sfx, per[ROUNDS / 2]);
    printf("bench tee_verify_inproc%s_cpu %.1f us\n", sfx, cpu[ROUNDS / 2]);
out:
    mero_buf_cleanup(&out);
    free(req);
    return rc != 0;
}
