/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admit.c - admit_tee_node (spec "Verify and admit" steps 1-10; reference-calimero.md §6.1):
 * the pure decision over a verified quote and the governance state, then the ops it publishes
 * in order - MemberJoinedViaTeeAttestation, TeeAuthorityEvidence, KeyDelivery. A root admission
 * is the cleartext RootOp form; a subgroup admission is the GroupOp form, encrypted under the
 * namespace group key (NamespaceOp tag 2) when we hold it, cleartext otherwise.
 *
 * The rules themselves are admission_rules.c's mero_gov_admission_rules, the sequence every
 * peer's apply runs too; this file decides only what an admission would publish (step 6).
 *
 * Invariants: a node that may not vouch publishes nothing (NotAVoucher), nor does a TEE whose
 * own evidence lapsed (MERO_GOV_EVIDENCE_MAX_AGE_SECS at req->now, refused); every refusal is
 * decided before anything is signed; the binding is re-checked from the quote about to be
 * published, and a quote already used in the namespace (admission or evidence) never admits or
 * refreshes again; the published join records the role the policy mode names and the quote's
 * TD facts, so every peer's apply-time check passes for exactly what the admitter decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/mock.h"

static int decide(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                  const struct mero_admit_request *req, const struct mero_tee_policy *p,
                  struct mero_admit_decision *d, char matched[MERO_GOV_PROFILE_NAME_MAX],
                  struct mero_err *reason)
{
    const uint8_t *g = req->group_id;
    bool root_form = memcmp(g, ns, MERO_NS_ID_LEN) == 0;
    bool is_mock = req->is_mock || mero_mock_is_mock(req->quote, req->quote_len);
    int want = p != NULL ? mero_tee_mode_role(p->mode) : MERO_ROLE_NONE;
    d->role = want;

    /* 6. idempotency, refresh, conversion: what an admission would publish */
    int cur;
    MERO_TRY(mero_gov_direct_role(s, g, req->member, &cur));
    if (cur != MERO_ROLE_NONE && !mero_role_is_tee(cur)) {
        d->outcome = MERO_ADMIT_ALREADY_MEMBER; /* spec: "already a member" reads as admitted */
    } else if (cur == want) {
        d->outcome = MERO_ADMIT_ALREADY_MEMBER;
        bool found;
        uint64_t at = 0;
        MERO_TRY(mero__gov_evidence_at(s, g, req->member, &found, &at));
        bool due = !found || req->now < at || mero_gov_evidence_due(at, req->now);
        d->publish_evidence = root_form && due;
    } else {
        d->outcome = cur == MERO_ROLE_NONE ? MERO_ADMIT_ADMITTED : MERO_ADMIT_CONVERTED;
        d->publish_join = true;
        d->publish_evidence = root_form;
    }
    /* 2-8: the one rule set (admission_rules.c), as the admitter */
    struct mero_adm_case c = {
        .side = MERO_ADM_SIDE_ADMITTER,
        .group = g,
        .member = req->member,
        .root_form = root_form,
        .role = want,
        .publishing = d->publish_join || d->publish_evidence,
        .is_mock = is_mock,
        .tcb_status = is_mock ? "Mock" : req->tcb_status,
        .m = &req->m,
        .has_td = req->has_td && !is_mock,
        .td_attributes = req->td_attributes,
        .mrservicetd = req->mrservicetd,
        .account = &req->account,
        .quote = req->quote,
        .quote_len = req->quote_len,
        .parsed = is_mock ? NULL : req->parsed_quote,
        .quote_hash = req->quote_hash,
        .release_version = req->release_version,
        .matched_profile = matched, /* the release check names it, when one runs */
    };
    MERO_TRY(mero_gov_admission_rules(s, ns, p, &c, NULL, reason));
    uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
    d->deliver_key = d->outcome == MERO_ADMIT_ADMITTED && mero_gov_group_key(s, g, key, id) == 0;
    sodium_memzero(key, sizeof(key));
    return 0;
}

int mero_gov_admit_decide(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                          const struct mero_admit_request *req, struct mero_admit_decision *d,
                          struct mero_err *reason)
{
    uint8_t gns[MERO_NS_ID_LEN], us[MERO_IDENTITY_LEN];
    struct mero_admit_decision out = {.outcome = MERO_ADMIT_NOT_A_VOUCHER, .role = MERO_ROLE_NONE};
    char matched[MERO_GOV_PROFILE_NAME_MAX] = "";
    if (req->matched_profile != NULL) {
        req->matched_profile[0] = '\0'; /* named below only when the decision admits */
    }
    if (mero_gov_namespace_of(s, req->group_id, gns) < 0 || memcmp(gns, ns, sizeof(gns)) != 0) {
        return mero_err_set(reason, MERO_EREFUSED, "the group is not part of this namespace");
    }
    /* 1. may we vouch at all? A TEE only while its own evidence counts (evidence lifetime) */
    int standing = MERO_VOUCH_NO;
    if (mero__gov_our_pk(s, ns, us)) {
        MERO_TRY(mero_gov_vouch_standing(s, req->group_id, us, req->now, &standing));
    }
    if (standing == MERO_VOUCH_LAPSED) {
        return mero_err_set(reason, MERO_EREFUSED, "%s", MERO_GOV_REASON_EVIDENCE_LAPSED);
    }
    if (standing != MERO_VOUCH_YES) {
        *d = out;
        return 0;
    }
    struct mero_tee_policy p;
    bool found;
    MERO_TRY(mero_gov_read_policy(s, ns, &p, &found, reason));
    int rc = decide(s, ns, req, found ? &p : NULL, &out, matched, reason);
    mero_tee_policy_cleanup(&p);
    if (rc == 0) {
        *d = out;
        if (req->matched_profile != NULL) {
            memcpy(req->matched_profile, matched, sizeof(matched));
        }
    }
    return rc;
}

