/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_internal.h - the admin HTTP API's private interface: the server (http.c, libmicrohttpd in
 * external-epoll mode driven by the node's libuv loop), one request (struct api_req), the
 * route table (router.c) and the reply helpers every route file uses.
 *
 * A handler answers by calling exactly one api_reply_* on the request, either before it
 * returns (synchronous) or later from a loop callback (asynchronous: the connection is
 * suspended meanwhile and resumed by the reply). Replies are JSON envelopes:
 * {"data": ...} on success, {"error": {"status": N, "message": "..."}} on failure; the two
 * exceptions, GET /metrics (Prometheus text) and the /admin-ui/ files, answer with
 * mero__api_reply_body.
 *
 * Layering: the API reaches the node only through mero/node.h (one use-case function per
 * route action, domain values in and out); the JSON shapes and the mero_err -> HTTP status
 * table (errmap.c) are the API's own.
 */
#ifndef MERO_API_API_H
#define MERO_API_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/gov.h"
#include "mero/node.h"

struct mero_node;
struct mero_api_server;
struct MHD_Connection;
struct sockaddr;

#define API_BODY_MAX         (64u * 1024u) /* request bodies larger than this are refused with 413 */
#define API_ERR_MSG_MAX      512u          /* an error reply's message, NUL included */
#define API_MAX_PARAMS       4
#define API_PARAM_MAX        320
#define API_QUERY_MAX_PARAMS 32u /* query parameters (names) in one request */

/* Connection caps and deadlines (guard.c). */
#define API_CONN_MAX           256   /* connections in all */
#define API_CONN_PER_IP        64    /* connections from one address */
#define API_HEADER_DEADLINE_MS 5000  /* request line + headers, from connect or previous reply */
#define API_BODY_DEADLINE_MS   10000 /* body, from the end of the headers */
#define API_GUARD_REPORT_MS    10000 /* at most one guard warning this often */

enum api_method { API_GET = 1, API_POST, API_PUT, API_DELETE, API_OTHER };

enum api_conn_phase { API_CONN_HEADERS, API_CONN_BODY, API_CONN_BUSY };

/* One TCP connection, tracked from accept to close (guard.c). */
struct api_conn {
    struct MHD_Connection *mhd;
    uint32_t ip; /* IPv4, network order */
    enum api_conn_phase phase;
    uint64_t phase_start_ms;
    bool closing;
    struct api_req *req; /* the current request, if any */
    struct api_conn *prev, *next;
};

struct api_guard {
    struct api_conn *head;
    size_t n;
    uint64_t closed_by_guard, refused; /* counters for the log */
    uint64_t reported, next_report_ms; /* the warning is written at most every 10 s */
};

void mero__api_guard_init(struct api_guard *g);
/* Accept policy: true to accept a connection from addr, after evicting the oldest non-busy
 * connection when a cap is reached; false when every connection in the way is busy. */
bool mero__api_guard_accept(struct api_guard *g, const struct sockaddr *addr);
/* Track a started connection (NULL when out of memory: then it is not tracked). */
struct api_conn *mero__api_guard_started(struct api_guard *g, struct MHD_Connection *mhd,
                                         uint64_t now_ms);
void mero__api_guard_closed(struct api_guard *g, struct api_conn *c);
void mero__api_guard_phase(struct api_conn *c, enum api_conn_phase phase, uint64_t now_ms);
/* Close every connection past its deadline. */
void mero__api_guard_sweep(struct api_guard *g, uint64_t now_ms);

