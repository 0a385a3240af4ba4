/* SPDX-License-Identifier: Apache-2.0 */
/* pck_internal.h - private: the SGX-extension DER walker of pck.c, exposed for tests. */
#ifndef MERO_ATTEST_PCK_INTERNAL_H
#define MERO_ATTEST_PCK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/quote.h"

/*
 * Parse the DER value of extension 1.2.840.113741.1.13.1 into pi's fmspc, pceid, cpusvn and
 * pcesvn. 0 or -MERO_ECERT; pi may be partly written on failure.
 */
int mero__pck_parse_sgx_ext(const uint8_t *der, size_t len, struct mero_pck_info *pi);

#endif
