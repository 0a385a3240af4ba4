/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_eventlog.c - the CCEL table, the event log parser, replay, the quote comparison, the
 * diff and the local reader, on every real case of ../shared/testdata/ccel (expected values
 * from each case's expected.txt / expected*.json) and on synthetic logs built here for what
 * the real data lacks (td-shim 0x00 padding, MR index 0 records, malformed records).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/eventlog.h"
#include "mero/quote.h"
#include "harness.h"

#define CCEL "testdata/ccel/"

/* ---------------------------------------------------------------- helpers */

/* value of `key=` in an expected.txt, copied into out; 0 when found */
static int kv_get(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    const char *p = text;
    while (p != NULL && *p) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, "\r\n");
            if (n >= cap) {
                return -1;
            }
            memcpy(out, v, n);
            out[n] = 0;
            return 0;
        }
        p = strchr(p, '\n');
        if (p != NULL) {
            p++;
        }
    }
    return -1;
}

static int kv_u64(const char *text, const char *key, uint64_t *v)
{
    char tmp[64];
    if (kv_get(text, key, tmp, sizeof(tmp)) < 0) {
        return -1;
    }
    return mero_parse_u64(tmp, UINT64_MAX, v);
}

/* the 96-hex register `key` (rtmrN, computed_rtmrN, wrong_rtmrN); 0 when present */
static int kv_reg(const char *text, const char *key, uint8_t out[48])
{
    char tmp[128];
    if (kv_get(text, key, tmp, sizeof(tmp)) < 0) {
        return -1;
    }
    return mero_hex_decode_exact(out, 48, tmp, strlen(tmp));
}

static void hex48(char out[97], const uint8_t *p)
{
    mero_hex_encode(out, p, 48);
}

struct loaded {
    uint8_t *data;
    size_t len;
    struct mero_eventlog log;
};

static int load(struct loaded *l, const char *rel)
{
    struct mero_err e = {0};
    memset(l, 0, sizeof(*l));
    l->data = mero_test_read(rel, 1, &l->len);
    if (l->data == NULL) {
        return -MERO_ENOTFOUND;
    }
    int rc = mero_eventlog_parse(&l->log, l->data, l->len, &e);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", rel, e.msg);
    }
    return rc;
}

static void unload(struct loaded *l)
{
    mero_eventlog_cleanup(&l->log);
    free(l->data);
    l->data = NULL;
}

/*
 * Synthetic log builder: a Spec ID event (one SHA-384 bank), then records. Builder calls
 * return 0 or a negative code; a test ORs them and checks the result once.
 */
static int spec_id(struct mero_buf *b, uint32_t mr, uint8_t errata, const char *vendor)
{
    static const uint8_t zero20[20];
    size_t vl = vendor ? strlen(vendor) : 0;
    int rc = 0;
    rc |= mero_buf_append_u32le(b, mr);
    rc |= mero_buf_append_u32le(b, MERO_EV_NO_ACTION);
    rc |= mero_buf_append(b, zero20, 20);
    rc |= mero_buf_append_u32le(b, (uint32_t)(33 + vl));
    rc |= mero_buf_append(b, "Spec ID Event03", 16);
    rc |= mero_buf_append_u32le(b, 0); /* platform class */
    rc |= mero_buf_append_u8(b, 0);    /* minor */
    rc |= mero_buf_append_u8(b, 2);    /* major */
    rc |= mero_buf_append_u8(b, errata);
    rc |= mero_buf_append_u8(b, 2); /* uintnSize */
    rc |= mero_buf_append_u32le(b, 1);
    rc |= mero_buf_append_u16le(b, MERO_TPM_ALG_SHA384);
    rc |= mero_buf_append_u16le(b, 48);
    rc |= mero_buf_append_u8(b, (uint8_t)vl);
    if (vl) {
        rc |= mero_buf_append(b, vendor, vl);
    }
    return rc;
}

static int event2(struct mero_buf *b, uint32_t mr, uint32_t type, const char *text)
{
    uint8_t d[48];
    size_t n = strlen(text);
    int rc = 0;
    mero_sha384(d, text, n);
    rc |= mero_buf_append_u32le(b, mr);
    rc |= mero_buf_append_u32le(b, type);
    rc |= mero_buf_append_u32le(b, 1);
    rc |= mero_buf_append_u16le(b, MERO_TPM_ALG_SHA384);
    rc |= mero_buf_append(b, d, 48);
    rc |= mero_buf_append_u32le(b, (uint32_t)n);
    rc |= mero_buf_append(b, text, n);
    return rc;
}

static int pad(struct mero_buf *b, uint8_t v, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        rc |= mero_buf_append_u8(b, v);
    }
    return rc;
}

static void extend(uint8_t r[48], const char *text)
{
    uint8_t d[48];
    mero_sha384(d, text, strlen(text));
    mero_sha384_2(r, r, 48, d, 48);
}

/* ---------------------------------------------------------------- the ACPI table */

TEST(table_parses_real_tables)
{
    size_t n;
    struct mero_ccel_table t;
    struct mero_err e = {0};
    uint8_t *d = mero_test_read(CCEL "gce-cos113-tdx-with-quote/ccel_table.bin", 1, &n);
    CHECK(d != NULL);
    CHECK_OK(mero_ccel_table_parse(&t, d, n, &e));
    free(d);
    CHECK_EQ(t.length, 56);
    CHECK_EQ(t.revision, 1);
    CHECK_STR_EQ(t.oem_id, "INTEL ");
    CHECK_STR_EQ(t.oem_table_id, "EDK2    ");
    CHECK_EQ(t.oem_revision, 2);
    CHECK_EQ(t.creator_revision, 0x01000013);
    CHECK_EQ(t.cc_type, MERO_CC_TYPE_TDX);
    CHECK_EQ(t.cc_subtype, 0);
    CHECK_U64_EQ(t.laml, 0x40000);
    CHECK_U64_EQ(t.lasa, 0xBEDBF000);

    d = mero_test_read(CCEL "intel-edk2-ccel-unpadded/ccel_table.bin", 1, &n);
    CHECK(d != NULL);
    CHECK_OK(mero_ccel_table_parse(&t, d, n, &e));
    free(d);
    CHECK_EQ(t.checksum, 0x84);
    CHECK_EQ(t.cc_type, 2);
    CHECK_U64_EQ(t.laml, 0x10000);
    CHECK_U64_EQ(t.lasa, 0x7D649000);
}

