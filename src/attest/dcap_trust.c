/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap_trust.c - verifies DCAP collateral once and caches what that proves: the issuer chains
 * (PCK CRL issuer, TCB info signer, QE identity signer) to the root pinned by the SHA-256 of
 * its DER, the root CA CRL and PCK CRL (signature, issuer), revocation of every non-root
 * certificate those chains carry, the TCB info and QE identity signatures over their exact
 * text, the identities' ids and versions, and the validity window of all of it (Intel QVL,
 * reference-dcap.md §2b steps 2-4).
 *
 * Invariants: nothing is cached unless it was derived from the collateral bytes the cache key
 * hashes; the result is independent of time (the window is checked per use in dcap.c);
 * malformed input is an error (no verdict), a failed check is a cached verdict; the cache
 * holds at most MERO_DCAP_CACHE_MAX entries (least recently used evicted). Thread safety: the
 * table, the counters and every entry's reference count and state are guarded by one mutex; an
 * entry is built outside it by the one thread that missed (others asking for the same key wait
 * for it: single flight), becomes readable only once `ready` is set under the mutex, and is
 * immutable from then on; a reader holds a reference (mero__dcap_trust_put), so eviction or
 * mero_dcap_cache_clear() never frees an entry in use.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/dcap_internal.h"
#include "mero/crypto.h"

/* SHA-256 of the Intel SGX Root CA DER (shared/testdata/tdx/README.md). */
const uint8_t MERO_INTEL_ROOT_CA_SHA256[MERO_SHA256_LEN] = {
    0x44, 0xa0, 0x19, 0x6b, 0x2b, 0x99, 0xf8, 0x89, 0xb8, 0xe1, 0x49, 0xe9, 0x5b, 0x80, 0x7a, 0x35,
    0x0e, 0x74, 0x24, 0x96, 0x43, 0x99, 0xe8, 0x85, 0xa7, 0xcb, 0xb8, 0xcc, 0xfa, 0xb6, 0x74, 0xd3,
};

static uint8_t root_pin[MERO_SHA256_LEN];
static bool root_pin_set;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cache_cond = PTHREAD_COND_INITIALIZER;
static struct mero_dcap_trust *cache[MERO_DCAP_CACHE_MAX];
static uint64_t cache_clock, cache_hits, cache_misses;

const uint8_t *mero__dcap_root_pin(void)
{
    return root_pin_set ? root_pin : MERO_INTEL_ROOT_CA_SHA256;
}

static void owned_cleanup(struct mero_owned_cert *o);

static void trust_free(struct mero_dcap_trust *t)
{
    if (t == NULL) {
        return;
    }
    owned_cleanup(&t->root);
    owned_cleanup(&t->pck_ca);
    free(t->root_crl_der);
    free(t->pck_crl_der);
    mero__tcbinfo_cleanup(&t->tcb);
    mero__qeidentity_cleanup(&t->qe);
    free(t);
}

void mero__dcap_parse_cache_clear(void);

/* Drops one reference; the last one frees. Called with cache_lock held. */
static void unref_locked(struct mero_dcap_trust *t)
{
    if (t != NULL && --t->refs == 0) {
        trust_free(t);
    }
}

void mero__dcap_trust_put(const struct mero_dcap_trust *t)
{
    if (t == NULL) {
        return;
    }
    pthread_mutex_lock(&cache_lock);
    unref_locked((struct mero_dcap_trust *)t);
    pthread_mutex_unlock(&cache_lock);
}

void mero_dcap_cache_clear(void)
{
    mero__dcap_parse_cache_clear();
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < MERO_DCAP_CACHE_MAX; i++) {
        unref_locked(cache[i]);
        cache[i] = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
}

void mero_dcap_cache_stats(uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&cache_lock);
    if (hits != NULL) {
        *hits = cache_hits;
    }
    if (misses != NULL) {
        *misses = cache_misses;
    }
    pthread_mutex_unlock(&cache_lock);
}

void mero_dcap_set_root_pin(const uint8_t *sha256)
{
    if (sha256 == NULL) {
        root_pin_set = false;
    } else {
        memcpy(root_pin, sha256, sizeof(root_pin));
        root_pin_set = true;
    }
    mero_dcap_cache_clear();
}

#define ROOT_FILE_MAX 16384

static int root_file_pin(const uint8_t *buf, size_t n, const char *path, struct mero_err *err);

