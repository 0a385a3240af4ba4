/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mock.h - MOCK_TDX_QUOTE_V1 quotes (reference-calimero.md §1.3): for laptop/CI tests of the
 * full join path only. Nothing outside an explicit mock path accepts one.
 *
 * Thread safety: every function here is safe from any thread (no shared state).
 */
#ifndef MERO_MOCK_H
#define MERO_MOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_MOCK_HEADER          "MOCK_TDX_QUOTE_V1"
#define MERO_MOCK_HEADER_LEN      17
#define MERO_MOCK_QUOTE_LEN       256
#define MERO_MOCK_REPORT_DATA_END 81 /* report data is bytes [17, 81) */
_Static_assert(MERO_MOCK_REPORT_DATA_END == MERO_MOCK_HEADER_LEN + MERO_REPORT_DATA_LEN,
               "report data follows the header");
#define MERO_TCB_STATUS_MOCK "Mock"

/* 17-byte header || report_data || zeros, 256 bytes. */
void mero_mock_quote_create(uint8_t out[static MERO_MOCK_QUOTE_LEN],
                            const uint8_t report_data[static MERO_REPORT_DATA_LEN]);
/* True when len >= 17 and the header matches. */
bool mero_mock_is_mock(const uint8_t *q, size_t len);

/* The verdict of verify_mock_attestation: signature "verified", status "Mock". */
struct mero_mock_result {
    bool quote_verified; /* always true for a well-formed mock */
    bool nonce_verified;
    bool application_hash_verified;
    uint8_t report_data[MERO_REPORT_DATA_LEN];
    const char *tcb_status; /* MERO_TCB_STATUS_MOCK (static storage) */
};
/*
 * verify_mock_attestation: -MERO_EQUOTE_MOCK ("missing header") or -MERO_ETRUNC ("too short")
 * when not a mock quote, -MERO_ETOOBIG over MERO_MAX_TEE_QUOTE_BYTES. A mismatching nonce or
 * hash is not an error: it is reported in the result flags. `out` is written only on success.
 */
MERO_MUST_CHECK int mero_mock_verify(const uint8_t *q, size_t len,
                                     const uint8_t nonce[static MERO_NONCE_LEN],
                                     const uint8_t app_hash[static MERO_APP_HASH_LEN],
                                     struct mero_mock_result *out, struct mero_err *err);
/*
 * The parsed-JSON form of a mock quote (all registers 96 hex zeros), as §1.3 specifies.
 * Same errors as mero_mock_verify; -MERO_ETOOBIG also when b would exceed its max.
 */
MERO_MUST_CHECK int mero_mock_to_json(const uint8_t *q, size_t len, struct mero_buf *b);

#endif
