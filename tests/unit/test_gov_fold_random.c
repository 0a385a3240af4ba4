/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_fold_random.c - issue 30, a seeded randomized differential test of the fold's
 * shortcuts: a late op judged without a re-fold (fold_commute.c: it commutes with every op after
 * its place, or later ops only rewrite its row) and the re-fold that replays ops without judging
 * them (fold_replay.c). test_gov_fold and test_gov_fold_replay check them on a few fixed shapes;
 * here every set of ops is drawn from a seed.
 *
 * A set: one namespace, a base chain (NamespaceCreated, two or three root Admins, three members,
 * a subgroup G1 with a member, a replica policy accepting mock quotes), then 15-30 concurrent
 * ops. Each is signed over what its signer's node holds - its own earlier ops always, and now
 * and then the ancestry of another op or everything (a sync) - so parents are real, diverging
 * frontiers: MemberAdded (Admin, Member or ReadOnly, in the root, G1 or a subgroup G2; the same
 * member by two Admins; an Admin stepping down), MemberRemoved (some with a key rotation),
 * MemberRoleSet, AdminChanged, MemberLeft, ContextCreated (ids from a pool of four, so some
 * collide), MemberSetAutoFollow, KeyDelivery, GroupCreated (G2, possibly twice), policy ops
 * (replica or relay), and a mock-quote TEE's joins: at the root, in G1, and in G1 encrypted
 * under a namespace key no peer holds until an order hands it over. Signers are the Admins and
 * the base members (they held a row, so their refused ops are kept); targets are often
 * identities other concurrent ops name, so ops meet. Set k uses profile (seed + k) % 5 for the mix
 * of kinds: additions only (what a late op may commute past), additions with a few others, mixed,
 * mostly authority changes, Admins churning (the root's admin count). Keys, salts, envelopes,
 * quotes and ciphertexts all come from the seed, so a seed gives the same ops every run.
 *
 * Each set is fed to fresh peers: in its canonical order (no op is late there: the reference;
 * with the key from the start too, where the set holds encrypted ops), then in random delivery
 * orders (random linear extensions of the DAG; half of them, where the set holds encrypted ops,
 * get the key at a random point). After every late op the peer's derived tables (mero_gov_dump:
 * members, roles, groups, contexts, policy, deny, auto-follow, heads, each op's outcome in
 * `fold`) must equal a rebuild's (the full fold of the ops it holds, no shortcut) - checked then,
 * before a later re-fold can cover a wrong row up. At the end they must equal the reference's
 * and a rebuild's again, the membership events the peer was given must add up to its member
 * rows (checked after every late op too), and the root must keep an Admin. The run asserts that the
 * shortcuts were taken (the store's late_fast and refold_replayed counters; a rewrite is counted
 * when a late MemberAdded took the fast path while an effective later MemberAdded of its member was
 * stored).
 *
 * Seed: random, printed; MERO_GOV_FOLD_SEED=<seed> reruns it. Set k of a run uses seed + k, so
 * MERO_GOV_FOLD_SEED=<seed + k> MERO_GOV_FOLD_SETS=1 reruns set k alone (the shortcut counts are
 * asserted only for a run of the default size or more). MERO_GOV_FOLD_SETS and
 * MERO_GOV_FOLD_ORDERS set the counts. A failing order is reported with the set's ops (each op's
 * parents, place and outcome), the order and the differing dump rows, then again after a greedy
 * reduction (ops dropped with their descendants while the same check fails).
 *
 * The second test pins a divergence of the events this test found, now mended (see there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h" /* the late-op counters, mero__gov_ns_id, mero__gov_fold_class */
#include "harness.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/identity.h"
#include "mero/keys.h"
#include "mero/log.h"
#include "mero/mock.h"
#include "support/gov_fixture.h"

#define MAX_OPS        64 /* an op's ancestry is one 64-bit mask */
#define DUMP_CAP       (1u << 24)
#define DEFAULT_SETS   18
#define DEFAULT_ORDERS 10
#define TALLY_MAX      128

/* The identities: root Admins A, B (C in some sets), base members M1-M3, fresh N1-N5, a TEE. */
enum { ID_A, ID_B, ID_C, ID_M1, ID_M2, ID_M3, ID_N1, ID_N5 = ID_N1 + 4, ID_T, NID };
static const char *const id_name[NID] = {"A",  "B",  "C",  "M1", "M2", "M3",
                                         "N1", "N2", "N3", "N4", "N5", "T"};
enum { G_ROOT, G_1, G_2, NGRP };
static const char *const grp_name[NGRP] = {"root", "G1", "G2"};
#define NCTX 4

enum kind {
    K_NS,
    K_ADD,
    K_REMOVE,
    K_ROLE_SET,
    K_ADMIN_CHANGED,
    K_LEFT,
    K_CONTEXT,
    K_FOLLOW,
    K_KEY,
    K_GROUP,
    K_POLICY,
    K_TEE_ROOT,
    K_TEE_SUB,
    K_SEALED,
    NKIND
};
static const char *const kind_name[NKIND] = {"NamespaceCreated",
                                             "MemberAdded",
                                             "MemberRemoved",
                                             "MemberRoleSet",
                                             "AdminChanged",
                                             "MemberLeft",
                                             "ContextCreated",
                                             "MemberSetAutoFollow",
                                             "KeyDelivery",
                                             "GroupCreated",
                                             "TeeAdmissionPolicy",
                                             "MemberJoinedViaTee(root)",
                                             "MemberJoinedViaTee(G1)",
                                             "MemberJoinedViaTee(G1, encrypted)"};
/* Weights of the concurrent kinds (K_ADD..K_SEALED) per profile: additions only (the kinds a
 * late op may commute past), additions with a few others, mixed, mostly authority changes, and
 * admin churn (the Admins adding, demoting, promoting and removing each other: the root's admin
 * count, which the last-admin rule reads). */
#define NPROFILE 5
#define P_ADDS   0
#define P_ADMINS 4
static const unsigned weights[NPROFILE][NKIND] = {
    /* -, add, remove, role, admin, left, ctx, follow, key, group, policy, tee: root, G1, sealed */
    {0, 55, 0, 0, 0, 0, 15, 14, 16, 0, 0, 0, 0, 0}, /* additions only */
    {0, 50, 2, 2, 1, 1, 12, 10, 10, 3, 1, 3, 2, 2}, /* additions and a few others */
    {0, 35, 8, 8, 5, 4, 8, 7, 6, 4, 4, 6, 3, 3},    /* mixed */
    {0, 22, 14, 14, 9, 7, 6, 5, 4, 4, 7, 5, 3, 3},  /* mostly authority changes */
    {0, 40, 10, 14, 12, 6, 5, 4, 4, 0, 2, 2, 1, 0}, /* admin churn */
};

struct gop {
    struct mero_buf b;
    uint8_t hash[MERO_OP_ID_LEN];
    uint64_t anc;   /* bit i: op i is the op itself or one of its ancestors */
    uint64_t depth; /* its place: (depth, cls, hash) */
    int cls;
    int kind, signer, member, grp, role; /* what it is (member/grp/role -1 where none) */
};

struct world {
    uint64_t st; /* the generator's state */
    uint8_t pk[NID][MERO_IDENTITY_LEN];
    uint8_t sk[NID][MERO_ED25519_SK_LEN];
    uint64_t nonce[NID];
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t grp[NGRP][MERO_GROUP_ID_LEN];
    uint8_t ctx[NCTX][MERO_CONTEXT_ID_LEN];
    struct mero_credential tee_cred;
    uint8_t tee_quote[MERO_MOCK_QUOTE_LEN];
    uint8_t key[MERO_GROUP_KEY_LEN]; /* the namespace key the encrypted ops are sealed under */
    int nadmins, profile;
    uint64_t view[NID]; /* the ops each signer's node holds */
    struct gop op[MAX_OPS];
    size_t n, nbase;
};

struct counts {
    uint64_t sets, feeds, ops, rejected;
    uint64_t late_fast, rewrites, refolds, replayed, keys;
    uint64_t kinds[NKIND];
};

/* ---- randomness: xorshift64* seeded through splitmix64, so nearby seeds differ ------------ */

static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x != 0 ? x : 1;
}

