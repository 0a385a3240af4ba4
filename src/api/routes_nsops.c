/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_nsops.c - GET /admin-api/namespaces/:namespace_id/ops?after=SEQ (issue 36,
 * docs/audit.md; protected, read-only): one page of the namespace's signed ops in apply order
 * (parents first), {"data": {"ops": [{"hash", "bytes" (base64 of the SignedNamespaceOp),
 * "outcome" ("effective" | "rejected" | "deferred"), "reason" (null unless rejected)}],
 * "next": SEQ | null}}. "next" is the `after` of the following page, null on the last one.
 * `meroctl fleet audit` reads the whole log this way. GET .../audit is the audit built here
 * (the export's manifest, with "findings"): the admin page's TEE timelines.
 *
 * Invariant: the bytes are the stored ones unchanged; an unknown namespace is 404 like the
 * other namespace routes.
 */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

static const char *const outcome_names[] = {"rejected", "effective", "deferred"};

/* The plaintext of an encrypted op under a key we hold, as base64; NULL otherwise. */
static json_t *plaintext_json(struct mero_node *node, const struct mero_node_op *o)
{
    uint8_t *plain = NULL;
    size_t n = 0;
    if (mero_node_sealed_plaintext(node, o->bytes, o->len, &plain, &n) < 0) {
        return NULL;
    }
    char *b64 = mero_base64_encode(plain, n);
    mero_wipe(plain, n);
    free(plain);
    json_t *j = b64 != NULL ? json_string(b64) : NULL;
    if (b64 != NULL) {
        mero_wipe(b64, strlen(b64));
    }
    free(b64);
    return j;
}

static json_t *op_json(const struct mero_node_op *o)
{
    char *b64 = mero_base64_encode(o->bytes, o->len);
    if (b64 == NULL) {
        return NULL;
    }
    const char *oc =
        o->state >= 0 && o->state <= MERO_OP_DEFERRED ? outcome_names[o->state] : "rejected";
    json_t *j =
        json_pack("{s:o, s:s, s:s, s:o}", "hash", mero_json_hex(o->hash, MERO_OP_ID_LEN), "bytes",
                  b64, "outcome", oc, "reason",
                  o->state == MERO_OP_REJECTED && o->reason[0] != '\0' ? json_string(o->reason)
                                                                       : json_null());
    free(b64);
    return j;
}

static void ns_ops(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN], root[MERO_NS_ID_LEN];
    uint64_t after = 0, last = 0;
    const char *s = r->conn != NULL
                        ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "after")
                        : NULL;
    const char *disclose =
        r->conn != NULL ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "disclose")
                        : NULL;
    if (disclose != NULL && strcmp(disclose, "sealed") != 0) {
        mero__api_refuse(r, MERO_EINVAL, "`disclose` takes only `sealed`");
        return;
    }
    if (mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (s != NULL && mero_parse_u64(s, INT64_MAX, &after) < 0) {
        mero__api_refuse(r, MERO_EINVAL, "`after` must be a whole number (the `next` of a page)");
        return;
    }
    if (mero_node_namespace_of(r->node, ns, root) < 0 || memcmp(root, ns, sizeof(root)) != 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "namespace not found");
        return;
    }
    struct mero_node_op *ops = NULL;
    size_t n = 0;
    int rc = mero_node_ns_ops(r->node, ns, after, MERO_NODE_OPS_PAGE_MAX, &ops, &n, &last);
    if (rc < 0) {
        mero__api_reply_err(r, rc, NULL);
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; arr != NULL && i < n; i++) {
        json_t *j = op_json(&ops[i]);
        json_t *p = j != NULL && disclose != NULL ? plaintext_json(r->node, &ops[i]) : NULL;
        if (p != NULL) {
            json_object_set_new(j, "plaintext", p);
        }
        if (j == NULL || json_array_append_new(arr, j) < 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    mero_node_ops_free(ops, n);
    json_t *out =
        arr != NULL
            ? json_pack("{s:o, s:o}", "ops", arr, "next",
                        n == MERO_NODE_OPS_PAGE_MAX ? json_integer((json_int_t)last) : json_null())
            : NULL;
    if (out == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    mero__api_reply_data(r, 200, out);
}

/* GET .../audit: the manifest of `meroctl fleet audit` built over this node's log, with
 * "findings" (how many checks did not hold): the admin page draws its TEE timelines. */
static void ns_audit(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN], root[MERO_NS_ID_LEN];
    char *text = NULL;
    size_t nf = 0;
    if (mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero_node_namespace_of(r->node, ns, root) < 0 || memcmp(root, ns, sizeof(root)) != 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "namespace not found");
        return;
    }
    int rc = mero_node_ns_audit(r->node, ns, &text, &nf, &f);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &f);
        return;
    }
    json_t *doc = json_loads(text, 0, NULL);
    free(text);
    if (doc == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    json_object_set_new(doc, "findings", json_integer((json_int_t)nf));
    mero__api_reply_data(r, 200, doc);
}

const struct api_route mero__api_routes_nsops[] = {
    {API_GET, "/admin-api/namespaces/:namespace_id/ops", true, false, ns_ops},
    {API_GET, "/admin-api/namespaces/:namespace_id/audit", true, false, ns_audit},
    {0, NULL, false, false, NULL},
};
