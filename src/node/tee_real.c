/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_real.c - the bridge from the node to real quote generation (configfs-tsm, provider
 * tdx_guest; reference-calimero.md §1.2). Runs on the libuv thread pool only. Until the attest
 * layer's generator is linked here this fails closed with -MERO_EUNSUPPORTED, so a node never
 * answers a real-TEE quote request with anything but a real quote or an error.
 */
#include "node/tee.h"

int mero_node_tee_generate_real(const uint8_t report_data[64], uint8_t **quote, size_t *len,
                                struct mero_err *err)
{
    (void)report_data;
    (void)quote;
    (void)len;
    return mero_err_set(err, MERO_EUNSUPPORTED,
                        "TDX attestation generation is only supported on Linux with TDX hardware");
}
