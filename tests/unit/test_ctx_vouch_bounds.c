/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ctx_vouch_bounds.c - issue 30, what a removal does NOT vouch for (src/node/context/chain.c,
 * src/gov/query.c mero_gov_write_cuts; found by a review of the first form, each a failing test
 * then): a cut from a removal out of a group that is neither the context's nor an ancestor of it
 * (an admin of another group, a ReadOnly member's write through a subgroup's removal); a cut
 * naming a write its remover kept without effect; a cut reaching a write its remover never held
 * (withheld, then published after the removal); and a removed author's chain below the context
 * clock is still taken in one pull, not one link per sync round; a removal whose cuts do not fit
 * beside its key rotation goes without them. In-process nodes
 * (tests/support/snap_fixture.h); deltas and foreign ops built here from the documented layouts.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/op.h"
#include "node/context/chain_internal.h"
#include "node/context/context_internal.h"
#include "node/service_internal.h"
#include "support/snap_fixture.h"

/* A version-3 delta (prev) of key = value in ctx by (pk, sk) at lamport under (gk, kid); its
 * bytes in *out (caller frees) and hash. */
static int mk_delta(const uint8_t ctx[32], const uint8_t pk[32], const uint8_t sk[64],
                    uint64_t lamport, const uint8_t gk[32], const uint8_t kid[32], const char *key,
                    const char *value, const uint8_t prev[32], struct mero_buf *d, uint8_t hash[32])
{
    uint8_t nonce[12], sig[64], ct[512];
    struct mero_buf pt, msg;
    mero_random(nonce, sizeof(nonce));
    mero_buf_init(&pt, 512);
    mero_buf_init(&msg, 2048);
    mero_buf_init(d, 1024);
    int rc = mero_buf_append_u32le(&pt, (uint32_t)strlen(key));
    rc = rc < 0 ? rc : mero_buf_append(&pt, key, strlen(key));
    rc = rc < 0 ? rc : mero_buf_append_u32le(&pt, (uint32_t)strlen(value));
    rc = rc < 0 ? rc : mero_buf_append(&pt, value, strlen(value));
    rc = rc < 0 ? rc : mero_buf_append_u8(d, MERO_DELTA_CHAINED_VERSION);
    rc = rc < 0 ? rc : mero_buf_append(d, ctx, 32);
    rc = rc < 0 ? rc : mero_buf_append(d, pk, 32);
    rc = rc < 0 ? rc : mero_buf_append_u64le(d, lamport);
    rc = rc < 0 ? rc : mero_buf_append(d, kid, 32);
    rc = rc < 0 ? rc : mero_buf_append(d, nonce, 12);
    rc = rc < 0 ? rc : mero_buf_append(d, prev, 32);
    size_t aad = d->len;
    rc = rc < 0 ? rc : mero_buf_append_u32le(d, (uint32_t)(pt.len + 16));
    rc = rc < 0 ? rc : mero_aes256gcm_seal(ct, pt.data, pt.len, d->data, aad, nonce, gk);
    rc = rc < 0 ? rc : mero_buf_append(d, ct, pt.len + 16);
    rc = rc < 0 ? rc : mero_buf_append_str(&msg, MERO_DELTA_CHAINED_DOMAIN);
    rc = rc < 0 ? rc : mero_buf_append(&msg, d->data, d->len);
    if (rc == 0) {
        mero_ed25519_sign(sig, msg.data, msg.len, sk);
        rc = mero_buf_append(d, sig, sizeof(sig));
    }
    if (rc == 0) {
        mero_sha256(hash, d->data, d->len);
    }
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&pt);
    return rc;
}

static int apply_buf(struct mero_node *n, struct mero_buf *d)
{
    struct mero_err e = {0};
    int rc = mero__node_ctx_apply(n, d->data, d->len, &e);
    if (rc < 0 && getenv("SCRATCH_LOG")) {
        fprintf(stderr, "# apply: %s\n", e.msg);
    }
    return rc;
}

