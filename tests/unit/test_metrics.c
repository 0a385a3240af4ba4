/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_metrics.c - the admission side of GET /metrics (src/node/admission/metrics.c): which
 * result and rule label an outcome counts under (every admission rule's own refusal text, a
 * detailed one, not-a-voucher, release codes, refusals before the rules, no-verdict codes),
 * that equal outcomes share one row and the table never overflows, and where a DCAP
 * verification's duration lands in the histogram.
 */
#include <stdio.h>
#include <string.h>

#include "mero/gov.h"
#include "mero/trust_rules.h"
#include "node/admission/metrics_internal.h"
#include "harness.h"

static void rule_of(int rc, const char *reason, char out[MERO_METRICS_RULE_MAX])
{
    mero__adm_metrics_rule(rc, reason, out);
}

TEST(admitted_has_no_rule)
{
    char r[MERO_METRICS_RULE_MAX];
    rule_of(0, "", r);
    CHECK_STR_EQ(r, "");
    CHECK_EQ(mero__adm_metrics_result(0), MERO_METRICS_ADMITTED);
}

TEST(every_rule_reason_names_its_rule)
{
    char r[MERO_METRICS_RULE_MAX], reason[512];
    for (int rule = 1; rule <= MERO_ADM_RULE_MEASUREMENTS_MISMATCH; rule++) {
        if (rule == MERO_TRUST__COUNT) {
            rule = MERO_ADM_RULE_NO_POLICY;
        }
        /* the fixed text as the rules set it (a %s placeholder filled in) */
        char fmt[256];
        snprintf(fmt, sizeof(fmt), "%s", mero_adm_rule_reason(rule));
        char *pct = strstr(fmt, "%s");
        if (pct != NULL) {
            *pct = '\0';
            snprintf(reason, sizeof(reason), "%sabcdef%s", fmt, pct + 2);
        } else {
            snprintf(reason, sizeof(reason), "%s", fmt);
        }
        rule_of(-MERO_EREFUSED, reason, r);
        CHECK_MSG(strcmp(r, mero_adm_rule_name(rule)) == 0, "rule %d: '%s' -> %s", rule, reason, r);
        CHECK_EQ(mero__adm_metrics_result(-MERO_EREFUSED), MERO_METRICS_REFUSED);
    }
}

TEST(a_detailed_reason_still_names_its_rule)
{
    char r[MERO_METRICS_RULE_MAX], reason[512];
    snprintf(reason, sizeof(reason), "%s: recorded Member; the policy mode names ReadOnlyTee",
             mero_adm_rule_reason(MERO_ADM_RULE_ROLE_NOT_MODE));
    rule_of(-MERO_EREFUSED, reason, r);
    CHECK_STR_EQ(r, mero_adm_rule_name(MERO_ADM_RULE_ROLE_NOT_MODE));
}

TEST(other_refusals)
{
    char r[MERO_METRICS_RULE_MAX];
    rule_of(-MERO_ENOTVOUCHER, "this node may not vouch", r);
    CHECK_STR_EQ(r, "NotAVoucher");
    rule_of(-MERO_ERELEASE_NOMATCH, "release 1.2: no profile", r);
    CHECK_STR_EQ(r, mero_adm_rule_name(MERO_ADM_RULE_RELEASE));
    /* a refusal before the rules (challenge, binding, DCAP verdict) names no rule */
    rule_of(-MERO_EREFUSED, "the quote's report data does not carry the challenge", r);
    CHECK_STR_EQ(r, "Verification");
    rule_of(-MERO_EREFUSED, NULL, r);
    CHECK_STR_EQ(r, "Verification");
}

TEST(no_verdict_codes)
{
    CHECK_EQ(mero__adm_metrics_result(-MERO_ECOLLATERAL_FETCH), MERO_METRICS_NO_VERDICT);
    CHECK_EQ(mero__adm_metrics_result(-MERO_ECOLLATERAL), MERO_METRICS_NO_VERDICT);
    CHECK_EQ(mero__adm_metrics_result(-MERO_ERELEASE_FETCH), MERO_METRICS_NO_VERDICT);
    CHECK_EQ(mero__adm_metrics_result(-MERO_EUNSUPPORTED), MERO_METRICS_NO_VERDICT);
    CHECK_EQ(mero__adm_metrics_result(-MERO_EQUOTEUSED), MERO_METRICS_REFUSED);
}

