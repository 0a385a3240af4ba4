/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_tsa.c - RFC 3161 timestamps of a Sigstore bundle
 * (verificationMaterial.timestampVerificationData.rfc3161Timestamps[].signedTimestamp, a DER
 * TimeStampResp): the status is granted, the message imprint is the hash of the signature
 * bytes, and the token's CMS signature verifies with a certificate that chains to a
 * timestamp authority of the trusted root whose validFor covers the genTime, the chain being
 * evaluated at the genTime (OpenSSL's TS API, time pinned).
 *
 * Invariants: the genTime is returned only after every check passed; certificates embedded
 * in the token may complete the chain but are never trusted on their own (only the trusted
 * root's TSA root certificate is a trust anchor); every refusal is -MERO_ESIGSTORE_TSA.
 */
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/ts.h>
#include <openssl/x509v3.h>

#include "attest/sigstore_internal.h"
#include "mero/clock.h"
#include "mero/crypto.h"

static int tsa_fail(struct mero_err *err, const char *why)
{
    return mero_err_set(err, MERO_ESIGSTORE_TSA, "RFC 3161 timestamp: %s", why);
}

static int gen_time(const TS_TST_INFO *tst, int64_t *out)
{
    const ASN1_GENERALIZEDTIME *g = TS_TST_INFO_get_time(tst);
    struct tm tm;
    if (g == NULL || ASN1_TIME_to_tm(g, &tm) != 1) {
        return -MERO_ESIGSTORE_TSA;
    }
    *out = mero_timegm(&tm);
    return 0;
}

/* The imprint must be H(sig) with H one of SHA-256/384/512 (constant-time compare). */
static int check_imprint(TS_TST_INFO *tst, const uint8_t *sig, size_t siglen)
{
    TS_MSG_IMPRINT *mi = TS_TST_INFO_get_msg_imprint(tst);
    X509_ALGOR *alg = mi ? TS_MSG_IMPRINT_get_algo(mi) : NULL;
    ASN1_OCTET_STRING *msg = mi ? TS_MSG_IMPRINT_get_msg(mi) : NULL;
    if (alg == NULL || msg == NULL) {
        return -MERO_ESIGSTORE_TSA;
    }
    const ASN1_OBJECT *obj = NULL;
    X509_ALGOR_get0(&obj, NULL, NULL, alg);
    const EVP_MD *md = NULL;
    switch (OBJ_obj2nid(obj)) {
    case NID_sha256:
        md = EVP_sha256();
        break;
    case NID_sha384:
        md = EVP_sha384();
        break;
    case NID_sha512:
        md = EVP_sha512();
        break;
    default:
        return -MERO_EUNSUPPORTED;
    }
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned int hl = 0;
    if (EVP_Digest(sig, siglen, h, &hl, md, NULL) != 1 || ASN1_STRING_length(msg) != (int)hl ||
        !mero_ct_eq(ASN1_STRING_get0_data(msg), h, hl)) {
        return -MERO_ESIGSTORE_TSA;
    }
    return 0;
}

/* Verify the token's signature with one TSA entry of the trusted root, at time t. */
static int verify_with(const struct sig_ca *tsa, PKCS7 *token, int64_t t)
{
    X509_STORE *store = X509_STORE_new();
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    int rc = -MERO_ESIGSTORE_TSA;
    MERO_ENSURE_OUT(store != NULL && untrusted != NULL &&
                        X509_STORE_add_cert(store, tsa->certs[tsa->ncerts - 1]) == 1,
                    NULL, MERO_ESIGSTORE_TSA, "TSA store");
    for (size_t i = 0; i + 1 < tsa->ncerts; i++) {
        MERO_ENSURE_OUT(sk_X509_push(untrusted, tsa->certs[i]) > 0, NULL, MERO_ESIGSTORE_TSA,
                        "TSA chain");
    }
    X509_VERIFY_PARAM *vp = X509_STORE_get0_param(store);
    X509_VERIFY_PARAM_set_time(vp, (time_t)t);
    X509_STORE_set_flags(store, X509_V_FLAG_USE_CHECK_TIME);
    X509 *signer = NULL;
    if (TS_RESP_verify_signature(token, untrusted, store, &signer) == 1) {
        rc = 0;
    }
    X509_free(signer);
out:
    sk_X509_free(untrusted);
    X509_STORE_free(store);
    return rc;
}

int mero__sig_verify_tsa(const struct mero_trust_root *tr, const uint8_t *der, size_t len,
                         const uint8_t *sig, size_t siglen, int64_t *out_time, struct mero_err *err)
{
    if (der == NULL || len == 0 || len > SIG_MAX_TSA) {
        return tsa_fail(err, "empty or too large");
    }
    const unsigned char *p = der;
    TS_RESP *resp = d2i_TS_RESP(NULL, &p, (long)len);
    int rc;
    MERO_ENSURE_OUT(resp != NULL && p == der + len, err, MERO_ESIGSTORE_TSA,
                    "RFC 3161 timestamp: not a DER TimeStampResp");
    TS_STATUS_INFO *si = TS_RESP_get_status_info(resp);
    const ASN1_INTEGER *st = si ? TS_STATUS_INFO_get0_status(si) : NULL;
    long status = st ? ASN1_INTEGER_get(st) : -1;
    PKCS7 *token = TS_RESP_get_token(resp);
    TS_TST_INFO *tst = TS_RESP_get_tst_info(resp);
    int64_t t = 0;
    MERO_ENSURE_OUT((status == 0 || status == 1) && token != NULL && tst != NULL, err,
                    MERO_ESIGSTORE_TSA,
                    "RFC 3161 timestamp: status is not granted or the token is missing");
    MERO_ENSURE_OUT(TS_TST_INFO_get_version(tst) == 1 && gen_time(tst, &t) >= 0, err,
                    MERO_ESIGSTORE_TSA, "RFC 3161 timestamp: TSTInfo version or genTime malformed");
    MERO_ENSURE_OUT(check_imprint(tst, sig, siglen) >= 0, err, MERO_ESIGSTORE_TSA,
                    "RFC 3161 timestamp: message imprint is not the hash of the bundle's "
                    "signature");
    int covered = 0;
    rc = -MERO_ESIGSTORE_TSA;
    for (size_t i = 0; i < tr->ntsas && rc < 0; i++) {
        const struct sig_ca *tsa = &tr->tsas[i];
        if (tsa->ncerts == 0 || t < tsa->start || t > tsa->end) {
            continue;
        }
        covered = 1;
        rc = verify_with(tsa, token, t);
    }
    if (!covered) {
        rc = mero_err_set(err, MERO_ESIGSTORE_TSA,
                          "RFC 3161 timestamp: no timestamp authority of the trusted root is "
                          "valid at genTime %lld",
                          (long long)t);
    } else if (rc < 0) {
        rc = tsa_fail(err, "not signed by a timestamp authority of the trusted root");
    } else {
        *out_time = t;
    }
out:
    TS_RESP_free(resp);
    ERR_clear_error();
    return rc;
}
