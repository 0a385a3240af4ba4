/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply.c - applying one op: the DAG checks (parents known, same namespace), the rules every
 * peer re-checks for membership, roles, policy, keys and contexts, and the projection, all in
 * one savepoint; events are emitted only after it is released. TEE admission and evidence
 * rules live in apply_tee.c, the encrypted form and deferral in apply_sealed.c, the event
 * queue and the signer checks every handler shares in apply_ev.c.
 *
 * Invariants: an op takes effect only when every rule accepts it at its place in the canonical
 * order (fold.c); a refused op is kept without effect only when its signer is a principal of
 * the namespace - a stored op names it as holding a row, or it held one here - (a local
 * action's refusal stores nothing), and the op of any other signer is refused before any fold
 * when it sorts before folded ops or is encrypted, unless an op of the namespace waits for its
 * key (refuse_stranger); TEE roles are minted only by
 * MemberJoinedViaTeeAttestation and a TEE row only moves to the TEE role the policy mode names
 * (TeeMemberRoleLocked otherwise), and an identity holding a TEE row anywhere in the namespace
 * is never given Member, ReadOnly or Admin in any group (MemberAdded, AdminChanged,
 * MemberRoleSet); the namespace root always keeps an admin (removing, demoting or the leave of
 * its last admin is refused, -MERO_ESTATE); the policy lives on the namespace root and only a
 * root admin sets it; a MemberRemoved rotation never wraps the new key for the removed member;
 * the removal of our own TEE row writes the pending self-purge marker (the namespace for a root
 * removal, else the subgroup) in the removal's savepoint (one commit: no crash window between
 * eviction and marker); an op of a namespace whose self-purge tombstone stands (`purged`) is
 * dropped by mero_gov_apply before anything else, never stored.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "gov/fold_replay_internal.h" /* mero__gov_footprint */
#include "mero/crypto.h"
#include "mero/keys.h"
#include "mero/log.h"

void mero__gov_ns_id(uint8_t out[MERO_NS_ID_LEN], const uint8_t signer[MERO_IDENTITY_LEN],
                     const uint8_t salt[MERO_NS_SALT_LEN])
{
    static const char domain[] = "mero.namespace.id.v1";
    struct mero_sha256 h;
    mero_sha256_init(&h);
    mero_sha256_update(&h, domain, sizeof(domain) - 1);
    mero_sha256_update(&h, signer, MERO_IDENTITY_LEN);
    mero_sha256_update(&h, salt, MERO_NS_SALT_LEN);
    mero_sha256_final(&h, out);
}

/* ---- the role locks (spec "Locked to the TEE roles"; issue 21 item 10) --------------------- */

int mero__gov_tee_locked(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], struct mero_err *err)
{
    bool yes;
    MERO_TRY(mero_gov_holds_row(s, ns, member, true, &yes));
    if (yes) {
        return mero_err_set(err, MERO_ETEE_ROLE_LOCKED, "%s", MERO_GOV_REASON_TEE_LOCKED);
    }
    return 0;
}

static const char SQL_ADMINS[] = "SELECT COUNT(*) FROM members WHERE grp = ? AND role = 0";

int mero__gov_last_admin(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], struct mero_err *err)
{
    int r;
    if (memcmp(ns, group, MERO_NS_ID_LEN) != 0) {
        return 0; /* a subgroup keeps the namespace admins above it */
    }
    MERO_TRY(mero_gov_direct_role(s, group, member, &r));
    if (r != MERO_ROLE_ADMIN) {
        return 0;
    }
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_ADMINS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    if (n < 0) {
        return -MERO_EIO;
    }
    if (n <= 1) {
        return mero_err_set(err, MERO_ESTATE, "%s", MERO_GOV_REASON_LAST_ADMIN);
    }
    return 0;
}

/* ---- root ops ----------------------------------------------------------------------------- */

