/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_context.c - the context delta apply path (src/node/context/apply.c) on an in-memory gov
 * store and node database: a member's write is applied and readable; deltas built here from
 * the documented layout (docs/node.md) are refused when truncated, oversized, re-signed
 * wrongly, tampered, from a non-member, from a ReadOnly member, or for an unknown context;
 * a duplicate is a no-op; last-writer-wins by lamport, ties broken by hash in any order;
 * the context clock bound (issue 21 item 2): lamports 0, beyond 2^63-1 or beyond
 * clock + MERO_LAMPORT_STEP refused (and admitted once its predecessors arrive, as a sync pull
 * delivers them), the arithmetic at INT64_MAX-1 / INT64_MAX, a local write
 * that would not become the current value refused (nothing stored), peers' sync cursors
 * beyond INT64_MAX not wrapped and a pull that pages only while the cursor advances, the
 * clock derived again for a database that lacks it.
 */
#include <sqlite3.h>
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"
#include "node/sync_internal.h"

static struct mero_node node;
static uint8_t ns[32], ctx[32];

static int setup(void)
{
    if (node.store != NULL) {
        return 0;
    }
    struct mero_err err = {0};
    struct mero_gov_oplist ops = {0};
    uint8_t app[32] = {0};
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &node.store, &err) < 0 ||
        mero__node_db_open(&node.db, ":memory:", true, &err) < 0 ||
        mero__node_ctx_open(&node, &err) < 0 ||
        mero_gov_create_namespace(node.store, ns, &ops, &err) < 0 ||
        mero_gov_create_context(node.store, ns, ns, app, ctx, &ops, &err) < 0) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    mero_gov_oplist_cleanup(&ops);
    return 0;
}

/* Build a delta exactly as docs/node.md specifies, signed by sk (pk = author). */
static int build(struct mero_buf *d, const uint8_t c[32], const uint8_t author[32],
                 const uint8_t sk[64], uint64_t lamport, const char *key, const char *value)
{
    uint8_t gk[32], kid[32], nonce[12] = {1, 2, 3};
    MERO_TRY(mero_gov_group_key(node.store, ns, gk, kid));
    struct mero_buf pt;
    mero_buf_init(&pt, 4096);
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(key)));
    MERO_TRY(mero_buf_append_str(&pt, key));
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(value)));
    MERO_TRY(mero_buf_append_str(&pt, value));
    MERO_TRY(mero_buf_append_u8(d, 1));
    MERO_TRY(mero_buf_append(d, c, 32));
    MERO_TRY(mero_buf_append(d, author, 32));
    MERO_TRY(mero_buf_append_u64le(d, lamport));
    MERO_TRY(mero_buf_append(d, kid, 32));
    MERO_TRY(mero_buf_append(d, nonce, 12));
    MERO_TRY(mero_buf_append_u32le(d, (uint32_t)(pt.len + 16)));
    uint8_t ct[4200];
    MERO_TRY(mero_aes256gcm_seal(ct, pt.data, pt.len, d->data, 117, nonce, gk));
    MERO_TRY(mero_buf_append(d, ct, pt.len + 16));
    mero_buf_cleanup(&pt);
    struct mero_buf msg;
    mero_buf_init(&msg, 1 << 16);
    MERO_TRY(mero_buf_append_str(&msg, MERO_DELTA_DOMAIN));
    MERO_TRY(mero_buf_append(&msg, d->data, d->len));
    uint8_t sig[64];
    mero_ed25519_sign(sig, msg.data, msg.len, sk);
    mero_buf_cleanup(&msg);
    return mero_buf_append(d, sig, 64);
}

static int value_is(const char *key, const char *want)
{
    uint8_t *v = NULL;
    size_t n = 0;
    struct mero_err err = {0};
    if (mero_node_ctx_get(&node, ctx, key, &v, &n, &err) < 0) {
        return want == NULL;
    }
    int ok = want != NULL && n == strlen(want) && memcmp(v, want, n) == 0;
    free(v);
    return ok;
}

