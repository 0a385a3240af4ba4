/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap.c - judges one TDX quote against verified collateral (dcap_trust.c), in Intel QVL's
 * order and by its rules (QuoteVerifier::verify, TcbLevelCheck, TdxModuleCheck and the
 * status convergence of reference-dcap.md §2b; deliberate differences in
 * docs/verification.md): PCK chain to the pinned root with both CRLs, FMSPC/PCEID, TDX module
 * identity, QE report signature and report data, QE identity, quote signature, TCB level,
 * convergence and advisory IDs. Then verify_attestation's nonce and bound-hash checks and
 * verify_evidence (reference-calimero.md §1.4, §1.7).
 *
 * Invariants: a quote that does not parse, or collateral that is malformed, is an error (no
 * verdict), never a verdict; every failed check after that is a verdict with
 * quote_verified = false and its reason; tcb_status is reported only for a verified quote;
 * the result is written only on success.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "attest/dcap_internal.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>

/* MOCK_TDX_QUOTE_V1 detection (reference-calimero.md §1.3), local so that the verifier does not
 * depend on the mock module: a mock quote is refused here, always. */
static bool is_mock(const uint8_t *q, size_t len)
{
    return len >= MERO_MOCK_HEADER_LEN && memcmp(q, MERO_MOCK_HEADER, MERO_MOCK_HEADER_LEN) == 0;
}

/*
 * The checks below return a negative -MERO_E* for an error (no verdict could be reached),
 * DCAP_PASSED when a step passed, and DCAP_REJECTED when the quote was judged "not verified"
 * (a verdict, not an error: the reason is in the result, and the caller stops checking).
 */
enum dcap_step { DCAP_PASSED = 0, DCAP_REJECTED = 1 };

/* judge()'s steps: when cond does not hold, the verdict "not verified" with its reason goes into
 * r, rc becomes DCAP_REJECTED and control jumps to `out:` (MERO_ENSURE_OUT's form, for a verdict
 * rather than an error). */
#define DCAP_ENSURE_OUT(cond, r, code, ...)                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            rc = reject((r), (code), __VA_ARGS__);                                                 \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* judge()'s step that is a function: anything but DCAP_PASSED (a verdict or an error) ends it. */
#define DCAP_STEP_OUT(expr)                                                                        \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc != DCAP_PASSED) {                                                                   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* A verdict of "not verified": record why in r and return DCAP_REJECTED. */
static int reject(struct mero_dcap_result *r, int code, const char *fmt, ...) MERO_PRINTF(3, 4);
static int reject(struct mero_dcap_result *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reject_reason, sizeof(r->reject_reason), fmt, ap);
    va_end(ap);
    r->quote_verified = false;
    r->reject_code = code;
    return DCAP_REJECTED;
}

static void fill_measurements(struct mero_dcap_result *r, const struct mero_quote *q)
{
    const struct mero_td_report *b = &q->body;
    memcpy(r->mrtd, b->mrtd, sizeof(r->mrtd));
    memcpy(r->rtmr, b->rtmr, sizeof(r->rtmr));
    memcpy(r->report_data, b->report_data, sizeof(r->report_data));
    memcpy(r->tee_tcb_svn, b->tee_tcb_svn, sizeof(r->tee_tcb_svn));
    memcpy(r->td_attributes, b->td_attributes, sizeof(r->td_attributes));
    r->td_debug = (b->td_attributes[0] & 0x01) != 0;
    r->sept_ve_disable = (b->td_attributes[3] & 0x10) != 0;
    r->td15 = b->td15;
    if (b->td15) {
        memcpy(r->tee_tcb_svn2, b->tee_tcb_svn2, sizeof(r->tee_tcb_svn2));
        memcpy(r->mrservicetd, b->mrservicetd, sizeof(r->mrservicetd));
    }
}

static void add_advisories(struct mero_dcap_result *r, const struct mero_adv_table *t,
                           struct mero_adv_ref a)
{
    for (size_t i = 0; i < a.n && a.first + i < t->n; i++) {
        const char *s = t->ids[a.first + i];
        bool dup = false;
        for (size_t j = 0; j < r->n_advisory_ids && !dup; j++) {
            dup = strcmp(r->advisory_ids[j], s) == 0;
        }
        if (!dup && r->n_advisory_ids < MERO_DCAP_MAX_ADVISORIES) {
            snprintf(r->advisory_ids[r->n_advisory_ids++], MERO_DCAP_ADVISORY_LEN, "%s", s);
        }
    }
}

