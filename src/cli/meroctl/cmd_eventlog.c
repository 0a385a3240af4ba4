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

#include <jansson.h>

#include "meroctl.h"
#include "mero/encoding.h"
#include "mero/eventlog.h"
#include "mero/quote.h"

#define INPUT_MAX (MERO_EVENTLOG_MAX_LEN / 3 * 4 + 4096) /* base64 of the largest log */

/* ---------------------------------------------------------------- input */

static bool is_text_file(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x09 || (p[i] > 0x0d && p[i] < 0x20) || p[i] >= 0x7f) {
            return false;
        }
    }
    return n > 0;
}

/* Read a file (raw bytes, or hex / base64 text with surrounding whitespace) of <= max bytes. */
static int load_input(const char *what, const char *path, size_t max, uint8_t **out, size_t *outlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "meroctl: %s: cannot open %s\n", what, path);
        return -MERO_ENOTFOUND;
    }
    struct mero_buf b;
    uint8_t chunk[16384];
    size_t n;
    int rc = 0;
    mero_buf_init(&b, INPUT_MAX);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (mero_buf_append(&b, chunk, n) < 0) {
            rc = -MERO_ETOOBIG;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        rc = -MERO_EIO;
    }
    fclose(f);
    if (rc < 0) {
        fprintf(stderr, "meroctl: %s: cannot read %s (%s)\n", what, path, mero_strerror(rc));
        mero_buf_cleanup(&b);
        return rc;
    }
    if (!is_text_file(b.data, b.len)) {
        if (b.len > max) {
            fprintf(stderr, "meroctl: %s: %s is larger than %zu bytes\n", what, path, max);
            mero_buf_cleanup(&b);
            return -MERO_ETOOBIG;
        }
        *out = mero_buf_steal(&b, outlen);
        return 0;
    }
    /* text: drop all whitespace (wrapped base64, trailing newline), then hex or base64 */
    char *s = (char *)b.data;
    size_t len = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (strchr(" \t\r\n\v\f", s[i]) == NULL) {
            s[len++] = s[i];
        }
    }
    size_t hexlen = 0;
    while (hexlen < len && strchr("0123456789abcdefABCDEF", s[hexlen]) != NULL) {
        hexlen++;
    }
    if (hexlen == len && len % 2 == 0) {
        rc = mero_hex_decode_alloc(s, len, max, out, outlen);
    } else {
        rc = mero_base64_decode_alloc(s, len, max, out, outlen);
    }
    if (rc < 0) {
        fprintf(stderr, "meroctl: %s: %s is text but neither hex nor base64 (%s)\n", what, path,
                mero_strerror(rc));
    }
    mero_buf_cleanup(&b);
    return rc;
}

struct input_log {
    uint8_t *data;
    size_t len;
    struct mero_eventlog log;
};

static int load_log(const char *path, struct input_log *in)
{
    struct mero_err err = {0};
    memset(in, 0, sizeof(*in));
    if (load_input("event log", path, MERO_EVENTLOG_MAX_LEN, &in->data, &in->len) < 0) {
        return -1;
    }
    if (mero_eventlog_parse(&in->log, in->data, in->len, &err) < 0) {
        fprintf(stderr, "meroctl: %s: %s\n", path, err.msg);
        free(in->data);
        in->data = NULL;
        return -1;
    }
    return 0;
}

static void free_log(struct input_log *in)
{
    mero_eventlog_cleanup(&in->log);
    free(in->data);
    in->data = NULL;
}

/* ---------------------------------------------------------------- output helpers */

static json_t *hex_json(const uint8_t *p, size_t n)
{
    char h[2 * MERO_RTMR_LEN + 1];
    if (n > MERO_RTMR_LEN) {
        n = MERO_RTMR_LEN;
    }
    mero_hex_encode(h, p, n);
    return json_string(h);
}

static const char *type_name(uint32_t type, char tmp[16])
{
    const char *n = mero_event_type_name(type);
    if (n != NULL) {
        return n;
    }
    snprintf(tmp, 16, "0x%08x", (unsigned)type);
    return tmp;
}

