/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kept_internal.h - issue 30: deltas kept without effect (kept.c), as apply.c calls it. Private
 * to src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_KEPT_H
#define MERO_NODE_CONTEXT_KEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "node/context/codec_internal.h"

struct mero_node;

/* *yes = d (of group, in ns), refused for the state of governance, is one a right lost explains:
 * its author is a principal of ns (it held a row, or a stored op names it) with no effective
 * role in group now (removed, left); a relayed delta's executor, a principal too, relays there
 * no longer (removed, or converted back to replica). A stranger, a ReadOnly member or a TEE
 * writing in its own name explains nothing: their deltas are only remembered (refused.c). */
MERO_MUST_CHECK int mero__ctx_keepable(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                       const uint8_t group[MERO_GROUP_ID_LEN],
                                       const struct mero_ctx_delta *d, bool *yes);
/* Keep d (bytes[0..len), its hash), just refused for the state of governance, without effect
 * when keepable and it raises its context's clock within the step bound: stored with applied =
 * MERO_CTX_KEPT, the clock raised to its lamport, in one transaction (a savepoint inside an open
 * one). *kept says whether it was; a store error is the return. */
MERO_MUST_CHECK int mero__ctx_keep(struct mero_node *node, const uint8_t *bytes, size_t len,
                                   const uint8_t hash[MERO_DELTA_ID_LEN],
                                   const struct mero_ctx_delta *d, const uint8_t ns[MERO_NS_ID_LEN],
                                   const uint8_t group[MERO_GROUP_ID_LEN], bool *kept);

#endif
