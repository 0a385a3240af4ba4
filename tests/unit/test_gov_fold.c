/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_fold.c - issue 30: the governance state is a function of the set of ops a node
 * holds, not of the order they arrived in. Fixed sets of conflicting concurrent ops (two
 * admins removing each other, a demotion racing the demoted admin's additions, a policy switch,
 * role changes) are fed to fresh peers in every permutation, and larger sets in random orders
 * (1,000 by default; seed printed; MERO_FOLD_SEED / MERO_FOLD_ORDERS override): every peer ends
 * with the same derived tables (mero_gov_dump: members, roles, policy, groups, heads, each op's
 * outcome), a rebuild gives the same again, and no namespace is ever left without an admin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h" /* the late-op path counters */
#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

#define MAX_OPS 96

struct opset {
    struct mero_buf v[MAX_OPS];
    size_t n;
};

static int opset_add_list(struct opset *o, const struct mero_gov_oplist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        if (o->n == MAX_OPS) {
            return -MERO_ENOMEM;
        }
        mero_buf_init(&o->v[o->n], MERO_GOV_MAX_OP_BYTES);
        MERO_TRY(mero_buf_append(&o->v[o->n], l->v[i].data, l->v[i].len));
        o->n++;
    }
    return 0;
}

static void opset_free(struct opset *o)
{
    for (size_t i = 0; i < o->n; i++) {
        mero_buf_cleanup(&o->v[i]);
    }
    o->n = 0;
}

/* The whole op log of `from` (in its order) into o. */
static int opset_log(struct opset *o, struct govt_node *from, const uint8_t ns[32])
{
    uint8_t(*h)[32] = NULL;
    size_t n = 0;
    uint64_t last = 0;
    int rc = mero_gov_op_hashes(from->s, ns, 0, SIZE_MAX, &h, &n, &last);
    for (size_t i = 0; i < n && rc == 0; i++) {
        MERO_ENSURE(o->n < MAX_OPS, NULL, MERO_ENOMEM, "too many ops");
        mero_buf_init(&o->v[o->n], MERO_GOV_MAX_OP_BYTES);
        rc = mero_gov_op_get(from->s, h[i], &o->v[o->n]);
        o->n++;
    }
    free(h);
    return rc;
}

/* The late ops of every feed so far: judged without a re-fold, and re-folded in full. */
static uint64_t fed_fast, fed_refolds;

/*
 * A fresh peer receives the ops in the order idx gives; an op whose parent has not arrived yet
 * waits and is tried again after each later arrival, as sync pulls a missing parent. Every op
 * ends stored (all signers here have held a row). The peer's dump goes to out.
 */
static int feed(const struct opset *o, const size_t *idx, size_t n, struct mero_buf *out,
                struct mero_buf *rebuilt, struct mero_err *err)
{
    struct govt_node p;
    MERO_TRY(govt_open(&p));
    bool done[MAX_OPS] = {0};
    size_t left = n, k = 0;
    int rc = 0;
    for (size_t round = 0; left > 0 && round < n * n + 1; round++) {
        bool progress = false;
        for (size_t i = 0; i < (k < n ? k + 1 : n) && left > 0; i++) {
            if (done[i]) {
                continue;
            }
            const struct mero_buf *b = &o->v[idx[i]];
            int status = -1;
            struct mero_err e = {0};
            int r = mero_gov_apply(p.s, b->data, b->len, &status, NULL, NULL, &e);
            if (r == -MERO_EMISSINGPARENT) {
                continue;
            }
            if (r < 0 && status != MERO_APPLY_REJECTED) {
                rc = mero_err_set(err, -r, "op %zu not stored: %s", idx[i], e.msg);
                goto out;
            }
            done[i] = true;
            left--;
            progress = true;
        }
        if (k < n) {
            k++;
        } else if (!progress) {
            break;
        }
    }
    MERO_ENSURE_OUT(left == 0, err, MERO_ESTATE, "%zu ops never found their parents", left);
    MERO_TRY_OUT(mero_gov_dump(p.s, out));
    if (rebuilt != NULL) {
        MERO_TRY_OUT(mero_gov_rebuild(p.s, err));
        MERO_TRY_OUT(mero_gov_dump(p.s, rebuilt));
    }
out:
    fed_fast += p.s->late_fast;
    fed_refolds += p.s->late_refolds;
    govt_close(&p);
    return rc;
}

