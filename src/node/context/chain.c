/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chain.c - issue 30: what a removal vouches for (docs/governance.md "What a removal vouches
 * for"). Every direct write is a version-3 delta naming its author's previous delta in the
 * context (prev); ctx_chain holds those links. A removal built here names, per context of the
 * group and its subgroups, the removed member's newest delta whose whole chain took effect here
 * (its cut, via the gov hook mero__node_write_cuts: a kept or missing link below a delta
 * disqualifies it). A delta whose author has no role now passes the apply path's governance
 * check when an effective removal's cut, from the context's group or an ancestor, reaches it:
 * the remover applied every delta of that chain while the author held the right, so a node that
 * learns the context after the removal takes the same writes as a node that held them before it.
 *
 * Invariants: a cut vouches for its head and, through links held here (each of a smaller lamport
 * than the one it came from: an honest chain's lamports rise with the context clock; at most
 * VOUCH_WALK_MAX of them), for the prev each names, and only for deltas of the removed author in
 * the cut's context (a delta's hash binds its author, context and prev): a delta the author
 * signed after the cut, or beside it (a fork), is reached by no cut and stays refused. The set a
 * (context, author) is vouched for is read once and kept until the governance generation or a
 * chain link moves (node->ctx_vouch).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/gov.h"
#include "node/context/chain_internal.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/node_internal.h"

#define VOUCH_WALK_MAX 65536u /* links followed back from one cut's head */
#define VOUCH_HEADS    16u    /* effective cuts of one (context, author) read */
#define VOUCH_SET_MIN  64u    /* the first allocation of a vouched set, in ids */
#define GROUP_LEVELS   32     /* a group tree is no deeper (gov refuses it at creation) */
#define CUT_CANDIDATES 16u    /* a member's newest applied deltas tried as a context's cut */

struct mero_ctx_vouch {
    uint8_t ctx[MERO_CONTEXT_ID_LEN], author[MERO_IDENTITY_LEN];
    uint64_t gen, chain_gen;
    uint8_t (*set)[MERO_DELTA_ID_LEN]; /* sorted */
    size_t n, cap;
};