/* ---- parse caches ------------------------------------------------------------------------
 * Parsing a certificate or building an EVP_PKEY costs about as much as an ECDSA verification
 * in OpenSSL 3.0, so the parsed PCK leaf (DER, its SGX extension, its key) and the attestation
 * keys are kept, bounded and least-recently-used. These caches hold parses, never verdicts:
 * every quote still has its PCK leaf signature, QE report signature and quote signature
 * checked. Thread safety: the tables, stamps and reference counts are guarded by parse_lock; an
 * entry is parsed completely before it is published and is immutable after; a reader holds a
 * reference (leaf_put / akey_put), so eviction and clearing never free an entry in use. Two
 * threads missing the same key together both parse it and the second keeps the first's entry
 * (a parse is cheap next to a collateral build, so it is not single-flighted). */

#define LEAF_CACHE_MAX 32
#define AK_CACHE_MAX   32

struct leaf {
    uint8_t hash[MERO_SHA256_LEN]; /* SHA-256 of the leaf DER */
    uint64_t used;
    unsigned refs;
    uint8_t *der;
    size_t der_len;
    struct mero_cert c;
    struct mero_sgx_ext info;
    EVP_PKEY *key;
};

struct akey {
    uint8_t xy[MERO_ECDSA_P256_PK_LEN];
    uint64_t used;
    unsigned refs;
    EVP_PKEY *key;
};

static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static struct leaf *leaves[LEAF_CACHE_MAX];
static struct akey *akeys[AK_CACHE_MAX];
static uint64_t parse_clock;

static void leaf_free(struct leaf *l)
{
    if (l != NULL) {
        free(l->der);
        EVP_PKEY_free(l->key);
        free(l);
    }
}

static void akey_free(struct akey *a)
{
    if (a != NULL) {
        EVP_PKEY_free(a->key);
        free(a);
    }
}

/* With parse_lock held: drop one reference, the last frees. */
static void leaf_unref(struct leaf *l)
{
    if (l != NULL && --l->refs == 0) {
        leaf_free(l);
    }
}

static void akey_unref(struct akey *a)
{
    if (a != NULL && --a->refs == 0) {
        akey_free(a);
    }
}

static void leaf_put(const struct leaf *l)
{
    if (l != NULL) {
        pthread_mutex_lock(&parse_lock);
        leaf_unref((struct leaf *)l);
        pthread_mutex_unlock(&parse_lock);
    }
}

static void akey_put(const struct akey *a)
{
    if (a != NULL) {
        pthread_mutex_lock(&parse_lock);
        akey_unref((struct akey *)a);
        pthread_mutex_unlock(&parse_lock);
    }
}

void mero__dcap_parse_cache_clear(void);
void mero__dcap_parse_cache_clear(void)
{
    pthread_mutex_lock(&parse_lock);
    for (size_t i = 0; i < LEAF_CACHE_MAX; i++) {
        leaf_unref(leaves[i]);
        leaves[i] = NULL;
    }
    for (size_t i = 0; i < AK_CACHE_MAX; i++) {
        akey_unref(akeys[i]);
        akeys[i] = NULL;
    }
    pthread_mutex_unlock(&parse_lock);
}

/* With parse_lock held: the referenced leaf for h, or NULL and the slot to fill. */
static struct leaf *leaf_find(const uint8_t h[MERO_SHA256_LEN], size_t *slot)
{
    uint64_t oldest = UINT64_MAX;
    *slot = 0;
    for (size_t i = 0; i < LEAF_CACHE_MAX; i++) {
        if (leaves[i] != NULL && memcmp(leaves[i]->hash, h, MERO_SHA256_LEN) == 0) {
            leaves[i]->used = ++parse_clock;
            leaves[i]->refs++;
            return leaves[i];
        }
        uint64_t age = leaves[i] == NULL ? 0 : leaves[i]->used;
        if (age < oldest) {
            oldest = age;
            *slot = i;
        }
    }
    return NULL;
}

