/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release.h - mero-tee signed node releases (spec "Signed-release policies",
 * reference-sigstore-ccel.md §B, reference-calimero.md §10): parsing published-mrtds.json,
 * semantic-version comparison, matching a quote's measurements against a release's profiles,
 * and a release source that fetches, verifies (Sigstore, node-release identity) and caches
 * releases for the admission check.
 *
 * Invariants: a parsed release holds only profiles with MRTD and RTMR1-3 (each a list of
 * 48-byte values); a release is cached only after its signature verified and its file parsed
 * for the version asked; a failed fetch or verification is never cached.
 *
 * Thread safety: mero_release_parse, _free, _match, _version_check and _version_cmp are safe
 * from any thread (no shared state). A mero_release_source is safe from any thread
 * (mero_release_source_get / _check / _cached; a fetch in flight is joined by other threads
 * asking for the same version); mero_release_source_new / _free are not safe on the same
 * source (free it after its last use).
 */
#ifndef MERO_RELEASE_H
#define MERO_RELEASE_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sigstore.h"
#include "mero/sizes.h"

#define MERO_RELEASE_MAX_FILE     (1024u * 1024u) /* published-mrtds.json */
#define MERO_RELEASE_MAX_PROFILES 16
#define MERO_RELEASE_MAX_VALUES   8  /* entries of one allowed_* list */
#define MERO_RELEASE_NAME_MAX     64 /* profile names, versions (with NUL) */
#define MERO_RELEASE_MAX_TCB      8
#define MERO_RELEASE_TCB_NAME_MAX 32 /* a lowercase TCB status name, with its NUL */
#define MERO_RELEASE_CACHE        32
#define MERO_RELEASE_DEFAULT_BASE_URL                                                              \
    "https://github.com/calimero-network/mero-tee/releases/download"

struct mero_release_profile {
    char name[MERO_RELEASE_NAME_MAX];
    size_t n_mrtd;
    uint8_t mrtd[MERO_RELEASE_MAX_VALUES][MERO_MR_LEN];
    size_t n_rtmr[MERO_RTMR_COUNT]; /* n_rtmr[0] == 0: RTMR0 not pinned */
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RELEASE_MAX_VALUES][MERO_RTMR_LEN];
    size_t n_tcb;
    char tcb[MERO_RELEASE_MAX_TCB][MERO_RELEASE_TCB_NAME_MAX]; /* allowed_tcb_statuses, lowercase */
};

/* The registers a release pins, as read from a quote's TD report (MRTD, RTMR0..RTMR3). */
struct mero_release_meas {
    uint8_t mrtd[MERO_MR_LEN];
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
};

struct mero_release {
    char tag[MERO_RELEASE_NAME_MAX]; /* without the mero-tee-v prefix */
    size_t n_profiles;
    struct mero_release_profile profiles[MERO_RELEASE_MAX_PROFILES];
};

enum {
    /* also accept the older unsigned policy-record schema (release_tag, no role); only for
     * offline matching, never for admission */
    MERO_RELEASE_ACCEPT_RECORD = 1,
};

/*
 * Parse published-mrtds.json. `expected` (optional) is the release asked for; the file's tag,
 * with an optional "mero-tee-v" prefix (also accepted on `expected`), must equal it. Role must
 * be "node". Values are trimmed, lowercased, stripped of 0x and must be 96 hex, else the file
 * is refused; lists are preferred and an empty or absent list falls back to the single value;
 * a profile lacking MRTD, RTMR1, RTMR2 or RTMR3 is dropped, and a file left with no profile
 * is refused (a file signed by the same workflow but holding no measurements, such as
 * release-provenance.json). *out is owned (free with mero_release_free).
 */
MERO_MUST_CHECK int mero_release_parse(struct mero_release **out, const uint8_t *json, size_t len,
                                       const char *expected, unsigned flags, struct mero_err *err);
