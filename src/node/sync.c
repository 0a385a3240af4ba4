/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync.c - "/mero/sync/1", the pull side of replication: a node asks a peer which op hashes
 * (per namespace) and delta hashes (per context) it holds, fetches the ones it lacks and
 * feeds them to the same apply paths gossip uses (mero_gov_apply, mero__node_ctx_apply).
 * This catches a node up after a restart or a missed publish, and pulls missing parents.
 *
 * Messages (one request frame, one response frame; integers little-endian):
 *   1 INV_OPS    ns[32] after u64          -> 0 last u64 n u32 n*[32]   (n <= 1024)
 *   2 GET_OPS    ns[32] n u32 n*[32]       -> 0 n u32 n*(len u32, bytes) (n <= 64; len 0 = absent)
 *   3 INV_DELTAS ctx[32] after u64         -> as INV_OPS
 *   4 GET_DELTAS ctx[32] n u32 n*[32]      -> as GET_OPS
 *   5 HELLO ns[32] identity[32] sig[64] name_len u8 name  -> 0 | 1 (issue 35, below: which
 *     member of ns the puller speaks for and its --name, signed by that identity over the
 *     puller's node key; sent per (peer, namespace) at most every 30 s, again at once after
 *     a "1"; an older peer drops it, and nothing else waits on it)
 *   6 STATE ctx[32] after u64              -> a page of the context's live state (issue 37,
 *     sync_snap.c, docs/sync.md)
 * A response starting with 1 means "unknown namespace/context". Everything served is signed
 * (ops) or signed and encrypted (deltas), so serving it reveals nothing a member could not
 * read on the gossip topic. Invariants: every count is checked against the remaining bytes
 * and the maxima above; one pull runs per peer at a time (a request during a pull marks it
 * to run again) and pages on only while the responder's cursor advances within 1..2^63-1,
 * bounding the work a slow or hostile peer can cause; a requested cursor beyond 2^63-1 is
 * "after everything", never wrapped. A namespace this node self-purged (its tombstone,
 * mero_gov_purged) is never asked for, and any answer for it that was in flight when the purge
 * ran is dropped, ops and deltas alike (mero__node_sync_take), so a pull that started before the
 * purge cannot bring its op log, members or context data back. For GET /metrics (issue 19) it
 * remembers, per namespace, when an op pull last completed (mero__node_sync_last; memory only).
 *
 * Cursors (issue 20: a catch-up costs what is missing, not the log): per (peer, namespace) for
 * ops and per (peer, context) for deltas this node remembers, in memory, the RESPONDER's
 * sequence of the last inventory entry it holds (the "last u64" of an INV answer) and that
 * entry's hash, the anchor. The next pull asks `after = cursor - 1` and expects the anchor as
 * the first entry: then it skips it and fetches only what follows; when the anchor is not
 * there (the responder's log was rebuilt or reset, or the cursor is beyond its last) or this
 * node no longer holds the anchor (purged and rejoined), the cursor is dropped and the pull
 * starts over from 0 once. A cursor moves past a page only when every entry that page listed
 * is settled here afterwards: held, or a delta refused for good (issue 30: its refusal is
 * remembered, context/refused.c, so it is neither fetched nor refused again). A delta refused for
 * the state of governance is not fetched again while that state is unchanged but keeps the
 * cursor where it was, as a failed entry does, so it is judged afresh once governance moves. A
 * restart starts over once (cursors are not persisted); the table holds MAX_CURSORS entries, the
 * least recently used replaced.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/context/context_internal.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"
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
    bool begin;                       /* the next INV is the first for cur_id() */
    bool anchored;                    /* this INV asked after = cursor - 1: expect the anchor */
    bool stuck;                       /* a page of this id left something unheld: cursor stays */
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

/* issue 37: a peer whose snapshot of ctx was refused, not asked for ctx until until_ms. */
struct snap_bad {
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    uint64_t until_ms;
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
    unsigned snap_fetching;
};

static void note_synced(struct mero_node_sync *s, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct sync_last *slot = &s->last[0];
    for (size_t i = 0; i < SYNC_LAST_MAX; i++) {
        if (memcmp(s->last[i].ns, ns, MERO_NS_ID_LEN) == 0 || s->last[i].at == 0) {
            slot = &s->last[i];
            break;
        }
        if (s->last[i].at < slot->at) {
            slot = &s->last[i];
        }
    }
    memcpy(slot->ns, ns, MERO_NS_ID_LEN);
    slot->at = mero_now_unix();
}

bool mero__node_sync_last(const struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          uint64_t *unix_s)
{
    const struct mero_node_sync *s = node->sync;
    for (size_t i = 0; s != NULL && i < SYNC_LAST_MAX; i++) {
        if (s->last[i].at != 0 && memcmp(s->last[i].ns, ns, MERO_NS_ID_LEN) == 0) {
            *unix_s = s->last[i].at;
            return true;
        }
    }
    return false;
}

static void step(struct job *j);

static bool purged(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN])
{
    bool yes = true;
    return mero_gov_purged(node->store, ns, &yes) < 0 || yes; /* fail closed */
}

int mero__node_sync_take(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], bool delta,
                         const uint8_t *p, size_t len)
{
    if (purged(node, ns)) {
        return 1;
    }
    if (delta) {
        struct mero_err err = {0};
        if (mero__node_ctx_apply(node, p, len, &err) < 0) {
            MERO_DEBUG("synced delta refused: %s", err.msg);
        }
    } else {
        (void)mero__node_apply_op(node, NULL, p, len);
    }
    return 0;
}

static void snap_drop(struct job *j);

