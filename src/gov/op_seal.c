/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_seal.c - the encrypted group-op form (NamespaceOp tag 2, reference-calimero.md §6.3
 * "Group ops are encrypted with AES-256-GCM using the raw group key"): sealing a group op's
 * borsh GroupOp under a group key, and opening it again into a decoded op.
 *
 * Invariants: the plaintext is exactly the bytes the cleartext form would carry for the same
 * GroupOp, sealed with a fresh random 12-byte nonce and AAD = group_id, so a ciphertext cannot
 * be moved to another group's envelope; key_id = SHA-256(key) (mero_group_key_id); an opened
 * op is decoded with the same bounded decoder as a cleartext one and trailing bytes are
 * refused; plaintext buffers are wiped.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/keys.h"

int mero_op_seal(struct mero_op *op, const uint8_t key[static MERO_GROUP_KEY_LEN], struct mero_err *err)
{
    if (op->scope != MERO_SCOPE_GROUP) {
        return mero_err_set(err, MERO_EINVAL, "only a group op can be encrypted");
    }
    if (op->has_rotation) {
        return mero_err_set(err, MERO_EINVAL, "an op carrying a key rotation stays cleartext");
    }
    struct mero_buf plain;
    mero_buf_init(&plain, MERO_GOV_MAX_SEALED_BYTES - 16u);
    int rc = mero__gov_put_group_body(&plain, op);
    if (rc < 0) {
        mero_buf_cleanup(&plain);
        return mero_err_set(err, -rc, "the group op cannot be encoded for encryption");
    }
    uint8_t *ct = malloc(plain.len + 16u);
    if (ct == NULL) {
        sodium_memzero(plain.data, plain.len);
        mero_buf_cleanup(&plain);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_random(op->enc_nonce, sizeof(op->enc_nonce));
    rc = mero_aes256gcm_seal(ct, plain.data, plain.len, op->group_id, 32, op->enc_nonce, key);
    size_t n = plain.len + 16u;
    sodium_memzero(plain.data, plain.len);
    mero_buf_cleanup(&plain);
    if (rc < 0) {
        free(ct);
        return mero_err_set(err, MERO_ECRYPTO, "group op encryption failed");
    }
    free(op->ciphertext);
    op->ciphertext = ct;
    op->ciphertext_len = n;
    mero_group_key_id(op->key_id, key);
    op->scope = MERO_SCOPE_GROUP_ENCRYPTED;
    return 0;
}

int mero_op_open(const struct mero_op *sealed, const uint8_t key[static MERO_GROUP_KEY_LEN], struct mero_op *inner,
                 struct mero_err *err)
{
    uint8_t id[32];
    char h[17];
    mero_op_init(inner);
    if (sealed->scope != MERO_SCOPE_GROUP_ENCRYPTED ||
        sealed->ciphertext_len < MERO_GOV_MIN_SEALED_BYTES ||
        sealed->ciphertext_len > MERO_GOV_MAX_SEALED_BYTES) {
        return mero_err_set(err, MERO_EINVAL, "not an encrypted group op");
    }
    mero_group_key_id(id, key);
    if (!mero_ct_eq(id, sealed->key_id, 32)) {
        mero_hex_encode(h, sealed->key_id, 8);
        return mero_err_set(err, MERO_EINVAL, "the key given is not key %s the op names", h);
    }
    size_t n = sealed->ciphertext_len - 16u;
    uint8_t *plain = malloc(n);
    if (plain == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    if (mero_aes256gcm_open(plain, sealed->ciphertext, sealed->ciphertext_len, sealed->group_id, 32,
                            sealed->enc_nonce, key) < 0) {
        free(plain);
        mero_hex_encode(h, sealed->key_id, 8);
        return mero_err_set(err, MERO_ECRYPTO,
                            "encrypted group op does not decrypt under key %s: the ciphertext was "
                            "tampered with or sealed under another key",
                            h);
    }
    inner->version = sealed->version;
    memcpy(inner->ns, sealed->ns, 32);
    memcpy(inner->signer, sealed->signer, 32);
    inner->nonce = sealed->nonce;
    inner->scope = MERO_SCOPE_GROUP;
    memcpy(inner->group_id, sealed->group_id, 32);
    struct mero_cur c;
    mero_cur_init(&c, plain, n);
    int rc = mero__gov_get_group_body(&c, inner, err);
    if (rc == 0 && mero_cur_left(&c) != 0) {
        rc = mero_err_set(err, MERO_EOPDECODE, "encrypted group op: %zu trailing bytes",
                          mero_cur_left(&c));
    }
    sodium_memzero(plain, n);
    free(plain);
    if (rc < 0) {
        mero_op_cleanup(inner);
    }
    return rc;
}
