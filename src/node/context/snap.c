/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snap.c - issue 37: a context's live state as a snapshot, served from what the store holds and
 * installed only once every delta in it is verified (docs/sync.md "Catch-up by live state").
 *
 * Serving: the tip (clock, last delta seq and its hash), the heads (the newest stored deltas, at
 * most MERO_SNAP_HEADS_MAX) and pages of the deltas that currently win their key (table ctx_kv
 * joined with ctx_delta), in ctx_kv rowid order from a cursor the requester sends back: no
 * replay, no state kept per requester, every page bounded by MERO_SNAP_PAGE_MAX entries and
 * MERO_SNAP_PAGE_BYTES bytes.
 *
 * Installing: in one transaction, the heads then every entry through the one apply path's checks
 * (decode, signature, known context, not self-purged, the author's role in the group as the
 * governance held here says, a relayed delta's header; apply.c), each lamport bounded by the
 * snapshot's clock, and each entry refused when this node already holds a write of its key at a
 * greater position (the heads included). One refusal rolls the whole snapshot back: nothing of
 * it is stored or served. A refusal whose reason is the governance held here (an entry's or a
 * head's author lost the right after the peer applied it, issue 30) ends it too, heads included,
 * and says so, so the requester pulls the history instead of blaming the peer. A snapshot installed
 * is recorded (table ctx_snapshot) for merod check.
 *
 * Test-only (merod run --test with MERO_TEST_SNAPSHOT_FAULT, docs/node.md): "forge" serves the
 * first entry with a flipped signature byte, "stale" serves each key's earliest write instead of
 * its current one.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/encoding.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/snap_internal.h"
#include "node/context/store_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"

int mero__node_ctx_snap_open(struct mero_node *node)
{
    return mero__node_db_exec(node->db,
                              "CREATE TABLE IF NOT EXISTS ctx_snapshot (context BLOB PRIMARY KEY, "
                              "clock INTEGER NOT NULL, peer TEXT NOT NULL, at INTEGER NOT NULL)");
}

int mero__node_ctx_tip(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       struct mero_ctx_tip *t)
{
    sqlite3_stmt *st = NULL;
    memset(t, 0, sizeof(*t));
    MERO_TRY(mero__ctx_clock_of(node, ctx, &t->clock));
    if (sqlite3_prepare_v2(node->db,
                           "SELECT seq, hash FROM ctx_delta WHERE context = ?1 "
                           "ORDER BY seq DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 1) == MERO_DELTA_ID_LEN) {
        sqlite3_int64 s = sqlite3_column_int64(st, 0);
        t->seq = s > 0 ? (uint64_t)s : 0;
        memcpy(t->tail, sqlite3_column_blob(st, 1), MERO_DELTA_ID_LEN);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

/* len u32 | bytes */
static int put_blob(struct mero_buf *out, const void *p, size_t len)
{
    MERO_TRY(mero_buf_append_u32le(out, (uint32_t)len));
    return mero_buf_append(out, p, len);
}

int mero__node_ctx_snap_heads(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                              struct mero_buf *out, uint32_t *n)
{
    sqlite3_stmt *st = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT bytes FROM ctx_delta WHERE context = ?1 "
                           "ORDER BY seq DESC LIMIT ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, (int)MERO_SNAP_HEADS_MAX);
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int len = sqlite3_column_bytes(st, 0);
        if (len <= 0 || (size_t)len > MERO_DELTA_MAX) {
            continue;
        }
        rc = put_blob(out, sqlite3_column_blob(st, 0), (size_t)len);
        *n += rc == 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Test-only "stale": the earliest stored write of key k in ctx (owned in *out), when there is
 * one other than the current delta cur. */
static int earliest_write(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          const uint8_t *k, size_t kl, const uint8_t cur[MERO_DELTA_ID_LEN],
                          struct mero_buf *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT hash, grp, bytes FROM ctx_delta WHERE context = ?1 "
                           "AND applied = 1 ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    int found = 0;
    while (found == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        uint8_t group[MERO_GROUP_ID_LEN], *pt = NULL;
        size_t pl = 0;
        struct mero_ctx_delta d;
        struct mero_ctx_write w;
        memset(&w, 0, sizeof(w));
        if (p == NULL || sqlite3_column_bytes(st, 1) != MERO_GROUP_ID_LEN ||
            sqlite3_column_bytes(st, 0) != MERO_DELTA_ID_LEN ||
            memcmp(sqlite3_column_blob(st, 0), cur, MERO_DELTA_ID_LEN) == 0 ||
            mero__ctx_decode(p, n, &d) < 0) {
            continue;
        }
        memcpy(group, sqlite3_column_blob(st, 1), sizeof(group));
        if (mero__ctx_open_write(node, group, p, &d, &pt, &pl, &w, NULL) == 1 && !w.relayed &&
            w.kl == kl && memcmp(w.k, k, kl) == 0) {
            found = mero_buf_append(out, p, n) == 0 ? 1 : -MERO_ENOMEM;
        }
        mero__ctx_close_write(pt, pl, &w);
    }
    sqlite3_finalize(st);
    return found;
}

/* One entry of a page, with the test-only faults applied to what is served. */
static int put_entry(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                     sqlite3_stmt *st, int fault, bool first, struct mero_buf *out)
{
    const uint8_t *p = sqlite3_column_blob(st, 3);
    size_t len = (size_t)sqlite3_column_bytes(st, 3);
    struct mero_buf alt;
    mero_buf_init(&alt, MERO_DELTA_MAX);
    int rc = 0;
    if (fault == MERO_SNAP_FAULT_STALE && sqlite3_column_bytes(st, 2) == MERO_DELTA_ID_LEN &&
        earliest_write(node, ctx, sqlite3_column_text(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                       sqlite3_column_blob(st, 2), &alt) == 1) {
        p = alt.data;
        len = alt.len;
    } else if (fault == MERO_SNAP_FAULT_FORGE && first && len > 0) {
        rc = mero_buf_append(&alt, p, len);
        if (rc == 0) {
            alt.data[alt.len - 1] ^= 1; /* the last byte of the signature */
            p = alt.data;
        }
    }
    if (rc == 0) {
        rc = put_blob(out, p, len);
    }
    mero_buf_cleanup(&alt);
    return rc;
}

int mero__node_ctx_snap_values(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                               uint64_t after, int fault, struct mero_buf *out, uint32_t *n,
                               uint64_t *next)
{
    sqlite3_stmt *st = NULL;
    *n = 0;
    *next = 0;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT kv.rowid, kv.k, kv.hash, d.bytes FROM ctx_kv kv "
                           "JOIN ctx_delta d ON d.hash = kv.hash "
                           "WHERE kv.context = ?1 AND kv.rowid > ?2 ORDER BY kv.rowid LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    /* after comes from a peer: beyond SQLite's range means "after everything" */
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(after > INT64_MAX ? INT64_MAX : after));
    sqlite3_bind_int(st, 3, (int)MERO_SNAP_PAGE_MAX + 1);
    size_t start = out->len;
    int rc = 0, step;
    uint64_t last = after;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        size_t len = (size_t)sqlite3_column_bytes(st, 3);
        if (*n == MERO_SNAP_PAGE_MAX ||
            out->len - start + sizeof(uint32_t) + len > MERO_SNAP_PAGE_BYTES) {
            *next = last; /* more follows: the requester asks again from here */
            break;
        }
        last = (uint64_t)sqlite3_column_int64(st, 0);
        if (len == 0 || len > MERO_DELTA_MAX) {
            continue;
        }
        rc = put_entry(node, ctx, st, fault, *n == 0 && after == 0, out);
        *n += rc == 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int mero__node_ctx_held_any(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                            bool *yes)
{
    struct mero_ctx_tip t;
    MERO_TRY(mero__node_ctx_tip(node, ctx, &t));
    *yes = t.seq != 0;
    return 0;
}

/* Apply every (len u32, bytes) of p[0..len) in mode m; the first refusal ends it (*for_now:
 * its reason is the state of governance here). Not strict, a refusal is skipped - except one for
 * the state of governance (issue 30): a head or a merged entry this node's governance refuses
 * may be a write a right lost explains, which the history keeps (kept.c) and a live state cannot
 * place, so it ends the install too, and the requester pulls the history. */
static int apply_all(struct mero_node *node, const uint8_t *p, size_t len,
                     const struct mero_ctx_apply_mode *m, const char *what, struct mero_err *err,
                     bool *for_now)
{
    struct mero_cur c;
    mero_cur_init(&c, p, len);
    for (size_t i = 0; mero_cur_left(&c) > 0; i++) {
        uint32_t n;
        const uint8_t *d;
        struct mero_err e = {0};
        if (mero_cur_u32le(&c, &n) < 0 || n > MERO_DELTA_MAX || mero_cur_bytes(&c, n, &d) < 0) {
            return mero_err_set(err, MERO_EPROTO, "%s %zu: truncated", what, i);
        }
        bool gov = false;
        int rc = mero__ctx_apply_snap(node, d, n, m, &e, &gov);
        if (rc < 0 && !gov && !m->strict && e.code != 0 && e.code != MERO_EIO) {
            continue; /* a head this node refuses only weakens the stale check: not stored */
        }
        if (rc < 0) {
            *for_now = gov;
            return mero_err_set(err, e.code != 0 ? e.code : -rc, "%s %zu: %s", what, i,
                                e.code != 0 ? e.msg : mero_strerror(rc));
        }
    }
    return 0;
}

static int record(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t clock,
                  const char *peer)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "INSERT OR REPLACE INTO ctx_snapshot(context, clock, peer, at) "
                           "VALUES(?1, ?2, ?3, ?4)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)clock);
    sqlite3_bind_text(st, 3, peer, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)mero_now_unix());
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_snap_install(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                uint64_t clock, const uint8_t *heads, size_t hlen,
                                const uint8_t *vals, size_t vlen, bool strict, const char *peer,
                                bool *governance, struct mero_err *err)
{
    struct mero_ctx_apply_mode loose = {.clock = clock, .strict = false};
    struct mero_ctx_apply_mode entries = {.clock = clock, .strict = strict};
    if (clock == 0 || clock > MERO_LAMPORT_MAX) {
        return mero_err_set(err, MERO_ECLOCK, "snapshot clock outside 1..2^63-1");
    }
    if (mero__node_db_exec(node->db, "BEGIN IMMEDIATE") < 0) {
        return mero_err_set(err, MERO_EIO, "cannot start a write");
    }
    *governance = false;
    int rc = apply_all(node, heads, hlen, &loose, "head", err, governance);
    if (rc == 0) {
        rc = apply_all(node, vals, vlen, &entries, "entry", err, governance);
    }
    if (rc == 0 && record(node, ctx, clock, peer) < 0) {
        rc = mero_err_set(err, MERO_EIO, "cannot record the snapshot");
    }
    if (rc < 0 || mero__node_db_exec(node->db, "COMMIT") < 0) {
        (void)mero__node_db_exec(node->db, "ROLLBACK");
        return rc < 0 ? rc : mero_err_set(err, MERO_EIO, "cannot commit the snapshot");
    }
    return 0;
}

int mero__node_ctx_snapshot_of(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                               uint64_t *clock, bool *yes)
{
    sqlite3_stmt *st = NULL;
    *yes = false;
    if (sqlite3_prepare_v2(node->db, "SELECT clock FROM ctx_snapshot WHERE context = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 c = sqlite3_column_int64(st, 0);
        *clock = c > 0 ? (uint64_t)c : 0;
        *yes = true;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_ctx_snapshots_print(struct mero_node *node, FILE *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT context, clock, peer FROM ctx_snapshot", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        char h[MERO_HEX_SIZE(MERO_CONTEXT_ID_LEN)];
        if (sqlite3_column_bytes(st, 0) != MERO_CONTEXT_ID_LEN) {
            continue;
        }
        mero_hex_encode(h, sqlite3_column_blob(st, 0), MERO_CONTEXT_ID_LEN);
        fprintf(out,
                "node.db: context %s holds live state from a snapshot (clock %lld, from %s): "
                "each value verified, the history before it not held here\n",
                h, (long long)sqlite3_column_int64(st, 1),
                (const char *)sqlite3_column_text(st, 2));
    }
    sqlite3_finalize(st);
    return 0;
}
