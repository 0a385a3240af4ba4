/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admit.c - admit_tee_node (spec "Verify and admit" steps 1-10; reference-calimero.md §6.1):
 * the pure decision over a verified quote and the governance state, then the ops it publishes
 * in order - MemberJoinedViaTeeAttestation, TeeAuthorityEvidence, KeyDelivery. A root admission
 * is the cleartext RootOp form; a subgroup admission is the GroupOp form, encrypted under the
 * namespace group key (NamespaceOp tag 2) when we hold it, cleartext otherwise.
 *
 * Invariants: a node that may not vouch publishes nothing (NotAVoucher); every refusal is
 * decided before anything is signed; the binding is re-checked from the quote about to be
 * published, and a quote already used in the namespace (admission or evidence) never admits or
 * refreshes again; the published join records the role the policy mode names, so every peer's
 * apply-time check passes for exactly what the admitter decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/mock.h"
#include "mero/release.h"

static int release_gate(struct mero_store *s, const struct mero_admit_request *req,
                        const struct mero_tee_policy *p, struct mero_err *reason)
{
    int cmp = 0;
    if (req->release_version == NULL || req->release_version[0] == '\0') {
        return mero_err_set(reason, MERO_EREFUSED,
                            "the TEE did not name the mero-tee release it runs; a signed-release "
                            "policy requires it");
    }
    if (mero_release_version_check(req->release_version) < 0) {
        return mero_err_set(reason, MERO_EREFUSED, "the TEE named a malformed release version");
    }
    if (p->min_release != NULL &&
        mero_release_version_cmp(req->release_version, p->min_release, &cmp) == 0 && cmp < 0) {
        return mero_err_set(reason, MERO_EREFUSED,
                            "release %s is older than the policy's minimum %s",
                            req->release_version, p->min_release);
    }
    if (s->hooks.release_check == NULL) {
        return mero_err_set(reason, MERO_EREFUSED,
                            "no release verifier configured: cannot check a signed release");
    }
    struct mero_err e = {0};
    void *ud = s->hooks.release_ud != NULL ? s->hooks.release_ud : s->hooks.ud;
    int rc = s->hooks.release_check(ud, req->release_version, p, &req->m, &e);
    if (rc < 0) {
        return mero_err_set(reason, MERO_EREFUSED, "%s",
                            e.msg[0] ? e.msg : "the quote matches no allowed release profile");
    }
    return 0;
}

static int decide(struct mero_store *s, const uint8_t ns[32], const struct mero_admit_request *req,
                  const struct mero_tee_policy *p, struct mero_admit_decision *d,
                  struct mero_err *reason)
{
    const uint8_t *g = req->group_id;
    bool root_form = memcmp(g, ns, 32) == 0;
    bool is_mock = req->is_mock || mero_mock_is_mock(req->quote, req->quote_len);
    int want = mero_tee_mode_role(p->mode);
    d->role = want;

