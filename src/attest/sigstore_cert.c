/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_cert.c - the Fulcio leaf certificate: its chain to a certificate authority of the
 * trusted root at the signing time, its embedded SCT against the trusted root's CT logs, its
 * key usage, and the identity it carries (SAN and the Fulcio extensions of OID arc
 * 1.3.6.1.4.1.57264.1, reference-sigstore-ccel.md §A.4 steps 8-9 and §A.5).
 *
 * Invariants: only certificates from the trusted root build the chain (bundle intermediates
 * are ignored); the chain is evaluated at the integrated time, never the wall clock, and the
 * CA entry's validFor must cover that time; an extension that is present twice with different
 * values (issuer 1.1 vs 1.8, ref 1.6 vs 1.14) refuses the certificate.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <openssl/ct.h>
#include <openssl/x509v3.h>

#include "attest/sigstore_internal.h"
#include "mero/buf.h"
#include "mero/crypto.h"

#define SCT_MSG_MAX (64u * 1024u) /* the digitally-signed struct an SCT signs */

static int chain_with_ca(const struct sig_ca *ca, X509 *leaf, int64_t t, X509 **issuer)
{
    X509_STORE *store = X509_STORE_new();
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int rc;
    MERO_ENSURE_OUT(store != NULL && untrusted != NULL && ctx != NULL, NULL, MERO_ENOMEM,
                    "out of memory");
    /* certChain lists the issuing certificate first and the root last */
    MERO_ENSURE_OUT(X509_STORE_add_cert(store, ca->certs[ca->ncerts - 1]) == 1, NULL, MERO_ECHAIN,
                    "the CA's root is not usable");
    for (size_t i = 0; i + 1 < ca->ncerts; i++) {
        MERO_ENSURE_OUT(sk_X509_push(untrusted, ca->certs[i]) > 0, NULL, MERO_ECHAIN,
                        "out of memory");
    }
    MERO_ENSURE_OUT(X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1, NULL, MERO_ECHAIN,
                    "no verification context");
    X509_VERIFY_PARAM *vp = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_time(vp, (time_t)t);
    X509_VERIFY_PARAM_set_flags(vp, X509_V_FLAG_X509_STRICT);
    int ok = X509_verify_cert(ctx) == 1;
    int e = ok ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
    MERO_ENSURE_OUT(ok, NULL,
                    e == X509_V_ERR_CERT_HAS_EXPIRED || e == X509_V_ERR_CERT_NOT_YET_VALID
                        ? MERO_EEXPIRED
                        : MERO_ECHAIN,
                    "the chain does not verify");
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
    MERO_ENSURE_OUT(chain != NULL && sk_X509_num(chain) >= 2, NULL, MERO_ECHAIN,
                    "the chain has no issuer");
    X509 *iss = sk_X509_value(chain, 1);
    MERO_ENSURE_OUT(X509_up_ref(iss) == 1, NULL, MERO_ECHAIN, "the issuer cannot be kept");
    *issuer = iss;
    rc = 0;
out:
    X509_STORE_CTX_free(ctx);
    sk_X509_free(untrusted);
    X509_STORE_free(store);
    return rc;
}

static int leaf_usage(X509 *leaf, struct mero_err *err)
{
    uint32_t ku = X509_get_key_usage(leaf);
    uint32_t xku = X509_get_extended_key_usage(leaf);
    if (X509_check_ca(leaf) != 0) {
        return mero_err_set(err, MERO_ECERT, "signing certificate is a CA");
    }
    if (ku == UINT32_MAX || !(ku & KU_DIGITAL_SIGNATURE)) {
        return mero_err_set(err, MERO_ECERT, "signing certificate lacks digitalSignature");
    }
    if (xku == UINT32_MAX || !(xku & XKU_CODE_SIGN)) {
        return mero_err_set(err, MERO_ECERT, "signing certificate lacks codeSigning EKU");
    }
    return 0;
}

