/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_tee.c - the apply-time invariants of a TEE admission (MemberJoinedViaTeeAttestation,
 * both forms) and of TeeAuthorityEvidence, re-checked by every peer (spec "Verify and admit",
 * Caution "Normative", "Signed-release policies").
 *
 * Invariants: an admission is stored only when its signer may vouch (an admin of the group or
 * a TEE member of it), a policy exists, the recorded role is the one the policy mode names,
 * the recorded measurements satisfy the lists (under a release policy only the TCB status),
 * the member is not on the group's deny list, and - for the cleartext form - the carried quote
 * hashes to quote_hash and its report data commits to the carried credential in this
 * namespace. Evidence is stored only when its quote verifies offline against the collateral
 * it carries (mero_dcap_verify_evidence, or the caller's hook) or is an accepted mock, binds the
 * credential, and its TCB status passes the policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/dcap.h"

static const char SQL_ACCOUNT[] = "SELECT account FROM members WHERE grp = ? AND member = ?";

static int root_account(struct mero_store *s, const uint8_t ns[32], const uint8_t member[32],
                        uint8_t account[32])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ACCOUNT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, 32, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, 32, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == 32) {
        memcpy(account, sqlite3_column_blob(st, 0), 32);
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

/* Offline DCAP check against the carried collateral (reference-calimero.md §1.7). */
static int default_evidence_verify(const uint8_t ns[32], const uint8_t group[32],
                                   const struct mero_tee_evidence *ev,
                                   struct mero_evidence_verdict *v, struct mero_err *err)
{
    uint8_t b[32];
    struct mero_dcap_result *res = calloc(1, sizeof(*res));
    if (res == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_admission_binding(b, ns, group, ev->attested_key, ev->account.cert.account,
                           ev->account.cert.kem_pk, ev->account.cert.device);
    int rc = mero_dcap_verify_evidence(
        ev->quote, ev->quote_len, ev->has_collateral ? (const char *)ev->collateral : NULL,
        ev->has_collateral ? ev->collateral_len : 0, ev->attested_at, b, res, err);
    if (rc == 0 && !res->has_tcb_status) {
        rc = mero_err_set(err, MERO_EREFUSED, "the evidence verdict carries no TCB status");
    }
    if (rc == 0) {
        v->is_mock = false;
        snprintf(v->tcb_status, sizeof(v->tcb_status), "%s", mero_tcb_status_name(res->tcb_status));
        mero_hex_encode(v->m.mrtd, res->mrtd, 48);
        for (int i = 0; i < 4; i++) {
            mero_hex_encode(v->m.rtmr[i], res->rtmr[i], 48);
        }
        memcpy(v->report_data, res->report_data, 64);
    }
    free(res);
    return rc;
}

static int need_voucher(struct actx *a, const uint8_t group[32], struct mero_err *err)
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

/* The checks both forms share, with the policy already read. */
static int join_rules(struct actx *a, const struct mero_tee_join *j,
                      const struct mero_tee_policy *p, bool is_mock, struct mero_err *err)
{
    char h[17];
    int want = mero_tee_mode_role(p->mode);
    if (j->role != want) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the admission records role %s but the namespace policy mode names %s",
                            mero_role_name(j->role), mero_role_name(want));
    }
    if (is_mock && !p->accept_mock) {
        return mero_err_set(err, MERO_EREFUSED, "mock attestation rejected by group policy");
    }
    if (!mero__gov_tcb_allowed(&p->tcb, j->tcb_status, is_mock, p->accept_mock)) {
        return mero_err_set(err, MERO_EREFUSED, "TCB status not in policy allowlist");
    }
    if (p->form == MERO_POLICY_MEASUREMENT) {
        MERO_TRY(mero__gov_check_measurements(p, &j->m, err));
    }
    bool denied;
    MERO_TRY(mero_gov_is_denied(a->s, j->group_id, j->member, &denied));
    if (denied) {
        return mero_err_set(err, MERO_EREMOVED, "was removed from group %s and cannot rejoin",
                            mero__gov_short(j->group_id, h));
    }
    return 0;
}

