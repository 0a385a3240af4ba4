/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_reach.c - `meroctl group tee-admit SUBGROUP IDENTITY` (issue 16): an admin of a subgroup
 * admits a TEE already admitted at the namespace root into it, over
 * POST /admin-api/groups/:subgroupId/tee-admit {"identity": ...} (docs/api.md).
 *
 * Invariant: both ids are checked (64 hex) before anything is sent.
 */
#include <stdio.h>

#include "client_internal.h"

static int run_tee_admit(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 3 || !meroctl_is_id(argv[1]) || !meroctl_is_id(argv[2])) {
        return meroctl_usage_error("group tee-admit: SUBGROUP and IDENTITY (64 hex each) are "
                                   "required");
    }
    char path[200];
    snprintf(path, sizeof(path), "/admin-api/groups/%s/tee-admit", argv[1]);
    json_t *body = json_pack("{s:s}", "identity", argv[2]);
    int rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

MEROCTL_COMMANDS({"group tee-admit", "<SUBGROUP> <IDENTITY>",
                  "admit a TEE of the namespace root into a subgroup you administer", run_tee_admit,
                  NULL})
