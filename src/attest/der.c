/* SPDX-License-Identifier: Apache-2.0 */
/*
 * der.c - a bounded DER reader for Intel SGX PKI certificates and CRLs (der.h).
 *
 * Invariants: every TLV's length is definite, at most 4 length bytes, and checked against what
 * remains of its parent before use; the element must fill its parent exactly where X.509 says
 * so; only ecdsa-with-SHA256 signatures and P-256 keys are accepted (the only ones Intel's
 * PKI uses); all pointers borrow from the input. Extensions are skipped, not judged: the PCK
 * leaf's SGX extension is read by the quote module (pck.c).
 */
#include <string.h>
#include <time.h>

#include "attest/der_internal.h"
#include "mero/clock.h"

struct rd {
    const uint8_t *p;
    size_t len, off;
};

struct tlv {
    uint8_t tag;
    const uint8_t *start; /* the whole TLV */
    size_t total;
    const uint8_t *val;
    size_t len;
};

static int next(struct rd *r, struct tlv *t)
{
    size_t left = r->len - r->off;
    const uint8_t *p = r->p + r->off;
    if (left < 2) {
        return -MERO_ETRUNC;
    }
    size_t hdr = 2, n = p[1];
    if ((p[0] & 0x1f) == 0x1f) {
        return -MERO_EUNSUPPORTED;
    }
    if (n & 0x80) {
        size_t k = n & 0x7f;
        if (k == 0 || k > 4 || left < 2 + k) {
            return -MERO_EOVERFLOW;
        }
        n = 0;
        for (size_t i = 0; i < k; i++) {
            n = n << 8 | p[2 + i];
        }
        hdr += k;
    }
    if (n > left - hdr) {
        return -MERO_ETRUNC;
    }
    t->tag = p[0];
    t->start = p;
    t->total = hdr + n;
    t->val = p + hdr;
    t->len = n;
    r->off += hdr + n;
    return 0;
}

static int expect(struct rd *r, uint8_t tag, struct tlv *t)
{
    MERO_TRY(next(r, t));
    return t->tag == tag ? 0 : -MERO_EINVAL;
}

static void inside(struct rd *r, const struct tlv *t)
{
    r->p = t->val;
    r->len = t->len;
    r->off = 0;
}

static bool peek(const struct rd *r, uint8_t tag)
{
    return r->off < r->len && r->p[r->off] == tag;
}

/* RFC 5280 allows 20 octets; a little slack for non-conforming issuers. */
#define DER_MAX_SERIAL 32

static const uint8_t oid_ecdsa_sha256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02};
static const uint8_t oid_ec_pubkey[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t oid_p256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
static const uint8_t oid_cn[] = {0x55, 0x04, 0x03};

static bool oid_is(const struct tlv *t, const uint8_t *oid, size_t n)
{
    return t->tag == 0x06 && t->len == n && memcmp(t->val, oid, n) == 0;
}

/* AlgorithmIdentifier ecdsa-with-SHA256 (parameters absent). */
static int sig_alg(struct rd *r)
{
    struct tlv a, o;
    struct rd in;
    if (expect(r, 0x30, &a) < 0) {
        return -MERO_EINVAL;
    }
    inside(&in, &a);
    if (next(&in, &o) < 0 || !oid_is(&o, oid_ecdsa_sha256, sizeof(oid_ecdsa_sha256)) ||
        in.off != in.len) {
        return -MERO_EUNSUPPORTED;
    }
    return 0;
}

static int two(const uint8_t *p, int *v)
{
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9') {
        return -MERO_EINVAL;
    }
    *v = (p[0] - '0') * 10 + (p[1] - '0');
    return 0;
}

static int der_time(struct rd *r, int64_t *out)
{
    struct tlv t;
    if (next(r, &t) < 0) {
        return -MERO_ETRUNC;
    }
    const uint8_t *s = t.val;
    int y, y2, mo, d, h, mi, se;
    if (t.tag == 0x17 && t.len == 13 && s[12] == 'Z') { /* UTCTime YYMMDDHHMMSSZ */
        if (two(s, &y) < 0) {
            return -MERO_EINVAL;
        }
        y += y < 50 ? 2000 : 1900;
        s += 2;
    } else if (t.tag == 0x18 && t.len == 15 && s[14] == 'Z') { /* GeneralizedTime */
        if (two(s, &y) < 0 || two(s + 2, &y2) < 0) {
            return -MERO_EINVAL;
        }
        y = y * 100 + y2;
        s += 4;
    } else {
        return -MERO_EUNSUPPORTED;
    }
    if (two(s, &mo) < 0 || two(s + 2, &d) < 0 || two(s + 4, &h) < 0 || two(s + 6, &mi) < 0 ||
        two(s + 8, &se) < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        se > 60) {
        return -MERO_EINVAL;
    }
    *out = mero_utc_seconds(y, mo, d, h, mi, se);
    return 0;
}

