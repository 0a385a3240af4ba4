/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reach.c - the actions on a member's reach over the groups of a namespace (spec "Converting
 * TEEs already admitted", "Key delivery"; docs/admission.md "Reach"; the reach role and sets
 * themselves are read by reach_role.c):
 *  - the key history of a group (newest first), and storing a pulled older key as past;
 *  - tee_subgroup_admit: the TEE's root admission carried into a subgroup;
 *  - a key rotation outside MemberRemoved: a fresh key, delivered by KeyDelivery to every
 *    member the group reaches except one.
 *
 * Invariants: reach never crosses a Restricted boundary; a pulled past key never becomes the
 * current key of a group for which one is held; a rotation never wraps the new key for the
 * excluded member; secrets are wiped after use.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/keys.h"
#include "mero/log.h"

static const char SQL_KEY_IDS[] = "SELECT key_id FROM group_keys WHERE grp = ? ORDER BY seq DESC";
static const char SQL_KEY_PAST[] =
    "INSERT OR IGNORE INTO group_keys(grp, key_id, key, seq)"
    " VALUES(?1, ?2, ?3, (SELECT IFNULL(MIN(seq), 1) - 1 FROM group_keys WHERE grp = ?1))";

int mero_gov_group_key_ids(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                           uint8_t (**out)[MERO_KEY_ID_LEN], size_t *n)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_IDS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    uint8_t(*v)[MERO_KEY_ID_LEN] = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_bytes(st, 0) != MERO_KEY_ID_LEN) {
            continue;
        }
        if (cnt == cap) {
            cap = cap ? cap * 2 : 8;
            uint8_t(*nv)[MERO_KEY_ID_LEN] = realloc(v, cap * sizeof(*v));
            MERO_ENSURE_OUT(nv != NULL, NULL, MERO_ENOMEM, "out of memory");
            v = nv;
        }
        memcpy(v[cnt++], sqlite3_column_blob(st, 0), sizeof(*v));
    }
    MERO_ENSURE_OUT(step == SQLITE_DONE, NULL, MERO_EIO, "group_keys scan");
    *out = v;
    *n = cnt;
    v = NULL;
out:
    sqlite3_reset(st);
    free(v);
    return rc;
}

int mero_gov_group_key_put_past(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                                const uint8_t key[static MERO_GROUP_KEY_LEN])
{
    uint8_t cur[MERO_GROUP_KEY_LEN], cur_id[MERO_KEY_ID_LEN], id[MERO_KEY_ID_LEN];
    bool held = mero_gov_group_key(s, group, cur, cur_id) == 0;
    sodium_memzero(cur, sizeof(cur));
    if (!held) {
        return mero_gov_group_key_put(s, group, key); /* the only key: it is the current one */
    }
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_KEY_PAST);
    if (st == NULL) {
        return -MERO_EIO;
    }
    mero_group_key_id(id, key);
    sqlite3_bind_blob(st, 1, group, MERO_GROUP_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, id, sizeof(id), SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, key, MERO_GROUP_KEY_LEN, SQLITE_STATIC);
    MERO_TRY(mero__gov_step_done(st));
    mero__gov_unseal(s);
    return 0;
}

/* The root admission (RootOp::MemberJoinedViaTeeAttestation) that gave member its root row
 * with quote hash qh: decoded into *op (clean it up), or -MERO_ENOTFOUND. */
static const char SQL_NS_OPS[] = "SELECT bytes FROM ops WHERE ns = ? ORDER BY seq";

