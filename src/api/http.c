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
 *
 * The request object is created by the URI-log callback, which sees the request line's URI
 * before libmicrohttpd decodes it: the router works on that raw path (a decoded "%00" would
 * cut the string short), and an encoded NUL in the path or query is refused 400, as is a
 * query with a bad escape or a repeated name (mero__api_query_check). An Authorization value
 * with bytes after a raw NUL (libmicrohttpd ends the value at the NUL) is no token: the
 * request is unauthenticated (issue 32). Framing in doubt (two Content-Length, Content-Length
 * with Transfer-Encoding) is refused 400 with Connection: close. Every answer carries
 * X-Content-Type-Options: nosniff. Every connection is tracked by the guard (guard.c: caps,
 * deadlines, eviction), fed by the accept-policy and connection-notify callbacks and the
 * request phases set here; its sweep runs from pump() every SWEEP_MS.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>
#include <uv.h>

#include "api/api_internal.h"
#include "api/sealed_internal.h"
#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/api.h"
#include "mero/node.h"

struct mero_api_server {
    struct mero_node *node;
    struct MHD_Daemon *d;
    uv_poll_t poll;
    uv_timer_t timer;
    struct api_req *suspended;
    struct api_guard guard;
    uint64_t next_sweep_ms;
    int open_handles;
    bool stopping;
    struct sealed_table sealed; /* issue 31: the sealed sessions (sealed_table.c) */
    uint64_t next_sealed_sweep_ms;
};

#define SWEEP_MS 250 /* how often connection deadlines are checked */
/* a sealed request's envelope: header, the inner head length, head and body, tag */
#define SEALED_BODY_MAX                                                                            \
    (MERO_SEALED_HEADER_LEN + 4u + MERO_SEALED_HEAD_MAX + API_BODY_MAX + MERO_AEAD_TAG_LEN)
/* the request line lives in libmicrohttpd's connection buffer (32 KiB by default) */
#define API_URI_SPAN_MAX    (64u * 1024u)
#define API_LISTEN_HOST_MAX 64 /* the host part of --api-addr (an IPv4 address) */

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
    uint64_t now = mero_now_ms();
    if (now >= s->next_sweep_ms) {
        mero__api_guard_sweep(&s->guard, now);
        s->next_sweep_ms = now + SWEEP_MS;
    }
    if (now >= s->next_sealed_sweep_ms) {
        /* forward secrecy rests on the keys going when the session does (issue 31) */
        mero__sealed_expire(&s->sealed, now);
        s->next_sealed_sweep_ms = now + SEALED_SWEEP_MS;
    }
    MHD_UNSIGNED_LONG_LONG ms = 0;
    uint64_t next = s->guard.n > 0 ? SWEEP_MS : 1000;
    if (MHD_get_timeout(s->d, &ms) == MHD_YES && ms < next) {
        next = (uint64_t)ms;
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
    (void)MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                  r->ctype != NULL ? r->ctype : "application/json");
    (void)MHD_add_response_header(resp, "Cache-Control", "no-store");
    /* every answer, JSON included (issue 32): a browser takes the declared type or nothing */
    (void)MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (r->page) {
        /* the admin page (issue 19): its own files only, no inline script, never framed */
        (void)MHD_add_response_header(resp, "Content-Security-Policy",
                                      "default-src 'self'; base-uri 'none'; form-action 'self'; "
                                      "frame-ancestors 'none'");
        (void)MHD_add_response_header(resp, "X-Frame-Options", "DENY");
        (void)MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    }
    if (r->sealed_body) {
        /* a proxy must not hold back the frames of a sealed answer (issue 31) */
        (void)MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    }
    if (r->retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof(ra), "%u", r->retry_after);
        (void)MHD_add_response_header(resp, "Retry-After", ra);
    }
    if (r->close_after) {
        /* the request's framing is not trusted: do not read another one from this stream */
        (void)MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    }
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

/* The reply is set (reply.c): resume the connection if the handler answered later. */
static void on_replied(struct api_req *r)
{
    if (r->suspended) {
        unlink_suspended(r);
        r->suspended = false;
        MHD_resume_connection(r->conn);
        pump(r->srv);
    }
}

static struct api_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

