/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_intent.c - libFuzzer target for the signed intent decoder (mero/intent.h): decode any
 * input; an accepted intent must pass the structural check, re-encode to exactly the input (one
 * encoding per intent), and hash, verify, and answer the expiry and warrant questions without
 * crashing. The input is also read as the base64 text `intent submit` and the intents route
 * take, and what that decodes to goes through the same decoder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/intent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *data, size_t size)
{
    struct mero_intent it;
    struct mero_err e = {0};
    if (mero_intent_decode(data, size, &it, &e) < 0) {
        if (e.code <= 0) {
            abort(); /* every refusal carries its reason */
        }
        return;
    }
    if (mero_intent_check(&it, NULL) < 0 || !mero_intent_key_ok(it.key, it.key_len) ||
        strlen(it.key) != it.key_len) {
        abort();
    }
    struct mero_buf b;
    mero_buf_init(&b, MERO_INTENT_MAX_LEN);
    if (mero_intent_encode(&it, &b) < 0 || b.len != size || memcmp(b.data, data, size) != 0) {
        abort(); /* encode(decode(x)) == x */
    }
    mero_buf_cleanup(&b);
    uint8_t id[MERO_INTENT_ID_LEN], relay[MERO_IDENTITY_LEN] = {0};
    if (mero_intent_id(&it, id) < 0) {
        abort();
    }
    int vrc = mero_intent_verify(&it, NULL);
    if (vrc != 0 && vrc != -MERO_EBADSIG) {
        abort();
    }
    if (mero_intent_live_at(&it, it.issued_at, NULL) != 0) {
        abort(); /* a decoded intent is live when it is issued */
    }
    if (mero_intent_live_at(&it, it.expires_at, NULL) != -MERO_EEXPIRED) {
        abort();
    }
    (void)mero_intent_warrant_allows(&it, relay);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        if (mero_crypto_init() < 0) {
            abort();
        }
        ready = 1;
    }
    one(data, size);
    uint8_t *raw = NULL;
    size_t n = 0;
    if (size > 0 && size <= 4 * ((MERO_INTENT_MAX_LEN + 2) / 3) &&
        mero_base64_decode_alloc((const char *)data, size, MERO_INTENT_MAX_LEN, &raw, &n) == 0) {
        one(raw, n);
        free(raw);
    }
    return 0;
}
