/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/challenge.c - the admitting member's challenge book (spec "The challenge (the
 * verifier)", reference-calimero.md §5.2): each challenge is 32 random bytes bound to a namespace,
 * to the peer it was issued to and, on the direct path, to the namespace key that asked for it.
 *
 * Invariants kept here:
 * - a challenge is single-use: consume removes it before looking at anything else, so a wrong
 *   presentation spends it too;
 * - it is accepted only younger than CHALLENGE_TTL (ok at 59 s, refused at 60 s);
 * - a peer gets a new challenge for a namespace at most every MIN_REISSUE, remembered even
 *   after the challenge was spent, so a fast re-prompt loop is not a stream of challenges;
 * - the book is bounded: MAX_PER_PEER per peer (its oldest evicted), MAX_REQUESTED and
 *   MAX_OFFERED per class (the oldest entry of the peer holding the most of that class is
 *   evicted), so a flood from one or many peers never grows it nor shuts a new peer out.
 * All storage is fixed arrays inside the book: nothing is allocated per message.
 * Debug and sanitizer builds (MERO_CHECKED) assert these at the points where they must hold
 * (book_check and the MERO_ASSERTs below): every held entry names a peer of 1..PEER_MAX bytes
 * and an issue order already handed out, and, right after an issue, is live; a peer holds at
 * most MAX_PER_PEER, counted the same way by the eviction scan and by count_peer; a challenge
 * just issued is held once and one just spent is held nowhere (never accepted again); a full
 * class always has room after one eviction; offers in flight stay within 0..MAX_CONCURRENT_OFFERS.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "node/admission/challenge_internal.h"

static bool peer_eq(const struct mero_challenge_peer *a, const uint8_t *p, size_t n)
{
    return a->len == n && memcmp(a->b, p, n) == 0;
}

static uint64_t age_ms(uint64_t then, uint64_t now)
{
    return now > then ? now - then : 0;
}

static bool entry_live(const struct mero_challenge_entry *e, uint64_t now)
{
    return e->used && age_ms(e->issued_ms, now) < MERO_CHALLENGE_TTL_MS;
}

static void entry_clear(struct mero_challenge_entry *e)
{
    mero_wipe(e, sizeof(*e));
}

#if defined(MERO_CHECKED)
/* How many held entries (either class) carry challenge c. */
static size_t held_copies(const struct mero_challenge_book *book,
                          const uint8_t c[MERO_CHALLENGE_LEN])
{
    size_t copies = 0;
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_REQUESTED; i++) {
        copies += book->requested[i].used &&
                  memcmp(book->requested[i].challenge, c, MERO_CHALLENGE_LEN) == 0;
    }
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_OFFERED; i++) {
        copies +=
            book->offered[i].used && memcmp(book->offered[i].challenge, c, MERO_CHALLENGE_LEN) == 0;
    }
    return copies;
}

/* The book's shape: held entries name a peer and an issued seq; live_only right after expire. */
static void book_check(const struct mero_challenge_book *book, bool live_only, uint64_t now)
{
    const struct mero_challenge_entry *classes[2] = {book->requested, book->offered};
    const size_t sizes[2] = {MERO_CHALLENGE_MAX_REQUESTED, MERO_CHALLENGE_MAX_OFFERED};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < sizes[k]; i++) {
            const struct mero_challenge_entry *e = &classes[k][i];
            if (!e->used) {
                continue;
            }
            MERO_ASSERT(e->peer.len >= 1 && e->peer.len <= MERO_CHALLENGE_PEER_MAX);
            MERO_ASSERT(e->seq >= 1 && e->seq <= book->next_seq);
            MERO_ASSERT(!live_only || entry_live(e, now));
        }
    }
    MERO_ASSERT(book->offers_in_flight <= MERO_CHALLENGE_MAX_CONCURRENT_OFFERS);
}
#define BOOK_CHECK(book, live_only, now) book_check((book), (live_only), (now))
#else
#define BOOK_CHECK(book, live_only, now) ((void)0)
#endif

void mero__adm_challenge_book_init(struct mero_challenge_book *book)
{
    memset(book, 0, sizeof(*book));
}

void mero__adm_challenge_book_cleanup(struct mero_challenge_book *book)
{
    mero_wipe(book, sizeof(*book));
}

