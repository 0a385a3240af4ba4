/* SPDX-License-Identifier: Apache-2.0 */
/*
 * actions.c - local governance actions: build an op, sign it with our namespace identity
 * (parents = the current heads, nonce = our last + 1), apply it through the same path a peer's
 * op takes, and hand the encoded bytes back for broadcast. Includes the policy mode-switch
 * conversion and the MemberRemoved key rotation.
 *
 * Invariants: a local action the rules refuse stores nothing and returns the same reason a
 * peer would give; secrets (identity, group keys) are wiped after use; a rotation wraps the
 * new key for every remaining direct member and never for the removed one.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/keys.h"
#include "mero/log.h"

void mero_gov_oplist_cleanup(struct mero_gov_oplist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        mero_buf_cleanup(&l->v[i]);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int oplist_push(struct mero_gov_oplist *l, const uint8_t *p, size_t n)
{
    struct mero_buf *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
    if (nv == NULL) {
        return -MERO_ENOMEM;
    }
    l->v = nv;
    mero_buf_init(&l->v[l->n], MERO_GOV_MAX_OP_BYTES);
    int rc = mero_buf_append(&l->v[l->n], p, n);
    if (rc < 0) {
        mero_buf_cleanup(&l->v[l->n]);
        return rc;
    }
    l->n++;
    return 0;
}

/* Parents (the current heads), nonce and signature, then the encoding and its hash. */
static int build_op(struct mero_store *s, struct mero_op *op, const uint8_t sk[MERO_ED25519_SK_LEN],
                    struct mero_buf *b, uint8_t hash[MERO_OP_ID_LEN])
{
    if (!(op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_NAMESPACE_CREATED)) {
        uint8_t(*heads)[MERO_OP_ID_LEN] = NULL;
        size_t n = 0;
        MERO_TRY(mero_gov_heads(s, op->ns, &heads, &n));
        int rc =
            mero_op_set_parents(op, (const uint8_t(*)[MERO_OP_ID_LEN])heads,
                                (uint32_t)(n > MERO_GOV_MAX_PARENTS ? MERO_GOV_MAX_PARENTS : n));
        free(heads);
        MERO_TRY(rc);
    }
    uint64_t nonce = 0;
    MERO_TRY(mero__gov_last_nonce(s, op->ns, sk + MERO_ED25519_SEED_LEN, &nonce));
    op->version = MERO_GOV_SCHEMA_VERSION;
    op->nonce = nonce + 1;
    MERO_TRY(mero_op_sign(op, sk));
    MERO_TRY(mero_op_encode(op, b));
    return mero_op_hash(op, hash);
}

int mero__gov_publish(struct mero_store *s, struct mero_op *op, struct mero_gov_oplist *out,
                      struct mero_err *err)
{
    uint8_t sk[MERO_ED25519_SK_LEN], hash[MERO_OP_ID_LEN];
    MERO_ENSURE(mero_gov_identity_secret(s, op->ns, sk) == 0, err, MERO_ENOTFOUND,
                "we hold no identity in this namespace");
    struct mero_buf b;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    int rc = build_op(s, op, sk, &b, hash);
    sodium_memzero(sk, sizeof(sk));
    MERO_ENSURE_OUT(rc >= 0, err, -rc, "could not build the op");
    s->publishing = true;
    rc = mero__gov_apply_op(s, op, hash, b.data, b.len, NULL, NULL, err);
    s->publishing = false;
    MERO_TRY_OUT(rc);
    if (out != NULL) {
        MERO_TRY_OUT(oplist_push(out, b.data, b.len));
    }
out:
    mero_buf_cleanup(&b);
    return rc;
}

static int savepoint(struct mero_store *s, struct mero_err *err)
{
    return mero__gov_exec(s, "SAVEPOINT gov_action") < 0 ? mero__gov_sqlerr(s, err, "savepoint")
                                                         : 0;
}

/* End an action's savepoint. Its RELEASE is the commit when no outer transaction is open: a
 * failing commit (full disk, read-only file, I/O error) is the action's error, with SQLite's
 * reason, never a success whose rows silently vanished. */