static bool next_perm(size_t *a, size_t n)
{
    if (n < 2) {
        return false;
    }
    size_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i]) {
        i--;
    }
    if (i == 0) {
        return false;
    }
    size_t j = n - 1;
    while (a[j] <= a[i - 1]) {
        j--;
    }
    size_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (size_t l = i, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Two admins of one namespace: A (the owner) and B; C a plain member. Both synced. */
struct pair {
    struct govt_node a, b;
    uint8_t c[32];
};

static int pair_open(struct pair *w, struct opset *base)
{
    struct mero_gov_oplist l = {0};
    struct mero_err e = {0};
    uint8_t sk[64];
    MERO_TRY(govt_open(&w->a));
    MERO_TRY(govt_create_ns(&w->a));
    MERO_TRY(govt_open(&w->b));
    memcpy(w->b.ns, w->a.ns, 32);
    MERO_TRY(mero_gov_identity(w->b.s, w->a.ns, true, w->b.pk, &e));
    mero_ed25519_keypair(w->c, sk);
    int rc = 0;
    MERO_TRY_OUT(mero_gov_change_admin(w->a.s, w->a.ns, w->b.pk, &l, &e));
    MERO_TRY_OUT(mero_gov_add_member(w->a.s, w->a.ns, w->a.ns, w->c, MERO_ROLE_MEMBER, &l, &e));
    MERO_TRY_OUT(govt_sync(&w->a, &w->b, w->a.ns, &e) >= 0 ? 0 : -MERO_ESTATE);
    MERO_TRY_OUT(opset_log(base, &w->a, w->a.ns));
out:
    mero_gov_oplist_cleanup(&l);
    return rc;
}

static void pair_close(struct pair *w)
{
    govt_close(&w->a);
    govt_close(&w->b);
}

/* Feed base + every permutation of the concurrent ops; all dumps must equal the first. */
static int all_orders_agree(const struct opset *o, size_t nbase, size_t *orders,
                            struct mero_buf *first, struct mero_err *err)
{
    size_t n = o->n, idx[MAX_OPS], perm[MAX_OPS];
    size_t nc = n - nbase;
    for (size_t i = 0; i < nc; i++) {
        perm[i] = nbase + i;
    }
    *orders = 0;
    bool have_first = false;
    do {
        for (size_t i = 0; i < nbase; i++) {
            idx[i] = i;
        }
        memcpy(idx + nbase, perm, nc * sizeof(perm[0]));
        struct mero_buf d, r;
        mero_buf_init(&d, 1u << 24);
        mero_buf_init(&r, 1u << 24);
        bool check_rebuild = *orders % 60 == 0;
        int rc = feed(o, idx, n, &d, check_rebuild ? &r : NULL, err);
        if (rc == 0 && check_rebuild && !govt_same_buf(&d, &r)) {
            rc = mero_err_set(err, MERO_ESTATE, "order %zu: rebuild differs from the apply",
                              *orders);
        }
        if (rc == 0 && !have_first) {
            MERO_TRY(mero_buf_append(first, d.data, d.len));
            have_first = true;
        } else if (rc == 0 && !govt_same_buf(&d, first)) {
            rc = mero_err_set(err, MERO_ESTATE, "order %zu ends in another state", *orders);
        }
        mero_buf_cleanup(&d);
        mero_buf_cleanup(&r);
        MERO_TRY(rc);
        (*orders)++;
    } while (next_perm(perm, nc));
    return 0;
}

TEST(mutual_removal_ends_the_same_in_every_order)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    size_t nbase = o.n;
    /* concurrently: A removes B, B removes A - both answered locally */
    struct mero_gov_oplist la = {0}, lb = {0};
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, w.b.pk, &la, &e));
    CHECK_OK(mero_gov_remove_member(w.b.s, w.a.ns, w.a.ns, w.a.pk, &lb, &e));
    CHECK_OK(opset_add_list(&o, &la));
    CHECK_OK(opset_add_list(&o, &lb));
    /* each side, once it has the other's op, holds the same state */
    CHECK(govt_sync(&w.b, &w.a, w.a.ns, &e) >= 0 || e.code != 0);
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0 || e.code != 0);
    struct mero_buf da, db;
    mero_buf_init(&da, 1u << 24);
    mero_buf_init(&db, 1u << 24);
    CHECK_OK(mero_gov_dump(w.a.s, &da));
    CHECK_OK(mero_gov_dump(w.b.s, &db));
    CHECK(govt_same_buf(&da, &db));
    /* exactly one of them is still an admin, and it is the same one on both */
    int ra = govt_root_role(&w.a, w.a.ns, w.a.pk), rb = govt_root_role(&w.a, w.a.ns, w.b.pk);
    CHECK((ra == MERO_ROLE_ADMIN) != (rb == MERO_ROLE_ADMIN));
    CHECK(ra == MERO_ROLE_NONE || rb == MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&w.b, w.a.ns, w.a.pk), ra);
    CHECK_EQ(govt_root_role(&w.b, w.a.ns, w.b.pk), rb);
    /* and any peer, in either arrival order */
    size_t orders = 0;
    struct mero_buf first;
    mero_buf_init(&first, 1u << 24);
    CHECK_MSG(all_orders_agree(&o, nbase, &orders, &first, &e) == 0, "%s", e.msg);
    CHECK_EQ(orders, 2);
    CHECK(govt_same_buf(&first, &da));
    mero_buf_cleanup(&first);
    mero_buf_cleanup(&da);
    mero_buf_cleanup(&db);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    pair_close(&w);
}

TEST(conflicting_admin_ops_agree_in_all_720_orders)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    size_t nbase = o.n;
    uint8_t d[32], f[32], sk[64];
    mero_ed25519_keypair(d, sk);
    mero_ed25519_keypair(f, sk);
    struct mero_gov_oplist la = {0}, lb = {0};
    struct mero_tee_policy p;
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
    /* A: demotes C, sets a policy, removes B; B: adds D, adds F, removes A */
    CHECK_OK(mero_gov_set_member_role(w.a.s, w.a.ns, w.a.ns, w.c, MERO_ROLE_READONLY, &la, &e));
    CHECK_OK(mero_gov_set_policy(w.a.s, w.a.ns, &p, &la, NULL, NULL, &e));
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, w.b.pk, &la, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, d, MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, f, MERO_ROLE_READONLY, &lb, &e));
    CHECK_OK(mero_gov_remove_member(w.b.s, w.a.ns, w.a.ns, w.a.pk, &lb, &e));
    CHECK_OK(opset_add_list(&o, &la));
    CHECK_OK(opset_add_list(&o, &lb));
    CHECK_EQ(o.n - nbase, 6);
    size_t orders = 0;
    struct mero_buf first;
    mero_buf_init(&first, 1u << 24);
    CHECK_MSG(all_orders_agree(&o, nbase, &orders, &first, &e) == 0, "%s", e.msg);
    CHECK_EQ(orders, 720);
    /* the nodes that made the ops agree with the peers once they hold each other's */
    (void)govt_sync(&w.b, &w.a, w.a.ns, &e);
    (void)govt_sync(&w.a, &w.b, w.a.ns, &e);
    struct mero_buf da;
    mero_buf_init(&da, 1u << 24);
    CHECK_OK(mero_gov_dump(w.a.s, &da));
    CHECK(govt_same_buf(&first, &da));
    mero_buf_reset(&da);
    CHECK_OK(mero_gov_dump(w.b.s, &da));
    CHECK(govt_same_buf(&first, &da));
    int ra = govt_root_role(&w.a, w.a.ns, w.a.pk), rb = govt_root_role(&w.a, w.a.ns, w.b.pk);
    CHECK((ra == MERO_ROLE_ADMIN) != (rb == MERO_ROLE_ADMIN));
    /* the loser's later ops are kept without effect, each with its reason */
    int state = -1;
    char why[128] = "";
    uint8_t h[32];
    struct mero_op op;
    const struct mero_gov_oplist *loser = ra == MERO_ROLE_ADMIN ? &lb : &la;
    CHECK_OK(mero_op_decode(loser->v[loser->n - 1].data, loser->v[loser->n - 1].len, &op, &e));
    CHECK_OK(mero_op_hash(&op, h));
    mero_op_cleanup(&op);
    CHECK_OK(mero_gov_op_state(w.a.s, h, &state, why, sizeof(why)));
    CHECK_EQ(state, MERO_OP_REJECTED);
    CHECK(strstr(why, "admin") != NULL);
    mero_tee_policy_cleanup(&p);
    mero_buf_cleanup(&first);
    mero_buf_cleanup(&da);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    pair_close(&w);
}

