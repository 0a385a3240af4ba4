/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission_rules.c - the one admission rule sequence (spec "Verify and admit" steps 2-8 and
 * the apply-time invariants), run by the admitter's decision (admit.c), by every peer applying
 * MemberJoinedViaTeeAttestation in either form (apply_tee.c, apply_sealed.c) and, for its
 * quote-fact rules, by TeeAuthorityEvidence; the quote-fact rules themselves (mock, TCB, TD
 * attributes, measurement lists) are attest's mero_trust_check, which VerifierPolicy runs too.
 *
 * Order (first failure wins): [peer] recorded role = policy mode; mock gate, TCB, TD
 * attributes, measurements (list form; the signed-release form checks no list here); quote
 * length and hash; [peer, carried real quote] the recorded facts are the quote's (not a mock
 * admission, TD facts when recorded, MRTD and RTMR0..3 in every form: TdFactsMismatch,
 * MeasurementsMismatch); a mock quote records tcb_status Mock; [admitter] signed release; the
 * credential certifies the member (root form); the binding, from the carried quote (root
 * form, or any form at the admitter); deny list; root row (subgroup form); role lock (no
 * non-TEE row in the namespace); [admitter] spent quote. The binding, role-lock and spent
 * rules are asked only of an op that is published or applied (struct mero_adm_case).
 *
 * Invariants: fail closed (a missing policy, an unreadable quote or measurement is a
 * refusal); each rule's reason exists once, in `texts` below or in trust_rules.c (the release
 * check and the credential module add their own detail).
 */
#include <stdio.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/release.h"
#include "mero/trust_rules.h"

#define NS_RULE_FIRST   MERO_ADM_RULE_NO_POLICY
#define ADM_DETAIL_SIZE 160 /* a refusal's detail text */

static const struct adm_text {
    const char *name;
    int code;
    const char *reason;
} texts[] = {
    [MERO_ADM_RULE_NO_POLICY - NS_RULE_FIRST] = {"NoPolicy", MERO_ENOPOLICY,
                                                 "no TeeAdmissionPolicy set for group"},
    [MERO_ADM_RULE_ROLE_NOT_MODE - NS_RULE_FIRST] = {"RoleNotPolicyMode", MERO_EREFUSED,
                                                     "the admission records a role other than "
                                                     "the one the namespace policy mode names"},
    [MERO_ADM_RULE_QUOTE_LENGTH - NS_RULE_FIRST] = {"QuoteLength", MERO_EREFUSED,
                                                    "the quote is missing or longer than "
                                                    "MAX_TEE_QUOTE_BYTES (16384)"},
    [MERO_ADM_RULE_QUOTE_HASH -
        NS_RULE_FIRST] = {"QuoteHash", MERO_EREFUSED, "quote_hash is not SHA-256 of the quote"},
    [MERO_ADM_RULE_MOCK_TCB - NS_RULE_FIRST] = {"MockTcbStatus", MERO_EREFUSED,
                                                "a mock quote must record tcb_status Mock"},
    [MERO_ADM_RULE_RELEASE -
        NS_RULE_FIRST] = {"Release", MERO_EREFUSED, "the quote matches no allowed release profile"},
    [MERO_ADM_RULE_CREDENTIAL - NS_RULE_FIRST] = {"Credential", MERO_EREFUSED,
                                                  "the account credential does not certify the "
                                                  "attested key"},
    [MERO_ADM_RULE_QUOTE_UNREADABLE -
        NS_RULE_FIRST] = {"QuoteUnreadable", MERO_EREFUSED, "the carried quote does not parse"},
    [MERO_ADM_RULE_BINDING - NS_RULE_FIRST] = {"Binding", MERO_EREFUSED,
                                               "the quote does not commit to the credential "
                                               "admitted in this namespace (admission binding "
                                               "mismatch)"},
    [MERO_ADM_RULE_DENIED - NS_RULE_FIRST] = {"RemovedFromGroup", MERO_EREMOVED,
                                              "was removed from group %s and cannot rejoin"},
    [MERO_ADM_RULE_NO_ROOT_ROW - NS_RULE_FIRST] = {"NoRootTeeRow", MERO_EREFUSED,
                                                   "a subgroup admission needs a TEE already "
                                                   "admitted at the namespace root"},
    [MERO_ADM_RULE_ROLE_LOCKED - NS_RULE_FIRST] = {"TeeMemberRoleLocked", MERO_ETEE_ROLE_LOCKED,
                                                   "TeeMemberRoleLocked: the member holds a "
                                                   "non-TEE row in the namespace"},
    [MERO_ADM_RULE_QUOTE_USED - NS_RULE_FIRST] = {"QuoteAlreadyUsed", MERO_EQUOTEUSED,
                                                  "TEE attestation quote already used"},
    [MERO_ADM_RULE_NO_TD_FACTS - NS_RULE_FIRST] = {"TdFactsUnknown", MERO_EREFUSED,
                                                   "the verified quote's TD attributes are "
                                                   "unknown, so the TD-attribute rules cannot "
                                                   "be judged"},
    [MERO_ADM_RULE_TD_FACTS_MISMATCH - NS_RULE_FIRST] = {"TdFactsMismatch", MERO_EREFUSED,
                                                         "the TD facts the admission records "
                                                         "(mock or real, TDATTRIBUTES, "
                                                         "MRSERVICETD) differ from the carried "
                                                         "quote's TD report"},
    [MERO_ADM_RULE_MEASUREMENTS_MISMATCH -
        NS_RULE_FIRST] = {"MeasurementsMismatch", MERO_EREFUSED,
                          "the measurements the admission records (MRTD, RTMR0-3) differ from "
                          "the carried quote's TD report"},
};
#define N_TEXTS (sizeof(texts) / sizeof(texts[0]))

