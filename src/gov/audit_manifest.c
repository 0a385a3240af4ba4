/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_manifest.c - issue 36 (docs/audit.md): manifest.json of an audit export, written from
 * a built log and read back as claims (the reader is fuzzed: tests/fuzz/fuzz_audit_manifest.c).
 *
 *   {"format": "mero.audit.v1", "namespaceId", "exportedAt",
 *    "evidence": {"refreshSeconds", "maxAgeSeconds"},
 *    "ops": [{"file", "hash", "outcome"}],                 in the log's order
 *    "quotes": [{"file", "sha256", "op"}], "collateral": [{"file", "op"}],
 *    "tees": [{"identity", "member", "events": [{"kind", "at", "atExact", "op", "group",
 *              "role", "policyOp", "quote", "collateral", "tcbStatus",
 *              "checks": {"dcap", "binding", "policy"}, "release", "profile"}]}], "sealedOps",
 *    "releases": [{"file", "sha256", "bundle", "bundleSha256", "sig", "sigSha256",
 *                  "verified", "tag", "signedAt", "reason"}],
 *    "sealed": [{"file", "op", "sha256", "applied"}]}      disclosed plaintexts of encrypted ops
 *
 * Invariant: the reader accepts file names only of the writer's forms (ops/<64 hex>.bin,
 * quotes/<64 hex>.bin, collateral/<64 hex>.json, releases/<64 hex>.json|.bundle.json|.sig,
 * sealed/<64 hex>.bin): nothing it names leaves the export folder.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gov/audit_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

static const char *const outcome_names[] = {"rejected", "effective", "deferred"};
static const char *const verdict_names[] = {"n/a", "ok", "fail", "mock"};

static json_t *hex(const uint8_t *id)
{
    char h[MERO_HEX_SIZE(MERO_SHA256_LEN)];
    mero__audit_hex(h, id);
    return json_string(h);
}

static json_t *op_ref(const struct mero_audit_log *log, size_t i)
{
    return i == MERO_AUDIT_NONE ? json_null() : hex(log->ops[i].hash);
}

static json_t *file_ref(const char *dir, const uint8_t *id, const char *ext)
{
    char h[MERO_HEX_SIZE(MERO_SHA256_LEN)], f[MERO_AUDIT_PATH_MAX];
    mero__audit_hex(h, id);
    snprintf(f, sizeof(f), "%s/%s.%s", dir, h, ext);
    return json_string(f);
}

/* A message as a JSON string; a verifier reason cut inside a UTF-8 sequence (or carrying
 * bytes that are not UTF-8) keeps its ASCII and shows '?' for the rest. */
