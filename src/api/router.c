/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.c - matches a request to a route, enforces the bearer token on protected routes,
 * parses the JSON body strictly and calls the handler (reference-calimero.md §4: public are
 * only GET /tee/info and POST /tee/attest; outside /admin-api/, issue 19's /admin-ui/ files are
 * public and GET /metrics checks the token itself, for merod run --metrics-public).
 *
 * Order of checks, so that an unauthenticated caller learns nothing about bodies: unknown
 * path 404, known path with another method 405, protected route without the right token 401,
 * then body: not JSON / duplicate key / not an object 400. The token comparison hashes both
 * sides and compares the digests in constant time, so neither content nor length leaks; the
 * given value is counted by its real length (a NUL in it does not end it).
 *
 * Routing runs on the raw path (before any percent-decoding): it is split at '/' first and
 * each segment is decoded on its own, so "%2F" stays inside its segment and "?" "#" arrive
 * only when encoded. A bad escape or a decoded NUL anywhere answers 400 before anything
 * else (issue 21 item 8: "%00" used to cut the path short and name another key). The query
 * is checked as a whole before routing (mero__api_query_check, from http.c): every escape
 * decodes (issue 32: "?x=%zz" used to pass), no parameter name is given twice, at most
 * API_QUERY_MAX_PARAMS names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

#define API_QUOTED_NAME_MAX 64 /* a repeated query name quoted in the refusal, in chars */

static const struct api_route *const tables[] = {
    mero__api_routes_tee,   mero__api_routes_policy, mero__api_routes_ns,
    mero__api_routes_ctx,   mero__api_routes_ref,    mero__api_routes_intents,
    mero__api_routes_reach, mero__api_routes_fleet,  mero__api_routes_metrics,
    mero__api_routes_ui,    mero__api_routes_nslog,  mero__api_routes_nsops,
    mero__api_routes_chain};

/* Percent-decode one raw path segment [p, p+n) into out (cap bytes with the terminator); with
 * out NULL only check it. 0 ok; -MERO_EINVAL for a bad escape or a decoded NUL (400);
 * -MERO_ETOOBIG when it does not fit (such a segment matches no route: 404). */
static int decode_segment(const char *p, size_t n, char *out, size_t cap, size_t *outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (c == '%') {
            if (i + 2 >= n) {
                return -MERO_EINVAL;
            }
            int h = mero_hex_nibble(p[i + 1]), l = mero_hex_nibble(p[i + 2]);
            if (h < 0 || l < 0) {
                return -MERO_EINVAL;
            }
            c = h * 16 + l;
            i += 2;
        }
        if (c == 0) {
            return -MERO_EINVAL;
        }
        if (out == NULL) {
            continue;
        }
        if (o + 1 >= cap) {
            return -MERO_ETOOBIG;
        }
        out[o++] = (char)c;
    }
    if (out != NULL) {
        out[o] = 0;
        *outlen = o;
    }
    return 0;
}

/* A name fit to quote in a message: printable ASCII (the JSON envelope must stay UTF-8). */
static bool quotable(const char *s)
{
    for (; *s != 0; s++) {
        if (*s < 0x21 || *s > 0x7e || *s == '`') {
            return false;
        }
    }
    return true;
}

int mero__api_query_check(const char *q, char *msg, size_t cap)
{
    char(*keys)[API_PARAM_MAX] = NULL;
    size_t nkeys = 0;
    int rc = 0;
    if (q == NULL || *q == 0) {
        return 0;
    }
    keys = malloc(sizeof(*keys) * API_QUERY_MAX_PARAMS);
    if (keys == NULL) {
        snprintf(msg, cap, "out of memory");
        return -MERO_ENOMEM;
    }
    for (const char *p = q; rc == 0;) {
        size_t n = strcspn(p, "&");
        const char *eq = memchr(p, '=', n);
        size_t kn = eq != NULL ? (size_t)(eq - p) : n;
        size_t len = 0;
        /* every escape in the query decodes, names and values alike (as in the path) */
        if (decode_segment(p, n, NULL, 0, NULL) < 0) {
            snprintf(msg, cap, "bad percent-encoding or NUL byte in the request path or query");
            rc = -MERO_EINVAL;
        } else if (n == 0) {
            /* "a=1&&b=2", a trailing '&': nothing named */
        } else if (nkeys == API_QUERY_MAX_PARAMS) {
            snprintf(msg, cap, "more than %u query parameters", API_QUERY_MAX_PARAMS);
            rc = -MERO_EINVAL;
        } else if (decode_segment(p, kn, keys[nkeys], API_PARAM_MAX, &len) == 0) {
            /* a name given twice: which value counts would be libmicrohttpd's choice (the
             * first), not the caller's; refused instead (a name too long to decode here is
             * none a route reads) */
            for (size_t i = 0; i < nkeys && rc == 0; i++) {
                if (strcmp(keys[i], keys[nkeys]) == 0) {
                    if (quotable(keys[i]) && len <= API_QUOTED_NAME_MAX) {
                        snprintf(msg, cap, "query parameter `%s` given more than once", keys[i]);
                    } else {
                        snprintf(msg, cap, "a query parameter is given more than once");
                    }
                    rc = -MERO_EINVAL;
                }
            }
            nkeys++;
        }
        if (p[n] == 0) {
            break;
        }
        p += n + 1;
    }
    free(keys);
    return rc;
}

