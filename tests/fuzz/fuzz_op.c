/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_op.c - libFuzzer target for the governance op decoder: decode any input; an accepted op
 * must re-encode to exactly the input (one encoding per op), hash and verify without crashing,
 * and apply to an empty store without crashing (it is refused: no namespace there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/op.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mero_store *store;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (store == NULL) {
        if (mero_crypto_init() < 0 || mero_store_open(":memory:", &store, NULL) < 0) {
            abort();
        }
    }
    struct mero_op op;
    struct mero_err e = {0};
    if (mero_op_decode(data, size, &op, &e) == 0) {
        struct mero_buf b;
        uint8_t h[32];
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        if (mero_op_encode(&op, &b) != 0 || b.len != size || memcmp(b.data, data, size) != 0) {
            abort(); /* an accepted op must have exactly one encoding */
        }
        int rc = mero_op_hash(&op, h);
        rc |= mero_op_verify(&op, &e);
        (void)rc;
        mero_buf_cleanup(&b);
        mero_op_cleanup(&op);
    }
    int arc = mero_gov_apply(store, data, size, NULL, NULL, NULL, &e);
    (void)arc;
    return 0;
}
