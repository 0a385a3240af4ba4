/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topic.c - a namespace's gossip topic, "ns/<hex>" (topic_internal.h): its one builder and
 * parser (mero__node_topic / mero__node_topic_ns), and the two things this node does on it,
 * publishing (one tagged message, or every op a local action produced) and following
 * (subscribing). Below the service, admission, purge and the use cases alike, which all reach
 * the topic only through here; it calls nothing of node/ but the net peer the service made.
 *
 * Invariant: a topic this builds is exactly MERO_NS_TOPIC_LEN chars and the parser accepts
 * exactly that shape; a publish that reaches no peer is not an error (sync carries it later).
 */
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/node_internal.h"
#include "node/topic_internal.h"

void mero__node_topic(char out[MERO_NS_TOPIC_SIZE], const uint8_t ns[MERO_NS_ID_LEN])
{
    size_t pl = strlen(MERO_NS_TOPIC_PREFIX);
    memcpy(out, MERO_NS_TOPIC_PREFIX, pl);
    mero_hex_encode(out + pl, ns, MERO_NS_ID_LEN);
}

int mero__node_topic_ns(const char *topic, uint8_t ns[MERO_NS_ID_LEN])
{
    size_t pl = strlen(MERO_NS_TOPIC_PREFIX);
    if (topic == NULL || strncmp(topic, MERO_NS_TOPIC_PREFIX, pl) != 0 ||
        strlen(topic) != MERO_NS_TOPIC_LEN) {
        return -MERO_EINVAL;
    }
    return mero_hex_decode_exact(ns, MERO_NS_ID_LEN, topic + pl, MERO_HEX_LEN(MERO_NS_ID_LEN));
}

int mero__node_publish(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], uint8_t tag,
                       const uint8_t *data, size_t len)
{
    if (node->net == NULL) {
        return 0;
    }
    uint8_t *msg = malloc(len + 1);
    if (msg == NULL) {
        return -MERO_ENOMEM;
    }
    msg[0] = tag;
    memcpy(msg + 1, data, len);
    char topic[MERO_NS_TOPIC_SIZE];
    mero__node_topic(topic, ns);
    int rc = mero_net_publish(node->net, topic, msg, len + 1);
    free(msg);
    if (rc == -MERO_ENOPEERS) {
        MERO_DEBUG("publish on %s reached no peer; sync will carry it", topic);
        return 0;
    }
    return rc < 0 ? rc : 0;
}

int mero__node_publish_ops(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                           const struct mero_gov_oplist *ops)
{
    for (size_t i = 0; i < ops->n; i++) {
        int rc = mero__node_publish(node, ns, MERO_GOSSIP_OP, ops->v[i].data, ops->v[i].len);
        if (rc < 0) {
            MERO_WARN("publish: %s", mero_strerror(rc));
        }
    }
    return 0;
}

int mero__node_follow(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN])
{
    if (node->net == NULL) {
        return 0;
    }
    char topic[MERO_NS_TOPIC_SIZE];
    mero__node_topic(topic, ns);
    return mero_net_subscribe(node->net, topic);
}
