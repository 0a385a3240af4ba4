/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dcap.c - DCAP verification on the genuine cases of ../shared/testdata/tdx: each case's
 * expected verdict at its fixed time, the validity window edges, the SGX case refused,
 * gotdxguest-2 judged as far as its partial collateral allows, mutations of every signed
 * part, the verdict/no-verdict split, the collateral cache, the root pin, verify_evidence.
 */
#include <stdlib.h>
#include <string.h>

#include "attest/dcap_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "mero/encoding.h"
#include "support/dcap_cases.h"

static int setup(void)
{
    static int done;
    if (!done) {
        done = mero_crypto_init() == 0 ? 1 : -1;
    }
    return done;
}

static int verify_case(const struct dcap_case *k, const struct mero_collateral *c, uint64_t t,
                       struct mero_dcap_result *r)
{
    struct mero_err e;
    return mero_dcap_verify_quote(k->quote, k->quote_len, c, t, r, &e);
}

static int load(struct dcap_case *k, struct mero_collateral *c, const char *name)
{
    struct mero_err e;
    if (setup() < 0 || dcap_case_load(k, name) < 0) {
        return -1;
    }
    if (mero_collateral_parse(c, k->collateral_json, k->collateral_len, &e) < 0) {
        dcap_case_free(k);
        return -1;
    }
    return 0;
}

static bool same_advisories(const struct mero_dcap_result *r, json_t *want)
{
    if (r->n_advisory_ids != json_array_size(want)) {
        return false;
    }
    for (size_t i = 0; i < json_array_size(want); i++) {
        bool found = false;
        for (size_t j = 0; j < r->n_advisory_ids; j++) {
            found |= strcmp(r->advisory_ids[j], json_string_value(json_array_get(want, i))) == 0;
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

TEST(every_case_gives_its_expected_verdict)
{
    for (int i = 0; dcap_case_names[i] != NULL; i++) {
        struct dcap_case k;
        struct mero_collateral c;
        CHECK_MSG(load(&k, &c, dcap_case_names[i]) == 0, "load %s", dcap_case_names[i]);
        struct mero_dcap_result r;
        int rc = verify_case(&k, &c, k.verify_time, &r);
        json_t *exp = json_object_get(k.expected, "expect");
        bool ok = strcmp(k.result, "ok") == 0;
        bool pass = rc == 0 && r.quote_verified == ok;
        if (pass && ok) {
            pass = r.has_tcb_status &&
                   strcmp(mero_tcb_status_name(r.tcb_status),
                          json_string_value(json_object_get(exp, "tcb_status"))) == 0 &&
                   same_advisories(&r, json_object_get(exp, "advisory_ids")) && r.root_crl_checked;
        }
        if (pass && !ok) {
            pass = !r.has_tcb_status && r.reject_code != 0 && r.reject_reason[0] != 0;
        }
        char name[64];
        snprintf(name, sizeof(name), "%s", k.name);
        mero_collateral_cleanup(&c);
        dcap_case_free(&k);
        CHECK_MSG(pass, "%s: rc=%d verified=%d reason=%s", name, rc, r.quote_verified,
                  r.reject_reason);
    }
}

TEST(reject_reasons_are_intels)
{
    struct {
        const char *name;
        int code;
    } want[] = {
        {"tdx/dcapqvl-2", MERO_ETCB_NOT_SUPPORTED},
        {"tdx/gotdxguest-1", MERO_ETCB_NOT_SUPPORTED},
        {"tdx/dcapqvl-3", MERO_ETCBINFO},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct dcap_case k;
        struct mero_collateral c;
        CHECK(load(&k, &c, want[i].name) == 0);
        struct mero_dcap_result r;
        int rc = verify_case(&k, &c, k.verify_time, &r);
        mero_collateral_cleanup(&c);
        dcap_case_free(&k);
        CHECK_EQ(rc, 0);
        CHECK_EQ(r.reject_code, want[i].code);
    }
}

TEST(ok_cases_are_rejected_outside_the_collateral_window)
{
    for (int i = 0; dcap_case_names[i] != NULL; i++) {
        struct dcap_case k;
        struct mero_collateral c;
        CHECK(load(&k, &c, dcap_case_names[i]) == 0);
        if (strcmp(k.result, "ok") != 0) {
            mero_collateral_cleanup(&c);
            dcap_case_free(&k);
            continue;
        }
        struct mero_dcap_result in_lo, in_hi, after, before;
        int a = verify_case(&k, &c, (uint64_t)k.window_nb, &in_lo);
        int b = verify_case(&k, &c, (uint64_t)k.window_na, &in_hi);
        int d = verify_case(&k, &c, (uint64_t)k.window_na + 1, &after);
        int e = verify_case(&k, &c, (uint64_t)k.window_nb - 1, &before);
        char name[64];
        snprintf(name, sizeof(name), "%s", k.name);
        mero_collateral_cleanup(&c);
        dcap_case_free(&k);
        CHECK_MSG(a == 0 && b == 0 && d == 0 && e == 0, "%s: no verdict", name);
        CHECK_MSG(in_lo.quote_verified && in_hi.quote_verified, "%s: edges", name);
        CHECK_MSG(!after.quote_verified && after.reject_code == MERO_EEXPIRED, "%s: after", name);
        CHECK_MSG(!before.quote_verified && before.reject_code == MERO_EEXPIRED, "%s: before",
                  name);
    }
}

TEST(sgx_quote_is_refused_for_tdx)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "sgx/dcapqvl-1") == 0);
    struct mero_dcap_result r;
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    CHECK_ERR(rc, -MERO_EQUOTE_SGX);
}

