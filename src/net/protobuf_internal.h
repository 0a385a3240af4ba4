/* SPDX-License-Identifier: Apache-2.0 */
/*
 * protobuf_internal.h - the minimal protobuf reader and writers the libp2p messages need
 * (protobuf.c). Pure codec, no I/O. Private to src/net.
 */
#ifndef MERO_NET_PROTOBUF_INTERNAL_H
#define MERO_NET_PROTOBUF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"

enum { MERO__PB_VARINT = 0, MERO__PB_I64 = 1, MERO__PB_LEN = 2, MERO__PB_I32 = 5 };
struct mero__pb_field {
    uint32_t num;
    int wt;
    uint64_t v;       /* varint / fixed value */
    const uint8_t *p; /* LEN payload (borrowed) */
    size_t n;
    size_t start, end; /* offsets of the whole field in the input */
};
/* Next field: 1 and *f filled, 0 at end of input, negative on malformed input. */
MERO_MUST_CHECK int mero__pb_next(struct mero_cur *c, struct mero__pb_field *f);
MERO_MUST_CHECK int mero__pb_put_varint(struct mero_buf *b, uint32_t num, uint64_t v);
MERO_MUST_CHECK int mero__pb_put_bytes(struct mero_buf *b, uint32_t num, const void *p, size_t n);
MERO_MUST_CHECK int mero__pb_put_str(struct mero_buf *b, uint32_t num, const char *s);
/* Header (tag + length) of a LEN field whose body follows. */
MERO_MUST_CHECK int mero__pb_put_len(struct mero_buf *b, uint32_t num, size_t n);

#endif
