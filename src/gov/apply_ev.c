/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apply_ev.c - the apply context's own helpers, shared by every handler file (apply.c,
 * apply_tee.c, apply_sealed.c) and the fold (fold.c): the event queue and its delivery, the
 * namespace and admin checks of the op's signer, and the short form of an id for messages.
 * It calls nothing of those files, so the handlers stand on it without forming a circle with
 * the dispatch (docs/layers.md "gov's floors").
 *
 * Invariants: no event is queued while rebuilding (s->rebuilding), and queued events reach the
 * on_event hook only through mero__gov_emit, which the apply calls after its savepoint is
 * released.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/apply_internal.h"
#include "mero/encoding.h"

const char *mero__gov_short(const uint8_t id[MERO_GROUP_ID_LEN], char buf[17])
{
    mero_hex_encode(buf, id, 8);
    return buf;
}

int mero__gov_ev(struct actx *a, int kind, const uint8_t *group, const uint8_t *member, int role,
                 const uint8_t *extra)
{
    if (a->s->rebuilding) {
        return 0;
    }
    if (a->nev == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        struct gov_ev *nv = realloc(a->ev, cap * sizeof(*nv));
        if (nv == NULL) {
            return -MERO_ENOMEM;
        }
        a->ev = nv;
        a->cap = cap;
    }
    struct gov_ev *e = &a->ev[a->nev++];
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->role = role;
    if (group != NULL) {
        e->has_group = true;
        memcpy(e->group, group, sizeof(e->group));
    }
    if (member != NULL) {
        e->has_member = true;
        memcpy(e->member, member, sizeof(e->member));
        e->for_us = a->have_us && memcmp(member, a->us, sizeof(a->us)) == 0;
    }
    if (extra != NULL) {
        e->has_extra = true;
        memcpy(e->extra, extra, sizeof(e->extra));
    }
    return 0;
}

int mero__gov_in_ns(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN], struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    char h[17];
    struct gov_fold_facts *f = &a->s->fold;
    bool root = memcmp(group, a->op->ns, MERO_NS_ID_LEN) == 0;
    if (root && f->on && f->root_seen && memcmp(f->ns, group, MERO_NS_ID_LEN) == 0) {
        return 0; /* read earlier in this fold, and no op of a fold deletes a group row */
    }
    if (mero_gov_namespace_of(a->s, group, ns) < 0 || memcmp(ns, a->op->ns, sizeof(ns)) != 0) {
        return mero_err_set(err, MERO_EREFUSED, "group %s is not part of this namespace",
                            mero__gov_short(group, h));
    }
    /* only NamespaceCreated writes a root row and it never asks this: the row seen here was
     * written by an earlier op, whose savepoint is released, so no undo in this fold removes it */
    f->root_seen = f->root_seen || (root && f->on);
    return 0;
}

int mero__gov_need_admin(struct actx *a, const uint8_t group[MERO_GROUP_ID_LEN],
                         struct mero_err *err)
{
    bool yes;
    char h[17];
    if (memcmp(group, a->op->ns, MERO_NS_ID_LEN) == 0) {
        /* the root: no Open boundary above it, so its direct row is the whole answer (the
         * walk's group read, a tenth of a re-fold's cost per op, is not needed) */
        int r;
        MERO_TRY(mero_gov_direct_role(a->s, group, a->op->signer, &r));
        yes = r == MERO_ROLE_ADMIN;
    } else {
        MERO_TRY(mero_gov_is_admin(a->s, group, a->op->signer, &yes));
    }
    if (!yes) {
        return mero_err_set(err, MERO_ENOTADMIN, "signer is not an admin of group %s",
                            mero__gov_short(group, h));
    }
    return 0;
}

void mero__gov_emit(struct actx *a)
{
    if (a->s->hooks.on_event == NULL) {
        return;
    }
    for (size_t i = 0; i < a->nev; i++) {
        const struct gov_ev *g = &a->ev[i];
        struct mero_gov_event e = {
            .kind = g->kind,
            .ns = a->op->ns,
            .group = g->has_group ? g->group : NULL,
            .member = g->has_member ? g->member : NULL,
            .role = g->role,
            .op_hash = a->hash,
            .context_id = g->kind == MERO_EV_CONTEXT_CREATED && g->has_extra ? g->extra : NULL,
            .key_id = g->kind != MERO_EV_CONTEXT_CREATED && g->has_extra ? g->extra : NULL,
            .for_us = g->for_us,
        };
        a->s->hooks.on_event(a->s->hooks.ud, &e);
    }
}
