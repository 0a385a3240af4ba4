/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.c - this node's own writes: a put by the API (mero_node_ctx_put), and a member's signed
 * intent relayed by this node (issue 15, docs/relay.md "The intents route": mero_node_relay_intent
 * and mero__node_ctx_put_relayed). Each builds its delta (codec.c) at the context's clock + 1,
 * signed by this node, applies it through the one apply path (apply.c) and gossips it.
 *
 * Invariants: a local write is committed (synchronous=FULL) and is the key's current value
 * before the API acknowledges it (a write that would not win is refused, WriteSuperseded). An
 * intent is relayed only when this node may relay in the context's group
 * (mero_gov_relay_standing: RelayTee by its namespace root row, reaching the group) and the
 * intent passes mero__node_relay_check at this node's clock, the same check every peer makes at
 * the cut; the answer is 0 only once the delta is committed here. A ReadOnlyTee answers the
 * reference's text; a node that is no TEE of the namespace refuses too (it cannot carry a
 * member's write under its own name). Nothing is stored or published for a refusal (except the
 * test-only force path, which skips the checks and publishes so peers' refusal can be tested).
 * Issue 30: an intent already counted here is answered with the copy that counts (200, the same
 * intent id), never carried a second time by this relay; one whose (author, nonce) names another
 * intent counted here is a replay (409).
 */
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/intent.h"
#include "mero/node.h"
#include "node/context/clock_internal.h"
#include "node/context/codec_internal.h"
#include "node/context/chain_internal.h"
#include "node/context/context_internal.h"
#include "node/context/relay_internal.h"
#include "node/context/store_internal.h"
#include "node/node_internal.h"
#include "node/topic_internal.h"

/* 0 when the delta (lamport, hash) is or would become key's current value; otherwise
 * -MERO_ESUPERSEDED with the current value's author and clock in err. */
static int wins(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                uint64_t lamport, const uint8_t hash[MERO_DELTA_ID_LEN], struct mero_err *err)
{
    uint64_t cl = 0;
    uint8_t ch[MERO_DELTA_ID_LEN], ca[MERO_IDENTITY_LEN];
    int rc = mero__ctx_current(node, ctx, key, &cl, ch, ca);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot read the key's current value");
    }
    if (rc == 0 || cl < lamport || (cl == lamport && memcmp(ch, hash, MERO_DELTA_ID_LEN) <= 0)) {
        return 0;
    }
    char who[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    mero_hex_encode(who, ca, sizeof(ca));
    return mero_err_set(err, MERO_ESUPERSEDED,
                        "WriteSuperseded: `%s` holds the write of author %s at clock %llu, "
                        "which this write (clock %llu) would not replace; nothing was written",
                        key, who, (unsigned long long)cl, (unsigned long long)lamport);
}

/* The tail of a local write, direct or relayed: apply the built delta through the one apply
 * path, then gossip it (a forced test write is published even when refused here). Frees d. */
static int apply_and_publish(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             struct mero_buf *d, bool force, struct mero_err *err)
{
    struct mero_err aerr = {0};
    int rc = mero__node_ctx_apply(node, d->data, d->len, &aerr);
    if (rc < 0 && !force) {
        mero_buf_cleanup(d);
        return mero_err_set(err, -rc, "%s", aerr.msg);
    }
    (void)mero__node_publish(node, ns, MERO_GOSSIP_DELTA, d->data, d->len);
    mero_buf_cleanup(d);
    return 0;
}

int mero_node_ctx_put(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const char *key, const uint8_t *value, size_t vlen, bool force,
                      uint64_t lamport, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN], me[MERO_IDENTITY_LEN],
        gk[MERO_GROUP_KEY_LEN], key_id[MERO_KEY_ID_LEN];
    if (mero__node_ctx_lookup(node, ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "context not found");
    }
    if (mero_gov_identity(node->store, ns, false, me, err) < 0) {
        return mero_err_set(err, MERO_EPERM, "this node is not a member of the namespace");
    }
    if (!force) {
        MERO_TRY(mero__ctx_may_author(node, group, me, err));
    }
    uint64_t clock = 0;
    if (mero__ctx_clock_of(node, ctx, &clock) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (!force || lamport == 0) {
        if (mero__lamport_next(clock, &lamport) < 0) {
            return mero_err_set(err, MERO_ECLOCK, "the context's clock is exhausted (%llu)",
                                (unsigned long long)clock);
        }
    }
    if (mero_gov_group_key(node->store, group, gk, key_id) < 0) {
        return mero_err_set(err, MERO_ESTATE, "this node holds no key for the context's group");
    }
    uint8_t prev[MERO_DELTA_ID_LEN]; /* issue 30: my previous delta here (zero: none) */
    if (mero__ctx_chain_head(node, ctx, me, prev) < 0) {
        mero_wipe(gk, sizeof(gk));
        return mero_err_set(err, MERO_EIO, "cannot read this node's previous write");
    }
    struct mero_buf d;
    mero_buf_init(&d, MERO_DELTA_MAX);
    int rc = mero__ctx_build_delta(node, ctx, ns, me, lamport, gk, key_id, prev, key, value, vlen,
                                   NULL, &d);
    mero_wipe(gk, sizeof(gk));
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return mero_err_set(err, -rc, "cannot build the delta");
    }
    uint8_t hash[MERO_DELTA_ID_LEN];
    mero_sha256(hash, d.data, d.len);
    rc = force ? 0 : wins(node, ctx, key, lamport, hash, err);
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return rc;
    }
    return apply_and_publish(node, ns, &d, force, err);
}

