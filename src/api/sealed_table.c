/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed_table.c - the sealed sessions this node holds (issue 31): an open-addressing table
 * keyed by the node-chosen random session id, each with its keys, its deadlines and its
 * replay window, plus the node-wide handshake token bucket. Lives on the API's loop thread.
 *
 * Invariants: at most SEALED_MAX_SESSIONS sessions (a handshake flood displaces its own
 * never-used sessions first, so memory stays bounded at about SEALED_MAX_SESSIONS small
 * entries); a session's keys are wiped when it goes (expired, displaced, swept, cleanup); a
 * request id is accepted once per session, and never at or below the floor of ids forgotten.
 */
#include <stdlib.h>
#include <string.h>

#include "api/sealed_internal.h"
#include "mero/crypto.h"

#define SEALED_SLOTS (2u * SEALED_MAX_SESSIONS) /* load factor at most one half */
#define TOKEN        1000u                      /* one handshake, in milli-tokens */

static size_t home_of(const uint8_t id[MERO_SEALED_SESSION_ID_LEN])
{
    uint64_t h = 0;
    for (size_t i = 0; i < MERO_SEALED_SESSION_ID_LEN; i++) {
        h = (h ^ id[i]) * 0x100000001b3ull; /* FNV-1a: ids are random, any spread will do */
    }
    return (size_t)(h & (SEALED_SLOTS - 1));
}

static void session_free(struct sealed_session *s)
{
    if (s == NULL) {
        return;
    }
    free(s->seen);
    mero_wipe(s, sizeof(*s));
    free(s);
}

int mero__sealed_table_init(struct sealed_table *t, uint64_t now_ms)
{
    memset(t, 0, sizeof(*t));
    t->slot = calloc(SEALED_SLOTS, sizeof(*t->slot));
    if (t->slot == NULL) {
        return -MERO_ENOMEM;
    }
    t->milli_tokens = (uint64_t)SEALED_HS_BURST * TOKEN;
    t->refilled_ms = now_ms;
    return 0;
}

void mero__sealed_table_cleanup(struct sealed_table *t)
{
    if (t->slot != NULL) {
        for (size_t i = 0; i < SEALED_SLOTS; i++) {
            session_free(t->slot[i]);
        }
        free(t->slot);
    }
    memset(t, 0, sizeof(*t));
}

bool mero__sealed_hs_admit(struct sealed_table *t, uint64_t now_ms)
{
    uint64_t cap = (uint64_t)SEALED_HS_BURST * TOKEN;
    if (now_ms > t->refilled_ms) {
        uint64_t add = (now_ms - t->refilled_ms) * SEALED_HS_PER_S; /* per ms, in milli-tokens */
        t->milli_tokens = add >= cap - t->milli_tokens ? cap : t->milli_tokens + add;
        t->refilled_ms = now_ms;
    }
    if (t->milli_tokens < TOKEN) {
        return false;
    }
    t->milli_tokens -= TOKEN;
    return true;
}

static size_t find(const struct sealed_table *t, const uint8_t id[MERO_SEALED_SESSION_ID_LEN])
{
    for (size_t i = home_of(id);; i = (i + 1) & (SEALED_SLOTS - 1)) {
        if (t->slot[i] == NULL || memcmp(t->slot[i]->id, id, MERO_SEALED_SESSION_ID_LEN) == 0) {
            return i;
        }
    }
}

/* Remove slot i, shifting later entries of its run back (no tombstones). */
static void remove_at(struct sealed_table *t, size_t i)
{
    session_free(t->slot[i]);
    t->slot[i] = NULL;
    t->n--;
    for (size_t j = (i + 1) & (SEALED_SLOTS - 1); t->slot[j] != NULL;
         j = (j + 1) & (SEALED_SLOTS - 1)) {
        size_t h = home_of(t->slot[j]->id);
        /* j's entry may move to the hole i when its home is not in (i, j] (cyclically) */
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!stays) {
            t->slot[i] = t->slot[j];
            t->slot[j] = NULL;
            i = j;
        }
    }
}

static bool is_live(const struct sealed_session *s, uint64_t now_ms)
{
    return now_ms < s->expires_ms && now_ms < s->idle_until_ms;
}