/* The namespace-rule entry of a rule, or NULL (a quote-fact rule, none, or a hole: a rule
 * number without its row reads as unknown, which its refusal row in the test then catches). */
static const struct adm_text *ns_text(int rule)
{
    if (rule >= NS_RULE_FIRST && (size_t)(rule - NS_RULE_FIRST) < N_TEXTS &&
        texts[rule - NS_RULE_FIRST].name != NULL) {
        return &texts[rule - NS_RULE_FIRST];
    }
    return NULL;
}

const char *mero_adm_rule_reason(int rule)
{
    if (rule >= 0 && rule < MERO_TRUST__COUNT) {
        return mero_trust_rule_reason((enum mero_trust_rule)rule);
    }
    return ns_text(rule) != NULL ? ns_text(rule)->reason : "unknown rule";
}

const char *mero_adm_rule_name(int rule)
{
    if (rule >= 0 && rule < MERO_TRUST__COUNT) {
        return mero_trust_rule_name((enum mero_trust_rule)rule);
    }
    return ns_text(rule) != NULL ? ns_text(rule)->name : "Unknown";
}

/* Refuse with a rule's fixed reason (and an optional detail after it). */
static int fail(int *out, int rule, struct mero_err *err, const char *detail)
{
    if (out != NULL) {
        *out = rule;
    }
    const struct adm_text *t = ns_text(rule);
    int code = t != NULL ? t->code : MERO_EREFUSED; /* MERO_EREFUSED: the quote-fact rules */
    if (detail != NULL && detail[0] != '\0') {
        return mero_err_set(err, code, "%s: %s", mero_adm_rule_reason(rule), detail);
    }
    return mero_err_set(err, code, "%s", mero_adm_rule_reason(rule));
}

/* ---- the quote-fact rules over governance's representation ------------------------------- */

struct gov_lists {
    const struct mero_tee_policy *p;
};

static size_t tcb_count(const void *ctx)
{
    return ((const struct gov_lists *)ctx)->p->tcb.n;
}

static const char *tcb_at(const void *ctx, size_t i)
{
    return ((const struct gov_lists *)ctx)->p->tcb.v[i];
}

static const struct mero_strlist *reg_list(const struct mero_tee_policy *p, int reg)
{
    return reg == 0 ? &p->mrtd : &p->rtmr[reg - 1];
}

static size_t reg_count(const void *ctx, int reg)
{
    return reg_list(((const struct gov_lists *)ctx)->p, reg)->n;
}