/* A group op signed by (pk, sk) - not the store's identity - applied as a peer's. */
static int foreign(struct mero_store *s, struct mero_op *op, const uint8_t sk[64], uint64_t nonce)
{
    uint8_t(*heads)[MERO_OP_ID_LEN] = NULL;
    size_t n = 0;
    struct mero_buf b;
    struct mero_err e = {0};
    int status = -1;
    MERO_TRY(mero_gov_heads(s, op->ns, &heads, &n));
    int rc = mero_op_set_parents(op, (const uint8_t(*)[MERO_OP_ID_LEN])heads, (uint32_t)n);
    free(heads);
    MERO_TRY(rc);
    op->version = MERO_GOV_SCHEMA_VERSION;
    op->nonce = nonce;
    MERO_TRY(mero_op_sign(op, sk));
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    rc = mero_op_encode(op, &b);
    if (rc == 0) {
        rc = mero_gov_apply(s, b.data, b.len, &status, NULL, NULL, &e);
    }
    if (rc < 0 || status != MERO_APPLY_APPLIED) {
        fprintf(stderr, "# foreign op: rc %d status %d: %s\n", rc, status, e.msg);
    }
    mero_buf_cleanup(&b);
    return rc < 0 ? rc : status == MERO_APPLY_APPLIED ? 0 : -MERO_EREFUSED;
}

/* y (sk: ysk), an admin of g1 only, adds x to g1 and removes it with one cut naming (ctx, head),
 * as its own peer would publish them. */
static int add_then_cut(struct mero_store *s, const uint8_t ns[32], const uint8_t g1[32],
                        const uint8_t x[32], const uint8_t ysk[64], const uint8_t ctx[32],
                        const uint8_t head[32])
{
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, ns, 32);
    memcpy(op.group_id, g1, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_ADDED;
    memcpy(op.member, x, 32);
    op.role = MERO_ROLE_MEMBER;
    int rc = foreign(s, &op, ysk, 1);
    op.kind = MERO_GROUP_MEMBER_REMOVED;
    op.cuts = calloc(1, sizeof(*op.cuts));
    op.n_cuts = 1;
    if (rc == 0 && op.cuts == NULL) {
        rc = -MERO_ENOMEM;
    }
    if (rc == 0) {
        memcpy(op.cuts[0].context, ctx, 32);
        memcpy(op.cuts[0].head, head, 32);
        rc = foreign(s, &op, ysk, 2);
    }
    mero_op_cleanup(&op);
    return rc;
}

TEST(a_cut_from_a_group_beside_the_context_s_vouches_for_nothing)
{
    struct snapf f;
    struct mero_err err = {0};
    uint8_t x[32], xsk[64], y[32], ysk[64], g1[32], gk[32], kid[32], h[32];
    static const uint8_t zero[32];
    struct mero_buf d;
    CHECK_OK(snapf_open(&f));
    struct mero_store *s = f.n[0].store;
    mero_ed25519_keypair(x, xsk);
    mero_ed25519_keypair(y, ysk);
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, x, MERO_ROLE_READONLY, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_create_subgroup(s, f.ns, f.ns, MERO_GROUP_RESTRICTED, g1, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, g1, y, MERO_ROLE_ADMIN, NULL, &err));
    CHECK_OK(mero_gov_group_key(s, f.ns, gk, kid));
    CHECK_OK(mk_delta(f.ctx, x, xsk, 1, gk, kid, "owned", "by x", zero, &d, h));
    CHECK_OK(add_then_cut(s, f.ns, g1, x, ysk, f.ctx, h)); /* a ROOT context: not g1's */
    int role = -1;
    CHECK_OK(mero_gov_effective_role(s, f.ns, x, &role));
    CHECK_EQ(role, MERO_ROLE_READONLY);
    /* the right answer: x (ReadOnly in the root, never removed from it) may not write there */
    int rc = apply_buf(&f.n[2], &d);
    CHECK_MSG(rc < 0, "x's write in the root context was TAKEN (vouched by a g1 removal)");
    CHECK(snapf_value_is(&f.n[2], f.ctx, "owned", NULL));
    mero_buf_cleanup(&d);
    snapf_close(&f);
}

