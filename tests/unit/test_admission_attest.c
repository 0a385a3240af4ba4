/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_admission_attest.c - the real-quote glue of admission (src/node/admission_attest.c):
 * the evidence verifier accepts a genuine quote against its own collateral at its time and
 * reports its measurements, and refuses missing collateral, a time outside the collateral's
 * window, and a flipped byte; the DCAP step of verify_and_admit gives no verdict (an error)
 * when collateral cannot be fetched; the signed-release check refuses without a trusted root.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "node/admission_attest.h"
#include "harness.h"

#define CASE "testdata/tdx/dcapqvl-1/"
#define AT   1752919234u

TEST(evidence_verifies_a_genuine_quote_at_its_time)
{
    size_t ql = 0, cl = 0;
    uint8_t *q = mero_test_read(CASE "quote.bin", 1, &ql);
    uint8_t *c = mero_test_read(CASE "tdx_quote_collateral.json", 1, &cl);
    CHECK(q != NULL && c != NULL);
    struct mero_evidence_verdict v;
    struct mero_err e = {0};
    int rc = mero_node_evidence_verify(NULL, q, ql, c, cl, AT, &v, &e);
    CHECK_MSG(rc == 0, "evidence refused: %s", e.msg);
    CHECK_STR_EQ(v.tcb_status, "UpToDate");
    CHECK_EQ(strlen(v.m.mrtd), 96);
    CHECK(!v.is_mock);
    /* no collateral */
    CHECK_ERR(mero_node_evidence_verify(NULL, q, ql, NULL, 0, AT, &v, &e), -MERO_ECOLLATERAL);
    CHECK(strstr(e.msg, "must carry the collateral") != NULL);
    /* outside the collateral's window */
    CHECK_FAILS(mero_node_evidence_verify(NULL, q, ql, c, cl, 1, &v, NULL));
    /* a flipped byte in the signed body */
    q[200] ^= 1;
    CHECK_FAILS(mero_node_evidence_verify(NULL, q, ql, c, cl, AT, &v, NULL));
    free(q);
    free(c);
}

TEST(dcap_step_without_collateral_is_no_verdict)
{
    size_t ql = 0;
    uint8_t *q = mero_test_read(CASE "quote.bin", 1, &ql);
    CHECK(q != NULL);
    /* nothing listens on port 9: the fetch fails fast and the claim is refused */
    setenv("CALIMERO_TEE_COLLATERAL_URL", "http://127.0.0.1:9", 1);
    struct mero_tee_verdict v;
    struct mero_err e = {0};
    memset(&v, 0, sizeof(v));
    int rc = mero__adm_verify_real(NULL, q, ql, &v, &e);
    free(q);
    CHECK(rc < 0);
    CHECK(v.tcb_status[0] == '\0');
    CHECK(v.collateral == NULL);
}

TEST(release_check_refuses_without_a_trusted_root)
{
    struct mero_tee_policy p;
    struct mero_measurements m;
    struct mero_err e = {0};
    memset(&p, 0, sizeof(p));
    memset(&m, '0', sizeof(m));
    m.mrtd[96] = 0;
    for (int i = 0; i < 4; i++) {
        m.rtmr[i][96] = 0;
    }
    p.form = MERO_POLICY_RELEASE;
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    unsetenv("MERO_SIGSTORE_TRUSTED_ROOT");
    CHECK_FAILS(mero_node_release_check(NULL, "2.3.87", &p, &m, &e));
    CHECK(strstr(e.msg, "trusted root") != NULL);
    mero_tee_policy_cleanup(&p);
    mero_node_admission_attest_cleanup();
}

MERO_TEST_MAIN(T(evidence_verifies_a_genuine_quote_at_its_time),
               T(dcap_step_without_collateral_is_no_verdict),
               T(release_check_refuses_without_a_trusted_root))
