/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog.h - the TD event log: the 56-byte ACPI CCEL table, the crypto-agile TCG event log
 * in the log area behind it (Spec ID event, then TCG_PCR_EVENT2 records), RTMR replay, the
 * comparison with a quote's RTMR0-3, the diff of two logs, and reading the local CCEL of a TD.
 * Formats: reference-sigstore-ccel.md §C. Design notes: docs/eventlog.md.
 *
 * Invariants: every length in the log is checked against what remains (and against the
 * protocol maxima below) before use; a malformed log fails with -MERO_EEVENTLOG and a reason
 * naming the byte offset. The log is unauthenticated: only a replay that matches a verified
 * quote's registers makes its records trustworthy. Pointers in struct mero_event borrow from
 * the input buffer given to mero_eventlog_parse and live as long as it does.
 *
 * Thread safety: parsing, replay, check, diff, describe and the name functions are safe
 * from any thread on distinct results (a parsed log may be read by many threads at once);
 * mero_ccel_read_local / mero_ccel_read_local_table are safe from any thread;
 * mero_ccel_set_paths is NOT safe (start-up only).
 */
#ifndef MERO_EVENTLOG_H
#define MERO_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_CCEL_TABLE_LEN 56
/* Largest log area accepted (real ones are 64 KiB or 256 KiB). */
#define MERO_EVENTLOG_MAX_LEN (16u << 20)
/* Most records accepted in one log (real logs have tens). */
#define MERO_EVENTLOG_MAX_EVENTS 65536u
/* Most algorithms in the Spec ID event's digest sizes table. */
#define MERO_EVENTLOG_MAX_ALGS 8u

#define MERO_TPM_ALG_SHA1    0x0004u
#define MERO_TPM_ALG_SHA256  0x000Bu
#define MERO_TPM_ALG_SHA384  0x000Cu
#define MERO_TPM_ALG_SHA512  0x000Du
#define MERO_TPM_ALG_SM3_256 0x0012u

/* Event types (TCG PC Client PFP; full names in mero_event_type_name). */
#define MERO_EV_POST_CODE                     0x00000001u
#define MERO_EV_NO_ACTION                     0x00000003u
#define MERO_EV_SEPARATOR                     0x00000004u
#define MERO_EV_EVENT_TAG                     0x00000006u
#define MERO_EV_IPL                           0x0000000Du
#define MERO_EV_EFI_BOOT_SERVICES_APPLICATION 0x80000003u

/* ---------------------------------------------------------------- ACPI CCEL table (§C.1) */

#define MERO_CC_TYPE_SEV 1
#define MERO_CC_TYPE_TDX 2

struct mero_ccel_table {
    uint32_t length;  /* 56 */
    uint8_t revision; /* 1 on real tables */
    uint8_t checksum; /* the byte at offset 9; all 56 bytes sum to 0 mod 256 */
    char oem_id[7];   /* NUL-terminated copies */
    char oem_table_id[9];
    uint32_t oem_revision;
    char creator_id[5];
    uint32_t creator_revision;
    uint8_t cc_type; /* 1 SEV, 2 TDX */
    uint8_t cc_subtype;
    uint64_t laml; /* log area minimum length */
    uint64_t lasa; /* log area start address (guest-physical) */
};

/*
 * Parse the 56-byte CCEL table. Refuses a wrong signature, a length field other than 56 or
 * other than `len`, a bad checksum, CC type 0 or > 2 and a LAML of 0 or above
 * MERO_EVENTLOG_MAX_LEN. `t` is written only on success.
 */
MERO_MUST_CHECK int mero_ccel_table_parse(struct mero_ccel_table *t, const uint8_t *data,
                                          size_t len, struct mero_err *err);

/* ---------------------------------------------------------------- the event log (§C.3) */

struct mero_event {
    uint32_t seq;      /* 1-based, counting records after the Spec ID event */
    size_t offset;     /* byte offset of the record header in the log */
    size_t length;     /* bytes of the whole record */
    uint32_t mr_index; /* CC MR index: 0 MRTD (skip-only), 1..4 RTMR0..3 */
    uint32_t type;
    uint8_t sha384[MERO_RTMR_LEN];
    const uint8_t *data; /* borrowed, data_len bytes */
    size_t data_len;
};

enum mero_eventlog_padding {
    MERO_EVENTLOG_PAD_NONE = 0, /* records end exactly at the end of the buffer */
    MERO_EVENTLOG_PAD_FF = 1,   /* TDVF */
    MERO_EVENTLOG_PAD_00 = 2,   /* td-shim */
};

/* Things a parsable log does that a semantic check should flag (the replay is unaffected). */
enum mero_eventlog_note_kind {
    /* an EV_SEPARATOR in an MR index that already had one (UEFI bug; go-eventlog refuses) */
    MERO_EVENTLOG_NOTE_DUP_SEPARATOR = 1,
    /* a record other than EV_NO_ACTION at MR index 0: MRTD cannot be extended, not replayed */
    MERO_EVENTLOG_NOTE_MEASURED_AT_MR0 = 2,
    /* a non-padding byte after the padding started (bytes after the log end are ignored) */
    MERO_EVENTLOG_NOTE_TRAILING_DATA = 3,
};

