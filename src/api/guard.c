/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guard.c - admission control for the admin API's connections (issue 21 item 6: 1,000 slow
 * clients used to take the API down, /tee/attest included).
 *
 * Every TCP connection is tracked from accept to close with the phase its current request is
 * in: waiting for its headers (also: idle between keep-alive requests), receiving its body, or
 * busy (dispatched to a handler or being answered). Three rules:
 *
 *   - deadlines that activity does not extend: the headers must be complete within
 *     API_HEADER_DEADLINE_MS of the connection's start (or of the previous request's end),
 *     the body within API_BODY_DEADLINE_MS of the headers; the sweep closes a connection
 *     past its deadline, so trickling one byte at a time buys nothing (libmicrohttpd's own
 *     idle timeout restarts on every byte, which is why it is not enough);
 *   - caps: at most API_CONN_MAX connections in all and API_CONN_PER_IP from one address;
 *   - eviction instead of refusal: a new connection over a cap closes the oldest connection
 *     that is not busy (over the per-address cap: of that address), and is refused only when
 *     every connection in the way is busy. A client that sends its request at once is busy
 *     within one loop turn, so flooding with slow or idle connections, from any address
 *     including loopback, only ever evicts the flood's own oldest connections.
 *
 * Invariants: a connection is closed by shutting its socket down (libmicrohttpd then sees
 * end-of-stream, ends the request and calls the close notification that frees the entry); a
 * closing connection counts for no cap and is never picked again; every entry is on exactly
 * one list from its start notification to its close notification. Loop thread only.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "api/api_internal.h"
#include "mero/log.h"

void mero__api_guard_init(struct api_guard *g)
{
    memset(g, 0, sizeof(*g));
}

static uint32_t ipv4_of(const struct sockaddr *a)
{
    if (a != NULL && a->sa_family == AF_INET) {
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr;
    }
    return 0;
}

static void shut(struct api_guard *g, struct api_conn *c, const char *why)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c->mhd, MHD_CONNECTION_INFO_CONNECTION_FD);
    c->closing = true;
    g->closed_by_guard++;
    if (ci != NULL) {
        (void)shutdown(ci->connect_fd, SHUT_RDWR);
    }
    MERO_DEBUG("api: closing a connection (%s)", why);
}

/* The oldest connection not busy and not closing; with same_ip, only from that address. */
static struct api_conn *oldest_idle(struct api_guard *g, bool same_ip, uint32_t ip)
{
    struct api_conn *best = NULL;
    for (struct api_conn *c = g->head; c != NULL; c = c->next) {
        if (c->closing || c->phase == API_CONN_BUSY || (same_ip && c->ip != ip)) {
            continue;
        }
        if (best == NULL || c->phase_start_ms < best->phase_start_ms) {
            best = c;
        }
    }
    return best;
}

bool mero__api_guard_accept(struct api_guard *g, const struct sockaddr *addr)
{
    uint32_t ip = ipv4_of(addr);
    size_t total = 0, from_ip = 0;
    for (struct api_conn *c = g->head; c != NULL; c = c->next) {
        if (!c->closing) {
            total++;
            from_ip += c->ip == ip;
        }
    }
    if (from_ip >= API_CONN_PER_IP) {
        struct api_conn *v = oldest_idle(g, true, ip);
        if (v == NULL) {
            g->refused++;
            return false;
        }
        shut(g, v, "per-address cap");
        total--;
    }
    if (total >= API_CONN_MAX) {
        struct api_conn *v = oldest_idle(g, false, 0);
        if (v == NULL) {
            g->refused++;
            return false;
        }
        shut(g, v, "connection cap");
    }
    return true;
}

struct api_conn *mero__api_guard_started(struct api_guard *g, struct MHD_Connection *mhd,
                                         uint64_t now_ms)
{
    struct api_conn *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mhd, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    c->ip = ipv4_of(ci != NULL ? ci->client_addr : NULL);
    c->mhd = mhd;
    c->phase = API_CONN_HEADERS;
    c->phase_start_ms = now_ms;
    c->next = g->head;
    if (g->head != NULL) {
        g->head->prev = c;
    }
    g->head = c;
    g->n++;
    return c;
}

void mero__api_guard_closed(struct api_guard *g, struct api_conn *c)
{
    if (c == NULL) {
        return;
    }
    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        g->head = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    }
    g->n--;
    free(c);
}

void mero__api_guard_phase(struct api_conn *c, enum api_conn_phase phase, uint64_t now_ms)
{
    if (c != NULL) {
        c->phase = phase;
        c->phase_start_ms = now_ms;
    }
}

void mero__api_guard_sweep(struct api_guard *g, uint64_t now_ms)
{
    uint64_t events = g->closed_by_guard + g->refused;
    if (events != g->reported && now_ms >= g->next_report_ms) {
        MERO_WARN("api: %llu connections closed (slow, idle or over a cap) and %llu refused "
                  "(all busy) so far",
                  (unsigned long long)g->closed_by_guard, (unsigned long long)g->refused);
        g->reported = events;
        g->next_report_ms = now_ms + API_GUARD_REPORT_MS;
    }
    for (struct api_conn *c = g->head; c != NULL; c = c->next) {
        if (c->closing) {
            continue;
        }
        uint64_t age = now_ms - c->phase_start_ms;
        if (c->phase == API_CONN_HEADERS && age > API_HEADER_DEADLINE_MS) {
            shut(g, c, "headers not complete in time");
        } else if (c->phase == API_CONN_BODY && age > API_BODY_DEADLINE_MS) {
            shut(g, c, "body not complete in time");
        }
    }
}
