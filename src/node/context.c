/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context.c - a context's replicated key-value state. A write is a state delta:
 *
 *   version u8 (1) | context[32] | author[32] | lamport u64 | key_id[32] | nonce[12] |
 *   ct_len u32 | ct (AES-256-GCM under the group key key_id, AAD = the fields before it,
 *   plaintext = klen u32 | key | vlen u32 | value) | signature[64]
 *
 * signed by the author's namespace identity (Ed25519 over "mero.context.delta.v1" || every
 * byte before the signature); its hash is SHA-256 of the whole delta.
 *
 * A relayed delta (issue 15, docs/relay.md "The relayed delta") is version 2:
 *
 *   version u8 (2) | context[32] | author[32] | lamport u64 | key_id[32] | nonce[12] |
 *   executor[32] | relayed_at u64 | ct_len u32 | ct (AAD = every field before ct_len,
 *   plaintext = the member's signed intent, exactly its bytes) | signature[64]
 *
 * signed by the executor (the RelayTee carrying it) over "mero.context.delta.v2" || every byte
 * before the signature; author is the intent's signer, whose write it is. Its key and value are
 * the intent's own, so the write cannot differ from what the member signed. Every peer, in the
 * one apply path, refuses it (nothing stored) unless the executor may relay in the context's
 * group (mero_gov_relay_standing) and the author may write there; once the plaintext is at hand
 * (at once, or when the key arrives for a kept delta, which is then deleted if refused) the
 * intent must verify, name this namespace, context and author, be live at relayed_at, let this
 * executor carry it. Issue 30: a second copy of an intent (another relay carried it too) is
 * stored and counted, never refused: the intent takes effect once, at a position its copies and
 * its author's earlier intents decide, not the relays' clocks (ctx_intent.c); and a refusal is
 * remembered (ctx_refused.c) so that sync does not fetch and refuse the same delta every round.
 *
 * Invariants (spec "Read-only for its own writes"): every delta, whatever path brought it
 * (local write, gossip, sync pull), goes through mero_node_ctx_apply, which refuses one whose
 * author's effective role in the context's group is ReadOnly, ReadOnlyTee, RelayTee or none,
 * before anything is stored, one for a context of a namespace this node self-purged (its
 * tombstone, mero_gov_purged), and one whose lamport is beyond the context's clock (the greatest
 * lamport admitted here or given to a relayed intent, ctx_clock) plus MERO_LAMPORT_STEP. A
 * stored delta is immutable; the visible value of a key is the write with the greatest
 * position: a direct delta's (lamport, hash), a relayed intent's (leff, counted copy's hash)
 * (ctx_intent.c); positions only grow as deltas arrive, so every member converges on the same
 * state in any delivery order. A delta we cannot yet decrypt (key not delivered) is kept and
 * applied when the key arrives; meeting one (on apply or on a read) asks the key holders for
 * its key (issue 16, rate-limited per key id in node/admission/keys.c). A local write is
 * committed (synchronous=FULL) and is the key's current value before the API acknowledges it;
 * every lamport stored is in 1..INT64_MAX, so no arithmetic on it wraps. A read serves a value
 * only after checking it against its delta (hash, AES-GCM, key and value equal), so a damaged
 * node.db answers an error, never another key's value.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/log.h"
#include "node/admission/hook_internal.h"
#include "node/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

#define HDR_LEN                                                                                    \
    (1 + MERO_CONTEXT_ID_LEN + MERO_IDENTITY_LEN + 8 + MERO_KEY_ID_LEN + MERO_GCM_NONCE_LEN)
/* issue 15: a relayed delta's clear header adds executor and relayed_at */
#define RELAYED_HDR_LEN (HDR_LEN + MERO_IDENTITY_LEN + 8)

static const char *const schema[] = {
    "CREATE TABLE IF NOT EXISTS ctx_delta (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "hash BLOB UNIQUE NOT NULL, context BLOB NOT NULL, grp BLOB NOT NULL, "
    "bytes BLOB NOT NULL, applied INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ctx_delta_ctx ON ctx_delta(context, seq)",
    "CREATE TABLE IF NOT EXISTS ctx_kv (context BLOB NOT NULL, k TEXT NOT NULL, v BLOB NOT NULL, "
    "lamport INTEGER NOT NULL, hash BLOB NOT NULL, author BLOB NOT NULL, "
    "PRIMARY KEY(context, k))",
    "CREATE TABLE IF NOT EXISTS ctx_clock (context BLOB PRIMARY KEY, lamport INTEGER NOT NULL)",
};

struct delta {
    uint8_t ctx[MERO_CONTEXT_ID_LEN], author[MERO_IDENTITY_LEN], key_id[MERO_KEY_ID_LEN],
        nonce[MERO_GCM_NONCE_LEN], sig[MERO_ED25519_SIG_LEN];
    uint64_t lamport;
    const uint8_t *ct;
    uint32_t ct_len;
    size_t signed_len;
    /* issue 15: version 2, the relayed delta */
    uint8_t version;
    uint8_t executor[MERO_IDENTITY_LEN];
    uint64_t relayed_at;
    size_t aad_len; /* the clear header the AEAD binds: HDR_LEN or RELAYED_HDR_LEN */
};

static int decode(const uint8_t *p, size_t len, struct delta *d);
static int intent_backfill(struct mero_node *node);

bool mero_lamport_admissible(uint64_t clock, uint64_t l)
{
    if (l == 0 || l > MERO_LAMPORT_MAX) {
        return false;
    }
    /* l <= clock + STEP, written so that neither side can wrap */
    return l <= MERO_LAMPORT_STEP || l - MERO_LAMPORT_STEP <= clock;
}

int mero_lamport_next(uint64_t clock, uint64_t *next)
{
    if (clock >= MERO_LAMPORT_MAX) {
        return -MERO_ECLOCK;
    }
    *next = clock + 1;
    return 0;
}

/* The context's clock: the greatest lamport admitted in ctx here (0 for none). */
static int clock_of(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t *clock)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT lamport FROM ctx_clock WHERE context = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_int64 v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return -MERO_EIO;
    }
    *clock = v > 0 ? (uint64_t)v : 0;
    return 0;
}

/* Raise ctx's clock to l (l <= MERO_LAMPORT_MAX, checked by decode). */
static int clock_raise(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t l)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "INSERT INTO ctx_clock(context, lamport) VALUES(?1, ?2) "
                           "ON CONFLICT(context) DO UPDATE SET lamport = "
                           "MAX(ctx_clock.lamport, excluded.lamport)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)l);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

/* A node.db made before ctx_clock existed (deltas but no clock row): derive each context's
 * clock from its stored deltas, the value the apply path would have kept. A stored lamport
 * beyond 2^63-1 (accepted before the bound) does not decode and is left out. */
static int clock_backfill(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT EXISTS(SELECT 1 FROM ctx_clock) OR "
                           "NOT EXISTS(SELECT 1 FROM ctx_delta)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    bool done = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    if (done) {
        return 0;
    }
    if (mero_node_db_exec(node->db, "BEGIN IMMEDIATE") < 0 ||
        sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta", -1, &st, NULL) != SQLITE_OK) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    int rc = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct delta d;
        const uint8_t *p = sqlite3_column_blob(st, 0);
        int n = sqlite3_column_bytes(st, 0);
        if (p != NULL && n > 0 && decode(p, (size_t)n, &d) == 0) {
            MERO_TRY_OUT(clock_raise(node, d.ctx, d.lamport));
        }
    }
