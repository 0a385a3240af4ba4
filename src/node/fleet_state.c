/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleet_state.c - the read-only view of a namespace's op log that a fleet check compares
 * across nodes (issue 20): its DAG heads and how many ops are stored. Two nodes holding the
 * same op set report the same sorted heads and the same count.
 *
 * Invariant: reads only; the heads come sorted from gov (mero_gov_heads), so equal sets give
 * byte-equal answers.
 */
#include <stdlib.h>

#include "mero/gov.h"
#include "mero/node.h"
#include "node/node_internal.h"

int mero_node_ns_log_state(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                           uint8_t (**heads)[MERO_OP_ID_LEN], size_t *nheads, uint64_t *nops)
{
    *heads = NULL;
    *nheads = 0;
    MERO_TRY(mero_gov_op_count(node->store, ns, nops));
    return mero_gov_heads(node->store, ns, heads, nheads);
}