static int h_ns_created(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t want[MERO_NS_ID_LEN], tmp[MERO_NS_ID_LEN];
    if (op->n_parents != 0) {
        return mero_err_set(err, MERO_EREFUSED, "NamespaceCreated must be the first op");
    }
    mero__gov_ns_id(want, op->signer, op->salt);
    if (memcmp(want, op->ns, sizeof(want)) != 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "namespace id is not derived from the creator and salt");
    }
    if (mero_gov_namespace_of(a->s, op->ns, tmp) == 0) {
        return mero_err_set(err, MERO_EEXIST, "namespace already created");
    }
    MERO_TRY(mero__gov_group_put(a->s, op->ns, op->ns, op->ns, MERO_GROUP_RESTRICTED, a->seq));
    MERO_TRY(mero__gov_row_plain(a->s, op->ns, op->signer, MERO_ROLE_ADMIN));
    MERO_TRY(mero__gov_ev(a, MERO_EV_NAMESPACE_CREATED, op->ns, op->signer, MERO_ROLE_ADMIN, NULL));
    return mero__gov_ev(a, MERO_EV_MEMBER_ADDED, op->ns, op->signer, MERO_ROLE_ADMIN, NULL);
}

static int h_group_created(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    uint8_t tmp[MERO_NS_ID_LEN], cur[MERO_GROUP_ID_LEN], parent[MERO_GROUP_ID_LEN];
    int vis, depth = 0;
    MERO_TRY(mero__gov_in_ns(a, op->sub_parent, err));
    if (mero_gov_namespace_of(a->s, op->sub_group, tmp) == 0) {
        return mero_err_set(err, MERO_EEXIST, "group id already exists");
    }
    MERO_TRY(mero__gov_need_admin(a, op->sub_parent, err));
    memcpy(cur, op->sub_parent, sizeof(cur));
    while (memcmp(cur, op->ns, sizeof(cur)) != 0) {
        if (++depth >= 31 || mero_gov_group_info(a->s, cur, parent, &vis) < 0) {
            return mero_err_set(err, MERO_EREFUSED, "group tree too deep");
        }
        memcpy(cur, parent, sizeof(cur));
    }
    MERO_TRY(
        mero__gov_group_put(a->s, op->sub_group, op->ns, op->sub_parent, op->visibility, a->seq));
    MERO_TRY(mero__gov_row_plain(a->s, op->sub_group, op->signer, MERO_ROLE_ADMIN));
    MERO_TRY(
        mero__gov_ev(a, MERO_EV_GROUP_CREATED, op->sub_group, op->signer, MERO_ROLE_ADMIN, NULL));
    return mero__gov_ev(a, MERO_EV_MEMBER_ADDED, op->sub_group, op->signer, MERO_ROLE_ADMIN, NULL);
}

static int h_admin_changed(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero_gov_direct_role(a->s, op->ns, op->signer, &r));
    if (r != MERO_ROLE_ADMIN) {
        return mero_err_set(err, MERO_ENOTADMIN, "only a namespace-root admin may change admins");
    }
    MERO_TRY(mero__gov_tee_locked(a->s, op->ns, op->member, err));
    MERO_TRY(mero__gov_row_plain(a->s, op->ns, op->member, MERO_ROLE_ADMIN));
    MERO_TRY(mero__gov_deny(a->s, op->ns, op->member, false));
    return mero__gov_ev(a, MERO_EV_ADMIN_CHANGED, op->ns, op->member, MERO_ROLE_ADMIN, NULL);
}

static int h_key_delivery(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    const struct mero_key_envelope *e = &op->envelope;
    bool vouch;
    int r;
    MERO_TRY(mero__gov_in_ns(a, op->kd_group, err));
    MERO_TRY(mero_gov_may_vouch(a->s, op->kd_group, op->signer, &vouch));
    if (!vouch) {
        return mero_err_set(err, MERO_EREFUSED,
                            "KeyDelivery signer is neither an admin nor a TEE member of the group");
    }
    if (memcmp(e->sender, op->signer, sizeof(e->sender)) != 0) {
        return mero_err_set(err, MERO_EREFUSED, "KeyDelivery envelope sender is not the signer");
    }
    MERO_TRY(mero_envelope_verify(e, op->kd_group, err));
    /* the recipient reaches the group: a row there or one inherited through Open subgroups
     * (an inherited TEE included: it reads what it reaches, docs/admission.md "Reach") */
    MERO_TRY(mero_gov_reach_role(a->s, op->kd_group, e->identity, &r));
    if (r == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_EREFUSED, "KeyDelivery recipient is not a member");
    }
    uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
    bool stored = false;
    if (a->have_us && memcmp(e->identity, a->us, sizeof(a->us)) == 0) {
        struct mero_err e2 = {0};
        if (mero_gov_unwrap(a->s, op->ns, op->kd_group, e, key, &e2) == 0) {
            mero_group_key_id(id, key);
            int rc = mero__gov_key_put(a->s, op->kd_group, key);
            sodium_memzero(key, sizeof(key));
            MERO_TRY(rc);
            stored = true;
        } else {
            mero_log(MERO_LOG_WARN, "gov: a KeyDelivery addressed to us did not open: %s", e2.msg);
        }
    }
    return mero__gov_ev(a, MERO_EV_KEY_DELIVERED, op->kd_group, e->identity, MERO_ROLE_NONE,
                        stored ? id : NULL);
}