/* gotdxguest-2 carries only a TCB info and its chain: no verdict from the verifier, and the
 * parts it does carry judged one by one. */
TEST(gotdxguest2_partial_collateral)
{
    struct dcap_case k;
    CHECK(setup() > 0 && dcap_case_load(&k, "tdx/gotdxguest-2") == 0);
    size_t bl = 0, cl = 0;
    char *body = dcap_case_file(&k, "sample_tcbinfo_response_v5.json", &bl);
    char *chain = dcap_case_file(&k, "tcb_info_issuer_chain.pem", &cl);
    CHECK(body != NULL && chain != NULL);
    /* the signed object, cut verbatim: {"tcbInfo":<it>,"signature":"..."} */
    const char *start = strstr(body, "\"tcbInfo\":");
    const char *sig = strstr(body, ",\"signature\":\"");
    CHECK(start != NULL && sig != NULL && sig > start);
    start += strlen("\"tcbInfo\":");
    struct mero_collateral c;
    mero_collateral_init(&c);
    c.tcb_info_len = (size_t)(sig - start);
    c.tcb_info = strndup(start, c.tcb_info_len);
    CHECK(mero_hex_decode_exact(c.tcb_info_signature, 64, sig + 14, 128) == 0);
    c.tcb_info_issuer_chain = chain;
    c.tcb_info_issuer_chain_len = cl;
    mero_collateral_rehash(&c);
    struct mero_dcap_result r;
    struct mero_err e;
    CHECK_ERR(mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e),
              -MERO_ECOLLATERAL);
    /* TCB info: signed by the chain's signer; the signer is signed by the pinned root, and
     * expired (2025-05-21) before the verification time, as expected.json notes. */
    struct mero_x509_chain ch;
    CHECK_OK(mero__x509_chain_parse(&ch, chain, cl, &e));
    CHECK_EQ(ch.n, 2);
    CHECK(mero__x509_pin_ok(ch.der[1], ch.der_len[1], MERO_INTEL_ROOT_CA_SHA256));
    EVP_PKEY *root = NULL, *signer = NULL;
    CHECK_OK(mero__x509_key(ch.cert[1].point, &root));
    CHECK_OK(mero__x509_key(ch.cert[0].point, &signer));
    CHECK_OK(mero__x509_signed_by(&ch.cert[0], &ch.cert[1], root, &e, "signer"));
    CHECK_OK(mero__x509_ecdsa_verify(signer, c.tcb_info_signature, c.tcb_info, c.tcb_info_len));
    CHECK_ERR(mero__x509_valid_at(&ch.cert[0], (int64_t)k.verify_time, &e, "signer"),
              -MERO_EEXPIRED);
    /* The quote: PCK chain to the root, QE report and quote signatures, report data. */
    struct mero_quote q;
    CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
    struct mero_x509_chain pk;
    CHECK_OK(mero__x509_chain_parse(&pk, (const char *)q.pck_chain, q.pck_chain_len, &e));
    CHECK_EQ(pk.n, 3);
    CHECK(pk.der_len[2] == ch.der_len[1] && memcmp(pk.der[2], ch.der[1], pk.der_len[2]) == 0);
    EVP_PKEY *ca = NULL, *leaf = NULL, *ak = NULL;
    CHECK_OK(mero__x509_key(pk.cert[1].point, &ca));
    CHECK_OK(mero__x509_key(pk.cert[0].point, &leaf));
    CHECK_OK(mero__x509_key(q.attest_key, &ak));
    CHECK_OK(mero__x509_signed_by(&pk.cert[1], &pk.cert[2], root, &e, "PCK CA"));
    CHECK_OK(mero__x509_signed_by(&pk.cert[0], &pk.cert[1], ca, &e, "PCK leaf"));
    CHECK_OK(mero__x509_ecdsa_verify(leaf, q.qe_report_sig, q.qe_report_raw, 384));
    CHECK_OK(mero__x509_ecdsa_verify(ak, q.signature, q.signed_data, q.signed_len));
    /* Platform TCB: UpToDate by Intel's level rule. */
    struct mero_tcbinfo tcb;
    struct mero_sgx_ext ext;
    CHECK_OK(mero__tcbinfo_parse(&tcb, c.tcb_info, c.tcb_info_len, &e));
    CHECK_OK(mero__cert_sgx_ext(&pk.cert[0], &ext));
    const struct mero_tcb_level *lv = mero__dcap_tcb_level(&tcb, &ext, q.body.tee_tcb_svn);
    CHECK(lv != NULL);
    CHECK_EQ(lv->status, MERO_TCB_UP_TO_DATE);
    mero__tcbinfo_cleanup(&tcb);
    EVP_PKEY_free(root);
    EVP_PKEY_free(signer);
    EVP_PKEY_free(ca);
    EVP_PKEY_free(leaf);
    EVP_PKEY_free(ak);
    mero__x509_chain_cleanup(&ch);
    mero__x509_chain_cleanup(&pk);
    free(body);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

/* Flip one byte and expect a verdict "not verified" (not an error). */
static int flipped_quote(const char *name, size_t off, int *code)
{
    struct dcap_case k;
    struct mero_collateral c;
    if (load(&k, &c, name) < 0) {
        return -100;
    }
    k.quote[off] ^= 0x01;
    struct mero_dcap_result r;
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    if (rc < 0) {
        return rc;
    }
    *code = r.reject_code;
    return r.quote_verified ? 1 : 0;
}