/* The parsed leaf for this DER (cached, referenced: leaf_put), or NULL with a reason when it
 * is not a PCK leaf. */
static const struct leaf *leaf_get(const uint8_t *der, size_t len, struct mero_err *err)
{
    uint8_t h[MERO_SHA256_LEN];
    size_t slot;
    mero__sha256(h, der, len);
    pthread_mutex_lock(&parse_lock);
    struct leaf *hit = leaf_find(h, &slot);
    pthread_mutex_unlock(&parse_lock);
    if (hit != NULL) {
        return hit;
    }
    struct leaf *l = calloc(1, sizeof(*l));
    if (l == NULL || (l->der = malloc(len)) == NULL) {
        leaf_free(l);
        mero_err_set(err, MERO_ENOMEM, "out of memory");
        return NULL;
    }
    memcpy(l->der, der, len);
    l->der_len = len;
    memcpy(l->hash, h, sizeof(l->hash));
    if (mero__cert_parse(&l->c, l->der, len) < 0 || mero__x509_key(l->c.point, &l->key) < 0) {
        leaf_free(l);
        mero_err_set(err, MERO_ECERT, "PCK leaf does not decode");
        return NULL;
    }
    /* The SGX extension, read from the DER here: pck.c reads the same facts through OpenSSL's
     * d2i_X509, which in OpenSSL 3.0 costs several ECDSA verifications (test_dcap checks both
     * readers agree on every genuine quote). */
    if (mero__cert_sgx_ext(&l->c, &l->info) < 0) {
        leaf_free(l);
        mero_err_set(err, MERO_ECERT, "PCK leaf SGX extension does not decode");
        return NULL;
    }
    pthread_mutex_lock(&parse_lock);
    hit = leaf_find(h, &slot); /* another thread may have published it meanwhile */
    if (hit == NULL) {
        l->used = ++parse_clock;
        l->refs = 2; /* the cache's and ours */
        leaf_unref(leaves[slot]);
        leaves[slot] = l;
    }
    pthread_mutex_unlock(&parse_lock);
    if (hit != NULL) {
        leaf_free(l);
        return hit;
    }
    return l;
}

/* With parse_lock held: the referenced key for xy, or NULL and the slot to fill. */
static struct akey *akey_find(const uint8_t xy[MERO_ECDSA_P256_PK_LEN], size_t *slot)
{
    uint64_t oldest = UINT64_MAX;
    *slot = 0;
    for (size_t i = 0; i < AK_CACHE_MAX; i++) {
        if (akeys[i] != NULL && memcmp(akeys[i]->xy, xy, MERO_ECDSA_P256_PK_LEN) == 0) {
            akeys[i]->used = ++parse_clock;
            akeys[i]->refs++;
            return akeys[i];
        }
        uint64_t age = akeys[i] == NULL ? 0 : akeys[i]->used;
        if (age < oldest) {
            oldest = age;
            *slot = i;
        }
    }
    return NULL;
}

/* The attestation key (cached, referenced: akey_put), or NULL when xy is not a P-256 point. */
static const struct akey *akey_get(const uint8_t xy[MERO_ECDSA_P256_PK_LEN])
{
    size_t slot;
    pthread_mutex_lock(&parse_lock);
    struct akey *hit = akey_find(xy, &slot);
    pthread_mutex_unlock(&parse_lock);
    if (hit != NULL) {
        return hit;
    }
    struct akey *a = calloc(1, sizeof(*a));
    if (a == NULL || mero__x509_key(xy, &a->key) < 0) {
        free(a);
        return NULL;
    }
    memcpy(a->xy, xy, MERO_ECDSA_P256_PK_LEN);
    pthread_mutex_lock(&parse_lock);
    hit = akey_find(xy, &slot);
    if (hit == NULL) {
        a->used = ++parse_clock;
        a->refs = 2;
        akey_unref(akeys[slot]);
        akeys[slot] = a;
    }
    pthread_mutex_unlock(&parse_lock);
    if (hit != NULL) {
        akey_free(a);
        return hit;
    }
    return a;
}

/* ---- PCK chain -------------------------------------------------------------------------- */

struct pck {
    struct mero_x509_chain ch;
    const struct leaf *leaf;
};