    /* 2. mock gate, then the TCB rule */
    if (is_mock && !p->accept_mock) {
        return mero_err_set(reason, MERO_EREFUSED, "mock attestation rejected by group policy");
    }
    const char *tcb = is_mock ? "Mock" : req->tcb_status;
    if (!mero__gov_tcb_allowed(&p->tcb, tcb, is_mock, p->accept_mock)) {
        return mero_err_set(reason, MERO_EREFUSED, "TCB status not in policy allowlist");
    }
    if (req->quote == NULL || req->quote_len == 0 || req->quote_len > MERO_GOV_MAX_QUOTE_BYTES) {
        return mero_err_set(reason, MERO_EREFUSED,
                            "the quote is missing or longer than MAX_TEE_QUOTE_BYTES (%u)",
                            MERO_GOV_MAX_QUOTE_BYTES);
    }
    uint8_t qh[32];
    mero_sha256(qh, req->quote, req->quote_len);
    if (!mero_ct_eq(qh, req->quote_hash, 32)) {
        return mero_err_set(reason, MERO_EREFUSED, "quote_hash is not SHA-256 of the quote");
    }
    /* 3-5. signed release, or the fail-closed lists */
    if (p->form == MERO_POLICY_RELEASE) {
        if (!is_mock && root_form) {
            MERO_TRY(release_gate(s, req, p, reason));
        }
    } else {
        MERO_TRY(mero__gov_check_measurements(p, &req->m, reason));
    }
    MERO_TRY(mero_credential_certifies(req->member, &req->account, reason));
    if (!root_form) {
        int r;
        MERO_TRY(mero_gov_direct_role(s, ns, req->member, &r));
        if (!mero_role_is_tee(r)) {
            return mero_err_set(reason, MERO_EREFUSED,
                                "a subgroup admission needs a TEE already admitted at the "
                                "namespace root");
        }
    }
    bool denied;
    MERO_TRY(mero_gov_is_denied(s, g, req->member, &denied));
    if (denied) {
        char h[17];
        mero_hex_encode(h, g, 8);
        return mero_err_set(reason, MERO_EREMOVED, "was removed from group %s and cannot rejoin",
                            h);
    }
    /* 6. idempotency, refresh, conversion */
    int cur;
    MERO_TRY(mero_gov_direct_role(s, g, req->member, &cur));
    if (cur != MERO_ROLE_NONE && !mero_role_is_tee(cur)) {
        d->outcome = MERO_ADMIT_ALREADY_MEMBER;
        return 0;
    }
    if (cur == want) {
        d->outcome = MERO_ADMIT_ALREADY_MEMBER;
        bool found;
        uint64_t at = 0;
        MERO_TRY(mero__gov_evidence_at(s, g, req->member, &found, &at));
        bool due = !found || req->now < at || req->now - at >= MERO_GOV_EVIDENCE_REFRESH_SECS;
        if (!root_form || !due) {
            return 0;
        }
        d->publish_evidence = true;
    } else {
        d->outcome = cur == MERO_ROLE_NONE ? MERO_ADMIT_ADMITTED : MERO_ADMIT_CONVERTED;
        d->publish_join = true;
        d->publish_evidence = root_form;
    }
    /* 7. binding, from the quote about to be published */
    bool mock_seen;
    MERO_TRY(mero__gov_check_binding(s, ns, root_form ? g : ns, req->member, &req->account,
                                     req->quote, req->quote_len, &mock_seen, reason));
    /* 8. spent guard (a subgroup re-admission is exempt from the evidence half) */
    bool used;
    if (root_form) {
        MERO_TRY(mero_gov_is_quote_hash_used(s, ns, qh, &used));
    } else {
        MERO_TRY(mero__gov_spent(s, ns, qh, GOV_SPENT_ADMISSION, g, &used));
    }
    if (used) {
        return mero_err_set(reason, MERO_EQUOTEUSED, "TEE attestation quote already used");
    }
    uint8_t key[32], id[32];
    d->deliver_key = d->outcome == MERO_ADMIT_ADMITTED && mero_gov_group_key(s, g, key, id) == 0;
    sodium_memzero(key, sizeof(key));
    return 0;
}

