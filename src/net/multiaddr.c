/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multiaddr.c - the multiaddr subset we dial and listen on: /ip4|/ip6 + /tcp + optional /p2p
 * (also spelled /ipfs), as text and in the binary form identify uses (codes ip4=4, tcp=6,
 * ip6=41, p2p=421, multiaddr spec). /dns4, /dns6, /dnsaddr and every other protocol are refused
 * with -MERO_EUNSUPPORTED and a clear error; nothing is resolved.
 *
 * Invariant: a parsed multiaddr always has an address family, an IP and a port; a /p2p/ part is
 * a decodable Ed25519 peer id.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "mero/encoding.h"
#include "net/multiaddr_internal.h"
#include "net/peerid_internal.h"

#define MA_IP4 4
#define MA_TCP 6
#define MA_IP6 41
#define MA_P2P 421

static int check_peer(const char *id)
{
    uint8_t pk[MERO_ED25519_PK_LEN];
    return mero_net_peer_id_pk(id, pk) < 0 ? -MERO_EMULTIADDR : 0;
}

int mero__maddr_parse(const char *s, struct mero__maddr *out)
{
    char tmp[MERO_MULTIADDR_STR_MAX];
    char *parts[8];
    size_t np = 0, n;
    struct mero__maddr m;
    uint64_t port;
    if (s == NULL || (n = strlen(s)) == 0 || n >= sizeof(tmp) || s[0] != '/') {
        return -MERO_EMULTIADDR;
    }
    memcpy(tmp, s, n + 1);
    for (char *p = tmp + 1; np < 8;) {
        parts[np++] = p;
        char *q = strchr(p, '/');
        if (q == NULL) {
            break;
        }
        *q = 0;
        p = q + 1;
    }
    if (np < 4 || (np != 4 && np != 6)) {
        if (np >= 1 && (!strcmp(parts[0], "dns4") || !strcmp(parts[0], "dns6") ||
                        !strcmp(parts[0], "dns") || !strcmp(parts[0], "dnsaddr"))) {
            return -MERO_EUNSUPPORTED;
        }
        return -MERO_EMULTIADDR;
    }
    memset(&m, 0, sizeof(m));
    if (!strcmp(parts[0], "ip4")) {
        m.family = 4;
        if (inet_pton(AF_INET, parts[1], m.ip) != 1) {
            return -MERO_EMULTIADDR;
        }
    } else if (!strcmp(parts[0], "ip6")) {
        m.family = 6;
        if (inet_pton(AF_INET6, parts[1], m.ip) != 1) {
            return -MERO_EMULTIADDR;
        }
    } else if (!strcmp(parts[0], "dns4") || !strcmp(parts[0], "dns6") || !strcmp(parts[0], "dns") ||
               !strcmp(parts[0], "dnsaddr")) {
        return -MERO_EUNSUPPORTED;
    } else {
        return -MERO_EMULTIADDR;
    }
    if (strcmp(parts[2], "tcp") != 0) {
        return strcmp(parts[2], "udp") == 0 ? -MERO_EUNSUPPORTED : -MERO_EMULTIADDR;
    }
    if (parts[3][0] == 0 || mero_parse_u64(parts[3], 65535, &port) < 0) {
        return -MERO_EMULTIADDR;
    }
    m.port = (uint16_t)port;
    if (np == 6) {
        if (strcmp(parts[4], "p2p") != 0 && strcmp(parts[4], "ipfs") != 0) {
            return -MERO_EMULTIADDR;
        }
        if (strlen(parts[5]) >= sizeof(m.peer) || check_peer(parts[5]) < 0) {
            return -MERO_EMULTIADDR;
        }
        memcpy(m.peer, parts[5], strlen(parts[5]) + 1);
    }
    *out = m;
    return 0;
}

int mero__maddr_format(const struct mero__maddr *m, int with_peer, char out[MERO_MULTIADDR_STR_MAX])
{
    char ip[INET6_ADDRSTRLEN];
    int n;
    if (inet_ntop(m->family == 4 ? AF_INET : AF_INET6, m->ip, ip, sizeof(ip)) == NULL) {
        return -MERO_EMULTIADDR;
    }
    if (with_peer && m->peer[0]) {
        n = snprintf(out, MERO_MULTIADDR_STR_MAX, "/ip%d/%s/tcp/%u/p2p/%s", m->family, ip,
                     (unsigned)m->port, m->peer);
    } else {
        n = snprintf(out, MERO_MULTIADDR_STR_MAX, "/ip%d/%s/tcp/%u", m->family, ip,
                     (unsigned)m->port);
    }
    return (n < 0 || n >= MERO_MULTIADDR_STR_MAX) ? -MERO_ETOOBIG : 0;
}