int mero__sig_verify_chain(const struct mero_trust_root *tr, X509 *leaf, int64_t t, X509 **issuer,
                           struct mero_err *err)
{
    MERO_TRY(leaf_usage(leaf, err));
    int last = -MERO_EROOT;
    for (size_t i = 0; i < tr->ncas; i++) {
        const struct sig_ca *ca = &tr->cas[i];
        if (ca->ncerts == 0 || t < ca->start || t > ca->end) { /* skipped or out of window */
            continue;
        }
        int rc = chain_with_ca(ca, leaf, t, issuer);
        if (rc == 0) {
            return 0;
        }
        if (rc == -MERO_ENOMEM) {
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
        if (last == -MERO_EROOT || rc == -MERO_EEXPIRED) {
            last = rc;
        }
    }
    if (last == -MERO_EEXPIRED) {
        return mero_err_set(err, MERO_EEXPIRED,
                            "signing certificate not valid at the integrated time %" PRId64, t);
    }
    if (last == -MERO_EROOT) {
        return mero_err_set(err, MERO_EROOT,
                            "no Fulcio CA of the trusted root is valid at %" PRId64, t);
    }
    return mero_err_set(err, MERO_ECHAIN,
                        "signing certificate does not chain to a Fulcio CA of the trusted root");
}

/* The RFC 6962 §3.2 digitally-signed struct of a precertificate SCT: version, signature type,
 * timestamp, entry type 1, SHA-256 of the issuer's SPKI, the leaf's TBS without the SCT list
 * extension (u24 length), the SCT extensions (u16 length). */
static int sct_message(X509 *leaf, X509 *issuer, const SCT *sct, struct mero_buf *m)
{
    uint8_t ikh[MERO_SHA256_LEN];
    unsigned char *spki = NULL, *tbs = NULL;
    int spki_len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer), &spki);
    X509 *pre = X509_dup(leaf);
    int rc;
    MERO_ENSURE_OUT(spki_len > 0 && pre != NULL, NULL, MERO_ESIGSTORE_SCT,
                    "the issuer's key or the leaf cannot be encoded");
    mero_sha256(ikh, spki, (size_t)spki_len);
    int idx = X509_get_ext_by_NID(pre, NID_ct_precert_scts, -1);
    X509_EXTENSION *ext = idx >= 0 ? X509_delete_ext(pre, idx) : NULL;
    X509_EXTENSION_free(ext);
    MERO_ENSURE_OUT(idx >= 0 && X509_get_ext_by_NID(pre, NID_ct_precert_scts, -1) < 0, NULL,
                    MERO_ESIGSTORE_SCT, "the leaf has not exactly one SCT list");
    int tbs_len = i2d_re_X509_tbs(pre, &tbs);
    unsigned char *exts = NULL;
    size_t exts_len = SCT_get0_extensions(sct, &exts);
    uint64_t ts = SCT_get_timestamp(sct);
    MERO_ENSURE_OUT(tbs_len > 0 && tbs_len <= 0xffffff && exts_len <= 0xffff, NULL,
                    MERO_ESIGSTORE_SCT, "the TBS or the SCT extensions are too long");
    uint8_t hdr[12] = {0, 0};
    for (int i = 0; i < 8; i++) {
        hdr[2 + i] = (uint8_t)(ts >> (56 - 8 * i));
    }
    hdr[10] = 0;
    hdr[11] = 1; /* precert_entry */
    uint8_t l3[3] = {(uint8_t)(tbs_len >> 16), (uint8_t)(tbs_len >> 8), (uint8_t)tbs_len};
    uint8_t l2[2] = {(uint8_t)(exts_len >> 8), (uint8_t)exts_len};
    MERO_ENSURE_OUT(
        mero_buf_append(m, hdr, sizeof(hdr)) == 0 && mero_buf_append(m, ikh, sizeof(ikh)) == 0 &&
            mero_buf_append(m, l3, 3) == 0 && mero_buf_append(m, tbs, (size_t)tbs_len) == 0 &&
            mero_buf_append(m, l2, 2) == 0 &&
            (exts_len == 0 || mero_buf_append(m, exts, exts_len) == 0),
        NULL, MERO_ESIGSTORE_SCT, "the signed struct exceeds its maximum");
    rc = 0;
out:
    OPENSSL_free(spki);
    OPENSSL_free(tbs);
    X509_free(pre);
    return rc;
}

