/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_log.c - issue 36 (docs/audit.md): an audit log's ops checked one by one (decode, the
 * hash the log names them by, signature, namespace), re-folded into a private temporary store
 * through gov's own apply path, and drawn as one timeline per TEE. The checks of each quote on
 * a timeline are audit_check.c's.
 *
 * Invariant: every outcome on a timeline is the re-fold's, never the exporter's word; an op
 * whose claimed outcome differs from the re-fold's is a finding (an encrypted op the re-fold
 * cannot open, and what it defers, is counted as sealed instead: no key travels offline). An
 * encrypted op whose plaintext the exporter disclosed is applied from it through the store's
 * sealed_plaintext hook (this temporary store only) and is marked disclosed: never authenticated.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gov/audit_internal.h"
#include "mero/audit.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"

static const char *const kind_names[MERO_AUDIT_KINDS] = {
    "admitted", "refresh", "converted", "removed", "left", "due", "lapsed", "refused"};

const char *mero_audit_kind_name(int kind)
{
    return kind >= 0 && kind < MERO_AUDIT_KINDS ? kind_names[kind] : NULL;
}

int mero_audit_kind_parse(const char *s)
{
    for (int i = 0; s != NULL && i < MERO_AUDIT_KINDS; i++) {
        if (strcmp(s, kind_names[i]) == 0) {
            return i;
        }
    }
    return MERO_AUDIT_KIND_NONE;
}

void mero_audit_log_init(struct mero_audit_log *log)
{
    memset(log, 0, sizeof(*log));
}

void mero_audit_log_cleanup(struct mero_audit_log *log)
{
    for (size_t i = 0; i < log->nops; i++) {
        free(log->ops[i].bytes);
        if (log->ops[i].plain != NULL) {
            mero_wipe(log->ops[i].plain, log->ops[i].plain_len);
            free(log->ops[i].plain);
        }
        if (log->ops[i].decoded) {
            mero_op_cleanup(&log->ops[i].op);
        }
    }
    free(log->ops);
    for (size_t i = 0; i < log->ntees; i++) {
        free(log->tees[i].ev);
    }
    free(log->tees);
    mero__audit_releases_cleanup(log);
    mero_audit_log_init(log);
}

int mero_audit_add_op(struct mero_audit_log *log, const uint8_t hash[MERO_OP_ID_LEN],
                      const uint8_t *bytes, size_t len, int claimed, const char *file)
{
    if (log->nops >= MERO_AUDIT_MAX_OPS || len > MERO_AUDIT_MAX_FILE) {
        return -MERO_ETOOBIG;
    }
    if ((log->nops & (log->nops - 1)) == 0) {
        size_t cap = log->nops == 0 ? 16 : log->nops * 2;
        struct mero_audit_op *n = realloc(log->ops, cap * sizeof(*n));
        if (n == NULL) {
            return -MERO_ENOMEM;
        }
        log->ops = n;
    }
    struct mero_audit_op *o = &log->ops[log->nops];
    memset(o, 0, sizeof(*o));
    o->bytes = malloc(len > 0 ? len : 1);
    if (o->bytes == NULL) {
        return -MERO_ENOMEM;
    }
    memcpy(o->bytes, bytes, len);
    o->len = len;
    memcpy(o->hash, hash, MERO_OP_ID_LEN);
    o->claimed = claimed;
    o->state = MERO_AUDIT_NOT_STORED;
    if (file != NULL && file[0] != '\0') {
        snprintf(o->file, sizeof(o->file), "%s", file);
    } else {
        char hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
        mero_hex_encode(hex, hash, MERO_OP_ID_LEN);
        snprintf(o->file, sizeof(o->file), "ops/%s.bin", hex);
    }
    log->nops++;
    return 0;
}

int mero_audit_add_plaintext(struct mero_audit_log *log, const uint8_t hash[MERO_OP_ID_LEN],
                             const uint8_t *plain, size_t len)
{
    if (len > MERO_AUDIT_MAX_FILE) {
        return -MERO_ETOOBIG;
    }
    for (size_t i = 0; i < log->nops; i++) {
        struct mero_audit_op *o = &log->ops[i];
        if (memcmp(o->hash, hash, MERO_OP_ID_LEN) != 0) {
            continue;
        }
        uint8_t *p = malloc(len > 0 ? len : 1);
        if (p == NULL) {
            return -MERO_ENOMEM;
        }
        memcpy(p, plain, len);
        free(o->plain);
        o->plain = p;
        o->plain_len = len;
        return 0;
    }
    return -MERO_ENOTFOUND;
}

