/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context_internal.h - replicated key-value state per context (src/node/context/): signed,
 * encrypted state deltas, applied by every member through one apply path. What the rest of the
 * node (service, sync, check, admission) and the tests call; the module's files share more among
 * themselves in codec_internal.h, clock_internal.h, store_internal.h and relay_internal.h.
 */
#ifndef MERO_NODE_CONTEXT_H
#define MERO_NODE_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/node.h"
#include "mero/op.h"
#include "mero/sizes.h"

struct mero_node;

#define MERO_DELTA_MAX     (32u * 1024u)
#define MERO_DELTA_DOMAIN  "mero.context.delta.v1"
#define MERO_DELTA_VERSION 1
/* issue 15: the relayed delta (codec.c, docs/relay.md "The relayed delta") */
#define MERO_DELTA_RELAYED_VERSION 2
#define MERO_DELTA_RELAYED_DOMAIN  "mero.context.delta.v2"
/* issue 30: the chained direct delta, version 1 with prev (its author's previous delta in the
 * context) in the clear header; what every direct write is now (codec.c, docs/node.md) */
#define MERO_DELTA_CHAINED_VERSION 3
#define MERO_DELTA_CHAINED_DOMAIN  "mero.context.delta.v3"

/*
 * Context clock (clock.c, docs/node.md "Context clock"). A context's clock is the greatest lamport
 * of the deltas this node has admitted in it. A delta claiming lamport l is admitted only when 1 <=
 * l <= MERO_LAMPORT_MAX and l <= clock + MERO_LAMPORT_STEP, so the clock grows by at most
 * MERO_LAMPORT_STEP per admitted delta and never reaches a value SQLite cannot store.
 */
#define MERO_LAMPORT_MAX  ((uint64_t)INT64_MAX)
#define MERO_LAMPORT_STEP ((uint64_t)65536)

/* true when a delta claiming lamport l may be admitted in a context whose clock is clock. */
bool mero__lamport_admissible(uint64_t clock, uint64_t l);
/* *next = clock + 1 for a local write; -MERO_ECLOCK when clock is MERO_LAMPORT_MAX already. */
MERO_MUST_CHECK int mero__lamport_next(uint64_t clock, uint64_t *next);

/* Create the context tables and bring an older node.db up to date (tables.c). Idempotent. */
MERO_MUST_CHECK int mero__node_ctx_open(struct mero_node *node, struct mero_err *err);
void mero__node_ctx_close(struct mero_node *node);

/* The group and namespace a context belongs to; -MERO_ENOTFOUND for an unknown context
 * (store.c). */
MERO_MUST_CHECK int mero__node_ctx_lookup(struct mero_node *node,
                                          const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                          uint8_t ns[MERO_NS_ID_LEN],
                                          uint8_t group[MERO_GROUP_ID_LEN]);

/* mero_node_ctx_put / mero_node_ctx_get, the API's use cases, are declared in mero/node.h
 * (write.c, read.c). */

/*
 * (apply.c) The one apply path for a delta from anywhere (local write, gossip, sync): bounded
 * decode, signature, known context, author's effective role (ReadOnly, ReadOnlyTee, RelayTee and
 * non-members refused), dedupe, context clock bound (-MERO_ECLOCK, nothing stored), store,
 * decrypt when we hold the key (else kept and retried when the key arrives), last-writer-wins
 * by (lamport, hash). 0 also for a duplicate.
 */
MERO_MUST_CHECK int mero__node_ctx_apply(struct mero_node *node, const uint8_t *delta, size_t len,
                                         struct mero_err *err);
/*
 * (tables.c) Self-purge of the local context state: the values and deltas of every context of ns
 * (group == ns) or of group's contexts only, in one transaction. Idempotent.
 */
MERO_MUST_CHECK int mero__node_ctx_purge(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t group[MERO_GROUP_ID_LEN]);
/*
 * (read.c) `merod check`: every delta matches its hash and signature, every visible value matches
 * its delta (as a read checks it). Findings printed to out; -MERO_ESTATE when any.
 */
MERO_MUST_CHECK int mero__node_ctx_verify_all(struct mero_node *node, FILE *out, size_t *nvalues,
                                              size_t *ndeltas);
