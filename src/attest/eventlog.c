/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog.c - parser for the crypto-agile TCG event log in a CCEL log area
 * (reference-sigstore-ccel.md §C.3): the legacy TCG_PCR_EVENT carrying the Spec ID event
 * (TCG_EfiSpecIDEvent with its digest sizes table), then TCG_PCR_EVENT2 records, until the
 * buffer ends or padding (0xFF from TDVF, 0x00 from td-shim) starts. Also the MR index to
 * RTMR mapping (§C.4) and the replay and quote comparison (§C.5).
 *
 * Invariants: every read goes through a mero_cur, so nothing is read past the buffer; every
 * length (Spec ID event size, algorithm count, digest count, event size) is checked against
 * what remains and against a maximum before use; any failure names the byte offset of the
 * record and of the field. The parse result borrows the input bytes and owns only the array
 * of records; it is written only on success.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/eventlog.h"

#define EVENTS_FIRST_CAP 64 /* events the array starts with; it doubles as needed */

#define SPEC_ID_SIGNATURE "Spec ID Event03"
#define LEGACY_DIGEST_LEN 20
/* A TCG_EfiSpecIDEvent with 8 algorithms and 255 bytes of vendor info is 313 bytes. */
#define SPEC_ID_MAX_SIZE 1024u
/* Where the Spec ID event data starts: after PCR, type, SHA-1 digest and size (4+4+20+4). */
#define SPEC_ID_DATA_AT 32

static int std_digest_size(uint16_t alg)
{
    switch (alg) {
    case MERO_TPM_ALG_SHA1:
        return 20;
    case MERO_TPM_ALG_SHA256:
    case MERO_TPM_ALG_SM3_256:
        return MERO_SHA256_LEN;
    case MERO_TPM_ALG_SHA384:
        return MERO_SHA384_LEN;
    case MERO_TPM_ALG_SHA512:
        return MERO_SHA512_LEN;
    default:
        return -MERO_EUNSUPPORTED;
    }
}

static int bad(struct mero_err *err, size_t rec, size_t field, const char *what)
{
    return mero_err_set(err, MERO_EEVENTLOG, "record at offset %zu: %s (offset %zu)", rec, what,
                        field);
}

/* The Spec ID event (TCG PC Client PFP §10.4.5.1); c is at offset 0. */
static int parse_spec_id(struct mero_eventlog *log, struct mero_cur *c, struct mero_err *err)
{
    uint32_t type, size, nalgs;
    const uint8_t *p;
    struct mero_cur s;

    if (mero_cur_u32le(c, &log->spec_mr_index) < 0 || mero_cur_u32le(c, &type) < 0 ||
        mero_cur_skip(c, LEGACY_DIGEST_LEN) < 0 || mero_cur_u32le(c, &size) < 0) {
        return bad(err, 0, c->off, "log shorter than the Spec ID event header");
    }
    if (type != MERO_EV_NO_ACTION) {
        return bad(err, 0, 4, "first record is not EV_NO_ACTION (no Spec ID event)");
    }
    if (log->spec_mr_index > 4) {
        return bad(err, 0, 0, "Spec ID event MR index out of range");
    }
    if (size > SPEC_ID_MAX_SIZE || size > mero_cur_left(c)) {
        return bad(err, 0, 28, "Spec ID event size runs past the end or its maximum");
    }
    if (mero_cur_bytes(c, size, &p) < 0) {
        return bad(err, 0, 28, "Spec ID event truncated");
    }
    mero_cur_init(&s, p, size);
    const uint8_t *sig;
    if (mero_cur_bytes(&s, 16, &sig) < 0 || memcmp(sig, SPEC_ID_SIGNATURE, 16) != 0) {
        return bad(err, 0, SPEC_ID_DATA_AT, "signature is not \"Spec ID Event03\"");
    }
    if (mero_cur_u32le(&s, &log->platform_class) < 0 ||
        mero_cur_u8(&s, &log->spec_version_minor) < 0 ||
        mero_cur_u8(&s, &log->spec_version_major) < 0 || mero_cur_u8(&s, &log->spec_errata) < 0 ||
        mero_cur_u8(&s, &log->uintn_size) < 0 || mero_cur_u32le(&s, &nalgs) < 0) {
        return bad(err, 0, SPEC_ID_DATA_AT + s.off, "Spec ID event truncated");
    }
    if (log->spec_version_major != 2 || log->spec_version_minor != 0) {
        return bad(err, 0, SPEC_ID_DATA_AT + 20,
                   "Spec ID event version is not 2.0 (not crypto-agile)");
    }
    if (log->uintn_size != 1 && log->uintn_size != 2) {
        return bad(err, 0, SPEC_ID_DATA_AT + 23, "Spec ID event uintnSize is not 1 or 2");
    }
    if (nalgs == 0 || nalgs > MERO_EVENTLOG_MAX_ALGS) {
        return bad(err, 0, SPEC_ID_DATA_AT + 24, "Spec ID event algorithm count out of range");
    }
    bool have384 = false;
    for (uint32_t i = 0; i < nalgs; i++) {
        size_t at = SPEC_ID_DATA_AT + s.off;
        struct mero_eventlog_alg *a = &log->algs[i];
        if (mero_cur_u16le(&s, &a->id) < 0 || mero_cur_u16le(&s, &a->size) < 0) {
            return bad(err, 0, at, "digest sizes table truncated");
        }
        int std = std_digest_size(a->id);
        if (a->size == 0 || a->size > MERO_SHA512_LEN || (std >= 0 && a->size != (uint16_t)std)) {
            return bad(err, 0, at, "digest size does not fit its algorithm");
        }
        for (uint32_t j = 0; j < i; j++) {
            if (log->algs[j].id == a->id) {
                return bad(err, 0, at, "algorithm listed twice");
            }
        }
        have384 = have384 || a->id == MERO_TPM_ALG_SHA384;
    }
    log->n_algs = nalgs;
    if (!have384) {
        return bad(err, 0, SPEC_ID_DATA_AT + 28, "no SHA-384 bank (not a CC event log)");
    }
    if (mero_cur_u8(&s, &log->vendor_info_len) < 0 || mero_cur_skip(&s, log->vendor_info_len) < 0) {
        return bad(err, 0, SPEC_ID_DATA_AT + s.off, "vendor info runs past the Spec ID event");
    }
    if (mero_cur_left(&s) != 0) {
        return bad(err, 0, SPEC_ID_DATA_AT + s.off, "bytes left over in the Spec ID event");
    }
    return 0;
}