static struct mero_challenge_entry *class_slots(struct mero_challenge_book *book,
                                                enum mero_challenge_kind kind, size_t *n)
{
    if (kind == MERO_CHALLENGE_REQUESTED) {
        *n = MERO_CHALLENGE_MAX_REQUESTED;
        return book->requested;
    }
    *n = MERO_CHALLENGE_MAX_OFFERED;
    return book->offered;
}

/* Drop lapsed entries so they neither count against a cap nor can be presented. */
static void expire(struct mero_challenge_book *book, uint64_t now)
{
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_REQUESTED; i++) {
        if (book->requested[i].used && !entry_live(&book->requested[i], now)) {
            entry_clear(&book->requested[i]);
        }
    }
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_OFFERED; i++) {
        if (book->offered[i].used && !entry_live(&book->offered[i], now)) {
            entry_clear(&book->offered[i]);
        }
    }
}

/* The peer's oldest live entry across both classes, or NULL; *count gets how many it holds. */
static struct mero_challenge_entry *peer_oldest(struct mero_challenge_book *book,
                                                const uint8_t *peer, size_t peer_len, size_t *count)
{
    struct mero_challenge_entry *oldest = NULL;
    size_t c = 0;
    for (int k = 0; k < 2; k++) {
        size_t n;
        struct mero_challenge_entry *s = class_slots(book, (enum mero_challenge_kind)k, &n);
        for (size_t i = 0; i < n; i++) {
            if (s[i].used && peer_eq(&s[i].peer, peer, peer_len)) {
                c++;
                if (oldest == NULL || s[i].seq < oldest->seq) {
                    oldest = &s[i];
                }
            }
        }
    }
    *count = c;
    return oldest;
}

static int cmp_peer_then_seq(const void *a, const void *b)
{
    const struct mero_challenge_entry *x = *(const struct mero_challenge_entry *const *)a;
    const struct mero_challenge_entry *y = *(const struct mero_challenge_entry *const *)b;
    if (x->peer.len != y->peer.len) {
        return x->peer.len < y->peer.len ? -1 : 1;
    }
    int c = memcmp(x->peer.b, y->peer.b, x->peer.len);
    if (c != 0) {
        return c;
    }
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

/*
 * The class is full: evict the oldest entry of the peer holding the most of it (ties: the
 * peer whose oldest entry is oldest). Sorting pointers by (peer, seq) makes each peer a run
 * whose first element is its oldest, in O(n log n) rather than O(n^2).
 */
static void evict_from_class(struct mero_challenge_book *book, struct mero_challenge_entry *slots,
                             size_t n)
{
    const struct mero_challenge_entry **idx = book->scratch;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (slots[i].used) {
            idx[m++] = &slots[i];
        }
    }
    if (m == 0) {
        return;
    }
    qsort(idx, m, sizeof(idx[0]), cmp_peer_then_seq);
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && idx[j]->peer.len == idx[i]->peer.len &&
               memcmp(idx[j]->peer.b, idx[i]->peer.b, idx[i]->peer.len) == 0) {
            j++;
        }
        size_t run = j - i;
        if (run > best_len || (run == best_len && idx[i]->seq < idx[best]->seq)) {
            best = i;
            best_len = run;
        }
        i = j;
    }
    entry_clear((struct mero_challenge_entry *)idx[best]);
}

static bool too_soon(const struct mero_challenge_book *book, const uint8_t ns[MERO_NS_ID_LEN],
                     const uint8_t *peer, size_t peer_len, uint64_t now)
{
    for (size_t i = 0; i < MERO_CHALLENGE_RECENT_MAX; i++) {
        const struct mero_challenge_recent *r = &book->recent[i];
        if (r->used && peer_eq(&r->peer, peer, peer_len) && memcmp(r->ns, ns, sizeof(r->ns)) == 0 &&
            age_ms(r->issued_ms, now) < MERO_CHALLENGE_MIN_REISSUE_MS) {
            return true;
        }
    }
    return false;
}

