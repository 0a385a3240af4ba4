/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_lifetime.c - evidence lifetime (issue 16; spec "Idempotency and refresh",
 * tee::evidence_retry): evidence older than MERO_GOV_EVIDENCE_MAX_AGE_SECS no longer counts
 * for vouching - a TEE admitter whose own evidence lapsed is refused (with its reason) and
 * publishes nothing, the second before the limit it still admits - and a refresh published by
 * another admitter (due from MERO_GOV_EVIDENCE_REFRESH_SECS) restores it. Times are the
 * requests' `now` and `attested_at`, never the wall clock.
 */
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner;
    struct govt_tee tee; /* admitted at attested_at 1000 (the fixture's time) */
};

static int world_open(struct world *w)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    struct mero_err e = {0};
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
    if (rc == 0 && govt_sync(&w->owner, &w->tee.node, w->owner.ns, &e) <= 0) {
        rc = -1;
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

/* The admitted TEE (w->tee) vouches for a new TEE at `now`. */
static int tee_admits_another(struct world *w, uint64_t now, int *outcome,
                              struct mero_gov_oplist *l, struct mero_err *e)
{
    struct govt_tee other;
    struct mero_admit_request req;
    int rc = govt_tee_open(&other, w->owner.ns);
    if (rc == 0) {
        govt_tee_request(&other, w->owner.ns, w->owner.ns, w->owner.ns, &req);
        req.now = now;
        req.attested_at = now;
        rc = mero_gov_admit_tee_node(w->tee.node.s, w->owner.ns, &req, outcome, l, e);
    }
    govt_close(&other.node);
    return rc;
}

TEST(due_and_lapsed_boundaries)
{
    CHECK(!mero_gov_evidence_due(1000, 1000 + MERO_GOV_EVIDENCE_REFRESH_SECS - 1));
    CHECK(mero_gov_evidence_due(1000, 1000 + MERO_GOV_EVIDENCE_REFRESH_SECS));
    CHECK(!mero_gov_evidence_lapsed(1000, 1000 + MERO_GOV_EVIDENCE_MAX_AGE_SECS - 1));
    CHECK(mero_gov_evidence_lapsed(1000, 1000 + MERO_GOV_EVIDENCE_MAX_AGE_SECS));
    CHECK(!mero_gov_evidence_lapsed(1000, 10)); /* a clock behind the evidence: fresh */
    CHECK(MERO_GOV_EVIDENCE_REFRESH_SECS < MERO_GOV_EVIDENCE_MAX_AGE_SECS);
}

TEST(vouch_standing_follows_the_evidence_age)
{
    struct world w;
    CHECK_OK(world_open(&w));
    const uint64_t lapse = 1000 + MERO_GOV_EVIDENCE_MAX_AGE_SECS;
    int st;
    bool found;
    uint64_t at = 0;
    CHECK_OK(mero_gov_evidence_at(w.owner.s, w.owner.ns, w.tee.node.pk, &found, &at));
    CHECK(found);
    CHECK_EQ(at, 1000);
    CHECK_OK(mero_gov_vouch_standing(w.owner.s, w.owner.ns, w.tee.node.pk, lapse - 1, &st));
    CHECK_EQ(st, MERO_VOUCH_YES);
    CHECK_OK(mero_gov_vouch_standing(w.owner.s, w.owner.ns, w.tee.node.pk, lapse, &st));
    CHECK_EQ(st, MERO_VOUCH_LAPSED);
    /* an admin vouches whatever the time; a stranger never */
    CHECK_OK(mero_gov_vouch_standing(w.owner.s, w.owner.ns, w.owner.pk, lapse * 4, &st));
    CHECK_EQ(st, MERO_VOUCH_YES);
    uint8_t stranger[32], sk[64];
    mero_ed25519_keypair(stranger, sk);
    CHECK_OK(mero_gov_vouch_standing(w.owner.s, w.owner.ns, stranger, 1000, &st));
    CHECK_EQ(st, MERO_VOUCH_NO);
    world_close(&w);
}

TEST(lapsed_tee_refused_as_voucher_until_refreshed)
{
    struct world w;
    CHECK_OK(world_open(&w));
    const uint64_t lapse = 1000 + MERO_GOV_EVIDENCE_MAX_AGE_SECS;
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    int outcome = -1;
    /* one second before the maximum age the TEE still vouches */
    CHECK_OK(tee_admits_another(&w, lapse - 1, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK(l.n >= 2);
    mero_gov_oplist_cleanup(&l);
    /* at the maximum age it is refused with its reason, and publishes nothing */
    memset(&l, 0, sizeof(l));
    CHECK_ERR(tee_admits_another(&w, lapse, &outcome, &l, &e), -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, MERO_GOV_REASON_EVIDENCE_LAPSED);
    CHECK_EQ(l.n, 0);
    /* the owner refreshes its evidence from a new quote (due: older than the refresh age) */
    struct mero_admit_request req;
    govt_tee_request(&w.tee, w.owner.ns, w.owner.ns, w.owner.ns, &req);
    req.now = lapse;
    req.attested_at = lapse;
    CHECK_OK(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ALREADY_MEMBER);
    CHECK_EQ(l.n, 1); /* TeeAuthorityEvidence only */
    mero_gov_oplist_cleanup(&l);
    CHECK(govt_sync(&w.owner, &w.tee.node, w.owner.ns, &e) > 0);
    bool found;
    uint64_t at = 0;
    CHECK_OK(mero_gov_evidence_at(w.tee.node.s, w.owner.ns, w.tee.node.pk, &found, &at));
    CHECK(found);
    CHECK_EQ(at, lapse);
    /* and vouches again */
    memset(&l, 0, sizeof(l));
    CHECK_OK(tee_admits_another(&w, lapse, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    mero_gov_oplist_cleanup(&l);
    world_close(&w);
}

TEST(fresh_evidence_is_not_republished)
{
    struct world w;
    CHECK_OK(world_open(&w));
    struct mero_admit_request req;
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    int outcome = -1;
    govt_tee_request(&w.tee, w.owner.ns, w.owner.ns, w.owner.ns, &req);
    req.now = 1000 + MERO_GOV_EVIDENCE_REFRESH_SECS - 1;
    CHECK_OK(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ALREADY_MEMBER);
    CHECK_EQ(l.n, 0);
    world_close(&w);
}

MERO_TEST_MAIN(T(due_and_lapsed_boundaries), T(vouch_standing_follows_the_evidence_age),
               T(lapsed_tee_refused_as_voucher_until_refreshed),
               T(fresh_evidence_is_not_republished))