out:
    sqlite3_finalize(st);
    if (rc < 0 || mero_node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    return 0;
}

int mero_node_ctx_open(struct mero_node *node, struct mero_err *err)
{
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        if (mero_node_db_exec(node->db, schema[i]) < 0) {
            return mero_err_set(err, MERO_EIO, "cannot create the context tables");
        }
    }
    if (clock_backfill(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot derive the context clocks");
    }
    /* issue 30: intents counted once, refusals remembered */
    if (mero_node_ctx_intent_open(node) < 0 || mero_node_ctx_refused_open(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot create the context tables");
    }
    if (intent_backfill(node) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot count the relayed intents already applied");
    }
    return 0;
}

void mero_node_ctx_close(struct mero_node *node)
{
    (void)node;
}

int mero_node_ctx_lookup(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         uint8_t ns[MERO_NS_ID_LEN], uint8_t group[MERO_GROUP_ID_LEN])
{
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t nn = 0;
    MERO_TRY(mero_gov_namespaces(node->store, &nss, &nn));
    int rc = -MERO_ENOTFOUND;
    for (size_t i = 0; i < nn && rc == -MERO_ENOTFOUND; i++) {
        struct mero_gov_context *cs = NULL;
        size_t n = 0;
        if (mero_gov_contexts(node->store, nss[i], &cs, &n) < 0) {
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            if (memcmp(cs[k].id, ctx, MERO_CONTEXT_ID_LEN) == 0) {
                memcpy(ns, nss[i], MERO_NS_ID_LEN);
                memcpy(group, cs[k].group, MERO_GROUP_ID_LEN);
                rc = 0;
                break;
            }
        }
        free(cs);
    }
    free(nss);
    return rc;
}

static int decode(const uint8_t *p, size_t len, struct delta *d)
{
    struct mero_cur c;
    uint8_t v;
    mero_cur_init(&c, p, len);
    if (len > MERO_DELTA_MAX) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(mero_cur_u8(&c, &v));
    if (v != MERO_DELTA_VERSION && v != MERO_DELTA_RELAYED_VERSION) {
        return -MERO_ESCHEMA;
    }
    d->version = v;
    MERO_TRY(mero_cur_copy(&c, d->ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY(mero_cur_copy(&c, d->author, MERO_IDENTITY_LEN));
    MERO_TRY(mero_cur_u64le(&c, &d->lamport));
    if (d->lamport == 0 || d->lamport > MERO_LAMPORT_MAX) {
        return -MERO_ECLOCK;
    }
    MERO_TRY(mero_cur_copy(&c, d->key_id, MERO_KEY_ID_LEN));
    MERO_TRY(mero_cur_copy(&c, d->nonce, MERO_GCM_NONCE_LEN));
    if (v == MERO_DELTA_RELAYED_VERSION) {
        MERO_TRY(mero_cur_copy(&c, d->executor, MERO_IDENTITY_LEN));
        MERO_TRY(mero_cur_u64le(&c, &d->relayed_at));
    }
    d->aad_len = c.off;
    MERO_ASSERT(d->aad_len == (v == MERO_DELTA_RELAYED_VERSION ? RELAYED_HDR_LEN : HDR_LEN));
    MERO_TRY(mero_cur_u32le(&c, &d->ct_len));
    if (d->ct_len < MERO_AEAD_TAG_LEN || d->ct_len > mero_cur_left(&c)) {
        return -MERO_ETRUNC;
    }
    MERO_TRY(mero_cur_bytes(&c, d->ct_len, &d->ct));
    d->signed_len = c.off;
    MERO_TRY(mero_cur_copy(&c, d->sig, MERO_ED25519_SIG_LEN));
    if (mero_cur_left(&c) != 0) {
        return -MERO_EPROTO;
    }
    return 0;
}

static int verify_sig(const uint8_t *p, const struct delta *d)
{
    bool relayed = d->version == MERO_DELTA_RELAYED_VERSION;
    const char *dom = relayed ? MERO_DELTA_RELAYED_DOMAIN : MERO_DELTA_DOMAIN;
    size_t dl = strlen(dom);
    uint8_t *msg = malloc(dl + d->signed_len);
    if (msg == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(msg, dom, dl);
    memcpy(msg + dl, p, d->signed_len);
    /* a relayed delta is signed by its executor; a direct one by its author */
    int rc =
        mero_ed25519_verify(d->sig, msg, dl + d->signed_len, relayed ? d->executor : d->author);
    free(msg);
    return rc;
}

/* 0 when role may author state deltas (spec "Read-only for its own writes"). */
static int may_author(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t who[MERO_IDENTITY_LEN], struct mero_err *err)
{
    int role = MERO_ROLE_NONE, tee = MERO_ROLE_NONE;
    MERO_TRY(mero_gov_effective_role(node->store, group, who, &role));
    if (mero_gov_executor_standing(node->store, group, who, &tee) < 0) {
        tee = MERO_ROLE_NONE;
    }
    if (role == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_EPERM, "author is not a member of the context's group");
    }
    if (role == MERO_ROLE_READONLY || role == MERO_ROLE_READONLY_TEE ||
        role == MERO_ROLE_RELAY_TEE || tee != MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_EREADONLY, "ReadOnlyWriteRefused");
    }
    return 0;
}

/* issue 15: the write a delta carries, read from its plaintext (borrowed from it). */
struct write {
    const uint8_t *k, *v;
    uint32_t kl, vl;
    bool relayed;
    struct mero_intent it; /* relayed: the member's intent (value borrows the plaintext) */
};

/* Parse pt[0..pl) as d's write: klen u32 | key | vlen u32 | value (version 1) or the signed
 * intent (version 2; a refusal with the reason in err when it does not decode). */
static int parse_write(const struct delta *d, const uint8_t *pt, size_t pl, struct write *w,
                       struct mero_err *err)
{
    struct mero_cur c;
    memset(w, 0, sizeof(*w));
    if (d->version == MERO_DELTA_RELAYED_VERSION) {
        struct mero_err e = {0};
        if (mero_intent_decode(pt, pl, &w->it, &e) < 0) {
            return mero_err_set(err, MERO_EREFUSED, "the carried intent does not decode: %s",
                                e.msg);
        }
        w->relayed = true;
        w->k = (const uint8_t *)w->it.key;
        w->kl = (uint32_t)w->it.key_len;
        w->v = w->it.value;
        w->vl = (uint32_t)w->it.value_len;
        return 0;
    }
    mero_cur_init(&c, pt, pl);
    MERO_TRY(mero_cur_u32le(&c, &w->kl));
    MERO_ENSURE(w->kl != 0 && w->kl <= 256, NULL, MERO_EPROTO, "key length");
    MERO_TRY(mero_cur_bytes(&c, w->kl, &w->k));
    MERO_TRY(mero_cur_u32le(&c, &w->vl));
    MERO_TRY(mero_cur_bytes(&c, w->vl, &w->v));
    MERO_ENSURE(mero_cur_left(&c) == 0 && memchr(w->k, 0, w->kl) == NULL, NULL, MERO_EPROTO,
                "plaintext");
    return 0;
}

/* issue 15: 0 when executor may relay in group (mero_gov_relay_standing), else a refusal. */
static int executor_ok(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t executor[MERO_IDENTITY_LEN], struct mero_err *err)
{
    int standing = MERO_ROLE_NONE;
    bool yes = false;
    char who[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    if (mero_gov_relay_standing(node->store, group, executor, &standing, &yes) < 0) {
        yes = false;
    }
    if (yes) {
        return 0;
    }
    mero_hex_encode(who, executor, MERO_IDENTITY_LEN);
    return mero_err_set(err, MERO_EREFUSED,
                        "the executor %.16s… may not relay in the context's group (%s)", who,
                        standing == MERO_ROLE_READONLY_TEE ? "its root row is ReadOnlyTee"
                        : standing == MERO_ROLE_RELAY_TEE  ? "it does not reach the group"
                                                           : "it is not a TEE of the namespace");
}

/*
 * The checks of a relayed write (mero_node_relay_check; route: the intents route's form). A
 * refusal sets *for_now when its reason is the state of governance (the executor's standing,
 * the author's role, the group): that may change. Every other reason depends only on the intent
 * and the delta's clear header, so it holds for good (issue 30, ctx_refused.c).
 */
static int relay_check(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       const uint8_t executor[MERO_IDENTITY_LEN],
                       const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                       const struct mero_intent *it, bool route, struct mero_err *err,
                       bool *for_now)
{
    uint8_t ns[MERO_NS_ID_LEN], id[MERO_INTENT_ID_LEN];
    struct mero_err e = {0};
    bool taken = false;
    *for_now = true;
    MERO_TRY(executor_ok(node, group, executor, err));
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "the context's group is unknown");
    *for_now = false;
    MERO_ENSURE(mero_intent_verify(it, NULL) == 0, err, MERO_EREFUSED,
                "the intent's signature does not verify");
    MERO_ENSURE(memcmp(it->ns, ns, sizeof(ns)) == 0, err, MERO_EINVAL,
                "the intent is for another namespace than the context's");
    MERO_ENSURE(memcmp(it->context, ctx, MERO_CONTEXT_ID_LEN) == 0, err, MERO_EINVAL,
                "the intent is for another context");
    MERO_ENSURE(memcmp(it->author, author, MERO_IDENTITY_LEN) == 0, err, MERO_EREFUSED,
                "the delta's author is not the intent's signer");
    *for_now = true;
    MERO_TRY(may_author(node, group, it->author, err));
    *for_now = false;
    MERO_ENSURE(it->op == MERO_INTENT_PUT, err, MERO_EUNSUPPORTED,
                "the intent deletes a key; contexts have no delete yet");
    if (mero_intent_live_at(it, relayed_at, &e) < 0) {
        return mero_err_set(err, MERO_EREFUSED, "the intent is not live at %llu: %s",
                            (unsigned long long)relayed_at, e.msg);
    }
    MERO_ENSURE(mero_intent_warrant_allows(it, executor), err, MERO_EREFUSED,
                "the intent's warrant names another relay");
    if (!route) {
        return 0; /* at the cut a second copy of an intent is counted, not refused */
    }
    MERO_ENSURE(mero_intent_id(it, id) == 0 &&
                    mero_node_ctx_intent_nonce_taken(node, it, id, &taken) == 0,
                err, MERO_EIO, "cannot read the intents held");
    MERO_ENSURE(!taken, err, MERO_EEXIST,
                "replayed intent: its (author, nonce) was already carried by another intent");
    return 0;
}

int mero_node_relay_check(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          const uint8_t executor[MERO_IDENTITY_LEN],
                          const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                          const struct mero_intent *it, const uint8_t *hash, struct mero_err *err)
{
    bool for_now = false;
    return relay_check(node, group, ctx, executor, author, relayed_at, it, hash == NULL, err,
                       &for_now);
}

/*
 * d's plaintext, opened under the group key it names into *pt (owned: close_write) and parsed
 * into w (which borrows it). 1 done, 0 the key is not held here, -MERO_ENOMEM, or a refusal for
 * good with the reason in err: the delta does not open or parse under the key it names.
 */
static int open_write(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t *bytes, const struct delta *d, uint8_t **pt, size_t *pl,
                      struct write *w, struct mero_err *err)
{
    uint8_t key[MERO_GROUP_KEY_LEN];
    struct mero_err pe = {0};
    memset(w, 0, sizeof(*w));
    *pt = NULL;
    *pl = d->ct_len - MERO_AEAD_TAG_LEN;
    if (mero_gov_group_key_by_id(node->store, group, d->key_id, key) < 0) {
        return 0;
    }
    uint8_t *p = malloc(*pl ? *pl : 1);
    if (p == NULL) {
        mero_wipe(key, sizeof(key));
        return -MERO_ENOMEM;
    }
    int rc = mero_aes256gcm_open(p, d->ct, d->ct_len, bytes, d->aad_len, d->nonce, key);
    mero_wipe(key, sizeof(key));
    if (rc < 0) {
        rc = mero_err_set(err, MERO_EPROTO, "the delta does not open under the group key it names");
    } else if (parse_write(d, p, *pl, w, &pe) < 0) {
        rc = mero_err_set(err, pe.code != 0 ? pe.code : MERO_EPROTO, "%s",
                          pe.code != 0 ? pe.msg : "the delta's plaintext is not a key and value");
    }
    if (rc < 0) {
        mero_wipe(w, sizeof(*w));
        mero_wipe(p, *pl ? *pl : 1);
        free(p);
        return rc;
    }
    *pt = p;
    return 1;
}

/* The plaintext of open_write does not outlive its use, nor the relayed intent's copy of the key.
 */
static void close_write(uint8_t *pt, size_t pl, struct write *w)
{
    mero_wipe(w, sizeof(*w));
    if (pt != NULL) {
        mero_wipe(pt, pl ? pl : 1);
    }
    free(pt);
}

/* Offer w's key = value by author at position (lamport, hash) to ctx's last-writer-wins: it
 * replaces the key's value only when (lamport, hash) is greater than the current one's. */
static int offer(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                 const struct write *w, uint64_t lamport, const uint8_t hash[MERO_DELTA_ID_LEN],
                 const uint8_t author[MERO_IDENTITY_LEN])
{
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO ctx_kv(context, k, v, lamport, hash, author) "
                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(context, k) DO UPDATE SET "
                      "v = excluded.v, lamport = excluded.lamport, hash = excluded.hash, "
                      "author = excluded.author WHERE excluded.lamport > ctx_kv.lamport OR "
                      "(excluded.lamport = ctx_kv.lamport AND excluded.hash > ctx_kv.hash)";
    if (sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, (const char *)w->k, (int)w->kl, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, w->vl ? (const void *)w->v : (const void *)"", (int)w->vl,
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)lamport); /* <= INT64_MAX: decode, ctx_intent.c */
    sqlite3_bind_blob(st, 5, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 6, author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero_node_ctx_offer_stored(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                               const uint8_t hash[MERO_DELTA_ID_LEN], uint64_t lamport)
{
    uint8_t *bytes = NULL, *pt = NULL;
    size_t len = 0, pl = 0;
    struct delta d;
    struct write w;
    memset(&w, 0, sizeof(w));
    int rc = mero_node_ctx_delta(node, hash, &bytes, &len);
    if (rc == 0) {
        rc = decode(bytes, len, &d) == 0 ? open_write(node, group, bytes, &d, &pt, &pl, &w, NULL)
                                         : -MERO_EIO;
    }
    if (rc == 0) {
        rc = -MERO_EIO; /* a counted copy was opened here to be counted: its key is held */
    }
    if (rc > 0) {
        rc = clock_raise(node, d.ctx, lamport); /* a later local write sorts after it */
    }
    if (rc == 0) {
        rc = offer(node, d.ctx, &w, lamport, hash, d.author);
    }
    close_write(pt, pl, &w);
    free(bytes);
    return rc == -MERO_ENOMEM ? rc : rc < 0 ? -MERO_EIO : 0;
}

/*
 * Decrypt d and offer its write to last-writer-wins: a direct write at its (lamport, hash); a
 * relayed one, once checked (relay_check), is counted as a copy of its intent, which takes effect
 * once at its intent's position (ctx_intent.c). 1 when applied, 0 no key. A refusal returns its
 * code with the reason in err, *for_now set when the reason is the state of governance; an I/O
 * failure leaves err untouched.
 */
static int materialise(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t *bytes, const struct delta *d,
                       const uint8_t hash[MERO_DELTA_ID_LEN], struct mero_err *err, bool *for_now)
{
    uint8_t *pt = NULL;
    size_t pl = 0;
    struct write w;
    *for_now = false;
    int rc = open_write(node, group, bytes, d, &pt, &pl, &w, err);
    if (rc <= 0) {
        return rc;
    }
    if (w.relayed) {
        rc = relay_check(node, group, d->ctx, d->executor, d->author, d->relayed_at, &w.it, false,
                         err, for_now);
        if (rc == 0) {
            rc = mero_node_ctx_intent_count(node, group, &w.it, d->lamport, hash);
        }
    } else {
        rc = offer(node, d->ctx, &w, d->lamport, hash, d->author);
    }
    close_write(pt, pl, &w);
    return rc < 0 ? rc : 1;
}

/* Run sql with ?1 bound to a 32-byte id: a delta's hash, or a context or group id. */
_Static_assert(MERO_DELTA_ID_LEN == MERO_CONTEXT_ID_LEN && MERO_CONTEXT_ID_LEN == MERO_GROUP_ID_LEN,
               "exec_hash binds a delta hash or a context or group id as one blob width");
static int exec_hash(struct mero_node *node, const char *sql, const uint8_t id[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, id, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero_node_ctx_has(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT 1 FROM ctx_delta WHERE hash = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    *yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return 0;
}

/* issue 30: what a refusal was, for the memory of refusals (ctx_refused.c). */
struct verdict {
    bool remember; /* remember it: for good, or for now (against ns's governance) */
    bool for_now;
    bool repeat; /* answered from that memory: refused before */
    uint8_t ns[MERO_NS_ID_LEN];
};

static int apply_delta(struct mero_node *node, const uint8_t *bytes, size_t len,
                       const uint8_t hash[MERO_DELTA_ID_LEN], struct mero_err *err,
                       struct verdict *v)
{
    struct delta d;
    struct mero_err merr = {0}, was = {0};
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
    bool for_now = false;
    int rc = decode(bytes, len, &d);
    v->remember = rc < 0; /* the bytes do not decode: for good */
    if (rc == -MERO_ECLOCK) {
        return mero_err_set(err, MERO_ECLOCK, "delta lamport %llu is outside 1..2^63-1",
                            (unsigned long long)d.lamport);
    }
    if (rc < 0) {
        return mero_err_set(err, -rc, "delta does not decode");
    }
    bool have = false;
    int known = MERO_CTX_UNKNOWN;
    MERO_TRY(mero_node_ctx_has(node, hash, &have));
    if (have) {
        return 0;
    }
    if (mero_node_ctx_refusal_get(node, hash, &known, &was) == 0 && known != MERO_CTX_UNKNOWN) {
        v->repeat = true;
        return mero_err_set(err, was.code > 0 ? was.code : MERO_EREFUSED, "%s", was.msg);
    }
    if (verify_sig(bytes, &d) < 0) {
        v->remember = true;
        return mero_err_set(err, MERO_EBADSIG, "delta signature does not verify");
    }
    if (mero_node_ctx_lookup(node, d.ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "delta for an unknown context");
    }
    bool purged = true;
    if (mero_gov_purged(node->store, ns, &purged) < 0 || purged) {
        return mero_err_set(err, MERO_EPERM, "delta for a namespace this node self-purged");
    }
    memcpy(v->ns, ns, sizeof(v->ns));
    rc = may_author(node, group, d.author, err);
    if (rc == 0 && d.version == MERO_DELTA_RELAYED_VERSION) {
        /* the clear header's checks run before anything is stored, key or not */
        rc = executor_ok(node, group, d.executor, err);
    }
    if (rc < 0) {
        v->remember = v->for_now = true; /* governance may still change its mind */
        return rc;
    }
    if (mero_node_db_exec(node->db, "BEGIN IMMEDIATE") < 0) {
        return mero_err_set(err, MERO_EIO, "cannot start a write: %s", sqlite3_errmsg(node->db));
    }
    uint64_t clock = 0;
    bool keyless = false;
    if (clock_of(node, d.ctx, &clock) < 0) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (!mero_lamport_admissible(clock, d.lamport)) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return mero_err_set(err, MERO_ECLOCK,
                            "delta lamport %llu is beyond the context clock %llu + %llu",
                            (unsigned long long)d.lamport, (unsigned long long)clock,
                            (unsigned long long)MERO_LAMPORT_STEP);
    }
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(node->db,
                            "INSERT INTO ctx_delta(hash, context, grp, bytes, applied) "
                            "VALUES(?1, ?2, ?3, ?4, 0)",
                            -1, &st, NULL) == SQLITE_OK
             ? 0
             : -MERO_EIO;
    if (rc < 0) {
        goto out;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, d.ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, bytes, (int)len, SQLITE_STATIC);
    MERO_ENSURE_OUT(sqlite3_step(st) == SQLITE_DONE, NULL, MERO_EIO, "step");
    MERO_TRY_OUT(clock_raise(node, d.ctx, d.lamport));
    MERO_TRY_OUT(materialise(node, group, bytes, &d, hash, &merr, &for_now));
    keyless = rc == 0;
    if (rc == 1) {
        MERO_TRY_OUT(exec_hash(node, "UPDATE ctx_delta SET applied = 1 WHERE hash = ?1", hash));
    }
out:
    sqlite3_finalize(st);
    if (rc < 0 && merr.code != 0) {
        /* refused once its plaintext was read: nothing is stored */
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        v->remember = true;
        v->for_now = for_now;
        return mero_err_set(err, merr.code, "%s", merr.msg);
    }
    if (rc < 0 || mero_node_db_exec(node->db, "COMMIT") < 0) {
        char why[128];
        snprintf(why, sizeof(why), "%s", sqlite3_errmsg(node->db));
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return mero_err_set(err, MERO_EIO, "cannot store the delta: %s", why);
    }
    if (keyless) {
        /* kept for later; ask the key holders for the key (issue 16, rate-limited) */
        mero_node_admission_key_missing(node, ns, group, d.key_id);
    }
    return 0;
}

/* Log a delta's refusal: the first time at INFO, later ones at DEBUG (issue 30); never the
 * value (no reason names it). */
static void log_refusal(const uint8_t *bytes, size_t len, const uint8_t hash[MERO_DELTA_ID_LEN],
                        bool first, const char *why)
{
    char h[MERO_HEX_SIZE(MERO_DELTA_ID_LEN)];
    const char *what =
        len > 0 && bytes[0] == MERO_DELTA_RELAYED_VERSION ? "relayed delta" : "delta";
    mero_hex_encode(h, hash, MERO_DELTA_ID_LEN);
    if (first) {
        MERO_INFO("%s %.16s… refused: %s", what, h, why);
    } else {
        MERO_DEBUG("%s %.16s… refused again: %s", what, h, why);
    }
}

int mero_node_ctx_apply(struct mero_node *node, const uint8_t *bytes, size_t len,
                        struct mero_err *err)
{
    struct mero_err e = {0};
    struct verdict v = {0};
    uint8_t hash[MERO_DELTA_ID_LEN];
    mero_sha256(hash, bytes, len);
    int rc = apply_delta(node, bytes, len, hash, &e, &v);
    if (rc < 0) {
        int code = e.code != 0 ? e.code : -rc;
        bool first = !v.repeat;
        if (v.remember && !v.repeat) {
            mero_node_ctx_refusal_note(node, hash, v.for_now ? v.ns : NULL, code, e.msg, &first);
        }
        if (len > 0 && bytes[0] == MERO_DELTA_RELAYED_VERSION) {
            /* every path (gossip, sync, local) logs a relayed delta's refusal */
            log_refusal(bytes, len, hash, first, e.msg);
        }
        return mero_err_set(err, code, "%s", e.msg);
    }
    return rc;
}

int mero_node_ctx_purge(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t group[MERO_GROUP_ID_LEN])
{
    struct mero_gov_context *cs = NULL;
    size_t n = 0;
    bool whole = memcmp(ns, group, MERO_GROUP_ID_LEN) == 0;
    MERO_TRY(mero_gov_contexts(node->store, ns, &cs, &n));
    int rc;
    MERO_TRY_OUT(mero_node_db_exec(node->db, "BEGIN IMMEDIATE"));
    for (size_t i = 0; i < n; i++) {
        if (!whole && memcmp(cs[i].group, group, MERO_GROUP_ID_LEN) != 0) {
            continue;
        }
        MERO_TRY_OUT(exec_hash(node, "DELETE FROM ctx_kv WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(exec_hash(node, "DELETE FROM ctx_delta WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(exec_hash(node, "DELETE FROM ctx_clock WHERE context = ?1", cs[i].id));
        MERO_TRY_OUT(exec_hash(node, "DELETE FROM ctx_intent WHERE context = ?1", cs[i].id));
    }
    if (!whole) {
        MERO_TRY_OUT(exec_hash(node, "DELETE FROM ctx_delta WHERE grp = ?1", group));
    }
out:
    free(cs);
    if (rc < 0 || mero_node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    if (whole) {
        mero_node_ctx_refusal_forget(node, ns);
    }
    return 0;
}

/* Materialise one kept delta whose key may have arrived (mero_node_ctx_retry), in one
 * transaction when none is open: applied, or refused (deleted, remembered, logged). */
static void retry_one(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t *p, size_t n)
{
    struct delta d;
    uint8_t hash[MERO_DELTA_ID_LEN], ns[MERO_NS_ID_LEN];
    struct mero_err e = {0};
    bool for_now = false, first = true;
    if (decode(p, n, &d) < 0) {
        return;
    }
    mero_sha256(hash, p, n);
    bool tx =
        sqlite3_get_autocommit(node->db) && mero_node_db_exec(node->db, "BEGIN IMMEDIATE") == 0;
    int m = materialise(node, group, p, &d, hash, &e, &for_now);
    if (m == 1) {
        (void)exec_hash(node, "UPDATE ctx_delta SET applied = 1 WHERE hash = ?1", hash);
    } else if (m < 0 && e.code != 0) {
        /* a kept delta refused once its key arrived: not kept any longer */
        (void)exec_hash(node, "DELETE FROM ctx_delta WHERE hash = ?1", hash);
    }
    if (tx) {
        (void)mero_node_db_exec(node->db, m < 0 && e.code == 0 ? "ROLLBACK" : "COMMIT");
    }
    if (m < 0 && e.code != 0) {
        bool ns_ok = !for_now || mero_gov_namespace_of(node->store, group, ns) == 0;
        if (ns_ok) {
            mero_node_ctx_refusal_note(node, hash, for_now ? ns : NULL, e.code, e.msg, &first);
        }
        log_refusal(p, n, hash, first, e.msg);
    }
}

void mero_node_ctx_retry(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta WHERE grp = ?1 AND applied = 0",
                           -1, &st, NULL) != SQLITE_OK) {
        return;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    struct mero_buf all; /* (len u32, bytes)* copied out before updating rows */
    mero_buf_init(&all, 64u << 20);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_bytes(st, 0);
        if (mero_buf_append_u32le(&all, (uint32_t)n) < 0 ||
            mero_buf_append(&all, sqlite3_column_blob(st, 0), (size_t)n) < 0) {
            break;
        }
    }
    sqlite3_finalize(st);
    struct mero_cur c;
    mero_cur_init(&c, all.data, all.len);
    while (mero_cur_left(&c) > 0) {
        uint32_t n;
        const uint8_t *p;
        if (mero_cur_u32le(&c, &n) < 0 || mero_cur_bytes(&c, n, &p) < 0) {
            break;
        }
        retry_one(node, group, p, n);
    }
    mero_buf_cleanup(&all);
}

/*
 * issue 30: a node.db made before ctx_intent counts the relayed deltas it applied (each the one
 * copy of its intent that issue 15's first-seen rule kept), so their authors' chains start
 * complete. It needs the gov store for the group keys (merod check opens node.db without it):
 * done once, recorded in node_meta.
 */
#define META_INTENTS_COUNTED "ctx_intents_counted"
static int intent_backfill(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    bool done = false;
    int rc = 0;
    if (node->store == NULL) {
        return 0;
    }
    MERO_TRY(mero_node_meta_get(node->db, META_INTENTS_COUNTED, &done));
    if (done) {
        return 0;
    }
    MERO_TRY(mero_node_db_exec(node->db, "BEGIN IMMEDIATE"));
    MERO_ENSURE_OUT(sqlite3_prepare_v2(node->db,
                                       "SELECT hash, grp, bytes FROM ctx_delta WHERE applied = 1 "
                                       "ORDER BY seq",
                                       -1, &st, NULL) == SQLITE_OK,
                    NULL, MERO_EIO, "prepare");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        uint8_t hash[MERO_DELTA_ID_LEN], group[MERO_GROUP_ID_LEN], *pt = NULL;
        size_t pl = 0;
        struct delta d;
        struct write w;
        if (p == NULL || n == 0 || p[0] != MERO_DELTA_RELAYED_VERSION ||
            sqlite3_column_bytes(st, 0) != MERO_DELTA_ID_LEN ||
            sqlite3_column_bytes(st, 1) != MERO_GROUP_ID_LEN || decode(p, n, &d) < 0) {
            continue;
        }
        memcpy(hash, sqlite3_column_blob(st, 0), sizeof(hash));
        memcpy(group, sqlite3_column_blob(st, 1), sizeof(group));
        if (open_write(node, group, p, &d, &pt, &pl, &w, NULL) == 1 && w.relayed) {
            rc = mero_node_ctx_intent_count(node, group, &w.it, d.lamport, hash);
        }
        close_write(pt, pl, &w);
        MERO_TRY_OUT(rc);
    }
    MERO_TRY_OUT(mero_node_meta_set(node->db, META_INTENTS_COUNTED, "1"));
out:
    sqlite3_finalize(st);
    if (rc < 0 || mero_node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero_node_db_exec(node->db, "ROLLBACK");
        return -MERO_EIO;
    }
    return 0;
}

/* The key's current value: 1 and its (lamport, hash, author) when there is one, 0 none. */
static int current(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                   uint64_t *lamport, uint8_t hash[MERO_DELTA_ID_LEN],
                   uint8_t author[MERO_IDENTITY_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT lamport, hash, author FROM ctx_kv WHERE context = ?1 AND k = ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int found = 0;
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 1) == MERO_DELTA_ID_LEN &&
        sqlite3_column_bytes(st, 2) == MERO_IDENTITY_LEN) {
        sqlite3_int64 l = sqlite3_column_int64(st, 0);
        *lamport = l > 0 ? (uint64_t)l : 0;
        memcpy(hash, sqlite3_column_blob(st, 1), MERO_DELTA_ID_LEN);
        memcpy(author, sqlite3_column_blob(st, 2), MERO_IDENTITY_LEN);
        found = 1;
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        found = -MERO_EIO;
    }
    sqlite3_finalize(st);
    return found;
}

/* 0 when the delta (lamport, hash) is or would become key's current value; otherwise
 * -MERO_ESUPERSEDED with the current value's author and clock in err. */
static int wins(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                uint64_t lamport, const uint8_t hash[MERO_DELTA_ID_LEN], struct mero_err *err)
{
    uint64_t cl = 0;
    uint8_t ch[MERO_DELTA_ID_LEN], ca[MERO_IDENTITY_LEN];
    int rc = current(node, ctx, key, &cl, ch, ca);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot read the key's current value");
    }
    if (rc == 0 || cl < lamport || (cl == lamport && memcmp(ch, hash, MERO_DELTA_ID_LEN) <= 0)) {
        return 0;
    }
    char who[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    mero_hex_encode(who, ca, sizeof(ca));
    return mero_err_set(err, MERO_ESUPERSEDED,
                        "WriteSuperseded: `%s` holds the write of author %s at clock %llu, "
                        "which this write (clock %llu) would not replace; nothing was written",
                        key, who, (unsigned long long)cl, (unsigned long long)lamport);
}

/* The signed delta bytes of a write of key = value in ctx by me at lamport, sealed under gk. */
/* issue 15: what a relayed delta adds (version 2): the intent as plaintext, the executor (us)
 * and relayed_at in the clear header. */
struct relayed {
    const uint8_t *intent;
    size_t len;
    const uint8_t *executor;
    uint64_t relayed_at;
};

static int build_delta(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       const uint8_t ns[MERO_NS_ID_LEN], const uint8_t me[MERO_IDENTITY_LEN],
                       uint64_t lamport, const uint8_t gk[MERO_GROUP_KEY_LEN],
                       const uint8_t key_id[MERO_KEY_ID_LEN], const char *key, const uint8_t *value,
                       size_t vlen, const struct relayed *rl, struct mero_buf *d)
{
    const char *dom = rl != NULL ? MERO_DELTA_RELAYED_DOMAIN : MERO_DELTA_DOMAIN;
    size_t kl = rl != NULL ? 0 : strlen(key), dl = strlen(dom);
    struct mero_buf pt, msg;
    uint8_t nonce[MERO_GCM_NONCE_LEN], sk[MERO_ED25519_SK_LEN], sig[MERO_ED25519_SIG_LEN];
    uint8_t *ct = NULL;
    int rc;
    mero_buf_init(&pt, MERO_DELTA_MAX);
    mero_buf_init(&msg, MERO_DELTA_MAX + 64);
    if (rl != NULL) {
        MERO_TRY_OUT(mero_buf_append(&pt, rl->intent, rl->len));
    } else {
        MERO_TRY_OUT(mero_buf_append_u32le(&pt, (uint32_t)kl));
        MERO_TRY_OUT(mero_buf_append(&pt, key, kl));
        MERO_TRY_OUT(mero_buf_append_u32le(&pt, (uint32_t)vlen));
        MERO_TRY_OUT(mero_buf_append(&pt, vlen ? value : (const uint8_t *)"", vlen));
    }
    mero_random(nonce, sizeof(nonce));
    MERO_TRY_OUT(
        mero_buf_append_u8(d, rl != NULL ? MERO_DELTA_RELAYED_VERSION : MERO_DELTA_VERSION));
    MERO_TRY_OUT(mero_buf_append(d, ctx, MERO_CONTEXT_ID_LEN));
    MERO_TRY_OUT(mero_buf_append(d, me, MERO_IDENTITY_LEN));
    MERO_TRY_OUT(mero_buf_append_u64le(d, lamport));
    MERO_TRY_OUT(mero_buf_append(d, key_id, MERO_KEY_ID_LEN));
    MERO_TRY_OUT(mero_buf_append(d, nonce, sizeof(nonce)));
    if (rl != NULL) {
        MERO_TRY_OUT(mero_buf_append(d, rl->executor, MERO_IDENTITY_LEN));
        MERO_TRY_OUT(mero_buf_append_u64le(d, rl->relayed_at));
    }
    size_t aad = d->len;
    MERO_TRY_OUT(mero_buf_append_u32le(d, (uint32_t)(pt.len + MERO_AEAD_TAG_LEN)));
    ct = malloc(pt.len + MERO_AEAD_TAG_LEN);
    MERO_ENSURE_OUT(ct != NULL, NULL, MERO_ENOMEM, "out of memory");
    MERO_TRY_OUT(mero_aes256gcm_seal(ct, pt.data, pt.len, d->data, aad, nonce, gk));
    MERO_TRY_OUT(mero_buf_append(d, ct, pt.len + MERO_AEAD_TAG_LEN));
    MERO_TRY_OUT(mero_buf_append(&msg, dom, dl));
    MERO_TRY_OUT(mero_buf_append(&msg, d->data, d->len));
    MERO_TRY_OUT(mero_gov_identity_secret(node->store, ns, sk));
    mero_ed25519_sign(sig, msg.data, msg.len, sk);
    MERO_TRY_OUT(mero_buf_append(d, sig, sizeof(sig)));
out:
    mero_wipe(sk, sizeof(sk));
    free(ct);
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&pt);
    return rc;
}

/* The tail of a local write, direct or relayed: apply the built delta through the one apply
 * path, then gossip it (a forced test write is published even when refused here). Frees d. */
static int apply_and_publish(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             struct mero_buf *d, bool force, struct mero_err *err)
{
    struct mero_err aerr = {0};
    int rc = mero_node_ctx_apply(node, d->data, d->len, &aerr);
    if (rc < 0 && !force) {
        mero_buf_cleanup(d);
        return mero_err_set(err, -rc, "%s", aerr.msg);
    }
    (void)mero_node_publish(node, ns, MERO_GOSSIP_DELTA, d->data, d->len);
    mero_buf_cleanup(d);
    return 0;
}

int mero_node_ctx_put(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const char *key, const uint8_t *value, size_t vlen, bool force,
                      uint64_t lamport, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN], me[MERO_IDENTITY_LEN],
        gk[MERO_GROUP_KEY_LEN], key_id[MERO_KEY_ID_LEN];
    if (mero_node_ctx_lookup(node, ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "context not found");
    }
    if (mero_gov_identity(node->store, ns, false, me, err) < 0) {
        return mero_err_set(err, MERO_EPERM, "this node is not a member of the namespace");
    }
    if (!force) {
        MERO_TRY(may_author(node, group, me, err));
    }
    uint64_t clock = 0;
    if (clock_of(node, ctx, &clock) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (!force || lamport == 0) {
        if (mero_lamport_next(clock, &lamport) < 0) {
            return mero_err_set(err, MERO_ECLOCK, "the context's clock is exhausted (%llu)",
                                (unsigned long long)clock);
        }
    }
    if (mero_gov_group_key(node->store, group, gk, key_id) < 0) {
        return mero_err_set(err, MERO_ESTATE, "this node holds no key for the context's group");
    }
    struct mero_buf d;
    mero_buf_init(&d, MERO_DELTA_MAX);
    int rc = build_delta(node, ctx, ns, me, lamport, gk, key_id, key, value, vlen, NULL, &d);
    mero_wipe(gk, sizeof(gk));
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return mero_err_set(err, -rc, "cannot build the delta");
    }
    uint8_t hash[MERO_DELTA_ID_LEN];
    mero_sha256(hash, d.data, d.len);
    rc = force ? 0 : wins(node, ctx, key, lamport, hash, err);
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return rc;
    }
    return apply_and_publish(node, ns, &d, force, err);
}

