/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_audit.c - issue 36 (docs/audit.md):
 *   `meroctl fleet audit NS --out DIR`  reads the namespace's whole signed op log from the node
 *       (GET /admin-api/namespaces/NS/ops, page by page), re-verifies it here (mero_audit_build)
 *       and writes the export: ops/, quotes/, collateral/, manifest.json, report.html;
 *   `meroctl audit verify DIR`  offline (no node, no network): re-derives everything from the
 *       files (mero_audit_verify_dir) and prints one row per TEE event with its checks (--json:
 *       the rebuilt manifest with "ok" and "failures"). Exit 0 when all holds, 2 naming each
 *       file or claim that does not.
 *
 * Invariant: verify never opens a socket; export writes what the node handed over byte for
 * byte (the hashes an auditor recomputes are the log's own).
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"
#include "meroctl_internal.h"
#include "mero/audit.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"

#define AUDIT_URL_MAX  200
#define AUDIT_PATH_MAX 4096 /* a release folder or file path, NUL included */

static int fetch_ops(const struct meroctl_global *g, const char *ns, bool disclose,
                     struct mero_audit_log *log)
{
    json_int_t after = 0;
    for (;;) {
        char path[AUDIT_URL_MAX];
        json_t *d = NULL, *op;
        size_t i;
        snprintf(path, sizeof(path), "/admin-api/namespaces/%s/ops?after=%lld%s", ns,
                 (long long)after, disclose ? "&disclose=sealed" : "");
        int rc = meroctl_call(g, "GET", path, NULL, true, &d);
        if (rc != MEROCTL_OK) {
            return rc;
        }
        json_array_foreach(json_object_get(d, "ops"), i, op)
        {
            const char *h = json_string_value(json_object_get(op, "hash"));
            const char *b = json_string_value(json_object_get(op, "bytes"));
            const char *oc = json_string_value(json_object_get(op, "outcome"));
            uint8_t hash[MERO_OP_ID_LEN], *bytes = NULL;
            size_t n = 0;
            int claimed = oc == NULL                     ? MERO_AUDIT_UNCLAIMED
                          : strcmp(oc, "effective") == 0 ? MERO_OP_EFFECTIVE
                          : strcmp(oc, "deferred") == 0  ? MERO_OP_DEFERRED
                                                         : MERO_OP_REJECTED;
            if (h == NULL || b == NULL ||
                mero_hex_decode_exact(hash, sizeof(hash), h, strlen(h)) < 0 ||
                mero_base64_decode_alloc(b, strlen(b), MERO_GOV_MAX_OP_BYTES, &bytes, &n) < 0) {
                json_decref(d);
                return meroctl_fail(MEROCTL_FAILED, "the node's op list is malformed");
            }
            rc = mero_audit_add_op(log, hash, bytes, n, claimed, NULL);
            free(bytes);
            const char *pt = json_string_value(json_object_get(op, "plaintext"));
            if (rc == 0 && pt != NULL) {
                uint8_t *plain = NULL;
                size_t pl = 0;
                rc = mero_base64_decode_alloc(pt, strlen(pt), MERO_GOV_MAX_OP_BYTES, &plain, &pl);
                if (rc == 0) {
                    rc = mero_audit_add_plaintext(log, hash, plain, pl);
                    mero_wipe(plain, pl);
                }
                free(plain);
            }
            if (rc < 0) {
                json_decref(d);
                return meroctl_fail(MEROCTL_FAILED, "the op log is too large to export");
            }
        }
        json_t *next = json_object_get(d, "next");
        bool more = json_is_integer(next);
        after = more ? json_integer_value(next) : 0;
        json_decref(d);
        if (!more) {
            return MEROCTL_OK;
        }
    }
}

/* A whole small file; NULL (and *n 0) when absent or larger than max. */
static uint8_t *slurp(const char *path, size_t max, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *b = NULL;
    *n = 0;
    if (fp == NULL) {
        return NULL;
    }
    b = malloc(max + 1);
    size_t got = b != NULL ? fread(b, 1, max + 1, fp) : 0;
    fclose(fp);
    if (b == NULL || got > max || got == 0) {
        free(b);
        return NULL;
    }
    *n = got;
    return b;
}

/*
 * --releases DIR: every published-mrtds.json (with its .bundle.json, and .sig when present) in
 * DIR or in a folder right under it (the layout of the release assets as downloaded, one folder
 * per release). Each is exported as it is; the build verifies it like the auditor will.
 */
static int add_release_at(struct mero_audit_log *log, const char *d, int *found)
{
    char p[AUDIT_PATH_MAX];
    size_t fl = 0, bl = 0, sl = 0;
    snprintf(p, sizeof(p), "%s/published-mrtds.json", d);
    uint8_t *file = slurp(p, MERO_AUDIT_MAX_FILE, &fl);
    snprintf(p, sizeof(p), "%s/published-mrtds.json.bundle.json", d);
    uint8_t *bundle = file != NULL ? slurp(p, MERO_AUDIT_MAX_RELEASE_ASSET, &bl) : NULL;
    snprintf(p, sizeof(p), "%s/published-mrtds.json.sig", d);
    uint8_t *sig = bundle != NULL ? slurp(p, MERO_AUDIT_MAX_RELEASE_ASSET, &sl) : NULL;
    int rc = 0;
    if (file != NULL && bundle == NULL) {
        rc = meroctl_fail(MEROCTL_FAILED,
                          "fleet audit: %s/published-mrtds.json has no readable "
                          ".bundle.json next to it",
                          d);
    } else if (bundle != NULL) {
        rc = mero_audit_add_release(log, file, fl, bundle, bl, sig, sl) < 0
                 ? meroctl_fail(MEROCTL_FAILED, "fleet audit: too many or too large releases")
                 : MEROCTL_OK;
        (*found)++;
    }
    free(file);
    free(bundle);
    free(sig);
    return rc;
}

static int add_releases(struct mero_audit_log *log, const char *dir)
{
    int found = 0;
    int rc = add_release_at(log, dir, &found);
    DIR *d = rc == MEROCTL_OK ? opendir(dir) : NULL;
    struct dirent *de;
    if (rc != MEROCTL_OK) {
        return rc;
    }
    if (d == NULL) {
        return meroctl_fail(MEROCTL_FAILED, "fleet audit: cannot read the folder %s", dir);
    }
    while (rc == MEROCTL_OK && (de = readdir(d)) != NULL) {
        char sub[AUDIT_PATH_MAX];
        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
        rc = add_release_at(log, sub, &found);
    }
    closedir(d);
    if (rc == MEROCTL_OK && found == 0) {
        rc = meroctl_fail(MEROCTL_FAILED,
                          "fleet audit: no published-mrtds.json with its .bundle.json in %s", dir);
    }
    return rc;
}

static void print_findings(const struct mero_audit_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        fprintf(stderr, "meroctl: audit: %s\n", f->v[i]);
    }
}

