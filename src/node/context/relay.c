/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relay.c - who may write in a context, and every relay rule (issue 15, docs/relay.md "The
 * relayed delta"): the author's role (mero__ctx_may_author, every write), this node's own
 * standing as a relay (the intents route), and the one check a relayed write passes
 * (mero__ctx_relay_check), which the apply path calls at the cut and the intents route calls
 * before it relays (mero__node_relay_check).
 *
 * Invariants (spec "Read-only for its own writes"): an author whose effective role in the
 * context's group is ReadOnly, ReadOnlyTee, RelayTee, any TEE row, or none may not write. Every
 * peer refuses a relayed delta (nothing takes effect; issue 30: kept without effect when its
 * author and executor are principals and it raises the clock, kept.c) unless the executor may
 * relay in the context's group (mero_gov_relay_standing) and the author may write there; once the
 * plaintext is at hand (at once, or when the key arrives for a delta held for it, which is then
 * deleted if refused) the
 * intent must verify, name this namespace, context and author, be a put, be live at relayed_at,
 * and let this executor carry it. Only the intents route refuses a replay (an (author, nonce)
 * another intent holds, intent.c); at the cut a second copy of an intent is counted, not
 * refused (issue 30). A refusal says whether its reason is the state of governance (for now)
 * or the delta's own bytes (for good), for the memory of refusals (refused.c).
 */
#include <string.h>

#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/node.h"
#include "node/context/chain_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/relay_internal.h"
#include "node/node_internal.h"

/* 0 when role may author state deltas (spec "Read-only for its own writes"). */
int mero__ctx_may_author(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                         const uint8_t who[MERO_IDENTITY_LEN], struct mero_err *err)
{
    int role = MERO_ROLE_NONE, tee = MERO_ROLE_NONE;
    MERO_TRY(mero_gov_effective_role(node->store, group, who, &role));
    if (mero_gov_executor_standing(node->store, group, who, &tee) < 0) {
        tee = MERO_ROLE_NONE;
    }
    if (role == MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_EPERM, "author is not a member of the context's group");
    }
    if (role == MERO_ROLE_READONLY || role == MERO_ROLE_READONLY_TEE ||
        role == MERO_ROLE_RELAY_TEE || tee != MERO_ROLE_NONE) {
        return mero_err_set(err, MERO_EREADONLY, "ReadOnlyWriteRefused");
    }
    return 0;
}

/* This node's own standing as a relay in group (0, or a 403 with the text users see). */
int mero__ctx_relay_own(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
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

/* issue 15: 0 when executor may relay in group (mero_gov_relay_standing), else a refusal. */
static int executor_ok(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                       const uint8_t executor[MERO_IDENTITY_LEN], struct mero_err *err)
{
    int standing = MERO_ROLE_NONE;
    bool yes = false;
    char who[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    if (mero_gov_relay_standing(node->store, group, executor, &standing, &yes) < 0) {
        yes = false;
    }
    if (yes) {
        return 0;
    }
    mero_hex_encode(who, executor, MERO_IDENTITY_LEN);
    return mero_err_set(err, MERO_EREFUSED,
                        "the executor %.16s… may not relay in the context's group (%s)", who,
                        standing == MERO_ROLE_READONLY_TEE ? "its root row is ReadOnlyTee"
                        : standing == MERO_ROLE_RELAY_TEE  ? "it does not reach the group"
                                                           : "it is not a TEE of the namespace");
}

/*
 * The checks of a relayed write (mero__node_relay_check; route: the intents route's form; it
 * NULL: the clear header only, before anything is stored). A refusal sets *for_now when its
 * reason is the state of governance (the executor's standing, the author's role, the group):
 * that may change. Every other reason depends only on the intent and the delta's clear header,
 * so it holds for good (issue 30, refused.c).
 */
int mero__ctx_relay_check(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          const uint8_t executor[MERO_IDENTITY_LEN],
                          const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                          const struct mero_intent *it, bool route, struct mero_err *err,
                          bool *for_now)
{
    uint8_t ns[MERO_NS_ID_LEN], id[MERO_INTENT_ID_LEN];
    struct mero_err e = {0};
    bool taken = false;
    *for_now = true;
    MERO_TRY(executor_ok(node, group, executor, err));
    if (it == NULL) {
        return 0; /* the clear header's check (the apply path, key or not) */
    }
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "the context's group is unknown");
    *for_now = false;
    MERO_ENSURE(mero_intent_verify(it, NULL) == 0, err, MERO_EREFUSED,
                "the intent's signature does not verify");
    MERO_ENSURE(memcmp(it->ns, ns, sizeof(ns)) == 0, err, MERO_EINVAL,
                "the intent is for another namespace than the context's");
    MERO_ENSURE(memcmp(it->context, ctx, MERO_CONTEXT_ID_LEN) == 0, err, MERO_EINVAL,
                "the intent is for another context");
    MERO_ENSURE(memcmp(it->author, author, MERO_IDENTITY_LEN) == 0, err, MERO_EREFUSED,
                "the delta's author is not the intent's signer");
    *for_now = true;
    MERO_TRY(mero__ctx_may_author(node, group, it->author, err));
    *for_now = false;
    MERO_ENSURE(it->op == MERO_INTENT_PUT, err, MERO_EUNSUPPORTED,
                "the intent deletes a key; contexts have no delete yet");
    if (mero_intent_live_at(it, relayed_at, &e) < 0) {
        return mero_err_set(err, MERO_EREFUSED, "the intent is not live at %llu: %s",
                            (unsigned long long)relayed_at, e.msg);
    }
    MERO_ENSURE(mero_intent_warrant_allows(it, executor), err, MERO_EREFUSED,
                "the intent's warrant names another relay");
    if (!route) {
        return 0; /* at the cut a second copy of an intent is counted, not refused */
    }
    MERO_ENSURE(mero_intent_id(it, id) == 0 &&
                    mero__node_ctx_intent_nonce_taken(node, it, id, &taken) == 0,
                err, MERO_EIO, "cannot read the intents held");
    MERO_ENSURE(!taken, err, MERO_EEXIST,
                "replayed intent: its (author, nonce) was already carried by another intent");
    return 0;
}

int mero__ctx_may_carry(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                        const struct mero_ctx_delta *d, const uint8_t hash[MERO_DELTA_ID_LEN],
                        struct mero_err *err, bool *vouched)
{
    bool for_now = false;
    *vouched = false;
    int rc = mero__ctx_may_author(node, group, d->author, err);
    if (rc == -MERO_EPERM && d->version == MERO_DELTA_CHAINED_VERSION) {
        /* issue 30: its author has no role here now (never a ReadOnly one): a removal's cut may
         * vouch for it (chain.c); else the refusal stands */
        if (mero__ctx_vouched(node, group, d, hash, vouched) == 0 && *vouched) {
            mero_err_clear(err);
            return 0;
        }
    }
    MERO_TRY(rc);
    if (d->version != MERO_DELTA_RELAYED_VERSION) {
        return 0;
    }
    return mero__ctx_relay_check(node, group, d->ctx, d->executor, d->author, d->relayed_at, NULL,
                                 false, err, &for_now);
}

int mero__node_relay_check(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                           const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                           const uint8_t executor[MERO_IDENTITY_LEN],
                           const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                           const struct mero_intent *it, const uint8_t *hash, struct mero_err *err)
{
    bool for_now = false;
    return mero__ctx_relay_check(node, group, ctx, executor, author, relayed_at, it, hash == NULL,
                                 err, &for_now);
}