/* (apply.c) Decrypt and apply stored deltas of group's contexts that waited for a key. */
void mero__node_ctx_retry(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN]);
/* (apply.c) The same for every group holding such a delta (the first CTX_PENDING_GROUPS_MAX), at
 * service start: a stop or crash between a key's arrival, or a kept delta passing again, and its
 * retry left deltas waiting whose key is held, and no event would bring them again. */
void mero__node_ctx_retry_pending(struct mero_node *node);
/* (apply.c) The retry of the one stored delta p[0..n) of group, in one transaction when none is
 * open: applied, or refused (deleted, remembered, logged; kept when a right lost explains it);
 * left waiting, no transaction opened, while its key is not held. */
void mero__node_ctx_retry_one(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                              const uint8_t *p, size_t n);

/* (store.c) For sync: hashes of ctx's deltas with seq > after (at most max); *out owned (free()).
 */
MERO_MUST_CHECK int mero__node_ctx_hashes(struct mero_node *node,
                                          const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t after,
                                          size_t max, uint8_t (**out)[MERO_DELTA_ID_LEN], size_t *n,
                                          uint64_t *last);
MERO_MUST_CHECK int mero__node_ctx_has(struct mero_node *node,
                                       const uint8_t hash[MERO_DELTA_ID_LEN], bool *yes);
/* Append the stored delta bytes; -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero__node_ctx_delta(struct mero_node *node,
                                         const uint8_t hash[MERO_DELTA_ID_LEN], uint8_t **out,
                                         size_t *len);

/* ---- issue 15: the relayed delta (src/node/context/relay.c, write.c) ---- */
struct mero_intent;
/*
 * The checks of a relayed write, shared by the intents route (executor = us, relayed_at = now,
 * hash NULL) and every peer at the cut (the delta's fields and hash): executor may relay in
 * group (mero_gov_relay_standing), the intent's signature verifies, it names the context's
 * namespace and ctx, its signer is author, author's effective role may write in group, it is a
 * put, it is live at relayed_at (mero_intent_live_at), its warrant allows executor; at the route
 * only (hash NULL), its (author, nonce) is not held by another intent (issue 30: at the cut a
 * second copy of an intent is counted, not refused, docs/relay.md "One intent, one effect").
 * 0 or a refusal: -MERO_EREFUSED (executor, signature, time, warrant), -MERO_EINVAL
 * (namespace, context), -MERO_EPERM / -MERO_EREADONLY (author), -MERO_EUNSUPPORTED (delete),
 * -MERO_EEXIST (replay, route only), with the reason in err (never the value).
 */
MERO_MUST_CHECK int mero__node_relay_check(struct mero_node *node,
                                           const uint8_t group[MERO_GROUP_ID_LEN],
                                           const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                           const uint8_t executor[MERO_IDENTITY_LEN],
                                           const uint8_t author[MERO_IDENTITY_LEN],
                                           uint64_t relayed_at, const struct mero_intent *it,
                                           const uint8_t *hash, struct mero_err *err);
/*
 * (write.c) Build the relayed delta carrying intent[0..len) (author's, already checked) in ctx at
 * clock
 * + 1, signed by this node as executor with relayed_at, apply it through mero__node_ctx_apply
 * and publish it; its hash in id. With force (test-only) it is published even when this node
 * refuses it.
 */
MERO_MUST_CHECK int
mero__node_ctx_put_relayed(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                           const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                           const uint8_t author[MERO_IDENTITY_LEN], uint64_t relayed_at,
                           const uint8_t *intent, size_t len, bool force,
                           uint8_t id[MERO_DELTA_ID_LEN], struct mero_err *err);

/* ---- issue 30: one intent, one effect (src/node/context/intent.c) ---- */
/* Create ctx_intent (and drop issue 15's replay table). */
MERO_MUST_CHECK int mero__node_ctx_intent_open(struct mero_node *node);
/*
 * Count a checked copy (delta hash, at lamport) of intent it in group's context: record it in
 * its intent's row, recompute the clocks of its author's chain on the key from it on, and offer
 * every position that grew to the key's value (mero__node_ctx_offer_stored). Idempotent. 0 or
 * -MERO_EIO / -MERO_ENOMEM (nothing set in any err: not a refusal).
 */
