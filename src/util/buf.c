/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.c - the bounded growable buffer and the checked read cursor.
 * Invariants: len <= max always; storage exists exactly when cap > 0 (data NULL means cap and
 * len 0) and then len <= cap (cap itself may pass max: growth doubles, and a move or the net
 * frame cache hands over storage sized for another max); every function checks this on entry
 * and exit with MERO_ASSERT (debug and sanitizer builds). A failed append or read changes
 * nothing; bytes at or beyond len never hold data (reset wipes what it drops), so cleanup wipes
 * only [0, len) and never touches pages the buffer reserved but did not use.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "mero/buf.h"

#define BUF_FIRST_CAP 64 /* bytes a buffer allocates first; it doubles as needed */

/* The buffer invariant (see the top comment); free in release builds. */
#define BUF_OK(b)                                                                                  \
    MERO_ASSERT((b)->len <= (b)->max &&                                                            \
                ((b)->data == NULL ? (b)->cap == 0 && (b)->len == 0                                \
                                   : (b)->cap > 0 && (b)->len <= (b)->cap))

void mero_buf_init(struct mero_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    BUF_OK(b);
}

void mero_buf_cleanup(struct mero_buf *b)
{
    BUF_OK(b);
    if (b->data != NULL) {
        sodium_memzero(b->data, b->len);
        free(b->data);
    }
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void mero_buf_reset(struct mero_buf *b)
{
    BUF_OK(b);
    if (b->data != NULL) {
        sodium_memzero(b->data, b->len);
    }
    b->len = 0;
}

void mero_buf_consume(struct mero_buf *b, size_t n)
{
    BUF_OK(b);
    if (n == 0 || b->data == NULL) {
        return;
    }
    if (n > b->len) {
        n = b->len;
    }
    memmove(b->data, b->data + n, b->len - n);
    sodium_memzero(b->data + b->len - n, n);
    b->len -= n;
    BUF_OK(b);
}

static int reserve(struct mero_buf *b, size_t extra)
{
    BUF_OK(b);
    if (extra > b->max || b->len > b->max - extra) {
        return -MERO_ETOOBIG;
    }
    size_t need = b->len + extra + 1; /* room for an optional NUL */
    if (need <= b->cap) {
        return 0;
    }
    size_t ncap = b->cap ? b->cap : BUF_FIRST_CAP;
    while (ncap < need) {
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    }
    uint8_t *p = realloc(b->data, ncap);
    if (p == NULL) {
        return -MERO_ENOMEM;
    }
    b->data = p;
    b->cap = ncap;
    BUF_OK(b);
    MERO_ASSERT(b->len + extra < b->cap);
    return 0;
}

int mero_buf_reserve(struct mero_buf *b, size_t extra)
{
    return reserve(b, extra);
}

int mero_buf_move(struct mero_buf *dst, struct mero_buf *src)
{
    BUF_OK(dst);
    BUF_OK(src);
    if (src->len > dst->max) {
        return -MERO_ETOOBIG;
    }
    if (dst == src) {
        return 0;
    }
    mero_buf_cleanup(dst);
    dst->data = src->data;
    dst->len = src->len;
    dst->cap = src->cap;
    src->data = NULL;
    src->len = 0;
    src->cap = 0;
    BUF_OK(dst);
    return 0;
}

int mero_buf_append(struct mero_buf *b, const void *p, size_t n)
{
    if (n == 0) {
        return reserve(b, 0);
    }
    MERO_TRY(reserve(b, n));
    memcpy(b->data + b->len, p, n);
    b->len += n;
    BUF_OK(b);
    return 0;
}

int mero_buf_append_u8(struct mero_buf *b, uint8_t v)
{
    return mero_buf_append(b, &v, 1);
}

int mero_buf_append_u16le(struct mero_buf *b, uint16_t v)
{
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    return mero_buf_append(b, t, 2);
}

int mero_buf_append_u32le(struct mero_buf *b, uint32_t v)
{
    uint8_t t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = (uint8_t)(v >> (8 * i));
    }
    return mero_buf_append(b, t, 4);
}

int mero_buf_append_u64le(struct mero_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++) {
        t[i] = (uint8_t)(v >> (8 * i));
    }
    return mero_buf_append(b, t, 8);
}

int mero_buf_append_str(struct mero_buf *b, const char *s)
{
    return mero_buf_append(b, s, strlen(s));
}

int mero_buf_printf(struct mero_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return -MERO_EINVAL;
    }
    MERO_TRY(reserve(b, (size_t)n));
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    BUF_OK(b);
    return 0;
}

int mero_buf_nul(struct mero_buf *b)
{
    BUF_OK(b);
    MERO_TRY(reserve(b, 0));
    b->data[b->len] = 0;
    return 0;
}

uint8_t *mero_buf_steal(struct mero_buf *b, size_t *len)
{
    BUF_OK(b);
    uint8_t *p = b->data;
    if (len != NULL) {
        *len = b->len;
    }
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return p;
}

int mero_cur_bytes(struct mero_cur *c, size_t n, const uint8_t **out)
{
    if (n > mero_cur_left(c)) {
        return -MERO_ETRUNC;
    }
    *out = c->p + c->off;
    c->off += n;
    return 0;
}

int mero_cur_copy(struct mero_cur *c, void *out, size_t n)
{
    const uint8_t *p;
    MERO_TRY(mero_cur_bytes(c, n, &p));
    if (n > 0) {
        memcpy(out, p, n);
    }
    return 0;
}

int mero_cur_skip(struct mero_cur *c, size_t n)
{
    const uint8_t *p;
    return mero_cur_bytes(c, n, &p);
}

int mero_cur_u8(struct mero_cur *c, uint8_t *v)
{
    const uint8_t *p;
    MERO_TRY(mero_cur_bytes(c, 1, &p));
    *v = p[0];
    return 0;
}

int mero_cur_u16le(struct mero_cur *c, uint16_t *v)
{
    const uint8_t *p;
    MERO_TRY(mero_cur_bytes(c, 2, &p));
    *v = (uint16_t)(p[0] | (p[1] << 8));
    return 0;
}

int mero_cur_u32le(struct mero_cur *c, uint32_t *v)
{
    const uint8_t *p;
    MERO_TRY(mero_cur_bytes(c, 4, &p));
    *v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    return 0;
}

int mero_cur_u64le(struct mero_cur *c, uint64_t *v)
{
    const uint8_t *p;
    MERO_TRY(mero_cur_bytes(c, 8, &p));
    uint64_t r = 0;
    for (int i = 7; i >= 0; i--) {
        r = (r << 8) | p[i];
    }
    *v = r;
    return 0;
}

int mero_cur_uvarint(struct mero_cur *c, uint64_t *v)
{
    uint64_t r = 0;
    size_t save = c->off;
    for (int i = 0; i < 10; i++) {
        uint8_t byte;
        int rc = mero_cur_u8(c, &byte);
        if (rc < 0) {
            c->off = save;
            return rc;
        }
        if (i == 9 && byte > 1) {
            c->off = save;
            return -MERO_EOVERFLOW;
        }
        r |= (uint64_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
            if (i > 0 && byte == 0) {
                c->off = save; /* non-minimal encoding */
                return -MERO_EPROTO;
            }
            *v = r;
            return 0;
        }
    }
    c->off = save;
    return -MERO_EOVERFLOW;
}

int mero_buf_append_uvarint(struct mero_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        if (v) {
            byte |= 0x80;
        }
        t[n++] = byte;
    } while (v);
    return mero_buf_append(b, t, n);
}
