/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sealed_http.c - issue 31 "Speed" with a C client, so the client's own cost is small
 * next to the node's: the same route (GET /admin-api/identity, with the token) plaintext and
 * through a sealed session, one keep-alive libcurl handle each, against one merod (env
 * BASE_URL, TOKEN; bench/sealed.bench.sh starts it). Without BASE_URL it says so and does
 * nothing (bench/run.sh runs every bench_* binary).
 *
 * Made to be read on a noisy shared machine: BENCH_ROUNDS rounds (default 40) of BENCH_N
 * requests each way (default 200), interleaved, the order swapped every round (ABBA), after
 * one warm-up round. Per round and way it takes the wall time, this process's CPU time and,
 * with MEROD_PID set, the node's CPU time (the sum of /proc/PID/task/STAR/schedstat, ns; else
 * /proc/PID/stat utime + stime, clock ticks). It prints the median per request of each, the
 * ratio of the medians, the median of the rounds' own sealed/plain ratios (each round's pair
 * ran back to back, so it shares that moment's load) and their quartiles. Then BENCH_HS
 * handshakes (default 100, under the node's burst of 200): wall and node CPU per handshake.
 * BENCH_ONLY=plain or sealed runs that way only, for a profiler attached to the node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <dirent.h>
#include <jansson.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sealed.h"

#define ROUNDS_MAX 1000

struct bench {
    CURL *p, *s;
    struct mero_buf out, env, plain, frame;
    uint8_t sid[MERO_SEALED_SESSION_ID_LEN];
    struct mero_sealed_keys k;
    uint64_t rid;
    int bad;
};

/* one way's samples, per request, ns */
struct way {
    double wall[ROUNDS_MAX], cpu[ROUNDS_MAX], node[ROUNDS_MAX];
};

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    return mero_buf_append(ud, p, size * n) < 0 ? 0 : size * n;
}

