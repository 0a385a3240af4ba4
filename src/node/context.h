/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context.h - replicated key-value state per context (context.c): signed, encrypted state
 * deltas, applied by every member through one apply path.
 */
#ifndef MERO_NODE_CONTEXT_H
#define MERO_NODE_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mero/err.h"

struct mero_node;

#define MERO_DELTA_MAX     (32u * 1024u)
#define MERO_DELTA_DOMAIN  "mero.context.delta.v1"
#define MERO_DELTA_VERSION 1

MERO_MUST_CHECK int mero_node_ctx_open(struct mero_node *node, struct mero_err *err);
void mero_node_ctx_close(struct mero_node *node);

/* The group and namespace a context belongs to; -MERO_ENOTFOUND for an unknown context. */
MERO_MUST_CHECK int mero_node_ctx_lookup(struct mero_node *node, const uint8_t ctx[32],
                                         uint8_t ns[32], uint8_t group[32]);

/*
 * Write key = value in ctx as this node (our namespace identity): refused with
 * -MERO_EREADONLY ("ReadOnlyWriteRefused") when our effective role there is ReadOnly,
 * ReadOnlyTee or RelayTee. With force (test-only path) the local role check is skipped, so
 * peers' refusal can be tested. The delta is applied locally, then published.
 */
MERO_MUST_CHECK int mero_node_ctx_put(struct mero_node *node, const uint8_t ctx[32],
                                      const char *key, const uint8_t *value, size_t vlen,
                                      bool force, struct mero_err *err);
/* Read a key: *value owned (free()); -MERO_ENOTFOUND when absent. */
MERO_MUST_CHECK int mero_node_ctx_get(struct mero_node *node, const uint8_t ctx[32],
                                      const char *key, uint8_t **value, size_t *vlen,
                                      struct mero_err *err);

/*
 * The one apply path for a delta from anywhere (local write, gossip, sync): bounded decode,
 * signature, known context, author's effective role (ReadOnly, ReadOnlyTee, RelayTee and
 * non-members refused), dedupe, store, decrypt when we hold the key (else kept and retried
 * when the key arrives), last-writer-wins by (lamport, hash). 0 also for a duplicate.
 */
MERO_MUST_CHECK int mero_node_ctx_apply(struct mero_node *node, const uint8_t *delta, size_t len,
                                        struct mero_err *err);
/*
 * Self-purge of the local context state: the values and deltas of every context of ns
 * (group == ns) or of group's contexts only, in one transaction. Idempotent.
 */
MERO_MUST_CHECK int mero_node_ctx_purge(struct mero_node *node, const uint8_t ns[32],
                                        const uint8_t group[32]);
/*
 * `merod check`: every delta matches its hash and signature, every visible value matches its
 * delta (as a read checks it). Findings printed to out; -MERO_ESTATE when any.
 */
MERO_MUST_CHECK int mero_node_ctx_verify_all(struct mero_node *node, FILE *out, size_t *nvalues,
                                             size_t *ndeltas);
/* Decrypt and apply stored deltas of group's contexts that waited for a key. */
void mero_node_ctx_retry(struct mero_node *node, const uint8_t group[32]);

/* For sync: hashes of ctx's deltas with seq > after (at most max); *out owned (free()). */
MERO_MUST_CHECK int mero_node_ctx_hashes(struct mero_node *node, const uint8_t ctx[32],
                                         uint64_t after, size_t max, uint8_t (**out)[32], size_t *n,
                                         uint64_t *last);
MERO_MUST_CHECK int mero_node_ctx_has(struct mero_node *node, const uint8_t hash[32], bool *yes);
/* Append the stored delta bytes; -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero_node_ctx_delta(struct mero_node *node, const uint8_t hash[32],
                                        uint8_t **out, size_t *len);

#endif
