/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook_internal.h - the admission service's start/stop on a merod node (node/admission/hook.c).
 * service.c calls start once the store, the network and sync are up; stop before freeing the
 * network and free after it.
 */
#ifndef MERO_NODE_ADMISSION_HOOK_H
#define MERO_NODE_ADMISSION_HOOK_H

#include "mero/err.h"

struct mero_node;
struct mero_gov_event;

MERO_MUST_CHECK int mero__node_admission_start(struct mero_node *node, struct mero_err *err);
/* Governance events (from the store's on_event hook): self-purge acts on its own eviction. */
void mero__node_admission_on_event(struct mero_node *node, const struct mero_gov_event *ev);
void mero__node_admission_stop(struct mero_node *node);
void mero__node_admission_free(struct mero_node *node);

#endif