MERO_MUST_CHECK int mero__node_ctx_intent_count(struct mero_node *node,
                                                const uint8_t group[MERO_GROUP_ID_LEN],
                                                const struct mero_intent *it, uint64_t lamport,
                                                const uint8_t hash[MERO_DELTA_ID_LEN]);
/* Whether intent id is counted here; canon = the delta that counts for it. */
MERO_MUST_CHECK int mero__node_ctx_intent_held(struct mero_node *node,
                                               const uint8_t id[MERO_INTENT_ID_LEN],
                                               uint8_t canon[MERO_DELTA_ID_LEN], bool *yes);
/* Whether another intent than id with it's (author, nonce) is counted here (the route's replay). */
MERO_MUST_CHECK int mero__node_ctx_intent_nonce_taken(struct mero_node *node,
                                                      const struct mero_intent *it,
                                                      const uint8_t id[MERO_INTENT_ID_LEN],
                                                      bool *yes);
/*
 * (store.c) Offer the write of the stored delta hash, decrypted under group's key, to its
 * key's last-writer-wins at position (lamport, hash), raising the context clock to lamport.
 */
MERO_MUST_CHECK int mero__node_ctx_offer_stored(struct mero_node *node,
                                                const uint8_t group[MERO_GROUP_ID_LEN],
                                                const uint8_t hash[MERO_DELTA_ID_LEN],
                                                uint64_t lamport);

/* ---- issue 30: deltas kept without effect (src/node/context/kept.c) ---- */
/* ctx_delta.applied: 0 pending (its key not held yet), 1 applied, MERO_CTX_KEPT kept without
 * effect (refused for the state of governance, a right lost explaining it: kept.c) */
#define MERO_CTX_KEPT 2
/* Judge the kept deltas again (governance may have granted its author the right), at most
 * MERO_CTX_REJUDGE_TICK of them from node->ctx_rejudge_after on: one that passes now takes effect
 * through the retry (mero__node_ctx_retry). true when it reached the last (the next call starts
 * from the first again), false when some are left for the next call. */
#define MERO_CTX_REJUDGE_TICK 2048u
bool mero__node_ctx_rejudge(struct mero_node *node);
/* The sync tick's share (service.c): go on with the pass under way (node->ctx_rejudge_after),
 * else start one when a governance event came since the last started (node->ctx_rejudge_due).
 * Every event is followed by a whole pass that started after it, however often events come. */
void mero__node_ctx_rejudge_tick(struct mero_node *node);

/* ---- issue 30: what a removal vouches for (src/node/context/chain.c) ---- */
/* The gov hook (hooks.write_cuts, service.c): member's newest delta in each context of group
 * and its subgroups this node holds one in, the cuts of a MemberRemoved built here. */
int mero__node_write_cuts(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN], struct mero_write_cut *out,
                          uint32_t max, uint32_t *n);

/* ---- issue 30: no refusal loops (src/node/context/refused.c) ---- */
#define MERO_CTX_REFUSED_MAX 4096 /* refusals remembered at most; the oldest forgotten first */
/* What this node knows of a delta hash. */
enum mero_ctx_known {
    MERO_CTX_UNKNOWN = 0,        /* neither held nor remembered refused: fetch it */
    MERO_CTX_HELD = 1,           /* stored (applied, a counted copy, or kept for its key) */
    MERO_CTX_REFUSED = 2,        /* refused for good: never fetched again; sync moves past it */
    MERO_CTX_REFUSED_FOR_NOW = 3 /* refused by governance state that has not changed since:
                                    not fetched now; sync's cursor passes it at that state only */
};
/* The generation of ns's governance state (the seq of its newest op plus the node's count of
 * governance events): it grows whenever that state may have changed, and a refusal for now holds
 * while it stays the same. */
MERO_MUST_CHECK int mero__node_ctx_gov_gen(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                           uint64_t *gen);
/* Create the TEMP table of remembered refusals (memory of this connection only). */
MERO_MUST_CHECK int mero__node_ctx_refused_open(struct mero_node *node);
/* *state for hash (enum mero_ctx_known). */
MERO_MUST_CHECK int mero__node_ctx_known(struct mero_node *node,
                                         const uint8_t hash[MERO_DELTA_ID_LEN], int *state);
/* *state MERO_CTX_REFUSED(_FOR_NOW) with the remembered code and reason in why (optional) when
 * hash's refusal is remembered and still holds; MERO_CTX_UNKNOWN otherwise. */