TEST(table_refuses_malformed)
{
    size_t n;
    struct mero_ccel_table t;
    struct mero_err e = {0};
    uint8_t *d = mero_test_read(CCEL "gce-cos113-tdx-with-quote/ccel_table.bin", 1, &n);
    CHECK(d != NULL && n == 56);
    uint8_t m[57];
    memcpy(m, d, 56);
    free(d);
    CHECK_ERR(mero_ccel_table_parse(&t, m, 55, &e), -MERO_EEVENTLOG); /* short */
    m[56] = 0;
    CHECK_ERR(mero_ccel_table_parse(&t, m, 57, &e), -MERO_EEVENTLOG); /* long */
    m[0] = 'X';
    CHECK_ERR(mero_ccel_table_parse(&t, m, 56, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "signature") != NULL);
    m[0] = 'C';
    m[9]++; /* checksum */
    CHECK_ERR(mero_ccel_table_parse(&t, m, 56, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "checksum") != NULL);
    m[9]--;
    m[4] = 57; /* length field; fix the checksum so only the length is wrong */
    m[9]--;
    CHECK_ERR(mero_ccel_table_parse(&t, m, 56, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "length") != NULL);
    m[4] = 56;
    m[9]++;
    m[36] = 3; /* CC type */
    m[9] = (uint8_t)(m[9] - 1);
    CHECK_ERR(mero_ccel_table_parse(&t, m, 56, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "CC type") != NULL);
    m[36] = 2;
    m[9]++;
    CHECK_OK(mero_ccel_table_parse(&t, m, 56, &e)); /* restored */
}

/* ---------------------------------------------------------------- every real case */

struct rcase {
    const char *dir;
    const char *data;
    enum mero_eventlog_padding padding;
};

static const struct rcase cases[] = {
    {"gce-cos113-tdx-with-quote", "ccel_data.bin", MERO_EVENTLOG_PAD_FF},
    {"gce-cos113-tdx-dupe-separator", "ccel_data.bin", MERO_EVENTLOG_PAD_FF},
    {"gce-cos113-tdx-dupe-separator", "ccel_data_unpadded.bin", MERO_EVENTLOG_PAD_NONE},
    {"intel-edk2-ccel-unpadded", "ccel_data_unpadded.bin", MERO_EVENTLOG_PAD_NONE},
    {"dstack-ccel-sample", "ccel_data.bin", MERO_EVENTLOG_PAD_FF},
    {"trustee-ovmf", "ccel_data.bin", MERO_EVENTLOG_PAD_FF},
    {"trustee-gcp", "ccel_data.bin", MERO_EVENTLOG_PAD_FF},
};

TEST(every_case_replays_to_expected_registers)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[256];
        size_t tl;
        snprintf(path, sizeof(path), CCEL "%s/expected.txt", cases[i].dir);
        char *exp = (char *)mero_test_read(path, 1, &tl);
        CHECK_MSG(exp != NULL, "%s missing", path);
        snprintf(path, sizeof(path), CCEL "%s/%s", cases[i].dir, cases[i].data);
        struct loaded l;
        CHECK_MSG(load(&l, path) == 0, "%s does not parse", path);
        uint64_t events = 0, end = 0;
        CHECK(kv_u64(exp, "events", &events) == 0);
        CHECK(kv_u64(exp, "log_end_offset", &end) == 0);
        CHECK_MSG(l.log.n_events == events, "%s: %zu events, want %llu", path, l.log.n_events,
                  (unsigned long long)events);
        CHECK_MSG(l.log.end_offset == end, "%s: end %zu, want %llu", path, l.log.end_offset,
                  (unsigned long long)end);
        CHECK_EQ(l.log.padding, cases[i].padding);
        CHECK_EQ(l.log.algs[0].id, MERO_TPM_ALG_SHA384);
        uint8_t got[4][48];
        mero_eventlog_replay(&l.log, got);
        int checked = 0;
        for (int r = 0; r < 4; r++) {
            static const char *const pfx[] = {"rtmr", "computed_rtmr"};
            for (int k = 0; k < 2; k++) {
                char key[32];
                uint8_t want[48];
                snprintf(key, sizeof(key), "%s%d", pfx[k], r);
                if (kv_reg(exp, key, want) < 0) {
                    continue;
                }
                char hw[97], hg[97];
                hex48(hw, want);
                hex48(hg, got[r]);
                CHECK_MSG(memcmp(want, got[r], 48) == 0, "%s %s: %s != %s", path, key, hg, hw);
                checked++;
            }
        }
        CHECK_MSG(checked == 4, "%s: %d registers had expected values", path, checked);
        unload(&l);
        free(exp);
    }
}