/* 0 verified; -MERO_ESIGSTORE_SCT not; *skipped set to the CT log entry of this SCT's id that the
 * trusted root holds but could not use, so the refusal can name it. */
static int sct_one(const struct mero_trust_root *tr, X509 *leaf, X509 *issuer, const SCT *sct,
                   int64_t t, const struct sig_log **skipped)
{
    unsigned char *id = NULL, *sig = NULL;
    size_t idlen = SCT_get0_log_id(sct, &id);
    size_t siglen = SCT_get0_signature(sct, &sig);
    if (SCT_get_version(sct) != SCT_VERSION_V1 || idlen != MERO_SHA256_LEN || siglen == 0) {
        return -MERO_ESIGSTORE_SCT;
    }
    /* the SCT may not postdate the signing time (5 minutes of clock skew allowed) */
    if (SCT_get_timestamp(sct) > (uint64_t)(t + 300) * 1000u) {
        return -MERO_ESIGSTORE_SCT;
    }
    for (size_t i = 0; i < tr->nctlogs; i++) {
        const struct sig_log *l = &tr->ctlogs[i];
        if (memcmp(l->log_id, id, sizeof(l->log_id)) != 0) {
            continue;
        }
        if (l->key == NULL) {
            *skipped = l;
            continue;
        }
        if (t < l->start || t > l->end) {
            continue;
        }
        struct mero_buf m;
        mero_buf_init(&m, SCT_MSG_MAX);
        bool ok = sct_message(leaf, issuer, sct, &m) == 0 &&
                  mero__sig_verify_key(l->key, l->type, m.data, m.len, sig, siglen) == 0;
        mero_buf_cleanup(&m);
        if (ok) {
            return 0;
        }
    }
    return -MERO_ESIGSTORE_SCT;
}

int mero__sig_verify_sct(const struct mero_trust_root *tr, X509 *leaf, X509 *issuer, int64_t t,
                         struct mero_err *err)
{
    STACK_OF(SCT) *scts = X509_get_ext_d2i(leaf, NID_ct_precert_scts, NULL, NULL);
    int rc = mero_err_set(err, MERO_ESIGSTORE_SCT, "signing certificate carries no SCT");
    const struct sig_log *skipped = NULL;
    for (int i = 0; scts != NULL && i < sk_SCT_num(scts); i++) {
        if (sct_one(tr, leaf, issuer, sk_SCT_value(scts, i), t, &skipped) == 0) {
            rc = 0;
            break;
        }
        if (skipped != NULL) {
            char idb[SIG_ID_B64_SIZE];
            EVP_EncodeBlock((unsigned char *)idb, skipped->log_id, sizeof(skipped->log_id));
            rc = mero_err_set(err, MERO_ESIGSTORE_SCT,
                              "the trusted root's key for CT log %s is unusable: %s", idb,
                              skipped->why);
        } else {
            rc = mero_err_set(err, MERO_ESIGSTORE_SCT,
                              "no embedded SCT verifies under a CT log of the trusted root");
        }
    }
    SCT_LIST_free(scts);
    return rc;
}

/* Fulcio extension value: .1-.6 raw bytes, .8+ a DER UTF8String. 1 found, 0 absent, <0 bad. */
static int fulcio_ext(X509 *x, int arc, char *out, size_t cap)
{
    char oid[sizeof("1.3.6.1.4.1.57264.1.") + 11]; /* + an int and its NUL */
    snprintf(oid, sizeof(oid), "1.3.6.1.4.1.57264.1.%d", arc);
    ASN1_OBJECT *obj = OBJ_txt2obj(oid, 1);
    if (obj == NULL) {
        return -MERO_ENOMEM;
    }
    int idx = X509_get_ext_by_OBJ(x, obj, -1);
    int dup = idx >= 0 ? X509_get_ext_by_OBJ(x, obj, idx) : -1;
    ASN1_OBJECT_free(obj);
    if (idx < 0) {
        return 0;
    }
    if (dup >= 0) {
        return -MERO_ECERT;
    }
    ASN1_OCTET_STRING *os = X509_EXTENSION_get_data(X509_get_ext(x, idx));
    const unsigned char *p = ASN1_STRING_get0_data(os);
    long n = ASN1_STRING_length(os);
    int rc = -MERO_ECERT;
    if (arc <= 6) {
        if (n > 0 && (size_t)n < cap && memchr(p, 0, (size_t)n) == NULL) {
            memcpy(out, p, (size_t)n);
            out[n] = 0;
            rc = 1;
        }
        return rc;
    }
    const unsigned char *q = p;
    ASN1_UTF8STRING *u = d2i_ASN1_UTF8STRING(NULL, &q, n);
    if (u != NULL && q == p + n) {
        const unsigned char *d = ASN1_STRING_get0_data(u);
        int m = ASN1_STRING_length(u);
        if (m > 0 && (size_t)m < cap && memchr(d, 0, (size_t)m) == NULL) {
            memcpy(out, d, (size_t)m);
            out[m] = 0;
            rc = 1;
        }
    }
    ASN1_UTF8STRING_free(u);
    return rc;
}

