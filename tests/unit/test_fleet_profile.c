/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fleet_profile.c - issue 19's two TEE fields the ops themselves do not carry, through the
 * fleet view (mero_node_fleet) over a real governance store and node.db: under a signed-release
 * policy the admitter's decision names the allowed profile the quote matched (gov's release
 * check writes it into the request), the node keeps it per admitted member and shows it as
 * matched.name on the member's row and on the attempt; a node that did not admit the member
 * cannot name it (null); a refusal, the member's removal from the namespace root and
 * self-purge forget it. The advisory IDs of the member's latest evidence (gov's offline check)
 * appear on its row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "harness.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/node.h"
#include "mero/trust_rules.h"
#include "node/attempts_internal.h"
#include "node/db_internal.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"
#include "support/gov_fixture.h"

static const struct mero_fleet_member *row(const struct mero_fleet *f, const uint8_t id[32])
{
    for (size_t i = 0; i < f->nmembers; i++) {
        if (memcmp(f->members[i].identity, id, 32) == 0) {
            return &f->members[i];
        }
    }
    return NULL;
}

TEST(a_release_admission_names_its_profile_and_the_evidence_its_advisories)
{
    struct govt_node owner;
    struct govt_tee tee;
    struct mero_err e = {0};
    CHECK_OK(govt_open(&owner));
    CHECK_OK(govt_create_ns(&owner));
    struct mero_tee_policy p;
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    p.v2 = true;
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    CHECK_OK(mero_gov_set_policy(owner.s, owner.ns, &p, NULL, NULL, NULL, NULL));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(govt_tee_open(&tee, owner.ns));
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .quote_td_report = govt_fake_td_report,
                               .evidence_verify = govt_evidence_verify,
                               .release_check = govt_release_ok};
    mero_store_set_hooks(owner.s, &h);
    govt_evidence.advisories = "INTEL-SA-00837,INTEL-SA-00960";

    /* a "real" quote bound to the TEE's credential, naming release 2.3.87 */
    struct mero_admit_request req;
    govt_tee_request(&tee, owner.ns, owner.ns, owner.ns, &req);
    memset(tee.quote, 0xab, sizeof(tee.quote));
    mero_random(tee.quote, 32);
    mero_admission_binding(tee.quote + 32, owner.ns, owner.ns, tee.node.pk, tee.cred.cert.account,
                           tee.cred.cert.kem_pk, tee.cred.cert.device);
    req.quote = tee.quote;
    req.quote_len = GOVT_FAKE_QUOTE_MIN;
    req.is_mock = false;
    snprintf(req.tcb_status, sizeof(req.tcb_status), "UpToDate");
    req.has_td = true;
    req.td_attributes = MERO_TD_ATTR_SEPT_VE_DISABLE;
    govt_fake_quote_facts(tee.quote, req.quote_len, &req);
    mero_sha256(req.quote_hash, req.quote, req.quote_len);
    req.collateral = (const uint8_t *)"{}";
    req.collateral_len = 2;
    char matched[MERO_GOV_PROFILE_NAME_MAX] = "stale";
    req.matched_profile = matched;

    /* a refusal names nothing */
    req.release_version = "2.3.99";
    int outcome;
    CHECK_ERR(mero_gov_admit_tee_node(owner.s, owner.ns, &req, &outcome, NULL, &e), -MERO_EREFUSED);
    CHECK_STR_EQ(matched, "");
    req.release_version = "2.3.87";
    struct mero_gov_oplist l = {0};
    CHECK_MSG(mero_gov_admit_tee_node(owner.s, owner.ns, &req, &outcome, &l, &e) == 0, "%s", e.msg);
    mero_gov_oplist_cleanup(&l);
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_STR_EQ(matched, "locked-read-only");
    /* a claim the release check passes but a later rule refuses (another TEE presenting this
     * quote: its binding is not for that credential) names nothing either */
    struct govt_tee other;
    struct mero_admit_request req2;
    CHECK_OK(govt_tee_open(&other, owner.ns));
    govt_tee_request(&other, owner.ns, owner.ns, owner.ns, &req2);
    memcpy(req2.quote_hash, req.quote_hash, sizeof(req2.quote_hash));
    req2.m = req.m;
    req2.quote = req.quote;
    req2.quote_len = req.quote_len;
    req2.is_mock = false;
    snprintf(req2.tcb_status, sizeof(req2.tcb_status), "UpToDate");
    req2.has_td = true;
    req2.td_attributes = MERO_TD_ATTR_SEPT_VE_DISABLE;
    req2.release_version = "2.3.87";
    req2.matched_profile = matched;
    CHECK(mero_gov_admit_tee_node(owner.s, owner.ns, &req2, &outcome, NULL, &e) < 0);
    CHECK_MSG(strstr(e.msg, "commit") != NULL, "%s", e.msg); /* the binding, after the gate */
    CHECK_STR_EQ(matched, "");
    govt_close(&other.node);
    snprintf(matched, sizeof(matched), "locked-read-only"); /* what the admission named */

    /* the admitter's node records its decision, as node/admission/hook.c does */
    struct mero_node *node = calloc(1, sizeof(*node));
    CHECK(node != NULL);
    node->store = owner.s;
    snprintf(node->peer_id, sizeof(node->peer_id), "12D3KooWowner");
    CHECK_OK(mero__node_db_open(&node->db, ":memory:", true, NULL));
    struct mero_fleet_decision d = {.ns = owner.ns,
                                    .identity = tee.node.pk,
                                    .peer = "12D3KooWtee",
                                    .path = MERO_FLEET_PATH_DIRECT,
                                    .admitted = true,
                                    .reason = "",
                                    .m = &req.m,
                                    .tcb_status = "UpToDate",
                                    .matched_profile = matched};
    mero__node_fleet_decided(node, &d);

    struct mero_fleet f;
    CHECK_OK(mero_node_fleet(node, owner.ns, 10, &f, &e));
    const struct mero_fleet_member *m = row(&f, tee.node.pk);
    CHECK(m != NULL && m->is_tee);
    CHECK_EQ(m->matched.kind, MERO_FLEET_MATCH_PROFILE);
    CHECK_STR_EQ(m->matched.name, "locked-read-only");
    CHECK_STR_EQ(m->advisories, "INTEL-SA-00837,INTEL-SA-00960");
    CHECK_U64_EQ(f.nattempts, 1);
    CHECK_EQ(f.attempts[0].matched.kind, MERO_FLEET_MATCH_PROFILE);
    CHECK_STR_EQ(f.attempts[0].matched.name, "locked-read-only");
    mero_fleet_cleanup(&f);

    /* a node that did not admit it knows it matched a profile, not which */
    struct sqlite3 *mine = node->db;
    CHECK_OK(mero__node_db_open(&node->db, ":memory:", true, NULL));
    CHECK_OK(mero_node_fleet(node, owner.ns, 10, &f, &e));
    m = row(&f, tee.node.pk);
    CHECK(m != NULL && m->matched.kind == MERO_FLEET_MATCH_PROFILE && m->matched.name[0] == '\0');
    CHECK_STR_EQ(m->advisories, "INTEL-SA-00837,INTEL-SA-00960"); /* every peer checks evidence */
    mero_fleet_cleanup(&f);
    mero__node_db_close(node->db);
    node->db = mine;

    /* self-purge forgets the namespace's profiles with its attempts */
    char name[MERO_GOV_PROFILE_NAME_MAX];
    CHECK_OK(mero__node_profile_get(node->db, owner.ns, tee.node.pk, name, sizeof(name)));
    CHECK_OK(mero__node_attempts_purge(node->db, owner.ns));
    CHECK_ERR(mero__node_profile_get(node->db, owner.ns, tee.node.pk, name, sizeof(name)),
              -MERO_ENOTFOUND);

    mero__node_db_close(node->db);
    free(node->seen);
    free(node);
    govt_evidence.advisories = "";
    govt_close(&owner);
    govt_close(&tee.node);
}

