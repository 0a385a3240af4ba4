/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_diff.c - the membership of a namespace before and after a re-fold, and the events for
 * what changed (fold.c). Invariant: a snapshot is sorted by (group, member), so one merge of
 * two snapshots names every row that went, came or changed role exactly once.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"

/* no ORDER BY: SQLite sorted through a temporary b-tree; qsort below halves a snapshot's cost */
static const char SQL_SNAPSHOT[] =
    "SELECT m.grp, m.member, m.role, m.tee FROM members m JOIN groups g ON g.id = m.grp"
    " WHERE g.ns = ?";

static int row_cmp(const struct gov_mrow *x, const struct gov_mrow *y)
{
    int c = memcmp(x->grp, y->grp, sizeof(x->grp));
    return c != 0 ? c : memcmp(x->member, y->member, sizeof(x->member));
}

static int row_qcmp(const void *x, const void *y)
{
    return row_cmp(x, y);
}

int mero__gov_mrows_snapshot(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                             struct gov_mrows *out)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_SNAPSHOT);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    size_t cap = 0;
    int rc = 0, step;
    out->v = NULL;
    out->n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_bytes(st, 0) != MERO_GROUP_ID_LEN ||
            sqlite3_column_bytes(st, 1) != MERO_IDENTITY_LEN) {
            continue;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            struct gov_mrow *nv = realloc(out->v, cap * sizeof(*nv));
            if (nv == NULL) {
                rc = -MERO_ENOMEM;
                break;
            }
            out->v = nv;
        }
        struct gov_mrow *r = &out->v[out->n++];
        memcpy(r->grp, sqlite3_column_blob(st, 0), sizeof(r->grp));
        memcpy(r->member, sqlite3_column_blob(st, 1), sizeof(r->member));
        r->role = sqlite3_column_int(st, 2);
        r->tee = sqlite3_column_int(st, 3) != 0;
    }
    if (rc == 0 && step != SQLITE_DONE) {
        rc = -MERO_EIO;
    }
    sqlite3_reset(st);
    if (rc < 0) {
        free(out->v);
        out->v = NULL;
        out->n = 0;
        return rc;
    }
    /* each group's rows come in member order; the groups come in their index's order */
    qsort(out->v, out->n, sizeof(*out->v), row_qcmp);
    return 0;
}

/* Events for what changed: removals, additions, role changes; and for our own TEE rows that
 * went, the pending self-purge marker (the namespace when the root row went, else each
 * subgroup), as remove_row writes it for an incremental removal. One merge of the two sorted
 * snapshots. */
int mero__gov_mrows_diff(struct actx *a, const struct gov_mrows *before,
                         const struct gov_mrows *after)
{
    size_t i = 0, j = 0, ngone = 0;
    bool root_gone = false;
    int rc = 0;
    const struct gov_mrow **gone = NULL; /* our TEE rows in subgroups that went */
    while (rc == 0 && (i < before->n || j < after->n)) {
        int c = i == before->n ? 1 : j == after->n ? -1 : row_cmp(&before->v[i], &after->v[j]);
        if (c < 0) {
            const struct gov_mrow *r = &before->v[i++];
            rc = mero__gov_ev(a, MERO_EV_MEMBER_REMOVED, r->grp, r->member, r->role, NULL);
            if (rc == 0 && r->tee) {
                rc = mero__gov_ev(a, MERO_EV_TEE_MEMBER_REMOVED, r->grp, r->member, r->role, NULL);
            }
            if (rc == 0 && r->tee && a->have_us && memcmp(r->member, a->us, sizeof(a->us)) == 0) {
                if (memcmp(r->grp, a->op->ns, MERO_NS_ID_LEN) == 0) {
                    root_gone = true;
                } else {
                    const struct gov_mrow **ng = realloc(gone, (ngone + 1) * sizeof(*ng));
                    rc = ng == NULL ? -MERO_ENOMEM : 0;
                    gone = ng != NULL ? ng : gone;
                    if (ng != NULL) {
                        gone[ngone++] = r;
                    }
                }
            }
        } else if (c > 0) {
            const struct gov_mrow *r = &after->v[j++];
            rc = mero__gov_ev(a, MERO_EV_MEMBER_ADDED, r->grp, r->member, r->role, NULL);
            if (rc == 0 && r->tee) {
                rc = mero__gov_ev(a, MERO_EV_TEE_MEMBER_ADMITTED, r->grp, r->member, r->role, NULL);
            }
        } else {
            const struct gov_mrow *r = &after->v[j++];
            if (before->v[i++].role != r->role) {
                rc = mero__gov_ev(a, MERO_EV_MEMBER_ROLE_SET, r->grp, r->member, r->role, NULL);
            }
        }
    }
    if (rc == 0 && root_gone) {
        rc = mero_gov_purge_mark(a->s, a->op->ns);
    }
    for (size_t k = 0; rc == 0 && !root_gone && k < ngone; k++) {
        rc = mero_gov_purge_mark(a->s, gone[k]->grp);
    }
    free(gone);
    return rc;
}
