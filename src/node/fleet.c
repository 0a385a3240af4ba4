/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleet.c - the fleet view (issue 19, docs/fleet.md): mero_node_fleet, this node's view of one
 * group (the policy in force, one row per direct member with its TEE facts, evidence age and
 * when it was last heard from, the namespace's recent admission attempts), and what feeds it:
 * the attempts the node decides or hears of (attempts.c) and the last-seen map.
 *
 * Who admitted a member and when come from the namespace's op log (ops carry no time: a TEE's
 * admittedAt is the attested_at of the first evidence after its join). lastSeen is memory
 * only: a member's identity is seen when a gossiped op it signed arrives, and through its peer
 * (learned at an admission this node decided) when a gossip message or sync answer arrives
 * from that peer.
 *
 * Invariants: the view only reads (the store, node.db); recording an attempt never changes an
 * admission's outcome (a failure to record is logged and dropped); no secret is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/mock.h"
#include "node/attempts_internal.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"

/* ---- last seen ---------------------------------------------------------------------------- */

static struct mero_fleet_seen *seen_slot(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t identity[MERO_IDENTITY_LEN], bool add)
{
    if (node->seen == NULL) {
        if (!add || (node->seen = calloc(MERO_FLEET_SEEN_MAX, sizeof(*node->seen))) == NULL) {
            return NULL;
        }
    }
    for (size_t i = 0; i < MERO_FLEET_SEEN_MAX; i++) {
        struct mero_fleet_seen *e = &node->seen[i];
        if (e->used && memcmp(e->ns, ns, MERO_NS_ID_LEN) == 0 &&
            memcmp(e->identity, identity, MERO_IDENTITY_LEN) == 0) {
            return e;
        }
    }
    if (!add) {
        return NULL;
    }
    struct mero_fleet_seen *e = &node->seen[node->seen_next];
    node->seen_next = (node->seen_next + 1) % MERO_FLEET_SEEN_MAX;
    memset(e, 0, sizeof(*e));
    e->used = true;
    memcpy(e->ns, ns, MERO_NS_ID_LEN);
    memcpy(e->identity, identity, MERO_IDENTITY_LEN);
    return e;
}

void mero__node_seen_peer(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t identity[MERO_IDENTITY_LEN], const char *peer)
{
    struct mero_fleet_seen *e = seen_slot(node, ns, identity, true);
    if (e != NULL && peer != NULL && strlen(peer) < sizeof(e->peer)) {
        snprintf(e->peer, sizeof(e->peer), "%s", peer);
    }
}

void mero__node_seen_hello(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t identity[MERO_IDENTITY_LEN], const char *peer,
                           const char *name)
{
    struct mero_fleet_seen *e = seen_slot(node, ns, identity, true);
    if (e == NULL || strlen(peer) >= sizeof(e->peer) || strlen(name) >= sizeof(e->name)) {
        return;
    }
    snprintf(e->peer, sizeof(e->peer), "%s", peer);
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->at = mero_now_unix();
    e->via = MERO_FLEET_SEEN_SYNC;
}

void mero__node_seen_from_peer(struct mero_node *node, const char *peer, int via)
{
    if (node->seen == NULL || peer == NULL || peer[0] == '\0') {
        return;
    }
    uint64_t now = mero_now_unix();
    for (size_t i = 0; i < MERO_FLEET_SEEN_MAX; i++) {
        struct mero_fleet_seen *e = &node->seen[i];
        if (e->used && strcmp(e->peer, peer) == 0) {
            e->at = now;
            e->via = via;
        }
    }
}

void mero__node_seen_op(struct mero_node *node, const uint8_t *op, size_t len)
{
    /* SignedNamespaceOp: version u8, namespace_id, parent_op_hashes Vec<[32]>, signer */
    struct mero_cur c;
    uint8_t version;
    uint32_t nparents;
    const uint8_t *ns, *signer, *skip;
    mero_cur_init(&c, op, len);
    if (mero_cur_u8(&c, &version) < 0 || mero_cur_bytes(&c, MERO_NS_ID_LEN, &ns) < 0 ||
        mero_cur_u32le(&c, &nparents) < 0 || nparents > MERO_GOV_MAX_PARENTS ||
        mero_cur_bytes(&c, (size_t)nparents * MERO_OP_ID_LEN, &skip) < 0 ||
        mero_cur_bytes(&c, MERO_IDENTITY_LEN, &signer) < 0) {
        return;
    }
    struct mero_fleet_seen *e = seen_slot(node, ns, signer, true);
    if (e != NULL) {
        e->at = mero_now_unix();
        e->via = MERO_FLEET_SEEN_GOSSIP;
    }
}

