/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_snap_pull.c - catch-up by live state, the requester's side (issue 37, docs/sync.md): when
 * a pull reaches a context this node holds nothing of (or holds only a live state, from a peer it
 * follows no cursor of), it fetches that peer's STATE pages, holds them unverified and unserved,
 * then hands the whole snapshot to mero__node_ctx_snap_install, which verifies and installs it in
 * one transaction or refuses it whole. Invariants: at most SNAP_FETCH_MAX snapshots are fetched at
 * once and each is held within SNAP_TOTAL_MAX bytes; a page cursor that does not advance, a page
 * that does not decode or a refused snapshot bans that peer for the context for SNAP_BAN_MS; a
 * snapshot refused for the governance held here (issue 30: it holds the write of an author
 * removed since) bans nobody: the context's history is pulled instead, from every peer, for
 * SNAP_HISTORY_MS, so no live state is fetched and refused again at every round.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/context/context_internal.h"
#include "node/sync_job_internal.h"

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
                          const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t ms)
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
    b->until_ms = mero_now_ms() + ms;
}

/* A context this node holds nothing of is caught up by its live state (docs/sync.md); from a
 * peer whose snapshot of it was refused lately, not at all (another peer's will be asked). */
int mero__sync_snap_wanted(struct job *j)
{
    struct mero_node_sync *s = j->node->sync;
    bool any = true, snapped = false;
    uint64_t clock = 0;
    if (j->node->full_history ||
        (j->snap_tried && memcmp(j->snap_ctx, mero__sync_cur_id(j), SYNC_ID_LEN) == 0) ||
        mero__node_ctx_held_any(j->node, mero__sync_cur_id(j), &any) < 0 ||
        (any &&
         (mero__node_ctx_snapshot_of(j->node, mero__sync_cur_id(j), &clock, &snapped) < 0 ||
          !snapped || mero__sync_cursor_find(s, j->peer, true, mero__sync_cur_id(j)) != NULL))) {
        /* asked once in this pull already; or the node keeps the history of this context, or
         * already follows this peer's log of it from a cursor */
        return SNAP_NO;
    }
    struct snap_bad *h = snap_bad_find(s, "", mero__sync_cur_id(j));
    if (h != NULL && mero_now_ms() < h->until_ms) {
        return SNAP_NO; /* its live state holds a write refused here: the history (issue 30) */
    }
    struct snap_bad *b = snap_bad_find(s, j->peer, mero__sync_cur_id(j));
    if (b != NULL && mero_now_ms() < b->until_ms) {
        return SNAP_SKIP;
    }
    /* holding nothing, every entry must beat nothing held (strict); holding a live state
     * already, this peer's is merged by last-writer-wins and its log followed from its tail */
    j->snap_strict = !any;
    /* every fetch slot taken: this peer's live state is asked at a later round, rather than its
     * whole history now (a new replica of a large fleet would pull it from every peer at once) */
    return s->snap_fetching < SNAP_FETCH_MAX ? SNAP_ASK : SNAP_SKIP;
}

void mero__sync_snap_drop(struct job *j)
{
    if (!j->snap) {
        return;
    }
    j->snap = false;
    j->snap_tried = true;
    memcpy(j->snap_ctx, mero__sync_cur_id(j), SYNC_ID_LEN);
    j->node->sync->snap_fetching--;
    mero_buf_cleanup(&j->snap_heads);
    mero_buf_cleanup(&j->snap_vals);
}

/* Leave the current context for the next context of this pull. */
void mero__sync_next_ctx(struct job *j)
{
    mero__sync_snap_drop(j);
    j->after = 0;
    j->begin = true;
    j->ictx++;
    mero__sync_step(j);
}

static void on_state(void *ud, int status, const uint8_t *data, size_t len);

