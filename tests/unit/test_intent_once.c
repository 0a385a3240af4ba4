/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_intent_once.c - one intent, one effect, and no refusal loops (issue 30, docs/relay.md
 * "One intent, one effect"), at the cut (mero__node_ctx_apply) on one in-memory gov store and a
 * fresh in-memory node database per arrival order. Deltas are built here from the documented
 * layouts, not with context/codec.c's builder.
 *
 * The second reproduction: the owner writes three values that relay r1 misses (r1's
 * context clock stays at 0, r2's reaches 3); a client's intent div=OLD is carried by both r1
 * (lamport 1) and r2 (lamport 4), then its later intent div=NEW by r1 alone (lamport 2). In
 * every arrival order of those deltas every copy is held (stored and counted, none refused or
 * remembered as refused), the key ends with NEW, and the ctx_kv row (value, clock, counted
 * delta, author) is the same byte for byte. With only OLD's two copies, OLD once, the same row
 * in every order. Against a direct write of the same key: the one written after seeing the
 * intents wins, one written before loses, in every order. At the route, the same intent is
 * known as counted, another intent with its (author, nonce) is a replay; at the cut both count.
 * Refusals are remembered: one for good stays known, one for governance's sake (a stranger's
 * intent) is judged again once governance changes and then applies; the memory is bounded. A
 * node.db from before ctx_intent counts its relayed deltas at the next open.
 */
#include <sqlite3.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/keys.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

static struct mero_node node;
static uint8_t ns[MERO_NS_ID_LEN], ctx[MERO_CONTEXT_ID_LEN];
static uint8_t r1_pk[MERO_IDENTITY_LEN], r1_sk[MERO_ED25519_SK_LEN];
static uint8_t r2_pk[MERO_IDENTITY_LEN], r2_sk[MERO_ED25519_SK_LEN];
static uint8_t client_pk[MERO_IDENTITY_LEN], client_sk[MERO_ED25519_SK_LEN];
static uint8_t owner_pk[MERO_IDENTITY_LEN], owner_sk[MERO_ED25519_SK_LEN];
static const uint64_t T0 = 1767225600; /* issued_at of OLD */

#define MAXD 8
struct deltas {
    struct mero_buf d[MAXD];
    size_t n;
};

static int setup(void)
{
    if (node.store != NULL) {
        return 0;
    }
    struct mero_err err = {0};
    uint8_t app[MERO_APP_ID_LEN] = {0};
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &node.store, &err) < 0 ||
        mero_gov_create_namespace(node.store, ns, NULL, &err) < 0 ||
        mero_gov_create_context(node.store, ns, ns, app, ctx, NULL, &err) < 0) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    mero_ed25519_keypair(r1_pk, r1_sk);
    mero_ed25519_keypair(r2_pk, r2_sk);
    mero_ed25519_keypair(client_pk, client_sk);
    MERO_TRY(mero_gov_identity(node.store, ns, false, owner_pk, NULL));
    MERO_TRY(mero_gov_identity_secret(node.store, ns, owner_sk));
    MERO_TRY(mero__gov_row_plain(node.store, ns, r1_pk, MERO_ROLE_RELAY_TEE));
    MERO_TRY(mero__gov_row_plain(node.store, ns, r2_pk, MERO_ROLE_RELAY_TEE));
    return mero_gov_add_member(node.store, ns, ns, client_pk, MERO_ROLE_MEMBER, NULL, &err);
}

/* A fresh node.db: another node, holding the same governance. */
static int fresh_db(void)
{
    struct mero_err err = {0};
    if (node.db != NULL) {
        mero__node_db_close(node.db);
        node.db = NULL;
    }
    MERO_TRY(mero__node_db_open(&node.db, ":memory:", true, &err));
    return mero__node_ctx_open(&node, &err);
}