int mero__dcap_pck_chain(const struct mero_quote *q, const struct mero_collateral *c,
                         const char **pem, size_t *len, char *why, size_t why_cap)
{
    bool in_quote = q->pck_chain != NULL && q->pck_chain_len > 0;
    bool in_coll = c != NULL && c->pck_certificate_chain != NULL;
    if (!in_quote && !in_coll) {
        snprintf(why, why_cap, "neither the quote nor the collateral carries a PCK chain");
        return -MERO_ECHAIN;
    }
    if (!in_quote) {
        *pem = c->pck_certificate_chain;
        *len = c->pck_certificate_chain_len;
        return 0;
    }
    *pem = (const char *)q->pck_chain;
    *len = q->pck_chain_len;
    if (!in_coll) {
        return 0;
    }
    /* Both: the same certificates, compared as DER (PEM line layout is not part of it). */
    struct mero_x509_chain a, b;
    struct mero_err e;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    bool same = mero__x509_chain_split(&a, *pem, *len, &e) == 0 &&
                mero__x509_chain_split(&b, c->pck_certificate_chain, c->pck_certificate_chain_len,
                                       &e) == 0 &&
                a.n == b.n;
    for (size_t i = 0; same && i < a.n; i++) {
        same = a.der_len[i] == b.der_len[i] && memcmp(a.der[i], b.der[i], a.der_len[i]) == 0;
    }
    mero__x509_chain_cleanup(&a);
    mero__x509_chain_cleanup(&b);
    if (!same) {
        snprintf(why, why_cap,
                 "collateral pck_certificate_chain differs from the PCK chain in the quote");
        return -MERO_ECHAIN;
    }
    return 0;
}

/* DCAP_PASSED, DCAP_REJECTED (reason in r), or < 0 on error. */
static int check_pck(struct pck *p, const struct mero_quote *q, const struct mero_collateral *c,
                     const struct mero_dcap_trust *t, int64_t now, struct mero_dcap_result *r)
{
    struct mero_err e;
    const char *pem = NULL;
    size_t pem_len = 0;
    if (mero__dcap_pck_chain(q, c, &pem, &pem_len, e.msg, sizeof(e.msg)) < 0) {
        return reject(r, MERO_ECHAIN, "%s", e.msg);
    }
    if (mero__x509_chain_split(&p->ch, pem, pem_len, &e) < 0) {
        return reject(r, MERO_ECHAIN, "PCK chain: %s", e.msg);
    }
    /* Intel PckCertVerifier: exactly leaf, PCK CA, root. */
    if (p->ch.n != 3) {
        return reject(r, MERO_ECHAIN, "PCK chain has %zu certificates, want 3", p->ch.n);
    }
    if (p->ch.der_len[2] != t->root.der_len ||
        memcmp(p->ch.der[2], t->root.der, t->root.der_len) != 0) {
        return reject(r, MERO_EROOT, "PCK chain root is not the pinned Intel SGX Root CA");
    }
    const struct mero_cert *ca = &t->pck_ca.c;
    EVP_PKEY *ca_key = t->pck_ca.key;
    EVP_PKEY *own_key = NULL;
    if (p->ch.der_len[1] != t->pck_ca.der_len ||
        memcmp(p->ch.der[1], t->pck_ca.der, t->pck_ca.der_len) != 0) {
        /* A PCK CA other than the PCK CRL's issuer certificate: verify it here, and the PCK
         * CRL must be issued and signed by it (Intel: PCK CRL issuer == PCK issuer). */
        if (mero__x509_chain_load(&p->ch, 1, &e) < 0 ||
            mero__x509_key(p->ch.cert[1].point, &own_key) < 0) {
            return reject(r, MERO_ECERT, "PCK CA does not decode");
        }
        ca = &p->ch.cert[1];
        ca_key = own_key;
        if (!mero__x509_cn_contains(ca, "SGX PCK ") ||
            mero__x509_signed_by(ca, &t->root.c, t->root.key, &e, "PCK CA") < 0 ||
            mero__x509_valid_at(ca, now, &e, "PCK CA") < 0 ||
            (t->has_root_crl && mero__x509_crl_check(&t->root_crl, ca, &e, "PCK CA") < 0) ||
            mero__x509_crl_signed_by(&t->pck_crl, ca, ca_key, &e,
                                     "PCK CRL for the quote's PCK CA") < 0) {
            EVP_PKEY_free(own_key);
            return reject(r, e.code ? e.code : MERO_ECHAIN, "%s", e.msg);
        }
    }
    p->leaf = leaf_get(p->ch.der[0], p->ch.der_len[0], &e);
    if (p->leaf == NULL) {
        EVP_PKEY_free(own_key);
        return e.code == MERO_ENOMEM ? -MERO_ENOMEM : reject(r, e.code, "%s", e.msg);
    }
    const struct mero_cert *leaf = &p->leaf->c;
    int rc = DCAP_PASSED;
    if (!mero__x509_cn_contains(leaf, "SGX PCK Certificate")) {
        rc = reject(r, MERO_ECHAIN, "PCK leaf CN is not an SGX PCK Certificate");
    } else if (mero__x509_signed_by(leaf, ca, ca_key, &e, "PCK leaf") < 0 ||
               mero__x509_valid_at(leaf, now, &e, "PCK leaf") < 0 ||
               mero__x509_crl_check(&t->pck_crl, leaf, &e, "PCK leaf") < 0) {
        rc = reject(r, e.code, "%s", e.msg);
    }
    EVP_PKEY_free(own_key);
    return rc;
}