/* The signature BIT STRING: no unused bits, then a DER SEQUENCE. */
static int sig_value(struct rd *r, const uint8_t **sig, size_t *len)
{
    struct tlv b;
    if (expect(r, 0x03, &b) < 0 || b.len < 3 || b.val[0] != 0 || b.val[1] != 0x30) {
        return -MERO_EINVAL;
    }
    *sig = b.val + 1;
    *len = b.len - 1;
    return 0;
}

static void name_cn(const struct tlv *name, char *out, size_t cap)
{
    struct rd r, set, atv;
    struct tlv s, a, o, v;
    out[0] = 0;
    inside(&r, name);
    while (next(&r, &s) == 0) {
        if (s.tag != 0x31) {
            return;
        }
        inside(&set, &s);
        while (next(&set, &a) == 0) {
            if (a.tag != 0x30) {
                return;
            }
            inside(&atv, &a);
            if (next(&atv, &o) < 0 || next(&atv, &v) < 0) {
                return;
            }
            if (oid_is(&o, oid_cn, sizeof(oid_cn)) && v.len < cap) {
                memcpy(out, v.val, v.len);
                out[v.len] = 0;
                for (size_t i = 0; i < v.len; i++) {
                    if (out[i] == 0) {
                        out[0] = 0; /* embedded NUL: no CN */
                        return;
                    }
                }
                return;
            }
        }
    }
}

/* Outer SEQUENCE { tbs, algorithm, signature }, filling exactly der[0..len). */
static int signed_outer(const uint8_t *der, size_t len, struct tlv *tbs, const uint8_t **sig,
                        size_t *sig_len)
{
    struct rd top = {der, len, 0}, r;
    struct tlv outer;
    if (expect(&top, 0x30, &outer) < 0 || top.off != len) {
        return -MERO_EINVAL;
    }
    inside(&r, &outer);
    if (expect(&r, 0x30, tbs) < 0 || sig_alg(&r) < 0 || sig_value(&r, sig, sig_len) < 0 ||
        r.off != r.len) {
        return -MERO_EINVAL;
    }
    return 0;
}

int mero__cert_parse(struct mero_cert *c, const uint8_t *der, size_t len)
{
    struct mero_cert t;
    struct tlv tbs, v, serial, issuer, validity, subject, spki, alg, o1, o2, bits;
    struct rd r, in;
    memset(&t, 0, sizeof(t));
    if (der == NULL || signed_outer(der, len, &tbs, &t.sig, &t.sig_len) < 0) {
        return -MERO_ECERT;
    }
    inside(&r, &tbs);
    if (peek(&r, 0xa0) && next(&r, &v) < 0) { /* [0] version */
        return -MERO_ECERT;
    }
    if (expect(&r, 0x02, &serial) < 0 || serial.len == 0 || serial.len > DER_MAX_SERIAL ||
        sig_alg(&r) < 0 || expect(&r, 0x30, &issuer) < 0 || expect(&r, 0x30, &validity) < 0 ||
        expect(&r, 0x30, &subject) < 0 || expect(&r, 0x30, &spki) < 0) {
        return -MERO_ECERT;
    }
    inside(&in, &validity);
    if (der_time(&in, &t.not_before) < 0 || der_time(&in, &t.not_after) < 0 || in.off != in.len) {
        return -MERO_ECERT;
    }
    inside(&in, &spki);
    if (expect(&in, 0x30, &alg) < 0 || expect(&in, 0x03, &bits) < 0 || in.off != in.len) {
        return -MERO_ECERT;
    }
    struct rd ai;
    inside(&ai, &alg);
    if (next(&ai, &o1) < 0 || !oid_is(&o1, oid_ec_pubkey, sizeof(oid_ec_pubkey)) ||
        next(&ai, &o2) < 0 || !oid_is(&o2, oid_p256, sizeof(oid_p256)) || ai.off != ai.len) {
        return -MERO_ECERT;
    }
    if (bits.len != 66 || bits.val[0] != 0 || bits.val[1] != 0x04) {
        return -MERO_ECERT;
    }
    memcpy(t.point, bits.val + 2, MERO_ECDSA_P256_PK_LEN);
    /* Optional [1] issuerUniqueID, [2] subjectUniqueID, then [3] EXPLICIT Extensions. */
    struct tlv x, xs;
    while (r.off < r.len) {
        if (next(&r, &x) < 0) {
            return -MERO_ECERT;
        }
        if (x.tag == 0xa3) {
            struct rd xr;
            inside(&xr, &x);
            if (expect(&xr, 0x30, &xs) < 0 || xr.off != xr.len || t.ext != NULL) {
                return -MERO_ECERT;
            }
            t.ext = xs.val;
            t.ext_len = xs.len;
        } else if (x.tag != 0x81 && x.tag != 0x82) {
            return -MERO_ECERT;
        }
    }
    t.der = der;
    t.der_len = len;
    t.tbs = tbs.start;
    t.tbs_len = tbs.total;
    t.serial = serial.val;
    t.serial_len = serial.len;
    t.issuer = issuer.start;
    t.issuer_len = issuer.total;
    t.subject = subject.start;
    t.subject_len = subject.total;
    name_cn(&subject, t.cn, sizeof(t.cn));
    name_cn(&issuer, t.issuer_cn, sizeof(t.issuer_cn));
    *c = t;
    return 0;
}