TEST(quote_case_matches_its_quote)
{
    size_t qn, tn;
    uint8_t *q = mero_test_read(CCEL "gce-cos113-tdx-with-quote/td_quote.bin", 1, &qn);
    char *exp = (char *)mero_test_read(CCEL "gce-cos113-tdx-with-quote/expected.txt", 1, &tn);
    CHECK(q != NULL && exp != NULL);
    /* the registers come from the quote module's parser */
    struct mero_quote quote;
    struct mero_err qe = {0};
    CHECK_OK(mero_quote_parse(&quote, q, qn, &qe));
    CHECK_EQ(quote.version, 4);
    uint8_t regs[4][48], mrtd[48];
    memcpy(regs, quote.body.rtmr, sizeof(regs));
    CHECK(kv_reg(exp, "mrtd", mrtd) == 0);
    CHECK_MEM_EQ(quote.body.mrtd, mrtd, 48);
    /* and sit at the offsets of reference-sigstore-ccel.md §C.6 (v4: RTMR0 at 376) */
    CHECK_MEM_EQ(q + 376, regs, sizeof(regs));
    struct loaded l;
    CHECK_OK(load(&l, CCEL "gce-cos113-tdx-with-quote/ccel_data.bin"));
    struct mero_eventlog_check c;
    mero_eventlog_check(&l.log, (const uint8_t(*)[48])regs, &c);
    CHECK(c.all_match);
    for (int r = 0; r < 4; r++) {
        CHECK(c.reg[r].match);
        CHECK_EQ(c.reg[r].first_unexplained, 0);
        CHECK_EQ(c.reg[r].matched_prefix, (long)c.reg[r].n_events);
    }
    CHECK_EQ(c.reg[3].n_events, 0); /* no MR-index-4 records */
    /* one flipped bit in the quote's RTMR1 is a mismatch on RTMR1 alone */
    regs[1][47] ^= 1;
    mero_eventlog_check(&l.log, (const uint8_t(*)[48])regs, &c);
    CHECK(!c.all_match);
    CHECK(c.reg[0].match && !c.reg[1].match && c.reg[2].match && c.reg[3].match);
    unload(&l);
    free(q);
    free(exp);
}

TEST(wrong_register_is_reported_as_mismatch)
{
    size_t tn;
    char *exp = (char *)mero_test_read(CCEL "trustee-gcp/expected.txt", 1, &tn);
    CHECK(exp != NULL);
    uint8_t want[4][48], wrong[48];
    for (int r = 0; r < 4; r++) {
        char key[16];
        snprintf(key, sizeof(key), "rtmr%d", r);
        CHECK(kv_reg(exp, key, want[r]) == 0);
    }
    CHECK(kv_reg(exp, "wrong_rtmr0", wrong) == 0);
    struct loaded l;
    CHECK_OK(load(&l, CCEL "trustee-gcp/ccel_data.bin"));
    struct mero_eventlog_check c;
    mero_eventlog_check(&l.log, (const uint8_t(*)[48])want, &c);
    CHECK(c.all_match);
    memcpy(want[0], wrong, 48);
    mero_eventlog_check(&l.log, (const uint8_t(*)[48])want, &c);
    CHECK(!c.all_match);
    CHECK(!c.reg[0].match);
    CHECK(c.reg[1].match && c.reg[2].match && c.reg[3].match);
    char h[97];
    hex48(h, c.reg[0].replayed);
    CHECK_STR_EQ(h, "3300980705adf09d28b707b79699d9874892164280832be2c386a715b6e204e0897fb564a0"
                    "64f810659207ba862b304f");
    CHECK_MEM_EQ(c.reg[0].expected, wrong, 48);
    /* no prefix reaches the wrong value: the first RTMR0 record is the first unexplained */
    CHECK_EQ(c.reg[0].matched_prefix, -1);
    CHECK_EQ(c.reg[0].first_unexplained, 1);
    CHECK_EQ(c.reg[0].first_unexplained_offset, 65);
    unload(&l);
    free(exp);
}

TEST(prefix_match_names_the_first_extra_record)
{
    /* expected RTMR1 = the value after the first two of its records: record 3 is extra */
    struct loaded l;
    CHECK_OK(load(&l, CCEL "trustee-ovmf/ccel_data.bin"));
    uint8_t regs[4][48];
    mero_eventlog_replay(&l.log, regs);
    uint8_t v[48] = {0};
    int seen = 0;
    uint32_t third = 0;
    for (size_t i = 0; i < l.log.n_events; i++) {
        const struct mero_event *e = &l.log.events[i];
        if (mero_event_rtmr(e) != 1) {
            continue;
        }
        if (seen < 2) {
            mero_sha384_2(v, v, 48, e->sha384, 48);
        } else if (seen == 2) {
            third = e->seq;
        }
        seen++;
    }
    CHECK(seen > 3 && third != 0);
    memcpy(regs[1], v, 48);
    /* and RTMR3 holds an extension that is not in the log */
    regs[3][0] = 1;
    struct mero_eventlog_check c;
    mero_eventlog_check(&l.log, (const uint8_t(*)[48])regs, &c);
    CHECK(!c.all_match && c.reg[0].match && c.reg[2].match);
    CHECK(!c.reg[1].match);
    CHECK_EQ(c.reg[1].matched_prefix, 2);
    CHECK_EQ(c.reg[1].first_unexplained, third);
    CHECK(!c.reg[3].match);
    CHECK_EQ(c.reg[3].n_events, 0);
    CHECK_EQ(c.reg[3].matched_prefix, -1);
    CHECK_EQ(c.reg[3].first_unexplained, 0);
    unload(&l);
}

/* dstack's parsed snapshot: imr = MR index - 1, type, SHA-384 digest, payload, in order */
TEST(dstack_records_match_snapshot)
{
    struct loaded l;
    CHECK_OK(load(&l, CCEL "dstack-ccel-sample/ccel_data.bin"));
    char path[512];
    snprintf(path, sizeof(path), "%s/" CCEL "dstack-ccel-sample/expected_events.json",
             mero_test_shared());
    json_error_t je;
    json_t *arr = json_load_file(path, 0, &je);
    CHECK(json_is_array(arr));
    CHECK_EQ(json_array_size(arr), l.log.n_events);
    for (size_t i = 0; i < l.log.n_events; i++) {
        const struct mero_event *e = &l.log.events[i];
        json_t *o = json_array_get(arr, i);
        CHECK_EQ(json_integer_value(json_object_get(o, "imr")), (long long)e->mr_index - 1);
        CHECK_EQ(json_integer_value(json_object_get(o, "event_type")), (long long)e->type);
        char h[97];
        hex48(h, e->sha384);
        CHECK_STR_EQ(json_string_value(json_object_get(o, "digest")), h);
        const char *payload = json_string_value(json_object_get(o, "event_payload"));
        CHECK(payload != NULL);
        CHECK_EQ(strlen(payload), 2 * e->data_len);
        char *hp = malloc(2 * e->data_len + 1);
        CHECK(hp != NULL);
        mero_hex_encode(hp, e->data, e->data_len);
        int same = strcmp(hp, payload) == 0;
        free(hp);
        CHECK_MSG(same, "record %zu payload differs", i + 1);
    }
    json_decref(arr);
    unload(&l);
}

