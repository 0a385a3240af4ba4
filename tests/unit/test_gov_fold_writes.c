/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_fold_writes.c - issue 30 speed: how a re-fold (src/gov/fold.c) writes the rows it
 * rebuilds. A store holding one namespace empties the derived tables whole; one holding others
 * deletes that namespace's rows only. The member rows of replayed additions go GOV_ROWS_BATCH to
 * a statement. The deny entries a fold wrote are remembered (up to GOV_FOLD_DENIED_MAX, then the
 * table is asked), so a replayed addition lifts a deny entry only where one may exist.
 *
 * The first three cases feed peer x the owner's log and then a second admin's op that sorts near
 * the log's start: a late authority change, re-folded in full. Peer y gets the same ops in
 * canonical order (no op is late there), so its tables come from the in-order path, which none
 * of the three shortcuts touches. The two must be byte for byte the same. The last two: a file
 * store reopened at an older schema, whose migration's rebuild must read the whole log past a
 * refused op, and a re-fold that fails on a store error, which must name it.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h" /* the re-fold's counters, GOV_FOLD_DENIED_MAX, GOV_ROWS_BATCH */
#include "harness.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "support/gov_fixture.h"

#define MEMBERS_MAX 48

struct world {
    struct govt_node a, b, c, x, y; /* owner, second admin, another namespace's owner, peers */
    struct mero_gov_oplist l0, la, lb, lc;
    uint8_t m[MEMBERS_MAX][32]; /* the owner's later members; m0 is added before b syncs */
    uint8_t mc[3][32];          /* the other namespace's members */
};

/* The other namespace: three members, one removed (a deny entry), a context, auto-follow. */
static int other_namespace(struct world *w, struct mero_err *e)
{
    uint8_t sk[64], app[32] = {9}, ctx[32];
    MERO_TRY(govt_open(&w->c));
    MERO_TRY(govt_create_ns(&w->c));
    for (int i = 0; i < 3; i++) {
        mero_ed25519_keypair(w->mc[i], sk);
        MERO_TRY(
            mero_gov_add_member(w->c.s, w->c.ns, w->c.ns, w->mc[i], MERO_ROLE_MEMBER, &w->lc, e));
    }
    MERO_TRY(mero_gov_remove_member(w->c.s, w->c.ns, w->c.ns, w->mc[0], &w->lc, e));
    MERO_TRY(mero_gov_create_context(w->c.s, w->c.ns, w->c.ns, app, ctx, &w->lc, e));
    MERO_TRY(mero_gov_set_auto_follow(w->c.s, w->c.ns, w->c.ns, w->mc[1], true, false, &w->lc, e));
    MERO_TRY(govt_sync(&w->c, &w->x, w->c.ns, e) < 0 ? -MERO_ESTATE : 0);
    return govt_sync(&w->c, &w->y, w->c.ns, e) < 0 ? -MERO_ESTATE : 0;
}

/*
 * The owner a adds m0 and makes b an Admin; b syncs. Then a adds n members, removes the first
 * `removed` of them and adds the first `readded` again; b's op, late on x, removes m0 where a
 * removed nobody, else makes m0 an Admin (a removal would void a's key rotations, which wrap
 * the key for m0). A new Admin makes the re-fold write each replayed row before the next op
 * (its decisions may read rows); after the removal they are held and written in key order
 * when the run of replayed additions ends (fold.c, struct pending_rows). with_other:
 * x and y hold another namespace first.
 */
