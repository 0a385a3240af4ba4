/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed.c - the sealed HTTP v2 endpoints (issue 31, docs/sealed.md): POST /sealed/v2/handshake
 * opens a session to the node's transport key, POST /sealed/v2 opens one sealed request,
 * dispatches the request inside through the same router as any other (so the bearer token
 * travels inside the envelope and auth, limits and JSON checks apply unchanged) and seals its
 * answer as frames of at most 64 KiB: a head {"status", "headers"}, body pieces, an end frame.
 *
 * Refusals of the envelope itself go back in the clear as {"error": {"code", "message"}},
 * codes and statuses as core's: malformed 400, unsupported_version 400, undecryptable 400,
 * replayed_request 400, stale_transport_key 409 (a restart replaced the key: attest again),
 * unknown_session 409, busy 503 with Retry-After: 1 (the handshake bucket is empty). A
 * refusal of the inner request (401, 404, 413, ...) is an ordinary answer, sealed.
 *
 * Invariants: a request id is spent only once its request opened (a forgery spends nothing);
 * the inner request never names an envelope endpoint again; the session's response key is
 * copied to the envelope when it opens, so an answer that comes late is still sealed under
 * the key its client holds; the opened plaintext (the token among it) is wiped when freed.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api_internal.h"
#include "api/sealed_internal.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/log.h"

#define HANDSHAKE_PATH "/sealed/v2/handshake"
#define EXCHANGE_PATH  "/sealed/v2"

struct api_sealed_ctx {
    uint8_t key[MERO_AEAD_KEY_LEN];
    uint8_t hdr[MERO_SEALED_HEADER_LEN];
};

/* A refusal in the sealed transport's error shape, {"error": {"code", "message"}}: code is the
 * mero_err code whose status errmap.c gives, wire_code the transport's name for the refusal. */
static void refuse(struct api_req *r, int code, const char *wire_code, const char *msg)
{
    MERO_DEBUG("sealed: refused (%s)", wire_code);
    mero__api_refuse_raw(r, code,
                         json_pack("{s:{s:s, s:s}}", "error", "code", wire_code, "message", msg));
}

static void malformed(struct api_req *r)
{
    refuse(r, MERO_EINVAL, "malformed", "the sealed request is malformed");
}

static void unsupported(struct api_req *r)
{
    refuse(r, MERO_EINVAL, "unsupported_version", "unsupported sealed transport version");
}

bool mero__api_sealed_plain_allowed(int method, const char *raw_path)
{
    return (method == API_POST && strcmp(raw_path, "/admin-api/tee/attest") == 0) ||
           (method == API_GET && strcmp(raw_path, "/admin-api/tee/info") == 0) ||
           (method == API_GET && strcmp(raw_path, "/admin-api/health") == 0) ||
           strcmp(raw_path, HANDSHAKE_PATH) == 0 || strcmp(raw_path, EXCHANGE_PATH) == 0;
}

void mero__api_sealed_handshake(struct api_req *r, struct sealed_table *t)
{
    uint8_t tk[MERO_X25519_LEN], sid[MERO_SEALED_SESSION_ID_LEN];
    uint8_t reply[MERO_SEALED_HANDSHAKE_REPLY_LEN];
    struct mero_sealed_keys keys;
    const uint8_t *b = r->body.data;
    uint64_t now = mero_now_ms();
    if (r->method != API_POST) {
        mero__api_refuse(r, MERO_EMETHOD, "method not allowed");
        return;
    }
    if (!mero__sealed_hs_admit(t, now)) {
        refuse(r, MERO_EUNAVAILABLE, "busy",
               "too many sealed sessions are being opened; retry shortly");
        return;
    }
    if (r->body.len != MERO_SEALED_HANDSHAKE_LEN) {
        malformed(r);
        return;
    }
    if (b[0] != MERO_SEALED_VERSION) {
        unsupported(r);
        return;
    }
    mero_node_transport_key(r->node, tk);
    if (!mero_ct_eq(tk, b + 1, sizeof(tk))) {
        /* taking a new key from this answer would be taking it from whoever sent it */
        refuse(r, MERO_ESTATE, "stale_transport_key",
               "the handshake is addressed to a transport key this node no longer holds; "
               "attest again for the current one");
        return;
    }
    mero_random(sid, sizeof(sid));
    int rc = mero_node_sealed_respond(r->node, b + 1 + MERO_X25519_LEN,
                                      r->body.len - 1 - MERO_X25519_LEN, sid, reply + 1, &keys);
    if (rc == -MERO_EPROTO) {
        malformed(r);
        return;
    }
    if (rc < 0) {
        refuse(r, MERO_EINVAL, "undecryptable",
               "the handshake did not complete under this node's transport key");
        return;
    }
    rc = mero__sealed_insert(t, sid, &keys, now);
    mero_wipe(&keys, sizeof(keys));
    if (rc < 0) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    reply[0] = MERO_SEALED_VERSION;
    r->sealed_body = true;
    mero__api_reply_body(r, 200, MERO_SEALED_CONTENT_TYPE, reply, sizeof(reply), false);
}

