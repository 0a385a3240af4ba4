/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store.c - the SQLite store: open (WAL, synchronous=FULL, 0600), schema migrations, the
 * append-only op table and its triggers, the statement cache, transactions, and the local
 * secrets (namespace identities, the account root key, group keys).
 *
 * Invariants: the ops table refuses UPDATE always and DELETE unless the purge gate row is
 * open (only mero_gov_self_purge opens it, inside its transaction); the database file is
 * never group/world accessible; secrets read from it are wiped by the callers;
 * mero_store_open_existing never creates a file (a missing or empty store is an error).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/keys.h"

#define PRAGMA_SQL_MAX 64 /* "PRAGMA user_version = N" */

/* Migration 1: everything. Later migrations append to this list, never edit it. */
static const char *const migration_1 =
    "CREATE TABLE ops(seq INTEGER PRIMARY KEY AUTOINCREMENT, hash BLOB NOT NULL UNIQUE,"
    " ns BLOB NOT NULL, signer BLOB NOT NULL, nonce INTEGER NOT NULL, bytes BLOB NOT NULL);"
    "CREATE INDEX ops_ns ON ops(ns, seq);"
    "CREATE INDEX ops_signer ON ops(ns, signer, nonce);"
    "CREATE TABLE purge_gate(id INTEGER PRIMARY KEY CHECK (id = 1), open INTEGER NOT NULL);"
    "INSERT INTO purge_gate VALUES(1, 0);"
    "CREATE TRIGGER ops_no_update BEFORE UPDATE ON ops"
    " BEGIN SELECT RAISE(ABORT, 'op log is append-only'); END;"
    "CREATE TRIGGER ops_no_delete BEFORE DELETE ON ops"
    " WHEN (SELECT open FROM purge_gate WHERE id = 1) IS NOT 1"
    " BEGIN SELECT RAISE(ABORT, 'op log is append-only'); END;"
    "CREATE TABLE heads(ns BLOB NOT NULL, hash BLOB NOT NULL, PRIMARY KEY(ns, hash))"
    " WITHOUT ROWID;"
    "CREATE TABLE groups(id BLOB PRIMARY KEY, ns BLOB NOT NULL, parent BLOB NOT NULL,"
    " visibility INTEGER NOT NULL, seq INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX groups_parent ON groups(parent);"
    "CREATE INDEX groups_ns ON groups(ns, seq);"
    "CREATE TABLE members(grp BLOB NOT NULL, member BLOB NOT NULL, role INTEGER NOT NULL,"
    " tee INTEGER NOT NULL DEFAULT 0, account BLOB, quote_hash BLOB, mrtd TEXT, rtmr0 TEXT,"
    " rtmr1 TEXT, rtmr2 TEXT, rtmr3 TEXT, tcb TEXT, PRIMARY KEY(grp, member)) WITHOUT ROWID;"
    "CREATE INDEX members_member ON members(member, grp);"
    "CREATE TABLE policy(ns BLOB PRIMARY KEY, op_hash BLOB NOT NULL, body BLOB NOT NULL)"
    " WITHOUT ROWID;"
    "CREATE TABLE evidence(grp BLOB NOT NULL, member BLOB NOT NULL, quote_hash BLOB NOT NULL,"
    " attested_at INTEGER NOT NULL, tcb TEXT NOT NULL, op_hash BLOB NOT NULL,"
    " PRIMARY KEY(grp, member)) WITHOUT ROWID;"
    "CREATE TABLE spent(ns BLOB NOT NULL, quote_hash BLOB NOT NULL, kind INTEGER NOT NULL,"
    " grp BLOB NOT NULL, PRIMARY KEY(ns, quote_hash, kind, grp)) WITHOUT ROWID;"
    "CREATE TABLE deny(grp BLOB NOT NULL, member BLOB NOT NULL, PRIMARY KEY(grp, member))"
    " WITHOUT ROWID;"
    "CREATE TABLE contexts(id BLOB PRIMARY KEY, ns BLOB NOT NULL, grp BLOB NOT NULL,"
    " app BLOB NOT NULL, seq INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX contexts_ns ON contexts(ns, seq);"
    "CREATE TABLE autofollow(grp BLOB NOT NULL, member BLOB NOT NULL,"
    " contexts INTEGER NOT NULL, subgroups INTEGER NOT NULL, PRIMARY KEY(grp, member))"
    " WITHOUT ROWID;"
    "CREATE TABLE identities(ns BLOB PRIMARY KEY, sk BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE account_key(id INTEGER PRIMARY KEY CHECK (id = 1), sk BLOB NOT NULL);"
    "CREATE TABLE group_keys(grp BLOB NOT NULL, key_id BLOB NOT NULL, key BLOB NOT NULL,"
    " seq INTEGER NOT NULL, PRIMARY KEY(grp, key_id)) WITHOUT ROWID;"
    "CREATE INDEX group_keys_seq ON group_keys(grp, seq);"
    "CREATE TABLE pending_purge(ns BLOB PRIMARY KEY) WITHOUT ROWID;";