TEST(member_write_and_read)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    CHECK_OK(mero_node_ctx_put(&node, ctx, "k", (const uint8_t *)"v1", 2, false, 0, &err));
    CHECK(value_is("k", "v1"));
    CHECK_OK(mero_node_ctx_put(&node, ctx, "k", (const uint8_t *)"v2", 2, false, 0, &err));
    CHECK(value_is("k", "v2"));
    CHECK(value_is("absent", NULL));
    uint8_t other[32] = {9};
    CHECK_ERR(mero_node_ctx_put(&node, other, "k", (const uint8_t *)"x", 1, false, 0, &err),
              -MERO_ENOTFOUND);
}

TEST(refusals)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    uint8_t me[32], sk[64];
    CHECK_OK(mero_gov_identity(node.store, ns, false, me, &err));
    CHECK_OK(mero_gov_identity_secret(node.store, ns, sk));
    struct mero_buf d;
    mero_buf_init(&d, 1 << 16);
    CHECK_OK(build(&d, ctx, me, sk, 100, "own", "good"));
    CHECK_OK(mero__node_ctx_apply(&node, d.data, d.len, &err));
    CHECK(value_is("own", "good"));
    CHECK_OK(mero__node_ctx_apply(&node, d.data, d.len, &err)); /* duplicate: no-op */

    for (size_t cut = 0; cut < d.len; cut += 13) {
        CHECK_FAILS(mero__node_ctx_apply(&node, d.data, cut, &err));
    }
    uint8_t big[MERO_DELTA_MAX + 1] = {1};
    CHECK_FAILS(mero__node_ctx_apply(&node, big, sizeof(big), &err));

    /* a flipped ciphertext byte breaks the signature */
    struct mero_buf t;
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, me, sk, 101, "own", "tampered"));
    t.data[130] ^= 1;
    CHECK_ERR(mero__node_ctx_apply(&node, t.data, t.len, &err), -MERO_EBADSIG);
    CHECK(value_is("own", "good"));
    mero_buf_cleanup(&t);

    /* version byte other than 1 */
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, me, sk, 102, "own", "v"));
    t.data[0] = 2;
    CHECK_FAILS(mero__node_ctx_apply(&node, t.data, t.len, &err));
    mero_buf_cleanup(&t);

    /* a stranger's signed delta */
    uint8_t spk[32], ssk[64];
    mero_ed25519_keypair(spk, ssk);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, spk, ssk, 103, "own", "stranger"));
    CHECK_ERR(mero__node_ctx_apply(&node, t.data, t.len, &err), -MERO_EPERM);
    mero_buf_cleanup(&t);

    /* a ReadOnly member's signed delta */
    uint8_t rpk[32], rsk[64];
    mero_ed25519_keypair(rpk, rsk);
    struct mero_gov_oplist ops = {0};
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, rpk, MERO_ROLE_READONLY, &ops, &err));
    mero_gov_oplist_cleanup(&ops);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, rpk, rsk, 104, "own", "readonly"));
    CHECK_ERR(mero__node_ctx_apply(&node, t.data, t.len, &err), -MERO_EREADONLY);
    CHECK_STR_EQ(err.msg, "ReadOnlyWriteRefused");
    CHECK(value_is("own", "good"));
    mero_buf_cleanup(&t);

    /* a Member's delta is applied; an older lamport does not overwrite a newer one */
    uint8_t mpk[32], msk[64];
    mero_ed25519_keypair(mpk, msk);
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, mpk, MERO_ROLE_MEMBER, &ops, &err));
    mero_gov_oplist_cleanup(&ops);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, mpk, msk, 200, "lww", "new"));
    CHECK_OK(mero__node_ctx_apply(&node, t.data, t.len, &err));
    mero_buf_cleanup(&t);
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, ctx, mpk, msk, 150, "lww", "old"));
    CHECK_OK(mero__node_ctx_apply(&node, t.data, t.len, &err));
    CHECK(value_is("lww", "new"));
    mero_buf_cleanup(&t);

    /* unknown context */
    uint8_t nctx[32] = {7};
    mero_buf_init(&t, 1 << 16);
    CHECK_OK(build(&t, nctx, me, sk, 105, "own", "x"));
    CHECK_ERR(mero__node_ctx_apply(&node, t.data, t.len, &err), -MERO_ENOTFOUND);
    mero_buf_cleanup(&t);

    /* the read-only node's own write is refused before anything is built */
    mero_buf_cleanup(&d);
    mero_wipe(sk, sizeof(sk));
}

