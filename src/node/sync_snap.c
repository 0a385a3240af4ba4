/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_snap.c - issue 37: the live-state message of "/mero/sync/1" (docs/sync.md): its page
 * decoder, and the responder, which serves a context's live state from what it stores
 * (node/context/snap.c) to a bounded number of requesters at once.
 *
 *   6 STATE  ctx[32] after u64  -> 0 clock u64 | seq u64 | tail[32] | next u64 |
 *                                    nheads u32 | nheads*(len u32, delta) |
 *                                    n u32 | n*(len u32, delta)
 *                               -> 1 (unknown context) | 2 (busy: too many snapshot sessions)
 *
 * after is the cursor of the page asked (0 = the first, which alone carries the heads); next is
 * the cursor of the following page (0 = this was the last). Invariants: the decoder checks every
 * count against its maximum (MERO_SNAP_HEADS_MAX, MERO_SNAP_PAGE_MAX) and every length against
 * MERO_DELTA_MAX and the bytes that remain, the entries' bytes against MERO_SNAP_PAGE_BYTES, a
 * clock within 0..2^63-1 and nothing left over; it borrows the bytes it decodes. The responder
 * keeps at most MERO_SNAP_SESSIONS (peer, context) sessions, each only a slot (no page is kept
 * between requests: the cursor travels with the requester); one idle for MERO_SNAP_SESSION_IDLE_MS
 * is reused, and with every slot busy a new requester is answered 2.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/log.h"
#include "node/context/context_internal.h"
#include "node/node_internal.h"
#include "node/sync_internal.h"

/* (len u32, delta)* of count entries: each length within MERO_DELTA_MAX and what remains; the
 * region borrowed in *p / *len. */
static int blobs(struct mero_cur *c, uint32_t count, const uint8_t **p, size_t *len)
{
    size_t start = c->off;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t n;
        const uint8_t *b;
        MERO_TRY(mero_cur_u32le(c, &n));
        if (n == 0 || n > MERO_DELTA_MAX) {
            return -MERO_EPROTO;
        }
        MERO_TRY(mero_cur_bytes(c, n, &b));
    }
    *p = c->p + start;
    *len = c->off - start;
    return 0;
}

int mero__node_snap_page_decode(const uint8_t *p, size_t len, struct mero_snap_page *pg)
{
    struct mero_cur c;
    memset(pg, 0, sizeof(*pg));
    mero_cur_init(&c, p, len);
    MERO_TRY(mero_cur_u8(&c, &pg->status));
    if (pg->status != MERO_SNAP_OK) {
        if (pg->status != MERO_SNAP_UNKNOWN && pg->status != MERO_SNAP_BUSY) {
            return -MERO_EPROTO;
        }
        return mero_cur_left(&c) == 0 ? 0 : -MERO_EPROTO;
    }
    MERO_TRY(mero_cur_u64le(&c, &pg->clock));
    MERO_TRY(mero_cur_u64le(&c, &pg->seq));
    MERO_TRY(mero_cur_copy(&c, pg->tail, sizeof(pg->tail)));
    MERO_TRY(mero_cur_u64le(&c, &pg->next));
    if (pg->clock > MERO_LAMPORT_MAX || pg->seq > INT64_MAX || pg->next > INT64_MAX) {
        return -MERO_EPROTO;
    }
    MERO_TRY(mero_cur_u32le(&c, &pg->nheads));
    if (pg->nheads > MERO_SNAP_HEADS_MAX) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(blobs(&c, pg->nheads, &pg->heads, &pg->heads_len));
    MERO_TRY(mero_cur_u32le(&c, &pg->n));
    if (pg->n > MERO_SNAP_PAGE_MAX) {
        return -MERO_ETOOBIG;
    }
    MERO_TRY(blobs(&c, pg->n, &pg->vals, &pg->vals_len));
    if (pg->vals_len > MERO_SNAP_PAGE_BYTES) {
        return -MERO_ETOOBIG;
    }
    return mero_cur_left(&c) == 0 ? 0 : -MERO_EPROTO;
}

/* ---- responder -------------------------------------------------------------------------- */

