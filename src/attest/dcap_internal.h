/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap_int.h (private) - what collateral verification proves (struct mero_dcap_trust), shared
 * between dcap_trust.c (builds and caches it) and dcap.c (judges one quote with it).
 */
#ifndef MERO_ATTEST_DCAP_INT_H
#define MERO_ATTEST_DCAP_INT_H

#include "attest/tcbinfo_internal.h"
#include "attest/x509_internal.h"
#include "mero/collateral.h"
#include "mero/dcap.h"

struct mero_owned_cert {
    uint8_t *der;
    size_t der_len;
    struct mero_cert c;
    EVP_PKEY *key;
};

struct mero_dcap_trust {
    uint8_t key[MERO_SHA256_LEN]; /* mero_collateral_hash */
    /* Guarded by the cache mutex (dcap_trust.c): */
    uint64_t last_used;
    unsigned refs;  /* the cache's slot and every reader */
    bool ready;     /* built: everything below is immutable from now on */
    int error_code; /* the build was an error (no verdict): waiters get it, never cached */
    /* A collateral that does not verify is a verdict (quote_verified=false) for every quote;
     * the reason is kept so the second quote gets the same answer without the work. */
    int fail_code;
    char fail_reason[MERO_ERR_MSG_MAX];
    /* Valid only when fail_code == 0 (all owned; certs/CRLs borrow from their der): */
    struct mero_owned_cert root, pck_ca; /* pck_ca: the PCK CRL's issuer, verified */
    bool has_root_crl;                   /* false: the collateral carried no root CA CRL */
    uint8_t *root_crl_der, *pck_crl_der;
    struct mero_crl root_crl, pck_crl;
    struct mero_tcbinfo tcb;
    struct mero_qeidentity qe;
    int64_t not_before, not_after; /* latest start and earliest end of every validity */
};

/*
 * The verified collateral for c: from the cache, or verified now (and cached); a thread asking
 * for a key another thread is building waits for that build. Returns a reference (release it
 * with mero__dcap_trust_put; the entry is immutable and stays valid until then, whatever is
 * evicted or cleared meanwhile), or a negative error when the collateral is malformed (no
 * verdict). A collateral that does not verify yields a trust with fail_code set. Safe from any
 * thread.
 */
MERO_MUST_CHECK int mero__dcap_trust_get(const struct mero_collateral *c,
                                         const struct mero_dcap_trust **out, struct mero_err *err);
void mero__dcap_trust_put(const struct mero_dcap_trust *t);

/* Intel TcbLevelCheck: the first level whose SGX components and PCESVN the PCK meets and whose
 * TDX components TEE_TCB_SVN meets (from index 2 when TEE_TCB_SVN[1] > 0). NULL: no level. */
const struct mero_tcb_level *mero__dcap_tcb_level(const struct mero_tcbinfo *tcb,
                                                  const struct mero_sgx_ext *pck,
                                                  const uint8_t tee_tcb_svn[16]);

/*
 * The PCK chain a quote is judged with (issue 14): the quote's own chain; the collateral's
 * pck_certificate_chain only for a quote that carries none. Both present must hold the same
 * certificates (compared as DER, so PEM layout does not matter): else -MERO_ECHAIN with the
 * reason in `why`. Neither present: -MERO_ECHAIN. *pem borrows from q or c.
 */
MERO_MUST_CHECK int mero__dcap_pck_chain(const struct mero_quote *q,
                                         const struct mero_collateral *c, const char **pem,
                                         size_t *len, char *why, size_t why_cap);

/* The pinned root's DER hash. */
const uint8_t *mero__dcap_root_pin(void);

#endif
