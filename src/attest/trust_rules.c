/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust_rules.c - the quote-fact rules every judge of a TEE shares (include/mero/trust_rules.h):
 * the mock gate, TCB status, TD attributes and measurement lists, in one order, each with its
 * reason written once in one table.
 *
 * Invariants: fail closed - an empty required list, an unreadable measurement, a missing
 * status and Revoked (whatever the list says, accept_mock included) are refusals; a status is
 * compared exactly except Revoked (any case); the first failing rule wins.
 */
#include <string.h>
#include <strings.h>

#include "mero/trust_rules.h"

static const struct {
    const char *name;
    const char *reason;
} rules[MERO_TRUST__COUNT] = {
    [MERO_TRUST_OK] = {"Ok", "accepted"},
    [MERO_TRUST_MOCK_NOT_ACCEPTED] = {"MockNotAccepted",
                                      "mock attestation rejected by group policy"},
    [MERO_TRUST_TCB_REVOKED] = {"TcbRevoked",
                                "TCB status not in policy allowlist (a Revoked platform is never "
                                "accepted)"},
    [MERO_TRUST_TCB_NOT_ALLOWED] = {"TcbNotAllowed", "TCB status not in policy allowlist"},
    [MERO_TRUST_DEBUG_TD] = {"DebugTd",
                             "the TD is a debug TD (TDATTRIBUTES.DEBUG): its host can read its "
                             "memory"},
    [MERO_TRUST_SEPT_VE_NOT_DISABLED] = {"SeptVeNotDisabled",
                                         "the TD does not set SEPT_VE_DISABLE (TDATTRIBUTES bit "
                                         "28) and the policy requires it"},
    [MERO_TRUST_SERVICE_TD] = {"ServiceTdNotAllowed",
                               "the TD has a non-zero MRSERVICETD and the policy does not allow "
                               "service TDs"},
    [MERO_TRUST_EMPTY_MRTD] = {"EmptyMrtdAllowlist",
                               "policy has an empty allowed_mrtd; refusing to admit any quote"},
    [MERO_TRUST_EMPTY_RTMR12] = {"EmptyRtmrAllowlist",
                                 "policy has an empty allowed_rtmr1 or allowed_rtmr2; refusing to "
                                 "admit any quote"},
    [MERO_TRUST_EMPTY_RTMR3] = {"EmptyRtmr3Allowlist",
                                "policy has an empty allowed_rtmr3; refusing to admit any quote"},
    [MERO_TRUST_MRTD_MISMATCH] = {"MrtdNotAllowed", "MRTD not in policy allowlist"},
    [MERO_TRUST_RTMR0_MISMATCH] = {"Rtmr0NotAllowed", "RTMR0 not in policy allowlist"},
    [MERO_TRUST_RTMR1_MISMATCH] = {"Rtmr1NotAllowed", "RTMR1 not in policy allowlist"},
    [MERO_TRUST_RTMR2_MISMATCH] = {"Rtmr2NotAllowed", "RTMR2 not in policy allowlist"},
    [MERO_TRUST_RTMR3_MISMATCH] = {"Rtmr3NotAllowed", "RTMR3 not in policy allowlist"},
};

const char *mero_trust_rule_reason(enum mero_trust_rule r)
{
    return (unsigned)r < MERO_TRUST__COUNT ? rules[r].reason : "unknown rule";
}

const char *mero_trust_rule_name(enum mero_trust_rule r)
{
    return (unsigned)r < MERO_TRUST__COUNT ? rules[r].name : "Unknown";
}

static bool tcb_listed(const struct mero_trust_lists *l, const char *status)
{
    size_t n = l->tcb_count(l->ctx);
    if (n == 0) {
        return strcmp(status, "UpToDate") == 0;
    }
    for (size_t i = 0; i < n; i++) {
        const char *v = l->tcb_at(l->ctx, i);
        if (v != NULL && strcmp(v, status) == 0) {
            return true;
        }
    }
    return false;
}

static bool reg_ok(const struct mero_trust_lists *l, const struct mero_trust_facts *f, int reg)
{
    return f->reg[reg] != NULL && l->reg_contains(l->ctx, reg, f->reg[reg]);
}

static enum mero_trust_rule measurements(const struct mero_trust_lists *l,
                                         const struct mero_trust_facts *f)
{
    if (l->reg_count(l->ctx, 0) == 0) {
        return MERO_TRUST_EMPTY_MRTD;
    }
    if (l->reg_count(l->ctx, 2) == 0 || l->reg_count(l->ctx, 3) == 0) {
        return MERO_TRUST_EMPTY_RTMR12;
    }
    if (l->reg_count(l->ctx, 4) == 0) {
        return MERO_TRUST_EMPTY_RTMR3;
    }
    if (!reg_ok(l, f, 0)) {
        return MERO_TRUST_MRTD_MISMATCH;
    }
    if (l->reg_count(l->ctx, 1) != 0 && !reg_ok(l, f, 1)) {
        return MERO_TRUST_RTMR0_MISMATCH;
    }
    if (!reg_ok(l, f, 2)) {
        return MERO_TRUST_RTMR1_MISMATCH;
    }
    if (!reg_ok(l, f, 3)) {
        return MERO_TRUST_RTMR2_MISMATCH;
    }
    if (!reg_ok(l, f, 4)) {
        return MERO_TRUST_RTMR3_MISMATCH;
    }
    return MERO_TRUST_OK;
}

enum mero_trust_rule mero_trust_check(const struct mero_trust_policy *p,
                                      const struct mero_trust_facts *f)
{
    const char *status = f->tcb_status != NULL ? f->tcb_status : "";
    bool mock = f->is_mock || strcmp(status, "Mock") == 0;
    /* the mock gate, then the TCB rule (Revoked first, whatever accept_mock says) */
    if (mock && !p->accept_mock) {
        return MERO_TRUST_MOCK_NOT_ACCEPTED;
    }
    if (strcasecmp(status, "Revoked") == 0) {
        return MERO_TRUST_TCB_REVOKED;
    }
    if (!mock && !tcb_listed(&p->lists, status)) {
        return MERO_TRUST_TCB_NOT_ALLOWED;
    }
    /* TD attributes: a real quote only (a mock quote has no TD behind it) */
    if (!mock && f->has_td) {
        if ((f->td_attributes & MERO_TD_ATTR_DEBUG) != 0 && !p->allow_debug_td) {
            return MERO_TRUST_DEBUG_TD;
        }
        if ((f->td_attributes & MERO_TD_ATTR_SEPT_VE_DISABLE) == 0 && !p->allow_sept_ve_enabled) {
            return MERO_TRUST_SEPT_VE_NOT_DISABLED;
        }
        if (f->service_td && !p->allow_service_td) {
            return MERO_TRUST_SERVICE_TD;
        }
    }
    return p->check_measurements ? measurements(&p->lists, f) : MERO_TRUST_OK;
}