static enum api_method method_of(const char *m)
{
    static const struct {
        const char *name;
        enum api_method m;
    } map[] = {{"GET", API_GET}, {"POST", API_POST}, {"PUT", API_PUT}, {"DELETE", API_DELETE}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(m, map[i].name) == 0) {
            return map[i].m;
        }
    }
    return API_OTHER;
}

/* The inner request, linked to its envelope r; NULL when out of memory. */
static struct api_req *inner_new(struct api_req *r, const char *method, const char *path)
{
    struct api_req *in = calloc(1, sizeof(*in));
    if (in == NULL) {
        return NULL;
    }
    size_t n = strcspn(path, "?");
    in->raw_path = strndup(path, n);
    in->query = path[n] == '?' ? strdup(path + n + 1) : NULL;
    if (in->raw_path == NULL || (path[n] == '?' && in->query == NULL)) {
        free(in->raw_path);
        free(in->query);
        free(in);
        return NULL;
    }
    in->node = r->node;
    in->srv = r->srv;
    in->method = method_of(method);
    in->inner = true;
    in->on_replied = mero__api_sealed_inner_done; /* sealed into its envelope */
    in->parent = r;
    mero_buf_init(&in->body, API_BODY_MAX);
    r->child = in;
    return in;
}

/* Dispatch the opened request (plain[0..n): head length, head, body) under envelope r; the
 * head's bytes may be written (sealed_head.c's fast reading ends its strings in place). */
