/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_real.c - the bridge from the node to real quote generation (configfs-tsm, provider
 * tdx_guest; reference-calimero.md §1.2) and to the local CCEL event log. Runs on the libuv
 * thread pool only. A failure on real hardware is returned as is, never replaced by a mock.
 */
#include <stdlib.h>

#include "mero/eventlog.h"
#include "mero/tsm.h"
#include "node/tee.h"

int mero_node_tee_generate_real(const uint8_t report_data[64], uint8_t **quote, size_t *len,
                                struct mero_err *err)
{
    return mero_tsm_quote(report_data, quote, len, err);
}

int mero_node_tee_event_log(uint8_t **data, size_t *len, struct mero_err *err)
{
    return mero_ccel_read_local(data, len, err);
}
