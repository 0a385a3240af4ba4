/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.c - the admin API's HTTP server: libmicrohttpd in external mode with its epoll fd
 * watched by a uv_poll handle on the node's loop, plus a uv_timer armed from
 * MHD_get_timeout after every MHD_run (ARCHITECTURE.md §3: one loop, no threads, no locks).
 *
 * Each connection gets a struct api_req that accumulates the body up to API_BODY_MAX (413
 * beyond, whether announced by Content-Length or discovered while reading), then is
 * dispatched once. A handler that does not reply at once leaves the connection suspended
 * (MHD_suspend_connection); its later reply resumes it, which wakes the epoll fd through MHD's
 * inter-thread channel. On stop every suspended request is answered 503 before the daemon is
 * stopped, so no connection is left hanging and no request state outlives the server.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>
#include <uv.h>

#include "api/api.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "node/node.h"

struct mero_api_server {
    struct mero_node *node;
    struct MHD_Daemon *d;
    uv_poll_t poll;
    uv_timer_t timer;
    struct api_req *suspended;
    int open_handles;
    bool stopping;
};

static void pump(struct mero_api_server *s);

static void on_timer(uv_timer_t *t)
{
    pump(t->data);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    pump(p->data);
}

static void pump(struct mero_api_server *s)
{
    if (s->d == NULL) {
        return;
    }
    (void)MHD_run(s->d);
    MHD_UNSIGNED_LONG_LONG ms = 0;
    uint64_t next = 1000;
    if (MHD_get_timeout(s->d, &ms) == MHD_YES) {
        next = ms < 1000 ? (uint64_t)ms : 1000;
    }
    uv_timer_start(&s->timer, on_timer, next, 0);
}

static enum api_method method_of(const char *m)
{
    if (strcmp(m, "GET") == 0) {
        return API_GET;
    }
    if (strcmp(m, "POST") == 0) {
        return API_POST;
    }
    if (strcmp(m, "PUT") == 0) {
        return API_PUT;
    }
    if (strcmp(m, "DELETE") == 0) {
        return API_DELETE;
    }
    return API_OTHER;
}

