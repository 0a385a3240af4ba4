/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_ctx.c - `meroctl context create|list` and `meroctl kv put|get`. */
#include <stdio.h>
#include <string.h>

#include "client_internal.h"

static int run_ctx_create(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 2 || !meroctl_is_id(argv[1])) {
        return meroctl_usage_error("context create needs <GROUP> (64 hex)");
    }
    char path[200];
    snprintf(path, sizeof(path), "/admin-api/groups/%s/contexts", argv[1]);
    json_t *body = json_object();
    int rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

static int run_ctx_list(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 2 || !meroctl_is_id(argv[1])) {
        return meroctl_usage_error("context list needs <GROUP> (64 hex)");
    }
    char path[200];
    snprintf(path, sizeof(path), "/admin-api/groups/%s/contexts", argv[1]);
    return meroctl_simple(g, "GET", path, NULL, true);
}

static int kv_path(char *out, size_t cap, int argc, char **argv, int want)
{
    char ctx[200], key[800];
    if (argc != want || !meroctl_is_id(argv[1]) || strlen(argv[2]) == 0 || strlen(argv[2]) > 256 ||
        meroctl_path_segment(ctx, sizeof(ctx), argv[1]) < 0 ||
        meroctl_path_segment(key, sizeof(key), argv[2]) < 0) {
        return meroctl_usage_error("kv needs <CONTEXT> (64 hex) <KEY> (1-256 chars)%s",
                                   want == 4 ? " <VALUE>" : "");
    }
    /* the key is one path segment, encoded: 'a?b' must not become key 'a' and query 'b' */
    snprintf(out, cap, "/admin-api/contexts/%s/kv/%s", ctx, key);
    return 0;
}

static int run_kv_put(const struct meroctl_global *g, int argc, char **argv)
{
    char path[1024];
    int rc = kv_path(path, sizeof(path), argc, argv, 4);
    if (rc != 0) {
        return rc;
    }
    json_t *body = json_pack("{s:s}", "value", argv[3]);
    rc = meroctl_simple(g, "PUT", path, body, true);
    json_decref(body);
    return rc;
}

static int run_kv_get(const struct meroctl_global *g, int argc, char **argv)
{
    char path[1024];
    int rc = kv_path(path, sizeof(path), argc, argv, 3);
    return rc ? rc : meroctl_simple(g, "GET", path, NULL, true);
}

MEROCTL_COMMANDS({"context create", "<GROUP>", "create a context in a group", run_ctx_create, NULL},
                 {"context list", "<GROUP>", "list the contexts of a group's namespace",
                  run_ctx_list, NULL},
                 {"kv put", "<CONTEXT> <KEY> <VALUE>", "write a key (a signed, encrypted delta)",
                  run_kv_put, NULL},
                 {"kv get", "<CONTEXT> <KEY>", "read a key", run_kv_get, NULL})
