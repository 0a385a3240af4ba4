/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_data.c - quote_report_data (reference-calimero.md §1.1): read the 64 report-data
 * bytes of a mock or real quote without verifying anything.
 *
 * Invariant: this is a structural read only. It says which kind of quote it read (is_mock),
 * so no caller can mistake a mock's report data for a verified real one.
 */
#include <string.h>

#include "mero/mock.h"
#include "mero/quote.h"

int mero_quote_report_data(const uint8_t *q, size_t len, uint8_t out[static MERO_REPORT_DATA_LEN],
                           bool *is_mock)
{
    if (q == NULL || is_mock == NULL) {
        return -MERO_EINVAL;
    }
    if (mero_mock_is_mock(q, len)) {
        if (len < MERO_MOCK_REPORT_DATA_END) {
            return -MERO_ETRUNC;
        }
        memcpy(out, q + MERO_MOCK_HEADER_LEN, MERO_REPORT_DATA_LEN);
        *is_mock = true;
        return 0;
    }
    struct mero_quote pq;
    MERO_TRY(mero_quote_parse(&pq, q, len, NULL));
    memcpy(out, pq.body.report_data, MERO_REPORT_DATA_LEN);
    *is_mock = false;
    return 0;
}
