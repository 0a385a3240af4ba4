/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_release.c - offline commands for signed mero-tee releases (docs/sigstore.md):
 *   meroctl release verify  --artifact F|sha256:HEX --bundle B [--sig S] [--trusted-root T]
 *                           (--issuer URL --identity SAN [--workflow-name N] [--repository R]
 *                            [--ref REF] | --key KEY.pub) [--json]
 *     exit 0 verified, 1 unusable input (usage, unreadable file, unusable trusted root),
 *     2 refused (any bundle, signature, log, timestamp, chain or identity failure), with the
 *     reason. Without --trusted-root: $MERO_SIGSTORE_TRUSTED_ROOT, else the shipped root.
 *   meroctl release trusted-root show [FILE]   what a trusted root holds (default: as verify)
 *   meroctl release trusted-root check FILE    exit 0 usable, 2 refused or nothing usable,
 *                                              1 unreadable
 *   meroctl release match   --release F --quote Q [--profile P]... [--version V] [--json]
 *     which profile of a published-mrtds.json (or an old policy record) a raw TDX quote's MRTD
 *     and RTMR0-3 match; exit 0 matched, 1 unusable input, 2 no match.
 * Nothing here touches the network; JSON output is built with jansson (escaped).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "meroctl_internal.h"
#include "mero/encoding.h"
#include "mero/quote.h"
#include "mero/release.h"
#include "mero/sigstore.h"

#define DESCRIBE_MAX (64u * 1024u) /* the trusted root's description */

#define MAX_PROFILES_ARG 16

static uint8_t *slurp(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    uint8_t *p = malloc(max + 1);
    size_t n = p ? fread(p, 1, max + 1, f) : 0;
    fclose(f);
    if (p == NULL || n > max) {
        free(p);
        return NULL;
    }
    p[n] = 0;
    *len = n;
    return p;
}

static void emit(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    if (s != NULL) {
        printf("%s\n", s);
        free(s);
    }
    json_decref(j);
}

struct verify_args {
    const char *artifact, *bundle, *sig, *root, *key;
    struct mero_sigstore_identity id;
    int json;
};

static int parse_verify_args(int argc, char **argv, struct verify_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char **dst = NULL;
        if (strcmp(o, "--json") == 0) {
            a->json = 1;
            continue;
        }
        if (strcmp(o, "--artifact") == 0) {
            dst = &a->artifact;
        } else if (strcmp(o, "--bundle") == 0) {
            dst = &a->bundle;
        } else if (strcmp(o, "--sig") == 0) {
            dst = &a->sig;
        } else if (strcmp(o, "--trusted-root") == 0) {
            dst = &a->root;
        } else if (strcmp(o, "--issuer") == 0) {
            dst = &a->id.issuer;
        } else if (strcmp(o, "--identity") == 0) {
            dst = &a->id.san;
        } else if (strcmp(o, "--workflow-name") == 0) {
            dst = &a->id.workflow_name;
        } else if (strcmp(o, "--repository") == 0) {
            dst = &a->id.repository;
        } else if (strcmp(o, "--ref") == 0) {
            dst = &a->id.ref;
        } else if (strcmp(o, "--key") == 0) {
            dst = &a->key;
        }
        if (dst == NULL || i + 1 >= argc) {
            fprintf(stderr, "meroctl release verify: bad option %s\n", o);
            return -MERO_EINVAL;
        }
        *dst = argv[++i];
    }
    int pinned = a->id.issuer || a->id.san || a->id.workflow_name || a->id.repository || a->id.ref;
    if (!a->artifact || !a->bundle || (a->key == NULL && (!a->id.issuer || !a->id.san)) ||
        (a->key != NULL && pinned)) {
        fprintf(stderr, "meroctl release verify: --artifact, --bundle and either --issuer and "
                        "--identity, or --key, are required\n");
        return -MERO_EINVAL;
    }
    return 0;
}

