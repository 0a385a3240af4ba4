/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_replay_internal.h - the re-fold's replay state (fold_replay.c, gov's rules floor), used by
 * fold.c, and the footprint of the kinds whose rules read only named identities' standing and
 * whose writes are functions of the op (fold_commute.c and apply.c use it too). fold_replay.c
 * calls only the queries below it.
 */
#ifndef MERO_GOV_FOLD_REPLAY_INTERNAL_H
#define MERO_GOV_FOLD_REPLAY_INTERNAL_H

#include "gov/gov_internal.h"

/*
 * The kinds a re-fold may replay and a late op may commute past: MemberAdded, ContextCreated
 * and MemberSetAutoFollow (group scope, no rotation) and a KeyDelivery not addressed to us (us:
 * our identity in its namespace, or NULL). Their handlers refuse before writing, their writes
 * when effective are functions of the op alone (apply.c, mero__gov_replay_writes), and their
 * rules read the group tree, the contexts, a root admin count and the rows of the identities
 * named in ids (*n: the signer, then the member or recipient where there is one). False for
 * every other kind. A handler changed to write before a refusal, or to write what the state
 * decides, must leave this list.
 */
bool mero__gov_footprint(const struct mero_op *op, const uint8_t *us, const uint8_t *ids[2],
                         int *n);

/* fold_replay.c: what a late op's re-fold may replay rather than judge again. Past
 * GOV_REPLAY_IDS_MAX identities whose rows may differ, the rest of the fold judges every op. */
#define GOV_REPLAY_IDS_MAX 64 /* not a length */
struct gov_replay {
    bool active; /* a late op's re-fold (a key's re-fold judges every op) */
    bool after;  /* the late op is folded: ids says what may differ */
    bool all;    /* from here on every op is judged */
    bool admins; /* an identity of ids may be a root Admin in one fold or the other */
    size_t n;
    uint8_t ids[GOV_REPLAY_IDS_MAX][MERO_IDENTITY_LEN];
};
void mero__gov_replay_start(struct gov_replay *r, bool late);
/* *yes: the stored op (prior: its stored outcome; us as for mero__gov_footprint) may be
 * replayed at this point of the fold. */
int mero__gov_replay_may(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                         const uint8_t *us, int prior, bool *yes);
/* Before judging op at this point (is_late: the late op itself), and after it (outcome state;
 * prior: the stored one). */
int mero__gov_replay_before(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            bool is_late);
int mero__gov_replay_judged(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            const uint8_t *us, int prior, int state, bool is_late);

#endif