static unsigned pick(struct world *w, unsigned n)
{
    return (unsigned)(govt_rnd(&w->st) % n);
}

static bool chance(struct world *w, unsigned pct)
{
    return pick(w, 100) < pct;
}

static void fill(struct world *w, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(govt_rnd(&w->st) >> 56);
    }
}

/* ---- building ops ------------------------------------------------------------------------- */

static int place_cmp(const struct gop *x, const struct gop *y)
{
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    if (x->cls != y->cls) {
        return x->cls < y->cls ? -1 : 1;
    }
    return memcmp(x->hash, y->hash, MERO_OP_ID_LEN);
}

/* Parents = the heads of `view` (an ancestor-closed set of ops), then sign, encode, place. The
 * op is cleaned up. */
static int emit(struct world *w, struct mero_op *op, int kind, int signer, int member, int grp,
                int role, uint64_t view)
{
    uint8_t parents[MAX_OPS][MERO_OP_ID_LEN];
    uint32_t np = 0;
    uint64_t depth = 0;
    int rc = 0;
    MERO_ENSURE_OUT(w->n < MAX_OPS, NULL, MERO_ENOMEM, "too many ops");
    for (size_t i = 0; i < w->n; i++) {
        bool covered = !(view >> i & 1);
        for (size_t j = 0; j < w->n && !covered; j++) {
            covered = j != i && (view >> j & 1) && (w->op[j].anc >> i & 1);
        }
        if (!covered) {
            memcpy(parents[np++], w->op[i].hash, MERO_OP_ID_LEN);
            depth = w->op[i].depth + 1 > depth ? w->op[i].depth + 1 : depth;
        }
    }
    struct gop *g = &w->op[w->n];
    memcpy(op->ns, w->ns, sizeof(op->ns));
    op->nonce = ++w->nonce[signer];
    mero_buf_init(&g->b, MERO_GOV_MAX_OP_BYTES);
    MERO_TRY_OUT(mero_op_set_parents(op, (const uint8_t(*)[MERO_OP_ID_LEN])parents, np));
    MERO_TRY_OUT(mero_op_sign(op, w->sk[signer]));
    MERO_TRY_OUT(mero_op_encode(op, &g->b));
    MERO_TRY_OUT(mero_op_hash(op, g->hash));
    g->anc = view | 1ULL << w->n;
    g->depth = depth;
    g->cls = mero__gov_fold_class(op);
    g->kind = kind;
    g->signer = signer;
    g->member = member;
    g->grp = grp;
    g->role = role;
    w->n++;
out:
    if (rc < 0 && w->n < MAX_OPS) {
        mero_buf_cleanup(&w->op[w->n].b); /* the op that failed */
    }
    mero_op_cleanup(op);
    return rc;
}

/* A KeyEnvelope from `from` to `to` for group g, signed as keys.c signs one; its ephemeral key,
 * nonce and ciphertext are drawn from the seed (no peer here is a recipient, so none is
 * opened; the signature is what every peer checks). */
static int envelope(struct world *w, struct mero_key_envelope *e, int g, int from, int to)
{
    struct mero_buf m;
    memset(e, 0, sizeof(*e));
    memcpy(e->identity, w->pk[to], sizeof(e->identity));
    memcpy(e->sender, w->pk[from], sizeof(e->sender));
    fill(w, e->ephemeral, sizeof(e->ephemeral));
    fill(w, e->nonce, sizeof(e->nonce));
    fill(w, e->ciphertext, sizeof(e->ciphertext));
    mero_buf_init(&m, 1024);
    int rc = mero_buf_append_str(&m, MERO_ENVELOPE_DOMAIN);
    rc = rc < 0 ? rc : mero_buf_append(&m, w->grp[g], MERO_GROUP_ID_LEN);
    rc = rc < 0 ? rc : mero_buf_append_u8(&m, e->recipient_tag);
    rc = rc < 0 ? rc : mero_buf_append(&m, e->identity, sizeof(e->identity));
    rc = rc < 0 ? rc : mero_buf_append(&m, e->ephemeral, sizeof(e->ephemeral));
    rc = rc < 0 ? rc : mero_buf_append(&m, e->sender, sizeof(e->sender));
    rc = rc < 0 ? rc : mero_buf_append(&m, e->nonce, sizeof(e->nonce));
    rc = rc < 0 ? rc : mero_buf_append(&m, e->ciphertext, sizeof(e->ciphertext));
    if (rc == 0) {
        mero_ed25519_sign(e->signature, m.data, m.len, w->sk[from]);
        rc = mero_envelope_verify(e, w->grp[g], NULL);
    }
    mero_buf_cleanup(&m);
    return rc;
}

/* mero_op_seal with the nonce drawn from the seed: a group op sealed under w->key. */
static int seal(struct world *w, struct mero_op *op)
{
    struct mero_buf plain;
    mero_buf_init(&plain, MERO_GOV_MAX_SEALED_BYTES - MERO_AEAD_TAG_LEN);
    int rc = mero__gov_put_group_body(&plain, op);
    uint8_t *ct = rc < 0 ? NULL : malloc(plain.len + MERO_AEAD_TAG_LEN);
    rc = rc < 0 ? rc : ct == NULL ? -MERO_ENOMEM : 0;
    if (rc == 0) {
        fill(w, op->enc_nonce, sizeof(op->enc_nonce));
        rc = mero_aes256gcm_seal(ct, plain.data, plain.len, op->group_id, sizeof(op->group_id),
                                 op->enc_nonce, w->key);
    }
    if (rc == 0) {
        op->ciphertext = ct;
        op->ciphertext_len = plain.len + MERO_AEAD_TAG_LEN;
        ct = NULL;
        mero_group_key_id(op->key_id, w->key);
        op->scope = MERO_SCOPE_GROUP_ENCRYPTED;
    }
    free(ct);
    mero_buf_cleanup(&plain);
    return rc;
}

static int admin_id(struct world *w)
{
    return (int)pick(w, (unsigned)w->nadmins); /* ID_A, ID_B, ID_C */
}

/* A signer that held a row from the base on: an Admin, or (pct % of the time) a base member. */
static int signer_id(struct world *w, unsigned member_pct)
{
    return chance(w, member_pct) ? ID_M1 + (int)pick(w, 3) : admin_id(w);
}

/* A target: often one an earlier concurrent op already names, so ops on one
 * identity meet; else a fresh identity (fresh_pct %), else any identity but the TEE (rarely
 * the TEE). */
static int target_id(struct world *w, unsigned fresh_pct)
{
    if (w->profile == P_ADMINS && chance(w, 45)) {
        return (int)pick(w, (unsigned)w->nadmins); /* A, B, C */
    }
    size_t k = w->nbase + pick(w, (unsigned)(w->n - w->nbase + 1));
    int t = -1;
    if (k < w->n && w->op[k].member >= 0 && chance(w, 30)) {
        t = w->op[k].member;
    } else if (chance(w, fresh_pct)) {
        t = ID_N1 + (int)pick(w, 5);
    } else if (chance(w, 6)) {
        t = ID_T;
    } else {
        t = (int)pick(w, ID_N5 + 1);
    }
    t = t == ID_C && w->nadmins < 3 ? ID_M1 : t;
    /* the additions-only profile keeps its Admins: an Admin added with a plain role is a
     * demotion, an authority change in disguise */
    return w->profile == P_ADDS && t < w->nadmins ? ID_M2 : t;
}

static int group_id(struct world *w)
{
    unsigned r = pick(w, 100);
    if (weights[w->profile][K_GROUP] == 0) {
        return r < 75 ? G_ROOT : G_1; /* G2 is never created there */
    }
    return r < 65 ? G_ROOT : r < 88 ? G_1 : G_2;
}

static int plain_role(struct world *w, unsigned admin_pct)
{
    if (chance(w, admin_pct)) {
        return MERO_ROLE_ADMIN;
    }
    return chance(w, 55) ? MERO_ROLE_MEMBER : MERO_ROLE_READONLY;
}

static void tee_join_facts(struct mero_tee_join *j, const uint8_t quote_hash[32], int role)
{
    memcpy(j->quote_hash, quote_hash, sizeof(j->quote_hash));
    govt_meas(j->m.mrtd, 0);
    for (int i = 0; i < 4; i++) {
        govt_meas(j->m.rtmr[i], 0);
    }
    snprintf(j->tcb_status, sizeof(j->tcb_status), "%s", MERO_TCB_STATUS_MOCK);
    j->role = (uint8_t)role;
}

