/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_collateral.c - QuoteCollateralV3 JSON and everything collateral verification parses
 * from it: the JSON itself (to-JSON round trip must give the same hash), the TCB info and QE
 * identity texts, the PEM chains, the DER CRLs, and a full verification of a genuine quote
 * (dcapqvl-1, read from ../shared when present) against the fuzzed collateral. Raw DER inputs
 * (first byte 0x30) also go straight to the certificate and CRL readers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/collateral_internal.h"
#include "attest/der_internal.h"
#include "attest/tcbinfo_internal.h"
#include "attest/x509_internal.h"
#include "mero/collateral.h"
#include "mero/crypto.h"
#include "mero/dcap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *quote;
static size_t quote_len;
static int ready;

static void init(void)
{
    ready = mero_crypto_init() == 0 ? 1 : -1;
    const char *sh = getenv("MERO_SHARED");
    char path[1024];
    snprintf(path, sizeof(path), "%s/testdata/tdx/dcapqvl-1/quote.bin", sh ? sh : "../shared");
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        quote = malloc(8192);
        quote_len = quote != NULL ? fread(quote, 1, 8192, f) : 0;
        fclose(f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ready == 0) {
        init();
    }
    if (ready < 0) {
        return 0;
    }
    if (size > 0 && data[0] == 0x30) {
        struct mero_cert c;
        struct mero_crl crl;
        struct mero_sgx_ext ext;
        if (mero__cert_parse(&c, data, size) == 0) {
            int rc = mero__cert_sgx_ext(&c, &ext);
            if (rc != 0 && rc != -MERO_ECERT) {
                abort();
            }
        }
        if (mero__crl_parse(&crl, data, size) == 0) {
            bool listed;
            if (mero__crl_lists(&crl, data, size < 20 ? size : 20, &listed) < 0) {
                abort(); /* parse checked every entry */
            }
        }
        return 0;
    }
    struct mero_collateral c, fast, gen;
    struct mero_err e;
    /* The fast path may only accept what the general parser accepts, byte for byte. */
    if (size <= MERO_COLLATERAL_MAX_JSON &&
        mero__collateral_parse_fast(&fast, (const char *)data, size) == 0) {
        mero_collateral_rehash(&fast);
        if (mero__collateral_parse_general(&gen, (const char *)data, size, &e) != 0 ||
            memcmp(gen.hash, fast.hash, 32) != 0) {
            abort();
        }
        mero_collateral_cleanup(&gen);
        mero_collateral_cleanup(&fast);
    }
    if (mero_collateral_parse(&c, (const char *)data, size, &e) < 0) {
        return 0;
    }
    struct mero_buf b;
    mero_buf_init(&b, 4u << 20);
    if (mero_collateral_to_json(&c, &b) == 0) {
        struct mero_collateral d;
        if (mero_collateral_parse(&d, (const char *)b.data, b.len, &e) != 0 ||
            memcmp(c.hash, d.hash, 32) != 0) {
            abort(); /* the served form must parse back to the same bytes */
        }
        mero_collateral_cleanup(&d);
    }
    mero_buf_cleanup(&b);
    struct mero_tcbinfo t;
    struct mero_qeidentity q;
    if (mero__tcbinfo_parse(&t, c.tcb_info, c.tcb_info_len, &e) == 0) {
        mero__tcbinfo_cleanup(&t);
    }
    if (mero__qeidentity_parse(&q, c.qe_identity, c.qe_identity_len, &e) == 0) {
        mero__qeidentity_cleanup(&q);
    }
    struct mero_x509_chain ch;
    if (mero__x509_chain_parse(&ch, c.pck_crl_issuer_chain, c.pck_crl_issuer_chain_len, &e) == 0) {
        mero__x509_chain_cleanup(&ch);
    }
    if (quote != NULL) {
        struct mero_dcap_result r;
        if (mero_dcap_verify_quote(quote, quote_len, &c, 1752919234, &r, &e) == 0 &&
            r.quote_verified && !r.has_tcb_status) {
            abort(); /* a verified quote always has a status */
        }
    }
    mero_collateral_cleanup(&c);
    return 0;
}
