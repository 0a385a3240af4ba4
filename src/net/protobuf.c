/* SPDX-License-Identifier: Apache-2.0 */
/*
 * protobuf.c - the minimal protobuf wire codec the libp2p messages need (Noise payload,
 * PublicKey, identify, gossipsub RPC): varint and length-delimited fields, skipping of fixed
 * 32/64-bit fields.
 *
 * Invariant: a decoded LEN field never extends past the input; group wire types (3, 4) and
 * field number 0 are malformed input.
 */
#include <string.h>

#include "net/protobuf_internal.h"

int mero__pb_next(struct mero_cur *c, struct mero__pb_field *f)
{
    uint64_t key;
    size_t start = c->off;
    if (mero_cur_left(c) == 0) {
        return 0;
    }
    if (mero_cur_uvarint(c, &key) < 0) {
        return -MERO_EPROTO;
    }
    memset(f, 0, sizeof(*f));
    f->start = start;
    f->wt = (int)(key & 7);
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff) {
        return -MERO_EPROTO;
    }
    f->num = (uint32_t)(key >> 3);
    switch (f->wt) {
    case MERO__PB_VARINT:
        if (mero_cur_uvarint(c, &f->v) < 0) {
            return -MERO_EPROTO;
        }
        break;
    case MERO__PB_I64:
        if (mero_cur_skip(c, 8) < 0) {
            return -MERO_ETRUNC;
        }
        break;
    case MERO__PB_I32:
        if (mero_cur_skip(c, 4) < 0) {
            return -MERO_ETRUNC;
        }
        break;
    case MERO__PB_LEN: {
        uint64_t n;
        if (mero_cur_uvarint(c, &n) < 0) {
            return -MERO_EPROTO;
        }
        if (n > mero_cur_left(c)) {
            return -MERO_ETRUNC;
        }
        if (mero_cur_bytes(c, (size_t)n, &f->p) < 0) {
            return -MERO_ETRUNC;
        }
        f->n = (size_t)n;
        break;
    }
    default:
        return -MERO_EPROTO;
    }
    f->end = c->off;
    return 1;
}

int mero__pb_put_varint(struct mero_buf *b, uint32_t num, uint64_t v)
{
    MERO_TRY(mero_buf_append_uvarint(b, ((uint64_t)num << 3) | MERO__PB_VARINT));
    return mero_buf_append_uvarint(b, v);
}

int mero__pb_put_len(struct mero_buf *b, uint32_t num, size_t n)
{
    MERO_TRY(mero_buf_append_uvarint(b, ((uint64_t)num << 3) | MERO__PB_LEN));
    return mero_buf_append_uvarint(b, n);
}

int mero__pb_put_bytes(struct mero_buf *b, uint32_t num, const void *p, size_t n)
{
    MERO_TRY(mero__pb_put_len(b, num, n));
    return n ? mero_buf_append(b, p, n) : 0;
}

int mero__pb_put_str(struct mero_buf *b, uint32_t num, const char *s)
{
    return mero__pb_put_bytes(b, num, s, strlen(s));
}