static int finish(struct mero_store *s, int rc, struct mero_err *err)
{
    if (rc == 0) {
        if (mero__gov_exec(s, "RELEASE gov_action") == 0) {
            return 0;
        }
        rc = mero__gov_sqlerr(s, err, "commit");
    } else if (rc < 0 && err != NULL && err->msg[0] == 0) {
        rc = mero__gov_sqlerr(s, err, "write");
    }
    (void)mero__gov_exec(s, "ROLLBACK TO gov_action");
    (void)mero__gov_exec(s, "RELEASE gov_action");
    return rc;
}

/* A fresh key for group, stored as its current key. */
static int put_new_key(struct mero_store *s, const uint8_t group[MERO_GROUP_ID_LEN])
{
    uint8_t key[MERO_GROUP_KEY_LEN];
    mero_group_key_new(key);
    int rc = mero__gov_key_put(s, group, key);
    sodium_memzero(key, sizeof(key));
    return rc;
}

int mero_gov_create_namespace(struct mero_store *s, uint8_t ns_out[static MERO_NS_ID_LEN],
                              struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_op op;
    uint8_t pk[MERO_IDENTITY_LEN], sk[MERO_ED25519_SK_LEN];
    MERO_TRY(savepoint(s, err));
    mero_op_init(&op);
    mero_ed25519_keypair(pk, sk);
    mero_random(op.salt, sizeof(op.salt));
    mero__gov_ns_id(op.ns, pk, op.salt);
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_NAMESPACE_CREATED;
    int rc = mero__gov_identity_put(s, op.ns, sk);
    sodium_memzero(sk, sizeof(sk));
    GOV_SQL_TRY_OUT(s, err, rc, "identity");
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
    MERO_TRY_OUT(put_new_key(s, op.ns));
    memcpy(ns_out, op.ns, sizeof(op.ns));
out:
    mero_op_cleanup(&op);
    return finish(s, rc, err);
}

int mero_gov_create_subgroup(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             const uint8_t parent[static MERO_GROUP_ID_LEN], int visibility,
                             uint8_t group_out[static MERO_GROUP_ID_LEN],
                             struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_op op;
    MERO_ENSURE(visibility == MERO_GROUP_OPEN || visibility == MERO_GROUP_RESTRICTED, err,
                MERO_EINVAL, "visibility must be Open or Restricted");
    MERO_TRY(savepoint(s, err));
    mero_op_init(&op);
    memcpy(op.ns, ns, sizeof(op.ns));
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_GROUP_CREATED;
    mero_random(op.sub_group, sizeof(op.sub_group));
    memcpy(op.sub_parent, parent, sizeof(op.sub_parent));
    op.visibility = (uint8_t)visibility;
    int rc = 0;
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
    MERO_TRY_OUT(put_new_key(s, op.sub_group));
    memcpy(group_out, op.sub_group, sizeof(op.sub_group));
out:
    mero_op_cleanup(&op);
    return finish(s, rc, err);
}

static void group_op(struct mero_op *op, const uint8_t ns[MERO_NS_ID_LEN],
                     const uint8_t group[MERO_GROUP_ID_LEN], int kind)
{
    mero_op_init(op);
    memcpy(op->ns, ns, sizeof(op->ns));
    memcpy(op->group_id, group, sizeof(op->group_id));
    op->scope = MERO_SCOPE_GROUP;
    op->kind = (uint8_t)kind;
}

static int publish_member_op(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                             const uint8_t group[MERO_GROUP_ID_LEN], int kind,
                             const uint8_t *member, int role, struct mero_gov_oplist *out,
                             struct mero_err *err)
{
    MERO_ENSURE(role == MERO_ROLE_NONE || mero_role_valid(role), err, MERO_EINVAL,
                "unknown role %d", role);
    struct mero_op op;
    group_op(&op, ns, group, kind);
    if (member != NULL) {
        memcpy(op.member, member, sizeof(op.member));
    }
    if (role != MERO_ROLE_NONE) {
        op.role = (uint8_t)role;
    }
    int rc = mero__gov_publish(s, &op, out, err);
    mero_op_cleanup(&op);
    return rc;
}

