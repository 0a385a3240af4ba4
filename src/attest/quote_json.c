/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quote_json.c - the JSON form of a parsed TDX quote that POST /admin-api/tee/attest returns
 * (reference-calimero.md §4.2): header, body (tdxVersion "1.0" / "1.5"), signature,
 * attestationKey (SEC1 "04" || x || y), certificationData (adjacently tagged
 * {"type":"qeReportCertificationData","data":{...}}). Every byte string is lowercase hex.
 *
 * Invariant: output keys and their order are fixed here and nowhere else (mock.c uses the
 * same writer); the nested certificationDataType is "PckCertChain", the spelling of the
 * reference's byte-exact mock form (docs/quote.md explains the choice). Appends only; on
 * failure the buffer may hold a partial object and the caller discards it.
 */
#include "attest/quote_json_internal.h"
#include "mero/encoding.h"

static int key_hex(struct mero_buf *b, const char *sep, const char *key, const uint8_t *p, size_t n)
{
    MERO_TRY(mero_buf_printf(b, "%s\"%s\":\"", sep, key));
    MERO_TRY(mero_hex_append(b, p, n));
    return mero_buf_append_u8(b, '"');
}

static int write_body(struct mero_buf *b, const struct mero_td_report *r)
{
    static const char *const rtmr[4] = {"rtmr0", "rtmr1", "rtmr2", "rtmr3"};
    MERO_TRY(mero_buf_printf(b, "{\"tdxVersion\":\"%s\"", r->td15 ? "1.5" : "1.0"));
    MERO_TRY(key_hex(b, ",", "teeTcbSvn", r->tee_tcb_svn, 16));
    MERO_TRY(key_hex(b, ",", "mrseam", r->mrseam, sizeof(r->mrseam)));
    MERO_TRY(key_hex(b, ",", "mrsignerseam", r->mrsignerseam, sizeof(r->mrsignerseam)));
    MERO_TRY(key_hex(b, ",", "seamattributes", r->seam_attributes, 8));
    MERO_TRY(key_hex(b, ",", "tdattributes", r->td_attributes, 8));
    MERO_TRY(key_hex(b, ",", "xfam", r->xfam, 8));
    MERO_TRY(key_hex(b, ",", "mrtd", r->mrtd, sizeof(r->mrtd)));
    MERO_TRY(key_hex(b, ",", "mrconfigid", r->mrconfigid, sizeof(r->mrconfigid)));
    MERO_TRY(key_hex(b, ",", "mrowner", r->mrowner, sizeof(r->mrowner)));
    MERO_TRY(key_hex(b, ",", "mrownerconfig", r->mrownerconfig, sizeof(r->mrownerconfig)));
    for (int i = 0; i < 4; i++) {
        MERO_TRY(key_hex(b, ",", rtmr[i], r->rtmr[i], sizeof(r->rtmr[i])));
    }
    MERO_TRY(key_hex(b, ",", "reportdata", r->report_data, MERO_REPORT_DATA_LEN));
    if (r->td15) {
        MERO_TRY(key_hex(b, ",", "teeTcbSvn2", r->tee_tcb_svn2, 16));
        MERO_TRY(key_hex(b, ",", "mrservicetd", r->mrservicetd, sizeof(r->mrservicetd)));
    }
    return mero_buf_append_u8(b, '}');
}

int mero__quote_json_write(struct mero_buf *b, const struct mero_quote *q, size_t user_data_len)
{
    if (user_data_len > sizeof(q->user_data) || q->qe_report_raw == NULL ||
        (q->qe_auth_len > 0 && q->qe_auth_data == NULL) ||
        (q->pck_chain_len > 0 && q->pck_chain == NULL)) {
        return -MERO_EINVAL;
    }
    MERO_TRY(mero_buf_printf(b,
                             "{\"header\":{\"version\":%u,\"attestationKeyType\":%u,"
                             "\"teeType\":%u",
                             (unsigned)q->version, (unsigned)q->att_key_type,
                             (unsigned)q->tee_type));
    MERO_TRY(key_hex(b, ",", "qeVendorId", q->qe_vendor_id, 16));
    MERO_TRY(key_hex(b, ",", "userData", q->user_data, user_data_len));
    MERO_TRY(mero_buf_append_str(b, "},\"body\":"));
    MERO_TRY(write_body(b, &q->body));
    MERO_TRY(key_hex(b, ",", "signature", q->signature, MERO_ECDSA_P256_SIG_LEN));
    MERO_TRY(mero_buf_append_str(b, ",\"attestationKey\":\"04"));
    MERO_TRY(mero_hex_append(b, q->attest_key, MERO_ECDSA_P256_PK_LEN));
    MERO_TRY(mero_buf_append_str(b, "\",\"certificationData\":{\"type\":"
                                    "\"qeReportCertificationData\",\"data\":{"));
    MERO_TRY(key_hex(b, "", "qeReport", q->qe_report_raw, MERO_QE_REPORT_LEN));
    MERO_TRY(key_hex(b, ",", "signature", q->qe_report_sig, MERO_ECDSA_P256_SIG_LEN));
    MERO_TRY(key_hex(b, ",", "qeAuthenticationData", q->qe_auth_data, q->qe_auth_len));
    MERO_TRY(mero_buf_append_str(b, ",\"certificationDataType\":\"PckCertChain\""));
    MERO_TRY(key_hex(b, ",", "certificationData", q->pck_chain, q->pck_chain_len));
    return mero_buf_append_str(b, "}}}");
}

int mero_quote_to_json(const struct mero_quote *q, struct mero_buf *b)
{
    if (q == NULL || b == NULL) {
        return -MERO_EINVAL;
    }
    return mero__quote_json_write(b, q, sizeof(q->user_data));
}