TEST(an_admin_of_another_group_vouches_for_nothing)
{
    struct snapf f;
    struct mero_err err = {0};
    uint8_t x[32], xsk[64], y[32], ysk[64], g1[32], sg[32], sctx[32], gk[32], kid[32], wh[32];
    uint8_t app[32] = {0};
    static const uint8_t zero[32];
    struct mero_buf w;
    CHECK_OK(snapf_open(&f));
    struct mero_store *s = f.n[0].store;
    mero_ed25519_keypair(x, xsk);
    mero_ed25519_keypair(y, ysk);
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, y, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_create_subgroup(s, f.ns, f.ns, MERO_GROUP_RESTRICTED, sg, NULL, &err));
    CHECK_OK(mero_gov_create_context(s, f.ns, sg, app, sctx, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, sg, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_group_key(s, sg, gk, kid)); /* x holds it */
    CHECK_OK(snapf_write(&f.n[0], sctx, 3, 1));   /* the admin's k0 */
    CHECK_OK(mero_gov_remove_member(s, f.ns, sg, x, NULL, &err));
    CHECK_OK(mero_gov_create_subgroup(s, f.ns, f.ns, MERO_GROUP_RESTRICTED, g1, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, g1, y, MERO_ROLE_ADMIN, NULL, &err));
    /* after its removal from sg, x signs w overwriting the admin's k0 */
    CHECK_OK(mk_delta(sctx, x, xsk, 4, gk, kid, "k0", "OVERWRITTEN BY REMOVED x", zero, &w, wh));
    CHECK_OK(add_then_cut(s, f.ns, g1, x, ysk, sctx, wh));
    (void)apply_buf(&f.n[0], &w); /* the admin's own node */
    CHECK_MSG(snapf_value_is(&f.n[0], sctx, "k0", "v2"),
              "n[0] serves x's post-removal write, vouched by an admin of an unrelated group");
    mero_buf_cleanup(&w);
    snapf_close(&f);
}

TEST(a_cut_never_names_a_write_its_remover_refused)
{
    struct snapf f;
    struct mero_err err = {0};
    struct mero_gov_hooks hk;
    uint8_t x[32], xsk[64], sg[32], sctx[32], gk[32], kid[32], d1h[32], wh[32];
    uint8_t app[32] = {0};
    static const uint8_t zero[32];
    struct mero_buf d1, w;
    CHECK_OK(snapf_open(&f));
    struct mero_store *s = f.n[0].store;
    mero_ed25519_keypair(x, xsk);
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_create_subgroup(s, f.ns, f.ns, MERO_GROUP_RESTRICTED, sg, NULL, &err));
    CHECK_OK(mero_gov_add_member(s, f.ns, sg, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_create_context(s, f.ns, sg, app, sctx, NULL, &err));
    CHECK_OK(mero_gov_group_key(s, sg, gk, kid));
    CHECK_OK(mk_delta(sctx, x, xsk, 1, gk, kid, "a", "before", zero, &d1, d1h));
    CHECK_OK(apply_buf(&f.n[0], &d1));
    /* removed from sg (no cut), then w: refused on n[0], kept (raises the clock) */
    CHECK_OK(mero_gov_remove_member(s, f.ns, sg, x, NULL, &err));
    CHECK_OK(mk_delta(sctx, x, xsk, 5, gk, kid, "a", "AFTER REMOVAL", d1h, &w, wh));
    CHECK(apply_buf(&f.n[0], &w) < 0);
    CHECK(snapf_value_is(&f.n[0], sctx, "a", "before"));
    /* removed from the root, built by n[0]'s service */
    mero__node_gov_hooks(&f.n[0], &hk);
    mero_store_set_hooks(s, &hk);
    CHECK_OK(mero_gov_remove_member(s, f.ns, f.ns, x, NULL, &err));
    memset(&hk, 0, sizeof(hk));
    mero_store_set_hooks(s, &hk);
    uint8_t heads[4][32];
    size_t n = 0;
    CHECK_OK(mero_gov_write_cuts(s, f.ns, x, sctx, heads, 4, &n));
    CHECK_U64_EQ(n, 1);
    CHECK(memcmp(heads[0], d1h, 32) == 0); /* d1, not w */
    /* n[0] judges its kept rows again: */
    mero__node_ctx_rejudge_tick(&f.n[0]);
    CHECK_MSG(snapf_value_is(&f.n[0], sctx, "a", "before"),
              "n[0] now serves x's write made after its removal from sg");
    /* a fresh node: */
    CHECK_OK(apply_buf(&f.n[2], &d1));
    (void)apply_buf(&f.n[2], &w);
    CHECK_MSG(snapf_value_is(&f.n[2], sctx, "a", "before"), "n[2] takes w");
    mero_buf_cleanup(&d1);
    mero_buf_cleanup(&w);
    snapf_close(&f);
}

