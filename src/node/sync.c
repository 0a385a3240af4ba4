/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync.c - "/mero/sync/1", the pull side of replication: a node asks a peer which op hashes
 * (per namespace) and delta hashes (per context) it holds, fetches the ones it lacks and
 * feeds them to the same apply paths gossip uses (mero_gov_apply, mero__node_ctx_apply).
 * This catches a node up after a restart or a missed publish, and pulls missing parents: the
 * one intake of an op a peer sent, gossip's (service.c) and sync's, is here
 * (mero__node_apply_op), as its missing parent is answered by a pull from the sender.
 * This file is the pull driver (one job per peer: inventories, fetches, cursors); the responder
 * is sync_serve.c, HELLO sync_hello.c, live state sync_snap_pull.c (requester) and sync_snap.c
 * (responder); what they share is sync_job_internal.h.
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
 * is settled here afterwards: held, or a delta refused (issue 30: its refusal is remembered,
 * context/refused.c, so it is neither fetched nor refused again). A delta refused for the state
 * of governance is settled only at that state: a cursor that passed one records the namespace's
 * governance generation and is dropped once it moves, so the context's deltas are listed from
 * the start and every such delta judged afresh; when it moves during the pull that passed one,
 * the cursor stays where it was. (It used to keep the cursor before that delta:
 * every round then listed the rest of the context again, and beyond the memory's bound the
 * forgotten refusals were fetched and refused again at every round.) A restart starts over once
 * (cursors are not persisted); the table holds MAX_CURSORS entries, the least recently used
 * replaced.
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
#include "node/sync_internal.h"
#include "node/sync_job_internal.h"

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

int mero__node_apply_op(struct mero_node *node, const char *from, const uint8_t *op, size_t len,
                        int *status_out)
{
    int status = MERO_APPLY_DUPLICATE;
    uint8_t hash[MERO_OP_ID_LEN], missing[MERO_OP_ID_LEN];
    struct mero_err err = {0};
    int rc = mero_gov_apply(node->store, op, len, &status, hash, missing, &err);
    if (rc == -MERO_EMISSINGPARENT && from != NULL) {
        uint8_t ns[MERO_NS_ID_LEN];
        /* the namespace id sits right after the version byte of every signed op */
        if (len > 1 + sizeof(ns)) {
            memcpy(ns, op + 1, sizeof(ns));
            mero__node_sync_pull(node, from, ns);
        }
    } else if (rc < 0 && status == MERO_APPLY_REJECTED) {
        /* issue 30: a member's op the rules refuse at its place in the canonical order is kept
         * without effect, so every peer folds the same set; logged once (a second copy is a
         * duplicate), forwarded like any stored op, and counted against nobody (the peer that
         * sent it may have held it effective before a concurrent op re-folded it) */
        MERO_INFO("op from %s kept without effect (refused at its place in the canonical "
                  "order): %s",
                  from ? from : "local", err.msg);
        node->gov_rejected++;
        rc = 0;
    } else if (rc < 0) {
        MERO_INFO("op from %s refused: %s", from ? from : "local", err.msg);
    }
    if (status_out != NULL) {
        *status_out = status;
    }
    return rc;
}

int mero__node_sync_take(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], bool delta,
                         const uint8_t *p, size_t len)
{
    if (mero__sync_purged(node, ns)) {
        return 1;
    }
    if (delta) {
        struct mero_err err = {0};
        if (mero__node_ctx_apply(node, p, len, &err) < 0) {
            MERO_DEBUG("synced delta refused: %s", err.msg);
        }
    } else {
        (void)mero__node_apply_op(node, NULL, p, len, NULL);
    }
    return 0;
}

