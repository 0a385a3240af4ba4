/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys_internal.h - the paged key pull (issue 16, node/admission/keys.c; docs/admission.md
 * "Reach"): which keys one GroupKeysResponse page carries, and the per-key-id rate limit of
 * the pulls a read or an apply triggers when it meets a key id this node lacks. Pure, so the
 * bounds are unit-tested without a network (tests/unit/test_reach_keys.c). Private to src/node.
 */
#ifndef MERO_NODE_ADMISSION_KEYS_H
#define MERO_NODE_ADMISSION_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/sizes.h"

/* A pull for one (group, key id) at most once per interval; at most BURST pulls for key ids
 * seen within one interval (a flood of deltas under random key ids asks no more than that). */
#define MERO_KEY_PULL_INTERVAL_MS 5000u
#define MERO_KEY_PULL_TRACKED     64u
#define MERO_KEY_PULL_BURST       16u
/* Pages one pull follows (MERO_GROUP_KEYS_PAGE_MAX keys each) before it stops. */
#define MERO_KEY_PULL_PAGES_MAX 32u

struct mero_key_pull_entry {
    bool used;
    uint8_t group[MERO_GROUP_ID_LEN];
    uint8_t key_id[MERO_KEY_ID_LEN];
    uint64_t at_ms;
};
struct mero_key_pull_limit {
    struct mero_key_pull_entry e[MERO_KEY_PULL_TRACKED];
    size_t next; /* where the next pull starts in the connected-peer list (it rotates) */
};

/* Connected peers a key pull considers, and how many of them one pull asks. */
#define MERO_KEY_PULL_SCAN  64u
#define MERO_KEY_PULL_PEERS 4u
/*
 * Which of n connected peers a pull asks: up to MERO_KEY_PULL_PEERS indexes into idx, starting
 * where the previous pull stopped (*next advances), so repeated pulls for a key no asked peer
 * held reach every connected peer in turn (a node whose first peers all lack a key a side of a
 * partition made still finds one that holds it). Returns how many.
 */
size_t mero__key_pull_window(size_t n, size_t *next, size_t idx[MERO_KEY_PULL_PEERS]);

/*
 * Responder: of `ours` (n key ids, newest first) the ones not among `held` (nheld ids of
 * MERO_KEY_ID_LEN bytes each), at most MERO_GROUP_KEYS_PAGE_MAX, newest first: their indexes
 * into ours in idx, their count returned; *more when further keys the requester lacks remain
 * for its next request.
 */
size_t mero__keys_page(const uint8_t (*ours)[MERO_KEY_ID_LEN], size_t n, const uint8_t *held,
                       size_t nheld, size_t idx[MERO_GROUP_KEYS_PAGE_MAX], bool *more);

/*
 * Requester: may a pull for (group, key_id) start at now_ms? true records it (the oldest entry
 * is reused when the table is full); false when the same key id was asked for less than
 * MERO_KEY_PULL_INTERVAL_MS ago, or MERO_KEY_PULL_BURST pulls already started within it.
 */
bool mero__key_pull_allow(struct mero_key_pull_limit *l, const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t key_id[MERO_KEY_ID_LEN], uint64_t now_ms);

#endif
