/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_policy.c - the admission policy (spec "The admission policy", "Replica or relay",
 * "Signed-release policies"): set only on the namespace root by a root admin, the fail-closed
 * set-time rule for both forms, last policy op of any form wins, v1 forms read as replica,
 * subgroup reads resolve to the root, spent-quote lookups.
 */
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

TEST(policy_validate_measurement_form)
{
    struct mero_tee_policy p;
    struct mero_err e = {0};
    char m[97];
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, false));
    CHECK_OK(mero_tee_policy_validate(&p, &e));
    /* RTMR0 optional but must be a measurement when given */
    CHECK_OK(mero_strlist_push(&p.rtmr[0], "zz"));
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "allowed_rtmr0") != NULL);
    mero_strlist_cleanup(&p.rtmr[0]);
    govt_meas(m, 3);
    CHECK_OK(mero_strlist_push(&p.rtmr[0], m));
    CHECK_OK(mero_tee_policy_validate(&p, &e));
    for (int i = 1; i < 4; i++) {
        struct mero_strlist saved = p.rtmr[i];
        memset(&p.rtmr[i], 0, sizeof(p.rtmr[i]));
        CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
        CHECK(strstr(e.msg, "empty allowed_rtmr") != NULL);
        p.rtmr[i] = saved;
    }
    struct mero_strlist saved = p.mrtd;
    memset(&p.mrtd, 0, sizeof(p.mrtd));
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "empty allowed_mrtd") != NULL);
    p.mrtd = saved;
    p.mode = 7;
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    p.mode = MERO_TEE_MODE_RELAY;
    p.v2 = false;
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    mero_tee_policy_cleanup(&p);
}

TEST(policy_validate_release_form)
{
    struct mero_tee_policy p;
    struct mero_err e = {0};
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    p.v2 = true;
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "allowed_profiles") != NULL);
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    CHECK_OK(mero_tee_policy_validate(&p, &e));
    p.min_release = strdup("2.x");
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    free(p.min_release);
    p.min_release = strdup("2.3.87");
    CHECK_OK(mero_tee_policy_validate(&p, &e));
    char m[97];
    govt_meas(m, 0);
    CHECK_OK(mero_strlist_push(&p.mrtd, m));
    CHECK_ERR(mero_tee_policy_validate(&p, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "no measurement lists") != NULL);
    mero_tee_policy_cleanup(&p);
}

TEST(apply_tee_policy_op_on_subgroup_rejected)
{
    struct govt_node o;
    CHECK_OK(govt_open(&o));
    CHECK_OK(govt_create_ns(&o));
    uint8_t sub[32];
    struct mero_err e = {0};
    CHECK_OK(mero_gov_create_subgroup(o.s, o.ns, o.ns, MERO_GROUP_OPEN, sub, NULL, &e));
    struct mero_tee_policy p;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, false));
    CHECK_ERR(mero_gov_set_policy(o.s, sub, &p, NULL, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "namespace root, not a subgroup") != NULL);
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    govt_close(&o);
}

TEST(policy_only_by_a_root_admin)
{
    struct govt_node o, m;
    CHECK_OK(govt_open(&o));
    CHECK_OK(govt_create_ns(&o));
    CHECK_OK(govt_open(&m));
    uint8_t mpk[32];
    struct mero_err e = {0};
    CHECK_OK(mero_gov_identity(m.s, o.ns, true, mpk, NULL));
    CHECK_OK(mero_gov_add_member(o.s, o.ns, o.ns, mpk, MERO_ROLE_MEMBER, NULL, &e));
    CHECK(govt_sync(&o, &m, o.ns, &e) > 0);
    struct mero_tee_policy p;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, false));
    CHECK_ERR(mero_gov_set_policy(m.s, o.ns, &p, NULL, NULL, NULL, &e), -MERO_ENOTADMIN);
    CHECK(strstr(e.msg, "namespace-root admin") != NULL);
    /* an admin of a subgroup only is not a root admin either */
    uint8_t sub[32];
    CHECK_OK(mero_gov_create_subgroup(o.s, o.ns, o.ns, MERO_GROUP_RESTRICTED, sub, NULL, &e));
    CHECK_OK(mero_gov_add_member(o.s, o.ns, sub, mpk, MERO_ROLE_ADMIN, NULL, &e));
    CHECK(govt_sync(&o, &m, o.ns, &e) > 0);
    CHECK_ERR(mero_gov_set_policy(m.s, o.ns, &p, NULL, NULL, NULL, &e), -MERO_ENOTADMIN);
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    govt_close(&o);
    govt_close(&m);
}

