/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_eventlog.c - libFuzzer target for the CCEL event log parser and everything that reads
 * its result: replay, the quote comparison, the diff (of the input against itself and against
 * a copy with its first record's digest changed), the display helpers, and the 56-byte table
 * parser on the input's first bytes. Invariant exercised: no input reads outside the buffer,
 * leaks, or makes a parsed log inconsistent (records inside the input, in order, ending at
 * end_offset).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/eventlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_log(const struct mero_eventlog *log, size_t size)
{
    size_t at = 0;
    char desc[64];
    for (size_t i = 0; i < log->n_events; i++) {
        const struct mero_event *e = &log->events[i];
        if (e->offset < at || e->offset + e->length > size || e->seq != i + 1 || e->mr_index > 4 ||
            e->data_len > e->length) {
            abort();
        }
        at = e->offset + e->length;
        (void)mero_event_type_name(e->type);
        (void)mero_event_describe(e, desc, sizeof(desc));
        (void)mero_event_describe(e, desc, 1);
    }
    if (log->n_events > 0 && at != log->end_offset) {
        abort();
    }
    if (log->end_offset > size || log->n_notes > MERO_EVENTLOG_MAX_NOTES) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_ccel_table t;
    struct mero_eventlog log, log2;
    if (size >= MERO_CCEL_TABLE_LEN) {
        if (mero_ccel_table_parse(&t, data, MERO_CCEL_TABLE_LEN, NULL) == 0 && t.laml == 0) {
            abort(); /* a parsed table has a log area */
        }
    }
    if (mero_eventlog_parse(&log, data, size, NULL) < 0) {
        return 0;
    }
    check_log(&log, size);
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    struct mero_eventlog_check c;
    mero_eventlog_replay(&log, rtmr);
    mero_eventlog_check(&log, (const uint8_t(*)[MERO_RTMR_LEN])rtmr, &c);
    if (!c.all_match) {
        abort(); /* a log always matches its own replay */
    }
    struct mero_eventlog_diff d;
    if (mero_eventlog_diff(&log, &log, &d, NULL) == 0) {
        if (d.n_deltas != 0) {
            abort();
        }
        mero_eventlog_diff_cleanup(&d);
    }
    if (log.n_events > 0) {
        uint8_t *copy = malloc(size);
        if (copy != NULL) {
            memcpy(copy, data, size);
            /* the first digest byte of record 1: header 12 + alg 2 of the first digest */
            copy[log.events[0].offset + 14] ^= 0x5a;
            if (mero_eventlog_parse(&log2, copy, size, NULL) == 0) {
                if (mero_eventlog_diff(&log, &log2, &d, NULL) == 0) {
                    mero_eventlog_diff_cleanup(&d);
                }
                mero_eventlog_cleanup(&log2);
            }
            free(copy);
        }
    }
    mero_eventlog_cleanup(&log);
    return 0;
}