static long perform(CURL *c, struct mero_buf *out)
{
    long status = 0;
    mero_buf_reset(out);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    if (curl_easy_perform(c) != CURLE_OK) {
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The node's CPU time so far, ns; 0 without MEROD_PID. *fine: whether from schedstat. */
static uint64_t node_ns(const char *pid, int *fine)
{
    char path[600], line[512];
    uint64_t sum = 0;
    if (pid == NULL) {
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/%.32s/task", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    *fine = d != NULL;
    while (d != NULL && (e = readdir(d)) != NULL) {
        unsigned long long ns = 0;
        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%.32s/task/%.255s/schedstat", pid, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL || fscanf(f, "%llu", &ns) != 1) {
            *fine = 0;
        }
        if (f != NULL) {
            fclose(f);
        }
        sum += ns;
    }
    if (d != NULL) {
        closedir(d);
    }
    if (*fine) {
        return sum;
    }
    snprintf(path, sizeof(path), "/proc/%.32s/stat", pid);
    FILE *f = fopen(path, "r");
    unsigned long long ut = 0, st = 0;
    char *at = f != NULL && fgets(line, sizeof(line), f) != NULL ? strrchr(line, ')') : NULL;
    /* after "pid (comm)": state is field 3, utime 14, stime 15 */
    if (at == NULL ||
        sscanf(at + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) {
        ut = st = 0;
    }
    if (f != NULL) {
        fclose(f);
    }
    return (ut + st) * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
}

static void plain_round(struct bench *b, int n)
{
    for (int i = 0; i < n; i++) {
        b->bad |= perform(b->p, &b->out) != 200;
    }
}

static void sealed_round(struct bench *b, int n)
{
    for (int i = 0; i < n; i++, b->rid++) {
        uint8_t hdr[MERO_SEALED_HEADER_LEN], kind = 0;
        size_t off = 0, used = 0;
        mero_buf_reset(&b->env);
        b->bad |= mero_sealed_request_seal(b->k.request, b->sid, b->rid, b->plain.data,
                                           b->plain.len, &b->env) < 0;
        curl_easy_setopt(b->s, CURLOPT_POSTFIELDS, b->env.data);
        curl_easy_setopt(b->s, CURLOPT_POSTFIELDSIZE, (long)b->env.len);
        b->bad |= perform(b->s, &b->out) != 200;
        mero_sealed_header(hdr, b->sid, b->rid);
        for (uint32_t f = 0; off < b->out.len; f++, off += used) {
            if (mero_sealed_frame_open(b->k.response, hdr, f, b->out.data + off, b->out.len - off,
                                       &used, &kind, &b->frame) < 0) {
                b->bad = 1;
                break;
            }
        }
        b->bad |= kind != MERO_SEALED_END;
    }
}

/* One way's round of n requests, its per-request costs stored at w[r]. */
static void timed(struct bench *b, int sealed, int n, const char *pid, struct way *w, int r)
{
    int fine = 0;
    uint64_t n0 = node_ns(pid, &fine), c0 = cpu_ns(), t0 = mero_now_ns();
    if (sealed) {
        sealed_round(b, n);
    } else {
        plain_round(b, n);
    }
    uint64_t t1 = mero_now_ns(), c1 = cpu_ns(), n1 = node_ns(pid, &fine);
    w->wall[r] = (double)(t1 - t0) / n;
    w->cpu[r] = (double)(c1 - c0) / n;
    w->node[r] = (double)(n1 - n0) / n;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the q-quantile (0..1) of v[0..n), v sorted in place */
static double quant(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return v[(int)(q * (n - 1) + 0.5)];
}

static void report(const char *what, double *pl, double *se, int n)
{
    double ratio[ROUNDS_MAX];
    for (int i = 0; i < n; i++) {
        ratio[i] = pl[i] > 0 ? se[i] / pl[i] : 0;
    }
    double mp = quant(pl, n, 0.5), ms = quant(se, n, 0.5);
    printf("bench sealed_c_%s_plain_median %.1f us/req\n", what, mp / 1e3);
    printf("bench sealed_c_%s_sealed_median %.1f us/req\n", what, ms / 1e3);
    printf("ratio sealed_over_plain_%s_c_of_medians %.2f\n", what, mp > 0 ? ms / mp : 0);
    printf("ratio sealed_over_plain_%s_c_median_of_rounds %.2f (quartiles %.2f-%.2f)\n", what,
           quant(ratio, n, 0.5), quant(ratio, n, 0.25), quant(ratio, n, 0.75));
}

static int env_int(const char *name, int dflt, int max)
{
    const char *v = getenv(name);
    char *end = NULL;
    long x = v != NULL ? strtol(v, &end, 10) : dflt;
    if (v != NULL && (end == v || *end != '\0')) {
        x = dflt;
    }
    return x < 1 ? 1 : x > max ? max : (int)x;
}

/* The transport key from a bound attestation, then a session; 0 or -1. */
static int open_session(struct bench *b, const char *base, uint8_t *body)
{
    char url[512];
    uint8_t tk[MERO_X25519_LEN];
    struct mero_sealed_client cl;
    uint32_t life = 0;
    snprintf(url, sizeof(url), "%s/admin-api/tee/attest", base);
    curl_easy_setopt(b->p, CURLOPT_URL, url);
    curl_easy_setopt(
        b->p, CURLOPT_POSTFIELDS,
        "{\"nonce\":\"0000000000000000000000000000000000000000000000000000000000000000\","
        "\"bindTransportKey\":true}");
    json_t *a = perform(b->p, &b->out) == 200
                    ? json_loadb((const char *)b->out.data, b->out.len, 0, NULL)
                    : NULL;
    const char *tkh =
        json_string_value(json_object_get(json_object_get(a, "data"), "transportPublicKey"));
    if (tkh == NULL || mero_hex_decode_exact(tk, sizeof(tk), tkh, strlen(tkh)) < 0) {
        json_decref(a);
        fprintf(stderr, "bench_sealed_http: no transport key\n");
        return -1;
    }
    json_decref(a);
    body[0] = MERO_SEALED_VERSION;
    memcpy(body + 1, tk, sizeof(tk));
    snprintf(url, sizeof(url), "%s/sealed/v2/handshake", base);
    curl_easy_setopt(b->s, CURLOPT_URL, url);
    curl_easy_setopt(b->s, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(b->s, CURLOPT_POSTFIELDSIZE, (long)MERO_SEALED_HANDSHAKE_LEN);
    if (mero_sealed_initiate(&cl, tk, NULL, body + 1 + MERO_X25519_LEN) < 0 ||
        perform(b->s, &b->out) != 200 || b->out.len != MERO_SEALED_HANDSHAKE_REPLY_LEN ||
        mero_sealed_finish(&cl, b->out.data + 1, b->out.len - 1, b->sid, &life, &b->k) < 0) {
        fprintf(stderr, "bench_sealed_http: the handshake failed\n");
        return -1;
    }
    return 0;
}

/* hs handshakes on handle s (its URL and body already set): wall, node and client CPU. */
static void handshakes(struct bench *b, uint8_t *body, int hs, const char *pid)
{
    int fine = 0, bad = 0;
    uint64_t cl_cpu = 0, n0 = node_ns(pid, &fine), t0 = mero_now_ns();
    for (int i = 0; i < hs; i++) {
        struct mero_sealed_client cl;
        struct mero_sealed_keys k;
        uint8_t sid[MERO_SEALED_SESSION_ID_LEN];
        uint32_t life = 0;
        uint64_t c0 = cpu_ns();
        bad |= mero_sealed_initiate(&cl, body + 1, NULL, body + 1 + MERO_X25519_LEN) < 0;
        cl_cpu += cpu_ns() - c0;
        bad |= perform(b->s, &b->out) != 200 || b->out.len != MERO_SEALED_HANDSHAKE_REPLY_LEN;
        c0 = cpu_ns();
        bad |= !bad && mero_sealed_finish(&cl, b->out.data + 1, b->out.len - 1, sid, &life, &k) < 0;
        cl_cpu += cpu_ns() - c0;
    }
    uint64_t t1 = mero_now_ns(), n1 = node_ns(pid, &fine);
    if (bad) {
        fprintf(stderr, "bench_sealed_http: a handshake failed\n");
        b->bad = 1;
        return;
    }
    printf("bench sealed_c_handshake_wall %.1f us/op\n", (double)(t1 - t0) / hs / 1e3);
    printf("bench sealed_c_handshake_client_crypto_cpu %.1f us/op\n", (double)cl_cpu / hs / 1e3);
    if (pid != NULL) {
        printf("bench sealed_c_handshake_node_cpu %.1f us/op (the whole HTTP request, %s)\n",
               (double)(n1 - n0) / hs / 1e3, fine ? "schedstat" : "stat ticks");
    }
}

int main(void)
{
    const char *base = getenv("BASE_URL"), *token = getenv("TOKEN"), *pid = getenv("MEROD_PID");
    const char *only = getenv("BENCH_ONLY");
    char url[512], auth[300];
    uint8_t body[MERO_SEALED_HANDSHAKE_LEN];
    static struct bench b;
    static struct way wp, ws;
    if (base == NULL || token == NULL) {
        printf(
            "# bench_sealed_http: BASE_URL and TOKEN not set (bench/sealed.bench.sh sets them)\n");
        return 0;
    }
    const int rounds = env_int("BENCH_ROUNDS", 40, ROUNDS_MAX), n = env_int("BENCH_N", 200, 100000);
    const int hs = env_int("BENCH_HS", 100, 150);
    if (mero_crypto_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        return 1;
    }
    mero_buf_init(&b.out, 1u << 20);
    mero_buf_init(&b.env, 1u << 20);
    mero_buf_init(&b.plain, 1u << 20);
    mero_buf_init(&b.frame, 1u << 17);
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
    b.p = curl_easy_init();
    b.s = curl_easy_init();
    struct curl_slist *ph = curl_slist_append(NULL, auth);
    struct curl_slist *sh = curl_slist_append(NULL, "Content-Type: " MERO_SEALED_CONTENT_TYPE);
    curl_easy_setopt(b.s, CURLOPT_HTTPHEADER, sh);
    if (open_session(&b, base, body) < 0) {
        return 1;
    }
    /* the inner request, the same each time */
    char head[512];
    int hl = snprintf(head, sizeof(head),
                      "{\"method\":\"GET\",\"path\":\"/admin-api/identity\",\"headers\":"
                      "[[\"authorization\",\"Bearer %s\"]]}",
                      token);
    uint8_t len4[4] = {0, 0, (uint8_t)(hl >> 8), (uint8_t)hl};
    if (mero_buf_append(&b.plain, len4, 4) < 0 || mero_buf_append(&b.plain, head, (size_t)hl) < 0) {
        return 1;
    }
    snprintf(url, sizeof(url), "%s/admin-api/identity", base);
    curl_easy_setopt(b.p, CURLOPT_URL, url);
    curl_easy_setopt(b.p, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(b.p, CURLOPT_HTTPHEADER, ph);
    snprintf(url, sizeof(url), "%s/sealed/v2", base);
    curl_easy_setopt(b.s, CURLOPT_URL, url);
    b.rid = 1;
    if (only != NULL) { /* one way only, for a profiler */
        int sealed = strcmp(only, "sealed") == 0;
        for (int r = 0; r < rounds; r++) {
            timed(&b, sealed, n, pid, sealed ? &ws : &wp, r);
        }
        struct way *w = sealed ? &ws : &wp;
        printf("bench sealed_c_only_%s_wall_median %.1f us/req\n", sealed ? "sealed" : "plain",
               quant(w->wall, rounds, 0.5) / 1e3);
        return b.bad;
    }
    plain_round(&b, n); /* warms both */
    sealed_round(&b, n);
    for (int r = 0; r < rounds; r++) {
        timed(&b, r % 2, n, pid, r % 2 ? &ws : &wp, r);
        timed(&b, !(r % 2), n, pid, r % 2 ? &wp : &ws, r);
    }
    if (b.bad) {
        fprintf(stderr, "bench_sealed_http: a request failed\n");
        return 1;
    }
    printf("# bench_sealed_http: %d rounds x %d requests each way, interleaved\n", rounds, n);
    report("request_wall", wp.wall, ws.wall, rounds);
    report("client_cpu", wp.cpu, ws.cpu, rounds);
    if (pid != NULL) {
        report("node_cpu", wp.node, ws.node, rounds);
    }
    snprintf(url, sizeof(url), "%s/sealed/v2/handshake", base);
    curl_easy_setopt(b.s, CURLOPT_URL, url);
    curl_easy_setopt(b.s, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(b.s, CURLOPT_POSTFIELDSIZE, (long)MERO_SEALED_HANDSHAKE_LEN);
    handshakes(&b, body, hs, pid);
    curl_easy_cleanup(b.p);
    curl_easy_cleanup(b.s);
    curl_slist_free_all(ph);
    curl_slist_free_all(sh);
    mero_buf_cleanup(&b.out);
    mero_buf_cleanup(&b.env);
    mero_buf_cleanup(&b.plain);
    mero_buf_cleanup(&b.frame);
    curl_global_cleanup();
    return b.bad;
}