/* The last-admin rule before signing, asked only of an admin (the apply answers the others
 * with their own refusal, NotAdmin). */
static int presign_last_admin(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t group[MERO_GROUP_ID_LEN],
                              const uint8_t member[MERO_IDENTITY_LEN], struct mero_err *err)
{
    uint8_t us[MERO_IDENTITY_LEN];
    bool admin = false;
    if (!mero__gov_our_pk(s, ns, us) || mero_gov_is_admin(s, group, us, &admin) < 0 || !admin) {
        return 0;
    }
    return mero__gov_last_admin(s, ns, group, member, err);
}

int mero_gov_add_member(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                        const uint8_t group[static MERO_GROUP_ID_LEN],
                        const uint8_t member[static MERO_IDENTITY_LEN], int role,
                        struct mero_gov_oplist *out, struct mero_err *err)
{
    MERO_ENSURE(role != MERO_ROLE_NONE, err, MERO_EINVAL, "a role is required");
    /* refused before anything is signed (the apply would refuse it the same way) */
    MERO_TRY(mero__gov_tee_locked(s, ns, member, err));
    return publish_member_op(s, ns, group, MERO_GROUP_MEMBER_ADDED, member, role, out, err);
}

int mero_gov_set_member_role(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             const uint8_t group[static MERO_GROUP_ID_LEN],
                             const uint8_t member[static MERO_IDENTITY_LEN], int role,
                             struct mero_gov_oplist *out, struct mero_err *err)
{
    MERO_ENSURE(role != MERO_ROLE_NONE, err, MERO_EINVAL, "a role is required");
    /* refused before anything is signed: a TEE identity given a plain role, the last admin */
    int cur;
    MERO_TRY(mero_gov_direct_role(s, group, member, &cur));
    if (!mero_role_is_tee(role)) {
        MERO_ENSURE(!mero_role_is_tee(cur), err, MERO_ETEE_ROLE_LOCKED,
                    "TeeMemberRoleLocked: a TEE row can move only to the other TEE role");
        MERO_TRY(mero__gov_tee_locked(s, ns, member, err));
        if (cur == MERO_ROLE_ADMIN && role != MERO_ROLE_ADMIN) {
            MERO_TRY(presign_last_admin(s, ns, group, member, err));
        }
    }
    return publish_member_op(s, ns, group, MERO_GROUP_MEMBER_ROLE_SET, member, role, out, err);
}

int mero_gov_leave(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                   const uint8_t group[static MERO_GROUP_ID_LEN], struct mero_gov_oplist *out,
                   struct mero_err *err)
{
    uint8_t us[MERO_IDENTITY_LEN];
    if (mero__gov_our_pk(s, ns, us)) {
        MERO_TRY(mero__gov_last_admin(s, ns, group, us, err));
    }
    return publish_member_op(s, ns, group, MERO_GROUP_MEMBER_LEFT, NULL, MERO_ROLE_NONE, out, err);
}

int mero_gov_change_admin(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                          const uint8_t member[static MERO_IDENTITY_LEN],
                          struct mero_gov_oplist *out, struct mero_err *err)
{
    MERO_TRY(mero__gov_tee_locked(s, ns, member, err));
    struct mero_op op;
    mero_op_init(&op);
    memcpy(op.ns, ns, sizeof(op.ns));
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_ADMIN_CHANGED;
    memcpy(op.member, member, sizeof(op.member));
    int rc = mero__gov_publish(s, &op, out, err);
    mero_op_cleanup(&op);
    return rc;
}

