/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_eventlog.c - `meroctl eventlog replay|diff|check`: replay a TD's CCEL event log to
 * RTMR0-3, diff two logs (which measured record makes the registers differ), and compare a
 * replay with a quote's registers. Offline: no node is contacted. Inputs are files holding
 * the raw bytes, or their hex or base64 text (e.g. eventLogB64 from POST /tee/attest).
 *
 * Exit codes: 0 ok (replay done / registers match / logs measure the same), 2 mismatch
 * (check) or registers differ (diff), 1 unusable input or usage. `check` compares registers
 * only; it does not verify the quote's signature (that is `calimero-tee-verify`'s job).
 * With --json exactly one JSON document goes to stdout; diagnostics go to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog_cli_internal.h"
#include "meroctl_internal.h"
#include "mero/encoding.h"
#include "mero/eventlog.h"
#include "mero/quote.h"

#define EVENT_DESC_MAX 96 /* one event's description as text, with its NUL */

/* ---------------------------------------------------------------- replay */

static int run_replay(const struct meroctl_global *g, int argc, char **argv)
{
    const char *data = NULL, *table = NULL;
    bool json = g->json, events = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data = argv[++i];
        } else if (strcmp(argv[i], "--table") == 0 && i + 1 < argc) {
            table = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--events") == 0) {
            events = true;
        } else {
            fprintf(stderr, "meroctl: eventlog replay: unexpected argument %s\n", argv[i]);
            return MEROCTL_USAGE;
        }
    }
    if (data == NULL) {
        fprintf(stderr, "usage: meroctl eventlog replay --data F [--table T] [--events] "
                        "[--json]\n");
        return MEROCTL_USAGE;
    }
    struct mero_ccel_table t;
    if (table != NULL) {
        uint8_t *raw = NULL;
        size_t n = 0;
        struct mero_err err = {0};
        if (evcli_load_input("CCEL table", table, MERO_CCEL_TABLE_LEN, &raw, &n) < 0) {
            return MEROCTL_USAGE;
        }
        int rc = mero_ccel_table_parse(&t, raw, n, &err);
        free(raw);
        if (rc < 0) {
            fprintf(stderr, "meroctl: %s: %s\n", table, err.msg);
            return MEROCTL_USAGE;
        }
        if (t.cc_type != MERO_CC_TYPE_TDX) {
            fprintf(stderr, "meroctl: %s: CC type %u is not TDX\n", table, t.cc_type);
            return MEROCTL_USAGE;
        }
    }
    struct evcli_log in;
    if (evcli_load_log(data, &in) < 0) {
        return MEROCTL_USAGE;
    }
    if (table != NULL && in.len > t.laml) {
        fprintf(stderr, "meroctl: %s is %zu bytes, larger than the table's log area (%llu)\n", data,
                in.len, (unsigned long long)t.laml);
        evcli_free_log(&in);
        return MEROCTL_USAGE;
    }
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    mero_eventlog_replay(&in.log, rtmr);
    if (json) {
        json_t *o = json_object();
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            char key[16];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(o, key, evcli_hex_json(rtmr[r], MERO_RTMR_LEN));
        }
        json_object_set_new(o, "events", json_integer((json_int_t)in.log.n_events));
        json_object_set_new(o, "end_offset", json_integer((json_int_t)in.log.end_offset));
        json_object_set_new(o, "padding", json_string(evcli_padding_name(in.log.padding)));
        json_object_set_new(o, "notes", evcli_notes_json(&in.log));
        if (table != NULL) {
            json_t *tj = json_object();
            json_object_set_new(tj, "cc_type", json_integer(t.cc_type));
            json_object_set_new(tj, "cc_subtype", json_integer(t.cc_subtype));
            json_object_set_new(tj, "laml", json_integer((json_int_t)t.laml));
            char lasa[sizeof("0x") + 16]; /* a u64 in hex and its NUL */
            snprintf(lasa, sizeof(lasa), "0x%llx", (unsigned long long)t.lasa);
            json_object_set_new(tj, "lasa", json_string(lasa));
            json_object_set_new(tj, "oem_id", json_string(t.oem_id));
            json_object_set_new(tj, "oem_table_id", json_string(t.oem_table_id));
            json_object_set_new(o, "table", tj);
        }
        if (events) {
            json_t *a = json_array();
            for (size_t i = 0; i < in.log.n_events; i++) {
                json_array_append_new(a, evcli_record_json(&in.log.events[i]));
            }
            json_object_set_new(o, "records", a);
        }
        evcli_print_json(o);
    } else {
        if (table != NULL) {
            printf("table: CC type %u (TDX) subtype %u, log area %llu bytes at 0x%llx, OEM "
                   "'%s' '%s'\n",
                   t.cc_type, t.cc_subtype, (unsigned long long)t.laml, (unsigned long long)t.lasa,
                   t.oem_id, t.oem_table_id);
        }
        if (events) {
            for (size_t i = 0; i < in.log.n_events; i++) {
                const struct mero_event *e = &in.log.events[i];
                char tmp[16], desc[EVENT_DESC_MAX], h[MERO_HEX_SIZE(MERO_RTMR_LEN)];
                int r = mero_event_rtmr(e);
                mero_hex_encode(h, e->sha384, MERO_RTMR_LEN);
                bool has = mero_event_describe(e, desc, sizeof(desc));
                printf("%3u %6zu mr=%u %-6s %-34s %.16s... %s\n", e->seq, e->offset, e->mr_index,
                       r >= 0 ? (const char *[]){"RTMR0", "RTMR1", "RTMR2", "RTMR3"}[r] : "-",
                       evcli_type_name(e->type, tmp), h, has ? desc : "");
            }
        }
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            char h[MERO_HEX_SIZE(MERO_RTMR_LEN)];
            mero_hex_encode(h, rtmr[r], MERO_RTMR_LEN);
            printf("rtmr%d %s\n", r, h);
        }
        printf("events %zu (records end at offset %zu, padding %s)\n", in.log.n_events,
               in.log.end_offset, evcli_padding_name(in.log.padding));
        evcli_print_notes(&in.log, "");
    }
    evcli_free_log(&in);
    return MEROCTL_OK;
}

