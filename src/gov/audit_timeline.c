/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_timeline.c - issue 36 (docs/audit.md): one timeline per TEE from a re-folded audit
 * log. Only effective ops draw: a TEE join is "admitted" (no TEE row in that group before) or
 * "converted" (a row in the other TEE role), TeeAuthorityEvidence is a "refresh" at its
 * attested_at, MemberRemoved / MemberLeft of a TEE row is "removed" / "left" (at the root it
 * ends every row). A join or evidence op of a known TEE that the log refused is drawn as
 * "refused" (its checks shown, not held against the export: the log gave it no effect).
 * Between refreshes, and to the export's time for a TEE still a member, a
 * "due" mark is drawn at refresh-due (12 h) and a "lapsed" mark at the maximum age (24 h).
 *
 * Invariant: only evidence carries a time; other events get the latest time the log shows
 * before them (at_exact false), an admission the time of the refresh published with it.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/audit_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

struct row {
    size_t tee;
    uint8_t group[MERO_GROUP_ID_LEN];
    int role;
};

struct rows {
    struct row *v;
    size_t n;
};

void mero__audit_hex(char *out, const uint8_t *id)
{
    mero_hex_encode(out, id, MERO_SHA256_LEN);
}

static size_t tee_of(struct mero_audit_log *log, const uint8_t id[MERO_IDENTITY_LEN], bool add)
{
    for (size_t i = 0; i < log->ntees; i++) {
        if (memcmp(log->tees[i].id, id, MERO_IDENTITY_LEN) == 0) {
            return i;
        }
    }
    if (!add) {
        return MERO_AUDIT_NONE;
    }
    struct mero_audit_tee *n = realloc(log->tees, (log->ntees + 1) * sizeof(*n));
    if (n == NULL) {
        return MERO_AUDIT_NONE - 1;
    }
    log->tees = n;
    memset(&n[log->ntees], 0, sizeof(n[0]));
    memcpy(n[log->ntees].id, id, MERO_IDENTITY_LEN);
    return log->ntees++;
}

static struct row *row_find(struct rows *r, size_t tee, const uint8_t g[MERO_GROUP_ID_LEN])
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].tee == tee && memcmp(r->v[i].group, g, MERO_GROUP_ID_LEN) == 0) {
            return &r->v[i];
        }
    }
    return NULL;
}

static int push_event(struct mero_audit_tee *t, const struct mero_audit_event *e)
{
    if (t->nev >= MERO_AUDIT_MAX_EVENTS) {
        return -MERO_ETOOBIG;
    }
    if ((t->nev & (t->nev - 1)) == 0) {
        size_t cap = t->nev == 0 ? 8 : t->nev * 2;
        struct mero_audit_event *n = realloc(t->ev, cap * sizeof(*n));
        if (n == NULL) {
            return -MERO_ENOMEM;
        }
        t->ev = n;
    }
    t->ev[t->nev++] = *e;
    return 0;
}

static void event_init(struct mero_audit_event *e, int kind, size_t op, uint64_t at, bool exact)
{
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->op = op;
    e->role = -1;
    e->at = at;
    e->at_exact = exact;
    e->policy_op = MERO_AUDIT_NONE;
    e->quote_op = MERO_AUDIT_NONE;
    e->coll_op = MERO_AUDIT_NONE;
    e->release = MERO_AUDIT_NONE;
}

static bool is_policy(const struct mero_op *op)
{
    return op->scope == MERO_SCOPE_GROUP &&
           (op->kind == MERO_GROUP_TEE_POLICY_SET || op->kind == MERO_GROUP_TEE_POLICY_SET_V2 ||
            op->kind == MERO_GROUP_TEE_RELEASE_POLICY_SET ||
            op->kind == MERO_GROUP_TEE_RELEASE_POLICY_SET_V2);
}

static bool is_join(const struct mero_op *op)
{
    return (op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE) ||
           (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_JOINED_TEE);
}

/* The evidence op whose quote is SHA-256 qh (the collateral a join's quote was judged by). */
static size_t evidence_with_quote(struct mero_audit_log *log, const uint8_t *qh)
{
    for (size_t i = 0; i < log->nops; i++) {
        if (log->ops[i].has_quote && memcmp(log->ops[i].quote_hash, qh, MERO_QUOTE_HASH_LEN) == 0) {
            return i;
        }
    }
    return MERO_AUDIT_NONE;
}

