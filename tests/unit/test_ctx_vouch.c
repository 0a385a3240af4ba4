/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ctx_vouch.c - issue 30, what a removal vouches for (src/node/context/chain.c,
 * docs/governance.md "What a removal vouches for"): a removal built on a node that holds the
 * member's writes names its newest delta per context (the cut); a node that learns the context
 * after the removal takes every write of that chain - in whatever order they arrive, the head
 * last - and nothing the member signed after the cut or beside it (a fork), so it serves what the
 * remover serves. Own writes chain to the node's previous one. In-process nodes
 * (tests/support/snap_fixture.h, one governance store shared by all).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/chain_internal.h"
#include "node/context/context_internal.h"
#include "node/service_internal.h"
#include "support/snap_fixture.h"

/* Apply every delta `from` stores on `to`, in its order, refusals and all (a history pull). */
static void copy_all(struct mero_node *from, struct mero_node *to)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(from->db, "SELECT bytes FROM ctx_delta ORDER BY seq", -1, &st, NULL) !=
        SQLITE_OK) {
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct mero_err err = {0};
        int rc = mero__node_ctx_apply(to, sqlite3_column_blob(st, 0),
                                      (size_t)sqlite3_column_bytes(st, 0), &err);
        (void)rc; /* a refusal is part of what is copied */
    }
    sqlite3_finalize(st);
}

/* x (a member) writes x1..x3 on n[0], chained; n[0]'s service then removes x (its hook names
 * the cut); x then signs x4 after the cut and f beside it (chained to x1). */
struct scene {
    struct snapf f;
    uint8_t x[32], xsk[64], d[3][32], after[32], fork[32];
};

static int scene_open(struct scene *s)
{
    struct mero_err err = {0};
    struct mero_gov_hooks h;
    static const uint8_t zero[32];
    MERO_TRY(snapf_open(&s->f));
    mero_ed25519_keypair(s->x, s->xsk);
    MERO_TRY(
        mero_gov_add_member(s->f.n[0].store, s->f.ns, s->f.ns, s->x, MERO_ROLE_MEMBER, NULL, &err));
    for (int i = 0; i < 3; i++) {
        char k[16];
        snprintf(k, sizeof(k), "x%d", i + 1);
        MERO_TRY(snapf_write_chained(&s->f, &s->f.n[0], s->f.ctx, s->x, s->xsk, (uint64_t)i + 1, k,
                                     "from x", i == 0 ? zero : s->d[i - 1], s->d[i]));
    }
    mero__node_gov_hooks(&s->f.n[0], &h); /* the remover's service: it names the cut */
    mero_store_set_hooks(s->f.n[0].store, &h);
    MERO_TRY(mero_gov_remove_member(s->f.n[0].store, s->f.ns, s->f.ns, s->x, NULL, &err));
    memset(&h, 0, sizeof(h));
    mero_store_set_hooks(s->f.n[0].store, &h);
    /* signed after the removal: refused on n[0] (kept without effect: they raise its clock) */
    int a = snapf_write_chained(&s->f, &s->f.n[0], s->f.ctx, s->x, s->xsk, 4, "x4", "after",
                                s->d[2], s->after);
    int b = snapf_write_chained(&s->f, &s->f.n[0], s->f.ctx, s->x, s->xsk, 5, "f", "fork", s->d[0],
                                s->fork);
    return a == -MERO_EPERM && b == -MERO_EPERM ? 0 : -MERO_ESTATE;
}

static void scene_close(struct scene *s)
{
    mero_wipe(s->xsk, sizeof(s->xsk));
    snapf_close(&s->f);
}

static bool serves_x_as_the_remover(struct snapf *f, struct mero_node *n)
{
    return snapf_value_is(n, f->ctx, "x1", "from x") == 1 &&
           snapf_value_is(n, f->ctx, "x2", "from x") == 1 &&
           snapf_value_is(n, f->ctx, "x3", "from x") == 1 &&
           snapf_value_is(n, f->ctx, "x4", NULL) == 1 && snapf_value_is(n, f->ctx, "f", NULL) == 1;
}

TEST(a_removal_names_the_member_s_newest_write_per_context)
{
    struct scene s;
    uint8_t heads[4][32];
    size_t n = 0;
    CHECK_OK(scene_open(&s));
    CHECK_OK(mero_gov_write_cuts(s.f.n[0].store, s.f.ns, s.x, s.f.ctx, heads, 4, &n));
    CHECK_U64_EQ(n, 1);
    CHECK(memcmp(heads[0], s.d[2], 32) == 0);
    CHECK(serves_x_as_the_remover(&s.f, &s.f.n[0]));
    scene_close(&s);
}

