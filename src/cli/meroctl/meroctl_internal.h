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

enum {
    MEROCTL_OK = 0,
    MEROCTL_USAGE = 1,
    MEROCTL_FAILED = 2,
    MEROCTL_UNREACHABLE = 3,
    MEROCTL_AUTH = 4
};

struct meroctl_global {
    const char *node;       /* --node URL (default http://127.0.0.1:2528) */
    const char *token_file; /* --token-file or MERO_TOKEN_FILE */
    bool json;              /* --json */
    bool quiet;
    int timeout_s;
    /* ---- issue 31: --sealed (sealed.c): admin calls through a sealed session ---- */
    bool sealed;
    bool sealed_accept_mock;    /* --sealed-accept-mock: a mock node's quote is trusted */
    const char *sealed_mrtd[8]; /* --sealed-mrtd HEX96, repeatable: a real quote's MRTD */
    int n_sealed_mrtd;
};

struct meroctl_cmd {
    const char *path;  /* "eventlog replay" */
    const char *usage; /* "--data F [--table T] [--json]" */
    const char *help;  /* one line */
    /* argv[0] is the last word of the path; returns an exit code */
    int (*run)(const struct meroctl_global *g, int argc, char **argv);
};

void meroctl_register(const struct meroctl_cmd *cmds, int n);
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