/* ---------------------------------------------------------------- check */

/* The quote's RTMR0-3, from the quote module's parser (v4 and v5, TD 1.0 and 1.5 bodies). */
static int quote_rtmrs(const uint8_t *q, size_t n, uint8_t out[MERO_RTMR_COUNT][MERO_RTMR_LEN],
                       struct mero_err *err)
{
    struct mero_quote quote;
    MERO_TRY(mero_quote_parse(&quote, q, n, err));
    memcpy(out, quote.body.rtmr, MERO_RTMR_COUNT * MERO_RTMR_LEN);
    return 0;
}

static int run_check(const struct meroctl_global *g, int argc, char **argv)
{
    const char *data = NULL, *quote = NULL, *reference = NULL;
    bool json = g->json;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data = argv[++i];
        } else if (strcmp(argv[i], "--quote") == 0 && i + 1 < argc) {
            quote = argv[++i];
        } else if (strcmp(argv[i], "--reference") == 0 && i + 1 < argc) {
            reference = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else {
            fprintf(stderr, "meroctl: eventlog check: unexpected argument %s\n", argv[i]);
            return MEROCTL_USAGE;
        }
    }
    if (data == NULL || quote == NULL) {
        fprintf(stderr, "usage: meroctl eventlog check --data F --quote Q [--reference R] "
                        "[--json]\n");
        return MEROCTL_USAGE;
    }
    uint8_t *q = NULL;
    size_t qn = 0;
    uint8_t regs[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    struct mero_err err = {0};
    if (evcli_load_input("quote", quote, MERO_MAX_TEE_QUOTE_BYTES, &q, &qn) < 0) {
        return MEROCTL_USAGE;
    }
    int rc = quote_rtmrs(q, qn, regs, &err);
    free(q);
    if (rc < 0) {
        fprintf(stderr, "meroctl: %s: %s\n", quote, err.msg[0] ? err.msg : mero_errdesc(rc));
        return MEROCTL_USAGE;
    }
    struct evcli_log in;
    if (evcli_load_log(data, &in) < 0) {
        return MEROCTL_USAGE;
    }
    struct mero_eventlog_check c;
    mero_eventlog_check(&in.log, (const uint8_t(*)[MERO_RTMR_LEN])regs, &c);
    /* with a known-good reference log: where this log first departs from it, per register */
    struct evcli_log ref;
    struct mero_eventlog_diff d = {0};
    bool have_ref = false;
    if (reference != NULL) {
        if (evcli_load_log(reference, &ref) < 0) {
            evcli_free_log(&in);
            return MEROCTL_USAGE;
        }
        if (mero_eventlog_diff(&ref.log, &in.log, &d, &err) < 0) {
            fprintf(stderr, "meroctl: eventlog check: %s\n", err.msg);
            evcli_free_log(&ref);
            evcli_free_log(&in);
            return MEROCTL_USAGE;
        }
        have_ref = true;
    }
    if (json) {
        json_t *o = json_object();
        json_t *a = json_array();
        json_object_set_new(o, "match", json_boolean(c.all_match));
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            const struct mero_eventlog_reg_check *x = &c.reg[r];
            json_t *rj = json_object();
            char key[16];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(rj, "register", json_string(key));
            json_object_set_new(rj, "match", json_boolean(x->match));
            json_object_set_new(rj, "replayed", evcli_hex_json(x->replayed, MERO_RTMR_LEN));
            json_object_set_new(rj, "quote", evcli_hex_json(x->expected, MERO_RTMR_LEN));
            json_object_set_new(rj, "events", json_integer((json_int_t)x->n_events));
            json_object_set_new(rj, "matched_prefix",
                                x->matched_prefix >= 0 ? json_integer(x->matched_prefix)
                                                       : json_null());
            json_object_set_new(rj, "first_unexplained",
                                x->first_unexplained
                                    ? evcli_record_json(&in.log.events[x->first_unexplained - 1])
                                    : json_null());
            if (have_ref) {
                json_object_set_new(rj, "reference_difference",
                                    d.first[r] >= 0 ? evcli_delta_json(&d.deltas[d.first[r]])
                                                    : json_null());
            }
            json_array_append_new(a, rj);
        }
        json_object_set_new(o, "registers", a);
        json_object_set_new(o, "events", json_integer((json_int_t)in.log.n_events));
        json_object_set_new(o, "notes", evcli_notes_json(&in.log));
        evcli_print_json(o);
    } else {
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            const struct mero_eventlog_reg_check *x = &c.reg[r];
            char h[MERO_HEX_SIZE(MERO_RTMR_LEN)];
            mero_hex_encode(h, x->replayed, MERO_RTMR_LEN);
            printf("rtmr%d %s %s\n", r, x->match ? "match   " : "MISMATCH", h);
            if (x->match) {
                continue;
            }
            mero_hex_encode(h, x->expected, MERO_RTMR_LEN);
            printf("      quote    %s\n", h);
            if (x->first_unexplained != 0) {
                const struct mero_event *e = &in.log.events[x->first_unexplained - 1];
                char tmp[16];
                printf("      first unexplained record: seq %u offset %zu %s (%s)\n", e->seq,
                       e->offset, evcli_type_name(e->type, tmp),
                       x->matched_prefix >= 0 ? "the quote stops before it"
                                              : "no prefix of the log reaches the quote");
            } else {
                printf("      the log has no records for this register: the quote's value "
                       "comes from extensions not in the log\n");
            }
            if (have_ref && d.first[r] >= 0) {
                const struct mero_eventlog_delta *dx = &d.deltas[d.first[r]];
                evcli_print_delta_head("      first difference from the reference: ", dx);
                evcli_print_record("  ref", dx->a);
                evcli_print_record("  log", dx->b);
            } else if (have_ref) {
                printf("      same records as the reference in this register\n");
            }
        }
        printf("%s (%zu events)\n", c.all_match ? "all registers match" : "registers differ",
               in.log.n_events);
        evcli_print_notes(&in.log, "");
    }
    if (have_ref) {
        mero_eventlog_diff_cleanup(&d);
        evcli_free_log(&ref);
    }
    evcli_free_log(&in);
    return c.all_match ? MEROCTL_OK : MEROCTL_FAILED;
}