static struct mero_buf built;

/* Build and apply a delta by me in c; returns the apply result. */
static int put_at(const uint8_t c[32], uint64_t lamport, const char *key, const char *value)
{
    struct mero_err err = {0};
    uint8_t me[32], sk[64];
    MERO_TRY(mero_gov_identity(node.store, ns, false, me, &err));
    MERO_TRY(mero_gov_identity_secret(node.store, ns, sk));
    mero_buf_cleanup(&built);
    mero_buf_init(&built, 1 << 16);
    int rc = build(&built, c, me, sk, lamport, key, value);
    mero_wipe(sk, sizeof(sk));
    return rc < 0 ? rc : mero__node_ctx_apply(&node, built.data, built.len, &err);
}

static int64_t sql_int(const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(node.db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static int new_context(uint8_t c[32])
{
    struct mero_err err = {0};
    struct mero_gov_oplist ops = {0};
    uint8_t app[32] = {0};
    int rc = mero_gov_create_context(node.store, ns, ns, app, c, &ops, &err);
    mero_gov_oplist_cleanup(&ops);
    return rc;
}

static int set_clock(const uint8_t c[32], int64_t v)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node.db, "UPDATE ctx_clock SET lamport = ?2 WHERE context = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -1;
    }
    sqlite3_bind_blob(st, 1, c, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, v);
    int rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(node.db) == 1 ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

TEST(lamport_arithmetic_edges)
{
    const uint64_t max = (uint64_t)INT64_MAX, step = MERO_LAMPORT_STEP;
    uint64_t next = 0;
    CHECK(!mero__lamport_admissible(0, 0));
    CHECK(mero__lamport_admissible(0, 1));
    CHECK(mero__lamport_admissible(0, step));
    CHECK(!mero__lamport_admissible(0, step + 1));
    CHECK(mero__lamport_admissible(5, 5 + step));
    CHECK(!mero__lamport_admissible(5, 6 + step));
    CHECK(!mero__lamport_admissible(0, max - 1));
    CHECK(!mero__lamport_admissible(0, max));
    CHECK(mero__lamport_admissible(max - 1, max));
    CHECK(mero__lamport_admissible(max, max));
    CHECK(mero__lamport_admissible(max, 1));
    CHECK(!mero__lamport_admissible(max, max + 1));
    CHECK(!mero__lamport_admissible(max - 1, UINT64_MAX));
    CHECK(!mero__lamport_admissible(UINT64_MAX, UINT64_MAX));
    CHECK(!mero__lamport_admissible(UINT64_MAX, 0));
    CHECK(!mero__lamport_admissible(max - step, UINT64_MAX - step + 1));
    CHECK_OK(mero__lamport_next(0, &next));
    CHECK_U64_EQ(next, 1);
    CHECK_OK(mero__lamport_next(max - 1, &next));
    CHECK_U64_EQ(next, max);
    next = 7;
    CHECK_ERR(mero__lamport_next(max, &next), -MERO_ECLOCK);
    CHECK_ERR(mero__lamport_next(UINT64_MAX, &next), -MERO_ECLOCK);
    CHECK_U64_EQ(next, 7);
}

TEST(apply_refuses_lamport_beyond_clock)
{
    CHECK_OK(setup());
    uint8_t c[32];
    CHECK_OK(new_context(c));
    const uint64_t step = MERO_LAMPORT_STEP;
    int64_t deltas = sql_int("SELECT COUNT(*) FROM ctx_delta");
    CHECK_ERR(put_at(c, step + 1, "k", "too far"), -MERO_ECLOCK);
    CHECK_ERR(put_at(c, 0, "k", "zero"), -MERO_ECLOCK);
    CHECK_ERR(put_at(c, (uint64_t)INT64_MAX + 1, "k", "2^63"), -MERO_ECLOCK);
    CHECK_ERR(put_at(c, UINT64_MAX, "k", "2^64-1"), -MERO_ECLOCK);
    CHECK_ERR(put_at(c, (uint64_t)INT64_MAX - 1, "k", "the issue's value"), -MERO_ECLOCK);
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_delta"), deltas); /* none stored */
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_clock WHERE lamport > 65536"), 0);
    /* at the bound: admitted, and the clock follows */
    CHECK_OK(put_at(c, step, "k", "at the bound"));
    CHECK_OK(put_at(c, 2 * step, "k", "one more step"));
    CHECK_ERR(put_at(c, 3 * step + 1, "k", "beyond again"), -MERO_ECLOCK);
    /* a local write comes after every admitted delta, so it is the current value */
    struct mero_err err = {0};
    CHECK_OK(mero_node_ctx_put(&node, c, "k", (const uint8_t *)"local", 5, false, 0, &err));
    uint8_t *v = NULL;
    size_t n = 0;
    CHECK_OK(mero_node_ctx_get(&node, c, "k", &v, &n, &err));
    CHECK(n == 5 && memcmp(v, "local", 5) == 0);
    free(v);
}

TEST(clock_exhaustion_and_superseded_writes)
{
    CHECK_OK(setup());
    uint8_t c[32];
    struct mero_err err = {0};
    CHECK_OK(new_context(c));
    CHECK_OK(put_at(c, 1, "a", "first"));
    /* a context whose clock reached 2^63-2 (as an unbounded node could have let it) */
    CHECK_OK(set_clock(c, INT64_MAX - 1));
    CHECK_OK(mero_node_ctx_put(&node, c, "a", (const uint8_t *)"last", 4, false, 0, &err));
    uint8_t *v = NULL;
    size_t n = 0;
    CHECK_OK(mero_node_ctx_get(&node, c, "a", &v, &n, &err));
    CHECK(n == 4 && memcmp(v, "last", 4) == 0);
    free(v);
    CHECK_EQ(sql_int("SELECT MAX(lamport) FROM ctx_kv"), INT64_MAX);
    /* clock INT64_MAX: no further write, and it is said (never stored as 0 or negative) */
    int64_t deltas = sql_int("SELECT COUNT(*) FROM ctx_delta");
    CHECK_ERR(mero_node_ctx_put(&node, c, "a", (const uint8_t *)"lost?", 5, false, 0, &err),
              -MERO_ECLOCK);
    CHECK_ERR(mero_node_ctx_put(&node, c, "b", (const uint8_t *)"lost?", 5, false, 0, &err),
              -MERO_ECLOCK);
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_delta"), deltas);
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_kv WHERE lamport <= 0"), 0);
    /* a peer's delta at INT64_MAX is still admitted (tie with ours: broken by hash) */
    CHECK_OK(put_at(c, (uint64_t)INT64_MAX, "a", "peer at max"));

    /* the edit: ctx_kv claims 2^63-2 for a key in a context whose clock is small */
    uint8_t c2[32];
    CHECK_OK(new_context(c2));
    CHECK_OK(mero_node_ctx_put(&node, c2, "m", (const uint8_t *)"v0", 2, false, 0, &err));
    CHECK_OK(mero__node_db_exec(node.db, "UPDATE ctx_kv SET lamport = 9223372036854775806 "
                                         "WHERE k = 'm'"));
    deltas = sql_int("SELECT COUNT(*) FROM ctx_delta");
    CHECK_ERR(mero_node_ctx_put(&node, c2, "m", (const uint8_t *)"new", 3, false, 0, &err),
              -MERO_ESUPERSEDED);
    CHECK(strstr(err.msg, "at clock 9223372036854775806") != NULL);
    CHECK(strstr(err.msg, "which this write (clock 2)") != NULL);
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_delta"), deltas); /* nothing stored */
    CHECK_OK(mero_node_ctx_get(&node, c2, "m", &v, &n, &err));
    CHECK(n == 2 && memcmp(v, "v0", 2) == 0);
    free(v);
    /* other keys of that context are written normally */
    CHECK_OK(mero_node_ctx_put(&node, c2, "other", (const uint8_t *)"o", 1, false, 0, &err));
}

/* Apply a then b (by bytes) on a fresh node database; value of key "t" in *out (owned). */
static int apply_pair_fresh(const struct mero_buf *a, const struct mero_buf *b, uint8_t **out,
                            size_t *n)
{
    struct mero_err err = {0};
    struct sqlite3 *keep = node.db;
    int rc = mero__node_db_open(&node.db, ":memory:", true, &err);
    rc = rc ? rc : mero__node_ctx_open(&node, &err);
    rc = rc ? rc : mero__node_ctx_apply(&node, a->data, a->len, &err);
    rc = rc ? rc : mero__node_ctx_apply(&node, b->data, b->len, &err);
    rc = rc ? rc : mero_node_ctx_get(&node, ctx, "t", out, n, &err);
    if (node.db != keep) {
        sqlite3_close(node.db);
    }
    node.db = keep;
    return rc;
}

TEST(equal_lamport_tie_broken_by_hash_in_any_order)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    uint8_t me[32], sk[64], mpk[32], msk[64];
    CHECK_OK(mero_gov_identity(node.store, ns, false, me, &err));
    CHECK_OK(mero_gov_identity_secret(node.store, ns, sk));
    mero_ed25519_keypair(mpk, msk);
    struct mero_gov_oplist ops = {0};
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, mpk, MERO_ROLE_MEMBER, &ops, &err));
    mero_gov_oplist_cleanup(&ops);
    struct mero_buf a, b;
    mero_buf_init(&a, 1 << 16);
    mero_buf_init(&b, 1 << 16);
    CHECK_OK(build(&a, ctx, me, sk, 42, "t", "from me"));
    CHECK_OK(build(&b, ctx, mpk, msk, 42, "t", "from the member"));
    uint8_t ha[32], hb[32];
    mero_sha256(ha, a.data, a.len);
    mero_sha256(hb, b.data, b.len);
    const char *want = memcmp(ha, hb, 32) > 0 ? "from me" : "from the member";
    uint8_t *v1 = NULL, *v2 = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK_OK(apply_pair_fresh(&a, &b, &v1, &n1));
    CHECK_OK(apply_pair_fresh(&b, &a, &v2, &n2));
    CHECK(n1 == strlen(want) && memcmp(v1, want, n1) == 0);
    CHECK(n2 == strlen(want) && memcmp(v2, want, n2) == 0);
    free(v1);
    free(v2);
    mero_buf_cleanup(&a);
    mero_buf_cleanup(&b);
    mero_wipe(sk, sizeof(sk));
    mero_wipe(msk, sizeof(msk));
}