static int build(struct world *w, size_t n, size_t removed, size_t readded, bool with_other,
                 struct mero_err *e)
{
    uint8_t sk[64];
    memset(w, 0, sizeof(*w));
    MERO_TRY(govt_owner_and_admin(&w->a, &w->b, &w->l0, e));
    MERO_TRY(govt_open(&w->x));
    MERO_TRY(govt_open(&w->y));
    if (with_other) {
        MERO_TRY(other_namespace(w, e));
    }
    mero_ed25519_keypair(w->m[0], sk);
    MERO_TRY(mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[0], MERO_ROLE_MEMBER, &w->l0, e));
    MERO_TRY(govt_sync(&w->a, &w->b, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    for (size_t i = 1; i <= n; i++) {
        mero_ed25519_keypair(w->m[i], sk);
        int role = i % 3 == 0 ? MERO_ROLE_READONLY : MERO_ROLE_MEMBER;
        MERO_TRY(mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[i], role, &w->la, e));
    }
    for (size_t i = 1; i <= removed; i++) {
        MERO_TRY(mero_gov_remove_member(w->a.s, w->a.ns, w->a.ns, w->m[i], &w->la, e));
    }
    for (size_t i = 1; i <= readded; i++) {
        MERO_TRY(
            mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->m[i], MERO_ROLE_MEMBER, &w->la, e));
    }
    if (removed == 0) {
        MERO_TRY(mero_gov_remove_member(w->b.s, w->a.ns, w->a.ns, w->m[0], &w->lb, e));
    } else {
        MERO_TRY(mero_gov_set_member_role(w->b.s, w->a.ns, w->a.ns, w->m[0], MERO_ROLE_ADMIN,
                                          &w->lb, e));
    }
    /* x: the owner's whole log, then b's op, late; y: b's first, then the owner's */
    MERO_TRY(govt_sync(&w->a, &w->x, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    MERO_TRY(govt_apply_list(&w->x, &w->lb, e));
    MERO_TRY(govt_sync(&w->b, &w->y, w->a.ns, e) < 0 ? -MERO_ESTATE : 0);
    return govt_apply_list(&w->y, &w->la, e);
}

static void world_free(struct world *w)
{
    mero_gov_oplist_cleanup(&w->l0);
    mero_gov_oplist_cleanup(&w->la);
    mero_gov_oplist_cleanup(&w->lb);
    mero_gov_oplist_cleanup(&w->lc);
    govt_close(&w->y);
    govt_close(&w->x);
    govt_close(&w->c);
    govt_close(&w->b);
    govt_close(&w->a);
}

/* x re-folded once and replayed at least `replayed` ops; y took no late-op path; both end with
 * the same tables, which a rebuild gives again; m0 is gone or an Admin, the re-added members
 * are back. */
static void check_world(struct world *w, size_t n, size_t removed, size_t readded,
                        uint64_t replayed)
{
    CHECK_EQ(w->x.s->late_refolds, 1u);
    CHECK_MSG(w->x.s->refold_replayed >= replayed, "replayed %llu ops",
              (unsigned long long)w->x.s->refold_replayed);
    CHECK_EQ(w->y.s->late_refolds + w->y.s->late_fast, 0u);
    CHECK(govt_dumps_equal(&w->x, &w->y));
    CHECK_EQ(govt_root_role(&w->x, w->a.ns, w->m[0]),
             removed == 0 ? MERO_ROLE_NONE : MERO_ROLE_ADMIN);
    for (size_t i = 1; i <= n; i++) {
        int want = i <= readded   ? MERO_ROLE_MEMBER
                   : i <= removed ? MERO_ROLE_NONE
                   : i % 3 == 0   ? MERO_ROLE_READONLY
                                  : MERO_ROLE_MEMBER;
        CHECK_EQ(govt_root_role(&w->x, w->a.ns, w->m[i]), want);
    }
    CHECK(govt_matches_rebuild(&w->x));
    CHECK(govt_dumps_equal(&w->x, &w->y));
}

/*
 * A store holding only the namespace: the re-fold empties the derived tables whole, and its
 * replayed additions are held and written when their run ends, GOV_ROWS_BATCH to a statement
 * (37: two full batches and a remainder written row by row).
 */
TEST(a_re_fold_of_the_only_namespace_ends_as_the_in_order_peer)
{
    struct world w;
    struct mero_err e = {0};
    const size_t n = 2 * GOV_ROWS_BATCH + 5;
    CHECK_OK(build(&w, n, 0, 0, false, &e));
    CHECK_EQ(w.x.s->fold_cleared_whole, 1u); /* x's re-fold emptied the tables whole */
    check_world(&w, n, 0, 0, n);
    world_free(&w);
}

/*
 * A store holding another namespace too: the re-fold deletes this namespace's rows only, and the
 * other's members, deny entry, context and auto-follow stay (the dump compares them with y's,
 * which folded nothing again).
 */
TEST(a_re_fold_beside_another_namespace_keeps_that_namespace_s_rows)
{
    struct world w;
    struct mero_err e = {0};
    const size_t n = GOV_ROWS_BATCH + 3;
    CHECK_OK(build(&w, n, 0, 0, true, &e));
    check_world(&w, n, 0, 0, n);
    CHECK_EQ(w.x.s->fold_cleared_whole, 0u); /* x's folds deleted one namespace's rows only */
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[0]), MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[1]), MERO_ROLE_MEMBER);
    CHECK_EQ(govt_root_role(&w.x, w.c.ns, w.mc[2]), MERO_ROLE_MEMBER);
    world_free(&w);
}

/*
 * Members removed (each writes a deny entry) and all but two added again (each lifts its
 * entry), fewer than the fold remembers and then more: a replayed addition must lift the entry
 * its removal wrote in this fold, both while the fold remembers every entry and for the entries
 * written after it stopped remembering.
 */
TEST(a_re_fold_lifts_the_deny_entries_it_wrote_within_and_past_its_memory)
{
    const size_t counts[2] = {GOV_FOLD_DENIED_MAX / 4, GOV_FOLD_DENIED_MAX + 6};
    for (size_t k = 0; k < 2; k++) {
        struct world w;
        struct mero_err e = {0};
        size_t removed = counts[k], readded = counts[k] - 2; /* past it: entries 33-36 */
        CHECK_MSG(build(&w, removed + 2, removed, readded, false, &e) == 0, "%s", e.msg);
        check_world(&w, removed + 2, removed, readded, readded);
        world_free(&w);
    }
}

