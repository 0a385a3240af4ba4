/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest.c - the real-quote glue of admission on a merod node: verify_and_admit's
 * DCAP step (collateral from the PCS cache, then the DCAP verdict), the governance store's
 * offline evidence verifier (the quote against the collateral it carries, at attested_at),
 * and the signed-release check of admit_tee_node step 3 (a release source built from
 * MERO_SIGSTORE_TRUSTED_ROOT, else the shipped pinned public-good root, and
 * MERO_TEE_RELEASE_BASE_URL).
 *
 * Invariants: "no verdict" (unparsable quote, collateral unavailable, release fetch failed) is
 * an error, never a pass; a quote whose DCAP verdict is not quote_verified is refused with the
 * verdict's reason; the release check refuses when no usable trusted root was loaded.
 * Evidence (TeeAuthorityEvidence) is judged by the library's own offline check in gov
 * (mero_dcap_verify_evidence): merod installs no verifier of its own.
 * The collateral fetch and the DCAP verdict run on a uv_queue_work thread
 * (mero__adm_collateral, mero__adm_dcap: both only use the library, whose caches are
 * thread-safe, and touch no loop state). The release check still runs on the loop: the
 * release source caches releases, so only a cache miss blocks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/collateral.h"
#include "mero/dcap.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/pcs.h"
#include "mero/release.h"
#include "node/admission/attest_internal.h"

int mero__adm_collateral(void *ud, const struct mero_quote *q, struct mero_collateral *out,
                         struct mero_err *err)
{
    (void)ud;
    return mero_pcs_collateral_for_parsed(q, out, err);
}

int mero__adm_dcap(void *ud, const struct mero_quote *q, const struct mero_collateral *c,
                   struct mero_tee_verdict *v, struct mero_err *err)
{
    (void)ud;
    struct mero_dcap_result r;
    MERO_TRY(mero_dcap_verify_parsed(q, c, mero_now_unix(), &r, err));
    MERO_ENSURE(r.quote_verified && r.has_tcb_status, err,
                r.reject_code ? r.reject_code : MERO_EREFUSED, "%s",
                r.reject_reason[0] ? r.reject_reason : "the quote does not verify");
    snprintf(v->tcb_status, sizeof(v->tcb_status), "%s", mero_tcb_status_name(r.tcb_status));
    memcpy(v->mrtd, r.mrtd, sizeof(v->mrtd));
    memcpy(v->rtmr, r.rtmr, sizeof(v->rtmr));
    return 0;
}

/* One release source per process, like the PCS cache. */
static struct mero_release_source *release_src;

static int release_source(struct mero_release_source **out, struct mero_err *err)
{
    if (release_src == NULL) {
        return mero_err_set(err, MERO_ERELEASE,
                            "no usable Sigstore trusted root (MERO_SIGSTORE_TRUSTED_ROOT unset "
                            "and the shipped root missing or not the pinned file): cannot verify "
                            "a signed release");
    }
    *out = release_src;
    return 0;
}

int mero__node_admission_attest_init(struct mero_err *err)
{
    const char *root = getenv("MERO_SIGSTORE_TRUSTED_ROOT");
    if (release_src != NULL) {
        return 0;
    }
    struct mero_release_source_opts o;
    memset(&o, 0, sizeof(o));
    o.base_url = getenv("MERO_TEE_RELEASE_BASE_URL");
    if (root != NULL && root[0] != '\0') {
        o.trusted_root_path = root; /* named by the operator: failing to load it is fatal */
        return mero_release_source_new(&release_src, &o, err);
    }
    /* the shipped root; when it is missing or not the pinned file the node still starts and
     * release-form admissions of real quotes are refused with that reason */
    struct mero_err e = {0};
    if (mero_release_source_new(&release_src, &o, &e) < 0) {
        MERO_WARN("shipped Sigstore trusted root unusable: %s", e.msg);
        release_src = NULL;
    }
    return 0;
}

int mero__adm_prefetch_release(void *ud, const char *version, struct mero_err *err)
{
    (void)ud;
    struct mero_release_source *src = NULL;
    struct mero_release *r = NULL;
    MERO_TRY(release_source(&src, err));
    MERO_TRY(mero_release_source_get(src, version, &r, err));
    mero_release_free(r);
    return 0;
}

int mero__node_release_check(void *ud, const char *release_version,
                             const struct mero_tee_policy *policy,
                             const struct mero_measurements *m, char *matched, size_t cap,
                             struct mero_err *reason)
{
    (void)ud;
    struct mero_release_source *src = NULL;
    MERO_TRY(release_source(&src, reason));
    /* gov's hook over the release source: decode, mero_release_check, reasons passed on */
    return mero_gov_release_hook(src, release_version, policy, m, matched, cap, reason);
}

void mero__node_admission_attest_cleanup(void)
{
    mero_release_source_free(release_src);
    release_src = NULL;
}
