/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fleet_attempts.c - the fleet view's admission-attempt log (src/node/attempts.c) over a
 * real node.db: 1,001 inserts keep the newest 1,000 (the oldest dropped), per namespace (the
 * other namespace keeps its own); read back newest first, every field as written; a purge
 * forgets one namespace only; a refusal's reason names its admission rule; evidence states
 * at their boundaries; which policy entry measurements match.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mero/gov.h"
#include "mero/node.h"
#include "mero/trust_rules.h"
#include "node/admission/admission_internal.h"
#include "node/attempts_internal.h"
#include "node/db_internal.h"
#include "node/fleet_internal.h"
#include "harness.h"

static void attempt_at(struct mero_fleet_attempt *a, uint64_t at)
{
    memset(a, 0, sizeof(*a));
    a->at = at;
    a->has_identity = true;
    memset(a->identity, (int)(at & 0xff), sizeof(a->identity));
    snprintf(a->peer, sizeof(a->peer), "peer-%llu", (unsigned long long)at);
    a->path = MERO_FLEET_PATH_DIRECT;
    a->verdict = MERO_FLEET_REFUSED;
    snprintf(a->rule, sizeof(a->rule), "MrtdNotAllowed");
    snprintf(a->reason, sizeof(a->reason), "MRTD not in policy allowlist");
}

TEST(a_namespace_keeps_its_newest_1000_attempts)
{
    struct sqlite3 *db = NULL;
    uint8_t ns[MERO_NS_ID_LEN], other[MERO_NS_ID_LEN];
    struct mero_fleet_attempt a, *v = NULL;
    size_t n = 0;
    memset(ns, 1, sizeof(ns));
    memset(other, 2, sizeof(other));
    CHECK_OK(mero__node_db_open(&db, ":memory:", true, NULL));
    for (uint64_t i = 0; i < 3; i++) {
        attempt_at(&a, 5000 + i);
        CHECK_OK(mero__node_attempt_add(db, other, &a));
    }
    CHECK_OK(mero__node_db_exec(db, "BEGIN"));
    for (uint64_t i = 0; i < MERO_FLEET_ATTEMPTS_KEEP + 1; i++) {
        attempt_at(&a, i);
        CHECK_OK(mero__node_attempt_add(db, ns, &a));
    }
    CHECK_OK(mero__node_db_exec(db, "COMMIT"));
    CHECK_OK(mero__node_attempts_count(db, ns, &n));
    CHECK_U64_EQ(n, MERO_FLEET_ATTEMPTS_KEEP);
    CHECK_OK(mero__node_attempts_count(db, other, &n));
    CHECK_U64_EQ(n, 3);
    /* newest first; the oldest (at 0) is the one dropped */
    CHECK_OK(mero__node_attempts_list(db, ns, 2000, &v, &n));
    CHECK_U64_EQ(n, MERO_FLEET_ATTEMPTS_KEEP);
    CHECK_U64_EQ(v[0].at, MERO_FLEET_ATTEMPTS_KEEP);
    CHECK_U64_EQ(v[n - 1].at, 1);
    CHECK_STR_EQ(v[0].peer, "peer-1000");
    CHECK_STR_EQ(v[0].rule, "MrtdNotAllowed");
    CHECK_STR_EQ(v[0].reason, "MRTD not in policy allowlist");
    CHECK_EQ(v[0].path, MERO_FLEET_PATH_DIRECT);
    CHECK_EQ(v[0].verdict, MERO_FLEET_REFUSED);
    CHECK(v[0].has_identity && !v[0].has_admitter && !v[0].has_measurements);
    free(v);
    /* one more drops exactly the next oldest */
    attempt_at(&a, 7777);
    CHECK_OK(mero__node_attempt_add(db, ns, &a));
    CHECK_OK(mero__node_attempts_list(db, ns, MERO_FLEET_ATTEMPTS_KEEP, &v, &n));
    CHECK_U64_EQ(n, MERO_FLEET_ATTEMPTS_KEEP);
    CHECK_U64_EQ(v[0].at, 7777);
    CHECK_U64_EQ(v[n - 1].at, 2);
    free(v);
    /* a limit, and none asked */
    CHECK_OK(mero__node_attempts_list(db, ns, 5, &v, &n));
    CHECK_U64_EQ(n, 5);
    free(v);
    CHECK_OK(mero__node_attempts_list(db, ns, 0, &v, &n));
    CHECK(n == 0 && v == NULL);
    /* purge forgets one namespace only */
    CHECK_OK(mero__node_attempts_purge(db, ns));
    CHECK_OK(mero__node_attempts_count(db, ns, &n));
    CHECK_U64_EQ(n, 0);
    CHECK_OK(mero__node_attempts_count(db, other, &n));
    CHECK_U64_EQ(n, 3);
    CHECK_OK(mero__node_attempts_purge(db, ns)); /* idempotent */
    mero__node_db_close(db);
}

