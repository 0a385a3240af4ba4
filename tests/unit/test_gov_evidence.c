/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_evidence.c - TeeAuthorityEvidence at apply (spec "Signed-release policies"): the
 * quote verifies offline against the collateral it carries (the default verifier runs DCAP on
 * a genuine quote from ../shared/testdata), commits to its credential, and its TCB status and
 * (measurement policy) measurements pass; a mock needs accept_mock; the signer must vouch.
 * Issue 19: the verdict's advisory IDs are kept with the evidence (and survive a rebuild), as
 * one comma-separated list that leaves off whole what is not an ID or does not fit.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "harness.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "support/dcap_cases.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner;
    struct govt_tee tee;
};

static int world_open(struct world *w, bool accept_mock)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome;
    int rc = govt_open(&w->owner);
    if (rc == 0) {
        rc = govt_create_ns(&w->owner);
    }
    if (rc == 0) {
        rc = govt_policy(&p, MERO_TEE_MODE_REPLICA, true);
        if (rc == 0) {
            rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, NULL, NULL, NULL, NULL);
        }
        mero_tee_policy_cleanup(&p);
    }
    if (rc == 0) {
        rc = govt_tee_open(&w->tee, w->owner.ns);
    }
    if (rc == 0) {
        govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &req);
        rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &req, &outcome, NULL, NULL);
    }
    if (rc == 0 && !accept_mock) {
        rc = govt_policy(&p, MERO_TEE_MODE_REPLICA, false);
        if (rc == 0) {
            rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, NULL, NULL, NULL, NULL);
        }
        mero_tee_policy_cleanup(&p);
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

/* Sign an evidence op as `signer` (a store holding an identity in ns) and apply it there. */
static int publish_evidence(struct mero_store *signer, const uint8_t ns[32], const uint8_t key[32],
                            const struct mero_credential *cred, const uint8_t *q, size_t qlen,
                            const char *coll, size_t clen, uint64_t at, struct mero_err *e)
{
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, ns, 32);
    memcpy(op.group_id, ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    memcpy(op.evidence.attested_key, key, 32);
    op.evidence.account = *cred;
    op.evidence.quote = malloc(qlen);
    memcpy(op.evidence.quote, q, qlen);
    op.evidence.quote_len = qlen;
    if (coll != NULL) {
        op.evidence.has_collateral = true;
        op.evidence.collateral = malloc(clen);
        memcpy(op.evidence.collateral, coll, clen);
        op.evidence.collateral_len = clen;
    }
    op.evidence.attested_at = at;
    uint8_t(*heads)[32] = NULL;
    size_t nh = 0;
    uint8_t sk[64];
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    int rc = mero_gov_heads(signer, ns, &heads, &nh);
    if (rc == 0) {
        rc = mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh);
    }
    free(heads);
    mero_random(&op.nonce, sizeof(op.nonce));
    if (rc == 0) {
        rc = mero_gov_identity_secret(signer, ns, sk);
    }
    if (rc == 0) {
        rc = mero_op_sign(&op, sk);
    }
    if (rc == 0) {
        rc = mero_op_encode(&op, &b);
    }
    if (rc == 0) {
        rc = mero_gov_apply(signer, b.data, b.len, NULL, NULL, NULL, e);
    }
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    return rc;
}

static void mock_quote(struct world *w, uint8_t q[MERO_MOCK_QUOTE_LEN])
{
    uint8_t rd[64];
    mero_random(rd, 32);
    mero_admission_binding(rd + 32, w->owner.ns, w->owner.ns, w->tee.node.pk,
                           w->tee.cred.cert.account, w->tee.cred.cert.kem_pk,
                           w->tee.cred.cert.device);
    mero_mock_quote_create(q, rd);
}

TEST(mock_evidence_needs_accept_mock)
{
    struct world w;
    uint8_t q[MERO_MOCK_QUOTE_LEN];
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, true));
    mock_quote(&w, q);
    CHECK_OK(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q), NULL,
                              0, 5000, &e));
    CHECK(govt_count(&w.owner, MERO_EV_EVIDENCE_RECORDED, w.tee.node.pk) >= 1);
    world_close(&w);
    CHECK_OK(world_open(&w, false));
    mock_quote(&w, q);
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q),
                               NULL, 0, 5000, &e),
              -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "mock attestation rejected by group policy");
    world_close(&w);
}