/* ---- TDX module, QE identity, TCB levels ------------------------------------------------ */

static const struct mero_tdx_module_identity *module_identity(const struct mero_tcbinfo *tcb,
                                                              uint8_t version)
{
    if (version == 0) {
        return tcb->has_module ? &tcb->module : NULL;
    }
    char want[16];
    snprintf(want, sizeof(want), "TDX_%02X", version);
    for (size_t i = 0; i < tcb->n_module_ids; i++) {
        if (strcasecmp(tcb->module_ids[i].id, want) == 0) {
            return &tcb->module_ids[i];
        }
    }
    return NULL;
}

static bool sgx_ok(const struct mero_tcb_level *l, const struct mero_sgx_ext *pi)
{
    for (int i = 0; i < 16; i++) {
        if (pi->cpusvn[i] < l->sgx[i]) {
            return false;
        }
    }
    return pi->pcesvn >= l->pcesvn;
}

static bool tdx_ok(const struct mero_tcb_level *l, const uint8_t svn[16])
{
    /* Intel TcbLevelCheck: when TEE_TCB_SVN[1] (the module major version) is non-zero,
     * components 0 and 1 are judged by the TDX module identity instead. */
    int from = svn[1] > 0 ? 2 : 0;
    if (!l->has_tdx) {
        return false;
    }
    for (int i = from; i < 16; i++) {
        if (svn[i] < l->tdx[i]) {
            return false;
        }
    }
    return true;
}

const struct mero_tcb_level *mero__dcap_tcb_level(const struct mero_tcbinfo *tcb,
                                                  const struct mero_sgx_ext *pck,
                                                  const uint8_t tee_tcb_svn[16])
{
    for (size_t i = 0; i < tcb->n_levels; i++) {
        if (sgx_ok(&tcb->levels[i], pck) && tdx_ok(&tcb->levels[i], tee_tcb_svn)) {
            return &tcb->levels[i];
        }
    }
    return NULL;
}

static enum mero_tcb_status converge_out_of_date(enum mero_tcb_status s)
{
    switch (s) {
    case MERO_TCB_UP_TO_DATE:
    case MERO_TCB_SW_HARDENING_NEEDED:
        return MERO_TCB_OUT_OF_DATE;
    case MERO_TCB_CONFIGURATION_NEEDED:
    case MERO_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED:
        return MERO_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED;
    default:
        return s;
    }
}