int mero_node_ctx_put_relayed(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                              const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t group[MERO_GROUP_ID_LEN],
                              const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                              const uint8_t *intent, size_t len, bool force,
                              uint8_t id[MERO_DELTA_ID_LEN], struct mero_err *err)
{
    uint8_t me[MERO_IDENTITY_LEN], gk[MERO_GROUP_KEY_LEN], key_id[MERO_KEY_ID_LEN];
    uint64_t clock = 0, lamport = 0;
    if (mero_gov_identity(node->store, ns, false, me, err) < 0) {
        return mero_err_set(err, MERO_EPERM, "this node is not a member of the namespace");
    }
    if (clock_of(node, ctx, &clock) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (mero_lamport_next(clock, &lamport) < 0) {
        return mero_err_set(err, MERO_ECLOCK, "the context's clock is exhausted (%llu)",
                            (unsigned long long)clock);
    }
    if (mero_gov_group_key(node->store, group, gk, key_id) < 0) {
        return mero_err_set(err, MERO_ESTATE, "this node holds no key for the context's group");
    }
    struct relayed rl = {.intent = intent, .len = len, .executor = me, .relayed_at = relayed_at};
    struct mero_buf d;
    mero_buf_init(&d, MERO_DELTA_MAX);
    int rc = build_delta(node, ctx, ns, author, lamport, gk, key_id, "", NULL, 0, &rl, &d);
    mero_wipe(gk, sizeof(gk));
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return mero_err_set(err, -rc, "cannot build the relayed delta");
    }
    mero_sha256(id, d.data, d.len);
    return apply_and_publish(node, ns, &d, force, err);
}