static void job_end(struct job *j)
{
    snap_drop(j);
    free(j->nss);
    free(j->ctxs);
    free(j->want);
    j->nss = NULL;
    j->ctxs = NULL;
    j->want = NULL;
    j->busy = false;
    if (j->again) {
        j->again = false;
        mero__node_sync_peer(j->node, j->peer);
    }
}

/* ---- cursors ------------------------------------------------------------------------------ */

static struct cursor *cursor_find(struct mero_node_sync *s, const char *peer, bool deltas,
                                  const uint8_t id[SYNC_ID_LEN])
{
    for (size_t i = 0; i < MAX_CURSORS; i++) {
        struct cursor *c = &s->cursors[i];
        if (c->set && c->deltas == deltas && strcmp(c->peer, peer) == 0 &&
            memcmp(c->id, id, SYNC_ID_LEN) == 0) {
            return c;
        }
    }
    return NULL;
}

static void cursor_put(struct mero_node_sync *s, const char *peer, bool deltas,
                       const uint8_t id[SYNC_ID_LEN], uint64_t seq,
                       const uint8_t anchor[SYNC_HASH_LEN])
{
    struct cursor *c = cursor_find(s, peer, deltas, id);
    for (size_t i = 0; c == NULL && i < MAX_CURSORS; i++) {
        if (!s->cursors[i].set) {
            c = &s->cursors[i];
        }
    }
    if (c == NULL) {
        c = &s->cursors[0];
        for (size_t i = 1; i < MAX_CURSORS; i++) {
            if (s->cursors[i].used < c->used) {
                c = &s->cursors[i];
            }
        }
    }
    c->set = true;
    c->deltas = deltas;
    snprintf(c->peer, sizeof(c->peer), "%s", peer);
    memcpy(c->id, id, sizeof(c->id));
    c->seq = seq;
    memcpy(c->anchor, anchor, sizeof(c->anchor));
    c->used = ++s->tick;
}

static void cursor_drop(struct mero_node_sync *s, const char *peer, bool deltas,
                        const uint8_t id[SYNC_ID_LEN])
{
    struct cursor *c = cursor_find(s, peer, deltas, id);
    if (c != NULL) {
        memset(c, 0, sizeof(*c));
    }
}

/* What this node knows of an entry: for ops, held or not; for deltas, also a remembered
 * refusal (issue 30, context/refused.c). */
static int known(struct job *j, const uint8_t h[SYNC_HASH_LEN])
{
    bool have = false;
    int state = MERO_CTX_UNKNOWN;
    if (j->deltas) {
        return mero__node_ctx_known(j->node, h, &state) == 0 ? state : MERO_CTX_UNKNOWN;
    }
    return mero_gov_has_op(j->node->store, h, &have) == 0 && have ? MERO_CTX_HELD
                                                                  : MERO_CTX_UNKNOWN;
}

/* Settled: held here, or refused for good; the cursor may move past it. */
static bool held(struct job *j, const uint8_t h[SYNC_HASH_LEN])
{
    int k = known(j, h);
    return k == MERO_CTX_HELD || k == MERO_CTX_REFUSED;
}

/* ---- responder ---------------------------------------------------------------------------- */

static int answer_inv(struct mero_node *node, struct mero_cur *c, bool deltas, struct mero_buf *out)
{
    uint8_t id[SYNC_ID_LEN];
    uint64_t after;
    MERO_TRY(mero_cur_copy(c, id, sizeof(id)));
    MERO_TRY(mero_cur_u64le(c, &after));
    uint8_t(*h)[SYNC_HASH_LEN] = NULL;
    size_t n = 0;
    uint64_t last = after;
    int rc = deltas ? mero__node_ctx_hashes(node, id, after, INV_MAX, &h, &n, &last)
                    : mero_gov_op_hashes(node->store, id, after, INV_MAX, &h, &n, &last);
    if (rc < 0) {
        return mero_buf_append_u8(out, 1);
    }
    node->sync->stats.inv_served++;
    node->sync->stats.inv_served_entries += n;
    MERO_TRY_OUT(mero_buf_append_u8(out, 0));
    MERO_TRY_OUT(mero_buf_append_u64le(out, last));
    MERO_TRY_OUT(mero_buf_append_u32le(out, (uint32_t)n));
    if (n > 0) {
        MERO_TRY_OUT(mero_buf_append(out, h, n * sizeof(*h)));
    }
out:
    free(h);
    return rc;
}

/* len u32 | bytes */
static int append_blob(struct mero_buf *out, const uint8_t *p, size_t len)
{
    MERO_TRY(mero_buf_append_u32le(out, (uint32_t)len));
    return len > 0 ? mero_buf_append(out, p, len) : 0;
}

static int answer_get(struct mero_node *node, struct mero_cur *c, bool deltas, struct mero_buf *out)
{
    uint8_t id[SYNC_ID_LEN];
    uint32_t n;
    MERO_TRY(mero_cur_copy(c, id, sizeof(id)));
    MERO_TRY(mero_cur_u32le(c, &n));
    if (n > GET_MAX || mero_cur_left(c) != (size_t)n * SYNC_HASH_LEN) {
        return -MERO_EPROTO;
    }
    MERO_TRY(mero_buf_append_u8(out, 0));
    MERO_TRY(mero_buf_append_u32le(out, n));
    for (uint32_t i = 0; i < n; i++) {
        uint8_t h[SYNC_HASH_LEN];
        MERO_TRY(mero_cur_copy(c, h, sizeof(h)));
        if (deltas) {
            uint8_t *d = NULL;
            size_t len = 0;
            if (mero__node_ctx_delta(node, h, &d, &len) < 0) {
                len = 0;
            }
            int rc = append_blob(out, d, len);
            free(d);
            MERO_TRY(rc);
        } else {
            struct mero_buf op;
            mero_buf_init(&op, SYNC_OP_MAX);
            if (mero_gov_op_get(node->store, h, &op) < 0) {
                op.len = 0;
            }
            int rc = append_blob(out, op.data, op.len);
            mero_buf_cleanup(&op);
            MERO_TRY(rc);
        }
    }
    return 0;
}

