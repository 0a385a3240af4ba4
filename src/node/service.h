/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service.h - the node's namespace service (service.c): the network, governance store,
 * sync and contexts, started and stopped by the loop. Every function runs on the loop.
 */
#ifndef MERO_NODE_SERVICE_H
#define MERO_NODE_SERVICE_H

#include <jansson.h>

#include "mero/err.h"

struct mero_node;

MERO_MUST_CHECK int mero_node_service_start(struct mero_node *node, struct mero_err *err);
void mero_node_service_stop(struct mero_node *node);
/* Our listen multiaddrs (with /p2p/<id>), a new JSON array. */
json_t *mero_node_listen_addrs(struct mero_node *node);

#endif
