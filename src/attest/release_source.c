/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release_source.c - where signed releases come from: fetch published-mrtds.json, its .sig
 * and its .bundle.json over HTTP(S) (libcurl) from the operator's base URL, verify them
 * (sigstore.c, node-release identity), parse the file for the version asked (release.c), and
 * keep the last MERO_RELEASE_CACHE verified releases. Also the admission entry point
 * mero_release_check (spec "Signed-release policies", admit_tee_node step 3).
 *
 * Invariants: only a release that verified and parsed enters the cache, so a fetch failure,
 * a 404 or a bad signature is retried by the next attempt; each asset is size-capped and
 * time-limited; only http/https URLs are followed (at most 5 redirects, for GitHub's release
 * CDN; never from https down to http); the version is checked to be a semantic version before it is
 * put into a URL. The cache is guarded by a mutex and the network work runs outside it, so the
 * source is thread-safe; a version has at most one fetch in flight, which other threads asking
 * for it join (single flight); every call may block for the network and belongs off the
 * event-loop thread.
 */
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "attest/release_internal.h"
#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/log.h"
#include "mero/release.h"

#define ASSET_URL_MAX 4096 /* a release asset's URL */

#define MAX_SIG_ASSET    4096u
#define MAX_BUNDLE_ASSET MERO_SIGSTORE_MAX_BUNDLE

struct cache_entry {
    char version[MERO_RELEASE_NAME_MAX];
    struct mero_release *rel;
    uint64_t used; /* LRU stamp */
};

/* A fetch in progress for one version (guarded by the source's lock): unlinked when done,
 * freed by its last holder. */
struct flight {
    char version[MERO_RELEASE_NAME_MAX];
    unsigned refs;
    bool done;
    int rc;
    struct mero_err err;
    struct flight *next;
};

struct mero_release_source {
    char *base_url;
    struct mero_trust_root *tr;
    struct mero_sigstore_identity id;
    long timeout_ms;
    uint64_t now;
    pthread_mutex_t lock;
    struct cache_entry cache[MERO_RELEASE_CACHE];
    uint64_t clock;
    pthread_cond_t flight_cond;
    struct flight *flights;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_ok;

static void curl_init_once(void)
{
    curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int mero_release_source_new(struct mero_release_source **out,
                            const struct mero_release_source_opts *opts, struct mero_err *err)
{
    if (opts == NULL) {
        return mero_err_set(err, MERO_EINVAL, "release source needs options");
    }
    const char *base = opts->base_url ? opts->base_url : MERO_RELEASE_DEFAULT_BASE_URL;
    if (strncmp(base, "https://", 8) != 0 && strncmp(base, "http://", 7) != 0) {
        return mero_err_set(err, MERO_EINVAL, "release base URL must be http(s)");
    }
    pthread_once(&curl_once, curl_init_once);
    if (!curl_ok) {
        return mero_err_set(err, MERO_EINTERNAL, "libcurl initialisation failed");
    }
    struct mero_release_source *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->base_url = strdup(base)) == NULL) {
        free(s);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    /* no path named: the shipped public-good root, refused unless it is the pinned file */
    int rc = opts->trusted_root_path != NULL
                 ? mero_trust_root_load(&s->tr, opts->trusted_root_path, err)
                 : mero_trust_root_load_shipped(&s->tr, NULL, err);
    if (rc < 0) {
        free(s->base_url);
        free(s);
        return rc;
    }
    s->id = opts->identity ? *opts->identity : mero_sigstore_node_release_identity;
    s->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 20000;
    s->now = opts->now;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->flight_cond, NULL);
    *out = s;
    return 0;
}

void mero_release_source_free(struct mero_release_source *s)
{
    if (s == NULL) {
        return;
    }
    for (size_t i = 0; i < MERO_RELEASE_CACHE; i++) {
        mero_release_free(s->cache[i].rel);
    }
    mero_trust_root_free(s->tr);
    pthread_cond_destroy(&s->flight_cond);
    pthread_mutex_destroy(&s->lock);
    free(s->base_url);
    free(s);
}

