/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.h - issue 36 (docs/audit.md): the fleet audit of a namespace's op log, offline.
 *
 * An audit log is the namespace's signed ops (raw bytes, in the exporting node's apply order,
 * parents first). mero_audit_build decodes each one, checks its hash and signature, re-folds
 * them all into a private temporary store through gov's own apply path (so every op is judged
 * at its place in the canonical order by the same rules every peer runs, with the evidence
 * checked by mero_dcap_verify_evidence at its attested_at) and draws one timeline per TEE that
 * ever held a TEE row: admitted, each evidence refresh, due, lapsed, converted, removed.
 * mero_audit_check then judges every quote on it: DCAP against the collateral the log carries
 * for it (at its recorded time, with the verifier's reason), the binding to the credential the
 * op admitted, and the quote facts against the policy in force (the last effective policy op
 * before it in the log). Mock quotes are never verified: "mock: not hardware-backed".
 *
 * The export (a folder: manifest.json, ops/, quotes/, collateral/, report.html) is written by
 * mero_audit_write_dir and verified by mero_audit_verify_dir, which re-derives everything from
 * the files and names each file or claim that does not hold.
 *
 * Invariants: no network, no clock: "now" is the export's recorded time; everything read from
 * an export is bounded (MERO_AUDIT_*) and validated by content; a manifest's file names are
 * only the fixed forms the writer produces (no path leaves the folder).
 *
 * Thread safety: functions are safe on distinct objects; a verify uses a temporary store of
 * its own.
 */
#ifndef MERO_AUDIT_H
#define MERO_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/op.h"
#include "mero/release.h"
#include "mero/sizes.h"

#define MERO_AUDIT_FORMAT       "mero.audit.v1"
#define MERO_AUDIT_MAX_OPS      200000u                /* ops in one export */
#define MERO_AUDIT_MAX_MANIFEST (256u * 1024u * 1024u) /* bytes of manifest.json */
#define MERO_AUDIT_MAX_FILE     (1024u * 1024u) /* bytes of one op, quote or collateral file */
#define MERO_AUDIT_MAX_EVENTS   100000u         /* events of one TEE in a manifest */
#define MERO_AUDIT_PATH_MAX     96u             /* "collateral/<64 hex>.json", NUL included */
#define MERO_AUDIT_MSG_SIZE     MERO_ERR_MSG_MAX
#define MERO_AUDIT_NAME_MAX     MERO_RELEASE_NAME_MAX /* a release profile's name, NUL included */
#define MERO_AUDIT_MAX_RELEASES 64                    /* signed releases in one export */
#define MERO_AUDIT_MAX_RELEASE_ASSET                                                               \
    (256u * 1024u) /* bytes of a release's .bundle.json or .sig (its file: MERO_AUDIT_MAX_FILE) */

/* An op's outcome as the node claimed it / as the re-fold found it. */
enum {
    MERO_AUDIT_NOT_STORED = -1, /* refused without being kept, or never applied */
    MERO_AUDIT_UNCLAIMED = -2,  /* the exporter made no claim */
};

enum mero_audit_kind {
    MERO_AUDIT_ADMITTED = 0,
    MERO_AUDIT_REFRESH = 1,
    MERO_AUDIT_CONVERTED = 2,
    MERO_AUDIT_REMOVED = 3,
    MERO_AUDIT_LEFT = 4,
    MERO_AUDIT_DUE = 5,
    MERO_AUDIT_LAPSED = 6,
    MERO_AUDIT_REFUSED = 7, /* a TEE join or evidence op of a known TEE the log refused */
};
#define MERO_AUDIT_KINDS     8
#define MERO_AUDIT_KIND_NONE (-1)           /* mero_audit_kind_parse: no such kind */
const char *mero_audit_kind_name(int kind); /* "admitted", ..., "refused"; NULL when unknown */
int mero_audit_kind_parse(const char *s);   /* MERO_AUDIT_KIND_NONE when unknown */

/* The result of one check on an event. */
enum mero_audit_verdict {
    MERO_AUDIT_NA = 0, /* nothing to check here */
    MERO_AUDIT_OK = 1,
    MERO_AUDIT_FAIL = 2,
    MERO_AUDIT_MOCK = 3, /* "mock: not hardware-backed", never verified */
};

struct mero_audit_check {
    int verdict; /* enum mero_audit_verdict */
    char msg[MERO_AUDIT_MSG_SIZE];
};

struct mero_audit_op {
    uint8_t hash[MERO_OP_ID_LEN]; /* the hash the log names it by */
    uint8_t *bytes;               /* owned */
    size_t len;
    char file[MERO_AUDIT_PATH_MAX];
    bool decoded;
    struct mero_op op; /* when decoded */
    bool has_quote;    /* an evidence op carrying collateral: quote_hash = SHA-256(its quote) */
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN];
    int claimed; /* enum mero_op_state the exporter reported, MERO_AUDIT_NOT_STORED */
    int state;   /* enum mero_op_state of the re-fold, MERO_AUDIT_NOT_STORED */
    char reason[MERO_AUDIT_MSG_SIZE]; /* the re-fold's refusal */
    /* an encrypted op: the plaintext its exporter disclosed (sealed/<hash>.bin), owned */
    uint8_t *plain;
    size_t plain_len;
    bool disclosed; /* op is the plaintext's decoded op, applied unauthenticated */
};

