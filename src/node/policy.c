/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.c - the node side of the TEE admission policy (spec "The admission policy"): gov
 * re-validates a struct mero_tee_policy, signs the TeeAdmissionPolicySet op (V2 with the mode;
 * the release form when the policy names release profiles) on the namespace root and applies
 * it, and the node publishes it. A subgroup target is refused (spec: the policy lives on the
 * root; subgroups resolve to it). Reading returns the last policy op through gov, or found =
 * false when there is none.
 *
 * Invariant: domain values only (struct mero_tee_policy, mero_err codes); the API owns the
 * request and response shapes (api/policy_json.c).
 */
#include <string.h>

#include "mero/gov.h"
#include "mero/node.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

int mero_node_policy_set(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                         const struct mero_tee_policy *p, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "group not found");
    MERO_ENSURE(memcmp(ns, group, sizeof(ns)) == 0, err, MERO_EINVAL,
                "the TEE admission policy is set on the namespace root, not a subgroup");
    struct mero_gov_oplist ops = {0};
    int rc = mero_gov_set_policy(node->store, group, p, &ops, NULL, NULL, err);
    if (rc == 0) {
        (void)mero__node_publish_ops(node, ns, &ops);
    }
    mero_gov_oplist_cleanup(&ops);
    return rc;
}

int mero_node_policy_get(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                         struct mero_tee_policy *p, bool *found, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    memset(p, 0, sizeof(*p));
    *found = false;
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "group not found");
    return mero_gov_read_policy(node->store, group, p, found, err);
}