size_t mero_release_source_cached(struct mero_release_source *s)
{
    size_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < MERO_RELEASE_CACHE; i++) {
        n += s->cache[i].rel != NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* "<base>/mero-tee-v<ver>/<asset>", or the base with {version} replaced */
static int asset_url(const struct mero_release_source *s, const char *ver, const char *asset,
                     struct mero_buf *url)
{
    const char *tpl = strstr(s->base_url, "{version}");
    if (tpl != NULL) {
        MERO_TRY(mero_buf_append(url, s->base_url, (size_t)(tpl - s->base_url)));
        MERO_TRY(mero_buf_append_str(url, ver));
        MERO_TRY(mero_buf_append_str(url, tpl + strlen("{version}")));
    } else {
        size_t n = strlen(s->base_url);
        while (n > 0 && s->base_url[n - 1] == '/') {
            n--;
        }
        MERO_TRY(mero_buf_append(url, s->base_url, n));
        MERO_TRY(mero_buf_printf(url, "/mero-tee-v%s", ver));
    }
    if (url->len == 0 || url->data[url->len - 1] != '/') {
        MERO_TRY(mero_buf_append_u8(url, '/'));
    }
    MERO_TRY(mero_buf_append_str(url, asset));
    return mero_buf_nul(url);
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
    struct mero_buf *b = ud;
    size_t n = size * nmemb;
    return mero_buf_append(b, p, n) == 0 ? n : 0; /* 0 aborts the transfer when too big */
}

static int fetch(const struct mero_release_source *s, const char *ver, const char *asset,
                 size_t max, struct mero_buf *body, struct mero_err *err)
{
    struct mero_buf url;
    mero_buf_init(&url, ASSET_URL_MAX);
    mero_buf_init(body, max);
    if (asset_url(s, ver, asset, &url) < 0) {
        mero_buf_cleanup(&url);
        return mero_err_set(err, MERO_EINVAL, "release URL too long");
    }
    CURL *c = curl_easy_init();
    if (c == NULL) {
        mero_buf_cleanup(&url);
        return mero_err_set(err, MERO_ENOMEM, "curl_easy_init failed");
    }
    curl_easy_setopt(c, CURLOPT_URL, (const char *)url.data);
    /* an https base never follows a redirect down to http (the content is verified anyway,
     * but a downgrade has no legitimate use) */
    int tls = strncmp(s->base_url, "https://", 8) == 0;
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, tls ? "https" : "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, tls ? "https" : "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, s->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, s->timeout_ms);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "mero-release/0.1");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    CURLcode cc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    int rc = 0;
    if (cc == CURLE_OPERATION_TIMEDOUT) {
        rc = mero_err_set(err, MERO_ERELEASE_FETCH, "fetching %s of %s timed out", asset, ver);
    } else if (cc == CURLE_WRITE_ERROR) {
        rc = mero_err_set(err, MERO_ERELEASE_FETCH, "%s of %s exceeds %zu bytes", asset, ver, max);
    } else if (cc != CURLE_OK) {
        rc = mero_err_set(err, MERO_ERELEASE_FETCH, "fetching %s of %s failed: %s (HTTP %ld)",
                          asset, ver, curl_easy_strerror(cc), status);
    }
    mero_buf_cleanup(&url);
    if (rc < 0) {
        mero_buf_cleanup(body);
    }
    return rc;
}