int mero__node_ctx_put_relayed(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                               const uint8_t ns[MERO_NS_ID_LEN],
                               const uint8_t group[MERO_GROUP_ID_LEN],
                               const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                               const uint8_t *intent, size_t len, bool force,
                               uint8_t id[MERO_DELTA_ID_LEN], struct mero_err *err)
{
    uint8_t me[MERO_IDENTITY_LEN], gk[MERO_GROUP_KEY_LEN], key_id[MERO_KEY_ID_LEN];
    uint64_t clock = 0, lamport = 0;
    if (mero_gov_identity(node->store, ns, false, me, err) < 0) {
        return mero_err_set(err, MERO_EPERM, "this node is not a member of the namespace");
    }
    if (mero__ctx_clock_of(node, ctx, &clock) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot read the context clock");
    }
    if (mero__lamport_next(clock, &lamport) < 0) {
        return mero_err_set(err, MERO_ECLOCK, "the context's clock is exhausted (%llu)",
                            (unsigned long long)clock);
    }
    if (mero_gov_group_key(node->store, group, gk, key_id) < 0) {
        return mero_err_set(err, MERO_ESTATE, "this node holds no key for the context's group");
    }
    struct mero_ctx_relayed rl = {
        .intent = intent, .len = len, .executor = me, .relayed_at = relayed_at};
    struct mero_buf d;
    mero_buf_init(&d, MERO_DELTA_MAX);
    int rc = mero__ctx_build_delta(node, ctx, ns, author, lamport, gk, key_id, NULL, "", NULL, 0,
                                   &rl, &d);
    mero_wipe(gk, sizeof(gk));
    if (rc < 0) {
        mero_buf_cleanup(&d);
        return mero_err_set(err, -rc, "cannot build the relayed delta");
    }
    mero_sha256(id, d.data, d.len);
    return apply_and_publish(node, ns, &d, force, err);
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
    MERO_ENSURE(mero__node_ctx_lookup(node, ctx, ns, group) == 0, err, MERO_ENOTFOUND,
                "context not found");
    uint64_t now = mero_now_unix();
    if (!force) {
        MERO_TRY(mero__ctx_relay_own(node, ns, group, err));
        MERO_ENSURE(mero_gov_identity(node->store, ns, false, me, NULL) == 0, err, MERO_EPERM, "%s",
                    MERO_NODE_RELAY_NOT_TEE_MSG);
        /* issue 30: an intent already counted here (a client's retry, another relay's copy)
         * has taken effect; the answer names the copy that counts, nothing new is made */
        uint8_t iid[MERO_INTENT_ID_LEN];
        bool held = false;
        MERO_ENSURE(mero_intent_id(&it, iid) == 0 &&
                        mero__node_ctx_intent_held(node, iid, out->delta_id, &held) == 0,
                    err, MERO_EIO, "cannot read the intents held");
        if (held) {
            memcpy(out->intent_id, iid, sizeof(out->intent_id));
            memcpy(out->author, it.author, sizeof(out->author));
            return 0;
        }
        MERO_TRY(mero__node_relay_check(node, group, ctx, me, it.author, now, &it, NULL, err));
    }
    MERO_TRY(mero__node_ctx_put_relayed(node, ctx, ns, group, it.author, now, intent, len, force,
                                        out->delta_id, err));
    MERO_TRY(mero_intent_id(&it, out->intent_id));
    memcpy(out->author, it.author, sizeof(out->author));
    return 0;
}