/* One random op of `kind`, signed over what its signer's node holds. */
static int gen_op(struct world *w, int kind)
{
    struct mero_op op;
    mero_op_init(&op);
    op.scope = MERO_SCOPE_GROUP;
    int signer, member = -1, g = -1, role = -1;
    switch (kind) {
    case K_ADD: {
        signer = signer_id(w, 12);
        g = group_id(w);
        member = target_id(w, 60);
        /* now and then the member of an earlier addition again, in its group: two admins adding
         * one member concurrently (a rewrite, when it is not an Admin role) */
        size_t again = w->nbase + pick(w, (unsigned)(w->n - w->nbase + 1));
        if (again < w->n && w->op[again].kind == K_ADD &&
            chance(w, w->profile == P_ADDS ? 60 : 35)) {
            member = w->op[again].member;
            g = w->op[again].grp;
        }
        /* an Admin adding itself with another role steps down (unless it is the last one) */
        bool down = signer < w->nadmins && w->profile != P_ADDS &&
                    chance(w, w->profile == P_ADMINS ? 25 : 6);
        member = down ? signer : member == signer ? ID_N1 + (int)pick(w, 5) : member;
        role = plain_role(w, down                     ? 0
                             : w->profile == P_ADMINS ? 35
                             : w->profile == P_ADDS   ? 5
                                                      : 15);
        op.kind = MERO_GROUP_MEMBER_ADDED;
        break;
    }
    case K_REMOVE:
        signer = signer_id(w, 8);
        g = group_id(w);
        member = target_id(w, 25);
        op.kind = MERO_GROUP_MEMBER_REMOVED;
        if (chance(w, 30)) {
            /* a rotation wrapping the new key for one or two identities; one that is no member
             * of the group at the removal's place, or the removed one, refuses it there */
            op.has_rotation = true;
            fill(w, op.rotation.new_key_id, sizeof(op.rotation.new_key_id));
            op.rotation.n = 1 + pick(w, 2);
            op.rotation.env = calloc(op.rotation.n, sizeof(*op.rotation.env));
            if (op.rotation.env == NULL) {
                mero_op_cleanup(&op);
                return -MERO_ENOMEM;
            }
            for (uint32_t i = 0; i < op.rotation.n; i++) {
                int to = chance(w, 10) ? member : (int)pick(w, ID_M3 + 1);
                int rc = envelope(w, &op.rotation.env[i], g, signer, to);
                if (rc < 0) {
                    mero_op_cleanup(&op);
                    return rc;
                }
            }
        }
        break;
    case K_ROLE_SET:
        signer = signer_id(w, 8);
        g = group_id(w);
        member = chance(w, w->profile == P_ADMINS ? 20 : 5) ? signer : target_id(w, 25);
        role = member == ID_T ? (chance(w, 50) ? MERO_ROLE_READONLY_TEE : MERO_ROLE_RELAY_TEE)
                              : plain_role(w, 30);
        op.kind = MERO_GROUP_MEMBER_ROLE_SET;
        break;
    case K_ADMIN_CHANGED:
        signer = signer_id(w, 8);
        member = target_id(w, 35);
        g = G_ROOT;
        role = MERO_ROLE_ADMIN;
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_ADMIN_CHANGED;
        break;
    case K_LEFT:
        signer = signer_id(w, 60);
        g = chance(w, 75) ? G_ROOT : G_1;
        op.kind = MERO_GROUP_MEMBER_LEFT;
        break;
    case K_CONTEXT:
        signer = signer_id(w, 40);
        g = group_id(w);
        op.kind = MERO_GROUP_CONTEXT_CREATED;
        role = (int)pick(w, NCTX); /* the context's index, for the report */
        memcpy(op.context_id, w->ctx[role], sizeof(op.context_id));
        fill(w, op.application_id, sizeof(op.application_id));
        break;
    case K_FOLLOW:
        signer = signer_id(w, 40);
        g = group_id(w);
        member = chance(w, 50) ? signer : target_id(w, 30);
        op.kind = MERO_GROUP_MEMBER_SET_AUTO_FOLLOW;
        op.follow_contexts = chance(w, 50);
        op.follow_subgroups = chance(w, 50);
        break;
    case K_KEY:
        signer = signer_id(w, 10);
        g = group_id(w);
        member = target_id(w, 40);
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_KEY_DELIVERY;
        memcpy(op.kd_group, w->grp[g], sizeof(op.kd_group));
        if (envelope(w, &op.envelope, g, signer, member) < 0) {
            mero_op_cleanup(&op);
            return -MERO_ECRYPTO;
        }
        break;
    case K_GROUP:
        signer = signer_id(w, 10);
        g = G_2;
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_GROUP_CREATED;
        memcpy(op.sub_group, w->grp[G_2], sizeof(op.sub_group));
        memcpy(op.sub_parent, w->grp[chance(w, 60) ? G_ROOT : G_1], sizeof(op.sub_parent));
        op.visibility = (uint8_t)pick(w, 2);
        break;
    case K_POLICY: {
        signer = signer_id(w, 8);
        g = G_ROOT;
        role = chance(w, 60) ? MERO_TEE_MODE_REPLICA : MERO_TEE_MODE_RELAY;
        op.kind = MERO_GROUP_TEE_POLICY_SET_V2;
        int rc = govt_policy(&op.policy, role, chance(w, 90));
        if (rc < 0) {
            mero_op_cleanup(&op);
            return rc;
        }
        break;
    }
    case K_TEE_ROOT:
    case K_TEE_SUB:
    case K_SEALED: {
        signer = signer_id(w, 5);
        member = ID_T;
        g = kind == K_TEE_ROOT ? G_ROOT : G_1;
        role = chance(w, 80) ? MERO_ROLE_READONLY_TEE : MERO_ROLE_RELAY_TEE;
        uint8_t qh[32];
        if (kind == K_TEE_ROOT) {
            op.scope = MERO_SCOPE_ROOT;
            op.kind = MERO_ROOT_MEMBER_JOINED_TEE;
            mero_sha256(qh, w->tee_quote, sizeof(w->tee_quote));
            op.join.has_account = true;
            op.join.account = w->tee_cred;
            op.join.quote = malloc(sizeof(w->tee_quote));
            if (op.join.quote == NULL) {
                mero_op_cleanup(&op);
                return -MERO_ENOMEM;
            }
            memcpy(op.join.quote, w->tee_quote, sizeof(w->tee_quote));
            op.join.quote_len = sizeof(w->tee_quote);
        } else {
            op.kind = MERO_GROUP_MEMBER_JOINED_TEE;
            fill(w, qh, sizeof(qh)); /* the subgroup form carries only the quote's hash */
        }
        memcpy(op.join.group_id, w->grp[g], sizeof(op.join.group_id));
        memcpy(op.join.member, w->pk[ID_T], sizeof(op.join.member));
        tee_join_facts(&op.join, qh, role);
        if (kind == K_SEALED) {
            /* the form an admitter holding the namespace key publishes; no peer here holds it
             * until an order hands it over (feed's key_at), so until then it is deferred */
            memcpy(op.group_id, w->grp[g], sizeof(op.group_id));
            int rc = seal(w, &op);
            if (rc < 0) {
                mero_op_cleanup(&op);
                return rc;
            }
        }
        break;
    }
    default:
        mero_op_cleanup(&op);
        return -MERO_EINVAL;
    }
    if (op.scope == MERO_SCOPE_GROUP) {
        memcpy(op.group_id, w->grp[g], sizeof(op.group_id));
    }
    if (member >= 0 && kind != K_KEY && kind != K_TEE_ROOT && kind != K_TEE_SUB &&
        kind != K_SEALED) {
        memcpy(op.member, w->pk[member], sizeof(op.member));
    }
    if (kind == K_ADD || kind == K_ROLE_SET) {
        op.role = (uint8_t)role;
    }
    /* the frontier: what the signer's node holds (its own ops included, as a node signs over
     * its heads), now and then after a pull of some other op's ancestry or of everything */
    uint64_t view = w->view[signer];
    if (chance(w, 40)) {
        view |= w->op[w->nbase - 1 + pick(w, (unsigned)(w->n - w->nbase + 1))].anc;
    } else if (chance(w, 12)) {
        view = (1ULL << w->n) - 1;
    }
    MERO_TRY(emit(w, &op, kind, signer, member, g, role, view));
    w->view[signer] = w->op[w->n - 1].anc;
    return 0;
}

