/* SPDX-License-Identifier: Apache-2.0 */
/*
 * maint.c - store maintenance: rebuilding every derived table from the op log, and the
 * self-purge of a namespace (or a subgroup's key material) after a TEE eviction, with its
 * durable pending marker.
 *
 * Invariants: rebuild folds each namespace's stored ops in their canonical order (fold.c)
 * through the same rules as apply, inside one transaction, so its result equals the
 * incremental state (a divergence is
 * an error, not silently accepted); the purge is the only path that opens the op table's
 * delete gate, and it closes it again in the same transaction; the pending marker (a namespace
 * id, or a subgroup id for a subgroup-only eviction) is committed with the removal that
 * evicted us (apply.c) and removed in the purge's own transaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"

#define CLEAR_SQL_MAX 64           /* "DELETE FROM <a derived table>" */
#define DUMP_MAX      (256u << 20) /* a dump of the derived tables */

/* Opening a store: migrations in store.c, the re-derivation a migration asks for here (a
 * floor above, docs/layers.md "gov's floors"), in the migration's own transaction. */
int mero_store_open(const char *path, struct mero_store **out, struct mero_err *err)
{
    return mero__gov_store_open(path, true, mero_gov_rebuild, out, err);
}

int mero_store_open_existing(const char *path, struct mero_store **out, struct mero_err *err)
{
    return mero__gov_store_open(path, false, mero_gov_rebuild, out, err);
}

static const char *const derived_tables[] = {"heads",    "groups",     "members", "policy",
                                             "evidence", "spent",      "deny",    "contexts",
                                             "fold",     "autofollow", "deferred"};

int mero__gov_clear_derived(struct mero_store *s)
{
    char sql[CLEAR_SQL_MAX];
    for (size_t i = 0; i < sizeof(derived_tables) / sizeof(derived_tables[0]); i++) {
        snprintf(sql, sizeof(sql), "DELETE FROM %s", derived_tables[i]);
        MERO_TRY(mero__gov_exec(s, sql));
    }
    return 0;
}

static int dump_table(struct mero_store *s, const char *table, struct mero_buf *out)
{
    char sql[256];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof(sql), "SELECT * FROM %s", table);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    int cols = sqlite3_column_count(st);
    sqlite3_finalize(st);
    int off = snprintf(sql, sizeof(sql), "SELECT * FROM %s ORDER BY ", table);
    for (int i = 1; i <= cols && off > 0 && (size_t)off < sizeof(sql); i++) {
        off += snprintf(sql + off, sizeof(sql) - (size_t)off, i == 1 ? "%d" : ",%d", i);
    }
    if (off <= 0 || (size_t)off >= sizeof(sql) ||
        sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    int rc;
    MERO_TRY_OUT(mero_buf_printf(out, "[%s]\n", table));
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < cols; i++) {
            int t = sqlite3_column_type(st, i);
            if (t == SQLITE_BLOB) {
                const uint8_t *p = sqlite3_column_blob(st, i);
                int n = sqlite3_column_bytes(st, i);
                for (int k = 0; k < n; k++) {
                    MERO_TRY_OUT(mero_buf_printf(out, "%02x", p[k]));
                }
            } else if (t == SQLITE_NULL) {
                MERO_TRY_OUT(mero_buf_printf(out, "null"));
            } else {
                MERO_TRY_OUT(mero_buf_printf(out, "%s", (const char *)sqlite3_column_text(st, i)));
            }
            MERO_TRY_OUT(mero_buf_append_u8(out, i + 1 < cols ? '|' : '\n'));
        }
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int mero_gov_dump(struct mero_store *s, struct mero_buf *out)
{
    for (size_t i = 0; i < sizeof(derived_tables) / sizeof(derived_tables[0]); i++) {
        MERO_TRY(dump_table(s, derived_tables[i], out));
    }
    return 0;
}

int mero_gov_rebuild(struct mero_store *s, struct mero_err *err)
{
    int rc;
    if (mero__gov_exec(s, "SAVEPOINT gov_rebuild") < 0) {
        return mero__gov_sqlerr(s, err, "savepoint");
    }
    GOV_SQL_TRY_OUT(s, err, mero__gov_clear_derived(s), "clear");
    /* every namespace folded in its canonical order (fold.c), as the incremental state is */
    s->rebuilding = true;
    rc = mero__gov_fold_all(s, err);
    s->rebuilding = false;
    MERO_TRY_OUT(rc);
    if (mero__gov_exec(s, "RELEASE gov_rebuild") < 0) {
        rc = mero__gov_sqlerr(s, err, "rebuild commit");
    }
out:
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK TO gov_rebuild");
        (void)mero__gov_exec(s, "RELEASE gov_rebuild");
    }
    return rc;
}

/* Verify: one stored op row decodes, hashes to its stored hash and its signature verifies
 * (counted in nops once it decodes). */
