/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_op.c - libFuzzer target for the governance op decoder and the apply rules: decode any
 * input; an accepted op must re-encode to exactly the input (one encoding per op) and hash and
 * verify without crashing. The raw input is also applied to a store (refused: unknown parents
 * or signature), and a decoded op is then re-homed into a live namespace (its namespace and
 * parents replaced, re-signed by the namespace admin) and applied inside a transaction that is
 * rolled back, so arbitrary payloads reach every apply rule.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/op.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mero_store *store;
static uint8_t ns[32];

static void setup(void)
{
    struct mero_tee_policy p;
    char zero[97];
    memset(zero, '0', 96);
    zero[96] = '\0';
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_MEASUREMENT;
    p.v2 = true;
    p.accept_mock = true;
    if (mero_crypto_init() < 0 || mero_store_open(":memory:", &store, NULL) < 0 ||
        mero_gov_create_namespace(store, ns, NULL, NULL) < 0 ||
        mero_strlist_push(&p.mrtd, zero) < 0 || mero_strlist_push(&p.rtmr[1], zero) < 0 ||
        mero_strlist_push(&p.rtmr[2], zero) < 0 || mero_strlist_push(&p.rtmr[3], zero) < 0 ||
        mero_gov_set_policy(store, ns, &p, NULL, NULL, NULL, NULL) < 0) {
        abort();
    }
    mero_tee_policy_cleanup(&p);
}

static void rehome(struct mero_op *op)
{
    uint8_t(*heads)[32] = NULL;
    size_t n = 0;
    uint8_t sk[64];
    struct mero_buf b;
    struct mero_err e = {0};
    memcpy(op->ns, ns, 32);
    if (!(op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_LEFT) &&
        memcmp(op->group_id, ns, 32) != 0 && (op->group_id[0] & 1) == 0) {
        memcpy(op->group_id, ns, 32); /* half the time target the root */
    }
    if (mero_gov_heads(store, ns, &heads, &n) < 0 ||
        mero_op_set_parents(op, (const uint8_t(*)[32])heads, (uint32_t)n) < 0 ||
        mero_gov_identity_secret(store, ns, sk) < 0 || mero_op_sign(op, sk) < 0) {
        free(heads);
        return;
    }
    free(heads);
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    if (mero_op_encode(op, &b) == 0 && mero_store_begin(store) == 0) {
        int rc = mero_gov_apply(store, b.data, b.len, NULL, NULL, NULL, &e);
        (void)rc;
        mero_store_rollback(store);
    }
    mero_buf_cleanup(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (store == NULL) {
        setup();
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
        rehome(&op);
        mero_op_cleanup(&op);
    }
    int arc = mero_gov_apply(store, data, size, NULL, NULL, NULL, &e);
    (void)arc;
    return 0;
}
