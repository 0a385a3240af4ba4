/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base58.c - base58btc (the Bitcoin alphabet) encoding and decoding, used for peer id strings and
 * the SDK's base58 keys.
 *
 * Invariant: inputs are bounded (B58_MAX_IN bytes, twice that in characters), so the
 * quadratic big-number loop stays tiny; decoding rejects any character outside the alphabet and
 * any output longer than the caller's capacity.
 */
#include <string.h>

#include "mero/encoding.h"
#include "mero/err.h"

static const char B58[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
#define B58_MAX_IN 128

int mero_base58_encode(const uint8_t *in, size_t n, char *out, size_t outcap)
{
    uint8_t digits[B58_MAX_IN * 2];
    size_t nd = 0, zeros = 0;
    if (n > B58_MAX_IN) {
        return -MERO_ETOOBIG;
    }
    while (zeros < n && in[zeros] == 0) {
        zeros++;
    }
    for (size_t i = zeros; i < n; i++) {
        unsigned carry = in[i];
        for (size_t j = 0; j < nd; j++) {
            carry += (unsigned)digits[j] << 8;
            digits[j] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        while (carry) {
            digits[nd++] = (uint8_t)(carry % 58);
            carry /= 58;
        }
    }
    if (zeros + nd + 1 > outcap) {
        return -MERO_ETOOBIG;
    }
    size_t o = 0;
    for (size_t i = 0; i < zeros; i++) {
        out[o++] = '1';
    }
    for (size_t i = 0; i < nd; i++) {
        out[o++] = B58[digits[nd - 1 - i]];
    }
    out[o] = 0;
    return 0;
}

int mero_base58_decode(const char *in, uint8_t *out, size_t *len)
{
    uint8_t bytes[B58_MAX_IN * 2];
    size_t nb = 0, zeros = 0, n = strlen(in);
    if (n == 0 || n > B58_MAX_IN * 2) {
        return -MERO_EINVAL;
    }
    while (zeros < n && in[zeros] == '1') {
        zeros++;
    }
    for (size_t i = zeros; i < n; i++) {
        const char *q = memchr(B58, in[i], sizeof(B58) - 1);
        if (q == NULL || in[i] == 0) {
            return -MERO_EINVAL;
        }
        unsigned carry = (unsigned)(q - B58);
        for (size_t j = 0; j < nb; j++) {
            carry += (unsigned)bytes[j] * 58;
            bytes[j] = (uint8_t)(carry & 0xff);
            carry >>= 8;
        }
        while (carry) {
            if (nb >= sizeof(bytes)) {
                return -MERO_ETOOBIG;
            }
            bytes[nb++] = (uint8_t)(carry & 0xff);
            carry >>= 8;
        }
    }
    if (zeros + nb > *len) {
        return -MERO_ETOOBIG;
    }
    memset(out, 0, zeros);
    for (size_t i = 0; i < nb; i++) {
        out[zeros + i] = bytes[nb - 1 - i];
    }
    *len = zeros + nb;
    return 0;
}