static json_t *text(const char *s)
{
    json_t *j = json_string(s);
    if (j != NULL) {
        return j;
    }
    char t[2 * MERO_AUDIT_MSG_SIZE];
    size_t i = 0;
    for (; s[i] != '\0' && i + 1 < sizeof(t); i++) {
        t[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    }
    t[i] = '\0';
    return json_string(t);
}

static json_t *check_json(const struct mero_audit_check *c)
{
    return json_pack("{s:s, s:o}", "verdict", verdict_names[c->verdict & 3], "detail",
                     text(c->msg));
}

static json_t *event_json(const struct mero_audit_log *log, const struct mero_audit_event *e)
{
    json_t *o = json_pack("{s:s, s:I, s:b, s:o}", "kind", mero_audit_kind_name(e->kind), "at",
                          (json_int_t)e->at, "atExact", e->at_exact, "op", op_ref(log, e->op));
    if (o == NULL || e->op == MERO_AUDIT_NONE) {
        return o;
    }
    json_object_set_new(o, "group", hex(e->group));
    json_object_set_new(o, "role",
                        e->role >= 0 ? json_string(mero_role_name(e->role)) : json_null());
    if (e->kind == MERO_AUDIT_REMOVED || e->kind == MERO_AUDIT_LEFT) {
        return o;
    }
    uint8_t qh[MERO_SHA256_LEN];
    const struct mero_op *op = &log->ops[e->op].op;
    json_object_set_new(o, "policyOp", op_ref(log, e->policy_op));
    if (e->kind == MERO_AUDIT_REFUSED) {
        json_object_set_new(o, "refusal", text(log->ops[e->op].reason));
    }
    if (e->quote_op != MERO_AUDIT_NONE) {
        const struct mero_op *q = &log->ops[e->quote_op].op;
        bool ev = q->scope == MERO_SCOPE_GROUP && q->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
        mero_sha256(qh, ev ? q->evidence.quote : q->join.quote,
                    ev ? q->evidence.quote_len : q->join.quote_len);
        json_object_set_new(o, "quote", file_ref("quotes", qh, "bin"));
    } else {
        json_object_set_new(o, "quote", json_null());
    }
    json_object_set_new(o, "collateral",
                        e->coll_op != MERO_AUDIT_NONE
                            ? file_ref("collateral", log->ops[e->coll_op].hash, "json")
                            : json_null());
    (void)op;
    json_object_set_new(o, "tcbStatus", text(e->tcb_status));
    if (e->release != MERO_AUDIT_NONE) {
        char name[MERO_AUDIT_PATH_MAX];
        mero_audit_release_file(&log->rels[e->release], 0, name);
        json_object_set_new(o, "release", json_string(name));
        json_object_set_new(o, "profile", text(e->profile));
    }
    json_object_set_new(o, "checks",
                        json_pack("{s:o, s:o, s:o}", "dcap", check_json(&e->dcap), "binding",
                                  check_json(&e->binding), "policy", check_json(&e->policy)));
    return o;
}

/* Quotes and collateral files: one per distinct quote / evidence op carrying collateral. */
static int files_json(const struct mero_audit_log *log, json_t *quotes, json_t *coll)
{
    for (size_t i = 0; i < log->nops; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        const struct mero_op *op = &o->op;
        const uint8_t *q = NULL;
        size_t len = 0;
        if (!o->decoded) {
            continue;
        }
        bool ev = op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
        if (ev) {
            q = op->evidence.quote;
            len = op->evidence.quote_len;
            if (op->evidence.has_collateral) {
                json_array_append_new(coll, json_pack("{s:o, s:o}", "file",
                                                      file_ref("collateral", o->hash, "json"), "op",
                                                      hex(o->hash)));
            }
        } else if ((op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE) ||
                   (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_JOINED_TEE)) {
            q = op->join.quote;
            len = op->join.quote_len;
        }
        if (len == 0) {
            continue;
        }
        uint8_t qh[MERO_SHA256_LEN];
        mero_sha256(qh, q, len);
        json_t *f = file_ref("quotes", qh, "bin");
        bool dup = false;
        size_t k;
        json_t *x;
        json_array_foreach(quotes, k, x)
        {
            dup = dup || json_equal(json_object_get(x, "file"), f);
        }
        if (dup) {
            json_decref(f);
            continue;
        }
        json_array_append_new(
            quotes, json_pack("{s:o, s:o, s:o}", "file", f, "sha256", hex(qh), "op", hex(o->hash)));
    }
    return 0;
}

/* One entry per release: its three files with their SHA-256, and the offline verdict. */
static json_t *releases_json(const struct mero_audit_log *log)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < log->nrels; i++) {
        const struct mero_audit_release *r = &log->rels[i];
        const uint8_t *b[3] = {r->file, r->bundle, r->sig};
        size_t n[3] = {r->file_len, r->bundle_len, r->sig_len};
        static const char *const key[3] = {"file", "bundle", "sig"};
        static const char *const hkey[3] = {"sha256", "bundleSha256", "sigSha256"};
        json_t *o = json_object();
        for (int k = 0; o != NULL && k < 3; k++) {
            char name[MERO_AUDIT_PATH_MAX];
            uint8_t h[MERO_SHA256_LEN];
            if (b[k] == NULL) {
                continue;
            }
            mero_audit_release_file(r, k, name);
            mero_sha256(h, b[k], n[k]);
            json_object_set_new(o, key[k], json_string(name));
            json_object_set_new(o, hkey[k], hex(h));
        }
        if (o != NULL) {
            json_object_set_new(o, "verified", json_boolean(r->verified));
            json_object_set_new(o, "tag", r->rel != NULL ? text(r->rel->tag) : json_null());
            json_object_set_new(o, "signedAt", json_integer((json_int_t)r->signed_at));
            if (!r->verified) {
                json_object_set_new(o, "reason", text(r->reason));
            }
        }
        json_array_append_new(a, o);
    }
    return a;
}