/* ---- group ops ---------------------------------------------------------------------------- */

/* The writes of an effective MemberAdded, ContextCreated and MemberSetAutoFollow: functions of
 * the op alone, shared by the handlers and the re-fold's replay (mero__gov_replay_writes). A
 * MemberAdded writes its member row and the rest: a re-fold writes the rows of a run of
 * replayed ones itself, in key order, and only the rest at each (fold.c). */
int mero__gov_member_added_rest(struct actx *a)
{
    return mero__gov_deny(a->s, a->op->group_id, a->op->member, false);
}

static int member_added_writes(struct actx *a)
{
    const struct mero_op *op = a->op;
    MERO_TRY(mero__gov_row_plain(a->s, op->group_id, op->member, op->role));
    return mero__gov_member_added_rest(a);
}

static int context_writes(struct actx *a)
{
    const struct mero_op *op = a->op;
    return mero__gov_context_put(a->s, op->context_id, op->ns, op->group_id, op->application_id,
                                 a->seq);
}

static int follow_writes(struct actx *a)
{
    const struct mero_op *op = a->op;
    return mero__gov_follow_put(a->s, op->group_id, op->member, op->follow_contexts,
                                op->follow_subgroups);
}

static int h_member_added(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero__gov_need_admin(a, op->group_id, err));
    if (mero_role_is_tee(op->role)) {
        return mero_err_set(err, MERO_ETEE_ROLE_LOCKED,
                            "TeeMemberRoleLocked: TEE roles are granted only by "
                            "MemberJoinedViaTeeAttestation");
    }
    MERO_TRY(mero__gov_tee_locked(a->s, op->ns, op->member, err));
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->member, &r));
    if (r == MERO_ROLE_ADMIN && op->role != MERO_ROLE_ADMIN) {
        MERO_TRY(mero__gov_last_admin(a->s, op->ns, op->group_id, op->member, err));
    }
    MERO_TRY(member_added_writes(a));
    return mero__gov_ev(a, MERO_EV_MEMBER_ADDED, op->group_id, op->member, op->role, NULL);
}

/* Remove a direct row (and, for a TEE at the root, its rows in every descendant). */
static int remove_row(struct actx *a, const uint8_t member[MERO_IDENTITY_LEN], int role, bool deny)
{
    const struct mero_op *op = a->op;
    MERO_TRY(mero__gov_row_del(a->s, op->group_id, member));
    MERO_TRY(mero__gov_follow_del(a->s, op->group_id, member));
    if (deny) {
        MERO_TRY(mero__gov_deny(a->s, op->group_id, member, true));
    }
    MERO_TRY(mero__gov_ev(a, MERO_EV_MEMBER_REMOVED, op->group_id, member, role, NULL));
    if (!mero_role_is_tee(role)) {
        return 0;
    }
    MERO_TRY(mero__gov_ev(a, MERO_EV_TEE_MEMBER_REMOVED, op->group_id, member, role, NULL));
    /* our own eviction: the durable self-purge marker (the namespace for a root removal, else
     * the subgroup) commits with the removal, so a crash before the event handler runs still
     * ends in the purge at the next start */
    if (a->have_us && memcmp(member, a->us, sizeof(a->us)) == 0) {
        MERO_TRY(mero_gov_purge_mark(a->s, op->group_id));
    }
    if (memcmp(op->group_id, op->ns, sizeof(op->ns)) != 0) {
        return 0;
    }
    uint8_t(*desc)[MERO_GROUP_ID_LEN] = NULL;
    size_t n = 0;
    MERO_TRY(mero__gov_descendants(a->s, op->ns, &desc, &n));
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        int r;
        MERO_TRY_OUT(mero_gov_direct_role(a->s, desc[i], member, &r));
        if (r == MERO_ROLE_NONE) {
            continue;
        }
        MERO_TRY_OUT(mero__gov_row_del(a->s, desc[i], member));
        MERO_TRY_OUT(mero__gov_follow_del(a->s, desc[i], member));
        MERO_TRY_OUT(mero__gov_ev(a, MERO_EV_TEE_MEMBER_REMOVED, desc[i], member, r, NULL));
    }