static int run_export(const struct meroctl_global *g, int argc, char **argv)
{
    const char *ns = NULL, *out = NULL, *rels[MERO_AUDIT_MAX_RELEASES];
    size_t nrels = 0;
    bool disclose = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--disclose-sealed") == 0) {
            disclose = true;
        } else if (strcmp(argv[i], "--releases") == 0 && i + 1 < argc &&
                   nrels < MERO_AUDIT_MAX_RELEASES) {
            rels[nrels++] = argv[++i];
        } else if (argv[i][0] != '-' && ns == NULL) {
            ns = argv[i];
        } else {
            return meroctl_usage_error("fleet audit: unexpected argument %s", argv[i]);
        }
    }
    if (ns == NULL || !meroctl_is_id(ns) || out == NULL) {
        return meroctl_usage_error("fleet audit needs a namespace id (64 hex) and --out DIR");
    }
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    mero_audit_log_init(&log);
    if (mero_hex_decode_exact(log.ns, sizeof(log.ns), ns, strlen(ns)) < 0) {
        return meroctl_usage_error("fleet audit needs a namespace id (64 hex)");
    }
    log.exported_at = (uint64_t)time(NULL);
    int rc = MEROCTL_OK;
    for (size_t i = 0; rc == MEROCTL_OK && i < nrels; i++) {
        rc = add_releases(&log, rels[i]);
    }
    if (rc == MEROCTL_OK) {
        rc = fetch_ops(g, ns, disclose, &log);
    }
    if (rc == MEROCTL_OK &&
        (mero_audit_build(&log, &f, &err) < 0 || mero_audit_write_dir(&log, out, &err) < 0)) {
        rc = meroctl_fail(MEROCTL_FAILED, "fleet audit: %s", err.msg);
    }
    if (rc == MEROCTL_OK) {
        if (g->json) {
            printf("{\"out\":\"%s\",\"ops\":%zu,\"tees\":%zu,\"findings\":%zu}\n", out, log.nops,
                   log.ntees, f.n);
        } else {
            printf("exported %zu ops, %zu TEEs, %zu signed releases to %s (%s/report.html)\n",
                   log.nops, log.ntees, log.nrels, out, out);
        }
        /* the export is written either way; what does not hold is said, and fails the run */
        print_findings(&f);
        rc = f.n > 0 ? MEROCTL_FAILED : MEROCTL_OK;
    }
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    return rc;
}

