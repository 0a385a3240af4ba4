/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_fixture.h - two in-process nodes on one libuv loop, joined by real loopback libp2p
 * connections, running "/mero/sync/1" (src/node/sync.c) against in-memory stores: the
 * responder creates a namespace and writes ops, the requester pulls them. Used by
 * tests/unit/test_sync_cursor.c and bench/bench_sync.c. Filler rows (syncf_fill) are written
 * straight into the op table (never valid ops) so a 100,000-entry log is built in a second.
 */
#ifndef MERO_TEST_SYNC_FIXTURE_H
#define MERO_TEST_SYNC_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "mero/sizes.h"
#include "node/node_internal.h"

struct syncf {
    uv_loop_t loop;
    struct mero_node a, b; /* a answers, b pulls */
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t filler; /* filler rows written so far (their nonce) */
};

/* Open both nodes, listen on loopback, create a namespace on a and give b its first ops. */
int syncf_open(struct syncf *f);
void syncf_close(struct syncf *f);
/* Write n filler rows of f->ns into the op table of a, and of b too when both. */
int syncf_fill(struct syncf *f, uint64_t n, bool both);
/* a adds n members (n real signed ops b lacks). */
int syncf_write(struct syncf *f, size_t n);
/* b pulls from a and the loop runs until the pull ends (bounded: -MERO_ETIMEOUT after 60 s). */
int syncf_pull(struct syncf *f);
/* Ops of f->ns b holds. */
uint64_t syncf_count(struct mero_node *n, const uint8_t ns[MERO_NS_ID_LEN]);

#endif
