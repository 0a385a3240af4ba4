/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_fleet.c - `meroctl fleet NS [--attempts N] [--watch [SECS]]` (issue 19, docs/fleet.md):
 * the fleet document of GET /admin-api/groups/NS/fleet as a table a person reads at a glance
 * (short ids with each member's name where the node knows one - a label an admin set with
 * `meroctl group members label`, or the node's own --name on its own row (issue 35) - ages
 * as "3 h", measurements as the policy entry or profile they match, else the
 * first 8 hex of the MRTD, evidence age and state, refusals with their rule and reason);
 * --json prints the document. --watch polls every SECS (default 2) and redraws when the
 * document changes (the screen is cleared with ANSI codes only on a terminal); with --json it
 * prints one JSON line per change. Ctrl-C (SIGINT) or SIGTERM ends a watch cleanly (exit 0).
 *
 * Invariants: "changes" ignores what moves by itself (generatedAt, evidenceAgeSeconds), so a
 * still fleet prints once; a watch's JSON lines go straight to standard output, one document
 * per line; a failed poll ends the watch with the request's exit code.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client_internal.h"

#define FLEET_PATH_MAX   160
#define FLEET_WATCH_MAX  3600 /* seconds between polls, at most */
#define FLEET_SHORT_SIZE 16   /* 8 characters and "…" (3 bytes) with the NUL */
#define FLEET_AGE_SIZE   32
#define FLEET_CELL_SIZE  80
#define FLEET_NAME_COLS  16 /* a member's name cut to this many columns (issue 35) */

static volatile sig_atomic_t fleet_stop;

static void on_stop_signal(int sig)
{
    (void)sig;
    fleet_stop = 1;
}

/* "3 h", "12 min", "40 s", "2 d" */
static void fmt_age(char *out, size_t cap, json_int_t secs)
{
    if (secs < 0) {
        secs = 0;
    }
    if (secs < 60) {
        snprintf(out, cap, "%lld s", (long long)secs);
    } else if (secs < 3600) {
        snprintf(out, cap, "%lld min", (long long)(secs / 60));
    } else if (secs < 86400) {
        snprintf(out, cap, "%lld h", (long long)(secs / 3600));
    } else {
        snprintf(out, cap, "%lld d", (long long)(secs / 86400));
    }
}

/* The first 8 characters and "…"; "-" for null. */
static void fmt_short(char *out, size_t cap, const char *id)
{
    if (id == NULL || id[0] == '\0') {
        snprintf(out, cap, "-");
    } else if (strlen(id) <= 8) {
        snprintf(out, cap, "%s", id);
    } else {
        snprintf(out, cap, "%.8s\u2026", id);
    }
}

/* s left-aligned in `width` terminal columns (UTF-8 continuation bytes take none), then a
 * space; the last cell of a line gets no padding. */
static void cell(FILE *f, const char *s, int width, bool last)
{
    int cols = 0;
    for (const char *p = s; *p != '\0'; p++) {
        cols += ((unsigned char)*p & 0xC0) != 0x80;
    }
    fputs(s, f);
    for (int i = cols; !last && i <= width; i++) {
        fputc(' ', f);
    }
}

static const char *str_of(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Age of unix time `key` in o, relative to now; "-" when null. */
static void fmt_ago(char *out, size_t cap, json_t *o, const char *key, json_int_t now)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) {
        snprintf(out, cap, "-");
        return;
    }
    fmt_age(out, cap, now - json_integer_value(v));
}

/* The matched policy entry or profile name, else the first 8 hex of the MRTD. */
static void fmt_measurements(char *out, size_t cap, json_t *meas, json_t *matched)
{
    const char *name = str_of(matched, "name");
    const char *kind = str_of(matched, "kind");
    if (name != NULL) {
        snprintf(out, cap, "%s", name);
    } else if (meas != NULL && json_is_object(meas)) {
        char s[FLEET_SHORT_SIZE];
        fmt_short(s, sizeof(s), str_of(meas, "mrtd"));
        snprintf(out, cap, "%s%s", s,
                 kind != NULL && strcmp(kind, "profile") == 0 ? " (a release profile)" : "");
    } else {
        snprintf(out, cap, "-");
    }
}