static bool reg_contains(const void *ctx, int reg, const uint8_t v[MERO_MR_LEN])
{
    char hex[MERO_HEX_SIZE(MERO_MR_LEN)];
    mero_hex_encode(hex, v, MERO_MR_LEN);
    return mero_strlist_contains_ci(reg_list(((const struct gov_lists *)ctx)->p, reg), hex);
}

static bool all_zero(const uint8_t *v, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= v[i];
    }
    return acc == 0;
}

int mero_gov_trust_rules(const struct mero_tee_policy *p, bool is_mock, const char *tcb_status,
                         const struct mero_measurements *m, bool has_td, uint64_t td_attributes,
                         const uint8_t *mrservicetd, bool check_measurements, int *rule,
                         struct mero_err *err)
{
    /* recorded measurements are hex strings: one that is not 48 bytes of hex matches nothing */
    uint8_t mrtd[MERO_MR_LEN], rtmr[MERO_RTMR_COUNT][MERO_MR_LEN];
    bool ok[1 + MERO_RTMR_COUNT];
    (void)mero_measurements_to_raw(m, mrtd, rtmr, ok); /* ok[] says which decoded */
    const uint8_t *regs[1 + MERO_RTMR_COUNT] = {mrtd, rtmr[0], rtmr[1], rtmr[2], rtmr[3]};
    struct mero_trust_facts f = {
        .is_mock = is_mock,
        .tcb_status = tcb_status,
        .has_td = has_td,
        .td_attributes = td_attributes,
        .service_td = mrservicetd != NULL && !all_zero(mrservicetd, MERO_MR_LEN),
    };
    for (int i = 0; i < 1 + MERO_RTMR_COUNT; i++) {
        f.reg[i] = ok[i] ? regs[i] : NULL;
    }
    struct gov_lists gl = {.p = p};
    struct mero_trust_policy tp = {
        .accept_mock = p->accept_mock,
        .allow_debug_td = false, /* a debug TD is never admitted */
        .allow_sept_ve_enabled = p->allow_sept_ve_enabled,
        .allow_service_td = p->allow_service_td,
        .check_measurements = check_measurements,
        .lists = {.ctx = &gl,
                  .tcb_count = tcb_count,
                  .tcb_at = tcb_at,
                  .reg_count = reg_count,
                  .reg_contains = reg_contains},
    };
    enum mero_trust_rule t = mero_trust_check(&tp, &f);
    if (t != MERO_TRUST_OK) {
        return fail(rule, (int)t, err, NULL);
    }
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------ */

int mero__gov_report_data(struct mero_store *s, const uint8_t *q, size_t n,
                          uint8_t out[MERO_REPORT_DATA_LEN], bool *is_mock, struct mero_err *err)
{
    if (mero_mock_is_mock(q, n)) {
        *is_mock = true;
        if (n < MERO_MOCK_HEADER_LEN + MERO_REPORT_DATA_LEN) {
            return mero_err_set(err, MERO_EREFUSED, "%s: mock quote too short to carry report data",
                                mero_adm_rule_reason(MERO_ADM_RULE_QUOTE_UNREADABLE));
        }
        memcpy(out, q + MERO_MOCK_HEADER_LEN, MERO_REPORT_DATA_LEN);
        return 0;
    }
    *is_mock = false;
    struct mero_err e = {0};
    int rc;
    if (s->hooks.quote_report_data != NULL) {
        rc = s->hooks.quote_report_data(s->hooks.ud, q, n, out, &e);
    } else {
        bool mock = false;
        rc = mero_quote_report_data(q, n, out, &mock);
        if (rc < 0) {
            snprintf(e.msg, sizeof(e.msg), "%s", mero_strerror(rc));
        }
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_EREFUSED, "%s: %s",
                            mero_adm_rule_reason(MERO_ADM_RULE_QUOTE_UNREADABLE), e.msg);
    }
    return 0;
}

