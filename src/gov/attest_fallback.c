/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_fallback.c - weak definitions of the three attest functions gov calls
 * (mero_admission_binding, mero_mock_is_mock, mero_mock_quote_create), so the gov library and
 * its tests link before src/attest/{binding,mock}.c land. The strong definitions there win
 * whenever they are linked; these follow the same rules (reference-calimero.md §1.3, §2:
 * plain SHA-256 over domain || fields; mock = 17-byte header || report_data || zeros to 256).
 * Delete this file once src/attest/binding.c and src/attest/mock.c are merged.
 */
#include <string.h>

#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/mock.h"

__attribute__((weak)) void mero_admission_binding(uint8_t out[static 32],
                                                  const uint8_t ns[static 32],
                                                  const uint8_t group[static 32],
                                                  const uint8_t identity_pk[static 32],
                                                  const uint8_t account[static 32],
                                                  const uint8_t kem_pk[static 32],
                                                  const uint8_t device[static 32])
{
    static const char domain[] = "calimero.tee.admission.v1";
    struct mero_sha256 h;
    mero_sha256_init(&h);
    mero_sha256_update(&h, domain, sizeof(domain) - 1);
    mero_sha256_update(&h, ns, 32);
    mero_sha256_update(&h, group, 32);
    mero_sha256_update(&h, identity_pk, 32);
    mero_sha256_update(&h, account, 32);
    mero_sha256_update(&h, kem_pk, 32);
    mero_sha256_update(&h, device, 32);
    mero_sha256_final(&h, out);
}

__attribute__((weak)) bool mero_mock_is_mock(const uint8_t *q, size_t len)
{
    return q != NULL && len >= MERO_MOCK_HEADER_LEN &&
           memcmp(q, MERO_MOCK_HEADER, MERO_MOCK_HEADER_LEN) == 0;
}

__attribute__((weak)) void mero_mock_quote_create(uint8_t out[static MERO_MOCK_QUOTE_LEN],
                                                  const uint8_t report_data[static 64])
{
    memset(out, 0, MERO_MOCK_QUOTE_LEN);
    memcpy(out, MERO_MOCK_HEADER, MERO_MOCK_HEADER_LEN);
    memcpy(out + MERO_MOCK_HEADER_LEN, report_data, 64);
}