out:
    free(desc);
    return rc;
}

static int check_rotation(struct actx *a, const uint8_t removed[MERO_IDENTITY_LEN],
                          struct mero_err *err)
{
    const struct mero_op *op = a->op;
    for (uint32_t i = 0; i < op->rotation.n; i++) {
        const struct mero_key_envelope *e = &op->rotation.env[i];
        int r;
        if (memcmp(e->identity, removed, sizeof(e->identity)) == 0) {
            return mero_err_set(err, MERO_EREFUSED,
                                "key rotation wraps the new key for the removed member");
        }
        if (memcmp(e->sender, op->signer, sizeof(e->sender)) != 0) {
            return mero_err_set(err, MERO_EREFUSED,
                                "key rotation envelope sender is not the signer");
        }
        MERO_TRY(mero_envelope_verify(e, op->group_id, err));
        MERO_TRY(mero_gov_direct_role(a->s, op->group_id, e->identity, &r));
        if (r == MERO_ROLE_NONE) {
            return mero_err_set(err, MERO_EREFUSED,
                                "key rotation wraps the new key for a non-member");
        }
    }
    return 0;
}

static int apply_rotation(struct actx *a)
{
    const struct mero_op *op = a->op;
    bool stored = false;
    for (uint32_t i = 0; i < op->rotation.n && a->have_us; i++) {
        const struct mero_key_envelope *e = &op->rotation.env[i];
        if (memcmp(e->identity, a->us, sizeof(a->us)) != 0) {
            continue;
        }
        uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
        struct mero_err e2 = {0};
        if (mero_gov_unwrap(a->s, op->ns, op->group_id, e, key, &e2) < 0) {
            mero_log(MERO_LOG_WARN, "gov: a key rotation envelope for us did not open: %s", e2.msg);
            break;
        }
        mero_group_key_id(id, key);
        int rc = 0;
        if (memcmp(id, op->rotation.new_key_id, sizeof(id)) != 0) {
            mero_log(MERO_LOG_WARN, "gov: rotated key does not match new_key_id; not stored");
        } else {
            rc = mero__gov_key_put(a->s, op->group_id, key);
            stored = rc == 0;
        }
        sodium_memzero(key, sizeof(key));
        MERO_TRY(rc);
        break;
    }
    return mero__gov_ev(a, MERO_EV_KEY_ROTATED, op->group_id, stored ? a->us : NULL, MERO_ROLE_NONE,
                        op->rotation.new_key_id);
}

static int h_member_removed(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero__gov_need_admin(a, op->group_id, err));
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->member, &r));
    if (r == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_ENOTFOUND, "member is not a direct member of the group");
    }
    MERO_TRY(mero__gov_last_admin(a->s, op->ns, op->group_id, op->member, err));
    MERO_TRY(remove_row(a, op->member, r, true));
    if (op->has_rotation) {
        MERO_TRY(check_rotation(a, op->member, err));
        MERO_TRY(apply_rotation(a));
    }
    return 0;
}

static int h_member_left(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->signer, &r));
    if (r == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_ENOTFOUND, "signer is not a direct member of the group");
    }
    MERO_TRY(mero__gov_last_admin(a->s, op->ns, op->group_id, op->signer, err));
    return remove_row(a, op->signer, r, false);
}

static int h_role_set(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero__gov_need_admin(a, op->group_id, err));
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->member, &r));
    if (r == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_ENOTFOUND, "member is not a direct member of the group");
    }
    if (!mero_role_is_tee(r)) {
        if (mero_role_is_tee(op->role)) {
            return mero_err_set(err, MERO_ETEE_ROLE_LOCKED,
                                "TeeMemberRoleLocked: TEE roles are granted only by "
                                "MemberJoinedViaTeeAttestation");
        }
        /* a TEE identity's stray plain row is never given another plain role either */
        MERO_TRY(mero__gov_tee_locked(a->s, op->ns, op->member, err));
        if (r == MERO_ROLE_ADMIN && op->role != MERO_ROLE_ADMIN) {
            MERO_TRY(mero__gov_last_admin(a->s, op->ns, op->group_id, op->member, err));
        }
    } else {
        if (!mero_role_is_tee(op->role)) {
            return mero_err_set(err, MERO_ETEE_ROLE_LOCKED,
                                "TeeMemberRoleLocked: a TEE row can move only to the other TEE "
                                "role");
        }
        struct mero_tee_policy p;
        bool found;
        MERO_TRY(mero_gov_read_policy(a->s, op->ns, &p, &found, err));
        int want = mero_tee_mode_role(p.mode);
        mero_tee_policy_cleanup(&p);
        if (!found) {
            return mero_err_set(err, MERO_ENOPOLICY, "no TeeAdmissionPolicy set for group");
        }
        if (op->role != want) {
            return mero_err_set(err, MERO_ETEE_ROLE_LOCKED,
                                "TeeMemberRoleLocked: a TEE row may move only to the role the "
                                "policy mode names (%s)",
                                mero_role_name(want));
        }
    }
    MERO_TRY(mero__gov_row_role(a->s, op->group_id, op->member, op->role));
    return mero__gov_ev(a, MERO_EV_MEMBER_ROLE_SET, op->group_id, op->member, op->role, NULL);
}

