/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multistream_internal.h - multistream-select 1.0: the message codec and the negotiator one
 * connection or stream runs (multistream.c). No I/O: replies go to a buffer. Private to
 * src/net.
 */
#ifndef MERO_NET_MULTISTREAM_INTERNAL_H
#define MERO_NET_MULTISTREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"

#define MERO__MSS_PROTO   "/multistream/1.0.0"
#define MERO__MSS_MAX_MSG 1024
/* One message: 1 with msg, mlen (without the newline) and used; 0 need more; negative bad. */
MERO_MUST_CHECK int mero__mss_parse(const uint8_t *p, size_t n, const uint8_t **msg, size_t *mlen,
                                    size_t *used);
MERO_MUST_CHECK int mero__mss_put(struct mero_buf *b, const char *line);

enum { MERO__MSS_WAIT_HDR = 0, MERO__MSS_WAIT_PROTO, MERO__MSS_DONE };
struct mero__mss {
    int dialer;
    int state;
    const char *proto; /* dialer: the one protocol we ask for */
};
/*
 * Negotiation step over input p[0..n). Consumes into *used; writes replies to out.
 * Dialer: returns 1 when the listener accepted m->proto, -MERO_EUNSUPPORTED on "na".
 * Listener: `match(ud, name, len)` returns >= 0 (an index) to accept, MERO__MSS_NO_MATCH to
 * answer "na"; returns 1 with *sel. 0 means "need more input".
 */
#define MERO__MSS_NO_MATCH (-1)
/* the replies to one stream's pipelined proposals ("na" for each, then the accepted one) */
#define MERO__MSS_STREAM_REPLY_MAX (64 * MERO__MSS_MAX_MSG)
typedef int (*mero__mss_match_fn)(void *ud, const uint8_t *name, size_t len);
MERO_MUST_CHECK int mero__mss_step(struct mero__mss *m, const uint8_t *p, size_t n, size_t *used,
                                   struct mero_buf *out, mero__mss_match_fn match, void *ud,
                                   int *sel);

#endif