TEST(refused_delta_is_admitted_once_its_predecessors_arrive)
{
    CHECK_OK(setup());
    struct mero_err err = {0};
    uint8_t me[32], sk[64];
    CHECK_OK(mero_gov_identity(node.store, ns, false, me, &err));
    CHECK_OK(mero_gov_identity_secret(node.store, ns, sk));
    /* an author that admitted each of these against its own clock: 1 step, 2 steps, 3 steps */
    struct mero_buf d[3];
    const char *vals[3] = {"1", "2", "3"};
    for (size_t i = 0; i < 3; i++) {
        mero_buf_init(&d[i], 1 << 16);
        CHECK_OK(build(&d[i], ctx, me, sk, (i + 1) * MERO_LAMPORT_STEP, "t", vals[i]));
    }
    mero_wipe(sk, sizeof(sk));
    struct sqlite3 *keep = node.db;
    CHECK_OK(mero__node_db_open(&node.db, ":memory:", true, &err));
    CHECK_OK(mero__node_ctx_open(&node, &err));
    /* gossip delivers the newest first: beyond this node's clock, refused and not stored */
    CHECK_ERR(mero__node_ctx_apply(&node, d[2].data, d[2].len, &err), -MERO_ECLOCK);
    CHECK_ERR(mero__node_ctx_apply(&node, d[1].data, d[1].len, &err), -MERO_ECLOCK);
    uint8_t h2[32];
    bool have = true;
    mero_sha256(h2, d[2].data, d[2].len);
    CHECK_OK(mero__node_ctx_has(&node, h2, &have));
    CHECK(!have);
    /* a sync pull then serves them in the author's apply order: every one is admitted */
    for (size_t i = 0; i < 3; i++) {
        CHECK_OK(mero__node_ctx_apply(&node, d[i].data, d[i].len, &err));
    }
    uint8_t *v = NULL;
    size_t n = 0;
    CHECK_OK(mero_node_ctx_get(&node, ctx, "t", &v, &n, &err));
    CHECK(n == 1 && v[0] == '3');
    free(v);
    sqlite3_close(node.db);
    node.db = keep;
    for (size_t i = 0; i < 3; i++) {
        mero_buf_cleanup(&d[i]);
    }
}

