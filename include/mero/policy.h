/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.h - VerifierPolicy (reference-calimero.md §1.5, §9; spec "The MRTD does not name the
 * image"): which verified quotes a client accepts. The DCAP result says what the quote is;
 * the policy says whether that is acceptable.
 *
 * Rules, in order (mero_policy_check): not crypto-valid; app hash not bound; then the rules
 * admission shares (mero_trust_check, trust_rules.h): Mock only with accept_mock; Revoked (any
 * case, always); TCB status allow-list (empty = exactly "UpToDate"; else exact membership);
 * for a real quote a debug TD (allow_debug_td), SEPT_VE_DISABLE not set
 * (allow_sept_ve_enabled), a non-zero MRSERVICETD (allow_service_td); MRTD list empty; RTMR1-3
 * list empty; MRTD, RTMR0-3 membership (empty RTMR0 = unchecked); then collateral without a
 * root CA CRL (allow_missing_root_crl). Every knob refuses by default.
 *
 * Thread safety: mero_policy_check, mero_policy_validate and the name functions are safe from
 * any thread, and a policy may be shared read-only by many threads; building a policy
 * (mero_policy_init / _add_*) is safe on distinct objects only.
 */
#ifndef MERO_POLICY_H
#define MERO_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/dcap.h"
#include "mero/err.h"

#define MERO_POLICY_MAX_VALUES 64
#define MERO_POLICY_MAX_TCB    8  /* allowed_tcb_statuses entries */
#define MERO_TCB_NAME_MAX      48 /* an Intel TCB status name as text, with its NUL */

enum mero_register {
    MERO_REG_MRTD = 0,
    MERO_REG_RTMR0,
    MERO_REG_RTMR1,
    MERO_REG_RTMR2,
    MERO_REG_RTMR3,
    MERO_REG__COUNT
};

enum mero_policy_rejection {
    MERO_POLICY_OK = 0,
    MERO_POLICY_NOT_CRYPTO_VALID,
    MERO_POLICY_APP_HASH_NOT_BOUND,
    MERO_POLICY_TCB_REVOKED,
    MERO_POLICY_MOCK_NOT_ACCEPTED,
    MERO_POLICY_TCB_NOT_ALLOWED,
    MERO_POLICY_EMPTY_MRTD_ALLOWLIST,
    MERO_POLICY_EMPTY_RTMR_ALLOWLIST,
    MERO_POLICY_MEASUREMENT_MISMATCH,
    MERO_POLICY_SERVICE_TD_NOT_ALLOWED,
    MERO_POLICY_DEBUG_TD_NOT_ALLOWED,
    MERO_POLICY_ROOT_CRL_MISSING,
    MERO_POLICY_SEPT_VE_NOT_DISABLED,
};

struct mero_verifier_policy {
    size_t n_tcb;
    char allowed_tcb_statuses[MERO_POLICY_MAX_TCB]
                             [MERO_TCB_NAME_MAX]; /* exact Intel names; empty list = {"UpToDate"} */
    size_t n[MERO_REG__COUNT];
    uint8_t allowed[MERO_REG__COUNT][MERO_POLICY_MAX_VALUES][MERO_MR_LEN];
    bool accept_mock;
    bool require_app_hash;       /* default true */
    bool allow_service_td;       /* default false: a non-zero MRSERVICETD is refused */
    bool allow_debug_td;         /* default false: TD attributes DEBUG is refused */
    bool allow_sept_ve_enabled;  /* default false: TD attributes SEPT_VE_DISABLE is required */
    bool allow_missing_root_crl; /* default false */
};

/* The defaults of §1.5 (all lists empty, accept_mock false, require_app_hash true) and ours. */
void mero_policy_init(struct mero_verifier_policy *p);
/* Add an allowed value: 96 hex characters (either case, surrounding spaces and a 0x prefix
 * accepted). -MERO_EINVAL with a reason when not a 48-byte hex measurement or the list is full. */
MERO_MUST_CHECK int mero_policy_add_measurement(struct mero_verifier_policy *p,
                                                enum mero_register reg, const char *hex,
                                                struct mero_err *err);
/* Add an allowed TCB status (stored as given; matching is exact and case-sensitive). */
MERO_MUST_CHECK int mero_policy_add_tcb_status(struct mero_verifier_policy *p, const char *status,
                                               struct mero_err *err);
/* Refuse a policy that trusts no image: MRTD empty, or any of RTMR1-3 empty. */
MERO_MUST_CHECK int mero_policy_validate(const struct mero_verifier_policy *p,
                                         struct mero_err *err);
/*
 * policy_valid: 0 when the result is acceptable, else -MERO_EPOLICY with *why (optional) set
 * and the reason in err. A mock result (r->is_mock, tcb_status Mock) is judged by the same
 * rules; it passes only with accept_mock.
 */
MERO_MUST_CHECK int mero_policy_check(const struct mero_verifier_policy *p,
                                      const struct mero_dcap_result *r,
                                      enum mero_policy_rejection *why, struct mero_err *err);
const char *mero_policy_rejection_name(enum mero_policy_rejection why);
const char *mero_register_name(enum mero_register reg);

#endif
