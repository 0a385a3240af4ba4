/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_policy.c - VerifierPolicy (reference-calimero.md §1.5, §8 "Policy (policy.rs)", §9):
 * happy path, secure defaults, order of the rules, Revoked, mock, empty lists, mismatches,
 * and our knobs (MRSERVICETD, debug TD, missing root CA CRL).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mero/policy.h"

static const char *H(char c)
{
    static char buf[4][97];
    static int k;
    k = (k + 1) % 4;
    memset(buf[k], c, 96);
    buf[k][96] = 0;
    return buf[k];
}

/* A verified, valid, UpToDate result whose registers are MRTD=aa.., RTMRi=(b+i).. */
static struct mero_dcap_result good(void)
{
    struct mero_dcap_result r;
    memset(&r, 0, sizeof(r));
    r.quote_verified = r.nonce_verified = r.application_hash_verified = r.is_valid = true;
    r.has_tcb_status = true;
    r.tcb_status = MERO_TCB_UP_TO_DATE;
    r.root_crl_checked = true;
    r.sept_ve_disable = true;
    r.td_attributes[3] = 0x10; /* SEPT_VE_DISABLE (bit 28) */
    memset(r.mrtd, 0xaa, 48);
    for (int i = 0; i < 4; i++) {
        memset(r.rtmr[i], 0xb0 + i, 48);
    }
    return r;
}

/* 48 bytes of `pair` as 96 hex characters. */
static const char *rep(const char *pair)
{
    static char buf[4][97];
    static int k;
    k = (k + 1) % 4;
    for (int i = 0; i < 48; i++) {
        buf[k][2 * i] = pair[0];
        buf[k][2 * i + 1] = pair[1];
    }
    buf[k][96] = 0;
    return buf[k];
}

static struct mero_verifier_policy pol(void)
{
    struct mero_verifier_policy p;
    struct mero_err e;
    char rtmr1[120], rtmr2[120];
    snprintf(rtmr1, sizeof(rtmr1), "0x%s", rep("b1"));
    snprintf(rtmr2, sizeof(rtmr2), "  %s \n", rep("B2"));
    mero_policy_init(&p);
    if (mero_policy_add_measurement(&p, MERO_REG_MRTD, H('a'), &e) < 0 ||
        mero_policy_add_measurement(&p, MERO_REG_RTMR1, rtmr1, &e) < 0 ||
        mero_policy_add_measurement(&p, MERO_REG_RTMR2, rtmr2, &e) < 0 ||
        mero_policy_add_measurement(&p, MERO_REG_RTMR3, rep("b3"), &e) < 0) {
        p.n[MERO_REG_MRTD] = 0;
    }
    return p;
}

static enum mero_policy_rejection why_of(const struct mero_verifier_policy *p,
                                         const struct mero_dcap_result *r)
{
    enum mero_policy_rejection w = MERO_POLICY_OK;
    struct mero_err e;
    int rc = mero_policy_check(p, r, &w, &e);
    return rc == 0 ? MERO_POLICY_OK : w;
}

TEST(happy_path)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    struct mero_err e;
    CHECK_OK(mero_policy_validate(&p, &e));
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
}

TEST(secure_defaults)
{
    struct mero_verifier_policy p;
    mero_policy_init(&p);
    CHECK(p.require_app_hash && !p.accept_mock && !p.allow_service_td && !p.allow_debug_td &&
          !p.allow_missing_root_crl && p.n_tcb == 0 && p.n[MERO_REG_MRTD] == 0);
    struct mero_dcap_result r = good();
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_EMPTY_MRTD_ALLOWLIST);
}

TEST(not_crypto_valid_comes_first)
{
    struct mero_verifier_policy p;
    mero_policy_init(&p); /* everything else would fail too */
    struct mero_dcap_result r = good();
    r.quote_verified = false;
    r.tcb_status = MERO_TCB_REVOKED;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_NOT_CRYPTO_VALID);
    r = good();
    r.nonce_verified = false;
    r.is_valid = false;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_NOT_CRYPTO_VALID);
}

TEST(app_hash_unbound_is_rejected_either_way)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    r.application_hash_verified = false;
    r.is_valid = false;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_APP_HASH_NOT_BOUND);
    p.require_app_hash = false;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_NOT_CRYPTO_VALID);
}

TEST(empty_tcb_list_means_uptodate_only)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    r.tcb_status = MERO_TCB_OUT_OF_DATE;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_TCB_NOT_ALLOWED);
    struct mero_err e;
    CHECK_OK(mero_policy_add_tcb_status(&p, "OutOfDate", &e));
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    r.tcb_status = MERO_TCB_UP_TO_DATE; /* a non-empty list is exact membership */
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_TCB_NOT_ALLOWED);
    struct mero_verifier_policy q = pol();
    CHECK_OK(mero_policy_add_tcb_status(&q, "uptodate", &e)); /* case-sensitive */
    CHECK_EQ(why_of(&q, &r), MERO_POLICY_TCB_NOT_ALLOWED);
}

TEST(missing_status_is_rejected)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    r.has_tcb_status = false;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_TCB_NOT_ALLOWED);
}

TEST(revoked_always_rejected)
{
    struct mero_verifier_policy p = pol();
    struct mero_err e;
    CHECK_OK(mero_policy_add_tcb_status(&p, "Revoked", &e));
    CHECK_OK(mero_policy_add_tcb_status(&p, "revoked", &e));
    p.accept_mock = true;
    struct mero_dcap_result r = good();
    r.tcb_status = MERO_TCB_REVOKED;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_TCB_REVOKED);
}