int mero_audit_manifest(const struct mero_audit_log *log, char **out)
{
    json_t *ops = json_array(), *tees = json_array(), *quotes = json_array(), *coll = json_array();
    *out = NULL;
    for (size_t i = 0; ops != NULL && i < log->nops; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        json_array_append_new(
            ops, json_pack("{s:s, s:o, s:s}", "file", o->file, "hash", hex(o->hash), "outcome",
                           o->state >= 0 && o->state <= MERO_OP_DEFERRED ? outcome_names[o->state]
                                                                         : "not stored"));
    }
    for (size_t t = 0; tees != NULL && t < log->ntees; t++) {
        json_t *ev = json_array();
        for (size_t k = 0; ev != NULL && k < log->tees[t].nev; k++) {
            json_array_append_new(ev, event_json(log, &log->tees[t].ev[k]));
        }
        json_array_append_new(tees, json_pack("{s:o, s:b, s:o}", "identity", hex(log->tees[t].id),
                                              "member", log->tees[t].member, "events", ev));
    }
    if (quotes != NULL && coll != NULL) {
        files_json(log, quotes, coll);
    }
    json_t *m = json_pack("{s:s, s:o, s:I, s:{s:I, s:I}, s:o, s:o, s:o, s:o, s:I}", "format",
                          MERO_AUDIT_FORMAT, "namespaceId", hex(log->ns), "exportedAt",
                          (json_int_t)log->exported_at, "evidence", "refreshSeconds",
                          (json_int_t)MERO_GOV_EVIDENCE_REFRESH_SECS, "maxAgeSeconds",
                          (json_int_t)MERO_GOV_EVIDENCE_MAX_AGE_SECS, "ops", ops, "quotes", quotes,
                          "collateral", coll, "tees", tees, "sealedOps", (json_int_t)log->sealed);
    if (m == NULL) {
        return -MERO_ENOMEM;
    }
    json_object_set_new(m, "releases", releases_json(log));
    json_t *sealed = json_array();
    for (size_t i = 0; sealed != NULL && i < log->nops; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        uint8_t h[MERO_SHA256_LEN];
        if (o->plain == NULL) {
            continue;
        }
        mero_sha256(h, o->plain, o->plain_len);
        json_array_append_new(
            sealed, json_pack("{s:o, s:o, s:o, s:b}", "file", file_ref("sealed", o->hash, "bin"),
                              "op", hex(o->hash), "sha256", hex(h), "applied", o->disclosed));
    }
    json_object_set_new(m, "sealed", sealed);
    *out = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(m);
    return *out != NULL ? 0 : -MERO_ENOMEM;
}

/* ---- the reader ---- */

static int id_of(json_t *v, uint8_t out[MERO_SHA256_LEN])
{
    const char *s = json_string_value(v);
    return s != NULL && strlen(s) == 2 * MERO_SHA256_LEN &&
                   mero_hex_decode_exact(out, MERO_SHA256_LEN, s, strlen(s)) == 0
               ? 0
               : -MERO_EHEX;
}

/* "<dir>/<64 hex>.<ext>" only; the hex in *id. */
static int file_of(json_t *v, const char *dir, const char *ext, char out[MERO_AUDIT_PATH_MAX],
                   uint8_t id[MERO_SHA256_LEN])
{
    const char *s = json_string_value(v);
    size_t dl = strlen(dir), el = strlen(ext);
    if (s == NULL || strlen(s) != dl + 1 + 2 * MERO_SHA256_LEN + 1 + el ||
        strncmp(s, dir, dl) != 0 || s[dl] != '/' || s[dl + 1 + 2 * MERO_SHA256_LEN] != '.' ||
        strcmp(s + dl + 2 + 2 * MERO_SHA256_LEN, ext) != 0 ||
        mero_hex_decode_exact(id, MERO_SHA256_LEN, s + dl + 1, 2 * MERO_SHA256_LEN) < 0) {
        return -MERO_EINVAL;
    }
    snprintf(out, MERO_AUDIT_PATH_MAX, "%s", s);
    return 0;
}

