/* SPDX-License-Identifier: Apache-2.0 */
/*
 * purge_marks.c - the two durable facts of a self-purge (docs/admission.md "Self-purge"): the
 * pending marker (`pending_purge`: a namespace id, or a subgroup id for a subgroup-only
 * eviction), written with the removal that evicted us, and the tombstone (`purged`) that makes
 * apply drop the namespace's ops unseen. The purge itself is maint.c's.
 *
 * Invariants: reads fail closed (an unreadable tombstone reads as purged); a marker is removed
 * only by the purge's own transaction (mero__gov_purge_unmark) or a re-fold that finds the
 * removal lost (fold.c). Floor: query/project (docs/layers.md "gov's floors").
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"

static const char SQL_MARK[] = "INSERT OR IGNORE INTO pending_purge(ns) VALUES(?)";
static const char SQL_UNMARK[] = "DELETE FROM pending_purge WHERE ns = ?";
static const char SQL_PENDING[] = "SELECT ns FROM pending_purge ORDER BY ns";

int mero_gov_purge_mark(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN])
{
    return mero__gov_exec_id(s, SQL_MARK, ns);
}

int mero_gov_purge_pending(struct mero_store *s, uint8_t (**out)[MERO_NS_ID_LEN], size_t *n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_PENDING, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    uint8_t(*v)[MERO_NS_ID_LEN] = NULL;
    size_t cnt = 0;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint8_t(*nv)[MERO_NS_ID_LEN] = realloc(v, (cnt + 1) * sizeof(*v));
        MERO_ENSURE_OUT(nv != NULL, NULL, MERO_ENOMEM, "out of memory");
        v = nv;
        memset(v[cnt], 0, sizeof(v[cnt]));
        if (sqlite3_column_bytes(st, 0) == (int)sizeof(v[cnt])) {
            memcpy(v[cnt], sqlite3_column_blob(st, 0), sizeof(v[cnt]));
        }
        cnt++;
    }
    MERO_ENSURE_OUT(step == SQLITE_DONE, NULL, MERO_EIO, "pending purge scan");
    *out = v;
    *n = cnt;
    v = NULL;
out:
    free(v);
    sqlite3_finalize(st);
    return rc;
}

int mero_gov_purged(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN], bool *yes)
{
    sqlite3_stmt *st = mero__gov_stmt(s, "SELECT 1 FROM purged WHERE ns = ?");
    *yes = true; /* fail closed */
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return -MERO_EIO;
    }
    *yes = rc == SQLITE_ROW;
    return 0;
}

int mero_gov_purged_clear(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN])
{
    return mero__gov_exec_id(s, "DELETE FROM purged WHERE ns = ?", ns);
}

int mero__gov_purge_unmark(struct mero_store *s, const uint8_t id[MERO_GROUP_ID_LEN])
{
    return mero__gov_exec_id(s, SQL_UNMARK, id);
}