static enum MHD_Result queue(struct api_req *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->resp_len, r->resp, MHD_RESPMEM_MUST_COPY);
    if (resp == NULL) {
        return MHD_NO;
    }
    (void)MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    (void)MHD_add_response_header(resp, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void unlink_suspended(struct api_req *r)
{
    struct api_req **pp = &r->srv->suspended;
    while (*pp != NULL) {
        if (*pp == r) {
            *pp = r->next_suspended;
            break;
        }
        pp = &(*pp)->next_suspended;
    }
    r->next_suspended = NULL;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls)
{
    struct mero_api_server *s = cls;
    struct api_req *r = *con_cls;
    (void)version;
    if (r == NULL) {
        r = calloc(1, sizeof(*r));
        if (r == NULL) {
            return MHD_NO;
        }
        r->node = s->node;
        r->srv = s;
        r->conn = c;
        r->method = method_of(method);
        mero_buf_init(&r->body, API_BODY_MAX);
        *con_cls = r;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        uint64_t n = 0;
        if (cl != NULL && (mero_parse_u64(cl, UINT64_MAX, &n) < 0 || n > API_BODY_MAX)) {
            r->dispatched = true;
            api_reply_error(r, 413, "request body larger than %u bytes", API_BODY_MAX);
            return queue(r);
        }
        return MHD_YES;
    }
    if (r->replied && r->dispatched && *upload_data_size == 0) {
        return queue(r); /* resumed after an asynchronous reply */
    }
    if (*upload_data_size != 0) {
        if (!r->too_big && mero_buf_append(&r->body, upload_data, *upload_data_size) < 0) {
            r->too_big = true;
            mero_buf_cleanup(&r->body);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (r->dispatched) {
        return MHD_YES; /* suspended; MHD should not call again, but be safe */
    }
    r->dispatched = true;
    if (r->too_big) {
        api_reply_error(r, 413, "request body larger than %u bytes", API_BODY_MAX);
        return queue(r);
    }
    api_dispatch(r, url,
                 MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    if (r->replied) {
        return queue(r);
    }
    if (s->stopping) {
        api_reply_error(r, 503, "node is stopping");
        return queue(r);
    }
    r->suspended = true;
    r->next_suspended = s->suspended;
    s->suspended = r;
    MHD_suspend_connection(c);
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    struct api_req *r = *con_cls;
    if (r == NULL) {
        return;
    }
    if (r->suspended) {
        unlink_suspended(r);
    }
    mero_buf_cleanup(&r->body);
    free(r->resp);
    free(r);
    *con_cls = NULL;
}

static void set_response(struct api_req *r, int status, json_t *root)
{
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    free(r->resp);
    if (text == NULL) {
        static const char fallback[] = "{\"error\":{\"status\":500,\"message\":\"out of memory\"}}";
        r->resp = malloc(sizeof(fallback));
        r->resp_len = 0;
        r->status = 500;
        if (r->resp != NULL) {
            memcpy(r->resp, fallback, sizeof(fallback));
            r->resp_len = sizeof(fallback) - 1;
        }
    } else {
        r->resp = text;
        r->resp_len = strlen(text);
        r->status = status;
    }
    r->replied = true;
    if (r->suspended) {
        unlink_suspended(r);
        r->suspended = false;
        MHD_resume_connection(r->conn);
        pump(r->srv);
    }
}

void api_reply_data(struct api_req *r, int status, json_t *data)
{
    if (r->replied) {
        json_decref(data);
        return;
    }
    set_response(r, status, json_pack("{s:o}", "data", data ? data : json_null()));
}

void api_reply_error(struct api_req *r, int status, const char *fmt, ...)
{
    if (r->replied) {
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    set_response(r, status, json_pack("{s:{s:i, s:s}}", "error", "status", status, "message", msg));
}

static int parse_hostport(const char *hp, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(hp, ':');
    if (colon == NULL || (size_t)(colon - hp) >= sizeof(host)) {
        return -MERO_EINVAL;
    }
    memcpy(host, hp, (size_t)(colon - hp));
    host[colon - hp] = 0;
    uint64_t port;
    if (mero_parse_u64(colon + 1, 65535, &port) < 0) {
        return -MERO_EINVAL;
    }
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        return -MERO_EINVAL;
    }
    return 0;
}

int mero_api_start(struct mero_node *node, struct mero_err *err)
{
    struct sockaddr_in sa;
    if (parse_hostport(node->cfg.api, &sa) < 0) {
        return mero_err_set(err, MERO_EINVAL, "bad api address '%s' (want IPv4 host:port)",
                            node->cfg.api);
    }
    struct mero_api_server *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    s->node = node;
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    s->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_access, s, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)30, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_END);
    if (s->d == NULL) {
        free(s);
        return mero_err_set(err, MERO_EIO, "cannot listen on %s", node->cfg.api);
    }
    const union MHD_DaemonInfo *ep = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
    const union MHD_DaemonInfo *pi = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    if (ep == NULL || pi == NULL) {
        MHD_stop_daemon(s->d);
        free(s);
        return mero_err_set(err, MERO_EIO, "libmicrohttpd lacks epoll support");
    }
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
    snprintf(node->api_bound, sizeof(node->api_bound), "%s:%u", host, (unsigned)pi->port);
    uv_poll_init(node->loop, &s->poll, ep->epoll_fd);
    uv_timer_init(node->loop, &s->timer);
    s->poll.data = s;
    s->timer.data = s;
    uv_poll_start(&s->poll, UV_READABLE, on_poll);
    node->api = s;
    pump(s);
    return 0;
}

static void on_closed(uv_handle_t *h)
{
    struct mero_api_server *s = h->data;
    if (--s->open_handles == 0) {
        free(s);
    }
}

void mero_api_stop(struct mero_node *node)
{
    struct mero_api_server *s = node->api;
    if (s == NULL) {
        return;
    }
    s->stopping = true;
    while (s->suspended != NULL) {
        api_reply_error(s->suspended, 503, "node is stopping");
    }
    (void)MHD_run(s->d); /* flush the resumed replies where the peer is reading */
    MHD_stop_daemon(s->d);
    s->d = NULL;
    s->open_handles = 2;
    uv_poll_stop(&s->poll);
    uv_timer_stop(&s->timer);
    uv_close((uv_handle_t *)&s->poll, on_closed);
    uv_close((uv_handle_t *)&s->timer, on_closed);
    node->api = NULL;
}
