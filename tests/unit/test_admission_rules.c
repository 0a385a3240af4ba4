/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_admission_rules.c - the admission rules judged from both sides (issue 14, "one rule
 * set"). One table holds every refusal: the reference's §6.1/§6.2/§8 refusals, the spec's, the
 * TD-attribute rules and TeeMemberRoleLocked. Each row runs through the admitter
 * (mero_gov_admit_decide) and through a peer applying the admission op an admitter that skipped
 * the rule would have published (mero_gov_apply on a synced store), and asserts the same
 * verdict and the same reason on both. Where the spec makes the sides differ on purpose the
 * row says so and asserts each side's own behaviour:
 *  - spent quote: both refuse (stricter than the spec's step 8, which leaves it to the
 *    admitter: with one canonical order every peer agrees, docs/governance.md);
 *  - signed-release form: the admitter checks the release, peers take the voucher's word;
 *  - a recorded role other than the mode's, a mock quote recorded with a real TCB status: only
 *    a forged op can carry them (the admitter records what it decided), peers refuse;
 *  - a quote over 16 KiB: peers' op decoder refuses the op before any rule.
 * every_rule_in_the_table_has_a_refusal_row keeps the table whole: it walks admission_rules.c's
 * reason table and fails for a rule without a row here.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/trust_rules.h"
#include "support/gov_fixture.h"

struct world {
    struct govt_node owner, peer;
    struct govt_tee tee;
    uint8_t sub[32];    /* an Open subgroup */
    uint8_t quote[512]; /* a "real" quote: report data in bytes 0..63 (govt_fake_rd) */
    uint8_t big[MERO_GOV_MAX_QUOTE_BYTES + 1];
    struct mero_admit_request req;
    /* forge_join: bend the recorded op after the admitter's facts are filled in (a forged op) */
    void (*edit)(struct mero_tee_join *j);
};

/* Report data of a "real" test quote: its first 64 bytes (its TD report: the fixture's fake
 * layout, govt_fake_td_report). */
enum pol { POL_NONE, POL_MOCK, POL_REAL, POL_REAL_RTMR0, POL_RELEASE };

static int set_policy(struct world *w, enum pol which)
{
    struct mero_tee_policy p;
    struct mero_gov_oplist l = {0};
    int rc = 0;
    if (which == POL_NONE) {
        return 0;
    }
    if (which == POL_RELEASE) {
        memset(&p, 0, sizeof(p));
        p.form = MERO_POLICY_RELEASE;
        p.v2 = true;
        rc = mero_strlist_push(&p.profiles, "locked-read-only");
    } else {
        rc = govt_policy(&p, MERO_TEE_MODE_REPLICA, which == POL_MOCK);
        if (rc == 0) {
            rc = mero_strlist_push(&p.tcb, "UpToDate");
        }
        if (rc == 0 && which == POL_REAL_RTMR0) {
            char m[97];
            govt_meas(m, 0);
            rc = mero_strlist_push(&p.rtmr[0], m);
        }
    }
    if (rc == 0) {
        rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, &l, NULL, NULL, NULL);
    }
    mero_tee_policy_cleanup(&p);
    mero_gov_oplist_cleanup(&l);
    return rc;
}

/* Make the request a verified real quote of a production TD. */
static void make_real(struct world *w, const uint8_t bind_ns[32], const uint8_t bind_group[32])
{
    struct mero_admit_request *r = &w->req;
    memset(w->quote, 0xab, sizeof(w->quote));
    mero_random(w->quote, 32);
    mero_admission_binding(w->quote + 32, bind_ns, bind_group, w->tee.node.pk,
                           w->tee.cred.cert.account, w->tee.cred.cert.kem_pk,
                           w->tee.cred.cert.device);
    r->quote = w->quote;
    r->quote_len = sizeof(w->quote);
    r->is_mock = false;
    snprintf(r->tcb_status, sizeof(r->tcb_status), "UpToDate");
    r->has_td = true;
    r->td_attributes = MERO_TD_ATTR_SEPT_VE_DISABLE;
    memset(r->mrservicetd, 0, 48);
    govt_fake_quote_facts(w->quote, sizeof(w->quote), r);
    mero_sha256(r->quote_hash, r->quote, r->quote_len);
}

/* After a setup bent the verified facts: the quote says what its verified body said (the
 * admitter's facts come from it), and a correct quote_hash stays correct. */
static void quote_says_req(struct world *w)
{
    struct mero_admit_request *r = &w->req;
    uint8_t h[32];
    if (r->quote != w->quote) {
        return;
    }
    mero_sha256(h, r->quote, r->quote_len);
    bool hash_ok = memcmp(h, r->quote_hash, 32) == 0;
    govt_fake_quote_facts(w->quote, sizeof(w->quote), r);
    if (hash_ok) {
        mero_sha256(r->quote_hash, r->quote, r->quote_len);
    }
}

static int open_world(struct world *w, enum pol which)
{
    memset(w, 0, sizeof(*w));
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .quote_td_report = govt_fake_td_report};
    struct mero_gov_oplist l = {0};
    int rc = govt_open(&w->owner);
    rc = rc ? rc : govt_open(&w->peer);
    rc = rc ? rc : govt_create_ns(&w->owner);
    rc = rc ? rc : set_policy(w, which);
    rc = rc ? rc
            : mero_gov_create_subgroup(w->owner.s, w->owner.ns, w->owner.ns, MERO_GROUP_OPEN,
                                       w->sub, &l, NULL);
    mero_gov_oplist_cleanup(&l);
    rc = rc ? rc : govt_tee_open(&w->tee, w->owner.ns);
    if (rc == 0) {
        mero_store_set_hooks(w->owner.s, &h);
        mero_store_set_hooks(w->peer.s, &h);
        govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &w->req);
    }
    return rc;
}

static void close_world(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->peer);
    govt_close(&w->tee.node);
}

/* Admit with the stock request (used by the setups that need an admitted TEE). */
static int admit_now(struct world *w)
{
    int outcome;
    struct mero_gov_oplist l = {0};
    int rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &w->req, &outcome, &l, NULL);
    mero_gov_oplist_cleanup(&l);
    return rc;
}

/* The join op an admitter that skipped the rules would publish for req, signed by the owner
 * (an admin, so a voucher). role < 0: the policy mode's. */