static int verify_report(const struct verify_args *a, int ok, const struct mero_err *e,
                         const struct mero_sigstore_result *r, int have_r)
{
    if (a->json) {
        json_t *j = json_object();
        json_object_set_new(j, "verified", json_boolean(ok));
        json_object_set_new(j, "reason", ok ? json_null() : json_string(e->msg));
        json_object_set_new(j, "reason_code",
                            ok ? json_null() : json_string(mero_strerror(e->code)));
        json_object_set_new(j, "identity", have_r ? json_string(r->san) : json_null());
        json_object_set_new(j, "issuer", have_r ? json_string(r->issuer) : json_null());
        json_object_set_new(j, "integrated_time",
                            have_r ? json_integer((json_int_t)r->integrated_time) : json_null());
        json_object_set_new(j, "timestamp_time",
                            have_r && r->timestamp_time
                                ? json_integer((json_int_t)r->timestamp_time)
                                : json_null());
        json_object_set_new(j, "key_based", json_boolean(have_r && r->keyed));
        json_object_set_new(j, "dsse", json_boolean(have_r && r->dsse));
        if (have_r) {
            json_object_set_new(j, "workflow_name", json_string(r->workflow_name));
            json_object_set_new(j, "repository", json_string(r->repository));
            json_object_set_new(j, "ref", json_string(r->ref));
            json_object_set_new(j, "trigger", json_string(r->trigger));
            json_object_set_new(j, "log_index", json_integer((json_int_t)r->log_index));
        }
        emit(j);
    } else if (ok && r->keyed) {
        printf("verified with the managed key\n  signing time %lld, log index %llu%s\n",
               (long long)r->integrated_time, (unsigned long long)r->log_index,
               r->dsse ? ", DSSE in-toto statement" : "");
    } else if (ok) {
        printf("verified: %s\n  issuer %s\n  workflow \"%s\" repository %s ref %s\n"
               "  integrated time %lld, log index %llu\n",
               r->san, r->issuer, r->workflow_name, r->repository, r->ref,
               (long long)r->integrated_time, (unsigned long long)r->log_index);
    }
    if (!ok) {
        fprintf(stderr, "meroctl: refused: %s: %s\n", mero_strerror(e->code), e->msg);
    }
    return ok ? MEROCTL_OK : MEROCTL_FAILED;
}

/* The files `release verify` read (each owned by its caller). */
struct verify_files {
    uint8_t *art, *bun, *sig, *key;
    size_t alen, blen, slen, klen;
};

/* Verify the bundle over the files read (digest: the artifact named by its SHA-256 instead)
 * and report; the exit code. */
static int verify_read(const struct verify_args *a, const struct verify_files *f,
                       const uint8_t *digest)
{
    struct mero_trust_root *tr = NULL;
    struct mero_err e = {0};
    if ((a->root ? mero_trust_root_load(&tr, a->root, &e) : mero_trust_root_load_env(&tr, &e)) <
        0) {
        fprintf(stderr, "meroctl: trusted root unusable: %s\n", e.msg);
        return MEROCTL_USAGE;
    }
    struct mero_sigstore_opts o = {.now = 0,
                                   .detached_sig = (const char *)f->sig,
                                   .detached_sig_len = f->slen,
                                   .public_key_pem = (const char *)f->key,
                                   .public_key_pem_len = f->klen,
                                   .artifact_sha256 = digest};
    struct mero_sigstore_result r;
    memset(&r, 0, sizeof(r));
    /* cryptographic checks first (so the signer can be reported), then the identity */
    int v = mero_sigstore_verify(tr, digest ? NULL : f->art, f->alen, f->bun, f->blen, NULL, &o, &r,
                                 &e);
    int rc;
    if (v == 0 && a->key == NULL) {
        v = mero_sigstore_check_identity(&r, &a->id, &e);
        rc = verify_report(a, v == 0, &e, &r, 1);
    } else if (v == 0) {
        rc = verify_report(a, 1, &e, &r, 1);
    } else {
        rc = verify_report(a, 0, &e, &r, 0);
    }
    mero_trust_root_free(tr);
    return rc;
}

