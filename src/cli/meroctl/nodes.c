/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nodes.c - named nodes (issue 35 item 8), as Calimero's meroctl resolves aliases: `meroctl
 * node add NAME URL [--token-file F]`, `meroctl node ls`, `meroctl node rm NAME`, and `--node
 * NAME` (or MERO_NODE=NAME) resolving to the saved URL and token file. The file is
 * $MEROCTL_CONFIG, else $XDG_CONFIG_HOME/meroctl/nodes.json, else ~/.config/meroctl/nodes.json:
 * {"nodes": {"NAME": {"url": "http://HOST:PORT", "tokenFile": "/abs/path"?}}}.
 *
 * Invariants: a URL is checked before it is used or saved (http or https, a host, an optional
 * port 1-65535, nothing else), so a malformed one is a usage error (exit 1), never an
 * unreachable node (3); the file is validated by content when read (a bad entry names the file
 * and the entry) and replaced atomically (temporary file, fsync, rename) with mode 0600; the
 * token itself is never stored, only its file's path.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_internal.h"
#include "meroctl_internal.h"
#include "mero/encoding.h"

#define NODE_NAME_MAX  64         /* a node name's characters */
#define NODE_URL_MAX   256        /* a node URL's characters */
#define NODES_FILE_MAX (1u << 20) /* the config file's bytes at most */
#define NODES_PATH_MAX PATH_MAX

/* 0 when s is a node name: 1-64 of [A-Za-z0-9._-], not starting with '-' or '.' */
static int check_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > NODE_NAME_MAX || s[0] == '-' || s[0] == '.') {
        return -MERO_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) == NULL) {
            return -MERO_EINVAL;
        }
    }
    return 0;
}

/* 0 when url is http[s]://HOST[:PORT][/], HOST a name, IPv4 or [IPv6]; why says what is wrong */
static int check_url(const char *url, const char **why)
{
    const char *p = url;
    if (strlen(url) > NODE_URL_MAX) {
        *why = "is too long";
        return -MERO_EINVAL;
    }
    if (strncmp(p, "http://", 7) == 0) {
        p += 7;
    } else if (strncmp(p, "https://", 8) == 0) {
        p += 8;
    } else {
        *why = "must start with http:// or https://";
        return -MERO_EINVAL;
    }
    size_t h = 0;
    if (*p == '[') {
        const char *e = strchr(p, ']');
        if (e == NULL || e == p + 1) {
            *why = "has an unclosed or empty [IPv6] host";
            return -MERO_EINVAL;
        }
        for (const char *q = p + 1; q < e; q++) {
            if (!isxdigit((unsigned char)*q) && *q != ':' && *q != '.') {
                *why = "has a bad [IPv6] host";
                return -MERO_EINVAL;
            }
        }
        h = (size_t)(e - p) + 1;
    } else {
        while (isalnum((unsigned char)p[h]) || p[h] == '.' || p[h] == '-') {
            h++;
        }
        if (h == 0) {
            *why = "has no host";
            return -MERO_EINVAL;
        }
    }
    p += h;
    if (*p == ':') {
        uint64_t port;
        char digits[8];
        size_t d = strspn(p + 1, "0123456789");
        if (d == 0 || d >= sizeof(digits)) {
            *why = "has a bad port";
            return -MERO_EINVAL;
        }
        memcpy(digits, p + 1, d);
        digits[d] = 0;
        if (mero_parse_u64(digits, 65535, &port) < 0 || port == 0) {
            *why = "has a port outside 1-65535";
            return -MERO_EINVAL;
        }
        p += 1 + d;
    }
    if (*p == '/') {
        p++;
    }
    if (*p != 0) {
        *why = "has something after HOST:PORT (a path, a query, a space or a control byte)";
        return -MERO_EINVAL;
    }
    return 0;
}

static int config_path(char *out, size_t cap)
{
    const char *e = getenv("MEROCTL_CONFIG");
    int n;
    if (e != NULL && e[0] != 0) {
        n = snprintf(out, cap, "%s", e);
    } else if ((e = getenv("XDG_CONFIG_HOME")) != NULL && e[0] == '/') {
        n = snprintf(out, cap, "%s/meroctl/nodes.json", e);
    } else if ((e = getenv("HOME")) != NULL && e[0] != 0) {
        n = snprintf(out, cap, "%s/.config/meroctl/nodes.json", e);
    } else {
        return -MERO_ENOTFOUND;
    }
    return n > 0 && (size_t)n < cap ? 0 : -MERO_ETOOBIG;
}

/* The saved nodes: *out an object of NAME -> {url, tokenFile?} (owned; empty when there is no
 * file). 0, or a negative code with why (static storage) naming the file and the problem
 * (none when out of memory). */
static int load_nodes(const char *path, json_t **out, const char **why)
{
    static char msg[NODES_PATH_MAX + 200];
    *out = NULL;
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        if (errno == ENOENT) {
            *out = json_object();
            return *out != NULL ? 0 : -MERO_ENOMEM;
        }
        snprintf(msg, sizeof(msg), "cannot read %s: %s", path, strerror(errno));
        *why = msg;
        return -MERO_EIO;
    }
    json_error_t je;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    long size = ftell(f);
    fclose(f);
    json_t *nodes = json_object_get(root, "nodes");
    if (root == NULL || size < 0 || (unsigned long)size > NODES_FILE_MAX ||
        !json_is_object(nodes) || json_object_size(root) != 1) {
        snprintf(msg, sizeof(msg),
                 "%s is not a meroctl nodes file ({\"nodes\": {NAME: {\"url\": ...}}})", path);
        json_decref(root);
        *why = msg;
        return -MERO_EJSON;
    }
    const char *name;
    json_t *v;
    json_object_foreach(nodes, name, v)
    {
        const char *url = json_string_value(json_object_get(v, "url")), *uwhy = "";
        json_t *tf = json_object_get(v, "tokenFile");
        size_t keys = json_object_size(v);
        if (check_name(name) < 0 || !json_is_object(v) || url == NULL ||
            check_url(url, &uwhy) < 0 || (tf != NULL && !json_is_string(tf)) ||
            keys != (tf != NULL ? 2u : 1u)) {
            snprintf(msg, sizeof(msg), "%s: the entry for '%.64s' is malformed", path, name);
            json_decref(root);
            *why = msg;
            return -MERO_EJSON;
        }
    }
    *out = json_incref(nodes);
    json_decref(root);
    return 0;
}

void meroctl_resolve_node(struct meroctl_global *g)
{
    static char why_buf[NODES_PATH_MAX + 300];
    static char url[NODE_URL_MAX + 1], token_file[NODES_PATH_MAX];
    const char *why = NULL;
    g->node_error = NULL;
    if (strstr(g->node, "://") != NULL) {
        if (check_url(g->node, &why) < 0) {
            snprintf(why_buf, sizeof(why_buf), "--node '%.300s' is not a node URL: it %s", g->node,
                     why);
            g->node_error = why_buf;
        }
        return;
    }
    if (check_name(g->node) < 0) {
        snprintf(why_buf, sizeof(why_buf),
                 "--node '%.300s' is neither a URL (http://HOST:PORT) nor a node name "
                 "(1-64 of A-Z a-z 0-9 . _ -)",
                 g->node);
        g->node_error = why_buf;
        return;
    }
    char path[NODES_PATH_MAX];
    json_t *nodes = NULL;
    if (config_path(path, sizeof(path)) < 0) {
        snprintf(why_buf, sizeof(why_buf), "--node %s: no nodes file (set MEROCTL_CONFIG or HOME)",
                 g->node);
        g->node_error = why_buf;
        return;
    }
    if (load_nodes(path, &nodes, &why) < 0) {
        snprintf(why_buf, sizeof(why_buf), "--node %s: %s", g->node, why);
        g->node_error = why_buf;
        return;
    }
    json_t *e = json_object_get(nodes, g->node);
    if (e == NULL) {
        snprintf(why_buf, sizeof(why_buf),
                 "no node named '%s' in %s (meroctl node add %s URL, meroctl node ls)", g->node,
                 path, g->node);
        g->node_error = why_buf;
    } else {
        snprintf(url, sizeof(url), "%s", json_string_value(json_object_get(e, "url")));
        g->node = url;
        const char *tf = json_string_value(json_object_get(e, "tokenFile"));
        if (tf != NULL && !g->token_file_given) {
            snprintf(token_file, sizeof(token_file), "%s", tf);
            g->token_file = token_file;
        }
    }
    json_decref(nodes);
}

/* Write nodes to path atomically, mode 0600, creating its directory (0700) when missing. */
static int save_nodes(const char *path, json_t *nodes)
{
    char dir[NODES_PATH_MAX], tmp[NODES_PATH_MAX + 8];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = 0;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
            /* one missing parent (~/.config) is made too */
            char *up = strrchr(dir, '/');
            if (up != NULL && up != dir) {
                *up = 0;
                (void)mkdir(dir, 0700);
                *up = '/';
            }
            if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
                return meroctl_fail(MEROCTL_FAILED, "cannot create %s: %s", dir, strerror(errno));
            }
        }
    }
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
        return meroctl_usage_error("the nodes file path is too long");
    }
    json_t *root = json_pack("{s:O}", "nodes", nodes);
    char *text = root != NULL ? json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(root);
    if (text == NULL) {
        return meroctl_fail(MEROCTL_FAILED, "out of memory");
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t len = strlen(text);
    bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
              fsync(fd) == 0;
    free(text);
    if (fd >= 0) {
        ok = close(fd) == 0 && ok;
    }
    if (!ok || rename(tmp, path) < 0) {
        int e = errno;
        (void)unlink(tmp);
        return meroctl_fail(MEROCTL_FAILED, "cannot write %s: %s", path, strerror(e));
    }
    return MEROCTL_OK;
}

static int open_nodes(char *path, size_t cap, json_t **nodes)
{
    const char *why = NULL;
    if (config_path(path, cap) < 0) {
        return meroctl_usage_error("no nodes file: set MEROCTL_CONFIG or HOME");
    }
    if (load_nodes(path, nodes, &why) < 0) {
        return meroctl_fail(MEROCTL_FAILED, "%s", why != NULL ? why : "out of memory");
    }
    return MEROCTL_OK;
}

static int run_node_add(const struct meroctl_global *g, int argc, char **argv)
{
    const char *why = NULL;
    if (argc != 3) {
        return meroctl_usage_error("node add takes NAME URL (and --token-file F)");
    }
    if (check_name(argv[1]) < 0) {
        return meroctl_usage_error("node name '%s' must be 1-64 of A-Z a-z 0-9 . _ - (not "
                                   "starting with - or .)",
                                   argv[1]);
    }
    if (check_url(argv[2], &why) < 0) {
        return meroctl_usage_error("'%s' is not a node URL: it %s", argv[2], why);
    }
    char tf[NODES_PATH_MAX];
    if (g->token_file_given && realpath(g->token_file, tf) == NULL) {
        return meroctl_usage_error("cannot find token file %s: %s", g->token_file, strerror(errno));
    }
    char path[NODES_PATH_MAX];
    json_t *nodes = NULL;
    int rc = open_nodes(path, sizeof(path), &nodes);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    json_t *e = json_pack("{s:s}", "url", argv[2]);
    if (e != NULL && g->token_file_given) {
        json_object_set_new(e, "tokenFile", json_string(tf));
    }
    if (e == NULL || json_object_set_new(nodes, argv[1], e) < 0) {
        json_decref(nodes);
        return meroctl_fail(MEROCTL_FAILED, "out of memory");
    }
    rc = save_nodes(path, nodes);
    json_decref(nodes);
    if (rc == MEROCTL_OK && !g->quiet) {
        if (g->json) {
            printf("{\"name\":\"%s\",\"file\":", argv[1]);
            json_t *p = json_string(path);
            json_dumpf(p, stdout, JSON_ENCODE_ANY);
            json_decref(p);
            printf("}\n");
        } else {
            printf("saved node %s (%s) in %s\n", argv[1], argv[2], path);
        }
    }
    return rc;
}

static int run_node_rm(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 2 || check_name(argv[1]) < 0) {
        return meroctl_usage_error("node rm takes one node name");
    }
    char path[NODES_PATH_MAX];
    json_t *nodes = NULL;
    int rc = open_nodes(path, sizeof(path), &nodes);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    if (json_object_del(nodes, argv[1]) < 0) {
        json_decref(nodes);
        return meroctl_fail(MEROCTL_FAILED, "no node named '%s' in %s", argv[1], path);
    }
    rc = save_nodes(path, nodes);
    json_decref(nodes);
    (void)g;
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int run_node_ls(const struct meroctl_global *g, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        return meroctl_usage_error("node ls takes no arguments");
    }
    char path[NODES_PATH_MAX];
    json_t *nodes = NULL;
    int rc = open_nodes(path, sizeof(path), &nodes);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    if (g->json) {
        char *t = json_dumps(nodes, JSON_COMPACT | JSON_SORT_KEYS);
        printf("%s\n", t != NULL ? t : "{}");
        free(t);
    } else {
        const char **names = calloc(json_object_size(nodes) + 1, sizeof(*names));
        if (names == NULL) {
            json_decref(nodes);
            return meroctl_fail(MEROCTL_FAILED, "out of memory");
        }
        size_t n = 0;
        const char *name;
        json_t *v;
        json_object_foreach(nodes, name, v)
        {
            (void)v;
            names[n++] = name;
        }
        qsort(names, n, sizeof(*names), cmp_names);
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_object_get(nodes, names[i]);
            const char *tf = json_string_value(json_object_get(e, "tokenFile"));
            printf("%-16s %s%s%s\n", names[i], json_string_value(json_object_get(e, "url")),
                   tf != NULL ? "  token " : "", tf != NULL ? tf : "");
        }
        free(names);
    }
    json_decref(nodes);
    return MEROCTL_OK;
}

MEROCTL_COMMANDS({"node add", "NAME URL",
                  "save a node under a name for --node NAME (with --token-file: its token file)",
                  run_node_add, NULL},
                 {"node ls", "", "list the saved nodes", run_node_ls, NULL},
                 {"node rm", "NAME", "forget a saved node", run_node_rm, NULL})
