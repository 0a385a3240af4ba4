/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission_rules.c - the one admission rule sequence (spec "Verify and admit" steps 2-8 and
 * the apply-time invariants), run by the admitter's decision (admit.c), by every peer applying
 * MemberJoinedViaTeeAttestation in either form (apply_tee.c, apply_sealed.c) and, for its
 * quote-fact rules, by TeeAuthorityEvidence; the quote-fact rules themselves (mock, TCB, TD
 * attributes, measurement lists) are attest's mero_trust_check, which VerifierPolicy runs too.
 *
 * The sequence is the table `rules` below, one row per rule: {id, name, code, reason, which
 * side runs it, check}, run in order by mero_gov_admission_rules' loop; the first failure
 * wins. Adding a rule is one row and one check function (and its number, appended to enum
 * mero_adm_rule). A check also decides from the case whether it applies (the form, a carried
 * quote, publishing); the side column says which side may ever run it.
 *
 * Invariants: fail closed (a missing policy, an unreadable quote or measurement is a
 * refusal); each rule's reason exists once, in `rules` below or in trust_rules.c (the release
 * check and the credential module add their own detail); the carried quote's TD report is
 * read at most once per run.
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

/* Which sides run a rule (the table's side column). */
enum { SIDE_ADMITTER = 1 << MERO_ADM_SIDE_ADMITTER, SIDE_PEER = 1 << MERO_ADM_SIDE_PEER };
#define SIDE_BOTH (SIDE_ADMITTER | SIDE_PEER)

/* One run of the sequence: the case, what is derived from it once, and the outcome. */
struct adm_run {
    struct mero_store *s;
    const uint8_t *ns;
    const struct mero_tee_policy *p;
    const struct mero_adm_case *c;
    bool admitter, has_quote, is_mock;
    bool have_td;             /* td holds the carried real quote's TD report */
    struct mero_td_report td; /* read once, by the QuoteUnreadable row */
    int *rule;
    struct mero_err *err;
};

struct adm_rule {
    int id;
    const char *name;
    int code;
    const char *reason;
    int sides;
    int (*check)(struct adm_run *r); /* 0 passes or does not apply; else the refusal */
};

/* A namespace-state rule's row, or NULL (a quote-fact rule, or none); after the table. */
static const struct adm_rule *ns_rule(int id);

const char *mero_adm_rule_reason(int rule)
{
    if (rule >= 0 && rule < MERO_TRUST__COUNT) {
        return mero_trust_rule_reason((enum mero_trust_rule)rule);
    }
    return ns_rule(rule) != NULL ? ns_rule(rule)->reason : "unknown rule";
}

const char *mero_adm_rule_name(int rule)
{
    if (rule >= 0 && rule < MERO_TRUST__COUNT) {
        return mero_trust_rule_name((enum mero_trust_rule)rule);
    }
    return ns_rule(rule) != NULL ? ns_rule(rule)->name : "Unknown";
}