static void remember_issue(struct mero_challenge_book *book, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t *peer, size_t peer_len, uint64_t now)
{
    struct mero_challenge_recent *slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < MERO_CHALLENGE_RECENT_MAX; i++) {
        struct mero_challenge_recent *r = &book->recent[i];
        if (r->used && peer_eq(&r->peer, peer, peer_len) && memcmp(r->ns, ns, sizeof(r->ns)) == 0) {
            slot = r;
            break;
        }
        if (slot == NULL &&
            (!r->used || age_ms(r->issued_ms, now) >= MERO_CHALLENGE_MIN_REISSUE_MS)) {
            slot = r; /* free, or past its rate-limit window; keep looking for an exact match */
        }
        if (r->used && (oldest == NULL || r->issued_ms < oldest->issued_ms)) {
            oldest = r;
        }
    }
    if (slot == NULL) {
        slot = oldest;
    }
    MERO_ASSERT(slot != NULL); /* a full table has an oldest entry */
    memcpy(slot->ns, ns, sizeof(slot->ns));
    slot->peer.len = (uint8_t)peer_len;
    memset(slot->peer.b, 0, sizeof(slot->peer.b));
    memcpy(slot->peer.b, peer, peer_len);
    slot->issued_ms = now;
    slot->used = true;
}

bool mero__adm_challenge_too_soon(const struct mero_challenge_book *book,
                                  const uint8_t ns[MERO_NS_ID_LEN], const uint8_t *peer,
                                  size_t peer_len, uint64_t now_ms)
{
    return too_soon(book, ns, peer, peer_len, now_ms);
}

int mero__adm_challenge_issue(struct mero_challenge_book *book, enum mero_challenge_kind kind,
                              const uint8_t ns[MERO_NS_ID_LEN], const uint8_t *peer,
                              size_t peer_len, const uint8_t *identity, uint64_t now_ms,
                              uint8_t out[static MERO_CHALLENGE_LEN], struct mero_err *err)
{
    if (book == NULL || ns == NULL || peer == NULL || peer_len == 0 ||
        peer_len > MERO_CHALLENGE_PEER_MAX ||
        (kind != MERO_CHALLENGE_REQUESTED && kind != MERO_CHALLENGE_OFFERED) ||
        (kind == MERO_CHALLENGE_REQUESTED && identity == NULL)) {
        return mero_err_set(err, MERO_EINVAL, "bad challenge issue arguments");
    }
    expire(book, now_ms);
    BOOK_CHECK(book, true, now_ms);
    if (too_soon(book, ns, peer, peer_len, now_ms)) {
        return mero_err_set(err, MERO_EBUSY, "%s", MERO_CHALLENGE_TOO_SOON_REASON);
    }
    size_t held;
    struct mero_challenge_entry *old = peer_oldest(book, peer, peer_len, &held);
    while (held >= MERO_CHALLENGE_MAX_PER_PEER && old != NULL) {
        entry_clear(old);
        old = peer_oldest(book, peer, peer_len, &held);
    }
    size_t n;
    struct mero_challenge_entry *slots = class_slots(book, kind, &n);
    struct mero_challenge_entry *slot = NULL;
    for (size_t i = 0; i < n && slot == NULL; i++) {
        if (!slots[i].used) {
            slot = &slots[i];
        }
    }
    if (slot == NULL) {
        evict_from_class(book, slots, n);
        for (size_t i = 0; i < n && slot == NULL; i++) {
            if (!slots[i].used) {
                slot = &slots[i];
            }
        }
    }
    MERO_ASSERT(slot != NULL); /* one eviction frees a slot of the class */
    if (slot == NULL) {
        return mero_err_set(err, MERO_EINTERNAL, "challenge book has no room");
    }
    entry_clear(slot);
    mero_random(slot->challenge, MERO_CHALLENGE_LEN);
    memcpy(slot->ns, ns, sizeof(slot->ns));
    slot->peer.len = (uint8_t)peer_len;
    memcpy(slot->peer.b, peer, peer_len);
    if (kind == MERO_CHALLENGE_REQUESTED) {
        memcpy(slot->identity, identity, sizeof(slot->identity));
    }
    slot->issued_ms = now_ms;
    slot->seq = ++book->next_seq;
    slot->used = true;
    remember_issue(book, ns, peer, peer_len, now_ms);
    memcpy(out, slot->challenge, MERO_CHALLENGE_LEN);
#if defined(MERO_CHECKED)
    size_t after;
    (void)peer_oldest(book, peer, peer_len, &after);
    MERO_ASSERT(after >= 1 && after <= MERO_CHALLENGE_MAX_PER_PEER);
    MERO_ASSERT(after == mero__adm_challenge_count_peer(book, peer, peer_len, now_ms));
    MERO_ASSERT(held_copies(book, out) == 1);
    BOOK_CHECK(book, true, now_ms);
#endif
    return 0;
}