static int on_join(struct mero_audit_log *log, struct rows *rows, size_t i, size_t policy,
                   uint64_t now)
{
    const struct mero_op *op = &log->ops[i].op;
    const struct mero_tee_join *j = &op->join;
    const uint8_t *g = op->scope == MERO_SCOPE_ROOT ? j->group_id : op->group_id;
    size_t t = tee_of(log, j->member, true);
    if (t >= log->ntees) {
        return -MERO_ENOMEM;
    }
    struct row *r = row_find(rows, t, g);
    struct mero_audit_event e;
    event_init(&e, r != NULL && r->role != j->role ? MERO_AUDIT_CONVERTED : MERO_AUDIT_ADMITTED, i,
               now, false);
    memcpy(e.group, g, sizeof(e.group));
    e.role = j->role;
    e.policy_op = policy;
    snprintf(e.tcb_status, sizeof(e.tcb_status), "%s", j->tcb_status);
    if (j->quote_len > 0) {
        e.quote_op = i;
        e.coll_op = evidence_with_quote(log, j->quote_hash);
    }
    if (r == NULL) {
        struct row *n = realloc(rows->v, (rows->n + 1) * sizeof(*n));
        if (n == NULL) {
            return -MERO_ENOMEM;
        }
        rows->v = n;
        r = &n[rows->n++];
        r->tee = t;
        memcpy(r->group, g, MERO_GROUP_ID_LEN);
    }
    r->role = j->role;
    log->tees[t].member = true;
    return push_event(&log->tees[t], &e);
}

static int on_leave(struct mero_audit_log *log, struct rows *rows, size_t i, int kind,
                    const uint8_t *member, uint64_t now)
{
    const struct mero_op *op = &log->ops[i].op;
    size_t t = tee_of(log, member, false);
    bool root = memcmp(op->group_id, log->ns, MERO_NS_ID_LEN) == 0, had = false;
    if (t == MERO_AUDIT_NONE) {
        return 0;
    }
    for (size_t k = 0; k < rows->n;) {
        if (rows->v[k].tee == t &&
            (root || memcmp(rows->v[k].group, op->group_id, MERO_GROUP_ID_LEN) == 0)) {
            rows->v[k] = rows->v[--rows->n];
            had = true;
        } else {
            k++;
        }
    }
    if (!had) {
        return 0;
    }
    struct mero_audit_event e;
    event_init(&e, kind, i, now, false);
    memcpy(e.group, op->group_id, sizeof(e.group));
    if (row_find(rows, t, log->ns) == NULL) {
        bool any = false;
        for (size_t k = 0; k < rows->n; k++) {
            any = any || rows->v[k].tee == t;
        }
        log->tees[t].member = any;
    }
    return push_event(&log->tees[t], &e);
}

/* A refused join or evidence op naming a TEE the log admitted before. */
static int on_refused(struct mero_audit_log *log, size_t i, size_t policy, uint64_t now)
{
    const struct mero_op *op = &log->ops[i].op;
    bool ev = op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    if (!ev && !is_join(op)) {
        return 0;
    }
    size_t t = tee_of(log, ev ? op->evidence.attested_key : op->join.member, false);
    if (t == MERO_AUDIT_NONE) {
        return 0;
    }
    struct mero_audit_event e;
    event_init(&e, MERO_AUDIT_REFUSED, i, ev ? op->evidence.attested_at : now, ev);
    memcpy(e.group, ev || op->scope != MERO_SCOPE_ROOT ? op->group_id : op->join.group_id,
           sizeof(e.group));
    e.policy_op = policy;
    if (ev) {
        e.quote_op = i;
        e.coll_op = op->evidence.has_collateral ? i : MERO_AUDIT_NONE;
    } else if (op->join.quote_len > 0) {
        e.quote_op = i;
        e.coll_op = evidence_with_quote(log, op->join.quote_hash);
        snprintf(e.tcb_status, sizeof(e.tcb_status), "%s", op->join.tcb_status);
    }
    return push_event(&log->tees[t], &e);
}

/* MemberRoleSet on a TEE row (to the other TEE role: a policy mode change) is a conversion. */
static int on_role_set(struct mero_audit_log *log, struct rows *rows, size_t i, uint64_t now)
{
    const struct mero_op *op = &log->ops[i].op;
    size_t t = tee_of(log, op->member, false);
    struct row *r = t != MERO_AUDIT_NONE ? row_find(rows, t, op->group_id) : NULL;
    if (r == NULL || r->role == op->role || !mero_role_is_tee(op->role)) {
        return 0;
    }
    struct mero_audit_event e;
    event_init(&e, MERO_AUDIT_CONVERTED, i, now, false);
    memcpy(e.group, op->group_id, sizeof(e.group));
    e.role = op->role;
    r->role = op->role;
    return push_event(&log->tees[t], &e);
}

/* Due and lapsed marks between refreshes, and from the last one to the TEE's removal from
 * the namespace root or, for a TEE still a member, to the export's time. */