/* xorshift64*: the random orders are reproducible from the printed seed */
/* idx = a random permutation of 0..n-1 (Fisher-Yates over rnd) */
static void shuffle(size_t *idx, size_t n, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
    }
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(govt_rnd(st) % (i + 1));
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

TEST(three_admins_agree_in_random_orders)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    /* a third admin G, synced to both */
    struct govt_node g;
    CHECK_OK(govt_open(&g));
    memcpy(g.ns, w.a.ns, 32);
    CHECK_OK(mero_gov_identity(g.s, w.a.ns, true, g.pk, &e));
    struct mero_gov_oplist l0 = {0};
    CHECK_OK(mero_gov_change_admin(w.a.s, w.a.ns, g.pk, &l0, &e));
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0);
    CHECK(govt_sync(&w.a, &g, w.a.ns, &e) >= 0);
    opset_free(&o);
    CHECK_OK(opset_log(&o, &w.a, w.a.ns));
    printf("# %zu ops before the concurrent ones\n", o.n);
    struct mero_gov_oplist la = {0}, lb = {0}, lg = {0};
    uint8_t m[6][32], sk[64];
    for (int i = 0; i < 6; i++) {
        mero_ed25519_keypair(m[i], sk);
    }
    /* A: adds m0, demotes C, removes G, adds m1; B: adds m2, removes A, makes m2 admin;
     * G: removes B, adds m3, demotes m0 (only if it still sees it: G does not) + role on C */
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[0], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_set_member_role(w.a.s, w.a.ns, w.a.ns, w.c, MERO_ROLE_READONLY, &la, &e));
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, g.pk, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[1], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[2], MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(mero_gov_remove_member(w.b.s, w.a.ns, w.a.ns, w.a.pk, &lb, &e));
    CHECK_OK(mero_gov_change_admin(w.b.s, w.a.ns, m[2], &lb, &e));
    CHECK_OK(mero_gov_remove_member(g.s, w.a.ns, w.a.ns, w.b.pk, &lg, &e));
    CHECK_OK(mero_gov_add_member(g.s, w.a.ns, w.a.ns, m[3], MERO_ROLE_MEMBER, &lg, &e));
    CHECK_OK(mero_gov_set_member_role(g.s, w.a.ns, w.a.ns, w.c, MERO_ROLE_ADMIN, &lg, &e));
    CHECK_OK(opset_add_list(&o, &la));
    CHECK_OK(opset_add_list(&o, &lb));
    CHECK_OK(opset_add_list(&o, &lg));
    uint64_t seed = govt_seed("MERO_FOLD_SEED");
    const char *no = getenv("MERO_FOLD_ORDERS");
    size_t orders = no != NULL ? strtoul(no, NULL, 10) : 1000;
    printf("# seed %llu (MERO_FOLD_SEED=%llu reproduces), %zu random orders of %zu ops\n",
           (unsigned long long)seed, (unsigned long long)seed, orders, o.n);
    uint64_t st = seed;
    struct mero_buf first;
    mero_buf_init(&first, 1u << 24);
    size_t idx[MAX_OPS];
    for (size_t k = 0; k < orders; k++) {
        /* the whole set shuffled, base ops included: parents arrive late too */
        shuffle(idx, o.n, &st);
        struct mero_buf d, r;
        mero_buf_init(&d, 1u << 24);
        mero_buf_init(&r, 1u << 24);
        bool check_rebuild = k % 100 == 0;
        int rc = feed(&o, idx, o.n, &d, check_rebuild ? &r : NULL, &e);
        bool ok = rc == 0 && (!check_rebuild || govt_same_buf(&d, &r));
        if (ok && k == 0) {
            ok = mero_buf_append(&first, d.data, d.len) == 0;
        } else if (ok) {
            ok = govt_same_buf(&d, &first);
        }
        mero_buf_cleanup(&d);
        mero_buf_cleanup(&r);
        CHECK_MSG(ok, "seed %llu order %zu differs: %s", (unsigned long long)seed, k, e.msg);
    }
    /* the authors agree once they hold every op, and the namespace still has an admin */
    (void)govt_sync(&w.b, &w.a, w.a.ns, &e);
    (void)govt_sync(&g, &w.a, w.a.ns, &e);
    size_t admins = 0;
    const uint8_t *ids[] = {w.a.pk, w.b.pk, g.pk, m[2], w.c};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        admins += govt_root_role(&w.a, w.a.ns, ids[i]) == MERO_ROLE_ADMIN;
    }
    CHECK(admins >= 1);
    struct mero_buf da;
    mero_buf_init(&da, 1u << 24);
    CHECK_OK(mero_gov_dump(w.a.s, &da));
    CHECK(govt_same_buf(&da, &first));
    mero_buf_cleanup(&da);
    mero_buf_cleanup(&first);
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    mero_gov_oplist_cleanup(&lg);
    opset_free(&o);
    govt_close(&g);
    pair_close(&w);
}

/*
 * Additions by two admins (members added twice with other roles, an admin added, contexts,
 * auto-follow, a key delivery, a removal): a late MemberAdded that commutes with every op after its
 * place, or whose member a later op adds again, is judged without a re-fold (fold_commute.c),
 * any other re-folds. Every order, rebuild included (the full fold), ends in the one state.
 */