struct api_req {
    struct mero_node *node;
    struct mero_api_server *srv;
    void *conn; /* struct MHD_Connection * */
    enum api_method method;
    struct mero_buf body;
    struct api_conn *gc;   /* its connection's guard entry (may be NULL) */
    char *raw_path;        /* the path as sent, without the query (owned) */
    const char *uri_at;    /* where libmicrohttpd held the URI (borrowed, compared only) */
    size_t uri_len;        /* its string length when first seen */
    bool bad_uri;          /* an encoded NUL somewhere in the path or query, or a bad query */
    char bad_uri_msg[128]; /* the 400's message when bad_uri ("" for the NUL one) */
    bool auth_hidden;      /* the Authorization value hides bytes after a raw NUL (issue 32) */
    bool started, too_big, dispatched, suspended, replied, close_after;
    bool authed; /* the request carried the right bearer token (set by mero__api_dispatch) */
    char params[API_MAX_PARAMS][API_PARAM_MAX];
    size_t nparams;
    int status;
    char *resp; /* owned JSON text */
    size_t resp_len;
    struct api_req *next_suspended;
    /* ---- issue 19: non-JSON replies (mero__api_reply_body) ---- */
    const char *ctype; /* Content-Type when not JSON (static string), else NULL */
    bool page;         /* a page file: strict Content-Security-Policy and friends */
    /* ---- issue 31: sealed transport (sealed.c) ---- */
    char *query;            /* an inner request's query, after the '?' (owned; NULL: none) */
    struct api_req *parent; /* an inner request: the envelope it came in (NULL: orphaned) */
    struct api_req *child;  /* an envelope: its inner request while that is unanswered */
    bool inner;             /* an inner request: sealed into its parent when answered */
    /* told when the reply is set (reply.c): http.c resumes the connection, sealed.c seals an
     * inner request into its envelope; NULL: nobody */
    void (*on_replied)(struct api_req *r);
    bool sealed_body;              /* X-Accel-Buffering: no (a sealed answer's frames) */
    unsigned retry_after;          /* seconds, for a Retry-After header (0: none) */
    struct api_sealed_ctx *sealed; /* an envelope: the keys its answer is sealed under (owned) */
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
extern const struct api_route mero__api_routes_tee[];
extern const struct api_route mero__api_routes_policy[];
extern const struct api_route mero__api_routes_ns[];
extern const struct api_route mero__api_routes_ctx[];
extern const struct api_route mero__api_routes_ref[];
extern const struct api_route mero__api_routes_intents[]; /* issue 15: routes_intents.c */

extern const struct api_route mero__api_routes_reach[]; /* issue 16: routes_reach.c */

extern const struct api_route mero__api_routes_fleet[]; /* issue 19 */

extern const struct api_route mero__api_routes_nslog[]; /* issue 20: routes_nslog.c */
extern const struct api_route mero__api_routes_nsops[]; /* issue 36: routes_nsops.c */

extern const struct api_route mero__api_routes_chain[]; /* issue 31: routes_chain.c */

/* The group id of path parameter idx and the namespace it belongs to; a malformed id (400) or an
 * unknown group (404) is answered and -MERO_EINVAL / -MERO_ENOTFOUND returned (routes_ref.c). */
int mero__api_group_param(struct api_req *r, size_t idx, uint8_t group[MERO_GROUP_ID_LEN],
                          uint8_t ns[MERO_NS_ID_LEN]);
/* The optional `requester` of a reference request body (the identity the caller says acts):
 * absent, or equal (64 hex or base58) to this node's identity in ns, is fine and the member is
 * removed from body; anything else is answered (400 malformed, 403 another identity) and
 * -MERO_EINVAL / -MERO_EPERM returned (routes_ref.c). */
int mero__api_take_requester(struct api_req *r, json_t *body, const uint8_t ns[MERO_NS_ID_LEN]);
/* The answer to a batch of member changes (routes_ref.c), after mero_node_members_add or
 * _remove returned rc: data when every entry passed (rc 0), else the first refusal's status
 * with every refusal named "members[i] (<id>..): reason" (data is then freed). */
#define API_BATCH_MAX 64
void mero__api_batch_reply(struct api_req *r, int rc, const struct mero_node_batch_entry *e,
                           size_t n, const struct mero_err *err, json_t *data);
/* 32-byte key given as 64 hex chars or as base58 (routes_ref.c): 0 or -MERO_EINVAL. */
int mero__api_parse_key32(const char *s, uint8_t out[MERO_IDENTITY_LEN]);

/* A request path split at '/' and percent-decoded segment by segment (router.c). */
#define API_PATH_MAX_SEGS 12
struct api_path {
    char seg[API_PATH_MAX_SEGS][API_PARAM_MAX];
    size_t n;
    bool too_deep, too_long; /* matches no route (404) */
};
/* Split RAW (the path as sent, without the query) into out: 0, or -MERO_EINVAL when a
 * segment holds a bad escape or decodes to a NUL byte. */
MERO_MUST_CHECK int mero__api_split_path(const char *raw, struct api_path *out);
/* Check a query as sent (after the '?', NUL-terminated): 0, or -MERO_EINVAL (400, the message
 * in msg) for a bad escape or an encoded NUL anywhere in it, a parameter name given twice (as
 * decoded: "a" and "%61" are one name) or more than API_QUERY_MAX_PARAMS names. */
MERO_MUST_CHECK int mero__api_query_check(const char *query, char *msg, size_t cap);

/* Dispatch a complete request (router.c): route on the raw path, auth, body parse, handler.
 * authorization (may be NULL) is the header value of authorization_len bytes. */
void mero__api_dispatch(struct api_req *r, const char *raw_path, const char *authorization,
                        size_t authorization_len);

/* The TEE admission policy's JSON (policy_json.c): the canonical PUT body (mero__api_parse_policy)
 * into a policy (0, or -MERO_ENOMEM; mero_tee_policy_cleanup either way), and a policy into
 * the GET shape ({"enabled": false, lists empty} when !found; NULL when out of memory). */
MERO_MUST_CHECK int mero__api_policy_from_json(json_t *canon, struct mero_tee_policy *p);
json_t *mero__api_policy_json(const struct mero_tee_policy *p, bool found);

/* A query parameter's decoded value (libmicrohttpd's, or an inner request's own query), or
 * NULL when absent (router.c). */
const char *mero__api_query_arg(struct api_req *r, const char *name);
/* Free a request made by hand (a sealed inner request): body, path, query, answer (http.c). */
void mero__api_req_free(struct api_req *r);
/* A body without any envelope, its storage handed over (freed by the request). */
void mero__api_reply_owned(struct api_req *r, int status, const char *ctype, uint8_t *data,
                           size_t len);

/* Replies (reply.c). data is stolen (may be NULL for JSON null). */
void mero__api_reply_data(struct api_req *r, int status, json_t *data);
/* An error reply of the API's own: the status is code's in errmap.c (a positive mero_err code:
 * MERO_EINVAL 400, MERO_ENOTFOUND 404, MERO_ENOMEM 500, ...), the message fmt's. A route never
 * names a status number itself. MERO_EUNAVAILABLE (503) adds "Retry-After: 1". */
void mero__api_refuse(struct api_req *r, int code, const char *fmt, ...) MERO_PRINTF(3, 4);
/* The same with a body of another error shape (the sealed transport's {"error": {"code",
 * "message"}}); body is stolen. */
void mero__api_refuse_raw(struct api_req *r, int code, json_t *body);
/* A body without the {"data": ...} envelope (the reference's listGroupMembers answers
 * {"members": [...]} at the top level). body is stolen. */
void mero__api_reply_raw(struct api_req *r, int status, json_t *body);
/* The HTTP status of a mero_err code (negative or positive): the one table, errmap.c. */
int mero__api_status_of(int rc);
/* Answer with mero__api_status_of(rc) and the err message (or the code's description). */
void mero__api_reply_err(struct api_req *r, int rc, const struct mero_err *err);
/* The `data` of a finished fleet join (reference-calimero.md §4.4; routes_tee.c); NULL when
 * out of memory. */
json_t *mero__api_fleet_join_json(const struct mero_fleet_join_result *res);

/* ---- issue 19: /metrics and the /admin-ui/ page (routes_metrics.c, routes_ui.c) ---- */
extern const struct api_route mero__api_routes_metrics[];
/* Prometheus' standard process_* families, from /proc/self (metrics_process.c; issue 35). */
MERO_MUST_CHECK int mero__api_metrics_process(struct mero_buf *b);
extern const struct api_route mero__api_routes_ui[];
/* A reply that is not a JSON envelope: len bytes of data (copied) with Content-Type ctype (a
 * static string); page adds the page's security headers (Content-Security-Policy
 * "default-src 'self'", nosniff, no framing, no referrer). */
void mero__api_reply_body(struct api_req *r, int status, const char *ctype, const void *data,
                          size_t len, bool page);
/* One file of the admin page, embedded at build time (scripts/embed-assets.sh writes the
 * table, ended by {0}, from src/api/admin_ui/). */
struct api_asset {
    const char *name;
    const unsigned char *data;
    size_t len;
};
extern const struct api_asset mero__api_assets[];

#endif