/* The re-fold's hook: the plaintext disclosed for an encrypted op. */
static int disclosed_plain(void *ud, const uint8_t hash[MERO_OP_ID_LEN], const uint8_t **plain,
                           size_t *len)
{
    const struct mero_audit_log *log = ud;
    for (size_t i = 0; i < log->nops; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        if (o->plain != NULL && memcmp(o->hash, hash, MERO_OP_ID_LEN) == 0) {
            *plain = o->plain;
            *len = o->plain_len;
            return 0;
        }
    }
    return -MERO_ENOTFOUND;
}

/*
 * Each encrypted op the re-fold applied from a disclosed plaintext: from here on it is the
 * plaintext's decoded op (a subgroup admission on its TEE's timeline), marked disclosed.
 */
static int open_disclosed(struct mero_audit_log *log, struct mero_audit_findings *f)
{
    char hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
    for (size_t i = 0; i < log->nops; i++) {
        struct mero_audit_op *o = &log->ops[i];
        struct mero_op inner;
        struct mero_err e = {0};
        if (o->plain == NULL) {
            continue;
        }
        mero_hex_encode(hex, o->hash, sizeof(o->hash));
        if (!o->decoded || o->op.scope != MERO_SCOPE_GROUP_ENCRYPTED) {
            MERO_TRY(mero_audit_finding(f, "sealed/%s.bin: its op is not an encrypted op", hex));
            continue;
        }
        if (mero_op_open_plain(&o->op, o->plain, o->plain_len, &inner, &e) < 0) {
            MERO_TRY(mero_audit_finding(f, "sealed/%s.bin: not the plaintext of its op: %s", hex,
                                        e.msg));
            continue;
        }
        mero_op_cleanup(&o->op);
        o->op = inner;
        o->disclosed = true;
    }
    return 0;
}

void mero_audit_findings_cleanup(struct mero_audit_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i]);
    }
    free(f->v);
    f->v = NULL;
    f->n = 0;
}

