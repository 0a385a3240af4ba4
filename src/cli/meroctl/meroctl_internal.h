/* SPDX-License-Identifier: Apache-2.0 */
/*
 * meroctl_internal.h - the command registry shared by meroctl's files. Each cmd_*.c registers its
 * commands from a constructor (MEROCTL_COMMANDS), so adding a command never edits main.c.
 * A command path is words separated by spaces ("group settings set-tee-admission-policy").
 *
 * Exit codes (documented in man/meroctl.1): 0 ok, 1 usage/bad input, 2 failed or refused,
 * 3 node unreachable, 4 authentication failed.
 */
#ifndef MEROCTL_H
#define MEROCTL_H

#include <stdbool.h>
#include <stdio.h>

enum {
    MEROCTL_OK = 0,
    MEROCTL_USAGE = 1,
    MEROCTL_FAILED = 2,
    MEROCTL_UNREACHABLE = 3,
    MEROCTL_AUTH = 4
};

/* --sealed's trust flags: MRTD and RTMR0-3, up to this many values each */
#define MEROCTL_SEALED_REGS   5
#define MEROCTL_SEALED_VALUES 8

struct meroctl_global {
    const char *node;       /* --node URL (default http://127.0.0.1:2528) */
    const char *token_file; /* --token-file or MERO_TOKEN_FILE */
    bool json;              /* --json */
    bool quiet;
    int timeout_s;
    bool token_file_given; /* --token-file on the command line (not MERO_TOKEN_FILE) */
    /* issue 35 item 8: why --node / MERO_NODE names no usable node (nodes.c), reported as a
     * usage error (exit 1) by the first request; NULL when g->node is a checked URL */
    const char *node_error;
    /* ---- issue 31: --sealed (sealed.c): admin calls through a sealed session ---- */
    bool sealed;
    bool sealed_accept_mock; /* --sealed-accept-mock: a mock node's quote is trusted */
    /* --sealed-mrtd / --sealed-rtmr0..3 HEX96, each repeatable: the values a quote's MRTD and
     * RTMR0-3 may carry ([0] MRTD, [1..4] RTMR0-3; an empty list checks nothing, except that a
     * real quote needs an MRTD list) */
    const char *sealed_reg[MEROCTL_SEALED_REGS][MEROCTL_SEALED_VALUES];
    int n_sealed_reg[MEROCTL_SEALED_REGS];
};

/*
 * One option of a command (issue 35): the one table that `meroctl CMD --help`, `meroctl help
 * CMD`, the completion scripts (cmd_completion.c) and the man page's check
 * (tests/e2e/meroctl_help.sh) read. A table ends with {NULL}.
 */
struct meroctl_opt {
    const char *flag;   /* "--role" */
    const char *arg;    /* "ROLE"; NULL for a switch */
    const char *help;   /* what it does, one line */
    const char *def;    /* the default, or NULL (none, or required) */
    const char *values; /* the allowed values, "Admin|Member|ReadOnly", or NULL (free form) */
    bool many;          /* may be given more than once */
    bool file;          /* its argument is a file name (completion offers files) */
};

struct meroctl_cmd {
    const char *path;  /* "eventlog replay" */
    const char *usage; /* "--data F [--table T]"; every --flag in it has an entry in opts */
    const char *help;  /* one line */
    /* argv[0] is the last word of the path; returns an exit code */
    int (*run)(const struct meroctl_global *g, int argc, char **argv);
    const struct meroctl_opt *opts; /* NULL when the command takes no option */
};

/* The global options (main.c), in the same form; ends with {NULL}. */
extern const struct meroctl_opt meroctl_globals[];
/* The command whose path is exactly the words given, or NULL. */
const struct meroctl_cmd *meroctl_find(int argc, char **argv);
/* `meroctl CMD --help` / `meroctl help CMD`: usage, description, every option (help.c). */
void meroctl_print_help(FILE *f, const struct meroctl_cmd *c);

void meroctl_register(const struct meroctl_cmd *cmds, int n);
/*
 * --node as Calimero's meroctl uses it (nodes.c): a URL (http[s]://HOST[:PORT], checked) or the
 * name of a node saved with `meroctl node add`; a name's token file applies when none was given.
 * Never fails: a problem is left in g->node_error for the first request to report (exit 1).
 */
void meroctl_resolve_node(struct meroctl_global *g);
/* The registered commands (main.c): *out gets the table, the count is returned. */
int meroctl_commands(const struct meroctl_cmd ***out);

/*
 * --json's one-document rule (client.c). _begin(json): with json, standard output is held in
 * memory and the first diagnostic line on standard error is remembered (it still reaches
 * stderr). _end(rc): prints what was held, or, when rc != 0 and the command printed nothing,
 * {"error":{"code":rc,"message":<first diagnostic>}}; returns rc.
 */
void meroctl_json_begin(bool json);
int meroctl_json_end(int rc);
/* Print "meroctl: <msg>" to stderr and return code. */
int meroctl_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define MEROCTL_COMMANDS(...)                                                                      \
    static const struct meroctl_cmd meroctl_cmds_[] = {__VA_ARGS__};                               \
    __attribute__((constructor)) static void meroctl_register_here_(void)                          \
    {                                                                                              \
        meroctl_register(meroctl_cmds_, (int)(sizeof(meroctl_cmds_) / sizeof(meroctl_cmds_[0])));  \
    }

#endif
