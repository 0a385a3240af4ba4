/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api.h - the admin HTTP API's private interface: the server (http.c, libmicrohttpd in
 * external-epoll mode driven by the node's libuv loop), one request (struct api_req), the
 * route table (router.c) and the reply helpers every route file uses.
 *
 * A handler answers by calling exactly one api_reply_* on the request, either before it
 * returns (synchronous) or later from a loop callback (asynchronous: the connection is
 * suspended meanwhile and resumed by the reply). Replies are JSON envelopes:
 * {"data": ...} on success, {"error": {"status": N, "message": "..."}} on failure.
 */
#ifndef MERO_API_API_H
#define MERO_API_API_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mero/buf.h"
#include "mero/err.h"

struct mero_node;
struct mero_api_server;

#define API_BODY_MAX   (64u * 1024u) /* request bodies larger than this are refused with 413 */
#define API_MAX_PARAMS 4
#define API_PARAM_MAX  320

enum api_method { API_GET = 1, API_POST, API_PUT, API_DELETE, API_OTHER };

struct api_req {
    struct mero_node *node;
    struct mero_api_server *srv;
    void *conn; /* struct MHD_Connection * */
    enum api_method method;
    struct mero_buf body;
    bool too_big, dispatched, suspended, replied;
    char params[API_MAX_PARAMS][API_PARAM_MAX];
    size_t nparams;
    int status;
    char *resp; /* owned JSON text */
    size_t resp_len;
    struct api_req *next_suspended;
};

typedef void (*api_handler)(struct api_req *r, json_t *body);

struct api_route {
    enum api_method method;
    const char *pattern; /* "/admin-api/groups/:group_id/members/:identity" */
    bool protected_;     /* requires Authorization: Bearer <admin token> */
    bool has_body;       /* POST/PUT with a JSON object body */
    api_handler fn;
};

/* Route tables, each ending with {0}. */
extern const struct api_route api_routes_tee[];
extern const struct api_route api_routes_policy[];
extern const struct api_route api_routes_ns[];
extern const struct api_route api_routes_ctx[];

/* Start listening on node->cfg.api (host:port, port 0 = any); writes node->api_bound. */
MERO_MUST_CHECK int mero_api_start(struct mero_node *node, struct mero_err *err);
/* Stop: answer suspended requests with 503, close every connection, free the server. */
void mero_api_stop(struct mero_node *node);

/* Dispatch a complete request (router.c): route, auth, body parse, handler. */
void api_dispatch(struct api_req *r, const char *url, const char *authorization);

/* Replies. data is stolen (may be NULL for JSON null). */
void api_reply_data(struct api_req *r, int status, json_t *data);
void api_reply_error(struct api_req *r, int status, const char *fmt, ...) MERO_PRINTF(3, 4);
/* Map a library error code to a status and answer with the err message (or its name). */
void api_reply_err(struct api_req *r, int rc, const struct mero_err *err);

/* Authorization header check against the node token, in constant time: 1 when good. */
int api_auth_ok(const struct mero_node *node, const char *authorization);

#endif
