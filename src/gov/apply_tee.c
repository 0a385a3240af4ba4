/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_tee.c - the apply-time invariants of a TEE admission (MemberJoinedViaTeeAttestation,
 * both forms) and of TeeAuthorityEvidence, re-checked by every peer (spec "Verify and admit",
 * Caution "Normative", "Signed-release policies").
 *
 * The admission rules are mero_gov_admission_rules (admission_rules.c) run as a peer - the
 * same sequence the admitter ran, the spent-quote rule included (issue 30: judged at the op's
 * place in the canonical order, so every peer agrees), minus the release fetch.
 *
 * Invariants: an admission is stored only when its signer may vouch (an admin of the group or
 * a TEE member of it) and every rule passes: a policy exists, the recorded role is the one the
 * policy mode names, the TCB status, TD attributes (V2 joins) and recorded measurements satisfy
 * the policy (under a release policy the measurements are the voucher's word), the member is
 * not on the group's deny list and holds no non-TEE row in the namespace, and - for the
 * cleartext form - the carried quote hashes to quote_hash, the facts the op records (mock or
 * real, TD facts, MRTD and RTMR0..3) are what the carried real quote's TD report says, and its
 * report data commits to the carried credential in this namespace. Evidence is stored only when its
 * quote verifies offline against the collateral it carries (mero_dcap_verify_evidence, or the
 * caller's hook) or is an accepted mock, binds the credential, and passes the quote-fact rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/dcap.h"

static const char SQL_ACCOUNT[] = "SELECT account FROM members WHERE grp = ? AND member = ?";

static int root_account(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t member[MERO_IDENTITY_LEN],
                        uint8_t account[MERO_ACCOUNT_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ACCOUNT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_ACCOUNT_ID_LEN) {
        memcpy(account, sqlite3_column_blob(st, 0), MERO_ACCOUNT_ID_LEN);
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

/*
 * The advisory IDs of a verdict as one comma-separated text: IDs of letters, digits, '-', '_'
 * and '.' only (anything else is not an Intel advisory ID and is left off), duplicates once,
 * and an ID that would not fit is left off whole.
 */
void mero__gov_advisories_join(char out[MERO_GOV_ADVISORIES_MAX],
                               const char (*ids)[MERO_DCAP_ADVISORY_LEN], size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *id = ids[i];
        size_t l = strnlen(id, MERO_DCAP_ADVISORY_LEN);
        bool ok = l > 0 && l < MERO_DCAP_ADVISORY_LEN;
        for (size_t k = 0; ok && k < l; k++) {
            char c = id[k];
            ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
        }
        if (!ok || mero__gov_advisories_has(out, id, l) ||
            len + (len > 0) + l + 1 > MERO_GOV_ADVISORIES_MAX) {
            continue;
        }
        if (len > 0) {
            out[len++] = ',';
        }
        memcpy(out + len, id, l);
        len += l;
        out[len] = '\0';
    }
}

bool mero__gov_advisories_has(const char *list, const char *id, size_t l)
{
    for (const char *p = list; *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t pl = e != NULL ? (size_t)(e - p) : strlen(p);
        if (pl == l && memcmp(p, id, l) == 0) {
            return true;
        }
        p += pl + (e != NULL);
    }
    return false;
}

/* Offline DCAP check against the carried collateral (reference-calimero.md §1.7). */
static int default_evidence_verify(const uint8_t ns[MERO_NS_ID_LEN],
                                   const uint8_t group[MERO_GROUP_ID_LEN],
                                   const struct mero_tee_evidence *ev,
                                   struct mero_evidence_verdict *v, struct mero_err *err)
{
    uint8_t b[MERO_APP_HASH_LEN];
    int rc;
    struct mero_dcap_result *res = calloc(1, sizeof(*res));
    MERO_ENSURE(res != NULL, err, MERO_ENOMEM, "out of memory");
    mero_admission_binding(b, ns, group, ev->attested_key, ev->account.cert.account,
                           ev->account.cert.kem_pk, ev->account.cert.device);
    MERO_TRY_OUT(mero_dcap_verify_evidence(
        ev->quote, ev->quote_len, ev->has_collateral ? (const char *)ev->collateral : NULL,
        ev->has_collateral ? ev->collateral_len : 0, ev->attested_at, b, res, err));
    MERO_ENSURE_OUT(res->has_tcb_status, err, MERO_EREFUSED,
                    "the evidence verdict carries no TCB status");
    v->is_mock = false;
    snprintf(v->tcb_status, sizeof(v->tcb_status), "%s", mero_tcb_status_name(res->tcb_status));
    mero__gov_advisories_join(v->advisories,
                              (const char(*)[MERO_DCAP_ADVISORY_LEN])res->advisory_ids,
                              res->n_advisory_ids);
    mero_measurements_from_raw(&v->m, res->mrtd, (const uint8_t(*)[MERO_MR_LEN])res->rtmr);
    memcpy(v->report_data, res->report_data, sizeof(v->report_data));
    v->has_td = true;
    v->td_attributes = 0;
    for (int i = MERO_TD_ATTRIBUTES_LEN - 1; i >= 0; i--) {
        v->td_attributes = (v->td_attributes << 8) | res->td_attributes[i];
    }
    if (res->td15) {
        memcpy(v->mrservicetd, res->mrservicetd, sizeof(v->mrservicetd));
    }
out:
    free(res);
    return rc;
}

static int need_voucher(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN],
                        struct mero_err *err)
{
    bool vouch;
    MERO_TRY(mero_gov_may_vouch(a->s, group, a->op->signer, &vouch));
    if (!vouch) {
        return mero_err_set(err, MERO_ENOTVOUCHER,
                            "the signer is neither an admin nor an admitted TEE of the group, so "
                            "it may not vouch for an attestation");
    }
    return 0;
}

/* issue 32 (docs/admission.md "The Restricted boundary"): into a Restricted subgroup the
 * subgroup-form admission is signed by an admin of that subgroup; a TEE member of it vouches
 * for evidence there, but does not pull other TEEs in (ours never publishes it: tee-admit is
 * an admin's action). Open subgroups keep the spec's rule (an admin or an admitted TEE). */
static int restricted_boundary(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN],
                               struct mero_err *err)
{
    uint8_t parent[MERO_GROUP_ID_LEN];
    int vis = MERO_GROUP_OPEN;
    bool admin = false;
    MERO_TRY(mero_gov_group_info(a->s, group, parent, &vis));
    if (vis != MERO_GROUP_RESTRICTED) {
        return 0;
    }
    MERO_TRY(mero_gov_is_admin(a->s, group, a->op->signer, &admin));
    if (!admin) {
        return mero_err_set(err, MERO_ENOTVOUCHER,
                            "a Restricted subgroup admits a TEE only through its admins "
                            "(tee_subgroup_admit): the signer is not an admin of the subgroup");
    }
    return 0;
}

int mero__gov_h_join(struct actx *a, const struct mero_tee_join *j, bool root_form,
                     struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t account[MERO_ACCOUNT_ID_LEN];
    MERO_TRY(mero__gov_in_ns(a, j->group_id, err));
    MERO_TRY(need_voucher(a, j->group_id, err));
    if (!root_form && memcmp(j->group_id, op->ns, MERO_NS_ID_LEN) == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the subgroup admission form cannot target the namespace root");
    }
    if (!root_form) {
        MERO_TRY(restricted_boundary(a, j->group_id, err));
    }
    struct mero_tee_policy p;
    bool found;
    MERO_TRY(mero_gov_read_policy(a->s, op->ns, &p, &found, err));
    /* the one rule set (admission_rules.c), as a peer: no spent check, no release fetch */
    struct mero_adm_case c = {
        .side = MERO_ADM_SIDE_PEER,
        .group = j->group_id,
        .member = j->member,
        .root_form = root_form,
        .check_role = true,
        .role = j->role,
        .publishing = true,
        .is_mock = strcmp(j->tcb_status, "Mock") == 0,
        .tcb_status = j->tcb_status,
        .m = &j->m,
        .has_td = j->has_td,
        .td_attributes = j->td_attributes,
        .mrservicetd = j->mrservicetd,
        .account = root_form ? &j->account : NULL,
        .quote = root_form ? j->quote : NULL,
        .quote_len = root_form ? j->quote_len : 0,
        .quote_hash = j->quote_hash,
    };
    int rc = mero_gov_admission_rules(a->s, op->ns, found ? &p : NULL, &c, NULL, err);
    mero_tee_policy_cleanup(&p);
    MERO_TRY(rc);
    if (root_form) {
        memcpy(account, j->account.cert.account, sizeof(account));
    } else {
        MERO_TRY(root_account(a->s, op->ns, j->member, account));
    }

    int cur;
    MERO_TRY(mero_gov_direct_role(a->s, j->group_id, j->member, &cur));
    MERO_TRY(mero__gov_row_tee(a->s, j->group_id, j, account));
    MERO_TRY(mero__gov_deny(a->s, j->group_id, j->member, false));
    MERO_TRY(mero__gov_spent_put(a->s, op->ns, j->quote_hash, GOV_SPENT_ADMISSION, j->group_id));
    if (cur == MERO_ROLE_NONE) {
        MERO_TRY(mero__gov_ev(a, MERO_EV_MEMBER_ADDED, j->group_id, j->member, j->role, NULL));
    } else if (cur != j->role) {
        MERO_TRY(mero__gov_ev(a, MERO_EV_MEMBER_ROLE_SET, j->group_id, j->member, j->role, NULL));
    }
    return mero__gov_ev(a, MERO_EV_TEE_MEMBER_ADMITTED, j->group_id, j->member, j->role, NULL);
}

int mero__gov_h_evidence(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    const struct mero_tee_evidence *ev = &op->evidence;
    int r;
    MERO_TRY(need_voucher(a, op->group_id, err));
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, ev->attested_key, &r));
    if (!mero_role_is_tee(r)) {
        return mero_err_set(err, MERO_EREFUSED,
                            "TeeAuthorityEvidence names a key that is not a TEE member of the "
                            "group");
    }
    MERO_TRY(mero_credential_certifies(ev->attested_key, &ev->account, err));
    if (ev->quote_len == 0 || ev->quote_len > MERO_GOV_MAX_QUOTE_BYTES) {
        return mero_err_set(err, MERO_EREFUSED, "the evidence carries no usable quote");
    }
    struct mero_tee_policy p;
    struct mero_evidence_verdict v;
    uint8_t rd[MERO_REPORT_DATA_LEN], b[MERO_APP_HASH_LEN];
    bool found, is_mock = false;
    int rc;
    MERO_TRY(mero_gov_read_policy(a->s, op->ns, &p, &found, err));
    MERO_ENSURE_OUT(found, err, MERO_ENOPOLICY, "%s",
                    mero_adm_rule_reason(MERO_ADM_RULE_NO_POLICY));
    memset(&v, 0, sizeof(v));
    MERO_TRY_OUT(mero__gov_report_data(a->s, ev->quote, ev->quote_len, rd, &is_mock, err));
    if (is_mock) {
        v.is_mock = true;
        snprintf(v.tcb_status, sizeof(v.tcb_status), "%s", "Mock");
        memcpy(v.report_data, rd, sizeof(v.report_data));
    } else {
        struct mero_err e2 = {0};
        if (a->s->hooks.evidence_verify != NULL) {
            rc = a->s->hooks.evidence_verify(a->s->hooks.ud, ev->quote, ev->quote_len,
                                             ev->has_collateral ? ev->collateral : NULL,
                                             ev->has_collateral ? ev->collateral_len : 0,
                                             ev->attested_at, &v, &e2);
        } else {
            rc = default_evidence_verify(op->ns, op->group_id, ev, &v, &e2);
        }
        MERO_ENSURE_OUT(rc >= 0, err, MERO_EREFUSED, "the evidence quote does not verify: %s",
                        e2.msg);
    }
    /* report data = nonce || application hash: the hash half commits to the credential */
    mero_admission_binding(b, op->ns, op->group_id, ev->attested_key, ev->account.cert.account,
                           ev->account.cert.kem_pk, ev->account.cert.device);
    MERO_ENSURE_OUT(mero_ct_eq(v.report_data + MERO_NONCE_LEN, b, sizeof(b)), err, MERO_EREFUSED,
                    "the evidence quote does not commit to its credential in this namespace");
    /* the quote-fact rules of the admission rule set (TD attributes included); the lists
     * only in the list form (spec "Signed-release policies") and only for a real quote (a
     * mock quote carries no registers; its admission was judged on the recorded ones) */
    MERO_TRY_OUT(mero_gov_trust_rules(&p, v.is_mock, v.tcb_status, &v.m, v.has_td && !v.is_mock,
                                      v.td_attributes, v.mrservicetd,
                                      p.form == MERO_POLICY_MEASUREMENT && !v.is_mock, NULL, err));
out:
    mero_tee_policy_cleanup(&p);
    MERO_TRY(rc);
    uint8_t qh[MERO_QUOTE_HASH_LEN];
    mero_sha256(qh, ev->quote, ev->quote_len);
    MERO_TRY(mero__gov_evidence_put(a->s, op->group_id, ev->attested_key, qh, ev->attested_at,
                                    v.tcb_status, v.advisories, a->hash));
    MERO_TRY(mero__gov_spent_put(a->s, op->ns, qh, GOV_SPENT_EVIDENCE, op->group_id));
    return mero__gov_ev(a, MERO_EV_EVIDENCE_RECORDED, op->group_id, ev->attested_key, r, NULL);
}
