/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_real.c - the bridge from the node to real quote generation (configfs-tsm, provider
 * tdx_guest; reference-calimero.md §1.2) and to the local CCEL event log. Runs on the libuv
 * thread pool only. A failure on real hardware is returned as is, never replaced by a mock.
 */
#include <stdlib.h>

#include "mero/collateral.h"
#include "mero/eventlog.h"
#include "mero/pcs.h"
#include "mero/tsm.h"
#include "node/tee_internal.h"

int mero__node_tee_generate_real(const uint8_t report_data[MERO_REPORT_DATA_LEN], uint8_t **quote,
                                 size_t *len, struct mero_err *err)
{
    return mero_tsm_quote(report_data, quote, len, err);
}

int mero__node_tee_event_log(uint8_t **data, size_t *len, struct mero_err *err)
{
    return mero_ccel_read_local(data, len, err);
}

int mero__node_tee_collateral(const uint8_t *quote, size_t len, char **json, size_t *jlen,
                              struct mero_err *err)
{
    struct mero_collateral c;
    mero_collateral_init(&c);
    MERO_TRY(mero_pcs_collateral_for_quote(quote, len, &c, err));
    struct mero_buf b;
    mero_buf_init(&b, MERO_COLLATERAL_MAX_JSON);
    int rc;
    MERO_TRY_OUT(mero_collateral_to_json(&c, &b));
    MERO_TRY_OUT(mero_buf_nul(&b));
    *json = (char *)mero_buf_steal(&b, jlen);
out:
    mero_collateral_cleanup(&c);
    if (rc < 0) {
        mero_buf_cleanup(&b);
        return mero_err_set(err, -rc, "collateral does not serialise");
    }
    return 0;
}