TEST(measurements_and_match_round_trip)
{
    struct sqlite3 *db = NULL;
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_fleet_attempt a, *v = NULL;
    size_t n = 0;
    memset(ns, 3, sizeof(ns));
    CHECK_OK(mero__node_db_open(&db, ":memory:", true, NULL));
    attempt_at(&a, 42);
    a.verdict = MERO_FLEET_ADMITTED;
    a.rule[0] = a.reason[0] = '\0';
    a.has_admitter = true;
    memset(a.admitter, 9, sizeof(a.admitter));
    a.has_measurements = true;
    memset(a.m.mrtd, 'a', MERO_MR_HEX_LEN);
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        memset(a.m.rtmr[i], '0' + i, MERO_MR_HEX_LEN);
    }
    a.matched.kind = MERO_FLEET_MATCH_POLICY;
    snprintf(a.matched.name, sizeof(a.matched.name), "allowedMrtd[1]");
    snprintf(a.tcb_status, sizeof(a.tcb_status), "UpToDate");
    CHECK_OK(mero__node_attempt_add(db, ns, &a));
    CHECK_OK(mero__node_attempts_list(db, ns, 10, &v, &n));
    CHECK_U64_EQ(n, 1);
    CHECK(v[0].has_admitter && v[0].admitter[0] == 9 && v[0].has_measurements);
    CHECK_STR_EQ(v[0].m.mrtd, a.m.mrtd);
    CHECK_STR_EQ(v[0].m.rtmr[3], a.m.rtmr[3]);
    CHECK_EQ(v[0].matched.kind, MERO_FLEET_MATCH_POLICY);
    CHECK_STR_EQ(v[0].matched.name, "allowedMrtd[1]");
    CHECK_STR_EQ(v[0].tcb_status, "UpToDate");
    CHECK_STR_EQ(v[0].rule, "");
    CHECK_STR_EQ(v[0].reason, "");
    free(v);
    mero__node_db_close(db);
}

TEST(a_reason_names_its_rule)
{
    CHECK_STR_EQ(mero__node_attempt_rule_of("MRTD not in policy allowlist"), "MrtdNotAllowed");
    CHECK_STR_EQ(mero__node_attempt_rule_of("no TeeAdmissionPolicy set for group"), "NoPolicy");
    CHECK_STR_EQ(mero__node_attempt_rule_of("mock attestation rejected by group policy"),
                 mero_adm_rule_name(MERO_TRUST_MOCK_NOT_ACCEPTED));
    CHECK_STR_EQ(mero__node_attempt_rule_of("was removed from group 0011223344556677 and cannot "
                                            "rejoin"),
                 "RemovedFromGroup");
    CHECK_STR_EQ(mero__node_attempt_rule_of("the quote matches no allowed release profile: release "
                                            "1.2.3 is older than the policy's minimum 1.3.0"),
                 "Release");
    CHECK_STR_EQ(mero__node_attempt_rule_of(MERO_ADM_REASON_NOT_VOUCHER), "NotAVoucher");
    /* refusals before the rules name none; a reason merely starting like one does not count */
    CHECK(mero__node_attempt_rule_of("the attestation did not verify") == NULL);
    CHECK(mero__node_attempt_rule_of("MRTD not in policy allowlists, or so") == NULL);
    CHECK(mero__node_attempt_rule_of("") == NULL);
    CHECK(mero__node_attempt_rule_of(NULL) == NULL);
}