TEST(flipped_quote_bytes_are_verdicts_not_errors)
{
    /* v4 layout: header 48, body 584 (mrtd at 48+136), sig at 636, key at 700, cert data
     * header 764..770, QE report 770..1154, QE report sig 1154..1218. */
    struct {
        size_t off;
        int code;
    } cases[] = {
        {48 + 64, MERO_ETDX_MODULE},  /* MRSIGNERSEAM: no longer the module identity's */
        {48 + 112, MERO_ETDX_MODULE}, /* SEAM attributes: no longer zero */
        {48 + 136, MERO_EBADSIG},     /* TD report body (MRTD) */
        {48 + 200, MERO_EBADSIG},     /* byte 248 of the body (the evidence test's flip) */
        {640, MERO_EBADSIG},          /* quote signature */
        {770 + 10, MERO_EQEREPORT},   /* QE report (cpusvn) */
        {1160, MERO_EQEREPORT},       /* QE report signature */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int code = 0;
        int v = flipped_quote("tdx/dcapqvl-1", cases[i].off, &code);
        CHECK_MSG(v == 0 && code == cases[i].code, "offset %zu: v=%d code=%s", cases[i].off, v,
                  mero_strerror(code));
    }
}

TEST(flipped_pck_leaf_is_a_verdict)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/nearmpc-3") == 0);
    struct mero_quote q;
    struct mero_err e;
    CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
    size_t off = (size_t)(q.pck_chain - k.quote) + 400; /* inside the leaf's base64 */
    char ch = (char)k.quote[off];
    k.quote[off] = (uint8_t)(ch == 'A' ? 'B' : 'A');
    struct mero_dcap_result r;
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    CHECK_EQ(rc, 0);
    CHECK(!r.quote_verified);
}

static int flipped_collateral(size_t field, size_t off, int *code)
{
    struct dcap_case k;
    struct mero_collateral c;
    if (load(&k, &c, "tdx/dcapqvl-1") < 0) {
        return -100;
    }
    if (field == 0) {
        c.tcb_info[off] ^= 0x01;
    } else if (field == 1) {
        c.tcb_info_signature[off] ^= 0x01;
    } else if (field == 2) {
        c.qe_identity[off] ^= 0x01;
    } else {
        c.qe_identity_signature[off] ^= 0x01;
    }
    mero_collateral_rehash(&c);
    struct mero_dcap_result r;
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    if (rc < 0) {
        return rc;
    }
    *code = r.reject_code;
    return r.quote_verified ? 1 : 0;
}

TEST(flipped_collateral_is_a_verdict)
{
    for (size_t f = 0; f < 4; f++) {
        int code = 0;
        int v = flipped_collateral(f, 40, &code);
        CHECK_MSG(v == 0 && code == MERO_EBADSIG, "field %zu: v=%d code=%s", f, v,
                  mero_strerror(code));
    }
}

/* Deliberate difference D5 (docs/verification.md §4.1): Intel's QVL never reads the PCK CRL
 * issuer chain; we verify it, so another chain there is refused. */
TEST(pck_crl_issuer_chain_is_verified)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    free(c.pck_crl_issuer_chain);
    c.pck_crl_issuer_chain = strdup(c.tcb_info_issuer_chain);
    c.pck_crl_issuer_chain_len = c.tcb_info_issuer_chain_len;
    mero_collateral_rehash(&c);
    struct mero_dcap_result r;
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    CHECK_EQ(rc, 0);
    CHECK(!r.quote_verified);
    CHECK_EQ(r.reject_code, MERO_ECHAIN);
}

TEST(collateral_of_another_fmspc_is_rejected)
{
    struct dcap_case k, other;
    struct mero_collateral c;
    /* dcapqvl-2's collateral is for FMSPC 90c06f000000; nearmpc-3's quote is b0c06f000000 and
     * its PCK leaf is valid at dcapqvl-2's time. */
    CHECK(load(&k, &c, "tdx/dcapqvl-2") == 0);
    CHECK(dcap_case_load(&other, "tdx/nearmpc-3") == 0);
    struct mero_dcap_result r;
    struct mero_err e;
    int rc = mero_dcap_verify_quote(other.quote, other.quote_len, &c, k.verify_time, &r, &e);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    dcap_case_free(&other);
    CHECK_EQ(rc, 0);
    CHECK(!r.quote_verified);
    CHECK_EQ(r.reject_code, MERO_ETCBINFO);
}

TEST(unparsable_input_is_no_verdict)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    struct mero_dcap_result r;
    struct mero_err e;
    /* truncated quote */
    CHECK_FAILS(mero_dcap_verify_quote(k.quote, 1000, &c, k.verify_time, &r, &e));
    /* mock quote */
    uint8_t mock[256] = "MOCK_TDX_QUOTE_V1";
    CHECK_ERR(mero_dcap_verify_quote(mock, sizeof(mock), &c, k.verify_time, &r, &e),
              -MERO_EQUOTE_MOCK);
    /* no collateral */
    CHECK_ERR(mero_dcap_verify_quote(k.quote, k.quote_len, NULL, k.verify_time, &r, &e),
              -MERO_ECOLLATERAL);
    /* collateral whose CRL does not decode */
    c.pck_crl[0] ^= 0xff;
    mero_collateral_rehash(&c);
    CHECK_ERR(mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e),
              -MERO_ECOLLATERAL);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

