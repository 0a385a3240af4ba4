/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release.c - mero-tee's published-mrtds.json (reference-sigstore-ccel.md §B.1, §B.5;
 * reference-calimero.md §10): parse it for the release asked for, compare semantic versions,
 * and match a quote's MRTD / RTMR0-3 against the release's profiles.
 *
 * Invariants: the file is judged only after its signature verified (release_source.c), but
 * this parser trusts nothing either: role must be "node", the tag must be the version asked
 * for, every measurement is 96 hex (else the whole file is refused), a profile without MRTD or
 * RTMR1-3 is dropped, and a file with no profile left is refused. Matching never admits on an
 * empty list except RTMR0, which is checked only when the profile pins it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/sigstore_internal.h"
#include "mero/encoding.h"
#include "mero/release.h"

#define TAG_PREFIX "mero-tee-v"

void mero_release_free(struct mero_release *r)
{
    free(r);
}

static const char *strip_prefix(const char *s)
{
    if (strncmp(s, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
        return s + strlen(TAG_PREFIX);
    }
    return s;
}

/* trim, lowercase, strip 0x, require 96 hex -> 48 bytes */
static int measurement(const char *s, uint8_t out[MERO_MR_LEN])
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n != MERO_MR_HEX_LEN) {
        return -MERO_EHEX;
    }
    return mero_hex_decode_exact(out, MERO_MR_LEN, s, n);
}

#define RELEASE_KEY_MAX 32 /* "allowed_<key>" as text */

/* allowed_<key> if a non-empty list, else <key> as one value. Returns the count (0: absent). */
static int values(json_t *prof, const char *key, uint8_t out[][MERO_MR_LEN], struct mero_err *err,
                  const char *pname)
{
    char lk[RELEASE_KEY_MAX];
    snprintf(lk, sizeof(lk), "allowed_%s", key);
    json_t *list = json_object_get(prof, lk);
    json_t *one = json_object_get(prof, key);
    if (list != NULL && !json_is_array(list)) {
        return mero_err_set(err, MERO_ERELEASE, "profile %s: %s is not a list", pname, lk);
    }
    size_t n = list ? json_array_size(list) : 0;
    if (n > MERO_RELEASE_MAX_VALUES) {
        return mero_err_set(err, MERO_ERELEASE, "profile %s: %s has %zu values (max %d)", pname, lk,
                            n, MERO_RELEASE_MAX_VALUES);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(list, i);
        if (!json_is_string(v) || measurement(json_string_value(v), out[i]) < 0) {
            return mero_err_set(err, MERO_ERELEASE, "profile %s: %s[%zu] is not 96 hex", pname, lk,
                                i);
        }
    }
    if (n > 0) {
        return (int)n;
    }
    if (one == NULL || json_is_null(one)) {
        return 0;
    }
    if (!json_is_string(one) || measurement(json_string_value(one), out[0]) < 0) {
        return mero_err_set(err, MERO_ERELEASE, "profile %s: %s is not 96 hex", pname, key);
    }
    return 1;
}

static int tcb_statuses(json_t *prof, struct mero_release_profile *p, struct mero_err *err)
{
    json_t *list = json_object_get(prof, "allowed_tcb_statuses");
    if (list == NULL) {
        return 0;
    }
    if (!json_is_array(list) || json_array_size(list) > MERO_RELEASE_MAX_TCB) {
        return mero_err_set(err, MERO_ERELEASE, "profile %s: allowed_tcb_statuses", p->name);
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *v = json_array_get(list, i);
        size_t n = json_is_string(v) ? json_string_length(v) : 0;
        if (n == 0 || n >= sizeof(p->tcb[0])) {
            return mero_err_set(err, MERO_ERELEASE, "profile %s: allowed_tcb_statuses[%zu]",
                                p->name, i);
        }
        const char *s = json_string_value(v);
        for (size_t k = 0; k < n; k++) {
            p->tcb[p->n_tcb][k] = (char)tolower((unsigned char)s[k]);
        }
        p->tcb[p->n_tcb][n] = 0;
        p->n_tcb++;
    }
    return 0;
}

/* 1 kept, 0 dropped (lacks a required register), <0 the file is refused */
static int parse_profile(const char *name, json_t *prof, struct mero_release_profile *p,
                         struct mero_err *err)
{
    memset(p, 0, sizeof(*p));
    size_t nl = strlen(name);
    if (nl == 0 || nl >= sizeof(p->name)) {
        return mero_err_set(err, MERO_ERELEASE, "profile name empty or too long");
    }
    memcpy(p->name, name, nl + 1);
    if (!json_is_object(prof)) {
        return mero_err_set(err, MERO_ERELEASE, "profile %s is not an object", p->name);
    }
    int n = values(prof, "mrtd", p->mrtd, err, p->name);
    if (n < 0) {
        return n;
    }
    p->n_mrtd = (size_t)n;
    static const char *const keys[4] = {"rtmr0", "rtmr1", "rtmr2", "rtmr3"};
    for (int i = 0; i < 4; i++) {
        n = values(prof, keys[i], p->rtmr[i], err, p->name);
        if (n < 0) {
            return n;
        }
        p->n_rtmr[i] = (size_t)n;
    }
    MERO_TRY(tcb_statuses(prof, p, err));
    return p->n_mrtd > 0 && p->n_rtmr[1] > 0 && p->n_rtmr[2] > 0 && p->n_rtmr[3] > 0;
}