static int run_verify(const struct meroctl_global *g, int argc, char **argv)
{
    struct verify_args a = {.json = g->json};
    if (parse_verify_args(argc, argv, &a) < 0) {
        return MEROCTL_USAGE;
    }
    /* "sha256:<hex>" names the artifact by its digest, as the Sigstore conformance suite does */
    uint8_t digest[MERO_SHA256_LEN];
    int by_digest = strncmp(a.artifact, "sha256:", 7) == 0;
    if (by_digest &&
        mero_hex_decode_exact(digest, sizeof(digest), a.artifact + 7, strlen(a.artifact + 7)) < 0) {
        fprintf(stderr, "meroctl release verify: --artifact sha256: needs 64 hex digits\n");
        return MEROCTL_USAGE;
    }
    struct verify_files f = {0};
    f.art = by_digest ? calloc(1, 1) : slurp(a.artifact, MERO_SIGSTORE_MAX_ARTIFACT, &f.alen);
    f.bun = slurp(a.bundle, MERO_SIGSTORE_MAX_BUNDLE, &f.blen);
    f.sig = a.sig ? slurp(a.sig, 4096, &f.slen) : NULL;
    f.key = a.key ? slurp(a.key, 16384, &f.klen) : NULL;
    int rc;
    if (f.art == NULL || f.bun == NULL || (a.sig && f.sig == NULL) || (a.key && f.key == NULL)) {
        fprintf(stderr, "meroctl: cannot read the artifact, bundle, signature or key file\n");
        rc = MEROCTL_USAGE;
    } else {
        rc = verify_read(&a, &f, by_digest ? digest : NULL);
    }
    free(f.art);
    free(f.bun);
    free(f.sig);
    free(f.key);
    return rc;
}

/* trusted-root show [FILE] / check FILE */
static int run_trusted_root(int argc, char **argv, int check, bool json)
{
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (file != NULL || argv[i][0] == '-') {
            fprintf(stderr, "meroctl release trusted-root: bad argument %s\n", argv[i]);
            return MEROCTL_USAGE;
        }
        file = argv[i];
    }
    if (check && file == NULL) {
        fprintf(stderr, "meroctl release trusted-root check: FILE is required\n");
        return MEROCTL_USAGE;
    }
    struct mero_trust_root *tr = NULL;
    struct mero_err e = {0};
    char path[1200] = "";
    const char *env = getenv("MERO_SIGSTORE_TRUSTED_ROOT");
    int rc;
    if (file != NULL) {
        rc = mero_trust_root_load(&tr, file, &e);
        snprintf(path, sizeof(path), "%s", file);
    } else if (env != NULL && env[0] != 0) {
        rc = mero_trust_root_load(&tr, env, &e);
        snprintf(path, sizeof(path), "%s (MERO_SIGSTORE_TRUSTED_ROOT)", env);
    } else {
        rc = mero_trust_root_default_path(path, sizeof(path));
        if (rc == 0) {
            rc = mero_trust_root_load_shipped(&tr, path, &e);
        }
        size_t n = strlen(path);
        snprintf(path + n, sizeof(path) - n, " (shipped, SHA-256 %s)",
                 MERO_SIGSTORE_SHIPPED_ROOT_SHA256);
    }
    if (rc < 0) {
        fprintf(stderr, "meroctl: trusted root %s refused: %s\n", path, e.msg);
        return e.code == MERO_EIO ? MEROCTL_USAGE : MEROCTL_FAILED;
    }
    char *text = malloc(DESCRIBE_MAX);
    int n = text ? mero_trust_root_describe(tr, text, DESCRIBE_MAX) : -MERO_ENOMEM;
    struct mero_trust_root_stats st;
    mero_trust_root_stats(tr, &st);
    mero_trust_root_free(tr);
    if (n < 0) {
        free(text);
        fprintf(stderr, "meroctl: cannot describe the trusted root\n");
        return MEROCTL_USAGE;
    }
    size_t skipped = (st.tlogs - st.tlogs_usable) + (st.ctlogs - st.ctlogs_usable) +
                     (st.cas - st.cas_usable) + (st.tsas - st.tsas_usable);
    bool unusable = st.tlogs_usable == 0 || st.cas_usable == 0;
    if (json && !(check && unusable)) {
        /* one document: the same facts as the text form (a refused check answers with the
         * error document instead) */
        json_t *o = json_pack(
            "{s:s, s:s, s:{s:[I,I], s:[I,I], s:[I,I], s:[I,I]}, s:I}", "trustedRoot", path,
            "description", text, "usable", "tlogs", (json_int_t)st.tlogs_usable,
            (json_int_t)st.tlogs, "ctlogs", (json_int_t)st.ctlogs_usable, (json_int_t)st.ctlogs,
            "cas", (json_int_t)st.cas_usable, (json_int_t)st.cas, "tsas",
            (json_int_t)st.tsas_usable, (json_int_t)st.tsas, "skipped", (json_int_t)skipped);
        if (o != NULL && check) {
            json_object_set_new(o, "ok", json_true());
        }
        char *t = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (t != NULL) {
            printf("%s\n", t);
        }
        free(t);
        json_decref(o);
    } else if (!json) {
        printf("trusted root %s\n%s", path, text);
        printf("usable: %zu/%zu tlogs, %zu/%zu ctlogs, %zu/%zu CAs, %zu/%zu TSAs\n",
               st.tlogs_usable, st.tlogs, st.ctlogs_usable, st.ctlogs, st.cas_usable, st.cas,
               st.tsas_usable, st.tsas);
    }
    free(text);
    if (check && unusable) {
        fprintf(stderr, "meroctl: trusted root %s has no usable %s: it would verify nothing\n",
                path, st.tlogs_usable == 0 ? "transparency log" : "certificate authority");
        return MEROCTL_FAILED;
    }
    if (json) {
        return MEROCTL_OK;
    }
    if (check && skipped > 0) {
        printf("warning: %zu entr%s skipped (never trusted; see the lines above)\n", skipped,
               skipped == 1 ? "y" : "ies");
    }
    if (check) {
        printf("ok: usable as a trusted root\n");
    }
    return MEROCTL_OK;
}