static int judge(const struct mero_quote *q, const struct mero_collateral *c,
                 const struct mero_dcap_trust *t, int64_t now, struct mero_dcap_result *r)
{
    const struct mero_tcbinfo *tcb = &t->tcb;
    const struct mero_qeidentity *qe = &t->qe;
    const struct mero_td_report *b = &q->body;
    struct pck p;
    memset(&p, 0, sizeof(p));
    int rc;
    DCAP_STEP_OUT(check_pck(&p, q, c, t, now, r));
    /* FMSPC and PCEID of the platform equal the TCB info's (Intel: TCB_INFO_MISMATCH). */
    DCAP_ENSURE_OUT(memcmp(p.leaf->info.fmspc, tcb->fmspc, 6) == 0, r, MERO_ETCBINFO,
                    "FMSPC of the PCK certificate differs from the TCB info");
    DCAP_ENSURE_OUT(memcmp(p.leaf->info.pceid, tcb->pceid, 2) == 0, r, MERO_ETCBINFO,
                    "PCEID of the PCK certificate differs from the TCB info");
    /* TDX module identity (Intel QuoteVerifier step 7). */
    uint8_t mver = b->tee_tcb_svn[1];
    const struct mero_tdx_module_identity *mod = module_identity(tcb, mver);
    DCAP_ENSURE_OUT(mod != NULL, r, MERO_ETDX_MODULE,
                    "TCB info has no TDX module identity TDX_%02X", mver);
    DCAP_ENSURE_OUT(memcmp(b->mrsignerseam, mod->mrsigner, sizeof(b->mrsignerseam)) == 0, r,
                    MERO_ETDX_MODULE, "MRSIGNERSEAM differs from the TDX module identity");
    /* Intel: every SEAM attribute byte zero and equal to the identity's (no mask). */
    bool seam_zero = true;
    for (int i = 0; i < 8; i++) {
        seam_zero &= b->seam_attributes[i] == 0 && mod->attributes[i] == 0;
    }
    DCAP_ENSURE_OUT(seam_zero, r, MERO_ETDX_MODULE, "SEAM attributes are not zero");
    /* QE report signed by the PCK key; its report data binds the attestation key. */
    DCAP_ENSURE_OUT(mero__x509_ecdsa_verify(p.leaf->key, q->qe_report_sig, q->qe_report_raw,
                                            MERO_QE_REPORT_LEN) >= 0,
                    r, MERO_EQEREPORT, "QE report signature does not verify with the PCK key");
    struct mero_sha256 h;
    uint8_t hd[MERO_SHA256_LEN];
    mero_sha256_init(&h);
    mero_sha256_update(&h, q->attest_key, MERO_ECDSA_P256_PK_LEN);
    mero_sha256_update(&h, q->qe_auth_data, q->qe_auth_len);
    mero_sha256_final(&h, hd);
    DCAP_ENSURE_OUT(memcmp(hd, q->qe_report.report_data, sizeof(hd)) == 0, r, MERO_EQEREPORT,
                    "QE report data does not bind the attestation key");
    /* QE identity (Intel EnclaveReportVerifier): masked miscselect and attributes, mrsigner,
     * isvprodid; then the ISVSVN level. */
    const struct mero_enclave_report *qr = &q->qe_report;
    bool attrs_ok = true;
    for (int i = 0; i < 16; i++) {
        attrs_ok &= (qr->attributes[i] & qe->attributes_mask[i]) ==
                    (qe->attributes[i] & qe->attributes_mask[i]);
    }
    DCAP_ENSURE_OUT((qr->miscselect & qe->miscselect_mask) ==
                            (qe->miscselect & qe->miscselect_mask) &&
                        attrs_ok && memcmp(qr->mrsigner, qe->mrsigner, sizeof(qr->mrsigner)) == 0 &&
                        qr->isvprodid == qe->isvprodid,
                    r, MERO_EQEIDENTITY, "QE report does not match the QE identity");
    const struct mero_qe_level *ql = NULL;
    for (size_t i = 0; i < qe->n_levels && ql == NULL; i++) {
        if (qe->levels[i].isvsvn <= qr->isvsvn) {
            ql = &qe->levels[i];
        }
    }
    DCAP_ENSURE_OUT(ql != NULL, r, MERO_ETCB_NOT_SUPPORTED,
                    "QE ISVSVN %u is below every QE identity level", qr->isvsvn);
    DCAP_ENSURE_OUT(ql->status == MERO_TCB_UP_TO_DATE || ql->status == MERO_TCB_OUT_OF_DATE ||
                        ql->status == MERO_TCB_REVOKED,
                    r, MERO_EQEIDENTITY, "QE identity level status %s is not a QE status",
                    mero_tcb_status_name(ql->status));
    /* The quote itself, signed by the attestation key. */
    const struct akey *ak = akey_get(q->attest_key);
    DCAP_ENSURE_OUT(ak != NULL, r, MERO_EBADSIG, "attestation key is not a P-256 point");
    int sig = mero__x509_ecdsa_verify(ak->key, q->signature, q->signed_data, q->signed_len);
    akey_put(ak);
    DCAP_ENSURE_OUT(sig >= 0, r, MERO_EBADSIG,
                    "quote signature does not verify with the attestation key");
    /* Platform TCB level: the first (highest) level the PCK SVNs and TEE_TCB_SVN both meet. */
    const struct mero_tcb_level *lv = mero__dcap_tcb_level(tcb, &p.leaf->info, b->tee_tcb_svn);
    DCAP_ENSURE_OUT(lv != NULL, r, MERO_ETCB_NOT_SUPPORTED, "no matching TCB level");
    enum mero_tcb_status st = lv->status;
    r->platform_status = st;
    add_advisories(r, &tcb->adv, lv->advisories);
    /* TDX module status (Intel TdxModuleCheck): only for module version > 0. */
    if (mver > 0) {
        const struct mero_module_level *ml = NULL;
        for (size_t i = 0; i < mod->n_levels && ml == NULL; i++) {
            if (mod->levels[i].isvsvn <= b->tee_tcb_svn[0]) {
                ml = &mod->levels[i];
            }
        }
        DCAP_ENSURE_OUT(ml != NULL, r, MERO_ETCB_NOT_SUPPORTED,
                        "TDX module SVN %u is below every level of %s", b->tee_tcb_svn[0], mod->id);
        r->module_status_set = true;
        r->module_status = ml->status;
        DCAP_ENSURE_OUT(ml->status == MERO_TCB_UP_TO_DATE || ml->status == MERO_TCB_OUT_OF_DATE ||
                            ml->status == MERO_TCB_REVOKED,
                        r, MERO_ETDX_MODULE, "TDX module level status %s is not supported",
                        mero_tcb_status_name(ml->status));
        if (ml->status == MERO_TCB_OUT_OF_DATE) {
            st = converge_out_of_date(st);
        } else if (ml->status == MERO_TCB_REVOKED) {
            st = MERO_TCB_REVOKED;
        }
        add_advisories(r, &tcb->adv, ml->advisories);
    }
    /* Intel convergeTcbStatusWithQeTcbStatus. */
    r->qe_status = ql->status;
    if (ql->status == MERO_TCB_OUT_OF_DATE) {
        st = converge_out_of_date(st);
    } else if (ql->status == MERO_TCB_REVOKED) {
        st = MERO_TCB_REVOKED;
    }
    add_advisories(r, &qe->adv, ql->advisories);
    r->quote_verified = true;
    r->has_tcb_status = true;
    r->tcb_status = st;
    r->has_tcb_evaluation_data_number = true;
    r->tcb_evaluation_data_number = tcb->eval_num < qe->eval_num ? tcb->eval_num : qe->eval_num;
    rc = DCAP_PASSED;
out:
    leaf_put(p.leaf);
    mero__x509_chain_cleanup(&p.ch);
    /* A rejection is a verdict recorded in r: for the caller, the judging succeeded. */
    return rc == DCAP_REJECTED ? 0 : rc;
}

