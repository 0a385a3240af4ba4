/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - meroctl's entry: global options (before or after the command: --node, --token-file,
 * --json, -q, --timeout; `--` ends them), then dispatch on the longest registered command path
 * that matches the words given. `--help` at any level lists what lies below it.
 *
 * Invariant: with --json, standard output carries exactly one JSON document: the command's
 * answer, or, when it failed without printing one, {"error":{"code":<exit status>,
 * "message":<its first diagnostic>}} (client.c's meroctl_json_begin/_end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
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

const struct meroctl_opt meroctl_globals[] = {
    {"--node", "URL|NAME",
     "the node's admin API, or a node saved with meroctl node add (also MERO_NODE)",
     "http://127.0.0.1:2528", NULL, false, false},
    {"--token-file", "F",
     "the admin token file merod init wrote (also MERO_TOKEN_FILE); a regular file, mode 0600",
     NULL, NULL, false, true},
    {"--json", NULL, "exactly one JSON document on standard output, failures included", NULL, NULL,
     false, false},
    {"-q", NULL, "no output on success (also --quiet)", NULL, NULL, false, false},
    {"--timeout", "S", "request timeout in seconds, 1..3600 (tee fleet-join uses at least 180)",
     "30", NULL, false, false},
    {"--help", NULL, "describe a command and its options (also: meroctl help CMD)", NULL, NULL,
     false, false},
    {"--sealed", NULL,
     "attest the node, check its quote, then send every call through a sealed session "
     "(docs/sealed.md)",
     NULL, NULL, false, false},
    {"--sealed-accept-mock", NULL, "with --sealed: trust a mock node's quote", NULL, NULL, false,
     false},
    {"--sealed-mrtd", "HEX96",
     "with --sealed: an MRTD the node's quote may carry (repeatable; required for a real node)",
     NULL, NULL, true, false},
    {"--sealed-rtmr0", "HEX96", "with --sealed: an RTMR0 the node's quote may carry (repeatable)",
     NULL, NULL, true, false},
    {"--sealed-rtmr1", "HEX96", "with --sealed: an RTMR1 the node's quote may carry (repeatable)",
     NULL, NULL, true, false},
    {"--sealed-rtmr2", "HEX96", "with --sealed: an RTMR2 the node's quote may carry (repeatable)",
     NULL, NULL, true, false},
    {"--sealed-rtmr3", "HEX96", "with --sealed: an RTMR3 the node's quote may carry (repeatable)",
     NULL, NULL, true, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static void usage(FILE *f, int argc, char **argv)
{
    fprintf(f, "usage: meroctl [--node URL] [--token-file F] [--json] [-q] [--timeout S]\n"
               "               [--sealed (--sealed-accept-mock | --sealed-mrtd HEX96...)\n"
               "                [--sealed-rtmr0..3 HEX96...]] <command> [args]\n"
               "       meroctl help <command>   (or meroctl <command> --help)\n\ncommands:\n");
    for (int i = 0; i < ncmds; i++) {
        if (prefix_matches(cmds[i]->path, argc, argv)) {
            fprintf(f, "  %s %s\n      %s\n", cmds[i]->path, cmds[i]->usage, cmds[i]->help);
        }
    }
    fprintf(f, "\nexit status: 0 ok, 1 usage or bad input, 2 failed or refused, "
               "3 node unreachable, 4 authentication failed\n");
}

/* The register a --sealed-mrtd / --sealed-rtmrN flag lists (0 MRTD, 1..4 RTMR0-3), or
 * MEROCTL_SEALED_REGS when a is not one of them. */
static int sealed_reg_of(const char *a)
{
    static const char *const flags[MEROCTL_SEALED_REGS] = {
        "--sealed-mrtd", "--sealed-rtmr0", "--sealed-rtmr1", "--sealed-rtmr2", "--sealed-rtmr3"};
    for (int i = 0; i < MEROCTL_SEALED_REGS; i++) {
        if (strcmp(a, flags[i]) == 0) {
            return i;
        }
    }
    return MEROCTL_SEALED_REGS;
}

/* 1 when a is a global option that takes a value */
static int global_with_value(const char *a)
{
    return strcmp(a, "--node") == 0 || strcmp(a, "--token-file") == 0 ||
           strcmp(a, "--timeout") == 0 || sealed_reg_of(a) < MEROCTL_SEALED_REGS;
}

/* Apply one global option (value v when it takes one); an exit code, or NOT_GLOBAL when it is
 * not one. */
#define NOT_GLOBAL (-1)
static int apply_global(struct meroctl_global *g, const char *a, const char *v)
{
    if (strcmp(a, "--json") == 0) {
        g->json = true;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
        g->quiet = true;
    } else if (strcmp(a, "--node") == 0) {
        g->node = v;
    } else if (strcmp(a, "--token-file") == 0) {
        g->token_file = v;
        g->token_file_given = true;
    } else if (strcmp(a, "--sealed") == 0) {
        g->sealed = true;
    } else if (strcmp(a, "--sealed-accept-mock") == 0) {
        g->sealed_accept_mock = true;
    } else if (sealed_reg_of(a) < MEROCTL_SEALED_REGS) {
        int r = sealed_reg_of(a);
        if (g->n_sealed_reg[r] == MEROCTL_SEALED_VALUES) {
            return meroctl_usage_error("at most %d %s values", MEROCTL_SEALED_VALUES, a);
        }
        uint8_t raw[MERO_MR_LEN];
        if (mero_hex_decode_exact(raw, sizeof(raw), v, strlen(v)) < 0) {
            return meroctl_usage_error("%s takes 96 hex digits, not '%s'", a, v);
        }
        g->sealed_reg[r][g->n_sealed_reg[r]++] = v;
    } else if (strcmp(a, "--timeout") == 0) {
        uint64_t t;
        if (mero_parse_u64(v, 3600, &t) < 0 || t == 0) {
            return meroctl_usage_error("--timeout takes 1..3600 seconds, not '%s'", v);
        }
        g->timeout_s = (int)t;
    } else {
        return NOT_GLOBAL;
    }
    return MEROCTL_OK;
}

/* --json anywhere before `--` (so even a usage error is answered in JSON) */
static bool wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            return true;
        }
    }
    return false;
}