int mero_dcap_load_root_file(const char *path, struct mero_err *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return mero_err_set(err, MERO_EIO, "cannot open root file %s", path);
    }
    uint8_t *buf = malloc(ROOT_FILE_MAX);
    if (buf == NULL) {
        fclose(f);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, ROOT_FILE_MAX - 1, f);
    fclose(f);
    int rc = root_file_pin(buf, n, path, err);
    free(buf);
    return rc;
}

static int root_file_pin(const uint8_t *buf, size_t n, const char *path, struct mero_err *err)
{
    if (n == 0 || n == ROOT_FILE_MAX - 1) {
        return mero_err_set(err, MERO_ECERT, "root file %s is empty or too large", path);
    }
    struct mero_cert cert;
    uint8_t h[MERO_SHA256_LEN];
    if (mero__cert_parse(&cert, buf, n) == 0) {
        mero_sha256(h, buf, n);
    } else {
        struct mero_x509_chain ch;
        memset(&ch, 0, sizeof(ch));
        if (mero__x509_chain_parse(&ch, (const char *)buf, n, err) < 0 || ch.n != 1) {
            if (ch.n != 0) {
                mero__x509_chain_cleanup(&ch);
            }
            return mero_err_set(err, MERO_ECERT, "root file %s is not one certificate", path);
        }
        mero_sha256(h, ch.der[0], ch.der_len[0]);
        mero__x509_chain_cleanup(&ch);
    }
    mero_dcap_set_root_pin(h);
    return 0;
}

/* ---- building a trust ------------------------------------------------------------------- */

struct window {
    int64_t nb, na;
};

static void widen(struct window *w, int64_t nb, int64_t na)
{
    if (nb > w->nb) {
        w->nb = nb;
    }
    if (na < w->na) {
        w->na = na;
    }
}

static int own_cert(struct mero_owned_cert *o, const uint8_t *der, size_t len, struct mero_err *err)
{
    o->der = malloc(len);
    if (o->der == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(o->der, der, len);
    o->der_len = len;
    if (mero__cert_parse(&o->c, o->der, len) < 0 || mero__x509_key(o->c.point, &o->key) < 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "certificate key does not decode");
    }
    return 0;
}

static void owned_cleanup(struct mero_owned_cert *o)
{
    free(o->der);
    EVP_PKEY_free(o->key);
    memset(o, 0, sizeof(*o));
}

/*
 * A two-certificate issuer chain (signer, root): parse (error when malformed), then check the
 * root is the pinned one (the first chain seen sets the trust's root; every other must be
 * byte-equal), and the signer is issued and signed by it and has the expected CN (a verdict
 * when not). `signer_key` gets the signer's key (owned) unless the signer is byte-equal to
 * `same`, an already verified certificate, whose checks are then not repeated.
 */
static int issuer_chain(struct mero_dcap_trust *t, struct mero_x509_chain *ch, const char *pem,
                        size_t len, const char *cn, struct window *w, struct mero_err *err,
                        const char *what)
{
    struct mero_err e2;
    if (mero__x509_chain_parse(ch, pem, len, &e2) < 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "%s: %s", what, e2.msg);
    }
    if (ch->n != 2) {
        return mero_err_set(err, MERO_ECHAIN, "%s: %zu certificates, want 2", what, ch->n);
    }
    if (t->root.der != NULL) {
        if (ch->der_len[1] != t->root.der_len ||
            memcmp(ch->der[1], t->root.der, t->root.der_len) != 0) {
            return mero_err_set(err, MERO_EROOT, "%s: root differs from the pinned root", what);
        }
    } else {
        /* Pinned by the SHA-256 of its DER: that fixes every byte, its self-signature
         * included, so checking the self-signature again would prove nothing more. */
        if (!mero__x509_pin_ok(ch->der[1], ch->der_len[1], mero__dcap_root_pin())) {
            return mero_err_set(err, MERO_EROOT, "%s: root is not the pinned Intel SGX Root CA",
                                what);
        }
        MERO_TRY(own_cert(&t->root, ch->der[1], ch->der_len[1], err));
        if (!mero__der_name_eq(t->root.c.issuer, t->root.c.issuer_len, t->root.c.subject,
                               t->root.c.subject_len)) {
            return mero_err_set(err, MERO_EROOT, "root CA is not self-issued");
        }
        widen(w, t->root.c.not_before, t->root.c.not_after);
    }
    const struct mero_cert *s = &ch->cert[0];
    if (!mero__x509_cn_contains(s, cn)) {
        return mero_err_set(err, MERO_ECHAIN, "%s: signer CN does not contain \"%s\"", what, cn);
    }
    MERO_TRY(mero__x509_signed_by(s, &t->root.c, t->root.key, err, what));
    widen(w, s->not_before, s->not_after);
    if (t->has_root_crl) {
        MERO_TRY(mero__x509_crl_check(&t->root_crl, s, err, what));
    }
    return 0;
}

