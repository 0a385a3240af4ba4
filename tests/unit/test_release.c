/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_release.c - published-mrtds.json parsing (the real v2.3.87 file, the provenance and KMS
 * traps, the old policy record, hand-made negatives), semantic versions, profile matching with
 * synthetic TD report measurements, and the fetch + verify + cache path of mero_release_check
 * against a local HTTP server (tests/e2e/release_server.py on 127.0.0.1): good release,
 * tampered file, missing bundle, missing .sig, 404, slow server past the timeout.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attest/release_internal.h"
#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/release.h"

#define NOW_2026_12_01 1796083200u
#define REL            "testdata/mero-tee/v2.3.87/published-mrtds.json"
#define LOCKED_RTMR3                                                                               \
    "38dd580e11c032bbab19ad8bb4ef5b4247f0d91e6681e8f29f2a8b396363c881aefea7d41c4d9d659d228e7b2a2b" \
    "0002"

static int parse_file(const char *rel, const char *expected, unsigned flags,
                      struct mero_release **out, struct mero_err *e)
{
    size_t n = 0;
    uint8_t *p = mero_test_read(rel, 1, &n);
    if (p == NULL) {
        return -1000;
    }
    int rc = mero_release_parse(out, p, n, expected, flags, e);
    free(p);
    return rc;
}

static int parse_str(const char *s, const char *expected, struct mero_release **out,
                     struct mero_err *e)
{
    return mero_release_parse(out, (const uint8_t *)s, strlen(s), expected, 0, e);
}

static const struct mero_release_profile *find(const struct mero_release *r, const char *name)
{
    for (size_t i = 0; i < r->n_profiles; i++) {
        if (strcmp(r->profiles[i].name, name) == 0) {
            return &r->profiles[i];
        }
    }
    return NULL;
}

TEST(parse_real_release)
{
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    CHECK_OK(parse_file(REL, "2.3.87", 0, &r, &e));
    CHECK_STR_EQ(r->tag, "2.3.87");
    CHECK_EQ(r->n_profiles, 3);
    const struct mero_release_profile *p = find(r, "locked-read-only");
    CHECK(p != NULL);
    char hex[97];
    mero_hex_encode(hex, p->rtmr[3][0], 48);
    CHECK_STR_EQ(hex, LOCKED_RTMR3);
    CHECK_EQ(p->n_mrtd, 1);
    CHECK_EQ(p->n_rtmr[0], 1);
    CHECK_EQ(p->n_tcb, 2);
    CHECK_STR_EQ(p->tcb[0], "uptodate");
    CHECK(find(r, "debug") != NULL && find(r, "debug-read-only") != NULL);
    mero_release_free(r);
    /* the mero-tee-v prefix is accepted on the version asked for */
    CHECK_OK(parse_file(REL, "mero-tee-v2.3.87", 0, &r, &e));
    mero_release_free(r);
    CHECK_OK(parse_file(REL, NULL, 0, &r, &e));
    mero_release_free(r);
}

TEST(parse_refusals)
{
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    CHECK_ERR(parse_file(REL, "2.3.86", 0, &r, &e), -MERO_ERELEASE);
    CHECK(strstr(e.msg, "not 2.3.86") != NULL);
    /* right signer, wrong file: no profile carries measurements */
    CHECK_ERR(parse_file("testdata/mero-tee/v2.3.87-release-provenance/release-provenance.json",
                         "2.3.87", 0, &r, &e),
              -MERO_ERELEASE);
    CHECK(strstr(e.msg, "not a release's published-mrtds.json") != NULL);
    CHECK_ERR(parse_file("testdata/mero-tee/kms-v2.3.87-wrong-identity_fail/"
                         "kms-attestation-policy.json",
                         "2.3.87", 0, &r, &e),
              -MERO_ERELEASE);
    CHECK(strstr(e.msg, "kms") != NULL);
    /* the unsigned policy record: refused as a release, accepted for offline matching */
    CHECK_ERR(parse_file("testdata/mero-tee/policy-record-2.1.25/2.1.25.json", "2.1.25", 0, &r, &e),
              -MERO_ERELEASE);
    CHECK_OK(parse_file("testdata/mero-tee/policy-record-2.1.25/2.1.25.json", "2.1.25",
                        MERO_RELEASE_ACCEPT_RECORD, &r, &e));
    CHECK_EQ(r->n_profiles, 3);
    mero_release_free(r);
}

