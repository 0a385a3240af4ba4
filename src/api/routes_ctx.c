/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ctx.c - contexts and their replicated key-value state (protected):
 * POST/GET /admin-api/groups/:group_id/contexts, PUT/GET /admin-api/contexts/:id/kv/:key.
 * A PUT is acknowledged (200) only after the signed, encrypted delta is committed locally and
 * is the key's current value; it is refused with 403 ReadOnlyWriteRefused when this node's own
 * role cannot author, and with 409 (WriteSuperseded, naming the current value's author and
 * clock; or the context clock exhausted) when it would not become the current value
 * (node/context/write.c). Never 2xx for a write that is not the value a GET returns.
 *
 * Test-only (merod run --test): POST /admin-api/test/contexts/:id/forge/:key
 * {value, lamport?} builds and publishes a delta signed by this node even when its role is
 * read-only or the claimed lamport is out of bounds, skipping the local checks, so the e2e
 * suite can show that peers refuse it (docs/node.md).
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/node.h"

static json_t *idj(const uint8_t id[MERO_CONTEXT_ID_LEN])
{
    return mero_json_hex(id, MERO_CONTEXT_ID_LEN);
}

static void ctx_create(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], ctx[MERO_CONTEXT_ID_LEN];
    if (mero__api_parse_empty(body, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_err err = {0};
    int rc = mero_node_ctx_create(r->node, ns, g, ctx, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    mero__api_reply_data(r, 200, json_pack("{s:o, s:o}", "contextId", idj(ctx), "groupId", idj(g)));
}

static void ctx_list(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t g[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    if (mero__api_group_param(r, 0, g, ns) < 0) {
        return;
    }
    struct mero_gov_context *cs = NULL;
    size_t n = 0;
    if (mero_node_contexts(r->node, ns, &cs, &n) < 0) {
        mero__api_refuse(r, MERO_EINTERNAL, "cannot list contexts");
        return;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        if (memcmp(cs[i].group, g, sizeof(g)) == 0) {
            json_array_append_new(a, json_pack("{s:o, s:o}", "contextId", idj(cs[i].id), "groupId",
                                               idj(cs[i].group)));
        }
    }
    free(cs);
    mero__api_reply_data(r, 200, a); /* the reference's shape: an array */
}

static int kv_params(struct api_req *r, uint8_t ctx[MERO_CONTEXT_ID_LEN])
{
    struct mero_err f = {0};
    if (mero__api_parse_id32(r->params[0], ctx, "context_id", &f) < 0 ||
        mero__api_check_kv_key(r->params[1], &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return -MERO_EINVAL;
    }
    return 0;
}

static void kv_write(struct api_req *r, json_t *body, bool force)
{
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    struct mero_err f = {0};
    const char *v = NULL;
    size_t n = 0;
    uint64_t lamport = 0;
    if (kv_params(r, ctx) < 0) {
        return;
    }
    if ((force ? mero__api_parse_forge(body, &v, &n, &lamport, &f)
               : mero__api_parse_kv(body, &v, &n, &f)) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    struct mero_err err = {0};
    int rc =
        mero_node_ctx_put(r->node, ctx, r->params[1], (const uint8_t *)v, n, force, lamport, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    mero__api_reply_data(
        r, 200,
        json_pack("{s:o, s:s, s:s%}", "contextId", idj(ctx), "key", r->params[1], "value", v, n));
}

static void kv_put(struct api_req *r, json_t *body)
{
    kv_write(r, body, false);
}

static void kv_forge(struct api_req *r, json_t *body)
{
    if (!mero_node_test_mode(r->node)) {
        mero__api_refuse(r, MERO_ENOTFOUND, "no route for this path");
        return;
    }
    kv_write(r, body, true);
}

static void kv_get(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    if (kv_params(r, ctx) < 0) {
        return;
    }
    uint8_t *v = NULL;
    size_t n = 0;
    struct mero_err err = {0};
    int rc = mero_node_ctx_get(r->node, ctx, r->params[1], &v, &n, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    json_t *s = json_stringn((const char *)v, n);
    free(v);
    if (s == NULL) {
        mero__api_refuse(r, MERO_EINTERNAL, "stored value is not UTF-8");
        return;
    }
    json_t *data =
        json_pack("{s:o, s:s, s:o}", "contextId", idj(ctx), "key", r->params[1], "value", s);
    uint8_t author[MERO_IDENTITY_LEN]; /* issue 15: whose write it is (a relayed one: the member) */
    if (data != NULL && mero_node_ctx_author(r->node, ctx, r->params[1], author) == 0) {
        json_object_set_new(data, "author", mero_json_hex(author, sizeof(author)));
    }
    mero__api_reply_data(r, 200, data);
}

const struct api_route mero__api_routes_ctx[] = {
    {API_POST, "/admin-api/groups/:group_id/contexts", true, true, ctx_create},
    {API_GET, "/admin-api/groups/:group_id/contexts", true, false, ctx_list},
    {API_PUT, "/admin-api/contexts/:context_id/kv/:key", true, true, kv_put},
    {API_GET, "/admin-api/contexts/:context_id/kv/:key", true, false, kv_get},
    {API_POST, "/admin-api/test/contexts/:context_id/forge/:key", true, true, kv_forge},
    {0, NULL, false, false, NULL},
};
