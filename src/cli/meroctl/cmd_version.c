/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_version.c - `meroctl version`. */
#include <stdio.h>

#include "meroctl_internal.h"

static int run_version(const struct meroctl_global *g, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (g->json) {
        printf("{\"version\":\"0.1.0\"}\n");
    } else {
        printf("meroctl 0.1.0\n");
    }
    return MEROCTL_OK;
}

MEROCTL_COMMANDS({"version", "", "print the version", run_version, NULL})