static int forge_join(struct world *w, int role, const char *tcb_override, struct mero_buf *out)
{
    const struct mero_admit_request *r = &w->req;
    struct mero_op op;
    uint8_t sk[64], (*heads)[32] = NULL;
    size_t nh = 0;
    bool root = memcmp(r->group_id, w->owner.ns, 32) == 0;
    bool mock = r->is_mock || mero_mock_is_mock(r->quote, r->quote_len);
    mero_op_init(&op);
    memcpy(op.ns, w->owner.ns, 32);
    struct mero_tee_join *j = &op.join;
    memcpy(j->group_id, r->group_id, 32);
    memcpy(j->member, r->member, 32);
    memcpy(j->quote_hash, r->quote_hash, 32);
    j->m = r->m;
    snprintf(j->tcb_status, sizeof(j->tcb_status), "%s",
             tcb_override ? tcb_override : (mock ? "Mock" : r->tcb_status));
    j->role = (uint8_t)(role >= 0 ? role : MERO_ROLE_READONLY_TEE);
    j->has_td = r->has_td && !mock;
    j->td_attributes = r->td_attributes;
    memcpy(j->mrservicetd, r->mrservicetd, 48);
    if (w->edit != NULL) {
        w->edit(j);
    }
    int rc = 0;
    if (root) {
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_MEMBER_JOINED_TEE;
        j->has_account = true;
        j->account = r->account;
        j->quote = malloc(r->quote_len > 0 ? r->quote_len : 1); /* quote_missing: none carried */
        if (j->quote == NULL) {
            rc = -MERO_ENOMEM;
        } else {
            memcpy(j->quote, r->quote, r->quote_len);
            j->quote_len = r->quote_len;
        }
    } else {
        op.scope = MERO_SCOPE_GROUP;
        op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
        memcpy(op.group_id, r->group_id, 32);
    }
    rc = rc ? rc : mero_gov_heads(w->owner.s, w->owner.ns, &heads, &nh);
    rc = rc ? rc : mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh);
    free(heads);
    op.version = MERO_GOV_SCHEMA_VERSION;
    op.nonce = 1000;
    rc = rc ? rc : mero_gov_identity_secret(w->owner.s, w->owner.ns, sk);
    rc = rc ? rc : mero_op_sign(&op, sk);
    sodium_memzero(sk, sizeof(sk));
    rc = rc ? rc : mero_op_encode(&op, out);
    mero_op_cleanup(&op);
    return rc;
}

/* ---- the setups: each bends the world or the request into one refusal ---- */

static int s_none(struct world *w)
{
    (void)w;
    return 0;
}

static int s_real(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    return 0;
}

static int s_tcb_out_of_date(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    snprintf(w->req.tcb_status, sizeof(w->req.tcb_status), "OutOfDate");
    return 0;
}

static int s_tcb_revoked(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    snprintf(w->req.tcb_status, sizeof(w->req.tcb_status), "revoked");
    return 0;
}

static int s_debug(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.td_attributes |= MERO_TD_ATTR_DEBUG;
    return 0;
}

static int s_sept_ve(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.td_attributes = 0;
    return 0;
}

static int s_service_td(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.mrservicetd[47] = 1;
    return 0;
}

/* A real quote whose TD attributes the verifier did not report (admitter step 3). */
static int s_no_td(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.has_td = false;
    return 0;
}

/* A real quote too short to carry report data or a TD report: unreadable on both sides. */
static int s_unreadable(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.quote_len = 32;
    mero_sha256(w->req.quote_hash, w->req.quote, w->req.quote_len);
    return 0;
}

static int s_mrtd(struct world *w)
{
    govt_meas(w->req.m.mrtd, 7);
    return 0;
}

static int s_rtmr0(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    govt_meas(w->req.m.rtmr[0], 7);
    return 0;
}

static int s_rtmr1(struct world *w)
{
    govt_meas(w->req.m.rtmr[1], 7);
    return 0;
}

static int s_rtmr2(struct world *w)
{
    govt_meas(w->req.m.rtmr[2], 7);
    return 0;
}

static int s_rtmr3(struct world *w)
{
    govt_meas(w->req.m.rtmr[3], 7);
    return 0;
}

static int s_quote_hash(struct world *w)
{
    w->req.quote_hash[0] ^= 1;
    return 0;
}

static int s_quote_big(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    memset(w->big, 0xcd, sizeof(w->big));
    memcpy(w->big, w->quote, 64);
    w->req.quote = w->big;
    w->req.quote_len = sizeof(w->big);
    mero_sha256(w->req.quote_hash, w->big, sizeof(w->big));
    return 0;
}

/* A join that carries no quote: nothing for a peer to check the binding against (spec: an
 * admission MUST carry the quote). quote_hash is SHA-256 of nothing, so the hash rule holds. */
static int s_quote_missing(struct world *w)
{
    w->req.quote_len = 0;
    mero_sha256(w->req.quote_hash, w->req.quote, 0);
    return 0;
}

/* A real quote of exactly MERO_GOV_MAX_QUOTE_BYTES: the longest one an admission may carry. */
static int s_quote_at_max(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    memset(w->big, 0xcd, sizeof(w->big));
    memcpy(w->big, w->quote, sizeof(w->quote));
    w->req.quote = w->big;
    w->req.quote_len = MERO_GOV_MAX_QUOTE_BYTES;
    mero_sha256(w->req.quote_hash, w->big, MERO_GOV_MAX_QUOTE_BYTES);
    return 0;
}

static int s_credential(struct world *w)
{
    struct govt_tee other;
    int rc = govt_tee_open(&other, w->owner.ns);
    if (rc == 0) {
        w->req.account = other.cred; /* lifted from another replica */
    }
    govt_close(&other.node);
    return rc;
}

static int s_binding(struct world *w)
{
    make_real(w, w->sub, w->sub); /* a quote made for another namespace */
    return 0;
}

static int s_denied(struct world *w)
{
    struct mero_gov_oplist l = {0};
    int rc = admit_now(w);
    rc =
        rc ? rc
           : mero_gov_remove_member(w->owner.s, w->owner.ns, w->owner.ns, w->tee.node.pk, &l, NULL);
    mero_gov_oplist_cleanup(&l);
    govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &w->req);
    return rc;
}

static int s_no_root_row(struct world *w)
{
    /* a subgroup admission for a TEE never admitted at the root */
    govt_tee_request(&w->tee, w->owner.ns, w->sub, w->owner.ns, &w->req);
    return 0;
}

static int s_plain_row(struct world *w)
{
    /* the TEE's identity already holds a plain Member row in a subgroup */
    struct mero_gov_oplist l = {0};
    int rc = mero_gov_add_member(w->owner.s, w->owner.ns, w->sub, w->tee.node.pk, MERO_ROLE_MEMBER,
                                 &l, NULL);
    mero_gov_oplist_cleanup(&l);
    return rc;
}

static int s_spent(struct world *w)
{
    /* admitted with this quote; its evidence falls due; the same quote is presented again */
    int rc = admit_now(w);
    w->req.now += MERO_GOV_EVIDENCE_REFRESH_SECS;
    return rc;
}

/* A real quote whose MRTD is not on the list (the admitter refuses it). */
static int s_mrtd_real(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    govt_meas(w->req.m.mrtd, 7);
    return 0;
}

/* ---- the forgeries: what a voucher that skipped the rules could record instead ---- */

static void e_hide_debug(struct mero_tee_join *j)
{
    j->td_attributes &= ~MERO_TD_ATTR_DEBUG;
}

static void e_hide_service_td(struct mero_tee_join *j)
{
    memset(j->mrservicetd, 0, 48);
}