static int run_diff(const struct meroctl_global *g, int argc, char **argv)
{
    const char *pa = NULL, *pb = NULL;
    bool json = g->json;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != 0) {
            fprintf(stderr, "meroctl: eventlog diff: unexpected option %s\n", argv[i]);
            return MEROCTL_USAGE;
        } else if (pa == NULL) {
            pa = argv[i];
        } else if (pb == NULL) {
            pb = argv[i];
        } else {
            fprintf(stderr, "meroctl: eventlog diff: too many arguments\n");
            return MEROCTL_USAGE;
        }
    }
    if (pa == NULL || pb == NULL) {
        fprintf(stderr, "usage: meroctl eventlog diff A B [--json]\n");
        return MEROCTL_USAGE;
    }
    struct evcli_log a, b;
    if (evcli_load_log(pa, &a) < 0) {
        return MEROCTL_USAGE;
    }
    if (evcli_load_log(pb, &b) < 0) {
        evcli_free_log(&a);
        return MEROCTL_USAGE;
    }
    struct mero_eventlog_diff d;
    struct mero_err err = {0};
    if (mero_eventlog_diff(&a.log, &b.log, &d, &err) < 0) {
        fprintf(stderr, "meroctl: eventlog diff: %s\n", err.msg);
        evcli_free_log(&a);
        evcli_free_log(&b);
        return MEROCTL_USAGE;
    }
    bool differ = false;
    for (int r = 0; r < MERO_RTMR_COUNT; r++) {
        differ = differ || d.regs_differ[r];
    }
    if (json) {
        json_t *o = json_object();
        json_t *regs = json_array();
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            json_t *rj = json_object();
            char key[16];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(rj, "register", json_string(key));
            json_object_set_new(rj, "differ", json_boolean(d.regs_differ[r]));
            json_object_set_new(rj, "a", evcli_hex_json(d.rtmr_a[r], MERO_RTMR_LEN));
            json_object_set_new(rj, "b", evcli_hex_json(d.rtmr_b[r], MERO_RTMR_LEN));
            json_object_set_new(rj, "first_difference",
                                d.first[r] >= 0 ? evcli_delta_json(&d.deltas[d.first[r]])
                                                : json_null());
            json_array_append_new(regs, rj);
        }
        json_t *all = json_array();
        for (size_t k = 0; k < d.n_deltas; k++) {
            json_array_append_new(all, evcli_delta_json(&d.deltas[k]));
        }
        json_object_set_new(o, "registers_differ", json_boolean(differ));
        json_object_set_new(o, "registers", regs);
        json_object_set_new(o, "differences", all);
        json_object_set_new(o, "events_a", json_integer((json_int_t)a.log.n_events));
        json_object_set_new(o, "events_b", json_integer((json_int_t)b.log.n_events));
        json_object_set_new(o, "notes_a", evcli_notes_json(&a.log));
        json_object_set_new(o, "notes_b", evcli_notes_json(&b.log));
        evcli_print_json(o);
    } else {
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            if (!d.regs_differ[r] && d.first[r] < 0) {
                printf("rtmr%d same\n", r);
                continue;
            }
            printf("rtmr%d %s\n", r, d.regs_differ[r] ? "DIFFERS" : "same value");
            if (d.first[r] >= 0) {
                const struct mero_eventlog_delta *x = &d.deltas[d.first[r]];
                evcli_print_delta_head("  first difference: ", x);
                evcli_print_record("A", x->a);
                evcli_print_record("B", x->b);
            }
        }
        size_t unmeasured = 0;
        for (size_t k = 0; k < d.n_deltas; k++) {
            unmeasured += d.deltas[k].measured ? 0 : 1;
        }
        printf("%zu differences (%zu measured, %zu unmeasured: data only)\n", d.n_deltas,
               d.n_deltas - unmeasured, unmeasured);
        for (size_t k = 0; k < d.n_deltas; k++) {
            const struct mero_eventlog_delta *x = &d.deltas[k];
            evcli_print_delta_head("  ", x);
            evcli_print_record("A", x->a);
            evcli_print_record("B", x->b);
        }
        evcli_print_notes(&a.log, "A: ");
        evcli_print_notes(&b.log, "B: ");
        printf("%s\n", differ ? "registers differ" : "registers identical");
    }
    mero_eventlog_diff_cleanup(&d);
    evcli_free_log(&a);
    evcli_free_log(&b);
    return differ ? MEROCTL_FAILED : MEROCTL_OK;
}

static const struct meroctl_opt replay_opts[] = {
    {"--data", "F", "the CCEL event log (the ACPI CCEL data)", NULL, NULL, false, true},
    {"--table", "T", "the CCEL ACPI table, to check the log fits its log area", NULL, NULL, false,
     true},
    {"--events", NULL, "also list every event (register, type, digest)", NULL, NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt check_opts[] = {
    {"--data", "F", "the CCEL event log", NULL, NULL, false, true},
    {"--quote", "Q", "the TDX quote whose RTMR0-3 the replay must match", NULL, NULL, false, true},
    {"--reference", "R",
     "a known-good event log: per register, the first record where this log departs from it", NULL,
     NULL, false, true},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"eventlog replay", "--data F [--table T] [--events]",
                  "replay a CCEL event log to RTMR0-3 (offline)", run_replay, replay_opts},
                 {"eventlog diff", "A B",
                  "first record per register where two logs differ; exit 2 if registers differ",
                  run_diff, NULL},
                 {"eventlog check", "--data F --quote Q [--reference R]",
                  "replay against a quote's RTMR0-3; exit 0 match, 2 mismatch, 1 bad input",
                  run_check, check_opts})