#define MERO_EVENTLOG_MAX_NOTES 16

struct mero_eventlog_note {
    enum mero_eventlog_note_kind kind;
    uint32_t seq;  /* the record concerned (0 for TRAILING_DATA) */
    size_t offset; /* its offset, or the offset of the first trailing byte */
    uint32_t mr_index;
};

struct mero_eventlog_alg {
    uint16_t id;
    uint16_t size;
};

struct mero_eventlog {
    /* Spec ID event (TCG_EfiSpecIDEvent in a legacy TCG_PCR_EVENT) */
    uint32_t spec_mr_index; /* 1 in TDVF logs, 0 in td-shim logs */
    uint32_t platform_class;
    uint8_t spec_version_major, spec_version_minor, spec_errata, uintn_size;
    uint32_t n_algs;
    struct mero_eventlog_alg algs[MERO_EVENTLOG_MAX_ALGS];
    uint8_t vendor_info_len;
    /* the records after the Spec ID event, EV_NO_ACTION included */
    struct mero_event *events; /* owned */
    size_t n_events;
    size_t end_offset; /* where the records end (padding, if any, starts here) */
    size_t input_len;
    enum mero_eventlog_padding padding;
    struct mero_eventlog_note notes[MERO_EVENTLOG_MAX_NOTES];
    size_t n_notes;     /* notes kept (at most MERO_EVENTLOG_MAX_NOTES) */
    size_t notes_total; /* notes seen */
};

/*
 * Parse a CCEL log area (what /sys/firmware/acpi/tables/data/CCEL holds) of at most
 * MERO_EVENTLOG_MAX_LEN bytes. Stops cleanly at the end of the buffer, or where the next
 * 8-byte record header is all 0xFF or all 0x00 (padding), or where fewer than 8 bytes remain
 * that are all padding. Every record must carry a SHA-384 digest. A larger input is
 * -MERO_ETOOBIG, anything malformed -MERO_EEVENTLOG. On success `log` owns its
 * event array (free with mero_eventlog_cleanup) and borrows `data`; on failure `log` is
 * untouched and `err` names the offset.
 */
MERO_MUST_CHECK int mero_eventlog_parse(struct mero_eventlog *log, const uint8_t *data, size_t len,
                                        struct mero_err *err);
/* Free the event array; safe on a zeroed struct and twice. */
void mero_eventlog_cleanup(struct mero_eventlog *log);

/* The RTMR (0..3) a record extends, or MERO_EVENT_NO_RTMR (-1: not an error code, an index
 * that names no register) when it extends none (EV_NO_ACTION, MR index 0). */
#define MERO_EVENT_NO_RTMR (-1)
int mero_event_rtmr(const struct mero_event *e);

/* ---------------------------------------------------------------- replay and check (§C.5) */

/* Replay all records: RTMRs start at 48 zero bytes, each record extends SHA-384(old || digest). */
void mero_eventlog_replay(const struct mero_eventlog *log,
                          uint8_t rtmr[MERO_RTMR_COUNT][MERO_RTMR_LEN]);

/*
 * Result of comparing a replay with expected registers (a quote's RTMR0-3), per register.
 *
 * When a register mismatches, `first_unexplained` names the first record of that register
 * that the expected value does not account for: let e1..en be the register's records in log
 * order and v_k the running value after e1..ek (v_0 = zero). If some prefix matches
 * (v_k == expected for k < n, largest such k), the quote accounts for e1..ek and e_{k+1} is
 * the first unexplained record (the log holds records the quote's register does not).
 * If no prefix matches, nothing in the register is accounted for and e1 is the first
 * unexplained record; when n == 0 there is none (first_unexplained == 0) and the register
 * holds extensions that are not in the log at all (e.g. RTMR3 extended at run time).
 */
struct mero_eventlog_reg_check {
    bool match;
    uint8_t replayed[MERO_RTMR_LEN];
    uint8_t expected[MERO_RTMR_LEN];
    size_t n_events;            /* records that extend this register */
    long matched_prefix;        /* the k above, or -1 when no prefix matches */
    uint32_t first_unexplained; /* seq of the first unexplained record, 0 if none */
    size_t first_unexplained_offset;
};

struct mero_eventlog_check {
    bool all_match;
    struct mero_eventlog_reg_check reg[MERO_RTMR_COUNT];
};

/* Replay and compare with `expected` (RTMR0..3). Never fails: the answer is in `out`. */
void mero_eventlog_check(const struct mero_eventlog *log,
                         const uint8_t expected[MERO_RTMR_COUNT][MERO_RTMR_LEN],
                         struct mero_eventlog_check *out);

