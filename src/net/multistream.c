/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multistream.c - multistream-select 1.0 (connection-establishment spec): messages are an
 * unsigned varint length, then that many bytes ending in '\n'. The dialer sends the header
 * "/multistream/1.0.0" and its protocol (optimistically in one write) and waits for both echoed;
 * the listener answers the header, then echoes a protocol it speaks or "na" and waits for another.
 *
 * Invariant: a message longer than MERO__MSS_MAX_MSG, not ending in '\n', or containing a NUL
 * ends negotiation with -MERO_EPROTO; the negotiator never consumes bytes past the message that
 * completes it (what follows belongs to the negotiated protocol).
 */
#include <string.h>

#include "net/multistream_internal.h"

int mero__mss_parse(const uint8_t *p, size_t n, const uint8_t **msg, size_t *mlen, size_t *used)
{
    struct mero_cur c;
    uint64_t len;
    const uint8_t *b;
    int rc;
    mero_cur_init(&c, p, n);
    rc = mero_cur_uvarint(&c, &len);
    if (rc == -MERO_ETRUNC) {
        return n >= 10 ? -MERO_EPROTO : 0;
    }
    if (rc < 0 || len == 0 || len > MERO__MSS_MAX_MSG) {
        return -MERO_EPROTO;
    }
    if (mero_cur_left(&c) < len) {
        return 0;
    }
    if (mero_cur_bytes(&c, (size_t)len, &b) < 0 || b[len - 1] != '\n' ||
        memchr(b, 0, (size_t)len) != NULL) {
        return -MERO_EPROTO;
    }
    *msg = b;
    *mlen = (size_t)len - 1;
    *used = c.off;
    return 1;
}

int mero__mss_put(struct mero_buf *b, const char *line)
{
    size_t n = strlen(line);
    MERO_TRY(mero_buf_append_uvarint(b, n + 1));
    MERO_TRY(mero_buf_append(b, line, n));
    return mero_buf_append_u8(b, '\n');
}

static int is(const uint8_t *m, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(m, s, n) == 0;
}

int mero__mss_step(struct mero__mss *m, const uint8_t *p, size_t n, size_t *used,
                   struct mero_buf *out, mero__mss_match_fn match, void *ud, int *sel)
{
    *used = 0;
    while (m->state != MERO__MSS_DONE) {
        const uint8_t *msg;
        size_t mlen, u;
        int rc = mero__mss_parse(p + *used, n - *used, &msg, &mlen, &u);
        if (rc <= 0) {
            return rc;
        }
        *used += u;
        if (m->state == MERO__MSS_WAIT_HDR) {
            if (!is(msg, mlen, MERO__MSS_PROTO)) {
                return -MERO_EPROTO;
            }
            if (!m->dialer) {
                MERO_TRY(mero__mss_put(out, MERO__MSS_PROTO));
            }
            m->state = MERO__MSS_WAIT_PROTO;
            continue;
        }
        if (m->dialer) {
            if (is(msg, mlen, "na")) {
                return -MERO_EUNSUPPORTED;
            }
            if (!is(msg, mlen, m->proto)) {
                return -MERO_EPROTO;
            }
            m->state = MERO__MSS_DONE;
            return 1;
        }
        int idx = match ? match(ud, msg, mlen) : MERO__MSS_NO_MATCH;
        if (idx >= 0) {
            MERO_TRY(mero_buf_append_uvarint(out, mlen + 1));
            MERO_TRY(mero_buf_append(out, msg, mlen));
            MERO_TRY(mero_buf_append_u8(out, '\n'));
            m->state = MERO__MSS_DONE;
            *sel = idx;
            return 1;
        }
        MERO_TRY(mero__mss_put(out, "na")); /* also the answer to "ls" */
    }
    return 1;
}