/* 1.2.840.113741.1.13.1 */
static const uint8_t oid_sgx[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};

/* An OID equal to oid_sgx followed by the given arcs (each < 128). */
static bool sgx_sub(const struct tlv *o, const uint8_t *arcs, size_t n)
{
    return o->tag == 0x06 && o->len == sizeof(oid_sgx) + n &&
           memcmp(o->val, oid_sgx, sizeof(oid_sgx)) == 0 &&
           memcmp(o->val + sizeof(oid_sgx), arcs, n) == 0;
}

static int small_uint(const struct tlv *v, uint32_t max, uint32_t *out)
{
    if (v->tag != 0x02 || v->len == 0 || v->len > 3 || (v->val[0] & 0x80) ||
        (v->len > 1 && v->val[0] == 0 && !(v->val[1] & 0x80))) {
        return -MERO_EINVAL; /* not a minimal non-negative INTEGER */
    }
    uint32_t x = 0;
    for (size_t i = 0; i < v->len; i++) {
        x = x << 8 | v->val[i];
    }
    if (x > max) {
        return -MERO_EOVERFLOW;
    }
    *out = x;
    return 0;
}

static int sgx_tcb(const struct tlv *seq, struct mero_sgx_ext *e)
{
    struct rd r, in;
    struct tlv item, o, v;
    uint32_t seen = 0;
    inside(&r, seq);
    while (r.off < r.len) {
        if (expect(&r, 0x30, &item) < 0) {
            return -MERO_ECERT;
        }
        inside(&in, &item);
        if (next(&in, &o) < 0 || next(&in, &v) < 0 || in.off != in.len) {
            return -MERO_ECERT;
        }
        for (uint8_t k = 1; k <= 18; k++) {
            uint8_t arcs[2] = {2, k};
            if (!sgx_sub(&o, arcs, 2)) {
                continue;
            }
            if (seen & (1u << k)) {
                return -MERO_ECERT;
            }
            seen |= 1u << k;
            uint32_t x;
            if (k <= 16) {
                if (small_uint(&v, 255, &x) < 0) {
                    return -MERO_EINVAL;
                }
                e->cpusvn[k - 1] = (uint8_t)x;
            } else if (k == 17) {
                if (small_uint(&v, 65535, &x) < 0) {
                    return -MERO_EINVAL;
                }
                e->pcesvn = (uint16_t)x;
            } else if (v.tag != 0x04 || v.len != 16) {
                return -MERO_ECERT;
            }
        }
    }
    return (seen & 0x3fffeu) == 0x3fffeu ? 0 : -MERO_ECERT; /* .2.1 - .2.17 all present */
}

