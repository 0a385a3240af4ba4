/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_chain.c - the chain from the attested node key to what the node signs (issue 31,
 * docs/relay.md "The chain to the attested key", docs/api.md), both protected:
 *   GET /admin-api/namespaces/:namespace_id/identity-certificate -> {"data": {"nodeKey",
 *       "namespaceId", "identity", "signature"}} (hex): the node key's signature over
 *       "mero.node.identity-cert.v1" || namespace id || identity;
 *   GET /admin-api/deltas/:delta_id -> {"data": {"deltaId", "delta"}}: a stored delta's bytes
 *       (standard base64), signed by its author or, relayed, by its executor.
 * 404 for an unknown namespace identity or delta, 400 for an id that is not 64 hex.
 */
#include <stdlib.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"

static void identity_certificate(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_node_identity_cert c;
    (void)body;
    if (mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    int rc = mero_node_identity_cert(r->node, ns, &c);
    if (rc == -MERO_ENOTFOUND) {
        mero__api_refuse(r, MERO_ENOTFOUND, "this node holds no identity in that namespace");
        return;
    }
    if (rc < 0) {
        mero__api_reply_err(r, rc, NULL);
        return;
    }
    mero__api_reply_data(r, 200,
                         json_pack("{s:o, s:o, s:o, s:o}", "nodeKey",
                                   mero_json_hex(c.node_key, sizeof(c.node_key)), "namespaceId",
                                   mero_json_hex(c.ns, sizeof(c.ns)), "identity",
                                   mero_json_hex(c.identity, sizeof(c.identity)), "signature",
                                   mero_json_hex(c.sig, sizeof(c.sig))));
}

static void delta_get(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    uint8_t id[MERO_DELTA_ID_LEN], *bytes = NULL;
    size_t len = 0;
    (void)body;
    if (mero__api_parse_id32(r->params[0], id, "delta_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    int rc = mero_node_delta_bytes(r->node, id, &bytes, &len);
    if (rc == -MERO_ENOTFOUND) {
        mero__api_refuse(r, MERO_ENOTFOUND, "delta not found");
        return;
    }
    if (rc < 0) {
        mero__api_reply_err(r, rc, NULL);
        return;
    }
    char *b64 = mero_base64_encode(bytes, len);
    free(bytes);
    if (b64 == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    mero__api_reply_data(
        r, 200, json_pack("{s:o, s:s}", "deltaId", mero_json_hex(id, sizeof(id)), "delta", b64));
    free(b64);
}

const struct api_route mero__api_routes_chain[] = {
    {API_GET, "/admin-api/namespaces/:namespace_id/identity-certificate", true, false,
     identity_certificate},
    {API_GET, "/admin-api/deltas/:delta_id", true, false, delta_get},
    {0},
};