/* ---- recording attempts ------------------------------------------------------------------- */

void mero__node_fleet_match(const struct mero_tee_policy *p, bool found,
                            const struct mero_measurements *m, const char *tcb_status,
                            struct mero_fleet_match *out)
{
    memset(out, 0, sizeof(*out));
    if (!found || m == NULL) {
        return;
    }
    if (p->form == MERO_POLICY_RELEASE) {
        /* a real quote passed the release check (a mock one was admitted by acceptMock and
         * matched no profile); which profile it was, only the admitter's decision says */
        bool mock = tcb_status != NULL && strcmp(tcb_status, MERO_TCB_STATUS_MOCK) == 0;
        out->kind = mock ? MERO_FLEET_MATCH_NONE : MERO_FLEET_MATCH_PROFILE;
        return;
    }
    for (uint32_t i = 0; i < p->mrtd.n; i++) {
        if (strcasecmp(p->mrtd.v[i], m->mrtd) == 0) {
            out->kind = MERO_FLEET_MATCH_POLICY;
            snprintf(out->name, sizeof(out->name), "allowedMrtd[%u]", i);
            return;
        }
    }
}

static void record(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                   const struct mero_fleet_attempt *a)
{
    if (node->db == NULL || mero__node_attempt_add(node->db, ns, a) < 0) {
        MERO_WARN("fleet view: could not record an admission attempt in node.db");
    }
}

static void set_measurements(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             const struct mero_measurements *m, const char *tcb_status,
                             struct mero_fleet_attempt *a)
{
    struct mero_tee_policy p;
    bool found = false;
    memset(&p, 0, sizeof(p));
    a->has_measurements = true;
    a->m = *m;
    if (mero_gov_read_policy(node->store, ns, &p, &found, NULL) < 0) {
        found = false;
    }
    mero__node_fleet_match(&p, found, m, tcb_status, &a->matched);
    mero_tee_policy_cleanup(&p);
}

void mero__node_fleet_decided(struct mero_node *node, const struct mero_fleet_decision *d)
{
    struct mero_fleet_attempt *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return;
    }
    a->at = mero_now_unix();
    a->has_identity = true;
    memcpy(a->identity, d->identity, MERO_IDENTITY_LEN);
    snprintf(a->peer, sizeof(a->peer), "%s", d->peer != NULL ? d->peer : "");
    a->path = d->path;
    a->has_admitter = mero_gov_identity(node->store, d->ns, false, a->admitter, NULL) == 0;
    a->verdict = d->admitted ? MERO_FLEET_ADMITTED : MERO_FLEET_REFUSED;
    if (!d->admitted && d->reason != NULL) {
        const char *rule = mero__node_attempt_rule_of(d->reason);
        snprintf(a->rule, sizeof(a->rule), "%s", rule != NULL ? rule : "");
        snprintf(a->reason, sizeof(a->reason), "%s", d->reason);
    }
    if (d->m != NULL) {
        set_measurements(node, d->ns, d->m, d->tcb_status, a);
    }
    bool named = d->matched_profile != NULL && d->matched_profile[0] != '\0';
    if (named && a->matched.kind == MERO_FLEET_MATCH_PROFILE) {
        snprintf(a->matched.name, sizeof(a->matched.name), "%s", d->matched_profile);
    }
    if (named && d->admitted && node->db != NULL &&
        mero__node_profile_put(node->db, d->ns, d->identity, d->matched_profile) < 0) {
        MERO_WARN("fleet view: could not record an admitted TEE's release profile in node.db");
    }
    snprintf(a->tcb_status, sizeof(a->tcb_status), "%s",
             d->tcb_status != NULL ? d->tcb_status : "");
    record(node, d->ns, a);
    if (d->peer != NULL) {
        mero__node_seen_peer(node, d->ns, d->identity, d->peer);
    }
    free(a);
}

void mero__node_fleet_heard(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], int path,
                            int verdict, const char *reason)
{
    struct mero_fleet_attempt *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return;
    }
    a->at = mero_now_unix();
    a->has_identity = mero_gov_identity(node->store, ns, false, a->identity, NULL) == 0;
    snprintf(a->peer, sizeof(a->peer), "%s", node->peer_id);
    a->path = path;
    a->verdict = verdict;
    if (verdict == MERO_FLEET_REFUSED && reason != NULL) {
        const char *rule = mero__node_attempt_rule_of(reason);
        snprintf(a->rule, sizeof(a->rule), "%s", rule != NULL ? rule : "");
        snprintf(a->reason, sizeof(a->reason), "%s", reason);
    }
    record(node, ns, a);
    free(a);
}