TEST(mock_needs_accept_mock)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    r.is_mock = true;
    r.has_tcb_status = true;
    r.tcb_status = MERO_TCB_MOCK;
    r.td15 = true; /* mock quotes have no TD: the TD knobs do not apply */
    memset(r.mrservicetd, 1, 48);
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_MOCK_NOT_ACCEPTED);
    p.accept_mock = true;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    /* accept_mock does not admit a real disallowed status */
    struct mero_dcap_result o = good();
    o.tcb_status = MERO_TCB_OUT_OF_DATE;
    CHECK_EQ(why_of(&p, &o), MERO_POLICY_TCB_NOT_ALLOWED);
    /* empty MRTD refused even for mock */
    struct mero_verifier_policy m;
    mero_policy_init(&m);
    m.accept_mock = true;
    CHECK_EQ(why_of(&m, &r), MERO_POLICY_EMPTY_MRTD_ALLOWLIST);
}

TEST(empty_rtmr1_3_refused_rtmr0_optional)
{
    for (int reg = MERO_REG_RTMR1; reg <= MERO_REG_RTMR3; reg++) {
        struct mero_verifier_policy p = pol();
        struct mero_err e;
        p.n[reg] = 0;
        CHECK_ERR(mero_policy_validate(&p, &e), -MERO_EPOLICY);
        CHECK(strstr(e.msg, mero_register_name(reg)) != NULL);
        struct mero_dcap_result r = good();
        CHECK_EQ(why_of(&p, &r), MERO_POLICY_EMPTY_RTMR_ALLOWLIST);
    }
    struct mero_verifier_policy p = pol();
    struct mero_err e;
    p.n[MERO_REG_MRTD] = 0;
    CHECK_ERR(mero_policy_validate(&p, &e), -MERO_EPOLICY);
    /* RTMR0 empty: unchecked; pinned: checked */
    p = pol();
    struct mero_dcap_result r = good();
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    CHECK_OK(mero_policy_add_measurement(&p, MERO_REG_RTMR0, H('c'), &e));
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_MEASUREMENT_MISMATCH);
    CHECK_OK(mero_policy_add_measurement(&p, MERO_REG_RTMR0, rep("b0"), &e));
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
}

TEST(each_register_mismatch)
{
    for (int reg = 0; reg < MERO_REG__COUNT; reg++) {
        struct mero_verifier_policy p = pol();
        struct mero_err e;
        if (reg == MERO_REG_RTMR0) {
            CHECK_OK(mero_policy_add_measurement(&p, MERO_REG_RTMR0, H('d'), &e));
        }
        struct mero_dcap_result r = good();
        if (reg == MERO_REG_MRTD) {
            r.mrtd[47] ^= 1;
        } else if (reg != MERO_REG_RTMR0) {
            r.rtmr[reg - 1][0] ^= 1;
        }
        CHECK_ERR(mero_policy_check(&p, &r, NULL, &e), -MERO_EPOLICY);
        CHECK(strstr(e.msg, mero_register_name(reg)) != NULL);
    }
}

TEST(td_knobs_refused_by_default)
{
    struct mero_verifier_policy p = pol();
    struct mero_dcap_result r = good();
    r.td15 = true;
    memset(r.mrservicetd, 0, 48);
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    r.mrservicetd[3] = 1;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_SERVICE_TD_NOT_ALLOWED);
    p.allow_service_td = true;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    r.td_debug = true;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_DEBUG_TD_NOT_ALLOWED);
    p.allow_debug_td = true;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
    r.root_crl_checked = false;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_ROOT_CRL_MISSING);
    p.allow_missing_root_crl = true;
    CHECK_EQ(why_of(&p, &r), MERO_POLICY_OK);
}

TEST(measurement_values_are_checked)
{
    struct mero_verifier_policy p;
    struct mero_err e;
    mero_policy_init(&p);
    CHECK_ERR(mero_policy_add_measurement(&p, MERO_REG_MRTD, "abcd", &e), -MERO_EINVAL);
    char bad[97];
    memcpy(bad, H('a'), 97);
    bad[10] = 'g';
    CHECK_ERR(mero_policy_add_measurement(&p, MERO_REG_MRTD, bad, &e), -MERO_EINVAL);
    CHECK_ERR(mero_policy_add_measurement(&p, MERO_REG__COUNT, H('a'), &e), -MERO_EINVAL);
    CHECK_ERR(mero_policy_add_tcb_status(&p, "", &e), -MERO_EINVAL);
    for (int i = 0; i < MERO_POLICY_MAX_VALUES; i++) {
        CHECK_OK(mero_policy_add_measurement(&p, MERO_REG_MRTD, H('e'), &e));
    }
    CHECK_ERR(mero_policy_add_measurement(&p, MERO_REG_MRTD, H('e'), &e), -MERO_EINVAL);
}

MERO_TEST_MAIN(T(happy_path), T(secure_defaults), T(not_crypto_valid_comes_first),
               T(app_hash_unbound_is_rejected_either_way), T(empty_tcb_list_means_uptodate_only),
               T(missing_status_is_rejected), T(revoked_always_rejected), T(mock_needs_accept_mock),
               T(empty_rtmr1_3_refused_rtmr0_optional), T(each_register_mismatch),
               T(td_knobs_refused_by_default), T(measurement_values_are_checked))
