/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap_cases.h - loads the genuine TDX cases of ../shared/testdata/tdx (quote, collateral,
 * expected.json) for the DCAP tests and the benchmark. Nothing is copied from ../shared.
 */
#ifndef MERO_TESTS_DCAP_CASES_H
#define MERO_TESTS_DCAP_CASES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/collateral.h"

struct dcap_case {
    char name[64];
    char dir[512];
    uint8_t *quote;
    size_t quote_len;
    char *collateral_json; /* NULL when the case has none */
    size_t collateral_len;
    json_t *expected;   /* owned */
    const char *result; /* expect.result */
    uint64_t verify_time;
    int64_t window_nb, window_na; /* collateral_validity_window, 0 when absent */
};

/* The cases with collateral, in a fixed order; NULL-terminated names. */
extern const char *const dcap_case_names[];

/* Load ../shared/testdata/<rel> (e.g. "tdx/dcapqvl-1"); 0 or -1. */
int dcap_case_load(struct dcap_case *c, const char *rel);
void dcap_case_free(struct dcap_case *c);
/* Read a file under the case folder (NUL-terminated); NULL if absent. */
char *dcap_case_file(const struct dcap_case *c, const char *name, size_t *len);

#endif