int mero__maddr_decode(const uint8_t *p, size_t n, struct mero__maddr *out)
{
    struct mero_cur c;
    struct mero__maddr m;
    uint64_t code;
    const uint8_t *b;
    int have_ip = 0, have_tcp = 0;
    memset(&m, 0, sizeof(m));
    mero_cur_init(&c, p, n);
    while (mero_cur_left(&c) > 0) {
        if (mero_cur_uvarint(&c, &code) < 0) {
            return -MERO_EMULTIADDR;
        }
        if (code == MA_IP4 && !have_ip) {
            MERO_TRY(mero_cur_copy(&c, m.ip, 4));
            m.family = 4;
            have_ip = 1;
        } else if (code == MA_IP6 && !have_ip) {
            MERO_TRY(mero_cur_copy(&c, m.ip, 16));
            m.family = 6;
            have_ip = 1;
        } else if (code == MA_TCP && have_ip && !have_tcp) {
            MERO_TRY(mero_cur_bytes(&c, 2, &b));
            m.port = (uint16_t)((b[0] << 8) | b[1]);
            have_tcp = 1;
        } else if (code == MA_P2P && have_tcp && !m.peer[0]) {
            uint64_t l;
            if (mero_cur_uvarint(&c, &l) < 0 || l > MERO_PEER_ID_BYTES_MAX) {
                return -MERO_EMULTIADDR;
            }
            MERO_TRY(mero_cur_bytes(&c, (size_t)l, &b));
            uint8_t pk[MERO_ED25519_PK_LEN];
            if (mero__peer_id_bytes_pk(b, (size_t)l, pk) < 0 ||
                mero__peer_id_str_from_bytes(b, (size_t)l, m.peer) < 0) {
                return -MERO_EMULTIADDR;
            }
        } else {
            return -MERO_EUNSUPPORTED;
        }
    }
    if (!have_ip || !have_tcp) {
        return -MERO_EUNSUPPORTED;
    }
    *out = m;
    return 0;
}

int mero__maddr_encode(const struct mero__maddr *m, struct mero_buf *out)
{
    MERO_TRY(mero_buf_append_uvarint(out, m->family == 4 ? MA_IP4 : MA_IP6));
    MERO_TRY(mero_buf_append(out, m->ip, m->family == 4 ? 4 : 16));
    MERO_TRY(mero_buf_append_uvarint(out, MA_TCP));
    MERO_TRY(mero_buf_append_u8(out, (uint8_t)(m->port >> 8)));
    MERO_TRY(mero_buf_append_u8(out, (uint8_t)m->port));
    if (m->peer[0]) {
        uint8_t id[MERO_PEER_ID_BYTES_MAX];
        size_t n = sizeof(id);
        MERO_TRY(mero_net_peer_id_bytes(m->peer, id, &n));
        MERO_TRY(mero_buf_append_uvarint(out, MA_P2P));
        MERO_TRY(mero_buf_append_uvarint(out, n));
        MERO_TRY(mero_buf_append(out, id, n));
    }
    return 0;
}

int mero__maddr_to_sockaddr(const struct mero__maddr *m, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (m->family == 4) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(m->port);
        memcpy(&a->sin_addr, m->ip, 4);
        return 0;
    }
    if (m->family == 6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(m->port);
        memcpy(&a->sin6_addr, m->ip, 16);
        return 0;
    }
    return -MERO_EMULTIADDR;
}

int mero__maddr_from_sockaddr(const struct sockaddr *sa, struct mero__maddr *m)
{
    memset(m, 0, sizeof(*m));
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        m->family = 4;
        memcpy(m->ip, &a->sin_addr, 4);
        m->port = ntohs(a->sin_port);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        m->family = 6;
        memcpy(m->ip, &a->sin6_addr, 16);
        m->port = ntohs(a->sin6_port);
        return 0;
    }
    return -MERO_EMULTIADDR;
}

int mero_net_multiaddr_check(const char *multiaddr, char out[MERO_MULTIADDR_STR_MAX],
                             char peer_id[MERO_PEER_ID_STR_MAX])
{
    struct mero__maddr m;
    MERO_TRY(mero__maddr_parse(multiaddr, &m));
    MERO_TRY(mero__maddr_format(&m, 1, out));
    if (peer_id) {
        memcpy(peer_id, m.peer, sizeof(m.peer));
    }
    return 0;
}