int mero_node_ctx_author(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         const char *key, uint8_t author[MERO_IDENTITY_LEN])
{
    uint64_t l = 0;
    uint8_t h[MERO_DELTA_ID_LEN];
    int rc = current(node, ctx, key, &l, h, author);
    return rc < 0 ? rc : rc == 1 ? 0 : -MERO_ENOTFOUND;
}

/*
 * A visible value checked against the delta that made it (node.db holds both; SQLite has no
 * per-page checksums, so a flipped byte in a row or an index could otherwise be served): the
 * row's key is the key asked for, the delta hashes to the row's hash, opens under its group
 * key (AES-GCM authenticates it) and carries exactly this key and value. 0 when consistent,
 * -MERO_ESTATE when not (with what differs in err), -MERO_ENOTFOUND when the key is not held.
 */
/* A ctx_kv row joined with the delta its hash names (columns k, v, hash, delta bytes). */
struct kv_row {
    const uint8_t *k, *v, *hash, *bytes;
    size_t kl, vl, hash_len, len;
};

static void kv_row_read(sqlite3_stmt *st, int first, struct kv_row *r)
{
    r->k = sqlite3_column_text(st, first);
    r->kl = (size_t)sqlite3_column_bytes(st, first);
    r->v = sqlite3_column_blob(st, first + 1);
    r->vl = (size_t)sqlite3_column_bytes(st, first + 1);
    r->hash = sqlite3_column_blob(st, first + 2);
    r->hash_len = (size_t)sqlite3_column_bytes(st, first + 2);
    r->bytes = sqlite3_column_blob(st, first + 3);
    r->len = (size_t)sqlite3_column_bytes(st, first + 3);
}