static void e_listed_mrtd(struct mero_tee_join *j)
{
    govt_meas(j->m.mrtd, 0);
}

static void e_other_rtmr3(struct mero_tee_join *j)
{
    govt_meas(j->m.rtmr[3], 9);
}

static void e_old_form(struct mero_tee_join *j)
{
    j->has_td = false; /* tags 10 / 19, as a node before the TD rules published */
}

static void e_old_form_listed_mrtd(struct mero_tee_join *j)
{
    e_old_form(j);
    e_listed_mrtd(j);
}

static int s_release(struct world *w)
{
    make_real(w, w->owner.ns, w->owner.ns);
    w->req.release_version = NULL; /* the TEE names no release */
    return 0;
}

/* What the peer does with the op an admitter would have published without the rule. */
enum peer_expect {
    PEER_SAME = 0, /* same refusal, same reason */
    PEER_ACCEPTS,  /* the spec has peers not repeat this rule */
    PEER_DECODER,  /* the op cannot even be decoded: refused before any rule */
    PEER_ONLY,     /* a forged op only: the admitter records what it decided */
    PEER_FORGED,   /* the admitter as code/reason; the forged op (edit) as peer_code/_reason */
};

struct tcase {
    const char *name;
    enum pol pol;
    int (*setup)(struct world *w);
    int forge_role;        /* -1: the mode's */
    const char *forge_tcb; /* NULL: as the admitter would record */
    int code;              /* the refusal (positive mero_err code); 0 = accepted */
    const char *reason;    /* prefix of the reason on both sides */
    enum peer_expect peer;
    void (*edit)(struct mero_tee_join *j); /* PEER_FORGED: how the op differs */
    int peer_code;                         /* PEER_FORGED: 0 = the peer applies it */
    const char *peer_reason;
};

static const struct tcase cases[] = {
    /* accepted on both sides, the baseline */
    {"accepted_mock", POL_MOCK, s_none, -1, NULL, 0, NULL, PEER_SAME, NULL, 0, NULL},
    {"accepted_real", POL_REAL, s_real, -1, NULL, 0, NULL, PEER_SAME, NULL, 0, NULL},
    /* reference §6.1 / §6.2 and the spec */
    {"no_policy", POL_NONE, s_none, -1, NULL, MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group",
     PEER_SAME, NULL, 0, NULL},
    {"mock_rejected", POL_REAL, s_none, -1, NULL, MERO_EREFUSED,
     "mock attestation rejected by group policy", PEER_SAME, NULL, 0, NULL},
    {"tcb_not_allowed", POL_REAL, s_tcb_out_of_date, -1, NULL, MERO_EREFUSED,
     "TCB status not in policy allowlist", PEER_SAME, NULL, 0, NULL},
    {"tcb_revoked", POL_REAL, s_tcb_revoked, -1, NULL, MERO_EREFUSED,
     "TCB status not in policy allowlist (a Revoked", PEER_SAME, NULL, 0, NULL},
    {"mrtd_not_allowed", POL_MOCK, s_mrtd, -1, NULL, MERO_EREFUSED, "MRTD not in policy allowlist",
     PEER_SAME, NULL, 0, NULL},
    {"rtmr0_not_allowed_when_pinned", POL_REAL_RTMR0, s_rtmr0, -1, NULL, MERO_EREFUSED,
     "RTMR0 not in policy allowlist", PEER_SAME, NULL, 0, NULL},
    {"rtmr1_not_allowed", POL_MOCK, s_rtmr1, -1, NULL, MERO_EREFUSED,
     "RTMR1 not in policy allowlist", PEER_SAME, NULL, 0, NULL},
    {"rtmr2_not_allowed", POL_MOCK, s_rtmr2, -1, NULL, MERO_EREFUSED,
     "RTMR2 not in policy allowlist", PEER_SAME, NULL, 0, NULL},
    {"rtmr3_not_allowed", POL_MOCK, s_rtmr3, -1, NULL, MERO_EREFUSED,
     "RTMR3 not in policy allowlist", PEER_SAME, NULL, 0, NULL},
    {"quote_hash_mismatch", POL_MOCK, s_quote_hash, -1, NULL, MERO_EREFUSED,
     "quote_hash is not SHA-256 of the quote", PEER_SAME, NULL, 0, NULL},
    {"quote_over_16k", POL_REAL, s_quote_big, -1, NULL, MERO_EREFUSED,
     "the quote is missing or longer than MAX_TEE_QUOTE_BYTES", PEER_DECODER, NULL, 0, NULL},
    {"quote_missing", POL_MOCK, s_quote_missing, -1, NULL, MERO_EREFUSED,
     "the quote is missing or longer than MAX_TEE_QUOTE_BYTES", PEER_SAME, NULL, 0, NULL},
    {"quote_at_16k_accepted", POL_REAL, s_quote_at_max, -1, NULL, 0, NULL, PEER_SAME, NULL, 0,
     NULL},
    {"credential_of_another_replica", POL_MOCK, s_credential, -1, NULL, MERO_EREFUSED,
     "the account credential does not certify the attested key", PEER_SAME, NULL, 0, NULL},
    {"binding_for_another_namespace", POL_REAL, s_binding, -1, NULL, MERO_EREFUSED,
     "the quote does not commit to the credential", PEER_SAME, NULL, 0, NULL},
    {"removed_cannot_rejoin", POL_MOCK, s_denied, -1, NULL, MERO_EREMOVED,
     "was removed from group ", PEER_SAME, NULL, 0, NULL},
    {"subgroup_without_root_row", POL_MOCK, s_no_root_row, -1, NULL, MERO_EREFUSED,
     "a subgroup admission needs a TEE already admitted at the namespace root", PEER_SAME, NULL, 0,
     NULL},
    {"tee_member_role_locked", POL_MOCK, s_plain_row, -1, NULL, MERO_ETEE_ROLE_LOCKED,
     "TeeMemberRoleLocked", PEER_SAME, NULL, 0, NULL},
    /* TD attributes (issue 14) */
    {"debug_td", POL_REAL, s_debug, -1, NULL, MERO_EREFUSED, "the TD is a debug TD", PEER_SAME,
     NULL, 0, NULL},
    {"sept_ve_not_disabled", POL_REAL, s_sept_ve, -1, NULL, MERO_EREFUSED,
     "the TD does not set SEPT_VE_DISABLE", PEER_SAME, NULL, 0, NULL},
    {"service_td", POL_REAL, s_service_td, -1, NULL, MERO_EREFUSED,
     "the TD has a non-zero MRSERVICETD", PEER_SAME, NULL, 0, NULL},
    {"carried_quote_unreadable", POL_REAL, s_unreadable, -1, NULL, MERO_EREFUSED,
     "the carried quote does not parse", PEER_FORGED, NULL, MERO_EREFUSED,
     "the carried quote does not parse"},
    /* the deliberate differences */
    {"admitter_without_td_facts", POL_REAL, s_no_td, -1, NULL, MERO_EREFUSED,
     "the verified quote's TD attributes are unknown", PEER_ACCEPTS, NULL, 0, NULL},
    {"spent_quote", POL_MOCK, s_spent, -1, NULL, MERO_EQUOTEUSED,
     "TEE attestation quote already used", PEER_SAME, NULL, 0, NULL},
    {"release_not_named", POL_RELEASE, s_release, -1, NULL, MERO_EREFUSED,
     "the quote matches no allowed release profile: the TEE did not name", PEER_ACCEPTS, NULL, 0,
     NULL},
    {"role_not_policy_mode", POL_MOCK, s_none, MERO_ROLE_RELAY_TEE, NULL, MERO_EREFUSED,
     "the admission records a role other than", PEER_ONLY, NULL, 0, NULL},
    {"mock_recorded_with_real_tcb", POL_MOCK, s_none, -1, "UpToDate", MERO_EREFUSED,
     "a mock quote must record tcb_status Mock", PEER_ONLY, NULL, 0, NULL},
    /* forged ops: the recorded facts against the carried quote (peers re-read the quote) */
    {"forged_attributes_hide_a_debug_td", POL_REAL, s_debug, -1, NULL, MERO_EREFUSED,
     "the TD is a debug TD", PEER_FORGED, e_hide_debug, MERO_EREFUSED,
     "the TD facts the admission records"},
    {"forged_mrservicetd_hides_a_service_td", POL_REAL, s_service_td, -1, NULL, MERO_EREFUSED,
     "the TD has a non-zero MRSERVICETD", PEER_FORGED, e_hide_service_td, MERO_EREFUSED,
     "the TD facts the admission records"},
    {"forged_real_quote_recorded_as_mock", POL_MOCK, s_debug, -1, "Mock", MERO_EREFUSED,
     "the TD is a debug TD", PEER_FORGED, e_old_form, MERO_EREFUSED,
     "the TD facts the admission records"},
    {"forged_measurements_differ_from_quote", POL_REAL, s_mrtd_real, -1, NULL, MERO_EREFUSED,
     "MRTD not in policy allowlist", PEER_FORGED, e_listed_mrtd, MERO_EREFUSED,
     "the measurements the admission records"},
    {"old_form_measurements_differ_from_quote", POL_REAL, s_mrtd_real, -1, NULL, MERO_EREFUSED,
     "MRTD not in policy allowlist", PEER_FORGED, e_old_form_listed_mrtd, MERO_EREFUSED,
     "the measurements the admission records"},
    {"release_form_measurements_differ_from_quote", POL_RELEASE, s_release, -1, NULL, MERO_EREFUSED,
     "the quote matches no allowed release profile", PEER_FORGED, e_other_rtmr3, MERO_EREFUSED,
     "the measurements the admission records"},
    /* an old-form op (no TD facts) of a debug TD: history older nodes accepted is applied
     * as they applied it (docs/governance.md "Recorded facts and the carried quote") */
    {"old_form_op_with_debug_quote", POL_REAL, s_debug, -1, NULL, MERO_EREFUSED,
     "the TD is a debug TD", PEER_FORGED, e_old_form, 0, NULL},
};

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