static int alg_size(const struct mero_eventlog *log, uint16_t alg)
{
    for (uint32_t i = 0; i < log->n_algs; i++) {
        if (log->algs[i].id == alg) {
            return log->algs[i].size;
        }
    }
    return -MERO_ENOTFOUND;
}

/* One TCG_PCR_EVENT2 at c->off. */
static int parse_event2(const struct mero_eventlog *log, struct mero_cur *c, struct mero_event *e,
                        struct mero_err *err)
{
    size_t rec = c->off;
    uint32_t count, size;
    bool have384 = false;
    uint16_t seen[MERO_EVENTLOG_MAX_ALGS];

    memset(e, 0, sizeof(*e));
    e->offset = rec;
    if (mero_cur_u32le(c, &e->mr_index) < 0 || mero_cur_u32le(c, &e->type) < 0 ||
        mero_cur_u32le(c, &count) < 0) {
        return bad(err, rec, c->off, "record header truncated");
    }
    if (e->mr_index > 4) {
        return bad(err, rec, rec, "MR index out of range 0..4");
    }
    if (count == 0 || count > log->n_algs) {
        return bad(err, rec, rec + 8, "digest count is 0 or exceeds the Spec ID banks");
    }
    for (uint32_t i = 0; i < count; i++) {
        size_t at = c->off;
        uint16_t alg;
        const uint8_t *d;
        if (mero_cur_u16le(c, &alg) < 0) {
            return bad(err, rec, at, "digest list truncated");
        }
        int sz = alg_size(log, alg);
        if (sz < 0) {
            return bad(err, rec, at, "digest algorithm not in the Spec ID event");
        }
        for (uint32_t j = 0; j < i; j++) {
            if (seen[j] == alg) {
                return bad(err, rec, at, "digest algorithm repeated");
            }
        }
        seen[i] = alg;
        if (mero_cur_bytes(c, (size_t)sz, &d) < 0) {
            return bad(err, rec, at + 2, "digest truncated");
        }
        if (alg == MERO_TPM_ALG_SHA384) {
            memcpy(e->sha384, d, MERO_RTMR_LEN);
            have384 = true;
        }
    }
    if (!have384) {
        return bad(err, rec, rec + 8, "no SHA-384 digest");
    }
    size_t at = c->off;
    if (mero_cur_u32le(c, &size) < 0) {
        return bad(err, rec, at, "event size truncated");
    }
    if (size > mero_cur_left(c)) {
        return bad(err, rec, at, "event size runs past the end of the log");
    }
    if (mero_cur_bytes(c, size, &e->data) < 0) {
        return bad(err, rec, at, "event data truncated");
    }
    e->data_len = size;
    e->length = c->off - rec;
    return 0;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != v) {
            return false;
        }
    }
    return true;
}