static void print_policy(FILE *f, json_t *p)
{
    if (!json_is_true(json_object_get(p, "enabled"))) {
        fprintf(f, "policy: none (no TEE is admitted)\n");
        return;
    }
    json_t *sr = json_object_get(p, "signedRelease");
    fprintf(f, "policy: %s mode, ", str_of(p, "mode") ? str_of(p, "mode") : "?");
    if (sr != NULL) {
        fprintf(f, "signed releases (%zu profile%s)",
                json_array_size(json_object_get(sr, "allowedProfiles")),
                json_array_size(json_object_get(sr, "allowedProfiles")) == 1 ? "" : "s");
    } else {
        fprintf(f, "measurement lists (%zu MRTD)",
                json_array_size(json_object_get(p, "allowedMrtd")));
    }
    fprintf(f, "%s\n", json_is_true(json_object_get(p, "acceptMock")) ? ", mock accepted" : "");
}

/* At most `cols` terminal columns of UTF-8 name s, "…" ending a cut one; "-" for none. */
static void fmt_name(char *out, size_t cap, const char *s, int cols)
{
    int total = 0;
    for (const char *p = s; p != NULL && *p != '\0'; p++) {
        total += ((unsigned char)*p & 0xC0) != 0x80;
    }
    if (s == NULL || s[0] == '\0') {
        snprintf(out, cap, "-");
        return;
    }
    if (total <= cols) {
        snprintf(out, cap, "%s", s);
        return;
    }
    size_t i = 0; /* the start of character cols - 1: keep the ones before it */
    for (int c = 0; s[i] != '\0'; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == cols - 1) {
            break;
        }
    }
    snprintf(out, cap, "%.*s\u2026", (int)i, s);
}

/* The name the document gives member `id`, or NULL. */
static const char *name_of(json_t *members, const char *id)
{
    size_t i;
    json_t *m;
    json_array_foreach(members, i, m)
    {
        const char *mid = str_of(m, "identity");
        if (id != NULL && mid != NULL && strcmp(mid, id) == 0) {
            return str_of(m, "name");
        }
    }
    return NULL;
}

