/* SPDX-License-Identifier: Apache-2.0 */
/*
 * encoding.h - lowercase hex, standard base64 (with padding), and a checked string-to-integer
 * helper. Decoders are strict: they refuse anything that is not exactly the encoding.
 *
 * Thread safety: every function here is pure: safe from any thread.
 */
#ifndef MERO_ENCODING_H
#define MERO_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"

/* Write 2n lowercase hex chars plus a NUL into out (size >= 2n+1). */
void mero_hex_encode(char *out, const uint8_t *in, size_t n);
/* Append lowercase hex of in to a buffer (no NUL). */
MERO_MUST_CHECK int mero_hex_append(struct mero_buf *b, const uint8_t *in, size_t n);
/*
 * Decode hex (either case, even length, no separators) of `len` chars into out[outcap].
 * *outlen gets the byte count. -MERO_EHEX on a bad char or odd length, -MERO_ETOOBIG if it
 * does not fit.
 */
MERO_MUST_CHECK int mero_hex_decode(uint8_t *out, size_t outcap, const char *hex, size_t len,
                                    size_t *outlen);
/* Decode exactly n bytes of hex; anything else is -MERO_EHEX. */
MERO_MUST_CHECK int mero_hex_decode_exact(uint8_t *out, size_t n, const char *hex, size_t len);
/* The value of one hex digit (either case), or -MERO_EHEX. */
int mero_hex_nibble(char c);
/* True when s[0..len) is exactly `n` bytes of hex (2n digits, either case, nothing else). */
bool mero_hex_is(const char *s, size_t len, size_t n);
/* Lowercase hex of in[0..n) as a new JSON string (jansson's json_t), or NULL on ENOMEM. */
struct json_t;
struct json_t *mero_json_hex(const uint8_t *in, size_t n);
/* Decode hex into a new heap buffer (free with free()). */
MERO_MUST_CHECK int mero_hex_decode_alloc(const char *hex, size_t len, size_t max, uint8_t **out,
                                          size_t *outlen);

/* base58btc (Bitcoin alphabet), at most 128 input bytes. encode writes a NUL-terminated string
 * into out[outcap]; decode takes *len as the capacity of out and sets it to the length.
 * -MERO_EINVAL for a character outside the alphabet, -MERO_ETOOBIG when it does not fit. */
MERO_MUST_CHECK int mero_base58_encode(const uint8_t *in, size_t n, char *out, size_t outcap);
MERO_MUST_CHECK int mero_base58_decode(const char *in, uint8_t *out, size_t *len);

/* Standard base64 with padding; returns an owned NUL-terminated string or NULL on ENOMEM. */
char *mero_base64_encode(const uint8_t *in, size_t n);
/* Decode standard base64 (padding required, no whitespace) into a new heap buffer. */
MERO_MUST_CHECK int mero_base64_decode_alloc(const char *s, size_t len, size_t max, uint8_t **out,
                                             size_t *outlen);

/* Parse an unsigned decimal integer in [0, max]; whole string must be digits. */
MERO_MUST_CHECK int mero_parse_u64(const char *s, uint64_t max, uint64_t *out);

#endif