MERO_MUST_CHECK int mero__node_ctx_refusal_get(struct mero_node *node,
                                               const uint8_t hash[MERO_DELTA_ID_LEN], int *state,
                                               struct mero_err *why);
/* Remember hash's refusal (code, why): for good when ns is NULL, else for now, against ns's
 * governance generation. *first: no refusal of hash was remembered before. */
void mero__node_ctx_refusal_note(struct mero_node *node, const uint8_t hash[MERO_DELTA_ID_LEN],
                                 const uint8_t *ns, int code, const char *why, bool *first);
/* Forget the for-now refusals of ns (its self-purge). */
void mero__node_ctx_refusal_forget(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN]);

/* ---- issue 37: catch-up by live state (src/node/context/snap.c, docs/sync.md) ---- */
#define MERO_SNAP_HEADS_MAX  16u        /* newest deltas served with a snapshot's first page */
#define MERO_SNAP_PAGE_MAX   256u       /* winning deltas per page at most */
#define MERO_SNAP_PAGE_BYTES (1u << 20) /* bytes of a page's entries at most */
/* Test-only faults a responder may serve (merod run --test, MERO_TEST_SNAPSHOT_FAULT). */
enum mero_snap_fault { MERO_SNAP_FAULT_NONE = 0, MERO_SNAP_FAULT_FORGE, MERO_SNAP_FAULT_STALE };
/* What a context's log ends with here: its clock, the seq of its last stored delta (0: none)
 * and that delta's hash. */
struct mero_ctx_tip {
    uint64_t clock, seq;
    uint8_t tail[MERO_DELTA_ID_LEN];
};
/* Create table ctx_snapshot (idempotent). */
MERO_MUST_CHECK int mero__node_ctx_snap_open(struct mero_node *node);
MERO_MUST_CHECK int mero__node_ctx_tip(struct mero_node *node,
                                       const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                       struct mero_ctx_tip *t);
/* Whether any delta of ctx is stored here. */
MERO_MUST_CHECK int mero__node_ctx_held_any(struct mero_node *node,
                                            const uint8_t ctx[MERO_CONTEXT_ID_LEN], bool *yes);
/* Append the newest stored deltas of ctx, newest first, as (len u32, bytes), at most
 * MERO_SNAP_HEADS_MAX; their number in *n. */
MERO_MUST_CHECK int mero__node_ctx_snap_heads(struct mero_node *node,
                                              const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                              struct mero_buf *out, uint32_t *n);
/* Append one page of the deltas that win their key in ctx, after the cursor `after` (0 = from
 * the start), as (len u32, bytes): at most MERO_SNAP_PAGE_MAX entries and MERO_SNAP_PAGE_BYTES
 * bytes; *n entries, *next the cursor of the next page or 0 when this was the last. fault:
 * enum mero_snap_fault (test-only). */
MERO_MUST_CHECK int mero__node_ctx_snap_values(struct mero_node *node,
                                               const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                               uint64_t after, int fault, struct mero_buf *out,
                                               uint32_t *n, uint64_t *next);
/* Verify and install a snapshot of ctx taken from peer: heads then entries, each a list of
 * (len u32, bytes), in one transaction (see snap.c); strict: an entry beaten by a write of its
 * key held here is refused as stale (else it only loses last-writer-wins). 0, or a refusal with
 * the reason in err and nothing stored; *governance set when that reason is an entry or a head
 * the governance held here refuses (issue 30: its author lost the right since the peer applied
 * it), which is no fault of the peer. */
MERO_MUST_CHECK int mero__node_ctx_snap_install(struct mero_node *node,
                                                const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                                uint64_t clock, const uint8_t *heads, size_t hlen,
                                                const uint8_t *vals, size_t vlen, bool strict,
                                                const char *peer, bool *governance,
                                                struct mero_err *err);
/* Whether ctx's state here was installed from a snapshot (its clock in *clock). */
MERO_MUST_CHECK int mero__node_ctx_snapshot_of(struct mero_node *node,
                                               const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                               uint64_t *clock, bool *yes);
/* merod check: one line per context whose state here came from a snapshot. */
MERO_MUST_CHECK int mero__node_ctx_snapshots_print(struct mero_node *node, FILE *out);

#endif
