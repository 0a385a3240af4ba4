/* SPDX-License-Identifier: Apache-2.0 */
/* collateral_int.h (private) - the two QuoteCollateralV3 parsers behind mero_collateral_parse. */
#ifndef MERO_ATTEST_COLLATERAL_INT_H
#define MERO_ATTEST_COLLATERAL_INT_H

#include "mero/collateral.h"

/* 0: parsed (exactly as the general parser would); 1: not this shape, use the general one. */
int mero__collateral_parse_fast(struct mero_collateral *c, const char *json, size_t len);
/* The general (jansson) parser; mero_collateral_parse = fast path, else this. */
MERO_MUST_CHECK int mero__collateral_parse_general(struct mero_collateral *c, const char *json,
                                                   size_t len, struct mero_err *err);

#endif
