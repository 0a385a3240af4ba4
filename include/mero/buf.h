/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.h - the one bounded growable buffer (struct mero_buf) and the one read cursor
 * (struct mero_cur) that every encoder and parser in libmero uses.
 *
 * Invariants: a mero_buf never grows beyond its `max`; an append that would exceed it fails
 * with -MERO_ETOOBIG and leaves the buffer unchanged. A mero_cur never reads past `len`: every
 * read checks what remains first and fails with -MERO_ETRUNC, leaving the cursor unchanged.
 *
 * Thread safety: every function here is safe on distinct objects: a mero_buf or mero_cur is
 * used by one thread at a time; there is no shared state.
 */
#ifndef MERO_BUF_H
#define MERO_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

struct mero_buf {
    uint8_t *data; /* owned; NULL until the first append */
    size_t len;
    size_t cap;
    size_t max; /* hard limit on len */
};

/* Initialise an empty buffer that may hold at most `max` bytes. Never fails. */
void mero_buf_init(struct mero_buf *b, size_t max);
/* Free the storage (wiping it first) and reset to empty; safe on an initialised or zeroed buf. */
void mero_buf_cleanup(struct mero_buf *b);
/* Drop (and wipe) the contents, keep the storage. */
void mero_buf_reset(struct mero_buf *b);
/* Drop the first n bytes (n <= len), moving the rest to the front and wiping the vacated tail. */
void mero_buf_consume(struct mero_buf *b, size_t n);
MERO_MUST_CHECK int mero_buf_append(struct mero_buf *b, const void *p, size_t n);
MERO_MUST_CHECK int mero_buf_append_u8(struct mero_buf *b, uint8_t v);
MERO_MUST_CHECK int mero_buf_append_u16le(struct mero_buf *b, uint16_t v);
MERO_MUST_CHECK int mero_buf_append_u32le(struct mero_buf *b, uint32_t v);
MERO_MUST_CHECK int mero_buf_append_u64le(struct mero_buf *b, uint64_t v);
MERO_MUST_CHECK int mero_buf_append_str(struct mero_buf *b, const char *s);
/* Append printf-formatted text (no NUL stored). */
MERO_MUST_CHECK int mero_buf_printf(struct mero_buf *b, const char *fmt, ...) MERO_PRINTF(2, 3);
/* Ensure data[len] == 0 without counting it, so data can be used as a C string. */
MERO_MUST_CHECK int mero_buf_nul(struct mero_buf *b);
/*
 * Make room for `extra` more bytes without adding any, for a writer that fills data + len
 * itself (a socket read) and then advances len. -MERO_ETOOBIG beyond max, nothing changed.
 */
MERO_MUST_CHECK int mero_buf_reserve(struct mero_buf *b, size_t extra);
/*
 * Move src's storage and contents into dst (dst keeps its own max; src->len must fit it, else
 * -MERO_ETOOBIG and nothing changes): dst's old storage is wiped and freed, src becomes empty.
 */
MERO_MUST_CHECK int mero_buf_move(struct mero_buf *dst, struct mero_buf *src);
/* Hand the storage to the caller (free with free()); the buffer becomes empty. */
uint8_t *mero_buf_steal(struct mero_buf *b, size_t *len);

struct mero_cur {
    const uint8_t *p; /* borrowed */
    size_t len;
    size_t off;
};

static inline void mero_cur_init(struct mero_cur *c, const void *p, size_t len)
{
    c->p = (const uint8_t *)p;
    c->len = len;
    c->off = 0;
}

static inline size_t mero_cur_left(const struct mero_cur *c)
{
    return c->len - c->off;
}

MERO_MUST_CHECK int mero_cur_u8(struct mero_cur *c, uint8_t *v);
MERO_MUST_CHECK int mero_cur_u16le(struct mero_cur *c, uint16_t *v);
MERO_MUST_CHECK int mero_cur_u32le(struct mero_cur *c, uint32_t *v);
MERO_MUST_CHECK int mero_cur_u64le(struct mero_cur *c, uint64_t *v);
/* Borrow n bytes at the cursor (valid while the underlying input lives) and advance. */
MERO_MUST_CHECK int mero_cur_bytes(struct mero_cur *c, size_t n, const uint8_t **out);
/* Copy n bytes out and advance. */
MERO_MUST_CHECK int mero_cur_copy(struct mero_cur *c, void *out, size_t n);
MERO_MUST_CHECK int mero_cur_skip(struct mero_cur *c, size_t n);
/* Unsigned LEB128 varint (libp2p/protobuf form), at most 10 bytes, no overflow. */
MERO_MUST_CHECK int mero_cur_uvarint(struct mero_cur *c, uint64_t *v);
MERO_MUST_CHECK int mero_buf_append_uvarint(struct mero_buf *b, uint64_t v);

#endif
