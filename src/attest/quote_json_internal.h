/* SPDX-License-Identifier: Apache-2.0 */
/* quote_json.h - private: the JSON writer shared by quote_json.c and mock.c. */
#ifndef MERO_ATTEST_QUOTE_JSON_H
#define MERO_ATTEST_QUOTE_JSON_H

#include <stddef.h>

#include "mero/buf.h"
#include "mero/quote.h"

/*
 * Append the reference-calimero.md §4.2 JSON object for q. user_data_len is how many bytes
 * of q->user_data are written (20 for a real quote; the reference mock writes 16).
 * q->qe_report_raw, qe_auth_data and pck_chain must be valid for their lengths.
 */
int mero__quote_json_write(struct mero_buf *b, const struct mero_quote *q, size_t user_data_len);

#endif
