/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mock.c - MOCK_TDX_QUOTE_V1 quotes exactly as reference-calimero.md §1.3: the 17 ASCII bytes
 * of the header, 64 bytes of report data, zero padding to 256 bytes; detection; the mock
 * verification (signature reported verified, nonce and bound hash re-checked against the two
 * report-data halves, status "Mock"); and the fixed JSON form the reference's mock builder
 * produces.
 *
 * Invariant: nothing here accepts a mock quote as a real one. mero_quote_parse refuses it (its
 * header is no TDX header), and callers reach this file only on an explicit mock path that a
 * policy with accept_mock allows.
 */
#include <string.h>

#include "attest/quote_json_internal.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "mero/quote.h"

void mero_mock_quote_create(uint8_t out[static MERO_MOCK_QUOTE_LEN],
                            const uint8_t report_data[static MERO_REPORT_DATA_LEN])
{
    memset(out, 0, MERO_MOCK_QUOTE_LEN);
    memcpy(out, MERO_MOCK_HEADER, MERO_MOCK_HEADER_LEN);
    memcpy(out + MERO_MOCK_HEADER_LEN, report_data, MERO_REPORT_DATA_LEN);
}

bool mero_mock_is_mock(const uint8_t *q, size_t len)
{
    return q != NULL && len >= MERO_MOCK_HEADER_LEN &&
           memcmp(q, MERO_MOCK_HEADER, MERO_MOCK_HEADER_LEN) == 0;
}

/* The checks both entry points share; on success rd points at the 64 report-data bytes. */
static int mock_check(const uint8_t *q, size_t len, const uint8_t **rd, struct mero_err *err)
{
    if (!mero_mock_is_mock(q, len)) {
        return mero_err_set(err, MERO_EQUOTE_MOCK,
                            "Not a valid mock quote - missing MOCK_TDX_QUOTE_V1 header");
    }
    if (len < MERO_MOCK_REPORT_DATA_END) {
        return mero_err_set(err, MERO_ETRUNC, "Mock quote too short to contain report data");
    }
    if (len > MERO_MAX_TEE_QUOTE_BYTES) {
        return mero_err_set(err, MERO_ETOOBIG, "mock quote of %zu bytes exceeds %u", len,
                            (unsigned)MERO_MAX_TEE_QUOTE_BYTES);
    }
    *rd = q + MERO_MOCK_HEADER_LEN;
    return 0;
}

int mero_mock_verify(const uint8_t *q, size_t len, const uint8_t nonce[static MERO_NONCE_LEN],
                     const uint8_t app_hash[static MERO_APP_HASH_LEN], struct mero_mock_result *out,
                     struct mero_err *err)
{
    const uint8_t *rd;
    if (out == NULL) {
        return mero_err_set(err, MERO_EINVAL, "mero_mock_verify: NULL result");
    }
    MERO_TRY(mock_check(q, len, &rd, err));
    struct mero_mock_result r;
    memset(&r, 0, sizeof(r));
    r.quote_verified = true; /* §1.3: a mock has no signature; reported verified */
    r.nonce_verified = mero_ct_eq(rd, nonce, MERO_NONCE_LEN) == 1;
    r.application_hash_verified = mero_ct_eq(rd + MERO_NONCE_LEN, app_hash, MERO_APP_HASH_LEN) == 1;
    memcpy(r.report_data, rd, MERO_REPORT_DATA_LEN);
    r.tcb_status = MERO_TCB_STATUS_MOCK;
    *out = r;
    return 0;
}

/* §1.3: the mock quote's QE authentication data is 32 zero bytes. */
#define MOCK_QE_AUTH_LEN 32

int mero_mock_to_json(const uint8_t *q, size_t len, struct mero_buf *b)
{
    /* §1.3: the mock's QE report, auth data and chain are 384, 32 and 100 zero bytes. */
    static const uint8_t zeros[MERO_QE_REPORT_LEN];
    static const uint8_t intel_qe_vendor[16] = {0x93, 0x9a, 0x72, 0x33, 0xf7, 0x9c, 0x4c, 0xa9,
                                                0x94, 0x0a, 0x0d, 0xb3, 0x95, 0x7f, 0x06, 0x07};
    const uint8_t *rd;
    if (b == NULL) {
        return -MERO_EINVAL;
    }
    MERO_TRY(mock_check(q, len, &rd, NULL));
    struct mero_quote m;
    memset(&m, 0, sizeof(m));
    m.version = 4;
    m.att_key_type = 2;
    m.tee_type = MERO_TEE_TYPE_TDX;
    memcpy(m.qe_vendor_id, intel_qe_vendor, 16);
    m.body_type = 2;
    memcpy(m.body.report_data, rd, MERO_REPORT_DATA_LEN);
    m.cert_type = 6;
    m.qe_report_raw = zeros;
    m.qe_auth_data = zeros;
    m.qe_auth_len = MOCK_QE_AUTH_LEN;
    m.inner_cert_type = 5;
    m.pck_chain = zeros;
    m.pck_chain_len = 100;
    /* userData is 32 hex zeros (16 bytes) in the reference mock, not the header's 20. */
    return mero__quote_json_write(b, &m, 16);
}
