/* SPDX-License-Identifier: Apache-2.0 */
/* peerid.h - the libp2p peer id of an Ed25519 key (base58btc of the identity multihash). */
#ifndef MERO_NODE_PEERID_H
#define MERO_NODE_PEERID_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"

/* Writes "12D3KooW..." (52 chars + NUL) into out; -MERO_ETOOBIG when cap is too small. */
MERO_MUST_CHECK int mero_peer_id_from_ed25519(char *out, size_t cap, const uint8_t pk[static 32]);

#endif
