/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pcs_backoff.c - the collateral source is asked at most once per back-off per key,
 * failures included (issue 20; the spec: "fetches it at most once an hour and shares it, so an
 * unauthenticated flood of attestations does not become a flood of requests to the collateral
 * source"). Eight threads flood mero_pcs_collateral_for_quote (what /tee/attest's
 * includeCollateral calls for a real quote) with a genuine quote while the source is down:
 * answering 500 (tests/support/pcs_server.py, which counts the requests it got) or refusing
 * connections. Every call fails with the fetch error, the source sees the requests of ONE fetch,
 * and the rest are answered from the negative cache. Also the back-off arithmetic (60 s doubling
 * to the hour). Invariant: worker threads never touch the harness; they count results.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "mero/pcs.h"
#include "support/dcap_cases.h"

#define THREADS 8
#define CALLS   40

static struct dcap_case kase;
static pid_t pcs_pid = -1;
static unsigned pcs_port;
static atomic_int fetch_errors, other;

TEST(backoff_doubles_from_a_minute_to_the_hour)
{
    CHECK_U64_EQ(mero_pcs_backoff_next_ms(0), 60000);
    CHECK_U64_EQ(mero_pcs_backoff_next_ms(60000), 120000);
    CHECK_U64_EQ(mero_pcs_backoff_next_ms(120000), 240000);
    uint64_t b = 0;
    for (int i = 0; i < 20; i++) {
        b = mero_pcs_backoff_next_ms(b);
        CHECK(b <= (uint64_t)MERO_PCS_CACHE_SECONDS * 1000);
    }
    CHECK_U64_EQ(b, (uint64_t)MERO_PCS_CACHE_SECONDS * 1000);
    CHECK_U64_EQ(mero_pcs_backoff_next_ms(3000000), 3600000);
}

static int start_pcs(const char *mode)
{
    char dir[] = "/tmp/mero-pcsback.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    char port_file[64], script[1024], coll[1024];
    snprintf(port_file, sizeof(port_file), "%s/port", dir);
    snprintf(coll, sizeof(coll), "%s/collateral.json", kase.dir);
    const char *root = getenv("MERO_ROOT");
    snprintf(script, sizeof(script), "%s/tests/support/pcs_server.py", root ? root : ".");
    pcs_pid = fork();
    if (pcs_pid < 0) {
        return -1;
    }
    if (pcs_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        execlp("python3", "python3", script, "--collateral", coll, "--port-file", port_file,
               "--mode", mode, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* bounded: up to 30 s on a loaded machine */
        FILE *f = fopen(port_file, "r");
        if (f != NULL) {
            int got = fscanf(f, "%u", &pcs_port);
            fclose(f);
            if (got == 1 && pcs_port > 0) {
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

static size_t sink(void *p, size_t sz, size_t n, void *ud)
{
    char *buf = ud;
    size_t len = strlen(buf), add = sz * n;
    if (len + add < 32) {
        memcpy(buf + len, p, add);
        buf[len + add] = 0;
    }
    return sz * n;
}

/* The requests the local PCS has served, or -1. */
static long served(void)
{
    char url[64], body[32] = {0};
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/_count", pcs_port);
    CURL *h = curl_easy_init();
    if (h == NULL) {
        return -1;
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_cleanup(h);
    return rc == CURLE_OK ? strtol(body, NULL, 10) : -1;
}

static void *flood(void *ud)
{
    (void)ud;
    for (int i = 0; i < CALLS; i++) {
        struct mero_collateral c;
        struct mero_err e;
        mero_err_clear(&e);
        int rc = mero_pcs_collateral_for_quote(kase.quote, kase.quote_len, &c, &e);
        if (rc == -MERO_ECOLLATERAL_FETCH) {
            atomic_fetch_add(&fetch_errors, 1);
        } else {
            if (rc == 0) {
                mero_collateral_cleanup(&c);
            }
            atomic_fetch_add(&other, 1);
        }
    }
    return NULL;
}

/* Flood from THREADS threads; the pcs stats before and after. */
static int run_flood(struct mero_pcs_stats *s0, struct mero_pcs_stats *s1)
{
    pthread_t t[THREADS];
    atomic_store(&fetch_errors, 0);
    atomic_store(&other, 0);
    mero_pcs_cache_clear();
    mero_pcs_stats(s0);
    for (int i = 0; i < THREADS; i++) {
        if (pthread_create(&t[i], NULL, flood, NULL) != 0) {
            return -1;
        }
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
    }
    mero_pcs_stats(s1);
    return 0;
}

TEST(source_answering_500_is_asked_once_under_a_flood)
{
    CHECK(dcap_case_load(&kase, "tdx/nearmpc-1") == 0);
    CHECK(start_pcs("500") == 0);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", pcs_port);
    setenv("CALIMERO_TEE_COLLATERAL_URL", url, 1);
    struct mero_pcs_stats s0, s1;
    CHECK_OK(run_flood(&s0, &s1));
    CHECK_EQ(atomic_load(&fetch_errors), THREADS * CALLS);
    CHECK_EQ(atomic_load(&other), 0);
    CHECK_U64_EQ(s1.failures - s0.failures, 1); /* one fetch for the whole flood */
    long n = served();
    CHECK(n >= 1 && n <= 4); /* the requests of one fetch at most */
    CHECK_U64_EQ((uint64_t)n, s1.requests - s0.requests);
    /* every other caller: the remembered failure (or the one fetch, joined in flight) */
    CHECK(s1.negative_hits - s0.negative_hits >= THREADS * CALLS - THREADS);
    /* and it stays remembered: a second wave asks nothing */
    struct mero_pcs_stats s2;
    flood(NULL);
    mero_pcs_stats(&s2);
    CHECK_U64_EQ(s2.requests, s1.requests);
    CHECK_EQ(served(), n);
    stop_pcs();
}

TEST(source_refusing_connections_is_asked_once_under_a_flood)
{
    /* a port nobody listens on: bind one, learn it, close it */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    close(fd);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    setenv("CALIMERO_TEE_COLLATERAL_URL", url, 1);
    struct mero_pcs_stats s0, s1;
    CHECK_OK(run_flood(&s0, &s1));
    CHECK_EQ(atomic_load(&fetch_errors), THREADS * CALLS);
    CHECK_U64_EQ(s1.failures - s0.failures, 1);
    CHECK(s1.requests - s0.requests >= 1 && s1.requests - s0.requests <= 4);
    mero_pcs_cache_clear();
    dcap_case_free(&kase);
}

MERO_TEST_MAIN(T(backoff_doubles_from_a_minute_to_the_hour),
               T(source_answering_500_is_asked_once_under_a_flood),
               T(source_refusing_connections_is_asked_once_under_a_flood))