/* Build the rotation: a fresh key wrapped for each remaining direct member. */
static int build_rotation(struct mero_store *s, struct mero_op *op,
                          const uint8_t removed[MERO_IDENTITY_LEN],
                          uint8_t newkey[MERO_GROUP_KEY_LEN], struct mero_err *err)
{
    struct mero_gov_member *m = NULL;
    size_t n = 0;
    uint8_t sk[MERO_ED25519_SK_LEN];
    MERO_TRY(mero_gov_members(s, op->group_id, &m, &n));
    int rc = 0;
    MERO_ENSURE_OUT(mero_gov_identity_secret(s, op->ns, sk) == 0, err, MERO_ENOTFOUND,
                    "we hold no identity in this namespace");
    mero_group_key_new(newkey);
    mero_group_key_id(op->rotation.new_key_id, newkey);
    op->rotation.env = calloc(n ? n : 1, sizeof(*op->rotation.env));
    MERO_ENSURE_OUT(op->rotation.env != NULL, err, MERO_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (memcmp(m[i].id, removed, sizeof(m[i].id)) == 0) {
            continue;
        }
        MERO_TRY_OUT(mero_envelope_wrap(&op->rotation.env[op->rotation.n], op->group_id, m[i].id,
                                        sk, newkey, err));
        op->rotation.n++;
    }
    op->has_rotation = true;
out:
    sodium_memzero(sk, sizeof(sk));
    free(m);
    return rc;
}

/* Inside the action's savepoint: publish the removal, then keep the rotated key (NULL: none). */
static int publish_removal(struct mero_store *s, struct mero_op *op, const uint8_t *newkey,
                           struct mero_gov_oplist *out, struct mero_err *err)
{
    MERO_TRY(mero__gov_publish(s, op, out, err));
    return newkey != NULL ? mero__gov_key_put(s, op->group_id, newkey) : 0;
}

static int cut_cmp(const void *a, const void *b)
{
    return memcmp(((const struct mero_write_cut *)a)->context,
                  ((const struct mero_write_cut *)b)->context, MERO_CONTEXT_ID_LEN);
}

/* issue 30: the removal's cuts, from the node that holds the contexts (hooks.write_cuts). */
static int cuts_of(struct mero_store *s, struct mero_op *op)
{
    if (s->hooks.write_cuts == NULL) {
        return 0;
    }
    op->cuts = calloc(MERO_GOV_MAX_CUTS, sizeof(*op->cuts));
    if (op->cuts == NULL) {
        return -MERO_ENOMEM;
    }
    uint32_t n = 0, kept = 0;
    MERO_TRY(s->hooks.write_cuts(s->hooks.ud, op->ns, op->group_id, op->member, op->cuts,
                                 MERO_GOV_MAX_CUTS, &n));
    n = n <= MERO_GOV_MAX_CUTS ? n : MERO_GOV_MAX_CUTS;
    /* the one encoding (op_codec.c): contexts strictly ascending */
    qsort(op->cuts, n, sizeof(*op->cuts), cut_cmp);
    for (uint32_t i = 0; i < n; i++) {
        if (kept == 0 ||
            memcmp(op->cuts[kept - 1].context, op->cuts[i].context, MERO_CONTEXT_ID_LEN) != 0) {
            op->cuts[kept++] = op->cuts[i];
        }
    }
    op->n_cuts = kept;
    return 0;
}

/* The cuts are optional: when they and a large group's key rotation would not fit in one op,
 * the removal goes without them (tag 1), judged as before, rather than not at all. */
static void fit_cuts(struct mero_op *op)
{
    struct mero_buf b;
    if (op->n_cuts == 0) {
        return;
    }
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    if (mero_op_encode(op, &b) < 0 || b.len > MERO_GOV_MAX_OP_BYTES) {
        op->n_cuts = 0;
    }
    mero_buf_cleanup(&b);
}

int mero_gov_remove_member(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                           const uint8_t group[static MERO_GROUP_ID_LEN],
                           const uint8_t member[static MERO_IDENTITY_LEN],
                           struct mero_gov_oplist *out, struct mero_err *err)
{
    MERO_TRY(presign_last_admin(s, ns, group, member, err));
    struct mero_op op;
    uint8_t cur[MERO_GROUP_KEY_LEN], cur_id[MERO_KEY_ID_LEN], newkey[MERO_GROUP_KEY_LEN];
    group_op(&op, ns, group, MERO_GROUP_MEMBER_REMOVED);
    memcpy(op.member, member, sizeof(op.member));
    int rc = cuts_of(s, &op);
    if (rc < 0) {
        mero_op_cleanup(&op);
        return mero_err_set(err, -rc, "cannot read the member's writes for the removal's cuts");
    }
    bool rotate = mero_gov_group_key(s, group, cur, cur_id) == 0;
    sodium_memzero(cur, sizeof(cur));
    if (rotate) {
        MERO_TRY_OUT(build_rotation(s, &op, member, newkey, err));
    }
    fit_cuts(&op);
    MERO_TRY_OUT(savepoint(s, err));
    rc = finish(s, publish_removal(s, &op, rotate ? newkey : NULL, out, err), err);
out:
    sodium_memzero(newkey, sizeof(newkey));
    mero_op_cleanup(&op);
    return rc;
}