static int h_context(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    MERO_TRY(mero_gov_effective_role(a->s, op->group_id, op->signer, &r));
    if (r != MERO_ROLE_ADMIN && r != MERO_ROLE_MEMBER) {
        return mero_err_set(err, MERO_EREFUSED,
                            "only an admin or a member of the group may create a context");
    }
    if (mero__gov_context_exists(a->s, op->context_id)) {
        return mero_err_set(err, MERO_EEXIST, "context id already exists");
    }
    MERO_TRY(context_writes(a));
    return mero__gov_ev(a, MERO_EV_CONTEXT_CREATED, op->group_id, op->signer, r, op->context_id);
}

static int h_follow(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r, d;
    MERO_TRY(mero_gov_effective_role(a->s, op->group_id, op->member, &r));
    MERO_TRY(mero_gov_direct_role(a->s, op->group_id, op->member, &d));
    if (r == MERO_ROLE_NONE && d == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_ENOTFOUND, "auto-follow target is not a member");
    }
    if (memcmp(op->member, op->signer, sizeof(op->member)) != 0) {
        MERO_TRY(mero__gov_need_admin(a, op->group_id, err));
    }
    MERO_TRY(follow_writes(a));
    return mero__gov_ev(a, MERO_EV_AUTO_FOLLOW_SET, op->group_id, op->member, MERO_ROLE_NONE, NULL);
}

static int h_policy(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    int r;
    if (memcmp(op->group_id, op->ns, sizeof(op->ns)) != 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "TeePolicyNotOnSubgroup: the TEE admission policy must be set on the "
                            "namespace root, not a subgroup");
    }
    MERO_TRY(mero_gov_direct_role(a->s, op->ns, op->signer, &r));
    if (r != MERO_ROLE_ADMIN) {
        return mero_err_set(err, MERO_ENOTADMIN,
                            "only a namespace-root admin may set the TEE admission policy");
    }
    MERO_TRY(mero_tee_policy_validate(&op->policy, err));
    MERO_TRY(mero__gov_policy_put(a->s, op->ns, a->hash, a->bytes, a->len));
    return mero__gov_ev(a, MERO_EV_POLICY_SET, op->ns, op->signer, op->policy.mode, NULL);
}

/* The kinds whose handler above returns every refusal before its first write (the signer,
 * role and TEE checks first, then the rows; in_ns and the rotation check in dispatch come first
 * too): a refusal leaves nothing to undo, so the fold judges them without the per-op savepoint,
 * whose journal of each op's pages was about a sixth of a re-fold (fold.c). They are the kinds
 * of mero__gov_footprint (fold_replay.c), any KeyDelivery included. */
bool mero__gov_refuses_before_writing(const struct mero_op *op)
{
    const uint8_t *ids[2];
    int n;
    return mero__gov_footprint(op, NULL, ids, &n);
}

/* The writes of an effective op of mero__gov_footprint's kinds (the re-fold's replay): the
 * handlers' own helpers above; a KeyDelivery not addressed to us writes nothing. */
int mero__gov_replay_writes(struct actx *a)
{
    const struct mero_op *op = a->op;
    if (op->scope == MERO_SCOPE_ROOT) {
        return op->kind == MERO_ROOT_KEY_DELIVERY ? 0 : -MERO_EINTERNAL;
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
        return member_added_writes(a);
    case MERO_GROUP_CONTEXT_CREATED:
        return context_writes(a);
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        return follow_writes(a);
    default:
        return -MERO_EINTERNAL;
    }
}

/* ---- dispatch ----------------------------------------------------------------------------- */

