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
    uint8_t v[48];
    if (len != 96 || mero_hex_decode_exact(v, 48, hex, len) < 0) {
        return mero_err_set(err, MERO_EINVAL, "allowed_%s value is not a 48-byte hex measurement",
                            reg_names[reg]);
    }
    if (p->n[reg] >= MERO_POLICY_MAX_VALUES) {
        return mero_err_set(err, MERO_EINVAL, "allowed_%s has more than %d values", reg_names[reg],
                            MERO_POLICY_MAX_VALUES);
    }
    memcpy(p->allowed[reg][p->n[reg]++], v, 48);
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

static bool listed(const struct mero_verifier_policy *p, int reg, const uint8_t v[48])
{
    for (size_t i = 0; i < p->n[reg]; i++) {
        if (memcmp(p->allowed[reg][i], v, 48) == 0) {
            return true;
        }
    }
    return false;
}

static bool all_zero(const uint8_t *v, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= v[i];
    }
    return acc == 0;
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
    /* 3-4: TCB status. */
    const char *status = "";
    if (r->is_mock) {
        status = "Mock";
    } else if (r->has_tcb_status) {
        status = mero_tcb_status_name(r->tcb_status);
    }
    if (strcasecmp(status, "Revoked") == 0) {
        return refuse(why, MERO_POLICY_TCB_REVOKED, err, "%s", "the platform TCB is revoked");
    }
    if (strcmp(status, "Mock") == 0) {
        if (!p->accept_mock) {
            return refuse(why, MERO_POLICY_MOCK_NOT_ACCEPTED, err, "%s",
                          "mock quotes need accept_mock");
        }
    } else if (p->n_tcb == 0) {
        if (strcmp(status, "UpToDate") != 0) {
            return refuse(why, MERO_POLICY_TCB_NOT_ALLOWED, err, "status \"%s\" (only UpToDate)",
                          status);
        }
    } else {
        bool ok = false;
        for (size_t i = 0; i < p->n_tcb && !ok; i++) {
            ok = strcmp(p->allowed_tcb_statuses[i], status) == 0;
        }
        if (!ok) {
            return refuse(why, MERO_POLICY_TCB_NOT_ALLOWED, err, "status \"%s\"", status);
        }
    }
    /* 5: an image must be named (even for mock): MRTD, and RTMR1-3 (spec, §9). */
    if (p->n[MERO_REG_MRTD] == 0) {
        return refuse(why, MERO_POLICY_EMPTY_MRTD_ALLOWLIST, err, "%s", "allowed_mrtd is empty");
    }
    for (int reg = MERO_REG_RTMR1; reg <= MERO_REG_RTMR3; reg++) {
        if (p->n[reg] == 0) {
            return refuse(why, MERO_POLICY_EMPTY_RTMR_ALLOWLIST, err, "allowed_%s is empty",
                          reg_names[reg]);
        }
    }
    /* 6: measurements, in order; an empty RTMR0 list is not checked. */
    const uint8_t *vals[MERO_REG__COUNT] = {r->mrtd, r->rtmr[0], r->rtmr[1], r->rtmr[2],
                                            r->rtmr[3]};
    for (int reg = 0; reg < MERO_REG__COUNT; reg++) {
        if (p->n[reg] > 0 && !listed(p, reg, vals[reg])) {
            return refuse(why, MERO_POLICY_MEASUREMENT_MISMATCH, err, "%s is not allowed",
                          reg_names[reg]);
        }
    }
    /* 7: what a policy must opt in to (reference-dcap.md §6.10). Mock quotes have no TD. */
    if (!r->is_mock) {
        if (r->td15 && !all_zero(r->mrservicetd, 48) && !p->allow_service_td) {
            return refuse(why, MERO_POLICY_SERVICE_TD_NOT_ALLOWED, err, "%s",
                          "MRSERVICETD is not zero");
        }
        if (r->td_debug && !p->allow_debug_td) {
            return refuse(why, MERO_POLICY_DEBUG_TD_NOT_ALLOWED, err, "%s", "the TD is a debug TD");
        }
        if (!r->root_crl_checked && !p->allow_missing_root_crl) {
            return refuse(why, MERO_POLICY_ROOT_CRL_MISSING, err, "%s",
                          "the collateral carried no root CA CRL");
        }
    }
    return 0;
}