int mero__gov_h_join(struct actx *a, const struct mero_tee_join *j, bool root_form,
                     struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t account[32];
    bool is_mock = strcmp(j->tcb_status, "Mock") == 0;
    MERO_TRY(mero__gov_in_ns(a, j->group_id, err));
    MERO_TRY(need_voucher(a, j->group_id, err));
    struct mero_tee_policy p;
    bool found;
    MERO_TRY(mero_gov_read_policy(a->s, op->ns, &p, &found, err));
    if (!found) {
        return mero_err_set(err, MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group");
    }
    int rc = 0;
    if (root_form) {
        uint8_t qh[32];
        rc = mero_credential_certifies(j->member, &j->account, err);
        if (rc == 0 && (j->quote_len == 0 || j->quote_len > MERO_GOV_MAX_QUOTE_BYTES)) {
            rc = mero_err_set(err, MERO_EREFUSED, "the admission carries no usable quote");
        }
        if (rc == 0) {
            mero_sha256(qh, j->quote, j->quote_len);
            if (!mero_ct_eq(qh, j->quote_hash, 32)) {
                rc = mero_err_set(err, MERO_EREFUSED,
                                  "the carried quote does not hash to the recorded quote_hash");
            }
        }
        if (rc == 0) {
            rc = mero__gov_check_binding(a->s, op->ns, j->group_id, j->member, &j->account,
                                         j->quote, j->quote_len, &is_mock, err);
        }
        if (rc == 0 && is_mock && strcmp(j->tcb_status, "Mock") != 0) {
            rc = mero_err_set(err, MERO_EREFUSED, "a mock quote must record tcb_status Mock");
        }
        memcpy(account, j->account.cert.account, 32);
    } else {
        if (memcmp(j->group_id, op->ns, 32) == 0) {
            rc = mero_err_set(err, MERO_EREFUSED,
                              "the subgroup admission form cannot target the namespace root");
        } else {
            int r;
            rc = mero_gov_direct_role(a->s, op->ns, j->member, &r);
            if (rc == 0 && !mero_role_is_tee(r)) {
                rc = mero_err_set(err, MERO_EREFUSED,
                                  "a subgroup admission needs a TEE already admitted at the "
                                  "namespace root");
            }
            if (rc == 0) {
                rc = root_account(a->s, op->ns, j->member, account);
            }
        }
    }
    if (rc == 0) {
        rc = join_rules(a, j, &p, is_mock, err);
    }
    mero_tee_policy_cleanup(&p);
    MERO_TRY(rc);

    int cur;
    MERO_TRY(mero_gov_direct_role(a->s, j->group_id, j->member, &cur));
    if (cur != MERO_ROLE_NONE && !mero_role_is_tee(cur)) {
        return mero_err_set(err, MERO_ETEE_ROLE_LOCKED,
                            "TeeMemberRoleLocked: the member holds a non-TEE row in the group");
    }
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
    bool found;
    MERO_TRY(mero_gov_read_policy(a->s, op->ns, &p, &found, err));
    if (!found) {
        return mero_err_set(err, MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group");
    }
    struct mero_evidence_verdict v;
    uint8_t binding_ok_rd[64];
    bool is_mock = false;
    int rc = mero__gov_report_data(a->s, ev->quote, ev->quote_len, binding_ok_rd, &is_mock, err);
    memset(&v, 0, sizeof(v));
    if (rc == 0 && is_mock) {
        v.is_mock = true;
        memcpy(v.tcb_status, "Mock", 5);
        memcpy(v.report_data, binding_ok_rd, 64);
    } else if (rc == 0) {
        struct mero_err e2 = {0};
        if (a->s->hooks.evidence_verify != NULL) {
            rc = a->s->hooks.evidence_verify(a->s->hooks.ud, ev->quote, ev->quote_len,
                                             ev->has_collateral ? ev->collateral : NULL,
                                             ev->has_collateral ? ev->collateral_len : 0,
                                             ev->attested_at, &v, &e2);
        } else {
            rc = default_evidence_verify(op->ns, op->group_id, ev, &v, &e2);
        }
        if (rc < 0) {
            rc = mero_err_set(err, MERO_EREFUSED, "the evidence quote does not verify: %s", e2.msg);
        }
    }
    if (rc == 0) {
        uint8_t b[32];
        mero_admission_binding(b, op->ns, op->group_id, ev->attested_key, ev->account.cert.account,
                               ev->account.cert.kem_pk, ev->account.cert.device);
        if (!mero_ct_eq(v.report_data + 32, b, 32)) {
            rc = mero_err_set(err, MERO_EREFUSED,
                              "the evidence quote does not commit to its credential in this "
                              "namespace");
        }
    }
    if (rc == 0 && v.is_mock && !p.accept_mock) {
        rc = mero_err_set(err, MERO_EREFUSED, "mock attestation rejected by group policy");
    }
    if (rc == 0 && !mero__gov_tcb_allowed(&p.tcb, v.tcb_status, v.is_mock, p.accept_mock)) {
        rc = mero_err_set(err, MERO_EREFUSED, "TCB status not in policy allowlist");
    }
    if (rc == 0 && !v.is_mock && p.form == MERO_POLICY_MEASUREMENT) {
        rc = mero__gov_check_measurements(&p, &v.m, err);
    }
    mero_tee_policy_cleanup(&p);
    MERO_TRY(rc);
    uint8_t qh[32];
    mero_sha256(qh, ev->quote, ev->quote_len);
    MERO_TRY(mero__gov_evidence_put(a->s, op->group_id, ev->attested_key, qh, ev->attested_at,
                                    v.tcb_status, a->hash));
    MERO_TRY(mero__gov_spent_put(a->s, op->ns, qh, GOV_SPENT_EVIDENCE, op->group_id));
    return mero__gov_ev(a, MERO_EV_EVIDENCE_RECORDED, op->group_id, ev->attested_key, r, NULL);
}