/* Migration 2: the encrypted group-op form. `deferred` (derived) holds ops stored but not yet
 * applied: an encrypted op whose key we lack (key_id set) and later ops on the same group the
 * rules refused meanwhile (key_id NULL). `inert` (local, kept by rebuild) holds deferred ops
 * that were refused when their turn came, so a rebuild leaves them without effect too. IF NOT
 * EXISTS so a store whose user_version was lowered by hand migrates again cleanly. */
static const char *const migration_2 =
    "CREATE TABLE IF NOT EXISTS deferred(hash BLOB PRIMARY KEY, ns BLOB NOT NULL,"
    " grp BLOB NOT NULL, key_id BLOB, seq INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS deferred_grp ON deferred(ns, grp, seq);"
    "CREATE TABLE IF NOT EXISTS inert(hash BLOB PRIMARY KEY, ns BLOB NOT NULL) WITHOUT ROWID;";

/* Migration 3: `purged` (local, kept by rebuild): the tombstone of a namespace this node
 * self-purged, written in the purge's own transaction. While it stands, mero_gov_apply drops
 * the namespace's ops (nothing stored) so a late sync answer or gossip cannot bring the op log
 * back; a new join of the namespace (fleet-join, POST .../join) clears it first. */
static const char *const migration_3 =
    "CREATE TABLE IF NOT EXISTS purged(ns BLOB PRIMARY KEY) WITHOUT ROWID;";

/* Migration 4 (issue 19): the advisory IDs of the offline check of each evidence (derived like
 * the rest of the row, so a store that had data is rebuilt with it: migration_rederives).
 * SQLite has no ADD COLUMN IF NOT EXISTS: migrate() skips it when the column is there
 * (migration_4_column), so a lowered user_version migrates again cleanly. */
static const char *const migration_4 =
    "ALTER TABLE evidence ADD COLUMN advisories TEXT NOT NULL DEFAULT '';";
static const char *const migration_4_column[2] = {"evidence", "advisories"};

/* Migration 5 (issue 30, fold.c): `fold` (derived) gives every stored op its place in the
 * canonical order - depth, class, hash - and its outcome there (1 effective, 0 rejected with
 * the reason, 2 deferred for a key); `principals` (local, kept by rebuild) the identities that
 * have held a row in a namespace, whose refused ops are kept without effect. A store that had
 * data is re-folded in the same transaction (migration_rederives). */
static const char *const migration_5 =
    "CREATE TABLE IF NOT EXISTS fold(hash BLOB PRIMARY KEY, ns BLOB NOT NULL,"
    " depth INTEGER NOT NULL, cls INTEGER NOT NULL, state INTEGER NOT NULL,"
    " reason TEXT NOT NULL DEFAULT '') WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS fold_order ON fold(ns, depth, cls, hash);"
    "CREATE TABLE IF NOT EXISTS principals(ns BLOB NOT NULL, member BLOB NOT NULL,"
    " PRIMARY KEY(ns, member)) WITHOUT ROWID;"
    "INSERT OR IGNORE INTO principals(ns, member) SELECT g.ns, m.member FROM members m"
    " JOIN groups g ON g.id = m.grp;";

/* Migration 6 (issue 32 item 6, maint.c): `derived_seal` (local), one row written at a clean
 * stop: the SHA-256 of the derived tables' canonical dump, compared and removed at the next
 * start, so rows edited or damaged while the node was stopped are found without a replay. */
