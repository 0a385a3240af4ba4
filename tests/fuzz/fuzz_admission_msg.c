/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_admission_msg.c - libFuzzer target for the admission wire decoders
 * (src/node/admission/msg.c). Every input is decoded as a request frame and as a response
 * frame; whatever decodes must re-encode to the very same bytes (the codec is canonical) and
 * every borrowed field must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "node/admission/msg_internal.h"

static int inside(const uint8_t *base, size_t len, const uint8_t *p, size_t n)
{
    return p == NULL ? n == 0 : (p >= base && n <= len && (size_t)(p - base) <= len - n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_adm_init in;
    struct mero_adm_msg msg;
    struct mero_buf b;
    if (mero__adm_init_decode(data, size, &in, NULL) == 0) {
        if (!inside(data, size, in.quote, in.quote_len) ||
            !inside(data, size, in.credential, in.credential_len) ||
            !inside(data, size, in.held, in.nheld * MERO_KEY_ID_LEN) ||
            in.nheld > MERO_GROUP_KEYS_HELD_MAX) {
            abort();
        }
        mero_buf_init(&b, MERO_ADM_MAX_FRAME);
        /* a verdict's reason is cleaned and cut, so it alone need not re-encode byte for byte */
        if (mero__adm_init_encode(&b, &in) != 0 || strlen(in.reason) > MERO_ADM_MAX_REASON_LEN ||
            (in.kind != MERO_ADM_INIT_VERDICT && (b.len != size || memcmp(b.data, data, size)))) {
            abort();
        }
        mero_buf_cleanup(&b);
    }
    if (mero__adm_msg_decode(data, size, &msg, NULL) == 0) {
        if (!inside(data, size, msg.quote, msg.quote_len) ||
            !inside(data, size, msg.credential, msg.credential_len) ||
            !inside(data, size, msg.envelope, msg.envelope_len) ||
            strlen(msg.reason) > MERO_ADM_MAX_REASON_LEN || msg.nenvs > MERO_GROUP_KEYS_PAGE_MAX) {
            abort();
        }
        for (size_t i = 0; i < msg.nenvs; i++) {
            if (!inside(data, size, msg.envs[i], msg.env_lens[i])) {
                abort();
            }
        }
        mero_buf_init(&b, MERO_ADM_MAX_FRAME);
        if (mero__adm_msg_encode(&b, &msg) != 0) {
            abort();
        }
        /* reasons are cleaned and cut, so only the other kinds re-encode byte for byte */
        if (msg.kind != MERO_ADM_MSG_RESPONSE && (b.len != size || memcmp(b.data, data, size))) {
            abort();
        }
        mero_buf_cleanup(&b);
    }
    (void)mero__adm_is_prompt(data, size);
    return 0;
}
