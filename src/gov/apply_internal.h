/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_internal.h - the apply context shared by the apply floor (apply.c, apply_ev.c,
 * apply_tee.c, apply_sealed.c, fold.c): the op being applied, its hash, bytes and log
 * sequence, our identity in its namespace, and the events queued until the savepoint is
 * released.
 */
#ifndef MERO_GOV_APPLY_INTERNAL_H
#define MERO_GOV_APPLY_INTERNAL_H

#include "gov/gov_internal.h"
#include "mero/encoding.h"

/* An event's extra id: a context id or a key id, one width. */
#define GOV_EV_EXTRA_LEN MERO_CONTEXT_ID_LEN
_Static_assert(MERO_CONTEXT_ID_LEN == MERO_KEY_ID_LEN, "an event's extra is a context or key id");

struct gov_ev {
    int kind;
    int role;
    bool for_us;
    bool has_group, has_member, has_extra;
    uint8_t group[MERO_GROUP_ID_LEN], member[MERO_IDENTITY_LEN], extra[GOV_EV_EXTRA_LEN];
};

struct actx {
    struct mero_store *s;
    const struct mero_op *op;
    const uint8_t *hash;
    const uint8_t *bytes;
    size_t len;
    uint64_t seq;
    bool have_us;
    uint8_t us[MERO_IDENTITY_LEN];
    struct gov_ev *ev;
    size_t nev, cap;
    bool deferred; /* set by the encrypted-form handler: kept until its key arrives */
};

/* apply_ev.c: queue an event (extra = context id or key id), the signer checks, the short id. */
int mero__gov_ev(struct actx *a, int kind, const uint8_t *group, const uint8_t *member, int role,
                 const uint8_t *extra);
int mero__gov_in_ns(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN], struct mero_err *err);
int mero__gov_need_admin(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN],
                         struct mero_err *err);
/* First 8 bytes of an id as hex, for messages. */
const char *mero__gov_short(const uint8_t id[MERO_GROUP_ID_LEN], char buf[GOV_SHORT_SIZE]);
/* MemberJoinedViaTeeAttestation, root (cleartext, carries credential + quote) or group form. */
int mero__gov_h_join(struct actx *a, const struct mero_tee_join *j, bool root_form,
                     struct mero_err *err);
int mero__gov_h_evidence(struct actx *a, struct mero_err *err);
/* Run the rules and projection of a->op (the switch over every op kind). */
int mero__gov_dispatch(struct actx *a, struct mero_err *err);
/* Whether op's kind is judged by a handler that returns every refusal before its first write
 * (the fold then needs no savepoint around it). */
bool mero__gov_refuses_before_writing(const struct mero_op *op);
/* NamespaceOp tag 2: open with the key key_id names and apply, or keep deferred. */
int mero__gov_h_sealed(struct actx *a, struct mero_err *err);
/*
 * Judge a->op at its place in the fold in a savepoint of its own: *state = GOV_FOLD_EFFECTIVE,
 * _DEFERRED (encrypted, key missing) or _REJECTED (the rules refused it: its effects and
 * events rolled back, err holds the reason with its code). Only an I/O or memory failure is
 * returned as an error.
 */
int mero__gov_fold_step(struct actx *a, int *state, struct mero_err *err);
/* Fold ns from its first op; when late is given, that op is judged with its events. */
int mero__gov_fold_ns(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN], struct actx *late,
                      int *late_state, struct mero_err *late_reason, struct mero_err *err);
/*
 * Re-fold a->op's namespace (late: a->op is the op that sorts before applied ones, judged with
 * its events) and queue on a the membership events of what changed (removals, with our
 * self-purge marker; admissions; role changes). Runs inside the caller's savepoint.
 */
int mero__gov_refold(struct mero_store *s, struct actx *a, bool late, int *late_state,
                     struct mero_err *late_reason, struct mero_err *err);
/* Whether op acts on a group (group ops, KeyDelivery) with an encrypted op before it in the
 * fold still waiting for its key: a refusal there is deferred, not final. */
bool mero__gov_behind_sealed(struct mero_store *s, const struct mero_op *op);
/* apply.c: the writes of an effective op of mero__gov_footprint's kinds (the re-fold's
 * replay, fold_replay.c). */
int mero__gov_replay_writes(struct actx *a);
/* An effective MemberAdded's writes other than its member row (mero__gov_row_plain). */
int mero__gov_member_added_rest(struct actx *a);

/* fold_diff.c: a namespace's member rows sorted by (group, member), and the events for what
 * changed between two such snapshots (with our self-purge markers for our TEE rows that went). */
struct gov_mrow {
    uint8_t grp[MERO_GROUP_ID_LEN];
    uint8_t member[MERO_IDENTITY_LEN];
    int role;
    bool tee;
};
struct gov_mrows {
    struct gov_mrow *v; /* owned */
    size_t n;
};
int mero__gov_mrows_snapshot(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                             struct gov_mrows *out);
int mero__gov_mrows_diff(struct actx *a, const struct gov_mrows *before,
                         const struct gov_mrows *after);
/* Deliver the queued events of an applied op to the on_event hook. */
void mero__gov_emit(struct actx *a);

#endif