void mero__node_fleet_on_event(struct mero_node *node, const struct mero_gov_event *ev)
{
    uint8_t us[MERO_IDENTITY_LEN];
    /* a member removed from the namespace root no longer matches the profile we admitted it
     * with (a re-admission names its own) */
    if ((ev->kind == MERO_EV_MEMBER_REMOVED || ev->kind == MERO_EV_TEE_MEMBER_REMOVED) &&
        ev->ns != NULL && ev->group != NULL && ev->member != NULL && node->db != NULL &&
        memcmp(ev->group, ev->ns, MERO_NS_ID_LEN) == 0 &&
        mero__node_profile_forget(node->db, ev->ns, ev->member) < 0) {
        MERO_WARN("fleet view: could not forget a removed member's release profile in node.db");
    }
    /* our own admission is recorded as the admitter's answer we heard (fleet_heard) */
    if (ev->kind != MERO_EV_TEE_MEMBER_ADMITTED || ev->for_us || ev->ns == NULL ||
        ev->member == NULL || ev->op_hash == NULL || node->db == NULL) {
        return;
    }
    struct mero_buf b;
    struct mero_op op;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    mero_op_init(&op);
    if (mero_gov_op_get(node->store, ev->op_hash, &b) < 0 ||
        mero_op_decode(b.data, b.len, &op, NULL) < 0) {
        mero_buf_cleanup(&b);
        return;
    }
    mero_buf_cleanup(&b);
    bool join = op.kind == (op.scope == MERO_SCOPE_ROOT ? MERO_ROOT_MEMBER_JOINED_TEE
                                                        : MERO_GROUP_MEMBER_JOINED_TEE) &&
                memcmp(op.join.member, ev->member, MERO_IDENTITY_LEN) == 0;
    if (op.scope != MERO_SCOPE_GROUP_ENCRYPTED && !join) {
        /* issue 30: an admission a re-fold brought back is reported with the op that caused
         * the re-fold, not the admission's own: no attempt is recorded from it */
        mero_op_cleanup(&op);
        return;
    }
    bool ours = mero_gov_identity(node->store, ev->ns, false, us, NULL) == 0 &&
                memcmp(us, op.signer, MERO_IDENTITY_LEN) == 0;
    bool root = ev->group == NULL || memcmp(ev->group, ev->ns, MERO_NS_ID_LEN) == 0;
    if (!ours && root && mero__node_profile_forget(node->db, ev->ns, ev->member) < 0) {
        /* another admitter (re)admitted it: the profile we named is not its current one */
        MERO_WARN("fleet view: could not forget a re-admitted member's release profile");
    }
    struct mero_fleet_attempt *a = ours ? NULL : calloc(1, sizeof(*a));
    if (a != NULL) {
        /* an admission another member decided: this node learns it from the op log */
        a->at = mero_now_unix();
        a->has_identity = true;
        memcpy(a->identity, ev->member, MERO_IDENTITY_LEN);
        bool subgroup = ev->group != NULL && memcmp(ev->group, ev->ns, MERO_NS_ID_LEN) != 0;
        a->path = subgroup ? MERO_FLEET_PATH_SUBGROUP : MERO_FLEET_PATH_UNKNOWN;
        a->has_admitter = true;
        memcpy(a->admitter, op.signer, MERO_IDENTITY_LEN);
        a->verdict = MERO_FLEET_ADMITTED;
        if (op.kind == (op.scope == MERO_SCOPE_ROOT ? MERO_ROOT_MEMBER_JOINED_TEE
                                                    : MERO_GROUP_MEMBER_JOINED_TEE)) {
            set_measurements(node, ev->ns, &op.join.m, op.join.tcb_status, a);
            snprintf(a->tcb_status, sizeof(a->tcb_status), "%.*s", (int)sizeof(a->tcb_status) - 1,
                     op.join.tcb_status);
        }
        record(node, ev->ns, a);
        free(a);
    }
    mero_op_cleanup(&op);
}

/* ---- the view ----------------------------------------------------------------------------- */

int mero_fleet_evidence_state(uint64_t at, uint64_t now)
{
    uint64_t age = now > at ? now - at : 0;
    return age >= MERO_GOV_EVIDENCE_MAX_AGE_SECS   ? MERO_FLEET_EVIDENCE_LAPSED
           : age >= MERO_GOV_EVIDENCE_REFRESH_SECS ? MERO_FLEET_EVIDENCE_LAPSING
                                                   : MERO_FLEET_EVIDENCE_FRESH;
}

