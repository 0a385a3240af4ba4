/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chain_internal.h - issue 30: each author's chain of direct deltas in a context, and what a
 * removal's cuts vouch for (chain.c). Private to src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_CHAIN_H
#define MERO_NODE_CONTEXT_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/op.h"
#include "mero/sizes.h"
#include "node/context/codec_internal.h"

struct mero_node;

/* Record d's link (a version-3 delta; others have none) in ctx_chain, inside the caller's
 * transaction; a new link moves node->ctx_chain_gen. */
MERO_MUST_CHECK int mero__ctx_chain_note(struct mero_node *node, const struct mero_ctx_delta *d,
                                         const uint8_t hash[MERO_DELTA_ID_LEN]);
/* author's newest delta in ctx held here (greatest lamport, then hash), zero when none. */
MERO_MUST_CHECK int mero__ctx_chain_head(struct mero_node *node,
                                         const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                         const uint8_t author[MERO_IDENTITY_LEN],
                                         uint8_t head[MERO_DELTA_ID_LEN]);
/* *yes = d (hash) is a version-3 delta that an effective removal of its author vouches for: the
 * head of one of its cuts for d's context, or reached from one through held prev links of the
 * same author and context, each of a smaller lamport than the one before. */
MERO_MUST_CHECK int mero__ctx_vouched(struct mero_node *node,
                                      const uint8_t group[MERO_GROUP_ID_LEN],
                                      const struct mero_ctx_delta *d,
                                      const uint8_t hash[MERO_DELTA_ID_LEN], bool *yes);
/* Free the vouch cache (ctx close). */
void mero__ctx_vouch_free(struct mero_node *node);

#endif