static void snap_ask(struct job *j)
{
    struct mero_buf b;
    mero_buf_init(&b, SNAP_REQ_LEN);
    if (mero_buf_append_u8(&b, STATE) < 0 ||
        mero_buf_append(&b, mero__sync_cur_id(j), SYNC_ID_LEN) < 0 ||
        mero_buf_append_u64le(&b, j->snap_after) < 0) {
        mero_buf_cleanup(&b);
        mero__sync_job_end(j);
        return;
    }
    j->node->sync->stats.snap_pages++;
    mero__sync_send_req(j, &b, on_state);
}

void mero__sync_snap_start(struct job *j)
{
    j->snap = true;
    j->node->sync->snap_fetching++;
    j->snap_after = 0;
    mero_buf_init(&j->snap_heads, (size_t)MERO_SNAP_HEADS_MAX * (MERO_DELTA_MAX + 4));
    mero_buf_init(&j->snap_vals, SNAP_TOTAL_MAX);
    snap_ask(j);
}

/* ---- the clock a snapshot claims (docs/sync.md "The clock a snapshot claims") ---------- */

/* Remember the clock peer claimed for ctx (its STATE page 0). */
static void clock_note(struct mero_node_sync *s, const char *peer,
                       const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t clock)
{
    struct snap_clock *c = NULL, *oldest = &s->snap_clocks[0];
    for (size_t i = 0; i < SNAP_CLOCKS_MAX && c == NULL; i++) {
        struct snap_clock *e = &s->snap_clocks[i];
        if (e->at_ms != 0 && strcmp(e->peer, peer) == 0 &&
            memcmp(e->ctx, ctx, sizeof(e->ctx)) == 0) {
            c = e;
        }
        oldest = e->at_ms < oldest->at_ms ? e : oldest;
    }
    c = c != NULL ? c : oldest;
    snprintf(c->peer, sizeof(c->peer), "%s", peer);
    memcpy(c->ctx, ctx, sizeof(c->ctx));
    c->clock = clock;
    c->at_ms = mero_now_ms();
}

/* The least clock a peer other than `peer` claimed for ctx lately, in *ref (0: none did); the
 * number of other peers that answered lately, with a clock or "unknown context". */
static size_t clock_ref(const struct mero_node_sync *s, const char *peer,
                        const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t *ref)
{
    uint64_t now = mero_now_ms();
    size_t answered = 0;
    *ref = 0;
    for (size_t i = 0; i < SNAP_CLOCKS_MAX; i++) {
        const struct snap_clock *e = &s->snap_clocks[i];
        if (e->at_ms == 0 || now - e->at_ms >= SNAP_CLOCK_FRESH_MS || strcmp(e->peer, peer) == 0 ||
            memcmp(e->ctx, ctx, sizeof(e->ctx)) != 0) {
            continue;
        }
        answered++;
        if (e->clock != 0 && (*ref == 0 || e->clock < *ref)) {
            *ref = e->clock;
        }
    }
    return answered;
}

/* The wait of ctx for a second opinion: its slot, started now when it had none. */
static struct snap_wait *wait_of(struct mero_node_sync *s, const uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    struct snap_wait *w = NULL, *oldest = &s->snap_waits[0];
    for (size_t i = 0; i < SNAP_WAITS_MAX && w == NULL; i++) {
        struct snap_wait *e = &s->snap_waits[i];
        if (e->since_ms != 0 && memcmp(e->ctx, ctx, sizeof(e->ctx)) == 0) {
            w = e;
        }
        oldest = e->since_ms < oldest->since_ms ? e : oldest;
    }
    if (w == NULL) {
        w = oldest;
        memcpy(w->ctx, ctx, sizeof(w->ctx));
        w->since_ms = mero_now_ms();
    }
    return w;
}

/* Beyond by more than the step bound: a > b + MERO_LAMPORT_STEP, without wrapping. */
static bool beyond_step(uint64_t a, uint64_t b)
{
    return a > b && a - b > MERO_LAMPORT_STEP;
}

enum { VOUCHED, UNVOUCHED, WAIT };