/* ---------------------------------------------------------------- diff (§C.7) */

enum mero_eventlog_delta_kind {
    MERO_DELTA_CHANGED = 1, /* aligned records whose (MR index, type, digest) differ */
    MERO_DELTA_ONLY_A = 2,  /* a record of A with no counterpart in B */
    MERO_DELTA_ONLY_B = 3,  /* a record of B with no counterpart in A */
    MERO_DELTA_DATA = 4,    /* same (MR index, type, digest), different event data */
};

/* Fields that differ in a CHANGED or DATA delta. */
#define MERO_DELTA_F_MR_INDEX 0x1u
#define MERO_DELTA_F_TYPE     0x2u
#define MERO_DELTA_F_DIGEST   0x4u
#define MERO_DELTA_F_DATA     0x8u

struct mero_eventlog_delta {
    enum mero_eventlog_delta_kind kind;
    unsigned fields;            /* MERO_DELTA_F_* */
    const struct mero_event *a; /* NULL for ONLY_B */
    const struct mero_event *b; /* NULL for ONLY_A */
    bool measured;              /* it changes what at least one register is extended with */
};

struct mero_eventlog_diff {
    struct mero_eventlog_delta *deltas; /* owned, in log order */
    size_t n_deltas;
    /* per register: index into deltas of the first measured delta touching it, or -1 */
    long first[MERO_RTMR_COUNT];
    bool regs_differ[MERO_RTMR_COUNT]; /* the two replays give different values */
    uint8_t rtmr_a[MERO_RTMR_COUNT][MERO_RTMR_LEN];
    uint8_t rtmr_b[MERO_RTMR_COUNT][MERO_RTMR_LEN];
};

/*
 * Align the two logs' records on (MR index, type, SHA-384 digest) (longest common
 * subsequence after stripping the common prefix and suffix; a middle needing more than 2^22
 * table cells, about 2048 x 2048 records, is refused with -MERO_ETOOBIG) and list the
 * differences. Unmatched runs
 * between two aligned records are paired position by position as CHANGED, the rest are
 * ONLY_A / ONLY_B. `out` borrows the logs' events; free with mero_eventlog_diff_cleanup.
 */
MERO_MUST_CHECK int mero_eventlog_diff(const struct mero_eventlog *a, const struct mero_eventlog *b,
                                       struct mero_eventlog_diff *out, struct mero_err *err);
void mero_eventlog_diff_cleanup(struct mero_eventlog_diff *d);

/* ---------------------------------------------------------------- display */

/* "EV_SEPARATOR", "EV_EFI_BOOT_SERVICES_APPLICATION", ...; NULL for an unknown type. */
const char *mero_event_type_name(uint32_t type);
/* "sha384" etc.; NULL for an unknown algorithm. */
const char *mero_tpm_alg_name(uint16_t alg);
/*
 * A short printable description of the event data, when it has one: the text of EV_IPL,
 * EV_EFI_ACTION and similar events (trailing NULs dropped), the description of firmware
 * blob and handoff table records, the variable name of EV_EFI_VARIABLE_* records, the load
 * address of image records. Non-printable bytes become '.'. Writes a NUL-terminated string
 * of at most cap-1 bytes (cap >= 1); returns true when the data was rendered as text.
 */
bool mero_event_describe(const struct mero_event *e, char *out, size_t cap);

/* ---------------------------------------------------------------- the local TD (§C.2) */

#define MERO_CCEL_DATA_PATH  "/sys/firmware/acpi/tables/data/CCEL"
#define MERO_CCEL_TABLE_PATH "/sys/firmware/acpi/tables/CCEL"

/*
 * Override where mero_ccel_read_local / mero_ccel_read_local_table read from (tests; NULL
 * restores the default). The setter wins over the environment (MERO_CCEL_PATH,
 * MERO_CCEL_TABLE_PATH), which wins over the sysfs paths above. Not thread-safe: call at
 * start-up. The strings are borrowed and must outlive the reads.
 */
void mero_ccel_set_paths(const char *data_path, const char *table_path);

/*
 * Read the TD's CCEL log area (raw bytes, padding included). *data is owned (free with
 * free()). -MERO_ENOTFOUND when the file is absent or empty (no TD, or a kernel before 6.4),
 * -MERO_EPERM when not readable (root-only), -MERO_ETOOBIG above MERO_EVENTLOG_MAX_LEN,
 * -MERO_EIO otherwise. Outputs are written only on success. The bytes are not validated:
 * call mero_eventlog_parse before trusting them.
 */
MERO_MUST_CHECK int mero_ccel_read_local(uint8_t **data, size_t *len, struct mero_err *err);
/* Read and parse the local CCEL table; errors as above, plus those of mero_ccel_table_parse. */
MERO_MUST_CHECK int mero_ccel_read_local_table(struct mero_ccel_table *t, struct mero_err *err);

#endif
