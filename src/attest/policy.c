/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.c - VerifierPolicy::policy_valid (reference-calimero.md §1.5) with the stricter image
 * rule of the spec and mero-js (§9): a policy must pin MRTD and RTMR1-3, because the MRTD is
 * the same for every TD on a cloud. Also our explicit knobs for MRSERVICETD, debug TDs and a
 * missing root CA CRL, each refused unless the policy opts in.
 *
 * Invariants: Revoked is refused before anything can admit it (accept_mock included); a
 * status is never compared case-insensitively except for Revoked; an empty allow-list never
 * means "any" (TCB: exactly UpToDate; MRTD, RTMR1-3: refused); the first failing rule wins.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mero/encoding.h"
#include "mero/policy.h"
#include "mero/trust_rules.h"

static const char *const reg_names[MERO_REG__COUNT] = {"mrtd", "rtmr0", "rtmr1", "rtmr2", "rtmr3"};

const char *mero_register_name(enum mero_register reg)
{
    return (unsigned)reg < MERO_REG__COUNT ? reg_names[reg] : "unknown";
}

const char *mero_policy_rejection_name(enum mero_policy_rejection why)
{
    switch (why) {
    case MERO_POLICY_OK:
        return "Ok";
    case MERO_POLICY_NOT_CRYPTO_VALID:
        return "NotCryptoValid";
    case MERO_POLICY_APP_HASH_NOT_BOUND:
        return "AppHashNotBound";
    case MERO_POLICY_TCB_REVOKED:
        return "TcbRevoked";
    case MERO_POLICY_MOCK_NOT_ACCEPTED:
        return "MockNotAccepted";
    case MERO_POLICY_TCB_NOT_ALLOWED:
        return "TcbNotAllowed";
    case MERO_POLICY_EMPTY_MRTD_ALLOWLIST:
        return "EmptyMrtdAllowlist";
    case MERO_POLICY_EMPTY_RTMR_ALLOWLIST:
        return "EmptyRtmrAllowlist";
    case MERO_POLICY_MEASUREMENT_MISMATCH:
        return "MeasurementMismatch";
    case MERO_POLICY_SERVICE_TD_NOT_ALLOWED:
        return "ServiceTdNotAllowed";
    case MERO_POLICY_DEBUG_TD_NOT_ALLOWED:
        return "DebugTdNotAllowed";
    case MERO_POLICY_ROOT_CRL_MISSING:
        return "RootCrlMissing";
    case MERO_POLICY_SEPT_VE_NOT_DISABLED:
        return "SeptVeNotDisabled";
    default:
        return "Unknown";
    }
}

void mero_policy_init(struct mero_verifier_policy *p)
{
    memset(p, 0, sizeof(*p));
    p->require_app_hash = true;
}

int mero_policy_add_measurement(struct mero_verifier_policy *p, enum mero_register reg,
                                const char *hex, struct mero_err *err)
{
    if ((unsigned)reg >= MERO_REG__COUNT || hex == NULL) {
        return mero_err_set(err, MERO_EINVAL, "unknown register");
    }
    size_t len = strlen(hex);
    while (len > 0 && (*hex == ' ' || *hex == '\t' || *hex == '\n')) {
        hex++;
        len--;
    }
    while (len > 0 && (hex[len - 1] == ' ' || hex[len - 1] == '\t' || hex[len - 1] == '\n')) {
        len--;
    }
    if (len >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) {
        hex += 2;
        len -= 2;
    }
    uint8_t v[MERO_MR_LEN];
    if (len != MERO_MR_HEX_LEN || mero_hex_decode_exact(v, sizeof(v), hex, len) < 0) {
        return mero_err_set(err, MERO_EINVAL, "allowed_%s value is not a 48-byte hex measurement",
                            reg_names[reg]);
    }
    if (p->n[reg] >= MERO_POLICY_MAX_VALUES) {
        return mero_err_set(err, MERO_EINVAL, "allowed_%s has more than %d values", reg_names[reg],
                            MERO_POLICY_MAX_VALUES);
    }
    memcpy(p->allowed[reg][p->n[reg]++], v, sizeof(v));
    return 0;
}

