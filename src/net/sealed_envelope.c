/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed_envelope.c - the sealed HTTP v2 envelope, both directions, without the HTTP: the
 * header 0x02 || session id || request id (u64 BE), a request sealed under the request key
 * (nonce rid || 0), its plaintext split into head and body, and response frames
 * (u32 BE length || AES-256-GCM(kind || data) under the response key, nonce rid || index).
 *
 * Invariants: every length from the wire is checked against what remains and the protocol
 * maximum (a frame: 1 + MERO_SEALED_FRAME_DATA_MAX + tag; a head: MERO_SEALED_HEAD_MAX) before
 * anything is read or allocated; a frame opens only under its own index and header, so a
 * frame out of order, from another request or tampered is refused (-MERO_ECRYPTO).
 */
#include <string.h>

#include "mero/crypto.h"
#include "mero/sealed.h"

#define TAG       MERO_AEAD_TAG_LEN
#define FRAME_MAX (1 + MERO_SEALED_FRAME_DATA_MAX + TAG) /* a frame's length field, at most */

static void put_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    }
}

static uint64_t get_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        v = (v << 8) | p[i];
    }
    return v;
}

/* rid || index: unique per key, as a session admits each rid once and numbers frames from 0. */
static void nonce_of(uint64_t rid, uint32_t index, uint8_t nonce[MERO_SEALED_NONCE_LEN])
{
    put_be(nonce, rid, 8);
    put_be(nonce + 8, index, 4);
}

void mero_sealed_header(uint8_t out[MERO_SEALED_HEADER_LEN],
                        const uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint64_t rid)
{
    out[0] = MERO_SEALED_VERSION;
    memcpy(out + 1, sid, MERO_SEALED_SESSION_ID_LEN);
    put_be(out + 1 + MERO_SEALED_SESSION_ID_LEN, rid, 8);
}

int mero_sealed_header_parse(const uint8_t *p, size_t n, uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                             uint64_t *rid)
{
    if (n < MERO_SEALED_HEADER_LEN + TAG) {
        return -MERO_EPROTO;
    }
    if (p[0] != MERO_SEALED_VERSION) {
        return -MERO_EUNSUPPORTED;
    }
    memcpy(sid, p + 1, MERO_SEALED_SESSION_ID_LEN);
    *rid = get_be(p + 1 + MERO_SEALED_SESSION_ID_LEN, 8);
    return 0;
}

int mero_sealed_request_seal(const uint8_t key[MERO_AEAD_KEY_LEN],
                             const uint8_t sid[MERO_SEALED_SESSION_ID_LEN], uint64_t rid,
                             const uint8_t *plain, size_t n, struct mero_buf *out)
{
    uint8_t hdr[MERO_SEALED_HEADER_LEN], nonce[MERO_SEALED_NONCE_LEN];
    mero_sealed_header(hdr, sid, rid);
    nonce_of(rid, 0, nonce);
    MERO_TRY(mero_buf_reserve(out, sizeof(hdr) + n + TAG));
    uint8_t *at = out->data + out->len;
    memcpy(at, hdr, sizeof(hdr));
    MERO_TRY(mero_aes256gcm_seal(at + sizeof(hdr), plain, n, hdr, sizeof(hdr), nonce, key));
    out->len += sizeof(hdr) + n + TAG;
    return 0;
}

int mero_sealed_request_open(const uint8_t key[MERO_AEAD_KEY_LEN], const uint8_t *env, size_t n,
                             uint8_t *plain, size_t *plain_len)
{
    uint8_t sid[MERO_SEALED_SESSION_ID_LEN], nonce[MERO_SEALED_NONCE_LEN];
    uint64_t rid = 0;
    MERO_TRY(mero_sealed_header_parse(env, n, sid, &rid));
    nonce_of(rid, 0, nonce);
    if (mero_aes256gcm_open(plain, env + MERO_SEALED_HEADER_LEN, n - MERO_SEALED_HEADER_LEN, env,
                            MERO_SEALED_HEADER_LEN, nonce, key) < 0) {
        return -MERO_ECRYPTO;
    }
    *plain_len = n - MERO_SEALED_HEADER_LEN - TAG;
    return 0;
}

int mero_sealed_inner_split(const uint8_t *plain, size_t n, size_t *head_len)
{
    if (n < 4) {
        return -MERO_EPROTO;
    }
    uint64_t len = get_be(plain, 4);
    if (len > MERO_SEALED_HEAD_MAX || len > n - 4) {
        return -MERO_EPROTO;
    }
    *head_len = (size_t)len;
    return 0;
}

int mero_sealed_frame_seal(const uint8_t key[MERO_AEAD_KEY_LEN],
                           const uint8_t hdr[MERO_SEALED_HEADER_LEN], uint32_t index, uint8_t kind,
                           const uint8_t *data, size_t n, struct mero_buf *out)
{
    uint8_t nonce[MERO_SEALED_NONCE_LEN];
    if (n > MERO_SEALED_FRAME_DATA_MAX) {
        return -MERO_ETOOBIG;
    }
    nonce_of(get_be(hdr + 1 + MERO_SEALED_SESSION_ID_LEN, 8), index, nonce);
    MERO_TRY(mero_buf_reserve(out, 4 + 1 + n + TAG));
    uint8_t *at = out->data + out->len;
    put_be(at, 1 + n + TAG, 4);
    at[4] = kind;
    if (n > 0) {
        memcpy(at + 5, data, n);
    }
    MERO_TRY(mero_aes256gcm_seal(at + 4, at + 4, 1 + n, hdr, MERO_SEALED_HEADER_LEN, nonce, key));
    out->len += 4 + 1 + n + TAG;
    return 0;
}

int mero_sealed_frame_open(const uint8_t key[MERO_AEAD_KEY_LEN],
                           const uint8_t hdr[MERO_SEALED_HEADER_LEN], uint32_t index,
                           const uint8_t *p, size_t n, size_t *used, uint8_t *kind,
                           struct mero_buf *data)
{
    uint8_t nonce[MERO_SEALED_NONCE_LEN];
    if (n < 4) {
        return -MERO_ETRUNC;
    }
    uint64_t len = get_be(p, 4);
    if (len < 1 + TAG || len > FRAME_MAX) {
        return -MERO_EPROTO;
    }
    if (len > n - 4) {
        return -MERO_ETRUNC;
    }
    mero_buf_reset(data);
    MERO_TRY(mero_buf_reserve(data, (size_t)len - TAG));
    nonce_of(get_be(hdr + 1 + MERO_SEALED_SESSION_ID_LEN, 8), index, nonce);
    if (mero_aes256gcm_open(data->data, p + 4, (size_t)len, hdr, MERO_SEALED_HEADER_LEN, nonce,
                            key) < 0) {
        return -MERO_ECRYPTO;
    }
    *kind = data->data[0];
    data->len = (size_t)len - TAG - 1;
    memmove(data->data, data->data + 1, data->len);
    *used = 4 + (size_t)len;
    return 0;
}