/* A plain MemberAdded of member into group g, signed by signer over view. */
static int add_op(struct world *w, int signer, int member, int g, int role, uint64_t view)
{
    struct mero_op op;
    mero_op_init(&op);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_ADDED;
    memcpy(op.group_id, w->grp[g], sizeof(op.group_id));
    memcpy(op.member, w->pk[member], sizeof(op.member));
    op.role = (uint8_t)role;
    return emit(w, &op, K_ADD, signer, member, g, role, view);
}

/* The base chain, each op over the previous one. */
static int gen_base(struct world *w)
{
    struct mero_op op;
    uint8_t salt[MERO_NS_SALT_LEN];
    fill(w, salt, sizeof(salt));
    mero__gov_ns_id(w->ns, w->pk[ID_A], salt);
    memcpy(w->grp[G_ROOT], w->ns, sizeof(w->ns));
    mero_op_init(&op);
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_NAMESPACE_CREATED;
    memcpy(op.salt, salt, sizeof(salt));
    MERO_TRY(emit(w, &op, K_NS, ID_A, ID_A, G_ROOT, MERO_ROLE_ADMIN, 0));
    for (int i = ID_B; i < w->nadmins; i++) {
        mero_op_init(&op);
        op.scope = MERO_SCOPE_ROOT;
        op.kind = MERO_ROOT_ADMIN_CHANGED;
        memcpy(op.member, w->pk[i], sizeof(op.member));
        MERO_TRY(
            emit(w, &op, K_ADMIN_CHANGED, ID_A, i, G_ROOT, MERO_ROLE_ADMIN, w->op[w->n - 1].anc));
    }
    const int mrole[3] = {MERO_ROLE_MEMBER, MERO_ROLE_READONLY, MERO_ROLE_MEMBER};
    for (int i = 0; i < 3; i++) {
        MERO_TRY(add_op(w, i == 2 ? ID_B : ID_A, ID_M1 + i, G_ROOT, mrole[i], w->op[w->n - 1].anc));
    }
    mero_op_init(&op);
    op.scope = MERO_SCOPE_ROOT;
    op.kind = MERO_ROOT_GROUP_CREATED;
    memcpy(op.sub_group, w->grp[G_1], sizeof(op.sub_group));
    memcpy(op.sub_parent, w->ns, sizeof(op.sub_parent));
    op.visibility = (uint8_t)pick(w, 2);
    MERO_TRY(emit(w, &op, K_GROUP, ID_A, -1, G_1, -1, w->op[w->n - 1].anc));
    MERO_TRY(add_op(w, ID_A, ID_M1, G_1, MERO_ROLE_MEMBER, w->op[w->n - 1].anc));
    mero_op_init(&op);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_POLICY_SET_V2;
    memcpy(op.group_id, w->ns, sizeof(op.group_id));
    int rc = govt_policy(&op.policy, MERO_TEE_MODE_REPLICA, true);
    if (rc < 0) {
        mero_op_cleanup(&op);
        return rc;
    }
    MERO_TRY(emit(w, &op, K_POLICY, ID_A, -1, G_ROOT, MERO_TEE_MODE_REPLICA, w->op[w->n - 1].anc));
    w->nbase = w->n;
    for (int i = 0; i < NID; i++) {
        w->view[i] = w->op[w->n - 1].anc;
    }
    return 0;
}

static void world_free(struct world *w)
{
    for (size_t i = 0; i < w->n; i++) {
        mero_buf_cleanup(&w->op[i].b);
    }
    w->n = 0;
}

/* Everything of a set from its seed: identities, ids, the TEE's credential and mock quote (its
 * report data binds the root admission), the base, then the concurrent ops. */
static int world_gen(struct world *w, uint64_t seed)
{
    memset(w, 0, sizeof(*w));
    w->st = splitmix(seed);
    for (int i = 0; i < NID; i++) {
        uint8_t s[MERO_ED25519_SEED_LEN];
        fill(w, s, sizeof(s));
        mero_ed25519_from_seed(w->pk[i], w->sk[i], s);
    }
    w->nadmins = chance(w, 50) ? 3 : 2;
    w->profile = (int)(seed % NPROFILE); /* consecutive sets go through the profiles */
    fill(w, w->key, sizeof(w->key));
    fill(w, w->grp[G_1], MERO_GROUP_ID_LEN);
    fill(w, w->grp[G_2], MERO_GROUP_ID_LEN);
    for (int i = 0; i < NCTX; i++) {
        fill(w, w->ctx[i], MERO_CONTEXT_ID_LEN);
    }
    MERO_TRY(gen_base(w));
    /* the TEE: an account root of its own certifies its identity; the quote binds (ns, root) */
    uint8_t root_seed[MERO_ED25519_SEED_LEN], root_pk[32], root_sk[64], device[32], kem[32];
    uint8_t binding[32], rd[MERO_REPORT_DATA_LEN];
    fill(w, root_seed, sizeof(root_seed));
    mero_ed25519_from_seed(root_pk, root_sk, root_seed);
    mero_device_id(device, root_pk);
    MERO_TRY(mero_kem_pk_from_ed25519(kem, w->pk[ID_T]));
    mero_credential_build(&w->tee_cred, root_sk, device, w->pk[ID_T], kem, 0, 0);
    mero_admission_binding(binding, w->ns, w->ns, w->pk[ID_T], w->tee_cred.cert.account, kem,
                           device);
    fill(w, rd, 32);
    memcpy(rd + 32, binding, 32);
    mero_mock_quote_create(w->tee_quote, rd);
    size_t extra = 15 + pick(w, 16);
    unsigned total = 0;
    for (int k = K_ADD; k < NKIND; k++) {
        total += weights[w->profile][k];
    }
    for (size_t i = 0; i < extra; i++) {
        unsigned r = pick(w, total);
        int k = K_ADD;
        while (r >= weights[w->profile][k]) {
            r -= weights[w->profile][k++];
        }
        MERO_TRY(gen_op(w, k));
    }
    if (w->profile == P_ADDS) {
        /* last, A and B (synced) add one fresh member at once with two plain roles: the
         * orders that deliver the one sorting first last judge it as a rewrite */
        int m = ID_N1 + (int)pick(w, 5), g = chance(w, 75) ? G_ROOT : G_1;
        int first = chance(w, 50) ? MERO_ROLE_MEMBER : MERO_ROLE_READONLY;
        uint64_t all = (1ULL << w->n) - 1;
        MERO_TRY(add_op(w, ID_A, m, g, first, all));
        MERO_TRY(add_op(w, ID_B, m, g, MERO_ROLE_MEMBER + MERO_ROLE_READONLY - first, all));
    }
    return 0;
}

/* ---- feeding peers ------------------------------------------------------------------------ */

/*
 * The membership the peer's events report: MemberAdded, MemberRoleSet and AdminChanged write a
 * row, MemberRemoved and TeeMemberRemoved take it away. The events of one apply are held until
 * it returns (tally_commit): a full re-fold reports the net change of the rows through the diff
 * (fold_diff.c), so there its AdminChanged, the late op's own event, is left out - whether a
 * re-fold should report it at all is a_late_admin_change_undone_by_a_later_removal_...'s
 * question, asked on its own below.
 */
#define PENDING_MAX 64
struct tally_ev {
    int kind, role;
    uint8_t grp[MERO_GROUP_ID_LEN], member[MERO_IDENTITY_LEN];
};
struct tally {
    size_t n, npending;
    bool overflow;
    struct tally_ev row[TALLY_MAX];
    struct tally_ev pending[PENDING_MAX];
};

