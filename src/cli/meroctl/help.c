/* SPDX-License-Identifier: Apache-2.0 */
/*
 * help.c - `meroctl CMD --help` and `meroctl help CMD` (issue 35): the command's usage line,
 * its one-line description, then every option from its table (meroctl_internal.h's
 * struct meroctl_opt): what it takes, its allowed values, its default, whether it repeats;
 * then the global options from the same kind of table.
 *
 * Invariant: everything printed comes from the command registry, the same table the usage
 * line, the completion scripts and the man page's check read, so help cannot drift from them.
 */
#include <stdio.h>
#include <string.h>

#include "meroctl_internal.h"

#define HEAD_W 26

/* "  --flag ARG ...            what it does" and, when there is any, a second line
 * "                             (one of: ...; default: ...; may be repeated)" */
static void print_opt(FILE *f, const struct meroctl_opt *o)
{
    char head[HEAD_W + 70]; /* flag, argument and " ..."; a longer one is cut */
    snprintf(head, sizeof(head), "%s%s%s%s", o->flag, o->arg != NULL ? " " : "",
             o->arg != NULL ? o->arg : "", o->many ? " ..." : "");
    if (strlen(head) > HEAD_W) {
        fprintf(f, "  %s\n  %-*s %s\n", head, HEAD_W, "", o->help);
    } else {
        fprintf(f, "  %-*s %s\n", HEAD_W, head, o->help);
    }
    if (o->values == NULL && o->def == NULL && !o->many) {
        return;
    }
    const char *join = "";
    fprintf(f, "  %-*s (", HEAD_W, "");
    if (o->values != NULL) {
        fprintf(f, "one of: %s", o->values);
        join = "; ";
    }
    if (o->def != NULL) {
        fprintf(f, "%sdefault: %s", join, o->def);
        join = "; ";
    }
    if (o->many) {
        fprintf(f, "%smay be repeated", join);
    }
    fputs(")\n", f);
}

void meroctl_print_help(FILE *f, const struct meroctl_cmd *c)
{
    fprintf(f, "usage: meroctl %s%s%s\n\n  %s\n", c->path, c->usage[0] ? " " : "", c->usage,
            c->help);
    if (c->opts != NULL && c->opts[0].flag != NULL) {
        fprintf(f, "\noptions:\n");
        for (const struct meroctl_opt *o = c->opts; o->flag != NULL; o++) {
            print_opt(f, o);
        }
    }
    fprintf(f, "\nglobal options (before or after the command):\n");
    for (const struct meroctl_opt *o = meroctl_globals; o->flag != NULL; o++) {
        print_opt(f, o);
    }
    fprintf(f, "\nexit status: 0 ok, 1 usage or bad input, 2 failed or refused, "
               "3 node unreachable, 4 authentication failed\n"
               "see also: meroctl(1)\n");
}
