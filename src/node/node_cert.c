/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_cert.c - what bindNodeKey's key vouches for (issue 31, docs/relay.md "The chain to the
 * attested key"): the node's Ed25519 key (the one /tee/attest binds with bindNodeKey) signs a
 * certificate for its identity in a namespace, `mero.node.identity-cert.v1` || namespace id ||
 * identity, and that identity signs the node's ops, its deltas and the relayed writes it
 * executes. So a client that attested the node checks a relayed write back to the attested key:
 * quote -> node key -> certificate -> identity -> delta signature. Also the stored delta's bytes,
 * so the client can check them itself.
 *
 * Invariant: the node key signs only this fixed-width, domain-separated message here (the same
 * key's other use, the libp2p Noise payload, has its own prefix).
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "node/context/context_internal.h"
#include "node/node_internal.h"

#define CERT_DOMAIN "mero.node.identity-cert.v1"

int mero_node_identity_cert(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                            struct mero_node_identity_cert *out)
{
    uint8_t msg[sizeof(CERT_DOMAIN) - 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN];
    memset(out, 0, sizeof(*out));
    MERO_TRY(mero_node_ns_identity(node, ns, out->identity));
    memcpy(out->node_key, node->id_pk, sizeof(out->node_key));
    memcpy(out->ns, ns, MERO_NS_ID_LEN);
    memcpy(msg, CERT_DOMAIN, sizeof(CERT_DOMAIN) - 1);
    memcpy(msg + sizeof(CERT_DOMAIN) - 1, ns, MERO_NS_ID_LEN);
    memcpy(msg + sizeof(CERT_DOMAIN) - 1 + MERO_NS_ID_LEN, out->identity, MERO_IDENTITY_LEN);
    mero_ed25519_sign(out->sig, msg, sizeof(msg), node->id_sk);
    return 0;
}

int mero_node_delta_bytes(struct mero_node *node, const uint8_t id[MERO_DELTA_ID_LEN],
                          uint8_t **out, size_t *len)
{
    return mero__node_ctx_delta(node, id, out, len);
}