TEST(a_cut_never_reaches_a_write_its_remover_never_held)
{
    struct snapf f;
    struct mero_err err = {0};
    struct mero_gov_hooks hk;
    uint8_t x[32], xsk[64], gk[32], kid[32], ph[32], hh[32];
    static const uint8_t zero[32];
    struct mero_buf p, h;
    CHECK_OK(snapf_open(&f));
    struct mero_store *s = f.n[0].store;
    mero_ed25519_keypair(x, xsk);
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 3, 1)); /* k0 at lamport 1..3 by the admin */
    CHECK_OK(mero_gov_group_key(s, f.ns, gk, kid));
    CHECK_OK(mk_delta(f.ctx, x, xsk, 4, gk, kid, "k0", "withheld by x", zero, &p, ph));
    CHECK_OK(mk_delta(f.ctx, x, xsk, 5, gk, kid, "other", "x", ph, &h, hh));
    CHECK_OK(apply_buf(&f.n[0], &h));
    mero__node_gov_hooks(&f.n[0], &hk);
    mero_store_set_hooks(s, &hk);
    CHECK_OK(mero_gov_remove_member(s, f.ns, f.ns, x, NULL, &err));
    memset(&hk, 0, sizeof(hk));
    mero_store_set_hooks(s, &hk);
    CHECK(snapf_value_is(&f.n[0], f.ctx, "k0", "v2"));
    int rc = apply_buf(&f.n[0], &p);
    CHECK_MSG(rc < 0 && snapf_value_is(&f.n[0], f.ctx, "k0", "v2"),
              "n[0] took p (never held before the removal): k0 overwritten after removal");
    mero_buf_cleanup(&p);
    mero_buf_cleanup(&h);
    snapf_close(&f);
}

TEST(a_chain_below_the_clock_is_taken_in_one_pull)
{
    struct snapf f;
    struct mero_err err = {0};
    struct mero_gov_hooks hk;
    uint8_t x[32], xsk[64], gk[32], kid[32], prev[32] = {0};
    enum { N = 40 };
    struct mero_buf ds[N];
    CHECK_OK(snapf_open(&f));
    struct mero_store *s = f.n[0].store;
    mero_ed25519_keypair(x, xsk);
    CHECK_OK(mero_gov_add_member(s, f.ns, f.ns, x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero_gov_group_key(s, f.ns, gk, kid));
    for (unsigned i = 0; i < N; i++) {
        uint8_t hh[32];
        char k[16];
        snprintf(k, sizeof(k), "k%u", i);
        CHECK_OK(mk_delta(f.ctx, x, xsk, i + 1, gk, kid, k, "v", prev, &ds[i], hh));
        CHECK_OK(apply_buf(&f.n[0], &ds[i]));
        memcpy(prev, hh, 32);
    }
    mero__node_gov_hooks(&f.n[0], &hk);
    mero_store_set_hooks(s, &hk);
    CHECK_OK(mero_gov_remove_member(s, f.ns, f.ns, x, NULL, &err));
    memset(&hk, 0, sizeof(hk));
    mero_store_set_hooks(s, &hk);
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 1, 1)); /* the admin's write at lamport N + 1 */
    /* n[2] gets the admin's newest write first (gossip), then pulls x's history oldest first */
    uint8_t *b = NULL;
    size_t bl = 0;
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(f.n[0].db, "SELECT bytes FROM ctx_delta ORDER BY seq DESC LIMIT 1", -1,
                             &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    bl = (size_t)sqlite3_column_bytes(st, 0);
    b = malloc(bl);
    memcpy(b, sqlite3_column_blob(st, 0), bl);
    sqlite3_finalize(st);
    CHECK_OK(mero__node_ctx_apply(&f.n[2], b, bl, &err));
    free(b);
    unsigned taken = 0, rounds = 0;
    while (taken < N && rounds < 10 * N) {
        rounds++;
        for (unsigned i = 0; i < N; i++) {
            if (apply_buf(&f.n[2], &ds[i]) == 0) {
                taken = 0;
            }
        }
        mero__node_ctx_rejudge_tick(&f.n[2]);
        taken = 1; /* k0: the admin's later write wins there */
        for (unsigned i = 1; i < N; i++) {
            char k[16];
            snprintf(k, sizeof(k), "k%u", i);
            taken += snapf_value_is(&f.n[2], f.ctx, k, "v");
        }
    }
    CHECK_U64_EQ(taken, N);
    CHECK_MSG(rounds <= 2, "one oldest-first pull per delta (%u rounds)", rounds);
    for (unsigned i = 0; i < N; i++) {
        mero_buf_cleanup(&ds[i]);
    }
    snapf_close(&f);
}