/* cache lookup under the lock; copies the release out */
static int cache_get(struct mero_release_source *s, const char *ver, struct mero_release **out)
{
    int rc = -MERO_ENOTFOUND;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < MERO_RELEASE_CACHE; i++) {
        struct cache_entry *e = &s->cache[i];
        if (e->rel != NULL && strcmp(e->version, ver) == 0) {
            struct mero_release *copy = malloc(sizeof(*copy));
            if (copy == NULL) {
                rc = -MERO_ENOMEM;
                break;
            }
            *copy = *e->rel;
            e->used = ++s->clock;
            *out = copy;
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* takes ownership of rel; evicts the least recently used entry when full */
static void cache_put(struct mero_release_source *s, const char *ver, struct mero_release *rel)
{
    pthread_mutex_lock(&s->lock);
    struct cache_entry *slot = NULL;
    for (size_t i = 0; i < MERO_RELEASE_CACHE && slot == NULL; i++) {
        if (s->cache[i].rel != NULL && strcmp(s->cache[i].version, ver) == 0) {
            slot = &s->cache[i]; /* another thread fetched it meanwhile */
        }
    }
    for (size_t i = 0; i < MERO_RELEASE_CACHE && slot == NULL; i++) {
        if (s->cache[i].rel == NULL) {
            slot = &s->cache[i];
        }
    }
    if (slot == NULL) {
        slot = &s->cache[0];
        for (size_t i = 1; i < MERO_RELEASE_CACHE; i++) {
            if (s->cache[i].used < slot->used) {
                slot = &s->cache[i];
            }
        }
    }
    mero_release_free(slot->rel);
    snprintf(slot->version, sizeof(slot->version), "%s", ver);
    slot->rel = rel;
    slot->used = ++s->clock;
    pthread_mutex_unlock(&s->lock);
}

static int fetch_verify(struct mero_release_source *s, const char *ver, struct mero_release **out,
                        struct mero_err *err)
{
    struct mero_buf file, sig, bundle;
    mero_buf_init(&file, 0);
    mero_buf_init(&sig, 0);
    mero_buf_init(&bundle, 0);
    int rc;
    MERO_TRY_OUT(fetch(s, ver, "published-mrtds.json", MERO_RELEASE_MAX_FILE, &file, err));
    MERO_TRY_OUT(fetch(s, ver, "published-mrtds.json.sig", MAX_SIG_ASSET, &sig, err));
    MERO_TRY_OUT(fetch(s, ver, "published-mrtds.json.bundle.json", MAX_BUNDLE_ASSET, &bundle, err));
    struct mero_sigstore_opts o = {
        .now = s->now ? s->now : mero_now_unix(),
        .detached_sig = (const char *)sig.data,
        .detached_sig_len = sig.len,
    };
    MERO_ENSURE_OUT(sig.len != 0, err, MERO_ESIGSTORE_DETACHED, "release %s has an empty .sig",
                    ver);
    MERO_TRY_OUT(mero_sigstore_verify(s->tr, file.data, file.len, bundle.data, bundle.len, &s->id,
                                      &o, NULL, err));
    rc = mero_release_parse(out, file.data, file.len, ver, 0, err);
out:
    mero_buf_cleanup(&file);
    mero_buf_cleanup(&sig);
    mero_buf_cleanup(&bundle);
    return rc;
}

static const char *bare(const char *v)
{
    return strncmp(v, "mero-tee-v", 10) == 0 ? v + 10 : v;
}

int mero_release_source_get(struct mero_release_source *s, const char *version,
                            struct mero_release **out, struct mero_err *err)
{
    if (s == NULL || version == NULL || mero_release_version_check(version) < 0) {
        return mero_err_set(err, MERO_ERELEASE, "release version is not a semantic version");
    }
    const char *ver = bare(version);
    struct flight *f;
    for (;;) {
        int rc = cache_get(s, ver, out);
        if (rc != -MERO_ENOTFOUND) {
            return rc < 0 ? mero_err_set(err, -rc, "out of memory") : 0;
        }
        pthread_mutex_lock(&s->lock);
        for (f = s->flights; f != NULL && strcmp(f->version, ver) != 0; f = f->next) {
        }
        if (f == NULL) {
            break; /* still holding the lock */
        }
        /* Single flight: join the fetch in progress for this version. */
        f->refs++;
        while (!f->done) {
            pthread_cond_wait(&s->flight_cond, &s->lock);
        }
        int frc = f->rc;
        if (frc < 0 && err != NULL) {
            *err = f->err;
        }
        if (--f->refs == 0) {
            free(f);
        }
        pthread_mutex_unlock(&s->lock);
        if (frc < 0) {
            return frc;
        }
        /* It verified and was cached: look again. */
    }
    f = calloc(1, sizeof(*f));
    if (f == NULL) {
        pthread_mutex_unlock(&s->lock);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    snprintf(f->version, sizeof(f->version), "%s", ver);
    f->refs = 1;
    f->next = s->flights;
    s->flights = f;
    pthread_mutex_unlock(&s->lock);

    struct mero_err ferr;
    mero_err_clear(&ferr);
    struct mero_release *rel = NULL, *copy = NULL;
    int rc = fetch_verify(s, ver, &rel, &ferr);
    if (rc < 0) {
        MERO_WARN("release %s refused: %s", ver, ferr.msg);
    } else if ((copy = malloc(sizeof(*copy))) == NULL) {
        mero_release_free(rel);
        rc = mero_err_set(&ferr, MERO_ENOMEM, "out of memory");
    } else {
        *copy = *rel;
        cache_put(s, ver, rel); /* before the flight ends, so joiners find it */
    }
    pthread_mutex_lock(&s->lock);
    for (struct flight **pp = &s->flights; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    f->done = true;
    f->rc = rc;
    f->err = ferr;
    pthread_cond_broadcast(&s->flight_cond);
    if (--f->refs == 0) {
        free(f);
    }
    pthread_mutex_unlock(&s->lock);
    if (rc < 0) {
        if (err != NULL) {
            *err = ferr;
        }
        return rc;
    }
    *out = copy;
    return 0;
}

int mero_release_check(struct mero_release_source *src, const char *release_version,
                       const char *min_version, const char *const *allowed_profiles, size_t n,
                       const struct mero_release_meas *m, char *matched_profile, size_t cap,
                       struct mero_err *reason)
{
    if (src == NULL || m == NULL) {
        return mero_err_set(reason, MERO_EINVAL, "release check without source or measurements");
    }
    if (release_version == NULL || release_version[0] == 0) {
        return mero_err_set(reason, MERO_ERELEASE,
                            "the TEE names no release (signed-release policy requires it)");
    }
    if (mero_release_version_check(release_version) < 0) {
        return mero_err_set(reason, MERO_ERELEASE, "the TEE's release is not a version");
    }
    if (allowed_profiles == NULL || n == 0) {
        return mero_err_set(reason, MERO_EPOLICY, "the policy allows no release profile");
    }
    if (min_version != NULL && min_version[0] != 0) {
        int cmp = 0;
        if (mero_release_version_cmp(release_version, min_version, &cmp) < 0) {
            return mero_err_set(reason, MERO_EPOLICY, "min_release_version is not a version");
        }
        if (cmp < 0) {
            return mero_err_set(reason, MERO_ERELEASE_VERSION, "release %s is older than %s",
                                bare(release_version), bare(min_version));
        }
    }
    struct mero_release *rel = NULL;
    MERO_TRY(mero_release_source_get(src, release_version, &rel, reason));
    int rc = mero_release_match(rel, allowed_profiles, n, m, matched_profile, cap, reason);
    mero_release_free(rel);
    return rc;
}

int mero__release_cache_put(struct mero_release_source *src, const char *version,
                            const struct mero_release *rel)
{
    struct mero_release *copy = malloc(sizeof(*copy));
    if (copy == NULL) {
        return -MERO_ENOMEM;
    }
    *copy = *rel;
    cache_put(src, bare(version), copy);
    return 0;
}

int mero__release_cache_has(struct mero_release_source *src, const char *version)
{
    struct mero_release *r = NULL;
    if (cache_get(src, bare(version), &r) != 0) {
        return 0;
    }
    mero_release_free(r);
    return 1;
}