static int files(json_t *arr, const char *dir, const char *ext, const char *idkey,
                 struct mero_audit_claim_file **out, size_t *n, size_t max, struct mero_err *err)
{
    size_t i;
    json_t *x;
    MERO_ENSURE(json_is_array(arr) && json_array_size(arr) <= max, err, MERO_EINVAL,
                "manifest.json: \"%s\" must be an array of at most %zu entries", dir, max);
    *out = calloc(json_array_size(arr) + 1, sizeof(**out));
    MERO_ENSURE(*out != NULL, err, MERO_ENOMEM, "out of memory");
    json_array_foreach(arr, i, x)
    {
        struct mero_audit_claim_file *c = &(*out)[i];
        uint8_t fid[MERO_SHA256_LEN];
        const char *oc = json_string_value(json_object_get(x, "outcome"));
        MERO_ENSURE(file_of(json_object_get(x, "file"), dir, ext, c->file, fid) == 0, err,
                    MERO_EINVAL, "manifest.json: %s entry %zu: \"file\" is not %s/<64 hex>.%s", dir,
                    i, dir, ext);
        MERO_ENSURE(idkey == NULL || id_of(json_object_get(x, idkey), c->sha256) == 0, err,
                    MERO_EINVAL, "manifest.json: %s entry %zu: \"%s\" is not 64 hex", dir, i,
                    idkey != NULL ? idkey : "");
        MERO_ENSURE(strcmp(dir, "ops") == 0 || id_of(json_object_get(x, "op"), c->op) == 0, err,
                    MERO_EINVAL, "manifest.json: %s entry %zu: \"op\" is not 64 hex", dir, i);
        c->claimed = MERO_AUDIT_UNCLAIMED;
        for (int k = 0; oc != NULL && k <= MERO_OP_DEFERRED; k++) {
            c->claimed = strcmp(oc, outcome_names[k]) == 0 ? k : c->claimed;
        }
        if (oc != NULL && strcmp(oc, "not stored") == 0) {
            c->claimed = MERO_AUDIT_NOT_STORED;
        }
        (*n)++;
    }
    return 0;
}

static int tees_of(json_t *arr, struct mero_audit_claims *c, struct mero_err *err)
{
    size_t i, k;
    json_t *x, *e;
    MERO_ENSURE(json_is_array(arr) && json_array_size(arr) <= MERO_AUDIT_MAX_OPS, err, MERO_EINVAL,
                "manifest.json: \"tees\" must be an array");
    c->tees = calloc(json_array_size(arr) + 1, sizeof(*c->tees));
    MERO_ENSURE(c->tees != NULL, err, MERO_ENOMEM, "out of memory");
    json_array_foreach(arr, i, x)
    {
        struct mero_audit_claim_tee *t = &c->tees[i];
        json_t *ev = json_object_get(x, "events");
        c->ntees++;
        MERO_ENSURE(id_of(json_object_get(x, "identity"), t->id) == 0, err, MERO_EINVAL,
                    "manifest.json: tee %zu: \"identity\" is not 64 hex", i);
        MERO_ENSURE(json_is_array(ev) && json_array_size(ev) <= MERO_AUDIT_MAX_EVENTS, err,
                    MERO_EINVAL, "manifest.json: tee %zu: \"events\" must be an array", i);
        t->ev = calloc(json_array_size(ev) + 1, sizeof(*t->ev));
        MERO_ENSURE(t->ev != NULL, err, MERO_ENOMEM, "out of memory");
        json_array_foreach(ev, k, e)
        {
            struct mero_audit_claim_event *ce = &t->ev[k];
            json_t *op = json_object_get(e, "op");
            ce->kind = mero_audit_kind_parse(json_string_value(json_object_get(e, "kind")));
            MERO_ENSURE(ce->kind >= 0, err, MERO_EINVAL,
                        "manifest.json: tee %zu event %zu: unknown \"kind\"", i, k);
            ce->has_op = !json_is_null(op) && op != NULL;
            MERO_ENSURE(!ce->has_op || id_of(op, ce->op) == 0, err, MERO_EINVAL,
                        "manifest.json: tee %zu event %zu: \"op\" is not 64 hex", i, k);
            t->nev++;
        }
    }
    return 0;
}

