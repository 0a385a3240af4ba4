/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binding.h - what the second half of report_data commits to (spec "The attestation quote";
 * reference-calimero.md §2). Each binding is plain SHA-256 over domain tag || fields, with no
 * length prefixes; calimero.tee.admission.v1 is the one definition every peer uses.
 *
 * Thread safety: every function here is pure (no shared state): safe from any thread.
 */
#ifndef MERO_BINDING_H
#define MERO_BINDING_H

#include <stdint.h>

#include "mero/sizes.h"

/*
 * SHA-256("calimero.tee.admission.v1" || ns || group || identity_pk || account || kem_pk ||
 * device). Plain concatenation (UNVERIFIED in the reference; see docs/quote.md).
 */
void mero_admission_binding(uint8_t out[static MERO_APP_HASH_LEN],
                            const uint8_t ns[static MERO_NS_ID_LEN],
                            const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t identity_pk[static MERO_IDENTITY_LEN],
                            const uint8_t account[static MERO_ACCOUNT_ID_LEN],
                            const uint8_t kem_pk[static MERO_X25519_LEN],
                            const uint8_t device[static MERO_DEVICE_ID_LEN]);
/* SHA-256("calimero.tee-attest.key-binding.v1" || (app_hash or 32 zeros) || node_key) */
void mero_attest_key_binding(uint8_t out[static MERO_APP_HASH_LEN], const uint8_t *app_hash_or_null,
                             const uint8_t node_key[static MERO_ED25519_PK_LEN]);
/* SHA-256("calimero.tee-attest.transport-key.v1" || inner || x25519_key) */
void mero_attest_transport_binding(uint8_t out[static MERO_APP_HASH_LEN],
                                   const uint8_t inner[static MERO_APP_HASH_LEN],
                                   const uint8_t transport_key[static MERO_X25519_LEN]);
/* SHA-256("calimero.tee-attest.tls-key.v1" || inner || spki_sha256) */
void mero_attest_tls_binding(uint8_t out[static MERO_APP_HASH_LEN],
                             const uint8_t inner[static MERO_APP_HASH_LEN],
                             const uint8_t spki_sha256[static MERO_SHA256_LEN]);
/* SHA-256("calimero.tee-attest.registration.v1") */
void mero_attest_registration_binding(uint8_t out[static MERO_APP_HASH_LEN]);
/*
 * The /tee/attest suffix: inner (or zeros) wrapped by TLS then transport when given.
 * Returns 1 and writes out when anything is bound, 0 (out = zeros) when nothing is.
 */
int mero_attest_report_data_suffix(uint8_t out[static MERO_APP_HASH_LEN],
                                   const uint8_t *inner_or_null, const uint8_t *tls_spki_or_null,
                                   const uint8_t *transport_or_null);
/* report_data = nonce || binding */
void mero_report_data(uint8_t out[static MERO_REPORT_DATA_LEN],
                      const uint8_t nonce[static MERO_NONCE_LEN],
                      const uint8_t binding[static MERO_APP_HASH_LEN]);

#endif