static const char *const migration_6 =
    "CREATE TABLE IF NOT EXISTS derived_seal(id INTEGER PRIMARY KEY CHECK (id = 1),"
    " digest BLOB NOT NULL);";

/* Migration 7 (issue 30, the re-fold's speed): the fold table is keyed by (ns, hash), so a
 * namespace's rows are one range of the table. A re-fold reads them in one pass and sorts them
 * in memory (fold_table.c, mero__gov_fold_order), and writes the outcomes it changed in key order;
 * keyed by hash alone, both were a lookup at a random place per op, most of a re-fold's cost. The
 * columns and their order are the same (the derived dump does not change). */
static const char *const migration_7 =
    "CREATE TABLE fold_v7(hash BLOB NOT NULL, ns BLOB NOT NULL, depth INTEGER NOT NULL,"
    " cls INTEGER NOT NULL, state INTEGER NOT NULL, reason TEXT NOT NULL DEFAULT '',"
    " PRIMARY KEY(ns, hash)) WITHOUT ROWID;"
    "INSERT INTO fold_v7 SELECT hash, ns, depth, cls, state, reason FROM fold;"
    "DROP TABLE fold;"
    "ALTER TABLE fold_v7 RENAME TO fold;"
    "CREATE INDEX fold_order ON fold(ns, depth, cls, hash);";

/* Migration 8 (issue 30, the re-fold's speed): `ops_ns` also holds each op's hash, so the scan
 * of a namespace's log rows a re-fold matches against its fold rows (fold_table.c,
 * mero__gov_fold_order) reads the index alone; without the hash it read every op's row, op
 * bytes and all, a page of the log for every few ops. Same name and leading columns: every
 * query that used it still does. */
static const char *const migration_8 = "DROP INDEX IF EXISTS ops_ns;"
                                       "CREATE INDEX ops_ns ON ops(ns, seq, hash);";

/* Migration 9 (issue 30, the same log on every node): `principals` also holds every identity a
 * stored op names as holding a row (project.c, mero__gov_nominate), written with the op; a
 * store with data is rebuilt, and the rebuild records the nominees of the ops it already held.
 * No table changes: the statement is the table the rebuild fills. */
static const char *const migration_9 =
    "CREATE TABLE IF NOT EXISTS principals(ns BLOB NOT NULL, member BLOB NOT NULL,"
    " PRIMARY KEY(ns, member)) WITHOUT ROWID;";

/* Migration 10 (issue 30, what a removal vouches for): `cuts` (local, kept by rebuild) holds the
 * cuts a stored MemberRemoved names (project.c, mero__gov_note_cuts) with the group it removes
 * from, written with the op; whether one counts is its op's outcome in `fold` and whether that
 * group is the context's or an ancestor of it (query.c). No stored op had cuts before: nothing to
 * rebuild. */
static const char *const migration_10 =
    "CREATE TABLE IF NOT EXISTS cuts(ns BLOB NOT NULL, member BLOB NOT NULL, context BLOB NOT NULL,"
    " op_hash BLOB NOT NULL, grp BLOB NOT NULL, head BLOB NOT NULL,"
    " PRIMARY KEY(ns, member, context, op_hash)) WITHOUT ROWID;";

static const char *const *const migrations[] = {
    &migration_1, &migration_2, &migration_3, &migration_4, &migration_5,
    &migration_6, &migration_7, &migration_8, &migration_9, &migration_10};
/* per migration: the {table, column} whose presence means it already ran, or NULL */
static const char *const *const migration_done_if[] = {
    NULL, NULL, NULL, migration_4_column, NULL, NULL, NULL, NULL, NULL, NULL};
/* per migration: it adds a derived column (or, migration 9, rows the rebuild writes), so a
 * store that had data is rebuilt in the same transaction (the rows written before it then hold
 * what a rebuild computes, and `merod check` agrees) */
static const bool migration_rederives[] = {false, false, false, true, true,
                                           false, false, false, true, false};
_Static_assert(sizeof(migration_rederives) / sizeof(migration_rederives[0]) ==
                   sizeof(migration_done_if) / sizeof(migration_done_if[0]),
               "one rederive flag per migration");
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) ==
                   sizeof(migration_done_if) / sizeof(migration_done_if[0]),
               "one guard per migration");
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == MERO_GOV_STORE_SCHEMA,
               "MERO_GOV_STORE_SCHEMA names the last migration");

