/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec_internal.h - the state delta as the files of node/context/ share it (codec.c): its
 * decoded fields, the write its plaintext carries, and what a relayed delta adds. Private to
 * src/node/context/.
 */
#ifndef MERO_NODE_CONTEXT_CODEC_H
#define MERO_NODE_CONTEXT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/intent.h"
#include "mero/sizes.h"

struct mero_node;

/* A decoded delta; ct borrows the bytes it was decoded from. */
struct mero_ctx_delta {
    uint8_t ctx[MERO_CONTEXT_ID_LEN], author[MERO_IDENTITY_LEN], key_id[MERO_KEY_ID_LEN],
        nonce[MERO_GCM_NONCE_LEN], sig[MERO_ED25519_SIG_LEN];
    uint64_t lamport;
    const uint8_t *ct;
    uint32_t ct_len;
    size_t signed_len;
    /* issue 15: version 2, the relayed delta */
    uint8_t version;
    uint8_t executor[MERO_IDENTITY_LEN];
    uint64_t relayed_at;
    size_t aad_len; /* the clear header the AEAD binds: HDR_LEN or RELAYED_HDR_LEN (codec.c) */
    /* issue 30: version 3, the author's previous delta in the context (zero for its first) */
    uint8_t prev[MERO_DELTA_ID_LEN];
};

/* issue 15: the write a delta carries, read from its plaintext (borrowed from it). */
struct mero_ctx_write {
    const uint8_t *k, *v;
    uint32_t kl, vl;
    bool relayed;
    struct mero_intent it; /* relayed: the member's intent (value borrows the plaintext) */
};

/* issue 15: what a relayed delta adds (version 2): the intent as plaintext, the executor (us)
 * and relayed_at in the clear header. */
struct mero_ctx_relayed {
    const uint8_t *intent;
    size_t len;
    const uint8_t *executor;
    uint64_t relayed_at;
};

/* Decode p[0..len) into d (borrows p): at most MERO_DELTA_MAX, version 1, 2 or 3, lamport in
 * 1..MERO_LAMPORT_MAX (-MERO_ECLOCK), nothing left over. */
MERO_MUST_CHECK int mero__ctx_decode(const uint8_t *p, size_t len, struct mero_ctx_delta *d);
/* 0 when d's signature (by its author; a relayed delta's by its executor) verifies over p. */
MERO_MUST_CHECK int mero__ctx_verify_sig(const uint8_t *p, const struct mero_ctx_delta *d);
/* Parse pt[0..pl) as d's write into w (borrows pt); a refusal with the reason in err. */
MERO_MUST_CHECK int mero__ctx_parse_write(const struct mero_ctx_delta *d, const uint8_t *pt,
                                          size_t pl, struct mero_ctx_write *w,
                                          struct mero_err *err);
/* The signed delta bytes of a write of key = value in ctx by me at lamport, sealed under gk,
 * appended to d: version 3, chained to prev (my previous delta in ctx, zero for my first);
 * relayed (rl not NULL): version 2, the intent rl carries instead of key and value (prev unused).
 */
MERO_MUST_CHECK int
mero__ctx_build_delta(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const uint8_t ns[MERO_NS_ID_LEN], const uint8_t me[MERO_IDENTITY_LEN],
                      uint64_t lamport, const uint8_t gk[MERO_GROUP_KEY_LEN],
                      const uint8_t key_id[MERO_KEY_ID_LEN], const uint8_t prev[MERO_DELTA_ID_LEN],
                      const char *key, const uint8_t *value, size_t vlen,
                      const struct mero_ctx_relayed *rl, struct mero_buf *d);

#endif
