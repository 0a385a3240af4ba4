/* SPDX-License-Identifier: Apache-2.0 */
/* tee.h - quote production for the node (tee.c). */
#ifndef MERO_NODE_TEE_H
#define MERO_NODE_TEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

/* mero_node_tee_info's text buffers (sizes, with the NUL). */
#define MERO_NODE_TEE_CLOUD_MAX    32
#define MERO_NODE_TEE_OS_IMAGE_MAX 128

struct mero_node;

/* A quote (and, when asked for, the CCEL event log), borrowed for the callback. */
struct mero_node_quote {
    const uint8_t *quote;
    size_t len;
    const uint8_t *event_log; /* NULL unless asked for */
    size_t event_log_len;
    const char *collateral_json; /* QuoteCollateralV3 JSON; NULL unless asked for (real) */
    size_t collateral_len;
};

/* What to fetch besides the quote (real TEE only; both run on the thread pool). */
#define MERO_NODE_QUOTE_EVENT_LOG  1u
#define MERO_NODE_QUOTE_COLLATERAL 2u

/* Result of a quote request, on the loop thread. */
typedef void (*mero_node_quote_cb)(void *ctx, int rc, const struct mero_node_quote *q,
                                   const struct mero_err *err);

/*
 * Make a quote over report_data: mock at once (cb runs before this returns), real on the
 * thread pool (cb runs later). -MERO_EUNSUPPORTED (cb never runs) when the node has no TEE
 * and no --mock-tee.
 */
MERO_MUST_CHECK int mero_node_tee_quote(struct mero_node *node,
                                        const uint8_t report_data[MERO_REPORT_DATA_LEN],
                                        unsigned extras, mero_node_quote_cb cb, void *ctx);

/* Real TDX quote through configfs-tsm (blocking; thread-pool only). *quote owned (free()). */
MERO_MUST_CHECK int mero_node_tee_generate_real(const uint8_t report_data[MERO_REPORT_DATA_LEN],
                                                uint8_t **quote, size_t *len, struct mero_err *err);

/* The TD's CCEL event log bytes (blocking read of ACPI sysfs). *data owned (free()). */
MERO_MUST_CHECK int mero_node_tee_event_log(uint8_t **data, size_t *len, struct mero_err *err);

/* Collateral JSON for a real quote from the hourly shared cache (blocking). *json owned. */
MERO_MUST_CHECK int mero_node_tee_collateral(const uint8_t *quote, size_t len, char **json,
                                             size_t *jlen, struct mero_err *err);

#endif