TEST(equal_outcomes_share_a_row_and_the_table_is_bounded)
{
    static struct mero_adm_metrics m;
    memset(&m, 0, sizeof(m));
    mero__adm_metrics_decision(&m, 0, "");
    mero__adm_metrics_decision(&m, 0, "");
    mero__adm_metrics_decision(&m, -MERO_EREFUSED,
                               mero_trust_rule_reason(MERO_TRUST_MRTD_MISMATCH));
    CHECK_EQ(m.nadm, 2);
    CHECK_EQ(m.adm[0].result, MERO_METRICS_ADMITTED);
    CHECK_U64_EQ(m.adm[0].n, 2);
    CHECK_EQ(m.adm[1].result, MERO_METRICS_REFUSED);
    CHECK_STR_EQ(m.adm[1].rule, mero_trust_rule_name(MERO_TRUST_MRTD_MISMATCH));
    CHECK_U64_EQ(m.adm[1].n, 1);
    /* fill the table: a new pair beyond it is dropped, known ones still count */
    m.nadm = MERO_METRICS_ADM_MAX;
    for (size_t i = 2; i < MERO_METRICS_ADM_MAX; i++) {
        snprintf(m.adm[i].rule, sizeof(m.adm[i].rule), "Filler%zu", i);
        m.adm[i].result = MERO_METRICS_REFUSED;
    }
    mero__adm_metrics_decision(&m, -MERO_ENOTVOUCHER, "");
    CHECK_EQ(m.nadm, MERO_METRICS_ADM_MAX);
    mero__adm_metrics_decision(&m, 0, "");
    CHECK_U64_EQ(m.adm[0].n, 3);
}

TEST(dcap_durations_land_in_their_bucket)
{
    static struct mero_adm_metrics m;
    memset(&m, 0, sizeof(m));
    mero__adm_metrics_dcap(&m, 0, 3000000ull);                /* 3 ms: <= 0.005 */
    mero__adm_metrics_dcap(&m, 0, 5000000ull);                /* exactly 5 ms: <= 0.005 */
    mero__adm_metrics_dcap(&m, -MERO_EREFUSED, 700000000ull); /* 0.7 s: <= 1 */
    mero__adm_metrics_dcap(&m, -MERO_ECOLLATERAL_FETCH, 30000000000ull); /* 30 s: +Inf only */
    CHECK_U64_EQ(m.dcap_verified, 2);
    CHECK_U64_EQ(m.dcap_refused, 1);
    CHECK_U64_EQ(m.dcap_no_verdict, 1);
    CHECK_U64_EQ(m.dcap_bucket[0], 2);
    size_t one_s = 0;
    while (mero_metrics_dcap_bounds[one_s] < 1.0) {
        one_s++;
    }
    CHECK_U64_EQ(m.dcap_bucket[one_s], 1);
    uint64_t in_buckets = 0;
    for (size_t i = 0; i < MERO_METRICS_DCAP_BUCKETS; i++) {
        in_buckets += m.dcap_bucket[i];
    }
    CHECK_U64_EQ(in_buckets, 3);
    CHECK_U64_EQ(m.dcap_sum_ns, 3000000ull + 5000000ull + 700000000ull + 30000000000ull);
    for (size_t i = 1; i < MERO_METRICS_DCAP_BUCKETS; i++) {
        CHECK(mero_metrics_dcap_bounds[i] > mero_metrics_dcap_bounds[i - 1]);
    }
}

MERO_TEST_MAIN(T(admitted_has_no_rule), T(every_rule_reason_names_its_rule),
               T(a_detailed_reason_still_names_its_rule), T(other_refusals), T(no_verdict_codes),
               T(equal_outcomes_share_a_row_and_the_table_is_bounded),
               T(dcap_durations_land_in_their_bucket))
