/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ns.c - GET /admin-api/node and the namespace, group and member routes.
 */
#include "api/api.h"
#include "api/validate.h"
#include "mero/encoding.h"
#include "node/node.h"
#include "node/service.h"

static void node_info(struct api_req *r, json_t *body)
{
    (void)body;
    char id[65];
    mero_hex_encode(id, r->node->id_pk, 32);
    api_reply_data(r, 200,
                   json_pack("{s:s, s:o, s:s, s:s}", "peerId", r->node->peer_id, "listenAddrs",
                             mero_node_listen_addrs(r->node), "identity", id, "name",
                             r->node->cfg.name));
}

const struct api_route api_routes_ns[] = {
    {API_GET, "/admin-api/node", true, false, node_info},
    {0, NULL, false, false, NULL},
};