static int verify_value(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                        const uint8_t group[MERO_GROUP_ID_LEN], const char *key,
                        const struct kv_row *r, struct mero_err *err)
{
    size_t kl = strlen(key), vl = r->vl;
    const uint8_t *v = r->v;
    if (r->k == NULL || r->kl != kl || memcmp(r->k, key, kl) != 0) {
        return mero_err_set(err, MERO_ESTATE, "the row found for the key holds another key");
    }
    if (r->hash_len != MERO_DELTA_ID_LEN) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta hash is damaged");
    }
    if (r->bytes == NULL || r->len == 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta is missing");
    }
    const uint8_t *bytes = r->bytes;
    uint8_t h[MERO_DELTA_ID_LEN], gk[MERO_GROUP_KEY_LEN];
    struct delta d;
    mero_sha256(h, bytes, r->len);
    int rc = memcmp(h, r->hash, sizeof(h)) == 0 ? decode(bytes, r->len, &d) : -MERO_EIO;
    if (rc < 0 || memcmp(d.ctx, ctx, MERO_CONTEXT_ID_LEN) != 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta does not match its hash");
    }
    if (mero_gov_group_key_by_id(node->store, group, d.key_id, gk) < 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta key is not held");
    }
    size_t pl = d.ct_len - MERO_AEAD_TAG_LEN;
    uint8_t *pt = malloc(pl ? pl : 1);
    struct write w;
    MERO_ENSURE_OUT(pt != NULL, NULL, MERO_ENOMEM, "out of memory");
    MERO_TRY_OUT(mero_aes256gcm_open(pt, d.ct, d.ct_len, bytes, d.aad_len, d.nonce, gk));
    MERO_ENSURE_OUT(parse_write(&d, pt, pl, &w, NULL) == 0, NULL, MERO_EPROTO, "plaintext");
    MERO_ENSURE_OUT(w.kl == kl && memcmp(w.k, key, kl) == 0 && w.vl == vl &&
                        (vl == 0 || memcmp(w.v, v, vl) == 0),
                    NULL, MERO_ESTATE, "value");
