/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peer_record_internal.h - libp2p signed peer records (peer_record.c, issue 33): a PeerRecord
 * {peer id, seq, addresses} sealed in a signed envelope, sent in identify and handed on in
 * gossipsub's peer exchange. Private to src/net.
 */
#ifndef MERO_NET_PEER_RECORD_INTERNAL_H
#define MERO_NET_PEER_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"
#include "net/multiaddr_internal.h"
#include "net/peerid_internal.h"

/* ---- signed peer records (peer_record.c) ---- */
#define MERO__VARINT_MAX    10   /* an unsigned LEB128 uint64 */
#define MERO__SPR_MAX       1024 /* a signed envelope we build, keep or open */
#define MERO__SPR_ADDRS_MAX 8    /* addresses read from (or put into) one record */
struct mero__spr {
    char peer[MERO_PEER_ID_STR_MAX]; /* the signer, = the record's peer id */
    uint8_t pk[MERO_ED25519_PK_LEN];
    uint64_t seq;
    struct mero__maddr addrs[MERO__SPR_ADDRS_MAX]; /* with .peer set */
    size_t naddrs;
};
/* Seal a PeerRecord {peer id of pk, seq, addrs} in a signed envelope appended to out. */
MERO_MUST_CHECK int mero__spr_seal(const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                   const uint8_t pk[MERO_ED25519_PK_LEN], uint64_t seq,
                                   const struct mero__maddr *addrs, size_t naddrs,
                                   struct mero_buf *out);
/* Open a signed envelope: 0 when its signature verifies and the record's peer id is its
 * signer; -MERO_EBADSIG, -MERO_EPEERID, -MERO_EPROTO, -MERO_ETOOBIG, -MERO_EUNSUPPORTED. */
MERO_MUST_CHECK int mero__spr_open(const uint8_t *p, size_t n, struct mero__spr *out);
struct mero_net;
/* Our own record (announced addresses, else concrete listen addresses), appended to out. */
MERO_MUST_CHECK int mero__spr_own(struct mero_net *net, struct mero_buf *out);

#endif