static int verify_row(sqlite3_stmt *st, size_t *nops, struct mero_err *err)
{
    unsigned long long seq = (unsigned long long)sqlite3_column_int64(st, 0);
    const uint8_t *bytes = sqlite3_column_blob(st, 2);
    size_t len = (size_t)sqlite3_column_bytes(st, 2);
    struct mero_op op;
    struct mero_err e = {0};
    uint8_t hash[MERO_OP_ID_LEN];
    int rc = 0;
    MERO_ENSURE(mero_op_decode(bytes, len, &op, &e) >= 0, err, MERO_EIO,
                "op #%llu does not decode: %s", seq, e.msg);
    (*nops)++;
    MERO_ENSURE_OUT(mero_op_hash(&op, hash) >= 0 &&
                        sqlite3_column_bytes(st, 1) == (int)sizeof(hash) &&
                        memcmp(hash, sqlite3_column_blob(st, 1), sizeof(hash)) == 0,
                    err, MERO_EIO, "op #%llu does not match its stored hash", seq);
    MERO_ENSURE_OUT(mero_op_verify(&op, &e) >= 0, err, MERO_EIO, "op #%llu signature: %s", seq,
                    e.msg);
out:
    mero_op_cleanup(&op);
    return rc;
}

/* Every stored op decodes, hashes to its stored hash and carries a valid signature. */
static int verify_log(struct mero_store *s, size_t *nops, struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT seq, hash, bytes FROM ops ORDER BY seq", -1, &st, NULL) !=
        SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "op log scan");
    }
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        MERO_TRY_OUT(verify_row(st, nops, err));
    }
    if (step != SQLITE_DONE) {
        rc = mero__gov_sqlerr(s, err, "op log scan");
    }
out:
    sqlite3_finalize(st);
    return rc;
}

/* The derived tables equal a replay of the log: rebuild inside a transaction that is always
 * rolled back, and compare the dumps. */
static int derived_equals_replay(struct mero_store *s, struct mero_err *err)
{
    struct mero_buf before, after;
    mero_buf_init(&before, DUMP_MAX);
    mero_buf_init(&after, DUMP_MAX);
    if (mero__gov_exec(s, "BEGIN IMMEDIATE") < 0) {
        return mero__gov_sqlerr(s, err, "begin (is merod running on this home?)");
    }
    struct mero_err e = {0};
    int rc;
    GOV_SQL_TRY_OUT(s, err, mero_gov_dump(s, &before), "dump");
    rc = mero_gov_rebuild(s, &e);
    MERO_ENSURE_OUT(rc >= 0, err, MERO_EIO, "the op log no longer replays: %s", e.msg);
    GOV_SQL_TRY_OUT(s, err, mero_gov_dump(s, &after), "dump");
    MERO_ENSURE_OUT(before.len == after.len && memcmp(before.data, after.data, before.len) == 0,
                    err, MERO_EIO,
                    "derived tables differ from a replay of the op log (membership, groups or "
                    "contexts rows are damaged)");
out:
    (void)mero__gov_exec(s, "ROLLBACK");
    mero_buf_cleanup(&before);
    mero_buf_cleanup(&after);
    return rc;
}

int mero_gov_verify(struct mero_store *s, size_t *nops, struct mero_err *err)
{
    *nops = 0;
    MERO_TRY(verify_log(s, nops, err));
    return derived_equals_replay(s, err);
}

/* ---- the seal of the derived tables (issue 32 item 6) ------------------------------------- */

static int derived_digest(struct mero_store *s, uint8_t out[MERO_SHA256_LEN])
{
    struct mero_buf d;
    mero_buf_init(&d, DUMP_MAX);
    int rc = mero_gov_dump(s, &d);
    if (rc == 0) {
        mero_sha256(out, d.data, d.len);
    }
    mero_buf_cleanup(&d);
    return rc;
}

int mero_gov_seal_derived(struct mero_store *s, struct mero_err *err)
{
    uint8_t dg[MERO_SHA256_LEN];
    sqlite3_stmt *st = NULL;
    if (derived_digest(s, dg) < 0) {
        return mero__gov_sqlerr(s, err, "seal: dump");
    }
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO derived_seal(id, digest) VALUES(1, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "seal");
    }
    sqlite3_bind_blob(st, 1, dg, sizeof(dg), SQLITE_TRANSIENT);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : mero__gov_sqlerr(s, err, "seal");
    sqlite3_finalize(st);
    return rc;
}