int mero__gov_dispatch(struct actx *a, struct mero_err *err)
{
    const struct mero_op *op = a->op;
    if (op->scope == MERO_SCOPE_ROOT) {
        switch (op->kind) {
        case MERO_ROOT_NAMESPACE_CREATED:
            return h_ns_created(a, err);
        case MERO_ROOT_GROUP_CREATED:
            return h_group_created(a, err);
        case MERO_ROOT_ADMIN_CHANGED:
            return h_admin_changed(a, err);
        case MERO_ROOT_KEY_DELIVERY:
            return h_key_delivery(a, err);
        case MERO_ROOT_MEMBER_JOINED_TEE:
            return mero__gov_h_join(a, &op->join, true, err);
        default:
            return mero_err_set(err, MERO_EOPDECODE, "unknown root op");
        }
    }
    MERO_TRY(mero__gov_in_ns(a, op->group_id, err));
    if (op->scope == MERO_SCOPE_GROUP_ENCRYPTED) {
        if (op->has_rotation) {
            return mero_err_set(err, MERO_EREFUSED,
                                "an encrypted group op cannot carry a key "
                                "rotation");
        }
        return mero__gov_h_sealed(a, err);
    }
    if (op->has_rotation && op->kind != MERO_GROUP_MEMBER_REMOVED) {
        return mero_err_set(err, MERO_EREFUSED, "only MemberRemoved may carry a key rotation");
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
        return h_member_added(a, err);
    case MERO_GROUP_MEMBER_REMOVED:
        return h_member_removed(a, err);
    case MERO_GROUP_MEMBER_LEFT:
        return h_member_left(a, err);
    case MERO_GROUP_MEMBER_ROLE_SET:
        return h_role_set(a, err);
    case MERO_GROUP_CONTEXT_CREATED:
        return h_context(a, err);
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        return h_follow(a, err);
    case MERO_GROUP_TEE_POLICY_SET:
    case MERO_GROUP_TEE_POLICY_SET_V2:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET_V2:
        return h_policy(a, err);
    case MERO_GROUP_MEMBER_JOINED_TEE:
        return mero__gov_h_join(a, &op->join, false, err);
    case MERO_GROUP_TEE_AUTHORITY_EVIDENCE:
        return mero__gov_h_evidence(a, err);
    default:
        return mero_err_set(err, MERO_EOPDECODE, "unknown group op");
    }
}

static const char SQL_PARENT_NS[] = "SELECT ns FROM ops WHERE hash = ?";

static int check_parents(struct mero_store *s, const struct mero_op *op, uint8_t *missing,
                         struct mero_err *err)
{
    if (op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_NAMESPACE_CREATED) {
        return 0;
    }
    if (op->n_parents == 0) {
        return mero_err_set(err, MERO_EREFUSED, "an op other than NamespaceCreated needs parents");
    }
    for (uint32_t i = 0; i < op->n_parents; i++) {
        sqlite3_stmt *st = mero__gov_stmt(s, SQL_PARENT_NS);
        if (st == NULL) {
            return mero__gov_sqlerr(s, err, "parents");
        }
        sqlite3_bind_blob(st, 1, op->parents[i], sizeof(op->parents[i]), SQLITE_STATIC);
        int rc = sqlite3_step(st);
        bool same = rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_NS_ID_LEN &&
                    memcmp(sqlite3_column_blob(st, 0), op->ns, sizeof(op->ns)) == 0;
        sqlite3_reset(st);
        if (rc == SQLITE_ROW && !same) {
            return mero_err_set(err, MERO_EREFUSED, "a parent op belongs to another namespace");
        }
        if (rc != SQLITE_ROW) {
            if (missing != NULL) {
                memcpy(missing, op->parents[i], sizeof(op->parents[i]));
            }
            char h[17];
            return mero_err_set(err, MERO_EMISSINGPARENT, "parent op %s is not known yet",
                                mero__gov_short(op->parents[i], h));
        }
    }
    return 0;
}

/* A failure that is no rule's refusal: its reason becomes the caller's; rc is passed on. */
static int pass_on(struct mero_err *err, const struct mero_err *why, int rc)
{
    if (err != NULL) {
        *err = *why;
    }
    return rc;
}

static const char SQL_NS_DEFERS[] = "SELECT 1 FROM deferred WHERE ns = ? LIMIT 1";