/*
 * A migration re-folds every namespace in the transaction that changed the schema, and there a
 * savepoint rolled back (an op refused after its first writes) aborts every open read, the
 * fold's scan of the ops included: the fold reads the rest by lookups (fold.c, struct
 * op_reader) and the store opens with the same tables. Admin b removes m0 at once; the owner,
 * before it sees that, adds two members and then removes b, with a key rotation that wraps the
 * new key for m0. b's removal sorts first, so the owner's is refused at its rotation (kept
 * without effect), and the owner's twelve later additions come after it. b's removal is the
 * last op of x's log, more rows ahead than the scan steps, so it is a lookup, and the scan
 * reads the owner's ops: the ones after the refusal are the ones that need the fallback.
 */
TEST(a_migration_s_rebuild_reads_the_ops_after_a_refused_one)
{
    struct govt_node a, b, x = {0};
    struct mero_err e = {0};
    struct mero_gov_oplist l0 = {0}, la = {0}, lb = {0};
    uint8_t m0[32], mi[32], sk[64];
    char dir[256], path[300];
    snprintf(dir, sizeof(dir), "%s/mero-fold-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/x.db", dir);
    CHECK_OK(govt_owner_and_admin(&a, &b, &l0, &e));
    mero_ed25519_keypair(m0, sk);
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, m0, MERO_ROLE_MEMBER, &l0, &e));
    CHECK(govt_sync(&a, &b, a.ns, &e) >= 0);
    for (int i = 0; i < 2; i++) {
        mero_ed25519_keypair(mi, sk);
        CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, mi, MERO_ROLE_MEMBER, &la, &e));
    }
    CHECK_OK(mero_gov_remove_member(a.s, a.ns, a.ns, b.pk, &la, &e));
    for (int i = 0; i < 12; i++) {
        mero_ed25519_keypair(mi, sk);
        CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, mi, MERO_ROLE_MEMBER, &la, &e));
    }
    CHECK_OK(mero_gov_remove_member(b.s, a.ns, a.ns, m0, &lb, &e));
    CHECK_OK(mero_store_open(path, &x.s, &e));
    CHECK(govt_sync(&a, &x, a.ns, &e) >= 0);
    CHECK_OK(govt_apply_list(&x, &lb, &e));
    CHECK_EQ(govt_root_role(&x, a.ns, m0), MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&x, a.ns, b.pk), MERO_ROLE_ADMIN); /* the owner's removal refused */
    struct mero_buf before, after;
    mero_buf_init(&before, 1u << 24);
    mero_buf_init(&after, 1u << 24);
    CHECK_OK(mero_gov_dump(x.s, &before));
    mero_store_close(x.s);
    /* an older schema: the open migrates again, and the migration rebuilds */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA user_version = 4", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    x.s = NULL;
    CHECK_MSG(mero_store_open(path, &x.s, &e) == 0, "%s", e.msg);
    CHECK(x.s != NULL && mero_gov_dump(x.s, &after) == 0);
    CHECK(govt_same_buf(&before, &after));
    mero_buf_cleanup(&before);
    mero_buf_cleanup(&after);
    mero_store_close(x.s);
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    govt_close(&b);
    govt_close(&a);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/*
 * A re-fold that fails on a store error says which: the error is taken before the fold's
 * statements are reset (a reset replaces SQLite's message with "not an error"). A trigger on
 * `members` makes the row of m2 fail, which the re-fold writes with the other replayed
 * additions when their run ends (fold.c, pending_flush), outside any op's judgement.
 */
TEST(a_failed_re_fold_names_the_store_s_error)
{
    struct world w;
    struct mero_err e = {0};
    const size_t n = 3;
    CHECK_OK(build(&w, n, 0, 0, false, &e));
    /* a second late op on a fresh peer z, whose member rows cannot be written */
    struct govt_node z;
    CHECK_OK(govt_open(&z));
    CHECK(govt_sync(&w.a, &z, w.a.ns, &e) >= 0);
    char sql[256], hex[2 * MERO_IDENTITY_LEN + 1];
    mero_hex_encode(hex, w.m[2], MERO_IDENTITY_LEN);
    snprintf(sql, sizeof(sql),
             "CREATE TEMP TRIGGER no_row BEFORE INSERT ON members WHEN NEW.member = x'%s'"
             " BEGIN SELECT RAISE(ABORT, 'member row refused by the test'); END",
             hex);
    CHECK(sqlite3_exec(z.s->db, sql, NULL, NULL, NULL) == SQLITE_OK);
    memset(&e, 0, sizeof(e));
    CHECK(govt_apply_list(&z, &w.lb, &e) < 0);
    CHECK_MSG(strstr(e.msg, "member row refused by the test") != NULL, "%s", e.msg);
    CHECK_EQ(govt_root_role(&z, w.a.ns, w.m[0]), MERO_ROLE_MEMBER); /* nothing applied */
    govt_close(&z);
    world_free(&w);
}

MERO_TEST_MAIN(T(a_re_fold_of_the_only_namespace_ends_as_the_in_order_peer),
               T(a_re_fold_beside_another_namespace_keeps_that_namespace_s_rows),
               T(a_re_fold_lifts_the_deny_entries_it_wrote_within_and_past_its_memory),
               T(a_migration_s_rebuild_reads_the_ops_after_a_refused_one),
               T(a_failed_re_fold_names_the_store_s_error))
