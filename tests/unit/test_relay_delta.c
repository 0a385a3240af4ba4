/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_relay_delta.c - the relayed delta (issue 15, docs/relay.md "The relayed delta") at the
 * cut (mero__node_ctx_apply) on an in-memory gov store and node database. Deltas are built here
 * from the documented layout, not with context/codec.c's builder: a relayed delta carrying a
 * member's intent is applied as the member's write; refused, with nothing stored (or, when a
 * right lost explains it, kept without effect: issue 30), when the executor
 * is not a RelayTee (or converted back), the executor's signature is wrong, the intent is forged,
 * names another context or namespace, another author, another relay, a delete, or is not live at
 * relayed_at; when the author is a stranger or ReadOnly. A second copy of the same intent is
 * stored and counted (issue 30); at the route another intent with the same (author, nonce) is a
 * replay. A delta kept for a key not yet held is checked when the key arrives: deleted when
 * refused, applied when good.
 */
#include <sqlite3.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/keys.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

static struct mero_node node;
static uint8_t ns[32], ctx[32];
static uint8_t relay_pk[32], relay_sk[64], member_pk[32], member_sk[64];
static const uint64_t T0 = 1767225600; /* issued_at of every intent here */

static int setup(void)
{
    if (node.store != NULL) {
        return 0;
    }
    struct mero_err err = {0};
    uint8_t app[32] = {0};
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &node.store, &err) < 0 ||
        mero__node_db_open(&node.db, ":memory:", true, &err) < 0 ||
        mero__node_ctx_open(&node, &err) < 0 ||
        mero_gov_create_namespace(node.store, ns, NULL, &err) < 0 ||
        mero_gov_create_context(node.store, ns, ns, app, ctx, NULL, &err) < 0) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    mero_ed25519_keypair(relay_pk, relay_sk);
    mero_ed25519_keypair(member_pk, member_sk);
    /* the relay's root row, as an admission under mode=relay records it */
    MERO_TRY(mero__gov_row_plain(node.store, ns, relay_pk, MERO_ROLE_RELAY_TEE));
    return mero_gov_add_member(node.store, ns, ns, member_pk, MERO_ROLE_MEMBER, NULL, &err);
}

/* A signed put intent of key = value by sk into (n, c); nonce byte nb; warrant relay. */
static void intent(struct mero_buf *b, const uint8_t n[32], const uint8_t c[32],
                   const uint8_t sk[64], uint8_t nb, const uint8_t *relay, uint8_t op,
                   const char *key, const char *value)
{
    struct mero_intent it;
    memset(&it, 0, sizeof(it));
    it.version = MERO_INTENT_VERSION;
    memcpy(it.ns, n, 32);
    memcpy(it.context, c, 32);
    if (relay != NULL) {
        memcpy(it.relay, relay, 32);
    }
    memset(it.nonce, nb, sizeof(it.nonce));
    it.issued_at = T0;
    it.expires_at = T0 + 600;
    it.op = op;
    it.key_len = strlen(key);
    memcpy(it.key, key, it.key_len);
    if (op == MERO_INTENT_PUT) {
        it.value = (const uint8_t *)value;
        it.value_len = strlen(value);
    }
    if (mero_intent_sign(&it, sk) < 0 || mero_intent_encode(&it, b) < 0) {
        abort();
    }
}

/* Build a relayed delta exactly as docs/relay.md lays it out: version 2, author, executor,
 * relayed_at, plaintext = the intent's bytes, signed by sk (the executor's). gk NULL: the
 * group's current key. */