/* trustee's parsed view: MR index, type name, digest per record */
TEST(trustee_records_match_parsed_view)
{
    struct loaded l;
    CHECK_OK(load(&l, CCEL "trustee-ovmf/ccel_data.bin"));
    char path[512];
    snprintf(path, sizeof(path), "%s/" CCEL "trustee-ovmf/expected_parsed.json",
             mero_test_shared());
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    json_t *arr = json_object_get(root, "uefi_event_logs");
    CHECK(json_is_array(arr));
    CHECK_EQ(json_array_size(arr), l.log.n_events);
    for (size_t i = 0; i < l.log.n_events; i++) {
        const struct mero_event *e = &l.log.events[i];
        json_t *o = json_array_get(arr, i);
        CHECK_EQ(json_integer_value(json_object_get(o, "index")), e->mr_index);
        CHECK_STR_EQ(json_string_value(json_object_get(o, "type_name")),
                     mero_event_type_name(e->type));
        json_t *d0 = json_array_get(json_object_get(o, "digests"), 0);
        char h[97];
        hex48(h, e->sha384);
        CHECK_STR_EQ(json_string_value(json_object_get(d0, "digest")), h);
    }
    json_decref(root);
    unload(&l);
}

TEST(duplicate_separator_is_reported)
{
    struct loaded l;
    CHECK_OK(load(&l, CCEL "gce-cos113-tdx-dupe-separator/ccel_data.bin"));
    CHECK_EQ(l.log.n_notes, 1);
    CHECK_EQ(l.log.notes[0].kind, MERO_EVENTLOG_NOTE_DUP_SEPARATOR);
    CHECK_EQ(l.log.notes[0].seq, 16);
    CHECK_EQ(l.log.notes[0].offset, 9484);
    CHECK_EQ(l.log.notes[0].mr_index, 1);
    unload(&l);
    CHECK_OK(load(&l, CCEL "gce-cos113-tdx-with-quote/ccel_data.bin"));
    CHECK_EQ(l.log.n_notes, 0); /* one separator per register */
    unload(&l);
    /* the EDK2 sample also logs RTMR0's separator twice (seq 8 at 828 and seq 16 at 1663) */
    CHECK_OK(load(&l, CCEL "intel-edk2-ccel-unpadded/ccel_data_unpadded.bin"));
    CHECK_EQ(l.log.n_notes, 1);
    CHECK_EQ(l.log.notes[0].kind, MERO_EVENTLOG_NOTE_DUP_SEPARATOR);
    CHECK_EQ(l.log.notes[0].offset, 1663);
    /* its RTMR2 comes from an EV_EVENT_TAG record */
    CHECK_EQ(l.log.events[16].type, MERO_EV_EVENT_TAG);
    CHECK_EQ(mero_event_rtmr(&l.log.events[16]), 2);
    unload(&l);
}

/* ---------------------------------------------------------------- diff */

TEST(diff_case_gives_expected_difference)
{
    struct loaded a, b;
    CHECK_OK(load(&a, CCEL "gce-cos113-tdx-with-quote/ccel_data.bin"));
    CHECK_OK(load(&b, CCEL "gce-cos113-tdx-dupe-separator/ccel_data.bin"));
    struct mero_eventlog_diff d;
    struct mero_err e = {0};
    CHECK_OK(mero_eventlog_diff(&a.log, &b.log, &d, &e));
    CHECK_EQ(d.n_deltas, 4);
    /* seq 2, offset 173: the firmware blob's digest */
    CHECK_EQ(d.deltas[0].kind, MERO_DELTA_CHANGED);
    CHECK_EQ(d.deltas[0].a->seq, 2);
    CHECK_EQ(d.deltas[0].a->offset, 173);
    CHECK_EQ(d.deltas[0].fields & ~MERO_DELTA_F_DATA, MERO_DELTA_F_DIGEST);
    CHECK_STR_EQ(mero_event_type_name(d.deltas[0].a->type), "EV_EFI_PLATFORM_FIRMWARE_BLOB2");
    char h[97];
    hex48(h, d.deltas[0].a->sha384);
    CHECK(strncmp(h, "58bed422cb788e1f", 16) == 0);
    hex48(h, d.deltas[0].b->sha384);
    CHECK(strncmp(h, "1411da909afb9068", 16) == 0);
    CHECK(d.deltas[0].measured);
    /* seq 16, offset 9484: the separator moved from MR index 2 to 1 */
    CHECK_EQ(d.deltas[1].kind, MERO_DELTA_CHANGED);
    CHECK_EQ(d.deltas[1].a->seq, 16);
    CHECK_EQ(d.deltas[1].a->offset, 9484);
    CHECK_EQ(d.deltas[1].fields, MERO_DELTA_F_MR_INDEX);
    CHECK_EQ(d.deltas[1].a->mr_index, 2);
    CHECK_EQ(d.deltas[1].b->mr_index, 1);
    CHECK_EQ(d.deltas[1].a->type, MERO_EV_SEPARATOR);
    CHECK(d.deltas[1].measured);
    /* seq 18 and 24: image load addresses only, digests identical */
    static const uint32_t seqs[] = {18, 24};
    static const size_t offs[] = {11256, 11973};
    static const char *const dg[] = {"5a10026c9ad41d1f", "b1fb7f4c0689f5a9"};
    for (int k = 0; k < 2; k++) {
        const struct mero_eventlog_delta *x = &d.deltas[2 + k];
        CHECK_EQ(x->kind, MERO_DELTA_DATA);
        CHECK_EQ(x->fields, MERO_DELTA_F_DATA);
        CHECK_EQ(x->a->seq, seqs[k]);
        CHECK_EQ(x->a->offset, offs[k]);
        CHECK_EQ(x->a->mr_index, 2);
        CHECK_EQ(x->a->type, MERO_EV_EFI_BOOT_SERVICES_APPLICATION);
        CHECK(!x->measured);
        hex48(h, x->a->sha384);
        CHECK(strncmp(h, dg[k], 16) == 0);
        char da[128], db[128];
        CHECK(mero_event_describe(x->a, da, sizeof(da)));
        CHECK(mero_event_describe(x->b, db, sizeof(db)));
        CHECK(strncmp(da, "image at 0x", 11) == 0);
        CHECK(strcmp(da, db) != 0);
    }
    /* per register: RTMR0 first differs at seq 2, RTMR1 at seq 16, RTMR2/3 not at all */
    CHECK_EQ(d.first[0], 0);
    CHECK_EQ(d.first[1], 1);
    CHECK_EQ(d.first[2], -1);
    CHECK_EQ(d.first[3], -1);
    CHECK(d.regs_differ[0] && d.regs_differ[1] && !d.regs_differ[2] && !d.regs_differ[3]);
    hex48(h, d.rtmr_a[2]);
    CHECK(strncmp(h, "4969684d", 8) == 0);
    mero_eventlog_diff_cleanup(&d);
    unload(&a);
    unload(&b);
}

