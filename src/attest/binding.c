/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binding.c - the values the second half of report_data commits to (spec "The attestation
 * quote" and "The report_data binding"; reference-calimero.md §2): the fleet admission
 * binding, the /tee/attest key, transport and TLS bindings and their nesting, the
 * registration binding, and report_data = nonce || binding.
 *
 * Invariant: every binding is plain SHA-256 over ASCII domain tag || 32-byte fields, with no
 * length prefixes and no NUL after the tag. The admission binding's concatenation style is
 * UNVERIFIED in the reference; plain concatenation (the spec's formula, like the other
 * bindings) is used and docs/quote.md records it. This file is the one definition each peer
 * uses, so a change here is a wire change.
 */
#include <string.h>

#include "mero/binding.h"
#include "mero/crypto.h"

static const uint8_t zero32[MERO_APP_HASH_LEN];

/* SHA-256(tag || parts[0] || ... || parts[n-1]), each part BINDING_PART_LEN bytes. */
#define BINDING_PART_LEN 32
_Static_assert(BINDING_PART_LEN == MERO_NS_ID_LEN && BINDING_PART_LEN == MERO_IDENTITY_LEN &&
                   BINDING_PART_LEN == MERO_ACCOUNT_ID_LEN && BINDING_PART_LEN == MERO_X25519_LEN &&
                   BINDING_PART_LEN == MERO_DEVICE_ID_LEN && BINDING_PART_LEN == MERO_APP_HASH_LEN,
               "every bound field is 32 bytes (no length prefixes)");
static void tagged(uint8_t out[static MERO_APP_HASH_LEN], const char *tag,
                   const uint8_t *const *parts, size_t n)
{
    struct mero_sha256 h;
    mero_sha256_init(&h);
    mero_sha256_update(&h, tag, strlen(tag));
    for (size_t i = 0; i < n; i++) {
        mero_sha256_update(&h, parts[i], BINDING_PART_LEN);
    }
    mero_sha256_final(&h, out);
}

void mero_admission_binding(uint8_t out[static MERO_APP_HASH_LEN],
                            const uint8_t ns[static MERO_NS_ID_LEN],
                            const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t identity_pk[static MERO_IDENTITY_LEN],
                            const uint8_t account[static MERO_ACCOUNT_ID_LEN],
                            const uint8_t kem_pk[static MERO_X25519_LEN],
                            const uint8_t device[static MERO_DEVICE_ID_LEN])
{
    const uint8_t *const parts[] = {ns, group, identity_pk, account, kem_pk, device};
    tagged(out, "calimero.tee.admission.v1", parts, 6);
}

void mero_attest_key_binding(uint8_t out[static MERO_APP_HASH_LEN], const uint8_t *app_hash_or_null,
                             const uint8_t node_key[static MERO_ED25519_PK_LEN])
{
    const uint8_t *const parts[] = {app_hash_or_null ? app_hash_or_null : zero32, node_key};
    tagged(out, "calimero.tee-attest.key-binding.v1", parts, 2);
}

void mero_attest_transport_binding(uint8_t out[static MERO_APP_HASH_LEN],
                                   const uint8_t inner[static MERO_APP_HASH_LEN],
                                   const uint8_t transport_key[static MERO_X25519_LEN])
{
    const uint8_t *const parts[] = {inner, transport_key};
    tagged(out, "calimero.tee-attest.transport-key.v1", parts, 2);
}

void mero_attest_tls_binding(uint8_t out[static MERO_APP_HASH_LEN],
                             const uint8_t inner[static MERO_APP_HASH_LEN],
                             const uint8_t spki_sha256[static MERO_SHA256_LEN])
{
    const uint8_t *const parts[] = {inner, spki_sha256};
    tagged(out, "calimero.tee-attest.tls-key.v1", parts, 2);
}

void mero_attest_registration_binding(uint8_t out[static MERO_APP_HASH_LEN])
{
    tagged(out, "calimero.tee-attest.registration.v1", NULL, 0);
}

int mero_attest_report_data_suffix(uint8_t out[static MERO_APP_HASH_LEN],
                                   const uint8_t *inner_or_null, const uint8_t *tls_spki_or_null,
                                   const uint8_t *transport_or_null)
{
    uint8_t cur[MERO_APP_HASH_LEN];
    int bound = inner_or_null != NULL;
    memcpy(cur, inner_or_null ? inner_or_null : zero32, sizeof(cur));
    /* reference-calimero.md §2: TLS wraps first, then transport wraps the result. */
    if (tls_spki_or_null != NULL) {
        mero_attest_tls_binding(cur, cur, tls_spki_or_null);
        bound = 1;
    }
    if (transport_or_null != NULL) {
        mero_attest_transport_binding(cur, cur, transport_or_null);
        bound = 1;
    }
    memcpy(out, bound ? cur : zero32, sizeof(cur));
    return bound;
}

void mero_report_data(uint8_t out[static MERO_REPORT_DATA_LEN],
                      const uint8_t nonce[static MERO_NONCE_LEN],
                      const uint8_t binding[static MERO_APP_HASH_LEN])
{
    uint8_t tmp[MERO_REPORT_DATA_LEN]; /* out may alias nonce or binding */
    memcpy(tmp, nonce, MERO_NONCE_LEN);
    memcpy(tmp + MERO_NONCE_LEN, binding, MERO_APP_HASH_LEN);
    memcpy(out, tmp, sizeof(tmp));
}