int mero_policy_add_tcb_status(struct mero_verifier_policy *p, const char *status,
                               struct mero_err *err)
{
    if (status == NULL || status[0] == 0 || strlen(status) >= sizeof(p->allowed_tcb_statuses[0])) {
        return mero_err_set(err, MERO_EINVAL, "TCB status is empty or too long");
    }
    if (p->n_tcb >= sizeof(p->allowed_tcb_statuses) / sizeof(p->allowed_tcb_statuses[0])) {
        return mero_err_set(err, MERO_EINVAL, "too many allowed TCB statuses");
    }
    snprintf(p->allowed_tcb_statuses[p->n_tcb++], sizeof(p->allowed_tcb_statuses[0]), "%s", status);
    return 0;
}

int mero_policy_validate(const struct mero_verifier_policy *p, struct mero_err *err)
{
    if (p->n[MERO_REG_MRTD] == 0) {
        return mero_err_set(err, MERO_EPOLICY,
                            "No image is trusted: allowed_mrtd is empty (give allowed_mrtd with "
                            "allowed_rtmr1-3)");
    }
    for (int reg = MERO_REG_RTMR1; reg <= MERO_REG_RTMR3; reg++) {
        if (p->n[reg] == 0) {
            return mero_err_set(err, MERO_EPOLICY,
                                "allowed_mrtd alone does not name an image: allowed_%s is empty "
                                "(give allowed_rtmr1-3 too)",
                                reg_names[reg]);
        }
    }
    return 0;
}

static int refuse(enum mero_policy_rejection *why, enum mero_policy_rejection w,
                  struct mero_err *err, const char *fmt, ...) MERO_PRINTF(4, 5);
static int refuse(enum mero_policy_rejection *why, enum mero_policy_rejection w,
                  struct mero_err *err, const char *fmt, ...)
{
    if (why != NULL) {
        *why = w;
    }
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return mero_err_set(err, MERO_EPOLICY, "%s: %s", mero_policy_rejection_name(w), msg);
}

static bool all_zero(const uint8_t *v, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= v[i];
    }
    return acc == 0;
}

/* The VerifierPolicy's lists as the shared rules read them (trust_rules.h). */
static size_t tcb_count(const void *ctx)
{
    return ((const struct mero_verifier_policy *)ctx)->n_tcb;
}

static const char *tcb_at(const void *ctx, size_t i)
{
    return ((const struct mero_verifier_policy *)ctx)->allowed_tcb_statuses[i];
}

static size_t reg_count(const void *ctx, int reg)
{
    return ((const struct mero_verifier_policy *)ctx)->n[reg];
}

static bool reg_contains(const void *ctx, int reg, const uint8_t v[MERO_MR_LEN])
{
    const struct mero_verifier_policy *p = ctx;
    for (size_t i = 0; i < p->n[reg]; i++) {
        if (memcmp(p->allowed[reg][i], v, MERO_MR_LEN) == 0) {
            return true;
        }
    }
    return false;
}

/* VerifierPolicy's rejection for a shared rule (reference-calimero.md §1.5 names). */
static enum mero_policy_rejection rejection_of(enum mero_trust_rule t)
{
    switch (t) {
    case MERO_TRUST_MOCK_NOT_ACCEPTED:
        return MERO_POLICY_MOCK_NOT_ACCEPTED;
    case MERO_TRUST_TCB_REVOKED:
        return MERO_POLICY_TCB_REVOKED;
    case MERO_TRUST_TCB_NOT_ALLOWED:
        return MERO_POLICY_TCB_NOT_ALLOWED;
    case MERO_TRUST_DEBUG_TD:
        return MERO_POLICY_DEBUG_TD_NOT_ALLOWED;
    case MERO_TRUST_SEPT_VE_NOT_DISABLED:
        return MERO_POLICY_SEPT_VE_NOT_DISABLED;
    case MERO_TRUST_SERVICE_TD:
        return MERO_POLICY_SERVICE_TD_NOT_ALLOWED;
    case MERO_TRUST_EMPTY_MRTD:
        return MERO_POLICY_EMPTY_MRTD_ALLOWLIST;
    case MERO_TRUST_EMPTY_RTMR12:
    case MERO_TRUST_EMPTY_RTMR3:
        return MERO_POLICY_EMPTY_RTMR_ALLOWLIST;
    case MERO_TRUST_OK:
        return MERO_POLICY_OK;
    default:
        return MERO_POLICY_MEASUREMENT_MISMATCH;
    }
}