TEST(second_quote_on_the_same_collateral_uses_the_cache)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/nearmpc-2") == 0);
    mero_dcap_cache_clear();
    uint64_t h0, m0, h1, m1, h2, m2;
    mero_dcap_cache_stats(&h0, &m0);
    struct mero_dcap_result a, b;
    CHECK_OK(verify_case(&k, &c, k.verify_time, &a));
    mero_dcap_cache_stats(&h1, &m1);
    CHECK_OK(verify_case(&k, &c, k.verify_time, &b));
    mero_dcap_cache_stats(&h2, &m2);
    CHECK_U64_EQ(m1, m0 + 1);
    CHECK_U64_EQ(m2, m1);
    CHECK_U64_EQ(h2, h1 + 1);
    CHECK(a.quote_verified && b.quote_verified && a.tcb_status == b.tcb_status);
    /* other bytes, other key: a different collateral is verified afresh */
    c.qe_identity_signature[5] ^= 1;
    mero_collateral_rehash(&c);
    CHECK_OK(verify_case(&k, &c, k.verify_time, &b));
    mero_dcap_cache_stats(&h2, &m2);
    CHECK_U64_EQ(m2, m1 + 1);
    CHECK(!b.quote_verified);
    /* bounded: many distinct collaterals, no growth beyond the bound (and no crash) */
    for (int i = 0; i < 3 * MERO_DCAP_CACHE_MAX; i++) {
        c.qe_identity_signature[6] = (uint8_t)i;
        mero_collateral_rehash(&c);
        CHECK_OK(verify_case(&k, &c, k.verify_time, &b));
    }
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

/* Issue 21 item 4: a collateral stripped of its root CA CRL used to verify exactly like a full
 * one. Intel cannot judge it either (the oracle reports INCOMPLETE), so it is no verdict. */
TEST(missing_root_crl_is_no_verdict)
{
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    free(c.root_ca_crl);
    c.root_ca_crl = NULL;
    c.root_ca_crl_len = 0;
    mero_collateral_rehash(&c);
    struct mero_dcap_result r;
    int rc = mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e);
    mero_collateral_cleanup(&c);
    CHECK_ERR(rc, -MERO_ECOLLATERAL);
    CHECK(strstr(e.msg, "root_ca_crl") != NULL);
    /* the evidence path (admission) refuses it too */
    json_t *j = json_loadb(k.collateral_json, k.collateral_len, 0, NULL);
    CHECK(j != NULL);
    json_object_del(j, "root_ca_crl");
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    CHECK(text != NULL);
    uint8_t bound[32];
    memcpy(bound, k.quote + 568 + 32, 32);
    rc = mero_dcap_verify_evidence(k.quote, k.quote_len, text, strlen(text), k.verify_time, bound,
                                   &r, &e);
    free(text);
    dcap_case_free(&k);
    CHECK_ERR(rc, -MERO_ECOLLATERAL);
}

/* The known bug of issue 14: with pck_certificate_chain in the collateral, the quote's own
 * chain was never judged, so a quote whose embedded chain is corrupted still verified. */
TEST(quote_chain_is_judged_when_collateral_carries_one)
{
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/nearmpc-4") == 0);
    CHECK(c.pck_certificate_chain != NULL);
    struct mero_dcap_result r;
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK(r.quote_verified); /* the collateral's chain equals the quote's */
    struct mero_quote q;
    CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
    size_t off = (size_t)(q.pck_chain - k.quote) + 400; /* inside the leaf's base64 */
    k.quote[off] = (uint8_t)(k.quote[off] == 'A' ? 'B' : 'A');
    int rc = verify_case(&k, &c, k.verify_time, &r);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
    CHECK_EQ(rc, 0);
    CHECK(!r.quote_verified);
}

TEST(collateral_chain_must_equal_the_quotes)
{
    struct dcap_case k, other;
    struct mero_collateral c;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/nearmpc-4") == 0);
    CHECK(dcap_case_load(&other, "tdx/nearmpc-3") == 0);
    struct mero_quote oq;
    CHECK_OK(mero_quote_parse(&oq, other.quote, other.quote_len, &e));
    /* another platform's genuine chain: both present and different -> refused */
    free(c.pck_certificate_chain);
    c.pck_certificate_chain = strndup((const char *)oq.pck_chain, oq.pck_chain_len);
    c.pck_certificate_chain_len = strlen(c.pck_certificate_chain);
    mero_collateral_rehash(&c);
    struct mero_dcap_result r;
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK(!r.quote_verified);
    CHECK_EQ(r.reject_code, MERO_ECHAIN);
    CHECK(strstr(r.reject_reason, "pck_certificate_chain") != NULL);
    /* the same certificates in other PEM layout (no trailing newline, CRLF) are the same chain */
    struct mero_quote q;
    CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
    free(c.pck_certificate_chain);
    size_t n = strnlen((const char *)q.pck_chain, q.pck_chain_len);
    char *crlf = malloc(2 * n + 1);
    CHECK(crlf != NULL);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (q.pck_chain[i] == '\n') {
            crlf[m++] = '\r';
        }
        crlf[m++] = (char)q.pck_chain[i];
    }
    while (m > 0 && (crlf[m - 1] == '\n' || crlf[m - 1] == '\r')) {
        m--;
    }
    crlf[m] = 0;
    c.pck_certificate_chain = crlf;
    c.pck_certificate_chain_len = m;
    mero_collateral_rehash(&c);
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK_MSG(r.quote_verified, "%s", r.reject_reason);
    /* a quote that carries no chain takes the collateral's (the parser requires one today, so
     * this is the chain choice alone) */
    const char *pem = NULL;
    size_t len = 0;
    char why[MERO_ERR_MSG_MAX];
    CHECK_OK(mero__dcap_pck_chain(&q, &c, &pem, &len, why, sizeof(why)));
    CHECK(pem == (const char *)q.pck_chain);
    q.pck_chain = NULL;
    q.pck_chain_len = 0;
    CHECK_OK(mero__dcap_pck_chain(&q, &c, &pem, &len, why, sizeof(why)));
    CHECK(pem == c.pck_certificate_chain && len == c.pck_certificate_chain_len);
    mero_collateral_cleanup(&c);
    CHECK_ERR(mero__dcap_pck_chain(&q, &c, &pem, &len, why, sizeof(why)), -MERO_ECHAIN);
    dcap_case_free(&k);
    dcap_case_free(&other);
}