/* What a HELLO's identity signs: domain || ns || identity || the sender's node key || name_len
 * u8 || name. The node key is the Noise-authenticated peer's, so a HELLO cannot be replayed
 * from another peer, and the identity's signature binds it (and the name) to that peer. */
static int hello_msg(struct mero_buf *m, const uint8_t ns[MERO_NS_ID_LEN],
                     const uint8_t identity[MERO_IDENTITY_LEN],
                     const uint8_t node_pk[MERO_ED25519_PK_LEN], const uint8_t *name, size_t n)
{
    MERO_TRY(mero_buf_append(m, HELLO_DOMAIN, sizeof(HELLO_DOMAIN) - 1));
    MERO_TRY(mero_buf_append(m, ns, MERO_NS_ID_LEN));
    MERO_TRY(mero_buf_append(m, identity, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append(m, node_pk, MERO_ED25519_PK_LEN));
    MERO_TRY(mero_buf_append_u8(m, (uint8_t)n));
    return mero_buf_append(m, name, n);
}

static bool is_member_of(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t identity[MERO_IDENTITY_LEN])
{
    struct mero_gov_member *ms = NULL;
    size_t n = 0;
    bool yes = false;
    if (mero_gov_members(node->store, ns, &ms, &n) < 0) {
        return false;
    }
    for (size_t i = 0; i < n && !yes; i++) {
        yes = memcmp(ms[i].id, identity, MERO_IDENTITY_LEN) == 0;
    }
    free(ms);
    return yes;
}

int mero_node_sync_hello_encode(const struct mero_sync_hello *h,
                                const uint8_t identity_sk[MERO_ED25519_SK_LEN],
                                const uint8_t node_pk[MERO_ED25519_PK_LEN], struct mero_buf *out)
{
    uint8_t sig[MERO_ED25519_SIG_LEN];
    size_t n = strlen(h->name);
    if (n > MERO_MEMBER_LABEL_MAX || (n > 0 && mero_member_label_check(h->name, n, NULL) < 0)) {
        return -MERO_EINVAL;
    }
    struct mero_buf m;
    mero_buf_init(&m, HELLO_MSG_MAX);
    int rc = hello_msg(&m, h->ns, h->identity, node_pk, (const uint8_t *)h->name, n);
    if (rc == 0) {
        mero_ed25519_sign(sig, m.data, m.len, identity_sk);
    }
    mero_buf_cleanup(&m);
    MERO_TRY(rc);
    MERO_TRY(mero_buf_append_u8(out, HELLO));
    MERO_TRY(mero_buf_append(out, h->ns, MERO_NS_ID_LEN));
    MERO_TRY(mero_buf_append(out, h->identity, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append(out, sig, sizeof(sig)));
    MERO_TRY(mero_buf_append_u8(out, (uint8_t)n));
    return mero_buf_append(out, h->name, n);
}

int mero_node_sync_hello_decode(const uint8_t *data, size_t len,
                                const uint8_t node_pk[MERO_ED25519_PK_LEN],
                                struct mero_sync_hello *out)
{
    const uint8_t *ns = NULL, *identity = NULL, *sig = NULL, *name = NULL;
    uint8_t n = 0;
    struct mero_cur c;
    memset(out, 0, sizeof(*out));
    mero_cur_init(&c, data, len);
    if (mero_cur_bytes(&c, MERO_NS_ID_LEN, &ns) < 0 ||
        mero_cur_bytes(&c, MERO_IDENTITY_LEN, &identity) < 0 ||
        mero_cur_bytes(&c, MERO_ED25519_SIG_LEN, &sig) < 0 || mero_cur_u8(&c, &n) < 0 ||
        n > MERO_MEMBER_LABEL_MAX || mero_cur_bytes(&c, n, &name) < 0 || mero_cur_left(&c) != 0 ||
        (n > 0 && mero_member_label_check((const char *)name, n, NULL) < 0)) {
        return -MERO_EPROTO;
    }
    struct mero_buf m;
    mero_buf_init(&m, HELLO_MSG_MAX);
    int rc = hello_msg(&m, ns, identity, node_pk, name, n);
    if (rc == 0 && mero_ed25519_verify(sig, m.data, m.len, identity) < 0) {
        rc = -MERO_EBADSIG;
    }
    mero_buf_cleanup(&m);
    MERO_TRY(rc);
    memcpy(out->ns, ns, MERO_NS_ID_LEN);
    memcpy(out->identity, identity, MERO_IDENTITY_LEN);
    memcpy(out->name, name, n);
    out->name[n] = '\0';
    return 0;
}

/*
 * HELLO (issue 35 item 6, sync_internal.h): the peer says which member of ns it speaks for and
 * the name it runs under (merod --name). Decoded and checked against the peer's own key, then
 * the identity must be a member of the namespace root; the fleet view then counts the peer's
 * traffic for that member (last seen) and shows the name. Answer 0; 1 for a namespace this
 * node does not follow or an identity that is not (yet) its member; anything malformed or
 * unsigned is dropped.
 */
static int answer_hello(struct mero_node *node, const char *peer, struct mero_cur *c,
                        struct mero_buf *out)
{
    uint8_t peer_pk[MERO_ED25519_PK_LEN];
    struct mero_sync_hello h;
    const uint8_t *rest = NULL;
    size_t left = mero_cur_left(c);
    MERO_TRY(mero_cur_bytes(c, left, &rest));
    MERO_TRY(mero_net_peer_id_pk(peer, peer_pk));
    MERO_TRY(mero_node_sync_hello_decode(rest, left, peer_pk, &h));
    if (purged(node, h.ns) || !is_member_of(node, h.ns, h.identity)) {
        return mero_buf_append_u8(out, 1);
    }
    mero_node_seen_hello(node, h.ns, h.identity, peer, h.name);
    return mero_buf_append_u8(out, 0);
}

static int answer(struct mero_node *node, const char *peer, struct mero_cur *c,
                  struct mero_buf *out)
{
    uint8_t kind = 0;
    MERO_TRY(mero_cur_u8(c, &kind));
    switch (kind) {
    case HELLO:
        return answer_hello(node, peer, c, out);
    case INV_OPS:
        return answer_inv(node, c, false, out);
    case INV_DELTAS:
        return answer_inv(node, c, true, out);
    case GET_OPS:
        return answer_get(node, c, false, out);
    case GET_DELTAS:
        return answer_get(node, c, true, out);
    case STATE:
        node->sync->stats.snap_served++;
        return mero_node_snap_answer(node, &node->sync->snap_sessions, peer, c, out);
    default:
        return -MERO_EPROTO;
    }
}

static void on_request(void *ud, struct mero_net_req *req, const char *peer, const uint8_t *data,
                       size_t len)
{
    struct mero_node *node = ud;
    struct mero_cur c;
    struct mero_buf out;
    mero_cur_init(&c, data, len);
    mero_buf_init(&out, SYNC_ANSWER_MAX);
    int rc = answer(node, peer, &c, &out);
    if (rc < 0) {
        MERO_DEBUG("sync request from %s refused: %s", peer, mero_strerror(rc));
        mero_net_req_drop(req);
    } else {
        if (mero_net_respond(req, out.data, out.len) < 0) {
            MERO_DEBUG("sync answer to %s not delivered", peer);
        }
    }
    mero_buf_cleanup(&out);
}

/* ---- requester ---------------------------------------------------------------------------- */

static const uint8_t *cur_id(struct job *j)
{
    return j->deltas ? j->ctxs[j->ictx] : j->nss[j->ins];
}

static void send_req(struct job *j, struct mero_buf *b, mero_net_reply_cb cb)
{
    int rc = mero_net_request(j->node->net, j->peer, MERO_SYNC_PROTOCOL, b->data, b->len,
                              SYNC_TIMEOUT_MS, cb, j);
    mero_buf_cleanup(b);
    if (rc < 0) {
        job_end(j);
    }
}

static void on_get(void *ud, int status, const uint8_t *data, size_t len);

/* kind | id | n u32 | the next n wanted hashes */
static int get_req(struct mero_buf *b, struct job *j, size_t n)
{
    MERO_TRY(mero_buf_append_u8(b, j->deltas ? GET_DELTAS : GET_OPS));
    MERO_TRY(mero_buf_append(b, cur_id(j), SYNC_ID_LEN));
    MERO_TRY(mero_buf_append_u32le(b, (uint32_t)n));
    return mero_buf_append(b, j->want[j->iwant], n * SYNC_HASH_LEN);
}

/* kind | id | after u64 */
static int inv_req(struct mero_buf *b, struct job *j)
{
    MERO_TRY(mero_buf_append_u8(b, j->deltas ? INV_DELTAS : INV_OPS));
    MERO_TRY(mero_buf_append(b, cur_id(j), SYNC_ID_LEN));
    return mero_buf_append_u64le(b, j->after == UINT64_MAX ? 0 : j->after);
}

/* Every entry of the inventory page just fetched is held: the cursor moves to its tail. */
static void page_done(struct job *j)
{
    for (size_t k = 0; k < j->nwant && !j->stuck; k++) {
        j->stuck = !held(j, j->want[k]);
    }
    if (!j->stuck && j->page_any) {
        cursor_put(j->node->sync, j->peer, j->deltas, cur_id(j), j->page_last, j->page_tail);
    }
    j->page_any = false;
}

static void fetch_next(struct job *j)
{
    if (j->iwant >= j->nwant) {
        page_done(j);
        free(j->want);
        j->want = NULL;
        j->nwant = j->iwant = 0;
        if (j->after != UINT64_MAX) {
            /* the inventory page was full: ask for the next page */
            step(j);
            return;
        }
        j->after = 0;
        j->begin = true;
        if (j->deltas) {
            j->ictx++;
        } else {
            if (!j->ns_unknown) {
                note_synced(j->node->sync, j->nss[j->ins]); /* every op it listed, fetched */
            }
            j->ns_unknown = false;
            j->deltas = true;
            j->ictx = 0;
        }
        step(j);
        return;
    }
    size_t n = j->nwant - j->iwant;
    if (n > GET_MAX) {
        n = GET_MAX;
    }
    struct mero_buf b;
    mero_buf_init(&b, SYNC_REQ_HEAD_MAX + n * SYNC_HASH_LEN);
    int rc = get_req(&b, j, n);
    j->iwant += n;
    j->node->sync->stats.get_sent++;
    j->node->sync->stats.get_entries += n;
    if (rc < 0) {
        mero_buf_cleanup(&b);
        job_end(j);
        return;
    }
    send_req(j, &b, on_get);
}

static void on_get(void *ud, int status, const uint8_t *data, size_t len)
{
    struct job *j = ud;
    struct mero_cur c;
    uint8_t ok = 1;
    uint32_t n = 0;
    mero_cur_init(&c, data, len);
    if (status < 0 || mero_cur_u8(&c, &ok) < 0 || ok != 0 || mero_cur_u32le(&c, &n) < 0 ||
        n > GET_MAX) {
        job_end(j);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l;
        const uint8_t *p;
        if (mero_cur_u32le(&c, &l) < 0 || mero_cur_bytes(&c, l, &p) < 0) {
            job_end(j);
            return;
        }
        if (l == 0) {
            continue;
        }
        (void)mero__node_sync_take(j->node, j->nss[j->ins], j->deltas, p, l);
    }
    fetch_next(j);
}

static void on_inv(void *ud, int status, const uint8_t *data, size_t len)
{
    struct job *j = ud;
    struct mero_node_sync *s = j->node->sync;
    struct mero_cur c;
    uint8_t ok = 1;
    uint64_t last = 0;
    uint32_t n = 0;
    const uint8_t *hs = NULL;
    mero_cur_init(&c, data, len);
    if (status < 0 || mero_cur_u8(&c, &ok) < 0) {
        MERO_DEBUG("sync inventory from %s not answered: %s", j->peer,
                   status < 0 ? mero_strerror(status) : "empty");
        job_end(j);
        return;
    }
    mero__node_seen_from_peer(j->node, j->peer, MERO_FLEET_SEEN_SYNC); /* issue 19: last seen */
    bool anchored = j->anchored;
    j->anchored = false;
    if (ok != 0 || mero_cur_u64le(&c, &last) < 0 || mero_cur_u32le(&c, &n) < 0 || n > INV_MAX ||
        mero_cur_bytes(&c, (size_t)n * SYNC_HASH_LEN, &hs) < 0 || mero_cur_left(&c) != 0 ||
        purged(j->node, j->nss[j->ins])) {
        /* the peer does not know this namespace/context, or we purged it meanwhile: move on */
        j->ns_unknown = !j->deltas;
        cursor_drop(s, j->peer, j->deltas, cur_id(j));
        j->after = UINT64_MAX;
        j->nwant = j->iwant = 0;
        j->page_any = false;
        fetch_next(j);
        return;
    }
    s->stats.inv_entries += n;
    size_t skip = 0;
    if (anchored) {
        if (n == 0 || memcmp(hs, j->anchor, SYNC_HASH_LEN) != 0) {
            /* the responder's log is not the one the cursor was taken from (rebuilt, reset,
             * or shorter than the cursor): start over from its beginning, once */
            MERO_DEBUG("sync cursor of %s no longer matches its log: starting over", j->peer);
            cursor_drop(s, j->peer, j->deltas, cur_id(j));
            s->stats.restarts++;
            j->after = 0;
            step(j);
            return;
        }
        skip = 1; /* the anchor itself: held here (checked when the cursor was taken up) */
    }
    j->page_any = n > 0;
    if (n > 0) {
        memcpy(j->page_tail, hs + (size_t)(n - 1) * SYNC_HASH_LEN, SYNC_HASH_LEN);
        j->page_last = last;
    }
    j->want = n ? malloc((size_t)n * sizeof(*j->want)) : NULL;
    j->nwant = j->iwant = 0;
    for (size_t i = skip; i < n && j->want != NULL; i++) {
        const uint8_t *h = hs + i * SYNC_HASH_LEN;
        int k = known(j, h);
        if (k == MERO_CTX_UNKNOWN) {
            memcpy(j->want[j->nwant++], h, SYNC_HASH_LEN);
        } else if (k == MERO_CTX_REFUSED_FOR_NOW) {
            j->stuck = true; /* not fetched now, but the cursor stays before it */
        }
    }
    if (n > 0 && j->want == NULL) {
        job_end(j); /* out of memory: the cursor stays */
        return;
    }
    j->after = mero__node_sync_next_after(j->after == UINT64_MAX ? 0 : j->after, n, INV_MAX, last);
    fetch_next(j);
}

uint64_t mero__node_sync_next_after(uint64_t sent, uint32_t n, uint32_t max, uint64_t last)
{
    /* page on only when the peer's cursor moved forward and stays in SQLite's range */
    return (n == max && last > sent && last <= INT64_MAX) ? last : UINT64_MAX;
}

/* First INV for cur_id(): ask from the cursor when one is kept and its anchor is held here. */
static void take_cursor(struct job *j)
{
    j->begin = false;
    j->stuck = false;
    j->anchored = false;
    j->page_any = false;
    struct cursor *c = cursor_find(j->node->sync, j->peer, j->deltas, cur_id(j));
    if (c == NULL) {
        return;
    }
    if (c->seq == 0 || c->seq > INT64_MAX || !held(j, c->anchor)) {
        cursor_drop(j->node->sync, j->peer, j->deltas, cur_id(j));
        return;
    }
    c->used = ++j->node->sync->tick;
    memcpy(j->anchor, c->anchor, sizeof(j->anchor));
    j->after = c->seq - 1;
    j->anchored = true;
}

/* ---- issue 37: catch-up by live state (requester) ------------------------------------ */

enum { SNAP_NO, SNAP_ASK, SNAP_SKIP };

static struct snap_bad *snap_bad_find(struct mero_node_sync *s, const char *peer,
                                      const uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    for (size_t i = 0; i < SNAP_BAD_MAX; i++) {
        struct snap_bad *b = &s->snap_bad[i];
        if (b->until_ms != 0 && strcmp(b->peer, peer) == 0 &&
            memcmp(b->ctx, ctx, sizeof(b->ctx)) == 0) {
            return b;
        }
    }
    return NULL;
}

static void snap_bad_note(struct mero_node_sync *s, const char *peer,
                          const uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    struct snap_bad *b = snap_bad_find(s, peer, ctx);
    for (size_t i = 0; b == NULL && i < SNAP_BAD_MAX; i++) {
        if (s->snap_bad[i].until_ms == 0) {
            b = &s->snap_bad[i];
        }
    }
    if (b == NULL) {
        b = &s->snap_bad[0]; /* full: the entry whose ban ends first */
        for (size_t k = 1; k < SNAP_BAD_MAX; k++) {
            b = s->snap_bad[k].until_ms < b->until_ms ? &s->snap_bad[k] : b;
        }
    }
    snprintf(b->peer, sizeof(b->peer), "%s", peer);
    memcpy(b->ctx, ctx, sizeof(b->ctx));
    b->until_ms = mero_now_ms() + SNAP_BAN_MS;
}

/* A context this node holds nothing of is caught up by its live state (docs/sync.md); from a
 * peer whose snapshot of it was refused lately, not at all (another peer's will be asked). */
static int snap_wanted(struct job *j)
{
    struct mero_node_sync *s = j->node->sync;
    bool any = true, snapped = false;
    uint64_t clock = 0;
    if (j->node->full_history ||
        (j->snap_tried && memcmp(j->snap_ctx, cur_id(j), SYNC_ID_LEN) == 0) ||
        mero_node_ctx_held_any(j->node, cur_id(j), &any) < 0 ||
        (any && (mero_node_ctx_snapshot_of(j->node, cur_id(j), &clock, &snapped) < 0 || !snapped ||
                 cursor_find(s, j->peer, true, cur_id(j)) != NULL))) {
        /* asked once in this pull already; or the node keeps the history of this context, or
         * already follows this peer's log of it from a cursor */
        return SNAP_NO;
    }
    struct snap_bad *b = snap_bad_find(s, j->peer, cur_id(j));
    if (b != NULL && mero_now_ms() < b->until_ms) {
        return SNAP_SKIP;
    }
    /* holding nothing, every entry must beat nothing held (strict); holding a live state
     * already, this peer's is merged by last-writer-wins and its log followed from its tail */
    j->snap_strict = !any;
    return s->snap_fetching < SNAP_FETCH_MAX ? SNAP_ASK : SNAP_NO;
}

static void snap_drop(struct job *j)
{
    if (!j->snap) {
        return;
    }
    j->snap = false;
    j->snap_tried = true;
    memcpy(j->snap_ctx, cur_id(j), SYNC_ID_LEN);
    j->node->sync->snap_fetching--;
    mero_buf_cleanup(&j->snap_heads);
    mero_buf_cleanup(&j->snap_vals);
}

/* Leave cur_id() for the next context of this pull. */
static void next_ctx(struct job *j)
{
    snap_drop(j);
    j->after = 0;
    j->begin = true;
    j->ictx++;
    step(j);
}

static void on_state(void *ud, int status, const uint8_t *data, size_t len);

static void snap_ask(struct job *j)
{
    struct mero_buf b;
    mero_buf_init(&b, SNAP_REQ_LEN);
    if (mero_buf_append_u8(&b, STATE) < 0 || mero_buf_append(&b, cur_id(j), SYNC_ID_LEN) < 0 ||
        mero_buf_append_u64le(&b, j->snap_after) < 0) {
        mero_buf_cleanup(&b);
        job_end(j);
        return;
    }
    j->node->sync->stats.snap_pages++;
    send_req(j, &b, on_state);
}

static void snap_start(struct job *j)
{
    j->snap = true;
    j->node->sync->snap_fetching++;
    j->snap_after = 0;
    mero_buf_init(&j->snap_heads, (size_t)MERO_SNAP_HEADS_MAX * (MERO_DELTA_MAX + 4));
    mero_buf_init(&j->snap_vals, SNAP_TOTAL_MAX);
    snap_ask(j);
}

/* Every page is in: verify and install (nothing of it is served before), then go on with
 * ordinary delta sync from the snapshot's tail. Refused: this peer is not asked for the context
 * for SNAP_BAN_MS, and the pull moves on (the next round asks another peer). */
static void snap_finish(struct job *j)
{
    struct mero_node_sync *s = j->node->sync;
    struct mero_err err = {0};
    char h[MERO_HEX_SIZE(SYNC_ID_LEN)];
    mero_hex_encode(h, cur_id(j), SYNC_ID_LEN);
    if (j->snap_clock == 0) {
        snap_drop(j); /* the peer holds nothing of it: ordinary sync */
        step(j);
        return;
    }
    int rc = mero_node_ctx_snap_install(j->node, cur_id(j), j->snap_clock, j->snap_heads.data,
                                        j->snap_heads.len, j->snap_vals.data, j->snap_vals.len,
                                        j->snap_strict, j->peer, &err);
    if (rc < 0) {
        s->stats.snap_refused++;
        MERO_WARN("live state of context %.16s… from %s refused: %s; asking another peer", h,
                  j->peer, err.msg);
        snap_bad_note(s, j->peer, cur_id(j));
        next_ctx(j);
        return;
    }
    s->stats.snap_installed++;
    MERO_INFO("context %.16s… caught up by live state from %s (clock %llu)", h, j->peer,
              (unsigned long long)j->snap_clock);
    if (j->snap_seq > 0 && held(j, j->snap_tail)) {
        cursor_put(s, j->peer, true, cur_id(j), j->snap_seq, j->snap_tail);
    }
    snap_drop(j);
    step(j); /* j->begin: the INV starts from the cursor just taken */
}

static void on_state(void *ud, int status, const uint8_t *data, size_t len)
{
    struct job *j = ud;
    struct mero_node_sync *s = j->node->sync;
    struct mero_snap_page pg;
    if (status < 0) {
        MERO_DEBUG("live state from %s not answered: %s", j->peer, mero_strerror(status));
        job_end(j);
        return;
    }
    if (mero_node_snap_page_decode(data, len, &pg) < 0) {
        MERO_DEBUG("live state from %s does not decode", j->peer);
        snap_bad_note(s, j->peer, cur_id(j));
        next_ctx(j);
        return;
    }
    if (pg.status == MERO_SNAP_BUSY) {
        s->stats.snap_busy++;
        next_ctx(j); /* asked again at the next round */
        return;
    }
    if (pg.status == MERO_SNAP_UNKNOWN) {
        snap_drop(j);
        step(j); /* the inventory says so too, and moves on */
        return;
    }
    if (j->snap_after == 0) {
        j->snap_clock = pg.clock;
        j->snap_seq = pg.seq;
        memcpy(j->snap_tail, pg.tail, sizeof(j->snap_tail));
        if (mero_buf_append(&j->snap_heads, pg.heads, pg.heads_len) < 0) {
            next_ctx(j);
            return;
        }
    }
    if (mero_buf_append(&j->snap_vals, pg.vals, pg.vals_len) < 0) {
        /* larger than a snapshot may be in memory: the history, delta by delta */
        MERO_INFO("live state from %s beyond %u bytes: pulling the history instead", j->peer,
                  SNAP_TOTAL_MAX);
        snap_drop(j);
        step(j);
        return;
    }
    if (pg.next != 0) {
        if (pg.next <= j->snap_after) {
            snap_bad_note(s, j->peer, cur_id(j)); /* a cursor that does not advance */
            next_ctx(j);
            return;
        }
        j->snap_after = pg.next;
        snap_ask(j);
        return;
    }
    snap_finish(j);
}

static void step(struct job *j)
{
    /* skip namespaces self-purged here, also one purged while this pull was under way */
    while (j->ins < j->nns && purged(j->node, j->nss[j->ins])) {
        free(j->ctxs);
        j->ctxs = NULL;
        j->deltas = false;
        j->ins++;
        j->after = 0;
        j->begin = true;
    }
    if (!j->deltas && j->ins >= j->nns) {
        job_end(j);
        return;
    }
    if (j->deltas && j->ctxs == NULL) {
        struct mero_gov_context *cs = NULL;
        size_t n = 0;
        if (mero_gov_contexts(j->node->store, j->nss[j->ins], &cs, &n) < 0) {
            n = 0;
        }
        j->ctxs = n ? malloc(n * sizeof(*j->ctxs)) : NULL;
        j->nctx = j->ctxs ? n : 0;
        for (size_t i = 0; i < j->nctx; i++) {
            memcpy(j->ctxs[i], cs[i].id, sizeof(j->ctxs[i]));
        }
        free(cs);
        j->ictx = 0;
    }
    if (j->deltas && j->ictx >= j->nctx) {
        /* next namespace */
        free(j->ctxs);
        j->ctxs = NULL;
        j->deltas = false;
        j->ins++;
        j->after = 0;
        j->begin = true;
        step(j);
        return;
    }
    if (j->begin && j->deltas) {
        int w = snap_wanted(j);
        if (w == SNAP_SKIP) {
            next_ctx(j);
            return;
        }
        if (w == SNAP_ASK) {
            snap_start(j);
            return;
        }
    }
    if (j->begin) {
        take_cursor(j);
    }
    struct mero_buf b;
    mero_buf_init(&b, SYNC_REQ_HEAD_MAX);
    j->node->sync->stats.inv_sent++;
    if (inv_req(&b, j) < 0) {
        mero_buf_cleanup(&b);
        job_end(j);
        return;
    }
    send_req(j, &b, on_inv);
}

/* What a HELLO in flight needs when its answer comes. */
struct hello_req {
    struct mero_node *node;
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ns[MERO_NS_ID_LEN];
};

static struct hello_sent *hello_slot(struct mero_node_sync *s, const char *peer,
                                     const uint8_t ns[MERO_NS_ID_LEN]);

/* Nothing else depends on the answer (an older peer does not know HELLO); "1" (the peer does
 * not count us a member yet, or does not follow the namespace) frees the slot, so the next
 * pull says it again rather than HELLO_EVERY_S later. */
static void on_hello(void *ud, int status, const uint8_t *data, size_t len)
{
    struct hello_req *h = ud;
    if (status == 0 && len == 1 && data[0] == 1 && h->node->sync != NULL) {
        hello_slot(h->node->sync, h->peer, h->ns)->at = 0;
    }
    free(h);
}

/* The HELLO slot of (peer, ns): its own, else a free one, else the oldest. */
static struct hello_sent *hello_slot(struct mero_node_sync *s, const char *peer,
                                     const uint8_t ns[MERO_NS_ID_LEN])
{
    struct hello_sent *oldest = &s->hellos[0];
    for (size_t i = 0; i < HELLO_SENT_MAX; i++) {
        struct hello_sent *h = &s->hellos[i];
        if (h->at != 0 && strcmp(h->peer, peer) == 0 && memcmp(h->ns, ns, MERO_NS_ID_LEN) == 0) {
            return h;
        }
        if (h->at < oldest->at) {
            oldest = h;
        }
    }
    memset(oldest, 0, sizeof(*oldest));
    snprintf(oldest->peer, sizeof(oldest->peer), "%s", peer);
    memcpy(oldest->ns, ns, MERO_NS_ID_LEN);
    return oldest;
}

/* Tell peer, every HELLO_EVERY_S per namespace, which member of ns this node is and its name
 * (issue 35): signed by our identity in ns (answer_hello checks it). */
static void say_hello(struct mero_node *node, const char *peer, const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t identity[MERO_IDENTITY_LEN], sk[MERO_ED25519_SK_LEN];
    uint64_t now = mero_now_unix();
    struct hello_sent *h = hello_slot(node->sync, peer, ns);
    if ((h->at != 0 && now - h->at < HELLO_EVERY_S) ||
        mero_gov_identity(node->store, ns, false, identity, NULL) < 0) {
        return;
    }
    h->at = now;
    struct mero_sync_hello hello;
    memset(&hello, 0, sizeof(hello));
    memcpy(hello.ns, ns, MERO_NS_ID_LEN);
    memcpy(hello.identity, identity, MERO_IDENTITY_LEN);
    const char *name = mero_node_name(node);
    size_t n = name != NULL ? strlen(name) : 0;
    if (n > 0 && n <= MERO_MEMBER_LABEL_MAX && mero_member_label_check(name, n, NULL) == 0) {
        memcpy(hello.name, name, n); /* a name the peers would refuse is not announced */
    }
    struct mero_buf b;
    mero_buf_init(&b, 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN + MERO_ED25519_SIG_LEN + 1 +
                          MERO_MEMBER_LABEL_MAX);
    int rc = mero_gov_identity_secret(node->store, ns, sk);
    if (rc == 0) {
        rc = mero_node_sync_hello_encode(&hello, sk, node->id_pk, &b);
    }
    mero_wipe(sk, sizeof(sk));
    struct hello_req *req = rc == 0 ? calloc(1, sizeof(*req)) : NULL;
    if (req != NULL) {
        req->node = node;
        snprintf(req->peer, sizeof(req->peer), "%s", peer);
        memcpy(req->ns, ns, MERO_NS_ID_LEN);
        if (mero_net_request(node->net, peer, MERO_SYNC_PROTOCOL, b.data, b.len, SYNC_TIMEOUT_MS,
                             on_hello, req) < 0) {
            MERO_DEBUG("sync: HELLO to %s not sent", peer);
            free(req);
        }
    }
    mero_buf_cleanup(&b);
}

static struct job *job_for(struct mero_node *node, const char *peer)
{
    struct mero_node_sync *s = node->sync;
    struct job *free_slot = NULL;
    for (size_t i = 0; i < MAX_JOBS; i++) {
        if (s->jobs[i].busy && strcmp(s->jobs[i].peer, peer) == 0) {
            s->jobs[i].again = true;
            return NULL;
        }
        if (!s->jobs[i].busy && free_slot == NULL) {
            free_slot = &s->jobs[i];
        }
    }
    return free_slot;
}

static void start_job(struct mero_node *node, const char *peer, uint8_t (*nss)[MERO_NS_ID_LEN],
                      size_t n)
{
    struct job *j = node->sync ? job_for(node, peer) : NULL;
    if (j == NULL || n == 0) {
        free(nss);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!purged(node, nss[i])) {
            say_hello(node, peer, nss[i]); /* issue 35: who we are, for the fleet view */
        }
    }
    memset(j, 0, sizeof(*j));
    j->node = node;
    snprintf(j->peer, sizeof(j->peer), "%s", peer);
    j->busy = true;
    j->begin = true;
    j->nss = nss;
    j->nns = n;
    step(j);
}

void mero__node_sync_peer(struct mero_node *node, const char *peer_id)
{
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    if (node->store == NULL || mero_gov_namespaces(node->store, &nss, &n) < 0) {
        return;
    }
    start_job(node, peer_id, nss, n);
}

void mero__node_sync_pull(struct mero_node *node, const char *peer_id,
                          const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t(*one)[MERO_NS_ID_LEN] = malloc(sizeof(*one));
    if (one == NULL) {
        return;
    }
    memcpy(one[0], ns, sizeof(one[0]));
    start_job(node, peer_id, one, 1);
}

int mero__node_sync_start(struct mero_node *node, struct mero_err *err)
{
    node->sync = calloc(1, sizeof(*node->sync));
    if (node->sync == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    int rc = mero_net_handle(node->net, MERO_SYNC_PROTOCOL, on_request, node);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot register %s", MERO_SYNC_PROTOCOL);
    }
    return 0;
}

void mero__node_sync_stop(struct mero_node *node)
{
    if (node->sync == NULL) {
        return;
    }
    /* mero_net_free (called next) completes pending requests with -MERO_ECLOSED, which ends
     * each job; the job table itself is freed after that, in mero_node_close's order. */
    struct mero_node_sync *s = node->sync;
    for (size_t i = 0; i < MAX_JOBS; i++) {
        s->jobs[i].again = false;
    }
}

/* ---- issue 20: sync cursors (src/node/sync.c) ---- */

void mero__node_sync_get_stats(const struct mero_node *node, struct mero_node_sync_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (node->sync != NULL) {
        *out = node->sync->stats;
    }
}

bool mero__node_sync_busy(const struct mero_node *node)
{
    for (size_t i = 0; node->sync != NULL && i < MAX_JOBS; i++) {
        if (node->sync->jobs[i].busy) {
            return true;
        }
    }
    return false;
}