static int dup(uint8_t **dst, size_t *dlen, const uint8_t *src, size_t n, struct mero_err *err)
{
    *dst = malloc(n ? n : 1);
    if (*dst == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    if (n > 0) {
        memcpy(*dst, src, n);
    }
    *dlen = n;
    return 0;
}

static int publish_join(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const struct mero_admit_request *req, int role, struct mero_gov_oplist *out,
                        struct mero_err *err)
{
    struct mero_op op;
    uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
    bool root_form = memcmp(req->group_id, ns, MERO_NS_ID_LEN) == 0;
    bool is_mock = req->is_mock || mero_mock_is_mock(req->quote, req->quote_len);
    mero_op_init(&op);
    memcpy(op.ns, ns, sizeof(op.ns));
    struct mero_tee_join *j = &op.join;
    memcpy(j->group_id, req->group_id, sizeof(j->group_id));
    memcpy(j->member, req->member, sizeof(j->member));
    memcpy(j->quote_hash, req->quote_hash, sizeof(j->quote_hash));
    j->m = req->m;
    snprintf(j->tcb_status, sizeof(j->tcb_status), "%s", is_mock ? "Mock" : req->tcb_status);
    j->role = (uint8_t)role;
    /* the TD facts travel with a real quote's join so every peer re-checks them */
    j->has_td = req->has_td && !is_mock;
    if (j->has_td) {
        j->td_attributes = req->td_attributes;
        memcpy(j->mrservicetd, req->mrservicetd, sizeof(j->mrservicetd));
    }
    int rc = 0;
    if (root_form) {
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_MEMBER_JOINED_TEE;
        j->has_account = true;
        j->account = req->account;
        MERO_TRY_OUT(dup(&j->quote, &j->quote_len, req->quote, req->quote_len, err));
    } else {
        op.scope = MERO_SCOPE_GROUP;
        op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
        memcpy(op.group_id, req->group_id, sizeof(op.group_id));
        /* the subgroup fan-in travels encrypted under the namespace key when we hold it */
        if (mero_gov_group_key(s, ns, key, id) == 0) {
            rc = mero_op_seal(&op, key, err);
            MERO_ENSURE_OUT(rc != -MERO_ENOMEM, err, MERO_ENOMEM, "out of memory");
            MERO_TRY_OUT(rc);
        }
    }
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
out:
    sodium_memzero(key, sizeof(key));
    mero_op_cleanup(&op);
    return rc;
}

static int publish_evidence(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                            const struct mero_admit_request *req, struct mero_gov_oplist *out,
                            struct mero_err *err)
{
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, ns, sizeof(op.ns));
    memcpy(op.group_id, req->group_id, sizeof(op.group_id));
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    struct mero_tee_evidence *e = &op.evidence;
    memcpy(e->attested_key, req->member, sizeof(e->attested_key));
    e->account = req->account;
    e->attested_at = req->attested_at;
    int rc;
    MERO_TRY_OUT(dup(&e->quote, &e->quote_len, req->quote, req->quote_len, err));
    if (req->collateral != NULL) {
        e->has_collateral = true;
        MERO_TRY_OUT(
            dup(&e->collateral, &e->collateral_len, req->collateral, req->collateral_len, err));
    }
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
out:
    mero_op_cleanup(&op);
    return rc;
}

int mero_gov_admit_tee_node(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                            const struct mero_admit_request *req, int *outcome,
                            struct mero_gov_oplist *out, struct mero_err *reason)
{
    struct mero_admit_decision d;
    MERO_TRY(mero_gov_admit_decide(s, ns, req, &d, reason));
    *outcome = d.outcome;
    if (!d.publish_join && !d.publish_evidence) {
        return 0;
    }
    if (mero__gov_exec(s, "SAVEPOINT gov_admit") < 0) {
        return mero__gov_sqlerr(s, reason, "savepoint");
    }
    size_t n0 = out != NULL ? out->n : 0;
    int rc = 0;
    if (d.publish_join) {
        MERO_TRY_OUT(publish_join(s, ns, req, d.role, out, reason));
    }
    if (d.publish_evidence) {
        /* a refresh alone fails with its reason; after a join it is only logged */
        struct mero_err e = {0};
        int erc = publish_evidence(s, ns, req, out, &e);
        if (erc < 0 && !d.publish_join && reason != NULL) {
            *reason = e;
        }
        if (erc < 0 && !d.publish_join) {
            MERO_TRY_OUT(erc);
        }
        if (erc < 0) {
            mero_log(MERO_LOG_WARN, "gov: TeeAuthorityEvidence not published: %s", e.msg);
        }
    }
    if (d.deliver_key) {
        struct mero_err e = {0};
        if (mero_gov_deliver_key(s, ns, req->group_id, req->member, out, &e) < 0) {
            mero_log(MERO_LOG_WARN, "gov: KeyDelivery not published: %s", e.msg);
        }
    }
    if (d.outcome == MERO_ADMIT_ADMITTED) {
        /* issue 16: the Open subgroups below reach it too; their keys go with the admission */
        (void)mero__gov_deliver_reach_keys(s, ns, req->group_id, req->member, out);
    }
out:
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK TO gov_admit");
        while (out != NULL && out->n > n0) {
            mero_buf_cleanup(&out->v[--out->n]);
        }
        if (req->matched_profile != NULL) {
            req->matched_profile[0] = '\0'; /* nothing was admitted */
        }
    }
    (void)mero__gov_exec(s, "RELEASE gov_admit");
    return rc;
}