/*
 * r learns the context after the removal and takes its history in the remover's order: x1 and x2
 * come before the cut's head, are refused then (kept: they raise the clock), and are taken at the
 * next judging once x3 - the head - was taken; x4 and the fork stay refused. Before chains, r
 * refused every write of x for good while n[0] kept x1..x3: the values differed.
 */
TEST(a_node_that_learns_the_context_later_takes_what_the_removal_vouches_for)
{
    struct scene s;
    struct mero_node *r = &s.f.n[2];
    CHECK_OK(scene_open(&s));
    copy_all(&s.f.n[0], r);
    CHECK(snapf_value_is(r, s.f.ctx, "x3", "from x"));
    CHECK(snapf_value_is(r, s.f.ctx, "x1", NULL)); /* before the head arrived: kept */
    CHECK(r->ctx_rejudge_due);
    mero__node_ctx_rejudge_tick(r);
    CHECK(serves_x_as_the_remover(&s.f, r));
    scene_close(&s);
}

/* The head first (a gossiped write, say), then the rest: each is vouched for as it comes. */
TEST(the_chain_is_vouched_for_in_any_order)
{
    struct scene s;
    struct mero_node *r = &s.f.n[2];
    struct mero_err err = {0};
    uint8_t *bytes = NULL;
    size_t len = 0;
    CHECK_OK(scene_open(&s));
    for (int i = 2; i >= 0; i--) {
        CHECK_OK(mero__node_ctx_delta(&s.f.n[0], s.d[i], &bytes, &len));
        CHECK_OK(mero__node_ctx_apply(r, bytes, len, &err));
        free(bytes);
        bytes = NULL;
    }
    copy_all(&s.f.n[0], r); /* x4 and the fork */
    CHECK(serves_x_as_the_remover(&s.f, r));
    scene_close(&s);
}

/* Once x is a member again, its writes are judged by its role, as before chains. */
TEST(a_member_added_back_writes_again)
{
    struct scene s;
    struct mero_node *r = &s.f.n[2];
    struct mero_err err = {0};
    CHECK_OK(scene_open(&s));
    copy_all(&s.f.n[0], r);
    CHECK_OK(
        mero_gov_add_member(s.f.n[0].store, s.f.ns, s.f.ns, s.x, MERO_ROLE_MEMBER, NULL, &err));
    CHECK(mero__node_ctx_rejudge(r));
    CHECK(snapf_value_is(r, s.f.ctx, "x4", "after"));
    CHECK(snapf_value_is(r, s.f.ctx, "x1", "from x"));
    scene_close(&s);
}

/* 1 when ctx_chain links hash to prev. */
static int prev_is(struct mero_node *n, const uint8_t hash[32], const uint8_t prev[32])
{
    sqlite3_stmt *st = NULL;
    int yes = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT prev FROM ctx_chain WHERE hash = ?1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == 32 &&
              memcmp(sqlite3_column_blob(st, 0), prev, 32) == 0;
    }
    sqlite3_finalize(st);
    return yes;
}

/* A node's own writes chain: each names the node's previous delta in the context. */
TEST(own_writes_are_chained)
{
    struct snapf f;
    uint8_t head[32], first[32];
    static const uint8_t zero[32];
    uint8_t me[32];
    struct mero_err err = {0};
    CHECK_OK(snapf_open(&f));
    CHECK_OK(mero_gov_identity(f.n[0].store, f.ns, false, me, &err));
    CHECK_OK(mero__ctx_chain_head(&f.n[0], f.ctx, me, head));
    CHECK(memcmp(head, zero, 32) == 0);
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 1, 1));
    CHECK_OK(mero__ctx_chain_head(&f.n[0], f.ctx, me, first));
    CHECK(memcmp(first, zero, 32) != 0);
    CHECK_OK(snapf_write(&f.n[0], f.ctx, 1, 1));
    CHECK_OK(mero__ctx_chain_head(&f.n[0], f.ctx, me, head));
    CHECK(memcmp(head, first, 32) != 0);
    CHECK(prev_is(&f.n[0], head, first));
    snapf_close(&f);
}

MERO_TEST_MAIN(T(a_removal_names_the_member_s_newest_write_per_context),
               T(a_node_that_learns_the_context_later_takes_what_the_removal_vouches_for),
               T(the_chain_is_vouched_for_in_any_order), T(a_member_added_back_writes_again),
               T(own_writes_are_chained))