void mero_release_free(struct mero_release *r);

/* Semantic version precedence (semver 2.0.0; "mero-tee-v" or "v" prefix ignored): *cmp gets
 * <0, 0, >0. -MERO_EINVAL when either is not a version. */
MERO_MUST_CHECK int mero_release_version_cmp(const char *a, const char *b, int *cmp);
/* 0 when s is a version this module accepts (also the only strings put into a URL). */
MERO_MUST_CHECK int mero_release_version_check(const char *s);

/*
 * Match measurements against the release: the first profile, in the order of `allowed`, that
 * the release has and whose MRTD and RTMR1-3 lists contain the quote's values (and RTMR0 when
 * the profile pins it). `allowed` NULL means every profile of the release (offline use only);
 * n == 0 with a non-NULL `allowed` matches nothing. The matched name goes to matched[cap].
 * -MERO_ERELEASE_NOMATCH with the closest reason otherwise.
 */
MERO_MUST_CHECK int mero_release_match(const struct mero_release *r, const char *const *allowed,
                                       size_t n, const struct mero_release_meas *m, char *matched,
                                       size_t cap, struct mero_err *err);

/* ---- release source: fetch + verify + cache ---- */

struct mero_release_source_opts {
    /* Release download base: "<base>/mero-tee-v<ver>/<asset>", or a template containing
     * "{version}" (replaced by the bare version). NULL: MERO_RELEASE_DEFAULT_BASE_URL.
     * http:// is accepted (tests); operators should use https://. */
    const char *base_url;
    const char *trusted_root_path; /* trusted_root.json; NULL: the shipped, pinned root */
    const struct mero_sigstore_identity *identity; /* NULL: node-release identity */
    long timeout_ms;                               /* per asset; 0: 20000 */
    uint64_t now;                                  /* 0: the wall clock (tests fix it) */
};

struct mero_release_source; /* opaque; thread-safe */

MERO_MUST_CHECK int mero_release_source_new(struct mero_release_source **out,
                                            const struct mero_release_source_opts *opts,
                                            struct mero_err *err);
void mero_release_source_free(struct mero_release_source *src);

/*
 * Get the verified release `version` (bare or mero-tee-v prefixed): from the cache, else by
 * fetching published-mrtds.json, .sig and .bundle.json, verifying the signature under the
 * source's identity and parsing the file for that version. *out is an owned copy (free with
 * mero_release_free).
 * BLOCKING (network); call it off the event-loop thread.
 */
MERO_MUST_CHECK int mero_release_source_get(struct mero_release_source *src, const char *version,
                                            struct mero_release **out, struct mero_err *err);

/*
 * The signed-release admission check (spec, admit_tee_node step 3): the TEE named
 * `release_version` (NULL or "" refuses: it must name its release), no older than
 * `min_version` (optional), the release fetched and verified as above, and the quote's MRTD
 * and RTMR0-3 match one of `allowed_profiles` (n >= 1). Returns 0 when admitted, with the
 * profile's name in matched_profile[cap] (optional). Refusals: -MERO_ERELEASE (no/bad
 * release), -MERO_ERELEASE_VERSION (older than the minimum), -MERO_ERELEASE_FETCH (transient:
 * not cached, retry later), the Sigstore reason classes, -MERO_ERELEASE_NOMATCH, -MERO_EPOLICY
 * (no allowed profile). BLOCKING (network, up to 3 x timeout_ms on a cache miss): run it off
 * the loop thread (uv_queue_work). Thread-safe.
 */
MERO_MUST_CHECK int mero_release_check(struct mero_release_source *src, const char *release_version,
                                       const char *min_version, const char *const *allowed_profiles,
                                       size_t n, const struct mero_release_meas *m,
                                       char *matched_profile, size_t cap, struct mero_err *reason);

/* Number of releases in the cache (for tests and metrics). */
size_t mero_release_source_cached(struct mero_release_source *src);

#endif
