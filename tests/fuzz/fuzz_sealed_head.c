/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sealed_head.c - libFuzzer target for the sealed exchange's inner request head
 * (src/api/sealed_head.c): the input is read twice, the fast way first (falling back to
 * jansson) and by jansson alone, and the two readings must agree, verdict and strings, or the
 * target aborts. The fast reading must not read past the input either (ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/sealed_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sealed_head fa, ja;
    uint8_t *a = malloc(size + 1), *b = malloc(size + 1); /* + 1: malloc(0) may be NULL */
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return 0;
    }
    memcpy(a, data, size);
    memcpy(b, data, size);
    int rf = mero__sealed_head_parse(a, size, true, &fa);
    int rj = mero__sealed_head_parse(b, size, false, &ja);
    if (rf != rj ||
        (rf == 0 && (strcmp(fa.method, ja.method) != 0 || strcmp(fa.path, ja.path) != 0 ||
                     (fa.auth == NULL) != (ja.auth == NULL) || fa.alen != ja.alen ||
                     (fa.auth != NULL && memcmp(fa.auth, ja.auth, fa.alen + 1) != 0)))) {
        abort();
    }
    mero__sealed_head_cleanup(&fa);
    mero__sealed_head_cleanup(&ja);
    free(a);
    free(b);
    return 0;
}