out:
    mero_wipe(gk, sizeof(gk));
    mero_wipe(&w, sizeof(w));
    if (pt != NULL) {
        mero_wipe(pt, pl);
    }
    free(pt);
    if (rc == -MERO_ENOMEM) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_ESTATE, "the stored value differs from its signed delta");
    }
    return 0;
}

/* A NUL-terminated copy of the row's value (owned by the caller). */
static int value_copy(const struct kv_row *r, uint8_t **value, size_t *vlen)
{
    uint8_t *v = malloc(r->vl + 1);
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    if (r->vl > 0) {
        memcpy(v, r->v, r->vl);
    }
    v[r->vl] = 0;
    *value = v;
    *vlen = r->vl;
    return 0;
}

/*
 * Issue 16: a key is not among the values readable here. When the context keeps deltas sealed
 * under a key this node lacks, say why the read cannot be answered (and ask for that key)
 * instead of "key not found": -MERO_EPERM when we do not reach the context's group (not a
 * member of the namespace, or a Restricted subgroup, reached only through tee-admit), -MERO_ESTATE
 * when we do and the key has not arrived yet. 0 when no such delta is kept (the key is simply
 * absent).
 */
static int unreadable(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                      struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    struct delta d;
    bool found = false;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT bytes FROM ctx_delta WHERE context = ?1 AND applied = 0"
                           " ORDER BY seq DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return 0;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &d) == 0;
    }
    sqlite3_finalize(st);
    if (!found) {
        return 0;
    }
    uint8_t me[MERO_IDENTITY_LEN];
    int role = MERO_ROLE_NONE;
    char id[MERO_HEX_SIZE(8)];
    mero_hex_encode(id, d.key_id, 8);
    if (mero_gov_identity(node->store, ns, false, me, NULL) < 0 ||
        mero_gov_reach_role(node->store, group, me, &role) < 0 || role == MERO_ROLE_NONE) {
        if (memcmp(group, ns, MERO_NS_ID_LEN) == 0) {
            return mero_err_set(err, MERO_EPERM,
                                "this node is not a member of the context's namespace: its values "
                                "are sealed under key %s… it does not hold",
                                id);
        }
        return mero_err_set(err, MERO_EPERM,
                            "this node does not reach the context's subgroup (a Restricted "
                            "subgroup is reached only through tee-admit): its values are sealed "
                            "under key %s… it does not hold",
                            id);
    }
    mero_node_admission_key_missing(node, ns, group, d.key_id);
    return mero_err_set(err, MERO_ESTATE,
                        "the context holds values sealed under key %s…, which this node does not "
                        "hold yet; it was requested from connected members",
                        id);
}

