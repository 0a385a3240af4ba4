/* SPDX-License-Identifier: Apache-2.0 */
/*
 * borsh.c - borsh-style primitives over mero_buf / mero_cur.
 * Invariant: decoded lengths are bounded by both the remaining input and a caller maximum.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/borsh.h"

int mero_borsh_put_bool(struct mero_buf *b, bool v)
{
    return mero_buf_append_u8(b, v ? 1 : 0);
}

int mero_borsh_put_bytes(struct mero_buf *b, const uint8_t *p, size_t n)
{
    if (n > UINT32_MAX) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(mero_buf_append_u32le(b, (uint32_t)n));
    return mero_buf_append(b, p, n);
}

int mero_borsh_put_str(struct mero_buf *b, const char *s)
{
    return mero_borsh_put_bytes(b, (const uint8_t *)s, strlen(s));
}

int mero_borsh_get_bool(struct mero_cur *c, bool *v)
{
    uint8_t t;
    size_t save = c->off;
    MERO_TRY(mero_cur_u8(c, &t));
    if (t > 1) {
        c->off = save;
        return -MERO_EOPDECODE;
    }
    *v = t == 1;
    return 0;
}

int mero_borsh_get_bytes(struct mero_cur *c, size_t max, const uint8_t **p, size_t *n)
{
    uint32_t len;
    size_t save = c->off;
    /* the length is a u32 count like any other: no max above UINT32_MAX changes the answer */
    MERO_TRY(mero_borsh_get_count(c, max < UINT32_MAX ? (uint32_t)max : UINT32_MAX, &len));
    int rc = mero_cur_bytes(c, len, p);
    if (rc < 0) {
        c->off = save;
        return rc;
    }
    *n = len;
    return 0;
}

int mero_borsh_get_str(struct mero_cur *c, char *out, size_t outcap)
{
    const uint8_t *p;
    size_t n;
    size_t save = c->off;
    if (outcap == 0) {
        return -MERO_EINVAL;
    }
    MERO_TRY(mero_borsh_get_bytes(c, outcap - 1, &p, &n));
    if (memchr(p, 0, n) != NULL) {
        c->off = save;
        return -MERO_EOPDECODE;
    }
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

int mero_borsh_get_str_alloc(struct mero_cur *c, size_t max, char **out)
{
    const uint8_t *p;
    size_t n;
    size_t save = c->off;
    MERO_TRY(mero_borsh_get_bytes(c, max, &p, &n));
    if (memchr(p, 0, n) != NULL) {
        c->off = save;
        return -MERO_EOPDECODE;
    }
    char *s = malloc(n + 1);
    if (s == NULL) {
        c->off = save;
        return -MERO_ENOMEM;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    *out = s;
    return 0;
}

int mero_borsh_get_count(struct mero_cur *c, uint32_t max, uint32_t *n)
{
    uint32_t v;
    size_t save = c->off;
    MERO_TRY(mero_cur_u32le(c, &v));
    if (v > max) {
        c->off = save;
        return -MERO_ETOOBIG;
    }
    *n = v;
    return 0;
}