/* A signed put intent of key = value by sk, nonce byte nb, issued at T0 + dt. */
static void intent(struct mero_buf *b, const uint8_t sk[MERO_ED25519_SK_LEN], uint8_t nb,
                   uint64_t dt, const char *key, const char *value)
{
    struct mero_intent it;
    memset(&it, 0, sizeof(it));
    it.version = MERO_INTENT_VERSION;
    memcpy(it.ns, ns, sizeof(it.ns));
    memcpy(it.context, ctx, sizeof(it.context));
    memset(it.nonce, nb, sizeof(it.nonce));
    it.issued_at = T0 + dt;
    it.expires_at = T0 + dt + 600;
    it.op = MERO_INTENT_PUT;
    it.key_len = strlen(key);
    memcpy(it.key, key, it.key_len);
    it.value = (const uint8_t *)value;
    it.value_len = strlen(value);
    mero_buf_init(b, 1 << 16);
    if (mero_intent_sign(&it, sk) < 0 || mero_intent_encode(&it, b) < 0) {
        abort();
    }
}

/* Seal pt under the namespace's current key after the clear header in d, and sign the whole
 * with sk over dom (docs/node.md and docs/relay.md layouts). */
static int seal_sign(struct mero_buf *d, const uint8_t nonce[MERO_GCM_NONCE_LEN],
                     const uint8_t gk[MERO_GROUP_KEY_LEN], const uint8_t *pt, size_t pl,
                     const char *dom, const uint8_t sk[MERO_ED25519_SK_LEN])
{
    static uint8_t ct[20000];
    size_t aad = d->len;
    MERO_TRY(mero_buf_append_u32le(d, (uint32_t)(pl + MERO_AEAD_TAG_LEN)));
    MERO_TRY(mero_aes256gcm_seal(ct, pt, pl, d->data, aad, nonce, gk));
    MERO_TRY(mero_buf_append(d, ct, pl + MERO_AEAD_TAG_LEN));
    struct mero_buf msg;
    uint8_t sig[MERO_ED25519_SIG_LEN];
    mero_buf_init(&msg, 1 << 16);
    MERO_TRY(mero_buf_append_str(&msg, dom));
    MERO_TRY(mero_buf_append(&msg, d->data, d->len));
    mero_ed25519_sign(sig, msg.data, msg.len, sk);
    mero_buf_cleanup(&msg);
    return mero_buf_append(d, sig, sizeof(sig));
}