/* Refuse with a rule's fixed reason (and an optional detail after it). */
static int fail(int *out, int rule, struct mero_err *err, const char *detail)
{
    if (out != NULL) {
        *out = rule;
    }
    const struct adm_rule *t = ns_rule(rule);
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

/* CROSS JOIN keeps members first: the member's own rows (index members_member), each group
 * looked up by key, instead of one lookup per group of the namespace */
static const char SQL_HOLDS_TEE[] =
    "SELECT 1 FROM members m CROSS JOIN groups g ON g.id = m.grp WHERE g.ns = ? AND m.member = ? "
    "AND m.role IN (3, 4) LIMIT 1";
static const char SQL_HOLDS_PLAIN[] =
    "SELECT 1 FROM members m CROSS JOIN groups g ON g.id = m.grp WHERE g.ns = ? AND "
    "m.member = ? AND m.role NOT IN (3, 4) LIMIT 1";

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

/* ---- the checks, one per rule, in the order of the table --------------------------------- */

static int chk_no_policy(struct adm_run *r)
{
    return r->p == NULL ? fail(r->rule, MERO_ADM_RULE_NO_POLICY, r->err, NULL) : 0;
}

static int chk_role_not_mode(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    int want = mero_tee_mode_role(r->p->mode);
    if (!c->check_role || c->role == want) {
        return 0;
    }
    char d[ADM_DETAIL_SIZE];
    snprintf(d, sizeof(d), "recorded %s; the policy mode names %s", mero_role_name(c->role),
             mero_role_name(want));
    return fail(r->rule, MERO_ADM_RULE_ROLE_NOT_MODE, r->err, d);
}

/* the admitter judges TD attributes from the verified body: never without them */
static int chk_no_td_facts(struct adm_run *r)
{
    return !r->is_mock && !r->c->has_td ? fail(r->rule, MERO_ADM_RULE_NO_TD_FACTS, r->err, NULL)
                                        : 0;
}

/* mock gate, TCB, TD attributes, measurements (list form): attest's quote-fact rules */
static int chk_quote_facts(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    return mero_gov_trust_rules(r->p, r->is_mock, r->is_mock ? "Mock" : c->tcb_status, c->m,
                                c->has_td, c->td_attributes, c->mrservicetd,
                                r->p->form == MERO_POLICY_MEASUREMENT, r->rule, r->err);
}

/* quote length and hash: every form that carries the quote */
static bool carries_quote(const struct adm_run *r)
{
    return r->admitter || r->has_quote || r->c->root_form;
}

static int chk_quote_length(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    if (carries_quote(r) &&
        (!r->has_quote || c->quote_len == 0 || c->quote_len > MERO_GOV_MAX_QUOTE_BYTES)) {
        return fail(r->rule, MERO_ADM_RULE_QUOTE_LENGTH, r->err, NULL);
    }
    return 0;
}

static int chk_quote_hash(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    if (!carries_quote(r)) {
        return 0;
    }
    uint8_t qh[MERO_QUOTE_HASH_LEN];
    mero_sha256(qh, c->quote, c->quote_len);
    if (c->quote_hash == NULL || !mero_ct_eq(qh, c->quote_hash, sizeof(qh))) {
        return fail(r->rule, MERO_ADM_RULE_QUOTE_HASH, r->err, NULL);
    }
    return 0;
}

/*
 * Peer, a carried real quote (the admitter read its facts from the very quote it verified; the
 * subgroup form carries no quote to compare): what the op records must be what the quote's TD
 * report says - not a mock admission, the TD facts when recorded (tags 14 / 64), and MRTD,
 * RTMR0..3 in every form (an old-form op recorded them from the same verified body). Otherwise
 * a voucher could record clean attributes or listed measurements next to a quote that has
 * neither. The TD report, by structural read (no signature check), is read here once.
 */
static bool carries_real_quote(const struct adm_run *r)
{
    return r->has_quote && !mero_mock_is_mock(r->c->quote, r->c->quote_len);
}

static int chk_quote_unreadable(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    struct mero_store *s = r->s;
    struct mero_err e = {0};
    int rc;
    if (!carries_real_quote(r)) {
        return 0;
    }
    if (c->parsed != NULL) {
        r->td = c->parsed->body; /* the caller's parse of these bytes (the admitter's job) */
        rc = 0;
    } else if (s->hooks.quote_td_report != NULL) {
        rc = s->hooks.quote_td_report(s->hooks.ud, c->quote, c->quote_len, &r->td, &e);
    } else {
        struct mero_quote qt;
        rc = mero_quote_parse(&qt, c->quote, c->quote_len, &e);
        if (rc == 0) {
            r->td = qt.body;
        }
    }
    if (rc < 0) {
        if (r->rule != NULL) {
            *r->rule = MERO_ADM_RULE_QUOTE_UNREADABLE;
        }
        return mero_err_set(r->err, MERO_EREFUSED, "%s: %s",
                            mero_adm_rule_reason(MERO_ADM_RULE_QUOTE_UNREADABLE), e.msg);
    }
    r->have_td = true;
    return 0;
}

static int chk_td_facts_mismatch(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    if (!r->have_td) {
        return 0;
    }
    if (c->is_mock || (c->tcb_status != NULL && strcmp(c->tcb_status, "Mock") == 0)) {
        return fail(r->rule, MERO_ADM_RULE_TD_FACTS_MISMATCH, r->err,
                    "a real TDX quote recorded as a mock admission");
    }
    if (c->has_td) {
        static const uint8_t zero[MERO_MR_LEN];
        uint64_t attrs = 0;
        for (int i = MERO_TD_ATTRIBUTES_LEN - 1; i >= 0; i--) {
            attrs = (attrs << 8) | r->td.td_attributes[i];
        }
        const uint8_t *svc = r->td.td15 ? r->td.mrservicetd : zero;
        const uint8_t *rec = c->mrservicetd != NULL ? c->mrservicetd : zero;
        if (attrs != c->td_attributes || !mero_ct_eq(svc, rec, MERO_MR_LEN)) {
            return fail(r->rule, MERO_ADM_RULE_TD_FACTS_MISMATCH, r->err, NULL);
        }
    }
    return 0;
}

static int chk_measurements_mismatch(struct adm_run *r)
{
    if (!r->have_td) {
        return 0;
    }
    uint8_t mrtd[MERO_MR_LEN], rtmr[MERO_RTMR_COUNT][MERO_MR_LEN];
    bool ok[1 + MERO_RTMR_COUNT];
    bool same = mero_measurements_to_raw(r->c->m, mrtd, rtmr, ok) == 0 &&
                mero_ct_eq(mrtd, r->td.mrtd, MERO_MR_LEN);
    for (int i = 0; same && i < MERO_RTMR_COUNT; i++) {
        same = mero_ct_eq(rtmr[i], r->td.rtmr[i], MERO_MR_LEN);
    }
    return same ? 0 : fail(r->rule, MERO_ADM_RULE_MEASUREMENTS_MISMATCH, r->err, NULL);
}

static int chk_mock_tcb(struct adm_run *r)
{
    const char *t = r->c->tcb_status;
    return r->is_mock && t != NULL && strcmp(t, "Mock") != 0
               ? fail(r->rule, MERO_ADM_RULE_MOCK_TCB, r->err, NULL)
               : 0;
}

/* Admit step 3 (signed-release form, real quote, root admission): the admitter's measurement
 * step (peers take the voucher's word). */
static int chk_release(struct adm_run *r)
{
    const struct mero_tee_policy *p = r->p;
    const struct mero_adm_case *c = r->c;
    struct mero_store *s = r->s;
    char d[ADM_DETAIL_SIZE];
    int cmp = 0;
    const char *v = c->release_version;
    if (p->form != MERO_POLICY_RELEASE || r->is_mock || !c->root_form) {
        return 0;
    }
    if (v == NULL || v[0] == '\0') {
        return fail(r->rule, MERO_ADM_RULE_RELEASE, r->err,
                    "the TEE did not name the mero-tee release it runs; a signed-release policy "
                    "requires it");
    }
    if (mero_release_version_check(v) < 0) {
        return fail(r->rule, MERO_ADM_RULE_RELEASE, r->err,
                    "the TEE named a malformed release version");
    }
    if (p->min_release != NULL && mero_release_version_cmp(v, p->min_release, &cmp) == 0 &&
        cmp < 0) {
        snprintf(d, sizeof(d), "release %s is older than the policy's minimum %s", v,
                 p->min_release);
        return fail(r->rule, MERO_ADM_RULE_RELEASE, r->err, d);
    }
    if (s->hooks.release_check == NULL) {
        return fail(r->rule, MERO_ADM_RULE_RELEASE, r->err,
                    "no release verifier configured: cannot check a signed release");
    }
    struct mero_err e = {0};
    void *ud = s->hooks.release_ud != NULL ? s->hooks.release_ud : s->hooks.ud;
    if (s->hooks.release_check(ud, v, p, c->m, c->matched_profile,
                               c->matched_profile != NULL ? MERO_GOV_PROFILE_NAME_MAX : 0,
                               &e) < 0) {
        return fail(r->rule, MERO_ADM_RULE_RELEASE, r->err, e.msg);
    }
    return 0;
}

/* the credential travels in the root form */
static int chk_credential(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    struct mero_err e = {0};
    if (!r->admitter && !c->root_form) {
        return 0;
    }
    if (c->account == NULL) {
        return fail(r->rule, MERO_ADM_RULE_CREDENTIAL, r->err, NULL);
    }
    if (mero_credential_certifies(c->member, c->account, &e) < 0) {
        if (r->rule != NULL) {
            *r->rule = MERO_ADM_RULE_CREDENTIAL;
        }
        return mero_err_set(r->err, MERO_EREFUSED, "%s", e.msg);
    }
    return 0;
}

/* The binding, from the quote about to be published / being applied. */
static int chk_binding(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    uint8_t rd[MERO_REPORT_DATA_LEN], b[MERO_APP_HASH_LEN];
    bool mock;
    struct mero_err e = {0};
    if ((!r->admitter && !c->root_form) || !c->publishing) {
        return 0;
    }
    if (c->parsed != NULL) { /* a real quote, parsed by the caller */
        memcpy(rd, c->parsed->body.report_data, sizeof(rd));
    } else if (mero__gov_report_data(r->s, c->quote, c->quote_len, rd, &mock, &e) < 0) {
        if (r->rule != NULL) {
            *r->rule = MERO_ADM_RULE_QUOTE_UNREADABLE;
        }
        if (r->err != NULL) {
            *r->err = e;
        }
        return -MERO_EREFUSED;
    }
    const struct mero_credential *cr = c->account;
    mero_admission_binding(b, r->ns, c->root_form ? c->group : r->ns, c->member, cr->cert.account,
                           cr->cert.kem_pk, cr->cert.device);
    /* report data = nonce || application hash: the hash half commits to the credential */
    if (!mero_ct_eq(rd + MERO_NONCE_LEN, b, sizeof(b))) {
        return fail(r->rule, MERO_ADM_RULE_BINDING, r->err, NULL);
    }
    return 0;
}

static int chk_denied(struct adm_run *r)
{
    bool yes;
    MERO_TRY(mero_gov_is_denied(r->s, r->c->group, r->c->member, &yes));
    if (!yes) {
        return 0;
    }
    /* the one reason with a parameter: the group, where the table says %s */
    char h[MERO_HEX_SIZE(8)]; /* the group id's first 8 bytes */
    const char *t = mero_adm_rule_reason(MERO_ADM_RULE_DENIED);
    const char *at = strstr(t, "%s");
    mero_hex_encode(h, r->c->group, 8);
    if (r->rule != NULL) {
        *r->rule = MERO_ADM_RULE_DENIED;
    }
    return mero_err_set(r->err, MERO_EREMOVED, "%.*s%s%s", (int)(at - t), t, h, at + 2);
}

static int chk_no_root_row(struct adm_run *r)
{
    int role;
    if (r->c->root_form) {
        return 0;
    }
    MERO_TRY(mero_gov_direct_role(r->s, r->ns, r->c->member, &role));
    return mero_role_is_tee(role) ? 0 : fail(r->rule, MERO_ADM_RULE_NO_ROOT_ROW, r->err, NULL);
}

static int chk_role_locked(struct adm_run *r)
{
    bool yes = false;
    if (r->c->publishing) {
        MERO_TRY(mero_gov_holds_row(r->s, r->ns, r->c->member, false, &yes));
    }
    return yes ? fail(r->rule, MERO_ADM_RULE_ROLE_LOCKED, r->err, NULL) : 0;
}

/*
 * Spent quote (spec step 8). Issue 30: peers judge it too, at the op's place in the canonical
 * order (the spent rows are derived in that order), so two admissions with one quote end the
 * same on every peer - the first in the order takes effect, the other is kept without effect -
 * where the spec leaves it to the admitter because peers applying in arrival order would
 * disagree. A peer without the quote (subgroup form) judges the recorded hash.
 */
static int chk_quote_used(struct adm_run *r)
{
    const struct mero_adm_case *c = r->c;
    uint8_t qh[MERO_QUOTE_HASH_LEN];
    bool yes;
    if (!c->publishing) {
        return 0;
    }
    if (r->has_quote) {
        mero_sha256(qh, c->quote, c->quote_len);
    } else if (c->quote_hash != NULL) {
        memcpy(qh, c->quote_hash, sizeof(qh));
    } else {
        return fail(r->rule, MERO_ADM_RULE_QUOTE_LENGTH, r->err, NULL);
    }
    if (c->root_form) {
        MERO_TRY(mero_gov_is_quote_hash_used(r->s, r->ns, qh, &yes));
    } else {
        MERO_TRY(mero__gov_spent(r->s, r->ns, qh, GOV_SPENT_ADMISSION, c->group, &yes));
    }
    return yes ? fail(r->rule, MERO_ADM_RULE_QUOTE_USED, r->err, NULL) : 0;
}

/* ---- the sequence ------------------------------------------------------------------------- */

/* The quote-fact row has no name: its rules' names and reasons are trust_rules.c's. */
static const struct adm_rule rules[] = {
    {MERO_ADM_RULE_NO_POLICY, "NoPolicy", MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group",
     SIDE_BOTH, chk_no_policy},
    {MERO_ADM_RULE_ROLE_NOT_MODE, "RoleNotPolicyMode", MERO_EREFUSED,
     "the admission records a role other than the one the namespace policy mode names", SIDE_BOTH,
     chk_role_not_mode},
    {MERO_ADM_RULE_NO_TD_FACTS, "TdFactsUnknown", MERO_EREFUSED,
     "the verified quote's TD attributes are unknown, so the TD-attribute rules cannot be "
     "judged",
     SIDE_ADMITTER, chk_no_td_facts},
    {MERO_ADM_RULE_OK, NULL, MERO_EREFUSED, NULL, SIDE_BOTH, chk_quote_facts},
    {MERO_ADM_RULE_QUOTE_LENGTH, "QuoteLength", MERO_EREFUSED,
     "the quote is missing or longer than MAX_TEE_QUOTE_BYTES (16384)", SIDE_BOTH,
     chk_quote_length},
    {MERO_ADM_RULE_QUOTE_HASH, "QuoteHash", MERO_EREFUSED, "quote_hash is not SHA-256 of the quote",
     SIDE_BOTH, chk_quote_hash},
    {MERO_ADM_RULE_QUOTE_UNREADABLE, "QuoteUnreadable", MERO_EREFUSED,
     "the carried quote does not parse", SIDE_PEER, chk_quote_unreadable},
    {MERO_ADM_RULE_TD_FACTS_MISMATCH, "TdFactsMismatch", MERO_EREFUSED,
     "the TD facts the admission records (mock or real, TDATTRIBUTES, MRSERVICETD) differ from "
     "the carried quote's TD report",
     SIDE_PEER, chk_td_facts_mismatch},
    {MERO_ADM_RULE_MEASUREMENTS_MISMATCH, "MeasurementsMismatch", MERO_EREFUSED,
     "the measurements the admission records (MRTD, RTMR0-3) differ from the carried quote's "
     "TD report",
     SIDE_PEER, chk_measurements_mismatch},
    {MERO_ADM_RULE_MOCK_TCB, "MockTcbStatus", MERO_EREFUSED,
     "a mock quote must record tcb_status Mock", SIDE_PEER, chk_mock_tcb},
    {MERO_ADM_RULE_RELEASE, "Release", MERO_EREFUSED,
     "the quote matches no allowed release profile", SIDE_ADMITTER, chk_release},
    {MERO_ADM_RULE_CREDENTIAL, "Credential", MERO_EREFUSED,
     "the account credential does not certify the attested key", SIDE_BOTH, chk_credential},
    {MERO_ADM_RULE_BINDING, "Binding", MERO_EREFUSED,
     "the quote does not commit to the credential admitted in this namespace (admission "
     "binding mismatch)",
     SIDE_BOTH, chk_binding},
    {MERO_ADM_RULE_DENIED, "RemovedFromGroup", MERO_EREMOVED,
     "was removed from group %s and cannot rejoin", SIDE_BOTH, chk_denied},
    {MERO_ADM_RULE_NO_ROOT_ROW, "NoRootTeeRow", MERO_EREFUSED,
     "a subgroup admission needs a TEE already admitted at the namespace root", SIDE_BOTH,
     chk_no_root_row},
    {MERO_ADM_RULE_ROLE_LOCKED, "TeeMemberRoleLocked", MERO_ETEE_ROLE_LOCKED,
     "TeeMemberRoleLocked: the member holds a non-TEE row in the namespace", SIDE_BOTH,
     chk_role_locked},
    {MERO_ADM_RULE_QUOTE_USED, "QuoteAlreadyUsed", MERO_EQUOTEUSED,
     "TEE attestation quote already used", SIDE_BOTH, chk_quote_used},
};
#define N_RULES (sizeof(rules) / sizeof(rules[0]))

static const struct adm_rule *ns_rule(int id)
{
    for (size_t i = 0; i < N_RULES; i++) {
        if (rules[i].id == id && rules[i].name != NULL) {
            return &rules[i];
        }
    }
    return NULL;
}

int mero_gov_admission_rules(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             const struct mero_tee_policy *p, const struct mero_adm_case *c,
                             int *rule, struct mero_err *err)
{
    struct adm_run r = {
        .s = s,
        .ns = ns,
        .p = p,
        .c = c,
        .admitter = c->side == MERO_ADM_SIDE_ADMITTER,
        .has_quote = c->quote != NULL,
        .rule = rule,
        .err = err,
    };
    r.is_mock = c->is_mock || (r.has_quote && mero_mock_is_mock(c->quote, c->quote_len));
    int side = r.admitter ? SIDE_ADMITTER : SIDE_PEER;
    if (rule != NULL) {
        *rule = MERO_ADM_RULE_OK;
    }
    for (size_t i = 0; i < N_RULES; i++) {
        if ((rules[i].sides & side) != 0) {
            MERO_TRY(rules[i].check(&r));
        }
    }
    return 0;
}