static int signed_text(const struct mero_cert *signer, EVP_PKEY *known,
                       const uint8_t sig[MERO_ECDSA_P256_SIG_LEN], const char *text, size_t len,
                       struct mero_err *err, const char *what)
{
    EVP_PKEY *k = known;
    if (k == NULL && mero__x509_key(signer->point, &k) < 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "%s signer key does not decode", what);
    }
    int rc = mero__x509_ecdsa_verify(k, sig, text, len);
    if (k != known) {
        EVP_PKEY_free(k);
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_EBADSIG, "%s signature does not verify", what);
    }
    return 0;
}

static int own_crl(uint8_t **der, struct mero_crl *crl, const uint8_t *src, size_t len,
                   struct mero_err *err, const char *what)
{
    *der = malloc(len ? len : 1);
    if (*der == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(*der, src, len);
    if (mero__crl_parse(crl, *der, len) < 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "%s does not decode as a DER CRL", what);
    }
    return 0;
}

/* The TCB info's signature over its exact text, by the key of tcb_ch (verified); then the QE
 * identity's, whose signer is normally that very certificate, which is then not verified twice
 * (else qe_ch is verified as an issuer chain of its own). */
static int signed_identities(struct mero_dcap_trust *t, const struct mero_collateral *c,
                             const struct mero_x509_chain *tcb_ch, struct mero_x509_chain *qe_ch,
                             struct window *w, struct mero_err *err)
{
    EVP_PKEY *tcb_key = NULL;
    MERO_ENSURE(mero__x509_key(tcb_ch->cert[0].point, &tcb_key) >= 0, err, MERO_ECOLLATERAL,
                "TCB signing key does not decode");
    int rc = signed_text(&tcb_ch->cert[0], tcb_key, c->tcb_info_signature, c->tcb_info,
                         c->tcb_info_len, err, "TCB info");
    struct mero_err e2;
    if (rc == 0 && mero__x509_chain_split(qe_ch, c->qe_identity_issuer_chain,
                                          c->qe_identity_issuer_chain_len, &e2) < 0) {
        rc = mero_err_set(err, MERO_ECOLLATERAL, "qe_identity_issuer_chain: %s", e2.msg);
    }
    bool same = rc == 0 && qe_ch->n == 2 && qe_ch->der_len[0] == tcb_ch->der_len[0] &&
                memcmp(qe_ch->der[0], tcb_ch->der[0], tcb_ch->der_len[0]) == 0 &&
                qe_ch->der_len[1] == t->root.der_len &&
                memcmp(qe_ch->der[1], t->root.der, t->root.der_len) == 0;
    if (same) {
        rc = signed_text(&tcb_ch->cert[0], tcb_key, c->qe_identity_signature, c->qe_identity,
                         c->qe_identity_len, err, "QE identity");
    } else if (rc == 0) {
        mero__x509_chain_cleanup(qe_ch);
        rc = issuer_chain(t, qe_ch, c->qe_identity_issuer_chain, c->qe_identity_issuer_chain_len,
                          "SGX TCB Signing", w, err, "qe_identity_issuer_chain");
        if (rc == 0) {
            rc = signed_text(&qe_ch->cert[0], NULL, c->qe_identity_signature, c->qe_identity,
                             c->qe_identity_len, err, "QE identity");
        }
    }
    EVP_PKEY_free(tcb_key);
    return rc;
}

