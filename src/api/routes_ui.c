/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ui.c - GET /admin-ui/ and GET /admin-ui/<file>: the admin page (issue 19), static
 * HTML, CSS and JS embedded in the binary at build time (src/api/admin_ui/, made into C
 * arrays by scripts/embed-assets.sh). Public: the files hold no data; the page reads the
 * protected API with the token the person types (kept in the tab's sessionStorage).
 *
 * Invariants: only a file in the embedded table is served, found by exact name (the router
 * has already decoded and split the path, so no name carries a '/'); each goes out with its
 * type by extension and the page's security headers (mero__api_reply_body: a strict
 * Content-Security-Policy, default-src 'self', so no inline script and nothing from elsewhere
 * runs).
 */
#include <string.h>

#include "api/api_internal.h"

static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL) {
        return "application/octet-stream";
    }
    if (strcmp(dot, ".html") == 0) {
        return "text/html; charset=utf-8";
    }
    if (strcmp(dot, ".js") == 0) {
        return "text/javascript; charset=utf-8";
    }
    if (strcmp(dot, ".css") == 0) {
        return "text/css; charset=utf-8";
    }
    return "application/octet-stream";
}

static void serve(struct api_req *r, const char *name)
{
    for (const struct api_asset *a = mero__api_assets; a->name != NULL; a++) {
        if (strcmp(a->name, name) == 0) {
            mero__api_reply_body(r, 200, type_of(name), a->data, a->len, true);
            return;
        }
    }
    mero__api_refuse(r, MERO_ENOTFOUND, "no such file in the admin page");
}

static void ui_index(struct api_req *r, json_t *body)
{
    (void)body;
    serve(r, "index.html");
}

static void ui_file(struct api_req *r, json_t *body)
{
    (void)body;
    serve(r, r->params[0]);
}

const struct api_route mero__api_routes_ui[] = {
    {API_GET, "/admin-ui", false, false, ui_index},
    {API_GET, "/admin-ui/:file", false, false, ui_file},
    {0},
};