static const char *verdict(const struct mero_audit_check *c)
{
    static const char *const t[] = {"-", "ok", "FAIL", "mock: not hardware-backed"};
    return t[c->verdict & 3];
}

static void print_table(const struct mero_audit_log *log)
{
    char ns[MERO_HEX_SIZE(MERO_NS_ID_LEN)], id[MERO_HEX_SIZE(MERO_IDENTITY_LEN)],
        op[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
    mero_hex_encode(ns, log->ns, sizeof(log->ns));
    printf("audit of namespace %.16s: %zu ops, %zu TEEs, exported at %llu%s\n", ns, log->nops,
           log->ntees, (unsigned long long)log->exported_at,
           log->sealed > 0 ? " (sealed ops: not readable offline)" : "");
    for (size_t t = 0; t < log->ntees; t++) {
        mero_hex_encode(id, log->tees[t].id, MERO_IDENTITY_LEN);
        printf("\nTEE %s (%s)\n", id, log->tees[t].member ? "member" : "no longer a member");
        printf("  %-12s %-10s %-17s %-27s %-8s %s\n", "AT", "EVENT", "OP", "DCAP", "BINDING",
               "POLICY");
        for (size_t k = 0; k < log->tees[t].nev; k++) {
            const struct mero_audit_event *e = &log->tees[t].ev[k];
            char at[24];
            snprintf(at, sizeof(at), "%s%llu", e->at_exact ? "" : "~", (unsigned long long)e->at);
            if (e->op != MERO_AUDIT_NONE) {
                mero_hex_encode(op, log->ops[e->op].hash, MERO_OP_ID_LEN);
            } else {
                snprintf(op, sizeof(op), "-");
            }
            printf("  %-12s %-10s %-17.16s %-27s %-8s %s\n", at, mero_audit_kind_name(e->kind), op,
                   verdict(&e->dcap), verdict(&e->binding), verdict(&e->policy));
        }
    }
}

static int run_verify(const struct meroctl_global *g, int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && dir == NULL) {
            dir = argv[i];
        } else {
            return meroctl_usage_error("audit verify: unexpected argument %s", argv[i]);
        }
    }
    if (dir == NULL) {
        return meroctl_usage_error("audit verify needs the export's folder");
    }
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    int rc = mero_audit_verify_dir(dir, &log, &f, &err);
    if (rc < 0) {
        mero_audit_findings_cleanup(&f);
        mero_audit_log_cleanup(&log);
        return meroctl_fail(MEROCTL_FAILED, "audit: %s", err.msg);
    }
    if (g->json) {
        char *m = NULL;
        json_t *doc = NULL, *fl = json_array();
        if (mero_audit_manifest(&log, &m) == 0) {
            doc = json_loads(m, 0, NULL);
        }
        free(m);
        for (size_t i = 0; fl != NULL && i < f.n; i++) {
            json_array_append_new(fl, json_string(f.v[i]));
        }
        if (doc != NULL) {
            json_object_set_new(doc, "ok", json_boolean(f.n == 0));
            json_object_set_new(doc, "failures", fl);
            meroctl_print(g, doc);
            json_decref(doc);
        } else {
            json_decref(fl);
        }
    } else {
        print_table(&log);
        printf("\n%s\n", f.n == 0 ? "all checks hold" : "FAILED:");
        for (size_t i = 0; i < f.n; i++) {
            printf("  %s\n", f.v[i]);
        }
    }
    print_findings(&f);
    rc = f.n == 0 ? MEROCTL_OK : MEROCTL_FAILED;
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    return rc;
}

static const struct meroctl_opt export_opts[] = {
    {"--out", "DIR", "the folder the export is written to (created; must not hold an export)", NULL,
     NULL, false, true},
    {"--releases", "DIR",
     "signed releases to export for release-form policies: DIR (or each folder in it) holding "
     "published-mrtds.json, .bundle.json, .sig (repeatable)",
     NULL, NULL, true, true},
    {"--disclose-sealed", NULL,
     "also export the plaintext of the sealed subgroup admissions (never the key); the export "
     "then shows subgroup membership",
     NULL, NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"fleet audit", "NS --out DIR [--releases DIR]... [--disclose-sealed]",
                  "export the namespace's TEE history with its evidence for an offline audit",
                  run_export, export_opts},
                 {"audit verify", "DIR",
                  "verify a fleet audit export offline: signatures, log, DCAP, bindings, policy",
                  run_verify, NULL})
