/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_quote.c - quote-layer throughput on a real v4 quote: mero_quote_parse, the PCK leaf
 * read (OpenSSL PEM + our DER walk) and the JSON form. Prints `bench <name> <ns> ns/op`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mero/clock.h"
#include "mero/quote.h"
#include "support/bench_util.h"

int main(void)
{
    size_t len;
    uint8_t *p = mero_bench_read_shared("testdata/tdx/dcapqvl-1/quote.bin", &len);
    struct mero_quote q;
    if (p == NULL || mero_quote_parse(&q, p, len, NULL) != 0) {
        fprintf(stderr, "bench_quote: cannot load the quote\n");
        free(p);
        return 1;
    }
    volatile size_t sink = 0;
    const int n_parse = 200000, n_pck = 2000, n_json = 5000;
    uint64_t t0 = mero_now_ns();
    for (int i = 0; i < n_parse; i++) {
        if (mero_quote_parse(&q, p, len, NULL) == 0) {
            sink += q.total_len;
        }
    }
    uint64_t t1 = mero_now_ns();
    struct mero_pck_info pi;
    for (int i = 0; i < n_pck; i++) {
        if (mero_quote_pck_info(&q, &pi, NULL) == 0) {
            sink += pi.pcesvn;
        }
    }
    uint64_t t2 = mero_now_ns();
    for (int i = 0; i < n_json; i++) {
        struct mero_buf b;
        mero_buf_init(&b, 1 << 16);
        if (mero_quote_to_json(&q, &b) == 0) {
            sink += b.len;
        }
        mero_buf_cleanup(&b);
    }
    uint64_t t3 = mero_now_ns();
    printf("bench quote_parse %.0f ns/op\n", (double)(t1 - t0) / n_parse);
    printf("bench quote_pck_info %.0f ns/op\n", (double)(t2 - t1) / n_pck);
    printf("bench quote_to_json %.0f ns/op\n", (double)(t3 - t2) / n_json);
    free(p);
    return sink == 0;
}
