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
 * or changes an admin count); every op after its place must be a MemberAdded, ContextCreated or
 * MemberSetAutoFollow without rotation, or a KeyDelivery not addressed to us (each reads and
 * writes only the rows, deny entries, auto-follow entries or contexts of its signer and
 * member or recipient, and the group tree read-only), naming neither the late op's signer nor
 * its member. Any other op after its place, a conflict, or an undecodable op answers
 * no, and the namespace is re-folded from its first op.
 */
#include <string.h>

#include "gov/gov_internal.h"

static const char SQL_PLACE[] = "SELECT depth, cls FROM fold WHERE hash = ?";
/* the ops after a place, in no particular order (the answer does not depend on it) */
static const char SQL_AFTER[] = "SELECT o.bytes FROM fold f JOIN ops o ON o.hash = f.hash"
                                " WHERE f.ns = ?1 AND (f.depth, f.cls, f.hash) > (?2, ?3, ?4)";

/* The identities an op after the late one reads or writes the rows of (*n of them), or false:
 * a kind whose footprint is not known here (it may read or write admin counts, groups, policy,
 * keys, ...). */
static bool later_ids(const struct mero_op *op, const uint8_t *us, const uint8_t *ids[2], int *n)
{
    if (op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_KEY_DELIVERY) {
        /* one addressed to us stores a key (and the full fold then picks the current one) */
        if (us != NULL && memcmp(op->envelope.identity, us, MERO_IDENTITY_LEN) == 0) {
            return false;
        }
        ids[0] = op->signer;
        ids[1] = op->envelope.identity;
        *n = 2;
        return true;
    }
    if (op->scope != MERO_SCOPE_GROUP || op->has_rotation) {
        return false;
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        ids[0] = op->signer;
        ids[1] = op->member;
        *n = 2;
        return true;
    case MERO_GROUP_CONTEXT_CREATED:
        ids[0] = op->signer;
        *n = 1;
        return true;
    default:
        return false;
    }
}

static bool names(const struct mero_op *late, const uint8_t *id)
{
    return memcmp(id, late->signer, MERO_IDENTITY_LEN) == 0 ||
           memcmp(id, late->member, MERO_IDENTITY_LEN) == 0;
}

/* The late op's own condition: a plain MemberAdded that neither reads nor changes an admin
 * count (no Admin role given, its member no Admin of the group now - and so at its place, as
 * no op after it touches the member). */
static int late_qualifies(struct mero_store *s, const struct mero_op *late, bool *yes)
{
    *yes = false;
    if (late->scope != MERO_SCOPE_GROUP || late->has_rotation ||
        late->kind != MERO_GROUP_MEMBER_ADDED || late->role == MERO_ROLE_ADMIN) {
        return 0;
    }
    int r;
    MERO_TRY(mero_gov_direct_role(s, late->group_id, late->member, &r));
    *yes = r != MERO_ROLE_ADMIN;
    return 0;
}

int mero__gov_fold_commutes(struct mero_store *s, const struct mero_op *late,
                            const uint8_t hash[MERO_OP_ID_LEN], bool *yes)
{
    MERO_TRY(late_qualifies(s, late, yes));
    if (!*yes) {
        return 0;
    }
    *yes = false;
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_PLACE);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return -MERO_EIO; /* the late op's place is stored before it is judged */
    }
    sqlite3_int64 depth = sqlite3_column_int64(st, 0);
    int cls = sqlite3_column_int(st, 1);
    sqlite3_reset(st);
    st = mero__gov_stmt(s, SQL_AFTER);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, late->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, depth);
    sqlite3_bind_int(st, 3, cls);
    sqlite3_bind_blob(st, 4, hash, MERO_OP_ID_LEN, SQLITE_STATIC);
    uint8_t us_buf[MERO_IDENTITY_LEN];
    const uint8_t *us = mero__gov_our_pk(s, late->ns, us_buf) ? us_buf : NULL;
    bool conflict = false;
    int step = SQLITE_DONE;
    struct mero_err e = {0}; /* written only by a decode that fails, which ends the scan */
    while (!conflict && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct mero_op op; /* mero_op_decode initializes it, and cleans it up on failure */
        const uint8_t *ids[2];
        int n = 0;
        if (mero_op_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &op,
                           &e) < 0) {
            conflict = true;
            break;
        }
        conflict = !later_ids(&op, us, ids, &n);
        for (int i = 0; i < n && !conflict; i++) {
            conflict = names(late, ids[i]);
        }
        mero_op_cleanup(&op);
    }
    sqlite3_reset(st);
    if (!conflict && step != SQLITE_DONE) {
        return -MERO_EIO;
    }
    *yes = !conflict;
    return 0;
}
