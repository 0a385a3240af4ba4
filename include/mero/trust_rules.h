/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust_rules.h - the rules that judge what a verified quote says, with no namespace state:
 * the mock gate, the TCB status, the TD attributes (DEBUG, SEPT_VE_DISABLE, MRSERVICETD) and
 * the measurement lists. One sequence, one table of reasons, shared by the client-side
 * VerifierPolicy (mero_policy_check), the admitter's decision and every peer's apply
 * (gov/admission_rules.c), so a namespace never holds a TEE one of them would refuse.
 *
 * Order (the first failing rule wins): mock gate; Revoked (any case, always); the TCB list
 * (empty = exactly "UpToDate", else exact membership); then, for a real quote with known TD
 * facts, DEBUG (unless allow_debug_td), SEPT_VE_DISABLE (unless allow_sept_ve_enabled), a
 * non-zero MRSERVICETD (unless allow_service_td); then, when check_measurements, the empty
 * lists (MRTD; RTMR1 or RTMR2; RTMR3) and membership of MRTD, RTMR0 (only when listed),
 * RTMR1, RTMR2, RTMR3. A mock quote has no TD, so the TD rules do not apply to it: it is
 * judged on accept_mock (and the lists) alone.
 *
 * Thread safety: every function here is pure: safe from any thread.
 */
#ifndef MERO_TRUST_RULES_H
#define MERO_TRUST_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/sizes.h"

/* TDATTRIBUTES bits (Intel TDX module ABI). */
#define MERO_TD_ATTR_DEBUG           (UINT64_C(1) << 0)
#define MERO_TD_ATTR_SEPT_VE_DISABLE (UINT64_C(1) << 28)

/* Stable codes: appended, never renumbered (the two-sided test table names them). */
enum mero_trust_rule {
    MERO_TRUST_OK = 0,
    MERO_TRUST_MOCK_NOT_ACCEPTED,
    MERO_TRUST_TCB_REVOKED,
    MERO_TRUST_TCB_NOT_ALLOWED,
    MERO_TRUST_DEBUG_TD,
    MERO_TRUST_SEPT_VE_NOT_DISABLED,
    MERO_TRUST_SERVICE_TD,
    MERO_TRUST_EMPTY_MRTD,
    MERO_TRUST_EMPTY_RTMR12,
    MERO_TRUST_EMPTY_RTMR3,
    MERO_TRUST_MRTD_MISMATCH,
    MERO_TRUST_RTMR0_MISMATCH,
    MERO_TRUST_RTMR1_MISMATCH,
    MERO_TRUST_RTMR2_MISMATCH,
    MERO_TRUST_RTMR3_MISMATCH,
    MERO_TRUST__COUNT
};

/* What the quote says. reg[0] = MRTD, reg[1..4] = RTMR0..3 (48 bytes each; NULL = unreadable,
 * which matches no list). */
struct mero_trust_facts {
    bool is_mock;
    const char *tcb_status; /* Intel's name, "Mock", or "" when none */
    bool has_td;            /* the TD facts below are known (a real quote) */
    uint64_t td_attributes;
    bool service_td; /* MRSERVICETD is not all zero */
    const uint8_t *reg[5];
};

/* The allow-lists, read through the caller's representation (hex strings in governance,
 * bytes in VerifierPolicy). reg as in facts.reg. */
struct mero_trust_lists {
    const void *ctx;
    size_t (*tcb_count)(const void *ctx);
    const char *(*tcb_at)(const void *ctx, size_t i);
    size_t (*reg_count)(const void *ctx, int reg);
    bool (*reg_contains)(const void *ctx, int reg, const uint8_t v[MERO_MR_LEN]);
};

struct mero_trust_policy {
    bool accept_mock;
    bool allow_debug_td;        /* admission: always false */
    bool allow_sept_ve_enabled; /* default false: SEPT_VE_DISABLE required */
    bool allow_service_td;      /* default false */
    bool check_measurements;    /* false: the lists are not consulted (signed-release form) */
    struct mero_trust_lists lists;
};

/* The first rule the facts fail, or MERO_TRUST_OK. */
enum mero_trust_rule mero_trust_check(const struct mero_trust_policy *p,
                                      const struct mero_trust_facts *f);
/* The fixed reason text of a rule (reference-calimero.md §6.1 wording where it has one). */
const char *mero_trust_rule_reason(enum mero_trust_rule r);
/* A short stable name ("DebugTd", "MrtdNotAllowed", ...). */
const char *mero_trust_rule_name(enum mero_trust_rule r);

#endif