TEST(diff_identical_and_padding_only)
{
    struct loaded a, b;
    CHECK_OK(load(&a, CCEL "gce-cos113-tdx-dupe-separator/ccel_data.bin"));
    CHECK_OK(load(&b, CCEL "gce-cos113-tdx-dupe-separator/ccel_data_unpadded.bin"));
    struct mero_eventlog_diff d;
    CHECK_OK(mero_eventlog_diff(&a.log, &b.log, &d, NULL));
    CHECK_EQ(d.n_deltas, 0);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ(d.first[r], -1);
        CHECK(!d.regs_differ[r]);
    }
    mero_eventlog_diff_cleanup(&d);
    unload(&a);
    unload(&b);
}

TEST(diff_aligns_inserted_and_removed_records)
{
    struct mero_buf x, y;
    mero_buf_init(&x, 1 << 16);
    mero_buf_init(&y, 1 << 16);
    int rc = spec_id(&x, 1, 0, NULL) | spec_id(&y, 1, 0, NULL);
    rc |= event2(&x, 1, 0x80000001, "a") | event2(&y, 1, 0x80000001, "a");
    rc |= event2(&x, 1, 0x80000001, "extra"); /* only in A */
    rc |= event2(&x, 2, 0x80000007, "b") | event2(&y, 2, 0x80000007, "b");
    rc |= event2(&y, 3, MERO_EV_IPL, "grub_cmd: x"); /* only in B */
    rc |= event2(&x, 2, MERO_EV_SEPARATOR, "\x01") | event2(&y, 2, MERO_EV_SEPARATOR, "\x01");
    CHECK_OK(rc);
    struct mero_eventlog la, lb;
    CHECK_OK(mero_eventlog_parse(&la, x.data, x.len, NULL));
    CHECK_OK(mero_eventlog_parse(&lb, y.data, y.len, NULL));
    CHECK_EQ(la.n_events, 4);
    CHECK_EQ(lb.n_events, 4);
    struct mero_eventlog_diff d;
    CHECK_OK(mero_eventlog_diff(&la, &lb, &d, NULL));
    CHECK_EQ(d.n_deltas, 2);
    CHECK_EQ(d.deltas[0].kind, MERO_DELTA_ONLY_A);
    CHECK_EQ(d.deltas[0].a->seq, 2);
    CHECK(d.deltas[0].b == NULL);
    CHECK_EQ(d.deltas[1].kind, MERO_DELTA_ONLY_B);
    CHECK_EQ(d.deltas[1].b->seq, 3);
    CHECK(d.deltas[1].a == NULL);
    CHECK_EQ(d.first[0], 0);
    CHECK_EQ(d.first[1], -1);
    CHECK_EQ(d.first[2], 1);
    CHECK(d.regs_differ[0] && !d.regs_differ[1] && d.regs_differ[2] && !d.regs_differ[3]);
    mero_eventlog_diff_cleanup(&d);
    mero_eventlog_cleanup(&la);
    mero_eventlog_cleanup(&lb);
    mero_buf_cleanup(&x);
    mero_buf_cleanup(&y);
}

/* ---------------------------------------------------------------- synthetic logs */

TEST(td_shim_log_with_zero_padding_and_mr0_records)
{
    struct mero_buf b;
    mero_buf_init(&b, 1 << 16);
    int rc = spec_id(&b, 0, 105, "td-shim");
    rc |= event2(&b, 0, MERO_EV_NO_ACTION, "SP800-155 Event3"); /* skip-only at MR index 0 */
    rc |= event2(&b, 1, 0x8000000B, "\x08TdxTable");
    rc |= event2(&b, 2, MERO_EV_NO_ACTION, "not extended");
    rc |= event2(&b, 3, MERO_EV_IPL, "kernel_cmdline: console=ttyS0");
    rc |= event2(&b, 4, MERO_EV_EVENT_TAG, "app");
    size_t end = b.len;
    rc |= pad(&b, 0x00, 4096);
    CHECK_OK(rc);
    struct mero_eventlog log;
    struct mero_err e = {0};
    CHECK_OK(mero_eventlog_parse(&log, b.data, b.len, &e));
    CHECK_EQ(log.spec_mr_index, 0);
    CHECK_EQ(log.spec_errata, 105);
    CHECK_EQ(log.vendor_info_len, 7);
    CHECK_EQ(log.n_events, 5);
    CHECK_EQ(log.end_offset, end);
    CHECK_EQ(log.padding, MERO_EVENTLOG_PAD_00);
    CHECK_EQ(log.n_notes, 0);
    CHECK_EQ(mero_event_rtmr(&log.events[0]), -1);
    CHECK_EQ(mero_event_rtmr(&log.events[2]), -1);
    uint8_t want[4][48] = {{0}}, got[4][48];
    extend(want[0], "\x08TdxTable");
    extend(want[2], "kernel_cmdline: console=ttyS0");
    extend(want[3], "app");
    mero_eventlog_replay(&log, got);
    CHECK_MEM_EQ(got, want, sizeof(want));
    char desc[64];
    CHECK(mero_event_describe(&log.events[1], desc, sizeof(desc)));
    CHECK_STR_EQ(desc, "TdxTable");
    CHECK(mero_event_describe(&log.events[3], desc, 16));
    CHECK_STR_EQ(desc, "kernel_cmdline:"); /* truncated to cap - 1 */
    mero_eventlog_cleanup(&log);
    mero_buf_cleanup(&b);
}

