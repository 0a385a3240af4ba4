/* SPDX-License-Identifier: Apache-2.0 */
/* policy.h - the node's TEE admission policy per namespace root (policy.c). */
#ifndef MERO_NODE_POLICY_H
#define MERO_NODE_POLICY_H

#include <stdint.h>

#include <jansson.h>

#include "mero/err.h"

struct mero_node;

/* Set the policy (canon = the validated GET-shape object from api_parse_policy). */
MERO_MUST_CHECK int mero_node_policy_set(struct mero_node *node, const uint8_t group[32],
                                         json_t *canon, struct mero_err *err);
/* The GET shape; {"enabled": false, lists empty} when none is set. *out owned. */
MERO_MUST_CHECK int mero_node_policy_get(struct mero_node *node, const uint8_t group[32],
                                         json_t **out, struct mero_err *err);

#endif
