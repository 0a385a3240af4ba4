/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_gov_fold.c - issue 30: what state resolution costs. A namespace log of N ops (N =
 * 10,000 by default, argv[1] overrides; MemberAdded ops by the owner, the last one adding
 * member S) on a peer that applied it in order; then five ops of a second admin, signed over
 * the log's first ops, arrive late and sort near the start: its MemberAdded of a fresh member
 * M, which commutes with every op after it (judged without a re-fold, fold_commute.c); its
 * MemberAdded of S, which the log's last op adds again (a rewrite, judged without a re-fold);
 * its MemberRoleSet of M, which no later op names (a role change between plain roles that
 * commutes, judged without a re-fold); its removal of M, an authority change, which re-folds
 * the namespace and replays the log's ops, none of which reads M's rows (fold_replay.c); its
 * removal of the owner, which takes the right away from the signer of every op of the log, so
 * every one of them is judged again (and refused). Then the same removal, placed beside the
 * first late op and signed by an identity that never held a row: refused before any fold
 * (apply.c, refuse_stranger; a full re-fold before it). Reported: the in-order apply per op (the
 * fast path every op of a healthy namespace takes), each late op, and the authority change's
 * re-fold per op against the in-order apply. File store (WAL, synchronous=FULL) under $TMPDIR, the
 * N ops applied in one transaction as a catching-up sync does; MERO_BENCH_FOLD_OTHER_NS=1 gives the
 * peer a second namespace first. Process CPU time. Prints `bench ...` and `ratio ...` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "support/gov_fixture.h"

static uint64_t cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void die(const char *what, const struct mero_err *e)
{
    fprintf(stderr, "bench_gov_fold: %s: %s\n", what, e != NULL ? e->msg : "");
    exit(1);
}

