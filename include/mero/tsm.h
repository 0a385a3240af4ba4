/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsm.h - TDX quote generation through Linux configfs-tsm (reference-calimero.md §1.2) and the
 * generate-or-mock decision of generate_attestation.
 *
 * The configfs root is /sys/kernel/config/tsm/report unless the environment variable
 * MERO_TSM_ROOT names another directory (for tests with a fake tree).
 *
 * Thread safety: mero_tsm_present is safe from any thread; mero_tsm_quote and
 * mero_attest_generate are safe from any thread as long as concurrent calls use distinct
 * report_data (each call owns the configfs entry named after it).
 */
#ifndef MERO_TSM_H
#define MERO_TSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_TSM_DEFAULT_ROOT "/sys/kernel/config/tsm/report"
#define MERO_TSM_PROVIDER_TDX "tdx_guest"
/* The largest outblob read (quotes are ~5 KiB, padded up to 8000 bytes in practice). */
#define MERO_TSM_MAX_OUTBLOB 65536u
#define MERO_ATTEST_UNSUPPORTED_MSG                                                                \
    "TDX attestation generation is only supported on Linux with TDX hardware"

/* True when the configfs-tsm report directory exists (says nothing about the provider). */
bool mero_tsm_present(void);

/*
 * Make one TDX quote over report_data via configfs-tsm: mkdir <root>/<entry>, check
 * `provider` is tdx_guest, write the 64 bytes to `inblob`, read `outblob`, check `generation`
 * did not move while reading and that the quote parses and carries exactly report_data,
 * rmdir. *quote is owned (free with free()) and holds the quote proper, trailing padding cut.
 * -MERO_EUNSUPPORTED when there is no configfs-tsm or the provider is not tdx_guest,
 * -MERO_EIO / -MERO_ESTATE (racing writer) / a parse code otherwise.
 */
MERO_MUST_CHECK int mero_tsm_quote(const uint8_t report_data[static MERO_REPORT_DATA_LEN],
                                   uint8_t **quote, size_t *len, struct mero_err *err);

/*
 * generate_attestation: a real quote when configfs-tsm with tdx_guest is present; otherwise a
 * MOCK_TDX_QUOTE_V1 quote only when mock_tee, else -MERO_EUNSUPPORTED with
 * MERO_ATTEST_UNSUPPORTED_MSG. A failure on real hardware is returned as is, never replaced
 * by a mock. *quote is owned (free with free()); outputs are written only on success.
 */
MERO_MUST_CHECK int mero_attest_generate(const uint8_t report_data[static MERO_REPORT_DATA_LEN],
                                         bool mock_tee, uint8_t **quote, size_t *len, bool *is_mock,
                                         struct mero_err *err);

#endif