/* Returns < 0: no verdict (-MERO_ECOLLATERAL / -MERO_ENOMEM) or a failed check (its code). */
static int build(struct mero_dcap_trust *t, const struct mero_collateral *c, struct mero_err *err)
{
    struct mero_x509_chain crl_ch, tcb_ch, qe_ch;
    struct window w = {INT64_MIN, INT64_MAX};
    int rc;
    memset(&crl_ch, 0, sizeof(crl_ch));
    memset(&tcb_ch, 0, sizeof(tcb_ch));
    memset(&qe_ch, 0, sizeof(qe_ch));
    /* The root CA CRL is required (issue 21 item 4): without it no chain's revocation can be
     * judged, and Intel cannot judge such collateral either. */
    if (c->root_ca_crl == NULL || c->root_ca_crl_len == 0) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral is incomplete: no root_ca_crl");
    }
    if (c->pck_crl == NULL || c->tcb_info == NULL || c->qe_identity == NULL ||
        c->pck_crl_issuer_chain == NULL || c->tcb_info_issuer_chain == NULL ||
        c->qe_identity_issuer_chain == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL, "collateral is incomplete");
    }
    /* Decode the CRLs first: a collateral that does not decode gets no verdict. */
    if (c->root_ca_crl != NULL) {
        MERO_TRY_OUT(own_crl(&t->root_crl_der, &t->root_crl, c->root_ca_crl, c->root_ca_crl_len,
                             err, "root_ca_crl"));
        t->has_root_crl = true;
    }
    MERO_TRY_OUT(own_crl(&t->pck_crl_der, &t->pck_crl, c->pck_crl, c->pck_crl_len, err, "pck_crl"));
    /* PCK CRL issuer chain: PCK CA (Platform or Processor) then root. The root CA CRL can only
     * be judged once the root is known, so the PCK CA's revocation is checked just below. */
    bool had_root_crl = t->has_root_crl;
    t->has_root_crl = false;
    rc = issuer_chain(t, &crl_ch, c->pck_crl_issuer_chain, c->pck_crl_issuer_chain_len, "SGX PCK ",
                      &w, err, "pck_crl_issuer_chain");
    t->has_root_crl = had_root_crl;
    MERO_TRY_OUT(rc);
    MERO_ENSURE_OUT(mero__x509_cn_contains(&crl_ch.cert[0], " CA"), err, MERO_ECHAIN,
                    "pck_crl_issuer_chain: issuer CN is not a CA");
    MERO_TRY_OUT(own_cert(&t->pck_ca, crl_ch.der[0], crl_ch.der_len[0], err));
    /* Root CA CRL: issued and signed by the root; neither the root nor the PCK CA on it. */
    if (t->has_root_crl) {
        widen(&w, t->root_crl.this_update, t->root_crl.next_update);
        MERO_TRY_OUT(
            mero__x509_crl_signed_by(&t->root_crl, &t->root.c, t->root.key, err, "root CA CRL"));
        MERO_TRY_OUT(mero__x509_crl_check(&t->root_crl, &t->root.c, err, "root CA"));
        MERO_TRY_OUT(mero__x509_crl_check(&t->root_crl, &t->pck_ca.c, err, "PCK CA"));
    }
    /* PCK CRL: issued and signed by the PCK CA. */
    widen(&w, t->pck_crl.this_update, t->pck_crl.next_update);
    MERO_TRY_OUT(
        mero__x509_crl_signed_by(&t->pck_crl, &t->pck_ca.c, t->pck_ca.key, err, "PCK CRL"));
    /* TCB info: chain (with root CRL), signature over the exact text. */
    MERO_TRY_OUT(issuer_chain(t, &tcb_ch, c->tcb_info_issuer_chain, c->tcb_info_issuer_chain_len,
                              "SGX TCB Signing", &w, err, "tcb_info_issuer_chain"));
    MERO_TRY_OUT(signed_identities(t, c, &tcb_ch, &qe_ch, &w, err));
    /* Signed and intact: now the text must be a well-formed identity (else no verdict). */
    struct mero_err e2;
    MERO_ENSURE_OUT(mero__tcbinfo_parse(&t->tcb, c->tcb_info, c->tcb_info_len, &e2) >= 0 &&
                        mero__qeidentity_parse(&t->qe, c->qe_identity, c->qe_identity_len, &e2) >=
                            0,
                    err, MERO_ECOLLATERAL, "%s", e2.msg);
    widen(&w, t->tcb.issue_date, t->tcb.next_update);
    widen(&w, t->qe.issue_date, t->qe.next_update);
    /* This verifier judges TDX quotes: TCB info "TDX" v3+, type 0; QE identity "TD_QE" v2+
     * (Intel: TCB_INFO_MISMATCH / QE identity version 1 invalid; reference-dcap.md §6.1). */
    MERO_ENSURE_OUT(strcmp(t->tcb.id, "TDX") == 0 && t->tcb.version >= 3, err, MERO_ETCBINFO,
                    "TCB info is id \"%s\" version %d, not TDX v3+", t->tcb.id, t->tcb.version);
    MERO_ENSURE_OUT(t->tcb.tcb_type == 0, err, MERO_ETCBINFO,
                    "TCB info tcbType %d is not supported", t->tcb.tcb_type);
    MERO_ENSURE_OUT(strcmp(t->qe.id, "TD_QE") == 0 && t->qe.version >= 2, err, MERO_EQEIDENTITY,
                    "QE identity is id \"%s\" version %d, not TD_QE", t->qe.id, t->qe.version);
    t->not_before = w.nb;
    t->not_after = w.na;
    rc = 0;
