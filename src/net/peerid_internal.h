/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peerid_internal.h - libp2p peer ids of Ed25519 keys (peerid.c): the protobuf PublicKey and
 * the identity multihash. Pure codec, no I/O. Private to src/net.
 */
#ifndef MERO_NET_PEERID_INTERNAL_H
#define MERO_NET_PEERID_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/net.h"
#include "mero/sizes.h"

#define MERO__PEER_ID_ED25519_LEN 38 /* 0x00 0x24 | 08 01 12 20 | pk */
#define MERO__PUBKEY_PB_LEN       36 /* 08 01 12 20 | pk */
#define MERO__PUBKEY_PB_HDR       4  /* 08 01 12 20 */
_Static_assert(MERO__PUBKEY_PB_LEN == MERO__PUBKEY_PB_HDR + MERO_ED25519_PK_LEN,
               "a protobuf PublicKey is its 4-byte header and the Ed25519 key");
_Static_assert(MERO__PEER_ID_ED25519_LEN == 2 + MERO__PUBKEY_PB_LEN,
               "an identity multihash is 0x00, the length, then the PublicKey");
void mero__pubkey_pb(const uint8_t pk[MERO_ED25519_PK_LEN], uint8_t out[MERO__PUBKEY_PB_LEN]);
/* Parse a protobuf PublicKey; only Ed25519 (-MERO_EUNSUPPORTED otherwise). */
MERO_MUST_CHECK int mero__pubkey_pb_parse(const uint8_t *p, size_t n,
                                          uint8_t pk[MERO_ED25519_PK_LEN]);
void mero__peer_id_bytes_from_pk(const uint8_t pk[MERO_ED25519_PK_LEN],
                                 uint8_t out[MERO__PEER_ID_ED25519_LEN]);
/* Peer id bytes (multihash) -> Ed25519 public key. */
MERO_MUST_CHECK int mero__peer_id_bytes_pk(const uint8_t *id, size_t n,
                                           uint8_t pk[MERO_ED25519_PK_LEN]);
MERO_MUST_CHECK int mero__peer_id_str_from_bytes(const uint8_t *id, size_t n,
                                                 char out[MERO_PEER_ID_STR_MAX]);

#endif