TEST(every_refusal_same_on_the_admitter_and_every_peer)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct tcase *t = &cases[i];
        struct world w;
        CHECK_MSG(open_world(&w, t->pol) == 0, "%s: world", t->name);
        CHECK_MSG(t->setup(&w) == 0, "%s: setup", t->name);
        quote_says_req(&w);
        w.edit = t->edit;
        /* the peer holds exactly the owner's state before the admission */
        struct mero_err se = {0};
        CHECK_MSG(govt_sync(&w.owner, &w.peer, w.owner.ns, &se) >= 0, "%s: sync: %s", t->name,
                  se.msg);

        /* the admitter's side */
        struct mero_admit_decision d;
        struct mero_err ea = {0};
        int ra = mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &ea);
        if (t->peer == PEER_ONLY) {
            CHECK_MSG(ra == 0, "%s: the admitter decides what it records: %s", t->name, ea.msg);
        } else if (t->code == 0) {
            CHECK_MSG(ra == 0 && d.publish_join, "%s: admitter refused: %s", t->name, ea.msg);
        } else {
            CHECK_MSG(ra == -t->code, "%s: admitter gave %d (%s), want -%d", t->name, ra, ea.msg,
                      t->code);
            CHECK_MSG(starts(ea.msg, t->reason), "%s: admitter reason: %s", t->name, ea.msg);
        }

        /* the peer's side: the op an admitter would publish had it skipped the rule */
        struct mero_buf b;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES * 2);
        CHECK_MSG(forge_join(&w, t->forge_role, t->forge_tcb, &b) == 0, "%s: forge", t->name);
        struct mero_err ep = {0};
        int status = -1;
        int rp = mero_gov_apply(w.peer.s, b.data, b.len, &status, NULL, NULL, &ep);
        mero_buf_cleanup(&b);
        switch (t->peer) {
        case PEER_SAME:
            if (t->code == 0) {
                CHECK_MSG(rp == 0, "%s: peer refused: %s", t->name, ep.msg);
            } else {
                CHECK_MSG(rp == -t->code, "%s: peer gave %d (%s), want -%d", t->name, rp, ep.msg,
                          t->code);
                CHECK_MSG(strcmp(ep.msg, ea.msg) == 0,
                          "%s: reasons differ: admitter \"%s\", "
                          "peer \"%s\"",
                          t->name, ea.msg, ep.msg);
            }
            break;
        case PEER_ACCEPTS:
            CHECK_MSG(rp == 0 && status == MERO_APPLY_APPLIED, "%s: peer should accept: %s",
                      t->name, ep.msg);
            break;
        case PEER_DECODER:
            CHECK_MSG(rp == -MERO_ETOOBIG || rp == -MERO_EOPDECODE, "%s: peer decoder gave %d (%s)",
                      t->name, rp, ep.msg);
            break;
        case PEER_ONLY:
            CHECK_MSG(rp == -t->code, "%s: peer gave %d (%s)", t->name, rp, ep.msg);
            CHECK_MSG(starts(ep.msg, t->reason), "%s: peer reason: %s", t->name, ep.msg);
            break;
        case PEER_FORGED:
            if (t->peer_code == 0) {
                CHECK_MSG(rp == 0 && status == MERO_APPLY_APPLIED, "%s: peer should apply: %s",
                          t->name, ep.msg);
            } else {
                CHECK_MSG(rp == -t->peer_code, "%s: peer gave %d (%s), want -%d", t->name, rp,
                          ep.msg, t->peer_code);
                CHECK_MSG(starts(ep.msg, t->peer_reason), "%s: peer reason: %s", t->name, ep.msg);
            }
            break;
        default:
            CHECK(0);
        }
        close_world(&w);
    }
}

