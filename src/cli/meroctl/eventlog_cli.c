/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog_cli.c - input loading and output rendering for `meroctl eventlog`: a file is raw
 * bytes unless it is entirely printable text, in which case it is hex (only hex digits, even
 * length) or base64 once whitespace is dropped. Records, notes and diff entries render to
 * JSON (lowercase hex, integers for offsets) and to one-line text.
 *
 * Invariant: inputs are bounded (INPUT_MAX before decoding, `max` after); nothing here decides
 * a verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog_cli_internal.h"
#include "mero/encoding.h"

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
int evcli_load_input(const char *what, const char *path, size_t max, uint8_t **out, size_t *outlen)
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

int evcli_load_log(const char *path, struct evcli_log *in)
{
    struct mero_err err = {0};
    memset(in, 0, sizeof(*in));
    if (evcli_load_input("event log", path, MERO_EVENTLOG_MAX_LEN, &in->data, &in->len) < 0) {
        return -MERO_EIO;
    }
    if (mero_eventlog_parse(&in->log, in->data, in->len, &err) < 0) {
        fprintf(stderr, "meroctl: %s: %s\n", path, err.msg);
        free(in->data);
        in->data = NULL;
        return -MERO_EEVENTLOG;
    }
    return 0;
}

void evcli_free_log(struct evcli_log *in)
{
    mero_eventlog_cleanup(&in->log);
    free(in->data);
    in->data = NULL;
}

/* ---------------------------------------------------------------- output helpers */

json_t *evcli_hex_json(const uint8_t *p, size_t n)
{
    char h[MERO_HEX_SIZE(MERO_RTMR_LEN)];
    if (n > MERO_RTMR_LEN) {
        n = MERO_RTMR_LEN;
    }
    mero_hex_encode(h, p, n);
    return json_string(h);
}

const char *evcli_type_name(uint32_t type, char tmp[16])
{
    const char *n = mero_event_type_name(type);
    if (n != NULL) {
        return n;
    }
    snprintf(tmp, 16, "0x%08x", (unsigned)type);
    return tmp;
}

json_t *evcli_record_json(const struct mero_event *e)
{
    char tmp[16], desc[256];
    json_t *o = json_object();
    int r = mero_event_rtmr(e);
    json_object_set_new(o, "seq", json_integer(e->seq));
    json_object_set_new(o, "offset", json_integer((json_int_t)e->offset));
    json_object_set_new(o, "mr_index", json_integer(e->mr_index));
    json_object_set_new(o, "register", r >= 0 ? json_integer(r) : json_null());
    json_object_set_new(o, "type", json_string(evcli_type_name(e->type, tmp)));
    json_object_set_new(o, "event_type", json_integer(e->type));
    json_object_set_new(o, "digest", evcli_hex_json(e->sha384, MERO_RTMR_LEN));
    json_object_set_new(o, "data_len", json_integer((json_int_t)e->data_len));
    if (mero_event_describe(e, desc, sizeof(desc))) {
        json_object_set_new(o, "text", json_string(desc));
    }
    return o;
}

void evcli_print_json(json_t *doc)
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

json_t *evcli_notes_json(const struct mero_eventlog *log)
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

void evcli_print_notes(const struct mero_eventlog *log, const char *prefix)
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

const char *evcli_padding_name(enum mero_eventlog_padding p)
{
    return p == MERO_EVENTLOG_PAD_FF ? "ff" : p == MERO_EVENTLOG_PAD_00 ? "00" : "none";
}

/* ---------------------------------------------------------------- diff */

const char *evcli_delta_kind(enum mero_eventlog_delta_kind k)
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

json_t *evcli_delta_json(const struct mero_eventlog_delta *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(evcli_delta_kind(d->kind)));
    json_object_set_new(o, "fields", fields_json(d->fields));
    json_object_set_new(o, "measured", json_boolean(d->measured));
    json_object_set_new(o, "a", d->a ? evcli_record_json(d->a) : json_null());
    json_object_set_new(o, "b", d->b ? evcli_record_json(d->b) : json_null());
    return o;
}

void evcli_print_delta_head(const char *prefix, const struct mero_eventlog_delta *x)
{
    printf("%s%s", prefix, evcli_delta_kind(x->kind));
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

void evcli_print_record(const char *side, const struct mero_event *e)
{
    char tmp[16], h[MERO_HEX_SIZE(MERO_RTMR_LEN)], desc[120];
    if (e == NULL) {
        printf("    %s: (none)\n", side);
        return;
    }
    mero_hex_encode(h, e->sha384, MERO_RTMR_LEN);
    bool has = mero_event_describe(e, desc, sizeof(desc));
    printf("    %s: seq %u offset %zu mr=%u %s sha384 %s%s%s%s\n", side, e->seq, e->offset,
           e->mr_index, evcli_type_name(e->type, tmp), h, has ? " \"" : "", has ? desc : "",
           has ? "\"" : "");
}
