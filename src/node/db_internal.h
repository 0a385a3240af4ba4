/* SPDX-License-Identifier: Apache-2.0 */
/* db.h - the node's SQLite database: open (WAL, synchronous=FULL, schema), close, helpers. */
#ifndef MERO_NODE_DB_H
#define MERO_NODE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

/* Room kept after the home directory's path for "/<file name>" of a file it holds (node.db,
 * identity.key, admin-token, ...): a longer home path is refused up front. */
#define MERO_NODE_HOME_FILE_ROOM 32

struct sqlite3;

/*
 * Open node.db. create: make it if absent (merod init only); otherwise a missing or empty
 * file is refused (-MERO_ENOTFOUND / -MERO_ESTATE) with a message saying what to do.
 */
MERO_MUST_CHECK int mero__node_db_open(struct sqlite3 **out, const char *path, bool create,
                                       struct mero_err *err);
/* PRAGMA quick_check (full: integrity_check): 0 when "ok", else -MERO_EIO with the finding. */
MERO_MUST_CHECK int mero__node_db_check(struct sqlite3 *db, bool full, struct mero_err *err);
/* node_meta: whether key k is recorded; record k = v. */
MERO_MUST_CHECK int mero__node_meta_get(struct sqlite3 *db, const char *k, bool *present);
MERO_MUST_CHECK int mero__node_meta_set(struct sqlite3 *db, const char *k, const char *v);
void mero__node_db_close(struct sqlite3 *db);
/* Run one statement with no result rows. */
int mero__node_db_exec(struct sqlite3 *db, const char *sql);

/* ---- issue 16: self-purge leaves nothing (src/node/db.c) ---- */
/* PRAGMA wal_checkpoint(TRUNCATE) on node.db: every WAL frame copied into the file and the WAL
 * truncated to zero bytes. 0, -MERO_EBUSY (not finished: a reader or an open transaction),
 * -MERO_EIO. */
MERO_MUST_CHECK int mero__node_db_checkpoint(struct sqlite3 *db);

#endif
