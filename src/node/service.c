/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service.c - starts and stops what runs beside the admin API on the node's loop. Without the
 * network layer linked, the configured listen addresses are reported as they are configured.
 */
#include <stdio.h>

#include "node/node.h"
#include "node/service.h"

int mero_node_service_start(struct mero_node *node, struct mero_err *err)
{
    (void)node;
    (void)err;
    return 0;
}

void mero_node_service_stop(struct mero_node *node)
{
    (void)node;
}

json_t *mero_node_listen_addrs(struct mero_node *node)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < node->cfg.nlisten; i++) {
        char buf[MERO_NODE_ADDR_MAX + 80];
        snprintf(buf, sizeof(buf), "%s/p2p/%s", node->cfg.listen[i], node->peer_id);
        json_array_append_new(a, json_string(buf));
    }
    return a;
}