static int relayed(struct mero_buf *d, const uint8_t author[32], const uint8_t executor[32],
                   const uint8_t sk[64], uint64_t lamport, uint64_t relayed_at,
                   const struct mero_buf *it, const uint8_t *gk_in, const uint8_t *kid_in)
{
    uint8_t gk[32], kid[32], nonce[12];
    mero_random(nonce, sizeof(nonce));
    if (gk_in != NULL) {
        memcpy(gk, gk_in, 32);
        memcpy(kid, kid_in, 32);
    } else {
        MERO_TRY(mero_gov_group_key(node.store, ns, gk, kid));
    }
    MERO_TRY(mero_buf_append_u8(d, 2));
    MERO_TRY(mero_buf_append(d, ctx, 32));
    MERO_TRY(mero_buf_append(d, author, 32));
    MERO_TRY(mero_buf_append_u64le(d, lamport));
    MERO_TRY(mero_buf_append(d, kid, 32));
    MERO_TRY(mero_buf_append(d, nonce, 12));
    MERO_TRY(mero_buf_append(d, executor, 32));
    MERO_TRY(mero_buf_append_u64le(d, relayed_at));
    size_t aad = d->len;
    if (aad != 157) { /* the documented clear header: 117 + executor 32 + relayed_at 8 */
        return -MERO_EINVAL;
    }
    MERO_TRY(mero_buf_append_u32le(d, (uint32_t)(it->len + 16)));
    uint8_t ct[20000];
    MERO_TRY(mero_aes256gcm_seal(ct, it->data, it->len, d->data, aad, nonce, gk));
    MERO_TRY(mero_buf_append(d, ct, it->len + 16));
    struct mero_buf msg;
    mero_buf_init(&msg, 1 << 16);
    MERO_TRY(mero_buf_append_str(&msg, "mero.context.delta.v2"));
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

static bool stored(const struct mero_buf *d)
{
    uint8_t h[32];
    bool yes = true;
    mero_sha256(h, d->data, d->len);
    return mero__node_ctx_has(&node, h, &yes) == 0 && yes;
}

/* Apply a relayed delta of intent it (by the member, carried by the relay at T0 + 10). */
static int apply(const struct mero_buf *it, uint64_t lamport, struct mero_buf *d,
                 struct mero_err *err)
{
    mero_buf_init(d, 1 << 16);
    MERO_TRY(relayed(d, member_pk, relay_pk, relay_sk, lamport, T0 + 10, it, NULL, NULL));
    return mero__node_ctx_apply(&node, d->data, d->len, err);
}

TEST(relayed_write_is_the_members)
{
    CHECK_OK(setup());
    struct mero_buf it, d;
    struct mero_err err = {0};
    mero_buf_init(&it, 1 << 16);
    intent(&it, ns, ctx, member_sk, 1, NULL, MERO_INTENT_PUT, "greeting", "hello");
    CHECK_OK(apply(&it, 1, &d, &err));
    CHECK(value_is("greeting", "hello"));
    uint8_t author[32];
    CHECK_OK(mero_node_ctx_author(&node, ctx, "greeting", author));
    CHECK_MEM_EQ(author, member_pk, 32);
    /* the same delta again is a no-op; merod check's scan accepts it */
    CHECK_OK(mero__node_ctx_apply(&node, d.data, d.len, &err));
    size_t nv = 0, nd = 0;
    CHECK_OK(mero__node_ctx_verify_all(&node, stderr, &nv, &nd));
    /* the same intent in another delta (another AES nonce, another relay's copy): stored and
     * counted, not refused; it takes effect once (issue 30, test_intent_once.c) */
    struct mero_buf d2;
    CHECK_OK(apply(&it, 2, &d2, &err));
    CHECK(stored(&d2));
    CHECK(value_is("greeting", "hello"));
    /* the route's form of the check (hash NULL): another intent with the same (author, nonce)
     * is a replay; the same intent is answered from ctx_intent by the route */
    struct mero_buf other;
    struct mero_intent dec;
    mero_buf_init(&other, 1 << 16);
    intent(&other, ns, ctx, member_sk, 1, NULL, MERO_INTENT_PUT, "greeting", "bonjour");
    CHECK_OK(mero_intent_decode(other.data, other.len, &dec, &err));
    CHECK_ERR(
        mero__node_relay_check(&node, ns, ctx, relay_pk, member_pk, T0 + 10, &dec, NULL, &err),
        -MERO_EEXIST);
    CHECK(strstr(err.msg, "replayed intent") != NULL);
    mero_buf_cleanup(&other);
    mero_buf_cleanup(&d2);
    mero_buf_cleanup(&d);
    mero_buf_cleanup(&it);
}

/* issue 30: a kept delta (refused for the state of governance, its author and executor
 * principals, its lamport raising the clock: context/kept.c) is stored without effect. */
static bool kept(const struct mero_buf *d)
{
    uint8_t h[32];
    sqlite3_stmt *st = NULL;
    bool yes = false;
    mero_sha256(h, d->data, d->len);
    if (sqlite3_prepare_v2(node.db, "SELECT 1 FROM ctx_delta WHERE hash = ?1 AND applied = 2", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, h, 32, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return yes;
}

/* One refusal: the intent/delta made by mk, applied: refused with code, and nothing stored -
 * or, want_kept (a refusal for the state of governance), kept without effect. */
#define REFUSED_AS(mk, code, text, want_kept)                                                      \
    do {                                                                                           \
        struct mero_buf it_, d_;                                                                   \
        struct mero_err e_ = {0};                                                                  \
        mero_buf_init(&it_, 1 << 16);                                                              \
        mero_buf_init(&d_, 1 << 16);                                                               \
        mk;                                                                                        \
        CHECK_ERR(mero__node_ctx_apply(&node, d_.data, d_.len, &e_), code);                        \
        CHECK_MSG(strstr(e_.msg, text) != NULL, "reason: %s", e_.msg);                             \
        CHECK((want_kept) ? kept(&d_) : !stored(&d_));                                             \
        mero_buf_cleanup(&d_);                                                                     \
        mero_buf_cleanup(&it_);                                                                    \
    } while (0)
#define REFUSED(mk, code, text)      REFUSED_AS(mk, code, text, false)
#define REFUSED_KEPT(mk, code, text) REFUSED_AS(mk, code, text, true)

TEST(refusals_at_the_cut)
{
    CHECK_OK(setup());
    uint8_t other[32], osk[64], other_ctx[32] = {5};
    mero_ed25519_keypair(other, osk);
    /* the executor's signature made with another key */
    REFUSED((intent(&it_, ns, ctx, member_sk, 10, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, osk, 10, T0 + 10, &it_, NULL, NULL)),
            -MERO_EBADSIG, "signature");
    /* a forged intent (signature bit flipped) */
    REFUSED((intent(&it_, ns, ctx, member_sk, 11, NULL, 0, "a", "v"), it_.data[it_.len - 3] ^= 1,
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 11, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREFUSED, "signature does not verify");
    /* the intent names another context */
    REFUSED((intent(&it_, ns, other_ctx, member_sk, 12, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 12, T0 + 10, &it_, NULL, NULL)),
            -MERO_EINVAL, "another context");
    /* the intent names another namespace */
    REFUSED((intent(&it_, other_ctx, ctx, member_sk, 13, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 13, T0 + 10, &it_, NULL, NULL)),
            -MERO_EINVAL, "another namespace");
    /* the delta's author is not the intent's signer (the relay writing in its own name: no right
     * lost, so not kept) */
    REFUSED((intent(&it_, ns, ctx, member_sk, 14, NULL, 0, "a", "v"),
             (void)relayed(&d_, relay_pk, relay_pk, relay_sk, 14, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREADONLY, "ReadOnlyWriteRefused");
    uint8_t admin[32];
    CHECK_OK(mero_gov_identity(node.store, ns, false, admin, NULL));
    REFUSED((intent(&it_, ns, ctx, member_sk, 15, NULL, 0, "a", "v"),
             (void)relayed(&d_, admin, relay_pk, relay_sk, 15, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREFUSED, "not the intent's signer");
    /* a stranger's intent */
    REFUSED((intent(&it_, ns, ctx, osk, 16, NULL, 0, "a", "v"),
             (void)relayed(&d_, other, relay_pk, relay_sk, 16, T0 + 10, &it_, NULL, NULL)),
            -MERO_EPERM, "not a member");
    /* not live at relayed_at: after expires_at, and before issued_at beyond the skew */
    REFUSED((intent(&it_, ns, ctx, member_sk, 17, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 17, T0 + 600, &it_, NULL, NULL)),
            -MERO_EREFUSED, "not live");
    REFUSED((intent(&it_, ns, ctx, member_sk, 18, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 18,
                           T0 - MERO_INTENT_MAX_SKEW_SECS - 1, &it_, NULL, NULL)),
            -MERO_EREFUSED, "not live");
    /* the warrant names another relay */
    REFUSED((intent(&it_, ns, ctx, member_sk, 19, other, 0, "a", "v"),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 19, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREFUSED, "warrant names another relay");
    /* a delete (contexts have none yet) */
    REFUSED((intent(&it_, ns, ctx, member_sk, 20, NULL, MERO_INTENT_DELETE, "a", ""),
             (void)relayed(&d_, member_pk, relay_pk, relay_sk, 20, T0 + 10, &it_, NULL, NULL)),
            -MERO_EUNSUPPORTED, "delete");
    /* an executor that is no TEE (the admin): no right lost, so not kept (issue 30) */
    uint8_t admin_sk[64];
    CHECK_OK(mero_gov_identity_secret(node.store, ns, admin_sk));
    REFUSED((intent(&it_, ns, ctx, member_sk, 21, NULL, 0, "a", "v"),
             (void)relayed(&d_, member_pk, admin, admin_sk, 21, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREFUSED, "not a TEE of the namespace");
    mero_wipe(admin_sk, sizeof(admin_sk));
    /* a ReadOnly member's intent */
    uint8_t ro[32], rosk[64];
    mero_ed25519_keypair(ro, rosk);
    CHECK_OK(mero_gov_add_member(node.store, ns, ns, ro, MERO_ROLE_READONLY, NULL, NULL));
    REFUSED((intent(&it_, ns, ctx, rosk, 22, NULL, 0, "a", "v"),
             (void)relayed(&d_, ro, relay_pk, relay_sk, 22, T0 + 10, &it_, NULL, NULL)),
            -MERO_EREADONLY, "ReadOnlyWriteRefused");
    CHECK(value_is("a", NULL));
    /* the relay converted back to replica: its next relayed delta is refused, and kept without
     * effect (issue 30: a right lost; what it carried before raised the clock of the nodes that
     * took it) */
    CHECK_OK(mero__gov_row_plain(node.store, ns, relay_pk, MERO_ROLE_READONLY_TEE));
    REFUSED_KEPT((intent(&it_, ns, ctx, member_sk, 23, NULL, 0, "a", "v"),
                  (void)relayed(&d_, member_pk, relay_pk, relay_sk, 23, T0 + 10, &it_, NULL, NULL)),
                 -MERO_EREFUSED, "its root row is ReadOnlyTee");
    CHECK_OK(mero__gov_row_plain(node.store, ns, relay_pk, MERO_ROLE_RELAY_TEE));
    CHECK(value_is("a", NULL));
}

TEST(kept_for_its_key_then_checked)
{
    CHECK_OK(setup());
    uint8_t gk[32], kid[32];
    struct mero_err err = {0};
    mero_random(gk, sizeof(gk));
    mero_group_key_id(kid, gk); /* a key this node does not hold yet */
    struct mero_buf good, bad, dg, db;
    mero_buf_init(&good, 1 << 16);
    mero_buf_init(&bad, 1 << 16);
    mero_buf_init(&dg, 1 << 16);
    mero_buf_init(&db, 1 << 16);
    intent(&good, ns, ctx, member_sk, 40, NULL, 0, "later", "good");
    intent(&bad, ns, ctx, member_sk, 41, NULL, 0, "later2", "forged");
    bad.data[bad.len - 1] ^= 1;
    CHECK_OK(relayed(&dg, member_pk, relay_pk, relay_sk, 50, T0 + 10, &good, gk, kid));
    CHECK_OK(relayed(&db, member_pk, relay_pk, relay_sk, 51, T0 + 10, &bad, gk, kid));
    CHECK_OK(mero__node_ctx_apply(&node, dg.data, dg.len, &err));
    CHECK_OK(mero__node_ctx_apply(&node, db.data, db.len, &err));
    CHECK(stored(&dg) && stored(&db));
    CHECK(value_is("later", NULL));
    /* the key arrives: the good one is applied, the forged one refused and deleted */
    CHECK_OK(mero__gov_key_put(node.store, ns, gk));
    mero__node_ctx_retry(&node, ns);
    CHECK(value_is("later", "good"));
    CHECK(value_is("later2", NULL));
    CHECK(stored(&dg));
    CHECK(!stored(&db));
    mero_buf_cleanup(&good);
    mero_buf_cleanup(&bad);
    mero_buf_cleanup(&dg);
    mero_buf_cleanup(&db);
}

/* ---- the test vector of docs/relay.md "The relayed delta" ----------------------------------- */

#define RV_BYTES                                                                                   \
    "02222222222222222222222222222222222222222222222222222222222222222203a107bff3ce10be1d70dd18"   \
    "e74bc09967e4d6309ba50d5f1ddc8664125531b80100000000000000bb391415c05e39d77ca17381d3be3f7d0c"   \
    "d5e5332e5a579311adaa0aa62106e9c0c1c2c3c4c5c6c7c8c9cacb29acbae141bccaf0b22e1a94d34d0bc7361e"   \
    "526d0bfe12c89794bc9322966dd70ab95569000000000e0100005f702b4b2f87ac1e495aa95445ddde6eb9b693"   \
    "9e8bfccff5eb6590abd43e3515f1ad393729968b6b88eea7d391735f2fbdf5ac3eae281c42b0a3c454374c40aa"   \
    "4a470f34f1ff37de6738a93e96a32e019fc83f676330eee740bce7023179f72beeb05424d246c2d7a7ac49b06b"   \
    "4374ea0d41cb4d49d7d38721f8803e01dc7b0eb1668dc91f57e429bcb3bbf482846b0e71e8bc29d560f54a5b71"   \
    "49668baa601c7f493e66ceeee64523a08bd3009547f49843568ba14ee47428efd990820db2b6aef0b49bcefd8b"   \
    "ecfa53b0337190dcf59dcf1ac08b8f9e8fa76c90dc589c97f871397bf022d27b9b0d146953aa752223fdf158a4"   \
    "e2582ae85ce3ff113e632c5d3fb8891f7ac7506144c3916028618b9dc64312335882e82f562f26a370a652608b"   \
    "c6a551966090e20bcdf8eca4737049b19ff2568704f3d8c1d25fd25158e2e9fd73aca52931ebe3615aa3585604"
#define RV_ID       "bfbdf6427f6487749ef6b46d14b1fe60e0f19f8a292abd1c078f4f9c45590881"
#define RV_EXECUTOR "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd7"
#define RV_AUTHOR   "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"

static bool unhex(const char *h, uint8_t *out, size_t n)
{
    return mero_hex_decode_exact(out, n, h, strlen(h)) == 0;
}

TEST(doc_vector_applies_and_is_in_the_doc)
{
    struct mero_node vn;
    struct mero_err err = {0};
    uint8_t vns[32], vctx[32], gk[32], app[32] = {0}, ex[32], author[32], id[32], h[32];
    static uint8_t bytes[495];
    memset(&vn, 0, sizeof(vn));
    memset(vns, 0x11, sizeof(vns));
    memset(vctx, 0x22, sizeof(vctx));
    memset(gk, 0x44, sizeof(gk));
    CHECK(unhex(RV_BYTES, bytes, sizeof(bytes)) && unhex(RV_ID, id, 32) &&
          unhex(RV_EXECUTOR, ex, 32) && unhex(RV_AUTHOR, author, 32));
    mero_sha256(h, bytes, sizeof(bytes));
    CHECK_MEM_EQ(h, id, 32);
    /* a node holding the vector's namespace, context, key, relay row and member */
    CHECK_OK(mero_store_open(":memory:", &vn.store, &err));
    CHECK_OK(mero__node_db_open(&vn.db, ":memory:", true, &err));
    CHECK_OK(mero__node_ctx_open(&vn, &err));
    CHECK_OK(mero__gov_group_put(vn.store, vns, vns, vns, MERO_GROUP_OPEN, 1));
    CHECK_OK(mero__gov_context_put(vn.store, vctx, vns, vns, app, 2));
    CHECK_OK(mero__gov_key_put(vn.store, vns, gk));
    CHECK_OK(mero__gov_row_plain(vn.store, vns, ex, MERO_ROLE_RELAY_TEE));
    CHECK_OK(mero__gov_row_plain(vn.store, vns, author, MERO_ROLE_MEMBER));
    CHECK_OK(mero__node_ctx_apply(&vn, bytes, sizeof(bytes), &err));
    uint8_t *v = NULL, got[32];
    size_t n = 0;
    CHECK_OK(mero_node_ctx_get(&vn, vctx, "greeting", &v, &n, &err));
    CHECK(n == 12 && memcmp(v, "hello, relay", 12) == 0);
    free(v);
    CHECK_OK(mero_node_ctx_author(&vn, vctx, "greeting", got));
    CHECK_MEM_EQ(got, author, 32);
    /* one flipped bit anywhere in the clear header is refused */
    bytes[150] ^= 1;
    CHECK_FAILS(mero__node_ctx_apply(&vn, bytes, sizeof(bytes), &err));
    bytes[150] ^= 1;
    mero__node_db_close(vn.db);
    mero_store_close(vn.store);

    /* the doc carries the same hex (whitespace ignored) */
    const char *root = getenv("MERO_ROOT");
    char path[4096];
    snprintf(path, sizeof(path), "%s/docs/relay.md", root != NULL ? root : ".");
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    static char doc[1 << 17];
    size_t dn = 0;
    int c;
    while (f != NULL && (c = fgetc(f)) != EOF && dn + 1 < sizeof(doc)) {
        if (c != ' ' && c != '\n') {
            doc[dn++] = (char)c;
        }
    }
    doc[dn] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    CHECK(strstr(doc, RV_BYTES) != NULL);
    CHECK(strstr(doc, RV_ID) != NULL);
    CHECK(strstr(doc, RV_EXECUTOR) != NULL);
}

MERO_TEST_MAIN(T(relayed_write_is_the_members), T(refusals_at_the_cut),
               T(kept_for_its_key_then_checked), T(doc_vector_applies_and_is_in_the_doc))
