/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snap_internal.h - issue 37: a context's live state as a snapshot (snap.c), shared by the files
 * of node/context/ (apply.c's snapshot mode). What sync.c calls is in context_internal.h.
 */
#ifndef MERO_NODE_CONTEXT_SNAP_H
#define MERO_NODE_CONTEXT_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

struct mero_node;

/* The longest key of a direct write (codec.c's parse refuses a longer one). */
#define MERO_CTX_KEY_MAX 256u

/* How a snapshot's delta is applied (apply.c): inside the snapshot's transaction (a savepoint),
 * its lamport bounded by the snapshot's clock instead of clock + MERO_LAMPORT_STEP, and with
 * strict, refused when this node holds a write of its key at a greater position. */
struct mero_ctx_apply_mode {
    uint64_t clock;
    bool strict;
};

/* Apply one delta of a snapshot in mode m (apply.c): every check of mero__node_ctx_apply except
 * the clock step, no refusal remembered. 0 (also a duplicate) or a refusal with err set, and
 * *for_now set when its reason is the state of governance held here (the author's role, a relay's
 * standing: issue 30), which the peer that served it need not share. Must run inside an open
 * transaction. */
MERO_MUST_CHECK int mero__ctx_apply_snap(struct mero_node *node, const uint8_t *bytes, size_t len,
                                         const struct mero_ctx_apply_mode *m, struct mero_err *err,
                                         bool *for_now);

#endif