int mero__cert_sgx_ext(const struct mero_cert *c, struct mero_sgx_ext *out)
{
    struct rd r = {c->ext, c->ext_len, 0}, in, sr, ir;
    struct tlv ext, o, val, seq, item, so, sv;
    struct mero_sgx_ext e;
    bool found = false;
    memset(&e, 0, sizeof(e));
    while (c->ext != NULL && r.off < r.len) {
        if (expect(&r, 0x30, &ext) < 0) {
            return -MERO_ECERT;
        }
        inside(&in, &ext);
        if (next(&in, &o) < 0) {
            return -MERO_ECERT;
        }
        if (peek(&in, 0x01) && next(&in, &val) < 0) { /* critical */
            return -MERO_ECERT;
        }
        if (expect(&in, 0x04, &val) < 0 || in.off != in.len) {
            return -MERO_ECERT;
        }
        if (!oid_is(&o, oid_sgx, sizeof(oid_sgx))) {
            continue;
        }
        if (found) {
            return -MERO_ECERT;
        }
        found = true;
        inside(&sr, &val);
        if (expect(&sr, 0x30, &seq) < 0 || sr.off != sr.len) {
            return -MERO_ECERT;
        }
        inside(&sr, &seq);
        unsigned seen = 0;
        while (sr.off < sr.len) {
            if (expect(&sr, 0x30, &item) < 0) {
                return -MERO_ECERT;
            }
            inside(&ir, &item);
            if (next(&ir, &so) < 0 || next(&ir, &sv) < 0 || ir.off != ir.len) {
                return -MERO_ECERT;
            }
            uint8_t a2[1] = {2}, a3[1] = {3}, a4[1] = {4};
            if (sgx_sub(&so, a2, 1)) {
                if ((seen & 1) || sv.tag != 0x30 || sgx_tcb(&sv, &e) < 0) {
                    return -MERO_ECERT;
                }
                seen |= 1;
            } else if (sgx_sub(&so, a3, 1)) {
                if ((seen & 2) || sv.tag != 0x04 || sv.len != 2) {
                    return -MERO_ECERT;
                }
                memcpy(e.pceid, sv.val, 2);
                seen |= 2;
            } else if (sgx_sub(&so, a4, 1)) {
                if ((seen & 4) || sv.tag != 0x04 || sv.len != 6) {
                    return -MERO_ECERT;
                }
                memcpy(e.fmspc, sv.val, 6);
                seen |= 4;
            }
        }
        if (seen != 7) {
            return -MERO_ECERT;
        }
    }
    if (!found) {
        return -MERO_ECERT;
    }
    *out = e;
    return 0;
}

int mero__crl_parse(struct mero_crl *c, const uint8_t *der, size_t len)
{
    struct mero_crl t;
    struct tlv tbs, v, issuer, rev;
    struct rd r;
    memset(&t, 0, sizeof(t));
    if (der == NULL || signed_outer(der, len, &tbs, &t.sig, &t.sig_len) < 0) {
        return -MERO_ECRL;
    }
    inside(&r, &tbs);
    if (peek(&r, 0x02) && (next(&r, &v) < 0 || v.len != 1 || v.val[0] != 1)) { /* v2 */
        return -MERO_ECRL;
    }
    if (sig_alg(&r) < 0 || expect(&r, 0x30, &issuer) < 0 || der_time(&r, &t.this_update) < 0) {
        return -MERO_ECRL;
    }
    /* nextUpdate is optional in X.509 but required here: without it a CRL never expires. */
    if (!(peek(&r, 0x17) || peek(&r, 0x18)) || der_time(&r, &t.next_update) < 0) {
        return -MERO_ECRL;
    }
    if (peek(&r, 0x30)) {
        if (next(&r, &rev) < 0) {
            return -MERO_ECRL;
        }
        t.revoked = rev.val;
        t.revoked_len = rev.len;
    }
    if (peek(&r, 0xa0) && next(&r, &v) < 0) {
        return -MERO_ECRL;
    }
    if (r.off != r.len) {
        return -MERO_ECRL;
    }
    t.der = der;
    t.der_len = len;
    t.tbs = tbs.start;
    t.tbs_len = tbs.total;
    t.issuer = issuer.start;
    t.issuer_len = issuer.total;
    /* Every entry must be well formed, so a lookup can never silently stop early. */
    bool dummy;
    if (mero__crl_lists(&t, (const uint8_t *)"", 0, &dummy) < 0) {
        return -MERO_ECRL;
    }
    *c = t;
    return 0;
}

int mero__crl_lists(const struct mero_crl *c, const uint8_t *serial, size_t n, bool *listed)
{
    struct rd r = {c->revoked, c->revoked_len, 0}, e;
    struct tlv ent, s;
    *listed = false;
    while (r.off < r.len) {
        if (expect(&r, 0x30, &ent) < 0) {
            return -MERO_ECRL;
        }
        inside(&e, &ent);
        if (expect(&e, 0x02, &s) < 0 || s.len == 0) {
            return -MERO_ECRL;
        }
        if (n > 0 && s.len == n && memcmp(s.val, serial, n) == 0) {
            *listed = true;
        }
    }
    return 0;
}

bool mero__der_name_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && memcmp(a, b, an) == 0;
}
