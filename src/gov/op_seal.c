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

int mero_op_seal(struct mero_op *op, const uint8_t key[static MERO_GROUP_KEY_LEN],
                 struct mero_err *err)
{
    struct mero_buf plain;
    uint8_t *ct = NULL;
    size_t n;
    int rc;
    MERO_ENSURE(op->scope == MERO_SCOPE_GROUP, err, MERO_EINVAL,
                "only a group op can be encrypted");
    MERO_ENSURE(!op->has_rotation, err, MERO_EINVAL,
                "an op carrying a key rotation stays cleartext");
    mero_buf_init(&plain, MERO_GOV_MAX_SEALED_BYTES - MERO_AEAD_TAG_LEN);
    rc = mero__gov_put_group_body(&plain, op);
    MERO_ENSURE_OUT(rc >= 0, err, -rc, "the group op cannot be encoded for encryption");
    n = plain.len + MERO_AEAD_TAG_LEN;
    ct = malloc(n);
    MERO_ENSURE_OUT(ct != NULL, err, MERO_ENOMEM, "out of memory");
    mero_random(op->enc_nonce, sizeof(op->enc_nonce));
    MERO_ENSURE_OUT(mero_aes256gcm_seal(ct, plain.data, plain.len, op->group_id,
                                        sizeof(op->group_id), op->enc_nonce, key) >= 0,
                    err, MERO_ECRYPTO, "group op encryption failed");
    free(op->ciphertext);
    op->ciphertext = ct;
    op->ciphertext_len = n;
    ct = NULL;
    mero_group_key_id(op->key_id, key);
    op->scope = MERO_SCOPE_GROUP_ENCRYPTED;
out:
    free(ct);
    mero_buf_cleanup(&plain); /* wipes the plaintext */
    return rc;
}

/* The decoded op of a plaintext (the ciphertext's length less the tag, exactly). */
int mero_op_open_plain(const struct mero_op *sealed, const uint8_t *plain, size_t n,
                       struct mero_op *inner, struct mero_err *err)
{
    struct mero_cur c;
    int rc;
    mero_op_init(inner);
    MERO_ENSURE(sealed->scope == MERO_SCOPE_GROUP_ENCRYPTED &&
                    sealed->ciphertext_len >= MERO_GOV_MIN_SEALED_BYTES &&
                    sealed->ciphertext_len <= MERO_GOV_MAX_SEALED_BYTES,
                err, MERO_EINVAL, "not an encrypted group op");
    MERO_ENSURE(n + MERO_AEAD_TAG_LEN == sealed->ciphertext_len, err, MERO_EOPDECODE,
                "a plaintext of %zu bytes is not the one of a %zu-byte ciphertext", n,
                sealed->ciphertext_len);
    inner->version = sealed->version;
    memcpy(inner->ns, sealed->ns, sizeof(inner->ns));
    memcpy(inner->signer, sealed->signer, sizeof(inner->signer));
    inner->nonce = sealed->nonce;
    inner->scope = MERO_SCOPE_GROUP;
    memcpy(inner->group_id, sealed->group_id, sizeof(inner->group_id));
    mero_cur_init(&c, plain, n);
    MERO_TRY_OUT(mero__gov_get_group_body(&c, inner, err));
    MERO_ENSURE_OUT(mero_cur_left(&c) == 0, err, MERO_EOPDECODE,
                    "encrypted group op: %zu trailing bytes", mero_cur_left(&c));
out:
    if (rc < 0) {
        mero_op_cleanup(inner);
    }
    return rc;
}

int mero_op_decrypt(const struct mero_op *sealed, const uint8_t key[static MERO_GROUP_KEY_LEN],
                    uint8_t **plain, size_t *len, struct mero_err *err)
{
    uint8_t id[MERO_KEY_ID_LEN];
    char h[GOV_SHORT_SIZE];
    *plain = NULL;
    *len = 0;
    MERO_ENSURE(sealed->scope == MERO_SCOPE_GROUP_ENCRYPTED &&
                    sealed->ciphertext_len >= MERO_GOV_MIN_SEALED_BYTES &&
                    sealed->ciphertext_len <= MERO_GOV_MAX_SEALED_BYTES,
                err, MERO_EINVAL, "not an encrypted group op");
    mero_hex_encode(h, sealed->key_id, 8);
    mero_group_key_id(id, key);
    MERO_ENSURE(mero_ct_eq(id, sealed->key_id, sizeof(id)), err, MERO_EINVAL,
                "the key given is not key %s the op names", h);
    size_t n = sealed->ciphertext_len - MERO_AEAD_TAG_LEN;
    uint8_t *p = malloc(n);
    MERO_ENSURE(p != NULL, err, MERO_ENOMEM, "out of memory");
    if (mero_aes256gcm_open(p, sealed->ciphertext, sealed->ciphertext_len, sealed->group_id,
                            sizeof(sealed->group_id), sealed->enc_nonce, key) < 0) {
        free(p);
        return mero_err_set(err, MERO_ECRYPTO,
                            "encrypted group op does not decrypt under key %s: the ciphertext "
                            "was tampered with or sealed under another key",
                            h);
    }
    *plain = p;
    *len = n;
    return 0;
}

int mero_op_open(const struct mero_op *sealed, const uint8_t key[static MERO_GROUP_KEY_LEN],
                 struct mero_op *inner, struct mero_err *err)
{
    uint8_t *plain = NULL;
    size_t n = 0;
    mero_op_init(inner);
    MERO_TRY(mero_op_decrypt(sealed, key, &plain, &n, err));
    int rc = mero_op_open_plain(sealed, plain, n, inner, err);
    sodium_memzero(plain, n);
    free(plain);
    return rc;
}