static void dispatch_inner(struct api_req *r, uint8_t *plain, size_t n)
{
    size_t head_len = 0;
    struct sealed_head h = {0};
    if (mero_sealed_inner_split(plain, n, &head_len) < 0 ||
        mero__sealed_head_parse(plain + 4, head_len, true, &h) < 0 || strchr(h.path, '#') != NULL) {
        mero__sealed_head_cleanup(&h);
        malformed(r);
        return;
    }
    const char *path = h.path;
    size_t pn = strcspn(path, "?");
    if ((pn == strlen(EXCHANGE_PATH) && strncmp(path, EXCHANGE_PATH, pn) == 0) ||
        (pn == strlen(HANDSHAKE_PATH) && strncmp(path, HANDSHAKE_PATH, pn) == 0)) {
        mero__sealed_head_cleanup(&h); /* an envelope inside an envelope would only open another */
        malformed(r);
        return;
    }
    struct api_req *in = inner_new(r, h.method, path);
    if (in == NULL) {
        mero__sealed_head_cleanup(&h);
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    const uint8_t *body = plain + 4 + head_len;
    size_t body_len = n - 4 - head_len;
    char msg[128] = "";
    /* the checks http.c makes on a plaintext request line, answered inside the envelope */
    if (strstr(path, "%00") != NULL ||
        (in->query != NULL && mero__api_query_check(in->query, msg, sizeof(msg)) < 0)) {
        mero__sealed_head_cleanup(&h);
        mero__api_refuse(in, MERO_EINVAL, "%s",
                         msg[0] ? msg
                                : "bad percent-encoding or NUL byte in the request path or "
                                  "query");
        return;
    }
    if (body_len > API_BODY_MAX || mero_buf_append(&in->body, body, body_len) < 0) {
        mero__sealed_head_cleanup(&h);
        mero__api_refuse(in, MERO_EBODY, "request body larger than %u bytes", API_BODY_MAX);
        return;
    }
    mero__api_dispatch(in, in->raw_path, h.auth, h.alen); /* in may be gone once this returns */
    mero__sealed_head_cleanup(&h);
}

void mero__api_sealed_exchange(struct api_req *r, struct sealed_table *t)
{
    uint8_t sid[MERO_SEALED_SESSION_ID_LEN];
    uint64_t rid = 0, now = mero_now_ms();
    size_t n = 0;
    if (r->method != API_POST) {
        mero__api_refuse(r, MERO_EMETHOD, "method not allowed");
        return;
    }
    int rc = mero_sealed_header_parse(r->body.data, r->body.len, sid, &rid);
    if (rc == -MERO_EUNSUPPORTED) {
        unsupported(r);
        return;
    }
    if (rc < 0) {
        malformed(r);
        return;
    }
    struct sealed_session *s = mero__sealed_live(t, sid, now);
    if (s == NULL) {
        refuse(r, MERO_ESTATE, "unknown_session",
               "no such sealed session on this node (it expired, or the node restarted); open "
               "a new one");
        return;
    }
    uint8_t *plain = malloc(r->body.len);
    r->sealed = calloc(1, sizeof(*r->sealed));
    if (plain == NULL || r->sealed == NULL) {
        free(plain);
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    if (mero_sealed_request_open(s->keys.request, r->body.data, r->body.len, plain, &n) < 0) {
        free(plain);
        refuse(r, MERO_EINVAL, "undecryptable",
               "the sealed request did not open under its session");
        return;
    }
    memcpy(r->sealed->key, s->keys.response, sizeof(r->sealed->key));
    memcpy(r->sealed->hdr, r->body.data, sizeof(r->sealed->hdr));
    rc = mero__sealed_admit(t, sid, rid, now);
    if (rc < 0) {
        mero_wipe(plain, n);
        free(plain);
        if (rc == -MERO_EEXIST) {
            refuse(r, MERO_EINVAL, "replayed_request", "this sealed request was already received");
        } else {
            mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        }
        return;
    }
    dispatch_inner(r, plain, n);
    mero_wipe(plain, n);
    free(plain);
}

/* Seal in's answer into frames and answer r with them. */
static void seal_into(struct api_req *r, struct api_req *in)
{
    struct api_sealed_ctx *c = r->sealed;
    struct mero_buf out;
    char *head = NULL;
    uint32_t index = 0;
    int rc = -MERO_ENOMEM;
    size_t len = in->resp != NULL ? in->resp_len : 0;
    head = mero__sealed_answer_head(in->status, in->ctype != NULL ? in->ctype : "application/json",
                                    true);
    size_t frames = len / MERO_SEALED_FRAME_DATA_MAX + 3;
    mero_buf_init(&out, len + frames * (5 + MERO_AEAD_TAG_LEN) + MERO_SEALED_HEAD_MAX);
    MERO_ENSURE_OUT(c != NULL && head != NULL && strlen(head) <= MERO_SEALED_HEAD_MAX, NULL,
                    MERO_ENOMEM, "no session or no head");
    MERO_TRY_OUT(mero_sealed_frame_seal(c->key, c->hdr, index++, MERO_SEALED_HEAD,
                                        (const uint8_t *)head, strlen(head), &out));
    for (size_t off = 0; off < len; off += MERO_SEALED_FRAME_DATA_MAX) {
        size_t piece =
            len - off < MERO_SEALED_FRAME_DATA_MAX ? len - off : MERO_SEALED_FRAME_DATA_MAX;
        MERO_TRY_OUT(mero_sealed_frame_seal(c->key, c->hdr, index++, MERO_SEALED_DATA,
                                            (const uint8_t *)in->resp + off, piece, &out));
    }
    MERO_TRY_OUT(mero_sealed_frame_seal(c->key, c->hdr, index++, MERO_SEALED_END, NULL, 0, &out));
out:
    free(head);
    if (rc < 0) {
        mero_buf_cleanup(&out);
        mero__api_refuse(r, MERO_EINTERNAL, "the answer could not be sealed");
        return;
    }
    size_t olen = 0;
    uint8_t *data = mero_buf_steal(&out, &olen);
    r->sealed_body = true;
    mero__api_reply_owned(r, 200, MERO_SEALED_CONTENT_TYPE, data, olen);
}

void mero__api_sealed_inner_done(struct api_req *in)
{
    struct api_req *r = in->parent;
    if (r != NULL) {
        r->child = NULL;
        in->parent = NULL;
        seal_into(r, in);
    }
    mero__api_req_free(in);
}

void mero__api_sealed_detach(struct api_req *r)
{
    if (r->child != NULL) {
        r->child->parent = NULL; /* answered later, it frees itself */
        r->child = NULL;
    }
    if (r->sealed != NULL) {
        mero_wipe(r->sealed, sizeof(*r->sealed));
        free(r->sealed);
        r->sealed = NULL;
    }
}