#define MERO_AUDIT_NONE ((size_t)-1)

struct mero_audit_event {
    int kind;                         /* enum mero_audit_kind */
    size_t op;                        /* index into log->ops; MERO_AUDIT_NONE for due / lapsed */
    uint8_t group[MERO_GROUP_ID_LEN]; /* the group the op concerns */
    int role;                         /* the TEE role admitted (admitted / converted), else -1 */
    uint64_t at;                      /* unix seconds */
    bool at_exact;                    /* evidence's attested_at; otherwise estimated */
    size_t policy_op;                 /* admitted / converted / refresh: the policy in force */
    size_t quote_op;                  /* the op carrying the quote, MERO_AUDIT_NONE */
    size_t coll_op;                   /* the evidence op carrying its collateral */
    size_t release; /* release-form policy: the release matched, MERO_AUDIT_NONE */
    char profile[MERO_AUDIT_NAME_MAX]; /* ... and its profile's name */
    char tcb_status[MERO_GOV_MAX_STR + 1];
    struct mero_audit_check dcap, binding, policy;
};

struct mero_audit_tee {
    uint8_t id[MERO_IDENTITY_LEN];
    bool member; /* holds a TEE row at the end of the log */
    struct mero_audit_event *ev;
    size_t nev;
};

/*
 * A signed mero-tee release exported with the log (docs/audit.md "Signed releases"): its
 * published-mrtds.json, the Sigstore bundle and the detached .sig, named by the SHA-256 of the
 * file (releases/<sha>.json, releases/<sha>.bundle.json, releases/<sha>.sig).
 */
struct mero_audit_release {
    uint8_t sha256[MERO_SHA256_LEN]; /* of the file */
    uint8_t *file, *bundle, *sig;    /* owned; sig NULL when the release had none */
    size_t file_len, bundle_len, sig_len;
    bool verified;                    /* signature, node-release identity and the file's parse */
    struct mero_release *rel;         /* when verified */
    int64_t signed_at;                /* the Sigstore signing time, when verified */
    char reason[MERO_AUDIT_MSG_SIZE]; /* why not, otherwise */
};

struct mero_audit_log {
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t exported_at;
    struct mero_audit_op *ops;
    size_t nops;
    struct mero_audit_tee *tees;
    size_t ntees;
    size_t sealed; /* encrypted ops the re-fold could not open (no key offline) */
    struct mero_audit_release *rels;
    size_t nrels;
    /* the node's own view (no release files at hand): the release-form match is n/a, not a
     * failure; an export always checks it */
    bool no_release_files;
};

void mero_audit_log_init(struct mero_audit_log *log);
void mero_audit_log_cleanup(struct mero_audit_log *log);
/*
 * Add one op (bytes copied) with the outcome its exporter claims (enum mero_op_state or
 * MERO_AUDIT_NOT_STORED) and the file it came from ("" to name it ops/<hash>.bin).
 */
MERO_MUST_CHECK int mero_audit_add_op(struct mero_audit_log *log,
                                      const uint8_t hash[MERO_OP_ID_LEN], const uint8_t *bytes,
                                      size_t len, int claimed, const char *file);

/*
 * Add a signed release (bytes copied): published-mrtds.json, its .bundle.json and its .sig
 * (sig NULL / 0 when there is none). A release already added (same file) is not added twice.
 * -MERO_ETOOBIG past MERO_AUDIT_MAX_RELEASES or the size caps.
 */
MERO_MUST_CHECK int mero_audit_add_release(struct mero_audit_log *log, const uint8_t *file,
                                           size_t file_len, const uint8_t *bundle,
                                           size_t bundle_len, const uint8_t *sig, size_t sig_len);
/*
 * The plaintext of an encrypted op already added (bytes copied), as its exporter disclosed it
 * (mero_gov_sealed_plaintext): the re-fold applies the op from it, without authentication
 * (docs/audit.md "Sealed subgroup admissions"). -MERO_ENOTFOUND when no such op was added.
 */
MERO_MUST_CHECK int mero_audit_add_plaintext(struct mero_audit_log *log,
                                             const uint8_t hash[MERO_OP_ID_LEN],
                                             const uint8_t *plain, size_t len);