TEST(notes_for_mr0_measurement_and_trailing_data)
{
    struct mero_buf b;
    mero_buf_init(&b, 1 << 16);
    int rc = spec_id(&b, 1, 0, NULL);
    rc |= event2(&b, 0, MERO_EV_SEPARATOR, "zz"); /* measured at MR index 0 */
    rc |= event2(&b, 1, MERO_EV_SEPARATOR, "s");
    rc |= pad(&b, 0xFF, 100);
    rc |= mero_buf_append_u8(&b, 0x42);
    rc |= pad(&b, 0xFF, 10);
    CHECK_OK(rc);
    struct mero_eventlog log;
    CHECK_OK(mero_eventlog_parse(&log, b.data, b.len, NULL));
    CHECK_EQ(log.n_events, 2);
    CHECK_EQ(log.n_notes, 2);
    CHECK_EQ(log.notes[0].kind, MERO_EVENTLOG_NOTE_MEASURED_AT_MR0);
    CHECK_EQ(log.notes[0].seq, 1);
    CHECK_EQ(log.notes[1].kind, MERO_EVENTLOG_NOTE_TRAILING_DATA);
    CHECK_EQ(log.notes[1].offset, log.end_offset + 100);
    uint8_t want[4][48] = {{0}}, got[4][48];
    extend(want[0], "s"); /* the MR-index-0 record is not replayed */
    mero_eventlog_replay(&log, got);
    CHECK_MEM_EQ(got, want, sizeof(want));
    mero_eventlog_cleanup(&log);
    mero_buf_cleanup(&b);
}

TEST(two_banks_use_the_sha384_digest)
{
    /* Spec ID with SHA-1 and SHA-384 banks; records list them in either order */
    struct mero_buf b;
    static const uint8_t zero20[20];
    uint8_t d1[20] = {1}, d384[48];
    int rc = 0;
    mero_buf_init(&b, 4096);
    rc |= mero_buf_append_u32le(&b, 1);
    rc |= mero_buf_append_u32le(&b, MERO_EV_NO_ACTION);
    rc |= mero_buf_append(&b, zero20, 20);
    rc |= mero_buf_append_u32le(&b, 37);
    rc |= mero_buf_append(&b, "Spec ID Event03", 16);
    rc |= mero_buf_append_u32le(&b, 0);
    rc |= mero_buf_append(&b, "\x00\x02\x00\x02", 4);
    rc |= mero_buf_append_u32le(&b, 2);
    rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA1) | mero_buf_append_u16le(&b, 20);
    rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA384) | mero_buf_append_u16le(&b, 48);
    rc |= mero_buf_append_u8(&b, 0);
    mero_sha384(d384, "x", 1);
    for (int order = 0; order < 2; order++) {
        rc |= mero_buf_append_u32le(&b, 1) | mero_buf_append_u32le(&b, MERO_EV_SEPARATOR);
        rc |= mero_buf_append_u32le(&b, 2);
        if (order == 0) {
            rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA1) | mero_buf_append(&b, d1, 20);
        }
        rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA384) | mero_buf_append(&b, d384, 48);
        if (order == 1) {
            rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA1) | mero_buf_append(&b, d1, 20);
        }
        rc |= mero_buf_append_u32le(&b, 1) | mero_buf_append(&b, "x", 1);
    }
    CHECK_OK(rc);
    struct mero_eventlog log;
    struct mero_err e = {0};
    CHECK_OK(mero_eventlog_parse(&log, b.data, b.len, &e));
    CHECK_EQ(log.n_algs, 2);
    CHECK_EQ(log.n_events, 2);
    CHECK_MEM_EQ(log.events[0].sha384, d384, 48);
    CHECK_MEM_EQ(log.events[1].sha384, d384, 48);
    CHECK_EQ(log.n_notes, 1); /* the second separator in MR index 1 */
    uint8_t want[4][48] = {{0}}, got[4][48];
    extend(want[0], "x");
    extend(want[0], "x");
    mero_eventlog_replay(&log, got);
    CHECK_MEM_EQ(got, want, sizeof(want));
    mero_eventlog_cleanup(&log);
    /* a record with only the SHA-1 digest has nothing to replay: refused */
    size_t r3 = b.len;
    rc |= mero_buf_append_u32le(&b, 1) | mero_buf_append_u32le(&b, MERO_EV_SEPARATOR);
    rc |= mero_buf_append_u32le(&b, 1);
    rc |= mero_buf_append_u16le(&b, MERO_TPM_ALG_SHA1) | mero_buf_append(&b, d1, 20);
    rc |= mero_buf_append_u32le(&b, 1) | mero_buf_append(&b, "x", 1);
    CHECK_OK(rc);
    CHECK_ERR(mero_eventlog_parse(&log, b.data, b.len, &e), -MERO_EEVENTLOG);
    char want_msg[64];
    snprintf(want_msg, sizeof(want_msg), "record at offset %zu: no SHA-384 digest", r3);
    CHECK_MSG(strstr(e.msg, want_msg) != NULL, "%s", e.msg);
    mero_buf_cleanup(&b);
}

/* ---------------------------------------------------------------- malformed logs */