static void print_members(FILE *f, json_t *members, json_int_t now)
{
    size_t i;
    json_t *m;
    static const char *const head[] = {"MEMBER",   "NAME",         "ROLE",
                                       "TEE",      "MEASUREMENTS", "TCB",
                                       "EVIDENCE", "ADMITTED BY",  "LAST SEEN"};
    static const int widths[] = {10, FLEET_NAME_COLS, 12, 4, 18, 14, 18, 16, 0};
    for (size_t k = 0; k < sizeof(head) / sizeof(head[0]); k++) {
        cell(f, head[k], widths[k], k + 1 == sizeof(head) / sizeof(head[0]));
    }
    fputc('\n', f);
    json_array_foreach(members, i, m)
    {
        char id[FLEET_SHORT_SIZE], by[FLEET_CELL_SIZE], seen[FLEET_CELL_SIZE];
        char meas[FLEET_CELL_SIZE] = "-", ev[FLEET_CELL_SIZE] = "-", tcb[FLEET_CELL_SIZE] = "-";
        char name[FLEET_CELL_SIZE];
        json_t *tee = json_object_get(m, "tee");
        const char *via = str_of(m, "lastSeenVia");
        fmt_short(id, sizeof(id), str_of(m, "identity"));
        fmt_name(name, sizeof(name), str_of(m, "name"), FLEET_NAME_COLS);
        /* the admitter by its name when the document gives one (issue 35) */
        if (name_of(members, str_of(m, "admittedBy")) != NULL) {
            fmt_name(by, sizeof(by), name_of(members, str_of(m, "admittedBy")), 16);
        } else {
            fmt_short(by, sizeof(by), str_of(m, "admittedBy"));
        }
        fmt_ago(seen, sizeof(seen), m, "lastSeen", now);
        if (via != NULL && strcmp(via, "self") == 0) {
            snprintf(seen, sizeof(seen), "now (this node)");
        } else if (via != NULL) {
            size_t l = strlen(seen);
            snprintf(seen + l, sizeof(seen) - l, " (%s)", str_of(m, "lastSeenVia"));
        }
        if (json_is_object(tee)) {
            char age[FLEET_AGE_SIZE];
            fmt_measurements(meas, sizeof(meas), json_object_get(tee, "measurements"),
                             json_object_get(tee, "matched"));
            snprintf(tcb, sizeof(tcb), "%s",
                     str_of(tee, "tcbStatus") ? str_of(tee, "tcbStatus") : "-");
            fmt_ago(age, sizeof(age), tee, "evidenceAt", now);
            snprintf(ev, sizeof(ev), "%s %s", age,
                     str_of(tee, "evidenceState") ? str_of(tee, "evidenceState") : "");
        }
        cell(f, id, 10, false);
        cell(f, name, FLEET_NAME_COLS, false);
        cell(f, str_of(m, "role") ? str_of(m, "role") : "?", 12, false);
        cell(f, json_is_true(json_object_get(m, "isTee")) ? "yes" : "no", 4, false);
        cell(f, meas, 18, false);
        cell(f, tcb, 14, false);
        cell(f, ev, 18, false);
        cell(f, by, 16, false);
        cell(f, seen, 0, true);
        fputc('\n', f);
    }
}

static void print_attempts(FILE *f, json_t *attempts, json_int_t now)
{
    size_t i;
    json_t *a;
    if (json_array_size(attempts) == 0) {
        fprintf(f, "\nno admission attempts recorded\n");
        return;
    }
    fprintf(f, "\nrecent admission attempts (newest first)\n");
    json_array_foreach(attempts, i, a)
    {
        char ago[FLEET_AGE_SIZE], id[FLEET_SHORT_SIZE];
        const char *path = str_of(a, "path"), *rule = str_of(a, "rule");
        const char *why = str_of(a, "reason"), *verdict = str_of(a, "verdict");
        fmt_ago(ago, sizeof(ago), a, "at", now);
        fmt_short(id, sizeof(id), str_of(a, "identity"));
        bool said = rule != NULL || why != NULL;
        fprintf(f, "%8s ago  ", ago);
        cell(f, id, 10, false);
        cell(f, verdict ? verdict : "?", 10, false);
        cell(f, path ? path : "-", 8, !said);
        if (said) {
            fprintf(f, "%s%s%s", rule ? rule : "", rule && why ? ": " : "", why ? why : "");
        }
        fputc('\n', f);
    }
}

static void print_table(FILE *f, json_t *d)
{
    json_int_t now = json_integer_value(json_object_get(d, "generatedAt"));
    json_t *view = json_object_get(d, "viewOf");
    char ns[FLEET_SHORT_SIZE], me[FLEET_SHORT_SIZE];
    fmt_short(ns, sizeof(ns), str_of(d, "namespaceId"));
    fmt_short(me, sizeof(me), str_of(view, "identity"));
    fprintf(f, "fleet of %s as seen by %s (peer %s)\n", ns, me,
            str_of(view, "peerId") ? str_of(view, "peerId") : "?");
    print_policy(f, json_object_get(d, "policy"));
    fprintf(f, "\n");
    print_members(f, json_object_get(d, "members"), now);
    print_attempts(f, json_object_get(d, "attempts"), now);
}

/* The document without what moves by itself, as text, to tell a change. */
static char *fingerprint(json_t *d)
{
    json_t *c = json_deep_copy(d);
    size_t i;
    json_t *m;
    if (c == NULL) {
        return NULL;
    }
    json_object_del(c, "generatedAt");
    json_array_foreach(json_object_get(c, "members"), i, m)
    {
        json_t *tee = json_object_get(m, "tee");
        if (json_is_object(tee)) {
            json_object_del(tee, "evidenceAgeSeconds");
        }
    }
    char *t = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(c);
    return t;
}

