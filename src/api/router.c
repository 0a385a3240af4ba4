/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.c - matches a request to a route, enforces the bearer token on protected routes,
 * parses the JSON body strictly and calls the handler (reference-calimero.md §4: public are
 * only GET /tee/info and POST /tee/attest).
 *
 * Order of checks, so that an unauthenticated caller learns nothing about bodies: unknown
 * path 404, known path with another method 405, protected route without the right token 401,
 * then body: not JSON / duplicate key / not an object 400. The token comparison hashes both
 * sides and compares the digests in constant time, so neither content nor length leaks.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/validate.h"
#include "mero/crypto.h"
#include "node/node.h"

static const struct api_route *const tables[] = {api_routes_tee, api_routes_policy, api_routes_ns,
                                                 api_routes_ctx};

int api_auth_ok(const struct mero_node *node, const char *authorization)
{
    static const char prefix[] = "Bearer ";
    if (authorization == NULL || strncmp(authorization, prefix, sizeof(prefix) - 1) != 0) {
        return 0;
    }
    const char *given = authorization + sizeof(prefix) - 1;
    uint8_t a[MERO_SHA256_LEN], b[MERO_SHA256_LEN];
    mero_sha256(a, given, strlen(given));
    mero_sha256(b, node->token, strlen(node->token));
    int ok = mero_ct_eq(a, b, sizeof(a));
    mero_wipe(a, sizeof(a));
    mero_wipe(b, sizeof(b));
    return ok;
}

/* 1 when url matches pattern; params captured into r. Segments are compared whole. */
static int match(const char *pattern, const char *url, struct api_req *r)
{
    size_t np = 0;
    const char *p = pattern, *u = url;
    while (*p != 0 && *u != 0) {
        if (*p != '/' || *u != '/') {
            return 0;
        }
        p++;
        u++;
        const char *pe = strchr(p, '/');
        const char *ue = strchr(u, '/');
        size_t pl = pe ? (size_t)(pe - p) : strlen(p);
        size_t ul = ue ? (size_t)(ue - u) : strlen(u);
        if (p[0] == ':') {
            if (ul == 0 || ul >= API_PARAM_MAX || np >= API_MAX_PARAMS) {
                return 0;
            }
            memcpy(r->params[np], u, ul);
            r->params[np][ul] = 0;
            np++;
        } else if (pl != ul || memcmp(p, u, pl) != 0) {
            return 0;
        }
        p += pl;
        u += ul;
    }
    if (*p != 0 || (*u != 0 && strcmp(u, "/") != 0)) {
        return 0;
    }
    r->nparams = np;
    return 1;
}

void api_dispatch(struct api_req *r, const char *url, const char *authorization)
{
    const struct api_route *hit = NULL;
    int path_known = 0;
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && hit == NULL; t++) {
        for (const struct api_route *rt = tables[t]; rt->pattern != NULL; rt++) {
            if (!match(rt->pattern, url, r)) {
                continue;
            }
            path_known = 1;
            if (rt->method == r->method) {
                hit = rt;
                break;
            }
        }
    }
    if (hit == NULL) {
        if (path_known) {
            api_reply_error(r, 405, "method not allowed");
        } else {
            api_reply_error(r, 404, "no route for this path");
        }
        return;
    }
    if (hit->protected_ && !api_auth_ok(r->node, authorization)) {
        api_reply_error(r, 401, "missing or invalid bearer token");
        return;
    }
    json_t *body = NULL;
    if (hit->has_body) {
        struct api_fail f = {0};
        if (api_parse_body((const char *)r->body.data, r->body.len, &body, &f) < 0) {
            api_reply_error(r, f.status, "%s", f.msg);
            return;
        }
    }
    hit->fn(r, body);
    json_decref(body);
}

void api_reply_err(struct api_req *r, int rc, const struct mero_err *err)
{
    int code = rc < 0 ? -rc : rc;
    int status = 500;
    switch (code) {
    case MERO_EINVAL:
    case MERO_EHEX:
    case MERO_EJSON:
    case MERO_ETOOBIG:
        status = 400;
        break;
    case MERO_ENOTFOUND:
        status = 404;
        break;
    case MERO_EEXIST:
    case MERO_ESTATE:
    case MERO_ECLOCK:
    case MERO_ESUPERSEDED:
        status = 409;
        break;
    case MERO_EPERM:
    case MERO_ENOTADMIN:
    case MERO_EREADONLY:
    case MERO_ETEE_ROLE_LOCKED:
    case MERO_EREFUSED:
        status = 403;
        break;
    case MERO_EUNSUPPORTED:
        status = 501;
        break;
    case MERO_ETIMEOUT:
        status = 504;
        break;
    default:
        status = 500;
        break;
    }
    const char *msg = (err != NULL && err->msg[0] != 0) ? err->msg : mero_errdesc(code);
    api_reply_error(r, status, "%s", msg);
}