/*
 * Spec: allowed_mrtd and allowed_rtmr1..3 "are refused when the policy is set, when a node
 * admits, and on every peer that applies an admission". A store never holds such a policy (it
 * is refused when set), so the two later points are asked directly: the one rule sequence
 * (mero_gov_admission_rules) with each list emptied in turn, as the admitter and as a peer,
 * refuses with that list's rule; an empty allowed_rtmr0 (optional) still admits.
 */
TEST(an_empty_allowlist_admits_nobody_on_either_side)
{
    static const struct {
        int list; /* 0: allowed_mrtd, 1..4: allowed_rtmr0..3 */
        int rule; /* 0: admitted */
    } empties[] = {
        {0, MERO_TRUST_EMPTY_MRTD},
        {2, MERO_TRUST_EMPTY_RTMR12},
        {3, MERO_TRUST_EMPTY_RTMR12},
        {4, MERO_TRUST_EMPTY_RTMR3},
        {1, 0},
    };
    for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
        for (int side = MERO_ADM_SIDE_ADMITTER; side <= MERO_ADM_SIDE_PEER; side++) {
            struct world w;
            struct mero_tee_policy p;
            CHECK_OK(open_world(&w, POL_MOCK));
            CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
            struct mero_strlist *l = empties[i].list == 0 ? &p.mrtd : &p.rtmr[empties[i].list - 1];
            mero_strlist_cleanup(l);
            memset(l, 0, sizeof(*l));
            const struct mero_admit_request *r = &w.req;
            struct mero_adm_case c = {
                .side = side,
                .group = w.owner.ns,
                .member = r->member,
                .root_form = true,
                .check_role = side == MERO_ADM_SIDE_PEER,
                .role = MERO_ROLE_READONLY_TEE,
                .publishing = true,
                .is_mock = true,
                .tcb_status = "Mock",
                .m = &r->m,
                .account = &r->account,
                .quote = r->quote,
                .quote_len = r->quote_len,
                .quote_hash = r->quote_hash,
            };
            int rule = -1;
            struct mero_err e = {0};
            int rc = mero_gov_admission_rules(w.owner.s, w.owner.ns, &p, &c, &rule, &e);
            if (empties[i].rule == 0) {
                CHECK_MSG(rc == 0, "list %d emptied, side %d: %s", empties[i].list, side, e.msg);
            } else {
                CHECK_MSG(rc == -MERO_EREFUSED, "list %d emptied, side %d: %d (%s)",
                          empties[i].list, side, rc, e.msg);
                CHECK_EQ(rule, empties[i].rule);
                CHECK_MSG(strstr(e.msg, "refusing to admit any quote") != NULL, "%s", e.msg);
            }
            mero_tee_policy_cleanup(&p);
            close_world(&w);
        }
    }
}

/* Whether one text starts with the other (a row's reason is a prefix of the rule's, or the
 * rule's text before its parameter is a prefix of the row's). */
static bool overlaps(const char *a, const char *b)
{
    return starts(a, b) || starts(b, a);
}

/*
 * The refusal table above covers the rule table itself: every namespace rule admission_rules.c
 * names (walked through mero_adm_rule_name, not a list kept here) has a row whose reason is
 * that rule's. Adding a rule there without its row here fails this test.
 */
TEST(every_rule_in_the_table_has_a_refusal_row)
{
    int r = MERO_ADM_RULE_NO_POLICY;
    for (; strcmp(mero_adm_rule_name(r), "Unknown") != 0; r++) {
        const char *reason = mero_adm_rule_reason(r);
        const char *param = strstr(reason, "%s");
        char want[MERO_ERR_MSG_MAX];
        snprintf(want, sizeof(want), "%.*s",
                 param != NULL ? (int)(param - reason) : (int)strlen(reason), reason);
        bool found = false;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !found; i++) {
            const struct tcase *t = &cases[i];
            found = (t->code != 0 && t->reason != NULL && overlaps(t->reason, want)) ||
                    (t->peer_code != 0 && t->peer_reason != NULL && overlaps(t->peer_reason, want));
        }
        CHECK_MSG(found, "rule %s (%d) has no row in the refusal table", mero_adm_rule_name(r), r);
    }
    CHECK_MSG(r > MERO_ADM_RULE_MEASUREMENTS_MISMATCH, "the rule table stops at %d", r);
}

/* The rule texts exist once: every rule has a reason and a name, and no two share a reason. */
TEST(each_reason_written_once)
{
    int rules[64];
    size_t n = 0;
    for (int r = 1; r < MERO_TRUST__COUNT; r++) {
        rules[n++] = r;
    }
    /* the namespace rules: the table itself, at least every rule gov.h names today */
    int r = MERO_ADM_RULE_NO_POLICY;
    for (; strcmp(mero_adm_rule_name(r), "Unknown") != 0 && n < 64; r++) {
        rules[n++] = r;
    }
    CHECK_MSG(r > MERO_ADM_RULE_MEASUREMENTS_MISMATCH, "rule %d has no reason", r);
    for (size_t i = 0; i < n; i++) {
        const char *a = mero_adm_rule_reason(rules[i]);
        CHECK_MSG(strcmp(a, "unknown rule") != 0, "rule %d has no reason", rules[i]);
        CHECK_MSG(strcmp(mero_adm_rule_name(rules[i]), "Unknown") != 0, "rule %d unnamed",
                  rules[i]);
        for (size_t k = i + 1; k < n; k++) {
            CHECK_MSG(strcmp(a, mero_adm_rule_reason(rules[k])) != 0,
                      "rules %d and %d share \"%s\"", rules[i], rules[k], a);
        }
    }
}

/* TD facts of a genuine quote from ../shared/testdata/tdx (its body, as DCAP verifies it). */
static int real_td(const char *dir, uint64_t *attrs, uint8_t mrservicetd[48])
{
    char path[256];
    size_t n = 0;
    snprintf(path, sizeof(path), "testdata/tdx/%s/quote.bin", dir);
    uint8_t *q = mero_test_read(path, 1, &n);
    struct mero_quote qt;
    int rc = q == NULL ? -MERO_EIO : mero_quote_parse(&qt, q, n, NULL);
    if (rc == 0) {
        *attrs = 0;
        for (int i = 7; i >= 0; i--) {
            *attrs = (*attrs << 8) | qt.body.td_attributes[i];
        }
        memset(mrservicetd, 0, 48);
        if (qt.body.td15) {
            memcpy(mrservicetd, qt.body.mrservicetd, 48);
        }
    }
    free(q);
    return rc;
}

/* Real quotes whose attributes differ: gotdxguest-1's TD does not set SEPT_VE_DISABLE (its
 * TDATTRIBUTES are 0x40000000), the others do. The admission refuses it under the default
 * policy, on both sides, and admits it once the policy allows SEPT_VE. */
