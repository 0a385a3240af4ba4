/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topic_internal.h - a namespace's gossip topic, "ns/<hex>" (reference-calimero.md: the topic
 * is "ns/" and the namespace id in lowercase hex): its one builder and parser, and publishing
 * and following on it (node/topic.c), shared by the service, the admission handshake,
 * self-purge, the contexts and the use cases. Every function runs on the loop.
 *
 * Invariant: a topic this builds is exactly MERO_NS_TOPIC_LEN chars, and the parser accepts
 * exactly that shape (either hex case), so build then parse gives back the same id.
 */
#ifndef MERO_NODE_TOPIC_H
#define MERO_NODE_TOPIC_H

#include <stddef.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_NS_TOPIC_PREFIX "ns/"
#define MERO_NS_TOPIC_LEN    (sizeof(MERO_NS_TOPIC_PREFIX) - 1 + MERO_HEX_LEN(MERO_NS_ID_LEN))
#define MERO_NS_TOPIC_SIZE   (MERO_NS_TOPIC_LEN + 1) /* a char array's size, with the NUL */

/* "ns/<64 lowercase hex>" of ns into out. */
void mero__node_topic(char out[MERO_NS_TOPIC_SIZE], const uint8_t ns[MERO_NS_ID_LEN]);
/* The namespace of a "ns/<64 hex>" topic; -MERO_EINVAL for any other string (or NULL). */
MERO_MUST_CHECK int mero__node_topic_ns(const char *topic, uint8_t ns[MERO_NS_ID_LEN]);

struct mero_node;
struct mero_gov_oplist;
/* Publish tag || data on ns/<hex>; zero peers is not an error (sync carries it later). */
int mero__node_publish(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], uint8_t tag,
                       const uint8_t *data, size_t len);
/* Publish every op a local governance action produced, in order. */
int mero__node_publish_ops(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                           const struct mero_gov_oplist *ops);
/* Subscribe to ns/<hex> (idempotent). */
int mero__node_follow(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN]);

#endif
