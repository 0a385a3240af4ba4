/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_check.c - issue 36 (docs/audit.md): the checks of each quote on an audit timeline.
 *   dcap     the quote against the collateral the log carries for it (an evidence op's, for a
 *            join the evidence op carrying the same quote) at that evidence's attested_at,
 *            by mero_dcap_verify_evidence (the verifier every peer runs), its reason on
 *            failure; a mock quote is MOCK ("mock: not hardware-backed"), never verified;
 *   binding  report_data[32..64] is the admission binding of the credential the op admitted
 *            (namespace, group, member, account, KEM key, device);
 *   policy   the quote facts (the DCAP verdict's for verified evidence, else the facts the
 *            join records) against the policy in force, through gov's quote-fact rules.
 *
 * Invariant: every failed check is a finding naming the op's file and the TEE, except on a
 * "refused" event (an op the log gave no effect: its checks say why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/audit_internal.h"
#include "gov/gov_internal.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "mero/encoding.h"

static void set(struct mero_audit_check *c, int verdict, const char *prefix, const char *msg)
{
    c->verdict = verdict;
    snprintf(c->msg, sizeof(c->msg), "%s%.200s", prefix, msg != NULL ? msg : "");
}

/* The credential a quote must bind: the join's account, or the evidence's. */
static const struct mero_credential *credential_of(const struct mero_op *op)
{
    if (op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE && op->scope == MERO_SCOPE_GROUP) {
        return &op->evidence.account;
    }
    return op->join.has_account ? &op->join.account : NULL;
}

struct quote_view {
    const uint8_t *q;
    size_t len;
    const uint8_t *member;
};

static void quote_of(const struct mero_op *op, struct quote_view *v)
{
    if (op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE && op->scope == MERO_SCOPE_GROUP) {
        v->q = op->evidence.quote;
        v->len = op->evidence.quote_len;
        v->member = op->evidence.attested_key;
    } else {
        v->q = op->join.quote;
        v->len = op->join.quote_len;
        v->member = op->join.member;
    }
}

static void check_dcap(const struct mero_audit_log *log, struct mero_audit_event *e,
                       const struct quote_view *qv, const uint8_t bind[MERO_APP_HASH_LEN],
                       struct mero_dcap_result *res, bool *verified)
{
    struct mero_err err = {0};
    *verified = false;
    if (e->coll_op == MERO_AUDIT_NONE) {
        set(&e->dcap, MERO_AUDIT_FAIL, "",
            "no collateral in the log for this quote: it cannot be verified offline");
        return;
    }
    const struct mero_tee_evidence *ev = &log->ops[e->coll_op].op.evidence;
    int rc = mero_dcap_verify_evidence(qv->q, qv->len, (const char *)ev->collateral,
                                       ev->collateral_len, ev->attested_at, bind, res, &err);
    if (rc == 0) {
        char msg[MERO_AUDIT_MSG_SIZE];
        snprintf(msg, sizeof(msg), "verified at %llu: %s", (unsigned long long)ev->attested_at,
                 res->has_tcb_status ? mero_tcb_status_name(res->tcb_status) : "?");
        set(&e->dcap, MERO_AUDIT_OK, "", msg);
        if (res->has_tcb_status) {
            snprintf(e->tcb_status, sizeof(e->tcb_status), "%s",
                     mero_tcb_status_name(res->tcb_status));
        }
        *verified = true;
    } else {
        set(&e->dcap, MERO_AUDIT_FAIL, "", err.msg[0] != '\0' ? err.msg : mero_errdesc(-rc));
    }
}

/* Release form, a real quote: its registers in an allowed profile of an exported release. */
static void check_release(const struct mero_audit_log *log, struct mero_audit_event *e,
                          const struct mero_tee_policy *p, const struct mero_release_meas *rm)
{
    struct mero_err err = {0};
    char name[MERO_AUDIT_PATH_MAX], msg[MERO_AUDIT_MSG_SIZE];
    size_t k = MERO_AUDIT_NONE;
    if (log->no_release_files) {
        set(&e->policy, MERO_AUDIT_NA, "",
            "TCB and TD rules hold; the release match is checked on an export made with "
            "--releases");
        return;
    }
    if (mero_audit_release_match(log, p, rm, &k, e->profile, sizeof(e->profile), &err) < 0) {
        e->profile[0] = '\0';
        set(&e->policy, MERO_AUDIT_FAIL, "release form: ", err.msg);
        return;
    }
    e->release = k;
    mero_audit_release_file(&log->rels[k], 0, name);
    snprintf(msg, sizeof(msg), "registers match profile %.32s of signed release %.32s (%.86s)",
             e->profile, log->rels[k].rel->tag, name);
    set(&e->policy, MERO_AUDIT_OK, "", msg);
}

static void check_policy(const struct mero_audit_log *log, struct mero_audit_event *e, bool is_mock,
                         const struct mero_dcap_result *res, bool verified)
{
    const struct mero_op *op = &log->ops[e->op].op;
    struct mero_err err = {0};
    if (e->policy_op == MERO_AUDIT_NONE) {
        set(&e->policy, MERO_AUDIT_FAIL, "", "no policy in force at this point of the log");
        return;
    }
    const struct mero_tee_policy *p = &log->ops[e->policy_op].op.policy;
    bool lists = p->form == MERO_POLICY_MEASUREMENT && !is_mock;
    struct mero_release_meas rm;
    int rc;
    memset(&rm, 0, sizeof(rm));
    if (op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE && op->scope == MERO_SCOPE_GROUP) {
        struct mero_measurements m;
        uint64_t attr = 0;
        if (!is_mock && !verified) {
            set(&e->policy, MERO_AUDIT_NA, "", "no DCAP verdict to judge");
            return;
        }
        memset(&m, 0, sizeof(m));
        if (!is_mock) {
            memcpy(rm.mrtd, res->mrtd, sizeof(rm.mrtd));
            memcpy(rm.rtmr, res->rtmr, sizeof(rm.rtmr));
            mero_measurements_from_raw(&m, res->mrtd, (const uint8_t(*)[MERO_MR_LEN])res->rtmr);
            for (int i = MERO_TD_ATTRIBUTES_LEN - 1; i >= 0; i--) {
                attr = (attr << 8) | res->td_attributes[i];
            }
        }
        static const uint8_t zero[MERO_MR_LEN];
        rc = mero_gov_trust_rules(p, is_mock, is_mock ? "Mock" : e->tcb_status, &m, !is_mock, attr,
                                  res->td15 ? res->mrservicetd : zero, lists, NULL, &err);
    } else {
        const struct mero_tee_join *j = &op->join;
        bool ok[1 + MERO_RTMR_COUNT];
        rc = mero_gov_trust_rules(p, is_mock, j->tcb_status, &j->m, j->has_td, j->td_attributes,
                                  j->mrservicetd, lists, NULL, &err);
        if (rc == 0 && !is_mock && p->form == MERO_POLICY_RELEASE &&
            mero_measurements_to_raw(&j->m, rm.mrtd, rm.rtmr, ok) < 0) {
            rc = mero_err_set(&err, MERO_EREFUSED,
                              "the registers the join records are not 48-byte values");
        }
    }
    if (rc < 0) {
        set(&e->policy, MERO_AUDIT_FAIL, "", err.msg);
    } else if (p->form != MERO_POLICY_RELEASE) {
        set(&e->policy, MERO_AUDIT_OK, "", "measurements, TCB and TD rules hold");
    } else if (is_mock) {
        set(&e->policy, MERO_AUDIT_OK, "",
            "TCB and TD rules hold (a mock quote is matched against no release)");
    } else {
        check_release(log, e, p, &rm);
    }
}

/*
 * A sealed subgroup admission applied from the plaintext its exporter disclosed: nothing
 * authenticates that plaintext offline (no key), so dcap says so; binding checks what can be:
 * the member, its measurements and TCB status are those of an effective root admission of the
 * same member earlier in the log (which carried the quote checked on its own event).
 */
static void check_disclosed(const struct mero_audit_log *log, struct mero_audit_event *e)
{
    char hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)], msg[MERO_AUDIT_MSG_SIZE];
    const struct mero_tee_join *j = &log->ops[e->op].op.join;
    mero_hex_encode(hex, log->ops[e->op].hash, MERO_OP_ID_LEN);
    snprintf(msg, sizeof(msg),
             "sealed: plaintext disclosed by the exporter (sealed/%s.bin), not authenticated "
             "without the namespace key",
             hex);
    set(&e->dcap, MERO_AUDIT_NA, "", msg);
    for (size_t i = e->op; i-- > 0;) {
        const struct mero_audit_op *o = &log->ops[i];
        const struct mero_tee_join *r = &o->op.join;
        if (!o->decoded || o->state != MERO_OP_EFFECTIVE || o->op.scope != MERO_SCOPE_ROOT ||
            o->op.kind != MERO_ROOT_MEMBER_JOINED_TEE ||
            memcmp(r->member, j->member, MERO_IDENTITY_LEN) != 0) {
            continue;
        }
        if (memcmp(&r->m, &j->m, sizeof(r->m)) == 0 && strcmp(r->tcb_status, j->tcb_status) == 0) {
            snprintf(msg, sizeof(msg),
                     "the disclosed member, measurements and TCB status are those of its root "
                     "admission %.16s",
                     o->file + strlen("ops/"));
            set(&e->binding, MERO_AUDIT_OK, "", msg);
            return;
        }
    }
    snprintf(msg, sizeof(msg),
             "sealed/%s.bin: the disclosed admission matches no root admission of its member "
             "(member, measurements, TCB status)",
             hex);
    set(&e->binding, MERO_AUDIT_FAIL, "", msg);
}