TEST(additions_by_two_admins_agree_in_random_orders_and_with_rebuild)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    uint8_t m[6][32], sk[64], app[32] = {7}, ctx[32];
    for (int i = 0; i < 6; i++) {
        mero_ed25519_keypair(m[i], sk);
    }
    struct mero_gov_oplist la = {0}, lb = {0};
    /* A: m0 Member, m1 ReadOnly, a context, C auto-follows, m4 Member and its key, then (after
     * B's ops) removes m5;
     * B: m0 ReadOnly, m2 Member then ReadOnly (a role change no op of A names: it commutes
     * where it arrives late), m3 Admin, a context, m1 Member, B auto-follows, m5 Member */
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[0], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[1], MERO_ROLE_READONLY, &la, &e));
    CHECK_OK(mero_gov_create_context(w.a.s, w.a.ns, w.a.ns, app, ctx, &la, &e));
    CHECK_OK(mero_gov_set_auto_follow(w.a.s, w.a.ns, w.a.ns, w.c, true, false, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[4], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_deliver_key(w.a.s, w.a.ns, w.a.ns, m[4], &la, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[0], MERO_ROLE_READONLY, &lb, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[2], MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(mero_gov_set_member_role(w.b.s, w.a.ns, w.a.ns, m[2], MERO_ROLE_READONLY, &lb, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[3], MERO_ROLE_ADMIN, &lb, &e));
    CHECK_OK(mero_gov_create_context(w.b.s, w.a.ns, w.a.ns, app, ctx, &lb, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[1], MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(mero_gov_set_auto_follow(w.b.s, w.a.ns, w.a.ns, w.b.pk, false, true, &lb, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[5], MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(govt_sync(&w.b, &w.a, w.a.ns, &e) >= 0 ? 0 : -MERO_ESTATE);
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, m[5], &la, &e));
    CHECK_OK(opset_add_list(&o, &la));
    CHECK_OK(opset_add_list(&o, &lb));
    uint64_t seed = govt_seed("MERO_FOLD_SEED");
    printf("# seed %llu (MERO_FOLD_SEED=%llu reproduces), 200 random orders of %zu ops\n",
           (unsigned long long)seed, (unsigned long long)seed, o.n);
    uint64_t st = seed;
    struct mero_buf first;
    mero_buf_init(&first, 1u << 24);
    size_t idx[MAX_OPS];
    uint64_t fast0 = fed_fast, refolds0 = fed_refolds;
    for (size_t k = 0; k < 200; k++) {
        shuffle(idx, o.n, &st);
        struct mero_buf d, r;
        mero_buf_init(&d, 1u << 24);
        mero_buf_init(&r, 1u << 24);
        int rc = feed(&o, idx, o.n, &d, &r, &e);
        bool ok = rc == 0 && govt_same_buf(&d, &r);
        if (ok && k == 0) {
            ok = mero_buf_append(&first, d.data, d.len) == 0;
        } else if (ok) {
            ok = govt_same_buf(&d, &first);
        }
        mero_buf_cleanup(&d);
        mero_buf_cleanup(&r);
        CHECK_MSG(ok, "seed %llu order %zu differs: %s", (unsigned long long)seed, k, e.msg);
    }
    printf("# late ops: %llu judged without a re-fold, %llu re-folded\n",
           (unsigned long long)(fed_fast - fast0), (unsigned long long)(fed_refolds - refolds0));
    CHECK(fed_fast > fast0); /* the orders take the fast paths (about 500 times) */
    /* the authors agree once they hold every op */
    (void)govt_sync(&w.a, &w.b, w.a.ns, &e);
    struct mero_buf db;
    mero_buf_init(&db, 1u << 24);
    CHECK_OK(mero_gov_dump(w.b.s, &db));
    CHECK(govt_same_buf(&db, &first));
    CHECK_EQ(govt_root_role(&w.b, w.a.ns, m[5]), MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&w.b, w.a.ns, m[3]), MERO_ROLE_ADMIN);
    CHECK_EQ(govt_root_role(&w.b, w.a.ns, m[2]), MERO_ROLE_READONLY);
    mero_buf_cleanup(&db);
    mero_buf_cleanup(&first);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    pair_close(&w);
}

/*
 * A late MemberAdded whose member a later op adds again (fold_commute.c, a rewrite): judged
 * without a re-fold, the later row stays and no membership event is reported, as the full
 * fold gives; a later Admin role given, or a member that was an Admin before the late op's
 * place, re-folds in full. Each end compared with a rebuild.
 */
TEST(a_late_addition_rewritten_later_keeps_the_later_row)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    uint8_t m[4][32], sk[64], app[32] = {9}, ctx[32];
    for (int i = 0; i < 4; i++) {
        mero_ed25519_keypair(m[i], sk);
    }
    /* m3 an Admin before the concurrent ops (on both nodes) */
    struct mero_gov_oplist la = {0}, lb = {0}, l0 = {0};
    CHECK_OK(mero_gov_change_admin(w.a.s, w.a.ns, m[3], &l0, &e));
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0);
    /* A: a context, then m0 Member, m1 Admin, m3 Member; B concurrently: m0, m1, m3 ReadOnly.
     * Each B op sorts before A's op naming its member (a smaller depth) */
    CHECK_OK(mero_gov_create_context(w.a.s, w.a.ns, w.a.ns, app, ctx, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[0], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[1], MERO_ROLE_ADMIN, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[3], MERO_ROLE_MEMBER, &la, &e));
    const int who[3] = {0, 1, 3};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(
            mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[who[k]], MERO_ROLE_READONLY, &lb, &e));
    }
    /* m0: a rewrite, judged without a re-fold; m1: the later op gives Admin; m3: an Admin before
     * the late op's place - both re-fold in full */
    const int want[3] = {MERO_ROLE_MEMBER, MERO_ROLE_ADMIN, MERO_ROLE_MEMBER};
    const bool fast[3] = {true, false, false};
    for (int k = 0; k < 3; k++) {
        struct govt_node x;
        CHECK_OK(govt_open(&x));
        CHECK(govt_sync(&w.a, &x, w.a.ns, &e) >= 0);
        for (int j = 0; j < k; j++) {
            CHECK_OK(mero_gov_apply(x.s, lb.v[j].data, lb.v[j].len, NULL, NULL, NULL, &e));
        }
        uint64_t f0 = x.s->late_fast, r0 = x.s->late_refolds;
        govt_clear_events(&x);
        int status = -1;
        CHECK_OK(mero_gov_apply(x.s, lb.v[k].data, lb.v[k].len, &status, NULL, NULL, &e));
        CHECK_EQ(status, MERO_APPLY_APPLIED);
        CHECK_EQ(x.s->late_fast - f0, fast[k] ? 1u : 0u);
        CHECK_EQ(x.s->late_refolds - r0, fast[k] ? 0u : 1u);
        /* the later op's row stands; nothing changed, so no membership event */
        CHECK_EQ(govt_root_role(&x, w.a.ns, m[who[k]]), want[k]);
        CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ADDED, NULL), 0u);
        CHECK_EQ(govt_count(&x, MERO_EV_MEMBER_ROLE_SET, NULL), 0u);
        CHECK(govt_matches_rebuild(&x));
        govt_close(&x);
    }
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    pair_close(&w);
}