static int dispatch(struct meroctl_global *g, int argc, char **argv)
{
    static char *words[256];
    int rest = 0;
    bool seen_command = false, ended = false;
    if (argc > (int)(sizeof(words) / sizeof(words[0]))) {
        return meroctl_usage_error("too many arguments");
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (ended) {
            words[rest++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            ended = true;
            continue;
        }
        if (global_with_value(a)) {
            if (i + 1 >= argc) {
                return meroctl_usage_error("%s needs a value", a);
            }
            int rc = apply_global(g, a, argv[++i]);
            if (rc != MEROCTL_OK) {
                return rc;
            }
            continue;
        }
        if (apply_global(g, a, NULL) == MEROCTL_OK) {
            continue;
        }
        if (!seen_command && a[0] == '-') {
            if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                usage(stdout, 0, NULL);
                return MEROCTL_OK;
            }
            if (strcmp(a, "--version") == 0) {
                printf(g->json ? "{\"version\":\"0.1.0\"}\n" : "meroctl 0.1.0\n");
                return MEROCTL_OK;
            }
            int rc = meroctl_usage_error("unknown option %s", a);
            usage(stderr, 0, NULL);
            return rc;
        }
        seen_command = true;
        words[rest++] = argv[i];
    }
    if (rest == 0) {
        int rc = meroctl_usage_error("no command given");
        usage(stderr, 0, NULL);
        return rc;
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
                if (n < rest) {
                    usage(stdout, n, words);
                    return MEROCTL_OK;
                }
                int rc = meroctl_usage_error("'%s' needs a subcommand", words[0]);
                usage(stderr, n, words);
                return rc;
            }
        }
        int rc = meroctl_usage_error("unknown command '%s'", words[0]);
        usage(stderr, 0, NULL);
        return rc;
    }
    meroctl_resolve_node(g);
    int sub_argc = rest - best_words + 1;
    char **sub_argv = words + best_words - 1;
    for (int k = 1; k < sub_argc; k++) {
        if (strcmp(sub_argv[k], "--help") == 0 || strcmp(sub_argv[k], "-h") == 0) {
            meroctl_print_help(stdout, best);
            return MEROCTL_OK;
        }
    }
    return best->run(g, sub_argc, sub_argv);
}

const struct meroctl_cmd *meroctl_find(int argc, char **argv)
{
    for (int k = 0; k < ncmds; k++) {
        /* match() counts the path's words when all of them match: all of argv is the path */
        if (argc > 0 && match(cmds[k]->path, argc, argv) == argc) {
            return cmds[k];
        }
    }
    return NULL;
}

/* `meroctl help [CMD...]`: the command's help, or the list below a prefix (issue 35) */
static int run_help(const struct meroctl_global *g, int argc, char **argv)
{
    (void)g;
    const struct meroctl_cmd *c = meroctl_find(argc - 1, argv + 1);
    if (c != NULL) {
        meroctl_print_help(stdout, c);
        return MEROCTL_OK;
    }
    for (int k = 0; k < ncmds; k++) {
        if (prefix_matches(cmds[k]->path, argc - 1, argv + 1)) {
            usage(stdout, argc - 1, argv + 1);
            return MEROCTL_OK;
        }
    }
    int rc = meroctl_usage_error("help: no command '%s'", argc > 1 ? argv[1] : "");
    usage(stderr, 0, NULL);
    return rc;
}

MEROCTL_COMMANDS({"help", "[COMMAND...]", "describe a command and its options", run_help, NULL})

/* for `meroctl completion bash` (cmd_completion.c) */
int meroctl_commands(const struct meroctl_cmd ***out)
{
    *out = cmds;
    return ncmds;
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
    g.json = wants_json(argc, argv);
    meroctl_json_begin(g.json);
    if (mero_crypto_init() < 0) {
        return meroctl_json_end(meroctl_fail(MEROCTL_FAILED, "crypto init failed"));
    }
    return meroctl_json_end(dispatch(&g, argc, argv));
}