static int copy_list(struct mero_strlist *dst, const struct mero_strlist *src)
{
    for (uint32_t i = 0; i < src->n; i++) {
        MERO_TRY(mero_strlist_push(dst, src->v[i]));
    }
    return 0;
}

static int copy_policy(struct mero_tee_policy *dst, const struct mero_tee_policy *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->form = src->form;
    /* the TD-attribute knobs travel only in the V3 tags: set when either is not the default */
    dst->v3 = src->allow_sept_ve_enabled || src->allow_service_td;
    dst->v2 = src->v2 || dst->v3;
    dst->mode = src->mode;
    dst->accept_mock = src->accept_mock;
    dst->allow_sept_ve_enabled = src->allow_sept_ve_enabled;
    dst->allow_service_td = src->allow_service_td;
    MERO_TRY(copy_list(&dst->mrtd, &src->mrtd));
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        MERO_TRY(copy_list(&dst->rtmr[i], &src->rtmr[i]));
    }
    MERO_TRY(copy_list(&dst->tcb, &src->tcb));
    MERO_TRY(copy_list(&dst->profiles, &src->profiles));
    if (src->min_release != NULL) {
        size_t n = strlen(src->min_release);
        dst->min_release = malloc(n + 1);
        if (dst->min_release == NULL) {
            return -MERO_ENOMEM;
        }
        memcpy(dst->min_release, src->min_release, n + 1);
    }
    return 0;
}

/* What a policy's mode switch converts: TEE rows move to `want`; the counts of rows converted
 * and of rows left (in groups we do not administer). */
struct conversion {
    int want;
    size_t converted, skipped;
};

/* MemberRoleSet for every direct TEE row of group not in cv->want, when we administer it. */
static int convert_group(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN],
                         const uint8_t us[MERO_IDENTITY_LEN], struct conversion *cv,
                         struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_gov_member *m = NULL;
    size_t n = 0;
    bool admin = false;
    MERO_TRY(mero_gov_members(s, group, &m, &n));
    int rc = 0;
    MERO_TRY_OUT(mero_gov_is_admin(s, group, us, &admin));
    for (size_t i = 0; i < n; i++) {
        if (!m[i].tee || m[i].role == cv->want) {
            continue;
        }
        if (!admin) {
            char h[MERO_HEX_SIZE(8)];
            mero_hex_encode(h, group, 8);
            mero_log(MERO_LOG_INFO,
                     "gov: TEE row in restricted subgroup %s left for its admin to convert", h);
            cv->skipped++;
            continue;
        }
        MERO_TRY_OUT(publish_member_op(s, ns, group, MERO_GROUP_MEMBER_ROLE_SET, m[i].id, cv->want,
                                       out, err));
        cv->converted++;
    }
out:
    free(m);
    return rc;
}

/* Inside the action's savepoint: publish the policy, then convert the TEE rows of every group
 * of the namespace to the role its mode names. */
static int publish_policy(struct mero_store *s, struct mero_op *op, struct conversion *cv,
                          struct mero_gov_oplist *out, struct mero_err *err)
{
    uint8_t(*groups)[MERO_GROUP_ID_LEN] = NULL, us[MERO_IDENTITY_LEN];
    size_t ng = 0;
    MERO_TRY(mero__gov_publish(s, op, out, err));
    MERO_TRY(mero_gov_identity(s, op->ns, false, us, err));
    MERO_TRY(mero_gov_groups(s, op->ns, &groups, &ng));
    int rc = 0;
    for (size_t g = 0; g < ng; g++) {
        MERO_TRY_OUT(convert_group(s, op->ns, groups[g], us, cv, out, err));
    }
out:
    free(groups);
    return rc;
}