TEST(real_quotes_with_differing_td_attributes)
{
    static const struct {
        const char *dir;
        bool sept_ve;
    } q[] = {
        {"dcapqvl-1", true}, {"gotdxguest-1", false}, {"gotdxguest-2", true}, {"nearmpc-3", true}};
    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        uint64_t attrs;
        uint8_t svc[48];
        CHECK_MSG(real_td(q[i].dir, &attrs, svc) == 0, "%s does not parse", q[i].dir);
        CHECK_EQ((attrs & MERO_TD_ATTR_SEPT_VE_DISABLE) != 0, q[i].sept_ve);
        CHECK_EQ(attrs & MERO_TD_ATTR_DEBUG, 0);
        for (int allow = 0; allow < 2; allow++) {
            struct world w;
            CHECK_OK(open_world(&w, POL_NONE));
            struct mero_tee_policy p;
            struct mero_gov_oplist l = {0};
            CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, false));
            p.allow_sept_ve_enabled = allow == 1;
            CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, &l, NULL, NULL, NULL));
            mero_tee_policy_cleanup(&p);
            mero_gov_oplist_cleanup(&l);
            make_real(&w, w.owner.ns, w.owner.ns);
            w.req.td_attributes = attrs;
            memcpy(w.req.mrservicetd, svc, 48);
            quote_says_req(&w);
            CHECK(govt_sync(&w.owner, &w.peer, w.owner.ns, NULL) >= 0);
            struct mero_admit_decision d;
            struct mero_err ea = {0}, ep = {0};
            int ra = mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &ea);
            struct mero_buf b;
            mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
            CHECK_OK(forge_join(&w, -1, NULL, &b));
            int status;
            int rp = mero_gov_apply(w.peer.s, b.data, b.len, &status, NULL, NULL, &ep);
            mero_buf_cleanup(&b);
            bool ok = q[i].sept_ve || allow == 1;
            CHECK_MSG((ra == 0) == ok && (rp == 0) == ok, "%s allow=%d: admitter %s, peer %s",
                      q[i].dir, allow, ea.msg, ep.msg);
            if (!ok) {
                CHECK(strstr(ea.msg, "SEPT_VE_DISABLE") != NULL);
                CHECK_STR_EQ(ea.msg, ep.msg);
            }
            close_world(&w);
        }
    }
}

/* A genuine quote's bytes with its report data bound to this TEE in this namespace and, when
 * debug, TDATTRIBUTES.DEBUG set (the signature no longer verifies; a peer only reads the body,
 * so this is the production read path, with no test hooks). */
static uint8_t *genuine_bound(struct world *w, bool debug, size_t *n)
{
    uint8_t *q = mero_test_read("testdata/tdx/dcapqvl-1/quote.bin", 1, n);
    struct mero_quote qt;
    if (q == NULL || mero_quote_parse(&qt, q, *n, NULL) < 0) {
        free(q);
        return NULL;
    }
    size_t body = (size_t)(qt.signed_data - q) + qt.signed_len - qt.body_size;
    mero_admission_binding(q + body + 520 + 32, w->owner.ns, w->owner.ns, w->tee.node.pk,
                           w->tee.cred.cert.account, w->tee.cred.cert.kem_pk,
                           w->tee.cred.cert.device);
    if (debug) {
        q[body + 120] |= (uint8_t)MERO_TD_ATTR_DEBUG;
    }
    struct mero_admit_request *r = &w->req;
    if (mero_quote_parse(&qt, q, *n, NULL) < 0) {
        free(q);
        return NULL;
    }
    r->quote = q;
    r->quote_len = *n;
    mero_sha256(r->quote_hash, q, *n);
    r->is_mock = false;
    snprintf(r->tcb_status, sizeof(r->tcb_status), "UpToDate");
    r->has_td = true;
    r->td_attributes = 0;
    for (int i = 7; i >= 0; i--) {
        r->td_attributes = (r->td_attributes << 8) | qt.body.td_attributes[i];
    }
    memset(r->mrservicetd, 0, 48);
    if (qt.body.td15) {
        memcpy(r->mrservicetd, qt.body.mrservicetd, 48);
    }
    mero_hex_encode(r->m.mrtd, qt.body.mrtd, 48);
    for (int i = 0; i < 4; i++) {
        mero_hex_encode(r->m.rtmr[i], qt.body.rtmr[i], 48);
    }
    return q;
}

/* A list policy naming the genuine quote's registers (and one other RTMR3, which a forged row
 * may record). */
static int genuine_policy(struct world *w)
{
    struct mero_tee_policy p;
    struct mero_gov_oplist l = {0};
    char other[97];
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_MEASUREMENT;
    p.v2 = true;
    p.mode = MERO_TEE_MODE_REPLICA;
    govt_meas(other, 9);
    int rc = mero_strlist_push(&p.tcb, "UpToDate");
    rc = rc ? rc : mero_strlist_push(&p.mrtd, w->req.m.mrtd);
    for (int k = 1; k < 4; k++) {
        rc = rc ? rc : mero_strlist_push(&p.rtmr[k], w->req.m.rtmr[k]);
    }
    rc = rc ? rc : mero_strlist_push(&p.rtmr[3], other);
    rc = rc ? rc : mero_gov_set_policy(w->owner.s, w->owner.ns, &p, &l, NULL, NULL, NULL);
    mero_tee_policy_cleanup(&p);
    mero_gov_oplist_cleanup(&l);
    return rc;
}

/* The admitter's job parses the quote once and hands its parse to the decision
 * (mero_admit_request.parsed_quote): the rules then read the TD report and the report data from
 * it and parse the bytes no more. Shown on the production path (no hooks): bytes that no longer
 * parse are refused as unreadable without the parse, judged by it with it; a parse whose
 * binding differs is refused by the binding rule. */
TEST(an_admitter_given_its_parse_judges_by_it_and_parses_nothing_again)
{
    struct world w;
    CHECK_OK(open_world(&w, POL_NONE));
    mero_store_set_hooks(w.owner.s, NULL);
    size_t n = 0;
    uint8_t *q = genuine_bound(&w, false, &n);
    CHECK(q != NULL);
    CHECK_OK(genuine_policy(&w));
    struct mero_quote qt;
    CHECK_OK(mero_quote_parse(&qt, q, n, NULL));
    struct mero_admit_decision d;
    struct mero_err e = {0};
    CHECK_OK(mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &e));
    CHECK_EQ(d.outcome, MERO_ADMIT_ADMITTED);
    w.req.parsed_quote = &qt;
    CHECK_OK(mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &e));
    CHECK_EQ(d.outcome, MERO_ADMIT_ADMITTED);
    /* the bytes no longer parse (an unknown quote version); their hash still matches */
    q[0] = 0x63;
    mero_sha256(w.req.quote_hash, q, n);
    CHECK(mero_quote_parse(&(struct mero_quote){0}, q, n, NULL) < 0);
    w.req.parsed_quote = NULL;
    CHECK_EQ(mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &e), -MERO_EREFUSED);
    CHECK(starts(e.msg, mero_adm_rule_reason(MERO_ADM_RULE_QUOTE_UNREADABLE)));
    w.req.parsed_quote = &qt;
    memset(&e, 0, sizeof(e));
    CHECK_OK(mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &e));
    CHECK_EQ(d.outcome, MERO_ADMIT_ADMITTED);
    /* the binding is read from the parse given */
    qt.body.report_data[MERO_NONCE_LEN] ^= 1;
    CHECK_EQ(mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &e), -MERO_EREFUSED);
    CHECK(starts(e.msg, mero_adm_rule_reason(MERO_ADM_RULE_BINDING)));
    free(q);
    close_world(&w);
}

