/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quote.c - parse a TDX DCAP quote (v4 and v5; TD 1.0 and TD 1.5 bodies) into struct
 * mero_quote: header, body, ECDSA signature data, certification data type 6 (QE report, QE
 * report signature, QE authentication data) and the nested type-5 PCK chain. Layout:
 * reference-dcap.md §1 (all integers little-endian).
 *
 * Invariants: every length comes from a field of the quote, never from the size of the
 * input; each one is checked against what remains of its container (the input, the signature
 * data, the certification data) before it is used, and the containers must nest exactly (no
 * slack). Bytes after the signature data are padding and are ignored, but the quote proper may
 * not exceed MERO_MAX_TEE_QUOTE_BYTES. Nothing is written to the caller's struct unless the
 * whole quote parses. Every failure carries a distinct code and a message naming the field and
 * its absolute offset.
 */
#include <string.h>

#include "mero/quote.h"

/* offsets inside an SGX enclave report (reference-dcap.md §1 "QE report") */
#define SGX_REPORT_MRENCLAVE_AT 64
#define SGX_REPORT_DATA_AT      320

#define QE_CERT_FIXED_LEN 450u /* QE report 384 || QE report sig 64 || auth size u16 */

/* A bounded reader over one container, remembering where it sits in the quote. */
struct rd {
    struct mero_cur c;
    size_t base; /* absolute offset of c.p[0] in the quote */
    struct mero_err *err;
};

static size_t at(const struct rd *r)
{
    return r->base + r->c.off;
}

static int need(struct rd *r, size_t n, const char *field)
{
    size_t left = mero_cur_left(&r->c);
    if (left < n) {
        return mero_err_set(r->err, MERO_ETRUNC,
                            "quote truncated: %s at offset %zu needs %zu bytes, %zu left", field,
                            at(r), n, left);
    }
    return 0;
}

static int get_u16(struct rd *r, uint16_t *v, const char *field)
{
    MERO_TRY(need(r, 2, field));
    return mero_cur_u16le(&r->c, v);
}

static int get_u32(struct rd *r, uint32_t *v, const char *field)
{
    MERO_TRY(need(r, 4, field));
    return mero_cur_u32le(&r->c, v);
}

static int get_copy(struct rd *r, void *out, size_t n, const char *field)
{
    MERO_TRY(need(r, n, field));
    return mero_cur_copy(&r->c, out, n);
}

static int get_ptr(struct rd *r, const uint8_t **p, size_t n, const char *field)
{
    MERO_TRY(need(r, n, field));
    return mero_cur_bytes(&r->c, n, p);
}

/* Split off the next n bytes of r as a reader of its own (n already checked by the caller). */
static int sub(struct rd *r, struct rd *s, size_t n, const char *field)
{
    const uint8_t *p;
    size_t base = at(r);
    MERO_TRY(get_ptr(r, &p, n, field));
    mero_cur_init(&s->c, p, n);
    s->base = base;
    s->err = r->err;
    return 0;
}

static int parse_header(struct rd *r, struct mero_quote *q)
{
    MERO_TRY(need(r, MERO_QUOTE_HEADER_LEN, "header"));
    MERO_TRY(get_u16(r, &q->version, "version"));
    MERO_TRY(get_u16(r, &q->att_key_type, "attestation key type"));
    MERO_TRY(get_u32(r, &q->tee_type, "tee_type"));
    MERO_TRY(get_u16(r, &q->qe_svn, "qe_svn"));
    MERO_TRY(get_u16(r, &q->pce_svn, "pce_svn"));
    MERO_TRY(get_copy(r, q->qe_vendor_id, sizeof(q->qe_vendor_id), "qe_vendor_id"));
    MERO_TRY(get_copy(r, q->user_data, sizeof(q->user_data), "user_data"));

    /* SGX first, so a v3 or tee-0 quote gets the clear "this is SGX" answer. */
    if (q->version == 3 || q->tee_type == MERO_TEE_TYPE_SGX) {
        return mero_err_set(r->err, MERO_EQUOTE_SGX,
                            "SGX quote (version %u at offset 0, tee_type 0x%08x at offset 4) "
                            "where a TDX quote is required",
                            (unsigned)q->version, (unsigned)q->tee_type);
    }
    if (q->version != 4 && q->version != 5) {
        return mero_err_set(r->err, MERO_EQUOTE_VERSION,
                            "quote version %u at offset 0 is not supported (want 4 or 5)",
                            (unsigned)q->version);
    }
    if (q->tee_type != MERO_TEE_TYPE_TDX) {
        return mero_err_set(r->err, MERO_EQUOTE_TEE,
                            "tee_type 0x%08x at offset 4 is not TDX (0x00000081)",
                            (unsigned)q->tee_type);
    }
    if (q->att_key_type != 2) {
        return mero_err_set(r->err, MERO_EQUOTE_KEYTYPE,
                            "attestation key type %u at offset 2 is not ECDSA P-256 (2)",
                            (unsigned)q->att_key_type);
    }
    return 0;
}

