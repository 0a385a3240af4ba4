/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply.c - the one apply path of a delta from anywhere (local write, gossip, sync pull):
 * bounded decode, dedupe, the memory of refusals, signature, known context, not self-purged, the
 * author's role and a relayed delta's clear header (relay.c), the context clock's bound
 * (clock.c), then store, decrypt when the key is held (else kept, and retried when the key
 * arrives) and take effect by last-writer-wins (store.c; a relayed intent once, intent.c).
 *
 * Invariants (spec "Read-only for its own writes"): every delta, whatever path brought it, goes
 * through mero__node_ctx_apply, which refuses one whose author's effective role in the context's
 * group is ReadOnly, ReadOnlyTee, RelayTee or none, before anything is stored, one for a context
 * of a namespace this node self-purged (its tombstone, mero_gov_purged), and one whose lamport is
 * beyond the context's clock plus MERO_LAMPORT_STEP. A delta, its clock and its effect are
 * committed in one transaction, or nothing is. A delta we cannot yet decrypt (key not delivered)
 * is kept and applied when the key arrives; meeting one asks the key holders for its key (issue
 * 16: node->hooks.key_missing, which the admission layer sets; rate-limited per key id). Issue 30:
 * a second copy of an intent (another relay carried it too) is stored and counted, never refused; a
 * refusal is remembered (refused.c) so that sync does not fetch and refuse the same delta every
 * round, and logged at INFO once; a refusal for the state of governance that a right lost explains
 * keeps the delta without effect when it raises the clock (kept.c).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "node/context/chain_internal.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/kept_internal.h"
#include "node/context/relay_internal.h"
#include "node/context/snap_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

#define CTX_PENDING_MAX        (64u << 20) /* a group's pending deltas, copied out at once */
#define CTX_PENDING_GROUPS_MAX 4096u /* groups retried at start (mero__node_ctx_retry_pending) */

/*
 * issue 37 (snap.c): a snapshot entry is refused when this node already holds a write of its key
 * at a greater position (lamport, hash): the peer served a value that is not the live one.
 */
static int beaten(struct mero_node *node, const struct mero_ctx_delta *d,
                  const struct mero_ctx_write *w, const uint8_t hash[MERO_DELTA_ID_LEN],
                  struct mero_err *err)
{
    char key[MERO_CTX_KEY_MAX + 1];
    uint64_t l = 0;
    uint8_t h[MERO_DELTA_ID_LEN], author[MERO_IDENTITY_LEN];
    if (w->kl == 0 || w->kl > MERO_CTX_KEY_MAX) {
        return mero_err_set(err, MERO_EPROTO, "key length");
    }
    memcpy(key, w->k, w->kl);
    key[w->kl] = '\0';
    int rc = mero__ctx_current(node, d->ctx, key, &l, h, author);
    if (rc < 0) {
        return rc;
    }
    if (rc == 1 &&
        (l > d->lamport || (l == d->lamport && memcmp(h, hash, MERO_DELTA_ID_LEN) > 0))) {
        return mero_err_set(err, MERO_ESTATE,
                            "stale: a write of its key at lamport %llu is already held here",
                            (unsigned long long)l);
    }
    return 0;
}

/*
 * Decrypt d and offer its write to last-writer-wins: a direct write at its (lamport, hash); a
 * relayed one, once checked (relay.c), is counted as a copy of its intent, which takes effect
 * once at its intent's position (intent.c). 1 when applied, 0 no key. A refusal returns its
 * code with the reason in err, *for_now set when the reason is the state of governance; an I/O
 * failure leaves err untouched.
 */
static int materialise(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t *bytes, const struct mero_ctx_delta *d,
                       const uint8_t hash[MERO_DELTA_ID_LEN], bool strict, struct mero_err *err,
                       bool *for_now)
{
    uint8_t *pt = NULL;
    size_t pl = 0;
    struct mero_ctx_write w;
    *for_now = false;
    int rc = mero__ctx_open_write(node, group, bytes, d, &pt, &pl, &w, err);
    if (rc <= 0) {
        return rc;
    }
    if (w.relayed) {
        rc = mero__ctx_relay_check(node, group, d->ctx, d->executor, d->author, d->relayed_at,
                                   &w.it, false, err, for_now);
        if (rc == 0) {
            rc = mero__node_ctx_intent_count(node, group, &w.it, d->lamport, hash);
        }
    } else {
        rc = strict ? beaten(node, d, &w, hash, err) : 0;
        if (rc == 0) {
            rc = mero__ctx_offer(node, d->ctx, &w, d->lamport, hash, d->author);
        }
    }
    mero__ctx_close_write(pt, pl, &w);
    return rc < 0 ? rc : 1;
}

