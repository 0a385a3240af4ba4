/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed.c - the node's half of a sealed session's handshake (issue 31): Noise NK to the
 * in-memory transport key (made at open, never written, replaced by a restart), and the
 * --sealed-only switch the admin API reads. The session table and the envelope's HTTP are
 * the API's (src/api/sealed*.c); the handshake's bytes are net's (mero/sealed.h).
 *
 * Invariant: the transport key's secret half never leaves this module: the API hands in
 * Noise message 1 and gets message 2 and the session's keys back.
 */
#include <string.h>

#include "mero/sealed.h"
#include "node/node_internal.h"

int mero_node_sealed_respond(const struct mero_node *node, const uint8_t *msg1, size_t n,
                             const uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                             uint8_t msg2[MERO_SEALED_MSG2_LEN], struct mero_sealed_keys *keys)
{
    if (node->transport_sk == NULL) {
        return -MERO_ESTATE;
    }
    return mero_sealed_respond(node->transport_sk, NULL, msg1, n, sid, MERO_SEALED_LIFETIME_S, msg2,
                               keys);
}

void mero_node_set_sealed_only(struct mero_node *node, bool on)
{
    node->sealed_only = on;
}

bool mero_node_sealed_only(const struct mero_node *node)
{
    return node->sealed_only;
}
