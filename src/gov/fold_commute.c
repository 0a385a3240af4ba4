/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_commute.c - whether a late op commutes with every op folded after its place (issue 30,
 * docs/governance.md "State resolution", "A late op that commutes"). When it does, folding it
 * at its place gives the state that judging it after the last op gives, and every later op
 * keeps its outcome: the re-fold is one apply (fold.c) instead of a replay of the namespace.
 *
 * Invariant: the answer is yes only when that holds for every state the ops can meet. The late
 * op qualifies only as a plain MemberAdded of a non-Admin role whose member holds no Admin row
 * in its group (it then reads the rows of its signer and member, in any group of the namespace,
 * and the group tree; it writes its member's row and deny entry in its group, and never reads
 * or changes an admin count), or as a plain MemberRoleSet between two roles that are neither
 * Admin nor TEE roles (it reads the same rows, writes its member's row alone, and no last-admin
 * count or TEE lock is reached; a role set has no rewrite: a later op naming its member, which
 * may be the op that made the row it changes, is a conflict); every op after its place must be
 * a MemberAdded, ContextCreated or
 * MemberSetAutoFollow without rotation, or a KeyDelivery not addressed to us (each reads and
 * writes only the rows, deny entries, auto-follow entries or contexts of its signer and
 * member or recipient, and the group tree read-only), naming neither the late op's signer nor
 * its member - except a *rewrite*: a plain MemberAdded of the late op's member in its group,
 * of a non-Admin role, not signed by that member (the late op's member is not its signer).
 * A rewrite's verdict reads the member's row only through its Admin role and its TEE rows,
 * which the late op leaves as they are, so every outcome stays; an effective rewrite replaces
 * the late op's row and deny entry, so the row stays as it is now (*superseded). At the root,
 * where a member's Admin row is counted (the last-admin rule), a rewrite counts only when no
 * op before the late op's place can have made the member an Admin (its signer, an
 * AdminChanged, an Admin role given, a TEE join of it, an encrypted op). Any other op after its
 * place, a conflict, an undecodable op, or a place whose op is missing (a damaged store)
 * answers no, and the namespace is re-folded from its first op, which stops on the damage. (An
 * op whose place is missing is seen by no fast path, this one or the in-order one; `merod check`
 * and any full re-fold find it.) The kinds and what each names are mero__gov_footprint's
 * (fold_replay.c), the list the re-fold's replay uses too.
 */
#include <string.h>

#include "gov/fold_replay_internal.h" /* mero__gov_footprint */
#include "gov/gov_internal.h"

static const char SQL_PLACE[] = "SELECT depth, cls FROM fold WHERE ns = ? AND hash = ?";
/* the ops after (before) a place, in no particular order (the answer does not depend on it); a
 * place whose op is missing (a damaged store) comes back with no bytes, which do not decode */
static const char SQL_AFTER[] =
    "SELECT o.bytes, f.hash FROM fold f LEFT JOIN ops o ON o.hash ="
    " f.hash WHERE f.ns = ?1 AND (f.depth, f.cls, f.hash) > (?2, ?3, ?4)";
static const char SQL_BEFORE[] =
    "SELECT o.bytes, f.hash FROM fold f LEFT JOIN ops o ON o.hash ="
    " f.hash WHERE f.ns = ?1 AND (f.depth, f.cls, f.hash) < (?2, ?3, ?4)";
/* a rewrite's outcome, read only for the rewrites (the scans above stay on the index) */
static const char SQL_STATE[] = "SELECT state FROM fold WHERE ns = ? AND hash = ?";

static bool names(const struct mero_op *late, const uint8_t *id)
{
    return memcmp(id, late->signer, MERO_IDENTITY_LEN) == 0 ||
           memcmp(id, late->member, MERO_IDENTITY_LEN) == 0;
}

/* The late op's own condition: a plain MemberAdded or MemberRoleSet that neither reads nor
 * changes an admin count (no Admin role given, its member no Admin of the group now - and so at
 * its place, as no op after it touches the member); a role set also moves a plain row (a direct
 * member now, neither role a TEE role: no policy or TEE lock is read). */
static int late_qualifies(struct mero_store *s, const struct mero_op *late, bool *yes)
{
    *yes = false;
    bool added = late->kind == MERO_GROUP_MEMBER_ADDED;
    bool role_set = late->kind == MERO_GROUP_MEMBER_ROLE_SET;
    if (late->scope != MERO_SCOPE_GROUP || late->has_rotation || !(added || role_set) ||
        late->role == MERO_ROLE_ADMIN || (role_set && mero_role_is_tee(late->role))) {
        return 0;
    }
    int r;
    MERO_TRY(mero_gov_direct_role(s, late->group_id, late->member, &r));
    *yes = r != MERO_ROLE_ADMIN && (added || (r != MERO_ROLE_NONE && !mero_role_is_tee(r)));
    return 0;
}

/* A later op that rewrites the late MemberAdded's row: a plain MemberAdded of its member in its
 * group, of a non-Admin role, signed by someone else (and the late op's member is not its
 * signer, whose rows the late op reads). */
