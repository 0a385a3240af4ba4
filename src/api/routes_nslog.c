/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_nslog.c - GET /admin-api/namespaces/:namespace_id/log (protected, read-only): the
 * namespace's op-log heads (sorted lowercase hex) and op count, {"data": {"heads": [...],
 * "opCount": N}}. The fleet harness (docs/fleet-harness.md) compares these across nodes to
 * check that every node reached the same log after faults heal.
 *
 * Invariant: reads only; an unknown namespace is 404 like the other namespace routes.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"

static void ns_log(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err f = {0};
    uint8_t ns[MERO_NS_ID_LEN], root[MERO_NS_ID_LEN];
    uint8_t(*heads)[MERO_OP_ID_LEN] = NULL;
    size_t n = 0;
    uint64_t nops = 0;
    if (mero__api_parse_id32(r->params[0], ns, "namespace_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (mero_node_namespace_of(r->node, ns, root) < 0 || memcmp(root, ns, sizeof(root)) != 0) {
        mero__api_refuse(r, MERO_ENOTFOUND, "namespace not found");
        return;
    }
    int rc = mero_node_ns_log_state(r->node, ns, &heads, &n, &nops);
    if (rc < 0) {
        mero__api_reply_err(r, rc, NULL);
        return;
    }
    json_t *hl = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(hl, mero_json_hex(heads[i], sizeof(heads[i])));
    }
    free(heads);
    mero__api_reply_data(r, 200, json_pack("{s:o, s:I}", "heads", hl, "opCount", (json_int_t)nops));
}

const struct api_route mero__api_routes_nslog[] = {
    {API_GET, "/admin-api/namespaces/:namespace_id/log", true, false, ns_log},
    {0, NULL, false, false, NULL},
};
