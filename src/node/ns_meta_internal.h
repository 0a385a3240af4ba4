/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ns_meta_internal.h - local labels of namespaces and groups (node.db table ns_meta): the
 * applicationId, upgradePolicy, appKey and name the reference's createNamespace /
 * createGroupInNamespace hand in, and when the row was made. Local only: never replicated, and
 * nothing in mero depends on them (this node runs no applications).
 */
#ifndef MERO_NODE_NS_META_H
#define MERO_NODE_NS_META_H

#include <stdbool.h>
#include <stdint.h>

#include "mero/err.h"
#include "mero/sizes.h"

struct sqlite3;

#define MERO_NS_META_STR_MAX 129 /* 128 chars + NUL */

struct mero_ns_meta {
    char application_id[MERO_NS_META_STR_MAX];
    char upgrade_policy[MERO_NS_META_STR_MAX];
    char app_key[MERO_NS_META_STR_MAX];
    char name[MERO_NS_META_STR_MAX];
    bool has_name;
    int64_t created_at; /* Unix seconds; 0 when no row */
};

/* Record (or replace) the labels of namespace or group id. */
MERO_MUST_CHECK int mero__ns_meta_put(struct sqlite3 *db, const uint8_t id[MERO_GROUP_ID_LEN],
                                      const struct mero_ns_meta *m);
/* Read them: 0 and *found; an absent row gives empty strings, created_at 0, *found false. */
MERO_MUST_CHECK int mero__ns_meta_get(struct sqlite3 *db, const uint8_t id[MERO_GROUP_ID_LEN],
                                      struct mero_ns_meta *m, bool *found);

#endif