void mero__sync_job_end(struct job *j)
{
    mero__sync_snap_drop(j);
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

struct cursor *mero__sync_cursor_find(struct mero_node_sync *s, const char *peer, bool deltas,
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

void mero__sync_cursor_put(struct mero_node_sync *s, const char *peer, bool deltas,
                           const uint8_t id[SYNC_ID_LEN], uint64_t seq,
                           const uint8_t anchor[SYNC_HASH_LEN], bool for_now, uint64_t gen)
{
    struct cursor *c = mero__sync_cursor_find(s, peer, deltas, id);
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
    c->for_now = for_now;
    c->gen = gen;
    c->used = ++s->tick;
}

static void cursor_drop(struct mero_node_sync *s, const char *peer, bool deltas,
                        const uint8_t id[SYNC_ID_LEN])
{
    struct cursor *c = mero__sync_cursor_find(s, peer, deltas, id);
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
bool mero__sync_held(struct job *j, const uint8_t h[SYNC_HASH_LEN])
{
    int k = known(j, h);
    return k == MERO_CTX_HELD || k == MERO_CTX_REFUSED;
}

/* The governance generation of the namespace being pulled (deltas phase); false unread. */
static bool gen_now(struct job *j, uint64_t *gen)
{
    *gen = 0;
    return j->deltas && mero__node_ctx_gov_gen(j->node, j->nss[j->ins], gen) == 0;
}

/* A delta refused for now at the current generation was passed: the first one fixes the
 * generation the cursor may be kept at (page_done keeps it where it was if it moved since). */
static void passed_for_now(struct job *j)
{
    if (!j->for_now && !gen_now(j, &j->for_now_gen)) {
        j->stuck = true; /* the generation unread: keep the cursor where it was */
    }
    j->for_now = true;
}

/* Settled for this job's cursor: held, refused for good, or a delta refused for now at the
 * current governance generation (issue 30), which passed_for_now records. */
static bool settled(struct job *j, const uint8_t h[SYNC_HASH_LEN])
{
    int k = known(j, h);
    if (k == MERO_CTX_REFUSED_FOR_NOW) {
        passed_for_now(j);
    }
    return k == MERO_CTX_HELD || k == MERO_CTX_REFUSED || k == MERO_CTX_REFUSED_FOR_NOW;
}

/* ---- requester ---------------------------------------------------------------------------- */

const uint8_t *mero__sync_cur_id(struct job *j)
{
    return j->deltas ? j->ctxs[j->ictx] : j->nss[j->ins];
}

void mero__sync_send_req(struct job *j, struct mero_buf *b, mero_net_reply_cb cb)
{
    int rc = mero_net_request(j->node->net, j->peer, MERO_SYNC_PROTOCOL, b->data, b->len,
                              SYNC_TIMEOUT_MS, cb, j);
    mero_buf_cleanup(b);
    if (rc < 0) {
        mero__sync_job_end(j);
    }
}

static void on_get(void *ud, int status, const uint8_t *data, size_t len);

/* kind | id | n u32 | the next n wanted hashes */
static int get_req(struct mero_buf *b, struct job *j, size_t n)
{
    MERO_TRY(mero_buf_append_u8(b, j->deltas ? GET_DELTAS : GET_OPS));
    MERO_TRY(mero_buf_append(b, mero__sync_cur_id(j), SYNC_ID_LEN));
    MERO_TRY(mero_buf_append_u32le(b, (uint32_t)n));
    return mero_buf_append(b, j->want[j->iwant], n * SYNC_HASH_LEN);
}

/* kind | id | after u64 */
static int inv_req(struct mero_buf *b, struct job *j)
{
    MERO_TRY(mero_buf_append_u8(b, j->deltas ? INV_DELTAS : INV_OPS));
    MERO_TRY(mero_buf_append(b, mero__sync_cur_id(j), SYNC_ID_LEN));
    return mero_buf_append_u64le(b, j->after == UINT64_MAX ? 0 : j->after);
}

/* Every entry of the inventory page just fetched is settled: the cursor moves to its tail,
 * noting the governance generation when it passed a delta refused for now (issue 30). */
static void page_done(struct job *j)
{
    for (size_t k = 0; k < j->nwant && !j->stuck; k++) {
        j->stuck = !settled(j, j->want[k]);
    }
    uint64_t gen = 0;
    if (j->for_now && (!gen_now(j, &gen) || gen != j->for_now_gen)) {
        /* governance moved while this pull passed a delta refused for now (its refusal no
         * longer holds): the cursor stays where it was, and the next pull lists it again */
        j->stuck = true;
    }
    if (!j->stuck && j->page_any) {
        mero__sync_cursor_put(j->node->sync, j->peer, j->deltas, mero__sync_cur_id(j), j->page_last,
                              j->page_tail, j->for_now, gen);
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
            mero__sync_step(j);
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
        mero__sync_step(j);
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
        mero__sync_job_end(j);
        return;
    }
    mero__sync_send_req(j, &b, on_get);
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
        mero__sync_job_end(j);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l;
        const uint8_t *p;
        if (mero_cur_u32le(&c, &l) < 0 || mero_cur_bytes(&c, l, &p) < 0) {
            mero__sync_job_end(j);
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
        mero__sync_job_end(j);
        return;
    }
    mero__node_seen_from_peer(j->node, j->peer, MERO_FLEET_SEEN_SYNC); /* issue 19: last seen */
    bool anchored = j->anchored;
    j->anchored = false;
    if (ok != 0 || mero_cur_u64le(&c, &last) < 0 || mero_cur_u32le(&c, &n) < 0 || n > INV_MAX ||
        mero_cur_bytes(&c, (size_t)n * SYNC_HASH_LEN, &hs) < 0 || mero_cur_left(&c) != 0 ||
        mero__sync_purged(j->node, j->nss[j->ins])) {
        /* the peer does not know this namespace/context, or we purged it meanwhile: move on */
        j->ns_unknown = !j->deltas;
        cursor_drop(s, j->peer, j->deltas, mero__sync_cur_id(j));
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
            cursor_drop(s, j->peer, j->deltas, mero__sync_cur_id(j));
            s->stats.restarts++;
            j->after = 0;
            mero__sync_step(j);
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
            passed_for_now(j); /* not fetched while governance is unchanged (issue 30) */
        }
    }
    if (n > 0 && j->want == NULL) {
        mero__sync_job_end(j); /* out of memory: the cursor stays */
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

/* First INV for the current id: ask from the cursor when one is kept and its anchor is held
 * here. */
static void take_cursor(struct job *j)
{
    j->begin = false;
    j->stuck = false;
    j->for_now = false;
    j->anchored = false;
    j->page_any = false;
    struct cursor *c =
        mero__sync_cursor_find(j->node->sync, j->peer, j->deltas, mero__sync_cur_id(j));
    if (c == NULL) {
        return;
    }
    uint64_t gen = 0;
    bool moved = c->for_now && (!gen_now(j, &gen) || gen != c->gen);
    if (moved || c->seq == 0 || c->seq > INT64_MAX || !settled(j, c->anchor)) {
        /* issue 30: governance moved since it passed a delta refused for now: from the start,
         * so every such delta is judged afresh */
        cursor_drop(j->node->sync, j->peer, j->deltas, mero__sync_cur_id(j));
        j->for_now = false;
        return;
    }
    j->for_now = c->for_now;
    j->for_now_gen = c->gen;
    c->used = ++j->node->sync->tick;
    memcpy(j->anchor, c->anchor, sizeof(j->anchor));
    j->after = c->seq - 1;
    j->anchored = true;
}

void mero__sync_step(struct job *j)
{
    /* skip namespaces self-purged here, also one purged while this pull was under way */
    while (j->ins < j->nns && mero__sync_purged(j->node, j->nss[j->ins])) {
        free(j->ctxs);
        j->ctxs = NULL;
        j->deltas = false;
        j->ins++;
        j->after = 0;
        j->begin = true;
    }
    if (!j->deltas && j->ins >= j->nns) {
        mero__sync_job_end(j);
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
        mero__sync_step(j);
        return;
    }
    if (j->begin && j->deltas) {
        int w = mero__sync_snap_wanted(j);
        if (w == SNAP_SKIP) {
            mero__sync_next_ctx(j);
            return;
        }
        if (w == SNAP_ASK) {
            mero__sync_snap_start(j);
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
        mero__sync_job_end(j);
        return;
    }
    mero__sync_send_req(j, &b, on_inv);
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
        if (!mero__sync_purged(node, nss[i])) {
            mero__sync_say_hello(node, peer, nss[i]); /* issue 35: who we are, for the fleet view */
        }
    }
    memset(j, 0, sizeof(*j));
    j->node = node;
    snprintf(j->peer, sizeof(j->peer), "%s", peer);
    j->busy = true;
    j->begin = true;
    j->nss = nss;
    j->nns = n;
    mero__sync_step(j);
}

/* The namespaces a pull asks a peer for: those held here, then those joined and not held yet
 * (issue 33: a member that joined while no holder was connected, or whose holder then trimmed
 * it, was asked for nothing by any later tick and waited for a gossiped op that might never
 * come; at N=200 no member of the fleet got its namespace). *nss owned. */
static int wanted_namespaces(struct mero_node *node, uint8_t (**nss)[MERO_NS_ID_LEN], size_t *n)
{
    uint8_t(*unheld)[MERO_NS_ID_LEN] = NULL;
    size_t nu = 0;
    MERO_TRY(mero_gov_namespaces(node->store, nss, n));
    if (mero_gov_namespaces_unheld(node->store, &unheld, &nu) < 0 || nu == 0) {
        free(unheld);
        return 0;
    }
    uint8_t(*all)[MERO_NS_ID_LEN] = realloc(*nss, (*n + nu) * sizeof(**nss));
    if (all == NULL) {
        free(unheld);
        return 0; /* the held ones at least */
    }
    memcpy(all + *n, unheld, nu * sizeof(*unheld));
    free(unheld);
    *nss = all;
    *n += nu;
    return 0;
}

void mero__node_sync_peer(struct mero_node *node, const char *peer_id)
{
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    if (node->store == NULL || wanted_namespaces(node, &nss, &n) < 0) {
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
    int rc = mero_net_handle(node->net, MERO_SYNC_PROTOCOL, mero__sync_on_request, node);
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
