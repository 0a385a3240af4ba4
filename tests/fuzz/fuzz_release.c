/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_release.c - libFuzzer target for published-mrtds.json parsing (both schemas, with and
 * without an expected tag), profile matching against fixed measurements, and the semantic
 * version parser/comparator (the input's first line against its second).
 * Invariant checked: no crash, no sanitizer report; a parsed release has 1..MAX profiles, each
 * with MRTD and RTMR1-3; version comparison is antisymmetric.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/release.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void versions(const uint8_t *data, size_t size)
{
    char a[80] = {0}, b[80] = {0};
    const uint8_t *nl = memchr(data, '\n', size);
    size_t na = nl ? (size_t)(nl - data) : size;
    if (na >= sizeof(a)) {
        return;
    }
    memcpy(a, data, na);
    if (nl != NULL) {
        size_t nb = size - na - 1;
        if (nb >= sizeof(b)) {
            return;
        }
        memcpy(b, nl + 1, nb);
    }
    if (memchr(a, 0, na) != NULL) {
        return;
    }
    int x = 0, y = 0;
    if (mero_release_version_cmp(a, b, &x) == 0) {
        if (mero_release_version_cmp(b, a, &y) != 0 || x != -y) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_err err = {0};
    static const char *const expect[] = {NULL, "2.3.87"};
    for (int k = 0; k < 2; k++) {
        struct mero_release *r = NULL;
        if (mero_release_parse(&r, data, size, expect[k], k ? 0 : MERO_RELEASE_ACCEPT_RECORD,
                               &err) != 0) {
            continue;
        }
        if (r->n_profiles == 0 || r->n_profiles > MERO_RELEASE_MAX_PROFILES) {
            abort();
        }
        for (size_t i = 0; i < r->n_profiles; i++) {
            const struct mero_release_profile *p = &r->profiles[i];
            if (p->n_mrtd == 0 || p->n_rtmr[1] == 0 || p->n_rtmr[2] == 0 || p->n_rtmr[3] == 0) {
                abort();
            }
        }
        struct mero_release_meas m;
        memcpy(&m.mrtd, r->profiles[0].mrtd[0], 48);
        for (int i = 0; i < 4; i++) {
            memcpy(m.rtmr[i], r->profiles[0].rtmr[i][0], 48);
        }
        char got[MERO_RELEASE_NAME_MAX];
        /* a profile's own first values always match it */
        if (mero_release_match(r, NULL, 0, &m, got, sizeof(got), &err) != 0) {
            abort();
        }
        const char *const allow[] = {"locked-read-only", "debug"};
        (void)!mero_release_match(r, allow, 2, &m, got, sizeof(got), &err);
        mero_release_free(r);
    }
    versions(data, size);
    return 0;
}
