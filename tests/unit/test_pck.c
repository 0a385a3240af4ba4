/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pck.c - the PCK leaf's Intel SGX extension walker: the real extension of a real quote,
 * truncated at every length and flipped at every byte (never a crash; only 0 or ECERT), and
 * hand-built DER with missing, duplicated, negative, indefinite or over-long elements.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "attest/pck_internal.h"
#include "mero/quote.h"
#include "harness.h"

/* The DER value of the SGX extension of dcapqvl-1's PCK leaf (caller frees). */
static uint8_t *real_ext(size_t *n)
{
    size_t len;
    uint8_t *p = mero_test_read("testdata/tdx/dcapqvl-1/quote.bin", 1, &len);
    struct mero_quote q;
    uint8_t *out = NULL;
    if (p == NULL || mero_quote_parse(&q, p, len, NULL) != 0) {
        free(p);
        return NULL;
    }
    BIO *bio = BIO_new_mem_buf(q.pck_chain, (int)q.pck_chain_len);
    X509 *x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    ASN1_OBJECT *obj = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
    int idx = x && obj ? X509_get_ext_by_OBJ(x, obj, -1) : -1;
    if (idx >= 0) {
        const ASN1_OCTET_STRING *os = X509_EXTENSION_get_data(X509_get_ext(x, idx));
        *n = (size_t)ASN1_STRING_length(os);
        out = malloc(*n);
        if (out != NULL) {
            memcpy(out, ASN1_STRING_get0_data(os), *n);
        }
    }
    ASN1_OBJECT_free(obj);
    X509_free(x);
    BIO_free(bio);
    free(p);
    return out;
}

TEST(real_extension_parses)
{
    size_t n = 0;
    uint8_t *e = real_ext(&n);
    CHECK(e != NULL);
    struct mero_pck_info pi;
    memset(&pi, 0, sizeof(pi));
    int rc = mero__pck_parse_sgx_ext(e, n, &pi);
    free(e);
    CHECK_OK(rc);
    static const uint8_t fmspc[6] = {0xb0, 0xc0, 0x6f, 0, 0, 0};
    static const uint8_t comps[16] = {3, 3, 2, 2, 4, 1, 0, 5};
    CHECK_MEM_EQ(pi.fmspc, fmspc, 6);
    CHECK_MEM_EQ(pi.cpusvn, comps, 16);
    CHECK_EQ(pi.pcesvn, 11);
}

TEST(real_extension_truncated_and_flipped)
{
    size_t n = 0;
    uint8_t *e = real_ext(&n);
    CHECK(e != NULL);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        CHECK(c != NULL);
        memcpy(c, e, cut);
        struct mero_pck_info pi;
        int rc = mero__pck_parse_sgx_ext(c, cut, &pi);
        free(c);
        if (rc != -MERO_ECERT) {
            free(e);
            CHECK_MSG(0, "cut at %zu gave %s", cut, mero_strerror(rc));
        }
    }
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit++) {
            e[i] ^= (uint8_t)(1u << bit);
            struct mero_pck_info pi;
            int rc = mero__pck_parse_sgx_ext(e, n, &pi);
            e[i] ^= (uint8_t)(1u << bit);
            if (rc != 0 && rc != -MERO_ECERT) {
                free(e);
                CHECK_MSG(0, "flip %zu.%d gave %s", i, bit, mero_strerror(rc));
            }
            failed += rc != 0;
        }
    }
    free(e);
    CHECK(failed > n); /* most structural flips are caught */
}

/* A tiny DER builder (lengths up to 65535). */
struct der {
    uint8_t b[512];
    size_t n;
};

static void raw(struct der *d, const void *p, size_t n)
{
    if (d->n + n <= sizeof(d->b)) {
        memcpy(d->b + d->n, p, n);
        d->n += n;
    }
}

static void tlv(struct der *d, uint8_t tag, const struct der *inner)
{
    if (inner->n < 128) {
        uint8_t h[2] = {tag, (uint8_t)inner->n};
        raw(d, h, 2);
    } else {
        uint8_t h[4] = {tag, 0x82, (uint8_t)(inner->n >> 8), (uint8_t)inner->n};
        raw(d, h, 4);
    }
    raw(d, inner->b, inner->n);
}