static int check_header(json_t *j, const char *expected, unsigned flags, char *tag, size_t cap,
                        struct mero_err *err)
{
    const char *role = mero__json_str(j, "role");
    const char *t = mero__json_str(j, "tag");
    if (role == NULL && t == NULL && (flags & MERO_RELEASE_ACCEPT_RECORD) &&
        json_object_get(j, "schema_version") != NULL) {
        t = mero__json_str(j, "release_tag"); /* the older policy-record schema */
    } else if (role == NULL || strcmp(role, "node") != 0) {
        return mero_err_set(err, MERO_ERELEASE, "release role is %s%s%s, not node",
                            role ? "\"" : "", role ? role : "absent", role ? "\"" : "");
    }
    if (t == NULL) {
        return mero_err_set(err, MERO_ERELEASE, "release file has no tag");
    }
    t = strip_prefix(t);
    if (mero_release_version_check(t) < 0) {
        return mero_err_set(err, MERO_ERELEASE, "release tag is not a version");
    }
    if (expected != NULL && strcmp(t, strip_prefix(expected)) != 0) {
        return mero_err_set(err, MERO_ERELEASE, "release file is for %s, not %s", t,
                            strip_prefix(expected));
    }
    snprintf(tag, cap, "%s", t);
    return 0;
}

int mero_release_parse(struct mero_release **out, const uint8_t *json, size_t len,
                       const char *expected, unsigned flags, struct mero_err *err)
{
    json_t *j = mero__json_load(json, len, MERO_RELEASE_MAX_FILE, err);
    if (j == NULL) {
        return -MERO_ERELEASE;
    }
    struct mero_release *r = calloc(1, sizeof(*r));
    int rc = 0;
    MERO_ENSURE_OUT(r != NULL, NULL, MERO_ENOMEM, "out of memory");
    MERO_TRY_OUT(check_header(j, expected, flags, r->tag, sizeof(r->tag), err));
    json_t *profiles = json_object_get(j, "profiles");
    MERO_ENSURE_OUT(json_is_object(profiles) && json_object_size(profiles) != 0, err, MERO_ERELEASE,
                    "release file has no profiles");
    MERO_ENSURE_OUT(json_object_size(profiles) <= MERO_RELEASE_MAX_PROFILES, err, MERO_ERELEASE,
                    "release file has more than %d profiles", MERO_RELEASE_MAX_PROFILES);
    const char *name;
    json_t *prof;
    json_object_foreach(profiles, name, prof)
    {
        MERO_TRY_OUT(parse_profile(name, prof, &r->profiles[r->n_profiles], err));
        r->n_profiles += (size_t)rc;
    }
    MERO_ENSURE_OUT(r->n_profiles != 0, err, MERO_ERELEASE,
                    "not a release's published-mrtds.json: no profile carries MRTD and "
                    "RTMR1-3");
    *out = r;
    r = NULL;
    rc = 0;
out:
    free(r);
    json_decref(j);
    return rc;
}

/* ---- semantic versions ---- */

struct semver {
    uint64_t n[3];
    const char *pre; /* points after '-', or NULL */
    size_t pre_len;
};

static int num_ident(const char *s, size_t n, uint64_t *v)
{
    if (n == 0 || n > 19 || (n > 1 && s[0] == '0')) {
        return -MERO_EINVAL;
    }
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return -MERO_EINVAL;
        }
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return 0;
}

static int ident_ok(const char *s, size_t n)
{
    /* dot-separated non-empty [0-9A-Za-z-] identifiers */
    if (n == 0 || s[0] == '.' || s[n - 1] == '.') {
        return -MERO_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' && s[i + 1] == '.') {
            return -MERO_EINVAL;
        }
        if (!(isalnum((unsigned char)c) || c == '-' || c == '.')) {
            return -MERO_EINVAL;
        }
    }
    return 0;
}

static int semver_parse(const char *s, struct semver *v)
{
    if (s == NULL) {
        return -MERO_EINVAL;
    }
    s = strip_prefix(s);
    if (s[0] == 'v') {
        s++;
    }
    size_t len = strlen(s);
    if (len == 0 || len >= MERO_RELEASE_NAME_MAX) {
        return -MERO_EINVAL;
    }
    const char *end = s + len;
    const char *plus = memchr(s, '+', len);
    if (plus != NULL) {
        if (ident_ok(plus + 1, (size_t)(end - plus - 1)) < 0) {
            return -MERO_EINVAL;
        }
        end = plus;
    }
    const char *dash = memchr(s, '-', (size_t)(end - s));
    v->pre = NULL;
    v->pre_len = 0;
    if (dash != NULL) {
        if (ident_ok(dash + 1, (size_t)(end - dash - 1)) < 0) {
            return -MERO_EINVAL;
        }
        v->pre = dash + 1;
        v->pre_len = (size_t)(end - dash - 1);
        end = dash;
    }
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        const char *dot = i < 2 ? memchr(p, '.', (size_t)(end - p)) : end;
        if (dot == NULL || num_ident(p, (size_t)(dot - p), &v->n[i]) < 0) {
            return -MERO_EINVAL;
        }
        p = dot + 1;
    }
    return 0;
}