int mero_dcap_verify_quote(const uint8_t *quote, size_t len, const struct mero_collateral *c,
                           uint64_t now, struct mero_dcap_result *out, struct mero_err *err)
{
    if (quote == NULL || out == NULL) {
        return mero_err_set(err, MERO_EINVAL, "no quote");
    }
    if (is_mock(quote, len)) {
        return mero_err_set(err, MERO_EQUOTE_MOCK, "a mock quote is not a TDX quote");
    }
    if (len > MERO_MAX_TEE_QUOTE_BYTES) {
        return mero_err_set(err, MERO_ETOOBIG, "quote exceeds %u bytes", MERO_MAX_TEE_QUOTE_BYTES);
    }
    struct mero_quote q;
    MERO_TRY(mero_quote_parse(&q, quote, len, err));
    return mero_dcap_verify_parsed(&q, c, now, out, err);
}

int mero_dcap_verify_parsed(const struct mero_quote *quote, const struct mero_collateral *c,
                            uint64_t now, struct mero_dcap_result *out, struct mero_err *err)
{
    if (quote == NULL || out == NULL) {
        return mero_err_set(err, MERO_EINVAL, "no quote");
    }
    const struct mero_quote *q = quote;
    if (c == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL, "no collateral");
    }
    if (now > (uint64_t)INT64_MAX) {
        return mero_err_set(err, MERO_EINVAL, "time out of range");
    }
    const struct mero_dcap_trust *t = NULL;
    MERO_TRY(mero__dcap_trust_get(c, &t, err));
    struct mero_dcap_result r;
    memset(&r, 0, sizeof(r));
    fill_measurements(&r, q);
    r.root_crl_checked = t->fail_code == 0 && t->has_root_crl;
    if (t->fail_code != 0) {
        (void)reject(&r, t->fail_code, "%s", t->fail_reason);
    } else {
        r.collateral_not_before = t->not_before;
        r.collateral_not_after = t->not_after;
        if ((int64_t)now < t->not_before || (int64_t)now > t->not_after) {
            (void)reject(
                &r, MERO_EEXPIRED,
                "collateral is valid from %lld to %lld, not at %llu (issueDate/thisUpdate, "
                "nextUpdate, certificate validity)",
                (long long)t->not_before, (long long)t->not_after, (unsigned long long)now);
        } else {
            int rc = judge(q, c, t, (int64_t)now, &r);
            if (rc < 0) {
                mero__dcap_trust_put(t);
                return mero_err_set(err, -rc, "verification failed internally");
            }
        }
    }
    mero__dcap_trust_put(t);
    *out = r;
    return 0;
}