int mero_node_ctx_get(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const char *key, uint8_t **value, size_t *vlen, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
    if (mero_node_ctx_lookup(node, ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "context not found");
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            node->db,
            "SELECT kv.k, kv.v, kv.hash, d.bytes FROM ctx_kv kv LEFT JOIN ctx_delta d"
            " ON d.hash = kv.hash WHERE kv.context = ?1 AND kv.k = ?2",
            -1, &st, NULL) != SQLITE_OK) {
        return mero_err_set(err, MERO_EIO, "cannot read: %s", sqlite3_errmsg(node->db));
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND, step = sqlite3_step(st);
    struct mero_err verr = {0};
    if (step == SQLITE_ROW) {
        struct kv_row row;
        kv_row_read(st, 0, &row);
        MERO_TRY_OUT(verify_value(node, ctx, group, key, &row, &verr));
        MERO_TRY_OUT(value_copy(&row, value, vlen));
    } else if (step != SQLITE_DONE) {
        rc = mero_err_set(&verr, MERO_ESTATE, "%s", sqlite3_errmsg(node->db));
    }
out:
    sqlite3_finalize(st);
    if (rc == -MERO_ENOTFOUND) {
        MERO_TRY(unreadable(node, ctx, ns, group, err));
        return mero_err_set(err, MERO_ENOTFOUND, "key not found");
    }
    if (rc == -MERO_ESTATE) {
        /* never another key's value: refuse, say so once in the log, point at merod check */
        MERO_ERROR("node.db: a stored value failed verification (%s): the database is damaged; "
                   "stop the node and run merod check --home %s",
                   verr.msg, node->home);
        return mero_err_set(err, MERO_EIO,
                            "stored state is damaged (%s); the node's database needs repair "
                            "(merod check)",
                            verr.msg);
    }
    return rc < 0 ? mero_err_set(err, -rc, "%s", verr.msg[0] ? verr.msg : "cannot read") : 0;
}

