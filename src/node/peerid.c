/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peerid.c - the libp2p peer id of the node's Ed25519 identity, for logs, run.json and
 * GET /admin-api/node: base58btc of the identity multihash (0x00, 36) of the protobuf
 * PublicKey {Type: Ed25519 (1), Data: pk} = 08 01 12 20 || pk (libp2p peer-ids spec).
 * Keys of 42 bytes or less are inlined, which is why Ed25519 ids start with "12D3KooW".
 */
#include <string.h>

#include "node/peerid.h"

static const char b58[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

int mero_peer_id_from_ed25519(char *out, size_t cap, const uint8_t pk[static 32])
{
    uint8_t in[38] = {0x00, 0x24, 0x08, 0x01, 0x12, 0x20};
    memcpy(in + 6, pk, 32);
    uint8_t digits[64] = {0}; /* base-58 digits, little-endian */
    size_t nd = 0;
    for (size_t i = 0; i < sizeof(in); i++) {
        unsigned carry = in[i];
        for (size_t j = 0; j < nd; j++) {
            carry += (unsigned)digits[j] << 8;
            digits[j] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        while (carry > 0) {
            if (nd >= sizeof(digits)) {
                return -MERO_EOVERFLOW;
            }
            digits[nd++] = (uint8_t)(carry % 58);
            carry /= 58;
        }
    }
    size_t zeros = 0;
    while (zeros < sizeof(in) && in[zeros] == 0) {
        zeros++;
    }
    if (zeros + nd + 1 > cap) {
        return -MERO_ETOOBIG;
    }
    size_t k = 0;
    for (size_t i = 0; i < zeros; i++) {
        out[k++] = '1';
    }
    for (size_t i = nd; i > 0; i--) {
        out[k++] = b58[digits[i - 1]];
    }
    out[k] = 0;
    return 0;
}
