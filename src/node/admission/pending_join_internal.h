/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pending_join_internal.h - the joiner's record of the namespaces it is waiting to be admitted to
 * (reference-calimero.md §5.2 "PendingTeeJoins"). Private to src/node.
 *
 * A node answers an offered challenge only for a namespace it registered as pending less than
 * PENDING_JOIN_TTL ago, at most once every MIN_ATTEST_INTERVAL per namespace and once every
 * MIN_ATTEST_INTERVAL_PER_PEER per offering peer. Times are monotonic milliseconds passed in.
 */
#ifndef MERO_NODE_PENDING_JOIN_H
#define MERO_NODE_PENDING_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_PENDING_JOIN_TTL_MS             120000u
#define MERO_MIN_ATTEST_INTERVAL_MS          2000u
#define MERO_MIN_ATTEST_INTERVAL_PER_PEER_MS 10000u
#define MERO_MAX_TRACKED_OFFERERS            64u
#define MERO_MAX_PENDING_NAMESPACES          32u
#define MERO_PENDING_PEER_MAX                64u

struct mero_pending_ns {
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t registered_ms;
    uint64_t last_quote_ms;
    bool quoted; /* last_quote_ms is meaningful */
    bool used;
};

struct mero_pending_offerer {
    uint8_t len;
    uint8_t peer[MERO_PENDING_PEER_MAX];
    uint64_t last_ms;
    bool used;
};

struct mero_pending_joins {
    struct mero_pending_ns ns[MERO_MAX_PENDING_NAMESPACES];
    struct mero_pending_offerer offerers[MERO_MAX_TRACKED_OFFERERS];
};

void mero__adm_pending_init(struct mero_pending_joins *p);

/*
 * Register (or refresh) `ns` as pending from now. -MERO_EBUSY when MAX_PENDING_NAMESPACES
 * other live registrations exist.
 */
MERO_MUST_CHECK int mero__adm_pending_register(struct mero_pending_joins *p,
                                               const uint8_t ns[MERO_NS_ID_LEN], uint64_t now_ms);
/* Forget `ns` (admitted, or the join gave up). */
void mero__adm_pending_remove(struct mero_pending_joins *p, const uint8_t ns[MERO_NS_ID_LEN]);
bool mero__adm_pending_is_pending(const struct mero_pending_joins *p,
                                  const uint8_t ns[MERO_NS_ID_LEN], uint64_t now_ms);

/*
 * May this node answer `peer`'s offered challenge for `ns` with a quote now? On yes (0) the
 * answer is recorded against both limits. -MERO_ENOTFOUND when `ns` is not pending (or its
 * registration lapsed); -MERO_EBUSY when this peer was answered less than 10 s ago (checked
 * first, so one offering peer cannot use up the namespace's slot) or the namespace less than
 * 2 s ago.
 */
MERO_MUST_CHECK int mero__adm_pending_may_answer(struct mero_pending_joins *p,
                                                 const uint8_t ns[MERO_NS_ID_LEN],
                                                 const uint8_t *peer, size_t peer_len,
                                                 uint64_t now_ms);

#endif
