/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attempts_internal.h - the admission-attempt log in node.db (attempts.c): record, list,
 * purge, and the name of the admission rule a refusal's reason comes from. Private to
 * src/node. Loop thread only (the node.db handle is the loop's).
 */
#ifndef MERO_NODE_ATTEMPTS_H
#define MERO_NODE_ATTEMPTS_H

#include <stddef.h>
#include <stdint.h>

#include "mero/node.h"

struct sqlite3;

/*
 * Append one attempt for ns and drop that namespace's oldest beyond MERO_FLEET_ATTEMPTS_KEEP,
 * in one transaction (a savepoint, so it nests in a caller's transaction). 0 or -MERO_EIO.
 */
MERO_MUST_CHECK int mero__node_attempt_add(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                           const struct mero_fleet_attempt *a);
/* ns's last `max` attempts, newest first. *out owned (free()), NULL when none. */
MERO_MUST_CHECK int mero__node_attempts_list(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                             size_t max, struct mero_fleet_attempt **out,
                                             size_t *n);
/* How many attempts ns holds. */
MERO_MUST_CHECK int mero__node_attempts_count(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                              size_t *n);
/* Forget every attempt and admitted profile of ns (self-purge). Idempotent. */
MERO_MUST_CHECK int mero__node_attempts_purge(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN]);
/* Issue 19: the release profile member matched when this node admitted it into ns (replacing
 * an earlier one); and reading it back into out[cap] (-MERO_ENOTFOUND when this node names
 * none; out is written only on 0). */
MERO_MUST_CHECK int mero__node_profile_put(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                           const uint8_t member[MERO_IDENTITY_LEN],
                                           const char *profile);
/* Forget member's profile in ns (it was removed, or another node re-admitted it). */
MERO_MUST_CHECK int mero__node_profile_forget(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                              const uint8_t member[MERO_IDENTITY_LEN]);
MERO_MUST_CHECK int mero__node_profile_get(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                           const uint8_t member[MERO_IDENTITY_LEN], char *out,
                                           size_t cap);
/*
 * The name of the admission rule (mero_adm_rule_name) whose fixed reason `reason` starts
 * with, "NotAVoucher" for the not-a-voucher answer, or NULL when the refusal came before the
 * rules (challenge, credential, quote checks) and so names no rule.
 */
const char *mero__node_attempt_rule_of(const char *reason);

#endif
