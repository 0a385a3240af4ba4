/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frame_cache.c - one spare buffer per net for large request/response frames. A frame of a
 * megabyte or more is built (sender) or assembled (receiver) whole; taking the storage of the
 * previous one instead of fresh memory spares the kernel a page fault on every 4 KiB of it,
 * which on loopback cost about as much as the encryption itself.
 *
 * Invariants: the cache holds at most one buffer, of at most cfg.max_frame + 16 bytes (a whole
 * frame with its length prefix), so the memory it keeps is bounded by one frame; a buffer is
 * wiped up to its length before it is cached, so the cache never holds data; buffers under
 * MERO__FRAME_CACHE_MIN are not cached (malloc serves those well); the receiver only ever
 * pre-sizes from memory the cache already holds, so a length prefix alone never makes us
 * reserve memory.
 */
#include <stdlib.h>

#include "mero/crypto.h"
#include "net/net_internal.h"

static size_t limit(const struct mero_net *net)
{
    return (size_t)net->cfg.max_frame + 16;
}

int mero__frame_cache_take(struct mero_net *net, struct mero_buf *b, size_t n)
{
    if (n < MERO__FRAME_CACHE_MIN || b->data != NULL || net->spare.cap <= n) {
        return 0;
    }
    return mero_buf_move(b, &net->spare) == 0; /* spare.len is 0: always fits */
}

int mero__frame_cache_get(struct mero_net *net, struct mero_buf *b, size_t n)
{
    if (mero__frame_cache_take(net, b, n)) {
        return 0;
    }
    b->data = malloc(n + 1); /* exactly: mero_buf's doubling would reserve up to 2n */
    if (b->data == NULL) {
        return -MERO_ENOMEM;
    }
    b->cap = n + 1;
    return 0;
}

void mero__frame_cache_put(struct mero_net *net, struct mero_buf *b)
{
    if (b->data == NULL || b->cap < MERO__FRAME_CACHE_MIN || net->freeing ||
        (net->spare.cap >= b->cap && net->spare.cap <= limit(net))) {
        mero_buf_cleanup(b);
        return;
    }
    mero_wipe(b->data, b->len);
    b->len = 0;
    if (b->cap > limit(net)) {
        uint8_t *p = realloc(b->data, limit(net)); /* keeps the pages already touched */
        if (p == NULL) {
            mero_buf_cleanup(b);
            return;
        }
        b->data = p;
        b->cap = limit(net);
    }
    if (mero_buf_move(&net->spare, b) < 0) {
        mero_buf_cleanup(b);
    }
}

void mero__frame_cache_free(struct mero_net *net)
{
    mero_buf_cleanup(&net->spare);
}