int mero_gov_admit_decide(struct mero_store *s, const uint8_t ns[static 32],
                          const struct mero_admit_request *req, struct mero_admit_decision *d,
                          struct mero_err *reason)
{
    uint8_t gns[32], us[32];
    struct mero_admit_decision out = {.outcome = MERO_ADMIT_NOT_A_VOUCHER, .role = MERO_ROLE_NONE};
    if (mero_gov_namespace_of(s, req->group_id, gns) < 0 || memcmp(gns, ns, 32) != 0) {
        return mero_err_set(reason, MERO_EREFUSED, "the group is not part of this namespace");
    }
    /* 1. may we vouch at all? */
    bool vouch = false;
    if (mero__gov_our_pk(s, ns, us)) {
        MERO_TRY(mero_gov_may_vouch(s, req->group_id, us, &vouch));
    }
    if (!vouch) {
        *d = out;
        return 0;
    }
    struct mero_tee_policy p;
    bool found;
    MERO_TRY(mero_gov_read_policy(s, ns, &p, &found, reason));
    if (!found) {
        return mero_err_set(reason, MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group");
    }
    int rc = decide(s, ns, req, &p, &out, reason);
    mero_tee_policy_cleanup(&p);
    if (rc == 0) {
        *d = out;
    }
    return rc;
}

static int dup(uint8_t **dst, size_t *dlen, const uint8_t *src, size_t n)
{
    *dst = malloc(n ? n : 1);
    if (*dst == NULL) {
        return -MERO_ENOMEM;
    }
    if (n > 0) {
        memcpy(*dst, src, n);
    }
    *dlen = n;
    return 0;
}

static int publish_join(struct mero_store *s, const uint8_t ns[32],
                        const struct mero_admit_request *req, int role, struct mero_gov_oplist *out,
                        struct mero_err *err)
{
    struct mero_op op;
    bool root_form = memcmp(req->group_id, ns, 32) == 0;
    bool is_mock = req->is_mock || mero_mock_is_mock(req->quote, req->quote_len);
    mero_op_init(&op);
    memcpy(op.ns, ns, 32);
    struct mero_tee_join *j = &op.join;
    memcpy(j->group_id, req->group_id, 32);
    memcpy(j->member, req->member, 32);
    memcpy(j->quote_hash, req->quote_hash, 32);
    j->m = req->m;
    snprintf(j->tcb_status, sizeof(j->tcb_status), "%s", is_mock ? "Mock" : req->tcb_status);
    j->role = (uint8_t)role;
    int rc = 0;
    if (root_form) {
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_MEMBER_JOINED_TEE;
        j->has_account = true;
        j->account = req->account;
        rc = dup(&j->quote, &j->quote_len, req->quote, req->quote_len);
    } else {
        op.scope = MERO_SCOPE_GROUP;
        op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
        memcpy(op.group_id, req->group_id, 32);
        /* the subgroup fan-in travels encrypted under the namespace key when we hold it */
        uint8_t key[32], id[32];
        if (mero_gov_group_key(s, ns, key, id) == 0) {
            rc = mero_op_seal(&op, key, err);
        }
        sodium_memzero(key, sizeof(key));
    }
    if (rc == 0) {
        rc = mero__gov_publish(s, &op, out, err);
    } else if (rc == -MERO_ENOMEM) {
        rc = mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_op_cleanup(&op);
    return rc;
}

static int publish_evidence(struct mero_store *s, const uint8_t ns[32],
                            const struct mero_admit_request *req, struct mero_gov_oplist *out,
                            struct mero_err *err)
{
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, ns, 32);
    memcpy(op.group_id, req->group_id, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    struct mero_tee_evidence *e = &op.evidence;
    memcpy(e->attested_key, req->member, 32);
    e->account = req->account;
    e->attested_at = req->attested_at;
    int rc = dup(&e->quote, &e->quote_len, req->quote, req->quote_len);
    if (rc == 0 && req->collateral != NULL) {
        e->has_collateral = true;
        rc = dup(&e->collateral, &e->collateral_len, req->collateral, req->collateral_len);
    }
    if (rc == 0) {
        rc = mero__gov_publish(s, &op, out, err);
    } else {
        rc = mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_op_cleanup(&op);
    return rc;
}

int mero_gov_admit_tee_node(struct mero_store *s, const uint8_t ns[static 32],
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
        rc = publish_join(s, ns, req, d.role, out, reason);
    }
    if (rc == 0 && d.publish_evidence) {
        struct mero_err e = {0};
        int erc = publish_evidence(s, ns, req, out, &e);
        if (erc < 0 && !d.publish_join) {
            rc = erc;
            if (reason != NULL) {
                *reason = e;
            }
        } else if (erc < 0) {
            mero_log(MERO_LOG_WARN, "gov: TeeAuthorityEvidence not published: %s", e.msg);
        }
    }
    if (rc == 0 && d.deliver_key) {
        struct mero_err e = {0};
        if (mero_gov_deliver_key(s, ns, req->group_id, req->member, out, &e) < 0) {
            mero_log(MERO_LOG_WARN, "gov: KeyDelivery not published: %s", e.msg);
        }
    }
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK TO gov_admit");
        while (out != NULL && out->n > n0) {
            mero_buf_cleanup(&out->v[--out->n]);
        }
    }
    (void)mero__gov_exec(s, "RELEASE gov_admit");
    return rc;
}
