/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock_internal.h - the context clock's table (clock.c; the bound itself, mero__lamport_*, is in
 * context_internal.h). Private to src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_CLOCK_H
#define MERO_NODE_CONTEXT_CLOCK_H

#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

struct mero_node;

/* The context's clock: the greatest lamport admitted in ctx here (0 for none). */
MERO_MUST_CHECK int mero__ctx_clock_of(struct mero_node *node,
                                       const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t *clock);
/* Raise ctx's clock to l (l <= MERO_LAMPORT_MAX, checked by mero__ctx_decode). */
MERO_MUST_CHECK int mero__ctx_clock_raise(struct mero_node *node,
                                          const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t l);

#endif