static int many_cuts(void *ud, const uint8_t ns[32], const uint8_t group[32],
                     const uint8_t member[32], struct mero_write_cut *out, uint32_t max,
                     uint32_t *n)
{
    (void)ud, (void)ns, (void)group, (void)member;
    for (uint32_t i = 0; i < max; i++) {
        mero_random(out[i].context, 32);
        mero_random(out[i].head, 32);
    }
    *n = max;
    return 0;
}

/* Cuts are optional: a removal in a group of 840 members, whose key rotation and 256 cuts would
 * not fit in one op, goes without the cuts rather than failing. */
TEST(a_removal_too_big_for_its_cuts_goes_without_them)
{
    struct mero_store *s = NULL;
    struct mero_err err = {0};
    struct mero_gov_hooks h;
    uint8_t ns[32], x[32], xsk[64], m[32], msk[64];
    int role = -1;
    CHECK_OK(mero_crypto_init());
    CHECK_OK(mero_store_open(":memory:", &s, &err));
    CHECK_OK(mero_gov_create_namespace(s, ns, NULL, &err));
    mero_ed25519_keypair(x, xsk);
    CHECK_OK(mero_store_begin(s));
    CHECK_OK(mero_gov_add_member(s, ns, ns, x, MERO_ROLE_MEMBER, NULL, &err));
    for (int i = 0; i < 840; i++) {
        mero_ed25519_keypair(m, msk);
        CHECK_OK(mero_gov_add_member(s, ns, ns, m, MERO_ROLE_MEMBER, NULL, &err));
    }
    CHECK_OK(mero_store_commit(s));
    memset(&h, 0, sizeof(h));
    h.write_cuts = many_cuts;
    mero_store_set_hooks(s, &h);
    CHECK_OK(mero_gov_remove_member(s, ns, ns, x, NULL, &err));
    CHECK_OK(mero_gov_effective_role(s, ns, x, &role));
    CHECK_EQ(role, MERO_ROLE_NONE);
    memset(&h, 0, sizeof(h));
    mero_store_set_hooks(s, &h);
    mero_wipe(xsk, sizeof(xsk));
    mero_store_close(s);
}

MERO_TEST_MAIN(T(a_cut_from_a_group_beside_the_context_s_vouches_for_nothing),
               T(an_admin_of_another_group_vouches_for_nothing),
               T(a_cut_never_names_a_write_its_remover_refused),
               T(a_cut_never_reaches_a_write_its_remover_never_held),
               T(a_chain_below_the_clock_is_taken_in_one_pull),
               T(a_removal_too_big_for_its_cuts_goes_without_them))
