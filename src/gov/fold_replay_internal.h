/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold_replay_internal.h - the re-fold's replay state (fold_replay.c, gov's rules floor), used by
 * fold.c. It takes whether an op's kind is replayable as a parameter (apply.c answers it), so
 * fold_replay.c calls only the queries below it.
 */
#ifndef MERO_GOV_FOLD_REPLAY_INTERNAL_H
#define MERO_GOV_FOLD_REPLAY_INTERNAL_H

#include "gov/gov_internal.h"

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
/* *yes: the stored op (prior: its stored outcome; replayable: mero__gov_replayable's answer for
 * it) may be replayed at this point of the fold. */
int mero__gov_replay_may(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                         bool replayable, int prior, bool *yes);
/* Before judging op at this point (is_late: the late op itself), and after it (outcome state;
 * prior: the stored one). */
int mero__gov_replay_before(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            bool is_late);
int mero__gov_replay_judged(struct gov_replay *r, struct mero_store *s, const struct mero_op *op,
                            bool replayable, int prior, int state, bool is_late);

#endif
