/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_yamux.c - libFuzzer target for the yamux frame decoder and stream state machine: the
 * input is the decrypted byte stream of one authenticated connection (no socket: a detached
 * connection), so SYN/ACK/FIN/RST, window updates, pings, go-away, stream-level
 * multistream-select and the identify/meshsub/handler bindings all run on hostile bytes.
 * Each input runs twice: straight into the yamux decoder, then sealed into Noise transport
 * frames (sizes chosen by the first byte) and fed to the connection as socket reads, so the
 * decrypt loop and its buffer limits run too.
 */
#include <stdint.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "net/conn_internal.h"
#include "net/noise_internal.h"
#include "net/yamux_internal.h"
#include "support/conn_detached.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void nop_handler(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d,
                        size_t n)
{
    (void)ud;
    (void)from;
    if (n & 1) {
        mero_net_req_drop(req);
    } else if (mero_net_respond(req, d, n) < 0) {
        return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uv_loop_t loop;
    static struct mero_net *net;
    static int inited;
    if (!inited) {
        uint8_t seed[32], pk[32], sk[64];
        if (mero_crypto_init() < 0 || uv_loop_init(&loop) != 0) {
            return 0;
        }
        mero_log_set_level(MERO_LOG_ERROR);
        memset(seed, 9, 32);
        mero_ed25519_from_seed(pk, sk, seed);
        if (mero_net_new(&loop, sk, NULL, NULL, NULL, &net) < 0 ||
            mero_net_handle(net, "/f/1", nop_handler, NULL) < 0) {
            return 0;
        }
        inited = 1;
    }
    struct mero__conn *c = test_conn_detached(net);
    if (c == NULL) {
        return 0;
    }
    size_t used = 0, off = 0;
    /* feed in two pieces (split by the first byte) to exercise partial frames */
    size_t split = size ? data[0] * 7u : 0;
    for (int round = 0; round < 2 && c->state == MERO__C_UP; round++) {
        size_t lim = round == 0 ? (split < size ? split : size) : size;
        if (lim < off) {
            continue;
        }
        if (mero__yamux_input(c, data + off, lim - off, &used) < 0) {
            break;
        }
        mero__yamux_reap(c);
        off += used;
    }
    mero_buf_reset(&c->out);
    mero__conn_fail(c, MERO_ECLOSED, "fuzz input done");
    uv_run(&loop, UV_RUN_NOWAIT);

    /* the same bytes through the Noise transport (a detached connection's key is all zeros) */
    static uint8_t wire[2 * 1024 * 1024];
    struct mero__cipher tx;
    size_t frame = size ? (size_t)(data[0] % 8 + 1) * 8189u : 1, w = 0;
    memset(&tx, 0, sizeof(tx));
    tx.has_key = 1;
    for (off = 0; off < size;) {
        size_t k = size - off < frame ? size - off : frame;
        if (w + 2 + k + MERO__NOISE_TAG > sizeof(wire)) {
            break;
        }
        wire[w] = (uint8_t)((k + MERO__NOISE_TAG) >> 8);
        wire[w + 1] = (uint8_t)(k + MERO__NOISE_TAG);
        if (mero__cipher_seal(&tx, NULL, 0, data + off, k, wire + w + 2) < 0) {
            break;
        }
        w += 2 + k + MERO__NOISE_TAG;
        off += k;
    }
    c = test_conn_detached(net);
    if (c == NULL) {
        return 0;
    }
    mero__conn_feed(c, wire, w);
    mero_buf_reset(&c->out);
    mero__conn_fail(c, MERO_ECLOSED, "fuzz input done");
    uv_run(&loop, UV_RUN_NOWAIT);
    return 0;
}
