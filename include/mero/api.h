/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api.h - the admin HTTP API (src/api) on a node's loop: start it once the node has started
 * (mero_node_start), stop it before the node closes its network. The API reaches the node only
 * through mero/node.h.
 *
 * Invariant: stopping answers every suspended request 503 and closes every connection; the
 * server's memory goes when its loop handles have closed.
 *
 * Thread safety: not safe from other threads; both functions run on the node's loop thread
 * (the server's handlers run there too).
 */
#ifndef MERO_API_H
#define MERO_API_H

#include "mero/err.h"
#include "mero/node.h"

struct mero_api_server;

/* Listen on the node's configured API address (host:port, port 0 = any) and tell the node
 * where it listens (mero_node_set_api_bound). */
MERO_MUST_CHECK int mero_api_start(struct mero_node *node, struct mero_api_server **out,
                                   struct mero_err *err);
/* Stop: answer suspended requests with 503, close every connection, free the server. */
void mero_api_stop(struct mero_api_server *srv);

#endif