int mero__gov_sqlerr(struct mero_store *s, struct mero_err *err, const char *what)
{
    int sys = sqlite3_system_errno(s->db);
    int code = sqlite3_errcode(s->db) & 0xff;
    if (sys != 0 && (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
                     code == SQLITE_READONLY)) {
        return mero_err_set(err, MERO_EIO, "store: %s: %s (%s)", what, sqlite3_errmsg(s->db),
                            strerror(sys));
    }
    return mero_err_set(err, MERO_EIO, "store: %s: %s", what, sqlite3_errmsg(s->db));
}

uint64_t mero_gov_generation(struct mero_store *s)
{
    return (uint64_t)sqlite3_total_changes64(s->db);
}

int mero__gov_exec(struct mero_store *s, const char *sql)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -MERO_EIO;
}

sqlite3_stmt *mero__gov_stmt(struct mero_store *s, const char *sql)
{
    for (size_t i = 0; i < s->ncache; i++) {
        if (s->cache[i].sql == sql) {
            sqlite3_reset(s->cache[i].st);
            sqlite3_clear_bindings(s->cache[i].st);
            return s->cache[i].st;
        }
    }
    sqlite3_stmt *st = NULL;
    unsigned flags = s->ncache < GOV_STMT_CACHE ? SQLITE_PREPARE_PERSISTENT : 0;
    if (sqlite3_prepare_v3(s->db, sql, -1, flags, &st, NULL) != SQLITE_OK) {
        return NULL;
    }
    if (s->ncache < GOV_STMT_CACHE) {
        s->cache[s->ncache].sql = sql;
        s->cache[s->ncache].st = st;
        s->ncache++;
    }
    /* an uncached statement would leak: the cache is sized for every static SQL in gov */
    return st;
}

