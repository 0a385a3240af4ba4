/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_rpc_internal.h - the gossipsub RPC codec (gossip_rpc.c): decoded RPCs borrow from
 * their input and every array is bounded; the encoders append one field each. Pure codec, no
 * I/O. Private to src/net.
 */
#ifndef MERO_NET_GOSSIP_RPC_INTERNAL_H
#define MERO_NET_GOSSIP_RPC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"
#include "net/peerid_internal.h"

#define MERO__MESHSUB_11 "/meshsub/1.1.0"
#define MERO__MESHSUB_10 "/meshsub/1.0.0"
#define MERO__TOPIC_MAX  256
#define MERO__MSGID_MAX  (MERO__PUBKEY_PB_LEN + 8 + 64)

/* Decoded RPC (borrowed pointers into the input). Limits bound every array. */
#define MERO__RPC_MAX_SUBS 256
#define MERO__RPC_MAX_MSGS 256
#define MERO__RPC_MAX_CTRL 512
struct mero__rpc_sub {
    int subscribe;
    const uint8_t *topic;
    size_t tlen;
};
struct mero__rpc_msg {
    const uint8_t *raw; /* the whole encoded Message */
    size_t rawlen;
    const uint8_t *from, *data, *seqno, *topic, *sig, *key;
    size_t from_n, data_n, seqno_n, topic_n, sig_n, key_n;
};
struct mero__rpc_ctrl {
    int kind; /* 1 ihave, 2 iwant, 3 graft, 4 prune */
    const uint8_t *topic;
    size_t tlen;
    const uint8_t *ids; /* ihave/iwant: the raw repeated-bytes region (parse again) */
    size_t ids_n;
    uint64_t backoff;
};
struct mero__rpc {
    struct mero__rpc_sub subs[MERO__RPC_MAX_SUBS];
    size_t nsubs;
    struct mero__rpc_msg msgs[MERO__RPC_MAX_MSGS];
    size_t nmsgs;
    struct mero__rpc_ctrl ctrl[MERO__RPC_MAX_CTRL];
    size_t nctrl;
};
MERO_MUST_CHECK int mero__rpc_decode(const uint8_t *p, size_t n, struct mero__rpc *rpc);
/* Iterate message ids inside an ihave/iwant body: 1 with *id, 0 at end, negative bad. */
MERO_MUST_CHECK int mero__rpc_next_id(struct mero_cur *c, uint32_t field, const uint8_t **id,
                                      size_t *n);
/* Encoders: each appends one top-level RPC field (or control entry) to b. */
MERO_MUST_CHECK int mero__rpc_put_sub(struct mero_buf *b, int subscribe, const char *topic);
MERO_MUST_CHECK int mero__rpc_put_msg(struct mero_buf *b, const uint8_t *raw, size_t n);
/* Control bodies (wrap the whole control body with mero__rpc_put_control). */
MERO_MUST_CHECK int mero__rpc_ctrl_graft(struct mero_buf *ctl, const char *topic);
MERO_MUST_CHECK int mero__rpc_ctrl_prune(struct mero_buf *ctl, const char *topic, uint64_t backoff);
/* A PRUNE with peer exchange: peers_field2 holds encoded PeerInfo entries (field 2). */
MERO_MUST_CHECK int mero__rpc_ctrl_prune_px(struct mero_buf *ctl, const char *topic,
                                            uint64_t backoff, const struct mero_buf *peers_field2);
MERO_MUST_CHECK int mero__rpc_ctrl_ihave(struct mero_buf *ctl, const char *topic,
                                         const struct mero_buf *ids_field2);
MERO_MUST_CHECK int mero__rpc_ctrl_iwant(struct mero_buf *ctl, const struct mero_buf *ids_field1);
MERO_MUST_CHECK int mero__rpc_put_control(struct mero_buf *b, const struct mero_buf *ctl);
/* A signed Message (StrictSign, no key field) into out. */
MERO_MUST_CHECK int mero__rpc_msg_build(struct mero_buf *out,
                                        const uint8_t id_sk[MERO_ED25519_SK_LEN],
                                        const uint8_t *from, size_t from_n, const uint8_t *data,
                                        size_t len, const uint8_t seqno[8], const char *topic);
/* The bytes a StrictSign signature covers: "libp2p-pubsub:" || Message without fields 5, 6. */
MERO_MUST_CHECK int mero__rpc_sign_bytes(const struct mero__rpc_msg *m, struct mero_buf *out);

#endif
