/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_noise_msg.c - libFuzzer target for the Noise XX message readers and the libp2p
 * handshake payload: the input is read as message 1 (responder), as message 2 (initiator
 * after a real message 1), as message 3 (responder after real messages 1-2), and as a
 * NoiseHandshakePayload / PublicKey protobuf. Nothing may crash; a failed read poisons state.
 */
#include <stdint.h>
#include <string.h>

#include "mero/crypto.h"
#include "net/noise_internal.h"
#include "net/peerid_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    uint8_t k1[32], k2[32], k3[32], k4[32], pk[32];
    struct mero__noise i, r;
    struct mero_buf m, p;
    if (!inited) {
        if (mero_crypto_init() < 0) {
            return 0;
        }
        inited = 1;
    }
    memset(k1, 1, 32);
    memset(k2, 2, 32);
    memset(k3, 3, 32);
    memset(k4, 4, 32);
    mero_buf_init(&m, 70000);
    mero_buf_init(&p, 70000);
    /* message 1 at a fresh responder */
    mero__noise_init(&r, 0, k3, k4);
    int rc = mero__noise_read(&r, data, size, &p);
    /* message 2 at an initiator that sent a real message 1 */
    mero__noise_init(&i, 1, k1, k2);
    if (mero__noise_write(&i, NULL, 0, &m) == 0) {
        rc |= mero__noise_read(&i, data, size, &p);
    }
    /* message 3 at a responder that got a real message 1 and sent message 2 */
    mero__noise_init(&i, 1, k1, k2);
    mero__noise_init(&r, 0, k3, k4);
    mero_buf_reset(&m);
    if (mero__noise_write(&i, NULL, 0, &m) == 0 && mero__noise_read(&r, m.data, m.len, &p) == 0) {
        mero_buf_reset(&m);
        if (mero__noise_write(&r, NULL, 0, &m) == 0) {
            rc |= mero__noise_read(&r, data, size, &p);
        }
    }
    rc |= mero__noise_payload_verify(data, size, k1, pk);
    rc |= mero__pubkey_pb_parse(data, size, pk);
    (void)rc;
    mero__noise_cleanup(&i);
    mero__noise_cleanup(&r);
    mero_buf_cleanup(&m);
    mero_buf_cleanup(&p);
    return 0;
}