int mero__gov_exec_id(struct mero_store *s, const char *sql, const uint8_t id[MERO_GROUP_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, id, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

int mero__gov_step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

static bool column_exists(struct mero_store *s, const char *const tc[2])
{
    sqlite3_stmt *st = NULL;
    bool yes = false;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        return false;
    }
    sqlite3_bind_text(st, 1, tc[0], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, tc[1], -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/*
 * Every pending migration and, when one of them added a derived column to a store that had
 * data, the rebuild that fills it, in one transaction: a failure leaves the store as it was,
 * so the next open tries all of it again (never a new schema with stale derived rows).
 */
static int migrate(struct mero_store *s, mero__gov_rederive_fn rederive_fn, struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    int version = 0;
    bool rederive = false;
    int rc = 0;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
        return mero__gov_sqlerr(s, err, "user_version");
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    size_t known = sizeof(migrations) / sizeof(migrations[0]);
    if (version < 0 || (size_t)version > known) {
        return mero_err_set(err, MERO_ESCHEMA,
                            "store schema %d is newer than this build understands (%zu)", version,
                            known);
    }
    if ((size_t)version == known) {
        return 0;
    }
    if (mero__gov_exec(s, "BEGIN IMMEDIATE") < 0) {
        return mero__gov_sqlerr(s, err, "migration begin");
    }
    for (size_t v = (size_t)version; v < known; v++) {
        char pragma[PRAGMA_SQL_MAX];
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %zu", v + 1);
        bool done = migration_done_if[v] != NULL && column_exists(s, migration_done_if[v]);
        if (!done) {
            GOV_SQL_TRY_OUT(s, err, mero__gov_exec(s, *migrations[v]), "migration");
        }
        GOV_SQL_TRY_OUT(s, err, mero__gov_exec(s, pragma), "migration");
        rederive = rederive || (version > 0 && !done && migration_rederives[v]);
    }
    if (rederive) {
        MERO_TRY_OUT(rederive_fn(s, err)); /* the derived rows an older build wrote */
    }
    /* a migrated store's derived tables are not the ones a seal was taken of (issue 32 item 6:
     * the next start compares them with a replay instead) */
    GOV_SQL_TRY_OUT(s, err, mero__gov_exec(s, "DELETE FROM derived_seal"), "migration");
    if (mero__gov_exec(s, "COMMIT") < 0) {
        rc = mero__gov_sqlerr(s, err, "migration commit");
    }
out:
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK");
    }
    return rc;
}

static int check_file_mode(const char *path, bool create, struct mero_err *err)
{
    if (strcmp(path, ":memory:") == 0) {
        return 0;
    }
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0 && !create && errno == ENOENT) {
        return mero_err_set(err, MERO_ENOTFOUND,
                            "store %s is missing: merod init created it, so it was deleted or "
                            "moved; restore it from a backup (or move this home aside and run "
                            "merod init again)",
                            path);
    }
    if (fd < 0) {
        return mero_err_set(err, MERO_EIO, "cannot open store %s for writing: %s", path,
                            strerror(errno));
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = mero_err_set(err, MERO_EIO, "cannot stat store %s: %s", path, strerror(errno));
    } else if (!create && st.st_size == 0) {
        rc = mero_err_set(err, MERO_ESTATE,
                          "store %s is empty (0 bytes) though merod init created it: it was "
                          "truncated; restore it from a backup (or move this home aside and run "
                          "merod init again)",
                          path);
    } else if ((st.st_mode & 077) != 0) {
        rc = mero_err_set(err, MERO_EKEYPERM,
                          "store %s holds secret keys but is accessible by group or others "
                          "(mode %03o); run chmod 600 %s",
                          path, (unsigned)(st.st_mode & 0777), path);
    }
    close(fd);
    return rc;
}

/* The connection's settings; the first statement a store file meets, so a file that is no
 * database, or a damaged one, is named here as such. */
static int set_pragmas(struct mero_store *s, const char *path, struct mero_err *err)
{
    if (mero__gov_exec(s, "PRAGMA journal_mode=WAL") < 0 ||
        mero__gov_exec(s, "PRAGMA synchronous=FULL") < 0 ||
        mero__gov_exec(s, "PRAGMA foreign_keys=ON") < 0 ||
        mero__gov_exec(s, "PRAGMA secure_delete=ON") < 0 ||
        /* a page cache of up to 16 MiB (SQLite's default is 2 MiB, allocated as pages are
         * read): a re-fold of a 10,000-op namespace touches more pages than 2 MiB hold, and
         * reading them again from the file was a tenth of its time (docs/governance.md) */
        mero__gov_exec(s, "PRAGMA cache_size=-16384") < 0 ||
        /* savepoint sub-journals in memory: a re-fold (issue 30) nests one savepoint per op,
         * and no page of the store (keys included) is copied to a temporary file */
        mero__gov_exec(s, "PRAGMA temp_store=MEMORY") < 0) {
        int code = sqlite3_errcode(s->db);
        MERO_ENSURE(code != SQLITE_CORRUPT && code != SQLITE_NOTADB, err, MERO_ESTATE,
                    "%s is corrupted: %s", path, sqlite3_errmsg(s->db));
        return mero__gov_sqlerr(s, err, "pragmas");
    }
    return 0;
}

int mero__gov_store_open(const char *path, bool create, mero__gov_rederive_fn rederive,
                         struct mero_store **out, struct mero_err *err)
{
    MERO_TRY(check_file_mode(path, create, err));
    struct mero_store *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    int rc = 0;
    mode_t old = umask(077);
    int orc = sqlite3_open_v2(
        path, &s->db,
        SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX, NULL);
    umask(old);
    MERO_ENSURE_OUT(orc == SQLITE_OK, err, MERO_EIO, "cannot open store %s: %s", path,
                    s->db ? sqlite3_errmsg(s->db) : "out of memory");
    MERO_TRY_OUT(set_pragmas(s, path, err));
    sqlite3_busy_timeout(s->db, 5000);
    MERO_TRY_OUT(migrate(s, rederive, err));
    *out = s;
    s = NULL; /* handed over */
out:
    mero_store_close(s);
    return rc;
}

int mero_store_check(struct mero_store *s, bool full, struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *sql = full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        return mero_err_set(err, MERO_EIO, "%s cannot run: %s",
                            full ? "integrity_check" : "quick_check", sqlite3_errmsg(s->db));
    }
    int rc = 0, step = sqlite3_step(st);
    const char *first = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (step != SQLITE_ROW) {
        rc = mero_err_set(err, MERO_EIO, "%s failed: %s", full ? "integrity_check" : "quick_check",
                          sqlite3_errmsg(s->db));
    } else if (first == NULL || strcmp(first, "ok") != 0) {
        rc = mero_err_set(err, MERO_EIO, "%s: %s", full ? "integrity_check" : "quick_check",
                          first ? first : "no answer");
    }
    sqlite3_finalize(st);
    return rc;
}

