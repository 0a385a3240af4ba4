/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peer_record.c - libp2p signed peer records (RFC 0002 signed envelopes, RFC 0003 peer
 * records; the format js-libp2p's @libp2p/peer-record writes): our own record, sealed with our
 * identity key, and the opening of a record another peer signed. Gossipsub's peer exchange
 * carries these in PRUNE (gossipsub.c), identify carries them as signedPeerRecord (field 8).
 *
 *   Envelope   { 1: PublicKey (protobuf), 2: payload_type (0x03 0x01), 3: payload, 5: signature }
 *   PeerRecord { 1: peer id bytes, 2: seq (varint), 3: AddressInfo { 1: multiaddr bytes } * }
 *   signed bytes: uvarint(len domain) || "libp2p-peer-record" || uvarint(2) || 0x03 0x01 ||
 *                 uvarint(len payload) || payload
 *
 * Invariants: a record is opened only when its Ed25519 signature verifies over the domain
 * separated bytes and the peer id inside the record is the key that signed it; every length is
 * checked against MERO__SPR_MAX first; at most MERO__SPR_ADDRS_MAX addresses are returned
 * (undecodable ones, other transports, are skipped).
 */
#include <string.h>

#include "mero/clock.h"
#include "mero/crypto.h"
#include "net/net_internal.h"
#include "net/peer_record_internal.h"
#include "net/protobuf_internal.h"

static const char SPR_DOMAIN[] = "libp2p-peer-record";
static const uint8_t SPR_TYPE[] = {0x03, 0x01}; /* multicodec libp2p-peer-record */

/* The bytes the envelope's signature covers. */
static int sign_bytes(const uint8_t *payload, size_t n, struct mero_buf *out)
{
    MERO_TRY(mero_buf_append_uvarint(out, sizeof(SPR_DOMAIN) - 1));
    MERO_TRY(mero_buf_append(out, SPR_DOMAIN, sizeof(SPR_DOMAIN) - 1));
    MERO_TRY(mero_buf_append_uvarint(out, sizeof(SPR_TYPE)));
    MERO_TRY(mero_buf_append(out, SPR_TYPE, sizeof(SPR_TYPE)));
    MERO_TRY(mero_buf_append_uvarint(out, n));
    return mero_buf_append(out, payload, n);
}

int mero__spr_seal(const uint8_t id_sk[MERO_ED25519_SK_LEN], const uint8_t pk[MERO_ED25519_PK_LEN],
                   uint64_t seq, const struct mero__maddr *addrs, size_t naddrs,
                   struct mero_buf *out)
{
    uint8_t id[MERO__PEER_ID_ED25519_LEN], pb[MERO__PUBKEY_PB_LEN], sig[MERO_ED25519_SIG_LEN];
    struct mero_buf rec, a, sb;
    int rc = 0;
    mero_buf_init(&rec, MERO__SPR_MAX);
    mero_buf_init(&a, MERO__SPR_MAX);
    mero_buf_init(&sb, MERO__SPR_MAX + sizeof(SPR_DOMAIN) + MERO__VARINT_MAX * 3);
    mero__peer_id_bytes_from_pk(pk, id);
    mero__pubkey_pb(pk, pb);
    MERO_TRY_OUT(mero__pb_put_bytes(&rec, 1, id, sizeof(id)));
    MERO_TRY_OUT(mero__pb_put_varint(&rec, 2, seq));
    for (size_t i = 0; i < naddrs && i < MERO__SPR_ADDRS_MAX; i++) {
        struct mero__maddr m = addrs[i];
        struct mero_buf ai;
        m.peer[0] = 0;
        mero_buf_reset(&a);
        MERO_TRY_OUT(mero__maddr_encode(&m, &a));
        mero_buf_init(&ai, a.len + MERO__VARINT_MAX + 1);
        rc = mero__pb_put_bytes(&ai, 1, a.data, a.len);
        if (rc == 0) {
            rc = mero__pb_put_bytes(&rec, 3, ai.data, ai.len);
        }
        mero_buf_cleanup(&ai);
        MERO_TRY_OUT(rc);
    }
    MERO_TRY_OUT(sign_bytes(rec.data, rec.len, &sb));
    mero_ed25519_sign(sig, sb.data, sb.len, id_sk);
    MERO_TRY_OUT(mero__pb_put_bytes(out, 1, pb, sizeof(pb)));
    MERO_TRY_OUT(mero__pb_put_bytes(out, 2, SPR_TYPE, sizeof(SPR_TYPE)));
    MERO_TRY_OUT(mero__pb_put_bytes(out, 3, rec.data, rec.len));
    MERO_TRY_OUT(mero__pb_put_bytes(out, 5, sig, sizeof(sig)));
out:
    mero_buf_cleanup(&rec);
    mero_buf_cleanup(&a);
    mero_buf_cleanup(&sb);
    return rc;
}

/* The record's fields once the envelope verified. */
static int open_record(const uint8_t *p, size_t n, const uint8_t pk[MERO_ED25519_PK_LEN],
                       struct mero__spr *out)
{
    uint8_t id[MERO__PEER_ID_ED25519_LEN];
    struct mero_cur c, ac;
    struct mero__pb_field f, g;
    int rc, have_id = 0;
    mero__peer_id_bytes_from_pk(pk, id);
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 1 && f.wt == MERO__PB_LEN) {
            if (f.n != sizeof(id) || memcmp(f.p, id, sizeof(id)) != 0) {
                return -MERO_EPEERID; /* a record about another peer than its signer */
            }
            have_id = 1;
        } else if (f.num == 2 && f.wt == MERO__PB_VARINT) {
            out->seq = f.v;
        } else if (f.num == 3 && f.wt == MERO__PB_LEN && out->naddrs < MERO__SPR_ADDRS_MAX) {
            mero_cur_init(&ac, f.p, f.n);
            while ((rc = mero__pb_next(&ac, &g)) == 1) {
                if (g.num == 1 && g.wt == MERO__PB_LEN &&
                    mero__maddr_decode(g.p, g.n, &out->addrs[out->naddrs]) == 0 &&
                    out->addrs[out->naddrs].port != 0) {
                    out->naddrs++;
                    break;
                }
            }
            MERO_TRY(rc < 0 ? rc : 0);
        }
    }
    MERO_TRY(rc);
    if (!have_id) {
        return -MERO_EPROTO;
    }
    MERO_TRY(mero__peer_id_str_from_bytes(id, sizeof(id), out->peer));
    for (size_t i = 0; i < out->naddrs; i++) {
        memcpy(out->addrs[i].peer, out->peer, sizeof(out->peer));
    }
    return 0;
}

