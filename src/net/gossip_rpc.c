/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gossip_rpc.c - the gossipsub/pubsub RPC protobuf (pubsub spec rpc.proto, gossipsub v1.1
 * control messages): decoding into borrowed views with fixed caps, encoding subscriptions,
 * messages and control entries, building and checking StrictSign signatures' input
 * ("libp2p-pubsub:" || the Message encoded without its signature (5) and key (6) fields).
 *
 * Invariants: the decoder never allocates and never reads past its input; more entries than
 * the caps (subscriptions, messages, control entries) is malformed input, not truncation.
 */
#include <string.h>

#include "mero/crypto.h"
#include "net/gossip_rpc_internal.h"
#include "net/protobuf_internal.h"

static const char SIGN_PREFIX[] = "libp2p-pubsub:";

static int decode_sub(const uint8_t *p, size_t n, struct mero__rpc_sub *s)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    memset(s, 0, sizeof(*s));
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 1 && f.wt == MERO__PB_VARINT) {
            s->subscribe = f.v != 0;
        } else if (f.num == 2 && f.wt == MERO__PB_LEN) {
            s->topic = f.p;
            s->tlen = f.n;
        }
    }
    MERO_TRY(rc);
    return s->topic ? 0 : -MERO_EPROTO;
}

static int decode_msg(const uint8_t *p, size_t n, struct mero__rpc_msg *m)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    memset(m, 0, sizeof(*m));
    m->raw = p;
    m->rawlen = n;
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.wt != MERO__PB_LEN) {
            continue;
        }
        switch (f.num) {
        case 1:
            m->from = f.p, m->from_n = f.n;
            break;
        case 2:
            m->data = f.p, m->data_n = f.n;
            break;
        case 3:
            m->seqno = f.p, m->seqno_n = f.n;
            break;
        case 4:
            m->topic = f.p, m->topic_n = f.n;
            break;
        case 5:
            m->sig = f.p, m->sig_n = f.n;
            break;
        case 6:
            m->key = f.p, m->key_n = f.n;
            break;
        default:
            break;
        }
    }
    MERO_TRY(rc);
    return m->topic ? 0 : -MERO_EPROTO;
}

static int decode_ctrl_entry(int kind, const uint8_t *p, size_t n, struct mero__rpc_ctrl *e)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->ids = p;
    e->ids_n = n;
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 1 && f.wt == MERO__PB_LEN && kind != 2) {
            e->topic = f.p;
            e->tlen = f.n;
        } else if (f.num == 3 && f.wt == MERO__PB_VARINT && kind == 4) {
            e->backoff = f.v;
        }
    }
    if (rc < 0) {
        return rc;
    }
    return (kind != 2 && e->topic == NULL) ? -MERO_EPROTO : 0;
}

static int decode_control(const uint8_t *p, size_t n, struct mero__rpc *rpc)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.wt != MERO__PB_LEN || f.num < 1 || f.num > 4) {
            continue; /* idontwant (5) and unknown entries are ignored */
        }
        if (rpc->nctrl >= MERO__RPC_MAX_CTRL) {
            return -MERO_ETOOBIG;
        }
        MERO_TRY(decode_ctrl_entry((int)f.num, f.p, f.n, &rpc->ctrl[rpc->nctrl]));
        rpc->nctrl++;
    }
    return rc;
}

int mero__rpc_decode(const uint8_t *p, size_t n, struct mero__rpc *rpc)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    rpc->nsubs = rpc->nmsgs = rpc->nctrl = 0;
    mero_cur_init(&c, p, n);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.wt != MERO__PB_LEN) {
            continue;
        }
        if (f.num == 1) {
            if (rpc->nsubs >= MERO__RPC_MAX_SUBS) {
                return -MERO_ETOOBIG;
            }
            MERO_TRY(decode_sub(f.p, f.n, &rpc->subs[rpc->nsubs]));
            rpc->nsubs++;
        } else if (f.num == 2) {
            if (rpc->nmsgs >= MERO__RPC_MAX_MSGS) {
                return -MERO_ETOOBIG;
            }
            MERO_TRY(decode_msg(f.p, f.n, &rpc->msgs[rpc->nmsgs]));
            rpc->nmsgs++;
        } else if (f.num == 3) {
            MERO_TRY(decode_control(f.p, f.n, rpc));
        }
    }
    return rc;
}

int mero__rpc_next_id(struct mero_cur *c, uint32_t field, const uint8_t **id, size_t *n)
{
    struct mero__pb_field f;
    int rc;
    while ((rc = mero__pb_next(c, &f)) == 1) {
        if (f.num == field && f.wt == MERO__PB_LEN) {
            if (f.n == 0 || f.n > MERO__MSGID_MAX) {
                continue;
            }
            *id = f.p;
            *n = f.n;
            return 1;
        }
    }
    return rc;
}

