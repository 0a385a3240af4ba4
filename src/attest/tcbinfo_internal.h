/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tcbinfo.h (private) - Intel TCB info (TDX, v3) and QE identity (TD_QE, v2) parsed from the
 * signed JSON text. Parsing never judges a quote; dcap.c does that.
 *
 * Invariant: a parsed document owns a handful of allocations (its level arrays and one table
 * of advisory IDs copied out of the JSON), never the JSON tree itself, which the parsing thread
 * frees before it returns: a cached collateral evicted by another thread then frees a few
 * blocks, not thousands of JSON nodes from the parser's malloc arena (issue 23: that
 * cross-arena free was where two verifying threads waited on each other).
 */
#ifndef MERO_ATTEST_TCBINFO_H
#define MERO_ATTEST_TCBINFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/dcap.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_TCB_MAX_LEVELS     256
#define MERO_TCB_MAX_MODULE_IDS 32

/* The advisory IDs of one parsed document, in the order they appear. */
struct mero_adv_table {
    char (*ids)[MERO_DCAP_ADVISORY_LEN]; /* owned */
    size_t n, cap;
};
/* A level's advisory IDs: n entries of its document's table from `first` (n 0: none). */
struct mero_adv_ref {
    uint32_t first, n;
};

struct mero_tcb_level {
    uint8_t sgx[16];
    uint16_t pcesvn;
    bool has_tdx;
    uint8_t tdx[16];
    enum mero_tcb_status status;
    int64_t tcb_date;
    struct mero_adv_ref advisories;
};

struct mero_module_level {
    uint16_t isvsvn;
    enum mero_tcb_status status;
    struct mero_adv_ref advisories;
};

struct mero_tdx_module_identity {
    char id[16];                   /* "TDX_01"; empty for tdxModule */
    uint8_t mrsigner[MERO_MR_LEN]; /* MRSIGNERSEAM */
    uint8_t attributes[8];
    uint8_t attributes_mask[8];
    size_t n_levels;
    struct mero_module_level *levels;
};

struct mero_tcbinfo {
    struct mero_adv_table adv;
    char id[8];
    int version;
    int64_t issue_date, next_update;
    uint8_t fmspc[6];
    uint8_t pceid[2];
    int tcb_type;
    uint32_t eval_num;
    bool has_module;
    struct mero_tdx_module_identity module; /* tdxModule */
    size_t n_module_ids;
    struct mero_tdx_module_identity *module_ids; /* tdxModuleIdentities */
    size_t n_levels;
    struct mero_tcb_level *levels;
};

struct mero_qe_level {
    uint16_t isvsvn;
    enum mero_tcb_status status;
    struct mero_adv_ref advisories;
};

struct mero_qeidentity {
    struct mero_adv_table adv;
    char id[16];
    int version;
    int64_t issue_date, next_update;
    uint32_t eval_num;
    uint32_t miscselect, miscselect_mask;
    uint8_t attributes[16], attributes_mask[16];
    uint8_t mrsigner[MERO_SGX_MEASUREMENT_LEN];
    uint16_t isvprodid;
    size_t n_levels;
    struct mero_qe_level *levels;
};

/* Parse "YYYY-MM-DDTHH:MM:SS[.fff]Z" to unix seconds. */
MERO_MUST_CHECK int mero__date_parse(const char *s, int64_t *out);

/* -MERO_ETCBINFO / -MERO_EQEIDENTITY with a reason when the text is not a well-formed object. */
MERO_MUST_CHECK int mero__tcbinfo_parse(struct mero_tcbinfo *t, const char *text, size_t len,
                                        struct mero_err *err);
void mero__tcbinfo_cleanup(struct mero_tcbinfo *t);
MERO_MUST_CHECK int mero__qeidentity_parse(struct mero_qeidentity *q, const char *text, size_t len,
                                           struct mero_err *err);
void mero__qeidentity_cleanup(struct mero_qeidentity *q);

#endif