int mero_dcap_verify(const uint8_t *quote, size_t len, const struct mero_collateral *c,
                     uint64_t now, const uint8_t nonce[static MERO_NONCE_LEN],
                     const uint8_t app_hash[static MERO_APP_HASH_LEN], struct mero_dcap_result *out,
                     struct mero_err *err)
{
    struct mero_dcap_result r;
    MERO_TRY(mero_dcap_verify_quote(quote, len, c, now, &r, err));
    r.nonce_verified = memcmp(r.report_data, nonce, MERO_NONCE_LEN) == 0;
    r.application_hash_verified =
        memcmp(r.report_data + MERO_NONCE_LEN, app_hash, MERO_APP_HASH_LEN) == 0;
    r.is_valid = r.quote_verified && r.nonce_verified && r.application_hash_verified;
    *out = r;
    return 0;
}

int mero_dcap_verify_evidence(const uint8_t *quote, size_t len, const char *collateral_json,
                              size_t collateral_len, uint64_t attested_at,
                              const uint8_t bound_hash[static MERO_APP_HASH_LEN],
                              struct mero_dcap_result *out, struct mero_err *err)
{
    if (is_mock(quote, len)) {
        return mero_err_set(err, MERO_EQUOTE_MOCK, "mock evidence is judged by the mock rule");
    }
    struct mero_quote q;
    MERO_TRY(mero_quote_parse(&q, quote, len, err));
    if (collateral_json == NULL || collateral_len == 0) {
        return mero_err_set(err, MERO_ECOLLATERAL,
                            "evidence for a real quote must carry the collateral it was "
                            "appraised against");
    }
    struct mero_collateral c;
    MERO_TRY(mero_collateral_parse(&c, collateral_json, collateral_len, err));
    struct mero_dcap_result r;
    int rc = mero_dcap_verify_quote(quote, len, &c, attested_at, &r, err);
    mero_collateral_cleanup(&c);
    MERO_TRY(rc);
    if (!r.quote_verified) {
        return mero_err_set(err, r.reject_code ? r.reject_code : MERO_EBADSIG,
                            "quote verification failed: %s", r.reject_reason);
    }
    if (!mero_ct_eq(r.report_data + MERO_NONCE_LEN, bound_hash, MERO_APP_HASH_LEN)) {
        return mero_err_set(err, MERO_EPOLICY, "the quote does not commit to the bound key hash");
    }
    r.nonce_verified = false;
    r.application_hash_verified = true;
    r.is_valid = false;
    *out = r;
    return 0;
}