TEST(tee_policy_and_quote_hash_scan_latest_and_match)
{
    struct govt_node o;
    CHECK_OK(govt_open(&o));
    CHECK_OK(govt_create_ns(&o));
    struct mero_err e = {0};
    struct mero_tee_policy p, got;
    bool found;
    CHECK_OK(mero_gov_read_policy(o.s, o.ns, &got, &found, &e));
    CHECK(!found);
    /* v1 measurement form reads as replica */
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, false));
    p.v2 = false;
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(mero_gov_read_policy(o.s, o.ns, &got, &found, &e));
    CHECK(found);
    CHECK(!got.v2);
    CHECK_EQ(got.mode, MERO_TEE_MODE_REPLICA);
    CHECK_EQ(got.form, MERO_POLICY_MEASUREMENT);
    mero_tee_policy_cleanup(&got);
    /* then a release form supersedes it */
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    p.v2 = true;
    p.mode = MERO_TEE_MODE_RELAY;
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(mero_gov_read_policy(o.s, o.ns, &got, &found, &e));
    CHECK_EQ(got.form, MERO_POLICY_RELEASE);
    CHECK_EQ(got.mode, MERO_TEE_MODE_RELAY);
    CHECK_STR_EQ(got.profiles.v[0], "locked-read-only");
    mero_tee_policy_cleanup(&got);
    /* and a v1 release form reads as replica again */
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    CHECK_OK(mero_strlist_push(&p.profiles, "debug"));
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(mero_gov_read_policy(o.s, o.ns, &got, &found, &e));
    CHECK_EQ(got.mode, MERO_TEE_MODE_REPLICA);
    CHECK_STR_EQ(got.profiles.v[0], "debug");
    mero_tee_policy_cleanup(&got);
    /* quote hashes: unknown until used */
    uint8_t qh[32];
    mero_random(qh, 32);
    bool used;
    CHECK_OK(mero_gov_is_quote_hash_used(o.s, o.ns, qh, &used));
    CHECK(!used);
    govt_close(&o);
}

TEST(tee_policy_lookup_from_subgroup_returns_root)
{
    struct govt_node o;
    CHECK_OK(govt_open(&o));
    CHECK_OK(govt_create_ns(&o));
    struct mero_err e = {0};
    uint8_t sub[32], sub2[32];
    CHECK_OK(mero_gov_create_subgroup(o.s, o.ns, o.ns, MERO_GROUP_RESTRICTED, sub, NULL, &e));
    CHECK_OK(mero_gov_create_subgroup(o.s, o.ns, sub, MERO_GROUP_OPEN, sub2, NULL, &e));
    struct mero_tee_policy p, got;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_RELAY, true));
    CHECK_OK(mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    bool found;
    CHECK_OK(mero_gov_read_policy(o.s, sub2, &got, &found, &e));
    CHECK(found);
    CHECK_EQ(got.mode, MERO_TEE_MODE_RELAY);
    CHECK(got.accept_mock);
    mero_tee_policy_cleanup(&got);
    govt_close(&o);
}

TEST(invalid_policy_op_refused_at_apply)
{
    /* a peer refuses a policy op that skips the set-time rule */
    struct govt_node o;
    CHECK_OK(govt_open(&o));
    CHECK_OK(govt_create_ns(&o));
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, o.ns, 32);
    memcpy(op.group_id, o.ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_POLICY_SET_V2;
    op.policy.form = MERO_POLICY_MEASUREMENT;
    op.policy.v2 = true;
    op.policy.accept_mock = true; /* empty lists: would admit every quote */
    uint8_t(*heads)[32] = NULL;
    size_t nh;
    CHECK_OK(mero_gov_heads(o.s, o.ns, &heads, &nh));
    CHECK_OK(mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh));
    free(heads);
    op.nonce = 9;
    uint8_t sk[64];
    CHECK_OK(mero_gov_identity_secret(o.s, o.ns, sk));
    CHECK_OK(mero_op_sign(&op, sk));
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_encode(&op, &b));
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_apply(o.s, b.data, b.len, NULL, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "empty allowed_mrtd") != NULL);
    bool found;
    struct mero_tee_policy got;
    CHECK_OK(mero_gov_read_policy(o.s, o.ns, &got, &found, &e));
    CHECK(!found);
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    govt_close(&o);
}

MERO_TEST_MAIN(T(policy_validate_measurement_form), T(policy_validate_release_form),
               T(apply_tee_policy_op_on_subgroup_rejected), T(policy_only_by_a_root_admin),
               T(tee_policy_and_quote_hash_scan_latest_and_match),
               T(tee_policy_lookup_from_subgroup_returns_root),
               T(invalid_policy_op_refused_at_apply))