/* Called with the raw request line's URI, before libmicrohttpd decodes it: the request
 * object starts here, keeping the raw path for the router and noting an encoded NUL. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct mero_api_server *s = cls;
    struct api_req *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return NULL;
    }
    size_t n = strcspn(uri, "?#");
    r->raw_path = malloc(n + 1);
    if (r->raw_path == NULL) {
        free(r);
        return NULL;
    }
    memcpy(r->raw_path, uri, n);
    r->raw_path[n] = 0;
    r->uri_at = uri;
    r->uri_len = strlen(uri);
    for (const char *p = uri; (p = strchr(p, '%')) != NULL; p++) {
        if (p[1] == '0' && p[2] == '0') {
            r->bad_uri = true;
        }
    }
    if (!r->bad_uri && uri[n] == '?' &&
        mero__api_query_check(uri + n + 1, r->bad_uri_msg, sizeof(r->bad_uri_msg)) < 0) {
        r->bad_uri = true;
    }
    r->node = s->node;
    r->srv = s;
    r->conn = c;
    r->on_replied = on_replied;
    r->gc = conn_of(c);
    if (r->gc != NULL) {
        r->gc->req = r;
    }
    mero_buf_init(&r->body,
                  strcmp(r->raw_path, "/sealed/v2") == 0 ? SEALED_BODY_MAX : API_BODY_MAX);
    return r;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct mero_api_server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = mero__api_guard_started(&s->guard, c, mero_now_ms());
        return;
    }
    struct api_conn *gc = *socket_context;
    if (gc != NULL && gc->req != NULL) {
        gc->req->gc = NULL;
    }
    mero__api_guard_closed(&s->guard, gc);
    *socket_context = NULL;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    size_t key_size, const char *value, size_t value_size)
{
    size_t *counts = cls;
    (void)kind;
    (void)value;
    (void)value_size;
    if (key_size == 14 && strncasecmp(key, "Content-Length", 14) == 0) {
        counts[0]++;
    } else if (key_size == 17 && strncasecmp(key, "Transfer-Encoding", 17) == 0) {
        counts[1]++;
    } else if (key_size == 13 && strncasecmp(key, "Authorization", 13) == 0) {
        counts[2]++;
    }
    return MHD_YES;
}

/* The start of the header line after the one whose value ends at `end`: the nearest key
 * libmicrohttpd holds beyond it (headers sit in its read buffer in the order sent). */
struct next_key {
    uintptr_t end, next;
};

static enum MHD_Result nearest_key(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    struct next_key *k = cls;
    uintptr_t at = (uintptr_t)key;
    (void)kind;
    (void)key_size;
    (void)value;
    (void)value_size;
    if (at > k->end && (k->next == 0 || at < k->next)) {
        k->next = at;
    }
    return MHD_YES;
}

/* Whether a header value of len bytes at v is all its line held. libmicrohttpd ends a value
 * at a raw NUL byte, so "Bearer <token>\0junk" reads as the token; what the line held after
 * the value is still in the read buffer up to the next header's key (or the end of the header
 * block, for the last header), and may be only line-end bytes - NULs where libmicrohttpd
 * ended strings, CR, LF - and white space. When the line's end cannot be found, false (the
 * token is then refused: fail closed). Relies on libmicrohttpd 0.9.75 keeping the request
 * line and headers in its read buffer in the order sent (method first), as tested by
 * tests/e2e/api_hostile_paths.sh with the header first, last, and with bare LF line ends. */
static bool value_is_whole(struct MHD_Connection *c, const char *method, const char *v, size_t len)
{
    struct next_key k = {(uintptr_t)v + len, 0};
    (void)MHD_get_connection_values_n(c, MHD_HEADER_KIND, nearest_key, &k);
    if (k.next == 0) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
        uintptr_t start = (uintptr_t)method;
        if (ci == NULL || method == NULL || start >= k.end || k.end - start >= ci->header_size) {
            return false;
        }
        k.next = start + ci->header_size;
    }
    if (k.next - k.end > API_URI_SPAN_MAX) {
        return false;
    }
    for (const char *p = v + len; (uintptr_t)p < k.next; p++) {
        if (*p != 0 && *p != '\r' && *p != '\n' && *p != ' ' && *p != '\t') {
            return false;
        }
    }
    return true;
}

/* First look at a request whose headers are complete: 0 to go on, else a negative code with
 * the status already set as the reply. */