static void tally_event(void *ud, const struct mero_gov_event *e)
{
    struct tally *t = ud;
    bool put = e->kind == MERO_EV_MEMBER_ADDED || e->kind == MERO_EV_MEMBER_ROLE_SET ||
               e->kind == MERO_EV_ADMIN_CHANGED;
    bool del = e->kind == MERO_EV_MEMBER_REMOVED || e->kind == MERO_EV_TEE_MEMBER_REMOVED;
    if ((!put && !del) || e->group == NULL || e->member == NULL) {
        return;
    }
    if (t->npending == PENDING_MAX) {
        t->overflow = true;
        return;
    }
    struct tally_ev *p = &t->pending[t->npending++];
    p->kind = e->kind;
    p->role = e->role;
    memcpy(p->grp, e->group, MERO_GROUP_ID_LEN);
    memcpy(p->member, e->member, MERO_IDENTITY_LEN);
}

static void tally_commit(struct tally *t)
{
    for (size_t k = 0; k < t->npending; k++) {
        const struct tally_ev *e = &t->pending[k];
        size_t i = 0;
        while (i < t->n && (memcmp(t->row[i].grp, e->grp, MERO_GROUP_ID_LEN) != 0 ||
                            memcmp(t->row[i].member, e->member, MERO_IDENTITY_LEN) != 0)) {
            i++;
        }
        if (e->kind == MERO_EV_MEMBER_REMOVED || e->kind == MERO_EV_TEE_MEMBER_REMOVED) {
            if (i < t->n) {
                t->row[i] = t->row[--t->n];
            }
            continue;
        }
        if (i == t->n) {
            if (t->n == TALLY_MAX) {
                t->overflow = true;
                continue;
            }
            t->row[t->n++] = *e;
        }
        t->row[i].role = e->role;
    }
    t->npending = 0;
}

static const char *who(const struct world *w, const uint8_t *pk)
{
    for (int i = 0; i < NID; i++) {
        if (memcmp(w->pk[i], pk, MERO_IDENTITY_LEN) == 0) {
            return id_name[i];
        }
    }
    return "?";
}

static const char *which_group(const struct world *w, const uint8_t *g)
{
    for (int i = 0; i < NGRP; i++) {
        if (memcmp(w->grp[i], g, MERO_GROUP_ID_LEN) == 0) {
            return grp_name[i];
        }
    }
    return "?";
}

/* The tally equals the member rows of every group of the namespace. */
static int tally_check(const struct world *w, struct mero_store *s, const struct tally *t,
                       struct mero_err *err)
{
    uint8_t(*groups)[MERO_GROUP_ID_LEN] = NULL;
    size_t ng = 0, rows = 0;
    int rc = 0;
    MERO_ENSURE(!t->overflow, err, MERO_ENOMEM, "more than %d membership rows", TALLY_MAX);
    MERO_TRY(mero_gov_groups(s, w->ns, &groups, &ng));
    for (size_t g = 0; g < ng && rc == 0; g++) {
        struct mero_gov_member *m = NULL;
        size_t nm = 0;
        rc = mero_gov_members(s, groups[g], &m, &nm);
        for (size_t i = 0; i < nm && rc == 0; i++) {
            size_t k = 0;
            while (k < t->n && (memcmp(t->row[k].grp, groups[g], MERO_GROUP_ID_LEN) != 0 ||
                                memcmp(t->row[k].member, m[i].id, MERO_IDENTITY_LEN) != 0)) {
                k++;
            }
            if (k == t->n || t->row[k].role != m[i].role) {
                rc = mero_err_set(
                    err, MERO_ESTATE, "events: %s in %s is %s in the rows, %s by the events",
                    who(w, m[i].id), which_group(w, groups[g]), mero_role_name(m[i].role),
                    k == t->n ? "absent" : mero_role_name(t->row[k].role));
            }
            rows++;
        }
        free(m);
    }
    free(groups);
    MERO_TRY(rc);
    for (size_t k = 0; k < t->n && rows != t->n; k++) {
        int r = MERO_ROLE_NONE;
        MERO_TRY(mero_gov_direct_role(s, t->row[k].grp, t->row[k].member, &r));
        MERO_ENSURE(r != MERO_ROLE_NONE, err, MERO_ESTATE,
                    "events: %s in %s is %s by the events, absent in the rows",
                    who(w, t->row[k].member), which_group(w, t->row[k].grp),
                    mero_role_name(t->row[k].role));
    }
    MERO_ENSURE(rows == t->n, err, MERO_ESTATE, "events: %zu rows, %zu by the events", rows, t->n);
    return 0;
}

/* Whether op x, which just took the fast path, was rewritten: an effective later MemberAdded of
 * its member in its group (not Admin, not signed by that member) is stored. */
static bool rewritten(const struct world *w, struct mero_store *s, size_t x, uint64_t held)
{
    const struct gop *o = &w->op[x];
    if (o->kind != K_ADD) {
        return false;
    }
    for (size_t i = 0; i < w->n; i++) {
        const struct gop *y = &w->op[i];
        int state = -1;
        if (!(held >> i & 1) || i == x || y->kind != K_ADD || y->grp != o->grp ||
            y->member != o->member || y->role == MERO_ROLE_ADMIN || y->signer == o->member ||
            place_cmp(y, o) <= 0) {
            continue;
        }
        if (mero_gov_op_state(s, y->hash, &state, NULL, 0) == 0 && state == MERO_OP_EFFECTIVE) {
            return true;
        }
    }
    return false;
}

/* What one peer ended with. */
struct fed {
    struct mero_buf dump, rebuilt;
    bool has_admin;
    size_t at; /* SIZE_MAX, or the delivery step after which the rows and a rebuild's differed
                * (dump and rebuilt then hold those two) */
    bool done; /* every op applied and every check passed: dump and rebuilt are the end's */
};

static void fed_init(struct fed *f)
{
    mero_buf_init(&f->dump, DUMP_CAP);
    mero_buf_init(&f->rebuilt, DUMP_CAP);
    f->has_admin = false;
    f->at = SIZE_MAX;
    f->done = false;
}

/* The peer's rows now, and a rebuild's (the full fold of the ops it holds; the store keeps the
 * rebuilt tables), into f. */
static int dump_and_rebuild(struct mero_store *s, struct fed *f, struct mero_err *err)
{
    mero_buf_reset(&f->dump);
    mero_buf_reset(&f->rebuilt);
    MERO_TRY(mero_gov_dump(s, &f->dump));
    MERO_TRY(mero_gov_rebuild(s, err));
    return mero_gov_dump(s, &f->rebuilt);
}

static void fed_free(struct fed *f)
{
    mero_buf_cleanup(&f->dump);
    mero_buf_cleanup(&f->rebuilt);
}

/*
 * A fresh peer applies the ops order[0..n) (each after its parents), and receives the namespace
 * key (mero_gov_group_key_put, as a key pull answers) just before order[key_at] (key_at == n:
 * after the last op; SIZE_MAX: never). Then: its dump, the events tallied against its rows,
 * whether the root keeps an Admin, and its dump after a rebuild. Counters into c (may be NULL).
 * In the canonical order no op may be late.
 */