#define H96(c) c c c c c c c c c c c c c c c c /* 6 chars x 16 = 96 */
#define A96    H96("aaaaaa")
#define B96    H96("bbbbbb")

TEST(parse_normalisation_and_dropping)
{
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    /* uppercase + 0x + whitespace normalised; empty list falls back to the single value;
     * profile "partial" lacks RTMR3 and is dropped */
    const char *doc =
        "{\"role\":\"node\",\"tag\":\"mero-tee-v1.2.3\",\"profiles\":{"
        "\"p\":{\"mrtd\":\" 0x" H96("AAAAAA") " \",\"allowed_mrtd\":[],"
                                              "\"rtmr1\":\"" A96 "\",\"rtmr2\":\"" A96
                                              "\",\"allowed_rtmr3\":[\"" B96 "\",\"" A96 "\"]},"
                                              "\"partial\":{\"mrtd\":\"" A96 "\",\"rtmr1\":\"" A96
                                              "\",\"rtmr2\":\"" A96 "\"}}}";
    CHECK_OK(parse_str(doc, "1.2.3", &r, &e));
    CHECK_EQ(r->n_profiles, 1);
    CHECK_STR_EQ(r->profiles[0].name, "p");
    CHECK_EQ(r->profiles[0].n_mrtd, 1);
    CHECK_EQ(r->profiles[0].mrtd[0][0], 0xaa);
    CHECK_EQ(r->profiles[0].n_rtmr[0], 0);
    CHECK_EQ(r->profiles[0].n_rtmr[3], 2);
    mero_release_free(r);
    static const char *bad[] = {
        "{\"role\":\"kms\",\"tag\":\"1.2.3\",\"profiles\":{}}",
        "{\"tag\":\"1.2.3\",\"profiles\":{}}",
        "{\"role\":\"node\",\"profiles\":{}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\"}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":{}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":[]}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":{\"p\":{\"mrtd\":\"abc\"}}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":{\"p\":{\"allowed_mrtd\":\"" A96 "\"}}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":{\"p\":{\"allowed_mrtd\":[1]}}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"profiles\":{\"p\":{\"mrtd\":\"" A96 "z\"}}}",
        "{\"role\":\"node\",\"tag\":\"1.2.3\",\"role\":\"node\",\"profiles\":{}}",
        "{\"role\":\"node\",\"tag\":\"../../etc\",\"profiles\":{}}",
        "not json",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = parse_str(bad[i], NULL, &r, &e);
        CHECK_MSG(rc < 0, "document %zu accepted", i);
    }
}

TEST(semver)
{
    static const struct {
        const char *a, *b;
        int want;
    } v[] = {
        {"2.3.87", "2.3.9", 1},
        {"2.3.9", "2.3.87", -1},
        {"2.3.87", "2.3.87", 0},
        {"mero-tee-v2.3.87", "2.3.87", 0},
        {"v1.0.0", "1.0.0", 0},
        {"1.0.0-rc.1", "1.0.0", -1},
        {"1.0.0-alpha", "1.0.0-alpha.1", -1},
        {"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
        {"1.0.0-beta.11", "1.0.0-beta.2", 1},
        {"1.0.0+build.5", "1.0.0", 0},
        {"10.0.0", "9.99.99", 1},
        {"2.1.25", "2.3.87", -1},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        int c = 99;
        CHECK_OK(mero_release_version_cmp(v[i].a, v[i].b, &c));
        CHECK_MSG(c == v[i].want, "%s vs %s: %d", v[i].a, v[i].b, c);
    }
    static const char *bad[] = {"",       "1",          "1.2",      "1.2.3.4", "01.2.3", "1.2.x",
                                "1.2.3-", "1.2.3-a..b", "1.2.3/..", "a.b.c",   "1.2.3 "};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int c;
        CHECK_MSG(mero_release_version_cmp(bad[i], "1.0.0", &c) < 0, "\"%s\" accepted", bad[i]);
    }
}

/* A synthetic TD 1.0 report body carrying a profile's values (MRTD at 136, RTMRs at 328). */
static void synth_body(uint8_t body[584], const struct mero_release_profile *p)
{
    memset(body, 0x5a, 584);
    memcpy(body + 136, p->mrtd[0], 48);
    for (int i = 0; i < 4; i++) {
        memcpy(body + 328 + 48 * i, p->rtmr[i][0], 48);
    }
}

static void body_regs(const uint8_t body[584], struct mero_release_meas *m)
{
    memcpy(m->mrtd, body + 136, 48);
    for (int i = 0; i < 4; i++) {
        memcpy(m->rtmr[i], body + 328 + 48 * i, 48);
    }
}

TEST(match_profiles)
{
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    CHECK_OK(parse_file(REL, "2.3.87", 0, &r, &e));
    const struct mero_release_profile *lro = find(r, "locked-read-only");
    uint8_t body[584];
    struct mero_release_meas m;
    char got[64] = "";
    synth_body(body, lro);
    body_regs(body, &m);
    const char *const allow_lro[] = {"locked-read-only"};
    const char *const allow_dbg[] = {"debug", "debug-read-only"};
    const char *const allow_all[] = {"debug", "locked-read-only"};
    int rc1 = mero_release_match(r, allow_lro, 1, &m, got, sizeof(got), &e);
    int same = strcmp(got, "locked-read-only") == 0;
    int rc2 = mero_release_match(r, allow_dbg, 2, &m, got, sizeof(got), &e);
    int rc3 = mero_release_match(r, allow_all, 2, &m, got, sizeof(got), &e);
    int rc4 = mero_release_match(r, NULL, 0, &m, got, sizeof(got), &e);
    int rc5 = mero_release_match(r, allow_lro, 0, &m, got, sizeof(got), &e);
    /* a changed RTMR2 matches nothing */
    body[424 + 7] ^= 1;
    body_regs(body, &m);
    int rc6 = mero_release_match(r, NULL, 0, &m, got, sizeof(got), &e);
    int why6 = strstr(e.msg, "RTMR2") != NULL;
    /* RTMR0 pinned by the profile: a different RTMR0 is refused ... */
    synth_body(body, lro);
    body[328] ^= 1;
    body_regs(body, &m);
    int rc7 = mero_release_match(r, allow_lro, 1, &m, got, sizeof(got), &e);
    /* ... and accepted when the profile does not pin it */
    struct mero_release *r2 = malloc(sizeof(*r2));
    *r2 = *r;
    for (size_t i = 0; i < r2->n_profiles; i++) {
        r2->profiles[i].n_rtmr[0] = 0;
    }
    int rc8 = mero_release_match(r2, allow_lro, 1, &m, got, sizeof(got), &e);
    /* MRTD and RTMR1 changes */
    synth_body(body, lro);
    body[136] ^= 1;
    body_regs(body, &m);
    int rc9 = mero_release_match(r2, allow_lro, 1, &m, got, sizeof(got), &e);
    synth_body(body, lro);
    body[376 + 47] ^= 0x80;
    body_regs(body, &m);
    int rc10 = mero_release_match(r2, allow_lro, 1, &m, got, sizeof(got), &e);
    free(r2);
    mero_release_free(r);
    CHECK_EQ(rc1, 0);
    CHECK(same);
    CHECK_EQ(rc2, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc3, 0);
    CHECK_EQ(rc4, 0);
    CHECK_EQ(rc5, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc6, -MERO_ERELEASE_NOMATCH);
    CHECK(why6);
    CHECK_EQ(rc7, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc8, 0);
    CHECK_EQ(rc9, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc10, -MERO_ERELEASE_NOMATCH);
}

/* ---- the fetch + verify + cache path against a local server ---- */

static pid_t server_pid;
static int server_port;

static void server_kill(void)
{
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
        server_pid = 0;
    }
}

static int server_start(void)
{
    if (server_port) {
        return 0;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        return -1;
    }
    const char *root = getenv("MERO_ROOT");
    char script[1024];
    snprintf(script, sizeof(script), "%s/tests/e2e/release_server.py", root ? root : ".");
    pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("python3", "python3", script, mero_test_shared(), (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[32] = {0};
    size_t n = 0;
    while (n < sizeof(line) - 1) {
        ssize_t k = read(fds[0], line + n, 1);
        if (k <= 0 || line[n] == '\n') {
            break;
        }
        n++;
    }
    close(fds[0]);
    line[n] = 0;
    uint64_t port = 0;
    if (mero_parse_u64(line, 65535, &port) < 0 || port == 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        return -1;
    }
    server_pid = pid;
    server_port = (int)port;
    atexit(server_kill);
    return 0;
}

static struct mero_release_source *source(const char *scenario, long timeout_ms)
{
    char base[128], tr[1024];
    snprintf(base, sizeof(base), "http://127.0.0.1:%d/%s", server_port, scenario);
    snprintf(tr, sizeof(tr), "%s/testdata/sigstore/trusted-root-public-good/trusted_root.json",
             mero_test_shared());
    struct mero_release_source_opts o = {
        .base_url = base, .trusted_root_path = tr, .timeout_ms = timeout_ms, .now = NOW_2026_12_01};
    struct mero_release_source *s = NULL;
    struct mero_err e = {0};
    if (mero_release_source_new(&s, &o, &e) < 0) {
        fprintf(stderr, "source: %s\n", e.msg);
        return NULL;
    }
    return s;
}

static int measurements(struct mero_release_meas *m, const char *profile)
{
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    if (parse_file(REL, "2.3.87", 0, &r, &e) < 0) {
        return -1;
    }
    const struct mero_release_profile *p = find(r, profile);
    if (p == NULL) {
        mero_release_free(r);
        return -1;
    }
    uint8_t body[584];
    synth_body(body, p);
    body_regs(body, m);
    mero_release_free(r);
    return 0;
}

static int check(struct mero_release_source *s, const char *ver, const char *min,
                 const char *profile, const struct mero_release_meas *m, char *got,
                 struct mero_err *e)
{
    const char *const allow[] = {profile};
    return mero_release_check(s, ver, min, allow, 1, m, got, 64, e);
}

TEST(fetch_good_release_and_cache)
{
    CHECK(server_start() == 0);
    struct mero_release_source *s = source("good", 5000);
    CHECK(s != NULL);
    struct mero_release_meas m;
    CHECK(measurements(&m, "locked-read-only") == 0);
    char got[64] = "";
    struct mero_err e = {0};
    int rc1 = check(s, "2.3.87", "2.3.0", "locked-read-only", &m, got, &e);
    size_t cached1 = mero_release_source_cached(s);
    /* second check from the cache; with the prefix spelling too */
    int rc2 = check(s, "mero-tee-v2.3.87", NULL, "locked-read-only", &m, got, &e);
    size_t cached2 = mero_release_source_cached(s);
    /* a quote of another profile, or with RTMR2 changed, matches nothing */
    int rc3 = check(s, "2.3.87", NULL, "debug", &m, got, &e);
    m.rtmr[2][0] ^= 1;
    int rc4 = check(s, "2.3.87", NULL, "locked-read-only", &m, got, &e);
    m.rtmr[2][0] ^= 1;
    /* release and version policy */
    int rc5 = check(s, NULL, NULL, "locked-read-only", &m, got, &e);
    int rc6 = check(s, "", NULL, "locked-read-only", &m, got, &e);
    int rc7 = check(s, "2.3.87", "2.3.88", "locked-read-only", &m, got, &e);
    int rc8 = check(s, "2.3.87/../x", NULL, "locked-read-only", &m, got, &e);
    int rc9 = mero_release_check(s, "2.3.87", NULL, NULL, 0, &m, got, 64, &e);
    /* a release never published: 404, refused and not cached */
    int rc10 = check(s, "2.3.86", NULL, "locked-read-only", &m, got, &e);
    size_t cached3 = mero_release_source_cached(s);
    mero_release_source_free(s);
    CHECK_EQ(rc1, 0);
    CHECK_STR_EQ(got, "locked-read-only");
    CHECK_EQ(cached1, 1);
    CHECK_EQ(rc2, 0);
    CHECK_EQ(cached2, 1);
    CHECK_EQ(rc3, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc4, -MERO_ERELEASE_NOMATCH);
    CHECK_EQ(rc5, -MERO_ERELEASE);
    CHECK_EQ(rc6, -MERO_ERELEASE);
    CHECK_EQ(rc7, -MERO_ERELEASE_VERSION);
    CHECK_EQ(rc8, -MERO_ERELEASE);
    CHECK_EQ(rc9, -MERO_EPOLICY);
    CHECK_EQ(rc10, -MERO_ERELEASE_FETCH);
    CHECK_EQ(cached3, 1);
}

static int scenario_rc(const char *scenario, long timeout_ms, struct mero_err *e, size_t *cached)
{
    struct mero_release_source *s = source(scenario, timeout_ms);
    if (s == NULL) {
        return -1000;
    }
    struct mero_release_meas m;
    char got[64];
    int rc = measurements(&m, "locked-read-only") == 0
                 ? check(s, "2.3.87", NULL, "locked-read-only", &m, got, e)
                 : -1000;
    *cached = mero_release_source_cached(s);
    mero_release_source_free(s);
    return rc;
}

TEST(fetch_refusals)
{
    CHECK(server_start() == 0);
    static const struct {
        const char *scenario;
        long timeout_ms;
        int want;
        const char *why;
    } v[] = {
        {"tampered", 5000, -MERO_ESIGSTORE_DIGEST, "Rekor logged"},
        {"nobundle", 5000, -MERO_ERELEASE_FETCH, "bundle.json"},
        {"nosig", 5000, -MERO_ERELEASE_FETCH, ".sig"},
        {"missing", 5000, -MERO_ERELEASE_FETCH, "HTTP 404"},
        {"provenance", 5000, -MERO_ERELEASE, "not a release's"},
        {"kms", 5000, -MERO_EIDENTITY, "SAN"},
        {"slow", 1000, -MERO_ERELEASE_FETCH, "timed out"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct mero_err e = {0};
        size_t cached = 99;
        int rc = scenario_rc(v[i].scenario, v[i].timeout_ms, &e, &cached);
        CHECK_MSG(rc == v[i].want, "%s: want %s got %s (%s)", v[i].scenario,
                  mero_strerror(v[i].want), mero_strerror(rc), e.msg);
        CHECK_MSG(strstr(e.msg, v[i].why) != NULL, "%s: reason \"%s\"", v[i].scenario, e.msg);
        CHECK_MSG(cached == 0, "%s: a refused release was cached", v[i].scenario);
    }
}

TEST(source_options_refused)
{
    struct mero_release_source *s = NULL;
    struct mero_err e = {0};
    struct mero_release_source_opts o = {.base_url = "ftp://127.0.0.1/x",
                                         .trusted_root_path = "/nonexistent"};
    CHECK_ERR(mero_release_source_new(&s, &o, &e), -MERO_EINVAL);
    o.base_url = NULL;
    CHECK_ERR(mero_release_source_new(&s, &o, &e), -MERO_EIO);
    /* no path: the shipped public-good root (pinned), found next to the test binaries */
    o.trusted_root_path = NULL;
    CHECK_OK(mero_release_source_new(&s, &o, &e));
    mero_release_source_free(s);
    s = NULL;
    CHECK_ERR(mero_release_source_new(&s, NULL, &e), -MERO_EINVAL);
}

TEST(cache_bounded_lru)
{
    char tr[1024];
    snprintf(tr, sizeof(tr), "%s/testdata/sigstore/trusted-root-public-good/trusted_root.json",
             mero_test_shared());
    struct mero_release_source_opts o = {.base_url = "http://127.0.0.1:9/none",
                                         .trusted_root_path = tr};
    struct mero_release_source *s = NULL;
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    CHECK_OK(mero_release_source_new(&s, &o, &e));
    if (parse_file(REL, NULL, 0, &r, &e) < 0) {
        mero_release_source_free(s);
        CHECK(0);
    }
    char v[32];
    int ok = 1;
    for (int i = 0; i < MERO_RELEASE_CACHE; i++) {
        snprintf(v, sizeof(v), "1.0.%d", i);
        ok &= mero__release_cache_put(s, v, r) == 0;
    }
    size_t full = mero_release_source_cached(s);
    int touched = mero__release_cache_has(s, "1.0.0"); /* 1.0.0 becomes the most recent */
    ok &= mero__release_cache_put(s, "1.0.100", r) == 0;
    size_t after = mero_release_source_cached(s);
    int kept0 = mero__release_cache_has(s, "1.0.0");
    int evicted1 = !mero__release_cache_has(s, "1.0.1"); /* the least recently used */
    int has100 = mero__release_cache_has(s, "mero-tee-v1.0.100");
    /* a cached release is served without the network (the base URL is unreachable) */
    struct mero_release *got = NULL;
    int rc = mero_release_source_get(s, "1.0.5", &got, &e);
    int same = rc == 0 && strcmp(got->tag, r->tag) == 0;
    mero_release_free(got);
    mero_release_free(r);
    mero_release_source_free(s);
    CHECK(ok);
    CHECK_EQ(full, MERO_RELEASE_CACHE);
    CHECK(touched);
    CHECK_EQ(after, MERO_RELEASE_CACHE);
    CHECK(kept0);
    CHECK(evicted1);
    CHECK(has100);
    CHECK(same);
}

/* ---- single flight: threads asking together for one version make one fetch ---- */

static size_t count_sink(char *p, size_t sz, size_t n, void *ud)
{
    struct mero_buf *b = ud;
    return mero_buf_append(b, p, sz * n) == 0 ? sz * n : 0;
}

static long asset_requests(void)
{
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/count", server_port);
    struct mero_buf b;
    mero_buf_init(&b, 64);
    CURL *c = curl_easy_init();
    long n = -1;
    if (c != NULL) {
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, count_sink);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
        if (curl_easy_perform(c) == CURLE_OK && mero_buf_nul(&b) == 0) {
            n = strtol((const char *)b.data, NULL, 10);
        }
        curl_easy_cleanup(c);
    }
    mero_buf_cleanup(&b);
    return n;
}

#define FLIGHT_THREADS 8

struct getter {
    pthread_t t;
    pthread_barrier_t *start;
    struct mero_release_source *s;
    int rc;
    char tag[MERO_RELEASE_NAME_MAX];
};

static void *getter_run(void *arg)
{
    struct getter *g = arg;
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    pthread_barrier_wait(g->start);
    g->rc = mero_release_source_get(g->s, "2.3.87", &r, &e);
    if (g->rc == 0) {
        snprintf(g->tag, sizeof(g->tag), "%s", r->tag);
        mero_release_free(r);
    }
    return NULL;
}

TEST(threads_asking_together_fetch_once)
{
    CHECK(server_start() == 0);
    struct mero_release_source *s = source("good", 10000);
    CHECK(s != NULL);
    long before = asset_requests();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, FLIGHT_THREADS);
    struct getter g[FLIGHT_THREADS];
    memset(g, 0, sizeof(g));
    for (int i = 0; i < FLIGHT_THREADS; i++) {
        g[i].start = &start;
        g[i].s = s;
        pthread_create(&g[i].t, NULL, getter_run, &g[i]);
    }
    for (int i = 0; i < FLIGHT_THREADS; i++) {
        pthread_join(g[i].t, NULL);
    }
    pthread_barrier_destroy(&start);
    long after = asset_requests();
    size_t cached = mero_release_source_cached(s);
    mero_release_source_free(s);
    for (int i = 0; i < FLIGHT_THREADS; i++) {
        CHECK_EQ(g[i].rc, 0);
        CHECK_STR_EQ(g[i].tag, "2.3.87");
    }
    CHECK(before >= 0);
    CHECK_EQ(after - before, 3); /* published-mrtds.json, .sig, .bundle.json: once */
    CHECK_EQ(cached, 1);
}

TEST(stop_server)
{
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        int st = 0;
        CHECK(waitpid(server_pid, &st, 0) == server_pid);
        server_pid = 0;
    }
}

MERO_TEST_MAIN(T(parse_real_release), T(parse_refusals), T(parse_normalisation_and_dropping),
               T(semver), T(match_profiles), T(fetch_good_release_and_cache), T(fetch_refusals),
               T(source_options_refused), T(cache_bounded_lru),
               T(threads_asking_together_fetch_once), T(stop_server))
