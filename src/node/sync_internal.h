/* SPDX-License-Identifier: Apache-2.0 */
/* sync.h - the pull protocol "/mero/sync/1" (sync.c). */
#ifndef MERO_NODE_SYNC_H
#define MERO_NODE_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/net.h"
#include "mero/node.h"
#include "mero/sizes.h"

struct mero_node;

#define MERO_SYNC_PROTOCOL "/mero/sync/1"

MERO_MUST_CHECK int mero__node_sync_start(struct mero_node *node, struct mero_err *err);
void mero__node_sync_stop(struct mero_node *node);
/* Pull every namespace we follow (ops, then every context's deltas) from peer. */
void mero__node_sync_peer(struct mero_node *node, const char *peer_id);
/* Pull one namespace from peer. */
void mero__node_sync_pull(struct mero_node *node, const char *peer_id,
                          const uint8_t ns[MERO_NS_ID_LEN]);

/* Apply an op a peer sent (from = its publisher or the sync peer, NULL for none): the one
 * intake of a received op, gossip's and sync's. A missing parent starts a pull of its
 * namespace from `from`; an op the rules refuse at its place in the canonical order is kept
 * without effect (counted in node->gov_rejected, rc 0). *status (may be NULL) gets
 * mero_gov_apply's MERO_APPLY_*. */
int mero__node_apply_op(struct mero_node *node, const char *from, const uint8_t *op, size_t len,
                        int *status);

/* Take one op (delta false) or delta of an answer pulled for namespace ns: applied through the
 * ordinary paths (mero__node_apply_op, mero__node_ctx_apply), or dropped unseen, returning 1,
 * when ns is self-purged here (mero_gov_purged; an error reading it counts as purged). */
int mero__node_sync_take(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], bool delta,
                         const uint8_t *p, size_t len);

/* The cursor to ask the next inventory page with, after asking with sent and receiving n
 * hashes (page size max) and the responder's cursor last: last when the page was full and last
 * advanced (sent < last <= 2^63-1), else UINT64_MAX ("no further page"), so a responder whose
 * cursor stalls or wraps cannot keep a pull paging forever. */
uint64_t mero__node_sync_next_after(uint64_t sent, uint32_t n, uint32_t max, uint64_t last);

/* ---- issue 19: metrics (src/node/sync.c) ---- */
/* When this node last completed an op pull of ns from some peer (an inventory answered and
 * every op it listed that we lacked fetched): true with *unix_s, false when never since start. */
bool mero__node_sync_last(const struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          uint64_t *unix_s);

/* ---- issue 20: sync cursors (src/node/sync.c) ---- */

/* Counters of this node's sync traffic, for tests and benchmarks (never reset). */
struct mero_node_sync_stats {
    uint64_t inv_sent, inv_entries; /* inventory requests asked, entries they listed */
    uint64_t get_sent, get_entries; /* fetch requests asked, entries they asked for */
    uint64_t restarts;              /* cursors dropped because the peer's log did not match */
    uint64_t inv_served, inv_served_entries; /* as responder */
    /* issue 37: live-state catch-ups installed, refused, answered busy; pages fetched */
    uint64_t snap_installed, snap_refused, snap_busy, snap_pages, snap_served;
    /* issue 37: live states whose clock was not vouched for (the history pulled instead), and
     * first live states held back for a second opinion on their clock */
    uint64_t snap_unvouched, snap_deferred;
    /* issue 30: live states holding a write the governance here refuses (an author removed since
     * the peer applied it): the history pulled instead, the peer not blamed */
    uint64_t snap_governance;
};
void mero__node_sync_get_stats(const struct mero_node *node, struct mero_node_sync_stats *out);
/* A pull is under way (with any peer). */
bool mero__node_sync_busy(const struct mero_node *node);

/*
 * Issue 35 item 6: HELLO, a puller's signed word on which member of ns it speaks for and the
 * name it runs under (sync.c). The request after its kind byte is ns[32] identity[32] sig[64]
 * name_len u8 name; the identity signs "mero.fleet.hello.v1" || ns || identity || the sender's
 * node key || name_len || name. Encode: body (kind byte included) for identity_sk's identity
 * and node_pk into out. Decode: the part after the kind byte, checked against the sender's
 * Noise-authenticated node key (exact length, name 0..MERO_MEMBER_LABEL_MAX bytes passing
 * mero_member_label_check, the signature): 0 and the fields (name NUL-terminated), or
 * -MERO_EPROTO (malformed) / -MERO_EBADSIG (not signed by that identity for that node).
 */
struct mero_buf;
struct mero_sync_hello {
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t identity[MERO_IDENTITY_LEN];
    char name[MERO_MEMBER_LABEL_MAX + 1];
};
MERO_MUST_CHECK int mero__node_sync_hello_encode(const struct mero_sync_hello *h,
                                                 const uint8_t identity_sk[MERO_ED25519_SK_LEN],
                                                 const uint8_t node_pk[MERO_ED25519_PK_LEN],
                                                 struct mero_buf *out);
MERO_MUST_CHECK int mero__node_sync_hello_decode(const uint8_t *data, size_t len,
                                                 const uint8_t node_pk[MERO_ED25519_PK_LEN],
                                                 struct mero_sync_hello *out);

/* ---- issue 37: catch-up by live state (src/node/sync_snap.c, sync.c, docs/sync.md) ---- */
#define MERO_SNAP_SESSIONS        4u     /* requesters a responder serves live state at once */
#define MERO_SNAP_SESSION_IDLE_MS 10000u /* a session idle this long is given to another */
#define MERO_SNAP_OK              0
#define MERO_SNAP_UNKNOWN         1 /* the responder does not know the context */
#define MERO_SNAP_BUSY            2 /* every snapshot session is taken: ask later */

/* One decoded STATE answer; heads and vals borrow the bytes decoded, each a list of
 * (len u32, delta) already checked against its bounds. */
struct mero_snap_page {
    uint8_t status;
    uint64_t clock, seq, next;
    uint8_t tail[MERO_DELTA_ID_LEN];
    uint32_t nheads, n;
    const uint8_t *heads, *vals;
    size_t heads_len, vals_len;
};
/* Decode a STATE answer p[0..len) (see sync_snap.c). 0 or -MERO_EPROTO / -MERO_ETRUNC /
 * -MERO_ETOOBIG. */
MERO_MUST_CHECK int mero__node_snap_page_decode(const uint8_t *p, size_t len,
                                                struct mero_snap_page *pg);

struct mero_snap_session {
    bool set;
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    uint64_t last_ms;
};
/* A responder's snapshot sessions (embedded in the node's sync state). */
struct mero_node_snap_sessions {
    struct mero_snap_session s[MERO_SNAP_SESSIONS];
};
struct mero_buf;
struct mero_cur;
/* Answer a STATE request from peer (c after the kind byte) into out. */
MERO_MUST_CHECK int mero__node_snap_answer(struct mero_node *node,
                                           struct mero_node_snap_sessions *t, const char *peer,
                                           struct mero_cur *c, struct mero_buf *out);

#endif