static int feed(const struct world *w, const size_t *order, size_t n, size_t key_at, bool canonical,
                struct fed *f, struct counts *c, struct mero_err *err)
{
    struct govt_node p;
    struct tally *t = calloc(1, sizeof(*t));
    uint64_t held = 0;
    int rc = 0;
    MERO_ENSURE(t != NULL, err, MERO_ENOMEM, "tally");
    f->at = SIZE_MAX;
    f->has_admin = false;
    f->done = false;
    MERO_TRY_OUT(govt_open(&p));
    struct mero_gov_hooks h = {.ud = t, .on_event = tally_event};
    mero_store_set_hooks(p.s, &h);
    for (size_t i = 0; i <= n; i++) {
        if (i == key_at) {
            MERO_TRY_OUT(mero_gov_group_key_put(p.s, w->ns, w->key));
            tally_commit(t);
            if (c != NULL) {
                c->keys++;
            }
        }
        if (i == n) {
            break;
        }
        const struct gop *o = &w->op[order[i]];
        uint64_t fast0 = p.s->late_fast, refolds0 = p.s->late_refolds;
        int status = -1;
        struct mero_err e = {0};
        int r = mero_gov_apply(p.s, o->b.data, o->b.len, &status, NULL, NULL, &e);
        MERO_ENSURE_OUT(r >= 0 || status == MERO_APPLY_REJECTED, err, -r > 0 ? -r : MERO_ESTATE,
                        "op #%zu (%s by %s), delivered %zu-th, not stored: %s", order[i],
                        kind_name[o->kind], id_name[o->signer], i, e.msg);
        MERO_ENSURE_OUT(status == MERO_APPLY_APPLIED || status == MERO_APPLY_REJECTED, err,
                        MERO_ESTATE, "op #%zu: apply status %d", order[i], status);
        tally_commit(t);
        held |= 1ULL << order[i];
        if (p.s->late_fast > fast0 || p.s->late_refolds > refolds0) {
            /* a late op: its shortcut's rows against the full fold's, before a later re-fold
             * can cover a wrong row up again; and the events so far against the rows */
            MERO_TRY_OUT(dump_and_rebuild(p.s, f, err));
            if (!govt_same_buf(&f->dump, &f->rebuilt)) {
                f->at = i;
                rc =
                    mero_err_set(err, MERO_ESTATE,
                                 "after op #%zu (%s by %s, delivered %zu-th, late: %s) the rows "
                                 "differ from a rebuild's",
                                 order[i], kind_name[o->kind], id_name[o->signer], i,
                                 p.s->late_fast > fast0 ? "judged without a re-fold" : "re-folded");
                goto out;
            }
            MERO_TRY_OUT(tally_check(w, p.s, t, err));
        }
        if (c != NULL) {
            c->ops++;
            c->rejected += status == MERO_APPLY_REJECTED;
            c->rewrites += p.s->late_fast > fast0 && rewritten(w, p.s, order[i], held);
        }
    }
    MERO_ENSURE_OUT(!canonical || (p.s->late_fast == 0 && p.s->late_refolds == 0), err, MERO_ESTATE,
                    "the canonical order had late ops (%llu fast, %llu re-folded)",
                    (unsigned long long)p.s->late_fast, (unsigned long long)p.s->late_refolds);
    mero_buf_reset(&f->dump);
    MERO_TRY_OUT(mero_gov_dump(p.s, &f->dump));
    MERO_TRY_OUT(tally_check(w, p.s, t, err));
    struct mero_gov_member *m = NULL;
    size_t nm = 0;
    MERO_TRY_OUT(mero_gov_members(p.s, w->ns, &m, &nm));
    for (size_t i = 0; i < nm; i++) {
        f->has_admin = f->has_admin || m[i].role == MERO_ROLE_ADMIN;
    }
    free(m);
    mero_buf_reset(&f->rebuilt);
    MERO_TRY_OUT(mero_gov_rebuild(p.s, err));
    MERO_TRY_OUT(mero_gov_dump(p.s, &f->rebuilt));
    f->done = true;
    if (c != NULL) {
        c->feeds++;
        c->late_fast += p.s->late_fast;
        c->refolds += p.s->late_refolds;
        c->replayed += p.s->refold_replayed;
    }
out:
    if (p.s != NULL) {
        govt_close(&p);
    }
    free(t);
    return rc;
}

/* The ops of mask in canonical order. */
static size_t canonical_order(const struct world *w, uint64_t mask, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (mask >> i & 1) {
            size_t k = n++;
            while (k > 0 && place_cmp(&w->op[order[k - 1]], &w->op[i]) > 0) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = i;
        }
    }
    return n;
}

/* A random delivery order of the ops of mask: each op gets a random priority, and the next op
 * delivered is the ready one (every parent delivered) of highest priority. */
static size_t random_order(const struct world *w, uint64_t mask, uint64_t *st, size_t *order)
{
    uint64_t prio[MAX_OPS], held = 0;
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++) {
        prio[i] = govt_rnd(st);
    }
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < w->n; i++) {
            uint64_t bit = 1ULL << i;
            bool ready = (mask & bit) && !(held & bit) && ((w->op[i].anc & ~bit) & ~held) == 0;
            if (ready && (best == SIZE_MAX || prio[i] > prio[best])) {
                best = i;
            }
        }
        if (best == SIZE_MAX) {
            return n;
        }
        held |= 1ULL << best;
        order[n++] = best;
    }
}

/* ---- reports ------------------------------------------------------------------------------ */

static void describe(const struct world *w, uint64_t mask)
{
    struct govt_node p;
    size_t order[MAX_OPS];
    size_t n = canonical_order(w, mask, order);
    bool open = govt_open(&p) == 0;
    for (size_t i = 0; open && i < n; i++) {
        int r = mero_gov_apply(p.s, w->op[order[i]].b.data, w->op[order[i]].b.len, NULL, NULL, NULL,
                               NULL);
        (void)r; /* refused ops are kept: their outcome is read below */
    }
    printf("# the set (%zu ops, %d admins, profile %d), in canonical order; outcome at its "
           "place:\n",
           n, w->nadmins, w->profile);
    for (size_t k = 0; k < n; k++) {
        const struct gop *o = &w->op[order[k]];
        char parents[160] = "", what[96] = "", why[128] = "";
        size_t off = 0;
        for (size_t j = 0; j < w->n && off < sizeof(parents) - 8; j++) {
            bool covered = !(o->anc >> j & 1) || j == order[k];
            for (size_t i = 0; i < w->n && !covered; i++) {
                covered = i != order[k] && i != j && (o->anc >> i & 1) && (w->op[i].anc >> j & 1);
            }
            if (!covered) {
                off += (size_t)snprintf(parents + off, sizeof(parents) - off, "%s#%zu",
                                        off ? "," : "", j);
            }
        }
        if (o->kind == K_CONTEXT) {
            snprintf(what, sizeof(what), "ctx%d in %s", o->role, grp_name[o->grp]);
        } else if (o->kind == K_POLICY) {
            snprintf(what, sizeof(what), "%s",
                     o->role == MERO_TEE_MODE_RELAY ? "relay" : "replica");
        } else if (o->kind == K_GROUP) {
            snprintf(what, sizeof(what), "%s", grp_name[o->grp]);
        } else {
            snprintf(what, sizeof(what), "%s%s%s%s%s", o->member >= 0 ? id_name[o->member] : "",
                     o->grp >= 0 ? " in " : "", o->grp >= 0 ? grp_name[o->grp] : "",
                     o->role >= 0 && o->kind != K_LEFT ? " " : "",
                     o->role >= 0 && o->kind != K_LEFT ? mero_role_name(o->role) : "");
        }
        int state = -1;
        if (open) {
            if (mero_gov_op_state(p.s, o->hash, &state, why, sizeof(why)) < 0) {
                state = -1;
            }
        }
        printf("#   #%-2zu d%-2llu c%d %02x%02x  %-2s %s %s  <- %s : %s%s%s\n", order[k],
               (unsigned long long)o->depth, o->cls, o->hash[0], o->hash[1], id_name[o->signer],
               kind_name[o->kind], what, parents,
               state == MERO_OP_EFFECTIVE  ? "effective"
               : state == MERO_OP_REJECTED ? "rejected"
               : state == MERO_OP_DEFERRED ? "deferred (no key)"
                                           : "?",
               state == MERO_OP_REJECTED ? ": " : "", state == MERO_OP_REJECTED ? why : "");
    }
    if (open) {
        govt_close(&p);
    }
}

static void print_order(const size_t *order, size_t n, size_t key_at)
{
    char line[400];
    size_t off = 0;
    for (size_t i = 0; i <= n && off < sizeof(line) - 12; i++) {
        if (i == key_at) {
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%sKEY", i ? " " : "");
        }
        if (i < n) {
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%zu",
                                    i || i == key_at ? " " : "", order[i]);
        }
    }
    printf("# delivery order: %s\n", line);
}

/* The rows of one dump that the other lacks ("-": only in x, "+": only in y), table named. */
/* A dump row with the ids it names (64 hex digits) replaced by the set's names for them: A,
 * N3, root, G1, #12 (an op), ... */