/* The clear header both versions share: version, context, author, lamport, key id, nonce. */
static int head(struct mero_buf *d, uint8_t version, const uint8_t author[MERO_IDENTITY_LEN],
                uint64_t lamport, uint8_t gk[MERO_GROUP_KEY_LEN], uint8_t nonce[MERO_GCM_NONCE_LEN])
{
    uint8_t kid[MERO_KEY_ID_LEN];
    mero_random(nonce, MERO_GCM_NONCE_LEN);
    MERO_TRY(mero_gov_group_key(node.store, ns, gk, kid));
    mero_buf_init(d, 1 << 16);
    MERO_TRY(mero_buf_append_u8(d, version));
    MERO_TRY(mero_buf_append(d, ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY(mero_buf_append(d, author, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append_u64le(d, lamport));
    MERO_TRY(mero_buf_append(d, kid, MERO_KEY_ID_LEN));
    return mero_buf_append(d, nonce, MERO_GCM_NONCE_LEN);
}

/* A relayed delta (version 2) carrying intent it, by relay (pk, sk) at lamport. */
static int relayed(struct mero_buf *d, const uint8_t pk[MERO_IDENTITY_LEN],
                   const uint8_t sk[MERO_ED25519_SK_LEN], uint64_t lamport,
                   const struct mero_buf *it, const uint8_t author[MERO_IDENTITY_LEN])
{
    uint8_t gk[MERO_GROUP_KEY_LEN], nonce[MERO_GCM_NONCE_LEN];
    MERO_TRY(head(d, MERO_DELTA_RELAYED_VERSION, author, lamport, gk, nonce));
    MERO_TRY(mero_buf_append(d, pk, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append_u64le(d, T0 + 10)); /* relayed_at: OLD and NEW are live then */
    return seal_sign(d, nonce, gk, it->data, it->len, MERO_DELTA_RELAYED_DOMAIN, sk);
}

/* A direct delta (version 1) of key = value by the owner at lamport. */
static int direct(struct mero_buf *d, uint64_t lamport, const char *key, const char *value)
{
    uint8_t gk[MERO_GROUP_KEY_LEN], nonce[MERO_GCM_NONCE_LEN];
    struct mero_buf pt;
    MERO_TRY(head(d, MERO_DELTA_VERSION, owner_pk, lamport, gk, nonce));
    mero_buf_init(&pt, 1 << 16);
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(key)));
    MERO_TRY(mero_buf_append(&pt, key, strlen(key)));
    MERO_TRY(mero_buf_append_u32le(&pt, (uint32_t)strlen(value)));
    MERO_TRY(mero_buf_append(&pt, value, strlen(value)));
    int rc = seal_sign(d, nonce, gk, pt.data, pt.len, MERO_DELTA_DOMAIN, owner_sk);
    mero_buf_cleanup(&pt);
    return rc;
}

static void deltas_free(struct deltas *s)
{
    for (size_t i = 0; i < s->n; i++) {
        mero_buf_cleanup(&s->d[i]);
    }
    s->n = 0;
}

/* The key's ctx_kv row as one blob: value | lamport | hash | author (empty when absent). */
static size_t row_of(const char *key, uint8_t *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    if (sqlite3_prepare_v2(node.db,
                           "SELECT v, lamport, hash, author FROM ctx_kv WHERE context = ?1 AND "
                           "k = ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        return 0;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < 4; c++) {
            uint8_t l[8];
            const void *p = sqlite3_column_blob(st, c);
            size_t k = (size_t)sqlite3_column_bytes(st, c);
            if (c == 1) {
                uint64_t v = (uint64_t)sqlite3_column_int64(st, c);
                memcpy(l, &v, sizeof(l));
                p = l;
                k = sizeof(l);
            }
            if (n + k <= cap && p != NULL) {
                memcpy(out + n, p, k);
                n += k;
            }
        }
    }
    sqlite3_finalize(st);
    return n;
}

static uint64_t lamport_of(const char *key)
{
    sqlite3_stmt *st = NULL;
    uint64_t l = 0;
    if (sqlite3_prepare_v2(node.db, "SELECT lamport FROM ctx_kv WHERE context = ?1 AND k = ?2", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            l = (uint64_t)sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return l;
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

static bool held(const struct mero_buf *d)
{
    uint8_t h[MERO_DELTA_ID_LEN];
    bool yes = false;
    mero_sha256(h, d->data, d->len);
    return mero__node_ctx_has(&node, h, &yes) == 0 && yes;
}

static long long refusals_remembered(void)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(node.db, "SELECT COUNT(*) FROM ctx_refused", -1, &st, NULL) ==
        SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            n = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return n;
}

/* The next permutation of p[0..n) in lexicographic order; false after the last. */
static bool next_perm(size_t *p, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && p[i - 1] >= p[i]) {
        i--;
    }
    if (i == 0) {
        return false;
    }
    size_t j = n - 1;
    while (p[j] <= p[i - 1]) {
        j--;
    }
    size_t t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
    for (size_t a = i, b = n - 1; a < b; a++, b--) {
        t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
    return true;
}

#define ROW_MAX (MERO_INTENT_MAX_VALUE_LEN + 128)
static uint8_t first_row[ROW_MAX], this_row[ROW_MAX];

/*
 * Apply s in every order, each on a fresh node.db: every apply succeeds, every copy is held
 * afterwards (and again a no-op), nothing is remembered as refused, key holds want, and its
 * ctx_kv row is the same in every order. *orders = how many orders ran; *lamport = the row's.
 */
static int every_order(const struct deltas *s, const char *key, const char *want, size_t *orders,
                       uint64_t *lamport)
{
    size_t p[MAXD], first_n = 0;
    struct mero_err err = {0};
    for (size_t i = 0; i < s->n; i++) {
        p[i] = i;
    }
    *orders = 0;
    do {
        MERO_TRY(fresh_db());
        for (size_t i = 0; i < s->n; i++) {
            if (mero__node_ctx_apply(&node, s->d[p[i]].data, s->d[p[i]].len, &err) < 0) {
                fprintf(stderr, "# order %zu, delta %zu: %s\n", *orders, p[i], err.msg);
                return -MERO_EREFUSED;
            }
        }
        for (size_t i = 0; i < s->n; i++) {
            if (!held(&s->d[i]) ||
                mero__node_ctx_apply(&node, s->d[i].data, s->d[i].len, &err) < 0) {
                return -MERO_ESTATE;
            }
        }
        if (refusals_remembered() != 0 || !value_is(key, want)) {
            return -MERO_ESTATE;
        }
        size_t n = row_of(key, this_row, sizeof(this_row));
        if (*orders == 0) {
            memcpy(first_row, this_row, n);
            first_n = n;
            *lamport = lamport_of(key);
        } else if (n != first_n || memcmp(first_row, this_row, n) != 0) {
            fprintf(stderr, "# order %zu ends with another row for %s\n", *orders, key);
            return -MERO_ESTATE;
        }
        (*orders)++;
    } while (next_perm(p, s->n));
    return 0;
}

/* The owner's three writes r1 missed: lamports 1..3, other keys. */
static int owner_writes(struct deltas *s)
{
    static const char *const k[] = {"w1", "w2", "w3"};
    for (size_t i = 0; i < 3; i++) {
        MERO_TRY(direct(&s->d[s->n++], i + 1, k[i], "owner"));
    }
    return 0;
}

TEST(two_copies_one_effect)
{
    CHECK_OK(setup());
    struct deltas s = {.n = 0};
    struct mero_buf old;
    size_t orders = 0;
    uint64_t l = 0;
    intent(&old, client_sk, 1, 0, "div", "OLD");
    CHECK_OK(owner_writes(&s));
    CHECK_OK(relayed(&s.d[s.n++], r1_pk, r1_sk, 1, &old, client_pk)); /* r1's clock: 0 */
    CHECK_OK(relayed(&s.d[s.n++], r2_pk, r2_sk, 4, &old, client_pk)); /* r2 saw the writes */
    CHECK_OK(every_order(&s, "div", "OLD", &orders, &l));
    CHECK_EQ(orders, 120);
    CHECK_U64_EQ(l, 4); /* the greatest lamport among its copies */
    /* the copy that counts is the one with the greatest delta id, whatever came first */
    uint8_t h3[MERO_DELTA_ID_LEN], h4[MERO_DELTA_ID_LEN], id[MERO_INTENT_ID_LEN];
    uint8_t canon[MERO_DELTA_ID_LEN];
    struct mero_intent it;
    struct mero_err err = {0};
    bool yes = false;
    mero_sha256(h3, s.d[3].data, s.d[3].len);
    mero_sha256(h4, s.d[4].data, s.d[4].len);
    CHECK_OK(mero_intent_decode(old.data, old.len, &it, &err));
    CHECK_OK(mero_intent_id(&it, id));
    CHECK_OK(mero__node_ctx_intent_held(&node, id, canon, &yes));
    CHECK(yes);
    CHECK_MEM_EQ(canon, memcmp(h3, h4, sizeof(h3)) > 0 ? h3 : h4, sizeof(canon));
    deltas_free(&s);
    mero_buf_cleanup(&old);
}

TEST(later_intent_wins_whatever_the_relays_clocks)
{
    CHECK_OK(setup());
    struct deltas s = {.n = 0};
    struct mero_buf old, neu;
    size_t orders = 0;
    uint64_t l = 0;
    intent(&old, client_sk, 2, 0, "div", "OLD");
    intent(&neu, client_sk, 3, 5, "div", "NEW"); /* issued five seconds later */
    CHECK_OK(owner_writes(&s));
    CHECK_OK(relayed(&s.d[s.n++], r1_pk, r1_sk, 1, &old, client_pk));
    CHECK_OK(relayed(&s.d[s.n++], r2_pk, r2_sk, 4, &old, client_pk));
    CHECK_OK(relayed(&s.d[s.n++], r1_pk, r1_sk, 2, &neu, client_pk)); /* r1, still lagging */
    CHECK_OK(every_order(&s, "div", "NEW", &orders, &l));
    CHECK_EQ(orders, 720);
    CHECK_U64_EQ(l, 5); /* after OLD's position (4), whatever r1's clock said (2) */
    uint8_t author[MERO_IDENTITY_LEN];
    CHECK_OK(mero_node_ctx_author(&node, ctx, "div", author));
    CHECK_MEM_EQ(author, client_pk, sizeof(author));
    size_t nv = 0, nd = 0;
    CHECK_OK(mero__node_ctx_verify_all(&node, stderr, &nv, &nd));
    CHECK_EQ(nd, 6);
    /* a later local write sorts after the relayed one: the clock was raised to its position */
    struct mero_err err = {0};
    CHECK_OK(mero_node_ctx_put(&node, ctx, "div", (const uint8_t *)"LOCAL", 5, false, 0, &err));
    CHECK(value_is("div", "LOCAL"));
    CHECK_U64_EQ(lamport_of("div"), 6);
    deltas_free(&s);
    mero_buf_cleanup(&old);
    mero_buf_cleanup(&neu);
}

TEST(direct_writes_compose_by_clock)
{
    CHECK_OK(setup());
    struct mero_buf old, neu;
    size_t orders = 0;
    uint64_t l = 0;
    intent(&old, client_sk, 4, 0, "div", "OLD");
    intent(&neu, client_sk, 5, 5, "div", "NEW");
    for (int after = 0; after < 2; after++) {
        struct deltas s = {.n = 0};
        CHECK_OK(relayed(&s.d[s.n++], r1_pk, r1_sk, 1, &old, client_pk));
        CHECK_OK(relayed(&s.d[s.n++], r2_pk, r2_sk, 4, &old, client_pk));
        CHECK_OK(relayed(&s.d[s.n++], r1_pk, r1_sk, 2, &neu, client_pk));
        /* the owner writes div at clock 3 (before it saw OLD through r2, concurrent with NEW)
         * or at clock 6 (after it saw OLD at 4 and NEW at 5) */
        CHECK_OK(direct(&s.d[s.n++], after ? 6 : 3, "div", "DIRECT"));
        CHECK_OK(every_order(&s, "div", after ? "DIRECT" : "NEW", &orders, &l));
        CHECK_EQ(orders, 24);
        CHECK_U64_EQ(l, after ? 6 : 5);
        deltas_free(&s);
    }
    mero_buf_cleanup(&old);
    mero_buf_cleanup(&neu);
}

TEST(route_knows_the_intent_and_its_nonce)
{
    CHECK_OK(setup());
    CHECK_OK(fresh_db());
    struct mero_buf a, b, da, db;
    struct mero_intent ia, ib;
    struct mero_err err = {0};
    uint8_t id[MERO_INTENT_ID_LEN], canon[MERO_DELTA_ID_LEN], ha[MERO_DELTA_ID_LEN];
    bool yes = false;
    intent(&a, client_sk, 6, 0, "nonce", "first");
    intent(&b, client_sk, 6, 1, "nonce", "second"); /* the same (author, nonce), another intent */
    CHECK_OK(mero_intent_decode(a.data, a.len, &ia, &err));
    CHECK_OK(mero_intent_decode(b.data, b.len, &ib, &err));
    CHECK_OK(relayed(&da, r1_pk, r1_sk, 1, &a, client_pk));
    CHECK_OK(mero__node_ctx_apply(&node, da.data, da.len, &err));
    mero_sha256(ha, da.data, da.len);
    CHECK_OK(mero_intent_id(&ia, id));
    CHECK_OK(mero__node_ctx_intent_held(&node, id, canon, &yes));
    CHECK(yes);
    CHECK_MEM_EQ(canon, ha, sizeof(ha));
    /* the route: the same intent is no replay (it answers the counted copy); another intent
     * with the same (author, nonce) is */
    CHECK_OK(mero__node_relay_check(&node, ns, ctx, r2_pk, client_pk, T0 + 10, &ia, NULL, &err));
    CHECK_ERR(mero__node_relay_check(&node, ns, ctx, r2_pk, client_pk, T0 + 10, &ib, NULL, &err),
              -MERO_EEXIST);
    CHECK(strstr(err.msg, "replayed intent") != NULL);
    /* at the cut it is the author's signed write like any other: counted, whatever the order */
    CHECK_OK(relayed(&db, r2_pk, r2_sk, 2, &b, client_pk));
    CHECK_OK(mero__node_ctx_apply(&node, db.data, db.len, &err));
    CHECK(held(&db));
    CHECK(value_is("nonce", "second"));
    mero_buf_cleanup(&a);
    mero_buf_cleanup(&b);
    mero_buf_cleanup(&da);
    mero_buf_cleanup(&db);
}

TEST(refusals_are_remembered)
{
    CHECK_OK(setup());
    CHECK_OK(fresh_db());
    struct mero_buf forged, fd, strange, sd;
    struct mero_err err = {0};
    uint8_t h[MERO_DELTA_ID_LEN], stranger_pk[MERO_IDENTITY_LEN], stranger_sk[MERO_ED25519_SK_LEN];
    int state = -1;
    /* for good: a forged intent */
    intent(&forged, client_sk, 7, 0, "forged", "v");
    forged.data[forged.len - 3] ^= 1;
    CHECK_OK(relayed(&fd, r1_pk, r1_sk, 1, &forged, client_pk));
    mero_sha256(h, fd.data, fd.len);
    CHECK_ERR(mero__node_ctx_apply(&node, fd.data, fd.len, &err), -MERO_EREFUSED);
    CHECK_OK(mero__node_ctx_known(&node, h, &state));
    CHECK_EQ(state, MERO_CTX_REFUSED);
    CHECK(!held(&fd));
    /* again: the same refusal, from memory */
    CHECK_ERR(mero__node_ctx_apply(&node, fd.data, fd.len, &err), -MERO_EREFUSED);
    CHECK(strstr(err.msg, "signature does not verify") != NULL);
    CHECK_EQ(refusals_remembered(), 1);
    /* for now: a stranger's intent, until governance makes it a member */
    mero_ed25519_keypair(stranger_pk, stranger_sk);
    intent(&strange, stranger_sk, 8, 0, "stranger", "welcome");
    CHECK_OK(relayed(&sd, r1_pk, r1_sk, 1, &strange, stranger_pk));
    mero_sha256(h, sd.data, sd.len);
    CHECK_ERR(mero__node_ctx_apply(&node, sd.data, sd.len, &err), -MERO_EPERM);
    CHECK_OK(mero__node_ctx_known(&node, h, &state));
    CHECK_EQ(state, MERO_CTX_REFUSED_FOR_NOW);
    CHECK_ERR(mero__node_ctx_apply(&node, sd.data, sd.len, &err), -MERO_EPERM);
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, stranger_pk, MERO_ROLE_MEMBER, NULL, &err));
    CHECK_OK(mero__node_ctx_known(&node, h, &state));
    CHECK_EQ(state, MERO_CTX_UNKNOWN); /* governance moved: judged afresh */
    CHECK_OK(mero__node_ctx_apply(&node, sd.data, sd.len, &err));
    CHECK_OK(mero__node_ctx_known(&node, h, &state));
    CHECK_EQ(state, MERO_CTX_HELD);
    CHECK(value_is("stranger", "welcome"));
    /* bounded under a flood: the oldest are forgotten */
    uint8_t fh[MERO_DELTA_ID_LEN] = {0}, first[MERO_DELTA_ID_LEN];
    bool new_one = false;
    for (uint32_t i = 0; i < MERO_CTX_REFUSED_MAX + 100; i++) {
        memcpy(fh, &i, sizeof(i));
        fh[MERO_DELTA_ID_LEN - 1] = 0xee;
        if (i == 0) {
            memcpy(first, fh, sizeof(fh));
        }
        mero__node_ctx_refusal_note(&node, fh, NULL, MERO_EBADSIG, "flood", &new_one);
    }
    CHECK_EQ(refusals_remembered(), MERO_CTX_REFUSED_MAX);
    CHECK_OK(mero__node_ctx_known(&node, first, &state));
    CHECK_EQ(state, MERO_CTX_UNKNOWN);
    CHECK_OK(mero__node_ctx_known(&node, fh, &state));
    CHECK_EQ(state, MERO_CTX_REFUSED);
    mero_wipe(stranger_sk, sizeof(stranger_sk));
    mero_buf_cleanup(&forged);
    mero_buf_cleanup(&fd);
    mero_buf_cleanup(&strange);
    mero_buf_cleanup(&sd);
}

/* A node.db from before issue 30 (relayed deltas applied, no ctx_intent rows): the next open
 * counts them once, so a later intent of the same author sorts after them. */
TEST(old_node_db_counts_its_relayed_deltas_at_open)
{
    CHECK_OK(setup());
    CHECK_OK(fresh_db());
    struct mero_buf old, neu, d_old, d_new;
    struct mero_err err = {0};
    intent(&old, client_sk, 9, 0, "upgrade", "OLD");
    intent(&neu, client_sk, 10, 5, "upgrade", "NEW");
    CHECK_OK(relayed(&d_old, r2_pk, r2_sk, 9, &old, client_pk));
    CHECK_OK(mero__node_ctx_apply(&node, d_old.data, d_old.len, &err));
    CHECK_OK(mero__node_db_exec(node.db, "DELETE FROM ctx_intent"));
    CHECK_OK(mero__node_db_exec(node.db, "DELETE FROM node_meta WHERE k = 'ctx_intents_counted'"));
    CHECK_OK(mero__node_ctx_open(&node, &err));
    CHECK_OK(relayed(&d_new, r1_pk, r1_sk, 2, &neu, client_pk)); /* a lagging relay */
    CHECK_OK(mero__node_ctx_apply(&node, d_new.data, d_new.len, &err));
    CHECK(value_is("upgrade", "NEW"));
    CHECK_U64_EQ(lamport_of("upgrade"), 10);
    mero_buf_cleanup(&old);
    mero_buf_cleanup(&neu);
    mero_buf_cleanup(&d_old);
    mero_buf_cleanup(&d_new);
}

static void teardown(void)
{
    mero__node_db_close(node.db);
    mero_store_close(node.store);
    memset(&node, 0, sizeof(node));
}

TEST(done)
{
    teardown();
    CHECK(node.store == NULL);
}

MERO_TEST_MAIN(T(two_copies_one_effect), T(later_intent_wins_whatever_the_relays_clocks),
               T(direct_writes_compose_by_clock), T(route_knows_the_intent_and_its_nonce),
               T(refusals_are_remembered), T(old_node_db_counts_its_relayed_deltas_at_open),
               T(done))