TEST(every_truncation_fails_or_stops_at_a_record)
{
    size_t n;
    uint8_t *d = mero_test_read(CCEL "dstack-ccel-sample/ccel_data.bin", 1, &n);
    CHECK(d != NULL);
    struct mero_eventlog full;
    CHECK_OK(mero_eventlog_parse(&full, d, n, NULL));
    size_t k = 0; /* index of the next record boundary */
    for (size_t cut = 1; cut < full.end_offset; cut++) {
        uint8_t *p = malloc(cut);
        CHECK(p != NULL);
        memcpy(p, d, cut);
        struct mero_eventlog log;
        struct mero_err e = {0};
        int rc = mero_eventlog_parse(&log, p, cut, &e);
        while (k < full.n_events && full.events[k].offset < cut) {
            k++;
        }
        bool boundary = (k < full.n_events && full.events[k].offset == cut) ||
                        (k == 0 && cut == full.events[0].offset);
        free(p);
        if (boundary) {
            CHECK_MSG(rc == 0, "cut at %zu (a record boundary) fails: %s", cut, e.msg);
            CHECK_EQ(log.n_events, k);
            CHECK_EQ(log.padding, MERO_EVENTLOG_PAD_NONE);
            mero_eventlog_cleanup(&log);
        } else {
            CHECK_MSG(rc == -MERO_EEVENTLOG, "cut at %zu: rc %d", cut, rc);
            CHECK_MSG(strstr(e.msg, "offset") != NULL, "cut at %zu: %s", cut, e.msg);
        }
    }
    mero_eventlog_cleanup(&full);
    free(d);
}