static void named_row(const struct world *w, const char *p, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < cap;) {
        const char *name = NULL;
        char hex[65], num[16];
        for (int k = 0; i + 64 <= len && name == NULL && k < NID + NGRP + (int)w->n; k++) {
            const uint8_t *id = k < NID          ? w->pk[k]
                                : k < NID + NGRP ? w->grp[k - NID]
                                                 : w->op[k - NID - NGRP].hash;
            for (int b = 0; b < 32; b++) {
                snprintf(hex + 2 * b, 3, "%02x", id[b]);
            }
            if (memcmp(p + i, hex, 64) == 0) {
                snprintf(num, sizeof(num), "#%d", k - NID - NGRP);
                name = k < NID ? id_name[k] : k < NID + NGRP ? grp_name[k - NID] : num;
            }
        }
        if (name != NULL) {
            o += (size_t)snprintf(out + o, cap - o, "%s", name);
            i += 64;
        } else {
            out[o++] = p[i++];
        }
        o = o < cap ? o : cap - 1;
    }
    out[o] = 0;
}

/* The rows of one dump that the other lacks ("-": only in x, "+": only in y), table named. */
static void print_diff(const struct world *w, const struct mero_buf *x, const struct mero_buf *y,
                       const char *xn, const char *yn)
{
    printf("# rows that differ (- %s, + %s):\n", xn, yn);
    int shown = 0;
    for (int side = 0; side < 2; side++) {
        const struct mero_buf *a = side == 0 ? x : y, *b = side == 0 ? y : x;
        const char *p = (const char *)a->data, *end = p + a->len, *table = "";
        int tlen = 0;
        while (p < end && shown < 24) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
            if (len > 0 && p[0] == '[') {
                table = p;
                tlen = (int)len;
            } else {
                bool found = false;
                const char *q = (const char *)b->data, *qend = q + b->len;
                while (q < qend && !found) {
                    const char *qnl = memchr(q, '\n', (size_t)(qend - q));
                    size_t qlen = qnl != NULL ? (size_t)(qnl - q) : (size_t)(qend - q);
                    found = qlen == len && memcmp(p, q, len) == 0;
                    q += qlen + 1;
                }
                if (!found) {
                    char row[400];
                    named_row(w, p, len, row, sizeof(row));
                    printf("# %c %.*s %s\n", side == 0 ? '-' : '+', tlen, table, row);
                    shown++;
                }
            }
            p += len + 1;
        }
    }
}

/* How the ops of mask, delivered in `full` restricted to mask (the key just before full's
 * key_at-th op), go wrong: 0 not at all, else which check fails (1 the canonical order's feed,
 * 2 the order's feed (events included), 3 its rows differ from the canonical order's, 4 from
 * its rebuild, 5 the canonical rebuild, 6 no admin left, 7 the rows after a late op differ from
 * a rebuild's); msg gets the feed's reason. */
static int diverges(const struct world *w, uint64_t mask, const size_t *full, size_t nfull,
                    size_t key_at, struct fed *ref, struct fed *got, struct mero_err *msg)
{
    size_t order[MAX_OPS], n = 0, canon[MAX_OPS], sub_key = SIZE_MAX;
    for (size_t i = 0; i < nfull; i++) {
        if (i == key_at) {
            sub_key = n;
        }
        if (mask >> full[i] & 1) {
            order[n++] = full[i];
        }
    }
    sub_key = key_at == nfull ? n : sub_key;
    size_t nc = canonical_order(w, mask, canon);
    mero_err_clear(msg);
    mero_buf_reset(&ref->dump);
    mero_buf_reset(&ref->rebuilt);
    mero_buf_reset(&got->dump);
    mero_buf_reset(&got->rebuilt);
    if (feed(w, canon, nc, key_at == SIZE_MAX ? SIZE_MAX : 0, true, ref, NULL, msg) < 0) {
        return 1;
    }
    if (feed(w, order, n, sub_key, false, got, NULL, msg) < 0) {
        return got->at != SIZE_MAX ? 7 : 2;
    }
    return !govt_same_buf(&got->dump, &ref->dump)      ? 3
           : !govt_same_buf(&got->rebuilt, &got->dump) ? 4
           : !govt_same_buf(&ref->rebuilt, &ref->dump) ? 5
           : !got->has_admin || !ref->has_admin        ? 6
                                                       : 0;
}

/* Drop ops (each with its descendants) while the same check fails; print what is left. */
static void reduce_and_report(const struct world *w, const size_t *order, size_t n, size_t key_at)
{
    static const char *const what[8] = {
        "nothing",          "the canonical order's feed", "the order's feed",
        "the order's rows", "the order's rebuild",        "the canonical order's rebuild",
        "no admin is left", "the rows after a late op"};
    const uint64_t all = w->n == 64 ? ~0ULL : (1ULL << w->n) - 1;
    uint64_t mask = all;
    struct fed ref, got;
    struct mero_err msg = {0};
    fed_init(&ref);
    fed_init(&got);
    int how = diverges(w, mask, order, n, key_at, &ref, &got, &msg);
    if (how == 0) {
        printf("# (the divergence did not repeat)\n");
    } else {
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t j = w->n; j-- > w->nbase;) {
                uint64_t m2 = mask;
                for (size_t i = 0; i < w->n; i++) {
                    if (w->op[i].anc >> j & 1) {
                        m2 &= ~(1ULL << i);
                    }
                }
                if ((mask >> j & 1) && diverges(w, m2, order, n, key_at, &ref, &got, &msg) == how) {
                    mask = m2;
                    changed = true;
                }
            }
        }
        how = diverges(w, mask, order, n, key_at, &ref, &got, &msg);
        if (mask == all) {
            printf("# reduced: no op could be dropped (with its descendants) keeping %s's "
                   "failure\n",
                   what[how]);
        } else {
            printf("# reduced: %s fails%s%s\n", what[how], msg.msg[0] ? ": " : "", msg.msg);
            describe(w, mask);
            size_t sub[MAX_OPS], k = 0, sub_key = SIZE_MAX;
            for (size_t i = 0; i < n; i++) {
                sub_key = i == key_at ? k : sub_key;
                if (mask >> order[i] & 1) {
                    sub[k++] = order[i];
                }
            }
            print_order(sub, k, key_at == n ? k : sub_key);
            if (how == 3) {
                print_diff(w, &ref.dump, &got.dump, "canonical order", "this order");
            } else if (how == 4 || how == 7) {
                print_diff(w, &got.rebuilt, &got.dump, "rebuild", "this order");
            }
        }
    }
    fed_free(&ref);
    fed_free(&got);
}

/* ---- the test ----------------------------------------------------------------------------- */

/* One set: the canonical order (without the namespace key, and, where the set holds encrypted
 * ops, with it from the start), then `orders` random ones, half of those handed the key at a
 * random point where the set holds encrypted ops; each checked as the header says. */
static int run_set(uint64_t seed, size_t orders, struct counts *c, struct mero_err *err)
{
    struct world *w = calloc(1, sizeof(*w));
    struct fed ref, ref_key, got;
    size_t order[MAX_OPS], n;
    int rc = 0;
    bool sealed = false;
    MERO_ENSURE(w != NULL, err, MERO_ENOMEM, "world");
    fed_init(&ref);
    fed_init(&ref_key);
    fed_init(&got);
    MERO_TRY_OUT(world_gen(w, seed));
    c->sets++;
    for (size_t i = w->nbase; i < w->n; i++) {
        c->kinds[w->op[i].kind]++;
        sealed = sealed || w->op[i].kind == K_SEALED;
    }
    uint64_t all = (1ULL << w->n) - 1;
    n = canonical_order(w, all, order);
    for (int keyed = 0; keyed < (sealed ? 2 : 1) && rc == 0; keyed++) {
        struct fed *r = keyed ? &ref_key : &ref;
        rc = feed(w, order, n, keyed ? 0 : SIZE_MAX, true, r, c, err);
        if (rc == 0 && !govt_same_buf(&r->rebuilt, &r->dump)) {
            rc = mero_err_set(err, MERO_ESTATE, "the canonical order%s differs from its rebuild",
                              keyed ? " (key held)" : "");
        }
        if (rc == 0 && !r->has_admin) {
            rc = mero_err_set(err, MERO_ESTATE, "the namespace root has no Admin left");
        }
    }
    if (rc < 0) {
        describe(w, all);
        goto out;
    }
    uint64_t st = splitmix(seed ^ 0x6f72646572ULL); /* the orders: a stream of their own */
    for (size_t k = 0; k < orders && rc == 0; k++) {
        mero_buf_reset(&got.dump);
        mero_buf_reset(&got.rebuilt);
        n = random_order(w, all, &st, order);
        MERO_ENSURE_OUT(n == w->n, err, MERO_EINTERNAL, "order %zu holds %zu of %zu ops", k, n,
                        w->n);
        size_t key_at =
            sealed && govt_rnd(&st) % 2 == 0 ? (size_t)(govt_rnd(&st) % (n + 1)) : SIZE_MAX;
        const struct fed *want = key_at != SIZE_MAX ? &ref_key : &ref;
        rc = feed(w, order, n, key_at, false, &got, c, err);
        if (rc == 0 && !govt_same_buf(&got.dump, &want->dump)) {
            rc = mero_err_set(err, MERO_ESTATE, "order %zu ends elsewhere than the canonical order",
                              k);
        } else if (rc == 0 && !govt_same_buf(&got.rebuilt, &got.dump)) {
            rc = mero_err_set(err, MERO_ESTATE, "order %zu differs from its own rebuild", k);
        }
        if (rc < 0) {
            printf("# order %zu: %s\n", k, err->msg);
            describe(w, all);
            print_order(order, n, key_at);
            if (got.at != SIZE_MAX) {
                print_diff(w, &got.rebuilt, &got.dump, "rebuild", "this order");
            } else if (got.done && !govt_same_buf(&got.dump, &want->dump)) {
                print_diff(w, &want->dump, &got.dump, "canonical order", "this order");
            }
            reduce_and_report(w, order, n, key_at);
        }
    }
out:
    fed_free(&ref);
    fed_free(&ref_key);
    fed_free(&got);
    world_free(w);
    free(w);
    return rc;
}

