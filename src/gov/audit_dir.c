/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_dir.c - issue 36 (docs/audit.md): an audit export as a folder. Written: ops/<hash>.bin
 * (each signed op as stored), quotes/<sha256>.bin (each distinct quote an op carries),
 * collateral/<evidence op hash>.json (the collateral an evidence op carries), releases/<sha>.json
 * with its .bundle.json and .sig (the signed releases named by release-form policies),
 * manifest.json, report.html. Verified: the manifest read as claims (mero_audit_claims_parse),
 * every op file rebuilt into a log (mero_audit_build), then every quote and collateral file
 * compared with the bytes the op it names carries, and every TEE's claimed history with the rebuilt
 * one.
 *
 * Invariants: files are read with a size cap, by the fixed names the manifest reader allows;
 * each mismatch is a finding naming the file (or the TEE whose claimed history differs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gov/audit_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

static int write_file(const char *dir, const char *name, const void *p, size_t n,
                      struct mero_err *err)
{
    char path[MERO_AUDIT_TMP_PATH];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    MERO_ENSURE(f != NULL, err, MERO_EIO, "cannot write %s: %s", path, strerror(errno));
    size_t w = n > 0 ? fwrite(p, 1, n, f) : 0;
    int c = fclose(f);
    MERO_ENSURE(w == n && c == 0, err, MERO_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int make_dir(const char *dir, const char *sub, struct mero_err *err)
{
    char path[MERO_AUDIT_TMP_PATH];
    snprintf(path, sizeof(path), "%s%s%s", dir, sub[0] != '\0' ? "/" : "", sub);
    MERO_ENSURE(mkdir(path, 0755) == 0 || errno == EEXIST, err, MERO_EIO,
                "cannot make the folder %s: %s", path, strerror(errno));
    return 0;
}

int mero_audit_write_dir(const struct mero_audit_log *log, const char *dir, struct mero_err *err)
{
    char name[MERO_AUDIT_PATH_MAX], h[MERO_HEX_SIZE(MERO_SHA256_LEN)];
    static const char *const subs[] = {"", "ops", "quotes", "collateral", "releases", "sealed"};
    for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        MERO_TRY(make_dir(dir, subs[i], err));
    }
    for (size_t i = 0; i < log->nops; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        MERO_TRY(write_file(dir, o->file, o->bytes, o->len, err));
        if (o->plain != NULL) {
            mero__audit_hex(h, o->hash);
            snprintf(name, sizeof(name), "sealed/%s.bin", h);
            MERO_TRY(write_file(dir, name, o->plain, o->plain_len, err));
        }
        if (!o->decoded) {
            continue;
        }
        const struct mero_op *op = &o->op;
        const uint8_t *q = op->join.quote;
        size_t qlen = 0;
        if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE) {
            q = op->evidence.quote;
            qlen = op->evidence.quote_len;
            if (op->evidence.has_collateral) {
                mero__audit_hex(h, o->hash);
                snprintf(name, sizeof(name), "collateral/%s.json", h);
                MERO_TRY(write_file(dir, name, op->evidence.collateral, op->evidence.collateral_len,
                                    err));
            }
        } else if ((op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE) ||
                   (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_JOINED_TEE)) {
            qlen = op->join.quote_len;
        }
        if (qlen > 0) {
            uint8_t qh[MERO_SHA256_LEN];
            mero_sha256(qh, q, qlen);
            mero__audit_hex(h, qh);
            snprintf(name, sizeof(name), "quotes/%s.bin", h);
            MERO_TRY(write_file(dir, name, q, qlen, err));
        }
    }
    for (size_t i = 0; i < log->nrels; i++) {
        const struct mero_audit_release *r = &log->rels[i];
        const uint8_t *b[3] = {r->file, r->bundle, r->sig};
        size_t n[3] = {r->file_len, r->bundle_len, r->sig_len};
        for (int k = 0; k < 3; k++) {
            if (b[k] != NULL) {
                mero_audit_release_file(r, k, name);
                MERO_TRY(write_file(dir, name, b[k], n[k], err));
            }
        }
    }
    char *m = NULL;
    struct mero_buf html;
    MERO_ENSURE(mero_audit_manifest(log, &m) == 0, err, MERO_ENOMEM, "out of memory");
    int rc = write_file(dir, "manifest.json", m, strlen(m), err);
    free(m);
    MERO_TRY(rc);
    mero_buf_init(&html, MERO_AUDIT_MAX_MANIFEST);
    rc = mero_audit_html(log, &html);
    if (rc == 0) {
        rc = write_file(dir, "report.html", html.data, html.len, err);
    } else {
        mero_err_set(err, -rc, "cannot draw report.html (%s)", mero_errdesc(-rc));
    }
    mero_buf_cleanup(&html);
    return rc;
}

/* A whole file of at most max bytes; -MERO_ENOTFOUND when absent. */
static int read_file(const char *dir, const char *name, size_t max, uint8_t **out, size_t *n,
                     struct mero_err *err)
{
    char path[MERO_AUDIT_TMP_PATH];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    *out = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return mero_err_set(err, errno == ENOENT ? MERO_ENOTFOUND : MERO_EIO, "%s: %s", name,
                            strerror(errno));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        return mero_err_set(err, MERO_EINVAL, "%s: not a regular file of at most %zu bytes", name,
                            max);
    }
    uint8_t *b = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (b != NULL && got < (size_t)st.st_size) {
        ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (b == NULL || got != (size_t)st.st_size) {
        free(b);
        return mero_err_set(err, MERO_EIO, "%s: cannot read it", name);
    }
    b[got] = 0;
    *out = b;
    *n = got;
    return 0;
}

static size_t op_index(const struct mero_audit_log *log, const uint8_t h[MERO_OP_ID_LEN])
{
    for (size_t i = 0; i < log->nops; i++) {
        if (memcmp(log->ops[i].hash, h, MERO_OP_ID_LEN) == 0) {
            return i;
        }
    }
    return MERO_AUDIT_NONE;
}

/* Each quote / collateral file equals what the op it names carries. */
static int compare_files(const char *dir, const struct mero_audit_log *log,
                         const struct mero_audit_claims *c, struct mero_audit_findings *f)
{
    for (size_t i = 0; i < c->nquotes + c->ncoll; i++) {
        bool quote = i < c->nquotes;
        const struct mero_audit_claim_file *cf = quote ? &c->quotes[i] : &c->coll[i - c->nquotes];
        uint8_t *b = NULL, h[MERO_SHA256_LEN];
        size_t n = 0;
        struct mero_err e = {0};
        if (read_file(dir, cf->file, MERO_AUDIT_MAX_FILE, &b, &n, &e) < 0) {
            MERO_TRY(mero_audit_finding(f, "%s", e.msg));
            continue;
        }
        size_t k = op_index(log, cf->op);
        const struct mero_op *op =
            k != MERO_AUDIT_NONE && log->ops[k].decoded ? &log->ops[k].op : NULL;
        bool ev = op != NULL && op->scope == MERO_SCOPE_GROUP &&
                  op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
        const uint8_t *want = NULL;
        size_t wl = 0;
        if (op != NULL && quote) {
            want = ev ? op->evidence.quote : op->join.quote;
            wl = ev ? op->evidence.quote_len : op->join.quote_len;
        } else if (ev && op->evidence.has_collateral) {
            want = op->evidence.collateral;
            wl = op->evidence.collateral_len;
        }
        mero_sha256(h, b, n);
        if (want == NULL) {
            MERO_TRY(mero_audit_finding(f, "%s: names an op that carries no such %s", cf->file,
                                        quote ? "quote" : "collateral"));
        } else if (wl != n || memcmp(want, b, n) != 0) {
            MERO_TRY(mero_audit_finding(f, "%s: differs from the %s the signed op carries",
                                        cf->file, quote ? "quote" : "collateral"));
        } else if (quote && memcmp(h, cf->sha256, sizeof(h)) != 0) {
            MERO_TRY(mero_audit_finding(f, "%s: its SHA-256 is not the one the manifest names",
                                        cf->file));
        }
        free(b);
    }
    return 0;
}

/*
 * Each release the manifest names: its files read, each one's SHA-256 the manifest's (the
 * file's is also its name), then added to the log, which verifies its signature offline. A
 * release with a file that does not match is a finding naming that file and is not used.
 */
static int read_releases(const char *dir, const struct mero_audit_claims *c,
                         struct mero_audit_log *log, struct mero_audit_findings *f)
{
    for (size_t i = 0; i < c->nrels; i++) {
        const struct mero_audit_claim_release *cr = &c->rels[i];
        uint8_t *b[3] = {NULL, NULL, NULL}, h[MERO_SHA256_LEN], id[MERO_SHA256_LEN];
        size_t n[3] = {0, 0, 0};
        bool good = true;
        int rc = 0;
        for (int k = 0; k < 3; k++) {
            struct mero_err e = {0};
            size_t max = k == 0 ? MERO_AUDIT_MAX_FILE : MERO_AUDIT_MAX_RELEASE_ASSET;
            if (cr->file[k][0] == '\0') {
                continue;
            }
            if (read_file(dir, cr->file[k], max, &b[k], &n[k], &e) < 0) {
                good = false;
                rc = rc < 0 ? rc : mero_audit_finding(f, "%s", e.msg);
                continue;
            }
            mero_sha256(h, b[k], n[k]);
            if (memcmp(h, cr->sha256[k], sizeof(h)) != 0) {
                good = false;
                rc = rc < 0 ? rc
                            : mero_audit_finding(f,
                                                 "%s: its SHA-256 is not the one the manifest "
                                                 "names (the signed release file was altered)",
                                                 cr->file[k]);
            } else if (k == 0 &&
                       (mero_hex_decode_exact(id, sizeof(id), cr->file[0] + strlen("releases/"),
                                              2 * MERO_SHA256_LEN) < 0 ||
                        memcmp(id, h, sizeof(h)) != 0)) {
                good = false;
                rc = rc < 0 ? rc
                            : mero_audit_finding(f, "%s: its SHA-256 is not the one its name gives",
                                                 cr->file[0]);
            }
        }
        if (good && rc == 0) {
            rc = mero_audit_add_release(log, b[0], n[0], b[1], n[1], b[2], n[2]);
        }
        for (int k = 0; k < 3; k++) {
            free(b[k]);
        }
        MERO_TRY(rc);
    }
    return 0;
}

/*
 * Each disclosed plaintext the manifest names: its SHA-256 the manifest's, its name its op's;
 * then handed to the log, whose re-fold applies the op from it (unauthenticated: no key).
 */
static int read_sealed(const char *dir, const struct mero_audit_claims *c,
                       struct mero_audit_log *log, struct mero_audit_findings *f)
{
    for (size_t i = 0; i < c->nsealed; i++) {
        const struct mero_audit_claim_file *cs = &c->sealed[i];
        uint8_t *b = NULL, h[MERO_SHA256_LEN], id[MERO_SHA256_LEN];
        size_t n = 0;
        struct mero_err e = {0};
        if (read_file(dir, cs->file, MERO_AUDIT_MAX_FILE, &b, &n, &e) < 0) {
            MERO_TRY(mero_audit_finding(f, "%s", e.msg));
            continue;
        }
        mero_sha256(h, b, n);
        int rc = 0;
        if (memcmp(h, cs->sha256, sizeof(h)) != 0) {
            rc = mero_audit_finding(f, "%s: its SHA-256 is not the one the manifest names",
                                    cs->file);
        } else if (mero_hex_decode_exact(id, sizeof(id), cs->file + strlen("sealed/"),
                                         2 * MERO_SHA256_LEN) < 0 ||
                   memcmp(id, cs->op, sizeof(id)) != 0) {
            rc = mero_audit_finding(f, "%s: named for another op than the one it discloses",
                                    cs->file);
        } else {
            rc = mero_audit_add_plaintext(log, cs->op, b, n);
            rc = rc == -MERO_ENOTFOUND
                     ? mero_audit_finding(f, "%s: discloses an op the export does not hold",
                                          cs->file)
                     : rc;
        }
        free(b);
        MERO_TRY(rc);
    }
    return 0;
}

/* Each TEE's claimed history is the rebuilt one, and no TEE is left out. */
static int compare_tees(const struct mero_audit_log *log, const struct mero_audit_claims *c,
                        struct mero_audit_findings *f)
{
    char id[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    for (size_t t = 0; t < log->ntees; t++) {
        const struct mero_audit_tee *tee = &log->tees[t];
        const struct mero_audit_claim_tee *ct = NULL;
        mero__audit_hex(id, tee->id);
        for (size_t k = 0; k < c->ntees; k++) {
            ct = memcmp(c->tees[k].id, tee->id, MERO_IDENTITY_LEN) == 0 ? &c->tees[k] : ct;
        }
        if (ct == NULL) {
            MERO_TRY(
                mero_audit_finding(f, "manifest.json: TEE %s is in the log but not listed", id));
            continue;
        }
        bool same = ct->nev == tee->nev;
        for (size_t k = 0; same && k < tee->nev; k++) {
            const struct mero_audit_event *e = &tee->ev[k];
            same = ct->ev[k].kind == e->kind && ct->ev[k].has_op == (e->op != MERO_AUDIT_NONE) &&
                   (e->op == MERO_AUDIT_NONE ||
                    memcmp(ct->ev[k].op, log->ops[e->op].hash, MERO_OP_ID_LEN) == 0);
        }
        if (!same) {
            MERO_TRY(mero_audit_finding(f,
                                        "manifest.json: the history claimed for TEE %s is not "
                                        "the one its ops show",
                                        id));
        }
    }
    for (size_t k = 0; k < c->ntees; k++) {
        bool known = false;
        for (size_t t = 0; t < log->ntees; t++) {
            known = known || memcmp(c->tees[k].id, log->tees[t].id, MERO_IDENTITY_LEN) == 0;
        }
        if (!known) {
            mero__audit_hex(id, c->tees[k].id);
            MERO_TRY(mero_audit_finding(f,
                                        "manifest.json: TEE %s is listed but no op of the log "
                                        "admitted it",
                                        id));
        }
    }
    return 0;
}

int mero_audit_verify_dir(const char *dir, struct mero_audit_log *log,
                          struct mero_audit_findings *f, struct mero_err *err)
{
    uint8_t *text = NULL;
    size_t n = 0;
    struct mero_audit_claims c;
    int rc = 0;
    mero_audit_log_init(log);
    MERO_TRY(read_file(dir, "manifest.json", MERO_AUDIT_MAX_MANIFEST, &text, &n, err));
    rc = mero_audit_claims_parse((const char *)text, n, &c, err);
    free(text);
    MERO_TRY(rc);
    memcpy(log->ns, c.ns, sizeof(log->ns));
    log->exported_at = c.exported_at;
    for (size_t i = 0; i < c.nops; i++) {
        uint8_t *b = NULL, fid[MERO_SHA256_LEN];
        size_t bl = 0;
        struct mero_err e = {0};
        MERO_TRY_OUT(
            mero_hex_decode_exact(fid, sizeof(fid), c.ops[i].file + 4, 2 * MERO_SHA256_LEN));
        if (memcmp(fid, c.ops[i].sha256, sizeof(fid)) != 0) {
            MERO_TRY_OUT(
                mero_audit_finding(f, "%s: the manifest names it by another hash", c.ops[i].file));
        }
        if (read_file(dir, c.ops[i].file, MERO_AUDIT_MAX_FILE, &b, &bl, &e) < 0) {
            MERO_TRY_OUT(mero_audit_finding(f, "%s", e.msg));
            continue;
        }
        rc = mero_audit_add_op(log, c.ops[i].sha256, b, bl, c.ops[i].claimed, c.ops[i].file);
        free(b);
        MERO_TRY_OUT(rc);
    }
    MERO_TRY_OUT(read_releases(dir, &c, log, f));
    MERO_TRY_OUT(read_sealed(dir, &c, log, f));
    MERO_TRY_OUT(mero_audit_build(log, f, err));
    MERO_TRY_OUT(compare_files(dir, log, &c, f));
    MERO_TRY_OUT(compare_tees(log, &c, f));
out:
    mero_audit_claims_cleanup(&c);
    return rc;
}