/*
 * An op whose signer is no principal of its namespace (no stored op names it as holding a row,
 * and it never held one here), refused before it is stored or folded when it sorts before ops
 * already folded, or is encrypted (issue 30: a flood's cost). While no op of the namespace
 * waits for a key here, every row any peer derives is one this node derives too, so the signer
 * holds no row at the op's place, wherever that is; every rule asks for one (NamespaceCreated's
 * instead asks that the namespace id derive from its signer, which a stranger's cannot do for a
 * namespace that has ops), so the op is refused there, changes nothing after it, and is not kept
 * (a stranger's refusal). The fold would end the same, but such a late op cost a
 * re-fold of the whole namespace for one signature (about a thousand in-order ops' worth at
 * 10,000 ops, bench_gov_fold), and an encrypted one under a key id nobody holds was stored
 * deferred. A clear op that sorts last is left to the rules, which refuse it as cheaply, with
 * their reason. While an op waits for its key, the signer may hold a row through it that this
 * node cannot see yet: the fold judges (or defers) the op as before. The caller has asked
 * whether the signer is a principal, before the op's append records its nominee.
 */
static int refuse_stranger(struct mero_store *s, const struct mero_op *op, struct mero_err *err)
{
    char h[GOV_SHORT_SIZE];
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_NS_DEFERS);
    if (st == NULL) {
        return mero__gov_sqlerr(s, err, "deferred");
    }
    sqlite3_bind_blob(st, 1, op->ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int waits = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : mero__gov_sqlerr(s, err, "deferred");
    sqlite3_reset(st); /* after the error is taken: a reset would replace its message */
    if (waits != 0) {
        return waits < 0 ? waits : 0;
    }
    return mero_err_set(err, MERO_EREFUSED, "the signer %s has never held a row in the namespace",
                        mero__gov_short(op->signer, h));
}

/*
 * The op's place in the canonical order (fold.c): after every folded op of its namespace it is
 * judged here and now; before one of them (a late op) the namespace is re-folded with it. An op
 * the rules refuse at its place is kept without effect (GOV_FOLD_REJECTED) when its signer has
 * held a row in the namespace, so every peer folds the same set; a local action's refusal, and
 * a stranger's, store nothing.
 */
int mero__gov_apply_op(struct mero_store *s, const struct mero_op *op,
                       const uint8_t hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len,
                       uint8_t *missing, int *state_out, struct mero_err *err)
{
    struct actx a = {.s = s, .op = op, .hash = hash, .bytes = bytes, .len = len};
    struct gov_fold_key k;
    struct mero_err why = {0};
    int state = GOV_FOLD_EFFECTIVE;
    bool last = true;
    MERO_TRY(check_parents(s, op, missing, err));
    if (mero__gov_fold_key(s, op, hash, &k) < 0 ||
        mero__gov_fold_is_last(s, op->ns, &k, &last) < 0) {
        return mero__gov_sqlerr(s, err, "place");
    }
    /* the signer's standing before this op, whose append records its nominee: an op that
     * names its own signer must not make a stranger a principal by arriving */
    const uint8_t *nominee = mero__gov_nominee(op);
    bool principal = false;
    bool early = !last || op->scope == MERO_SCOPE_GROUP_ENCRYPTED; /* a stranger's refused here */
    bool asked = early || (nominee != NULL && memcmp(nominee, op->signer, MERO_IDENTITY_LEN) == 0);
    if (asked) {
        MERO_TRY(mero__gov_principal(s, op->ns, op->signer, &principal, err));
    }
    if (early && !principal) {
        MERO_TRY(refuse_stranger(s, op, err));
    }
    a.have_us = mero__gov_our_pk(s, op->ns, a.us);
    if (mero__gov_exec(s, "SAVEPOINT gov_apply") < 0) {
        return mero__gov_sqlerr(s, err, "savepoint");
    }
    int rc = mero__gov_append(s, op, hash, bytes, len, &a.seq);
    a.seq = k.depth; /* derived rows order by depth, the same on every node */
    if (rc == 0 && !last) {
        rc = mero__gov_fold_put(s, op->ns, &k, GOV_FOLD_EFFECTIVE, NULL);
    }
    GOV_SQL_TRY_OUT(s, err, rc, "append");
    if (last) {
        /* the fast path, no savepoint of its own: a refusal rolls the whole apply back and
         * appends the op again without effect */
        a.deferred = false;
        rc = mero__gov_dispatch(&a, &why);
        bool refused = rc < 0 && mero__gov_rule_refusal(rc);
        if (rc < 0 && !refused) {
            MERO_TRY_OUT(pass_on(err, &why, rc));
        }
        if (refused) {
            if (why.code == 0) {
                (void)mero_err_set(&why, -rc, "refused (%s)", mero_strerror(rc));
            }
            (void)mero__gov_exec(s, "ROLLBACK TO gov_apply");
            a.nev = 0;
            state = !s->publishing && mero__gov_behind_sealed(s, op) ? GOV_FOLD_DEFERRED
                                                                     : GOV_FOLD_REJECTED;
            rc = mero__gov_append(s, op, hash, bytes, len, &a.seq);
            a.seq = k.depth;
        } else {
            state = a.deferred ? GOV_FOLD_DEFERRED : GOV_FOLD_EFFECTIVE;
        }
        if (rc == 0) {
            rc = mero__gov_fold_put(s, op->ns, &k, state,
                                    state == GOV_FOLD_REJECTED ? why.msg : NULL);
        }
        GOV_SQL_TRY_OUT(s, err, rc, "append");
    } else {
        MERO_TRY_OUT(mero__gov_refold(s, &a, true, &state, &why, err));
    }
    if (state == GOV_FOLD_REJECTED && !s->publishing && !asked) {
        MERO_TRY_OUT(mero__gov_principal(s, op->ns, op->signer, &principal, err));
    }
    MERO_ENSURE_OUT(state != GOV_FOLD_REJECTED || (principal && !s->publishing), err,
                    why.code != 0 ? why.code : MERO_EREFUSED, "%s", why.msg);
    GOV_SQL_TRY_OUT(s, err, mero__gov_exec(s, "RELEASE gov_apply"), "commit");
    rc = 0;
    if (state == GOV_FOLD_REJECTED && err != NULL) {
        *err = why; /* kept without effect: the reason, for the caller's log */
    }
    if (state_out != NULL) {
        *state_out = state;
    }
    mero__gov_emit(&a);
    mero__gov_unseal(s);
out:
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK TO gov_apply");
        (void)mero__gov_exec(s, "RELEASE gov_apply");
    }
    free(a.ev);
    return rc;
}

