/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identify_internal.h - the libp2p identify protocol (identify.c): serving and asking on a
 * stream, and the answer's codec. Private to src/net.
 */
#ifndef MERO_NET_IDENTIFY_INTERNAL_H
#define MERO_NET_IDENTIFY_INTERNAL_H

#include "mero/buf.h"
#include "mero/err.h"

struct mero_net;
struct mero__conn;
struct mero__stream;

#define MERO__IDENTIFY_PROTO "/ipfs/id/1.0.0"
void mero__identify_serve(struct mero__stream *s);
void mero__identify_ask(struct mero__conn *c);
/* The identify codec (fuzzable): listen addrs go to the address book through cb. */
MERO_MUST_CHECK int mero__identify_encode(struct mero_net *net, struct mero__conn *c,
                                          struct mero_buf *out);

#endif