int mero__ctx_chain_note(struct mero_node *node, const struct mero_ctx_delta *d,
                         const uint8_t hash[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (d->version != MERO_DELTA_CHAINED_VERSION) {
        return 0;
    }
    if (sqlite3_prepare_v2(node->db,
                           "INSERT OR IGNORE INTO ctx_chain(hash, context, author, prev, lamport) "
                           "VALUES(?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, hash, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, d->ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, d->author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, d->prev, MERO_DELTA_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)d->lamport); /* <= INT64_MAX: codec.c */
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_changes(node->db) > 0) {
        node->ctx_chain_gen++;
    }
    return rc;
}

int mero__ctx_chain_head(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         const uint8_t author[MERO_IDENTITY_LEN], uint8_t head[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    memset(head, 0, MERO_DELTA_ID_LEN);
    if (sqlite3_prepare_v2(node->db,
                           "SELECT hash FROM ctx_chain WHERE context = ?1 AND author = ?2 "
                           "ORDER BY lamport DESC, hash DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, author, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW && sqlite3_column_bytes(st, 0) == MERO_DELTA_ID_LEN) {
        memcpy(head, sqlite3_column_blob(st, 0), MERO_DELTA_ID_LEN);
    }
    sqlite3_finalize(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -MERO_EIO;
}

static int id_cmp(const void *a, const void *b)
{
    return memcmp(a, b, MERO_DELTA_ID_LEN);
}

static int vouch_add(struct mero_ctx_vouch *v, const uint8_t id[MERO_DELTA_ID_LEN])
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : VOUCH_SET_MIN;
        void *p = realloc(v->set, cap * sizeof(*v->set));
        if (p == NULL) {
            return -MERO_ENOMEM;
        }
        v->set = p;
        v->cap = cap;
    }
    memcpy(v->set[v->n++], id, MERO_DELTA_ID_LEN);
    return 0;
}

/* Follow the links of v's (context, author) back from head into v's set: the head itself (held
 * here or not: the delta being judged may be it), then the prev each held link names. */
static int walk(struct mero_node *node, struct mero_ctx_vouch *v,
                const uint8_t head[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    static const uint8_t zero[MERO_DELTA_ID_LEN];
    uint8_t cur[MERO_DELTA_ID_LEN];
    uint64_t above = UINT64_MAX;
    MERO_TRY(vouch_add(v, head));
    if (sqlite3_prepare_v2(node->db,
                           "SELECT prev, lamport FROM ctx_chain WHERE hash = ?1 AND context = ?2 "
                           "AND author = ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    int rc = 0;
    memcpy(cur, head, sizeof(cur));
    for (unsigned i = 0; rc == 0 && i < VOUCH_WALK_MAX; i++) {
        sqlite3_reset(st);
        sqlite3_bind_blob(st, 1, cur, MERO_DELTA_ID_LEN, SQLITE_TRANSIENT);
        sqlite3_bind_blob(st, 2, v->ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, v->author, MERO_IDENTITY_LEN, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_bytes(st, 0) != MERO_DELTA_ID_LEN) {
            break; /* not held here (yet): the walk ends */
        }
        uint64_t lamport = (uint64_t)sqlite3_column_int64(st, 1);
        if (lamport >= above) {
            break; /* not an honest chain: nothing further back is vouched for */
        }
        above = lamport;
        memcpy(cur, sqlite3_column_blob(st, 0), MERO_DELTA_ID_LEN);
        if (memcmp(cur, zero, sizeof(zero)) == 0) {
            break; /* the author's first delta in the context */
        }
        rc = vouch_add(v, cur);
    }
    sqlite3_finalize(st);
    return rc;
}

/* node->ctx_vouch for d's (context, author) at generation gen, read again when stale. */
static int vouch_set(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                     const struct mero_ctx_delta *d, uint64_t gen, struct mero_ctx_vouch **out)
{
    struct mero_ctx_vouch *v = node->ctx_vouch;
    if (v != NULL && v->gen == gen && v->chain_gen == node->ctx_chain_gen &&
        memcmp(v->ctx, d->ctx, MERO_CONTEXT_ID_LEN) == 0 &&
        memcmp(v->author, d->author, MERO_IDENTITY_LEN) == 0) {
        *out = v;
        return 0;
    }
    if (v == NULL) {
        v = calloc(1, sizeof(*v));
        if (v == NULL) {
            return -MERO_ENOMEM;
        }
        node->ctx_vouch = v;
    }
    uint8_t heads[VOUCH_HEADS][MERO_DELTA_ID_LEN];
    size_t nh = 0;
    v->n = 0;
    v->gen = 0;
    memcpy(v->ctx, d->ctx, MERO_CONTEXT_ID_LEN);
    memcpy(v->author, d->author, MERO_IDENTITY_LEN);
    MERO_TRY(mero_gov_write_cuts(node->store, ns, d->author, d->ctx, heads, VOUCH_HEADS, &nh));
    for (size_t i = 0; i < nh; i++) {
        MERO_TRY(walk(node, v, heads[i]));
    }
    if (v->n > 1) {
        qsort(v->set, v->n, sizeof(*v->set), id_cmp);
    }
    v->gen = gen;
    v->chain_gen = node->ctx_chain_gen;
    *out = v;
    return 0;
}

int mero__ctx_vouched(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                      const struct mero_ctx_delta *d, const uint8_t hash[MERO_DELTA_ID_LEN],
                      bool *yes)
{
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t gen = 0;
    struct mero_ctx_vouch *v = NULL;
    *yes = false;
    if (d->version != MERO_DELTA_CHAINED_VERSION) {
        return 0;
    }
    MERO_TRY(mero_gov_namespace_of(node->store, group, ns));
    MERO_TRY(mero__node_ctx_gov_gen(node, ns, &gen));
    int rc = vouch_set(node, ns, d, gen + 1, &v); /* + 1: 0 marks a set not read */
    if (rc < 0) {
        mero__ctx_vouch_free(node);
        return rc;
    }
    *yes = v->n > 0 && bsearch(hash, v->set, v->n, sizeof(*v->set), id_cmp) != NULL;
    return 0;
}

void mero__ctx_vouch_free(struct mero_node *node)
{
    if (node->ctx_vouch != NULL) {
        free(node->ctx_vouch->set);
        free(node->ctx_vouch);
        node->ctx_vouch = NULL;
    }
}

/* Whether group is top or one of its subgroups (at most GROUP_LEVELS up). */
static bool within(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                   const uint8_t top[MERO_GROUP_ID_LEN])
{
    uint8_t cur[MERO_GROUP_ID_LEN], parent[MERO_GROUP_ID_LEN];
    int vis = 0;
    memcpy(cur, group, sizeof(cur));
    for (int i = 0; i < GROUP_LEVELS; i++) {
        if (memcmp(cur, top, MERO_GROUP_ID_LEN) == 0) {
            return true;
        }
        if (mero_gov_group_info(node->store, cur, parent, &vis) < 0 ||
            memcmp(parent, cur, MERO_GROUP_ID_LEN) == 0) {
            return false;
        }
        memcpy(cur, parent, sizeof(cur));
    }
    return false;
}

/* Whether cand's chain is held here and applied, each link of a smaller lamport, down to the
 * author's first delta in the context: everything a cut at cand vouches for took effect here. */
static bool complete(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                     const uint8_t author[MERO_IDENTITY_LEN], const uint8_t cand[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    static const uint8_t zero[MERO_DELTA_ID_LEN];
    uint8_t cur[MERO_DELTA_ID_LEN];
    uint64_t above = UINT64_MAX;
    bool done = false;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT c.prev, c.lamport FROM ctx_chain c JOIN ctx_delta d ON "
                           "d.hash = c.hash WHERE c.hash = ?1 AND c.context = ?2 AND c.author = ?3 "
                           "AND d.applied = 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return false;
    }
    memcpy(cur, cand, sizeof(cur));
    for (unsigned i = 0; !done && i < VOUCH_WALK_MAX; i++) {
        sqlite3_reset(st);
        sqlite3_bind_blob(st, 1, cur, MERO_DELTA_ID_LEN, SQLITE_TRANSIENT);
        sqlite3_bind_blob(st, 2, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, author, MERO_IDENTITY_LEN, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_bytes(st, 0) != MERO_DELTA_ID_LEN ||
            (uint64_t)sqlite3_column_int64(st, 1) >= above) {
            break; /* a link not held, not applied here (kept, waiting) or out of order */
        }
        above = (uint64_t)sqlite3_column_int64(st, 1);
        memcpy(cur, sqlite3_column_blob(st, 0), MERO_DELTA_ID_LEN);
        done = memcmp(cur, zero, sizeof(zero)) == 0;
    }
    sqlite3_finalize(st);
    return done;
}

/* The cut this node can name for member in ctx: its newest delta (of the CUT_CANDIDATES newest
 * applied here) whose whole chain took effect here; zero when none. */
static int cut_head(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                    const uint8_t member[MERO_IDENTITY_LEN], uint8_t head[MERO_DELTA_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    uint8_t cand[CUT_CANDIDATES][MERO_DELTA_ID_LEN];
    size_t n = 0;
    memset(head, 0, MERO_DELTA_ID_LEN);
    if (sqlite3_prepare_v2(node->db,
                           "SELECT c.hash FROM ctx_chain c JOIN ctx_delta d ON d.hash = c.hash "
                           "WHERE c.context = ?1 AND c.author = ?2 AND d.applied = 1 "
                           "ORDER BY c.lamport DESC, c.hash DESC LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, (int)CUT_CANDIDATES);
    while (n < CUT_CANDIDATES && sqlite3_step(st) == SQLITE_ROW) {
        if (sqlite3_column_bytes(st, 0) == MERO_DELTA_ID_LEN) {
            memcpy(cand[n++], sqlite3_column_blob(st, 0), MERO_DELTA_ID_LEN);
        }
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++) {
        if (complete(node, ctx, member, cand[i])) {
            memcpy(head, cand[i], MERO_DELTA_ID_LEN);
            break;
        }
    }
    return 0;
}

int mero__node_write_cuts(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN], struct mero_write_cut *out,
                          uint32_t max, uint32_t *n)
{
    struct mero_node *node = ud;
    struct mero_gov_context *cs = NULL;
    size_t nc = 0;
    static const uint8_t zero[MERO_DELTA_ID_LEN];
    *n = 0;
    if (node == NULL || node->db == NULL) {
        return 0;
    }
    MERO_TRY(mero_gov_contexts(node->store, ns, &cs, &nc));
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nc && *n < max; i++) {
        if (!within(node, cs[i].group, group)) {
            continue;
        }
        rc = cut_head(node, cs[i].id, member, out[*n].head);
        if (rc == 0 && memcmp(out[*n].head, zero, sizeof(zero)) != 0) {
            memcpy(out[*n].context, cs[i].id, MERO_CONTEXT_ID_LEN);
            (*n)++;
        }
    }
    free(cs);
    return rc;
}
