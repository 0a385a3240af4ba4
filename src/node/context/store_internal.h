/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_internal.h - what the files of node/context/ share of the store (store.c): a stored
 * delta's write opened under its group key, last-writer-wins, a key's current value. Private to
 * src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_STORE_H
#define MERO_NODE_CONTEXT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "node/context/codec_internal.h"

struct mero_node;
struct sqlite3_stmt;

/* Binds a one-row query's parameters (mero__ctx_query_u64). */
typedef void mero__ctx_binder(struct sqlite3_stmt *st, const void *arg);

/*
 * d's plaintext, opened under the group key it names into *pt (owned: mero__ctx_close_write)
 * and parsed into w (which borrows it). 1 done, 0 the key is not held here, -MERO_ENOMEM, or a
 * refusal for good with the reason in err.
 */
MERO_MUST_CHECK int mero__ctx_open_write(struct mero_node *node,
                                         const uint8_t group[MERO_GROUP_ID_LEN],
                                         const uint8_t *bytes, const struct mero_ctx_delta *d,
                                         uint8_t **pt, size_t *pl, struct mero_ctx_write *w,
                                         struct mero_err *err);
/* Wipe and free what mero__ctx_open_write made (pt may be NULL). */
void mero__ctx_close_write(uint8_t *pt, size_t pl, struct mero_ctx_write *w);
/* Offer w's key = value by author at position (lamport, hash) to ctx's last-writer-wins. */
MERO_MUST_CHECK int mero__ctx_offer(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                    const struct mero_ctx_write *w, uint64_t lamport,
                                    const uint8_t hash[MERO_DELTA_ID_LEN],
                                    const uint8_t author[MERO_IDENTITY_LEN]);
/* Run sql with ?1 bound to a 32-byte id: a delta's hash, or a context or group id. 0 or
 * -MERO_EIO (a best-effort caller may ignore it, as mero__node_db_exec's do). */
int mero__ctx_exec_hash(struct mero_node *node, const char *sql,
                        const uint8_t id[MERO_DELTA_ID_LEN]);
/* Run sql, a query of at most one row whose first column is an integer, with its parameters
 * bound by bind(st, arg): *out = that value, or 0 when there is no row or it is not positive.
 * 0 or -MERO_EIO. */
MERO_MUST_CHECK int mero__ctx_query_u64(struct mero_node *node, const char *sql,
                                        mero__ctx_binder *bind, const void *arg, uint64_t *out);
/* The key's current value: 1 and its (lamport, hash, author) when there is one, 0 none. */
MERO_MUST_CHECK int mero__ctx_current(struct mero_node *node,
                                      const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                                      uint64_t *lamport, uint8_t hash[MERO_DELTA_ID_LEN],
                                      uint8_t author[MERO_IDENTITY_LEN]);

#endif
