/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_pck_ext.c - libFuzzer target for the PCK leaf's Intel SGX extension DER walker
 * (mero__pck_parse_sgx_ext), which the quote target rarely reaches through PEM and X.509.
 * Invariant checked: no crash or sanitizer report; only 0 or -MERO_ECERT is returned.
 */
#include <stdint.h>
#include <stdlib.h>

#include "attest/pck_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_pck_info pi;
    int rc = mero__pck_parse_sgx_ext(data, size, &pi);
    if (rc != 0 && rc != -MERO_ECERT) {
        abort();
    }
    return 0;
}