static int root_admission(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN],
                          const uint8_t qh[MERO_QUOTE_HASH_LEN], struct mero_op *op)
{
    sqlite3_stmt *st = mero__gov_stmt(s, SQL_NS_OPS);
    if (st == NULL) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND;
    while (rc == -MERO_ENOTFOUND && sqlite3_step(st) == SQLITE_ROW) {
        const uint8_t *p = sqlite3_column_blob(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        mero_op_init(op);
        if (p != NULL && mero_op_decode(p, len, op, NULL) == 0 && op->scope == MERO_SCOPE_ROOT &&
            op->kind == MERO_ROOT_MEMBER_JOINED_TEE &&
            memcmp(op->join.member, member, MERO_IDENTITY_LEN) == 0 &&
            memcmp(op->join.quote_hash, qh, MERO_QUOTE_HASH_LEN) == 0 && op->join.quote != NULL) {
            rc = 0;
            break;
        }
        mero_op_cleanup(op);
    }
    sqlite3_reset(st);
    return rc;
}

int mero_gov_subgroup_admit(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                            const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t member[static MERO_IDENTITY_LEN], uint64_t now,
                            int *outcome, struct mero_gov_oplist *out, struct mero_err *err)
{
    struct mero_gov_member *m = NULL;
    size_t n = 0;
    uint8_t gns[MERO_NS_ID_LEN];
    MERO_ENSURE(mero_gov_namespace_of(s, group, gns) == 0 && memcmp(gns, ns, sizeof(gns)) == 0, err,
                MERO_ENOTFOUND, "the group is not part of this namespace");
    MERO_ENSURE(memcmp(group, ns, MERO_NS_ID_LEN) != 0, err, MERO_EINVAL,
                "tee-admit names a subgroup; the namespace root admits by fleet-join");
    /* an admin's action (issue 32): a TEE member of the subgroup may vouch there, but it does
     * not pull other TEEs in, whoever holds its host's admin token */
    uint8_t us[MERO_IDENTITY_LEN];
    bool admin = false;
    if (mero__gov_our_pk(s, ns, us)) {
        MERO_TRY(mero_gov_is_admin(s, group, us, &admin));
    }
    MERO_ENSURE(admin, err, MERO_ENOTADMIN, "this node is not an admin of the subgroup");
    MERO_TRY(mero_gov_members(s, ns, &m, &n));
    const struct mero_gov_member *row = NULL;
    for (size_t i = 0; i < n && row == NULL; i++) {
        if (memcmp(m[i].id, member, sizeof(m[i].id)) == 0 && m[i].tee) {
            row = &m[i];
        }
    }
    struct mero_op op;
    int rc = 0;
    mero_op_init(&op);
    MERO_ENSURE_OUT(row != NULL, err, MERO_ESTATE,
                    "the identity is not an admitted TEE of the namespace (no TEE row at its "
                    "root)");
    rc = root_admission(s, ns, member, row->quote_hash, &op);
    MERO_ENSURE_OUT(rc != -MERO_ENOTFOUND, err, MERO_ESTATE,
                    "the TEE's root admission is not in this node's op log");
    MERO_TRY_OUT(rc);
    /* the quote that admitted the TEE at the root, carried inward (spec: tee_subgroup_admit) */
    struct mero_admit_request req;
    memset(&req, 0, sizeof(req));
    memcpy(req.group_id, group, sizeof(req.group_id));
    memcpy(req.member, member, sizeof(req.member));
    req.account = op.join.account;
    memcpy(req.quote_hash, op.join.quote_hash, sizeof(req.quote_hash));
    req.m = op.join.m;
    memcpy(req.tcb_status, op.join.tcb_status, sizeof(req.tcb_status));
    req.is_mock = strcmp(op.join.tcb_status, "Mock") == 0;
    req.quote = op.join.quote;
    req.quote_len = op.join.quote_len;
    req.now = now;
    req.attested_at = now;
    req.has_td = op.join.has_td;
    req.td_attributes = op.join.td_attributes;
    memcpy(req.mrservicetd, op.join.mrservicetd, sizeof(req.mrservicetd));
    rc = mero_gov_admit_tee_node(s, ns, &req, outcome, out, err);
out:
    mero_op_cleanup(&op);
    free(m);
    return rc;
}

int mero_gov_rotate_key(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                        const uint8_t group[static MERO_GROUP_ID_LEN],
                        const uint8_t exclude[static MERO_IDENTITY_LEN],
                        struct mero_gov_oplist *out, struct mero_err *err)
{
    uint8_t us[MERO_IDENTITY_LEN], key[MERO_GROUP_KEY_LEN];
    bool admin = false;
    MERO_ENSURE(mero__gov_our_pk(s, ns, us), err, MERO_ENOTFOUND,
                "we hold no identity in this namespace");
    MERO_TRY(mero_gov_is_admin(s, group, us, &admin));
    MERO_ENSURE(admin, err, MERO_ENOTADMIN, "only an admin of the group rotates its key");
    struct mero_gov_member *m = NULL;
    size_t n = 0;
    MERO_TRY(mero_gov_reach_members(s, group, &m, &n));
    int rc = 0;
    MERO_ENSURE_OUT(mero__gov_exec(s, "SAVEPOINT gov_rotate") == 0, err, MERO_EIO, "savepoint");
    size_t n0 = out != NULL ? out->n : 0;
    mero_group_key_new(key);
    rc = mero__gov_key_put(s, group, key); /* ours first: it is the current key from now on */
    sodium_memzero(key, sizeof(key));
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (memcmp(m[i].id, exclude, sizeof(us)) == 0 || memcmp(m[i].id, us, sizeof(us)) == 0) {
            continue;
        }
        rc = mero_gov_deliver_key(s, ns, group, m[i].id, out, err);
    }
    if (rc < 0) {
        (void)mero__gov_exec(s, "ROLLBACK TO gov_rotate");
        while (out != NULL && out->n > n0) {
            mero_buf_cleanup(&out->v[--out->n]);
        }
    }
    (void)mero__gov_exec(s, "RELEASE gov_rotate");
out:
    free(m);
    return rc;
}

int mero__gov_deliver_reach_keys(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                                 const uint8_t done[MERO_GROUP_ID_LEN],
                                 const uint8_t member[MERO_IDENTITY_LEN],
                                 struct mero_gov_oplist *out)
{
    uint8_t(*g)[MERO_GROUP_ID_LEN] = NULL;
    uint8_t us[MERO_IDENTITY_LEN], key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
    size_t n = 0;
    if (!mero__gov_our_pk(s, ns, us)) {
        return 0;
    }
    MERO_TRY(mero_gov_reached_groups(s, ns, member, &g, &n));
    for (size_t i = 0; i < n; i++) {
        bool vouch = false;
        if (memcmp(g[i], done, MERO_GROUP_ID_LEN) == 0 ||
            mero_gov_may_vouch(s, g[i], us, &vouch) < 0 || !vouch ||
            mero_gov_group_key(s, g[i], key, id) < 0) {
            continue; /* its key went with the admission; a key we may not deliver */
        }
        sodium_memzero(key, sizeof(key));
        struct mero_err e = {0};
        if (mero_gov_deliver_key(s, ns, g[i], member, out, &e) < 0) {
            mero_log(MERO_LOG_WARN, "gov: subgroup KeyDelivery not published: %s", e.msg);
        }
    }
    free(g);
    return 0;
}
