/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_release.c - issue 36 (docs/audit.md "Signed releases"): the signed mero-tee releases
 * an audit export carries for its release-form policies. Each release (published-mrtds.json,
 * its Sigstore bundle and detached .sig) is verified offline, under the trusted root of the
 * verifying side (never one from the export) and mero-tee's node-release identity, and
 * parsed; a quote's registers under a release-form policy must match an allowed profile of
 * one that verified and is no older than the policy's min_release.
 *
 * Invariants: no network and no clock (the bundle carries its own signing time); a release
 * that does not verify is a finding naming its file and matches nothing; the trusted root is
 * the verifier's own ($MERO_SIGSTORE_TRUSTED_ROOT, else the shipped pinned root).
 */
#include <stdlib.h>
#include <string.h>

#include "gov/audit_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sigstore.h"

static const char *const part_ext[] = {"json", "bundle.json", "sig"};

void mero_audit_release_file(const struct mero_audit_release *r, int part,
                             char out[MERO_AUDIT_PATH_MAX])
{
    char h[MERO_HEX_SIZE(MERO_SHA256_LEN)];
    mero__audit_hex(h, r->sha256);
    snprintf(out, MERO_AUDIT_PATH_MAX, "releases/%s.%s", h, part_ext[part % 3]);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n > 0 ? n : 1);
    if (d != NULL && n > 0) {
        memcpy(d, p, n);
    }
    return d;
}

int mero_audit_add_release(struct mero_audit_log *log, const uint8_t *file, size_t file_len,
                           const uint8_t *bundle, size_t bundle_len, const uint8_t *sig,
                           size_t sig_len)
{
    uint8_t h[MERO_SHA256_LEN];
    if (log->nrels >= MERO_AUDIT_MAX_RELEASES || file_len > MERO_AUDIT_MAX_FILE ||
        bundle_len > MERO_AUDIT_MAX_RELEASE_ASSET || sig_len > MERO_AUDIT_MAX_RELEASE_ASSET) {
        return -MERO_ETOOBIG;
    }
    mero_sha256(h, file, file_len);
    for (size_t i = 0; i < log->nrels; i++) {
        if (memcmp(log->rels[i].sha256, h, sizeof(h)) == 0) {
            return 0;
        }
    }
    struct mero_audit_release *n = realloc(log->rels, (log->nrels + 1) * sizeof(*n));
    if (n == NULL) {
        return -MERO_ENOMEM;
    }
    log->rels = n;
    struct mero_audit_release *r = &log->rels[log->nrels];
    memset(r, 0, sizeof(*r));
    memcpy(r->sha256, h, sizeof(h));
    r->file = dup_bytes(file, file_len);
    r->bundle = dup_bytes(bundle, bundle_len);
    r->sig = sig != NULL ? dup_bytes(sig, sig_len) : NULL;
    r->file_len = file_len;
    r->bundle_len = bundle_len;
    r->sig_len = sig != NULL ? sig_len : 0;
    log->nrels++; /* cleaned up with the log even when a copy failed */
    if (r->file == NULL || r->bundle == NULL || (sig != NULL && r->sig == NULL)) {
        return -MERO_ENOMEM;
    }
    return 0;
}

void mero__audit_releases_cleanup(struct mero_audit_log *log)
{
    for (size_t i = 0; i < log->nrels; i++) {
        struct mero_audit_release *r = &log->rels[i];
        free(r->file);
        free(r->bundle);
        free(r->sig);
        mero_release_free(r->rel);
    }
    free(log->rels);
    log->rels = NULL;
    log->nrels = 0;
}

/* Verify one release: its Sigstore signature under the node-release identity, then its file. */
static void verify_one(const struct mero_trust_root *tr, struct mero_audit_release *r)
{
    struct mero_sigstore_result res;
    struct mero_err e = {0};
    struct mero_sigstore_opts o = {
        .now = 0, /* offline: the bundle's own signing time; no wall clock */
        .detached_sig = (const char *)r->sig,
        .detached_sig_len = r->sig_len,
    };
    memset(&res, 0, sizeof(res));
    r->verified = false;
    if (mero_sigstore_verify(tr, r->file, r->file_len, r->bundle, r->bundle_len,
                             &mero_sigstore_node_release_identity, &o, &res, &e) < 0) {
        snprintf(r->reason, sizeof(r->reason), "its Sigstore signature does not verify: %.200s",
                 e.msg);
        return;
    }
    if (mero_release_parse(&r->rel, r->file, r->file_len, NULL, 0, &e) < 0) {
        snprintf(r->reason, sizeof(r->reason), "signed, but not a node release file: %.200s",
                 e.msg);
        r->rel = NULL;
        return;
    }
    r->signed_at = res.integrated_time;
    r->verified = true;
}

int mero__audit_releases_verify(struct mero_audit_log *log, struct mero_audit_findings *f)
{
    struct mero_trust_root *tr = NULL;
    struct mero_err e = {0};
    char name[MERO_AUDIT_PATH_MAX];
    if (log->nrels == 0) {
        return 0;
    }
    if (mero_trust_root_load_env(&tr, &e) < 0) {
        for (size_t i = 0; i < log->nrels; i++) {
            struct mero_audit_release *r = &log->rels[i];
            snprintf(r->reason, sizeof(r->reason), "no Sigstore trusted root to verify it: %.200s",
                     e.msg);
            mero_audit_release_file(r, 0, name);
            MERO_TRY(mero_audit_finding(f, "%s: %s", name, r->reason));
        }
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < log->nrels && rc == 0; i++) {
        struct mero_audit_release *r = &log->rels[i];
        verify_one(tr, r);
        if (!r->verified) {
            mero_audit_release_file(r, 0, name);
            rc = mero_audit_finding(f, "%s: %s", name, r->reason);
        }
    }
    mero_trust_root_free(tr);
    return rc;
}

int mero_audit_release_match(const struct mero_audit_log *log, const struct mero_tee_policy *p,
                             const struct mero_release_meas *m, size_t *rel, char *profile,
                             size_t cap, struct mero_err *err)
{
    struct mero_err last = {0};
    size_t usable = 0;
    for (size_t i = 0; i < log->nrels; i++) {
        const struct mero_audit_release *r = &log->rels[i];
        int cmp = 0;
        if (!r->verified || r->rel == NULL) {
            continue;
        }
        if (p->min_release != NULL &&
            (mero_release_version_cmp(r->rel->tag, p->min_release, &cmp) < 0 || cmp < 0)) {
            snprintf(last.msg, sizeof(last.msg), "release %s is older than the policy's minimum %s",
                     r->rel->tag, p->min_release);
            continue;
        }
        usable++;
        struct mero_err e = {0};
        if (mero_release_match(r->rel, (const char *const *)p->profiles.v, p->profiles.n, m,
                               profile, cap, &e) == 0) {
            *rel = i;
            return 0;
        }
        snprintf(last.msg, sizeof(last.msg), "release %.32s: %.160s", r->rel->tag, e.msg);
    }
    if (usable == 0) {
        return mero_err_set(err, MERO_ERELEASE,
                            "no exported signed release can vouch for it (%zu exported%s%s)",
                            log->nrels, last.msg[0] != '\0' ? "; " : "", last.msg);
    }
    return mero_err_set(err, MERO_ERELEASE_NOMATCH,
                        "the registers match no allowed profile of the %zu exported signed "
                        "release(s) (%s)",
                        usable, last.msg);
}
