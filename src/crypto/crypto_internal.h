/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crypto_internal.h - what crypto.c shows its tests only: AES-256-GCM through OpenSSL's EVP,
 * the form mero_aes256gcm_seal/_open use where libsodium's AES-NI form is not available, so a
 * test can hold both forms to the same bytes on a machine that takes the other one.
 */
#ifndef MERO_CRYPTO_INTERNAL_H
#define MERO_CRYPTO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

/* enc 1: mero_aes256gcm_seal's contract; enc 0: mero_aes256gcm_open's. */
MERO_MUST_CHECK int mero__aes256gcm_evp(int enc, uint8_t *out, const uint8_t *in, size_t n,
                                        const uint8_t *aad, size_t aad_len,
                                        const uint8_t nonce[static 12],
                                        const uint8_t key[static MERO_AEAD_KEY_LEN]);

#endif
