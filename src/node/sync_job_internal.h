/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_job_internal.h - what the files of "/mero/sync/1" share (sync.c the pull driver,
 * sync_serve.c the responder, sync_hello.c HELLO, sync_snap_pull.c the requester's live state):
 * the wire's kinds and bounds, one pull (struct job) and the node's sync state. Private to them;
 * the rest of the node uses sync_internal.h. Invariant: every bound a decoder checks is one of
 * the constants below, named once.
 */
#ifndef MERO_NODE_SYNC_JOB_INTERNAL_H
#define MERO_NODE_SYNC_JOB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/gov.h"
#include "mero/net.h"
#include "node/node_internal.h"
#include "node/sync_internal.h"

#define INV_MAX         1024u
#define GET_MAX         64u
#define MAX_JOBS        32u
#define SYNC_TIMEOUT_MS 5000u
#define MAX_CURSORS     512u
/* a HELLO's signed message: domain, ns, identity, node key, name length and name */
#define HELLO_MSG_MAX                                                                              \
    (sizeof(HELLO_DOMAIN) - 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN + MERO_ED25519_PK_LEN + 1 +     \
     MERO_MEMBER_LABEL_MAX)

/* What a request names: a namespace (ops) or a context (deltas); what it lists: op ids or delta
 * hashes. One width each on the wire, whichever phase. */
#define SYNC_ID_LEN       MERO_NS_ID_LEN
#define SYNC_HASH_LEN     MERO_OP_ID_LEN
#define SYNC_REQ_HEAD_MAX 64u        /* a request's kind | id | count or cursor */
#define SYNC_OP_MAX       (1u << 20) /* one stored governance op */
#define SYNC_ANSWER_MAX   (4u << 20) /* one answer to a peer's request */
_Static_assert(MERO_CONTEXT_ID_LEN == SYNC_ID_LEN, "a context id is as wide as a namespace id");
_Static_assert(MERO_DELTA_ID_LEN == SYNC_HASH_LEN, "a delta hash is as wide as an op id");

enum { INV_OPS = 1, GET_OPS = 2, INV_DELTAS = 3, GET_DELTAS = 4, HELLO = 5, STATE = 6 };

/* issue 35: HELLO, how often a puller says who it is to a peer, per namespace (seconds), and
 * how many (peer, namespace) pairs it remembers having told */
#define HELLO_EVERY_S  30u
#define HELLO_SENT_MAX 256u
#define HELLO_DOMAIN   "mero.fleet.hello.v1"
struct hello_sent {
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t at; /* unix s; 0 = free */
};

/* issue 37 (requester side of STATE): snapshots fetched at once, the most a snapshot may hold
 * in memory before it is verified (beyond it: history sync), how long a peer whose snapshot of a
 * context was refused is not asked for that context, and how many such refusals are kept. */
#define SNAP_FETCH_MAX 4u
#define SNAP_TOTAL_MAX (16u << 20)
#define SNAP_BAN_MS    30000u
#define SNAP_BAD_MAX   64u
/* issue 30: how long a context whose live state held a write the governance here refuses is
 * caught up by its history from every peer (any honest peer's live state holds the same write) */
#define SNAP_HISTORY_MS 600000u
/* a STATE request: kind | ctx | after */
#define SNAP_REQ_LEN (1u + SYNC_ID_LEN + sizeof(uint64_t))

struct job {
    struct mero_node *node;
    char peer[MERO_PEER_ID_STR_MAX];
    bool busy, again;
    /* namespaces to pull, and the contexts of the current one */
    uint8_t (*nss)[MERO_NS_ID_LEN];
    size_t nns, ins;
    uint8_t (*ctxs)[MERO_CONTEXT_ID_LEN];
    size_t nctx, ictx;
    uint64_t after;
    /* hashes still to fetch */
    uint8_t (*want)[SYNC_HASH_LEN];
    size_t nwant, iwant;
    bool deltas; /* phase: ops (false) or deltas of ctxs[ictx] (true) */
    /* issue 19: the peer answered "unknown" for nss[ins] */
    bool ns_unknown;
    /* cursor bookkeeping for the current id (see the top comment) */
    bool begin;           /* the next INV is the first for cur_id() */
    bool anchored;        /* this INV asked after = cursor - 1: expect the anchor */
    bool stuck;           /* a page of this id left something unheld: cursor stays */
    bool for_now;         /* issue 30: the cursor of this id passed a delta refused for now */
    uint64_t for_now_gen; /* the governance generation at which it first passed one */
    uint8_t anchor[SYNC_HASH_LEN];    /* the hash expected first when anchored */
    uint8_t page_tail[SYNC_HASH_LEN]; /* the last hash of the current inventory page */
    uint64_t page_last;               /* the responder's sequence of page_tail */
    bool page_any;                    /* the current page listed at least one entry */
    /* issue 37: the live state of ctxs[ictx] being fetched (STATE pages), verified at the end */
    bool snap, snap_tried, snap_strict;
    uint8_t snap_ctx[SYNC_ID_LEN]; /* the context snap_tried is about */
    uint64_t snap_after, snap_clock, snap_seq;
    uint8_t snap_tail[SYNC_HASH_LEN];
    struct mero_buf snap_heads, snap_vals;
};

/* issue 37: a peer whose snapshot of ctx was refused, not asked for ctx until until_ms; peer ""
 * (issue 30): ctx's history is pulled from every peer instead of its live state until then. */
struct snap_bad {
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    uint64_t until_ms;
};

/* issue 37: the clock a peer claimed for ctx in its live state (a STATE page 0), believed as a
 * second opinion on another peer's claim for SNAP_CLOCK_FRESH_MS (docs/sync.md "The clock a
 * snapshot claims"); at_ms 0 = a free slot, the oldest reused when full. */
#define SNAP_CLOCKS_MAX     64u
#define SNAP_CLOCK_FRESH_MS 30000u
struct snap_clock {
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    uint64_t clock, at_ms;
};
/* A context whose first live state waits for a second opinion on its clock, since since_ms, at
 * most SNAP_WAIT_MS; since_ms 0 = a free slot. */
#define SNAP_WAITS_MAX 16u
#define SNAP_WAIT_MS   5000u
struct snap_wait {
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    uint64_t since_ms;
};

/* issue 19 (metrics): when an op pull of a namespace last completed, for the sync lag */
#define SYNC_LAST_MAX 256u
struct sync_last {
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t at; /* unix s; 0 = free slot */
};

/* What this node remembers of a peer's log of one namespace (ops) or context (deltas). */
struct cursor {
    bool set, deltas;
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t id[SYNC_ID_LEN];
    uint64_t seq;                  /* the responder's sequence of anchor */
    uint8_t anchor[SYNC_HASH_LEN]; /* the hash it listed at seq */
    uint64_t used;                 /* for least-recently-used replacement */
    /* issue 30: it passed a delta refused for now, at the governance generation gen: it holds
     * only while that generation does (then the context is judged afresh from its start) */
    bool for_now;
    uint64_t gen;
};

struct mero_node_sync {
    struct job jobs[MAX_JOBS];
    struct sync_last last[SYNC_LAST_MAX]; /* the oldest is reused when full */
    struct cursor cursors[MAX_CURSORS];
    struct hello_sent hellos[HELLO_SENT_MAX]; /* issue 35: the oldest is reused when full */
    uint64_t tick;
    struct mero_node_sync_stats stats;
    /* issue 37 */
    struct mero_node_snap_sessions snap_sessions; /* as responder */
    struct snap_bad snap_bad[SNAP_BAD_MAX];       /* as requester; the oldest reused */
    struct snap_clock snap_clocks[SNAP_CLOCKS_MAX];
    struct snap_wait snap_waits[SNAP_WAITS_MAX];
    unsigned snap_fetching;
};

/* A namespace this node self-purged (its tombstone) is never synced; a failed read counts as
 * purged (fail closed). */
static inline bool mero__sync_purged(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN])
{
    bool yes = true;
    return mero_gov_purged(node->store, ns, &yes) < 0 || yes;
}