/*
 * Whether the clock the peer's snapshot claims may bound its entries. Every delta this node
 * applies otherwise is bounded by the clock it holds plus MERO_LAMPORT_STEP; a snapshot stands
 * in for that bound, so a member serving its own write at a far-future lamport would win that
 * key here for good. Holding the context already: the claim must be within the step bound of
 * this node's clock. Holding nothing: within the step bound of the least clock other peers
 * claimed lately (the lower claim is the safe one: a low clock only makes a snapshot stale,
 * which the first newer delta mends, and a member's second node cannot raise it). With no other
 * claim yet while other connected peers have not answered, the snapshot waits for them (the
 * next round asks again), at most SNAP_WAIT_MS; alone, or after the wait, the peer's word is
 * taken. Not vouched for: its history is pulled instead, delta by delta under the ordinary bound.
 */
static int snap_vouched(struct job *j, uint64_t *ref)
{
    struct mero_node_sync *s = j->node->sync;
    const uint8_t *ctx = mero__sync_cur_id(j);
    *ref = 0;
    if (!j->snap_strict) {
        struct mero_ctx_tip tip;
        if (mero__node_ctx_tip(j->node, ctx, &tip) < 0) {
            return UNVOUCHED;
        }
        *ref = tip.clock;
        return beyond_step(j->snap_clock, tip.clock) ? UNVOUCHED : VOUCHED;
    }
    struct snap_wait *w = wait_of(s, ctx);
    size_t answered = clock_ref(s, j->peer, ctx, ref);
    if (*ref != 0) {
        w->since_ms = 0;
        return beyond_step(j->snap_clock, *ref) ? UNVOUCHED : VOUCHED;
    }
    size_t others = mero_net_connected_peers(j->node->net, NULL, 0);
    others = others > 0 ? others - 1 : 0;
    if (answered >= others || mero_now_ms() - w->since_ms >= SNAP_WAIT_MS) {
        w->since_ms = 0;
        return VOUCHED;
    }
    return WAIT;
}

/* Every page is in: verify and install (nothing of it is served before), then go on with
 * ordinary delta sync from the snapshot's tail. Refused: this peer is not asked for the context
 * for SNAP_BAN_MS, and the pull moves on (the next round asks another peer). */
static void snap_finish(struct job *j)
{
    struct mero_node_sync *s = j->node->sync;
    struct mero_err err = {0};
    char h[MERO_HEX_SIZE(SYNC_ID_LEN)];
    mero_hex_encode(h, mero__sync_cur_id(j), SYNC_ID_LEN);
    if (j->snap_clock == 0) {
        mero__sync_snap_drop(j); /* the peer holds nothing of it: ordinary sync */
        mero__sync_step(j);
        return;
    }
    uint64_t ref = 0;
    int v = snap_vouched(j, &ref);
    if (v == WAIT) {
        s->stats.snap_deferred++;
        MERO_DEBUG("live state of context %.16s… from %s: waiting for a second peer's clock", h,
                   j->peer);
        mero__sync_next_ctx(j);
        return;
    }
    if (v == UNVOUCHED) {
        s->stats.snap_unvouched++;
        MERO_WARN("live state of context %.16s… from %s claims clock %llu, beyond %s %llu by more "
                  "than the step bound: pulling its history instead",
                  h, j->peer, (unsigned long long)j->snap_clock,
                  j->snap_strict ? "what other peers claim," : "the clock held here,",
                  (unsigned long long)ref);
        mero__sync_snap_drop(j); /* snap_tried: the next step pulls the history */
        mero__sync_step(j);
        return;
    }
    bool governance = false;
    int rc = mero__node_ctx_snap_install(
        j->node, mero__sync_cur_id(j), j->snap_clock, j->snap_heads.data, j->snap_heads.len,
        j->snap_vals.data, j->snap_vals.len, j->snap_strict, j->peer, &governance, &err);
    if (rc < 0 && governance) {
        /* issue 30: the peer applied that write while its author held the right; every honest
         * peer's live state holds it. Judged delta by delta, the history gives what this node's
         * governance admits, and the refusal is remembered there, not repeated here. */
        s->stats.snap_governance++;
        MERO_INFO("live state of context %.16s… from %s holds a write the governance held here "
                  "refuses (%s): pulling its history instead",
                  h, j->peer, err.msg);
        snap_bad_note(s, "", mero__sync_cur_id(j), SNAP_HISTORY_MS);
        mero__sync_snap_drop(j); /* snap_tried: the next step pulls the history */
        mero__sync_step(j);
        return;
    }
    if (rc < 0) {
        s->stats.snap_refused++;
        MERO_WARN("live state of context %.16s… from %s refused: %s; asking another peer", h,
                  j->peer, err.msg);
        snap_bad_note(s, j->peer, mero__sync_cur_id(j), SNAP_BAN_MS);
        mero__sync_next_ctx(j);
        return;
    }
    s->stats.snap_installed++;
    MERO_INFO("context %.16s… caught up by live state from %s (clock %llu)", h, j->peer,
              (unsigned long long)j->snap_clock);
    if (j->snap_seq > 0 && mero__sync_held(j, j->snap_tail)) {
        mero__sync_cursor_put(s, j->peer, true, mero__sync_cur_id(j), j->snap_seq, j->snap_tail,
                              false, 0);
    }
    mero__sync_snap_drop(j);
    mero__sync_step(j); /* j->begin: the INV starts from the cursor just taken */
}