static bool rewrites(const struct mero_op *late, const struct mero_op *op)
{
    return late->kind == MERO_GROUP_MEMBER_ADDED && op->scope == MERO_SCOPE_GROUP &&
           !op->has_rotation && op->kind == MERO_GROUP_MEMBER_ADDED &&
           op->role != MERO_ROLE_ADMIN &&
           memcmp(op->group_id, late->group_id, MERO_GROUP_ID_LEN) == 0 &&
           memcmp(op->member, late->member, MERO_IDENTITY_LEN) == 0 &&
           memcmp(op->signer, late->member, MERO_IDENTITY_LEN) != 0 &&
           memcmp(late->signer, late->member, MERO_IDENTITY_LEN) != 0;
}

/* An op before the late op's place that may have made member m an Admin of the namespace root
 * (over-approximated: any op m signed, any encrypted op, any TEE join of m). */
static bool may_make_admin(const struct mero_op *op, const uint8_t *m)
{
    if (op->scope == MERO_SCOPE_GROUP_ENCRYPTED || memcmp(op->signer, m, MERO_IDENTITY_LEN) == 0) {
        return true;
    }
    if ((op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE) ||
        (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_JOINED_TEE)) {
        return memcmp(op->join.member, m, MERO_IDENTITY_LEN) == 0;
    }
    if (memcmp(op->member, m, MERO_IDENTITY_LEN) != 0) {
        return false;
    }
    if (op->scope == MERO_SCOPE_ROOT) {
        return op->kind == MERO_ROOT_ADMIN_CHANGED;
    }
    return memcmp(op->group_id, op->ns, MERO_NS_ID_LEN) == 0 && op->role == MERO_ROLE_ADMIN &&
           (op->kind == MERO_GROUP_MEMBER_ADDED || op->kind == MERO_GROUP_MEMBER_ROLE_SET);
}

struct scan {
    const struct mero_op *late;
    const uint8_t *us;
    bool before;    /* the ops before the place: may_make_admin is a conflict */
    bool conflict;  /* the answer is no */
    bool rewritten; /* a later rewrite is effective */
};

static int state_of(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN], const void *hash,
                    int *state)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_STATE);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *state = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : GOV_FOLD_DEFERRED;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : -MERO_EIO;
}

static int judge(struct mero_store *s, struct scan *sc, const struct mero_op *op, const void *hash)
{
    const uint8_t *ids[2];
    int n = 0;
    if (sc->before) {
        sc->conflict = may_make_admin(op, sc->late->member);
        return 0;
    }
    if (rewrites(sc->late, op)) {
        int state;
        MERO_TRY(state_of(s, sc->late->ns, hash, &state));
        /* a deferred one may still be judged again when its key arrives */
        sc->conflict = state == GOV_FOLD_DEFERRED;
        sc->rewritten = sc->rewritten || state == GOV_FOLD_EFFECTIVE;
        return 0;
    }
    sc->conflict = !mero__gov_footprint(op, sc->us, ids, &n);
    for (int i = 0; i < n && !sc->conflict; i++) {
        sc->conflict = names(sc->late, ids[i]);
    }
    return 0;
}

/* The ops after (sc->before: before) the place (depth, cls, hash), each judged until a
 * conflict. */
static int scan_ops(struct mero_store *s, struct scan *sc, sqlite3_int64 depth, int cls,
                    const uint8_t hash[MERO_OP_ID_LEN])
{
    sqlite3_stmt *st = mero__gov_stmt(s, sc->before ? SQL_BEFORE : SQL_AFTER);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, sc->late->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, depth);
    sqlite3_bind_int(st, 3, cls);
    sqlite3_bind_blob(st, 4, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    int step = SQLITE_DONE;
    struct mero_err e = {0}; /* written only by a decode that fails, which ends the scan */
    while (!sc->conflict && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct mero_op op; /* mero_op_decode initializes it, and cleans it up on failure */
        if (mero_op_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &op,
                           &e) < 0) {
            sc->conflict = true;
            break;
        }
        int rc = sqlite3_column_bytes(st, 1) == MERO_OP_ID_LEN
                     ? judge(s, sc, &op, sqlite3_column_blob(st, 1))
                     : -MERO_EIO;
        mero_op_cleanup(&op);
        if (rc < 0) {
            sqlite3_reset(st);
            return rc;
        }
    }
    sqlite3_reset(st);
    if (!sc->conflict && step != SQLITE_DONE) {
        return -MERO_EIO;
    }
    return 0;
}

int mero__gov_fold_commutes(struct mero_store *s, const struct mero_op *late,
                            const uint8_t hash[MERO_OP_ID_LEN], bool *yes, bool *superseded)
{
    *superseded = false;
    MERO_TRY(late_qualifies(s, late, yes));
    if (!*yes) {
        return 0;
    }
    *yes = false;
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_PLACE);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, late->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return -MERO_EIO; /* the late op's place is stored before it is judged */
    }
    sqlite3_int64 depth = sqlite3_column_int64(st, 0);
    int cls = sqlite3_column_int(st, 1);
    sqlite3_reset(st);
    uint8_t us_buf[MERO_IDENTITY_LEN];
    struct scan sc = {.late = late, .us = mero__gov_our_pk(s, late->ns, us_buf) ? us_buf : NULL};
    MERO_TRY(scan_ops(s, &sc, depth, cls, hash));
    if (!sc.conflict && sc.rewritten && memcmp(late->group_id, late->ns, MERO_NS_ID_LEN) == 0) {
        /* the member's row at the place is not the one now: it must not have been an Admin */
        sc.before = true;
        MERO_TRY(scan_ops(s, &sc, depth, cls, hash));
    }
    *yes = !sc.conflict;
    *superseded = *yes && sc.rewritten;
    return 0;
}