const char *mero__api_query_arg(struct api_req *r, const char *name)
{
    static _Thread_local char value[API_PARAM_MAX];
    if (r->conn != NULL) {
        return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
    }
    /* a sealed inner request: its own query, checked by mero__api_query_check already */
    for (const char *p = r->query; p != NULL && *p != 0;) {
        size_t n = strcspn(p, "&"), len = 0;
        const char *eq = memchr(p, '=', n);
        size_t kn = eq != NULL ? (size_t)(eq - p) : n;
        char key[API_PARAM_MAX];
        if (decode_segment(p, kn, key, sizeof(key), &len) == 0 && strcmp(key, name) == 0) {
            if (eq == NULL) {
                value[0] = 0;
                return value;
            }
            return decode_segment(eq + 1, n - kn - 1, value, sizeof(value), &len) == 0 ? value
                                                                                       : NULL;
        }
        p += n + (p[n] != 0);
    }
    return NULL;
}

int mero__api_split_path(const char *raw, struct api_path *out)
{
    memset(out, 0, sizeof(*out));
    if (raw == NULL || raw[0] != '/') {
        return -MERO_EINVAL;
    }
    const char *p = raw + 1;
    for (;;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (e == NULL && n == 0 && out->n > 0) {
            break; /* one trailing slash is allowed */
        }
        if (out->n >= API_PATH_MAX_SEGS) {
            out->too_deep = true;
            return 0;
        }
        size_t len = 0;
        int rc = decode_segment(p, n, out->seg[out->n], API_PARAM_MAX, &len);
        if (rc == -MERO_EINVAL) {
            return rc;
        }
        if (rc < 0) {
            out->too_long = true; /* keeps scanning: a NUL further on still answers 400 */
            out->seg[out->n][0] = 0;
        }
        out->n++;
        if (e == NULL) {
            break;
        }
        p = e + 1;
    }
    return 0;
}

/* 1 when the decoded segments match pattern; params captured into r. */
static int match(const char *pattern, const struct api_path *path, struct api_req *r)
{
    size_t np = 0, i = 0;
    const char *p = pattern;
    if (path->too_deep || path->too_long) {
        return 0;
    }
    while (*p != 0) {
        if (*p != '/' || i >= path->n) {
            return 0;
        }
        p++;
        const char *pe = strchr(p, '/');
        size_t pl = pe ? (size_t)(pe - p) : strlen(p);
        const char *seg = path->seg[i];
        size_t sl = strlen(seg);
        if (p[0] == ':') {
            if (sl == 0 || np >= API_MAX_PARAMS) {
                return 0;
            }
            memcpy(r->params[np], seg, sl + 1);
            np++;
        } else if (pl != sl || memcmp(p, seg, pl) != 0) {
            return 0;
        }
        p += pl;
        i++;
    }
    if (i != path->n) {
        return 0;
    }
    r->nparams = np;
    return 1;
}

void mero__api_dispatch(struct api_req *r, const char *raw_path, const char *authorization,
                        size_t authorization_len)
{
    const struct api_route *hit = NULL;
    int path_known = 0;
    struct api_path *path = malloc(sizeof(*path));
    if (path == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    if (mero__api_split_path(raw_path, path) < 0) {
        free(path);
        mero__api_refuse(r, MERO_EINVAL,
                         "bad percent-encoding or NUL byte in the request path or query");
        return;
    }
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && hit == NULL; t++) {
        for (const struct api_route *rt = tables[t]; rt->pattern != NULL; rt++) {
            if (!match(rt->pattern, path, r)) {
                continue;
            }
            path_known = 1;
            if (rt->method == r->method) {
                hit = rt;
                break;
            }
        }
    }
    free(path);
    if (hit == NULL) {
        if (path_known) {
            mero__api_refuse(r, MERO_EMETHOD, "method not allowed");
        } else {
            mero__api_refuse(r, MERO_ENOTFOUND, "no route for this path");
        }
        return;
    }
    r->authed = mero_node_auth_ok(r->node, authorization, authorization_len);
    if (hit->protected_ && !r->authed) {
        mero__api_refuse(r, MERO_EAUTH, "missing or invalid bearer token");
        return;
    }
    json_t *body = NULL;
    if (hit->has_body) {
        struct mero_err f = {0};
        if (mero__api_parse_body((const char *)r->body.data, r->body.len, &body, &f) < 0) {
            mero__api_reply_err(r, -f.code, &f);
            return;
        }
    }
    hit->fn(r, body);
    json_decref(body);
}