/* issue 30: what a refusal was, for the memory of refusals (refused.c). */
struct verdict {
    bool remember; /* remember it: for good, or for now (against ns's governance) */
    bool for_now;
    bool repeat; /* answered from that memory: refused before */
    uint8_t ns[MERO_NS_ID_LEN];
};

/* issue 30 (kept.c): a delta the ordinary path refused for the state of governance, a right lost
 * explaining it, is kept without effect when it raises the clock: held, so not remembered as
 * refused. Never in a snapshot (m): a refusal there sends the requester to the history, where it
 * is kept. A store error leaves it remembered, as before. */
static void keep(struct mero_node *node, const uint8_t *bytes, size_t len,
                 const uint8_t hash[MERO_DELTA_ID_LEN], const struct mero_ctx_delta *d,
                 const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                 const struct mero_ctx_apply_mode *m, struct verdict *v)
{
    bool kept = false;
    if (m == NULL && mero__ctx_keep(node, bytes, len, hash, d, ns, group, &kept) == 0 && kept) {
        v->remember = false;
    }
}

/* Transactions: one per delta on the ordinary path; a savepoint inside the snapshot's one
 * transaction (issue 37, snap.c), so a refused entry undoes the whole snapshot. */
static int tx_begin(struct mero_node *node, const struct mero_ctx_apply_mode *m)
{
    return mero__node_db_exec(node->db, m != NULL ? "SAVEPOINT ctx_snap_entry" : "BEGIN IMMEDIATE");
}

static void tx_rollback(struct mero_node *node, const struct mero_ctx_apply_mode *m)
{
    if (m != NULL) {
        (void)mero__node_db_exec(node->db, "ROLLBACK TO ctx_snap_entry");
        (void)mero__node_db_exec(node->db, "RELEASE ctx_snap_entry");
        return;
    }
    (void)mero__node_db_exec(node->db, "ROLLBACK");
}

static int tx_commit(struct mero_node *node, const struct mero_ctx_apply_mode *m)
{
    return mero__node_db_exec(node->db, m != NULL ? "RELEASE ctx_snap_entry" : "COMMIT");
}