static int parse_mutated(const uint8_t *base, size_t n, size_t at, const void *bytes, size_t bl,
                         struct mero_err *e)
{
    uint8_t *p = malloc(n);
    struct mero_eventlog log;
    if (p == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(p, base, n);
    memcpy(p + at, bytes, bl);
    int rc = mero_eventlog_parse(&log, p, n, e);
    if (rc == 0) {
        mero_eventlog_cleanup(&log);
    }
    free(p);
    return rc;
}

TEST(overlong_and_invalid_fields_are_refused)
{
    struct mero_buf b;
    mero_buf_init(&b, 1 << 16);
    int rc = spec_id(&b, 1, 0, NULL);
    size_t r1 = b.len;
    rc |= event2(&b, 1, 0x80000001, "first");
    size_t r2 = b.len;
    rc |= event2(&b, 2, 0x80000007, "second");
    rc |= pad(&b, 0xFF, 64);
    CHECK_OK(rc);
    struct mero_err e = {0};
    CHECK_OK(parse_mutated(b.data, b.len, 0, "\x01", 1, &e));
    const uint8_t huge[4] = {0xF0, 0xFF, 0xFF, 0xFF};
    const uint8_t two[4] = {2, 0, 0, 0};
    const uint8_t five[4] = {5, 0, 0, 0};
    const uint8_t zero4[4] = {0, 0, 0, 0};
    const uint8_t sha256[2] = {0x0B, 0x00};
    char want[64];
    /* event size of record 1 runs past the end */
    CHECK_ERR(parse_mutated(b.data, b.len, r1 + 62, huge, 4, &e), -MERO_EEVENTLOG);
    snprintf(want, sizeof(want), "record at offset %zu", r1);
    CHECK_MSG(strstr(e.msg, want) != NULL && strstr(e.msg, "past the end"), "%s", e.msg);
    /* event size one byte too long: record 2's header is misread, then it runs out */
    const uint8_t six[4] = {6, 0, 0, 0};
    CHECK_ERR(parse_mutated(b.data, b.len, r1 + 62, six, 4, &e), -MERO_EEVENTLOG);
    /* digest count larger than the banks, zero digests, an algorithm not in the Spec ID */
    CHECK_ERR(parse_mutated(b.data, b.len, r2 + 8, two, 4, &e), -MERO_EEVENTLOG);
    snprintf(want, sizeof(want), "record at offset %zu", r2);
    CHECK_MSG(strstr(e.msg, want) != NULL, "%s", e.msg);
    CHECK_ERR(parse_mutated(b.data, b.len, r2 + 8, zero4, 4, &e), -MERO_EEVENTLOG);
    CHECK_ERR(parse_mutated(b.data, b.len, r2 + 12, sha256, 2, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "not in the Spec ID") != NULL);
    /* MR index out of range */
    CHECK_ERR(parse_mutated(b.data, b.len, r2, five, 4, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "MR index") != NULL);
    /* Spec ID: not EV_NO_ACTION, bad signature, bad version, no SHA-384, size past the end */
    CHECK_ERR(parse_mutated(b.data, b.len, 4, five, 4, &e), -MERO_EEVENTLOG);
    CHECK_ERR(parse_mutated(b.data, b.len, 32, "Spec ID Event02", 15, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "signature") != NULL);
    CHECK_ERR(parse_mutated(b.data, b.len, 32 + 21, "\x01", 1, &e), -MERO_EEVENTLOG);
    CHECK_ERR(parse_mutated(b.data, b.len, 32 + 28, sha256, 2, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "digest size") != NULL); /* SHA-256 with 48 bytes */
    const uint8_t sha256_32[4] = {0x0B, 0x00, 32, 0};
    CHECK_ERR(parse_mutated(b.data, b.len, 32 + 28, sha256_32, 4, &e), -MERO_EEVENTLOG);
    CHECK(strstr(e.msg, "SHA-384") != NULL);
    CHECK_ERR(parse_mutated(b.data, b.len, 28, huge, 4, &e), -MERO_EEVENTLOG);
    CHECK_ERR(parse_mutated(b.data, b.len, 32 + 24, huge, 4, &e), -MERO_EEVENTLOG); /* algs */
    const uint8_t vendor[1] = {200};
    CHECK_ERR(parse_mutated(b.data, b.len, 32 + 32, vendor, 1, &e), -MERO_EEVENTLOG);
    /* nothing, or only padding */
    struct mero_eventlog log;
    CHECK_ERR(mero_eventlog_parse(&log, b.data, 0, &e), -MERO_EEVENTLOG);
    CHECK_ERR(mero_eventlog_parse(&log, b.data, 20, &e), -MERO_EEVENTLOG);
    mero_buf_cleanup(&b);
}

/* ---------------------------------------------------------------- display */

TEST(type_names_and_descriptions)
{
    CHECK_STR_EQ(mero_event_type_name(3), "EV_NO_ACTION");
    CHECK_STR_EQ(mero_event_type_name(0x800000E0), "EV_EFI_VARIABLE_AUTHORITY");
    CHECK(mero_event_type_name(0x12345678) == NULL);
    CHECK_STR_EQ(mero_tpm_alg_name(MERO_TPM_ALG_SHA384), "sha384");
    struct loaded l;
    CHECK_OK(load(&l, CCEL "gce-cos113-tdx-with-quote/ccel_data.bin"));
    char d[128];
    CHECK(mero_event_describe(&l.log.events[1], d, sizeof(d)));
    CHECK_STR_EQ(d, "Fv(48DB5E17-707C-472D-91CD-1613E7EF51B0)");
    CHECK(mero_event_describe(&l.log.events[2], d, sizeof(d)));
    CHECK_STR_EQ(d, "variable SecureBoot");
    CHECK(mero_event_describe(&l.log.events[7], d, sizeof(d)));
    CHECK_STR_EQ(d, "separator");
    CHECK(mero_event_describe(&l.log.events[14], d, sizeof(d)));
    CHECK_STR_EQ(d, "Calling EFI Application from Boot Option");
    CHECK(mero_event_describe(&l.log.events[18], d, sizeof(d)));
    CHECK_STR_EQ(d, "MokList");
    CHECK(!mero_event_describe(&l.log.events[16], d, sizeof(d))); /* GPT: binary */
    unload(&l);
}

/* ---------------------------------------------------------------- the local reader */

TEST(read_local_uses_override_and_reports_absence)
{
    char dir[] = "/tmp/mero-ccel-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char data_path[128], table_path[128], missing[128];
    snprintf(data_path, sizeof(data_path), "%s/data", dir);
    snprintf(table_path, sizeof(table_path), "%s/table", dir);
    snprintf(missing, sizeof(missing), "%s/none", dir);
    size_t n, tn;
    uint8_t *src = mero_test_read(CCEL "gce-cos113-tdx-with-quote/ccel_data.bin", 1, &n);
    uint8_t *tbl = mero_test_read(CCEL "gce-cos113-tdx-with-quote/ccel_table.bin", 1, &tn);
    CHECK(src != NULL && tbl != NULL);
    FILE *f = fopen(data_path, "wb");
    CHECK(f != NULL);
    CHECK_EQ(fwrite(src, 1, n, f), n);
    fclose(f);
    f = fopen(table_path, "wb");
    CHECK(f != NULL);
    CHECK_EQ(fwrite(tbl, 1, tn, f), tn);
    fclose(f);

    uint8_t *got = NULL;
    size_t gl = 0;
    struct mero_err e = {0};
    mero_ccel_set_paths(data_path, table_path);
    CHECK_OK(mero_ccel_read_local(&got, &gl, &e));
    CHECK_EQ(gl, n);
    CHECK_MEM_EQ(got, src, n);
    free(got);
    struct mero_ccel_table t;
    CHECK_OK(mero_ccel_read_local_table(&t, &e));
    CHECK_U64_EQ(t.laml, 0x40000);

    /* absent -> ENOTFOUND, outputs untouched */
    got = (uint8_t *)"untouched";
    mero_ccel_set_paths(missing, missing);
    CHECK_ERR(mero_ccel_read_local(&got, &gl, &e), -MERO_ENOTFOUND);
    CHECK(strcmp((const char *)got, "untouched") == 0);
    CHECK_ERR(mero_ccel_read_local_table(&t, &e), -MERO_ENOTFOUND);

    /* the environment, when no setter path is set */
    mero_ccel_set_paths(NULL, NULL);
    setenv("MERO_CCEL_PATH", data_path, 1);
    setenv("MERO_CCEL_TABLE_PATH", data_path, 1); /* a 256 KiB file is no table */
    got = NULL;
    CHECK_OK(mero_ccel_read_local(&got, &gl, &e));
    CHECK_EQ(gl, n);
    free(got);
    CHECK_ERR(mero_ccel_read_local_table(&t, &e), -MERO_EEVENTLOG);
    setenv("MERO_CCEL_PATH", missing, 1);
    CHECK_ERR(mero_ccel_read_local(&got, &gl, &e), -MERO_ENOTFOUND);
    /* empty file -> ENOTFOUND */
    f = fopen(missing, "wb");
    CHECK(f != NULL);
    fclose(f);
    CHECK_ERR(mero_ccel_read_local(&got, &gl, &e), -MERO_ENOTFOUND);
    unsetenv("MERO_CCEL_PATH");
    unsetenv("MERO_CCEL_TABLE_PATH");
    unlink(missing);
    unlink(data_path);
    unlink(table_path);
    rmdir(dir);
    free(src);
    free(tbl);
}

MERO_TEST_MAIN(T(table_parses_real_tables), T(table_refuses_malformed),
               T(every_case_replays_to_expected_registers), T(quote_case_matches_its_quote),
               T(wrong_register_is_reported_as_mismatch),
               T(prefix_match_names_the_first_extra_record), T(dstack_records_match_snapshot),
               T(trustee_records_match_parsed_view), T(duplicate_separator_is_reported),
               T(diff_case_gives_expected_difference), T(diff_identical_and_padding_only),
               T(diff_aligns_inserted_and_removed_records),
               T(td_shim_log_with_zero_padding_and_mr0_records),
               T(notes_for_mr0_measurement_and_trailing_data), T(two_banks_use_the_sha384_digest),
               T(every_truncation_fails_or_stops_at_a_record),
               T(overlong_and_invalid_fields_are_refused), T(type_names_and_descriptions),
               T(read_local_uses_override_and_reports_absence))