static void add_note(struct mero_eventlog *log, enum mero_eventlog_note_kind kind, uint32_t seq,
                     size_t offset, uint32_t mr_index)
{
    if (log->n_notes < MERO_EVENTLOG_MAX_NOTES) {
        struct mero_eventlog_note *n = &log->notes[log->n_notes++];
        n->kind = kind;
        n->seq = seq;
        n->offset = offset;
        n->mr_index = mr_index;
    }
    log->notes_total++;
}

/* Is this the start of padding? Sets the padding kind. */
static bool at_padding(struct mero_eventlog *log, const struct mero_cur *c)
{
    size_t left = mero_cur_left(c);
    size_t n = left < 8 ? left : 8;
    const uint8_t *p = c->p + c->off;
    if (all_bytes(p, n, 0xFF)) {
        log->padding = MERO_EVENTLOG_PAD_FF;
        return true;
    }
    if (all_bytes(p, n, 0x00)) {
        log->padding = MERO_EVENTLOG_PAD_00;
        return true;
    }
    return false;
}

/* A block of 0xFF for comparing padding, filled once (pthread_once: replay runs from any
 * thread). */
static uint8_t ff[4096];
static pthread_once_t ff_once = PTHREAD_ONCE_INIT;

static void ff_fill(void)
{
    memset(ff, 0xFF, sizeof(ff));
}

static void check_trailing(struct mero_eventlog *log, const struct mero_cur *c)
{
    static const uint8_t zero[4096];
    uint8_t pad = log->padding == MERO_EVENTLOG_PAD_FF ? 0xFF : 0x00;
    pthread_once(&ff_once, ff_fill);
    const uint8_t *ref = pad ? ff : zero;
    /* block compare first (logs are mostly padding), then find the byte in the odd block */
    for (size_t i = c->off; i < c->len; i += sizeof(ff)) {
        size_t n = c->len - i < sizeof(ff) ? c->len - i : sizeof(ff);
        if (memcmp(c->p + i, ref, n) == 0) {
            continue;
        }
        for (size_t j = i; j < i + n; j++) {
            if (c->p[j] != pad) {
                add_note(log, MERO_EVENTLOG_NOTE_TRAILING_DATA, 0, j, 0);
                return;
            }
        }
    }
}

static void note_semantics(struct mero_eventlog *log, const struct mero_event *e,
                           uint32_t *separators)
{
    if (e->mr_index == 0 && e->type != MERO_EV_NO_ACTION) {
        add_note(log, MERO_EVENTLOG_NOTE_MEASURED_AT_MR0, e->seq, e->offset, 0);
    }
    if (e->type == MERO_EV_SEPARATOR && e->mr_index >= 1) {
        if (separators[e->mr_index]++ > 0) {
            add_note(log, MERO_EVENTLOG_NOTE_DUP_SEPARATOR, e->seq, e->offset, e->mr_index);
        }
    }
}

int mero_eventlog_parse(struct mero_eventlog *out, const uint8_t *data, size_t len,
                        struct mero_err *err)
{
    struct mero_eventlog log;
    struct mero_cur c;
    size_t cap = 0;
    uint32_t separators[5] = {0};
    int rc;

    if (data == NULL || len == 0) {
        return mero_err_set(err, MERO_EEVENTLOG, "event log is empty");
    }
    if (len > MERO_EVENTLOG_MAX_LEN) {
        return mero_err_set(err, MERO_ETOOBIG, "event log of %zu bytes exceeds %u", len,
                            MERO_EVENTLOG_MAX_LEN);
    }
    memset(&log, 0, sizeof(log));
    log.input_len = len;
    mero_cur_init(&c, data, len);
    rc = parse_spec_id(&log, &c, err);
    if (rc < 0) {
        return rc;
    }
    for (;;) {
        if (mero_cur_left(&c) == 0) {
            log.padding = MERO_EVENTLOG_PAD_NONE;
            break;
        }
        if (at_padding(&log, &c)) {
            check_trailing(&log, &c);
            break;
        }
        if (log.n_events >= MERO_EVENTLOG_MAX_EVENTS) {
            rc = bad(err, c.off, c.off, "more records than the maximum");
            goto fail;
        }
        if (log.n_events == cap) {
            size_t ncap = cap ? cap * 2 : EVENTS_FIRST_CAP;
            struct mero_event *ne = realloc(log.events, ncap * sizeof(*ne));
            if (ne == NULL) {
                rc = mero_err_set(err, MERO_ENOMEM, "event log: out of memory");
                goto fail;
            }
            log.events = ne;
            cap = ncap;
        }
        struct mero_event *e = &log.events[log.n_events];
        rc = parse_event2(&log, &c, e, err);
        if (rc < 0) {
            goto fail;
        }
        e->seq = (uint32_t)(++log.n_events);
        note_semantics(&log, e, separators);
    }
    log.end_offset = c.off;
    *out = log;
    return 0;
fail:
    free(log.events);
    return rc;
}

