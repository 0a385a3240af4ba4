/* SPDX-License-Identifier: Apache-2.0 */
/* db.h - the node's SQLite database: open (WAL, synchronous=FULL, schema), close, helpers. */
#ifndef MERO_NODE_DB_H
#define MERO_NODE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

struct sqlite3;

MERO_MUST_CHECK int mero_node_db_open(struct sqlite3 **out, const char *path, struct mero_err *err);
void mero_node_db_close(struct sqlite3 *db);
/* Run one statement with no result rows. */
int mero_node_db_exec(struct sqlite3 *db, const char *sql);

#endif