TEST(root_pin_decides_trust)
{
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    uint8_t other[32] = {1};
    mero_dcap_set_root_pin(other);
    struct mero_dcap_result r;
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK(!r.quote_verified);
    CHECK_EQ(r.reject_code, MERO_EROOT);
    char path[600];
    snprintf(path, sizeof(path), "%s/testdata/tdx/intel-sgx-root-ca.pem", mero_test_shared());
    CHECK_OK(mero_dcap_load_root_file(path, &e));
    CHECK(memcmp(mero__dcap_root_pin(), MERO_INTEL_ROOT_CA_SHA256, 32) == 0);
    snprintf(path, sizeof(path), "%s/testdata/tdx/intel-sgx-root-ca.der", mero_test_shared());
    mero_dcap_set_root_pin(other);
    CHECK_OK(mero_dcap_load_root_file(path, &e));
    CHECK(memcmp(mero__dcap_root_pin(), MERO_INTEL_ROOT_CA_SHA256, 32) == 0);
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK(r.quote_verified);
    CHECK_FAILS(mero_dcap_load_root_file("/nonexistent/root.der", &e));
    mero_dcap_set_root_pin(NULL);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

TEST(nonce_and_app_hash)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    struct mero_err e;
    struct mero_dcap_result r;
    uint8_t nonce[32], app[32];
    memcpy(nonce, k.quote + 568, 32);
    memcpy(app, k.quote + 600, 32);
    CHECK_OK(mero_dcap_verify(k.quote, k.quote_len, &c, k.verify_time, nonce, app, &r, &e));
    CHECK(r.is_valid && r.nonce_verified && r.application_hash_verified);
    nonce[0] ^= 1;
    CHECK_OK(mero_dcap_verify(k.quote, k.quote_len, &c, k.verify_time, nonce, app, &r, &e));
    CHECK(!r.is_valid && !r.nonce_verified && r.application_hash_verified && r.quote_verified);
    nonce[0] ^= 1;
    app[31] ^= 1;
    CHECK_OK(mero_dcap_verify(k.quote, k.quote_len, &c, k.verify_time, nonce, app, &r, &e));
    CHECK(!r.is_valid && r.nonce_verified && !r.application_hash_verified);
    /* measurements are reported whatever the verdict */
    CHECK_MEM_EQ(r.mrtd, k.quote + 48 + 136, 48);
    CHECK_MEM_EQ(r.rtmr[3], k.quote + 48 + 472, 48);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

TEST(verify_evidence)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/nearmpc-4") == 0);
    struct mero_err e;
    struct mero_dcap_result r;
    uint8_t bound[32];
    memcpy(bound, k.quote + 600, 32);
    CHECK_OK(mero_dcap_verify_evidence(k.quote, k.quote_len, k.collateral_json, k.collateral_len,
                                       k.verify_time, bound, &r, &e));
    CHECK(r.has_tcb_status && r.tcb_status == MERO_TCB_UP_TO_DATE);
    CHECK_MEM_EQ(r.mrtd, k.quote + 48 + 136, 48);
    bound[0] ^= 1;
    CHECK_ERR(mero_dcap_verify_evidence(k.quote, k.quote_len, k.collateral_json, k.collateral_len,
                                        k.verify_time, bound, &r, &e),
              -MERO_EPOLICY);
    bound[0] ^= 1;
    CHECK_ERR(
        mero_dcap_verify_evidence(k.quote, k.quote_len, NULL, 0, k.verify_time, bound, &r, &e),
        -MERO_ECOLLATERAL);
    CHECK_FAILS(mero_dcap_verify_evidence(k.quote, k.quote_len, k.collateral_json, k.collateral_len,
                                          1, bound, &r, &e));
    k.quote[200] ^= 1;
    CHECK_FAILS(mero_dcap_verify_evidence(k.quote, k.quote_len, k.collateral_json, k.collateral_len,
                                          k.verify_time, bound, &r, &e));
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

TEST(sgx_extension_reader_agrees_with_pck_c)
{
    for (int i = 0; dcap_case_names[i] != NULL; i++) {
        struct dcap_case k;
        struct mero_err e;
        CHECK(setup() > 0 && dcap_case_load(&k, dcap_case_names[i]) == 0);
        struct mero_quote q;
        struct mero_pck_info pi;
        struct mero_x509_chain ch;
        struct mero_sgx_ext ext;
        CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
        CHECK_OK(mero_quote_pck_info(&q, &pi, &e));
        CHECK_OK(mero__x509_chain_parse(&ch, (const char *)q.pck_chain, q.pck_chain_len, &e));
        CHECK_OK(mero__cert_sgx_ext(&ch.cert[0], &ext));
        CHECK_MEM_EQ(ext.fmspc, pi.fmspc, 6);
        CHECK_MEM_EQ(ext.pceid, pi.pceid, 2);
        CHECK_MEM_EQ(ext.cpusvn, pi.cpusvn, 16);
        CHECK_EQ(ext.pcesvn, pi.pcesvn);
        CHECK_STR_EQ(ch.cert[0].issuer_cn, pi.issuer_cn);
        CHECK_EQ(ch.cert[0].not_after, pi.not_after);
        mero__x509_chain_cleanup(&ch);
        dcap_case_free(&k);
    }
}

TEST(keys_off_the_curve_are_refused)
{
    CHECK(setup() > 0);
    uint8_t xy[64];
    memset(xy, 0x01, sizeof(xy));
    EVP_PKEY *k = NULL;
    CHECK_ERR(mero__x509_key(xy, &k), -MERO_ECRYPTO);
    memset(xy, 0, sizeof(xy));
    CHECK_ERR(mero__x509_key(xy, &k), -MERO_ECRYPTO);
    /* a valid key that did not sign: the signature fails */
    struct dcap_case a, b;
    struct mero_err e;
    struct mero_quote qa, qb;
    CHECK(dcap_case_load(&a, "tdx/dcapqvl-1") == 0 && dcap_case_load(&b, "tdx/nearmpc-1") == 0);
    CHECK_OK(mero_quote_parse(&qa, a.quote, a.quote_len, &e));
    CHECK_OK(mero_quote_parse(&qb, b.quote, b.quote_len, &e));
    CHECK_OK(mero__x509_key(qb.attest_key, &k));
    CHECK_ERR(mero__x509_ecdsa_verify(k, qa.signature, qa.signed_data, qa.signed_len),
              -MERO_EBADSIG);
    EVP_PKEY_free(k);
    CHECK_OK(mero__x509_key(qa.attest_key, &k));
    CHECK_OK(mero__x509_ecdsa_verify(k, qa.signature, qa.signed_data, qa.signed_len));
    uint8_t zero[64] = {0};
    CHECK_ERR(mero__x509_ecdsa_verify(k, zero, qa.signed_data, qa.signed_len), -MERO_EBADSIG);
    EVP_PKEY_free(k);
    dcap_case_free(&a);
    dcap_case_free(&b);
}

TEST(pem_chains_are_strict)
{
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_err e;
    struct mero_x509_chain ch;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    const char *pem = c.pck_crl_issuer_chain;
    size_t n = c.pck_crl_issuer_chain_len;
    CHECK_OK(mero__x509_chain_parse(&ch, pem, n, &e));
    CHECK_EQ(ch.n, 2);
    mero__x509_chain_cleanup(&ch);
    char *buf = malloc(4 * n + 64);
    CHECK(buf != NULL);
    /* trailing NULs and newlines are fine (quotes carry them) */
    memcpy(buf, pem, n);
    memset(buf + n, 0, 8);
    CHECK_OK(mero__x509_chain_split(&ch, buf, n + 8, &e));
    mero__x509_chain_cleanup(&ch);
    /* text between blocks, after the last block, unterminated block, five certificates */
    memcpy(buf, "junk", 4);
    memcpy(buf + 4, pem, n);
    CHECK_ERR(mero__x509_chain_split(&ch, buf, n + 4, &e), -MERO_ECERT);
    memcpy(buf, pem, n);
    memcpy(buf + n, "junk", 4);
    CHECK_ERR(mero__x509_chain_split(&ch, buf, n + 4, &e), -MERO_ECERT);
    CHECK_ERR(mero__x509_chain_split(&ch, pem, n - 30, &e), -MERO_ECERT);
    for (int i = 0; i < 3; i++) {
        memcpy(buf + (size_t)i * n, pem, n);
    }
    CHECK_ERR(mero__x509_chain_split(&ch, buf, 3 * n, &e), -MERO_ECERT);
    /* a bad base64 character, and data after the padding */
    memcpy(buf, pem, n);
    buf[100] = '*';
    CHECK_ERR(mero__x509_chain_split(&ch, buf, n, &e), -MERO_ECERT);
    memcpy(buf, pem, n);
    char *pad = strchr(buf, '=');
    if (pad != NULL && pad[1] != '=') {
        pad[1] = 'A';
        CHECK_ERR(mero__x509_chain_split(&ch, buf, n, &e), -MERO_ECERT);
    }
    /* a byte flipped inside the DER: decodes as base64 but not as a certificate */
    memcpy(buf, pem, n);
    buf[40] = buf[40] == 'A' ? 'B' : 'A';
    if (mero__x509_chain_split(&ch, buf, n, &e) == 0) {
        struct mero_cert cert;
        int rc = mero__cert_parse(&cert, ch.der[0], ch.der_len[0]);
        mero__x509_chain_cleanup(&ch);
        CHECK(rc == -MERO_ECERT || rc == 0);
    }
    free(buf);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

/* A copy of pem (n bytes) with every LF replaced by `with` (0: removed); owned. */
static char *pem_without_line_breaks(const char *pem, size_t n, char with, size_t *out_len)
{
    char *s = malloc(n + 1);
    size_t m = 0;
    if (s == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (pem[i] != '\n') {
            s[m++] = pem[i];
        } else if (with != 0) {
            s[m++] = with;
        }
    }
    s[m] = 0;
    *out_len = m;
    return s;
}

/* One PEM chain after edit(): split must refuse it with a message containing `why`. */
static bool split_refuses(const char *pem, size_t n, const char *why)
{
    struct mero_x509_chain ch;
    struct mero_err e;
    mero_err_clear(&e);
    int rc = mero__x509_chain_split(&ch, pem, n, &e);
    if (rc == 0) {
        mero__x509_chain_cleanup(&ch);
        return false;
    }
    return rc == -MERO_ECERT && strstr(e.msg, why) != NULL;
}

/* Issue 38: each block must have the line structure OpenSSL's PEM reader (Intel's) requires. */
TEST(pem_blocks_keep_their_line_breaks)
{
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_x509_chain ch;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    const char *pem = c.tcb_info_issuer_chain;
    size_t n = c.tcb_info_issuer_chain_len;
    size_t m = 0;
    /* every line break turned into a space, or removed (what Intel refuses) */
    char *s = pem_without_line_breaks(pem, n, ' ', &m);
    CHECK(s != NULL && m == n);
    CHECK(split_refuses(s, m, "no line break after its BEGIN marker"));
    free(s);
    s = pem_without_line_breaks(pem, n, 0, &m);
    CHECK(s != NULL && m < n);
    CHECK(split_refuses(s, m, "no line break after its BEGIN marker"));
    free(s);
    char *buf = malloc(n + 8);
    CHECK(buf != NULL);
    const char *end1 = strstr(pem, "-----END CERTIFICATE-----");
    CHECK(end1 != NULL);
    size_t at_end = (size_t)(end1 - pem), at_begin = sizeof("-----BEGIN CERTIFICATE-----") - 1;
    /* only the line break after the first BEGIN marker: a space, nothing, CR alone */
    memcpy(buf, pem, n);
    buf[at_begin] = ' ';
    CHECK(split_refuses(buf, n, "no line break after its BEGIN marker"));
    buf[at_begin] = '\r';
    CHECK(split_refuses(buf, n, "no line break after its BEGIN marker"));
    buf[at_begin] = '\v'; /* OpenSSL strips any control character there; we do not (D4) */
    CHECK(split_refuses(buf, n, "no line break after its BEGIN marker"));
    memcpy(buf, pem, at_begin);
    memcpy(buf + at_begin, pem + at_begin + 1, n - at_begin - 1);
    CHECK(split_refuses(buf, n - 1, "no line break after its BEGIN marker"));
    /* only the line break before the first END marker: a space, a CR, nothing; or an indent */
    memcpy(buf, pem, n);
    buf[at_end - 1] = ' ';
    CHECK(split_refuses(buf, n, "END marker does not start a line"));
    buf[at_end - 1] = '\r';
    CHECK(split_refuses(buf, n, "END marker does not start a line"));
    memcpy(buf, pem, at_end - 1);
    memcpy(buf + at_end - 1, pem + at_end, n - at_end);
    CHECK(split_refuses(buf, n - 1, "END marker does not start a line"));
    memcpy(buf, pem, at_end);
    buf[at_end] = ' ';
    memcpy(buf + at_end + 1, pem + at_end, n - at_end);
    CHECK(split_refuses(buf, n + 1, "END marker does not start a line"));
    /* a blank line inside a block: after BEGIN, in the middle, before END; spaces only */
    size_t cuts[] = {at_begin + 1, at_begin + 66, at_end};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        memcpy(buf, pem, cuts[i]);
        memcpy(buf + cuts[i], " \t\n", 3);
        memcpy(buf + cuts[i] + 3, pem + cuts[i], n - cuts[i]);
        CHECK_MSG(split_refuses(buf, n + 3, "blank line inside the PEM block"), "at %zu", cuts[i]);
    }
    /* what OpenSSL accepts and PEM writers may produce still parses to the same DER: CRLF,
     * trailing spaces after BEGIN, one body line break turned into a space, other widths */
    struct mero_x509_chain ref;
    CHECK_OK(mero__x509_chain_split(&ref, pem, n, &e));
    CHECK_EQ(ref.n, 2);
    memcpy(buf, pem, at_begin);
    memcpy(buf + at_begin, " \t\r", 3);
    memcpy(buf + at_begin + 3, pem + at_begin, n - at_begin);
    buf[at_begin + 3 + 64 + 1] = ' '; /* the break after the first body line */
    CHECK_OK(mero__x509_chain_split(&ch, buf, n + 3, &e));
    CHECK(ch.n == 2 && ch.der_len[0] == ref.der_len[0] &&
          memcmp(ch.der[0], ref.der[0], ref.der_len[0]) == 0);
    mero__x509_chain_cleanup(&ch);
    free(buf);
    buf = malloc(2 * n + 1);
    CHECK(buf != NULL);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (pem[i] == '\n') {
            buf[o++] = '\r';
        }
        buf[o++] = pem[i];
    }
    CHECK_OK(mero__x509_chain_split(&ch, buf, o, &e));
    CHECK(ch.n == 2 && ch.der_len[1] == ref.der_len[1] &&
          memcmp(ch.der[1], ref.der[1], ref.der_len[1]) == 0);
    mero__x509_chain_cleanup(&ch);
    mero__x509_chain_cleanup(&ref);
    free(buf);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

/* Issue 38: collateral whose issuer-chain PEM lost its line breaks (turned into spaces, or
 * removed) is refused for every case and every chain, with a reason naming the chain; Intel
 * answers STATUS_UNSUPPORTED_CERT_FORMAT. The quote's own chain likewise. */
TEST(collateral_pem_without_line_breaks_is_refused)
{
    static const char *const fields[] = {"pck_crl_issuer_chain", "tcb_info_issuer_chain",
                                         "qe_identity_issuer_chain"};
    for (int i = 0; dcap_case_names[i] != NULL; i++) {
        for (size_t f = 0; f < 3; f++) {
            for (int how = 0; how < 2; how++) {
                struct dcap_case k;
                struct mero_collateral c;
                CHECK(load(&k, &c, dcap_case_names[i]) == 0);
                char **field = f == 0   ? &c.pck_crl_issuer_chain
                               : f == 1 ? &c.tcb_info_issuer_chain
                                        : &c.qe_identity_issuer_chain;
                size_t *len = f == 0   ? &c.pck_crl_issuer_chain_len
                              : f == 1 ? &c.tcb_info_issuer_chain_len
                                       : &c.qe_identity_issuer_chain_len;
                size_t m = 0;
                char *s = pem_without_line_breaks(*field, *len, how == 0 ? ' ' : 0, &m);
                CHECK(s != NULL);
                free(*field);
                *field = s;
                *len = m;
                mero_collateral_rehash(&c);
                struct mero_dcap_result r;
                struct mero_err e;
                mero_err_clear(&e);
                memset(&r, 0, sizeof(r));
                int rc = mero_dcap_verify_quote(k.quote, k.quote_len, &c, k.verify_time, &r, &e);
                const char *why = rc < 0 ? e.msg : r.reject_reason;
                CHECK_MSG((rc < 0 || !r.quote_verified) && strstr(why, fields[f]) != NULL &&
                              strstr(why, "line break") != NULL,
                          "%s %s (line breaks %s): rc=%d verified=%d: %s", k.name, fields[f],
                          how == 0 ? "as spaces" : "removed", rc, r.quote_verified, why);
                mero_collateral_cleanup(&c);
                dcap_case_free(&k);
            }
        }
    }
    /* the quote's chain: its leaf's first line break a space (same length, so the quote's
     * structure is intact) */
    struct dcap_case k;
    struct mero_collateral c;
    struct mero_err e;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    struct mero_quote q;
    CHECK_OK(mero_quote_parse(&q, k.quote, k.quote_len, &e));
    size_t off = (size_t)(q.pck_chain - k.quote) + sizeof("-----BEGIN CERTIFICATE-----") - 1;
    CHECK_EQ(k.quote[off], '\n');
    k.quote[off] = ' ';
    struct mero_dcap_result r;
    CHECK_OK(verify_case(&k, &c, k.verify_time, &r));
    CHECK(!r.quote_verified);
    CHECK_EQ(r.reject_code, MERO_ECHAIN);
    CHECK_MSG(strstr(r.reject_reason, "line break") != NULL, "%s", r.reject_reason);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

TEST(der_reader_refuses_truncations)
{
    struct dcap_case k;
    struct mero_collateral c;
    CHECK(load(&k, &c, "tdx/dcapqvl-1") == 0);
    struct mero_crl crl;
    CHECK_OK(mero__crl_parse(&crl, c.pck_crl, c.pck_crl_len));
    for (size_t cut = 0; cut < c.pck_crl_len; cut += 7) {
        CHECK_ERR(mero__crl_parse(&crl, c.pck_crl, cut), -MERO_ECRL);
    }
    struct mero_x509_chain ch;
    struct mero_err e;
    CHECK_OK(mero__x509_chain_split(&ch, c.pck_crl_issuer_chain, c.pck_crl_issuer_chain_len, &e));
    struct mero_cert cert;
    CHECK_OK(mero__cert_parse(&cert, ch.der[0], ch.der_len[0]));
    CHECK(strstr(cert.cn, "PCK Platform CA") != NULL);
    CHECK(strstr(cert.issuer_cn, "Root CA") != NULL);
    for (size_t cut = 0; cut < ch.der_len[0]; cut += 5) {
        CHECK_ERR(mero__cert_parse(&cert, ch.der[0], cut), -MERO_ECERT);
    }
    /* a CA certificate has no SGX extension */
    CHECK_OK(mero__cert_parse(&cert, ch.der[0], ch.der_len[0]));
    struct mero_sgx_ext ext;
    CHECK_ERR(mero__cert_sgx_ext(&cert, &ext), -MERO_ECERT);
    mero__x509_chain_cleanup(&ch);
    mero_collateral_cleanup(&c);
    dcap_case_free(&k);
}

MERO_TEST_MAIN(T(every_case_gives_its_expected_verdict), T(reject_reasons_are_intels),
               T(ok_cases_are_rejected_outside_the_collateral_window),
               T(sgx_quote_is_refused_for_tdx), T(gotdxguest2_partial_collateral),
               T(flipped_quote_bytes_are_verdicts_not_errors), T(flipped_pck_leaf_is_a_verdict),
               T(flipped_collateral_is_a_verdict), T(pck_crl_issuer_chain_is_verified),
               T(collateral_of_another_fmspc_is_rejected), T(unparsable_input_is_no_verdict),
               T(second_quote_on_the_same_collateral_uses_the_cache),
               T(missing_root_crl_is_no_verdict),
               T(quote_chain_is_judged_when_collateral_carries_one),
               T(collateral_chain_must_equal_the_quotes), T(root_pin_decides_trust),
               T(nonce_and_app_hash), T(verify_evidence), T(sgx_extension_reader_agrees_with_pck_c),
               T(keys_off_the_curve_are_refused), T(pem_chains_are_strict),
               T(pem_blocks_keep_their_line_breaks),
               T(collateral_pem_without_line_breaks_is_refused), T(der_reader_refuses_truncations))