int mero_gov_set_policy(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                        const struct mero_tee_policy *policy, struct mero_gov_oplist *out,
                        size_t *converted, size_t *skipped, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    MERO_ENSURE(mero_gov_namespace_of(s, group, ns) == 0, err, MERO_ENOTFOUND, "unknown group");
    MERO_TRY(mero_tee_policy_validate(policy, err));
    struct conversion cv = {.want = mero_tee_mode_role(policy->mode)};
    struct mero_op op;
    group_op(&op, ns, group, 0);
    bool v2 = policy->v2 || policy->allow_sept_ve_enabled || policy->allow_service_td;
    if (policy->form == MERO_POLICY_MEASUREMENT) {
        op.kind = v2 ? MERO_GROUP_TEE_POLICY_SET_V2 : MERO_GROUP_TEE_POLICY_SET;
    } else {
        op.kind = v2 ? MERO_GROUP_TEE_RELEASE_POLICY_SET_V2 : MERO_GROUP_TEE_RELEASE_POLICY_SET;
    }
    int rc = copy_policy(&op.policy, policy);
    MERO_ENSURE_OUT(rc >= 0, err, -rc, "could not copy the policy");
    MERO_TRY_OUT(savepoint(s, err));
    MERO_TRY_OUT(finish(s, publish_policy(s, &op, &cv, out, err), err));
    if (converted != NULL) {
        *converted = cv.converted;
    }
    if (skipped != NULL) {
        *skipped = cv.skipped;
    }
out:
    mero_op_cleanup(&op);
    return rc;
}

int mero_gov_create_context(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                            const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t application_id[static MERO_APP_ID_LEN],
                            uint8_t context_out[static MERO_CONTEXT_ID_LEN],
                            struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_op op;
    group_op(&op, ns, group, MERO_GROUP_CONTEXT_CREATED);
    mero_random(op.context_id, sizeof(op.context_id));
    memcpy(op.application_id, application_id, sizeof(op.application_id));
    int rc = 0;
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
    memcpy(context_out, op.context_id, sizeof(op.context_id));
out:
    mero_op_cleanup(&op);
    return rc;
}

int mero_gov_set_auto_follow(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                             const uint8_t group[static MERO_GROUP_ID_LEN],
                             const uint8_t member[static MERO_IDENTITY_LEN], bool contexts,
                             bool subgroups, struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_op op;
    group_op(&op, ns, group, MERO_GROUP_MEMBER_SET_AUTO_FOLLOW);
    memcpy(op.member, member, sizeof(op.member));
    op.follow_contexts = contexts;
    op.follow_subgroups = subgroups;
    int rc = mero__gov_publish(s, &op, out, err);
    mero_op_cleanup(&op);
    return rc;
}

int mero_gov_deliver_key(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                         const uint8_t group[static MERO_GROUP_ID_LEN],
                         const uint8_t member[static MERO_IDENTITY_LEN],
                         struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_op op;
    uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN], sk[MERO_ED25519_SK_LEN];
    MERO_ENSURE(mero_gov_group_key(s, group, key, id) == 0, err, MERO_ENOTFOUND,
                "we hold no key for this group");
    mero_op_init(&op);
    int rc = 0;
    MERO_ENSURE_OUT(mero_gov_identity_secret(s, ns, sk) == 0, err, MERO_ENOTFOUND,
                    "we hold no identity in this namespace");
    memcpy(op.ns, ns, sizeof(op.ns));
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_KEY_DELIVERY;
    memcpy(op.kd_group, group, sizeof(op.kd_group));
    MERO_TRY_OUT(mero_envelope_wrap(&op.envelope, group, member, sk, key, err));
    sodium_memzero(key, sizeof(key));
    sodium_memzero(sk, sizeof(sk));
    MERO_TRY_OUT(mero__gov_publish(s, &op, out, err));
out:
    sodium_memzero(key, sizeof(key));
    sodium_memzero(sk, sizeof(sk));
    mero_op_cleanup(&op);
    return rc;
}