void mero__sealed_expire(struct sealed_table *t, uint64_t now_ms)
{
    for (size_t i = 0; i < SEALED_SLOTS;) {
        if (t->slot[i] != NULL && !is_live(t->slot[i], now_ms)) {
            remove_at(t, i); /* a later entry may have moved into i: look again */
        } else {
            i++;
        }
    }
}

int mero__sealed_insert(struct sealed_table *t, const uint8_t id[MERO_SEALED_SESSION_ID_LEN],
                        const struct mero_sealed_keys *keys, uint64_t now_ms)
{
    if (t->n >= SEALED_MAX_SESSIONS) {
        mero__sealed_expire(t, now_ms);
    }
    if (t->n >= SEALED_MAX_SESSIONS) {
        /* displace first one never used, then the least recently used */
        size_t worst = SEALED_SLOTS;
        for (size_t i = 0; i < SEALED_SLOTS; i++) {
            const struct sealed_session *s = t->slot[i], *w;
            if (s == NULL) {
                continue;
            }
            w = worst < SEALED_SLOTS ? t->slot[worst] : NULL;
            if (w == NULL || (s->used < w->used) ||
                (s->used == w->used && s->idle_until_ms < w->idle_until_ms)) {
                worst = i;
            }
        }
        if (worst < SEALED_SLOTS) {
            remove_at(t, worst);
        }
    }
    size_t at = find(t, id);
    if (t->slot[at] != NULL) {
        remove_at(t, at); /* the same id again: the new session replaces it */
        at = find(t, id);
    }
    struct sealed_session *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(s->id, id, sizeof(s->id));
    s->keys = *keys;
    s->expires_ms = now_ms + SEALED_LIFETIME_MS;
    s->idle_until_ms = now_ms + SEALED_IDLE_MS;
    t->slot[at] = s;
    t->n++;
    return 0;
}

struct sealed_session *mero__sealed_live(struct sealed_table *t,
                                         const uint8_t id[MERO_SEALED_SESSION_ID_LEN],
                                         uint64_t now_ms)
{
    size_t at = find(t, id);
    if (t->slot[at] == NULL) {
        return NULL;
    }
    if (!is_live(t->slot[at], now_ms)) {
        remove_at(t, at);
        return NULL;
    }
    return t->slot[at];
}

/* The replay window: insert rid into the sorted set, refusing one seen or at/below the floor;
 * past SEALED_REPLAY_WINDOW ids the oldest is forgotten and becomes the floor. */
static int window_insert(struct sealed_session *s, uint64_t rid)
{
    size_t lo = 0, hi = s->nseen;
    if (rid <= s->floor) {
        return -MERO_EEXIST;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->seen[mid] < rid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < s->nseen && s->seen[lo] == rid) {
        return -MERO_EEXIST;
    }
    if (s->nseen == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        if (cap > SEALED_REPLAY_WINDOW + 1) {
            cap = SEALED_REPLAY_WINDOW + 1;
        }
        uint64_t *p = realloc(s->seen, cap * sizeof(*p));
        if (p == NULL) {
            return -MERO_ENOMEM;
        }
        s->seen = p;
        s->cap = cap;
    }
    memmove(s->seen + lo + 1, s->seen + lo, (s->nseen - lo) * sizeof(*s->seen));
    s->seen[lo] = rid;
    s->nseen++;
    if (s->nseen > SEALED_REPLAY_WINDOW) {
        s->floor = s->seen[0];
        s->nseen--;
        memmove(s->seen, s->seen + 1, s->nseen * sizeof(*s->seen));
    }
    return 0;
}

int mero__sealed_admit(struct sealed_table *t, const uint8_t id[MERO_SEALED_SESSION_ID_LEN],
                       uint64_t rid, uint64_t now_ms)
{
    struct sealed_session *s = mero__sealed_live(t, id, now_ms);
    if (s == NULL) {
        return -MERO_ENOTFOUND;
    }
    MERO_TRY(window_insert(s, rid));
    s->idle_until_ms = now_ms + SEALED_IDLE_MS;
    s->used = true;
    return 0;
}
