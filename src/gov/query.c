/* SPDX-License-Identifier: Apache-2.0 */
/*
 * query.c - reads of the governance state: members and roles (direct, effective through Open
 * subgroups, admin, voucher, executor standing), the policy, spent quotes, groups, contexts,
 * heads and the op log for sync.
 *
 * Invariants: every read is an indexed lookup (no scan of the op log), so its cost does not
 * grow with the log; TEE roles are never inherited; admin authority crosses Open boundaries
 * only; policy reads resolve a subgroup to its namespace root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"

/* Every blob these queries bind or read is a 32-byte id: a group or namespace id, an identity,
 * an op or quote hash, a context or application id (one width, checked below). */
#define ID_LEN MERO_GROUP_ID_LEN
_Static_assert(MERO_NS_ID_LEN == ID_LEN && MERO_IDENTITY_LEN == ID_LEN &&
                   MERO_OP_ID_LEN == ID_LEN && MERO_QUOTE_HASH_LEN == ID_LEN &&
                   MERO_CONTEXT_ID_LEN == ID_LEN && MERO_APP_ID_LEN == ID_LEN,
               "the store's id columns share one width");

#define BLOB(st, i, p) sqlite3_bind_blob((st), (i), (p), ID_LEN, SQLITE_STATIC)

/* *st: the cached statement for sql with the ids a and b (either may be NULL: not bound) bound
 * to its first and second parameters; -MERO_EIO when it cannot be prepared. */
static int id_stmt(struct mero_store *s, const char *sql, const uint8_t *a, const uint8_t *b,
                   sqlite3_stmt **st)
{
    *st = mero__gov_stmt(s, sql);
    if (*st == NULL) {
        return -MERO_EIO;
    }
    if (a != NULL) {
        BLOB(*st, 1, a);
    }
    if (b != NULL) {
        BLOB(*st, 2, b);
    }
    return 0;
}

/*
 * Step st (binds done) through at most max rows into a new array of elem-byte elements, each
 * zeroed and then filled by row(st, element, ud); *out (the caller frees it) and *n on success.
 * The statement is reset in every case.
 */
static int collect_rows(sqlite3_stmt *st, size_t max, size_t elem,
                        void (*row)(sqlite3_stmt *st, void *e, void *ud), void *ud, void **out,
                        size_t *n)
{
    uint8_t *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0, step = SQLITE_DONE;
    while (cnt < max && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 16;
            uint8_t *nv = realloc(v, cap * elem);
            MERO_ENSURE_OUT(nv != NULL, NULL, MERO_ENOMEM, "out of memory");
            v = nv;
        }
        memset(v + cnt * elem, 0, elem);
        row(st, v + cnt * elem, ud);
        cnt++;
    }
    MERO_ENSURE_OUT(cnt >= max || step == SQLITE_DONE, NULL, MERO_EIO, "store: read");
    *out = v;
    *n = cnt;
    v = NULL; /* handed over */
out:
    sqlite3_reset(st);
    free(v);
    return rc;
}

static void col_id(sqlite3_stmt *st, int i, uint8_t out[ID_LEN])
{
    if (sqlite3_column_bytes(st, i) == ID_LEN) {
        memcpy(out, sqlite3_column_blob(st, i), ID_LEN);
    } else {
        memset(out, 0, ID_LEN);
    }
}

static void coltext(sqlite3_stmt *st, int i, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    if (n >= cap) {
        n = cap - 1;
    }
    if (n > 0) {
        memcpy(out, t, n);
    }
    out[n] = '\0';
}

static const char SQL_MEMBERS[] = "SELECT member, role, tee, account, quote_hash, mrtd, rtmr0,"
                                  " rtmr1, rtmr2, rtmr3, tcb FROM members WHERE grp = ?"
                                  " ORDER BY member";

