/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relay.c - the relay's use case (issue 15, docs/relay.md "The intents route"): a member's
 * signed intent, submitted to this node, becomes a relayed delta (context.c, version 2) that
 * carries it, signed by this node as executor, applied through the one apply path and gossiped.
 *
 * Invariant: an intent is relayed only when this node may relay in the context's group
 * (mero_gov_relay_standing: RelayTee by its namespace root row, reaching the group) and the
 * intent passes mero_node_relay_check at this node's clock, the same check every peer makes at
 * the cut; the answer is 0 only once the delta is committed here. A ReadOnlyTee answers the
 * reference's text; a node that is no TEE of the namespace refuses too (it cannot carry a
 * member's write under its own name). Nothing is stored or published for a refusal (except the
 * test-only force path, which skips the checks and publishes so peers' refusal can be tested).
 * Issue 30: an intent already counted here is answered with the copy that counts (200, the same
 * intent id), never carried a second time by this relay; one whose (author, nonce) names another
 * intent counted here is a replay (409).
 */
#include <string.h>

#include "mero/clock.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/node.h"
#include "node/context_internal.h"
#include "node/node_internal.h"

/* This node's own standing as a relay in group (0, or a 403 with the text users see). */
static int own_standing(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t group[MERO_GROUP_ID_LEN], struct mero_err *err)
{
    uint8_t me[MERO_IDENTITY_LEN];
    int standing = MERO_ROLE_NONE;
    bool yes = false;
    if (mero_gov_identity(node->store, ns, false, me, NULL) < 0 ||
        mero_gov_relay_standing(node->store, group, me, &standing, &yes) < 0) {
        standing = MERO_ROLE_NONE;
        yes = false;
    }
    if (yes) {
        return 0;
    }
    if (standing == MERO_ROLE_READONLY_TEE) {
        return mero_err_set(err, MERO_EREADONLY, "%s", MERO_NODE_RELAY_REPLICA_MSG);
    }
    if (standing == MERO_ROLE_RELAY_TEE) {
        return mero_err_set(err, MERO_EPERM,
                            "this relay does not reach the context's group (no row there nor in "
                            "an ancestor reached through Open subgroups)");
    }
    return mero_err_set(err, MERO_EPERM, "%s", MERO_NODE_RELAY_NOT_TEE_MSG);
}

int mero_node_relay_intent(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                           const uint8_t *intent, size_t len, bool force,
                           struct mero_node_relayed *out, struct mero_err *err)
{
    struct mero_intent it;
    struct mero_err e = {0};
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN], me[MERO_IDENTITY_LEN];
    if (mero_intent_decode(intent, len, &it, &e) < 0) {
        return mero_err_set(err, MERO_EINVAL, "the intent does not decode: %s", e.msg);
    }
    MERO_ENSURE(memcmp(it.context, ctx, MERO_CONTEXT_ID_LEN) == 0, err, MERO_EINVAL,
                "the intent is for another context than the one in the path");
    MERO_ENSURE(mero_node_ctx_lookup(node, ctx, ns, group) == 0, err, MERO_ENOTFOUND,
                "context not found");
    uint64_t now = mero_now_unix();
    if (!force) {
        MERO_TRY(own_standing(node, ns, group, err));
        MERO_ENSURE(mero_gov_identity(node->store, ns, false, me, NULL) == 0, err, MERO_EPERM, "%s",
                    MERO_NODE_RELAY_NOT_TEE_MSG);
        /* issue 30: an intent already counted here (a client's retry, another relay's copy)
         * has taken effect; the answer names the copy that counts, nothing new is made */
        uint8_t iid[MERO_INTENT_ID_LEN];
        bool held = false;
        MERO_ENSURE(mero_intent_id(&it, iid) == 0 &&
                        mero_node_ctx_intent_held(node, iid, out->delta_id, &held) == 0,
                    err, MERO_EIO, "cannot read the intents held");
        if (held) {
            memcpy(out->intent_id, iid, sizeof(out->intent_id));
            memcpy(out->author, it.author, sizeof(out->author));
            return 0;
        }
        MERO_TRY(mero_node_relay_check(node, group, ctx, me, it.author, now, &it, NULL, err));
    }
    MERO_TRY(mero_node_ctx_put_relayed(node, ctx, ns, group, it.author, now, intent, len, force,
                                       out->delta_id, err));
    MERO_TRY(mero_intent_id(&it, out->intent_id));
    memcpy(out->author, it.author, sizeof(out->author));
    return 0;
}