static int open_file_store(const char *dir, const char *name, struct mero_store **s)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.db", dir, name);
    unlink(path);
    return mero_store_open(path, s, NULL);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    struct mero_err e = {0};
    if (mero_crypto_init() < 0) {
        die("crypto", NULL);
    }
    char dir[] = "/tmp/mero-bench-fold.XXXXXX";
    const char *tmp = getenv("TMPDIR");
    char dirbuf[512];
    snprintf(dirbuf, sizeof(dirbuf), "%s/mero-bench-fold.XXXXXX", tmp != NULL ? tmp : "/tmp");
    char *d = mkdtemp(tmp != NULL ? dirbuf : dir);
    if (d == NULL) {
        die("mkdtemp", NULL);
    }
    struct govt_node a, b;
    struct mero_store *peer;
    if (govt_open(&a) < 0 || govt_create_ns(&a) < 0 || govt_open(&b) < 0 ||
        open_file_store(d, "peer", &peer) < 0) {
        die("open", NULL);
    }
    memcpy(b.ns, a.ns, 32);
    struct mero_gov_oplist ops = {0};
    if (mero_gov_identity(b.s, a.ns, true, b.pk, &e) < 0 ||
        mero_gov_change_admin(a.s, a.ns, b.pk, &ops, &e) < 0) {
        die("second admin", &e);
    }
    /* B holds only the first ops: its op is concurrent with everything after them */
    if (govt_sync(&a, &b, a.ns, &e) < 0) {
        die("sync b", &e);
    }
    uint8_t m[32], sk[64], shared[32];
    struct mero_gov_oplist late = {0};
    mero_ed25519_keypair(m, sk);
    mero_ed25519_keypair(shared, sk);
    if (mero_gov_add_member(b.s, a.ns, a.ns, m, MERO_ROLE_MEMBER, &late, &e) < 0 ||
        mero_gov_add_member(b.s, a.ns, a.ns, shared, MERO_ROLE_READONLY, &late, &e) < 0 ||
        mero_gov_set_member_role(b.s, a.ns, a.ns, m, MERO_ROLE_READONLY, &late, &e) < 0 ||
        mero_gov_remove_member(b.s, a.ns, a.ns, m, &late, &e) < 0 ||
        mero_gov_remove_member(b.s, a.ns, a.ns, a.pk, &late, &e) < 0 || late.n != 5) {
        die("late ops", &e);
    }
    if (mero_store_begin(a.s) < 0) {
        die("begin", NULL);
    }
    for (size_t i = ops.n; i < n; i++) {
        mero_ed25519_keypair(m, sk);
        if (i + 1 == n) {
            memcpy(m, shared, sizeof(m)); /* the log's last op names the second late op's member */
        }
        if (mero_gov_add_member(a.s, a.ns, a.ns, m, MERO_ROLE_MEMBER, &ops, &e) < 0) {
            die("add member", &e);
        }
    }
    if (mero_store_commit(a.s) < 0) {
        die("commit", NULL);
    }
    if (getenv("MERO_BENCH_FOLD_OTHER_NS") != NULL) {
        /* the peer holds a second namespace too: a re-fold then deletes its namespace's
         * rows one by one instead of emptying the tables whole (fold.c, clear_ns) */
        struct govt_node c, p = {.s = peer};
        if (govt_open(&c) < 0 || govt_create_ns(&c) < 0 || govt_sync(&c, &p, c.ns, &e) < 0) {
            die("second namespace", &e);
        }
        govt_close(&c);
    }
    /* the peer: genesis ops first, then the N-op log in order (one transaction) */
    uint8_t(*h)[32] = NULL;
    size_t nh = 0;
    uint64_t last = 0;
    if (mero_gov_op_hashes(a.s, a.ns, 0, SIZE_MAX, &h, &nh, &last) < 0) {
        die("hashes", NULL);
    }
    struct mero_buf *bytes = calloc(nh, sizeof(*bytes));
    for (size_t i = 0; i < nh; i++) {
        mero_buf_init(&bytes[i], MERO_GOV_MAX_OP_BYTES);
        if (mero_gov_op_get(a.s, h[i], &bytes[i]) < 0) {
            die("op get", NULL);
        }
    }
    if (mero_store_begin(peer) < 0) {
        die("begin", NULL);
    }
    uint64_t t0 = cpu_us();
    for (size_t i = 0; i < nh; i++) {
        if (mero_gov_apply(peer, bytes[i].data, bytes[i].len, NULL, NULL, NULL, &e) < 0) {
            die("in-order apply", &e);
        }
    }
    uint64_t t1 = cpu_us();
    if (mero_store_commit(peer) < 0) {
        die("commit", NULL);
    }
    double per_op = (double)(t1 - t0) / (double)nh;
    printf("bench gov_fold_in_order_apply_per_op_%zu %.1f us\n", nh, per_op);
    if (getenv("MERO_BENCH_IN_ORDER_ONLY") != NULL) {
        return 0; /* for an instruction count of the in-order apply alone (docs) */
    }
    double late_ms[5];
    for (size_t k = 0; k < 5; k++) {
        uint64_t t2 = cpu_us();
        int status = -1;
        if (mero_gov_apply(peer, late.v[k].data, late.v[k].len, &status, NULL, NULL, &e) < 0 ||
            status != MERO_APPLY_APPLIED) {
            die("a late op", &e);
        }
        late_ms[k] = (double)(cpu_us() - t2) / 1000.0;
    }
    /* the removal of the owner, placed beside the first late op (its parents) and signed
     * instead by an identity that never held a row: refused and not stored, whatever its
     * place, so it is judged without a re-fold (apply.c); sent after the five, so their times are
     * what they were */
    struct mero_op sop, first;
    struct mero_buf sb;
    uint8_t xpk[32], xsk[64];
    mero_ed25519_keypair(xpk, xsk);
    mero_buf_init(&sb, MERO_GOV_MAX_OP_BYTES);
    if (mero_op_decode(late.v[0].data, late.v[0].len, &first, &e) < 0 ||
        mero_op_decode(late.v[4].data, late.v[4].len, &sop, &e) < 0 ||
        mero_op_set_parents(&sop, (const uint8_t(*)[32])first.parents, first.n_parents) < 0 ||
        mero_op_sign(&sop, xsk) < 0 || mero_op_encode(&sop, &sb) < 0) {
        die("the stranger's op", &e);
    }
    mero_op_cleanup(&first);
    mero_op_cleanup(&sop);
    uint64_t t3 = cpu_us();
    int sst = -1;
    if (mero_gov_apply(peer, sb.data, sb.len, &sst, NULL, NULL, &e) >= 0 || sst != -1) {
        die("the stranger's late op was not refused", &e);
    }
    double stranger_ms = (double)(cpu_us() - t3) / 1000.0;
    mero_buf_cleanup(&sb);
    printf("bench gov_fold_late_op_commuting_%zu %.1f ms\n", nh + 1, late_ms[0]);
    printf("bench gov_fold_late_op_readded_%zu %.1f ms\n", nh + 2, late_ms[1]);
    printf("bench gov_fold_late_op_role_change_commuting_%zu %.1f ms\n", nh + 3, late_ms[2]);
    printf("bench gov_fold_late_op_authority_%zu %.1f ms\n", nh + 4, late_ms[3]);
    printf("bench gov_fold_late_op_revokes_the_log_signer_%zu %.1f ms\n", nh + 5, late_ms[4]);
    printf("bench gov_fold_late_op_from_a_stranger_refused_%zu %.3f ms\n", nh + 6, stranger_ms);
    printf("ratio gov_fold_stranger_late_op_vs_in_order_apply %.2f\n",
           stranger_ms * 1000.0 / per_op);
    printf("ratio gov_fold_refold_per_op_vs_in_order_apply %.2f\n",
           (late_ms[3] * 1000.0 / (double)(nh + 4)) / per_op);
    for (size_t i = 0; i < nh; i++) {
        mero_buf_cleanup(&bytes[i]);
    }
    free(bytes);
    free(h);
    mero_gov_oplist_cleanup(&ops);
    mero_gov_oplist_cleanup(&late);
    mero_store_close(peer);
    govt_close(&a);
    govt_close(&b);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_gov_fold: could not remove %s\n", d);
    }
    return 0;
}