/* A adds m0 and m1 while B, concurrently, removes m1 (an authority change, which never
 * commutes) or adds m2 (which no op of A's names: it commutes); then `damage` edits A's store
 * and B's op arrives late at A. The damage stops the re-fold with an error: the late op is not
 * stored, and nothing is folded as if the log were whole. */
static void damaged_store_stops_the_re_fold(bool commuting, const char *damage)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    uint8_t m[3][32], sk[64];
    for (int i = 0; i < 3; i++) {
        mero_ed25519_keypair(m[i], sk);
    }
    struct mero_gov_oplist la = {0}, lb = {0}, l0 = {0};
    CHECK_OK(mero_gov_change_admin(w.a.s, w.a.ns, m[1], &l0, &e));
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0);
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[0], MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m[1], MERO_ROLE_MEMBER, &la, &e));
    if (commuting) {
        CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m[2], MERO_ROLE_MEMBER, &lb, &e));
    } else {
        CHECK_OK(mero_gov_remove_member(w.b.s, w.a.ns, w.a.ns, m[1], &lb, &e));
    }
    CHECK(sqlite3_exec(w.a.s->db, damage, NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ(sqlite3_changes(w.a.s->db), 1);
    uint64_t before = 0, after = 0, r0 = w.a.s->late_refolds, f0 = w.a.s->late_fast;
    CHECK_OK(mero_gov_op_count(w.a.s, w.a.ns, &before));
    int status = -1;
    int rc = mero_gov_apply(w.a.s, lb.v[0].data, lb.v[0].len, &status, NULL, NULL, &e);
    CHECK_EQ(rc, -MERO_ESTATE);
    CHECK(strstr(e.msg, "edited or damaged") != NULL);
    CHECK(status != MERO_APPLY_APPLIED);
    CHECK_OK(mero_gov_op_count(w.a.s, w.a.ns, &after));
    CHECK_EQ(after, before);
    CHECK_EQ(w.a.s->late_fast - f0, 0u);
    CHECK_EQ(w.a.s->late_refolds - r0, 1u); /* it was the re-fold that failed */
    /* the derived rows are as before the late op: B's member is not added, m1 not removed */
    CHECK_EQ(govt_root_role(&w.a, w.a.ns, commuting ? m[2] : m[1]),
             commuting ? MERO_ROLE_NONE : MERO_ROLE_MEMBER);
    /* and the check the message names finds the damage */
    size_t nops = 0;
    CHECK(mero_gov_verify(w.a.s, &nops, &e) < 0);
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    pair_close(&w);
}

/* A stored op whose fold row is gone (the store edited or damaged), under an authority change
 * that re-folds in full. */
TEST(a_re_fold_missing_an_op_s_place_fails_and_keeps_nothing)
{
    damaged_store_stops_the_re_fold(
        false, "DELETE FROM fold WHERE hash = (SELECT hash FROM ops ORDER BY seq DESC LIMIT 1)");
}

/* A place whose op is gone (the log's append-only guard edited away first), under a late op
 * that would commute (fold_commute.c): the scan of the ops after its place meets a place it
 * cannot judge, so it answers no, and the full re-fold stops on the damage instead of the fast
 * path folding around it. */
TEST(a_commuting_late_op_over_a_damaged_fold_table_fails_closed)
{
    damaged_store_stops_the_re_fold(true,
                                    "DROP TRIGGER ops_no_delete;"
                                    " DELETE FROM ops WHERE seq = (SELECT max(seq) FROM ops)");
}

TEST(a_stranger_s_refused_op_is_not_kept)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    struct govt_node x;
    CHECK_OK(govt_open(&x));
    memcpy(x.ns, w.a.ns, 32);
    CHECK(govt_sync(&w.a, &x, w.a.ns, &e) >= 0);
    /* concurrently: A removes B; B adds m */
    uint8_t m[32], sk[64], xsk[64], xpk[32];
    mero_ed25519_keypair(m, sk);
    mero_ed25519_keypair(xpk, xsk);
    struct mero_gov_oplist la = {0}, lb = {0};
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, w.b.pk, &la, &e));
    CHECK_OK(mero_gov_add_member(w.b.s, w.a.ns, w.a.ns, m, MERO_ROLE_MEMBER, &lb, &e));
    /* and A adds a member after its removal: B's op, one op deep, sorts before that one */
    uint8_t m2[32];
    mero_ed25519_keypair(m2, sk);
    CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, m2, MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(govt_apply_list(&x, &la, &e));
    /* B's op signed instead by an identity that never held a row: refused and not stored
     * (only members' refused ops are kept, so outsiders cannot grow the log), and refused
     * before it is folded: a member's op at its place is judged by a re-fold or its fast path */
    struct mero_op op;
    struct mero_buf fb;
    mero_buf_init(&fb, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_decode(lb.v[0].data, lb.v[0].len, &op, &e));
    CHECK_OK(mero_op_sign(&op, xsk));
    CHECK_OK(mero_op_encode(&op, &fb));
    mero_op_cleanup(&op);
    uint64_t before = 0, after = 0;
    CHECK_OK(mero_gov_op_count(x.s, w.a.ns, &before));
    int status = -1;
    uint64_t refolds = x.s->late_refolds, fast = x.s->late_fast;
    CHECK_ERR(mero_gov_apply(x.s, fb.data, fb.len, &status, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "has never held a row in the namespace") != NULL);
    CHECK_EQ(status, -1);
    CHECK_EQ(x.s->late_refolds, refolds);
    CHECK_EQ(x.s->late_fast, fast);
    CHECK_OK(mero_gov_op_count(x.s, w.a.ns, &after));
    CHECK_EQ(after, before);
    /* an op of x's own that sorts last (x never held a row either) is left to the rules,
     * which refuse it with their reason */
    uint8_t xid[32];
    CHECK_OK(mero_gov_identity(x.s, w.a.ns, true, xid, &e));
    CHECK_ERR(mero_gov_add_member(x.s, w.a.ns, w.a.ns, m, MERO_ROLE_MEMBER, NULL, &e),
              -MERO_ENOTADMIN);
    CHECK(strstr(e.msg, "not an admin") != NULL);
    CHECK_OK(mero_gov_op_count(x.s, w.a.ns, &after));
    CHECK_EQ(after, before);
    /* B's own op: its removal sorts first (authority changes lead at one depth), so the add
     * is refused at its place, before A's addition, kept without effect, and a second copy is
     * a duplicate */
    CHECK_ERR(mero_gov_apply(x.s, lb.v[0].data, lb.v[0].len, &status, NULL, NULL, &e),
              -MERO_ENOTADMIN);
    CHECK_EQ(status, MERO_APPLY_REJECTED);
    /* a member's late op: judged at its place, by the re-fold or its fast path */
    CHECK_EQ(x.s->late_refolds + x.s->late_fast, refolds + fast + 1);
    CHECK_OK(mero_gov_apply(x.s, lb.v[0].data, lb.v[0].len, &status, NULL, NULL, &e));
    CHECK_EQ(status, MERO_APPLY_DUPLICATE);
    CHECK_OK(mero_gov_op_count(x.s, w.a.ns, &after));
    CHECK_EQ(after, before + 1);
    CHECK_EQ(govt_root_role(&x, w.a.ns, m), MERO_ROLE_NONE);
    CHECK_EQ(govt_root_role(&x, w.a.ns, w.b.pk), MERO_ROLE_NONE);
    mero_buf_cleanup(&fb);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    govt_close(&x);
    opset_free(&o);
    pair_close(&w);
}