/* The file name of release r's part: part 0 the file (.json), 1 the bundle, 2 the .sig. */
void mero_audit_release_file(const struct mero_audit_release *r, int part,
                             char out[MERO_AUDIT_PATH_MAX]);

/* A problem found, naming the file or claim. */
struct mero_audit_findings {
    char **v;
    size_t n;
};
void mero_audit_findings_cleanup(struct mero_audit_findings *f);
MERO_MUST_CHECK int mero_audit_finding(struct mero_audit_findings *f, const char *fmt, ...)
    MERO_PRINTF(2, 3);

/*
 * Decode, hash-check, signature-check and re-fold every op (in a temporary store under
 * $TMPDIR, removed again), then draw the timelines and run every check. Each op that fails
 * its own checks, or whose re-fold outcome differs from the claimed one, is a finding; each
 * failed check on a timeline event is one too. Returns 0 (findings say whether all held) or a
 * negative error when the audit could not run at all.
 */
MERO_MUST_CHECK int mero_audit_build(struct mero_audit_log *log, struct mero_audit_findings *f,
                                     struct mero_err *err);

/*
 * The release-form policy check of one quote's registers, offline: the first exported release
 * that verified (mero_audit_build), is no older than the policy's min_release and has an
 * allowed profile matching m (mero_release_match). 0 with *rel (index into log->rels) and the
 * profile's name in profile[cap]; -MERO_ERELEASE_NOMATCH (or -MERO_ERELEASE when no release
 * is usable) with the reason otherwise. Pure: no network, no clock.
 */
MERO_MUST_CHECK int mero_audit_release_match(const struct mero_audit_log *log,
                                             const struct mero_tee_policy *p,
                                             const struct mero_release_meas *m, size_t *rel,
                                             char *profile, size_t cap, struct mero_err *err);

/* The manifest.json text of a built log (owned, free()). */
MERO_MUST_CHECK int mero_audit_manifest(const struct mero_audit_log *log, char **out);
/* The report.html of a built log (self-contained: inline CSS and SVG, no script, no URL). */
MERO_MUST_CHECK int mero_audit_html(const struct mero_audit_log *log, struct mero_buf *out);
/*
 * Write a built log as an export into dir (created when missing; it must be empty or hold a
 * previous export): ops/, quotes/, collateral/, manifest.json, report.html.
 */
MERO_MUST_CHECK int mero_audit_write_dir(const struct mero_audit_log *log, const char *dir,
                                         struct mero_err *err);

/*
 * The manifest reader (fuzzed): the claims of a manifest.json, bounded and validated (format,
 * ids as 64 hex, file names of the writer's forms only). -MERO_EINVAL with the reason.
 */
struct mero_audit_claim_event {
    int kind;
    bool has_op;
    uint8_t op[MERO_OP_ID_LEN];
};
struct mero_audit_claim_tee {
    uint8_t id[MERO_IDENTITY_LEN];
    struct mero_audit_claim_event *ev;
    size_t nev;
};
struct mero_audit_claim_file {
    char file[MERO_AUDIT_PATH_MAX];
    uint8_t sha256[MERO_SHA256_LEN]; /* quotes: the quote hash; ops: the op hash */
    uint8_t op[MERO_OP_ID_LEN];      /* quotes and collateral: the op that carries it */
    int claimed;                     /* ops: the exporter's outcome */
};
/* A release's three files as the manifest names them, with the SHA-256 it gives each. */
struct mero_audit_claim_release {
    char file[3][MERO_AUDIT_PATH_MAX]; /* .json, .bundle.json, .sig ("" when none) */
    uint8_t sha256[3][MERO_SHA256_LEN];
};
struct mero_audit_claims {
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t exported_at;
    struct mero_audit_claim_file *ops, *quotes, *coll, *sealed; /* sealed: sha256 and op */
    size_t nops, nquotes, ncoll, nsealed;
    struct mero_audit_claim_release *rels;
    size_t nrels;
    struct mero_audit_claim_tee *tees;
    size_t ntees;
};
MERO_MUST_CHECK int mero_audit_claims_parse(const char *json, size_t len,
                                            struct mero_audit_claims *out, struct mero_err *err);
void mero_audit_claims_cleanup(struct mero_audit_claims *c);

/*
 * Verify an export offline: read manifest.json and every file it names, rebuild the log from
 * the op files (mero_audit_build), and compare: each quote and collateral file with the op
 * that carries it, each TEE's claimed history with the rebuilt one, no TEE missing. *log is
 * the rebuilt log (clean it up); findings name each file or claim that does not hold. 0 when
 * the verification ran (findings empty = all holds), negative when the export is unreadable.
 */
MERO_MUST_CHECK int mero_audit_verify_dir(const char *dir, struct mero_audit_log *log,
                                          struct mero_audit_findings *f, struct mero_err *err);

#endif
