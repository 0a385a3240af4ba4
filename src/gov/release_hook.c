/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release_hook.c - a ready release_check hook for struct mero_gov_hooks over src/attest's
 * release source (fetch, Sigstore verification, cache): admit_tee_node step 3 for a
 * signed-release policy. The hook's user data is the struct mero_release_source.
 *
 * Invariant: a measurement that is not 96 hex characters matches nothing (refused), every
 * refusal of mero_release_check is passed through with its reason, and an admission names the
 * profile it matched (the fleet view's matched.name). BLOCKING on a cache miss
 * (network): the caller runs admit_tee_node off the loop thread, or pre-warms the cache.
 */
#include "mero/gov.h"
#include "mero/op.h"
#include "mero/release.h"

_Static_assert(MERO_GOV_PROFILE_NAME_MAX == MERO_RELEASE_NAME_MAX, "a profile's name fits");

int mero_gov_release_hook(void *ud, const char *release_version,
                          const struct mero_tee_policy *policy, const struct mero_measurements *m,
                          char *matched, size_t cap, struct mero_err *reason)
{
    struct mero_release_meas rm;
    bool ok[1 + MERO_RTMR_COUNT];
    MERO_ENSURE(ud != NULL, reason, MERO_EINVAL, "no release source configured");
    if (mero_measurements_to_raw(m, rm.mrtd, rm.rtmr, ok) < 0) {
        MERO_ENSURE(ok[0], reason, MERO_EREFUSED, "the quote's MRTD is not a 48-byte value");
        for (int i = 0; i < MERO_RTMR_COUNT; i++) {
            MERO_ENSURE(ok[1 + i], reason, MERO_EREFUSED,
                        "the quote's RTMR%d is not a 48-byte value", i);
        }
    }
    return mero_release_check((struct mero_release_source *)ud, release_version,
                              policy->min_release, (const char *const *)policy->profiles.v,
                              policy->profiles.n, &rm, matched, matched != NULL ? cap : 0, reason);
}