static size_t env_count(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    size_t n = v != NULL ? strtoul(v, NULL, 10) : 0;
    return n > 0 ? n : dflt;
}

TEST(random_sets_agree_in_random_orders_with_canonical_and_rebuild)
{
    uint64_t seed = govt_seed("MERO_GOV_FOLD_SEED"); /* seed + k does not wrap */
    size_t sets = env_count("MERO_GOV_FOLD_SETS", DEFAULT_SETS);
    size_t orders = env_count("MERO_GOV_FOLD_ORDERS", DEFAULT_ORDERS);
    printf("# seed %llu (MERO_GOV_FOLD_SEED=%llu reproduces; set k alone: seed + k with "
           "MERO_GOV_FOLD_SETS=1), %zu sets x %zu random orders\n",
           (unsigned long long)seed, (unsigned long long)seed, sets, orders);
    struct counts c = {0};
    struct mero_err e = {0};
    /* every peer without the key logs each deferral: thousands of lines */
    mero_log_set_level(getenv("MERO_TEST_LOG") != NULL ? MERO_LOG_DEBUG : MERO_LOG_ERROR);
    for (size_t k = 0; k < sets; k++) {
        int rc = run_set(seed + k, orders, &c, &e);
        CHECK_MSG(rc == 0, "seed %llu, set %zu (MERO_GOV_FOLD_SEED=%llu MERO_GOV_FOLD_SETS=1): %s",
                  (unsigned long long)seed, k, (unsigned long long)(seed + k), e.msg);
    }
    printf("# %llu sets, %llu peers fed, %llu ops applied (%llu kept without effect)\n",
           (unsigned long long)c.sets, (unsigned long long)c.feeds, (unsigned long long)c.ops,
           (unsigned long long)c.rejected);
    printf("# late ops: %llu judged without a re-fold (%llu of them rewrites), %llu re-folded, "
           "%llu ops replayed by the re-folds; the namespace key handed over %llu times\n",
           (unsigned long long)c.late_fast, (unsigned long long)c.rewrites,
           (unsigned long long)c.refolds, (unsigned long long)c.replayed,
           (unsigned long long)c.keys);
    char kinds[512];
    size_t off = 0;
    for (int k = K_ADD; k < NKIND && off < sizeof(kinds) - 48; k++) {
        off += (size_t)snprintf(kinds + off, sizeof(kinds) - off, "%s%s %llu", off ? ", " : "",
                                kind_name[k], (unsigned long long)c.kinds[k]);
    }
    printf("# concurrent ops drawn: %s\n", kinds);
    /* a run that never takes a shortcut proves nothing about it (a set rerun alone may not) */
    CHECK(c.refolds > 0);
    CHECK(c.replayed > 0);
    CHECK(c.late_fast > 0 || sets < DEFAULT_SETS);
    CHECK(c.rewrites > 0 || sets < DEFAULT_SETS);
}

/*
 * Found by the random sets' events check (an earlier generator, seed 644297738808088979),
 * reduced by hand. The events of a re-fold are its net change of the member rows (fold.c drops
 * the late op's own membership events and fold_diff.c reports the difference); the late op's
 * AdminChanged event was not among the ones dropped. Root Admins A and B and a member N;
 * concurrently A makes N an Admin, and B adds X and then removes N, so B's removal sorts after A's
 * AdminChanged (a greater depth). A peer that holds B's ops first (N's row gone) and gets A's last
 * re-folds: the AdminChanged takes effect at its place, the removal after it, and N ends with no
 * row, as before the re-fold - yet the peer is told that N became an Admin. A peer that gets them
 * in the canonical order is told AdminChanged, then MemberRemoved, and ends the same; the rows
 * agree with a rebuild either way. A re-fold now leaves that event out (its row change, where
 * there is one, is the diff's MemberRoleSet or MemberAdded).
 */
TEST(a_late_admin_change_undone_by_a_later_removal_reports_no_admin_change)
{
    struct govt_node a, b, x;
    struct mero_err e = {0};
    struct mero_gov_oplist l0 = {0}, la = {0}, lb = {0};
    uint8_t n[32], m[32], sk[64];
    mero_ed25519_keypair(n, sk);
    mero_ed25519_keypair(m, sk);
    CHECK_OK(govt_owner_and_admin(&a, &b, &l0, &e));
    CHECK_OK(mero_gov_add_member(a.s, a.ns, a.ns, n, MERO_ROLE_MEMBER, &l0, &e));
    CHECK(govt_sync(&a, &b, a.ns, &e) >= 0);
    CHECK_OK(govt_open(&x));
    memcpy(x.ns, a.ns, 32);
    CHECK(govt_sync(&a, &x, a.ns, &e) >= 0);
    /* concurrently: A makes N an Admin; B adds X, then removes N */
    CHECK_OK(mero_gov_change_admin(a.s, a.ns, n, &la, &e));
    CHECK_OK(mero_gov_add_member(b.s, a.ns, a.ns, m, MERO_ROLE_MEMBER, &lb, &e));
    CHECK_OK(mero_gov_remove_member(b.s, a.ns, a.ns, n, &lb, &e));
    /* x: B's ops first, then A's AdminChanged, late (it sorts before B's removal) */
    CHECK_OK(govt_apply_list(&x, &lb, &e));
    CHECK_EQ(govt_root_role(&x, x.ns, n), MERO_ROLE_NONE);
    uint64_t r0 = x.s->late_refolds;
    govt_clear_events(&x);
    CHECK_OK(govt_apply_list(&x, &la, &e));
    CHECK_EQ(x.s->late_refolds - r0, 1u);
    /* the resolution: the AdminChanged took effect at its place, the removal after it */
    CHECK_EQ(govt_root_role(&x, x.ns, n), MERO_ROLE_NONE);
    CHECK(govt_matches_rebuild(&x));
    /* N's row is gone before and after the re-fold: nothing about N changed */
    size_t added = govt_count(&x, MERO_EV_MEMBER_ADDED, n);
    size_t removed = govt_count(&x, MERO_EV_MEMBER_REMOVED, n);
    size_t admin = govt_count(&x, MERO_EV_ADMIN_CHANGED, n);
    mero_gov_oplist_cleanup(&l0);
    mero_gov_oplist_cleanup(&la);
    mero_gov_oplist_cleanup(&lb);
    govt_close(&x);
    govt_close(&b);
    govt_close(&a);
    CHECK_EQ(added, 0u);
    CHECK_EQ(removed, 0u);
    CHECK_MSG(admin == 0,
              "the re-fold reported that N became an Admin, but N holds no row after it");
}

MERO_TEST_MAIN(T(random_sets_agree_in_random_orders_with_canonical_and_rebuild),
               T(a_late_admin_change_undone_by_a_later_removal_reports_no_admin_change))
