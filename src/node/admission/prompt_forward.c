/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/prompt_forward.c - which TeeAdmissionPrompts this node forwards (issue 33, the
 * prompt flood). A joiner re-prompts about every 2 s for up to 30 s (spec "Prompt (the
 * replica)"), and gossip forwarded every copy to every subscriber of the namespace: at N=200
 * on two cores, with 160 joiners, every node received about 58 prompts a second and sent D
 * times as many, while sync requests timed out (docs/scaling.md "The prompt flood"). A member
 * offers one peer a new challenge at most every MERO_CHALLENGE_MIN_REISSUE_MS, so a node
 * forwards one source's prompts on one namespace at most that often. The joiner still
 * publishes every 2 s, its own peers still receive and handle each copy, and a copy that
 * reached nobody (an empty mesh, the spec's reason to re-prompt) started no gap anywhere.
 *
 * Invariants: the table is fixed (MERO_PROMPT_FORWARD_SLOTS slots, one per hash of
 * namespace || source, overwritten on a clash), whatever the number of sources; a prompt is
 * held back only on an exact match of (namespace, source) forwarded within the gap, so a clash
 * makes a node forward more, never less, and no source can silence another. The source is
 * gossip's author: checked by the router when a prompt is recorded (mero__adm_prompt_forward),
 * only claimed when gossip asks whether one would be held (mero__adm_prompt_forward_holds,
 * before the signature check), which records nothing, so a forged source changes no slot.
 */
#include <string.h>

#include "mero/crypto.h"
#include "node/admission/prompt_forward_internal.h"

_Static_assert((MERO_PROMPT_FORWARD_SLOTS & (MERO_PROMPT_FORWARD_SLOTS - 1u)) == 0,
               "the slot is a mask of the hash");

void mero__adm_prompt_forward_init(struct mero_prompt_forward *f)
{
    memset(f, 0, sizeof(*f));
}

/* The slot of (ns, source), and the hash it is kept under in *h. */
static struct mero_prompt_forward_slot *slot_of(struct mero_prompt_forward *f,
                                                const uint8_t ns[MERO_NS_ID_LEN],
                                                const char *source, uint8_t h[MERO_SHA256_LEN])
{
    struct mero_sha256 st;
    mero_sha256_init(&st);
    mero_sha256_update(&st, ns, MERO_NS_ID_LEN);
    mero_sha256_update(&st, source, strlen(source));
    mero_sha256_final(&st, h);
    uint32_t at; /* any 32 bits of the hash pick the slot: byte order does not matter */
    memcpy(&at, h, sizeof(at));
    return &f->slot[at & (MERO_PROMPT_FORWARD_SLOTS - 1u)];
}

static bool within_gap(const struct mero_prompt_forward_slot *s, const uint8_t h[MERO_SHA256_LEN],
                       uint64_t now)
{
    return s->used && memcmp(s->key, h, sizeof(s->key)) == 0 && now >= s->at_ms &&
           now - s->at_ms < MERO_PROMPT_FORWARD_GAP_MS;
}

bool mero__adm_prompt_forward(struct mero_prompt_forward *f, const uint8_t ns[MERO_NS_ID_LEN],
                              const char *source, uint64_t now)
{
    uint8_t h[MERO_SHA256_LEN];
    struct mero_prompt_forward_slot *s = slot_of(f, ns, source, h);
    if (within_gap(s, h, now)) {
        f->held++;
        return false;
    }
    memcpy(s->key, h, sizeof(s->key));
    s->at_ms = now;
    s->used = true;
    f->forwarded++;
    return true;
}

bool mero__adm_prompt_forward_holds(struct mero_prompt_forward *f, const uint8_t ns[MERO_NS_ID_LEN],
                                    const char *source, uint64_t now)
{
    uint8_t h[MERO_SHA256_LEN];
    return within_gap(slot_of(f, ns, source, h), h, now);
}
