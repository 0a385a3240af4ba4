/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog_cli_internal.h - helpers shared by `meroctl eventlog` (cmd_eventlog.c): loading a log or
 * a quote from a raw, hex or base64 file, and the JSON / text renderings of records, notes and diff
 * entries. Private to meroctl.
 */
#ifndef MEROCTL_EVENTLOG_CLI_H
#define MEROCTL_EVENTLOG_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mero/eventlog.h"

/* A parsed log with the bytes it borrows from (free with evcli_free_log). */
struct evcli_log {
    uint8_t *data;
    size_t len;
    struct mero_eventlog log;
};

/*
 * Read a file of raw bytes, or their hex or base64 text (whitespace ignored), decoding to at
 * most max bytes. *out is owned (free()). Prints the reason to stderr on failure.
 */
int evcli_load_input(const char *what, const char *path, size_t max, uint8_t **out, size_t *outlen);
/* Load and parse a CCEL log; prints the parser's reason (with the offset) on failure. */
int evcli_load_log(const char *path, struct evcli_log *in);
void evcli_free_log(struct evcli_log *in);

json_t *evcli_hex_json(const uint8_t *p, size_t n);
/* The type's name, or "0x%08x" in tmp. */
const char *evcli_type_name(uint32_t type, char tmp[16]);
json_t *evcli_record_json(const struct mero_event *e);
/* Print one compact JSON document and a newline, then release it. */
void evcli_print_json(json_t *doc);
json_t *evcli_notes_json(const struct mero_eventlog *log);
void evcli_print_notes(const struct mero_eventlog *log, const char *prefix);
const char *evcli_padding_name(enum mero_eventlog_padding p);
const char *evcli_delta_kind(enum mero_eventlog_delta_kind k);
json_t *evcli_delta_json(const struct mero_eventlog_delta *d);
void evcli_print_delta_head(const char *prefix, const struct mero_eventlog_delta *x);
void evcli_print_record(const char *side, const struct mero_event *e);

#endif