TEST(sync_cursor_beyond_int64_is_not_wrapped)
{
    CHECK_OK(setup());
    CHECK_OK(put_at(ctx, 7, "s", "x"));
    uint8_t(*h)[32] = NULL;
    size_t n = 0;
    uint64_t last = 0;
    CHECK_OK(mero__node_ctx_hashes(&node, ctx, 0, 1024, &h, &n, &last));
    CHECK(n > 0);
    free(h);
    const uint64_t far[] = {(uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
        h = NULL;
        CHECK_OK(mero__node_ctx_hashes(&node, ctx, far[i], 1024, &h, &n, &last));
        CHECK_EQ(n, 0);
        CHECK_U64_EQ(last, far[i]);
        free(h);
        h = NULL;
        CHECK_OK(mero_gov_op_hashes(node.store, ns, far[i], 1024, &h, &n, &last));
        CHECK_EQ(n, 0);
        free(h);
    }
}

TEST(sync_pages_on_only_while_the_cursor_advances)
{
    const uint64_t max = (uint64_t)INT64_MAX;
    CHECK_U64_EQ(mero__node_sync_next_after(0, 1024, 1024, 1024), 1024);
    CHECK_U64_EQ(mero__node_sync_next_after(1024, 1024, 1024, 2048), 2048);
    CHECK_U64_EQ(mero__node_sync_next_after(0, 1023, 1024, 1023), UINT64_MAX);    /* last page */
    CHECK_U64_EQ(mero__node_sync_next_after(1024, 1024, 1024, 1024), UINT64_MAX); /* stalled */
    CHECK_U64_EQ(mero__node_sync_next_after(1024, 1024, 1024, 5), UINT64_MAX);    /* backwards */
    CHECK_U64_EQ(mero__node_sync_next_after(0, 1024, 1024, max), max);
    CHECK_U64_EQ(mero__node_sync_next_after(0, 1024, 1024, max + 1), UINT64_MAX);
    CHECK_U64_EQ(mero__node_sync_next_after(max - 1, 1024, 1024, UINT64_MAX), UINT64_MAX);
    CHECK_U64_EQ(mero__node_sync_next_after(max, 1024, 1024, max), UINT64_MAX);
}

TEST(clock_derived_for_a_database_without_it)
{
    CHECK_OK(setup());
    int64_t rows = sql_int("SELECT COUNT(*) FROM ctx_clock");
    CHECK(rows >= 3);
    CHECK_OK(mero__node_db_exec(node.db, "CREATE TEMP TABLE saved AS SELECT * FROM ctx_clock"));
    CHECK_OK(mero__node_db_exec(node.db, "DELETE FROM ctx_clock"));
    struct mero_err err = {0};
    CHECK_OK(mero__node_ctx_open(&node, &err));
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM ctx_clock"), rows);
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM (SELECT * FROM saved EXCEPT SELECT * FROM ctx_clock)"),
             0);
    /* a database that has its clocks is left as it is */
    CHECK_OK(mero__node_db_exec(node.db, "UPDATE ctx_clock SET lamport = lamport - 1"));
    CHECK_OK(mero__node_ctx_open(&node, &err));
    CHECK_EQ(sql_int("SELECT COUNT(*) FROM (SELECT * FROM saved EXCEPT SELECT * FROM ctx_clock)"),
             rows);
}

MERO_TEST_MAIN(T(member_write_and_read), T(refusals), T(lamport_arithmetic_edges),
               T(apply_refuses_lamport_beyond_clock), T(clock_exhaustion_and_superseded_writes),
               T(equal_lamport_tie_broken_by_hash_in_any_order),
               T(refused_delta_is_admitted_once_its_predecessors_arrive),
               T(sync_cursor_beyond_int64_is_not_wrapped),
               T(sync_pages_on_only_while_the_cursor_advances),
               T(clock_derived_for_a_database_without_it))