/* The peer's cross-check on the production path: no hooks, the carried quote parsed by
 * mero_quote_parse. The honest op applies; recorded attributes that hide DEBUG, and recorded
 * measurements other than the quote's, are refused with their fixed reasons. */
TEST(peer_reads_td_facts_from_a_genuine_carried_quote)
{
    static const struct {
        bool debug;
        void (*edit)(struct mero_tee_join *j);
        const char *reason; /* NULL: applied */
    } rows[] = {
        {false, NULL, NULL},
        {true, e_hide_debug, "the TD facts the admission records"},
        {false, e_other_rtmr3, "the measurements the admission records"},
        {true, e_old_form, NULL}, /* old form: applied without the TD rules, as before */
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct world w;
        CHECK_OK(open_world(&w, POL_NONE));
        mero_store_set_hooks(w.owner.s, NULL);
        mero_store_set_hooks(w.peer.s, NULL);
        size_t n = 0;
        uint8_t *q = genuine_bound(&w, rows[i].debug, &n);
        CHECK_MSG(q != NULL, "row %zu: the genuine quote does not parse", i);
        CHECK_OK(genuine_policy(&w));
        CHECK(govt_sync(&w.owner, &w.peer, w.owner.ns, NULL) >= 0);
        struct mero_admit_decision d;
        struct mero_err ea = {0}, ep = {0};
        int ra = mero_gov_admit_decide(w.owner.s, w.owner.ns, &w.req, &d, &ea);
        CHECK_MSG((ra == 0) == !rows[i].debug, "row %zu: admitter %d %s", i, ra, ea.msg);
        w.edit = rows[i].edit;
        struct mero_buf b;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES * 2);
        CHECK_OK(forge_join(&w, -1, NULL, &b));
        int status = -1;
        int rp = mero_gov_apply(w.peer.s, b.data, b.len, &status, NULL, NULL, &ep);
        mero_buf_cleanup(&b);
        if (rows[i].reason == NULL) {
            CHECK_MSG(rp == 0 && status == MERO_APPLY_APPLIED, "row %zu: peer refused: %s", i,
                      ep.msg);
        } else {
            CHECK_MSG(rp == -MERO_EREFUSED && starts(ep.msg, rows[i].reason),
                      "row %zu: peer gave %d (%s)", i, rp, ep.msg);
        }
        free(q);
        close_world(&w);
    }
}

/* The policy op round-trips the TD-attribute knobs (V3 tag), and a default policy stays V2. */
TEST(policy_td_knobs_travel_in_the_op)
{
    for (int k = 0; k < 3; k++) {
        struct world w;
        CHECK_OK(open_world(&w, POL_NONE));
        struct mero_tee_policy p, got;
        struct mero_gov_oplist l = {0};
        CHECK_OK(govt_policy(&p, MERO_TEE_MODE_RELAY, false));
        p.allow_sept_ve_enabled = k == 1;
        p.allow_service_td = k == 2;
        CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, &l, NULL, NULL, NULL));
        CHECK_EQ(l.n, 1);
        struct mero_op op;
        CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, NULL));
        CHECK_EQ(op.kind, MERO_GROUP_TEE_POLICY_SET_V2);
        CHECK_EQ(op.policy.v3, k != 0);
        mero_op_cleanup(&op);
        CHECK(govt_sync(&w.owner, &w.peer, w.owner.ns, NULL) > 0);
        bool found;
        CHECK_OK(mero_gov_read_policy(w.peer.s, w.owner.ns, &got, &found, NULL));
        CHECK(found);
        CHECK_EQ(got.allow_sept_ve_enabled, k == 1);
        CHECK_EQ(got.allow_service_td, k == 2);
        CHECK_EQ(got.mode, MERO_TEE_MODE_RELAY);
        mero_tee_policy_cleanup(&got);
        mero_tee_policy_cleanup(&p);
        mero_gov_oplist_cleanup(&l);
        close_world(&w);
    }
}

/* A join carrying TD facts encodes with the appended tags and decodes back; one without them
 * keeps the old tags (old ops decode unchanged). */
TEST(join_td_facts_round_trip)
{
    struct world w;
    CHECK_OK(open_world(&w, POL_REAL));
    make_real(&w, w.owner.ns, w.owner.ns);
    w.req.mrservicetd[0] = 9;
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forge_join(&w, -1, NULL, &b));
    struct mero_op op;
    CHECK_OK(mero_op_decode(b.data, b.len, &op, NULL));
    CHECK_EQ(op.kind, MERO_ROOT_MEMBER_JOINED_TEE);
    CHECK(op.join.has_td);
    CHECK_EQ(op.join.td_attributes, MERO_TD_ATTR_SEPT_VE_DISABLE);
    CHECK_EQ(op.join.mrservicetd[0], 9);
    struct mero_buf again;
    mero_buf_init(&again, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_encode(&op, &again));
    CHECK_EQ(again.len, b.len);
    CHECK_MEM_EQ(again.data, b.data, b.len);
    mero_op_cleanup(&op);
    mero_buf_cleanup(&again);
    mero_buf_cleanup(&b);
    /* a mock join has no TD facts and keeps tag 10 */
    govt_tee_request(&w.tee, w.owner.ns, w.owner.ns, w.owner.ns, &w.req);
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forge_join(&w, -1, NULL, &b));
    CHECK_OK(mero_op_decode(b.data, b.len, &op, NULL));
    CHECK(!op.join.has_td);
    mero_op_cleanup(&op);
    mero_buf_cleanup(&b);
    close_world(&w);
}

/* A membership op signed by the owner without the author's checks (a forged or older node). */
static int forge_member_op(struct world *w, int scope, int kind, const uint8_t group[32],
                           const uint8_t member[32], int role, struct mero_buf *out)
{
    struct mero_op op;
    uint8_t sk[64], (*heads)[32] = NULL;
    size_t nh = 0;
    mero_op_init(&op);
    memcpy(op.ns, w->owner.ns, 32);
    op.scope = (uint8_t)scope;
    op.kind = (uint8_t)kind;
    memcpy(op.group_id, group, 32);
    memcpy(op.member, member, 32);
    op.role = (uint8_t)role;
    int rc = mero_gov_heads(w->owner.s, w->owner.ns, &heads, &nh);
    rc = rc ? rc : mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh);
    free(heads);
    op.version = MERO_GOV_SCHEMA_VERSION;
    op.nonce = 2000;
    rc = rc ? rc : mero_gov_identity_secret(w->owner.s, w->owner.ns, sk);
    rc = rc ? rc : mero_op_sign(&op, sk);
    sodium_memzero(sk, sizeof(sk));
    rc = rc ? rc : mero_op_encode(&op, out);
    mero_op_cleanup(&op);
    return rc;
}

