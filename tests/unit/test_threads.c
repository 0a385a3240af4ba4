/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_threads.c - the verifier from many threads (issue 23): 8 threads verify the genuine
 * cases of ../shared/testdata/tdx and mutated ones (flipped quote bytes, flipped collateral
 * bytes), with their collateral (parsed per call, or one parsed copy shared by every thread)
 * and without it (fetched from a local PCS, tests/support/pcs_server.py), while another thread
 * clears every cache; every outcome must equal the single-threaded one. Also single flight:
 * threads missing together on one collateral build it once and fetch it once.
 *
 * Invariant: worker threads never touch the harness (not thread-safe); they count mismatches
 * and the main thread checks them. MERO_THREADS_ROUNDS sets the rounds per thread (default 2;
 * `make tsan TESTS=threads` runs the same binary under ThreadSanitizer).
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "mero/collateral.h"
#include "mero/dcap.h"
#include "mero/pcs.h"
#include "support/dcap_cases.h"

#define N_THREADS 8
#define MAX_ITEMS 96

enum mode { WITH_JSON, WITH_SHARED, FETCHED };

/* One verification to repeat, and what the single thread got. */
struct item {
    enum mode mode;
    uint8_t *quote; /* owned */
    size_t quote_len;
    const char *json; /* borrowed from the case (or owned mutated copy when json_owned) */
    size_t json_len;
    bool json_owned;
    struct mero_collateral *shared; /* WITH_SHARED: parsed once, read by every thread */
    uint64_t now;
    /* expected outcome */
    int rc, code;
    struct mero_dcap_result r;
};

struct outcome {
    int rc, code;
    struct mero_dcap_result r;
};

static struct dcap_case cases[16];
static size_t n_cases;
static struct item items[MAX_ITEMS];
static size_t n_items;
static pid_t pcs_pid = -1;
static atomic_int stop_clearing;

static void run_item(const struct item *it, struct outcome *o)
{
    struct mero_err e;
    struct mero_collateral c;
    memset(o, 0, sizeof(*o));
    mero_err_clear(&e);
    switch (it->mode) {
    case WITH_JSON:
        o->rc = mero_collateral_parse(&c, it->json, it->json_len, &e);
        if (o->rc == 0) {
            o->rc = mero_dcap_verify_quote(it->quote, it->quote_len, &c, it->now, &o->r, &e);
            mero_collateral_cleanup(&c);
        }
        break;
    case WITH_SHARED:
        o->rc = mero_dcap_verify_quote(it->quote, it->quote_len, it->shared, it->now, &o->r, &e);
        break;
    case FETCHED:
        o->rc = mero_pcs_collateral_for_quote(it->quote, it->quote_len, &c, &e);
        if (o->rc == 0) {
            o->rc = mero_dcap_verify_quote(it->quote, it->quote_len, &c, it->now, &o->r, &e);
            mero_collateral_cleanup(&c);
        }
        break;
    }
    o->code = o->rc < 0 ? e.code : 0;
}

static bool same(const struct item *it, const struct outcome *o)
{
    if (o->rc != it->rc || o->code != it->code) {
        return false;
    }
    if (o->rc < 0) {
        return true;
    }
    const struct mero_dcap_result *a = &o->r, *b = &it->r;
    return a->quote_verified == b->quote_verified && a->reject_code == b->reject_code &&
           strcmp(a->reject_reason, b->reject_reason) == 0 &&
           a->has_tcb_status == b->has_tcb_status && a->tcb_status == b->tcb_status &&
           a->platform_status == b->platform_status && a->qe_status == b->qe_status &&
           a->n_advisory_ids == b->n_advisory_ids &&
           a->collateral_not_before == b->collateral_not_before &&
           a->collateral_not_after == b->collateral_not_after &&
           memcmp(a->mrtd, b->mrtd, 48) == 0 && memcmp(a->report_data, b->report_data, 64) == 0;
}

