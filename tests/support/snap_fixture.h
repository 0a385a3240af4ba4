/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snap_fixture.h - issue 37: three in-process nodes on one libuv loop, joined by real loopback
 * libp2p connections, for catch-up by live state (src/node/sync_snap.c, context/snap.c): n[0]
 * and n[1] answer, n[2] is the new replica. They share one in-memory governance store (the
 * namespace, its context and its group key: every node holds the same governance state) and
 * each has its own node.db, so n[2] starts with the context known and none of its state. Used by
 * tests/unit/test_sync_snapshot.c and bench/bench_snapshot.c.
 */
#ifndef MERO_TEST_SNAP_FIXTURE_H
#define MERO_TEST_SNAP_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "mero/sizes.h"
#include "node/node_internal.h"

#define SNAPF_NODES 3

struct snapf {
    uv_loop_t loop;
    struct mero_node n[SNAPF_NODES];
    uint8_t ns[MERO_NS_ID_LEN], ctx[MERO_CONTEXT_ID_LEN];
};

int snapf_open(struct snapf *f);
void snapf_close(struct snapf *f);
/* `writes` local writes on node n: write i sets key "k<i % keys>" to "v<i>". */
int snapf_write(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t writes,
                unsigned keys);
/* Apply every delta `from` holds, in its order, on `to` (the ordinary apply path). */
int snapf_copy(struct mero_node *from, struct mero_node *to);
/* n[2] pulls from n[i]; the loop runs until the pull ends (-MERO_ETIMEOUT after 60 s). */
int snapf_pull(struct snapf *f, int i);
/* Deltas of f->ctx node n stores. */
uint64_t snapf_deltas(struct mero_node *n);
/* 1 when node n serves key = want (want NULL: serves nothing for key), else 0. */
int snapf_value_is(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                   const char *want);
/* A write of key = value in ctx by (pk, sk) at lamport, built from the documented layout
 * (docs/node.md "Contexts"), independent of codec.c, under the group's current key, applied on n
 * by the ordinary path; plant: stored on n as applied without any check (a peer that took it
 * under governance this node does not hold). */
int snapf_write_as(struct snapf *f, struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                   const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t sk[MERO_ED25519_SK_LEN],
                   uint64_t lamport, const char *key, const char *value, bool plant);
/* The same as a version-3 delta chained to prev (zero: the author's first), applied on n by the
 * ordinary path; its hash in *hash whatever the outcome. */
int snapf_write_chained(struct snapf *f, struct mero_node *n,
                        const uint8_t ctx[MERO_CONTEXT_ID_LEN], const uint8_t pk[MERO_IDENTITY_LEN],
                        const uint8_t sk[MERO_ED25519_SK_LEN], uint64_t lamport, const char *key,
                        const char *value, const uint8_t prev[MERO_DELTA_ID_LEN],
                        uint8_t hash[MERO_DELTA_ID_LEN]);

#endif
