/* SPDX-License-Identifier: Apache-2.0 */
/*
 * encoding.c - strict hex and base64 codecs and a checked decimal parser.
 * Invariant: decoders never write past the caller's capacity and refuse non-canonical input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "mero/encoding.h"

static const char hexdig[] = "0123456789abcdef";

void mero_hex_encode(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[in[i] >> 4];
        out[2 * i + 1] = hexdig[in[i] & 15];
    }
    out[2 * n] = '\0';
}

int mero_hex_append(struct mero_buf *b, const uint8_t *in, size_t n)
{
    if (n > SIZE_MAX / 2) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(mero_buf_reserve(b, 2 * n)); /* one reservation: all or nothing */
    char *out = (char *)b->data + b->len;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[in[i] >> 4];
        out[2 * i + 1] = hexdig[in[i] & 15];
    }
    b->len += 2 * n;
    return 0;
}

int mero_hex_nibble(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -MERO_EHEX;
}

bool mero_hex_is(const char *s, size_t len, size_t n)
{
    if (s == NULL || n > SIZE_MAX / 2 || len != 2 * n) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (mero_hex_nibble(s[i]) < 0) {
            return false;
        }
    }
    return true;
}

int mero_hex_decode(uint8_t *out, size_t outcap, const char *hex, size_t len, size_t *outlen)
{
    if (len % 2 != 0) {
        return -MERO_EHEX;
    }
    if (len / 2 > outcap) {
        return -MERO_ETOOBIG;
    }
    for (size_t i = 0; i < len; i += 2) {
        int hi = mero_hex_nibble(hex[i]), lo = mero_hex_nibble(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            return -MERO_EHEX;
        }
    }
    for (size_t i = 0; i < len; i += 2) {
        out[i / 2] = (uint8_t)((mero_hex_nibble(hex[i]) << 4) | mero_hex_nibble(hex[i + 1]));
    }
    if (outlen != NULL) {
        *outlen = len / 2;
    }
    return 0;
}

int mero_hex_decode_exact(uint8_t *out, size_t n, const char *hex, size_t len)
{
    if (len != 2 * n) {
        return -MERO_EHEX;
    }
    return mero_hex_decode(out, n, hex, len, NULL);
}

int mero_hex_decode_alloc(const char *hex, size_t len, size_t max, uint8_t **out, size_t *outlen)
{
    if (len % 2 != 0) {
        return -MERO_EHEX;
    }
    if (len / 2 > max) {
        return -MERO_ETOOBIG;
    }
    uint8_t *p = malloc(len / 2 + 1);
    if (p == NULL) {
        return -MERO_ENOMEM;
    }
    int rc = mero_hex_decode(p, len / 2, hex, len, outlen);
    if (rc < 0) {
        free(p);
        return rc;
    }
    *out = p;
    return 0;
}

char *mero_base64_encode(const uint8_t *in, size_t n)
{
    size_t m = sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL);
    char *s = malloc(m);
    if (s == NULL) {
        return NULL;
    }
    sodium_bin2base64(s, m, in, n, sodium_base64_VARIANT_ORIGINAL);
    return s;
}

int mero_base64_decode_alloc(const char *s, size_t len, size_t max, uint8_t **out, size_t *outlen)
{
    if (len % 4 != 0) {
        return -MERO_EBASE64;
    }
    size_t cap = len / 4 * 3;
    if (cap > max + 2) {
        return -MERO_ETOOBIG;
    }
    uint8_t *p = malloc(cap + 1);
    if (p == NULL) {
        return -MERO_ENOMEM;
    }
    size_t n = 0;
    const char *end = NULL;
    if (sodium_base642bin(p, cap, s, len, NULL, &n, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
        end != s + len) {
        free(p);
        return -MERO_EBASE64;
    }
    if (n > max) {
        free(p);
        return -MERO_ETOOBIG;
    }
    *out = p;
    *outlen = n;
    return 0;
}

int mero_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (s == NULL || *s == '\0') {
        return -MERO_EINVAL;
    }
    for (const char *q = s; *q; q++) {
        if (*q < '0' || *q > '9') {
            return -MERO_EINVAL;
        }
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == NULL || *end != '\0' || v > max) {
        return -MERO_EINVAL;
    }
    *out = (uint64_t)v;
    return 0;
}