out:
    mero__x509_chain_cleanup(&crl_ch);
    mero__x509_chain_cleanup(&tcb_ch);
    mero__x509_chain_cleanup(&qe_ch);
    return rc;
}

static bool is_no_verdict(int rc)
{
    return rc == -MERO_ECOLLATERAL || rc == -MERO_ENOMEM;
}

/* Frees what a failed build left in t (a verdict keeps only its reason). */
static void trust_drop_content(struct mero_dcap_trust *t)
{
    owned_cleanup(&t->root);
    owned_cleanup(&t->pck_ca);
    free(t->root_crl_der);
    free(t->pck_crl_der);
    t->root_crl_der = t->pck_crl_der = NULL;
    t->has_root_crl = false;
    memset(&t->root_crl, 0, sizeof(t->root_crl));
    memset(&t->pck_crl, 0, sizeof(t->pck_crl));
    mero__tcbinfo_cleanup(&t->tcb);
    mero__qeidentity_cleanup(&t->qe);
    memset(&t->tcb, 0, sizeof(t->tcb));
    memset(&t->qe, 0, sizeof(t->qe));
}

/* Called with cache_lock held: the entry for key, referenced, or NULL. */
static struct mero_dcap_trust *lookup_locked(const uint8_t key[MERO_SHA256_LEN], size_t *slot)
{
    uint64_t oldest = UINT64_MAX;
    *slot = 0;
    for (size_t i = 0; i < MERO_DCAP_CACHE_MAX; i++) {
        if (cache[i] != NULL && memcmp(cache[i]->key, key, MERO_SHA256_LEN) == 0) {
            cache[i]->refs++;
            return cache[i];
        }
        uint64_t age = cache[i] == NULL ? 0 : cache[i]->last_used;
        if (age < oldest) {
            oldest = age;
            *slot = i;
        }
    }
    return NULL;
}

int mero__dcap_trust_get(const struct mero_collateral *c, const struct mero_dcap_trust **out,
                         struct mero_err *err)
{
    uint8_t key[MERO_SHA256_LEN];
    if (c->has_hash) {
        memcpy(key, c->hash, sizeof(key));
    } else {
        mero_collateral_hash(c, key);
    }
    size_t slot;
    pthread_mutex_lock(&cache_lock);
    struct mero_dcap_trust *t = lookup_locked(key, &slot);
    if (t != NULL) {
        /* Single flight: another thread is building this entry; wait for it. */
        while (!t->ready) {
            pthread_cond_wait(&cache_cond, &cache_lock);
        }
        t->last_used = ++cache_clock;
        if (t->error_code != 0) {
            /* The build found the collateral malformed: the same error, no verdict. */
            int code = t->error_code;
            mero_err_set(err, code, "%s", t->fail_reason);
            unref_locked(t);
            pthread_mutex_unlock(&cache_lock);
            return -code;
        }
        cache_hits++;
        pthread_mutex_unlock(&cache_lock);
        *out = t;
        return 0;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        pthread_mutex_unlock(&cache_lock);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(t->key, key, sizeof(t->key));
    t->refs = 2; /* the cache's and ours */
    t->last_used = ++cache_clock;
    struct mero_dcap_trust *victim = cache[slot];
    if (victim != NULL && --victim->refs > 0) {
        victim = NULL; /* still in use: its last reader frees it */
    }
    cache[slot] = t;
    pthread_mutex_unlock(&cache_lock);
    trust_free(victim); /* unreachable now: freed outside the lock */

    /* Built outside the lock; nobody reads t before `ready` is set under it. */
    struct mero_err e2;
    mero_err_clear(&e2);
    int rc = build(t, c, &e2);
    if (rc < 0) {
        trust_drop_content(t);
        t->fail_code = -rc;
        snprintf(t->fail_reason, sizeof(t->fail_reason), "%s", e2.msg);
    }
    pthread_mutex_lock(&cache_lock);
    t->ready = true;
    if (rc < 0 && is_no_verdict(rc)) {
        /* Malformed (or out of memory): no verdict and not cached; waiters get the error. */
        t->error_code = -rc;
        for (size_t i = 0; i < MERO_DCAP_CACHE_MAX; i++) {
            if (cache[i] == t) {
                cache[i] = NULL;
                unref_locked(t);
            }
        }
        unref_locked(t);
        pthread_cond_broadcast(&cache_cond);
        pthread_mutex_unlock(&cache_lock);
        return mero_err_set(err, -rc, "%s", e2.msg);
    }
    cache_misses++;
    pthread_cond_broadcast(&cache_cond);
    pthread_mutex_unlock(&cache_lock);
    *out = t;
    return 0;
}
