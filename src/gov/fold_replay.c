/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_replay.c - which ops a late op's re-fold may replay instead of judging again (issue 30,
 * docs/governance.md "What a re-fold judges again"). The re-fold (fold.c) walks every op of the
 * namespace in canonical order over cleared tables; an op it replays gets its stored outcome
 * and, when that is effective, its writes (apply.c, mero__gov_replay_writes) without the rule
 * checks, which were most of a re-fold's cost.
 *
 * Invariant: an op is replayed only when everything its rules read is the same at its place as
 * in the fold its stored outcome came from, so the outcome is the same; its writes are
 * functions of the op alone, so the tables after it are the same as a full judgement's. What
 * the rules of a replayable kind read: the group tree, the rows of the identities the op
 * names, one member's direct role and a group's admin count (MemberAdded's last-admin rule),
 * the contexts (ContextCreated). Before the late op's place nothing differs. From its place on,
 * the set `ids` holds every identity whose rows may differ (those the late op and every op
 * judged again after it name); a change to the group tree or the contexts, or a judged op whose
 * effects are not named by identities, ends replay for the rest of the fold (`all`). The one
 * count a replayable rule reads, the root's admins (MemberAdded lowering a root Admin), can
 * differ only through an identity of `ids` that is a root Admin in either fold: `admins` is set
 * once one may be (each identity's root role is read as it enters `ids`, when both folds still
 * agree on it, and after every op judged again; the stored outcome says what the earlier fold
 * did), and from then on such a MemberAdded is judged again.
 */
#include <string.h>

#include "gov/fold_replay_internal.h"

static bool holds(const struct gov_replay *r, const uint8_t id[MERO_IDENTITY_LEN])
{
    for (size_t i = 0; i < r->n; i++) {
        if (memcmp(r->ids[i], id, MERO_IDENTITY_LEN) == 0) {
            return true;
        }
    }
    return false;
}

static void mark(struct gov_replay *r, const uint8_t id[MERO_IDENTITY_LEN])
{
    if (r->all || holds(r, id)) {
        return;
    }
    if (r->n == GOV_REPLAY_IDS_MAX) {
        r->all = true;
        return;
    }
    memcpy(r->ids[r->n++], id, MERO_IDENTITY_LEN);
}

/* Whether op, effective, makes its member an Admin of the namespace root. */
static bool grants_root_admin(const struct mero_op *op)
{
    if (op->scope == MERO_SCOPE_ROOT) {
        return op->kind == MERO_ROOT_ADMIN_CHANGED;
    }
    return op->scope == MERO_SCOPE_GROUP && op->role == MERO_ROLE_ADMIN &&
           memcmp(op->group_id, op->ns, MERO_NS_ID_LEN) == 0 &&
           (op->kind == MERO_GROUP_MEMBER_ADDED || op->kind == MERO_GROUP_MEMBER_ROLE_SET);
}

/* admins |= id is a root Admin now (the fold being built). */
static int read_admin(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                      const uint8_t id[MERO_IDENTITY_LEN])
{
    int role;
    MERO_TRY(mero_gov_direct_role(s, op->ns, id, &role));
    r->admins = r->admins || role == MERO_ROLE_ADMIN;
    return 0;
}

/* The identities whose member rows op may write (*n of them), or false when its effects reach
 * beyond such rows: the group tree (NamespaceCreated, GroupCreated), the contexts, an encrypted
 * op's unseen member. The tables no replayable rule reads (policy, evidence, spent quotes,
 * auto-follow, keys) are written only by ops the fold judges, so they are always the fold's. */
static bool writes(const struct mero_op *op, const uint8_t *ids[2], int *n)
{
    *n = 0;
    if (op->scope == MERO_SCOPE_ROOT) {
        switch (op->kind) {
        case MERO_ROOT_ADMIN_CHANGED:
            ids[(*n)++] = op->member;
            return true;
        case MERO_ROOT_KEY_DELIVERY:
            return true;
        case MERO_ROOT_MEMBER_JOINED_TEE:
            ids[(*n)++] = op->join.member;
            return true;
        default:
            return false;
        }
    }
    if (op->scope != MERO_SCOPE_GROUP) {
        return false;
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
    case MERO_GROUP_MEMBER_REMOVED:
    case MERO_GROUP_MEMBER_ROLE_SET:
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        ids[(*n)++] = op->member;
        return true;
    case MERO_GROUP_MEMBER_JOINED_TEE:
        ids[(*n)++] = op->join.member;
        return true;
    case MERO_GROUP_MEMBER_LEFT:
        ids[(*n)++] = op->signer;
        return true;
    case MERO_GROUP_TEE_AUTHORITY_EVIDENCE:
    case MERO_GROUP_TEE_POLICY_SET:
    case MERO_GROUP_TEE_POLICY_SET_V2:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET_V2:
        return true;
    default:
        return false;
    }
}

bool mero__gov_footprint(const struct mero_op *op, const uint8_t *us, const uint8_t *ids[2], int *n)
{
    *n = 0;
    if (op->scope == MERO_SCOPE_ROOT) {
        /* one addressed to us stores a key (and the fold then picks the current one) */
        if (op->kind != MERO_ROOT_KEY_DELIVERY ||
            (us != NULL && memcmp(op->envelope.identity, us, MERO_IDENTITY_LEN) == 0)) {
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

void mero__gov_replay_start(struct gov_replay *r, bool late)
{
    memset(r, 0, sizeof(*r));
    r->active = late;
}

int mero__gov_replay_may(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                         const uint8_t *us, int prior, bool *yes)
{
    const uint8_t *ids[2];
    int n;
    *yes = false;
    if (!r->active || r->all || prior == GOV_FOLD_DEFERRED ||
        !mero__gov_footprint(op, us, ids, &n)) {
        return 0;
    }
    if (!r->after) {
        *yes = true; /* before the late op's place the fold is the one the outcome came from */
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (holds(r, ids[i])) {
            return 0;
        }
    }
    if (r->admins && op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_ADDED &&
        op->role != MERO_ROLE_ADMIN && memcmp(op->group_id, op->ns, MERO_NS_ID_LEN) == 0) {
        /* lowering a root Admin reads the root's admin count, which may differ */
        int role;
        MERO_TRY(mero_gov_direct_role(s, op->group_id, op->member, &role));
        if (role == MERO_ROLE_ADMIN) {
            return 0;
        }
    }
    *yes = true;
    return 0;
}

int mero__gov_replay_before(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            bool is_late)
{
    if (!r->active || r->all || r->admins || (!r->after && !is_late)) {
        return 0;
    }
    const uint8_t *ids[2];
    int n;
    (void)writes(op, ids, &n);
    for (int i = 0; i < n; i++) {
        if (!holds(r, ids[i])) {
            /* not in ids: both folds agree on its rows here */
            MERO_TRY(read_admin(r, s, op, ids[i]));
        }
    }
    return 0;
}

int mero__gov_replay_judged(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            const uint8_t *us, int prior, int state, bool is_late)
{
    if (!r->active || r->all) {
        return 0;
    }
    if (is_late) {
        r->after = true;
    } else if (!r->after) {
        return 0; /* before the place: the same state, so the same outcome and writes */
    }
    const uint8_t *ids[2];
    int n;
    bool same = !is_late && state == prior;
    if (same && mero__gov_footprint(op, us, ids, &n)) {
        return 0; /* the same outcome, and writes that are functions of the op */
    }
    if (!writes(op, ids, &n) && (!same || state == GOV_FOLD_EFFECTIVE)) {
        r->all = true;
        return 0;
    }
    /* the earlier fold (no late op there) made its member a root Admin */
    r->admins = r->admins || (!is_late && prior == GOV_FOLD_EFFECTIVE && grants_root_admin(op));
    for (int i = 0; i < n; i++) {
        mark(r, ids[i]);
        if (!r->admins) {
            MERO_TRY(read_admin(r, s, op, ids[i]));
        }
    }
    return 0;
}
