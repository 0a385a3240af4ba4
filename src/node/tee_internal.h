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

#endif