int mero_release_version_check(const char *s)
{
    struct semver v;
    return semver_parse(s, &v);
}

static int cmp_pre(const char *a, size_t na, const char *b, size_t nb)
{
    while (na > 0 && nb > 0) {
        const char *da = memchr(a, '.', na), *db = memchr(b, '.', nb);
        size_t la = da ? (size_t)(da - a) : na, lb = db ? (size_t)(db - b) : nb;
        uint64_t xa, xb;
        int ia = num_ident(a, la, &xa) == 0, ib = num_ident(b, lb, &xb) == 0;
        int c;
        if (ia && ib) {
            c = xa < xb ? -1 : xa > xb;
        } else if (ia != ib) {
            c = ia ? -1 : 1; /* numeric identifiers sort before alphanumeric ones */
        } else {
            size_t m = la < lb ? la : lb;
            c = memcmp(a, b, m);
            c = c ? c : (la < lb ? -1 : la > lb);
        }
        if (c != 0) {
            return c < 0 ? -1 : 1;
        }
        a += la + (da != NULL);
        na -= la + (da != NULL);
        b += lb + (db != NULL);
        nb -= lb + (db != NULL);
    }
    return na > 0 ? 1 : (nb > 0 ? -1 : 0);
}

int mero_release_version_cmp(const char *a, const char *b, int *cmp)
{
    struct semver x, y;
    if (semver_parse(a, &x) < 0 || semver_parse(b, &y) < 0) {
        return -MERO_EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        if (x.n[i] != y.n[i]) {
            *cmp = x.n[i] < y.n[i] ? -1 : 1;
            return 0;
        }
    }
    if (x.pre == NULL || y.pre == NULL) {
        *cmp = x.pre == y.pre ? 0 : (x.pre == NULL ? 1 : -1); /* a release outranks its pre */
        return 0;
    }
    *cmp = cmp_pre(x.pre, x.pre_len, y.pre, y.pre_len);
    return 0;
}

/* ---- matching ---- */

static int in_list(const uint8_t (*list)[MERO_MR_LEN], size_t n, const uint8_t v[MERO_MR_LEN])
{
    for (size_t i = 0; i < n; i++) {
        if (memcmp(list[i], v, MERO_MR_LEN) == 0) {
            return 1;
        }
    }
    return 0;
}

/* NULL when the profile matches, else what differs */
static const char *profile_mismatch(const struct mero_release_profile *p,
                                    const struct mero_release_meas *m)
{
    static const char *const names[4] = {"RTMR0", "RTMR1", "RTMR2", "RTMR3"};
    if (!in_list((const uint8_t(*)[MERO_MR_LEN])p->mrtd, p->n_mrtd, m->mrtd)) {
        return "MRTD";
    }
    for (int i = 0; i < 4; i++) {
        if (i == 0 && p->n_rtmr[0] == 0) {
            continue; /* RTMR0 depends on the VM shape; checked only when pinned */
        }
        if (!in_list((const uint8_t(*)[MERO_RTMR_LEN])p->rtmr[i], p->n_rtmr[i], m->rtmr[i])) {
            return names[i];
        }
    }
    return NULL;
}

int mero_release_match(const struct mero_release *r, const char *const *allowed, size_t n,
                       const struct mero_release_meas *m, char *matched, size_t cap,
                       struct mero_err *err)
{
    if (r == NULL || m == NULL) {
        return mero_err_set(err, MERO_EINVAL, "no release or measurements");
    }
    size_t count = allowed ? n : r->n_profiles;
    char why[200] = "no allowed profile is in the release";
    for (size_t i = 0; i < count; i++) {
        const struct mero_release_profile *p = NULL;
        if (allowed == NULL) {
            p = &r->profiles[i];
        } else {
            for (size_t k = 0; allowed[i] != NULL && k < r->n_profiles; k++) {
                if (strcmp(r->profiles[k].name, allowed[i]) == 0) {
                    p = &r->profiles[k];
                    break;
                }
            }
        }
        if (p == NULL) {
            continue;
        }
        const char *bad = profile_mismatch(p, m);
        if (bad == NULL) {
            if (matched != NULL && cap > 0) {
                snprintf(matched, cap, "%s", p->name);
            }
            return 0;
        }
        snprintf(why, sizeof(why), "%s differs from profile %s of release %s", bad, p->name,
                 r->tag);
    }
    return mero_err_set(err, MERO_ERELEASE_NOMATCH, "%s", why);
}