/* mero_gov_apply for an op decoded and not purged here; the caller frees the op. */
static int apply_decoded(struct mero_store *s, const struct mero_op *op, const uint8_t *bytes,
                         size_t len, int *status, uint8_t *hash_out, uint8_t *missing_out,
                         struct mero_err *err)
{
    uint8_t hash[MERO_OP_ID_LEN];
    bool have;
    int rc = 0;
    MERO_TRY(mero_op_hash(op, hash));
    MERO_TRY(mero_op_verify(op, err));
    MERO_TRY(mero_gov_has_op(s, hash, &have));
    int st = MERO_APPLY_DUPLICATE;
    if (!have) {
        int state = GOV_FOLD_EFFECTIVE;
        MERO_TRY(mero__gov_apply_op(s, op, hash, bytes, len, missing_out, &state, err));
        st = state == GOV_FOLD_REJECTED ? MERO_APPLY_REJECTED : MERO_APPLY_APPLIED;
        if (state == GOV_FOLD_REJECTED) {
            /* stored without effect, and still the rules' answer: the refusal's code */
            rc = -(err->code > 0 ? err->code : MERO_EREFUSED);
        }
    }
    if (status != NULL) {
        *status = st;
    }
    if (hash_out != NULL) {
        memcpy(hash_out, hash, sizeof(hash));
    }
    return rc;
}

int mero_gov_apply(struct mero_store *s, const uint8_t *bytes, size_t len, int *status,
                   uint8_t *hash_out, uint8_t *missing_out, struct mero_err *err_out)
{
    struct mero_err local = {0};
    struct mero_err *err = err_out != NULL ? err_out : &local; /* a kept refusal's code */
    struct mero_op op;
    bool purged = true;
    MERO_TRY(mero_op_decode(bytes, len, &op, err));
    int rc = mero_gov_purged(s, op.ns, &purged);
    if (rc < 0) {
        rc = mero__gov_sqlerr(s, err, "purged tombstone"); /* fails closed, as an error */
    } else if (purged) {
        if (status != NULL) { /* self-purged here: drop it unseen */
            *status = MERO_APPLY_PURGED;
        }
    } else {
        rc = apply_decoded(s, &op, bytes, len, status, hash_out, missing_out, err);
    }
    mero_op_cleanup(&op);
    return rc;
}