int mero_audit_finding(struct mero_audit_findings *f, const char *fmt, ...)
{
    char line[2 * MERO_AUDIT_MSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    char **n = realloc(f->v, (f->n + 1) * sizeof(*n));
    if (n == NULL) {
        return -MERO_ENOMEM;
    }
    f->v = n;
    f->v[f->n] = strdup(line);
    if (f->v[f->n] == NULL) {
        return -MERO_ENOMEM;
    }
    f->n++;
    return 0;
}

static const char *state_name(int s)
{
    return s == MERO_OP_EFFECTIVE  ? "effective"
           : s == MERO_OP_REJECTED ? "rejected"
           : s == MERO_OP_DEFERRED ? "deferred"
                                   : "not stored";
}

/* Decode, hash, signature, namespace: the op's own checks. */
static int check_op(struct mero_audit_log *log, struct mero_audit_op *o,
                    struct mero_audit_findings *f)
{
    struct mero_err e = {0};
    uint8_t h[MERO_OP_ID_LEN];
    if (mero_op_decode(o->bytes, o->len, &o->op, &e) < 0) {
        return mero_audit_finding(f, "%s: does not decode as a signed op: %s", o->file, e.msg);
    }
    o->decoded = true;
    if (mero_op_hash(&o->op, h) < 0 || !mero_ct_eq(h, o->hash, sizeof(h))) {
        char hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
        mero_hex_encode(hex, h, sizeof(h));
        return mero_audit_finding(f, "%s: its bytes hash to %s, not to the hash the log names",
                                  o->file, hex);
    }
    if (mero_op_verify(&o->op, &e) < 0) {
        return mero_audit_finding(f, "%s: the signature does not verify: %s", o->file, e.msg);
    }
    if (memcmp(o->op.ns, log->ns, MERO_NS_ID_LEN) != 0) {
        return mero_audit_finding(f, "%s: belongs to another namespace", o->file);
    }
    if (o->op.scope == MERO_SCOPE_GROUP && o->op.kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE &&
        o->op.evidence.has_collateral) {
        o->has_quote = true;
        mero_sha256(o->quote_hash, o->op.evidence.quote, o->op.evidence.quote_len);
    }
    return 1;
}

/* A private store in a fresh folder under $TMPDIR. */
static int temp_store(char dir[], size_t cap, struct mero_store **s, struct mero_err *err)
{
    const char *t = getenv("TMPDIR");
    char path[MERO_AUDIT_TMP_PATH + 16];
    snprintf(dir, cap, "%.900s/mero-audit-XXXXXX", t != NULL && t[0] != '\0' ? t : "/tmp");
    if (mkdtemp(dir) == NULL) {
        return mero_err_set(err, MERO_EIO, "cannot make a temporary folder under %s: %s",
                            t != NULL ? t : "/tmp", strerror(errno));
    }
    snprintf(path, sizeof(path), "%s/audit.db", dir);
    return mero_store_open(path, s, err);
}

static void temp_remove(const char *dir)
{
    static const char *const names[] = {"audit.db", "audit.db-wal", "audit.db-shm",
                                        "audit.db-journal"};
    char path[MERO_AUDIT_TMP_PATH + 32]; /* not a length */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Apply every op that passed its own checks; then read each one's outcome. */
static int refold(struct mero_audit_log *log, struct mero_store *s, const bool *ok,
                  struct mero_audit_findings *f)
{
    char hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
    MERO_TRY(mero_store_begin(s));
    for (size_t i = 0; i < log->nops; i++) {
        struct mero_audit_op *o = &log->ops[i];
        int status = 0;
        uint8_t missing[MERO_OP_ID_LEN];
        struct mero_err e = {0};
        if (!ok[i]) {
            continue;
        }
        int rc = mero_gov_apply(s, o->bytes, o->len, &status, NULL, missing, &e);
        if (rc == -MERO_EMISSINGPARENT) {
            mero_hex_encode(hex, missing, sizeof(missing));
            MERO_TRY(mero_audit_finding(f,
                                        "%s: its parent %s is not in the export (its place "
                                        "in the hash-linked log cannot be shown)",
                                        o->file, hex));
        } else if (rc == -MERO_ENOMEM) {
            mero_store_rollback(s);
            return rc;
        }
    }
    MERO_TRY(mero_store_commit(s));
    for (size_t i = 0; i < log->nops; i++) {
        struct mero_audit_op *o = &log->ops[i];
        int st = 0;
        if (!ok[i]) {
            continue;
        }
        int rc = mero_gov_op_state(s, o->hash, &st, o->reason, sizeof(o->reason));
        o->state = rc == 0 ? st : MERO_AUDIT_NOT_STORED;
        if (o->state == MERO_OP_DEFERRED) {
            log->sealed++;
        } else if (o->claimed != o->state && o->claimed != MERO_AUDIT_UNCLAIMED) {
            mero_hex_encode(hex, o->hash, sizeof(o->hash));
            MERO_TRY(mero_audit_finding(
                f,
                "%s%s%s%s: the exporter reported it %s, the re-fold finds "
                "it %s%s%s",
                o->file, o->plain != NULL ? " (applied from the disclosed sealed/" : "",
                o->plain != NULL ? hex : "", o->plain != NULL ? ".bin)" : "",
                state_name(o->claimed), state_name(o->state), o->reason[0] != '\0' ? ": " : "",
                o->reason));
        }
    }
    return 0;
}

int mero_audit_build(struct mero_audit_log *log, struct mero_audit_findings *f,
                     struct mero_err *err)
{
    char dir[MERO_AUDIT_TMP_PATH];
    struct mero_store *s = NULL;
    int rc = 0;
    bool *ok = calloc(log->nops > 0 ? log->nops : 1, sizeof(*ok));
    MERO_ENSURE(ok != NULL, err, MERO_ENOMEM, "out of memory");
    for (size_t i = 0; i < log->nops; i++) {
        rc = check_op(log, &log->ops[i], f);
        if (rc < 0) {
            free(ok);
            return rc;
        }
        ok[i] = rc == 1;
    }
    rc = temp_store(dir, sizeof(dir), &s, err);
    if (rc < 0) {
        free(ok);
        return rc;
    }
    struct mero_gov_hooks hooks = {.ud = log, .sealed_plaintext = disclosed_plain};
    mero_store_set_hooks(s, &hooks);
    MERO_TRY_OUT(mero__audit_releases_verify(log, f));
    MERO_TRY_OUT(refold(log, s, ok, f));
    MERO_TRY_OUT(open_disclosed(log, f));
    MERO_TRY_OUT(mero__audit_timelines(log));
    MERO_TRY_OUT(mero__audit_check(log, s, f));
out:
    mero_store_close(s);
    temp_remove(dir);
    free(ok);
    if (rc < 0 && err->code == 0) {
        mero_err_set(err, -rc, "the audit could not run (%s)", mero_errdesc(-rc));
    }
    return rc;
}