static int check_headers(struct api_req *r, struct MHD_Connection *c, const char *method,
                         const char *version)
{
    /* A raw NUL byte in the request line: libmicrohttpd finds the version by searching back
     * from the end of the line and ends the URI with a NUL where the space was, so the URI
     * string we saw must end exactly one byte before the version. If the version starts
     * further on, the URI held a NUL of its own and the rest was cut off (the same attack
     * as "%00", unencoded). */
    uintptr_t v = (uintptr_t)version, u = (uintptr_t)r->uri_at;
    if (version != NULL && version[0] != 0 && u != 0 && v > u && v - u > r->uri_len + 1 &&
        v - u <= API_URI_SPAN_MAX) {
        r->bad_uri = true;
    }
    if (r->bad_uri) {
        r->close_after = true;
        mero__api_refuse(r, MERO_EINVAL, "%s",
                         r->bad_uri_msg[0] != 0
                             ? r->bad_uri_msg
                             : "bad percent-encoding or NUL byte in the request path or query");
        return -MERO_EINVAL;
    }
    size_t counts[3] = {0, 0, 0};
    (void)MHD_get_connection_values_n(c, MHD_HEADER_KIND, count_header, counts);
    if (counts[0] > 1 || (counts[0] > 0 && counts[1] > 0) || counts[1] > 1) {
        /* two framings: which body is the request? (request smuggling) */
        r->close_after = true;
        mero__api_refuse(r, MERO_EINVAL, "conflicting Content-Length / Transfer-Encoding headers");
        return -MERO_EPROTO;
    }
    if (counts[2] > 1) {
        r->close_after = true;
        mero__api_refuse(r, MERO_EINVAL, "more than one Authorization header");
        return -MERO_EPROTO;
    }
    const char *auth = NULL;
    size_t alen = 0;
    if (counts[2] == 1 &&
        MHD_lookup_connection_value_n(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION,
                                      sizeof(MHD_HTTP_HEADER_AUTHORIZATION) - 1, &auth,
                                      &alen) == MHD_YES &&
        auth != NULL && !value_is_whole(c, method, auth, alen)) {
        /* "Bearer <token>\0more": the token as libmicrohttpd cut it is not what was sent */
        r->auth_hidden = true;
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    uint64_t n = 0;
    if (cl != NULL && (mero_parse_u64(cl, UINT64_MAX, &n) < 0 || n > r->body.max)) {
        r->close_after = true;
        mero__api_refuse(r, MERO_EBODY, "request body larger than %zu bytes", r->body.max);
        return -MERO_ETOOBIG;
    }
    if (mero_node_sealed_only(r->node) && !mero__api_sealed_plain_allowed(r->method, r->raw_path)) {
        /* refused before the body (and any token in it or the headers) is read (issue 31) */
        mero__api_refuse_raw(r, MERO_EPERM,
                             json_pack("{s:{s:s, s:s}}", "error", "code", "sealed_required",
                                       "message",
                                       "this node serves the admin API only over the sealed "
                                       "transport: attest (POST /admin-api/tee/attest), open a "
                                       "sealed session (POST /sealed/v2/handshake) and send the "
                                       "request through it (POST /sealed/v2)"));
        return -MERO_EPERM;
    }
    return 0;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls)
{
    struct mero_api_server *s = cls;
    struct api_req *r = *con_cls;
    (void)url; /* already decoded (a "%00" would cut it): the router uses r->raw_path */
    if (r == NULL) {
        return MHD_NO; /* on_uri ran out of memory */
    }
    if (!r->started) {
        r->started = true;
        r->method = method_of(method);
        mero__api_guard_phase(r->gc, API_CONN_BODY, mero_now_ms());
        if (check_headers(r, c, method, version) < 0) {
            r->dispatched = true;
            mero__api_guard_phase(r->gc, API_CONN_BUSY, mero_now_ms());
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
    mero__api_guard_phase(r->gc, API_CONN_BUSY, mero_now_ms());
    if (r->too_big) {
        mero__api_refuse(r, MERO_EBODY, "request body larger than %zu bytes", r->body.max);
        return queue(r);
    }
    size_t alen = 0;
    const char *auth = NULL;
    if (r->auth_hidden || MHD_lookup_connection_value_n(
                              c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION,
                              sizeof(MHD_HTTP_HEADER_AUTHORIZATION) - 1, &auth, &alen) != MHD_YES) {
        auth = NULL; /* none, or bytes hidden after a NUL: no token (401 where one is needed) */
        alen = 0;
    }
    if (strcmp(r->raw_path, "/sealed/v2/handshake") == 0) {
        mero__api_sealed_handshake(r, &s->sealed); /* issue 31: the token is inside */
    } else if (strcmp(r->raw_path, "/sealed/v2") == 0) {
        mero__api_sealed_exchange(r, &s->sealed);
    } else {
        mero__api_dispatch(r, r->raw_path, auth, alen);
    }
    if (r->replied) {
        return queue(r);
    }
    if (s->stopping) {
        mero__api_refuse(r, MERO_EUNAVAILABLE, "node is stopping");
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
    if (r->gc != NULL) {
        r->gc->req = NULL;
        /* the next request on a kept-alive connection has its own header deadline */
        mero__api_guard_phase(r->gc, API_CONN_HEADERS, mero_now_ms());
    }
    mero__api_req_free(r);
    *con_cls = NULL;
}

void mero__api_req_free(struct api_req *r)
{
    mero__api_sealed_detach(r);
    mero_buf_cleanup(&r->body);
    free(r->raw_path);
    free(r->query);
    free(r->resp);
    free(r);
}

/* libmicrohttpd's own messages (one per dropped connection under a flood) go to the debug
 * level; the guard's rate-limited summary is the warning an operator sees. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[256];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    MERO_DEBUG("libmicrohttpd: %s", msg);
}
#pragma GCC diagnostic pop

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct mero_api_server *s = cls;
    (void)addrlen;
    return mero__api_guard_accept(&s->guard, addr) ? MHD_YES : MHD_NO;
}

static int parse_hostport(const char *hp, struct sockaddr_in *sa)
{
    char host[API_LISTEN_HOST_MAX];
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

int mero_api_start(struct mero_node *node, struct mero_api_server **out, struct mero_err *err)
{
    struct sockaddr_in sa;
    const char *addr = mero_node_api_addr(node);
    if (parse_hostport(addr, &sa) < 0) {
        return mero_err_set(err, MERO_EINVAL, "bad api address '%s' (want IPv4 host:port)", addr);
    }
    struct mero_api_server *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    s->node = node;
    mero__api_guard_init(&s->guard);
    if (mero__sealed_table_init(&s->sealed, mero_now_ms()) < 0) {
        free(s);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    /* issue 31: merod run --tls-cert/--tls-key serves HTTPS (the certificate bindTlsKey binds) */
    const char *tls_cert = NULL, *tls_key = NULL;
    uint8_t spki[MERO_SHA256_LEN];
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};
    if (mero_node_tls(node, &tls_cert, &tls_key, spki)) {
        flags |= MHD_USE_TLS;
        tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert};
        tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key};
    }
    /* libmicrohttpd's own limit is a backstop above the guard's caps: connections the guard
     * is closing still hold a slot until libmicrohttpd has seen them end */
    s->d = MHD_start_daemon(
        flags, 0, on_accept, s, on_access, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
        MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)(2 * API_CONN_MAX), MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)30, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_ARRAY, tls,
        MHD_OPTION_END);
    if (s->d == NULL) {
        mero__sealed_table_cleanup(&s->sealed);
        free(s);
        return mero_err_set(err, MERO_EIO, "cannot listen on %s", addr);
    }
    const union MHD_DaemonInfo *ep = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
    const union MHD_DaemonInfo *pi = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    if (ep == NULL || pi == NULL) {
        MHD_stop_daemon(s->d);
        mero__sealed_table_cleanup(&s->sealed);
        free(s);
        return mero_err_set(err, MERO_EIO, "libmicrohttpd lacks epoll support");
    }
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
    char bound[INET_ADDRSTRLEN + 8];
    snprintf(bound, sizeof(bound), "%s:%u", host, (unsigned)pi->port);
    mero_node_set_api_bound(node, bound);
    uv_poll_init(mero_node_loop(node), &s->poll, ep->epoll_fd);
    uv_timer_init(mero_node_loop(node), &s->timer);
    s->poll.data = s;
    s->timer.data = s;
    uv_poll_start(&s->poll, UV_READABLE, on_poll);
    *out = s;
    pump(s);
    return 0;
}

static void on_closed(uv_handle_t *h)
{
    struct mero_api_server *s = h->data;
    if (--s->open_handles == 0) {
        mero__sealed_table_cleanup(&s->sealed);
        free(s);
    }
}

void mero_api_stop(struct mero_api_server *s)
{
    if (s == NULL) {
        return;
    }
    s->stopping = true;
    while (s->suspended != NULL) {
        mero__api_refuse(s->suspended, MERO_EUNAVAILABLE, "node is stopping");
    }
    (void)MHD_run(s->d); /* flush the resumed replies where the peer is reading */
    MHD_stop_daemon(s->d);
    s->d = NULL;
    s->open_handles = 2;
    uv_poll_stop(&s->poll);
    uv_timer_stop(&s->timer);
    uv_close((uv_handle_t *)&s->poll, on_closed);
    uv_close((uv_handle_t *)&s->timer, on_closed);
}
