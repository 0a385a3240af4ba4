/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.c - the node side of the TEE admission policy routes. The validated policy is kept
 * per namespace root in the node database (node_tee_policy); the reader takes the last one
 * set (spec: the last policy op on the root wins). GET reports enabled=false with empty lists
 * when none is set, as reference-calimero.md §4.5 shows.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "node/node.h"
#include "node/policy.h"

int mero_node_policy_set(struct mero_node *node, const uint8_t group[32], json_t *canon,
                         struct mero_err *err)
{
    char *text = json_dumps(canon, JSON_COMPACT | JSON_SORT_KEYS);
    if (text == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(node->db,
                                "INSERT INTO node_tee_policy(group_id, body) VALUES(?1, ?2) "
                                "ON CONFLICT(group_id) DO UPDATE SET body = excluded.body",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, group, 32, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    free(text);
    if (rc != SQLITE_DONE) {
        return mero_err_set(err, MERO_EIO, "cannot store the policy");
    }
    return 0;
}

static json_t *disabled(void)
{
    return json_pack("{s:b, s:[], s:[], s:[], s:[], s:[], s:[], s:b}", "enabled", 0,
                     "allowedMrtd", "allowedRtmr0", "allowedRtmr1", "allowedRtmr2",
                     "allowedRtmr3", "allowedTcbStatuses", "acceptMock", 0);
}

int mero_node_policy_get(struct mero_node *node, const uint8_t group[32], json_t **out,
                         struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(node->db, "SELECT body FROM node_tee_policy WHERE group_id = ?1", -1,
                           &st, NULL) != SQLITE_OK) {
        return mero_err_set(err, MERO_EIO, "cannot read the policy");
    }
    sqlite3_bind_blob(st, 1, group, 32, SQLITE_STATIC);
    json_t *v = NULL;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        v = text ? json_loads(text, 0, NULL) : NULL;
        if (v == NULL) {
            sqlite3_finalize(st);
            return mero_err_set(err, MERO_EIO, "stored policy is corrupt");
        }
    } else if (rc == SQLITE_DONE) {
        v = disabled();
    }
    sqlite3_finalize(st);
    if (v == NULL) {
        return mero_err_set(err, MERO_EIO, "cannot read the policy");
    }
    *out = v;
    return 0;
}
