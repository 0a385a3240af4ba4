/* SPDX-License-Identifier: Apache-2.0 */
/*
 * challenge_internal.h - the admitting member's challenge book (spec "The challenge (the
 * verifier)", reference-calimero.md §5.2). Private to src/node.
 *
 * A challenge is 32 random bytes bound to a namespace and to the peer it was issued to, and,
 * for a challenge a peer asked for on the direct path, to the namespace key that asked.
 * Every function takes the current monotonic time in milliseconds, so tests drive the clock.
 */
#ifndef MERO_NODE_CHALLENGE_H
#define MERO_NODE_CHALLENGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_CHALLENGE_LEN                   32
#define MERO_CHALLENGE_TTL_MS                60000u /* CHALLENGE_TTL */
#define MERO_CHALLENGE_MIN_REISSUE_MS        5000u  /* MIN_REISSUE, per (peer, namespace) */
#define MERO_CHALLENGE_MAX_PER_PEER          4u     /* oldest of that peer evicted */
#define MERO_CHALLENGE_MAX_REQUESTED         1024u  /* challenges a proven requester asked for */
#define MERO_CHALLENGE_MAX_OFFERED           256u   /* challenges offered to prompting peers */
#define MERO_CHALLENGE_MAX_CONCURRENT_OFFERS 16u    /* offers in flight */
#define MERO_CHALLENGE_PEER_MAX              64u    /* longest peer id (bytes) we track */
/* Recent issues remembered for MIN_REISSUE, so a spent challenge still rate-limits. */
#define MERO_CHALLENGE_RECENT_MAX (MERO_CHALLENGE_MAX_REQUESTED + MERO_CHALLENGE_MAX_OFFERED)

#define MERO_CHALLENGE_TOO_SOON_REASON                                                             \
    "a challenge was issued to this peer a moment ago; retry shortly"
#define MERO_CHALLENGE_REFUSED_REASON                                                              \
    "the challenge is not one this node issued to you, or it was already used or has lapsed; "     \
    "ask for a new one"

enum mero_challenge_kind {
    MERO_CHALLENGE_REQUESTED = 0, /* direct path: bound to the requesting key too */
    MERO_CHALLENGE_OFFERED = 1,   /* prompt path: not key-bound */
};

struct mero_challenge_peer {
    uint8_t len;
    uint8_t b[MERO_CHALLENGE_PEER_MAX];
};

struct mero_challenge_entry {
    uint8_t challenge[MERO_CHALLENGE_LEN];
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_challenge_peer peer;
    uint8_t identity[MERO_IDENTITY_LEN]; /* requested only */
    uint64_t issued_ms;
    uint64_t seq; /* issue order, to find the oldest when two share a millisecond */
    bool used;
};

struct mero_challenge_recent {
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_challenge_peer peer;
    uint64_t issued_ms;
    bool used;
};

/* Caller-embedded; mero__adm_challenge_book_init before use. About 160 KiB. */
struct mero_challenge_book {
    struct mero_challenge_entry requested[MERO_CHALLENGE_MAX_REQUESTED];
    struct mero_challenge_entry offered[MERO_CHALLENGE_MAX_OFFERED];
    struct mero_challenge_recent recent[MERO_CHALLENGE_RECENT_MAX];
    const struct mero_challenge_entry *scratch[MERO_CHALLENGE_MAX_REQUESTED]; /* eviction sort */
    uint64_t next_seq;
    unsigned offers_in_flight;
};

void mero__adm_challenge_book_init(struct mero_challenge_book *book);
/* Wipe every challenge (they are secrets until spent). */
void mero__adm_challenge_book_cleanup(struct mero_challenge_book *book);

/*
 * Issue a challenge of `kind` to `peer` for namespace `ns`; `identity` (32 bytes) is required
 * for MERO_CHALLENGE_REQUESTED and ignored otherwise. Writes `out` on success.
 * -MERO_EBUSY with MERO_CHALLENGE_TOO_SOON_REASON when this peer was issued one for this
 * namespace less than MIN_REISSUE ago; -MERO_EINVAL on a bad argument. Never fails for
 * lack of room: the per-peer and per-class caps evict instead.
 */
MERO_MUST_CHECK int
mero__adm_challenge_issue(struct mero_challenge_book *book, enum mero_challenge_kind kind,
                          const uint8_t ns[MERO_NS_ID_LEN], const uint8_t *peer, size_t peer_len,
                          const uint8_t *identity, uint64_t now_ms,
                          uint8_t out[static MERO_CHALLENGE_LEN], struct mero_err *err);

/* Whether mero__adm_challenge_issue would refuse `peer` a challenge for `ns` now as too soon
 * (MIN_REISSUE); records nothing. */
bool mero__adm_challenge_too_soon(const struct mero_challenge_book *book,
                                  const uint8_t ns[MERO_NS_ID_LEN], const uint8_t *peer,
                                  size_t peer_len, uint64_t now_ms);

/*
 * Spend `challenge`: it is removed on its first presentation whatever the outcome. Succeeds
 * (0) only when it was issued for `ns` to `peer`, is younger than CHALLENGE_TTL, and, when it
 * was requested, `identity` equals the requesting key. Otherwise -MERO_EREFUSED with
 * MERO_CHALLENGE_REFUSED_REASON.
 */
MERO_MUST_CHECK int mero__adm_challenge_consume(struct mero_challenge_book *book,
                                                const uint8_t challenge[static MERO_CHALLENGE_LEN],
                                                const uint8_t ns[MERO_NS_ID_LEN],
                                                const uint8_t *peer, size_t peer_len,
                                                const uint8_t *identity, uint64_t now_ms,
                                                struct mero_err *err);

/* Take one of the MAX_CONCURRENT_OFFERS slots (-MERO_EBUSY when all are held); release it. */
MERO_MUST_CHECK int mero__adm_challenge_offer_acquire(struct mero_challenge_book *book);
void mero__adm_challenge_offer_release(struct mero_challenge_book *book);

/* Live (unspent, unexpired) entries: of one kind, and held by one peer (both kinds). */
size_t mero__adm_challenge_count(const struct mero_challenge_book *book,
                                 enum mero_challenge_kind kind, uint64_t now_ms);
size_t mero__adm_challenge_count_peer(const struct mero_challenge_book *book, const uint8_t *peer,
                                      size_t peer_len, uint64_t now_ms);

#endif