void mero_fleet_cleanup(struct mero_fleet *f)
{
    if (f == NULL) {
        return;
    }
    mero_tee_policy_cleanup(&f->policy);
    free(f->members);
    free(f->attempts);
    memset(f, 0, sizeof(*f));
}

static struct mero_fleet_member *row_of(struct mero_fleet *f, const uint8_t id[MERO_IDENTITY_LEN])
{
    for (size_t i = 0; i < f->nmembers; i++) {
        if (memcmp(f->members[i].identity, id, MERO_IDENTITY_LEN) == 0) {
            return &f->members[i];
        }
    }
    return NULL;
}

/* One op of the log: who made a row of the group, and a TEE's evidence times. */
static void scan_op(struct mero_fleet *f, const struct mero_op *op, bool *pending)
{
    struct mero_fleet_member *m = NULL;
    if (op->scope == MERO_SCOPE_ROOT && op->kind == MERO_ROOT_MEMBER_JOINED_TEE &&
        memcmp(op->join.group_id, f->group, MERO_GROUP_ID_LEN) == 0) {
        m = row_of(f, op->join.member);
    } else if (op->scope == MERO_SCOPE_GROUP &&
               memcmp(op->group_id, f->group, MERO_GROUP_ID_LEN) == 0 &&
               op->kind == MERO_GROUP_MEMBER_JOINED_TEE) {
        m = row_of(f, op->join.member);
    } else if (op->scope == MERO_SCOPE_GROUP &&
               memcmp(op->group_id, f->group, MERO_GROUP_ID_LEN) == 0 &&
               op->kind == MERO_GROUP_MEMBER_ADDED) {
        m = row_of(f, op->member);
    } else if (op->scope == MERO_SCOPE_GROUP && op->kind == MERO_GROUP_TEE_AUTHORITY_EVIDENCE) {
        struct mero_fleet_member *e = row_of(f, op->evidence.attested_key);
        if (e == NULL) {
            return;
        }
        size_t i = (size_t)(e - f->members);
        uint64_t at = op->evidence.attested_at;
        if (pending[i]) {
            e->has_admitted_at = true;
            e->admitted_at = at;
            pending[i] = false;
        }
        if (!e->has_evidence_at || at > e->evidence_at) {
            e->has_evidence_at = true;
            e->evidence_at = at;
        }
        return;
    }
    if (m == NULL) {
        return;
    }
    /* the op that (re)made the row: its signer admitted the member */
    m->has_admitted_by = memcmp(op->signer, m->identity, MERO_IDENTITY_LEN) != 0;
    memcpy(m->admitted_by, op->signer, MERO_IDENTITY_LEN);
    m->has_admitted_at = false;
    pending[m - f->members] = op->kind != MERO_GROUP_MEMBER_ADDED;
}

#define SCAN_PAGE 256u

static int scan_log(struct mero_node *node, struct mero_fleet *f)
{
    bool *pending = calloc(f->nmembers ? f->nmembers : 1, sizeof(*pending));
    struct mero_buf b;
    uint64_t after = 0;
    int rc = 0;
    if (pending == NULL) {
        return -MERO_ENOMEM;
    }
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    for (;;) {
        uint8_t(*hs)[MERO_OP_ID_LEN] = NULL;
        size_t n = 0;
        uint64_t last = after;
        MERO_TRY_OUT(mero_gov_op_hashes(node->store, f->ns, after, SCAN_PAGE, &hs, &n, &last));
        for (size_t i = 0; i < n; i++) {
            struct mero_op op;
            mero_op_init(&op);
            b.len = 0;
            int state = MERO_OP_EFFECTIVE;
            if (mero_gov_op_get(node->store, hs[i], &b) == 0 &&
                mero_gov_op_state(node->store, hs[i], &state, NULL, 0) == 0 &&
                state != MERO_OP_REJECTED && /* issue 30: kept without effect */
                mero_op_decode(b.data, b.len, &op, NULL) == 0) {
                scan_op(f, &op, pending);
                mero_op_cleanup(&op);
            }
        }
        free(hs);
        if (n < SCAN_PAGE || last <= after) {
            break;
        }
        after = last;
    }
out:
    mero_buf_cleanup(&b);
    free(pending);
    return rc;
}

/*
 * What governance's op fields do not say about a TEE row: the release profile it matched
 * (known to the node that admitted it, adm_profiles) and the advisory IDs of its latest
 * evidence at the namespace root (gov's offline check of the evidence's collateral).
 */
