/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_node.c - `meroctl node info`, `meroctl namespace create|join`. */
#include <stdio.h>
#include <string.h>

#include "client_internal.h"

static int run_node_info(const struct meroctl_global *g, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        return meroctl_usage_error("node info takes no arguments");
    }
    return meroctl_simple(g, "GET", "/admin-api/node", NULL, true);
}

static int run_ns_create(const struct meroctl_global *g, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        return meroctl_usage_error("namespace create takes no arguments");
    }
    json_t *body = json_object();
    int rc = meroctl_simple(g, "POST", "/admin-api/namespaces", body, true);
    json_decref(body);
    return rc;
}

static int run_ns_join(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 2 || !meroctl_is_id(argv[1])) {
        return meroctl_usage_error("namespace join needs a namespace id (64 hex)");
    }
    char path[160];
    snprintf(path, sizeof(path), "/admin-api/namespaces/%s/join", argv[1]);
    json_t *body = json_object();
    int rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

MEROCTL_COMMANDS({"node info", "", "show the node's peer id, listen addresses and identity",
                  run_node_info, NULL},
                 {"namespace create", "", "create a namespace; this node becomes its admin",
                  run_ns_create, NULL},
                 {"namespace join", "<NS>",
                  "follow a namespace and print this node's identity in it (give it to an admin)",
                  run_ns_join, NULL})
