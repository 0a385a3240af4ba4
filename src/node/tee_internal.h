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
MERO_MUST_CHECK int mero__node_tee_generate_real(const uint8_t report_data[MERO_REPORT_DATA_LEN],
                                                 uint8_t **quote, size_t *len,
                                                 struct mero_err *err);

/* The TD's CCEL event log bytes (blocking read of ACPI sysfs). *data owned (free()). */
MERO_MUST_CHECK int mero__node_tee_event_log(uint8_t **data, size_t *len, struct mero_err *err);

/* Collateral JSON for a real quote from the hourly shared cache (blocking). *json owned. */
MERO_MUST_CHECK int mero__node_tee_collateral(const uint8_t *quote, size_t len, char **json,
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
void mero__node_tee_info_start(struct mero_node *node);
/* The cached facts (all "unknown" until the start-up gathering finished). Any thread. */
void mero__tee_facts_get(struct mero_tee_facts *out);
/*
 * Gather them now (blocking: configfs-tsm, then HTTP with a 1 s timeout): real: quote through
 * configfs-tsm with zero report data and read its MRTD; base: the metadata server's base URL
 * to ask (NULL or "": none is asked, the cloud facts stay as they are; the caller chose with
 * mero__tee_meta_decide). out must be initialised ("unknown"); facts not found are left as
 * they are. 0, or the quote's negative error (the MRTD then unknown).
 */
int mero__tee_facts_collect(bool real, const char *base, struct mero_tee_facts *out);

/* ---- issue 32: a mock node never probes a cloud metadata service (src/node/tee_info.c) ---- */
#define MERO_TEE_META_DEFAULT_BASE "http://metadata.google.internal"
#define MERO_TEE_META_URL_MAX      512 /* the base URL with the image path, with the NUL */
/* Whether /tee/info asks a metadata server, which one, and why (docs/node.md "TEE detection"). */
struct mero_tee_meta_choice {
    bool ask;         /* false: no request at all; cloud and image stay "unknown" */
    const char *base; /* when ask: env_url or MERO_TEE_META_DEFAULT_BASE (borrowed); else NULL */
    const char *why;  /* static text for the start-up INFO line; never the URL itself */
};
/*
 * Pure. real: a TDX node (false: --mock-tee); env_url: MERO_GCP_METADATA_URL (NULL or "":
 * unset); dmi_product, dmi_vendor: the contents of /sys/class/dmi/id/product_name and
 * sys_vendor (NULL: unreadable; trailing whitespace ignored). A mock node asks only an env_url
 * for which mero__tee_url_loopback holds, never the default host; a real node asks env_url
 * when it is set, else the default only when the DMI names Google Compute Engine (product
 * "Google Compute Engine" or vendor "Google"). An env_url of MERO_TEE_META_URL_MAX bytes or
 * more is never asked. *out always written.
 */
void mero__tee_meta_decide(bool real, const char *env_url, const char *dmi_product,
                           const char *dmi_vendor, struct mero_tee_meta_choice *out);
/* Pure: url is http:// or https:// (any case) with a numeric loopback host, a dotted quad in
 * 127.0.0.0/8 or [::1], an optional :port of 1..5 digits, no userinfo; then nothing, or a
 * path, query or fragment. A name (even "localhost") is never loopback here: no lookup. */
bool mero__tee_url_loopback(const char *url);

#endif
