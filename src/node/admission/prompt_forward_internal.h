/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prompt_forward_internal.h - which TeeAdmissionPrompts this node passes on to its gossip mesh
 * (node/admission/prompt_forward.c). Private to src/node.
 *
 * A node forwards one source's prompts on one namespace at most once every
 * MERO_PROMPT_FORWARD_GAP_MS; every prompt is still handled here as before, except a copy that
 * would come to nothing, which gossip drops before its signature check (peer.c,
 * mero__adm_gossip_noop). Times are monotonic milliseconds passed in.
 */
#ifndef MERO_NODE_ADMISSION_PROMPT_FORWARD_H
#define MERO_NODE_ADMISSION_PROMPT_FORWARD_H

#include <stdbool.h>
#include <stdint.h>

#include "mero/sizes.h"
#include "node/admission/challenge_internal.h"

/* A member offers one peer a new challenge at most this often, so a prompt from that peer
 * forwarded sooner finds nobody who can act on it. */
#define MERO_PROMPT_FORWARD_GAP_MS MERO_CHALLENGE_MIN_REISSUE_MS
#define MERO_PROMPT_FORWARD_SLOTS  1024u /* sources remembered; a power of two */
#define MERO_PROMPT_FORWARD_KEY    16u   /* bytes of SHA-256(namespace || source) kept */

struct mero_prompt_forward_slot {
    uint8_t key[MERO_PROMPT_FORWARD_KEY];
    uint64_t at_ms; /* when a prompt of this key was last forwarded */
    bool used;
};

struct mero_prompt_forward {
    struct mero_prompt_forward_slot slot[MERO_PROMPT_FORWARD_SLOTS];
    uint64_t forwarded, held; /* counted for GET /metrics */
};

void mero__adm_prompt_forward_init(struct mero_prompt_forward *f);
/* Whether the prompt `source` (its gossip author, a peer id string) published on namespace ns
 * is forwarded now; records it when it is. False only when a prompt of exactly that
 * (namespace, source) was forwarded less than MERO_PROMPT_FORWARD_GAP_MS before now. */
bool mero__adm_prompt_forward(struct mero_prompt_forward *f, const uint8_t ns[MERO_NS_ID_LEN],
                              const char *source, uint64_t now);
/* Whether a prompt of (ns, source) would be held back now; records nothing (issue 33: asked
 * before a prompt's signature is checked, with the source it claims). */
bool mero__adm_prompt_forward_holds(struct mero_prompt_forward *f, const uint8_t ns[MERO_NS_ID_LEN],
                                    const char *source, uint64_t now);

#endif