TEST(evidence_states_at_their_boundaries)
{
    uint64_t at = 1000000;
    CHECK_EQ(mero_fleet_evidence_state(at, at), MERO_FLEET_EVIDENCE_FRESH);
    CHECK_EQ(mero_fleet_evidence_state(at, at - 5), MERO_FLEET_EVIDENCE_FRESH); /* clock skew */
    CHECK_EQ(mero_fleet_evidence_state(at, at + MERO_GOV_EVIDENCE_REFRESH_SECS - 1),
             MERO_FLEET_EVIDENCE_FRESH);
    CHECK_EQ(mero_fleet_evidence_state(at, at + MERO_GOV_EVIDENCE_REFRESH_SECS),
             MERO_FLEET_EVIDENCE_LAPSING);
    CHECK_EQ(mero_fleet_evidence_state(at, at + MERO_GOV_EVIDENCE_MAX_AGE_SECS - 1),
             MERO_FLEET_EVIDENCE_LAPSING);
    CHECK_EQ(mero_fleet_evidence_state(at, at + MERO_GOV_EVIDENCE_MAX_AGE_SECS),
             MERO_FLEET_EVIDENCE_LAPSED);
}

TEST(measurements_match_a_policy_entry_by_index)
{
    struct mero_tee_policy p;
    struct mero_measurements m;
    struct mero_fleet_match out;
    memset(&p, 0, sizeof(p));
    memset(&m, 0, sizeof(m));
    memset(m.mrtd, 'b', MERO_MR_HEX_LEN);
    char upper[MERO_MR_HEX_LEN + 1] = {0}, other[MERO_MR_HEX_LEN + 1] = {0};
    memset(upper, 'B', MERO_MR_HEX_LEN);
    memset(other, 'c', MERO_MR_HEX_LEN);
    CHECK_OK(mero_strlist_push(&p.mrtd, other));
    CHECK_OK(mero_strlist_push(&p.mrtd, upper));
    mero__node_fleet_match(&p, true, &m, "UpToDate", &out);
    CHECK_EQ(out.kind, MERO_FLEET_MATCH_POLICY);
    CHECK_STR_EQ(out.name, "allowedMrtd[1]");
    mero__node_fleet_match(&p, false, &m, "UpToDate", &out); /* no policy: nothing matched */
    CHECK_EQ(out.kind, MERO_FLEET_MATCH_NONE);
    memset(m.mrtd, 'd', MERO_MR_HEX_LEN);
    mero__node_fleet_match(&p, true, &m, "UpToDate", &out);
    CHECK_EQ(out.kind, MERO_FLEET_MATCH_NONE);
    p.form = MERO_POLICY_RELEASE; /* a profile matched; the check does not say which */
    mero__node_fleet_match(&p, true, &m, "UpToDate", &out);
    CHECK(out.kind == MERO_FLEET_MATCH_PROFILE && out.name[0] == '\0');
    mero__node_fleet_match(&p, true, &m, "Mock", &out); /* admitted by acceptMock alone */
    CHECK_EQ(out.kind, MERO_FLEET_MATCH_NONE);
    mero_tee_policy_cleanup(&p);
}

MERO_TEST_MAIN(T(a_namespace_keeps_its_newest_1000_attempts), T(measurements_and_match_round_trip),
               T(a_reason_names_its_rule), T(evidence_states_at_their_boundaries),
               T(measurements_match_a_policy_entry_by_index))