static int parse_descriptor(struct rd *r, struct mero_quote *q)
{
    if (q->version == 4) {
        q->body_type = 2;
        q->body_size = MERO_TD10_BODY_LEN;
        return 0;
    }
    size_t off = at(r);
    MERO_TRY(get_u16(r, &q->body_type, "v5 body type"));
    MERO_TRY(get_u32(r, &q->body_size, "v5 body size"));
    uint32_t want;
    switch (q->body_type) {
    case 2:
        want = MERO_TD10_BODY_LEN;
        break;
    case 3:
        want = MERO_TD15_BODY_LEN;
        break;
    default:
        return mero_err_set(r->err, MERO_EQUOTE_BODY,
                            "v5 body type %u at offset %zu is not a TD report (2 or 3)",
                            (unsigned)q->body_type, off);
    }
    if (q->body_size != want) {
        return mero_err_set(r->err, MERO_EQUOTE_BODY,
                            "v5 body size %u at offset %zu does not match body type %u (%u)",
                            (unsigned)q->body_size, off + 2, (unsigned)q->body_type,
                            (unsigned)want);
    }
    return 0;
}

static int parse_body(struct rd *r, struct mero_quote *q)
{
    struct mero_td_report *b = &q->body;
    MERO_TRY(need(r, q->body_size, "TD report body"));
    MERO_TRY(get_copy(r, b->tee_tcb_svn, 16, "tee_tcb_svn"));
    MERO_TRY(get_copy(r, b->mrseam, sizeof(b->mrseam), "mrseam"));
    MERO_TRY(get_copy(r, b->mrsignerseam, sizeof(b->mrsignerseam), "mrsignerseam"));
    MERO_TRY(get_copy(r, b->seam_attributes, 8, "seam_attributes"));
    MERO_TRY(get_copy(r, b->td_attributes, 8, "td_attributes"));
    MERO_TRY(get_copy(r, b->xfam, 8, "xfam"));
    MERO_TRY(get_copy(r, b->mrtd, sizeof(b->mrtd), "mrtd"));
    MERO_TRY(get_copy(r, b->mrconfigid, sizeof(b->mrconfigid), "mrconfigid"));
    MERO_TRY(get_copy(r, b->mrowner, sizeof(b->mrowner), "mrowner"));
    MERO_TRY(get_copy(r, b->mrownerconfig, sizeof(b->mrownerconfig), "mrownerconfig"));
    for (int i = 0; i < 4; i++) {
        MERO_TRY(get_copy(r, b->rtmr[i], sizeof(b->rtmr[i]), "rtmr"));
    }
    MERO_TRY(get_copy(r, b->report_data, MERO_REPORT_DATA_LEN, "report_data"));
    b->td15 = q->body_type == 3;
    if (b->td15) {
        MERO_TRY(get_copy(r, b->tee_tcb_svn2, 16, "tee_tcb_svn2"));
        MERO_TRY(get_copy(r, b->mrservicetd, sizeof(b->mrservicetd), "mrservicetd"));
    }
    return 0;
}

static void parse_enclave_report(const uint8_t *p, struct mero_enclave_report *e)
{
    /* reference-dcap.md §1 "QE report": fixed offsets inside 384 bytes (already bounded). */
    memcpy(e->cpusvn, p, 16);
    e->miscselect =
        (uint32_t)p[16] | (uint32_t)p[17] << 8 | (uint32_t)p[18] << 16 | (uint32_t)p[19] << 24;
    memcpy(e->attributes, p + 48, sizeof(e->attributes)); /* not a length */
    memcpy(e->mrenclave, p + SGX_REPORT_MRENCLAVE_AT, sizeof(e->mrenclave));
    memcpy(e->mrsigner, p + 128, sizeof(e->mrsigner));
    e->isvprodid = (uint16_t)(p[256] | p[257] << 8);
    e->isvsvn = (uint16_t)(p[258] | p[259] << 8);
    memcpy(e->report_data, p + SGX_REPORT_DATA_AT, MERO_REPORT_DATA_LEN);
}