/* The TD report body of a real quote, by structural read (no signature check). */
static int carried_td_report(struct mero_store *s, const uint8_t *q, size_t n,
                             struct mero_td_report *out, struct mero_err *err)
{
    struct mero_err e = {0};
    int rc;
    if (s->hooks.quote_td_report != NULL) {
        rc = s->hooks.quote_td_report(s->hooks.ud, q, n, out, &e);
    } else {
        struct mero_quote qt;
        rc = mero_quote_parse(&qt, q, n, &e);
        if (rc == 0) {
            *out = qt.body;
        }
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_EREFUSED, "%s: %s",
                            mero_adm_rule_reason(MERO_ADM_RULE_QUOTE_UNREADABLE), e.msg);
    }
    return 0;
}

/*
 * Peer, a carried real quote: what the op records must be what the quote's TD report says -
 * not a mock admission, the TD facts when recorded (tags 14 / 64), and MRTD, RTMR0..3 in
 * every form (an old-form op recorded them from the same verified body). Otherwise a voucher
 * could record clean attributes or listed measurements next to a quote that has neither.
 */
static int recorded_facts_rule(struct mero_store *s, const struct mero_adm_case *c, int *rule,
                               struct mero_err *err)
{
    struct mero_td_report r;
    struct mero_err e = {0};
    if (carried_td_report(s, c->quote, c->quote_len, &r, &e) < 0) {
        if (rule != NULL) {
            *rule = MERO_ADM_RULE_QUOTE_UNREADABLE;
        }
        if (err != NULL) {
            *err = e;
        }
        return -MERO_EREFUSED;
    }
    if (c->is_mock || (c->tcb_status != NULL && strcmp(c->tcb_status, "Mock") == 0)) {
        return fail(rule, MERO_ADM_RULE_TD_FACTS_MISMATCH, err,
                    "a real TDX quote recorded as a mock admission");
    }
    if (c->has_td) {
        static const uint8_t zero[MERO_MR_LEN];
        uint64_t attrs = 0;
        for (int i = MERO_TD_ATTRIBUTES_LEN - 1; i >= 0; i--) {
            attrs = (attrs << 8) | r.td_attributes[i];
        }
        const uint8_t *svc = r.td15 ? r.mrservicetd : zero;
        const uint8_t *rec = c->mrservicetd != NULL ? c->mrservicetd : zero;
        if (attrs != c->td_attributes || !mero_ct_eq(svc, rec, MERO_MR_LEN)) {
            return fail(rule, MERO_ADM_RULE_TD_FACTS_MISMATCH, err, NULL);
        }
    }
    uint8_t mrtd[MERO_MR_LEN], rtmr[MERO_RTMR_COUNT][MERO_MR_LEN];
    bool ok[1 + MERO_RTMR_COUNT];
    bool same = mero_measurements_to_raw(c->m, mrtd, rtmr, ok) == 0 &&
                mero_ct_eq(mrtd, r.mrtd, MERO_MR_LEN);
    for (int i = 0; same && i < MERO_RTMR_COUNT; i++) {
        same = mero_ct_eq(rtmr[i], r.rtmr[i], MERO_MR_LEN);
    }
    if (!same) {
        return fail(rule, MERO_ADM_RULE_MEASUREMENTS_MISMATCH, err, NULL);
    }
    return 0;
}

static const char SQL_HOLDS_TEE[] =
    "SELECT 1 FROM members m JOIN groups g ON g.id = m.grp WHERE g.ns = ? AND m.member = ? "
    "AND m.role IN (3, 4) LIMIT 1";
static const char SQL_HOLDS_PLAIN[] =
    "SELECT 1 FROM members m JOIN groups g ON g.id = m.grp WHERE g.ns = ? AND m.member = ? "
    "AND m.role NOT IN (3, 4) LIMIT 1";