static int apply_delta(struct mero_node *node, const uint8_t *bytes, size_t len,
                       const uint8_t hash[MERO_DELTA_ID_LEN], const struct mero_ctx_apply_mode *m,
                       struct mero_err *err, struct verdict *v)
{
    struct mero_ctx_delta d;
    struct mero_err merr = {0}, was = {0};
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
    bool for_now = false;
    int rc = mero__ctx_decode(bytes, len, &d);
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
    MERO_TRY(mero__node_ctx_has(node, hash, &have));
    if (have) {
        return 0;
    }
    if (mero__node_ctx_refusal_get(node, hash, &known, &was) == 0 && known != MERO_CTX_UNKNOWN) {
        v->repeat = true;
        v->for_now = known == MERO_CTX_REFUSED_FOR_NOW; /* a snapshot holding it: no ban */
        return mero_err_set(err, was.code > 0 ? was.code : MERO_EREFUSED, "%s", was.msg);
    }
    if (mero__ctx_verify_sig(bytes, &d) < 0) {
        v->remember = true;
        return mero_err_set(err, MERO_EBADSIG, "delta signature does not verify");
    }
    if (mero__node_ctx_lookup(node, d.ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "delta for an unknown context");
    }
    bool purged = true;
    if (mero_gov_purged(node->store, ns, &purged) < 0 || purged) {
        return mero_err_set(err, MERO_EPERM, "delta for a namespace this node self-purged");
    }
    memcpy(v->ns, ns, sizeof(v->ns));
    bool vouched = false; /* issue 30: taken because a removal's cut reaches it (chain.c) */
    rc = mero__ctx_may_carry(node, group, &d, hash, err, &vouched); /* before anything is stored */
    if (rc < 0) {
        v->remember = v->for_now = true; /* governance may still change its mind */
        keep(node, bytes, len, hash, &d, ns, group, m, v);
        return rc;
    }
    if (tx_begin(node, m) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot start a write: %s", sqlite3_errmsg(node->db));
    }
    uint64_t clock = 0;
    bool keyless = false;
    if (mero__ctx_clock_of(node, d.ctx, &clock) < 0) {
        tx_rollback(node, m);
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (m != NULL ? d.lamport > m->clock : !mero__lamport_admissible(clock, d.lamport)) {
        tx_rollback(node, m);
        return mero_err_set(err, MERO_ECLOCK,
                            "delta lamport %llu is beyond the context clock %llu + %llu",
                            (unsigned long long)d.lamport, (unsigned long long)clock,
                            (unsigned long long)MERO_LAMPORT_STEP);
    }
    sqlite3_stmt *st = NULL;
    MERO_ENSURE_OUT(sqlite3_prepare_v2(node->db,
                                       "INSERT INTO ctx_delta(hash, context, grp, bytes, applied) "
                                       "VALUES(?1, ?2, ?3, ?4, 0)",
                                       -1, &st, NULL) == SQLITE_OK,
                    NULL, MERO_EIO, "prepare");
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, d.ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, bytes, (int)len, SQLITE_STATIC);
    MERO_ENSURE_OUT(sqlite3_step(st) == SQLITE_DONE, NULL, MERO_EIO, "step");
    MERO_TRY_OUT(mero__ctx_chain_note(node, &d, hash));
    MERO_TRY_OUT(mero__ctx_clock_raise(node, d.ctx, d.lamport));
    MERO_TRY_OUT(
        materialise(node, group, bytes, &d, hash, m != NULL && m->strict, &merr, &for_now));
    keyless = rc == 0;
    if (rc == 1) {
        MERO_TRY_OUT(
            mero__ctx_exec_hash(node, "UPDATE ctx_delta SET applied = 1 WHERE hash = ?1", hash));
    }
out:
    sqlite3_finalize(st);
    if (rc < 0 && merr.code != 0) {
        /* refused once its plaintext was read: nothing is stored (but kept, below) */
        tx_rollback(node, m);
        v->remember = true;
        v->for_now = for_now;
        if (for_now) {
            keep(node, bytes, len, hash, &d, ns, group, m, v);
        }
        return mero_err_set(err, merr.code, "%s", merr.msg);
    }
    if (rc < 0 || tx_commit(node, m) < 0) {
        char why[128];
        snprintf(why, sizeof(why), "%s", sqlite3_errmsg(node->db));
        tx_rollback(node, m);
        return mero_err_set(err, MERO_EIO, "cannot store the delta: %s", why);
    }
    if (vouched) {
        /* issue 30: the cut's head may have arrived after the deltas it vouches for, refused or
         * kept meanwhile: judge them again (the refusals held "for now" at this generation) */
        node->gov_gen++;
        node->ctx_rejudge_due = true;
    }
    if (keyless) {
        /* kept for later; ask the key holders for the key (issue 16, rate-limited) */
        if (node->hooks.key_missing != NULL) {
            node->hooks.key_missing(node, ns, group, d.key_id);
        }
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

int mero__node_ctx_apply(struct mero_node *node, const uint8_t *bytes, size_t len,
                         struct mero_err *err)
{
    struct mero_err e = {0};
    struct verdict v = {0};
    uint8_t hash[MERO_DELTA_ID_LEN];
    mero_sha256(hash, bytes, len);
    int rc = apply_delta(node, bytes, len, hash, NULL, &e, &v);
    if (rc < 0) {
        int code = e.code != 0 ? e.code : -rc;
        bool first = !v.repeat;
        if (v.remember && !v.repeat) {
            mero__node_ctx_refusal_note(node, hash, v.for_now ? v.ns : NULL, code, e.msg, &first);
        }
        if (len > 0 && bytes[0] == MERO_DELTA_RELAYED_VERSION) {
            /* every path (gossip, sync, local) logs a relayed delta's refusal */
            log_refusal(bytes, len, hash, first, e.msg);
        }
        return mero_err_set(err, code, "%s", e.msg);
    }
    return rc;
}

int mero__ctx_apply_snap(struct mero_node *node, const uint8_t *bytes, size_t len,
                         const struct mero_ctx_apply_mode *m, struct mero_err *err, bool *for_now)
{
    struct verdict v = {0};
    uint8_t hash[MERO_DELTA_ID_LEN];
    mero_sha256(hash, bytes, len);
    int rc = apply_delta(node, bytes, len, hash, m, err, &v);
    *for_now = rc < 0 && v.for_now;
    return rc;
}

void mero__node_ctx_retry_one(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                              const uint8_t *p, size_t n)
{
    struct mero_ctx_delta d;
    uint8_t hash[MERO_DELTA_ID_LEN], ns[MERO_NS_ID_LEN], key[MERO_GROUP_KEY_LEN];
    struct mero_err e = {0};
    bool for_now = false, first = true;
    if (mero__ctx_decode(p, n, &d) < 0) {
        return;
    }
    /* its key still not held: nothing to do, and no transaction opened for nothing (a node
     * holding many deltas it cannot open retries them all at start) */
    if (mero_gov_group_key_by_id(node->store, group, d.key_id, key) < 0) {
        return;
    }
    mero_wipe(key, sizeof(key));
    mero_sha256(hash, p, n);
    bool tx =
        sqlite3_get_autocommit(node->db) && mero__node_db_exec(node->db, "BEGIN IMMEDIATE") == 0;
    int m = materialise(node, group, p, &d, hash, false, &e, &for_now);
    bool refused = m < 0 && e.code != 0, keepable = false;
    bool ns_ok = refused && (!for_now || mero_gov_namespace_of(node->store, group, ns) == 0);
    if (refused && for_now && ns_ok) {
        keepable = mero__ctx_keepable(node, ns, group, &d, &keepable) == 0 && keepable;
    }
    if (m == 1) {
        (void)mero__ctx_exec_hash(node, "UPDATE ctx_delta SET applied = 1 WHERE hash = ?1", hash);
    } else if (refused && keepable) {
        /* issue 30: refused for the state of governance, a right lost explaining it: kept */
        _Static_assert(MERO_CTX_KEPT == 2, "the statement names it");
        (void)mero__ctx_exec_hash(node, "UPDATE ctx_delta SET applied = 2 WHERE hash = ?1", hash);
    } else if (refused) {
        /* a delta held for its key, refused once the key arrived: not held any longer */
        (void)mero__ctx_exec_hash(node, "DELETE FROM ctx_delta WHERE hash = ?1", hash);
    }
    if (tx) {
        (void)mero__node_db_exec(node->db, m < 0 && e.code == 0 ? "ROLLBACK" : "COMMIT");
    }
    if (refused) {
        if (ns_ok && !keepable) {
            mero__node_ctx_refusal_note(node, hash, for_now ? ns : NULL, e.code, e.msg, &first);
        }
        log_refusal(p, n, hash, first, e.msg);
    }
}

void mero__node_ctx_retry(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT bytes FROM ctx_delta WHERE grp = ?1 AND applied = 0",
                           -1, &st, NULL) != SQLITE_OK) {
        return;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    struct mero_buf all; /* (len u32, bytes)* copied out before updating rows */
    mero_buf_init(&all, CTX_PENDING_MAX);
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
        mero__node_ctx_retry_one(node, group, p, n);
    }
    mero_buf_cleanup(&all);
}

void mero__node_ctx_retry_pending(struct mero_node *node)
{
    sqlite3_stmt *st = NULL;
    struct mero_buf groups; /* each group holding a pending delta, copied out first */
    mero_buf_init(&groups, (size_t)CTX_PENDING_GROUPS_MAX * MERO_GROUP_ID_LEN);
    if (sqlite3_prepare_v2(node->db, "SELECT DISTINCT grp FROM ctx_delta WHERE applied = 0", -1,
                           &st, NULL) != SQLITE_OK) {
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (sqlite3_column_bytes(st, 0) != MERO_GROUP_ID_LEN ||
            mero_buf_append(&groups, sqlite3_column_blob(st, 0), MERO_GROUP_ID_LEN) < 0) {
            break;
        }
    }
    sqlite3_finalize(st);
    for (size_t off = 0; off + MERO_GROUP_ID_LEN <= groups.len; off += MERO_GROUP_ID_LEN) {
        mero__node_ctx_retry(node, groups.data + off);
    }
    mero_buf_cleanup(&groups);
}