void mero_store_close(struct mero_store *s)
{
    if (s == NULL) {
        return;
    }
    for (size_t i = 0; i < s->ncache; i++) {
        sqlite3_finalize(s->cache[i].st);
    }
    sqlite3_close(s->db);
    free(s);
}

int mero_store_begin(struct mero_store *s)
{
    return mero__gov_exec(s, "BEGIN IMMEDIATE");
}

int mero_store_commit(struct mero_store *s)
{
    return mero__gov_exec(s, "COMMIT");
}

void mero_store_rollback(struct mero_store *s)
{
    (void)mero__gov_exec(s, "ROLLBACK");
}

void mero_store_set_hooks(struct mero_store *s, const struct mero_gov_hooks *h)
{
    if (h == NULL) {
        memset(&s->hooks, 0, sizeof(s->hooks));
    } else {
        s->hooks = *h;
    }
}

/* ---- secrets ------------------------------------------------------------------------------ */

static const char SQL_ID_GET[] = "SELECT sk FROM identities WHERE ns = ?";
static const char SQL_ID_PUT[] = "INSERT INTO identities(ns, sk) VALUES(?, ?)";

int mero_gov_identity_secret(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             uint8_t sk[static MERO_ED25519_SK_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ID_GET);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_ED25519_SEED_LEN) {
        uint8_t pk[MERO_IDENTITY_LEN];
        mero_ed25519_from_seed(pk, sk, sqlite3_column_blob(st, 0));
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

bool mero__gov_our_pk(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                      uint8_t pk[MERO_IDENTITY_LEN])
{
    uint8_t sk[MERO_ED25519_SK_LEN];
    if (s->us_cached && memcmp(s->us_ns, ns, MERO_NS_ID_LEN) == 0) {
        memcpy(pk, s->us_pk, MERO_IDENTITY_LEN);
        return true;
    }
    if (mero_gov_identity_secret(s, ns, sk) < 0) {
        return false;
    }
    memcpy(pk, sk + MERO_ED25519_SEED_LEN, MERO_IDENTITY_LEN);
    sodium_memzero(sk, sizeof(sk));
    memcpy(s->us_ns, ns, MERO_NS_ID_LEN);
    memcpy(s->us_pk, pk, MERO_IDENTITY_LEN);
    s->us_cached = true;
    return true;
}

int mero__gov_identity_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t sk[MERO_ED25519_SK_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ID_PUT);
    s->us_cached = false;
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, sk, MERO_ED25519_SEED_LEN, SQLITE_STATIC); /* the seed */
    return mero__gov_step_done(st);
}

