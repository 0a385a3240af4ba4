/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_cache.c - gossipsub's two caches: the seen cache (two generations of open-addressed
 * 16-byte SHA-256 prefixes of message ids, rotated every seen_ttl/2 or when half full) and the
 * message cache (5 heartbeat windows of recent messages, for IWANT answers and IHAVE gossip).
 *
 * Invariant: both are fixed-size; inserting into a full window drops the message from the
 * cache (never grows memory), and a full seen generation forces a rotation.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "net/gossip_internal.h"

/* ---- seen cache ---- */

static void mero__gs_seen_key(const uint8_t *id, size_t n, uint8_t key[GS_SEEN_KEY])
{
    uint8_t h[MERO_SHA256_LEN];
    mero_sha256(h, id, n);
    memcpy(key, h, GS_SEEN_KEY);
}

static int mero__gs_seen_in(const struct mero__gs_seen_gen *s, const uint8_t key[GS_SEEN_KEY],
                            size_t *slot)
{
    size_t i = ((size_t)key[0] | ((size_t)key[1] << 8)) & (GS_SEEN_SLOTS - 1);
    for (size_t k = 0; k < GS_SEEN_SLOTS; k++, i = (i + 1) & (GS_SEEN_SLOTS - 1)) {
        if (!s->used[i]) {
            *slot = i;
            return 0;
        }
        if (memcmp(s->keys[i], key, GS_SEEN_KEY) == 0) {
            *slot = i;
            return 1;
        }
    }
    *slot = GS_SEEN_SLOTS;
    return 0;
}

void mero__gs_seen_rotate(struct mero__gossip *g, uint64_t now)
{
    struct mero__gs_seen_gen t = g->seen[1];
    g->seen[1] = g->seen[0];
    g->seen[0] = t;
    memset(g->seen[0].used, 0, GS_SEEN_SLOTS);
    g->seen[0].count = 0;
    g->seen_rotated = now;
}

int mero__gs_seen_check_add(struct mero__gossip *g, const uint8_t *id, size_t n, int add)
{
    uint8_t key[GS_SEEN_KEY];
    size_t slot;
    mero__gs_seen_key(id, n, key);
    if (mero__gs_seen_in(&g->seen[0], key, &slot) || mero__gs_seen_in(&g->seen[1], key, &slot)) {
        return 1;
    }
    if (!add) {
        return 0;
    }
    if (g->seen[0].count >= GS_SEEN_SLOTS / 2) {
        mero__gs_seen_rotate(g, uv_now(g->net->loop));
    }
    (void)mero__gs_seen_in(&g->seen[0], key, &slot);
    if (slot < GS_SEEN_SLOTS) {
        memcpy(g->seen[0].keys[slot], key, GS_SEEN_KEY);
        g->seen[0].used[slot] = 1;
        g->seen[0].count++;
    }
    return 0;
}

/* ---- message cache ---- */

void mero__gs_mc_put(struct mero__gossip *g, const uint8_t *id, size_t idn, const char *topic,
                     const uint8_t *raw, size_t rawn)
{
    struct mero__gs_mc_entry *e;
    if (g->mcn[0] >= GS_MCACHE_PER_WIN || idn > MERO__MSGID_MAX) {
        return;
    }
    e = &g->mc[0][g->mcn[0]];
    e->raw = malloc(rawn);
    if (e->raw == NULL) {
        return;
    }
    memcpy(e->raw, raw, rawn);
    e->rawn = rawn;
    memcpy(e->id, id, idn);
    e->idn = idn;
    snprintf(e->topic, sizeof(e->topic), "%s", topic);
    g->mcn[0]++;
}

const struct mero__gs_mc_entry *mero__gs_mc_get(struct mero__gossip *g, const uint8_t *id,
                                                size_t idn)
{
    for (size_t w = 0; w < GS_MCACHE_LEN; w++) {
        for (size_t i = 0; i < g->mcn[w]; i++) {
            if (g->mc[w][i].idn == idn && memcmp(g->mc[w][i].id, id, idn) == 0) {
                return &g->mc[w][i];
            }
        }
    }
    return NULL;
}

void mero__gs_mc_shift(struct mero__gossip *g)
{
    struct mero__gs_mc_entry *last = g->mc[GS_MCACHE_LEN - 1];
    for (size_t i = 0; i < g->mcn[GS_MCACHE_LEN - 1]; i++) {
        free(last[i].raw);
    }
    memmove(&g->mc[1], &g->mc[0], sizeof(g->mc[0]) * (GS_MCACHE_LEN - 1));
    memmove(&g->mcn[1], &g->mcn[0], sizeof(g->mcn[0]) * (GS_MCACHE_LEN - 1));
    g->mc[0] = last;
    g->mcn[0] = 0;
}