static void tee_extras(struct mero_node *node, const struct mero_fleet *f,
                       struct mero_fleet_member *m)
{
    if (m->matched.kind == MERO_FLEET_MATCH_PROFILE && node->db != NULL &&
        mero__node_profile_get(node->db, f->ns, m->identity, m->matched.name,
                               sizeof(m->matched.name)) < 0) {
        m->matched.name[0] = '\0'; /* not admitted here: this node cannot name it */
    }
    bool found = false;
    if (mero_gov_evidence_advisories(node->store, f->ns, m->identity, &found, m->advisories) < 0) {
        m->advisories[0] = '\0';
    }
}

static int fill_members(struct mero_node *node, struct mero_fleet *f)
{
    struct mero_gov_member *gm = NULL;
    size_t n = 0;
    MERO_TRY(mero_gov_members(node->store, f->group, &gm, &n));
    f->members = calloc(n ? n : 1, sizeof(*f->members));
    if (f->members == NULL) {
        free(gm);
        return -MERO_ENOMEM;
    }
    f->nmembers = n;
    for (size_t i = 0; i < n; i++) {
        struct mero_fleet_member *m = &f->members[i];
        memcpy(m->identity, gm[i].id, MERO_IDENTITY_LEN);
        m->role = gm[i].role;
        m->is_tee = gm[i].tee;
        if (m->is_tee) {
            m->m = gm[i].m;
            memcpy(m->tcb_status, gm[i].tcb_status, sizeof(m->tcb_status));
            memcpy(m->quote_hash, gm[i].quote_hash, sizeof(m->quote_hash));
            mero__node_fleet_match(&f->policy, f->policy_found, &m->m, m->tcb_status, &m->matched);
            tee_extras(node, f, m);
        }
        struct mero_fleet_seen *s = seen_slot(node, f->ns, m->identity, false);
        if (s != NULL && s->at != 0) {
            m->last_seen = s->at;
            m->last_seen_via = s->via;
        }
    }
    free(gm);
    return 0;
}

/* Issue 35 item 6: a member's name is the label an admin gave it here, else, on this node's
 * own row, the node's own --name, else the name its node announced in a signed sync HELLO;
 * this node's own row was heard from now. */
static void name_member(struct mero_node *node, const struct mero_fleet *f,
                        struct mero_fleet_member *m)
{
    bool self = f->has_identity && memcmp(m->identity, f->identity, MERO_IDENTITY_LEN) == 0;
    if (mero__node_label_get(node->db, f->ns, m->identity, m->name) == 0) {
        m->name_source = MERO_FLEET_NAME_LABEL;
    } else if (self && node->cfg.name[0] != '\0') {
        snprintf(m->name, sizeof(m->name), "%s", node->cfg.name);
        m->name_source = MERO_FLEET_NAME_SELF;
    } else {
        const struct mero_fleet_seen *s = seen_slot(node, f->ns, m->identity, false);
        if (s != NULL && s->name[0] != '\0') {
            snprintf(m->name, sizeof(m->name), "%s", s->name);
            m->name_source = MERO_FLEET_NAME_ANNOUNCED;
        }
    }
    if (self) {
        m->last_seen = f->generated_at;
        m->last_seen_via = MERO_FLEET_SEEN_SELF;
    }
}

int mero_node_fleet(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                    size_t max_attempts, struct mero_fleet *out, struct mero_err *err)
{
    struct mero_fleet *f = out;
    memset(f, 0, sizeof(*f));
    memcpy(f->group, group, MERO_GROUP_ID_LEN);
    if (mero_gov_namespace_of(node->store, group, f->ns) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "group not found");
    }
    f->has_identity = mero_gov_identity(node->store, f->ns, false, f->identity, NULL) == 0;
    snprintf(f->peer_id, sizeof(f->peer_id), "%s", node->peer_id);
    f->generated_at = mero_now_unix();
    MERO_TRY(mero_gov_read_policy(node->store, f->ns, &f->policy, &f->policy_found, err));
    MERO_ENSURE(fill_members(node, f) == 0, err, MERO_EIO, "cannot read the group's members");
    MERO_ENSURE(scan_log(node, f) == 0, err, MERO_EIO, "cannot read the namespace's op log");
    for (size_t i = 0; i < f->nmembers; i++) {
        struct mero_fleet_member *m = &f->members[i];
        name_member(node, f, m);
        m->evidence_state = m->has_evidence_at
                                ? mero_fleet_evidence_state(m->evidence_at, f->generated_at)
                                : MERO_FLEET_EVIDENCE_NONE;
    }
    MERO_ENSURE(node->db != NULL && mero__node_attempts_list(node->db, f->ns, max_attempts,
                                                             &f->attempts, &f->nattempts) == 0,
                err, MERO_EIO, "cannot read the admission attempts");
    return 0;
}
