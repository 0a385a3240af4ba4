/* SPDX-License-Identifier: Apache-2.0 */
/*
 * db.c - opens the node's SQLite database node.db (ARCHITECTURE.md §4): WAL journal,
 * synchronous=FULL (an acknowledged write survives a crash), foreign keys on, a busy timeout.
 * The file is kept 0600 (it holds decrypted context state); the governance store is gov.db,
 * opened through gov.h. Context tables are created by context.c, idempotently, so `merod run`
 * after `merod init` or a restart carries on.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mero/log.h"
#include "node/db.h"

static const char *const schema[] = {
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON", /* a self-purge overwrites what it deletes */
    "CREATE TABLE IF NOT EXISTS node_meta (k TEXT PRIMARY KEY, v BLOB NOT NULL)",
};

int mero_node_db_exec(struct sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        MERO_ERROR("sqlite: %s: %s", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return -MERO_EIO;
    }
    return 0;
}

int mero_node_db_open(struct sqlite3 **out, const char *path, struct mero_err *err)
{
    sqlite3 *db = NULL;
    /* create it 0600 first: it holds decrypted context state (sqlite reuses the mode for
     * the -wal and -shm files) */
    int fd = strcmp(path, ":memory:") == 0 ? -2 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd == -2) {
        /* in-memory database (tests): nothing on disk */
    } else if (fd < 0 || fchmod(fd, 0600) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return mero_err_set(err, MERO_EIO, "cannot create %s", path);
    } else {
        close(fd);
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        int rc = mero_err_set(err, MERO_EIO, "cannot open %s: %s", path,
                              db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 5000);
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        if (mero_node_db_exec(db, schema[i]) < 0) {
            sqlite3_close(db);
            return mero_err_set(err, MERO_EIO, "cannot set up %s", path);
        }
    }
    *out = db;
    return 0;
}

void mero_node_db_close(struct sqlite3 *db)
{
    if (db != NULL) {
        (void)sqlite3_close_v2(db);
    }
}