static struct item *add(enum mode m, const struct dcap_case *k, const uint8_t *quote, size_t qlen)
{
    if (n_items == MAX_ITEMS) {
        return NULL;
    }
    struct item *it = &items[n_items++];
    memset(it, 0, sizeof(*it));
    it->mode = m;
    it->quote = malloc(qlen);
    memcpy(it->quote, quote, qlen);
    it->quote_len = qlen;
    it->json = k->collateral_json;
    it->json_len = k->collateral_len;
    it->now = k->verify_time;
    return it;
}

/* Start the local PCS serving `coll` (a QuoteCollateralV3 file); 0 or -1. */
static int start_pcs(const char *coll)
{
    char dir[] = "/tmp/mero-threads.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    char port_file[64], script[1024];
    snprintf(port_file, sizeof(port_file), "%s/port", dir);
    const char *root = getenv("MERO_ROOT");
    snprintf(script, sizeof(script), "%s/tests/support/pcs_server.py", root ? root : ".");
    pcs_pid = fork();
    if (pcs_pid < 0) {
        return -1;
    }
    if (pcs_pid == 0) {
        /* dies with this test even when the test crashes; TAP output stays ours */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
        }
        execlp("python3", "python3", script, "--collateral", coll, "--port-file", port_file,
               (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* up to 30 s on a loaded machine */
        FILE *f = fopen(port_file, "r");
        unsigned port = 0;
        if (f != NULL) {
            int got = fscanf(f, "%u", &port);
            fclose(f);
            if (got == 1 && port > 0) {
                char url[64];
                snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
                setenv("CALIMERO_TEE_COLLATERAL_URL", url, 1);
                unlink(port_file);
                rmdir(dir);
                return 0;
            }
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void stop_pcs(void)
{
    if (pcs_pid > 0) {
        kill(pcs_pid, SIGTERM);
        waitpid(pcs_pid, NULL, 0);
        pcs_pid = -1;
    }
}

TEST(setup_single_threaded_verdicts)
{
    char path[1024];
    for (size_t i = 0; dcap_case_names[i] != NULL && n_cases < 16; i++) {
        CHECK(dcap_case_load(&cases[n_cases], dcap_case_names[i]) == 0);
        n_cases++;
    }
    CHECK(n_cases >= 4);
    const struct dcap_case *served = NULL;
    for (size_t i = 0; i < n_cases; i++) {
        if (strcmp(cases[i].name, "nearmpc-1") == 0 || strstr(cases[i].dir, "nearmpc-1")) {
            served = &cases[i];
        }
    }
    CHECK(served != NULL);
    snprintf(path, sizeof(path), "%s/collateral.json", served->dir);
    CHECK(start_pcs(path) == 0);
    for (size_t i = 0; i < n_cases; i++) {
        const struct dcap_case *k = &cases[i];
        CHECK(k->collateral_json != NULL);
        /* genuine, with its collateral: parsed per call and one parsed copy shared */
        CHECK(add(WITH_JSON, k, k->quote, k->quote_len) != NULL);
        struct item *it = add(WITH_SHARED, k, k->quote, k->quote_len);
        CHECK(it != NULL);
        struct mero_collateral *sh = calloc(1, sizeof(*sh));
        CHECK(sh != NULL);
        struct mero_err e;
        CHECK_OK(mero_collateral_parse(sh, k->collateral_json, k->collateral_len, &e));
        it->shared = sh;
        /* flipped quote bytes: body (report data), the quote signature, the PCK chain */
        size_t offs[3] = {48 + 520, 48 + 584 + 4 + 10, k->quote_len - 200};
        for (int j = 0; j < 3; j++) {
            it = add(j == 1 ? WITH_SHARED : WITH_JSON, k, k->quote, k->quote_len);
            CHECK(it != NULL);
            it->shared = j == 1 ? sh : NULL;
            it->quote[offs[j] % k->quote_len] ^= 0x01;
        }
        /* flipped collateral bytes: a distinct cache key each (more than the cache holds) */
        for (int j = 1; j <= 2; j++) {
            it = add(WITH_JSON, k, k->quote, k->quote_len);
            CHECK(it != NULL);
            char *m = malloc(k->collateral_len);
            memcpy(m, k->collateral_json, k->collateral_len);
            size_t at = k->collateral_len * (size_t)j / 3;
            m[at] = m[at] == 'A' ? 'B' : 'A';
            it->json = m;
            it->json_owned = true;
        }
        /* without collateral: fetched from the local PCS (another FMSPC gets an error) */
        CHECK(add(FETCHED, k, k->quote, k->quote_len) != NULL);
    }
    /* the single-threaded outcomes, from cold caches */
    mero_dcap_cache_clear();
    mero_pcs_cache_clear();
    size_t verified = 0, rejected = 0, errors = 0;
    for (size_t i = 0; i < n_items; i++) {
        struct outcome o;
        run_item(&items[i], &o);
        items[i].rc = o.rc;
        items[i].code = o.code;
        items[i].r = o.r;
        if (o.rc < 0) {
            errors++;
        } else if (o.r.quote_verified) {
            verified++;
        } else {
            rejected++;
        }
    }
    printf("# %zu items: %zu verified, %zu rejected, %zu no verdict\n", n_items, verified, rejected,
           errors);
    /* the mix must hold every kind of outcome, or the test proves less than it claims */
    CHECK(verified >= n_cases);
    CHECK(rejected > 0);
    CHECK(errors > 0);
    /* and is stable single-threaded with warm caches */
    for (size_t i = 0; i < n_items; i++) {
        struct outcome o;
        run_item(&items[i], &o);
        CHECK_MSG(same(&items[i], &o), "item %zu differs on a second single-threaded run", i);
    }
}

struct worker {
    pthread_t th;
    int id;
    int rounds;
    pthread_barrier_t *start;
    size_t runs, mismatches, first_bad;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(w->start);
    w->first_bad = SIZE_MAX;
    for (int r = 0; r < w->rounds; r++) {
        for (size_t j = 0; j < n_items; j++) {
            size_t i = (j * 7 + (size_t)w->id * 13 + (size_t)r) % n_items;
            struct outcome o;
            run_item(&items[i], &o);
            w->runs++;
            if (!same(&items[i], &o)) {
                w->mismatches++;
                if (w->first_bad == SIZE_MAX) {
                    w->first_bad = i;
                }
            }
        }
    }
    return NULL;
}

static void *clearer(void *arg)
{
    size_t *clears = arg;
    while (!atomic_load(&stop_clearing)) {
        mero_dcap_cache_clear();
        mero_pcs_cache_clear();
        (*clears)++;
        struct timespec ts = {0, 3 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

TEST(eight_threads_get_the_single_threaded_verdicts_while_caches_are_cleared)
{
    CHECK(n_items > 0);
    const char *env = getenv("MERO_THREADS_ROUNDS");
    int rounds = env != NULL ? (int)strtol(env, NULL, 10) : 2;
    if (rounds < 1) {
        rounds = 1;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N_THREADS + 1);
    struct worker w[N_THREADS];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < N_THREADS; i++) {
        w[i].id = i;
        w[i].rounds = rounds;
        w[i].start = &start;
        CHECK(pthread_create(&w[i].th, NULL, work, &w[i]) == 0);
    }
    size_t clears = 0;
    pthread_t cl;
    atomic_store(&stop_clearing, 0);
    CHECK(pthread_create(&cl, NULL, clearer, &clears) == 0);
    pthread_barrier_wait(&start);
    size_t runs = 0, bad = 0, first = SIZE_MAX;
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(w[i].th, NULL);
        runs += w[i].runs;
        bad += w[i].mismatches;
        if (first == SIZE_MAX) {
            first = w[i].first_bad;
        }
    }
    atomic_store(&stop_clearing, 1);
    pthread_join(cl, NULL);
    pthread_barrier_destroy(&start);
    printf("# %zu verifications on %d threads, %zu cache clears\n", runs, N_THREADS, clears);
    CHECK_U64_EQ(runs, (uint64_t)N_THREADS * (uint64_t)rounds * n_items);
    CHECK_MSG(bad == 0, "%zu outcomes differ from the single-threaded ones (first: item %zu)", bad,
              first);
    CHECK(clears > 0);
}

struct flight_arg {
    pthread_barrier_t *start;
    const struct item *it;
    struct outcome o;
};

static void *flight_work(void *arg)
{
    struct flight_arg *a = arg;
    pthread_barrier_wait(a->start);
    run_item(a->it, &a->o);
    return NULL;
}

/* Threads missing together on one key: one build / one fetch, everyone the same answer. */
static void together(const struct item *it, struct outcome *first_out)
{
    pthread_barrier_t start;
    struct flight_arg a[N_THREADS];
    pthread_t th[N_THREADS];
    pthread_barrier_init(&start, NULL, N_THREADS);
    for (int i = 0; i < N_THREADS; i++) {
        a[i].start = &start;
        a[i].it = it;
        pthread_create(&th[i], NULL, flight_work, &a[i]);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
    }
    pthread_barrier_destroy(&start);
    *first_out = a[0].o;
    for (int i = 1; i < N_THREADS; i++) {
        if (!same(it, &a[i].o)) {
            first_out->rc = 1; /* marks a mismatch */
        }
    }
}

TEST(threads_missing_together_build_and_fetch_once)
{
    const struct item *shared = NULL, *fetched = NULL;
    for (size_t i = 0; i < n_items; i++) {
        if (items[i].mode == WITH_SHARED && items[i].rc == 0 && items[i].r.quote_verified &&
            shared == NULL) {
            shared = &items[i];
        }
        if (items[i].mode == FETCHED && items[i].rc == 0 && fetched == NULL) {
            fetched = &items[i];
        }
    }
    CHECK(shared != NULL && fetched != NULL);
    for (int round = 0; round < 3; round++) {
        uint64_t h0, m0, h1, m1;
        struct outcome o;
        mero_dcap_cache_clear();
        mero_dcap_cache_stats(&h0, &m0);
        together(shared, &o);
        CHECK(o.rc == 0 && same(shared, &o));
        mero_dcap_cache_stats(&h1, &m1);
        CHECK_U64_EQ(m1 - m0, 1); /* one collateral build for 8 threads */
        CHECK_U64_EQ(h1 - h0, N_THREADS - 1);

        struct mero_pcs_stats s0, s1;
        mero_pcs_cache_clear();
        mero_pcs_stats(&s0);
        together(fetched, &o);
        CHECK(o.rc == 0 && same(fetched, &o));
        mero_pcs_stats(&s1);
        CHECK_U64_EQ(s1.fetches - s0.fetches, 1); /* one fetch for 8 threads */
        CHECK_U64_EQ(s1.cache_hits - s0.cache_hits, N_THREADS - 1);
    }
}

TEST(teardown)
{
    stop_pcs();
    for (size_t i = 0; i < n_items; i++) {
        free(items[i].quote);
        if (items[i].json_owned) {
            free((char *)items[i].json);
        }
    }
    for (size_t i = 0; i < n_cases; i++) {
        dcap_case_free(&cases[i]);
    }
    /* the shared parses: each freed once */
    for (size_t i = 0; i < n_items; i++) {
        if (items[i].mode == WITH_SHARED && items[i].shared != NULL) {
            struct mero_collateral *c = items[i].shared;
            for (size_t j = i; j < n_items; j++) {
                if (items[j].shared == c) {
                    items[j].shared = NULL;
                }
            }
            mero_collateral_cleanup(c);
            free(c);
        }
    }
    mero_dcap_cache_clear();
    mero_pcs_cache_clear();
    CHECK(pcs_pid < 0);
}

MERO_TEST_MAIN(T(setup_single_threaded_verdicts),
               T(eight_threads_get_the_single_threaded_verdicts_while_caches_are_cleared),
               T(threads_missing_together_build_and_fetch_once), T(teardown))
