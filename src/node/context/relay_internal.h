/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relay_internal.h - who may write, and the relay rules (relay.c), as the apply path and this
 * node's own writes call them. Private to src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_RELAY_H
#define MERO_NODE_CONTEXT_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

struct mero_node;
struct mero_intent;
struct mero_ctx_delta;

/* 0 when who's effective role in group may author state deltas (spec "Read-only for its own
 * writes"); else -MERO_EPERM (not a member) or -MERO_EREADONLY with the reason in err. */
MERO_MUST_CHECK int mero__ctx_may_author(struct mero_node *node,
                                         const uint8_t group[MERO_GROUP_ID_LEN],
                                         const uint8_t who[MERO_IDENTITY_LEN],
                                         struct mero_err *err);
/* This node's own standing as a relay in group (0, or a 403 with the text users see). */
MERO_MUST_CHECK int mero__ctx_relay_own(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                        const uint8_t group[MERO_GROUP_ID_LEN],
                                        struct mero_err *err);
/*
 * The one check of a relayed write (mero__node_relay_check is its intents-route form). With it
 * NULL only the delta's clear header is checked (the executor may relay in group), as the apply
 * path does before anything is stored; with the intent, every check, and at the route (route)
 * the replay too. A refusal sets *for_now when its reason is the state of governance.
 */
MERO_MUST_CHECK int mero__ctx_relay_check(struct mero_node *node,
                                          const uint8_t group[MERO_GROUP_ID_LEN],
                                          const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                          const uint8_t executor[MERO_IDENTITY_LEN],
                                          const uint8_t author[MERO_IDENTITY_LEN],
                                          uint64_t relayed_at, const struct mero_intent *it,
                                          bool route, struct mero_err *err, bool *for_now);
/* The governance checks of delta d (hash) in group before anything is stored, key or not: its
 * author may write (mero__ctx_may_author), or (issue 30) an effective removal of its author
 * vouches for it (chain.c; *vouched set), and a relayed one's clear header passes (its executor
 * may relay there). Every refusal is for the state of governance. The apply path and the
 * judging again of kept deltas (kept.c) both ask it. */
MERO_MUST_CHECK int mero__ctx_may_carry(struct mero_node *node,
                                        const uint8_t group[MERO_GROUP_ID_LEN],
                                        const struct mero_ctx_delta *d,
                                        const uint8_t hash[MERO_DELTA_ID_LEN], struct mero_err *err,
                                        bool *vouched);

#endif