static json_t *record_json(const struct mero_event *e)
{
    char tmp[16], desc[256];
    json_t *o = json_object();
    int r = mero_event_rtmr(e);
    json_object_set_new(o, "seq", json_integer(e->seq));
    json_object_set_new(o, "offset", json_integer((json_int_t)e->offset));
    json_object_set_new(o, "mr_index", json_integer(e->mr_index));
    json_object_set_new(o, "register", r >= 0 ? json_integer(r) : json_null());
    json_object_set_new(o, "type", json_string(type_name(e->type, tmp)));
    json_object_set_new(o, "event_type", json_integer(e->type));
    json_object_set_new(o, "digest", hex_json(e->sha384, MERO_RTMR_LEN));
    json_object_set_new(o, "data_len", json_integer((json_int_t)e->data_len));
    if (mero_event_describe(e, desc, sizeof(desc))) {
        json_object_set_new(o, "text", json_string(desc));
    }
    return o;
}

static void print_json(json_t *doc)
{
    char *s = json_dumps(doc, JSON_COMPACT);
    if (s != NULL) {
        printf("%s\n", s);
        free(s);
    }
    json_decref(doc);
}

static const char *note_name(enum mero_eventlog_note_kind k)
{
    switch (k) {
    case MERO_EVENTLOG_NOTE_DUP_SEPARATOR:
        return "duplicate_separator";
    case MERO_EVENTLOG_NOTE_MEASURED_AT_MR0:
        return "measured_at_mr_index_0";
    case MERO_EVENTLOG_NOTE_TRAILING_DATA:
        return "data_after_padding";
    default:
        return "unknown";
    }
}

static json_t *notes_json(const struct mero_eventlog *log)
{
    json_t *a = json_array();
    for (size_t i = 0; i < log->n_notes; i++) {
        const struct mero_eventlog_note *n = &log->notes[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(note_name(n->kind)));
        json_object_set_new(o, "seq", json_integer(n->seq));
        json_object_set_new(o, "offset", json_integer((json_int_t)n->offset));
        json_object_set_new(o, "mr_index", json_integer(n->mr_index));
        json_array_append_new(a, o);
    }
    return a;
}

static void print_notes(const struct mero_eventlog *log, const char *prefix)
{
    for (size_t i = 0; i < log->n_notes; i++) {
        const struct mero_eventlog_note *n = &log->notes[i];
        switch (n->kind) {
        case MERO_EVENTLOG_NOTE_DUP_SEPARATOR:
            printf("%swarning: duplicate EV_SEPARATOR at seq %u (offset %zu) in MR index %u "
                   "(RTMR%u already had one)\n",
                   prefix, n->seq, n->offset, n->mr_index, n->mr_index - 1);
            break;
        case MERO_EVENTLOG_NOTE_MEASURED_AT_MR0:
            printf("%swarning: measured record at MR index 0 (MRTD) at seq %u (offset %zu); "
                   "not replayed\n",
                   prefix, n->seq, n->offset);
            break;
        case MERO_EVENTLOG_NOTE_TRAILING_DATA:
            printf("%swarning: non-padding byte at offset %zu after the log end; ignored\n", prefix,
                   n->offset);
            break;
        default:
            break;
        }
    }
    if (log->notes_total > log->n_notes) {
        printf("%swarning: %zu more\n", prefix, log->notes_total - log->n_notes);
    }
}

