/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reply.c - setting a request's answer: JSON data, an error object (its status from errmap.c's
 * table), a raw JSON body, bytes of another type (copied or taken over). Each setter answers
 * once: a request already answered keeps its first reply (and what a later setter was handed
 * is freed). When the reply is set the request's on_replied callback runs, so this file knows
 * nothing of the HTTP server (http.c) or the sealed envelope (sealed.c) that made the request.
 *
 * Invariant: every reply is a complete body with a status; out of memory while setting one
 * becomes a fixed 500 error object, never an empty 200.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

/* The reply is set: whoever made the request is told (r->on_replied): http.c resumes a
 * suspended connection, sealed.c seals an inner request into its envelope. */
static void replied(struct api_req *r)
{
    r->replied = true;
    if (r->on_replied != NULL) {
        r->on_replied(r);
    }
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
        r->status = mero__api_status_of(MERO_ENOMEM); /* the fallback's own "status" */
        if (r->resp != NULL) {
            memcpy(r->resp, fallback, sizeof(fallback));
            r->resp_len = sizeof(fallback) - 1;
        }
    } else {
        r->resp = text;
        r->resp_len = strlen(text);
        r->status = status;
    }
    replied(r);
}

void mero__api_reply_data(struct api_req *r, int status, json_t *data)
{
    if (r->replied) {
        json_decref(data);
        return;
    }
    set_response(r, status, json_pack("{s:o}", "data", data ? data : json_null()));
}

void mero__api_reply_body(struct api_req *r, int status, const char *ctype, const void *data,
                          size_t len, bool page)
{
    if (r->replied) {
        return;
    }
    char *copy = malloc(len > 0 ? len : 1);
    if (copy == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    if (len > 0) {
        memcpy(copy, data, len);
    }
    free(r->resp);
    r->resp = copy;
    r->resp_len = len;
    r->status = status;
    r->ctype = ctype;
    r->page = page;
    replied(r);
}

void mero__api_reply_owned(struct api_req *r, int status, const char *ctype, uint8_t *data,
                           size_t len)
{
    if (r->replied) {
        free(data);
        return;
    }
    free(r->resp);
    r->resp = (char *)data;
    r->resp_len = len;
    r->status = status;
    r->ctype = ctype;
    replied(r);
}

void mero__api_reply_raw(struct api_req *r, int status, json_t *body)
{
    if (r->replied) {
        json_decref(body);
        return;
    }
    set_response(r, status, body ? body : json_object());
}

void mero__api_refuse_raw(struct api_req *r, int code, json_t *body)
{
    MERO_ASSERT(code > 0); /* a positive mero_err_code, as mero_err_set takes */
    if (r->replied) {
        json_decref(body);
        return;
    }
    if (code == MERO_EUNAVAILABLE) {
        r->retry_after = 1; /* the one place a refusal asks the client to come back */
    }
    set_response(r, mero__api_status_of(code), body ? body : json_object());
}

void mero__api_refuse(struct api_req *r, int code, const char *fmt, ...)
{
    if (r->replied) {
        return;
    }
    int status = mero__api_status_of(code);
    char msg[API_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    mero__api_refuse_raw(r, code,
                         json_pack("{s:{s:i, s:s}}", "error", "status", status, "message", msg));
}

void mero__api_reply_err(struct api_req *r, int rc, const struct mero_err *err)
{
    int code = rc < 0 ? -rc : rc > 0 ? rc : MERO_EINTERNAL; /* 0 is no error to answer */
    const char *msg = (err != NULL && err->msg[0] != 0) ? err->msg : mero_errdesc(code);
    mero__api_refuse(r, code, "%s", msg);
}
