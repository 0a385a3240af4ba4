/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_multistream.c - libFuzzer target for the multistream-select decoder and negotiator:
 * the input is fed, as listener and as dialer, in two chunks split at the first byte's value,
 * and must never crash, over-read or loop; consumed counts stay within the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/multistream_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int match(void *ud, const uint8_t *name, size_t len)
{
    (void)ud;
    if (len == 6 && memcmp(name, "/noise", 6) == 0) {
        return 0;
    }
    return (len == 12 && memcmp(name, "/yamux/1.0.0", 12) == 0) ? 1 : -1;
}

static void feed(int dialer, const uint8_t *d, size_t n, size_t split)
{
    struct mero__mss m = {dialer, MERO__MSS_WAIT_HDR, "/noise"};
    struct mero_buf out;
    size_t used = 0, off = 0;
    int sel = -1;
    mero_buf_init(&out, 1 << 16);
    for (int round = 0; round < 2 && off <= n; round++) {
        size_t lim = round == 0 ? (split < n ? split : n) : n;
        int rc = mero__mss_step(&m, d + off, lim - off, &used, &out, match, NULL, &sel);
        if (used > lim - off) {
            abort();
        }
        off += used;
        if (rc != 0) {
            break;
        }
    }
    mero_buf_cleanup(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *msg;
    size_t mlen, used;
    if (size == 0) {
        return 0;
    }
    if (mero__mss_parse(data + 1, size - 1, &msg, &mlen, &used) == 1 &&
        (used > size - 1 || mlen >= used)) {
        abort();
    }
    feed(0, data + 1, size - 1, data[0]);
    feed(1, data + 1, size - 1, data[0]);
    return 0;
}
