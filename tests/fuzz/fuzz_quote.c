/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_quote.c - libFuzzer target for the quote layer: mero_quote_parse, then (on success)
 * the PCK leaf reader and the JSON writer, plus the structural report-data read and the mock
 * paths. Invariant checked: no crash, no sanitizer report, and a parsed quote's lengths stay
 * inside the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mero/mock.h"
#include "mero/quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_quote q;
    struct mero_err err = {0};
    if (mero_quote_parse(&q, data, size, &err) == 0) {
        if (q.total_len > size || q.pck_chain < data ||
            q.pck_chain + q.pck_chain_len > data + size || q.signed_len > q.total_len) {
            abort();
        }
        struct mero_pck_info pi;
        if (mero_quote_pck_info(&q, &pi, &err) == 0 && pi.issuer_cn[sizeof(pi.issuer_cn) - 1]) {
            abort();
        }
        struct mero_buf b;
        mero_buf_init(&b, 1 << 16);
        if (mero_quote_to_json(&q, &b) != 0) {
            abort(); /* 64 KiB always holds the JSON of a <= 16 KiB quote */
        }
        mero_buf_cleanup(&b);
    }
    uint8_t rd[64];
    bool is_mock;
    (void)!mero_quote_report_data(data, size, rd, &is_mock);
    static const uint8_t zero[32];
    struct mero_mock_result mr;
    (void)!mero_mock_verify(data, size, zero, zero, &mr, NULL);
    struct mero_buf b;
    mero_buf_init(&b, 1 << 14);
    (void)!mero_mock_to_json(data, size, &b);
    mero_buf_cleanup(&b);
    return 0;
}