/* sync.c: the pull driver */
void mero__sync_step(struct job *j);
void mero__sync_job_end(struct job *j);
void mero__sync_send_req(struct job *j, struct mero_buf *b, mero_net_reply_cb cb);
const uint8_t *mero__sync_cur_id(struct job *j);
bool mero__sync_held(struct job *j, const uint8_t h[SYNC_HASH_LEN]);
struct cursor *mero__sync_cursor_find(struct mero_node_sync *s, const char *peer, bool deltas,
                                      const uint8_t id[SYNC_ID_LEN]);
void mero__sync_cursor_put(struct mero_node_sync *s, const char *peer, bool deltas,
                           const uint8_t id[SYNC_ID_LEN], uint64_t seq,
                           const uint8_t anchor[SYNC_HASH_LEN], bool for_now, uint64_t gen);

/* sync_snap_pull.c: catch-up by live state, the requester (issue 37, docs/sync.md) */
enum { SNAP_NO, SNAP_ASK, SNAP_SKIP };
int mero__sync_snap_wanted(struct job *j);
void mero__sync_snap_start(struct job *j);
void mero__sync_snap_drop(struct job *j);
void mero__sync_next_ctx(struct job *j);

/* sync_serve.c: the responder, registered for MERO_SYNC_PROTOCOL */
void mero__sync_on_request(void *ud, struct mero_net_req *req, const char *peer,
                           const uint8_t *data, size_t len);

/* sync_hello.c: HELLO (issue 35) */
int mero__sync_answer_hello(struct mero_node *node, const char *peer, struct mero_cur *c,
                            struct mero_buf *out);
void mero__sync_say_hello(struct mero_node *node, const char *peer,
                          const uint8_t ns[MERO_NS_ID_LEN]);

#endif
