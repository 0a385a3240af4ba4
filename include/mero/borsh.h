/* SPDX-License-Identifier: Apache-2.0 */
/*
 * borsh.h - the borsh-style codec used for ops and wire messages: little-endian integers,
 * u32 length prefixes for byte strings, strings and vectors, u8 enum tags, bool as one byte
 * (0 or 1, anything else refused), Option as 0x00 | 0x01 value.
 *
 * Invariant: every decoded length is checked against what remains and against the caller's
 * maximum before anything is allocated or copied.
 *
 * Thread safety: every function here is safe on distinct objects (a buffer or cursor is
 * used by one thread at a time); none has shared state.
 */
#ifndef MERO_BORSH_H
#define MERO_BORSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"

MERO_MUST_CHECK int mero_borsh_put_bool(struct mero_buf *b, bool v);
/* u32 length then the bytes */
MERO_MUST_CHECK int mero_borsh_put_bytes(struct mero_buf *b, const uint8_t *p, size_t n);
MERO_MUST_CHECK int mero_borsh_put_str(struct mero_buf *b, const char *s);

MERO_MUST_CHECK int mero_borsh_get_bool(struct mero_cur *c, bool *v);
/* Borrow a u32-length-prefixed byte string of at most `max` bytes. */
MERO_MUST_CHECK int mero_borsh_get_bytes(struct mero_cur *c, size_t max, const uint8_t **p,
                                         size_t *n);
/* Copy a u32-length-prefixed UTF-8-ish string (no NUL inside) into out[outcap] with NUL. */
MERO_MUST_CHECK int mero_borsh_get_str(struct mero_cur *c, char *out, size_t outcap);
/* Same, heap-allocated (free with free()). */
MERO_MUST_CHECK int mero_borsh_get_str_alloc(struct mero_cur *c, size_t max, char **out);
/* A u32 vector count, refused above max. */
MERO_MUST_CHECK int mero_borsh_get_count(struct mero_cur *c, uint32_t max, uint32_t *n);

#endif
