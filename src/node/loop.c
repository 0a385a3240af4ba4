/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loop.c - `merod run`: the one libuv loop that owns all node state (ARCHITECTURE.md §3).
 * mero_node_start takes the loop and the signals and starts the network; the caller (merod)
 * then puts its server on the loop (the admin API, which the node does not know) and
 * registers its stop hook; mero_node_serve writes DIR/run.json (peer id, listen addresses, API
 * address, pid) and runs until SIGINT or SIGTERM. Stopping runs the stop hook first (the API
 * answers its suspended requests), then closes the network and every handle, then the
 * database, so a restart finds consistent state: every acknowledged write was committed
 * (synchronous=FULL) before its reply was sent.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "mero/clock.h"
#include "mero/log.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

static void on_signal(uv_signal_t *h, int signum)
{
    struct mero_node *node = h->data;
    MERO_INFO("signal %d: stopping", signum);
    mero_node_stop(node);
}

void mero_node_stop(struct mero_node *node)
{
    if (node->stopping) {
        return;
    }
    node->stopping = true;
    if (node->on_stop != NULL) {
        void (*fn)(void *) = node->on_stop;
        node->on_stop = NULL;
        fn(node->on_stop_ctx);
    }
    mero__node_service_stop(node);
    uv_signal_stop(&node->sigint);
    uv_signal_stop(&node->sigterm);
    uv_close((uv_handle_t *)&node->sigint, NULL);
    uv_close((uv_handle_t *)&node->sigterm, NULL);
}

static int write_run_json(struct mero_node *node, struct mero_err *err)
{
    json_t *addrs = mero__node_listen_addrs(node);
    json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:I, s:s}", "peerId", node->peer_id, "listenAddrs",
                          addrs ? addrs : json_array(), "api", node->api_bound, "apiUrl", "", "pid",
                          (json_int_t)getpid(), "name", node->cfg.name);
    if (o == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    char url[MERO_NODE_ADDR_MAX + 16];
    snprintf(url, sizeof(url), "%s://%s", node->tls_cert != NULL ? "https" : "http",
             node->api_bound);
    json_object_set_new(o, "apiUrl", json_string(url));
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    if (text == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    char path[MERO_NODE_PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/run.json", node->home);
    int rc = mero__node_write_file(path, text, strlen(text), 0644, err);
    free(text);
    return rc;
}

void mero_node_on_stop(struct mero_node *node, void (*fn)(void *ctx), void *ctx)
{
    node->on_stop = fn;
    node->on_stop_ctx = ctx;
}

int mero_node_start(struct mero_node *node, struct mero_err *err)
{
    node->loop = uv_default_loop();
    node->started_unix = mero_now_unix(); /* issue 19: metrics */
    signal(SIGPIPE, SIG_IGN);
    uv_signal_init(node->loop, &node->sigint);
    uv_signal_init(node->loop, &node->sigterm);
    node->sigint.data = node;
    node->sigterm.data = node;
    uv_signal_start(&node->sigint, on_signal, SIGINT);
    uv_signal_start(&node->sigterm, on_signal, SIGTERM);
    int rc = mero__node_service_start(node, err);
    if (rc < 0) {
        mero_node_abort(node);
    }
    return rc;
}

void mero_node_abort(struct mero_node *node)
{
    mero_node_stop(node);
    (void)uv_run(node->loop, UV_RUN_DEFAULT);
}

int mero_node_serve(struct mero_node *node, struct mero_err *err)
{
    int rc = write_run_json(node, err);
    if (rc < 0) {
        mero_node_abort(node);
        return rc;
    }
    MERO_INFO("peer id %s", node->peer_id);
    json_t *addrs = mero__node_listen_addrs(node);
    for (size_t i = 0; i < json_array_size(addrs); i++) {
        MERO_INFO("listening on %s", json_string_value(json_array_get(addrs, i)));
    }
    json_decref(addrs);
    MERO_INFO("admin api on %s://%s (tee: %s)", node->tls_cert != NULL ? "https" : "http",
              node->api_bound,
              node->tee == MERO_TEE_REAL   ? "tdx"
              : node->tee == MERO_TEE_MOCK ? "mock"
                                           : "none");
    (void)uv_run(node->loop, UV_RUN_DEFAULT);
    char path[MERO_NODE_PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/run.json", node->home);
    (void)unlink(path);
    if (uv_loop_close(node->loop) != 0) {
        MERO_WARN("loop closed with handles still open");
    }
    MERO_INFO("stopped");
    return 0;
}
