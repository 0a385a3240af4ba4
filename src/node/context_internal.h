/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context_internal.h - replicated key-value state per context (context.c): signed, encrypted state
 * deltas, applied by every member through one apply path.
 */
#ifndef MERO_NODE_CONTEXT_H
#define MERO_NODE_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mero/err.h"
#include "mero/node.h"
#include "mero/sizes.h"

struct mero_node;

#define MERO_DELTA_MAX     (32u * 1024u)
#define MERO_DELTA_DOMAIN  "mero.context.delta.v1"
#define MERO_DELTA_VERSION 1
/* issue 15: the relayed delta (context.c, docs/relay.md "The relayed delta") */
#define MERO_DELTA_RELAYED_VERSION 2
#define MERO_DELTA_RELAYED_DOMAIN  "mero.context.delta.v2"

/*
 * Context clock (docs/node.md "Context clock"). A context's clock is the greatest lamport of
 * the deltas this node has admitted in it. A delta claiming lamport l is admitted only when
 * 1 <= l <= MERO_LAMPORT_MAX and l <= clock + MERO_LAMPORT_STEP, so the clock grows by at
 * most MERO_LAMPORT_STEP per admitted delta and never reaches a value SQLite cannot store.
 */
#define MERO_LAMPORT_MAX  ((uint64_t)INT64_MAX)
#define MERO_LAMPORT_STEP ((uint64_t)65536)

/* true when a delta claiming lamport l may be admitted in a context whose clock is clock. */
bool mero_lamport_admissible(uint64_t clock, uint64_t l);
/* *next = clock + 1 for a local write; -MERO_ECLOCK when clock is MERO_LAMPORT_MAX already. */
MERO_MUST_CHECK int mero_lamport_next(uint64_t clock, uint64_t *next);

MERO_MUST_CHECK int mero_node_ctx_open(struct mero_node *node, struct mero_err *err);
void mero_node_ctx_close(struct mero_node *node);

/* The group and namespace a context belongs to; -MERO_ENOTFOUND for an unknown context. */
MERO_MUST_CHECK int mero_node_ctx_lookup(struct mero_node *node,
                                         const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                         uint8_t ns[MERO_NS_ID_LEN],
                                         uint8_t group[MERO_GROUP_ID_LEN]);

/* mero_node_ctx_put / mero_node_ctx_get, the API's use cases, are declared in mero/node.h. */

/*
 * The one apply path for a delta from anywhere (local write, gossip, sync): bounded decode,
 * signature, known context, author's effective role (ReadOnly, ReadOnlyTee, RelayTee and
 * non-members refused), dedupe, context clock bound (-MERO_ECLOCK, nothing stored), store,
 * decrypt when we hold the key (else kept and retried when the key arrives), last-writer-wins
 * by (lamport, hash). 0 also for a duplicate.
 */
MERO_MUST_CHECK int mero_node_ctx_apply(struct mero_node *node, const uint8_t *delta, size_t len,
                                        struct mero_err *err);
/*
 * Self-purge of the local context state: the values and deltas of every context of ns
 * (group == ns) or of group's contexts only, in one transaction. Idempotent.
 */
MERO_MUST_CHECK int mero_node_ctx_purge(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                        const uint8_t group[MERO_GROUP_ID_LEN]);
/*
 * `merod check`: every delta matches its hash and signature, every visible value matches its
 * delta (as a read checks it). Findings printed to out; -MERO_ESTATE when any.
 */
MERO_MUST_CHECK int mero_node_ctx_verify_all(struct mero_node *node, FILE *out, size_t *nvalues,
                                             size_t *ndeltas);
/* Decrypt and apply stored deltas of group's contexts that waited for a key. */
void mero_node_ctx_retry(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN]);

/* For sync: hashes of ctx's deltas with seq > after (at most max); *out owned (free()). */
MERO_MUST_CHECK int mero_node_ctx_hashes(struct mero_node *node,
                                         const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t after,
                                         size_t max, uint8_t (**out)[MERO_DELTA_ID_LEN], size_t *n,
                                         uint64_t *last);
MERO_MUST_CHECK int mero_node_ctx_has(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                                      bool *yes);
/* Append the stored delta bytes; -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero_node_ctx_delta(struct mero_node *node,
                                        const uint8_t hash[MERO_DELTA_ID_LEN], uint8_t **out,
                                        size_t *len);

/* ---- issue 15: the relayed delta (src/node/context.c) ---- */
struct mero_intent;
/*
 * The checks of a relayed write, shared by the intents route (executor = us, relayed_at = now,
 * hash NULL) and every peer at the cut (the delta's fields and hash): executor may relay in
 * group (mero_gov_relay_standing), the intent's signature verifies, it names the context's
 * namespace and ctx, its signer is author, author's effective role may write in group, it is a
 * put, it is live at relayed_at (mero_intent_live_at), its warrant allows executor, and its
 * (author, nonce) is not held by another delta (any delta when hash is NULL). 0 or a refusal:
 * -MERO_EREFUSED (executor, signature, time, warrant), -MERO_EINVAL (namespace, context),
 * -MERO_EPERM / -MERO_EREADONLY (author), -MERO_EUNSUPPORTED (delete), -MERO_EEXIST (replay),
 * with the reason in err (never the value).
 */
MERO_MUST_CHECK int mero_node_relay_check(struct mero_node *node,
                                          const uint8_t group[MERO_GROUP_ID_LEN],
                                          const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                          const uint8_t executor[MERO_IDENTITY_LEN],
                                          const uint8_t author[MERO_IDENTITY_LEN],
                                          uint64_t relayed_at, const struct mero_intent *it,
                                          const uint8_t *hash, struct mero_err *err);
/*
 * Build the relayed delta carrying intent[0..len) (author's, already checked) in ctx at clock
 * + 1, signed by this node as executor with relayed_at, apply it through mero_node_ctx_apply
 * and publish it; its hash in id. With force (test-only) it is published even when this node
 * refuses it.
 */
MERO_MUST_CHECK int
mero_node_ctx_put_relayed(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                          const uint8_t *intent, size_t len, bool force,
                          uint8_t id[MERO_DELTA_ID_LEN], struct mero_err *err);

#endif