static void member_row(sqlite3_stmt *st, void *e, void *ud)
{
    struct mero_gov_member *m = e;
    (void)ud;
    col_id(st, 0, m->id);
    m->role = sqlite3_column_int(st, 1);
    m->tee = sqlite3_column_int(st, 2) != 0;
    if (m->tee) {
        col_id(st, 3, m->account);
        col_id(st, 4, m->quote_hash);
        coltext(st, 5, m->m.mrtd, sizeof(m->m.mrtd));
        for (int i = 0; i < MERO_RTMR_COUNT; i++) {
            coltext(st, 6 + i, m->m.rtmr[i], sizeof(m->m.rtmr[i]));
        }
        coltext(st, 10, m->tcb_status, sizeof(m->tcb_status));
    }
}

int mero_gov_members(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                     struct mero_gov_member **out, size_t *n)
{
    sqlite3_stmt *st;
    void *v;
    MERO_TRY(id_stmt(s, SQL_MEMBERS, group, NULL, &st));
    MERO_TRY(collect_rows(st, SIZE_MAX, sizeof(**out), member_row, NULL, &v, n));
    *out = v;
    return 0;
}

static const char SQL_ROLE[] = "SELECT role FROM members WHERE grp = ? AND member = ?";

int mero_gov_direct_role(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                         const uint8_t member[static MERO_IDENTITY_LEN], int *role)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_ROLE, group, member, &st));
    *role = MERO_ROLE_NONE;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *role = sqlite3_column_int(st, 0);
    }
    sqlite3_reset(st);
    return 0;
}

static const char SQL_GROUP[] = "SELECT parent, visibility, ns FROM groups WHERE id = ?";

static int group_row(struct mero_store *s, const uint8_t group[MERO_GROUP_ID_LEN],
                     uint8_t parent[MERO_GROUP_ID_LEN], int *vis, uint8_t ns[MERO_NS_ID_LEN])
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_GROUP, group, NULL, &st));
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        col_id(st, 0, parent);
        *vis = sqlite3_column_int(st, 1);
        col_id(st, 2, ns);
        rc = 0;
    }
    sqlite3_reset(st);
    return rc;
}

int mero_gov_group_info(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                        uint8_t parent[static MERO_GROUP_ID_LEN], int *visibility)
{
    uint8_t ns[MERO_NS_ID_LEN];
    return group_row(s, group, parent, visibility, ns);
}

int mero_gov_namespace_of(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                          uint8_t ns[static MERO_NS_ID_LEN])
{
    uint8_t parent[MERO_GROUP_ID_LEN];
    int vis;
    return group_row(s, group, parent, &vis, ns);
}

/* depth bound: a group tree deeper than this is refused at creation */
#define MAX_DEPTH 32

/*
 * Walk from group up through Open boundaries (at most MAX_DEPTH levels) to the first group where
 * member directly holds a role (any role, or with admin_only the Admin role): *role (NONE when
 * the walk ends without one) and *depth, the number of levels climbed.
 */