TEST(evidence_binds_its_credential)
{
    struct world w;
    uint8_t q[MERO_MOCK_QUOTE_LEN];
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, true));
    mock_quote(&w, q);
    /* a credential of another key: not certified */
    struct govt_tee other;
    CHECK_OK(govt_tee_open(&other, w.owner.ns));
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &other.cred, q, sizeof(q),
                               NULL, 0, 5000, &e),
              -MERO_EREFUSED);
    /* evidence for a key that is not a TEE member */
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, other.node.pk, &other.cred, q, sizeof(q),
                               NULL, 0, 5000, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "not a TEE member") != NULL);
    /* a quote bound elsewhere */
    q[MERO_MOCK_HEADER_LEN + 33] ^= 1;
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q),
                               NULL, 0, 5000, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "commit to its credential") != NULL);
    govt_close(&other.node);
    world_close(&w);
}

TEST(real_evidence_verified_offline_against_its_collateral)
{
    struct world w;
    struct dcap_case c;
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, true));
    CHECK_OK(dcap_case_load(&c, "tdx/dcapqvl-1"));
    CHECK(c.collateral_json != NULL);
    /* a genuine quote that verifies at its time, but commits to nothing of ours */
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, c.quote,
                               c.quote_len, c.collateral_json, c.collateral_len, c.verify_time, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "does not verify") != NULL);
    CHECK(strstr(e.msg, "commit") != NULL); /* DCAP passed; the binding did not */
    /* without collateral, or outside its window: no verdict, refused */
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, c.quote,
                               c.quote_len, NULL, 0, c.verify_time, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "collateral") != NULL);
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, c.quote,
                               c.quote_len, c.collateral_json, c.collateral_len, 1, &e),
              -MERO_EREFUSED);
    dcap_case_free(&c);
    world_close(&w);
}

TEST(real_evidence_tcb_and_measurements_checked)
{
    struct world w;
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, true));
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .evidence_verify = govt_evidence_verify};
    mero_store_set_hooks(w.owner.s, &h);
    uint8_t q[128];
    mero_random(q, 32);
    mero_admission_binding(q + 32, w.owner.ns, w.owner.ns, w.tee.node.pk, w.tee.cred.cert.account,
                           w.tee.cred.cert.kem_pk, w.tee.cred.cert.device);
    memset(q + 64, 0x5a, 64);
    snprintf(govt_evidence.tcb, sizeof(govt_evidence.tcb), "OutOfDate");
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q),
                               "{}", 2, 5000, &e),
              -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "TCB status not in policy allowlist");
    snprintf(govt_evidence.tcb, sizeof(govt_evidence.tcb), "UpToDate");
    govt_evidence.mrtd_byte = 1;
    CHECK_ERR(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q),
                               "{}", 2, 5000, &e),
              -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "MRTD not in policy allowlist");
    govt_evidence.mrtd_byte = 0;
    CHECK_OK(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q), "{}",
                              2, 5000, &e));
    bool used;
    uint8_t qh[32];
    mero_sha256(qh, q, sizeof(q));
    CHECK_OK(mero_gov_is_quote_hash_used(w.owner.s, w.owner.ns, qh, &used));
    CHECK(used);
    world_close(&w);
}

TEST(evidence_signer_must_vouch)
{
    struct world w;
    uint8_t q[MERO_MOCK_QUOTE_LEN];
    struct mero_err e = {0};
    CHECK_OK(world_open(&w, true));
    struct govt_node m;
    CHECK_OK(govt_open(&m));
    uint8_t mpk[32];
    CHECK_OK(mero_gov_identity(m.s, w.owner.ns, true, mpk, NULL));
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, mpk, MERO_ROLE_MEMBER, NULL, &e));
    CHECK(govt_sync(&w.owner, &m, w.owner.ns, &e) > 0);
    mock_quote(&w, q);
    CHECK_ERR(publish_evidence(m.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q), NULL, 0,
                               5000, &e),
              -MERO_ENOTVOUCHER);
    /* the TEE itself (a TEE member) may publish evidence */
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    CHECK_OK(publish_evidence(w.tee.node.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q),
                              NULL, 0, 5000, &e));
    govt_close(&m);
    world_close(&w);
}

