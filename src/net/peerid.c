/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peerid.c - libp2p peer ids for Ed25519 keys (peer-ids spec): the public key as protobuf
 * PublicKey {Type=Ed25519(1), Data=pk}, wrapped in an identity multihash (0x00, len), printed in
 * base58btc ("12D3KooW...").
 *
 * Invariant: only Ed25519 identity-multihash ids are accepted; anything else (RSA, secp256k1,
 * sha2-256 multihashes) is refused with -MERO_EUNSUPPORTED, never half-parsed.
 */
#include <string.h>

#include "mero/encoding.h"
#include "net/peerid_internal.h"
#include "net/protobuf_internal.h"

void mero__pubkey_pb(const uint8_t pk[MERO_ED25519_PK_LEN], uint8_t out[MERO__PUBKEY_PB_LEN])
{
    out[0] = 0x08;                /* field 1 varint: KeyType */
    out[1] = 0x01;                /* Ed25519 */
    out[2] = 0x12;                /* field 2 bytes: Data */
    out[3] = MERO_ED25519_PK_LEN; /* its length */
    memcpy(out + MERO__PUBKEY_PB_HDR, pk, MERO_ED25519_PK_LEN);
}

int mero__pubkey_pb_parse(const uint8_t *p, size_t n, uint8_t pk[MERO_ED25519_PK_LEN])
{
    struct mero_cur c;
    struct mero__pb_field f;
    int type = -1, have = 0, rc;
    uint8_t tmp[MERO_ED25519_PK_LEN];
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 1 && f.wt == MERO__PB_VARINT) {
            type = (int)(f.v > 16 ? 16 : f.v);
        } else if (f.num == 2 && f.wt == MERO__PB_LEN) {
            if (f.n != sizeof(tmp)) {
                return -MERO_EUNSUPPORTED;
            }
            memcpy(tmp, f.p, sizeof(tmp));
            have = 1;
        } else {
            return -MERO_EPROTO;
        }
    }
    if (rc < 0) {
        return rc;
    }
    if (type != 1) {
        return -MERO_EUNSUPPORTED;
    }
    if (!have) {
        return -MERO_EPROTO;
    }
    memcpy(pk, tmp, sizeof(tmp));
    return 0;
}

void mero__peer_id_bytes_from_pk(const uint8_t pk[MERO_ED25519_PK_LEN],
                                 uint8_t out[MERO__PEER_ID_ED25519_LEN])
{
    out[0] = 0x00; /* identity multihash */
    out[1] = MERO__PUBKEY_PB_LEN;
    mero__pubkey_pb(pk, out + 2);
}

int mero__peer_id_bytes_pk(const uint8_t *id, size_t n, uint8_t pk[MERO_ED25519_PK_LEN])
{
    if (n < 2) {
        return -MERO_EPEERID;
    }
    if (id[0] != 0x00) {
        return -MERO_EUNSUPPORTED; /* sha2-256 ids (RSA and others) */
    }
    if (id[1] != n - 2) {
        return -MERO_EPEERID;
    }
    return mero__pubkey_pb_parse(id + 2, n - 2, pk);
}

int mero__peer_id_str_from_bytes(const uint8_t *id, size_t n, char out[MERO_PEER_ID_STR_MAX])
{
    return mero_base58_encode(id, n, out, MERO_PEER_ID_STR_MAX);
}

int mero_net_peer_id_from_pk(const uint8_t pk[MERO_ED25519_PK_LEN], char out[MERO_PEER_ID_STR_MAX])
{
    uint8_t id[MERO__PEER_ID_ED25519_LEN];
    mero__peer_id_bytes_from_pk(pk, id);
    return mero__peer_id_str_from_bytes(id, sizeof(id), out);
}

int mero_net_peer_id_bytes(const char *peer_id, uint8_t *out, size_t *len)
{
    uint8_t tmp[MERO_PEER_ID_BYTES_MAX];
    size_t n = sizeof(tmp);
    uint8_t pk[MERO_ED25519_PK_LEN];
    if (peer_id == NULL || out == NULL || len == NULL) {
        return -MERO_EINVAL;
    }
    if (mero_base58_decode(peer_id, tmp, &n) < 0) {
        return -MERO_EPEERID;
    }
    MERO_TRY(mero__peer_id_bytes_pk(tmp, n, pk));
    if (n > *len) {
        return -MERO_ETOOBIG;
    }
    memcpy(out, tmp, n);
    *len = n;
    return 0;
}

int mero_net_peer_id_pk(const char *peer_id, uint8_t pk[MERO_ED25519_PK_LEN])
{
    uint8_t tmp[MERO_PEER_ID_BYTES_MAX];
    size_t n = sizeof(tmp);
    if (peer_id == NULL) {
        return -MERO_EINVAL;
    }
    if (mero_base58_decode(peer_id, tmp, &n) < 0) {
        return -MERO_EPEERID;
    }
    return mero__peer_id_bytes_pk(tmp, n, pk);
}
