/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_gov.c - cost of appending and applying a TEE admission at op-log sizes 100 and
 * 100,000 (same namespace), on the admitter (admit_tee_node: decide, sign, append, apply
 * join + evidence + key delivery) and on a peer (mero_gov_apply of those three ops), plus the
 * spent-quote and policy lookups. The big log is built in one transaction; about a third of it
 * is earlier admissions, so the spent-quote table grows with it. File stores (WAL,
 * synchronous=FULL) under $TMPDIR. Times are process CPU time (median of 5 batches of 40).
 * Prints `bench ...` and `ratio ...` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/mock.h"
#include "support/gov_fixture.h"

#define BATCHES   5
#define PER_BATCH 40

/* Process CPU time: the machine is shared, so wall time mostly measures other processes and
 * fsync waits; CPU time measures what the work costs us. */
static uint64_t cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct tee_req {
    struct mero_admit_request req;
    uint8_t quote[MERO_MOCK_QUOTE_LEN];
};

/* A fresh TEE identity with its credential and a mock quote bound to it. */
static void fresh_request(const uint8_t ns[32], struct tee_req *t)
{
    uint8_t pk[32], sk[64], rpk[32], rsk[64], kem[32], dev[32], bind[32], rd[64];
    mero_ed25519_keypair(pk, sk);
    mero_ed25519_keypair(rpk, rsk);
    if (mero_kem_pk_from_ed25519(kem, pk) < 0) {
        abort();
    }
    mero_device_id(dev, rpk);
    memset(&t->req, 0, sizeof(t->req));
    mero_credential_build(&t->req.account, rsk, dev, pk, kem, 0, 0);
    mero_admission_binding(bind, ns, ns, pk, t->req.account.cert.account, kem, dev);
    mero_random(rd, 32);
    memcpy(rd + 32, bind, 32);
    mero_mock_quote_create(t->quote, rd);
    memcpy(t->req.group_id, ns, 32);
    memcpy(t->req.member, pk, 32);
    mero_sha256(t->req.quote_hash, t->quote, sizeof(t->quote));
    govt_meas(t->req.m.mrtd, 0);
    for (int i = 0; i < 4; i++) {
        govt_meas(t->req.m.rtmr[i], 0);
    }
    snprintf(t->req.tcb_status, sizeof(t->req.tcb_status), "Mock");
    t->req.is_mock = true;
    t->req.quote = t->quote;
    t->req.quote_len = sizeof(t->quote);
    t->req.attested_at = 1000;
    t->req.now = 1000;
}

