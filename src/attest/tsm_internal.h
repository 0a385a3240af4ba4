/* SPDX-License-Identifier: Apache-2.0 */
/* tsm_internal.h - private test hooks of tsm.c. */
#ifndef MERO_ATTEST_TSM_INTERNAL_H
#define MERO_ATTEST_TSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/sizes.h"

#define MERO__TSM_NAME_SIZE 64 /* an entry directory name, NUL included */

/* Override the configfs root (NULL: back to MERO_TSM_ROOT / the default). Not thread-safe. */
void mero__tsm_set_root(const char *root);
/* The entry directory name used for report_data by this process ("mero-<16 hex>-<pid>"). */
void mero__tsm_entry_name(char out[MERO__TSM_NAME_SIZE],
                          const uint8_t report_data[static MERO_REPORT_DATA_LEN]);

#endif