/* The session of (peer, ctx), a new one in a free or idle slot, or NULL when all are busy. */
static struct mero_snap_session *session(struct mero_node_snap_sessions *t, const char *peer,
                                         const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t now)
{
    struct mero_snap_session *slot = NULL;
    for (size_t i = 0; i < MERO_SNAP_SESSIONS; i++) {
        struct mero_snap_session *s = &t->s[i];
        if (s->set && strcmp(s->peer, peer) == 0 && memcmp(s->ctx, ctx, sizeof(s->ctx)) == 0) {
            return s;
        }
        if (slot == NULL && (!s->set || now - s->last_ms > MERO_SNAP_SESSION_IDLE_MS)) {
            slot = s;
        }
    }
    if (slot != NULL) {
        slot->set = true;
        snprintf(slot->peer, sizeof(slot->peer), "%s", peer);
        memcpy(slot->ctx, ctx, sizeof(slot->ctx));
    }
    return slot;
}

static int fault_of(const struct mero_node *node)
{
    const char *f = node->test_routes ? getenv("MERO_TEST_SNAPSHOT_FAULT") : NULL;
    if (f == NULL) {
        return MERO_SNAP_FAULT_NONE;
    }
    return strcmp(f, "forge") == 0   ? MERO_SNAP_FAULT_FORGE
           : strcmp(f, "stale") == 0 ? MERO_SNAP_FAULT_STALE
                                     : MERO_SNAP_FAULT_NONE;
}

int mero__node_snap_answer(struct mero_node *node, struct mero_node_snap_sessions *t,
                           const char *peer, struct mero_cur *c, struct mero_buf *out)
{
    uint8_t ctx[MERO_CONTEXT_ID_LEN], ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
    uint64_t after;
    MERO_TRY(mero_cur_copy(c, ctx, sizeof(ctx)));
    MERO_TRY(mero_cur_u64le(c, &after));
    if (mero_cur_left(c) != 0) {
        return -MERO_EPROTO;
    }
    if (mero__node_ctx_lookup(node, ctx, ns, group) < 0) {
        return mero_buf_append_u8(out, MERO_SNAP_UNKNOWN);
    }
    uint64_t now = mero_now_ms();
    struct mero_snap_session *s = session(t, peer, ctx, now);
    if (s == NULL) {
        MERO_DEBUG("live state for %s: every snapshot session busy", peer);
        return mero_buf_append_u8(out, MERO_SNAP_BUSY);
    }
    s->last_ms = now;
    struct mero_ctx_tip tip;
    struct mero_buf heads, vals;
    uint32_t nh = 0, n = 0;
    uint64_t next = 0;
    int rc;
    mero_buf_init(&heads, (size_t)MERO_SNAP_HEADS_MAX * (MERO_DELTA_MAX + sizeof(uint32_t)));
    mero_buf_init(&vals, MERO_SNAP_PAGE_BYTES);
    MERO_TRY_OUT(mero__node_ctx_tip(node, ctx, &tip));
    if (after == 0) {
        MERO_TRY_OUT(mero__node_ctx_snap_heads(node, ctx, &heads, &nh));
    }
    MERO_TRY_OUT(mero__node_ctx_snap_values(node, ctx, after, fault_of(node), &vals, &n, &next));
    MERO_TRY_OUT(mero_buf_append_u8(out, MERO_SNAP_OK));
    MERO_TRY_OUT(mero_buf_append_u64le(out, tip.clock));
    MERO_TRY_OUT(mero_buf_append_u64le(out, tip.seq));
    MERO_TRY_OUT(mero_buf_append(out, tip.tail, sizeof(tip.tail)));
    MERO_TRY_OUT(mero_buf_append_u64le(out, next));
    MERO_TRY_OUT(mero_buf_append_u32le(out, nh));
    MERO_TRY_OUT(mero_buf_append(out, heads.data, heads.len));
    MERO_TRY_OUT(mero_buf_append_u32le(out, n));
    MERO_TRY_OUT(mero_buf_append(out, vals.data, vals.len));
    if (next == 0) {
        s->set = false; /* the last page: the session ends */
    }
out:
    mero_buf_cleanup(&heads);
    mero_buf_cleanup(&vals);
    return rc;
}