static const char *padding_name(enum mero_eventlog_padding p)
{
    return p == MERO_EVENTLOG_PAD_FF ? "ff" : p == MERO_EVENTLOG_PAD_00 ? "00" : "none";
}

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
        if (load_input("CCEL table", table, MERO_CCEL_TABLE_LEN, &raw, &n) < 0) {
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
    struct input_log in;
    if (load_log(data, &in) < 0) {
        return MEROCTL_USAGE;
    }
    if (table != NULL && in.len > t.laml) {
        fprintf(stderr, "meroctl: %s is %zu bytes, larger than the table's log area (%llu)\n", data,
                in.len, (unsigned long long)t.laml);
        free_log(&in);
        return MEROCTL_USAGE;
    }
    uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    mero_eventlog_replay(&in.log, rtmr);
    if (json) {
        json_t *o = json_object();
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            char key[8];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(o, key, hex_json(rtmr[r], MERO_RTMR_LEN));
        }
        json_object_set_new(o, "events", json_integer((json_int_t)in.log.n_events));
        json_object_set_new(o, "end_offset", json_integer((json_int_t)in.log.end_offset));
        json_object_set_new(o, "padding", json_string(padding_name(in.log.padding)));
        json_object_set_new(o, "notes", notes_json(&in.log));
        if (table != NULL) {
            json_t *tj = json_object();
            json_object_set_new(tj, "cc_type", json_integer(t.cc_type));
            json_object_set_new(tj, "cc_subtype", json_integer(t.cc_subtype));
            json_object_set_new(tj, "laml", json_integer((json_int_t)t.laml));
            char lasa[32];
            snprintf(lasa, sizeof(lasa), "0x%llx", (unsigned long long)t.lasa);
            json_object_set_new(tj, "lasa", json_string(lasa));
            json_object_set_new(tj, "oem_id", json_string(t.oem_id));
            json_object_set_new(tj, "oem_table_id", json_string(t.oem_table_id));
            json_object_set_new(o, "table", tj);
        }
        if (events) {
            json_t *a = json_array();
            for (size_t i = 0; i < in.log.n_events; i++) {
                json_array_append_new(a, record_json(&in.log.events[i]));
            }
            json_object_set_new(o, "records", a);
        }
        print_json(o);
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
                char tmp[16], desc[96], h[97];
                int r = mero_event_rtmr(e);
                mero_hex_encode(h, e->sha384, MERO_RTMR_LEN);
                bool has = mero_event_describe(e, desc, sizeof(desc));
                printf("%3u %6zu mr=%u %-6s %-34s %.16s... %s\n", e->seq, e->offset, e->mr_index,
                       r >= 0 ? (const char *[]){"RTMR0", "RTMR1", "RTMR2", "RTMR3"}[r] : "-",
                       type_name(e->type, tmp), h, has ? desc : "");
            }
        }
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            char h[97];
            mero_hex_encode(h, rtmr[r], MERO_RTMR_LEN);
            printf("rtmr%d %s\n", r, h);
        }
        printf("events %zu (records end at offset %zu, padding %s)\n", in.log.n_events,
               in.log.end_offset, padding_name(in.log.padding));
        print_notes(&in.log, "");
    }
    free_log(&in);
    return MEROCTL_OK;
}

/* ---------------------------------------------------------------- check */

/*
 * The quote's RTMR0-3 at the fixed offsets of reference-sigstore-ccel.md §C.6: v4 = 48-byte
 * header then the TD report (RTMR0 at 376), v5 = header, body type u16 (2 TD 1.0, 3 TD 1.5)
 * and body size u32, then the report (RTMR0 at 382). Interim until the quote module's
 * mero_quote_parse is merged; it checks the version, TEE type and that the body fits.
 */
static int quote_rtmrs(const uint8_t *q, size_t n, uint8_t out[MERO_RTMR_COUNT][MERO_RTMR_LEN],
                       struct mero_err *err)
{
    struct mero_cur c;
    uint16_t version, body_type = 2;
    uint32_t tee, body_size = MERO_TD10_BODY_LEN;
    size_t body;
    mero_cur_init(&c, q, n);
    if (mero_cur_u16le(&c, &version) < 0 || mero_cur_skip(&c, 2) < 0 ||
        mero_cur_u32le(&c, &tee) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "quote shorter than its header");
    }
    if (tee != MERO_TEE_TYPE_TDX) {
        return mero_err_set(err, MERO_EQUOTE_TEE, "TEE type 0x%x is not TDX", (unsigned)tee);
    }
    if (version == 4) {
        body = MERO_QUOTE_HEADER_LEN;
    } else if (version == 5) {
        c.off = MERO_QUOTE_HEADER_LEN;
        if (mero_cur_u16le(&c, &body_type) < 0 || mero_cur_u32le(&c, &body_size) < 0) {
            return mero_err_set(err, MERO_ETRUNC, "quote v5 body descriptor truncated");
        }
        if (!(body_type == 2 && body_size == MERO_TD10_BODY_LEN) &&
            !(body_type == 3 && body_size == MERO_TD15_BODY_LEN)) {
            return mero_err_set(err, MERO_EQUOTE_BODY, "quote v5 body type %u size %u", body_type,
                                (unsigned)body_size);
        }
        body = MERO_QUOTE_HEADER_LEN + 6;
    } else {
        return mero_err_set(err, MERO_EQUOTE_VERSION, "quote version %u", version);
    }
    if (n < body + body_size) {
        return mero_err_set(err, MERO_ETRUNC, "quote of %zu bytes ends inside its TD report", n);
    }
    /* TD report: TEE_TCB_SVN 16, MRSEAM 48, MRSIGNERSEAM 48, 3 x 8 attributes, 4 x 48 MRs */
    memcpy(out, q + body + 16 + 48 + 48 + 24 + 4 * 48, MERO_RTMR_COUNT * MERO_RTMR_LEN);
    return 0;
}