int mero__spr_open(const uint8_t *p, size_t n, struct mero__spr *out)
{
    struct mero_cur c;
    struct mero__pb_field f;
    const uint8_t *key = NULL, *type = NULL, *payload = NULL, *sig = NULL;
    size_t key_n = 0, type_n = 0, payload_n = 0, sig_n = 0;
    uint8_t pk[MERO_ED25519_PK_LEN];
    struct mero_buf sb;
    int rc;
    memset(out, 0, sizeof(*out));
    if (n > MERO__SPR_MAX) {
        return -MERO_ETOOBIG;
    }
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.wt != MERO__PB_LEN) {
            continue;
        }
        if (f.num == 1) {
            key = f.p, key_n = f.n;
        } else if (f.num == 2) {
            type = f.p, type_n = f.n;
        } else if (f.num == 3) {
            payload = f.p, payload_n = f.n;
        } else if (f.num == 5) {
            sig = f.p, sig_n = f.n;
        }
    }
    MERO_TRY(rc);
    if (key == NULL || payload == NULL || sig_n != MERO_ED25519_SIG_LEN ||
        type_n != sizeof(SPR_TYPE) || memcmp(type, SPR_TYPE, sizeof(SPR_TYPE)) != 0) {
        return -MERO_EPROTO;
    }
    MERO_TRY(mero__pubkey_pb_parse(key, key_n, pk));
    mero_buf_init(&sb, MERO__SPR_MAX + sizeof(SPR_DOMAIN) + MERO__VARINT_MAX * 3);
    rc = sign_bytes(payload, payload_n, &sb);
    if (rc == 0 && mero_ed25519_verify(sig, sb.data, sb.len, pk) != 0) {
        rc = -MERO_EBADSIG;
    }
    mero_buf_cleanup(&sb);
    MERO_TRY(rc);
    memcpy(out->pk, pk, sizeof(pk));
    return open_record(payload, payload_n, pk, out);
}

int mero__spr_own(struct mero_net *net, struct mero_buf *out)
{
    struct mero__maddr addrs[MERO__SPR_ADDRS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < net->nannounce && n < MERO__SPR_ADDRS_MAX; i++) {
        addrs[n++] = net->announce[i];
    }
    for (struct mero__listener *l = net->listeners; l && net->nannounce == 0; l = l->next) {
        static const uint8_t zero[16] = {0};
        if (n < MERO__SPR_ADDRS_MAX &&
            memcmp(l->addr.ip, zero, l->addr.family == 4 ? 4 : 16) != 0) {
            addrs[n++] = l->addr; /* a wildcard address tells a dialer nothing */
        }
    }
    /* seq: the wall clock in ms (as js does), strictly increasing, so a later record of ours
     * replaces an earlier one */
    uint64_t seq = mero_now_unix() * 1000u;
    net->spr_seq = seq > net->spr_seq ? seq : net->spr_seq + 1;
    return mero__spr_seal(net->id_sk, net->id_pk, net->spr_seq, addrs, n, out);
}