int mero_gov_holds_row(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                       const uint8_t member[static MERO_IDENTITY_LEN], bool tee, bool *yes)
{
    sqlite3_stmt *st = mero__gov_stmt(s, tee ? SQL_HOLDS_TEE : SQL_HOLDS_PLAIN);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

/* Admit step 3 (signed-release form, real quote, root admission). */
static int release_gate(struct mero_store *s, const struct mero_tee_policy *p,
                        const struct mero_adm_case *c, int *rule, struct mero_err *err)
{
    char d[ADM_DETAIL_SIZE];
    int cmp = 0;
    const char *v = c->release_version;
    if (v == NULL || v[0] == '\0') {
        return fail(rule, MERO_ADM_RULE_RELEASE, err,
                    "the TEE did not name the mero-tee release it runs; a signed-release policy "
                    "requires it");
    }
    if (mero_release_version_check(v) < 0) {
        return fail(rule, MERO_ADM_RULE_RELEASE, err, "the TEE named a malformed release version");
    }
    if (p->min_release != NULL && mero_release_version_cmp(v, p->min_release, &cmp) == 0 &&
        cmp < 0) {
        snprintf(d, sizeof(d), "release %s is older than the policy's minimum %s", v,
                 p->min_release);
        return fail(rule, MERO_ADM_RULE_RELEASE, err, d);
    }
    if (s->hooks.release_check == NULL) {
        return fail(rule, MERO_ADM_RULE_RELEASE, err,
                    "no release verifier configured: cannot check a signed release");
    }
    struct mero_err e = {0};
    void *ud = s->hooks.release_ud != NULL ? s->hooks.release_ud : s->hooks.ud;
    if (s->hooks.release_check(ud, v, p, c->m, c->matched_profile,
                               c->matched_profile != NULL ? MERO_GOV_PROFILE_NAME_MAX : 0,
                               &e) < 0) {
        return fail(rule, MERO_ADM_RULE_RELEASE, err, e.msg);
    }
    return 0;
}

/* The binding, from the quote about to be published / being applied. */
static int binding_rule(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const struct mero_adm_case *c, int *rule, struct mero_err *err)
{
    uint8_t rd[MERO_REPORT_DATA_LEN], b[MERO_APP_HASH_LEN];
    bool mock;
    struct mero_err e = {0};
    if (mero__gov_report_data(s, c->quote, c->quote_len, rd, &mock, &e) < 0) {
        if (rule != NULL) {
            *rule = MERO_ADM_RULE_QUOTE_UNREADABLE;
        }
        if (err != NULL) {
            *err = e;
        }
        return -MERO_EREFUSED;
    }
    const struct mero_credential *cr = c->account;
    mero_admission_binding(b, ns, c->root_form ? c->group : ns, c->member, cr->cert.account,
                           cr->cert.kem_pk, cr->cert.device);
    /* report data = nonce || application hash: the hash half commits to the credential */
    if (!mero_ct_eq(rd + MERO_NONCE_LEN, b, sizeof(b))) {
        return fail(rule, MERO_ADM_RULE_BINDING, err, NULL);
    }
    return 0;
}

int mero_gov_admission_rules(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             const struct mero_tee_policy *p, const struct mero_adm_case *c,
                             int *rule, struct mero_err *err)
{
    bool admitter = c->side == MERO_ADM_SIDE_ADMITTER;
    bool has_quote = c->quote != NULL;
    bool is_mock = c->is_mock || (has_quote && mero_mock_is_mock(c->quote, c->quote_len));
    if (rule != NULL) {
        *rule = MERO_ADM_RULE_OK;
    }
    if (p == NULL) {
        return fail(rule, MERO_ADM_RULE_NO_POLICY, err, NULL);
    }
    if (c->check_role && c->role != mero_tee_mode_role(p->mode)) {
        char d[ADM_DETAIL_SIZE];
        snprintf(d, sizeof(d), "recorded %s; the policy mode names %s", mero_role_name(c->role),
                 mero_role_name(mero_tee_mode_role(p->mode)));
        return fail(rule, MERO_ADM_RULE_ROLE_NOT_MODE, err, d);
    }
    /* the admitter judges TD attributes from the verified body: never without them */
    if (admitter && !is_mock && !c->has_td) {
        return fail(rule, MERO_ADM_RULE_NO_TD_FACTS, err, NULL);
    }
    /* mock gate, TCB, TD attributes, measurements (list form) */
    MERO_TRY(mero_gov_trust_rules(p, is_mock, is_mock ? "Mock" : c->tcb_status, c->m, c->has_td,
                                  c->td_attributes, c->mrservicetd,
                                  p->form == MERO_POLICY_MEASUREMENT, rule, err));
    /* quote length and hash: every form that carries the quote */
    if (admitter || has_quote || c->root_form) {
        if (!has_quote || c->quote_len == 0 || c->quote_len > MERO_GOV_MAX_QUOTE_BYTES) {
            return fail(rule, MERO_ADM_RULE_QUOTE_LENGTH, err, NULL);
        }
        uint8_t qh[MERO_QUOTE_HASH_LEN];
        mero_sha256(qh, c->quote, c->quote_len);
        if (c->quote_hash == NULL || !mero_ct_eq(qh, c->quote_hash, sizeof(qh))) {
            return fail(rule, MERO_ADM_RULE_QUOTE_HASH, err, NULL);
        }
    }
    /* peer: the recorded facts are the carried real quote's (the admitter read its facts from
     * the very quote it verified); the subgroup form carries no quote to compare */
    if (!admitter && has_quote && !mero_mock_is_mock(c->quote, c->quote_len)) {
        MERO_TRY(recorded_facts_rule(s, c, rule, err));
    }
    if (is_mock && c->tcb_status != NULL && strcmp(c->tcb_status, "Mock") != 0 && !admitter) {
        return fail(rule, MERO_ADM_RULE_MOCK_TCB, err, NULL);
    }
    /* the signed release: the admitter's measurement step (peers take the voucher's word) */
    if (admitter && p->form == MERO_POLICY_RELEASE && !is_mock && c->root_form) {
        MERO_TRY(release_gate(s, p, c, rule, err));
    }
    /* the credential and the binding (the credential travels in the root form) */
    if (admitter || c->root_form) {
        struct mero_err e = {0};
        if (c->account == NULL) {
            return fail(rule, MERO_ADM_RULE_CREDENTIAL, err, NULL);
        }
        if (mero_credential_certifies(c->member, c->account, &e) < 0) {
            if (rule != NULL) {
                *rule = MERO_ADM_RULE_CREDENTIAL;
            }
            return mero_err_set(err, MERO_EREFUSED, "%s", e.msg);
        }
        if (c->publishing) {
            MERO_TRY(binding_rule(s, ns, c, rule, err));
        }
    }
    /* deny list, root row, role lock */
    bool yes;
    MERO_TRY(mero_gov_is_denied(s, c->group, c->member, &yes));
    if (yes) {
        /* the one reason with a parameter: the group, where the table says %s */
        char h[MERO_HEX_SIZE(8)]; /* the group id's first 8 bytes */
        const char *t = mero_adm_rule_reason(MERO_ADM_RULE_DENIED);
        const char *at = strstr(t, "%s");
        mero_hex_encode(h, c->group, 8);
        if (rule != NULL) {
            *rule = MERO_ADM_RULE_DENIED;
        }
        return mero_err_set(err, MERO_EREMOVED, "%.*s%s%s", (int)(at - t), t, h, at + 2);
    }
    if (!c->root_form) {
        int r;
        MERO_TRY(mero_gov_direct_role(s, ns, c->member, &r));
        if (!mero_role_is_tee(r)) {
            return fail(rule, MERO_ADM_RULE_NO_ROOT_ROW, err, NULL);
        }
    }
    if (c->publishing) {
        MERO_TRY(mero_gov_holds_row(s, ns, c->member, false, &yes));
        if (yes) {
            return fail(rule, MERO_ADM_RULE_ROLE_LOCKED, err, NULL);
        }
    }
    /* spent quote: the admitter only (spec step 8) */
    if (admitter && c->publishing) {
        uint8_t qh[MERO_QUOTE_HASH_LEN];
        mero_sha256(qh, c->quote, c->quote_len);
        if (c->root_form) {
            MERO_TRY(mero_gov_is_quote_hash_used(s, ns, qh, &yes));
        } else {
            MERO_TRY(mero__gov_spent(s, ns, qh, GOV_SPENT_ADMISSION, c->group, &yes));
        }
        if (yes) {
            return fail(rule, MERO_ADM_RULE_QUOTE_USED, err, NULL);
        }
    }
    return 0;
}