static int run_check(const struct meroctl_global *g, int argc, char **argv)
{
    const char *data = NULL, *quote = NULL;
    bool json = g->json;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data = argv[++i];
        } else if (strcmp(argv[i], "--quote") == 0 && i + 1 < argc) {
            quote = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else {
            fprintf(stderr, "meroctl: eventlog check: unexpected argument %s\n", argv[i]);
            return MEROCTL_USAGE;
        }
    }
    if (data == NULL || quote == NULL) {
        fprintf(stderr, "usage: meroctl eventlog check --data F --quote Q [--json]\n");
        return MEROCTL_USAGE;
    }
    uint8_t *q = NULL;
    size_t qn = 0;
    uint8_t regs[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    struct mero_err err = {0};
    if (load_input("quote", quote, MERO_MAX_TEE_QUOTE_BYTES, &q, &qn) < 0) {
        return MEROCTL_USAGE;
    }
    int rc = quote_rtmrs(q, qn, regs, &err);
    free(q);
    if (rc < 0) {
        fprintf(stderr, "meroctl: %s: %s\n", quote, err.msg[0] ? err.msg : mero_errdesc(rc));
        return MEROCTL_USAGE;
    }
    struct input_log in;
    if (load_log(data, &in) < 0) {
        return MEROCTL_USAGE;
    }
    struct mero_eventlog_check c;
    mero_eventlog_check(&in.log, (const uint8_t(*)[MERO_RTMR_LEN])regs, &c);
    if (json) {
        json_t *o = json_object();
        json_t *a = json_array();
        json_object_set_new(o, "match", json_boolean(c.all_match));
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            const struct mero_eventlog_reg_check *x = &c.reg[r];
            json_t *rj = json_object();
            char key[8];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(rj, "register", json_string(key));
            json_object_set_new(rj, "match", json_boolean(x->match));
            json_object_set_new(rj, "replayed", hex_json(x->replayed, MERO_RTMR_LEN));
            json_object_set_new(rj, "quote", hex_json(x->expected, MERO_RTMR_LEN));
            json_object_set_new(rj, "events", json_integer((json_int_t)x->n_events));
            json_object_set_new(rj, "matched_prefix",
                                x->matched_prefix >= 0 ? json_integer(x->matched_prefix)
                                                       : json_null());
            json_object_set_new(rj, "first_unexplained",
                                x->first_unexplained
                                    ? record_json(&in.log.events[x->first_unexplained - 1])
                                    : json_null());
            json_array_append_new(a, rj);
        }
        json_object_set_new(o, "registers", a);
        json_object_set_new(o, "events", json_integer((json_int_t)in.log.n_events));
        json_object_set_new(o, "notes", notes_json(&in.log));
        print_json(o);
    } else {
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            const struct mero_eventlog_reg_check *x = &c.reg[r];
            char h[97];
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
                       e->offset, type_name(e->type, tmp),
                       x->matched_prefix >= 0 ? "the quote stops before it"
                                              : "no prefix of the log reaches the quote");
            } else {
                printf("      the log has no records for this register: the quote's value "
                       "comes from extensions not in the log\n");
            }
        }
        printf("%s (%zu events)\n", c.all_match ? "all registers match" : "registers differ",
               in.log.n_events);
        print_notes(&in.log, "");
    }
    free_log(&in);
    return c.all_match ? MEROCTL_OK : MEROCTL_FAILED;
}

/* ---------------------------------------------------------------- diff */

static const char *delta_kind(enum mero_eventlog_delta_kind k)
{
    switch (k) {
    case MERO_DELTA_CHANGED:
        return "changed";
    case MERO_DELTA_ONLY_A:
        return "only_a";
    case MERO_DELTA_ONLY_B:
        return "only_b";
    case MERO_DELTA_DATA:
        return "event_data";
    default:
        return "unknown";
    }
}

static json_t *fields_json(unsigned f)
{
    json_t *a = json_array();
    if (f & MERO_DELTA_F_MR_INDEX) {
        json_array_append_new(a, json_string("mr_index"));
    }
    if (f & MERO_DELTA_F_TYPE) {
        json_array_append_new(a, json_string("type"));
    }
    if (f & MERO_DELTA_F_DIGEST) {
        json_array_append_new(a, json_string("digest"));
    }
    if (f & MERO_DELTA_F_DATA) {
        json_array_append_new(a, json_string("event_data"));
    }
    return a;
}

