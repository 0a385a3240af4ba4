/* SPDX-License-Identifier: Apache-2.0 */
/*
 * warrant.c - may a TEE relay members' writes in a group (spec "The TEE roles", "Converting
 * TEEs already admitted"; warrant_gate::executor_standing). The one answer the intents route
 * (node/context/write.c) and every peer at the cut (node/context/relay.c) share.
 *
 * Invariant: an executor may relay in a group only when its TEE standing there is RelayTee
 * (read from its namespace root row when that row holds a TEE role, which replaces the TEE
 * role of any subgroup row; else its direct TEE row in the group) AND it reaches the group (a
 * direct row there, or a row in an ancestor reached through Open boundaries). Anything else,
 * including a store error, answers "may not" (fail closed).
 */
#include <stdbool.h>

#include "gov/gov_internal.h"
#include "mero/gov.h"

int mero_gov_relay_standing(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                            const uint8_t executor[static MERO_IDENTITY_LEN], int *standing,
                            bool *may_relay)
{
    bool reaches = false;
    *standing = MERO_ROLE_NONE;
    *may_relay = false;
    MERO_TRY(mero_gov_executor_standing(s, group, executor, standing));
    MERO_TRY(mero__gov_reaches(s, group, executor, &reaches));
    *may_relay = *standing == MERO_ROLE_RELAY_TEE && reaches;
    return 0;
}
