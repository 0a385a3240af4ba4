/* SPDX-License-Identifier: Apache-2.0 */
/* tee.h - quote production for the node (tee.c); mero_node_tee_quote is in mero/node.h. */
#ifndef MERO_NODE_TEE_H
#define MERO_NODE_TEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/node.h"
#include "mero/sizes.h"

/* mero_node_tee_info's text buffers (sizes, with the NUL). */
#define MERO_NODE_TEE_CLOUD_MAX    32
#define MERO_NODE_TEE_OS_IMAGE_MAX 128

struct mero_node;

/* Real TDX quote through configfs-tsm (blocking; thread-pool only). *quote owned (free()). */
MERO_MUST_CHECK int mero_node_tee_generate_real(const uint8_t report_data[MERO_REPORT_DATA_LEN],
                                                uint8_t **quote, size_t *len, struct mero_err *err);

/* The TD's CCEL event log bytes (blocking read of ACPI sysfs). *data owned (free()). */
MERO_MUST_CHECK int mero_node_tee_event_log(uint8_t **data, size_t *len, struct mero_err *err);

/* Collateral JSON for a real quote from the hourly shared cache (blocking). *json owned. */
MERO_MUST_CHECK int mero_node_tee_collateral(const uint8_t *quote, size_t len, char **json,
                                             size_t *jlen, struct mero_err *err);

/* ---- issue 16: /tee/info reports the host (src/node/tee_info.c) ---- */
/* What /tee/info reports: "gcp" and the image from the GCP metadata server, else "unknown";
 * the MRTD of the start-up quote when have_mrtd (real TDX only). */
struct mero_tee_facts {
    char cloud[MERO_NODE_TEE_CLOUD_MAX];
    char os_image[MERO_NODE_TEE_OS_IMAGE_MAX];
    bool have_mrtd;
    uint8_t mrtd[MERO_MR_LEN];
};
/* Gather the facts once per process on a background thread (never blocks); no-op without a
 * TEE. */
void mero_node_tee_info_start(struct mero_node *node);
/* The cached facts (all "unknown" until the start-up gathering finished). Any thread. */
void mero__tee_facts_get(struct mero_tee_facts *out);
/*
 * Gather them now (blocking: configfs-tsm, then HTTP with a 1 s timeout): real: quote through
 * configfs-tsm with zero report data and read its MRTD; base: the metadata server's base URL
 * (NULL or "": http://metadata.google.internal). out must be initialised ("unknown"); facts
 * not found are left as they are. 0, or the quote's negative error (the MRTD then unknown).
 */
int mero__tee_facts_collect(bool real, const char *base, struct mero_tee_facts *out);

#endif