TEST(a_later_admission_replaces_the_profile_and_a_removal_forgets_it)
{
    struct sqlite3 *db = NULL;
    uint8_t ns[MERO_NS_ID_LEN], a[MERO_IDENTITY_LEN], b[MERO_IDENTITY_LEN];
    char name[MERO_GOV_PROFILE_NAME_MAX];
    memset(ns, 1, sizeof(ns));
    memset(a, 2, sizeof(a));
    memset(b, 3, sizeof(b));
    CHECK_OK(mero__node_db_open(&db, ":memory:", true, NULL));
    CHECK_OK(mero__node_profile_put(db, ns, a, "locked-read-only"));
    CHECK_OK(mero__node_profile_put(db, ns, a, "debug-read-only"));
    CHECK_OK(mero__node_profile_put(db, ns, b, "locked-read-only"));
    CHECK_OK(mero__node_profile_get(db, ns, a, name, sizeof(name)));
    CHECK_STR_EQ(name, "debug-read-only");
    CHECK_OK(mero__node_profile_get(db, ns, b, name, sizeof(name)));
    CHECK_STR_EQ(name, "locked-read-only");
    uint8_t other[MERO_NS_ID_LEN];
    memset(other, 9, sizeof(other));
    CHECK_ERR(mero__node_profile_get(db, other, a, name, sizeof(name)), -MERO_ENOTFOUND);
    /* a member removed from the namespace root is forgotten; a subgroup removal keeps it */
    struct mero_node node;
    memset(&node, 0, sizeof(node));
    node.db = db;
    uint8_t sub[MERO_GROUP_ID_LEN];
    memset(sub, 5, sizeof(sub));
    struct mero_gov_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = MERO_EV_TEE_MEMBER_REMOVED;
    ev.ns = ns;
    ev.group = sub;
    ev.member = a;
    mero__node_fleet_on_event(&node, &ev);
    CHECK_OK(mero__node_profile_get(db, ns, a, name, sizeof(name)));
    ev.group = ns;
    mero__node_fleet_on_event(&node, &ev);
    CHECK_ERR(mero__node_profile_get(db, ns, a, name, sizeof(name)), -MERO_ENOTFOUND);
    ev.kind = MERO_EV_MEMBER_REMOVED; /* MemberRemoved / MemberLeft */
    ev.member = b;
    mero__node_fleet_on_event(&node, &ev);
    CHECK_ERR(mero__node_profile_get(db, ns, b, name, sizeof(name)), -MERO_ENOTFOUND);
    mero__node_db_close(db);
}

MERO_TEST_MAIN(T(a_release_admission_names_its_profile_and_the_evidence_its_advisories),
               T(a_later_admission_replaces_the_profile_and_a_removal_forgets_it))