int mero__rpc_sign_bytes(const struct mero__rpc_msg *m, struct mero_buf *out)
{
    struct mero_cur c;
    struct mero__pb_field f;
    int rc;
    MERO_TRY(mero_buf_append(out, SIGN_PREFIX, sizeof(SIGN_PREFIX) - 1));
    mero_cur_init(&c, m->raw, m->rawlen);
    while ((rc = mero__pb_next(&c, &f)) == 1) {
        if (f.num == 5 || f.num == 6) {
            continue;
        }
        MERO_TRY(mero_buf_append(out, m->raw + f.start, f.end - f.start));
    }
    return rc;
}

int mero__rpc_put_sub(struct mero_buf *b, int subscribe, const char *topic)
{
    size_t tl = strlen(topic);
    struct mero_buf t;
    int rc;
    mero_buf_init(&t, tl + 16);
    MERO_TRY_OUT(mero__pb_put_varint(&t, 1, subscribe ? 1 : 0));
    MERO_TRY_OUT(mero__pb_put_str(&t, 2, topic));
    MERO_TRY_OUT(mero__pb_put_bytes(b, 1, t.data, t.len));
out:
    mero_buf_cleanup(&t);
    return rc;
}

int mero__rpc_put_msg(struct mero_buf *b, const uint8_t *raw, size_t n)
{
    return mero__pb_put_bytes(b, 2, raw, n);
}

static int put_entry(struct mero_buf *ctl, uint32_t kind, const char *topic,
                     const struct mero_buf *ids, int with_backoff, uint64_t backoff)
{
    struct mero_buf e;
    int rc = 0;
    mero_buf_init(&e, (ids ? ids->len : 0) + 300);
    if (topic) {
        MERO_TRY_OUT(mero__pb_put_str(&e, 1, topic));
    }
    if (ids && ids->len) {
        MERO_TRY_OUT(mero_buf_append(&e, ids->data, ids->len));
    }
    if (with_backoff) {
        MERO_TRY_OUT(mero__pb_put_varint(&e, 3, backoff));
    }
    MERO_TRY_OUT(mero__pb_put_bytes(ctl, kind, e.data, e.len));
out:
    mero_buf_cleanup(&e);
    return rc;
}

int mero__rpc_ctrl_graft(struct mero_buf *ctl, const char *topic)
{
    return put_entry(ctl, 3, topic, NULL, 0, 0);
}

int mero__rpc_ctrl_prune(struct mero_buf *ctl, const char *topic, uint64_t backoff)
{
    return put_entry(ctl, 4, topic, NULL, 1, backoff);
}

int mero__rpc_ctrl_prune_px(struct mero_buf *ctl, const char *topic, uint64_t backoff,
                            const struct mero_buf *peers_field2)
{
    return put_entry(ctl, 4, topic, peers_field2, 1, backoff);
}

int mero__rpc_ctrl_ihave(struct mero_buf *ctl, const char *topic, const struct mero_buf *ids)
{
    return put_entry(ctl, 1, topic, ids, 0, 0);
}

int mero__rpc_ctrl_iwant(struct mero_buf *ctl, const struct mero_buf *ids)
{
    return put_entry(ctl, 2, NULL, ids, 0, 0);
}

int mero__rpc_put_control(struct mero_buf *b, const struct mero_buf *ctl)
{
    return mero__pb_put_bytes(b, 3, ctl->data, ctl->len);
}

int mero__rpc_msg_build(struct mero_buf *out, const uint8_t id_sk[MERO_ED25519_SK_LEN],
                        const uint8_t *from, size_t from_n, const uint8_t *data, size_t len,
                        const uint8_t seqno[8], const char *topic)
{
    struct mero_buf sb;
    uint8_t sig[MERO_ED25519_SIG_LEN];
    int rc;
    size_t start = out->len;
    MERO_TRY(mero__pb_put_bytes(out, 1, from, from_n));
    MERO_TRY(mero__pb_put_bytes(out, 2, data, len));
    MERO_TRY(mero__pb_put_bytes(out, 3, seqno, 8));
    MERO_TRY(mero__pb_put_str(out, 4, topic));
    mero_buf_init(&sb, out->len - start + sizeof(SIGN_PREFIX));
    MERO_TRY_OUT(mero_buf_append(&sb, SIGN_PREFIX, sizeof(SIGN_PREFIX) - 1));
    MERO_TRY_OUT(mero_buf_append(&sb, out->data + start, out->len - start));
    mero_ed25519_sign(sig, sb.data, sb.len, id_sk);
    rc = mero__pb_put_bytes(out, 5, sig, sizeof(sig));
out:
    mero_buf_cleanup(&sb);
    return rc;
}