int mero__adm_challenge_consume(struct mero_challenge_book *book,
                                const uint8_t challenge[static MERO_CHALLENGE_LEN],
                                const uint8_t ns[MERO_NS_ID_LEN], const uint8_t *peer,
                                size_t peer_len, const uint8_t *identity, uint64_t now_ms,
                                struct mero_err *err)
{
    if (book == NULL || ns == NULL || peer == NULL) {
        return mero_err_set(err, MERO_EINVAL, "bad challenge consume arguments");
    }
    struct mero_challenge_entry *hit = NULL;
    bool requested = false;
    for (int k = 0; k < 2 && hit == NULL; k++) {
        size_t n;
        struct mero_challenge_entry *s = class_slots(book, (enum mero_challenge_kind)k, &n);
        for (size_t i = 0; i < n; i++) {
            if (s[i].used && mero_ct_eq(s[i].challenge, challenge, MERO_CHALLENGE_LEN)) {
                hit = &s[i];
                requested = k == MERO_CHALLENGE_REQUESTED;
                break;
            }
        }
    }
    if (hit == NULL) {
        return mero_err_set(err, MERO_EREFUSED, "%s", MERO_CHALLENGE_REFUSED_REASON);
    }
    /* Spent now, whatever comes of the checks below. */
    struct mero_challenge_entry e = *hit;
    entry_clear(hit);
    MERO_ASSERT(held_copies(book, challenge) == 0); /* never accepted again */
    BOOK_CHECK(book, false, now_ms);
    bool ok = age_ms(e.issued_ms, now_ms) < MERO_CHALLENGE_TTL_MS &&
              memcmp(e.ns, ns, sizeof(e.ns)) == 0 && peer_eq(&e.peer, peer, peer_len);
    if (ok && requested) {
        ok = identity != NULL && memcmp(e.identity, identity, sizeof(e.identity)) == 0;
    }
    mero_wipe(&e, sizeof(e));
    if (!ok) {
        return mero_err_set(err, MERO_EREFUSED, "%s", MERO_CHALLENGE_REFUSED_REASON);
    }
    return 0;
}

int mero__adm_challenge_offer_acquire(struct mero_challenge_book *book)
{
    if (book->offers_in_flight >= MERO_CHALLENGE_MAX_CONCURRENT_OFFERS) {
        return -MERO_EBUSY;
    }
    book->offers_in_flight++;
    MERO_ASSERT(book->offers_in_flight <= MERO_CHALLENGE_MAX_CONCURRENT_OFFERS);
    return 0;
}

void mero__adm_challenge_offer_release(struct mero_challenge_book *book)
{
    MERO_ASSERT(book->offers_in_flight > 0); /* a release matches an acquire */
    if (book->offers_in_flight > 0) {
        book->offers_in_flight--;
    }
}

size_t mero__adm_challenge_count(const struct mero_challenge_book *book,
                                 enum mero_challenge_kind kind, uint64_t now_ms)
{
    size_t n = kind == MERO_CHALLENGE_REQUESTED ? MERO_CHALLENGE_MAX_REQUESTED
                                                : MERO_CHALLENGE_MAX_OFFERED;
    const struct mero_challenge_entry *s =
        kind == MERO_CHALLENGE_REQUESTED ? book->requested : book->offered;
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        c += entry_live(&s[i], now_ms) ? 1 : 0;
    }
    return c;
}

size_t mero__adm_challenge_count_peer(const struct mero_challenge_book *book, const uint8_t *peer,
                                      size_t peer_len, uint64_t now_ms)
{
    size_t c = 0;
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_REQUESTED; i++) {
        c += entry_live(&book->requested[i], now_ms) &&
                     peer_eq(&book->requested[i].peer, peer, peer_len)
                 ? 1
                 : 0;
    }
    for (size_t i = 0; i < MERO_CHALLENGE_MAX_OFFERED; i++) {
        c +=
            entry_live(&book->offered[i], now_ms) && peer_eq(&book->offered[i].peer, peer, peer_len)
                ? 1
                : 0;
    }
    return c;
}