/* Regression (issue 14): an owner could make the root ReadOnlyTee an Admin (or Member) of an
 * Open subgroup, or an admin of the namespace. The author refuses before signing and every
 * peer refuses the op, with TeeMemberRoleLocked. */
TEST(tee_identity_never_given_a_plain_role_anywhere)
{
    struct world w;
    CHECK_OK(open_world(&w, POL_MOCK));
    CHECK_OK(admit_now(&w));
    CHECK(govt_sync(&w.owner, &w.peer, w.owner.ns, NULL) > 0);
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    CHECK_ERR(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.sub, w.tee.node.pk, MERO_ROLE_ADMIN, &l, &e),
        -MERO_ETEE_ROLE_LOCKED);
    CHECK_EQ(l.n, 0);
    CHECK(strstr(e.msg, "TeeMemberRoleLocked") != NULL);
    CHECK_ERR(mero_gov_change_admin(w.owner.s, w.owner.ns, w.tee.node.pk, &l, &e),
              -MERO_ETEE_ROLE_LOCKED);
    CHECK_EQ(l.n, 0);
    static const struct {
        int scope, kind, role;
        bool sub;
    } ops[] = {
        {MERO_SCOPE_GROUP, MERO_GROUP_MEMBER_ADDED, MERO_ROLE_ADMIN, true},
        {MERO_SCOPE_GROUP, MERO_GROUP_MEMBER_ADDED, MERO_ROLE_MEMBER, true},
        {MERO_SCOPE_GROUP, MERO_GROUP_MEMBER_ROLE_SET, MERO_ROLE_READONLY, false},
        {MERO_SCOPE_ROOT, MERO_ROOT_ADMIN_CHANGED, MERO_ROLE_ADMIN, false},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        struct mero_buf b;
        int status;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        CHECK_OK(forge_member_op(&w, ops[i].scope, ops[i].kind, ops[i].sub ? w.sub : w.owner.ns,
                                 w.tee.node.pk, ops[i].role, &b));
        int rc = mero_gov_apply(w.peer.s, b.data, b.len, &status, NULL, NULL, &e);
        mero_buf_cleanup(&b);
        CHECK_MSG(rc == -MERO_ETEE_ROLE_LOCKED, "op %zu: %d %s", i, rc, e.msg);
        CHECK(strstr(e.msg, "TeeMemberRoleLocked") != NULL);
    }
    int role;
    CHECK_OK(mero_gov_direct_role(w.peer.s, w.sub, w.tee.node.pk, &role));
    CHECK_EQ(role, MERO_ROLE_NONE);
    close_world(&w);
}

/* Issue 21 item 10: the namespace always keeps an admin - its last admin may not be removed,
 * demoted or leave (author: -MERO_ESTATE before signing; peers refuse the op the same way). */
TEST(last_namespace_admin_stays)
{
    struct world w;
    CHECK_OK(open_world(&w, POL_MOCK));
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_leave(w.owner.s, w.owner.ns, w.owner.ns, &l, &e), -MERO_ESTATE);
    CHECK(strstr(e.msg, "last admin") != NULL);
    CHECK_ERR(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.owner.pk,
                                       MERO_ROLE_MEMBER, &l, &e),
              -MERO_ESTATE);
    CHECK_ERR(mero_gov_remove_member(w.owner.s, w.owner.ns, w.owner.ns, w.owner.pk, &l, &e),
              -MERO_ESTATE);
    CHECK_EQ(l.n, 0);
    /* a peer refuses the forged demotion too */
    CHECK(govt_sync(&w.owner, &w.peer, w.owner.ns, NULL) > 0);
    struct mero_buf b;
    int status;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(forge_member_op(&w, MERO_SCOPE_GROUP, MERO_GROUP_MEMBER_ROLE_SET, w.owner.ns,
                             w.owner.pk, MERO_ROLE_READONLY, &b));
    CHECK_ERR(mero_gov_apply(w.peer.s, b.data, b.len, &status, NULL, NULL, &e), -MERO_ESTATE);
    mero_buf_cleanup(&b);
    /* with a second admin, the first may step down */
    uint8_t other[32];
    mero_random(other, 32);
    CHECK_OK(
        mero_gov_add_member(w.owner.s, w.owner.ns, w.owner.ns, other, MERO_ROLE_ADMIN, &l, &e));
    CHECK_OK(mero_gov_set_member_role(w.owner.s, w.owner.ns, w.owner.ns, w.owner.pk,
                                      MERO_ROLE_MEMBER, &l, &e));
    mero_gov_oplist_cleanup(&l);
    close_world(&w);
}

/* The fuzz corpus seeds for the appended tags decode to the kinds they extend. */
TEST(fuzz_seeds_for_the_appended_tags_decode)
{
    static const struct {
        const char *file;
        int kind;
        bool td, v3;
    } seeds[] = {
        {"op-20-join-td.bin", MERO_ROOT_MEMBER_JOINED_TEE, true, false},
        {"op-21-group-join-td.bin", MERO_GROUP_MEMBER_JOINED_TEE, true, false},
        {"op-22-policy-v3.bin", MERO_GROUP_TEE_POLICY_SET_V2, false, true},
        {"op-23-release-policy-v3.bin", MERO_GROUP_TEE_RELEASE_POLICY_SET_V2, false, true},
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        char path[128];
        size_t n = 0;
        snprintf(path, sizeof(path), "tests/fuzz/corpus/op/%s", seeds[i].file);
        uint8_t *b = mero_test_read(path, 0, &n);
        CHECK_MSG(b != NULL, "%s missing", path);
        struct mero_op op;
        struct mero_err e = {0};
        int rc = mero_op_decode(b, n, &op, &e);
        free(b);
        CHECK_MSG(rc == 0, "%s: %s", seeds[i].file, e.msg);
        CHECK_EQ(op.kind, seeds[i].kind);
        CHECK_EQ(op.join.has_td, seeds[i].td);
        CHECK_EQ(op.policy.v3, seeds[i].v3);
        mero_op_cleanup(&op);
    }
}

MERO_TEST_MAIN(T(every_refusal_same_on_the_admitter_and_every_peer),
               T(an_empty_allowlist_admits_nobody_on_either_side),
               T(every_rule_in_the_table_has_a_refusal_row), T(each_reason_written_once),
               T(real_quotes_with_differing_td_attributes),
               T(an_admitter_given_its_parse_judges_by_it_and_parses_nothing_again),
               T(peer_reads_td_facts_from_a_genuine_carried_quote),
               T(policy_td_knobs_travel_in_the_op), T(join_td_facts_round_trip),
               T(tee_identity_never_given_a_plain_role_anywhere), T(last_namespace_admin_stays),
               T(fuzz_seeds_for_the_appended_tags_decode))
