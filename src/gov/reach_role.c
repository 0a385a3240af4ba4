/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reach_role.c - a member's reach over the groups of a namespace, read from the derived rows
 * (spec "Self-confirm and auto-follow"; docs/admission.md "Reach"): the reach role (the direct
 * row, else the row inherited from the parent through Open subgroups, TEE rows included), the
 * members a group's key is for, and the groups a member reaches. The actions on reach (key
 * rotation, a TEE's subgroup admission, deliveries) are reach.c's.
 *
 * Invariants: reach never crosses a Restricted boundary and climbs at most MAX_DEPTH groups.
 * Floor: query/project (docs/layers.md "gov's floors"), so apply may ask it.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"

#define MAX_DEPTH 32 /* groups nest at most 31 deep below the root (apply refuses deeper) */

int mero_gov_reach_role(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                        const uint8_t member[static MERO_IDENTITY_LEN], int *role)
{
    uint8_t cur[MERO_GROUP_ID_LEN], parent[MERO_GROUP_ID_LEN];
    memcpy(cur, group, sizeof(cur));
    *role = MERO_ROLE_NONE;
    for (int d = 0; d < MAX_DEPTH; d++) {
        int r, vis;
        MERO_TRY(mero_gov_direct_role(s, cur, member, &r));
        if (r != MERO_ROLE_NONE) {
            *role = r;
            return 0;
        }
        MERO_TRY(mero_gov_group_info(s, cur, parent, &vis));
        if (memcmp(parent, cur, sizeof(cur)) == 0 || vis != MERO_GROUP_OPEN) {
            return 0; /* the root, or a Restricted boundary */
        }
        memcpy(cur, parent, sizeof(cur));
    }
    return 0;
}

int mero_gov_reach_members(struct mero_store *s, const uint8_t group[static MERO_GROUP_ID_LEN],
                           struct mero_gov_member **out, size_t *n)
{
    uint8_t cur[MERO_GROUP_ID_LEN], parent[MERO_GROUP_ID_LEN];
    struct mero_gov_member *all = NULL;
    size_t cnt = 0;
    int rc = 0;
    memcpy(cur, group, sizeof(cur));
    for (int d = 0; d < MAX_DEPTH; d++) {
        struct mero_gov_member *m = NULL;
        size_t k = 0;
        int vis;
        MERO_TRY_OUT(mero_gov_members(s, cur, &m, &k));
        struct mero_gov_member *nv = realloc(all, (cnt + k + 1) * sizeof(*all));
        if (nv == NULL) {
            free(m);
        }
        MERO_TRY_OUT(nv == NULL ? -MERO_ENOMEM : 0);
        all = nv;
        for (size_t i = 0; i < k; i++) {
            bool seen = false; /* the nearest row wins */
            for (size_t j = 0; j < cnt && !seen; j++) {
                seen = memcmp(all[j].id, m[i].id, sizeof(m[i].id)) == 0;
            }
            if (!seen) {
                all[cnt++] = m[i];
            }
        }
        free(m);
        MERO_TRY_OUT(mero_gov_group_info(s, cur, parent, &vis));
        if (memcmp(parent, cur, sizeof(cur)) == 0 || vis != MERO_GROUP_OPEN) {
            break;
        }
        memcpy(cur, parent, sizeof(cur));
    }
    *out = all;
    *n = cnt;
    all = NULL;
out:
    free(all);
    return rc;
}

int mero_gov_reached_groups(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                            const uint8_t member[static MERO_IDENTITY_LEN],
                            uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n)
{
    uint8_t(*g)[MERO_GROUP_ID_LEN] = NULL;
    size_t ng = 0, cnt = 0;
    MERO_TRY(mero_gov_groups(s, ns, &g, &ng));
    int rc = 0;
    for (size_t i = 0; i < ng; i++) {
        int r;
        MERO_TRY_OUT(mero_gov_reach_role(s, g[i], member, &r));
        if (r != MERO_ROLE_NONE) {
            memmove(g[cnt++], g[i], sizeof(g[i]));
        }
    }
    *out = g;
    *n = cnt;
    g = NULL;
out:
    free(g);
    return rc;
}