TEST(evidence_keeps_its_advisories)
{
    struct world w;
    struct mero_err e = {0};
    bool found = true;
    char adv[MERO_GOV_ADVISORIES_MAX];
    CHECK_OK(world_open(&w, true));
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .evidence_verify = govt_evidence_verify};
    mero_store_set_hooks(w.owner.s, &h);
    /* its admission's mock evidence carries no advisories */
    CHECK_OK(mero_gov_evidence_advisories(w.owner.s, w.owner.ns, w.tee.node.pk, &found, adv));
    CHECK(adv[0] == '\0');
    CHECK_OK(mero_gov_evidence_advisories(w.owner.s, w.owner.ns, w.owner.pk, &found, adv));
    CHECK(!found && adv[0] == '\0'); /* no evidence at all */
    uint8_t q[128];
    mero_random(q, 32);
    mero_admission_binding(q + 32, w.owner.ns, w.owner.ns, w.tee.node.pk, w.tee.cred.cert.account,
                           w.tee.cred.cert.kem_pk, w.tee.cred.cert.device);
    memset(q + 64, 0x5b, 64);
    snprintf(govt_evidence.tcb, sizeof(govt_evidence.tcb), "UpToDate");
    govt_evidence.mrtd_byte = 0;
    govt_evidence.advisories = "INTEL-SA-00837,INTEL-SA-00960";
    CHECK_OK(publish_evidence(w.owner.s, w.owner.ns, w.tee.node.pk, &w.tee.cred, q, sizeof(q), "{}",
                              2, 5000, &e));
    CHECK_OK(mero_gov_evidence_advisories(w.owner.s, w.owner.ns, w.tee.node.pk, &found, adv));
    CHECK(found);
    CHECK_STR_EQ(adv, "INTEL-SA-00837,INTEL-SA-00960");
    /* derived: a rebuild verifies the evidence again and finds the same */
    govt_evidence.advisories = "INTEL-SA-01010";
    CHECK_OK(mero_gov_rebuild(w.owner.s, &e));
    CHECK_OK(mero_gov_evidence_advisories(w.owner.s, w.owner.ns, w.tee.node.pk, &found, adv));
    CHECK_STR_EQ(adv, "INTEL-SA-01010");
    govt_evidence.advisories = "";
    world_close(&w);
}

TEST(advisory_ids_join_whole_ids_once)
{
    static char ids[70][MERO_DCAP_ADVISORY_LEN];
    char out[MERO_GOV_ADVISORIES_MAX];
    snprintf(ids[0], sizeof(ids[0]), "INTEL-SA-00837");
    snprintf(ids[1], sizeof(ids[1]), "INTEL-SA-00837"); /* once */
    snprintf(ids[2], sizeof(ids[2]), "bad,id");         /* a comma would split it */
    snprintf(ids[3], sizeof(ids[3]), "x y");            /* not an ID */
    ids[4][0] = '\0';                                   /* empty */
    snprintf(ids[5], sizeof(ids[5]), "INTEL-SA-00960");
    mero__gov_advisories_join(out, (const char(*)[MERO_DCAP_ADVISORY_LEN])ids, 6);
    CHECK_STR_EQ(out, "INTEL-SA-00837,INTEL-SA-00960");
    CHECK(mero__gov_advisories_has(out, "INTEL-SA-00960", 14));
    CHECK(!mero__gov_advisories_has(out, "INTEL-SA-0096", 13));
    mero__gov_advisories_join(out, (const char(*)[MERO_DCAP_ADVISORY_LEN])ids, 0);
    CHECK_STR_EQ(out, "");
    /* 70 IDs of 31 characters do not fit in 1024 bytes: whole IDs only, never cut */
    for (int i = 0; i < 70; i++) {
        snprintf(ids[i], sizeof(ids[i]), "INTEL-SA-%022d", i);
    }
    mero__gov_advisories_join(out, (const char(*)[MERO_DCAP_ADVISORY_LEN])ids, 70);
    size_t len = strlen(out), commas = 0;
    for (size_t i = 0; i < len; i++) {
        commas += out[i] == ',';
    }
    CHECK(len < MERO_GOV_ADVISORIES_MAX);
    CHECK_U64_EQ(len, (commas + 1) * 31 + commas); /* each kept ID whole */
    CHECK_U64_EQ(commas + 1, MERO_GOV_ADVISORIES_MAX / 32);
}

MERO_TEST_MAIN(T(mock_evidence_needs_accept_mock), T(evidence_binds_its_credential),
               T(real_evidence_verified_offline_against_its_collateral),
               T(real_evidence_tcb_and_measurements_checked), T(evidence_signer_must_vouch),
               T(evidence_keeps_its_advisories), T(advisory_ids_join_whole_ids_once))