/* A stranger's op that names its own signer (a MemberAdded of itself): refused and not kept
 * whether it sorts last or arrives late. Its append records its nominee, so the keep decision
 * asks who the signer was before the op: found by review, the first form kept it when it
 * sorted last, made its signer a principal, and so stored it on one node and not another. */
TEST(a_stranger_s_op_naming_itself_is_kept_nowhere)
{
    struct govt_node a, y, z;
    struct mero_err e = {0};
    CHECK_OK(govt_open(&a));
    CHECK_OK(govt_create_ns(&a));
    CHECK_OK(govt_open(&y));
    CHECK_OK(govt_open(&z));
    memcpy(y.ns, a.ns, 32);
    memcpy(z.ns, a.ns, 32);
    CHECK(govt_sync(&a, &y, a.ns, &e) >= 0);
    CHECK(govt_sync(&a, &z, a.ns, &e) >= 0);
    uint8_t xsk[64], xpk[32], m1[32], m2[32], sk[64];
    mero_ed25519_keypair(xpk, xsk);
    mero_ed25519_keypair(m1, sk);
    mero_ed25519_keypair(m2, sk);
    struct mero_gov_oplist la = {0};
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, m1, MERO_ROLE_MEMBER, &la, &e));
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, m2, MERO_ROLE_MEMBER, &la, &e));
    /* the owner's first addition, made to add x and signed by x */
    struct mero_op op;
    struct mero_buf fb;
    mero_buf_init(&fb, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_decode(la.v[0].data, la.v[0].len, &op, &e));
    memcpy(op.member, xpk, 32);
    CHECK_OK(mero_op_sign(&op, xsk));
    CHECK_OK(mero_op_encode(&op, &fb));
    mero_op_cleanup(&op);
    uint64_t ny = 0, nz = 0, base = 0;
    CHECK_OK(mero_gov_op_count(z.s, a.ns, &base));
    /* z: it sorts last there; the rules refuse it, and it is not kept */
    int st = -1;
    CHECK_ERR(mero_gov_apply(z.s, fb.data, fb.len, &st, NULL, NULL, &e), -MERO_ENOTADMIN);
    CHECK_EQ(st, -1);
    CHECK_OK(govt_apply_list(&z, &la, &e));
    /* y: the owner's two first; it is late there, refused before any fold */
    CHECK_OK(govt_apply_list(&y, &la, &e));
    st = -1;
    CHECK_ERR(mero_gov_apply(y.s, fb.data, fb.len, &st, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "has never held a row in the namespace") != NULL);
    CHECK_EQ(st, -1);
    CHECK_OK(mero_gov_op_count(y.s, a.ns, &ny));
    CHECK_OK(mero_gov_op_count(z.s, a.ns, &nz));
    CHECK_EQ(ny, base + 2);
    CHECK_EQ(nz, base + 2);
    /* and x did not become a principal on z: its op, late there now, is refused unseen */
    st = -1;
    CHECK_ERR(mero_gov_apply(z.s, fb.data, fb.len, &st, NULL, NULL, &e), -MERO_EREFUSED);
    CHECK_EQ(st, -1);
    mero_buf_cleanup(&fb);
    mero_gov_oplist_cleanup(&la);
    govt_close(&a);
    govt_close(&y);
    govt_close(&z);
}

/* An op of a member whose addition lost resolution (its adder was removed by a concurrent op
 * that sorts first): the adder's node stored it while it was effective; a node that met the
 * removal first must hold it too (kept without effect), or the adder's later ops, which name
 * it as a parent, are missing there forever and sync fetches it again at every round. */
enum lost_how { LOST_MEMBER, LOST_ADMIN, LOST_TEE };

