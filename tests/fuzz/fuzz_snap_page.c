/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_snap_page.c - libFuzzer target for the decoder of a live-state page (issue 37,
 * mero__node_snap_page_decode, src/node/sync_snap.c): whatever the bytes, it either refuses them
 * or returns counts within their maxima and regions that lie inside the input and walk as
 * (len u32, delta) lists of exactly the counts it reports. Nothing may crash or read out of
 * bounds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mero/buf.h"
#include "node/context/context_internal.h"
#include "node/sync_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The region p[0..len) holds exactly count (len u32, bytes) entries, each 1..MERO_DELTA_MAX. */
static void walk(const uint8_t *p, size_t len, uint32_t count)
{
    struct mero_cur c;
    uint32_t seen = 0;
    mero_cur_init(&c, p, len);
    while (mero_cur_left(&c) > 0) {
        uint32_t n;
        const uint8_t *b;
        if (mero_cur_u32le(&c, &n) < 0 || n == 0 || n > MERO_DELTA_MAX ||
            mero_cur_bytes(&c, n, &b) < 0) {
            abort();
        }
        seen++;
    }
    if (seen != count) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_snap_page pg;
    if (mero__node_snap_page_decode(data, size, &pg) < 0 || pg.status != MERO_SNAP_OK) {
        return 0;
    }
    if (pg.nheads > MERO_SNAP_HEADS_MAX || pg.n > MERO_SNAP_PAGE_MAX ||
        pg.vals_len > MERO_SNAP_PAGE_BYTES || pg.clock > MERO_LAMPORT_MAX) {
        abort();
    }
    if ((pg.heads_len > 0 && (pg.heads < data || pg.heads + pg.heads_len > data + size)) ||
        (pg.vals_len > 0 && (pg.vals < data || pg.vals + pg.vals_len > data + size))) {
        abort();
    }
    walk(pg.heads, pg.heads_len, pg.nheads);
    walk(pg.vals, pg.vals_len, pg.n);
    return 0;
}