static void on_state(void *ud, int status, const uint8_t *data, size_t len)
{
    struct job *j = ud;
    struct mero_node_sync *s = j->node->sync;
    struct mero_snap_page pg;
    if (status < 0) {
        MERO_DEBUG("live state from %s not answered: %s", j->peer, mero_strerror(status));
        mero__sync_job_end(j);
        return;
    }
    if (mero__node_snap_page_decode(data, len, &pg) < 0) {
        MERO_DEBUG("live state from %s does not decode", j->peer);
        snap_bad_note(s, j->peer, mero__sync_cur_id(j), SNAP_BAN_MS);
        mero__sync_next_ctx(j);
        return;
    }
    if (pg.status == MERO_SNAP_BUSY) {
        s->stats.snap_busy++;
        mero__sync_next_ctx(j); /* asked again at the next round */
        return;
    }
    if (pg.status == MERO_SNAP_UNKNOWN) {
        clock_note(s, j->peer, mero__sync_cur_id(j), 0); /* answered: no opinion */
        mero__sync_snap_drop(j);
        mero__sync_step(j); /* the inventory says so too, and moves on */
        return;
    }
    if (j->snap_after == 0) {
        clock_note(s, j->peer, mero__sync_cur_id(j), pg.clock);
        j->snap_clock = pg.clock;
        j->snap_seq = pg.seq;
        memcpy(j->snap_tail, pg.tail, sizeof(j->snap_tail));
        if (mero_buf_append(&j->snap_heads, pg.heads, pg.heads_len) < 0) {
            mero__sync_next_ctx(j);
            return;
        }
    }
    if (mero_buf_append(&j->snap_vals, pg.vals, pg.vals_len) < 0) {
        /* larger than a snapshot may be in memory: the history, delta by delta */
        MERO_INFO("live state from %s beyond %u bytes: pulling the history instead", j->peer,
                  SNAP_TOTAL_MAX);
        mero__sync_snap_drop(j);
        mero__sync_step(j);
        return;
    }
    if (pg.next != 0) {
        if (pg.next <= j->snap_after) {
            snap_bad_note(s, j->peer, mero__sync_cur_id(j),
                          SNAP_BAN_MS); /* a cursor that does not advance */
            mero__sync_next_ctx(j);
            return;
        }
        j->snap_after = pg.next;
        snap_ask(j);
        return;
    }
    snap_finish(j);
}
