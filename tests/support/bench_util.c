/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_util.c - whole-file reads for the benchmarks. Invariant: a file is read to its end or
 * not at all (no silent truncation), up to a 64 MiB cap.
 */
#include <stdio.h>
#include <stdlib.h>

#include "support/bench_util.h"

#define BENCH_READ_MAX (64u << 20)

uint8_t *mero_bench_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    while (p != NULL) {
        n += fread(p + n, 1, cap - n, f);
        if (n < cap) {
            break;
        }
        uint8_t *q = cap >= BENCH_READ_MAX ? NULL : realloc(p, cap * 2);
        if (q == NULL) {
            free(p);
            p = NULL;
            break;
        }
        p = q;
        cap *= 2;
    }
    if (p != NULL && ferror(f)) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p != NULL) {
        *len = n;
    }
    return p;
}

uint8_t *mero_bench_read_shared(const char *rel, size_t *len)
{
    char path[1024];
    const char *shared = getenv("MERO_SHARED");
#ifdef MERO_SHARED_DIR
    if (shared == NULL) {
        shared = MERO_SHARED_DIR;
    }
#endif
    snprintf(path, sizeof(path), "%s/%s", shared ? shared : "../shared", rel);
    return mero_bench_read(path, len);
}