int mero_policy_check(const struct mero_verifier_policy *p, const struct mero_dcap_result *r,
                      enum mero_policy_rejection *why, struct mero_err *err)
{
    if (why != NULL) {
        *why = MERO_POLICY_OK;
    }
    /* 1-2: crypto first. */
    if (!r->quote_verified || !r->nonce_verified) {
        return refuse(why, MERO_POLICY_NOT_CRYPTO_VALID, err, "%s",
                      !r->quote_verified ? "the quote did not verify" : "the nonce differs");
    }
    if (p->require_app_hash && !r->application_hash_verified) {
        return refuse(why, MERO_POLICY_APP_HASH_NOT_BOUND, err, "%s",
                      "the quote does not commit to the expected hash");
    }
    if (!r->is_valid) {
        return refuse(why, MERO_POLICY_NOT_CRYPTO_VALID, err, "%s", "the result is not valid");
    }
    /* 3-7: the rules admission shares (trust_rules.c): mock, TCB, TD attributes, lists. */
    uint64_t attrs = 0;
    for (int i = 7; i >= 0; i--) {
        attrs = (attrs << 8) | r->td_attributes[i];
    }
    attrs |= r->td_debug ? MERO_TD_ATTR_DEBUG : 0;
    attrs |= r->sept_ve_disable ? MERO_TD_ATTR_SEPT_VE_DISABLE : 0;
    struct mero_trust_facts f = {
        .is_mock = r->is_mock,
        .tcb_status = r->is_mock          ? "Mock"
                      : r->has_tcb_status ? mero_tcb_status_name(r->tcb_status)
                                          : "",
        .has_td = !r->is_mock,
        .td_attributes = attrs,
        .service_td = r->td15 && !all_zero(r->mrservicetd, sizeof(r->mrservicetd)),
        .reg = {r->mrtd, r->rtmr[0], r->rtmr[1], r->rtmr[2], r->rtmr[3]},
    };
    struct mero_trust_policy tp = {
        .accept_mock = p->accept_mock,
        .allow_debug_td = p->allow_debug_td,
        .allow_sept_ve_enabled = p->allow_sept_ve_enabled,
        .allow_service_td = p->allow_service_td,
        .check_measurements = true,
        .lists = {.ctx = p,
                  .tcb_count = tcb_count,
                  .tcb_at = tcb_at,
                  .reg_count = reg_count,
                  .reg_contains = reg_contains},
    };
    enum mero_trust_rule t = mero_trust_check(&tp, &f);
    if (t >= MERO_TRUST_MRTD_MISMATCH && t <= MERO_TRUST_RTMR3_MISMATCH) {
        return refuse(why, rejection_of(t), err, "%s (%s)", mero_trust_rule_reason(t),
                      reg_names[t - MERO_TRUST_MRTD_MISMATCH]);
    }
    if (t != MERO_TRUST_OK) {
        return refuse(why, rejection_of(t), err, "%s", mero_trust_rule_reason(t));
    }
    /* 8: the collateral's completeness (reference-dcap.md §6.10). Mock quotes have none. */
    if (!r->is_mock && !r->root_crl_checked && !p->allow_missing_root_crl) {
        return refuse(why, MERO_POLICY_ROOT_CRL_MISSING, err, "%s",
                      "the collateral carried no root CA CRL");
    }
    return 0;
}