static void nap(int secs)
{
    for (int i = 0; i < secs * 10 && !fleet_stop; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
}

static int watch(const struct meroctl_global *g, const char *path, int every)
{
    /* the JSON lines go straight to the terminal or pipe, not to --json's held output */
    FILE *out = fdopen(dup(STDOUT_FILENO), "w");
    bool tty = isatty(STDOUT_FILENO);
    char *last = NULL;
    int rc = MEROCTL_OK;
    if (out == NULL) {
        return meroctl_fail(MEROCTL_FAILED, "cannot write to standard output");
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    while (!fleet_stop) {
        json_t *d = NULL;
        rc = meroctl_call(g, "GET", path, NULL, true, &d);
        if (rc != MEROCTL_OK) {
            break;
        }
        char *fp = fingerprint(d);
        if (fp != NULL && (last == NULL || strcmp(fp, last) != 0)) {
            if (g->json) {
                char *t = json_dumps(d, JSON_COMPACT);
                fprintf(out, "%s\n", t ? t : "null");
                free(t);
            } else {
                if (tty) {
                    fputs("\033[H\033[2J", out);
                }
                print_table(out, d);
                if (!tty) {
                    fputs("\n", out);
                }
            }
            fflush(out);
            free(last);
            last = fp;
        } else {
            free(fp);
        }
        json_decref(d);
        nap(every);
    }
    free(last);
    fclose(out);
    return rc;
}

static int run_fleet(const struct meroctl_global *g, int argc, char **argv)
{
    const char *ns = NULL, *attempts = NULL;
    int every = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--attempts") == 0 && i + 1 < argc) {
            attempts = argv[++i];
            char *end = NULL;
            long n = strtol(attempts, &end, 10);
            if (end == attempts || *end != '\0' || n < 0 || n > 1000) {
                return meroctl_usage_error("--attempts takes a whole number from 0 to 1000");
            }
        } else if (strcmp(a, "--watch") == 0) {
            every = 2;
            if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
                char *end = NULL;
                long n = strtol(argv[++i], &end, 10);
                if (*end != '\0' || n < 1 || n > FLEET_WATCH_MAX) {
                    return meroctl_usage_error("--watch takes seconds from 1 to %d",
                                               FLEET_WATCH_MAX);
                }
                every = (int)n;
            }
        } else if (a[0] != '-' && ns == NULL) {
            ns = a;
        } else {
            return meroctl_usage_error("fleet: unexpected argument %s", a);
        }
    }
    if (ns == NULL || !meroctl_is_id(ns)) {
        return meroctl_usage_error("fleet needs a namespace or group id (64 hex)");
    }
    char path[FLEET_PATH_MAX];
    snprintf(path, sizeof(path), "/admin-api/groups/%s/fleet%s%s", ns,
             attempts != NULL ? "?attempts=" : "", attempts != NULL ? attempts : "");
    if (every > 0) {
        return watch(g, path, every);
    }
    json_t *d = NULL;
    int rc = meroctl_call(g, "GET", path, NULL, true, &d);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    if (g->json) {
        meroctl_print(g, d);
    } else {
        print_table(stdout, d);
    }
    json_decref(d);
    return MEROCTL_OK;
}

static const struct meroctl_opt fleet_opts[] = {
    {"--attempts", "N", "show the N most recent admission attempts, 0..1000", "100", NULL, false,
     false},
    {"--watch", "[SECS]", "redraw every SECS seconds (1..3600) until interrupted",
     "2 when SECS is left out", NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"fleet", "NS [--attempts N] [--watch [SECS]]",
                  "the fleet of a namespace: members, evidence, admission attempts", run_fleet,
                  fleet_opts})