static int walk_open(struct mero_store *s, const uint8_t group[MERO_GROUP_ID_LEN],
                     const uint8_t member[MERO_IDENTITY_LEN], bool admin_only, int *role,
                     int *depth)
{
    uint8_t cur[MERO_GROUP_ID_LEN], parent[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    int vis;
    memcpy(cur, group, sizeof(cur));
    *role = MERO_ROLE_NONE;
    *depth = 0;
    for (int d = 0; d < MAX_DEPTH; d++) {
        int r;
        MERO_TRY(mero_gov_direct_role(s, cur, member, &r));
        if (admin_only ? r == MERO_ROLE_ADMIN : r != MERO_ROLE_NONE) {
            *role = r;
            *depth = d;
            return 0;
        }
        if (group_row(s, cur, parent, &vis, ns) < 0 || memcmp(cur, ns, sizeof(cur)) == 0 ||
            vis != MERO_GROUP_OPEN) {
            return 0;
        }
        memcpy(cur, parent, sizeof(cur));
    }
    return 0;
}

int mero_gov_effective_role(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t member[static MERO_IDENTITY_LEN], int *role)
{
    int depth;
    MERO_TRY(walk_open(s, group, member, false, role, &depth));
    /* a TEE role counts only where it is directly rowed */
    if (depth > 0 && mero_role_is_tee(*role)) {
        *role = MERO_ROLE_NONE;
    }
    return 0;
}

/* issue 15: member holds a row in group or in an ancestor reached through Open boundaries. */
int mero__gov_reaches(struct mero_store *s, const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t member[MERO_IDENTITY_LEN], bool *yes)
{
    int r, depth;
    *yes = false;
    MERO_TRY(walk_open(s, group, member, false, &r, &depth));
    *yes = r != MERO_ROLE_NONE;
    return 0;
}

int mero_gov_is_admin(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                      const uint8_t member[static MERO_IDENTITY_LEN], bool *yes)
{
    int r, depth;
    *yes = false;
    MERO_TRY(walk_open(s, group, member, true, &r, &depth));
    *yes = r == MERO_ROLE_ADMIN;
    return 0;
}

int mero_gov_may_vouch(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                       const uint8_t member[static MERO_IDENTITY_LEN], bool *yes)
{
    MERO_TRY(mero_gov_is_admin(s, group, member, yes));
    if (!*yes) {
        int r;
        MERO_TRY(mero_gov_direct_role(s, group, member, &r));
        *yes = mero_role_is_tee(r);
    }
    return 0;
}

int mero_gov_executor_standing(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                               const uint8_t member[static MERO_IDENTITY_LEN], int *role)
{
    uint8_t ns[MERO_NS_ID_LEN];
    int r;
    *role = MERO_ROLE_NONE;
    MERO_TRY(mero_gov_namespace_of(s, group, ns));
    MERO_TRY(mero_gov_direct_role(s, ns, member, &r));
    if (mero_role_is_tee(r)) {
        *role = r;
        return 0;
    }
    MERO_TRY(mero_gov_direct_role(s, group, member, &r));
    if (mero_role_is_tee(r)) {
        *role = r;
    }
    return 0;
}

static const char SQL_POLICY[] = "SELECT body FROM policy WHERE ns = ?";

int mero_gov_read_policy(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                         struct mero_tee_policy *out, bool *found, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    *found = false;
    memset(out, 0, sizeof(*out));
    if (mero_gov_namespace_of(s, group, ns) < 0) {
        return 0; /* unknown group: no policy */
    }
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_POLICY, ns, NULL, &st));
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        struct mero_op op;
        rc = mero_op_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &op,
                            err);
        if (rc < 0) {
            rc = mero_err_set(err, MERO_EOPDECODE, "the stored policy op could not be read");
        } else {
            *out = op.policy;
            memset(&op.policy, 0, sizeof(op.policy));
            mero_op_cleanup(&op);
            *found = true;
        }
    }
    sqlite3_reset(st);
    return rc;
}

static const char SQL_SPENT_ANY[] = "SELECT 1 FROM spent WHERE ns = ? AND quote_hash = ? LIMIT 1";
static const char SQL_SPENT_KIND[] =
    "SELECT 1 FROM spent WHERE ns = ? AND quote_hash = ? AND kind = ? AND grp = ? LIMIT 1";

int mero__gov_spent(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                    const uint8_t hash[MERO_QUOTE_HASH_LEN], int kind, const uint8_t *grp,
                    bool *used)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, kind < 0 ? SQL_SPENT_ANY : SQL_SPENT_KIND, ns, hash, &st));
    if (kind >= 0) {
        sqlite3_bind_int(st, 3, kind);
        BLOB(st, 4, grp);
    }
    int rc = sqlite3_step(st);
    *used = rc == SQLITE_ROW;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

int mero_gov_is_quote_hash_used(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                const uint8_t hash[static MERO_QUOTE_HASH_LEN], bool *used)
{
    return mero__gov_spent(s, ns, hash, -1, NULL, used);
}

static const char SQL_EVID[] = "SELECT attested_at FROM evidence WHERE grp = ? AND member = ?";

int mero__gov_evidence_at(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN], bool *found, uint64_t *at)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_EVID, grp, member, &st));
    *found = false;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *found = true;
        *at = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    return 0;
}

int mero_gov_evidence_at(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                         const uint8_t member[static MERO_IDENTITY_LEN], bool *found, uint64_t *at)
{
    return mero__gov_evidence_at(s, group, member, found, at);
}

static const char SQL_EVID_ADV[] = "SELECT advisories FROM evidence WHERE grp = ? AND member = ?";