static int mark_gaps(struct mero_audit_tee *t, const uint8_t ns[MERO_NS_ID_LEN],
                     uint64_t exported_at)
{
    struct mero_audit_tee out = {.member = t->member};
    memcpy(out.id, t->id, sizeof(out.id));
    bool have = false, member = false;
    uint64_t last = 0;
    int rc = 0;
    for (size_t k = 0; k <= t->nev && rc == 0; k++) {
        const struct mero_audit_event *e = k < t->nev ? &t->ev[k] : NULL;
        bool leaves = e != NULL && (e->kind == MERO_AUDIT_REMOVED || e->kind == MERO_AUDIT_LEFT) &&
                      memcmp(e->group, ns, MERO_NS_ID_LEN) == 0;
        bool check = e == NULL ? t->member : e->kind == MERO_AUDIT_REFRESH || leaves;
        uint64_t horizon = e != NULL ? e->at : exported_at;
        if (have && member && check) {
            struct mero_audit_event m;
            if (horizon > last + MERO_GOV_EVIDENCE_REFRESH_SECS) {
                event_init(&m, MERO_AUDIT_DUE, MERO_AUDIT_NONE,
                           last + MERO_GOV_EVIDENCE_REFRESH_SECS, true);
                rc = push_event(&out, &m);
            }
            if (rc == 0 && horizon > last + MERO_GOV_EVIDENCE_MAX_AGE_SECS) {
                event_init(&m, MERO_AUDIT_LAPSED, MERO_AUDIT_NONE,
                           last + MERO_GOV_EVIDENCE_MAX_AGE_SECS, true);
                rc = push_event(&out, &m);
            }
        }
        if (e == NULL || rc < 0) {
            break;
        }
        rc = push_event(&out, e);
        if (e->kind == MERO_AUDIT_REFRESH) {
            have = true;
            last = e->at;
        } else if (e->kind == MERO_AUDIT_ADMITTED || e->kind == MERO_AUDIT_CONVERTED) {
            member = true;
        } else if (leaves) {
            member = false;
            have = false;
        }
    }
    if (rc < 0) {
        free(out.ev);
        return rc;
    }
    free(t->ev);
    *t = out;
    return 0;
}

int mero__audit_timelines(struct mero_audit_log *log)
{
    struct rows rows = {0};
    size_t policy = MERO_AUDIT_NONE;
    uint64_t now = 0;
    int rc = 0;
    for (size_t i = 0; i < log->nops && rc == 0; i++) {
        const struct mero_audit_op *o = &log->ops[i];
        const struct mero_op *op = &o->op;
        if (o->decoded && o->state == MERO_OP_REJECTED) {
            rc = on_refused(log, i, policy, now);
            continue;
        }
        if (!o->decoded || o->state != MERO_OP_EFFECTIVE) {
            continue;
        }
        if (is_policy(op)) {
            policy = i;
        } else if (is_join(op)) {
            rc = on_join(log, &rows, i, policy, now);
        } else if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE) {
            size_t t = tee_of(log, op->evidence.attested_key, false);
            if (t == MERO_AUDIT_NONE) {
                continue;
            }
            struct mero_audit_event e;
            if (op->evidence.attested_at > now) {
                now = op->evidence.attested_at;
            }
            event_init(&e, MERO_AUDIT_REFRESH, i, op->evidence.attested_at, true);
            memcpy(e.group, op->group_id, sizeof(e.group));
            e.policy_op = policy;
            e.quote_op = i;
            e.coll_op = op->evidence.has_collateral ? i : MERO_AUDIT_NONE;
            rc = push_event(&log->tees[t], &e);
        } else if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_ROLE_SET) {
            rc = on_role_set(log, &rows, i, now);
        } else if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_REMOVED) {
            rc = on_leave(log, &rows, i, MERO_AUDIT_REMOVED, op->member, now);
        } else if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_MEMBER_LEFT) {
            rc = on_leave(log, &rows, i, MERO_AUDIT_LEFT, op->signer, now);
        }
    }
    free(rows.v);
    for (size_t t = 0; t < log->ntees && rc == 0; t++) {
        struct mero_audit_tee *tee = &log->tees[t];
        /* an admission happens when the refresh published with it says */
        for (size_t k = 0; k + 1 < tee->nev; k++) {
            struct mero_audit_event *e = &tee->ev[k], *n = &tee->ev[k + 1];
            if ((e->kind == MERO_AUDIT_ADMITTED || e->kind == MERO_AUDIT_CONVERTED) &&
                n->kind == MERO_AUDIT_REFRESH && n->at >= e->at) {
                e->at = n->at;
            }
        }
        rc = mark_gaps(tee, log->ns, log->exported_at);
    }
    return rc;
}