static int admit_one(struct mero_store *s, const uint8_t ns[32], struct mero_gov_oplist *out)
{
    struct tee_req t;
    int outcome;
    struct mero_err e = {0};
    fresh_request(ns, &t);
    int rc = mero_gov_admit_tee_node(s, ns, &t.req, &outcome, out, &e);
    if (rc < 0 || outcome != MERO_ADMIT_ADMITTED) {
        fprintf(stderr, "bench_gov: admission failed: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* Grow the owner's log to `size` ops in one transaction, mirroring every op to the peer. */
static int fill(struct mero_store *o, struct mero_store *p, const uint8_t ns[32], uint64_t size)
{
    uint64_t n = 0;
    struct mero_err e = {0};
    if (mero_store_begin(o) < 0 || mero_store_begin(p) < 0) {
        return -1;
    }
    int rc = mero_gov_op_count(o, ns, &n);
    for (uint64_t i = 0; rc == 0 && n < size; i++) {
        struct mero_gov_oplist l = {0};
        if (i % 4 == 0 && size - n >= 3) {
            rc = admit_one(o, ns, &l);
        } else {
            uint8_t pk[32], sk[64];
            mero_ed25519_keypair(pk, sk);
            rc = mero_gov_add_member(o, ns, ns, pk, MERO_ROLE_MEMBER, &l, &e);
        }
        for (size_t k = 0; rc == 0 && k < l.n; k++) {
            rc = mero_gov_apply(p, l.v[k].data, l.v[k].len, NULL, NULL, NULL, &e);
        }
        n += l.n;
        mero_gov_oplist_cleanup(&l);
    }
    if (rc < 0) {
        fprintf(stderr, "bench_gov: fill: %s\n", e.msg);
        return -1;
    }
    if (mero_store_commit(o) < 0 || mero_store_commit(p) < 0) {
        return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct result {
    double admit_us, apply_us, spent_ns, policy_ns;
};

static int run(uint64_t size, struct result *r)
{
    char dir[256], po[320], pp[320];
    snprintf(dir, sizeof(dir), "%s/mero-bench-gov-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    snprintf(po, sizeof(po), "%s/owner.db", dir);
    snprintf(pp, sizeof(pp), "%s/peer.db", dir);
    struct mero_store *o = NULL, *p = NULL;
    struct mero_err e = {0};
    uint8_t ns[32];
    struct mero_gov_oplist l = {0};
    struct mero_tee_policy pol;
    if (mero_store_open(po, &o, &e) < 0 || mero_store_open(pp, &p, &e) < 0 ||
        mero_gov_create_namespace(o, ns, &l, &e) < 0 || govt_policy(&pol, 0, true) < 0 ||
        mero_gov_set_policy(o, ns, &pol, &l, NULL, NULL, &e) < 0) {
        fprintf(stderr, "bench_gov: setup: %s\n", e.msg);
        return -1;
    }
    mero_tee_policy_cleanup(&pol);
    for (size_t k = 0; k < l.n; k++) {
        if (mero_gov_apply(p, l.v[k].data, l.v[k].len, NULL, NULL, NULL, &e) < 0) {
            return -1;
        }
    }
    mero_gov_oplist_cleanup(&l);
    if (fill(o, p, ns, size) < 0) {
        return -1;
    }
    double admit[BATCHES], apply[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        struct mero_gov_oplist batch = {0};
        uint64_t t0 = cpu_us();
        for (int i = 0; i < PER_BATCH; i++) {
            if (admit_one(o, ns, &batch) < 0) {
                return -1;
            }
        }
        uint64_t t1 = cpu_us();
        for (size_t k = 0; k < batch.n; k++) {
            if (mero_gov_apply(p, batch.v[k].data, batch.v[k].len, NULL, NULL, NULL, &e) < 0) {
                fprintf(stderr, "bench_gov: peer apply: %s\n", e.msg);
                return -1;
            }
        }
        uint64_t t2 = cpu_us();
        admit[b] = (double)(t1 - t0) / PER_BATCH;
        apply[b] = (double)(t2 - t1) / PER_BATCH;
        mero_gov_oplist_cleanup(&batch);
    }
    qsort(admit, BATCHES, sizeof(double), cmp_double);
    qsort(apply, BATCHES, sizeof(double), cmp_double);
    r->admit_us = admit[BATCHES / 2];
    r->apply_us = apply[BATCHES / 2];
    /* lookups: a used and an unused quote hash, and the policy read */
    const int L = 20000;
    uint8_t h[32];
    bool used;
    mero_random(h, 32);
    uint64_t t0 = cpu_us();
    for (int i = 0; i < L; i++) {
        h[0] = (uint8_t)i;
        if (mero_gov_is_quote_hash_used(p, ns, h, &used) < 0) {
            return -1;
        }
    }
    uint64_t t1 = cpu_us();
    for (int i = 0; i < L; i++) {
        bool found;
        if (mero_gov_read_policy(p, ns, &pol, &found, &e) < 0 || !found) {
            return -1;
        }
        mero_tee_policy_cleanup(&pol);
    }
    uint64_t t2 = cpu_us();
    r->spent_ns = (double)(t1 - t0) * 1000.0 / L;
    r->policy_ns = (double)(t2 - t1) * 1000.0 / L;
    uint64_t n = 0;
    if (mero_gov_op_count(p, ns, &n) == 0) {
        printf("# op log %llu ops on the peer after the run\n", (unsigned long long)n);
    }
    mero_store_close(o);
    mero_store_close(p);
    static const char *const files[] = {"owner.db", "owner.db-wal", "owner.db-shm",
                                        "peer.db",  "peer.db-wal",  "peer.db-shm"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char f[400];
        snprintf(f, sizeof(f), "%s/%s", dir, files[i]);
        (void)unlink(f);
    }
    (void)rmdir(dir);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t big = 100000;
    if (argc > 1 && mero_parse_u64(argv[1], 10000000, &big) < 0) {
        fprintf(stderr, "usage: bench_gov [OPS]\n");
        return 1;
    }
    if (mero_crypto_init() < 0) {
        return 1;
    }
    struct result small, large;
    if (run(100, &small) < 0 || run(big, &large) < 0) {
        fprintf(stderr, "bench_gov: failed\n");
        return 1;
    }
    printf("bench gov_admit_log100 %.1f us_cpu/admission\n", small.admit_us);
    printf("bench gov_admit_log%llu %.1f us_cpu/admission\n", (unsigned long long)big,
           large.admit_us);
    printf("ratio gov_admit_log%llu_vs_log100 %.2f\n", (unsigned long long)big,
           large.admit_us / small.admit_us);
    printf("bench gov_peer_apply_admission_log100 %.1f us_cpu/admission\n", small.apply_us);
    printf("bench gov_peer_apply_admission_log%llu %.1f us_cpu/admission\n",
           (unsigned long long)big, large.apply_us);
    printf("ratio gov_peer_apply_admission_log%llu_vs_log100 %.2f\n", (unsigned long long)big,
           large.apply_us / small.apply_us);
    printf("bench gov_spent_lookup_log100 %.0f ns_cpu\n", small.spent_ns);
    printf("bench gov_spent_lookup_log%llu %.0f ns_cpu\n", (unsigned long long)big, large.spent_ns);
    printf("ratio gov_spent_lookup_log%llu_vs_log100 %.2f\n", (unsigned long long)big,
           large.spent_ns / small.spent_ns);
    printf("bench gov_policy_read_log100 %.0f ns_cpu\n", small.policy_ns);
    printf("bench gov_policy_read_log%llu %.0f ns_cpu\n", (unsigned long long)big, large.policy_ns);
    printf("ratio gov_policy_read_log%llu_vs_log100 %.2f\n", (unsigned long long)big,
           large.policy_ns / small.policy_ns);
    return 0;
}