int mero_gov_evidence_advisories(struct mero_store *s,
                                 const uint8_t group[static MERO_GROUP_ID_LEN],
                                 const uint8_t member[static MERO_IDENTITY_LEN], bool *found,
                                 char out[static MERO_GOV_ADVISORIES_MAX])
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_EVID_ADV, group, member, &st));
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(out, MERO_GOV_ADVISORIES_MAX, "%s", t != NULL ? (const char *)t : "");
    } else if (rc == SQLITE_DONE) {
        out[0] = '\0';
    }
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        *found = rc == SQLITE_ROW;
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -MERO_EIO;
}

bool mero_gov_evidence_lapsed(uint64_t at, uint64_t now)
{
    return now > at && now - at >= MERO_GOV_EVIDENCE_MAX_AGE_SECS;
}

bool mero_gov_evidence_due(uint64_t at, uint64_t now)
{
    return now > at && now - at >= MERO_GOV_EVIDENCE_REFRESH_SECS;
}

int mero_gov_vouch_standing(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t member[static MERO_IDENTITY_LEN], uint64_t now,
                            int *standing)
{
    uint8_t ns[MERO_NS_ID_LEN];
    bool yes, found;
    uint64_t at = 0;
    int r;
    *standing = MERO_VOUCH_NO;
    MERO_TRY(mero_gov_is_admin(s, group, member, &yes));
    if (yes) {
        *standing = MERO_VOUCH_YES;
        return 0;
    }
    MERO_TRY(mero_gov_direct_role(s, group, member, &r));
    if (!mero_role_is_tee(r)) {
        return 0;
    }
    /* the evidence lives with the namespace-root row (a subgroup admission publishes none) */
    MERO_TRY(mero_gov_namespace_of(s, group, ns));
    MERO_TRY(mero__gov_evidence_at(s, ns, member, &found, &at));
    *standing = found && !mero_gov_evidence_lapsed(at, now) ? MERO_VOUCH_YES : MERO_VOUCH_LAPSED;
    return 0;
}

static const char SQL_DENY[] = "SELECT 1 FROM deny WHERE grp = ? AND member = ?";

int mero_gov_is_denied(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                       const uint8_t member[static MERO_IDENTITY_LEN], bool *denied)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_DENY, group, member, &st));
    *denied = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return 0;
}

static const char SQL_FOLLOW[] =
    "SELECT contexts, subgroups FROM autofollow WHERE grp = ? AND member = ?";

int mero_gov_auto_follow(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                         const uint8_t member[static MERO_IDENTITY_LEN], bool *contexts,
                         bool *subgroups)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_FOLLOW, group, member, &st));
    *contexts = *subgroups = false;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *contexts = sqlite3_column_int(st, 0) != 0;
        *subgroups = sqlite3_column_int(st, 1) != 0;
    }
    sqlite3_reset(st);
    return 0;
}

static const char SQL_CONTEXTS[] = "SELECT id, grp, app FROM contexts WHERE ns = ? ORDER BY seq";

static void context_row(sqlite3_stmt *st, void *e, void *ud)
{
    struct mero_gov_context *c = e;
    (void)ud;
    col_id(st, 0, c->id);
    col_id(st, 1, c->group);
    col_id(st, 2, c->application_id);
}

int mero_gov_contexts(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                      struct mero_gov_context **out, size_t *n)
{
    sqlite3_stmt *st;
    void *v;
    MERO_TRY(id_stmt(s, SQL_CONTEXTS, ns, NULL, &st));
    MERO_TRY(collect_rows(st, SIZE_MAX, sizeof(**out), context_row, NULL, &v, n));
    *out = v;
    return 0;
}

/* a context of a namespace this store holds (its root group row), found by its key */
static const char SQL_CONTEXT_OF[] =
    "SELECT c.ns, c.grp FROM contexts c WHERE c.id = ?"
    " AND EXISTS (SELECT 1 FROM groups g WHERE g.id = c.ns AND g.ns = c.ns)";