static void oid(struct der *d, const uint8_t *arcs, size_t narcs)
{
    static const uint8_t sgx[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};
    struct der o = {{0}, 0};
    raw(&o, sgx, sizeof(sgx));
    raw(&o, arcs, narcs);
    tlv(d, 0x06, &o);
}

static void item(struct der *d, const uint8_t *arcs, size_t narcs, uint8_t vtag, const void *v,
                 size_t vn)
{
    struct der s = {{0}, 0}, val = {{0}, 0};
    oid(&s, arcs, narcs);
    raw(&val, v, vn);
    tlv(&s, vtag, &val);
    tlv(d, 0x30, &s);
}

enum variant { V_OK, V_NO_FMSPC, V_DUP_FMSPC, V_NEG_COMP, V_MISSING_COMP, V_SHORT_PCEID };

static void build(struct der *out, enum variant v)
{
    struct der tcb = {{0}, 0}, top = {{0}, 0};
    for (uint8_t i = 1; i <= 17; i++) {
        if (v == V_MISSING_COMP && i == 9) {
            continue;
        }
        uint8_t arcs[2] = {2, i};
        uint8_t val = (v == V_NEG_COMP && i == 3) ? 0x80 : i;
        item(&tcb, arcs, 2, 0x02, &val, 1);
    }
    static const uint8_t a2[] = {2}, a3[] = {3}, a4[] = {4};
    struct der s = {{0}, 0};
    oid(&s, a2, 1);
    tlv(&s, 0x30, &tcb);
    tlv(&top, 0x30, &s);
    item(&top, a3, 1, 0x04, "\x00\x00", v == V_SHORT_PCEID ? 1 : 2);
    if (v != V_NO_FMSPC) {
        item(&top, a4, 1, 0x04, "\x10\x20\x30\x40\x50\x60", 6);
    }
    if (v == V_DUP_FMSPC) {
        item(&top, a4, 1, 0x04, "\x10\x20\x30\x40\x50\x60", 6);
    }
    out->n = 0;
    tlv(out, 0x30, &top);
}

TEST(hand_built_extensions)
{
    struct der d;
    struct mero_pck_info pi;
    build(&d, V_OK);
    CHECK_OK(mero__pck_parse_sgx_ext(d.b, d.n, &pi));
    CHECK_EQ(pi.cpusvn[0], 1);
    CHECK_EQ(pi.cpusvn[15], 16);
    CHECK_EQ(pi.pcesvn, 17);
    CHECK_EQ(pi.fmspc[5], 0x60);
    static const enum variant bad[] = {V_NO_FMSPC, V_DUP_FMSPC, V_NEG_COMP, V_MISSING_COMP,
                                       V_SHORT_PCEID};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        build(&d, bad[i]);
        CHECK_MSG(mero__pck_parse_sgx_ext(d.b, d.n, &pi) == -MERO_ECERT, "variant %d accepted",
                  (int)bad[i]);
    }
    /* indefinite length, 4-byte length, trailing bytes after the outer SEQUENCE */
    build(&d, V_OK);
    CHECK_EQ(d.b[1], 0x82); /* long form, as in real certificates */
    d.b[1] = 0x80;
    CHECK_ERR(mero__pck_parse_sgx_ext(d.b, d.n, &pi), -MERO_ECERT);
    static const uint8_t huge[] = {0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0x00};
    CHECK_ERR(mero__pck_parse_sgx_ext(huge, sizeof(huge), &pi), -MERO_ECERT);
    build(&d, V_OK);
    d.b[d.n++] = 0;
    CHECK_ERR(mero__pck_parse_sgx_ext(d.b, d.n, &pi), -MERO_ECERT);
    CHECK_ERR(mero__pck_parse_sgx_ext(d.b, 0, &pi), -MERO_ECERT);
}

MERO_TEST_MAIN(T(real_extension_parses), T(real_extension_truncated_and_flipped),
               T(hand_built_extensions))
