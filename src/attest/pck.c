/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pck.c - facts from the PCK leaf certificate a TDX quote carries: issuer CN, validity, and
 * the Intel SGX extension (OID 1.2.840.113741.1.13.1; reference-dcap.md §1 "PCK leaf
 * extension"): FMSPC, PCEID, the 16 CPUSVN components and PCESVN.
 *
 * OpenSSL parses the certificate; the extension value (a DER SEQUENCE of SEQUENCE{OID, value})
 * is walked here by a small bounded DER reader: every tag and length is checked against what
 * remains of its enclosing element, indefinite and over-long lengths are refused, and every
 * required field must appear exactly once with the right type and size. No chain or signature
 * is verified here (that is the verifier's job).
 */
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "attest/pck_internal.h"
#include "mero/clock.h"
#include "mero/quote.h"

/* DER of OID 1.2.840.113741.1.13.1 (the SGX extension) */
static const uint8_t sgx_oid[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};
#define SGX_OID_LEN sizeof(sgx_oid)

struct der {
    const uint8_t *p;
    size_t len;
    size_t off;
};

/* Read one TLV: tag (single byte, low-tag-number form), definite length, value. */
static int der_next(struct der *d, uint8_t *tag, const uint8_t **val, size_t *vlen)
{
    size_t left = d->len - d->off;
    if (left < 2) {
        return -MERO_ECERT;
    }
    const uint8_t *p = d->p + d->off;
    uint8_t t = p[0];
    if ((t & 0x1f) == 0x1f) {
        return -MERO_ECERT; /* high tag numbers are not used here */
    }
    size_t hdr = 2, n = p[1];
    if (n & 0x80) {
        size_t k = n & 0x7f;
        if (k == 0 || k > 3 || left < 2 + k) {
            return -MERO_ECERT; /* indefinite, or longer than any certificate */
        }
        n = 0;
        for (size_t i = 0; i < k; i++) {
            n = n << 8 | p[2 + i];
        }
        hdr += k;
    }
    if (n > left - hdr) {
        return -MERO_ECERT;
    }
    *tag = t;
    *val = p + hdr;
    *vlen = n;
    d->off += hdr + n;
    return 0;
}

/* A non-negative DER INTEGER no larger than max. */
static int der_uint(const uint8_t *v, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 5 || (v[0] & 0x80)) {
        return -MERO_ECERT;
    }
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        x = x << 8 | v[i];
    }
    if (x > max) {
        return -MERO_ECERT;
    }
    *out = (uint32_t)x;
    return 0;
}

/* Is `oid` the SGX OID followed by exactly the given sub-arcs (each < 128)? */
static int oid_is(const uint8_t *oid, size_t n, const uint8_t *arcs, size_t narcs)
{
    return n == SGX_OID_LEN + narcs && memcmp(oid, sgx_oid, SGX_OID_LEN) == 0 &&
           memcmp(oid + SGX_OID_LEN, arcs, narcs) == 0;
}

struct seen {
    unsigned fmspc, pceid, pcesvn, tcb;
    unsigned comp[16];
};

/* The next element of d, which must be SEQUENCE{OID, value} and nothing more: the OID's bytes
 * and the value's tag and bytes. */
static int next_oid_value(struct der *d, const uint8_t **oid, size_t *oidlen, uint8_t *vtag,
                          const uint8_t **val, size_t *vallen)
{
    uint8_t tag;
    const uint8_t *e;
    size_t elen;
    MERO_TRY(der_next(d, &tag, &e, &elen));
    if (tag != 0x30) {
        return -MERO_ECERT;
    }
    struct der ed = {e, elen, 0};
    MERO_TRY(der_next(&ed, &tag, oid, oidlen));
    if (tag != 0x06) {
        return -MERO_ECERT;
    }
    MERO_TRY(der_next(&ed, vtag, val, vallen));
    return ed.off == ed.len ? 0 : -MERO_ECERT;
}

/* The .2 TCB element: SEQUENCE of SEQUENCE{OID .2.N, INTEGER}. */
static int walk_tcb(const uint8_t *v, size_t n, struct mero_pck_info *pi, struct seen *s)
{
    struct der d = {v, n, 0};
    while (d.off < d.len) {
        const uint8_t *oid, *val;
        size_t oidlen, vallen;
        uint8_t vtag;
        MERO_TRY(next_oid_value(&d, &oid, &oidlen, &vtag, &val, &vallen));
        if (oidlen != SGX_OID_LEN + 2 || memcmp(oid, sgx_oid, SGX_OID_LEN) != 0 ||
            oid[SGX_OID_LEN] != 2) {
            return -MERO_ECERT;
        }
        uint8_t arc = oid[SGX_OID_LEN + 1];
        uint32_t x;
        if (arc >= 1 && arc <= 16) {
            if (vtag != 0x02) {
                return -MERO_ECERT;
            }
            MERO_TRY(der_uint(val, vallen, 255, &x));
            pi->cpusvn[arc - 1] = (uint8_t)x;
            s->comp[arc - 1]++;
        } else if (arc == 17) {
            if (vtag != 0x02) {
                return -MERO_ECERT;
            }
            MERO_TRY(der_uint(val, vallen, 65535, &x));
            pi->pcesvn = (uint16_t)x;
            s->pcesvn++;
        }
        /* .2.18 (CPUSVN as one OCTET STRING) and unknown arcs are skipped. */
    }
    return 0;
}