int mero_gov_context_of(struct mero_store *s, const uint8_t ctx[static MERO_CONTEXT_ID_LEN],
                        uint8_t ns[static MERO_NS_ID_LEN], uint8_t group[static MERO_GROUP_ID_LEN])
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_CONTEXT_OF, ctx, NULL, &st));
    int step = sqlite3_step(st);
    int rc = step == SQLITE_ROW ? 0 : step == SQLITE_DONE ? -MERO_ENOTFOUND : -MERO_EIO;
    if (rc == 0) {
        col_id(st, 0, ns);
        col_id(st, 1, group);
    }
    sqlite3_reset(st);
    return rc;
}

/* Column 0 as an id; column 1 (the op's seq) into *last_seq when ud is that pointer. */
static void id_row(sqlite3_stmt *st, void *e, void *last_seq)
{
    col_id(st, 0, e);
    if (last_seq != NULL) {
        *(uint64_t *)last_seq = (uint64_t)sqlite3_column_int64(st, 1);
    }
}

/* Collect column 0 (ids) of a statement whose binds are done. */
static int collect_ids(sqlite3_stmt *st, size_t max, uint8_t (**out)[ID_LEN], size_t *n,
                       uint64_t *last_seq)
{
    void *v;
    MERO_TRY(collect_rows(st, max, sizeof(**out), id_row, last_seq, &v, n));
    *out = v;
    return 0;
}

static const char SQL_GROUPS[] = "SELECT id FROM groups WHERE ns = ? ORDER BY seq";
static const char SQL_NAMESPACES[] = "SELECT id FROM groups WHERE id = ns ORDER BY seq";
/* an identity and no group row: joined (or fleet-joining) and no op held yet */
static const char SQL_NAMESPACES_UNHELD[] =
    "SELECT i.ns FROM identities i WHERE NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = i.ns)"
    " ORDER BY i.ns";
static const char SQL_HEADS[] = "SELECT hash FROM heads WHERE ns = ? ORDER BY hash";
static const char SQL_OPS_AFTER[] =
    "SELECT hash, seq FROM ops WHERE ns = ? AND seq > ? ORDER BY seq";

int mero_gov_groups(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                    uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_GROUPS, ns, NULL, &st));
    return collect_ids(st, SIZE_MAX, out, n, NULL);
}

int mero_gov_namespaces(struct mero_store *s, uint8_t (**out)[MERO_NS_ID_LEN], size_t *n)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_NAMESPACES, NULL, NULL, &st));
    return collect_ids(st, SIZE_MAX, out, n, NULL);
}

int mero_gov_namespaces_unheld(struct mero_store *s, uint8_t (**out)[MERO_NS_ID_LEN], size_t *n)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_NAMESPACES_UNHELD, NULL, NULL, &st));
    return collect_ids(st, SIZE_MAX, out, n, NULL);
}

int mero_gov_heads(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                   uint8_t (**out)[MERO_OP_ID_LEN], size_t *n)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_HEADS, ns, NULL, &st));
    return collect_ids(st, SIZE_MAX, out, n, NULL);
}

int mero_gov_op_hashes(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                       uint64_t after_seq, size_t max, uint8_t (**out)[MERO_OP_ID_LEN], size_t *n,
                       uint64_t *last_seq)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_OPS_AFTER, ns, NULL, &st));
    /* after_seq comes from a peer: beyond SQLite's range means "after everything", never a
     * wrapped (negative) cursor that would serve the log from its start again */
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(after_seq > INT64_MAX ? INT64_MAX : after_seq));
    *last_seq = after_seq;
    return collect_ids(st, max, out, n, last_seq);
}

static const char SQL_HAS_OP[] = "SELECT 1 FROM ops WHERE hash = ?";
static const char SQL_GET_OP[] = "SELECT bytes FROM ops WHERE hash = ?";
static const char SQL_COUNT[] = "SELECT COUNT(*) FROM ops WHERE ns = ?";

int mero_gov_has_op(struct mero_store *s, const uint8_t hash[static MERO_OP_ID_LEN], bool *yes)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_HAS_OP, hash, NULL, &st));
    *yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return 0;
}