static int check_event(const struct mero_audit_log *log, struct mero_store *s,
                       struct mero_audit_event *e)
{
    if (e->op == MERO_AUDIT_NONE ||
        (e->kind != MERO_AUDIT_ADMITTED && e->kind != MERO_AUDIT_CONVERTED &&
         e->kind != MERO_AUDIT_REFRESH && e->kind != MERO_AUDIT_REFUSED)) {
        return 0;
    }
    const struct mero_op *op = &log->ops[e->op].op;
    bool join = (op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE) ||
                (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_JOINED_TEE);
    bool ev = op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    if (!join && !ev) {
        return 0; /* a conversion by MemberRoleSet (a policy mode change) carries no quote */
    }
    struct quote_view qv;
    quote_of(op, &qv);
    bool is_mock = false, verified = false;
    struct mero_dcap_result *res = calloc(1, sizeof(*res));
    if (res == NULL) {
        return -MERO_ENOMEM;
    }
    if (qv.len == 0 && log->ops[e->op].disclosed) {
        check_disclosed(log, e);
        is_mock = strcmp(op->join.tcb_status, "Mock") == 0;
        check_policy(log, e, is_mock, res, false);
        free(res);
        return 0;
    }
    if (qv.len == 0) {
        /* the subgroup form: the quote is the root admission's */
        set(&e->dcap, MERO_AUDIT_NA, "", "subgroup form: the quote is the root admission's");
        set(&e->binding, MERO_AUDIT_NA, "", "");
        is_mock = strcmp(op->join.tcb_status, "Mock") == 0;
        check_policy(log, e, is_mock, res, false);
        free(res);
        return 0;
    }
    uint8_t rd[MERO_REPORT_DATA_LEN] = {0}, bind[MERO_APP_HASH_LEN], qh[MERO_QUOTE_HASH_LEN];
    struct mero_err err = {0};
    const struct mero_credential *cred = credential_of(op);
    mero_sha256(qh, qv.q, qv.len);
    if (cred != NULL) {
        mero_admission_binding(bind, log->ns, e->group, qv.member, cred->cert.account,
                               cred->cert.kem_pk, cred->cert.device);
    } else {
        memset(bind, 0, sizeof(bind));
    }
    if (mero__gov_report_data(s, qv.q, qv.len, rd, &is_mock, &err) < 0) {
        set(&e->binding, MERO_AUDIT_FAIL, "the quote's report data cannot be read: ", err.msg);
    } else if (e->quote_op == e->op && op->scope == MERO_SCOPE_ROOT &&
               memcmp(qh, op->join.quote_hash, sizeof(qh)) != 0) {
        set(&e->binding, MERO_AUDIT_FAIL, "", "the quote is not the one quote_hash names");
    } else if (cred == NULL) {
        set(&e->binding, MERO_AUDIT_FAIL, "", "the op carries no credential to bind");
    } else if (!mero_ct_eq(rd + MERO_NONCE_LEN, bind, sizeof(bind))) {
        set(&e->binding, MERO_AUDIT_FAIL, "",
            "report_data does not commit to the credential the op admitted");
    } else {
        set(&e->binding, MERO_AUDIT_OK, "", "report_data commits to the admitted credential");
    }
    if (is_mock) {
        set(&e->dcap, MERO_AUDIT_MOCK, "", "mock: not hardware-backed");
        snprintf(e->tcb_status, sizeof(e->tcb_status), "%s", "Mock");
    } else {
        /* DCAP judged on its own (bound to the quote's own report data); the binding to the
         * credential is the check above */
        check_dcap(log, e, &qv, rd + MERO_NONCE_LEN, res, &verified);
    }
    check_policy(log, e, is_mock, res, verified);
    free(res);
    return 0;
}

int mero__audit_check(struct mero_audit_log *log, struct mero_store *s,
                      struct mero_audit_findings *f)
{
    for (size_t t = 0; t < log->ntees; t++) {
        char id[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
        mero__audit_hex(id, log->tees[t].id);
        for (size_t k = 0; k < log->tees[t].nev; k++) {
            struct mero_audit_event *e = &log->tees[t].ev[k];
            MERO_TRY(check_event(log, s, e));
            const struct mero_audit_check *c[] = {&e->dcap, &e->binding, &e->policy};
            static const char *const names[] = {"dcap", "binding", "policy"};
            for (size_t i = 0; i < 3; i++) {
                /* a refused op's checks explain its refusal; they are not the export's */
                if (c[i]->verdict == MERO_AUDIT_FAIL && e->kind != MERO_AUDIT_REFUSED) {
                    MERO_TRY(
                        mero_audit_finding(f, "%s (TEE %.16s, %s): %s: %s", log->ops[e->op].file,
                                           id, mero_audit_kind_name(e->kind), names[i], c[i]->msg));
                }
            }
        }
    }
    return 0;
}
