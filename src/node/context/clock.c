/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.c - the context clock (docs/node.md "Context clock"): the greatest lamport this node has
 * admitted in a context, or given to a relayed intent (table ctx_clock), and the bound a delta's
 * lamport must keep against it.
 *
 * Invariants: a delta claiming lamport l is admitted only when 1 <= l <= MERO_LAMPORT_MAX and
 * l <= clock + MERO_LAMPORT_STEP (mero__lamport_admissible), so one member cannot push a context
 * to the end of the range; a clock only grows (mero__ctx_clock_raise keeps the greater value);
 * every lamport stored is in 1..INT64_MAX, so no arithmetic on it wraps and a local write's next
 * lamport (mero__lamport_next) fails with -MERO_ECLOCK instead.
 */
#include <sqlite3.h>

#include "node/context/clock_internal.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/node_internal.h"

bool mero__lamport_admissible(uint64_t clock, uint64_t l)
{
    if (l == 0 || l > MERO_LAMPORT_MAX) {
        return false;
    }
    /* l <= clock + STEP, written so that neither side can wrap */
    return l <= MERO_LAMPORT_STEP || l - MERO_LAMPORT_STEP <= clock;
}

int mero__lamport_next(uint64_t clock, uint64_t *next)
{
    if (clock >= MERO_LAMPORT_MAX) {
        return -MERO_ECLOCK;
    }
    *next = clock + 1;
    return 0;
}

static void bind_ctx(sqlite3_stmt *st, const void *ctx)
{
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
}

/* The context's clock: the greatest lamport admitted in ctx here (0 for none). */
int mero__ctx_clock_of(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       uint64_t *clock)
{
    return mero__ctx_query_u64(node, "SELECT lamport FROM ctx_clock WHERE context = ?1", bind_ctx,
                               ctx, clock);
}

/* Raise ctx's clock to l (l <= MERO_LAMPORT_MAX, checked by mero__ctx_decode). */
int mero__ctx_clock_raise(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                          uint64_t l)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db,
                           "INSERT INTO ctx_clock(context, lamport) VALUES(?1, ?2) "
                           "ON CONFLICT(context) DO UPDATE SET lamport = "
                           "MAX(ctx_clock.lamport, excluded.lamport)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)l);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -MERO_EIO;
}
