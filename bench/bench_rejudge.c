/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_rejudge.c - what judging kept deltas again costs (issue 30, src/node/context/kept.c):
 * member x writes KEPT times after its removal on a node that also holds `filler` writes of the
 * owner's, so each of x's deltas is kept without effect; x is then added back and the node's
 * sync tick judges the kept deltas again (mero__node_ctx_rejudge), which materialises them all.
 * Timed: that one call, and the one after an event that grants x nothing (none passes), wall clock,
 * on in-memory stores (tests/support/snap_fixture.h), with a context of 0 and of 20,000 other
 * deltas, and beside 1,000 of x's deltas waiting for a key nobody holds, side by side. Prints
 * `bench ...` and `ratio ...` lines; the target is that neither costs the rejudge much (ratios
 * within 2).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "support/snap_fixture.h"

#define KEPT    1000u
#define FILLER  20000u
#define WAITING 1000u

static uint64_t count(struct mero_node *n, const char *sql)
{
    sqlite3_stmt *st = NULL;
    uint64_t c = 0;
    if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        c = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return c;
}

/* A write by (pk, sk) at lamport sealed under a key nobody holds, applied on n: it waits for
 * its key for good (any member can make such deltas). */
static int write_unknown_key(struct snapf *f, struct mero_node *n, const uint8_t pk[32],
                             const uint8_t sk[64], uint64_t lamport)
{
    uint8_t gk[32], kid[32], nonce[12], sig[64], ct[64];
    const uint8_t pt[] = {1, 0, 0, 0, 'k', 1, 0, 0, 0, 'v'};
    struct mero_buf d, msg;
    struct mero_err err = {0};
    mero_random(gk, sizeof(gk));
    mero_random(kid, sizeof(kid));
    mero_random(nonce, sizeof(nonce));
    mero_buf_init(&d, 1024);
    mero_buf_init(&msg, 2048);
    int rc = mero_buf_append_u8(&d, MERO_DELTA_VERSION);
    rc = rc < 0 ? rc : mero_buf_append(&d, f->ctx, 32);
    rc = rc < 0 ? rc : mero_buf_append(&d, pk, 32);
    rc = rc < 0 ? rc : mero_buf_append_u64le(&d, lamport);
    rc = rc < 0 ? rc : mero_buf_append(&d, kid, 32);
    rc = rc < 0 ? rc : mero_buf_append(&d, nonce, 12);
    size_t aad = d.len;
    rc = rc < 0 ? rc : mero_buf_append_u32le(&d, sizeof(pt) + 16);
    rc = rc < 0 ? rc : mero_aes256gcm_seal(ct, pt, sizeof(pt), d.data, aad, nonce, gk);
    rc = rc < 0 ? rc : mero_buf_append(&d, ct, sizeof(pt) + 16);
    rc = rc < 0 ? rc : mero_buf_append_str(&msg, MERO_DELTA_DOMAIN);
    rc = rc < 0 ? rc : mero_buf_append(&msg, d.data, d.len);
    if (rc == 0) {
        mero_ed25519_sign(sig, msg.data, msg.len, sk);
        rc = mero_buf_append(&d, sig, sizeof(sig));
    }
    rc = rc < 0 ? rc : mero__node_ctx_apply(n, d.data, d.len, &err);
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&d);
    return rc;
}

/* Microseconds one rejudge of KEPT kept deltas takes beside `filler` applied ones: in *idle
 * after an event that grants x nothing (another member added), in *us after x is added back. */
static int run(uint64_t filler, uint64_t waiting, double *idle, double *us)
{
    struct snapf f;
    struct mero_err err = {0};
    uint8_t x[MERO_IDENTITY_LEN], xsk[MERO_ED25519_SK_LEN];
    struct mero_node *r = &f.n[2];
    int rc = snapf_open(&f);
    mero_ed25519_keypair(x, xsk);
    if (rc == 0) {
        rc = mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err);
    }
    if (rc == 0 && filler > 0) {
        rc = snapf_write(r, f.ctx, filler, 256);
    }
    uint64_t lam = filler;
    for (uint64_t i = 0; rc == 0 && i < waiting; i++) {
        rc = write_unknown_key(&f, r, x, xsk, ++lam); /* x's, while a member */
    }
    if (rc == 0) {
        rc = mero_gov_remove_member(f.n[0].store, f.ns, f.ns, x, NULL, &err);
    }
    for (uint64_t i = 0; rc == 0 && i < KEPT; i++) {
        char k[32];
        snprintf(k, sizeof(k), "x%llu", (unsigned long long)i);
        /* refused (x has no row), kept: each raises the clock by one */
        int w = snapf_write_as(&f, r, f.ctx, x, xsk, lam + 1 + i, k, "from x", false);
        rc = w == -MERO_EPERM ? 0 : w < 0 ? w : -MERO_EINVAL;
    }
    if (rc == 0 && count(r, "SELECT count(*) FROM ctx_delta WHERE applied = 2") != KEPT) {
        rc = -MERO_ESTATE;
    }
    uint8_t y[MERO_IDENTITY_LEN], ysk[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(y, ysk);
    mero_wipe(ysk, sizeof(ysk));
    if (rc == 0) {
        rc = mero_gov_add_member(f.n[0].store, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err);
    }
    uint64_t t0 = mero_now_us();
    if (rc == 0) {
        mero__node_ctx_rejudge(r);
    }
    *idle = (double)(mero_now_us() - t0);
    if (rc == 0 && count(r, "SELECT count(*) FROM ctx_delta WHERE applied = 2") != KEPT) {
        rc = -MERO_ESTATE; /* nothing may pass yet */
    }
    if (rc == 0) {
        rc = mero_gov_add_member(f.n[0].store, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err);
    }
    t0 = mero_now_us();
    if (rc == 0) {
        mero__node_ctx_rejudge(r);
    }
    *us = (double)(mero_now_us() - t0);
    if (rc == 0 && (count(r, "SELECT count(*) FROM ctx_delta WHERE applied = 2") != 0 ||
                    snapf_value_is(r, f.ctx, "x0", "from x") != 1)) {
        rc = -MERO_ESTATE; /* the rejudge left a kept delta without effect */
    }
    if (rc < 0) {
        fprintf(stderr, "bench_rejudge: %s (%d)\n", err.msg, rc);
    }
    mero_wipe(xsk, sizeof(xsk));
    snapf_close(&f);
    return rc;
}

int main(void)
{
    double idle = 0, idle_beside = 0, alone = 0, beside = 0, idle_w = 0, waiting = 0;
    if (run(0, 0, &idle, &alone) < 0 || run(FILLER, 0, &idle_beside, &beside) < 0 ||
        run(0, WAITING, &idle_w, &waiting) < 0) {
        return 1;
    }
    printf("bench ctx_rejudge_%u_kept_none_pass %.0f us\n", KEPT, idle);
    printf("bench ctx_rejudge_%u_kept_none_pass_beside_%u %.0f us\n", KEPT, FILLER, idle_beside);
    printf("bench ctx_rejudge_%u_kept %.0f us\n", KEPT, alone);
    printf("bench ctx_rejudge_%u_kept_beside_%u %.0f us\n", KEPT, FILLER, beside);
    printf("bench ctx_rejudge_%u_kept_beside_%u_waiting_for_a_key %.0f us\n", KEPT, WAITING,
           waiting);
    printf("ratio ctx_rejudge_beside_%u_vs_alone %.2f (target <= 2)\n", FILLER, beside / alone);
    printf("ratio ctx_rejudge_beside_%u_waiting_vs_alone %.2f (target <= 2)\n", WAITING,
           waiting / alone);
    return 0;
}