static void lost_resolution_keeps_the_log(enum lost_how how)
{
    struct govt_node a, b;
    struct govt_tee t;
    struct govt_node *x = &t.node;
    struct mero_gov_oplist l = {0}, rb = {0}, la = {0}, lx = {0};
    struct mero_err e = {0};
    CHECK_OK(govt_owner_and_admin(&a, &b, &l, &e));
    if (how == LOST_TEE) {
        struct mero_tee_policy p;
        CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
        CHECK_OK(mero_gov_set_policy(a.s, a.ns, &p, NULL, NULL, NULL, &e));
        mero_tee_policy_cleanup(&p);
    }
    CHECK_MSG(govt_sync(&a, &b, a.ns, &e) >= 0, "%s", e.msg);
    /* B removes A; A, not knowing it yet, adds X, who makes an op of its own; then A adds Y */
    CHECK_OK(mero_gov_remove_member(b.s, a.ns, a.ns, a.pk, &rb, &e));
    CHECK_OK(govt_tee_open(&t, a.ns));
    uint8_t z[32], zsk[64];
    mero_ed25519_keypair(z, zsk);
    if (how != LOST_MEMBER) {
        /* one op of A's first, so X's op lies deeper than B's removal and sorts after it (two
         * authority changes at one depth are ordered by hash) */
        CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, z, MERO_ROLE_MEMBER, &la, &e));
    }
    if (how == LOST_ADMIN) { /* AdminChanged names X as much as MemberAdded does */
        CHECK_OK(mero_gov_change_admin(a.s, a.ns, x->pk, &la, &e));
    } else if (how == LOST_TEE) { /* and so does a TEE admission */
        struct mero_admit_request req;
        int outcome = 0;
        govt_tee_request(&t, a.ns, a.ns, a.ns, &req);
        CHECK_OK(mero_gov_admit_tee_node(a.s, a.ns, &req, &outcome, &la, &e));
    } else {
        CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, x->pk, MERO_ROLE_MEMBER, &la, &e));
    }
    CHECK_MSG(govt_sync(&a, x, a.ns, &e) >= 0, "%s", e.msg);
    uint8_t app[32] = {7}, ctx[32], y[32], ysk[64];
    if (how == LOST_TEE) { /* a TEE writes nothing, but sets its own auto-follow */
        CHECK_OK(mero_gov_set_auto_follow(x->s, a.ns, a.ns, x->pk, true, true, &lx, &e));
    } else {
        CHECK_OK(mero_gov_create_context(x->s, a.ns, a.ns, app, ctx, &lx, &e));
    }
    CHECK_OK(govt_apply_list(&a, &lx, &e));
    mero_ed25519_keypair(y, ysk);
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, y, MERO_ROLE_MEMBER, &la, &e));
    /* A meets B's removal: it sorts first, so X's addition, X's op and Y's lose their effect */
    CHECK_OK(govt_apply_list(&a, &rb, &e));
    CHECK_EQ(govt_root_role(&a, a.ns, x->pk), MERO_ROLE_NONE);
    /* B takes everything A holds: X's op and Y's addition are kept without effect (X is
     * named by A's op, which B keeps), so A's later ops find their parents there */
    CHECK_MSG(govt_sync(&a, &b, a.ns, &e) >= 0, "%s", e.msg);
    CHECK_MSG(govt_sync(&b, &a, a.ns, &e) >= 0, "%s", e.msg);
    uint64_t na = 0, nb = 0;
    CHECK_OK(mero_gov_op_count(a.s, a.ns, &na));
    CHECK_OK(mero_gov_op_count(b.s, a.ns, &nb));
    CHECK_EQ(nb, na);
    CHECK(govt_dumps_equal(&a, &b));
    CHECK(govt_matches_rebuild(&b));
    /* and a further round has nothing to fetch or refuse */
    CHECK_EQ(govt_sync(&a, &b, a.ns, &e), 0);
    mero_gov_oplist_cleanup(&l);
    mero_gov_oplist_cleanup(&rb);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lx);
    govt_close(&a);
    govt_close(&b);
    govt_close(x);
}

TEST(an_op_whose_signer_lost_its_row_in_resolution_is_kept_on_every_node)
{
    lost_resolution_keeps_the_log(LOST_MEMBER);
}

TEST(an_op_of_an_admin_whose_promotion_lost_resolution_is_kept_on_every_node)
{
    lost_resolution_keeps_the_log(LOST_ADMIN);
}

TEST(an_op_of_a_tee_whose_admission_lost_resolution_is_kept_on_every_node)
{
    lost_resolution_keeps_the_log(LOST_TEE);
}

/* The current key of a third member after two admins' concurrent removals, each rotating the
 * namespace key: the winning removal's key, whichever order the two arrive in - also for C1,
 * which held the winning key first (a key pull answered before the rotation op arrived), so
 * the losing key is the last one it stored. */
TEST(the_winning_rotation_s_key_is_current_in_either_order)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    struct govt_node c[2];
    struct mero_gov_oplist l = {0};
    /* C0 and C1, members with stores of their own; B gets the namespace key */
    for (int i = 0; i < 2; i++) {
        CHECK_OK(govt_open(&c[i]));
        CHECK_OK(mero_gov_identity(c[i].s, w.a.ns, true, c[i].pk, &e));
        CHECK_OK(mero_gov_add_member(w.a.s, w.a.ns, w.a.ns, c[i].pk, MERO_ROLE_MEMBER, &l, &e));
    }
    CHECK_OK(mero_gov_deliver_key(w.a.s, w.a.ns, w.a.ns, w.b.pk, &l, &e));
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0);
    for (int i = 0; i < 2; i++) {
        CHECK(govt_sync(&w.a, &c[i], w.a.ns, &e) >= 0);
    }
    uint8_t key[32], kid[32], ka[32], kb[32];
    CHECK_OK(mero_gov_group_key(w.b.s, w.a.ns, key, kid));
    /* concurrently: A removes B (rotating to K_A for A, C0, C1), B removes A (K_B for B, C0,
     * C1); C0 receives A's first */
    struct mero_gov_oplist la = {0}, lb = {0};
    CHECK_OK(mero_gov_remove_member(w.a.s, w.a.ns, w.a.ns, w.b.pk, &la, &e));
    CHECK_OK(mero_gov_remove_member(w.b.s, w.a.ns, w.a.ns, w.a.pk, &lb, &e));
    CHECK_OK(mero_gov_group_key(w.a.s, w.a.ns, ka, kid));
    CHECK_OK(mero_gov_group_key(w.b.s, w.a.ns, kb, kid));
    struct mero_op ra, rb;
    CHECK_OK(mero_op_decode(la.v[0].data, la.v[0].len, &ra, &e));
    CHECK_OK(mero_op_decode(lb.v[0].data, lb.v[0].len, &rb, &e));
    CHECK(ra.has_rotation && rb.has_rotation);
    (void)govt_apply_list(&c[0], &la, &e);
    (void)govt_apply_list(&c[0], &lb, &e);
    bool a_won = govt_root_role(&c[0], w.a.ns, w.a.pk) == MERO_ROLE_ADMIN;
    /* C1 pulls the winning key out of band, then gets the losing removal (effective when it
     * arrives, so its key is stored last), then the winning one, which re-folds */
    CHECK_OK(mero_gov_group_key_put(c[1].s, w.a.ns, a_won ? ka : kb));
    (void)govt_apply_list(&c[1], a_won ? &lb : &la, &e);
    CHECK_OK(mero_gov_group_key(c[1].s, w.a.ns, key, kid));
    CHECK_MSG(memcmp(kid, a_won ? rb.rotation.new_key_id : ra.rotation.new_key_id, 32) == 0,
              "the losing key was not the last stored: the case proves nothing");
    (void)govt_apply_list(&c[1], a_won ? &la : &lb, &e);
    CHECK_EQ(a_won, govt_root_role(&c[1], w.a.ns, w.a.pk) == MERO_ROLE_ADMIN);
    const uint8_t *want = a_won ? ra.rotation.new_key_id : rb.rotation.new_key_id;
    for (int i = 0; i < 2; i++) {
        CHECK_OK(mero_gov_group_key(c[i].s, w.a.ns, key, kid));
        CHECK_MSG(memcmp(kid, want, 32) == 0, "C%d's current key is the losing rotation's", i);
    }
    mero_wipe(ka, sizeof(ka));
    mero_wipe(kb, sizeof(kb));
    mero_wipe(key, sizeof(key));
    mero_op_cleanup(&ra);
    mero_op_cleanup(&rb);
    mero_gov_oplist_cleanup(&l);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    govt_close(&c[0]);
    govt_close(&c[1]);
    pair_close(&w);
}

