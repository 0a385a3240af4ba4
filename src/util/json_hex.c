/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_hex.c - bytes as a lowercase-hex JSON string, the form every id, key and measurement
 * takes in our JSON (API answers, verifier output, fleet-join reports).
 * Invariant: the string holds exactly 2n hex digits; a failed allocation is NULL, never a
 * truncated string.
 */
#include <stdlib.h>

#include <jansson.h>

#include "mero/encoding.h"

struct json_t *mero_json_hex(const uint8_t *in, size_t n)
{
    if (n > (SIZE_MAX - 1) / 2) {
        return NULL;
    }
    char *s = malloc(2 * n + 1);
    if (s == NULL) {
        return NULL;
    }
    mero_hex_encode(s, in, n);
    json_t *j = json_stringn(s, 2 * n);
    free(s);
    return j;
}
