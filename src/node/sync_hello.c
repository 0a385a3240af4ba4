/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_hello.c - HELLO on "/mero/sync/1" (issue 35 item 6): a puller tells each peer, per
 * namespace and at most every HELLO_EVERY_S, which member it speaks for and the name it runs
 * under, signed by that member's identity over the puller's node key; the responder checks the
 * signature against the Noise-authenticated peer and the membership before the fleet view counts
 * the peer's traffic for that member. Invariant: a HELLO that does not decode, is not signed by
 * its identity for this peer, or names a non-member changes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/fleet_internal.h"
#include "node/sync_job_internal.h"

/* What a HELLO's identity signs: domain || ns || identity || the sender's node key || name_len
 * u8 || name. The node key is the Noise-authenticated peer's, so a HELLO cannot be replayed
 * from another peer, and the identity's signature binds it (and the name) to that peer. */
static int hello_msg(struct mero_buf *m, const uint8_t ns[MERO_NS_ID_LEN],
                     const uint8_t identity[MERO_IDENTITY_LEN],
                     const uint8_t node_pk[MERO_ED25519_PK_LEN], const uint8_t *name, size_t n)
{
    MERO_TRY(mero_buf_append(m, HELLO_DOMAIN, sizeof(HELLO_DOMAIN) - 1));
    MERO_TRY(mero_buf_append(m, ns, MERO_NS_ID_LEN));
    MERO_TRY(mero_buf_append(m, identity, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append(m, node_pk, MERO_ED25519_PK_LEN));
    MERO_TRY(mero_buf_append_u8(m, (uint8_t)n));
    return mero_buf_append(m, name, n);
}

static bool is_member_of(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t identity[MERO_IDENTITY_LEN])
{
    int role = MERO_ROLE_NONE; /* its row in the root group, by key (not every member read) */
    return mero_gov_direct_role(node->store, ns, identity, &role) == 0 && role != MERO_ROLE_NONE;
}

int mero__node_sync_hello_encode(const struct mero_sync_hello *h,
                                 const uint8_t identity_sk[MERO_ED25519_SK_LEN],
                                 const uint8_t node_pk[MERO_ED25519_PK_LEN], struct mero_buf *out)
{
    uint8_t sig[MERO_ED25519_SIG_LEN];
    size_t n = strlen(h->name);
    if (n > MERO_MEMBER_LABEL_MAX || (n > 0 && mero_member_label_check(h->name, n, NULL) < 0)) {
        return -MERO_EINVAL;
    }
    struct mero_buf m;
    mero_buf_init(&m, HELLO_MSG_MAX);
    int rc = hello_msg(&m, h->ns, h->identity, node_pk, (const uint8_t *)h->name, n);
    if (rc == 0) {
        mero_ed25519_sign(sig, m.data, m.len, identity_sk);
    }
    mero_buf_cleanup(&m);
    MERO_TRY(rc);
    MERO_TRY(mero_buf_append_u8(out, HELLO));
    MERO_TRY(mero_buf_append(out, h->ns, MERO_NS_ID_LEN));
    MERO_TRY(mero_buf_append(out, h->identity, MERO_IDENTITY_LEN));
    MERO_TRY(mero_buf_append(out, sig, sizeof(sig)));
    MERO_TRY(mero_buf_append_u8(out, (uint8_t)n));
    return mero_buf_append(out, h->name, n);
}

int mero__node_sync_hello_decode(const uint8_t *data, size_t len,
                                 const uint8_t node_pk[MERO_ED25519_PK_LEN],
                                 struct mero_sync_hello *out)
{
    const uint8_t *ns = NULL, *identity = NULL, *sig = NULL, *name = NULL;
    uint8_t n = 0;
    struct mero_cur c;
    memset(out, 0, sizeof(*out));
    mero_cur_init(&c, data, len);
    if (mero_cur_bytes(&c, MERO_NS_ID_LEN, &ns) < 0 ||
        mero_cur_bytes(&c, MERO_IDENTITY_LEN, &identity) < 0 ||
        mero_cur_bytes(&c, MERO_ED25519_SIG_LEN, &sig) < 0 || mero_cur_u8(&c, &n) < 0 ||
        n > MERO_MEMBER_LABEL_MAX || mero_cur_bytes(&c, n, &name) < 0 || mero_cur_left(&c) != 0 ||
        (n > 0 && mero_member_label_check((const char *)name, n, NULL) < 0)) {
        return -MERO_EPROTO;
    }
    struct mero_buf m;
    mero_buf_init(&m, HELLO_MSG_MAX);
    int rc = hello_msg(&m, ns, identity, node_pk, name, n);
    if (rc == 0 && mero_ed25519_verify(sig, m.data, m.len, identity) < 0) {
        rc = -MERO_EBADSIG;
    }
    mero_buf_cleanup(&m);
    MERO_TRY(rc);
    memcpy(out->ns, ns, MERO_NS_ID_LEN);
    memcpy(out->identity, identity, MERO_IDENTITY_LEN);
    memcpy(out->name, name, n);
    out->name[n] = '\0';
    return 0;
}

/*
 * HELLO (issue 35 item 6, sync_internal.h): the peer says which member of ns it speaks for and
 * the name it runs under (merod --name). Decoded and checked against the peer's own key, then
 * the identity must be a member of the namespace root; the fleet view then counts the peer's
 * traffic for that member (last seen) and shows the name. Answer 0; 1 for a namespace this
 * node does not follow or an identity that is not (yet) its member; anything malformed or
 * unsigned is dropped.
 */
int mero__sync_answer_hello(struct mero_node *node, const char *peer, struct mero_cur *c,
                            struct mero_buf *out)
{
    uint8_t peer_pk[MERO_ED25519_PK_LEN];
    struct mero_sync_hello h;
    const uint8_t *rest = NULL;
    size_t left = mero_cur_left(c);
    MERO_TRY(mero_cur_bytes(c, left, &rest));
    MERO_TRY(mero_net_peer_id_pk(peer, peer_pk));
    MERO_TRY(mero__node_sync_hello_decode(rest, left, peer_pk, &h));
    if (mero__sync_purged(node, h.ns) || !is_member_of(node, h.ns, h.identity)) {
        return mero_buf_append_u8(out, 1);
    }
    mero__node_seen_hello(node, h.ns, h.identity, peer, h.name);
    return mero_buf_append_u8(out, 0);
}

/* What a HELLO in flight needs when its answer comes. */
struct hello_req {
    struct mero_node *node;
    char peer[MERO_PEER_ID_STR_MAX];
    uint8_t ns[MERO_NS_ID_LEN];
};

static struct hello_sent *hello_slot(struct mero_node_sync *s, const char *peer,
                                     const uint8_t ns[MERO_NS_ID_LEN]);

/* Nothing else depends on the answer (an older peer does not know HELLO); "1" (the peer does
 * not count us a member yet, or does not follow the namespace) frees the slot, so the next
 * pull says it again rather than HELLO_EVERY_S later. */
static void on_hello(void *ud, int status, const uint8_t *data, size_t len)
{
    struct hello_req *h = ud;
    if (status == 0 && len == 1 && data[0] == 1 && h->node->sync != NULL) {
        hello_slot(h->node->sync, h->peer, h->ns)->at = 0;
    }
    free(h);
}

/* The HELLO slot of (peer, ns): its own, else a free one, else the oldest. */
static struct hello_sent *hello_slot(struct mero_node_sync *s, const char *peer,
                                     const uint8_t ns[MERO_NS_ID_LEN])
{
    struct hello_sent *oldest = &s->hellos[0];
    for (size_t i = 0; i < HELLO_SENT_MAX; i++) {
        struct hello_sent *h = &s->hellos[i];
        if (h->at != 0 && strcmp(h->peer, peer) == 0 && memcmp(h->ns, ns, MERO_NS_ID_LEN) == 0) {
            return h;
        }
        if (h->at < oldest->at) {
            oldest = h;
        }
    }
    memset(oldest, 0, sizeof(*oldest));
    snprintf(oldest->peer, sizeof(oldest->peer), "%s", peer);
    memcpy(oldest->ns, ns, MERO_NS_ID_LEN);
    return oldest;
}

/* Tell peer, every HELLO_EVERY_S per namespace, which member of ns this node is and its name
 * (issue 35): signed by our identity in ns (answer_hello checks it). */
void mero__sync_say_hello(struct mero_node *node, const char *peer,
                          const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t identity[MERO_IDENTITY_LEN], sk[MERO_ED25519_SK_LEN];
    uint64_t now = mero_now_unix();
    struct hello_sent *h = hello_slot(node->sync, peer, ns);
    if ((h->at != 0 && now - h->at < HELLO_EVERY_S) ||
        mero_gov_identity(node->store, ns, false, identity, NULL) < 0) {
        return;
    }
    h->at = now;
    struct mero_sync_hello hello;
    memset(&hello, 0, sizeof(hello));
    memcpy(hello.ns, ns, MERO_NS_ID_LEN);
    memcpy(hello.identity, identity, MERO_IDENTITY_LEN);
    const char *name = node->cfg.name; /* --name */
    size_t n = strlen(name);
    if (n > 0 && n <= MERO_MEMBER_LABEL_MAX && mero_member_label_check(name, n, NULL) == 0) {
        memcpy(hello.name, name, n); /* a name the peers would refuse is not announced */
    }
    struct mero_buf b;
    mero_buf_init(&b, 1 + MERO_NS_ID_LEN + MERO_IDENTITY_LEN + MERO_ED25519_SIG_LEN + 1 +
                          MERO_MEMBER_LABEL_MAX);
    int rc = mero_gov_identity_secret(node->store, ns, sk);
    if (rc == 0) {
        rc = mero__node_sync_hello_encode(&hello, sk, node->id_pk, &b);
    }
    mero_wipe(sk, sizeof(sk));
    struct hello_req *req = rc == 0 ? calloc(1, sizeof(*req)) : NULL;
    if (req != NULL) {
        req->node = node;
        snprintf(req->peer, sizeof(req->peer), "%s", peer);
        memcpy(req->ns, ns, MERO_NS_ID_LEN);
        if (mero_net_request(node->net, peer, MERO_SYNC_PROTOCOL, b.data, b.len, SYNC_TIMEOUT_MS,
                             on_hello, req) < 0) {
            MERO_DEBUG("sync: HELLO to %s not sent", peer);
            free(req);
        }
    }
    mero_buf_cleanup(&b);
}
