/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/progress.c - the fleet join's progress (issue 18: "Progress goes to stderr
 * while it waits ..., once per state change"): fleet_join.c and peer.c note each state a
 * running join reaches (asked a peer, prompted, challenged by a peer, answered it, admitted by
 * it and waiting for the key, refused by it), and mero_node_fleet_join_progress reads the last
 * MERO_FLEET_JOIN_STEPS of them for the API route GET /admin-api/tee/fleet-join/:groupId/progress.
 *
 * Invariants: a step is added only on a change (state, peer or reason differ from the current
 * step), so repeated prompts or repeated notes of one state make one step; seq counts every
 * step since the join started, so a reader that saw seq N prints exactly the steps after N; only
 * a running join takes notes; a finished join's steps stay readable until its namespace joins
 * again or its slot is reused.
 */
#include <stdio.h>
#include <string.h>

#include "mero/crypto.h"
#include "node/admission/service_internal.h"

static struct mero_fj_progress_slot *find(struct mero_admission *a,
                                          const uint8_t ns[MERO_NS_ID_LEN])
{
    for (size_t i = 0; i < MERO_FJ_PROGRESS_SLOTS; i++) {
        struct mero_fj_progress_slot *s = &a->progress[i];
        if (s->used && mero_ct_eq(s->ns, ns, MERO_NS_ID_LEN)) {
            return s;
        }
    }
    return NULL;
}

/* An unused slot, else the finished one touched longest ago, else the oldest running one. */
static struct mero_fj_progress_slot *take(struct mero_admission *a)
{
    struct mero_fj_progress_slot *best = NULL;
    for (size_t i = 0; i < MERO_FJ_PROGRESS_SLOTS; i++) {
        struct mero_fj_progress_slot *s = &a->progress[i];
        if (!s->used) {
            return s;
        }
        if (best == NULL || (best->p.running && !s->p.running) ||
            (best->p.running == s->p.running && s->touched_ms < best->touched_ms)) {
            best = s;
        }
    }
    return best;
}

void mero__adm_fj_progress_start(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_fj_progress_slot *s = find(a, ns);
    if (s == NULL) {
        s = take(a);
    }
    memset(s, 0, sizeof(*s));
    s->used = true;
    memcpy(s->ns, ns, sizeof(s->ns));
    s->touched_ms = mero__adm_now(a);
    s->p.running = true;
}

void mero__adm_fj_progress_end(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_fj_progress_slot *s = find(a, ns);
    if (s != NULL) {
        s->p.running = false;
        s->touched_ms = mero__adm_now(a);
    }
}

void mero__adm_fj_progress_note(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                                enum mero_fleet_join_state state, const char *peer,
                                const char *reason)
{
    struct mero_fj_progress_slot *s = find(a, ns);
    if (s == NULL || !s->p.running) {
        return;
    }
    peer = peer != NULL ? peer : "";
    reason = reason != NULL ? reason : "";
    if (s->p.nsteps > 0) {
        const struct mero_fleet_join_step *cur = &s->p.steps[s->p.nsteps - 1];
        if (cur->state == state && strcmp(cur->peer, peer) == 0 &&
            strcmp(cur->reason, reason) == 0) {
            return; /* not a change */
        }
    }
    if (s->p.nsteps == MERO_FLEET_JOIN_STEPS) {
        memmove(&s->p.steps[0], &s->p.steps[1],
                sizeof(s->p.steps[0]) * (MERO_FLEET_JOIN_STEPS - 1));
        s->p.nsteps--;
    }
    struct mero_fleet_join_step *st = &s->p.steps[s->p.nsteps++];
    memset(st, 0, sizeof(*st));
    st->seq = ++s->seq;
    st->state = state;
    snprintf(st->peer, sizeof(st->peer), "%s", peer);
    snprintf(st->reason, sizeof(st->reason), "%s", reason);
    s->touched_ms = mero__adm_now(a);
}

enum mero_fleet_join_state mero__adm_fj_progress_state(struct mero_admission *a,
                                                       const uint8_t ns[MERO_NS_ID_LEN])
{
    const struct mero_fj_progress_slot *s = find(a, ns);
    if (s == NULL || !s->p.running || s->p.nsteps == 0) {
        return (enum mero_fleet_join_state)0;
    }
    return s->p.steps[s->p.nsteps - 1].state;
}

int mero__adm_fj_progress_get(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                              struct mero_fleet_join_progress *out, struct mero_err *err)
{
    const struct mero_fj_progress_slot *s = a != NULL ? find(a, ns) : NULL;
    if (s == NULL) {
        return mero_err_set(err, MERO_ENOTFOUND, "no fleet join has run for this namespace");
    }
    *out = s->p;
    return 0;
}
