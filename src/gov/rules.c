/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.c - the checks an admitter and every applying peer share: the TCB rule, the list-form
 * measurement rule (MRTD and RTMR1-3 required and matched, RTMR0 when pinned), reading a
 * quote's report data, and the admission binding re-check from the carried quote.
 *
 * Invariants: fail closed - an empty required list, a missing status, a quote that does not
 * parse, or a binding that does not match is a refusal, never a pass. Revoked is
 * refused in any case; Mock passes only with accept_mock; an empty TCB list means UpToDate.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gov/gov_internal.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "mero/quote.h"

bool mero__gov_tcb_allowed(const struct mero_strlist *list, const char *status, bool is_mock,
                           bool accept_mock)
{
    if (strcasecmp(status, "Revoked") == 0) {
        return false;
    }
    if (is_mock || strcmp(status, "Mock") == 0) {
        return accept_mock;
    }
    if (list->n == 0) {
        return strcmp(status, "UpToDate") == 0;
    }
    for (uint32_t i = 0; i < list->n; i++) {
        if (strcmp(list->v[i], status) == 0) {
            return true;
        }
    }
    return false;
}

int mero__gov_check_measurements(const struct mero_tee_policy *p, const struct mero_measurements *m,
                                 struct mero_err *err)
{
    if (p->mrtd.n == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "policy has an empty allowed_mrtd; refusing to admit any quote");
    }
    if (!mero_strlist_contains_ci(&p->mrtd, m->mrtd)) {
        return mero_err_set(err, MERO_EREFUSED, "MRTD not in policy allowlist");
    }
    if (p->rtmr[0].n != 0 && !mero_strlist_contains_ci(&p->rtmr[0], m->rtmr[0])) {
        return mero_err_set(err, MERO_EREFUSED, "RTMR0 not in policy allowlist");
    }
    if (p->rtmr[1].n == 0 || p->rtmr[2].n == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "policy has an empty allowed_rtmr1 or allowed_rtmr2; refusing to "
                            "admit any quote");
    }
    if (!mero_strlist_contains_ci(&p->rtmr[1], m->rtmr[1])) {
        return mero_err_set(err, MERO_EREFUSED, "RTMR1 not in policy allowlist");
    }
    if (!mero_strlist_contains_ci(&p->rtmr[2], m->rtmr[2])) {
        return mero_err_set(err, MERO_EREFUSED, "RTMR2 not in policy allowlist");
    }
    if (p->rtmr[3].n == 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "policy has an empty allowed_rtmr3; refusing to admit any quote");
    }
    if (!mero_strlist_contains_ci(&p->rtmr[3], m->rtmr[3])) {
        return mero_err_set(err, MERO_EREFUSED, "RTMR3 not in policy allowlist");
    }
    return 0;
}

int mero__gov_report_data(struct mero_store *s, const uint8_t *q, size_t n, uint8_t out[64],
                          bool *is_mock, struct mero_err *err)
{
    if (mero_mock_is_mock(q, n)) {
        *is_mock = true;
        if (n < MERO_MOCK_HEADER_LEN + 64) {
            return mero_err_set(err, MERO_EREFUSED, "mock quote too short to carry report data");
        }
        memcpy(out, q + MERO_MOCK_HEADER_LEN, 64);
        return 0;
    }
    *is_mock = false;
    struct mero_err e = {0};
    int rc;
    if (s->hooks.quote_report_data != NULL) {
        rc = s->hooks.quote_report_data(s->hooks.ud, q, n, out, &e);
    } else {
        bool mock = false;
        rc = mero_quote_report_data(q, n, out, &mock);
        if (rc < 0) {
            snprintf(e.msg, sizeof(e.msg), "%s", mero_strerror(rc));
        }
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_EREFUSED, "the carried quote does not parse: %s", e.msg);
    }
    return 0;
}

int mero__gov_check_binding(struct mero_store *s, const uint8_t ns[32], const uint8_t group[32],
                            const uint8_t member[32], const struct mero_credential *cred,
                            const uint8_t *quote, size_t qlen, bool *is_mock, struct mero_err *err)
{
    uint8_t rd[64], binding[32];
    MERO_TRY(mero__gov_report_data(s, quote, qlen, rd, is_mock, err));
    mero_admission_binding(binding, ns, group, member, cred->cert.account, cred->cert.kem_pk,
                           cred->cert.device);
    if (!mero_ct_eq(rd + 32, binding, 32)) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the quote does not commit to the credential admitted in this "
                            "namespace (admission binding mismatch)");
    }
    return 0;
}
