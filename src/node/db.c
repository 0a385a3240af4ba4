/* SPDX-License-Identifier: Apache-2.0 */
/*
 * db.c - opens the node's SQLite database node.db (ARCHITECTURE.md §4): WAL journal,
 * synchronous=FULL (an acknowledged write survives a crash), foreign keys on, a busy timeout.
 * The file is kept 0600 (it holds decrypted context state); the governance store is gov.db,
 * opened through gov.h. Context tables are created by context/tables.c, idempotently, so
 * `merod run` after `merod init` or a restart carries on.
 *
 * Invariant: only `merod init` creates node.db (create = true); `merod run` refuses a missing
 * or empty file with what to do, never recreating it empty. node_meta records local facts such
 * as "gov.db was created" (so a vanished gov.db is refused too).
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mero/log.h"
#include "node/db_internal.h"

static const char *const schema[] = {
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON", /* a self-purge overwrites what it deletes */
    "CREATE TABLE IF NOT EXISTS node_meta (k TEXT PRIMARY KEY, v BLOB NOT NULL)",
    /* local labels of namespaces and groups (ns_meta.c): never replicated, nothing depends on
     * them; the reference's createNamespace/createGroupInNamespace hand them in */
    ("CREATE TABLE IF NOT EXISTS ns_meta (id BLOB PRIMARY KEY, application_id TEXT NOT NULL,"
     " upgrade_policy TEXT NOT NULL, app_key TEXT NOT NULL, name TEXT,"
     " created_at INTEGER NOT NULL)"),
    /* issue 19: the admission-attempt log (attempts.c), local facts, the last 1,000 per ns */
    ("CREATE TABLE IF NOT EXISTS adm_attempts (id INTEGER PRIMARY KEY AUTOINCREMENT,"
     " ns BLOB NOT NULL, at INTEGER NOT NULL, identity BLOB, peer TEXT, path INTEGER NOT NULL,"
     " admitter BLOB, verdict INTEGER NOT NULL, rule TEXT, reason TEXT, has_m INTEGER NOT NULL,"
     " mrtd TEXT, rtmr0 TEXT, rtmr1 TEXT, rtmr2 TEXT, rtmr3 TEXT, match_kind INTEGER NOT NULL,"
     " match_name TEXT, tcb TEXT)"),
    "CREATE INDEX IF NOT EXISTS adm_attempts_ns ON adm_attempts(ns, id)",
    /* issue 19: the release profile each TEE this node admitted matched (attempts.c) */
    ("CREATE TABLE IF NOT EXISTS adm_profiles (ns BLOB NOT NULL, member BLOB NOT NULL,"
     " profile TEXT NOT NULL, PRIMARY KEY(ns, member)) WITHOUT ROWID"),
    /* issue 35: the names an admin gave members on this node (labels.c), never replicated */
    ("CREATE TABLE IF NOT EXISTS member_labels (ns BLOB NOT NULL, member BLOB NOT NULL,"
     " label TEXT NOT NULL, PRIMARY KEY(ns, member)) WITHOUT ROWID"),
};

int mero__node_db_exec(struct sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        MERO_ERROR("sqlite: %s: %s", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return -MERO_EIO;
    }
    return 0;
}

/* The file must be there and non-empty unless we create it; opened for writing, 0600. */
static int prepare_file(const char *path, bool create, struct mero_err *err)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0 && !create && errno == ENOENT) {
        return mero_err_set(err, MERO_ENOTFOUND,
                            "%s is missing: merod init created it, so it was deleted or moved; "
                            "restore it from a backup (or move this home aside and run merod "
                            "init again; context data is then pulled from peers)",
                            path);
    }
    if (fd < 0) {
        return mero_err_set(err, MERO_EIO, "cannot open %s for writing: %s", path, strerror(errno));
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = mero_err_set(err, MERO_EIO, "cannot stat %s: %s", path, strerror(errno));
    } else if (!create && st.st_size == 0) {
        rc = mero_err_set(err, MERO_ESTATE,
                          "%s is empty (0 bytes) though merod init created it: it was truncated; "
                          "restore it from a backup (or move this home aside and run merod init "
                          "again)",
                          path);
    } else if (fchmod(fd, 0600) != 0) {
        rc = mero_err_set(err, MERO_EIO, "cannot chmod %s: %s", path, strerror(errno));
    }
    close(fd);
    return rc;
}

int mero__node_db_open(struct sqlite3 **out, const char *path, bool create, struct mero_err *err)
{
    sqlite3 *db = NULL;
    /* create it 0600 first: it holds decrypted context state (sqlite reuses the mode for
     * the -wal and -shm files) */
    if (strcmp(path, ":memory:") != 0) {
        MERO_TRY(prepare_file(path, create, err));
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        int rc = mero_err_set(err, MERO_EIO, "cannot open %s: %s", path,
                              db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 5000);
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        if (sqlite3_exec(db, schema[i], NULL, NULL, NULL) != SQLITE_OK) {
            int code = sqlite3_errcode(db);
            int rc =
                code == SQLITE_CORRUPT || code == SQLITE_NOTADB
                    ? mero_err_set(err, MERO_ESTATE, "%s is corrupted: %s", path,
                                   sqlite3_errmsg(db))
                    : mero_err_set(err, MERO_EIO, "cannot set up %s: %s", path, sqlite3_errmsg(db));
            sqlite3_close(db);
            return rc;
        }
    }
    *out = db;
    return 0;
}

int mero__node_db_check(struct sqlite3 *db, bool full, struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *what = full ? "integrity_check" : "quick_check";
    if (sqlite3_prepare_v2(db, full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)", -1,
                           &st, NULL) != SQLITE_OK) {
        return mero_err_set(err, MERO_EIO, "%s cannot run: %s", what, sqlite3_errmsg(db));
    }
    int rc = 0, step = sqlite3_step(st);
    const char *first = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (step != SQLITE_ROW) {
        rc = mero_err_set(err, MERO_EIO, "%s failed: %s", what, sqlite3_errmsg(db));
    } else if (first == NULL || strcmp(first, "ok") != 0) {
        rc = mero_err_set(err, MERO_EIO, "%s: %s", what, first ? first : "no answer");
    }
    sqlite3_finalize(st);
    return rc;
}

int mero__node_meta_get(struct sqlite3 *db, const char *k, bool *present)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM node_meta WHERE k = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    *present = step == SQLITE_ROW;
    sqlite3_finalize(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero__node_meta_set(struct sqlite3 *db, const char *k, const char *v)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO node_meta(k, v) VALUES(?1, ?2)", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, v, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

void mero__node_db_close(struct sqlite3 *db)
{
    if (db != NULL) {
        (void)sqlite3_close_v2(db);
    }
}

int mero__node_db_checkpoint(struct sqlite3 *db)
{
    int log = -1, done = -1;
    int rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    if (rc == SQLITE_BUSY || (rc == SQLITE_OK && log != done)) {
        return -MERO_EBUSY;
    }
    return rc == SQLITE_OK ? 0 : -MERO_EIO;
}
