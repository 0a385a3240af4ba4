/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sealed.c - libFuzzer target for the sealed HTTP v2 parsers (issue 31, mero/sealed.h):
 * the input is read as a handshake body (version, key, Noise message 1) at the node, as
 * Noise message 2 at a client that sent a real message 1, as a sealed request (header, open
 * under the session of core's published vectors, inner split) and as a stream of response
 * frames a client reads in order. The session is the vectors' (transport secret 0x22..,
 * ephemerals 0x33.. and 0x44.., session id 0x55..), so the corpus's vector seeds open and
 * the fuzzer reaches past the tags. Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/sealed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mero_sealed_keys keys;
static uint8_t s_sk[MERO_X25519_LEN], s_pk[MERO_X25519_LEN], sid[MERO_SEALED_SESSION_ID_LEN];

static int setup(void)
{
    uint8_t ce[MERO_X25519_LEN], ne[MERO_X25519_LEN], m1[MERO_SEALED_MSG1_LEN];
    uint8_t m2[MERO_SEALED_MSG2_LEN];
    struct mero_sealed_client c;
    MERO_TRY(mero_crypto_init());
    memset(s_sk, 0x22, sizeof(s_sk));
    memset(ce, 0x33, sizeof(ce));
    memset(ne, 0x44, sizeof(ne));
    memset(sid, 0x55, sizeof(sid));
    mero_x25519_public(s_pk, s_sk);
    MERO_TRY(mero_sealed_initiate(&c, s_pk, ce, m1));
    MERO_TRY(mero_sealed_respond(s_sk, ne, m1, sizeof(m1), sid, MERO_SEALED_LIFETIME_S, m2, &keys));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    uint8_t m2[MERO_SEALED_MSG2_LEN], got[MERO_SEALED_SESSION_ID_LEN], m1[MERO_SEALED_MSG1_LEN];
    uint8_t hdr[MERO_SEALED_HEADER_LEN], sid2[MERO_SEALED_SESSION_ID_LEN];
    struct mero_sealed_keys k;
    struct mero_sealed_client c;
    struct mero_buf frame;
    uint32_t life = 0;
    uint64_t rid = 0;
    int rc = 0;
    if (!inited) {
        if (setup() < 0) {
            return 0;
        }
        inited = 1;
    }
    /* a handshake body at the node: version, transport key, then message 1 */
    if (size >= 1 + MERO_X25519_LEN && data[0] == MERO_SEALED_VERSION) {
        rc |= mero_sealed_respond(s_sk, NULL, data + 1 + MERO_X25519_LEN,
                                  size - 1 - MERO_X25519_LEN, sid, 1, m2, &k);
    }
    rc |= mero_sealed_respond(s_sk, NULL, data, size, sid, 1, m2, &k);
    /* message 2 (after the version byte, if any) at a client */
    if (mero_sealed_initiate(&c, s_pk, NULL, m1) == 0) {
        size_t skip = size > 0 && data[0] == MERO_SEALED_VERSION ? 1 : 0;
        rc |= mero_sealed_finish(&c, data + skip, size - skip, got, &life, &k);
    }
    /* a sealed request at the node */
    if (mero_sealed_header_parse(data, size, sid2, &rid) == 0) {
        uint8_t *plain = malloc(size);
        size_t n = 0, head = 0;
        if (plain != NULL && mero_sealed_request_open(keys.request, data, size, plain, &n) == 0 &&
            mero_sealed_inner_split(plain, n, &head) == 0 && head + 4 > n) {
            __builtin_trap(); /* the split must stay inside what was opened */
        }
        free(plain);
    }
    /* a response stream at the client, frame by frame in order (the vectors' request id 1) */
    mero_sealed_header(hdr, sid, 1);
    mero_buf_init(&frame, 1u << 20);
    size_t off = 0, used = 0;
    uint8_t kind = 0;
    for (uint32_t i = 0; off < size; i++) {
        if (mero_sealed_frame_open(keys.response, hdr, i, data + off, size - off, &used, &kind,
                                   &frame) < 0) {
            break;
        }
        if (used > size - off || frame.len > MERO_SEALED_FRAME_DATA_MAX) {
            __builtin_trap();
        }
        off += used;
    }
    mero_buf_cleanup(&frame);
    (void)rc;
    return 0;
}