int mero_gov_identity(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN], bool create,
                      uint8_t pk[static MERO_IDENTITY_LEN], struct mero_err *err)
{
    if (mero__gov_our_pk(s, ns, pk)) {
        return 0;
    }
    if (!create) {
        return mero_err_set(err, MERO_ENOTFOUND, "no identity for this namespace");
    }
    uint8_t sk[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(pk, sk);
    int rc = mero__gov_identity_put(s, ns, sk);
    sodium_memzero(sk, sizeof(sk));
    if (rc < 0) {
        return mero__gov_sqlerr(s, err, "identity");
    }
    return 0;
}

static const char SQL_ACCT_GET[] = "SELECT sk FROM account_key WHERE id = 1";
static const char SQL_ACCT_PUT[] = "INSERT INTO account_key(id, sk) VALUES(1, ?)";

static int account_key(struct mero_store *s, uint8_t sk[MERO_ED25519_SK_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ACCT_GET);
    if (st == NULL) {
        return -MERO_EIO;
    }
    uint8_t pk[MERO_ED25519_PK_LEN];
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_ED25519_SEED_LEN) {
        mero_ed25519_from_seed(pk, sk, sqlite3_column_blob(st, 0));
        sqlite3_reset(st);
        return 0;
    }
    sqlite3_reset(st);
    mero_ed25519_keypair(pk, sk);
    st = mero__gov_stmt(s, SQL_ACCT_PUT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, sk, MERO_ED25519_SEED_LEN, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero_gov_credential(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                        struct mero_credential *out, struct mero_err *err)
{
    uint8_t sk[MERO_ED25519_SK_LEN], root[MERO_ED25519_SK_LEN], kem[MERO_X25519_LEN],
        device[MERO_SHA256_LEN];                       /* a device id is a domain hash */
    const uint8_t *id_pk = sk + MERO_ED25519_SEED_LEN; /* sk = seed || public key */
    MERO_ENSURE(mero_gov_identity_secret(s, ns, sk) == 0, err, MERO_ENOTFOUND,
                "no identity for this namespace");
    int rc = 0;
    GOV_SQL_TRY_OUT(s, err, account_key(s, root), "account key");
    mero_device_id(device, root + MERO_ED25519_SEED_LEN);
    MERO_ENSURE_OUT(mero_kem_pk_from_ed25519(kem, id_pk) == 0, err, MERO_ECRYPTO,
                    "identity key has no X25519 form");
    mero_credential_build(out, root, device, id_pk, kem, 0, 0);
out:
    sodium_memzero(sk, sizeof(sk));
    sodium_memzero(root, sizeof(root));
    return rc;
}

/* ---- group keys --------------------------------------------------------------------------- */

static const char SQL_KEY_PUT[] =
    "INSERT OR IGNORE INTO group_keys(grp, key_id, key, seq)"
    " VALUES(?1, ?2, ?3, (SELECT IFNULL(MAX(seq), 0) + 1 FROM group_keys WHERE grp = ?1))";
static const char SQL_KEY_CUR[] =
    "SELECT key, key_id FROM group_keys WHERE grp = ? ORDER BY seq DESC LIMIT 1";
static const char SQL_KEY_BYID[] = "SELECT key FROM group_keys WHERE grp = ? AND key_id = ?";

int mero__gov_key_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const uint8_t key[MERO_GROUP_KEY_LEN])
{
    uint8_t id[MERO_KEY_ID_LEN];
    mero_group_key_id(id, key);
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_PUT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, grp, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, id, sizeof(id), SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, key, MERO_GROUP_KEY_LEN, SQLITE_STATIC);
    return mero__gov_step_done(st);
}

int mero_gov_group_key(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                       uint8_t key[static MERO_GROUP_KEY_LEN],
                       uint8_t key_id[static MERO_KEY_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_CUR);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_GROUP_KEY_LEN &&
        sqlite3_column_bytes(st, 1) == MERO_KEY_ID_LEN) {
        memcpy(key, sqlite3_column_blob(st, 0), MERO_GROUP_KEY_LEN);
        memcpy(key_id, sqlite3_column_blob(st, 1), MERO_KEY_ID_LEN);
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

int mero_gov_group_key_by_id(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                             const uint8_t key_id[static MERO_KEY_ID_LEN],
                             uint8_t key[static MERO_GROUP_KEY_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_BYID);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, key_id, MERO_KEY_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_GROUP_KEY_LEN) {
        memcpy(key, sqlite3_column_blob(st, 0), MERO_GROUP_KEY_LEN);
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

int mero_gov_unwrap(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                    const uint8_t group[static MERO_GROUP_ID_LEN],
                    const struct mero_key_envelope *e, uint8_t key[static MERO_GROUP_KEY_LEN],
                    struct mero_err *err)
{
    uint8_t sk[MERO_ED25519_SK_LEN];
    if (mero_gov_identity_secret(s, ns, sk) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "no identity for this namespace");
    }
    int rc = mero_envelope_open(e, group, sk, key, err);
    sodium_memzero(sk, sizeof(sk));
    return rc;
}

int mero_store_checkpoint(struct mero_store *s)
{
    int log = -1, done = -1;
    int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    if (rc == SQLITE_BUSY || (rc == SQLITE_OK && log != done)) {
        return -MERO_EBUSY;
    }
    return rc == SQLITE_OK ? 0 : -MERO_EIO;
}
