/* SPDX-License-Identifier: Apache-2.0 */
/*
 * subgroup_admit.c - the node's use cases of a TEE's reach over subgroups (issue 16;
 * docs/admission.md "Reach"):
 *  - tee-admit: an admin of a Restricted (or Open) subgroup admits a TEE already admitted at
 *    the namespace root into it (gov's tee_subgroup_admit: the root admission carried inward,
 *    the subgroup key delivered), and publishes the ops;
 *  - a new Open subgroup's key goes to every member that reaches it (TEEs at the root
 *    included), so they read its contexts from the start;
 *  - removing a TEE row rotates the key of every other group it reached through it (from the
 *    root: every subgroup; the group's own rotation rides on the MemberRemoved itself); a
 *    subgroup we do not administer is logged and left for its admin, as the spec says of
 *    Restricted boundaries.
 *
 * Invariant: every op is produced by gov's own actions (signed as our namespace identity and
 * applied locally first); a refused action publishes nothing; no rotation wraps the new key
 * for the removed TEE.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/node.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

int mero_node_subgroup_tee_admit(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                                 const uint8_t id[MERO_IDENTITY_LEN], int *outcome,
                                 struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_gov_oplist ops = {0};
    int out = MERO_ADMIT_NOT_A_VOUCHER;
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "group not found");
    int rc =
        mero_gov_subgroup_admit(node->store, ns, group, id, (uint64_t)time(NULL), &out, &ops, err);
    if (rc == 0 && out == MERO_ADMIT_NOT_A_VOUCHER) {
        rc = mero_err_set(err, MERO_ENOTADMIN, "this node is not an admin of the subgroup");
    }
    if (rc == 0) {
        (void)mero__node_publish_ops(node, ns, &ops);
        *outcome = out;
    }
    mero_gov_oplist_cleanup(&ops);
    return rc;
}

void mero__node_reach_subgroup_created(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                       const uint8_t group[MERO_GROUP_ID_LEN])
{
    uint8_t parent[MERO_GROUP_ID_LEN], us[MERO_IDENTITY_LEN];
    int vis;
    struct mero_gov_member *m = NULL;
    size_t n = 0;
    if (mero_gov_group_info(node->store, group, parent, &vis) < 0 || vis != MERO_GROUP_OPEN ||
        mero_gov_identity(node->store, ns, false, us, NULL) < 0 ||
        mero_gov_reach_members(node->store, group, &m, &n) < 0) {
        return; /* a Restricted subgroup is reached only by its own rows */
    }
    struct mero_gov_oplist ops = {0};
    for (size_t i = 0; i < n; i++) {
        struct mero_err e = {0};
        if (memcmp(m[i].id, us, sizeof(us)) == 0) {
            continue;
        }
        if (mero_gov_deliver_key(node->store, ns, group, m[i].id, &ops, &e) < 0) {
            MERO_WARN("subgroup key not delivered to a member reaching it: %s", e.msg);
        }
    }
    (void)mero__node_publish_ops(node, ns, &ops);
    mero_gov_oplist_cleanup(&ops);
    free(m);
}

int mero__node_reach_before_removal(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                    const uint8_t group[MERO_GROUP_ID_LEN],
                                    const uint8_t id[MERO_IDENTITY_LEN],
                                    uint8_t (**reached)[MERO_GROUP_ID_LEN], size_t *n)
{
    int role = MERO_ROLE_NONE;
    *reached = NULL;
    *n = 0;
    if (mero_gov_direct_role(node->store, group, id, &role) < 0 || !mero_role_is_tee(role)) {
        return 0; /* only a TEE row's removal reaches beyond its group */
    }
    return mero_gov_reached_groups(node->store, ns, id, reached, n);
}

void mero__node_reach_after_removal(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                    const uint8_t group[MERO_GROUP_ID_LEN],
                                    const uint8_t id[MERO_IDENTITY_LEN],
                                    const uint8_t (*reached)[MERO_GROUP_ID_LEN], size_t n)
{
    struct mero_gov_oplist ops = {0};
    for (size_t i = 0; i < n; i++) {
        struct mero_err e = {0};
        char h[MERO_HEX_SIZE(8)];
        int still = MERO_ROLE_NONE;
        if (memcmp(reached[i], group, MERO_GROUP_ID_LEN) == 0) {
            continue; /* the removal's own group: its key rotated with the MemberRemoved */
        }
        if (mero_gov_reach_role(node->store, reached[i], id, &still) == 0 &&
            still != MERO_ROLE_NONE) {
            continue; /* reached through another row it keeps (a subgroup-only removal) */
        }
        mero_hex_encode(h, reached[i], 8);
        int rc = mero_gov_rotate_key(node->store, ns, reached[i], id, &ops, &e);
        if (rc == -MERO_ENOTADMIN) {
            MERO_INFO("removed TEE reached subgroup %s…, which this node does not administer: its "
                      "key rotation is left for that subgroup's admin",
                      h);
        } else if (rc < 0) {
            MERO_WARN("subgroup %s… key not rotated after the TEE's removal: %s", h, e.msg);
        } else {
            MERO_INFO("subgroup %s… key rotated after the TEE's removal", h);
        }
    }
    (void)mero__node_publish_ops(node, ns, &ops);
    mero_gov_oplist_cleanup(&ops);
}
