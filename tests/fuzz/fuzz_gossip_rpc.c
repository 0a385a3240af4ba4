/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_gossip_rpc.c - libFuzzer target for the gossipsub RPC decoder: decode, then walk every
 * decoded message's StrictSign bytes and every IHAVE/IWANT id list; every view must lie inside
 * the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "net/gossip_rpc_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const uint8_t *base, size_t n, const uint8_t *p, size_t k)
{
    if (p && (p < base || p + k > base + n)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mero__rpc rpc;
    if (mero__rpc_decode(data, size, &rpc) < 0) {
        return 0;
    }
    for (size_t i = 0; i < rpc.nmsgs; i++) {
        const struct mero__rpc_msg *m = &rpc.msgs[i];
        struct mero_buf sb;
        inside(data, size, m->raw, m->rawlen);
        inside(data, size, m->data, m->data_n);
        inside(data, size, m->topic, m->topic_n);
        mero_buf_init(&sb, m->rawlen + 32);
        if (mero__rpc_sign_bytes(m, &sb) == 0 && sb.len > m->rawlen + 14) {
            abort();
        }
        mero_buf_cleanup(&sb);
    }
    for (size_t i = 0; i < rpc.nctrl; i++) {
        struct mero_cur c;
        const uint8_t *id;
        size_t n;
        mero_cur_init(&c, rpc.ctrl[i].ids, rpc.ctrl[i].ids_n);
        while (mero__rpc_next_id(&c, rpc.ctrl[i].kind == 2 ? 1 : 2, &id, &n) == 1) {
            inside(data, size, id, n);
        }
    }
    return 0;
}
