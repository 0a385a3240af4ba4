/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ns_meta.c - the node.db table ns_meta (ns_meta.h): local labels of namespaces and groups.
 * Invariant: every string read back is NUL-terminated and at most MERO_NS_META_STR_MAX - 1
 * bytes (longer stored values are cut, never overrun).
 */
#include <sqlite3.h>
#include <string.h>

#include "node/ns_meta_internal.h"

int mero__ns_meta_put(struct sqlite3 *db, const uint8_t id[MERO_GROUP_ID_LEN],
                      const struct mero_ns_meta *m)
{
    sqlite3_stmt *st = NULL;
    int rc = -MERO_EIO;
    MERO_ENSURE_OUT(
        sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO ns_meta (id, application_id, upgrade_policy,"
                           " app_key, name, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) == SQLITE_OK,
        NULL, MERO_EIO, "prepare");
    sqlite3_bind_blob(st, 1, id, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->application_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->upgrade_policy, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, m->app_key, -1, SQLITE_STATIC);
    if (m->has_name) {
        sqlite3_bind_text(st, 5, m->name, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 5);
    }
    sqlite3_bind_int64(st, 6, m->created_at);
    if (sqlite3_step(st) == SQLITE_DONE) {
        rc = 0;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

static void col(sqlite3_stmt *st, int i, char out[MERO_NS_META_STR_MAX])
{
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    if (n > MERO_NS_META_STR_MAX - 1) {
        n = MERO_NS_META_STR_MAX - 1;
    }
    if (n > 0) {
        memcpy(out, t, n);
    }
    out[n] = 0;
}

int mero__ns_meta_get(struct sqlite3 *db, const uint8_t id[MERO_GROUP_ID_LEN],
                      struct mero_ns_meta *m, bool *found)
{
    sqlite3_stmt *st = NULL;
    int rc = -MERO_EIO;
    memset(m, 0, sizeof(*m));
    *found = false;
    MERO_ENSURE_OUT(
        sqlite3_prepare_v2(db,
                           "SELECT application_id, upgrade_policy, app_key, name, created_at"
                           " FROM ns_meta WHERE id = ?",
                           -1, &st, NULL) == SQLITE_OK,
        NULL, MERO_EIO, "prepare");
    sqlite3_bind_blob(st, 1, id, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        col(st, 0, m->application_id);
        col(st, 1, m->upgrade_policy);
        col(st, 2, m->app_key);
        m->has_name = sqlite3_column_type(st, 3) != SQLITE_NULL;
        col(st, 3, m->name);
        m->created_at = sqlite3_column_int64(st, 4);
        *found = true;
        rc = 0;
    } else if (s == SQLITE_DONE) {
        rc = 0;
    }
out:
    sqlite3_finalize(st);
    return rc;
}