void mero_eventlog_cleanup(struct mero_eventlog *log)
{
    if (log == NULL) {
        return;
    }
    free(log->events);
    log->events = NULL;
    log->n_events = 0;
}

int mero_event_rtmr(const struct mero_event *e)
{
    if (e->type == MERO_EV_NO_ACTION || e->mr_index < 1 || e->mr_index > 4) {
        return MERO_EVENT_NO_RTMR;
    }
    return (int)e->mr_index - 1;
}

/* ---------------------------------------------------------------- replay and check */

/*
 * RTMR[r] = SHA-384(RTMR[r] || digest), as TDG.MR.RTMR.EXTEND does. Hashing one 96-byte
 * buffer is the same function as mero_sha384_2 over the two halves, without its per-call
 * EVP context allocation (measured in bench/bench_eventlog.c).
 */
static void extend(uint8_t reg[MERO_RTMR_LEN], const uint8_t digest[MERO_RTMR_LEN])
{
    uint8_t buf[2 * MERO_RTMR_LEN];
    memcpy(buf, reg, MERO_RTMR_LEN);
    memcpy(buf + MERO_RTMR_LEN, digest, MERO_RTMR_LEN);
    mero_sha384(reg, buf, sizeof(buf));
}

void mero_eventlog_replay(const struct mero_eventlog *log,
                          uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN])
{
    memset(rtmr, 0, MERO_RTMR_COUNT * MERO_RTMR_LEN);
    for (size_t i = 0; i < log->n_events; i++) {
        const struct mero_event *e = &log->events[i];
        int r = mero_event_rtmr(e);
        if (r < 0) {
            continue;
        }
        extend(rtmr[r], e->sha384);
    }
}

void mero_eventlog_check(const struct mero_eventlog *log,
                         const uint8_t expected[MERO_RTMR_COUNT][MERO_RTMR_LEN],
                         struct mero_eventlog_check *out)
{
    uint8_t v[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    size_t k[MERO_RTMR_COUNT] = {0};

    memset(out, 0, sizeof(*out));
    memset(v, 0, sizeof(v));
    for (int r = 0; r < MERO_RTMR_COUNT; r++) {
        memcpy(out->reg[r].expected, expected[r], MERO_RTMR_LEN);
        /* v_0 = zero */
        out->reg[r].matched_prefix = mero_ct_eq(v[r], expected[r], MERO_RTMR_LEN) ? 0 : -1;
    }
    for (size_t i = 0; i < log->n_events; i++) {
        const struct mero_event *e = &log->events[i];
        int r = mero_event_rtmr(e);
        if (r < 0) {
            continue;
        }
        extend(v[r], e->sha384);
        k[r]++;
        if (mero_ct_eq(v[r], expected[r], MERO_RTMR_LEN)) {
            out->reg[r].matched_prefix = (long)k[r];
        }
    }
    out->all_match = true;
    for (int r = 0; r < MERO_RTMR_COUNT; r++) {
        struct mero_eventlog_reg_check *rc = &out->reg[r];
        memcpy(rc->replayed, v[r], MERO_RTMR_LEN);
        rc->n_events = k[r];
        rc->match = rc->matched_prefix >= 0 && (size_t)rc->matched_prefix == k[r];
        if (rc->match) {
            continue;
        }
        out->all_match = false;
        /* index (within the register) of the first unexplained record */
        size_t want = rc->matched_prefix >= 0 ? (size_t)rc->matched_prefix : 0;
        if (want >= k[r]) {
            continue; /* no records: the register holds unlogged extensions */
        }
        size_t seen = 0;
        for (size_t i = 0; i < log->n_events; i++) {
            const struct mero_event *e = &log->events[i];
            if (mero_event_rtmr(e) != r) {
                continue;
            }
            if (seen++ == want) {
                rc->first_unexplained = e->seq;
                rc->first_unexplained_offset = e->offset;
                break;
            }
        }
    }
}
