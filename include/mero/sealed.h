/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed.h - Calimero's sealed HTTP v2 without the HTTP (src/net/sealed_noise.c,
 * sealed_envelope.c): the Noise_NK_25519_AESGCM_SHA256 handshake (prologue
 * "calimero/sealed-http/v2") to a node's X25519 transport key, both sides, and the envelope: a
 * request sealed under the request key with nonce rid || 0 and the header 0x02 || session id || rid
 * as AAD, and response frames (u32 BE length || AES-256-GCM under the response key, nonce rid ||
 * index, same AAD) of one kind byte (head, body piece, end) and at most MERO_SEALED_FRAME_DATA_MAX
 * bytes of data. The byte format is core's crates/server/src/sealed.rs and mero-js's sealed.ts
 * (docs/sealed.md).
 *
 * Invariants: a refusal is one of three codes the caller maps to core's refusal names:
 * -MERO_EPROTO "malformed" (a wrong length, a low-order client key, a handshake carrying
 * data), -MERO_ECRYPTO "undecryptable" (a tag that does not verify), -MERO_EUNSUPPORTED
 * "unsupported_version"; outputs are written only on success; secret intermediates are wiped.
 *
 * Thread safety: every function is safe from any thread on distinct objects.
 */
#ifndef MERO_SEALED_H
#define MERO_SEALED_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_SEALED_PROLOGUE     "calimero/sealed-http/v2"
#define MERO_SEALED_NOISE_NAME   "Noise_NK_25519_AESGCM_SHA256"
#define MERO_SEALED_CONTENT_TYPE "application/vnd.calimero.sealed"
#define MERO_SEALED_LIFETIME_S   3600u /* a session's keys live this long, however busy */

enum mero_sealed_frame_kind { MERO_SEALED_HEAD = 0, MERO_SEALED_DATA = 1, MERO_SEALED_END = 2 };

/* The two AES-256-GCM keys Split() gives: client to node (requests), node to client (frames). */
struct mero_sealed_keys {
    uint8_t request[MERO_AEAD_KEY_LEN];
    uint8_t response[MERO_AEAD_KEY_LEN];
};

/* The node's side: answer Noise message 1 (MERO_SEALED_MSG1_LEN bytes, n checked) with
 * message 2, whose payload is sid || lifetime (u32 BE), and give the session's keys. e_sk is
 * the node's ephemeral secret (NULL: a fresh one; tests pass the published vector's). */
MERO_MUST_CHECK int mero_sealed_respond(const uint8_t s_sk[MERO_X25519_LEN], const uint8_t *e_sk,
                                        const uint8_t *msg1, size_t n,
                                        const uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                                        uint32_t lifetime, uint8_t msg2[MERO_SEALED_MSG2_LEN],
                                        struct mero_sealed_keys *keys);

/* The client's side: one handshake in progress. */
struct mero_sealed_client {
    uint8_t h[MERO_SHA256_LEN], ck[MERO_SHA256_LEN], k[MERO_AEAD_KEY_LEN];
    uint8_t e_sk[MERO_X25519_LEN], e_pk[MERO_X25519_LEN];
};
/* Message 1 to the node's transport key rs (e_sk NULL: a fresh ephemeral). */
MERO_MUST_CHECK int mero_sealed_initiate(struct mero_sealed_client *c,
                                         const uint8_t rs[MERO_X25519_LEN], const uint8_t *e_sk,
                                         uint8_t msg1[MERO_SEALED_MSG1_LEN]);
/* Read message 2 (n bytes, checked): the session id, its lifetime and the keys. Wipes c. */
MERO_MUST_CHECK int mero_sealed_finish(struct mero_sealed_client *c, const uint8_t *msg2, size_t n,
                                       uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint32_t *lifetime,
                                       struct mero_sealed_keys *keys);

/* ---- the envelope ---- */
/* 0x02 || sid || rid (u64 BE): a request's AAD and its frames'. */
void mero_sealed_header(uint8_t out[MERO_SEALED_HEADER_LEN],
                        const uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint64_t rid);
/* The header of a sealed request of n bytes: -MERO_EPROTO when n < header + tag,
 * -MERO_EUNSUPPORTED for another version. */
MERO_MUST_CHECK int mero_sealed_header_parse(const uint8_t *p, size_t n,
                                             uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                                             uint64_t *rid);
/* Seal plain (u32 BE head length || head || body) as a request: appends header || ct || tag. */
MERO_MUST_CHECK int mero_sealed_request_seal(const uint8_t key[MERO_AEAD_KEY_LEN],
                                             const uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                                             uint64_t rid, const uint8_t *plain, size_t n,
                                             struct mero_buf *out);
/* Open a whole sealed request of n bytes (header parsed and checked first) into plain, which
 * has room for n - header - tag bytes; *plain_len gets that. -MERO_ECRYPTO on a bad tag. */
MERO_MUST_CHECK int mero_sealed_request_open(const uint8_t key[MERO_AEAD_KEY_LEN],
                                             const uint8_t *env, size_t n, uint8_t *plain,
                                             size_t *plain_len);
/* Where an opened request's head and body lie: *head_len bytes of head at plain + 4, the body
 * after it. -MERO_EPROTO when the length field is missing, past the end or over
 * MERO_SEALED_HEAD_MAX. */
MERO_MUST_CHECK int mero_sealed_inner_split(const uint8_t *plain, size_t n, size_t *head_len);
/* Append one frame: u32 BE length || AES-256-GCM(kind || data). n <= MERO_SEALED_FRAME_DATA_MAX. */
MERO_MUST_CHECK int mero_sealed_frame_seal(const uint8_t key[MERO_AEAD_KEY_LEN],
                                           const uint8_t hdr[MERO_SEALED_HEADER_LEN],
                                           uint32_t index, uint8_t kind, const uint8_t *data,
                                           size_t n, struct mero_buf *out);
/* Open the frame at p (n bytes available) with its index: *used gets its length on the wire,
 * *kind its kind, data (reset first) its data. -MERO_ETRUNC when n is short of a whole frame,
 * -MERO_EPROTO for a length past the protocol maximum, -MERO_ECRYPTO for a bad tag (a frame
 * out of order, tampered or from another request). */
MERO_MUST_CHECK int mero_sealed_frame_open(const uint8_t key[MERO_AEAD_KEY_LEN],
                                           const uint8_t hdr[MERO_SEALED_HEADER_LEN],
                                           uint32_t index, const uint8_t *p, size_t n, size_t *used,
                                           uint8_t *kind, struct mero_buf *data);

#endif