static int run_tr_show(const struct meroctl_global *g, int argc, char **argv)
{
    return run_trusted_root(argc, argv, 0, g->json);
}

static int run_tr_check(const struct meroctl_global *g, int argc, char **argv)
{
    return run_trusted_root(argc, argv, 1, g->json);
}

/* What `release match` was asked. */
struct match_args {
    const char *release, *quote, *version;
    const char *profiles[MAX_PROFILES_ARG];
    size_t np;
    int json;
};

/* Match the quote read (qf) against the release file read (rf) and report; the exit code. */
static int match_read(const struct match_args *a, const uint8_t *rf, size_t rlen, const uint8_t *qf,
                      size_t qlen)
{
    struct mero_release *rel = NULL;
    struct mero_quote q;
    struct mero_err e = {0};
    if (mero_release_parse(&rel, rf, rlen, a->version, MERO_RELEASE_ACCEPT_RECORD, &e) < 0) {
        fprintf(stderr, "meroctl: release file refused: %s\n", e.msg);
        return MEROCTL_USAGE;
    }
    if (mero_quote_parse(&q, qf, qlen, &e) < 0) {
        fprintf(stderr, "meroctl: quote does not parse: %s\n", e.msg);
        mero_release_free(rel);
        return MEROCTL_USAGE;
    }
    struct mero_release_meas m;
    memcpy(m.mrtd, q.body.mrtd, sizeof(m.mrtd));
    memcpy(m.rtmr, q.body.rtmr, sizeof(m.rtmr));
    char got[MERO_RELEASE_NAME_MAX] = "";
    int ok =
        mero_release_match(rel, a->np ? a->profiles : NULL, a->np, &m, got, sizeof(got), &e) == 0;
    if (a->json) {
        json_t *j = json_object();
        json_object_set_new(j, "matched", json_boolean(ok));
        json_object_set_new(j, "profile", ok ? json_string(got) : json_null());
        json_object_set_new(j, "release", json_string(rel->tag));
        json_object_set_new(j, "reason", ok ? json_null() : json_string(e.msg));
        emit(j);
    } else if (ok) {
        printf("matches profile %s of release %s\n", got, rel->tag);
    }
    if (!ok) {
        fprintf(stderr, "meroctl: no match: %s\n", e.msg);
    }
    mero_release_free(rel);
    return ok ? MEROCTL_OK : MEROCTL_FAILED;
}