/* prefer `a` (v2 OID), fall back to `b` (legacy); both present must agree */
static int ext_pair(X509 *x, int a, int b, char *out, size_t cap, struct mero_err *err,
                    const char *what)
{
    char tmp[MERO_SIGSTORE_IDENT_MAX];
    int ra = a ? fulcio_ext(x, a, out, cap) : 0;
    int rb = b ? fulcio_ext(x, b, tmp, sizeof(tmp)) : 0;
    if (ra < 0 || rb < 0) {
        return mero_err_set(err, MERO_ECERT, "certificate %s extension malformed", what);
    }
    if (ra && rb && strcmp(out, tmp) != 0) {
        return mero_err_set(err, MERO_ECERT, "certificate %s extensions disagree", what);
    }
    if (!ra && rb) {
        snprintf(out, cap, "%s", tmp);
    }
    if (!ra && !rb) {
        out[0] = 0;
    }
    return 0;
}

static int read_san(X509 *x, struct mero_sigstore_result *res, struct mero_err *err)
{
    GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
    int rc;
    MERO_ENSURE_OUT(names != NULL && sk_GENERAL_NAME_num(names) == 1, err, MERO_ECERT,
                    "certificate must carry exactly one SAN");
    GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, 0);
    MERO_ENSURE_OUT(gn->type == GEN_URI || gn->type == GEN_EMAIL, err, MERO_ECERT,
                    "certificate SAN is neither a URI nor an e-mail");
    ASN1_IA5STRING *s = gn->type == GEN_URI ? gn->d.uniformResourceIdentifier : gn->d.rfc822Name;
    res->san_is_uri = gn->type == GEN_URI;
    int n = ASN1_STRING_length(s);
    const unsigned char *d = ASN1_STRING_get0_data(s);
    MERO_ENSURE_OUT(n > 0 && (size_t)n < sizeof(res->san) && memchr(d, 0, (size_t)n) == NULL, err,
                    MERO_ECERT, "certificate SAN empty or too long");
    memcpy(res->san, d, (size_t)n);
    res->san[n] = 0;
    rc = 0;
out:
    GENERAL_NAMES_free(names);
    return rc;
}

int mero__sig_read_identity(X509 *leaf, struct mero_sigstore_result *res, struct mero_err *err)
{
    MERO_TRY(read_san(leaf, res, err));
    MERO_TRY(ext_pair(leaf, 8, 1, res->issuer, sizeof(res->issuer), err, "issuer"));
    if (res->issuer[0] == 0) {
        return mero_err_set(err, MERO_ECERT, "certificate names no OIDC issuer");
    }
    MERO_TRY(
        ext_pair(leaf, 4, 0, res->workflow_name, sizeof(res->workflow_name), err, "workflow name"));
    MERO_TRY(ext_pair(leaf, 5, 0, res->repository, sizeof(res->repository), err, "repository"));
    MERO_TRY(ext_pair(leaf, 6, 14, res->ref, sizeof(res->ref), err, "ref"));
    MERO_TRY(ext_pair(leaf, 20, 2, res->trigger, sizeof(res->trigger), err, "trigger"));
    return 0;
}
