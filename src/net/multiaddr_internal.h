/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multiaddr_internal.h - /ip4|ip6/.../tcp/N[/p2p/ID] multiaddrs in text and binary form, and
 * to and from socket addresses (multiaddr.c). Pure codec, no I/O. Private to src/net.
 */
#ifndef MERO_NET_MULTIADDR_INTERNAL_H
#define MERO_NET_MULTIADDR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/net.h"

struct mero__maddr {
    int family; /* 4 or 6 */
    uint8_t ip[16];
    uint16_t port;
    char peer[MERO_PEER_ID_STR_MAX]; /* "" when absent */
};
MERO_MUST_CHECK int mero__maddr_parse(const char *s, struct mero__maddr *out);
MERO_MUST_CHECK int mero__maddr_format(const struct mero__maddr *m, int with_peer,
                                       char out[MERO_MULTIADDR_STR_MAX]);
/* Binary multiaddr (identify listenAddrs) <-> struct. */
MERO_MUST_CHECK int mero__maddr_decode(const uint8_t *p, size_t n, struct mero__maddr *out);
MERO_MUST_CHECK int mero__maddr_encode(const struct mero__maddr *m, struct mero_buf *out);
MERO_MUST_CHECK int mero__maddr_to_sockaddr(const struct mero__maddr *m,
                                            struct sockaddr_storage *ss);
MERO_MUST_CHECK int mero__maddr_from_sockaddr(const struct sockaddr *sa, struct mero__maddr *m);

#endif