int mero_node_ctx_verify_all(struct mero_node *node, FILE *out, size_t *nvalues, size_t *ndeltas)
{
    sqlite3_stmt *st = NULL;
    size_t bad = 0;
    *nvalues = 0;
    *ndeltas = 0;
    if (sqlite3_prepare_v2(node->db, "SELECT seq, hash, bytes FROM ctx_delta ORDER BY seq", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(out, "node.db: cannot scan the deltas: %s\n", sqlite3_errmsg(node->db));
        return -MERO_ESTATE;
    }
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint8_t h[MERO_DELTA_ID_LEN];
        struct delta d;
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        mero_sha256(h, p, n);
        if (sqlite3_column_bytes(st, 1) != MERO_DELTA_ID_LEN ||
            memcmp(h, sqlite3_column_blob(st, 1), sizeof(h)) != 0 || decode(p, n, &d) < 0 ||
            verify_sig(p, &d) < 0) {
            fprintf(out, "node.db: delta #%lld does not match its hash or signature\n",
                    (long long)sqlite3_column_int64(st, 0));
            bad++;
        }
        (*ndeltas)++;
    }
    if (step != SQLITE_DONE) {
        fprintf(out, "node.db: delta scan stopped: %s\n", sqlite3_errmsg(node->db));
        bad++;
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(node->db,
                           "SELECT kv.context, kv.k, kv.v, kv.hash, d.bytes FROM ctx_kv kv"
                           " LEFT JOIN ctx_delta d ON d.hash = kv.hash",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(out, "node.db: cannot scan the values: %s\n", sqlite3_errmsg(node->db));
        return -MERO_ESTATE;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint8_t ctx[MERO_CONTEXT_ID_LEN], ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
        struct mero_err e = {0};
        const char *k = (const char *)sqlite3_column_text(st, 1);
        char cx[17];
        (*nvalues)++;
        if (sqlite3_column_bytes(st, 0) != MERO_CONTEXT_ID_LEN || k == NULL) {
            fprintf(out, "node.db: a value row is damaged (context id or key)\n");
            bad++;
            continue;
        }
        memcpy(ctx, sqlite3_column_blob(st, 0), sizeof(ctx));
        mero_hex_encode(cx, ctx, 8);
        if (mero_node_ctx_lookup(node, ctx, ns, group) < 0) {
            fprintf(out, "node.db: a value of context %s… whose context gov.db does not know\n",
                    cx);
            bad++;
            continue;
        }
        struct kv_row row;
        kv_row_read(st, 1, &row);
        if (verify_value(node, ctx, group, k, &row, &e) < 0) {
            fprintf(out, "node.db: context %s…, a value: %s\n", cx, e.msg);
            bad++;
        }
    }
    if (step != SQLITE_DONE) {
        fprintf(out, "node.db: value scan stopped: %s\n", sqlite3_errmsg(node->db));
        bad++;
    }
    sqlite3_finalize(st);
    return bad == 0 ? 0 : -MERO_ESTATE;
}

int mero_node_ctx_hashes(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         uint64_t after, size_t max, uint8_t (**out)[MERO_DELTA_ID_LEN], size_t *n,
                         uint64_t *last)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT seq, hash FROM ctx_delta WHERE context = ?1 AND seq > ?2 "
                           "ORDER BY seq LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    /* after comes from a peer: beyond SQLite's range means "after everything" (not wrapped) */
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(after > INT64_MAX ? INT64_MAX : after));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
    uint8_t(*v)[MERO_DELTA_ID_LEN] = malloc(max * sizeof(*v));
    size_t k = 0;
    uint64_t l = after;
    while (v != NULL && k < max && sqlite3_step(st) == SQLITE_ROW) {
        l = (uint64_t)sqlite3_column_int64(st, 0);
        if (sqlite3_column_bytes(st, 1) == MERO_DELTA_ID_LEN) {
            memcpy(v[k++], sqlite3_column_blob(st, 1), sizeof(v[k]));
        }
    }
    sqlite3_finalize(st);
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    *out = v;
    *n = k;
    *last = l;
    return 0;
}

int mero_node_ctx_delta(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                        uint8_t **out, size_t *len)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta WHERE hash = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_bytes(st, 0);
        uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
        if (p != NULL && n > 0) {
            memcpy(p, sqlite3_column_blob(st, 0), (size_t)n);
            *out = p;
            *len = (size_t)n;
            rc = 0;
        } else {
            free(p);
            rc = -MERO_ENOMEM;
        }
    }
    sqlite3_finalize(st);
    return rc;
}