int mero_gov_check_derived(struct mero_store *s, const char **how, struct mero_err *err)
{
    uint8_t want[MERO_SHA256_LEN], have[MERO_SHA256_LEN];
    sqlite3_stmt *st = NULL;
    bool sealed = false;
    if (sqlite3_prepare_v2(s->db, "SELECT digest FROM derived_seal WHERE id = 1", -1, &st, NULL) !=
        SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "seal");
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == (int)sizeof(want)) {
        memcpy(want, sqlite3_column_blob(st, 0), sizeof(want));
        sealed = true;
    }
    sqlite3_finalize(st);
    *how = sealed ? "seal" : "replay";
    if (!sealed) {
        return derived_equals_replay(s, err);
    }
    if (derived_digest(s, have) < 0) {
        return mero__gov_sqlerr(s, err, "seal: dump");
    }
    if (!mero_ct_eq(want, have, sizeof(want))) {
        return mero_err_set(err, MERO_ESTATE,
                            "derived tables differ from the seal written at the last clean stop "
                            "(membership, roles, policy, groups or contexts rows were edited or "
                            "damaged while the node was stopped)");
    }
    /* a crash from here on leaves no seal: the next start compares with a replay */
    if (mero__gov_exec(s, "DELETE FROM derived_seal") < 0) {
        return mero__gov_sqlerr(s, err, "seal");
    }
    return 0;
}

/* Per-group rows and keys, then the namespace-wide rows. */
static const char *const purge_group_sql[] = {
    "DELETE FROM members WHERE grp = ?",
    "DELETE FROM evidence WHERE grp = ?",
    "DELETE FROM deny WHERE grp = ?",
    "DELETE FROM autofollow WHERE grp = ?",
    "DELETE FROM group_keys WHERE grp = ?",
    "DELETE FROM pending_purge WHERE ns = ?", /* a subgroup's own marker */
};
static const char *const purge_ns_sql[] = {
    "INSERT OR IGNORE INTO purged(ns) VALUES(?)", /* the tombstone, with the purge itself */
    "UPDATE purge_gate SET open = 1 WHERE id = 1",
    "DELETE FROM ops WHERE ns = ?",
    "UPDATE purge_gate SET open = 0 WHERE id = 1",
    "DELETE FROM heads WHERE ns = ?",
    "DELETE FROM contexts WHERE ns = ?",
    "DELETE FROM policy WHERE ns = ?",
    "DELETE FROM spent WHERE ns = ?",
    "DELETE FROM deferred WHERE ns = ?",
    "DELETE FROM inert WHERE ns = ?",
    "DELETE FROM fold WHERE ns = ?",
    "DELETE FROM principals WHERE ns = ?",
    "DELETE FROM cuts WHERE ns = ?",
    "DELETE FROM groups WHERE ns = ?",
    "DELETE FROM identities WHERE ns = ?",
};

static int purge_namespace(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t(*groups)[MERO_GROUP_ID_LEN] = NULL;
    size_t ng = 0;
    int rc = 0;
    s->us_cached = false; /* the identity goes with the namespace */
    MERO_TRY(mero_gov_groups(s, ns, &groups, &ng));
    for (size_t g = 0; g < ng; g++) {
        for (size_t i = 0; i < sizeof(purge_group_sql) / sizeof(purge_group_sql[0]); i++) {
            MERO_TRY_OUT(mero__gov_exec_id(s, purge_group_sql[i], groups[g]));
        }
    }
    for (size_t i = 0; i < sizeof(purge_ns_sql) / sizeof(purge_ns_sql[0]); i++) {
        MERO_TRY_OUT(strchr(purge_ns_sql[i], '?') != NULL
                         ? mero__gov_exec_id(s, purge_ns_sql[i], ns)
                         : mero__gov_exec(s, purge_ns_sql[i]));
    }
out:
    free(groups);
    return rc;
}

int mero_gov_self_purge(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                        const uint8_t group[static MERO_GROUP_ID_LEN], struct mero_err *err)
{
    bool whole = memcmp(ns, group, MERO_NS_ID_LEN) == 0;
    const char *what = "self-purge";
    int rc;
    if (whole && mero_gov_purge_mark(s, ns) < 0) {
        return mero__gov_sqlerr(s, err, "pending self-purge marker");
    }
    if (mero__gov_exec(s, "SAVEPOINT gov_purge") < 0) {
        return mero__gov_sqlerr(s, err, "savepoint");
    }
    MERO_TRY_OUT(whole ? purge_namespace(s, ns) : mero__gov_exec_id(s, purge_group_sql[4], group));
    MERO_TRY_OUT(mero__gov_purge_unmark(s, group)); /* group == ns for a whole namespace */
    /* the commit can fail (full disk, I/O): then nothing is purged and the marker stays for a
     * retry */
    what = "self-purge commit";
    MERO_TRY_OUT(mero__gov_exec(s, "RELEASE gov_purge"));
out:
    if (rc < 0) {
        rc = mero__gov_sqlerr(s, err, what);
        (void)mero__gov_exec(s, "ROLLBACK TO gov_purge");
        (void)mero__gov_exec(s, "RELEASE gov_purge");
    }
    return rc;
}