static int run_match(const struct meroctl_global *g, int argc, char **argv)
{
    struct match_args a = {.json = g->json};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--json") == 0) {
            a.json = 1;
        } else if (strcmp(o, "--release") == 0 && i + 1 < argc) {
            a.release = argv[++i];
        } else if (strcmp(o, "--quote") == 0 && i + 1 < argc) {
            a.quote = argv[++i];
        } else if (strcmp(o, "--version") == 0 && i + 1 < argc) {
            a.version = argv[++i];
        } else if (strcmp(o, "--profile") == 0 && i + 1 < argc && a.np < MAX_PROFILES_ARG) {
            a.profiles[a.np++] = argv[++i];
        } else {
            fprintf(stderr, "meroctl release match: bad option %s\n", o);
            return MEROCTL_USAGE;
        }
    }
    if (a.release == NULL || a.quote == NULL) {
        fprintf(stderr, "meroctl release match: --release and --quote are required\n");
        return MEROCTL_USAGE;
    }
    size_t rlen = 0, qlen = 0;
    uint8_t *rf = slurp(a.release, MERO_RELEASE_MAX_FILE, &rlen);
    uint8_t *qf = slurp(a.quote, MERO_MAX_TEE_QUOTE_BYTES * 4u, &qlen);
    int rc;
    if (rf == NULL || qf == NULL) {
        fprintf(stderr, "meroctl: cannot read the release or quote file\n");
        rc = MEROCTL_USAGE;
    } else {
        rc = match_read(&a, rf, rlen, qf, qlen);
    }
    free(rf);
    free(qf);
    return rc;
}

static const struct meroctl_opt verify_opts[] = {
    {"--artifact", "F", "the signed file, or sha256:<hex> of it (required)", NULL, NULL, false,
     true},
    {"--bundle", "B", "the Sigstore bundle (.sigstore.json) or cosign bundle (required)", NULL,
     NULL, false, true},
    {"--sig", "S", "a detached signature, for a bundle that does not carry it", NULL, NULL, false,
     true},
    {"--trusted-root", "T", "the Sigstore trusted root",
     "MERO_SIGSTORE_TRUSTED_ROOT, else the shipped root", NULL, false, true},
    {"--issuer", "URL", "the OIDC issuer the certificate must name (certificate form)", NULL, NULL,
     false, false},
    {"--identity", "SAN", "the certificate's subject alternative name (certificate form)", NULL,
     NULL, false, false},
    {"--workflow-name", "N", "the GitHub workflow name the certificate must carry", NULL, NULL,
     false, false},
    {"--repository", "R", "the source repository the certificate must carry", NULL, NULL, false,
     false},
    {"--ref", "REF", "the source ref the certificate must carry", NULL, NULL, false, false},
    {"--key", "KEY.pub", "a managed public key (PEM) instead of a certificate identity", NULL, NULL,
     false, true},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt match_opts[] = {
    {"--release", "F", "the mero-tee release manifest (required)", NULL, NULL, false, true},
    {"--quote", "Q", "the TDX quote (required)", NULL, NULL, false, true},
    {"--profile", "P", "consider only this profile", "every profile of the release", NULL, true,
     false},
    {"--version", "V", "the release version the manifest must carry", NULL, NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS(
    {"release verify",
     "--artifact F --bundle B [--sig S] [--trusted-root T] (--issuer URL --identity SAN "
     "[--workflow-name N] [--repository R] [--ref REF] | --key KEY.pub)",
     "verify a Sigstore/cosign bundle offline (exit 0 verified, 2 refused)", run_verify,
     verify_opts},
    {"release trusted-root show", "[FILE]",
     "print a trusted root's logs, CAs, TSAs and validity windows (default: the one verify uses)",
     run_tr_show, NULL},
    {"release trusted-root check", "FILE",
     "validate a replacement trusted root (exit 0 usable, 2 refused or nothing usable)",
     run_tr_check, NULL},
    {"release match", "--release F --quote Q [--profile P]... [--version V]",
     "which profile of a mero-tee release a TDX quote's MRTD/RTMR1-3 match (exit 0, 2 none)",
     run_match, match_opts})