static json_t *delta_json(const struct mero_eventlog_delta *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(delta_kind(d->kind)));
    json_object_set_new(o, "fields", fields_json(d->fields));
    json_object_set_new(o, "measured", json_boolean(d->measured));
    json_object_set_new(o, "a", d->a ? record_json(d->a) : json_null());
    json_object_set_new(o, "b", d->b ? record_json(d->b) : json_null());
    return o;
}

static void print_delta_head(const char *prefix, const struct mero_eventlog_delta *x)
{
    printf("%s%s", prefix, delta_kind(x->kind));
    static const char *const names[] = {"mr_index", "type", "digest", "event_data"};
    const char *sep = ": ";
    for (int i = 0; i < 4 && x->kind != MERO_DELTA_DATA; i++) {
        if (x->fields & (1u << i)) {
            printf("%s%s", sep, names[i]);
            sep = ", ";
        }
    }
    printf("%s\n", x->measured ? "" : " (unmeasured)");
}

static void print_record(const char *side, const struct mero_event *e)
{
    char tmp[16], h[97], desc[120];
    if (e == NULL) {
        printf("    %s: (none)\n", side);
        return;
    }
    mero_hex_encode(h, e->sha384, MERO_RTMR_LEN);
    bool has = mero_event_describe(e, desc, sizeof(desc));
    printf("    %s: seq %u offset %zu mr=%u %s sha384 %s%s%s%s\n", side, e->seq, e->offset,
           e->mr_index, type_name(e->type, tmp), h, has ? " \"" : "", has ? desc : "",
           has ? "\"" : "");
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
    struct input_log a, b;
    if (load_log(pa, &a) < 0) {
        return MEROCTL_USAGE;
    }
    if (load_log(pb, &b) < 0) {
        free_log(&a);
        return MEROCTL_USAGE;
    }
    struct mero_eventlog_diff d;
    struct mero_err err = {0};
    if (mero_eventlog_diff(&a.log, &b.log, &d, &err) < 0) {
        fprintf(stderr, "meroctl: eventlog diff: %s\n", err.msg);
        free_log(&a);
        free_log(&b);
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
            char key[8];
            snprintf(key, sizeof(key), "rtmr%d", r);
            json_object_set_new(rj, "register", json_string(key));
            json_object_set_new(rj, "differ", json_boolean(d.regs_differ[r]));
            json_object_set_new(rj, "a", hex_json(d.rtmr_a[r], MERO_RTMR_LEN));
            json_object_set_new(rj, "b", hex_json(d.rtmr_b[r], MERO_RTMR_LEN));
            json_object_set_new(rj, "first_difference",
                                d.first[r] >= 0 ? delta_json(&d.deltas[d.first[r]]) : json_null());
            json_array_append_new(regs, rj);
        }
        json_t *all = json_array();
        for (size_t k = 0; k < d.n_deltas; k++) {
            json_array_append_new(all, delta_json(&d.deltas[k]));
        }
        json_object_set_new(o, "registers_differ", json_boolean(differ));
        json_object_set_new(o, "registers", regs);
        json_object_set_new(o, "differences", all);
        json_object_set_new(o, "events_a", json_integer((json_int_t)a.log.n_events));
        json_object_set_new(o, "events_b", json_integer((json_int_t)b.log.n_events));
        print_json(o);
    } else {
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            if (!d.regs_differ[r] && d.first[r] < 0) {
                printf("rtmr%d same\n", r);
                continue;
            }
            printf("rtmr%d %s\n", r, d.regs_differ[r] ? "DIFFERS" : "same value");
            if (d.first[r] >= 0) {
                const struct mero_eventlog_delta *x = &d.deltas[d.first[r]];
                print_delta_head("  first difference: ", x);
                print_record("A", x->a);
                print_record("B", x->b);
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
            print_delta_head("  ", x);
            print_record("A", x->a);
            print_record("B", x->b);
        }
        printf("%s\n", differ ? "registers differ" : "registers identical");
    }
    mero_eventlog_diff_cleanup(&d);
    free_log(&a);
    free_log(&b);
    return differ ? MEROCTL_FAILED : MEROCTL_OK;
}

MEROCTL_COMMANDS({"eventlog replay", "--data F [--table T] [--events] [--json]",
                  "replay a CCEL event log to RTMR0-3 (offline)", run_replay},
                 {"eventlog diff", "A B [--json]",
                  "first record per register where two logs differ; exit 2 if registers differ",
                  run_diff},
                 {"eventlog check", "--data F --quote Q [--json]",
                  "replay against a quote's RTMR0-3; exit 0 match, 2 mismatch, 1 bad input",
                  run_check})
