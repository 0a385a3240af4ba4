/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_serve.c - the responder of "/mero/sync/1" (sync.c's top comment has the messages): it
 * answers inventories and fetches of ops and deltas from what this node stores, HELLO through
 * sync_hello.c and STATE through sync_snap.c. Invariant: every count is checked against the
 * bytes left and its maximum before use, and an answer is bounded by SYNC_ANSWER_MAX; a request
 * that does not decode is dropped, never answered in part.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/context/context_internal.h"
#include "node/sync_job_internal.h"

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

static int answer(struct mero_node *node, const char *peer, struct mero_cur *c,
                  struct mero_buf *out)
{
    uint8_t kind = 0;
    MERO_TRY(mero_cur_u8(c, &kind));
    switch (kind) {
    case HELLO:
        return mero__sync_answer_hello(node, peer, c, out);
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
        return mero__node_snap_answer(node, &node->sync->snap_sessions, peer, c, out);
    default:
        return -MERO_EPROTO;
    }
}

void mero__sync_on_request(void *ud, struct mero_net_req *req, const char *peer,
                           const uint8_t *data, size_t len)
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