/* "releases": each entry's file names of the writer's forms, all three of the same SHA-256. */
static int releases_of(json_t *arr, struct mero_audit_claims *c, struct mero_err *err)
{
    static const char *const key[3] = {"file", "bundle", "sig"};
    static const char *const hkey[3] = {"sha256", "bundleSha256", "sigSha256"};
    static const char *const ext[3] = {"json", "bundle.json", "sig"};
    size_t i;
    json_t *x;
    if (arr == NULL) {
        return 0; /* an export written before releases were exported */
    }
    MERO_ENSURE(json_is_array(arr) && json_array_size(arr) <= MERO_AUDIT_MAX_RELEASES, err,
                MERO_EINVAL, "manifest.json: \"releases\" must be an array of at most %u entries",
                MERO_AUDIT_MAX_RELEASES);
    c->rels = calloc(json_array_size(arr) + 1, sizeof(*c->rels));
    MERO_ENSURE(c->rels != NULL, err, MERO_ENOMEM, "out of memory");
    json_array_foreach(arr, i, x)
    {
        struct mero_audit_claim_release *r = &c->rels[i];
        uint8_t id[3][MERO_SHA256_LEN];
        for (int k = 0; k < 3; k++) {
            json_t *f = json_object_get(x, key[k]);
            if (k == 2 && (f == NULL || json_is_null(f))) {
                continue; /* a release without a detached .sig */
            }
            MERO_ENSURE(file_of(f, "releases", ext[k], r->file[k], id[k]) == 0 &&
                            (k == 0 || memcmp(id[k], id[0], MERO_SHA256_LEN) == 0),
                        err, MERO_EINVAL,
                        "manifest.json: releases entry %zu: \"%s\" is not releases/<64 hex>.%s "
                        "of the release's file",
                        i, key[k], ext[k]);
            MERO_ENSURE(id_of(json_object_get(x, hkey[k]), r->sha256[k]) == 0, err, MERO_EINVAL,
                        "manifest.json: releases entry %zu: \"%s\" is not 64 hex", i, hkey[k]);
        }
        c->nrels++;
    }
    return 0;
}

void mero_audit_claims_cleanup(struct mero_audit_claims *c)
{
    free(c->rels);
    free(c->sealed);
    free(c->ops);
    free(c->quotes);
    free(c->coll);
    for (size_t i = 0; c->tees != NULL && i < c->ntees; i++) {
        free(c->tees[i].ev);
    }
    free(c->tees);
    memset(c, 0, sizeof(*c));
}

int mero_audit_claims_parse(const char *text, size_t len, struct mero_audit_claims *out,
                            struct mero_err *err)
{
    json_error_t je;
    int rc = 0;
    memset(out, 0, sizeof(*out));
    MERO_ENSURE(len <= MERO_AUDIT_MAX_MANIFEST, err, MERO_ETOOBIG,
                "manifest.json is larger than %u bytes", MERO_AUDIT_MAX_MANIFEST);
    json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    MERO_ENSURE(m != NULL, err, MERO_EINVAL, "manifest.json is not JSON: %s (line %d)", je.text,
                je.line);
    json_t *at = json_object_get(m, "exportedAt");
    const char *fmt = json_string_value(json_object_get(m, "format"));
    MERO_ENSURE_OUT(fmt != NULL && strcmp(fmt, MERO_AUDIT_FORMAT) == 0, err, MERO_EINVAL,
                    "manifest.json: not a %s manifest", MERO_AUDIT_FORMAT);
    MERO_ENSURE_OUT(id_of(json_object_get(m, "namespaceId"), out->ns) == 0, err, MERO_EINVAL,
                    "manifest.json: \"namespaceId\" is not 64 hex");
    MERO_ENSURE_OUT(json_is_integer(at) && json_integer_value(at) >= 0, err, MERO_EINVAL,
                    "manifest.json: \"exportedAt\" is not a unix time");
    out->exported_at = (uint64_t)json_integer_value(at);
    MERO_TRY_OUT(files(json_object_get(m, "ops"), "ops", "bin", "hash", &out->ops, &out->nops,
                       MERO_AUDIT_MAX_OPS, err));
    MERO_TRY_OUT(files(json_object_get(m, "quotes"), "quotes", "bin", "sha256", &out->quotes,
                       &out->nquotes, MERO_AUDIT_MAX_OPS, err));
    MERO_TRY_OUT(files(json_object_get(m, "collateral"), "collateral", "json", NULL, &out->coll,
                       &out->ncoll, MERO_AUDIT_MAX_OPS, err));
    MERO_TRY_OUT(tees_of(json_object_get(m, "tees"), out, err));
    MERO_TRY_OUT(releases_of(json_object_get(m, "releases"), out, err));
    if (json_object_get(m, "sealed") != NULL) { /* absent from exports made before it */
        MERO_TRY_OUT(files(json_object_get(m, "sealed"), "sealed", "bin", "sha256", &out->sealed,
                           &out->nsealed, MERO_AUDIT_MAX_OPS, err));
    }
out:
    json_decref(m);
    if (rc < 0) {
        mero_audit_claims_cleanup(out);
    }
    return rc;
}