/* Certification data type 6: QE report, its signature, auth data, nested type 5 (PEM). */
static int parse_qe_cert_data(struct rd *r, struct mero_quote *q)
{
    MERO_TRY(get_ptr(r, &q->qe_report_raw, MERO_QE_REPORT_LEN, "QE report"));
    parse_enclave_report(q->qe_report_raw, &q->qe_report);
    MERO_TRY(get_copy(r, q->qe_report_sig, MERO_ECDSA_P256_SIG_LEN, "QE report signature"));

    size_t off = at(r);
    uint16_t auth_len;
    MERO_TRY(get_u16(r, &auth_len, "QE auth data size"));
    if (auth_len > mero_cur_left(&r->c)) {
        return mero_err_set(r->err, MERO_EQUOTE_AUTHDATA,
                            "QE auth data size %u at offset %zu runs past the certification "
                            "data (%zu bytes left)",
                            (unsigned)auth_len, off, mero_cur_left(&r->c));
    }
    MERO_TRY(get_ptr(r, &q->qe_auth_data, auth_len, "QE auth data"));
    q->qe_auth_len = auth_len;

    off = at(r);
    MERO_TRY(get_u16(r, &q->inner_cert_type, "inner certification data type"));
    if (q->inner_cert_type != 5) {
        return mero_err_set(r->err, MERO_EQUOTE_PCKCHAIN,
                            "inner certification data type %u at offset %zu is not a PCK "
                            "certificate chain (5)",
                            (unsigned)q->inner_cert_type, off);
    }
    uint32_t chain_len;
    MERO_TRY(get_u32(r, &chain_len, "inner certification data size"));
    if (chain_len > mero_cur_left(&r->c)) {
        return mero_err_set(r->err, MERO_EOVERFLOW,
                            "inner certification data size %u at offset %zu runs past the "
                            "certification data (%zu bytes left)",
                            (unsigned)chain_len, off + 2, mero_cur_left(&r->c));
    }
    if (chain_len != mero_cur_left(&r->c)) {
        return mero_err_set(r->err, MERO_EQUOTE_LENGTH,
                            "inner certification data size %u at offset %zu leaves %zu unused "
                            "bytes in the certification data",
                            (unsigned)chain_len, off + 2, mero_cur_left(&r->c) - chain_len);
    }
    if (chain_len == 0) {
        return mero_err_set(r->err, MERO_EQUOTE_PCKCHAIN,
                            "PCK certificate chain at offset %zu is empty", at(r));
    }
    MERO_TRY(get_ptr(r, &q->pck_chain, chain_len, "PCK certificate chain"));
    q->pck_chain_len = chain_len;
    return 0;
}

static int parse_sig_data(struct rd *r, struct mero_quote *q)
{
    size_t off = at(r);
    MERO_TRY(get_u32(r, &q->sig_data_len, "sig_data_len"));
    if (q->sig_data_len > mero_cur_left(&r->c)) {
        return mero_err_set(r->err, MERO_EOVERFLOW,
                            "sig_data_len %u at offset %zu runs past the end of the input (%zu "
                            "bytes left)",
                            (unsigned)q->sig_data_len, off, mero_cur_left(&r->c));
    }
    size_t total = at(r) + q->sig_data_len;
    if (total > MERO_MAX_TEE_QUOTE_BYTES) {
        return mero_err_set(
            r->err, MERO_ETOOBIG, "sig_data_len %u at offset %zu makes a %zu-byte quote (max %u)",
            (unsigned)q->sig_data_len, off, total, (unsigned)MERO_MAX_TEE_QUOTE_BYTES);
    }
    struct rd s;
    MERO_TRY(sub(r, &s, q->sig_data_len, "signature data"));
    MERO_TRY(get_copy(&s, q->signature, MERO_ECDSA_P256_SIG_LEN, "quote signature"));
    MERO_TRY(get_copy(&s, q->attest_key, MERO_ECDSA_P256_PK_LEN, "attestation key"));

    off = at(&s);
    MERO_TRY(get_u16(&s, &q->cert_type, "certification data type"));
    if (q->cert_type != 6) {
        return mero_err_set(r->err, MERO_EQUOTE_CERTTYPE,
                            "certification data type %u at offset %zu is not QE report "
                            "certification data (6)",
                            (unsigned)q->cert_type, off);
    }
    uint32_t cert_len;
    MERO_TRY(get_u32(&s, &cert_len, "certification data size"));
    if (cert_len > mero_cur_left(&s.c)) {
        return mero_err_set(r->err, MERO_EOVERFLOW,
                            "certification data size %u at offset %zu runs past the signature "
                            "data (%zu bytes left)",
                            (unsigned)cert_len, off + 2, mero_cur_left(&s.c));
    }
    if (cert_len != mero_cur_left(&s.c)) {
        return mero_err_set(r->err, MERO_EQUOTE_LENGTH,
                            "certification data size %u at offset %zu leaves %zu unused bytes in "
                            "the signature data",
                            (unsigned)cert_len, off + 2, mero_cur_left(&s.c) - cert_len);
    }
    struct rd cd;
    MERO_TRY(sub(&s, &cd, cert_len, "certification data"));
    MERO_TRY(need(&cd, QE_CERT_FIXED_LEN, "QE report certification data"));
    MERO_TRY(parse_qe_cert_data(&cd, q));
    q->total_len = total;
    return 0;
}

int mero_quote_parse(struct mero_quote *out, const uint8_t *data, size_t len, struct mero_err *err)
{
    if (out == NULL || (data == NULL && len != 0)) {
        return mero_err_set(err, MERO_EINVAL, "mero_quote_parse: NULL argument");
    }
    struct mero_quote q;
    memset(&q, 0, sizeof(q));
    struct rd r;
    mero_cur_init(&r.c, data, len);
    r.base = 0;
    r.err = err;

    MERO_TRY(parse_header(&r, &q));
    MERO_TRY(parse_descriptor(&r, &q));
    MERO_TRY(parse_body(&r, &q));
    q.signed_data = data;
    q.signed_len = r.c.off;
    MERO_TRY(parse_sig_data(&r, &q));
    *out = q;
    return 0;
}