/* Spent quotes judged at every peer (issue 30): two admins admit one TEE with one quote at
 * the same moment; whichever order two peers receive the admissions in, the one that sorts
 * first takes effect and the other is kept without effect, "quote already used", on both. */
TEST(one_quote_two_admitters_one_effect_in_either_order)
{
    struct pair w;
    struct opset o = {0};
    struct mero_err e = {0};
    CHECK_OK(pair_open(&w, &o));
    struct mero_tee_policy p;
    struct mero_gov_oplist l = {0};
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
    CHECK_OK(mero_gov_set_policy(w.a.s, w.a.ns, &p, &l, NULL, NULL, &e));
    mero_tee_policy_cleanup(&p);
    CHECK(govt_sync(&w.a, &w.b, w.a.ns, &e) >= 0);
    struct govt_tee tee;
    CHECK_OK(govt_tee_open(&tee, w.a.ns));
    struct mero_admit_request req;
    govt_tee_request(&tee, w.a.ns, w.a.ns, w.a.ns, &req);
    struct mero_gov_oplist la = {0}, lb = {0};
    int outcome = -1;
    CHECK_OK(mero_gov_admit_tee_node(w.a.s, w.a.ns, &req, &outcome, &la, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_OK(mero_gov_admit_tee_node(w.b.s, w.a.ns, &req, &outcome, &lb, &e));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    struct govt_node peer[2];
    for (int i = 0; i < 2; i++) {
        CHECK_OK(govt_open(&peer[i]));
        CHECK(govt_sync(&w.a, &peer[i], w.a.ns, &e) >= 0); /* A's log: A's admission too */
    }
    /* issue 33: the signatures checked when A and B admitted (the TEE's account credential,
     * the key envelopes) are answered from the memory of verified signatures when the peers
     * judge the same ops (and re-fold); fails with neither check going through it */
    uint64_t hits0, hits1, misses;
    mero_ed25519_memo_stats(&hits0, &misses);
    /* peer 0 got A's admission first (synced above) and now B's; peer 1 gets B's first */
    (void)govt_apply_list(&peer[0], &lb, &e);
    mero_gov_oplist_cleanup(&l);
    CHECK(govt_sync(&w.b, &peer[1], w.a.ns, &e) >= 0); /* B's log: B's admission */
    (void)govt_apply_list(&peer[1], &la, &e);
    /* the two join ops: each list's first op */
    struct mero_op ja, jb;
    uint8_t ha[32], hb[32];
    CHECK_OK(mero_op_decode(la.v[0].data, la.v[0].len, &ja, &e));
    CHECK_OK(mero_op_decode(lb.v[0].data, lb.v[0].len, &jb, &e));
    CHECK_OK(mero_op_hash(&ja, ha));
    CHECK_OK(mero_op_hash(&jb, hb));
    int sa[2], sb[2];
    char why[128];
    for (int i = 0; i < 2; i++) {
        CHECK_OK(mero_gov_op_state(peer[i].s, ha, &sa[i], NULL, 0));
        CHECK_OK(mero_gov_op_state(peer[i].s, hb, &sb[i], why, sizeof(why)));
        int role = govt_root_role(&peer[i], w.a.ns, tee.node.pk);
        CHECK_EQ(role, MERO_ROLE_READONLY_TEE);
    }
    mero_ed25519_memo_stats(&hits1, &misses);
    CHECK(hits1 > hits0);
    CHECK_EQ(sa[0], sa[1]);
    CHECK_EQ(sb[0], sb[1]);
    CHECK_MSG((sa[0] == MERO_OP_EFFECTIVE) != (sb[0] == MERO_OP_EFFECTIVE),
              "exactly one admission takes effect (A %d, B %d)", sa[0], sb[0]);
    if (sb[0] == MERO_OP_REJECTED) {
        CHECK_MSG(strstr(why, "already used") != NULL, "B's admission kept for: %s", why);
    }
    mero_op_cleanup(&ja);
    mero_op_cleanup(&jb);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    opset_free(&o);
    govt_close(&peer[0]);
    govt_close(&peer[1]);
    govt_close(&tee.node);
    pair_close(&w);
}

MERO_TEST_MAIN(T(mutual_removal_ends_the_same_in_every_order),
               T(conflicting_admin_ops_agree_in_all_720_orders),
               T(three_admins_agree_in_random_orders),
               T(additions_by_two_admins_agree_in_random_orders_and_with_rebuild),
               T(a_late_addition_rewritten_later_keeps_the_later_row),
               T(a_re_fold_missing_an_op_s_place_fails_and_keeps_nothing),
               T(a_commuting_late_op_over_a_damaged_fold_table_fails_closed),
               T(a_stranger_s_refused_op_is_not_kept),
               T(a_stranger_s_op_naming_itself_is_kept_nowhere),
               T(an_op_whose_signer_lost_its_row_in_resolution_is_kept_on_every_node),
               T(an_op_of_an_admin_whose_promotion_lost_resolution_is_kept_on_every_node),
               T(an_op_of_a_tee_whose_admission_lost_resolution_is_kept_on_every_node),
               T(the_winning_rotation_s_key_is_current_in_either_order),
               T(one_quote_two_admitters_one_effect_in_either_order))
