/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - meroctl's entry: global options, then dispatch on the longest registered command
 * path that matches the words given. `--help` at any level lists what lies below it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meroctl_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

#define MAX_CMDS 128

static const struct meroctl_cmd *cmds[MAX_CMDS];
static int ncmds;

void meroctl_register(const struct meroctl_cmd *c, int n)
{
    for (int i = 0; i < n && ncmds < MAX_CMDS; i++) {
        cmds[ncmds++] = &c[i];
    }
}

/* number of words of path matched by argv[0..argc), or 0 */
static int match(const char *path, int argc, char **argv)
{
    int words = 0;
    const char *p = path;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t n = sp ? (size_t)(sp - p) : strlen(p);
        if (words >= argc || strlen(argv[words]) != n || strncmp(argv[words], p, n) != 0) {
            return 0;
        }
        words++;
        p += n;
        while (*p == ' ') {
            p++;
        }
    }
    return words;
}

static int prefix_matches(const char *path, int argc, char **argv)
{
    /* true when the words given are a prefix of path */
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", path);
    char *save = NULL, *w = strtok_r(tmp, " ", &save);
    for (int i = 0; i < argc; i++) {
        if (w == NULL || strcmp(w, argv[i]) != 0) {
            return 0;
        }
        w = strtok_r(NULL, " ", &save);
    }
    return 1;
}

static void usage(FILE *f, int argc, char **argv)
{
    fprintf(f, "usage: meroctl [--node URL] [--token-file F] [--json] [-q] [--timeout S] "
               "<command> [args]\n\ncommands:\n");
    for (int i = 0; i < ncmds; i++) {
        if (prefix_matches(cmds[i]->path, argc, argv)) {
            fprintf(f, "  %s %s\n      %s\n", cmds[i]->path, cmds[i]->usage, cmds[i]->help);
        }
    }
    fprintf(f, "\nexit status: 0 ok, 1 usage or bad input, 2 failed or refused, "
               "3 node unreachable, 4 authentication failed\n");
}

int main(int argc, char **argv)
{
    struct meroctl_global g = {.node = "http://127.0.0.1:2528", .timeout_s = 30};
    const char *env = getenv("MERO_TOKEN_FILE");
    if (env != NULL) {
        g.token_file = env;
    }
    env = getenv("MERO_NODE");
    if (env != NULL) {
        g.node = env;
    }
    if (mero_crypto_init() < 0) {
        fprintf(stderr, "meroctl: crypto init failed\n");
        return MEROCTL_FAILED;
    }
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            g.json = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            g.quiet = true;
        } else if ((strcmp(a, "--node") == 0) && i + 1 < argc) {
            g.node = argv[++i];
        } else if ((strcmp(a, "--token-file") == 0) && i + 1 < argc) {
            g.token_file = argv[++i];
        } else if ((strcmp(a, "--timeout") == 0) && i + 1 < argc) {
            uint64_t t;
            if (mero_parse_u64(argv[++i], 3600, &t) < 0 || t == 0) {
                fprintf(stderr, "meroctl: --timeout takes 1..3600 seconds\n");
                return MEROCTL_USAGE;
            }
            g.timeout_s = (int)t;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, 0, NULL);
            return MEROCTL_OK;
        } else if (strcmp(a, "--version") == 0) {
            printf("meroctl 0.1.0\n");
            return MEROCTL_OK;
        } else {
            fprintf(stderr, "meroctl: unknown option %s\n", a);
            usage(stderr, 0, NULL);
            return MEROCTL_USAGE;
        }
    }
    int rest = argc - i;
    char **words = argv + i;
    if (rest == 0) {
        usage(stderr, 0, NULL);
        return MEROCTL_USAGE;
    }
    const struct meroctl_cmd *best = NULL;
    int best_words = 0;
    for (int k = 0; k < ncmds; k++) {
        int m = match(cmds[k]->path, rest, words);
        if (m > best_words) {
            best = cmds[k];
            best_words = m;
        }
    }
    if (best == NULL) {
        int n = rest;
        if (n > 0 && (strcmp(words[n - 1], "--help") == 0 || strcmp(words[n - 1], "-h") == 0)) {
            n--;
        }
        for (int k = 0; k < ncmds; k++) {
            if (prefix_matches(cmds[k]->path, n, words)) {
                FILE *f = n < rest ? stdout : stderr;
                usage(f, n, words);
                return n < rest ? MEROCTL_OK : MEROCTL_USAGE;
            }
        }
        fprintf(stderr, "meroctl: unknown command '%s'\n", words[0]);
        usage(stderr, 0, NULL);
        return MEROCTL_USAGE;
    }
    int sub_argc = rest - best_words + 1;
    char **sub_argv = words + best_words - 1;
    for (int k = 1; k < sub_argc; k++) {
        if (strcmp(sub_argv[k], "--help") == 0 || strcmp(sub_argv[k], "-h") == 0) {
            printf("usage: meroctl %s %s\n  %s\n", best->path, best->usage, best->help);
            return MEROCTL_OK;
        }
    }
    return best->run(&g, sub_argc, sub_argv);
}