int mero_gov_op_get(struct mero_store *s, const uint8_t hash[static MERO_OP_ID_LEN],
                    struct mero_buf *out)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, SQL_GET_OP, hash, NULL, &st));
    int rc = -MERO_ENOTFOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        rc = mero_buf_append(out, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
    }
    sqlite3_reset(st);
    return rc;
}

/* The one number sql (bound to ns) answers, 0 for none. */
static int ns_number(struct mero_store *s, const char *sql, const uint8_t ns[MERO_NS_ID_LEN],
                     uint64_t *n)
{
    sqlite3_stmt *st;
    MERO_TRY(id_stmt(s, sql, ns, NULL, &st));
    *n = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        *n = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    return 0;
}

int mero_gov_op_count(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN], uint64_t *n)
{
    return ns_number(s, SQL_COUNT, ns, n);
}

/* issue 30: the cuts of effective removals of member naming context, with the removal's group */
static const char SQL_CUTS[] =
    "SELECT c.head, c.grp FROM cuts c JOIN fold f ON f.ns = c.ns AND f.hash = c.op_hash"
    " WHERE c.ns = ?1 AND c.member = ?2 AND c.context = ?3 AND f.state = 1 ORDER BY c.head";
static const char SQL_CONTEXT_GROUP[] = "SELECT grp FROM contexts WHERE id = ? AND ns = ?";

/* Whether grp is group or one of its ancestors (the remover's authority covers group). */
static bool covers(struct mero_store *s, const uint8_t grp[ID_LEN], const uint8_t group[ID_LEN])
{
    uint8_t cur[ID_LEN], parent[ID_LEN], ns[ID_LEN];
    int vis;
    memcpy(cur, group, sizeof(cur));
    for (int d = 0; d < MAX_DEPTH; d++) {
        if (memcmp(cur, grp, ID_LEN) == 0) {
            return true;
        }
        if (group_row(s, cur, parent, &vis, ns) < 0 || memcmp(parent, cur, ID_LEN) == 0 ||
            memcmp(cur, ns, ID_LEN) == 0) {
            return false; /* the root reached */
        }
        memcpy(cur, parent, sizeof(cur));
    }
    return false;
}

int mero_gov_write_cuts(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                        const uint8_t member[static MERO_IDENTITY_LEN],
                        const uint8_t ctx[static MERO_CONTEXT_ID_LEN],
                        uint8_t (*heads)[MERO_DELTA_ID_LEN], size_t max, size_t *n)
{
    sqlite3_stmt *st;
    uint8_t group[ID_LEN], grp[ID_LEN];
    *n = 0;
    MERO_TRY(id_stmt(s, SQL_CONTEXT_GROUP, ctx, ns, &st));
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        col_id(st, 0, group);
    }
    sqlite3_reset(st);
    if (step != SQLITE_ROW) {
        return step == SQLITE_DONE ? 0 : -MERO_EIO; /* no such context here: no cut */
    }
    /* rows copied out first: covers() steps other statements */
    uint8_t(*rows)[2][ID_LEN] = calloc(max ? max : 1, sizeof(*rows));
    size_t nr = 0;
    int rc = 0;
    if (rows == NULL) {
        return -MERO_ENOMEM;
    }
    MERO_TRY_OUT(id_stmt(s, SQL_CUTS, ns, member, &st));
    BLOB(st, 3, ctx);
    while (nr < max && sqlite3_step(st) == SQLITE_ROW) {
        col_id(st, 0, rows[nr][0]);
        col_id(st, 1, rows[nr][1]);
        nr++;
    }
    sqlite3_reset(st);
    for (size_t i = 0; i < nr; i++) {
        memcpy(grp, rows[i][1], ID_LEN);
        if (covers(s, grp, group)) { /* a cut from a group above or beside it vouches nothing */
            memcpy(heads[(*n)++], rows[i][0], ID_LEN);
        }
    }
out:
    free(rows);
    return rc;
}

/* the newest op's place in the log: one entry of index ops_ns, where COUNT walks them all */
static const char SQL_LAST_SEQ[] = "SELECT MAX(seq) FROM ops WHERE ns = ?";

int mero_gov_op_last_seq(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                         uint64_t *seq)
{
    return ns_number(s, SQL_LAST_SEQ, ns, seq);
}