int mero__pck_parse_sgx_ext(const uint8_t *v, size_t n, struct mero_pck_info *pi)
{
    struct seen s;
    memset(&s, 0, sizeof(s));
    struct der top = {v, n, 0};
    uint8_t tag;
    const uint8_t *seq;
    size_t seqlen;
    MERO_TRY(der_next(&top, &tag, &seq, &seqlen));
    if (tag != 0x30 || top.off != top.len) {
        return -MERO_ECERT;
    }
    struct der d = {seq, seqlen, 0};
    while (d.off < d.len) {
        const uint8_t *oid, *val;
        size_t oidlen, vallen;
        uint8_t vtag;
        MERO_TRY(next_oid_value(&d, &oid, &oidlen, &vtag, &val, &vallen));
        static const uint8_t a2[] = {2}, a3[] = {3}, a4[] = {4};
        if (oid_is(oid, oidlen, a2, 1)) {
            if (vtag != 0x30) {
                return -MERO_ECERT;
            }
            MERO_TRY(walk_tcb(val, vallen, pi, &s));
            s.tcb++;
        } else if (oid_is(oid, oidlen, a3, 1)) {
            if (vtag != 0x04 || vallen != sizeof(pi->pceid)) {
                return -MERO_ECERT;
            }
            memcpy(pi->pceid, val, vallen);
            s.pceid++;
        } else if (oid_is(oid, oidlen, a4, 1)) {
            if (vtag != 0x04 || vallen != sizeof(pi->fmspc)) {
                return -MERO_ECERT;
            }
            memcpy(pi->fmspc, val, vallen);
            s.fmspc++;
        }
        /* PPID (.1), SGX type (.5), platform instance (.6/.7) are not needed here. */
    }
    if (s.tcb != 1 || s.fmspc != 1 || s.pceid != 1 || s.pcesvn != 1) {
        return -MERO_ECERT;
    }
    for (int i = 0; i < 16; i++) {
        if (s.comp[i] != 1) {
            return -MERO_ECERT;
        }
    }
    return 0;
}

static int asn1_time_unix(const ASN1_TIME *t, int64_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1) {
        return -MERO_ECERT;
    }
    *out = mero_timegm(&tm);
    return 0;
}

int mero_quote_pck_info(const struct mero_quote *q, struct mero_pck_info *out, struct mero_err *err)
{
    if (q == NULL || out == NULL) {
        return mero_err_set(err, MERO_EINVAL, "mero_quote_pck_info: NULL argument");
    }
    if (q->pck_chain == NULL || q->pck_chain_len == 0 || q->pck_chain_len > INT32_MAX) {
        return mero_err_set(err, MERO_EQUOTE_PCKCHAIN, "quote carries no PCK certificate chain");
    }
    /*
     * PEM_read_bio_X509 skips any block that is not a certificate, so a damaged leaf would
     * silently make the intermediate "the leaf": insist the chain starts with one.
     */
    static const char begin[] = "-----BEGIN CERTIFICATE-----";
    size_t lead = 0;
    while (lead < q->pck_chain_len && (q->pck_chain[lead] == ' ' || q->pck_chain[lead] == '\n' ||
                                       q->pck_chain[lead] == '\r' || q->pck_chain[lead] == '\t')) {
        lead++;
    }
    if (q->pck_chain_len - lead < sizeof(begin) - 1 ||
        memcmp(q->pck_chain + lead, begin, sizeof(begin) - 1) != 0) {
        return mero_err_set(err, MERO_EQUOTE_PCKCHAIN,
                            "PCK chain does not start with a PEM certificate");
    }
    int rc = 0;
    struct mero_pck_info pi;
    memset(&pi, 0, sizeof(pi));
    X509 *x = NULL;
    ASN1_OBJECT *obj = NULL;
    BIO *bio = BIO_new_mem_buf(q->pck_chain, (int)q->pck_chain_len);
    MERO_ENSURE_OUT(bio != NULL, err, MERO_ENOMEM, "out of memory reading the PCK chain");
    x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    MERO_ENSURE_OUT(x != NULL, err, MERO_EQUOTE_PCKCHAIN,
                    "the first certificate of the PCK chain is not a PEM X.509 certificate");
    int cn = X509_NAME_get_text_by_NID(X509_get_issuer_name(x), NID_commonName, pi.issuer_cn,
                                       (int)sizeof(pi.issuer_cn));
    MERO_ENSURE_OUT(cn > 0 && (size_t)cn < sizeof(pi.issuer_cn) &&
                        strlen(pi.issuer_cn) == (size_t)cn,
                    err, MERO_ECERT, "PCK leaf issuer has no usable common name");
    MERO_ENSURE_OUT(asn1_time_unix(X509_get0_notBefore(x), &pi.not_before) >= 0 &&
                        asn1_time_unix(X509_get0_notAfter(x), &pi.not_after) >= 0,
                    err, MERO_ECERT, "PCK leaf validity times do not parse");
    obj = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
    MERO_ENSURE_OUT(obj != NULL, err, MERO_ENOMEM, "out of memory building the SGX extension OID");
    int idx = X509_get_ext_by_OBJ(x, obj, -1);
    MERO_ENSURE_OUT(idx >= 0, err, MERO_ECERT,
                    "PCK leaf has no Intel SGX extension (1.2.840.113741.1.13.1)");
    MERO_ENSURE_OUT(X509_get_ext_by_OBJ(x, obj, idx) < 0, err, MERO_ECERT,
                    "PCK leaf has the Intel SGX extension twice");
    const ASN1_OCTET_STRING *os = X509_EXTENSION_get_data(X509_get_ext(x, idx));
    MERO_ENSURE_OUT(os != NULL && mero__pck_parse_sgx_ext(ASN1_STRING_get0_data(os),
                                                          (size_t)ASN1_STRING_length(os), &pi) >= 0,
                    err, MERO_ECERT,
                    "PCK leaf Intel SGX extension is malformed or lacks FMSPC, PCEID, "
                    "CPUSVN components or PCESVN");
    *out = pi;
out:
    ASN1_OBJECT_free(obj);
    X509_free(x);
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}
