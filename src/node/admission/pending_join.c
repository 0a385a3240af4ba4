/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/pending_join.c - the joiner's pending TEE joins (spec "Prompt (the replica)": "a
 * node that is not waiting to be admitted to that namespace answers with nothing, and quotes are
 * made at most every couple of seconds however many offers arrive"; reference-calimero.md §5.2).
 *
 * Invariants: an offer is answered only for a namespace registered less than 120 s ago; at most
 * one quote per namespace per 2 s and per offering peer per 10 s; the per-peer check runs
 * first and does not touch the namespace's slot, so a peer re-offering fast cannot starve a
 * second admitter. The offerer table is fixed at 64 entries (expired entries reused first,
 * then the oldest), so a flood of offerers costs no memory.
 */
#include <string.h>

#include "node/admission/pending_join_internal.h"

static uint64_t age_ms(uint64_t then, uint64_t now)
{
    return now > then ? now - then : 0;
}

static bool ns_live(const struct mero_pending_ns *e, uint64_t now)
{
    return e->used && age_ms(e->registered_ms, now) < MERO_PENDING_JOIN_TTL_MS;
}

void mero__adm_pending_init(struct mero_pending_joins *p)
{
    memset(p, 0, sizeof(*p));
}

static struct mero_pending_ns *find_ns(struct mero_pending_joins *p,
                                       const uint8_t ns[MERO_NS_ID_LEN])
{
    for (size_t i = 0; i < MERO_MAX_PENDING_NAMESPACES; i++) {
        if (p->ns[i].used && memcmp(p->ns[i].ns, ns, MERO_NS_ID_LEN) == 0) {
            return &p->ns[i];
        }
    }
    return NULL;
}

int mero__adm_pending_register(struct mero_pending_joins *p, const uint8_t ns[MERO_NS_ID_LEN],
                               uint64_t now_ms)
{
    struct mero_pending_ns *e = find_ns(p, ns);
    if (e == NULL) {
        for (size_t i = 0; i < MERO_MAX_PENDING_NAMESPACES && e == NULL; i++) {
            if (!ns_live(&p->ns[i], now_ms)) {
                e = &p->ns[i];
            }
        }
        if (e == NULL) {
            return -MERO_EBUSY;
        }
        memset(e, 0, sizeof(*e));
        memcpy(e->ns, ns, sizeof(e->ns));
        e->used = true;
    }
    e->registered_ms = now_ms; /* a new fleet-join call restarts the window */
    return 0;
}

void mero__adm_pending_remove(struct mero_pending_joins *p, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_pending_ns *e = find_ns(p, ns);
    if (e != NULL) {
        memset(e, 0, sizeof(*e));
    }
}

bool mero__adm_pending_is_pending(const struct mero_pending_joins *p,
                                  const uint8_t ns[MERO_NS_ID_LEN], uint64_t now_ms)
{
    for (size_t i = 0; i < MERO_MAX_PENDING_NAMESPACES; i++) {
        if (ns_live(&p->ns[i], now_ms) && memcmp(p->ns[i].ns, ns, MERO_NS_ID_LEN) == 0) {
            return true;
        }
    }
    return false;
}

static struct mero_pending_offerer *offerer_slot(struct mero_pending_joins *p, const uint8_t *peer,
                                                 size_t peer_len, uint64_t now, bool *found)
{
    struct mero_pending_offerer *free_slot = NULL, *oldest = NULL;
    *found = false;
    for (size_t i = 0; i < MERO_MAX_TRACKED_OFFERERS; i++) {
        struct mero_pending_offerer *o = &p->offerers[i];
        if (o->used && o->len == peer_len && memcmp(o->peer, peer, peer_len) == 0) {
            *found = true;
            return o;
        }
        if (free_slot == NULL &&
            (!o->used || age_ms(o->last_ms, now) >= MERO_MIN_ATTEST_INTERVAL_PER_PEER_MS)) {
            free_slot = o;
        }
        if (o->used && (oldest == NULL || o->last_ms < oldest->last_ms)) {
            oldest = o;
        }
    }
    return free_slot != NULL ? free_slot : oldest;
}

int mero__adm_pending_may_answer(struct mero_pending_joins *p, const uint8_t ns[MERO_NS_ID_LEN],
                                 const uint8_t *peer, size_t peer_len, uint64_t now_ms)
{
    if (peer == NULL || peer_len == 0 || peer_len > MERO_PENDING_PEER_MAX) {
        return -MERO_EINVAL;
    }
    struct mero_pending_ns *e = find_ns(p, ns);
    if (e == NULL || !ns_live(e, now_ms)) {
        return -MERO_ENOTFOUND;
    }
    bool found;
    struct mero_pending_offerer *o = offerer_slot(p, peer, peer_len, now_ms, &found);
    if (found && age_ms(o->last_ms, now_ms) < MERO_MIN_ATTEST_INTERVAL_PER_PEER_MS) {
        return -MERO_EBUSY;
    }
    if (e->quoted && age_ms(e->last_quote_ms, now_ms) < MERO_MIN_ATTEST_INTERVAL_MS) {
        return -MERO_EBUSY;
    }
    e->quoted = true;
    e->last_quote_ms = now_ms;
    memset(o, 0, sizeof(*o));
    o->len = (uint8_t)peer_len;
    memcpy(o->peer, peer, peer_len);
    o->last_ms = now_ms;
    o->used = true;
    return 0;
}
