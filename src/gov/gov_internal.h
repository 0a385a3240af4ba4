/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gov_internal.h - what the gov sources share: the store struct, the statement cache, the
 * apply entry point used by local actions and rebuild, and small row helpers.
 */
#ifndef MERO_GOV_INTERNAL_H
#define MERO_GOV_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "mero/dcap.h"
#include "mero/gov.h"
#include "mero/op.h"

#define GOV_STMT_CACHE 160
/* An id's first 8 bytes as hex, with its NUL: the short form messages and logs name ids by. */
#define GOV_SHORT_SIZE MERO_HEX_SIZE(8)

struct gov_stmt {
    const char *sql; /* identity of a static string */
    sqlite3_stmt *st;
};

/* The outcomes mero__gov_fold_outcomes_store is writing (fold_table.c), sorted by hash, and
 * how far the table's walk has come in them. */
struct gov_fold_outcomes {
    struct gov_fold_entry **v;
    size_t n, at;
};

struct mero_store {
    sqlite3 *db;
    struct mero_gov_hooks hooks;
    bool rebuilding; /* no events, no append */
    bool publishing; /* a local action's op: refusals are never deferred */
    struct gov_stmt cache[GOV_STMT_CACHE];
    size_t ncache;
    /* our identity's public key in one namespace (mero__gov_our_pk asks it for every op
     * applied; deriving it from the seed each time was most of a re-fold's cost); cleared
     * whenever an identity is written or purged */
    bool us_cached;
    uint8_t us_ns[MERO_NS_ID_LEN];
    uint8_t us_pk[MERO_IDENTITY_LEN];
    /* late ops judged without a re-fold (fold_commute.c) and full re-folds of a late op, since
     * the store opened (fold.c; test_gov_fold asserts which path an op took) */
    uint64_t late_fast, late_refolds;
    uint64_t refold_replayed;    /* ops a late re-fold replayed (fold_replay.c) */
    uint64_t fold_cleared_whole; /* folds that emptied the derived tables whole (fold.c) */
    /* What a fold of one namespace (fold.c, mero__gov_fold_ns) knows without a read, from the
     * moment it cleared the namespace's rows to its end (zeroed then). Nothing inside a fold
     * deletes a group row, so root_seen stays true once seen. */
#define GOV_FOLD_DENIED_MAX 32 /* deny entries a fold tracks in memory (2 KiB) */
    struct gov_fold_facts {
        bool on; /* a fold of ns is under way */
        uint8_t ns[MERO_NS_ID_LEN];
        bool undeferred; /* no deferral written since the clear (a savepoint that
                          * undoes one leaves this false: a read again) */
        bool root_seen;  /* the namespace's root group row was read (in_ns) */
        /* the deny entries written since the clear, a superset (one a savepoint undid, or
         * that a later removal took away, stays): lifting an entry not among them writes
         * nothing; past GOV_FOLD_DENIED_MAX, denied_over, and every lift asks the table */
        struct gov_deny_key {
            uint8_t grp[MERO_GROUP_ID_LEN];
            uint8_t member[MERO_IDENTITY_LEN];
        } denied[GOV_FOLD_DENIED_MAX];
        size_t n_denied;
        bool denied_over;
    } fold;
    /* what the SQL function mero_fold_outcome reads while mero__gov_fold_outcomes_store's one
     * UPDATE runs (NULL otherwise); fold_fn: the function is registered on the connection
     * (at first use) */
    struct gov_fold_outcomes *fold_out;
    bool fold_fn;
};

/* Spent-quote kinds. */
enum { GOV_SPENT_ADMISSION = 0, GOV_SPENT_EVIDENCE = 1 };

/* A prepared, reset statement for a static SQL string (cached). NULL on error. */
sqlite3_stmt *mero__gov_stmt(struct mero_store *s, const char *sql);
/* Run a statement without results; binds are done by the caller. 0 or -MERO_EIO. */
int mero__gov_step_done(sqlite3_stmt *st);
int mero__gov_exec(struct mero_store *s, const char *sql);
/* Run sql (prepared once, not cached: the purge's statements) with one bound id, a namespace
 * or a group id (a namespace is its root group). 0 or -MERO_EIO. */
int mero__gov_exec_id(struct mero_store *s, const char *sql, const uint8_t id[MERO_GROUP_ID_LEN]);
int mero__gov_sqlerr(struct mero_store *s, struct mero_err *err, const char *what);
/* MERO_TRY_OUT for a store statement: when expr is negative, rc becomes the store's error for
 * `what` (mero__gov_sqlerr, SQLite's message) and control jumps to the caller's `out:`. */
#define GOV_SQL_TRY_OUT(s, err, expr, what)                                                        \
    do {                                                                                           \
        if ((expr) < 0) {                                                                          \
            rc = mero__gov_sqlerr((s), (err), (what));                                             \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Open (or create) a store and run its migrations (store.c); rederive re-derives the derived
 * tables when a migration asks for it, inside the migration's transaction (maint.c passes
 * mero_gov_rebuild: the store sits on the lowest floor and calls nothing above it). */
typedef int (*mero__gov_rederive_fn)(struct mero_store *s, struct mero_err *err);
int mero__gov_store_open(const char *path, bool create, mero__gov_rederive_fn rederive,
                         struct mero_store **out, struct mero_err *err);
/* Remove a pending self-purge marker (purge_marks.c); the purge's own transaction calls it. */
int mero__gov_purge_unmark(struct mero_store *s, const uint8_t id[MERO_GROUP_ID_LEN]);

/* Apply a decoded, verified op in a savepoint at its place in the canonical order (shared by
 * mero_gov_apply and local actions); *state (optional) = its GOV_FOLD_* outcome. */
int mero__gov_apply_op(struct mero_store *s, const struct mero_op *op,
                       const uint8_t hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len,
                       uint8_t *missing, int *state, struct mero_err *err);
/* Re-fold every namespace holding a deferred encrypted op whose key we now hold. */
void mero__gov_unseal(struct mero_store *s);

/* ---- issue 30: the canonical order (src/gov/fold_table.c) and the fold (src/gov/fold.c) ---- */
/* An op's outcome at its place in the fold (the `fold` table's state). */
enum {
    GOV_FOLD_REJECTED = MERO_OP_REJECTED,
    GOV_FOLD_EFFECTIVE = MERO_OP_EFFECTIVE,
    GOV_FOLD_DEFERRED = MERO_OP_DEFERRED
};
/* An op's place: (depth, class, hash), compared in that order. */
struct gov_fold_key {
    uint64_t depth; /* 0 for NamespaceCreated, else 1 + the deepest parent's */
    int cls;        /* 0: changes authority (admins, removals, roles, leaves, policy); 1: rest */
    uint8_t hash[MERO_OP_ID_LEN];
};
int mero__gov_fold_class(const struct mero_op *op);
/* The place of op (its parents' places must be stored). */
int mero__gov_fold_key(struct mero_store *s, const struct mero_op *op,
                       const uint8_t hash[MERO_OP_ID_LEN], struct gov_fold_key *k);
/* *last = k sorts after every op of ns already placed. */
int mero__gov_fold_is_last(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                           const struct gov_fold_key *k, bool *last);
int mero__gov_fold_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                       const struct gov_fold_key *k, int state, const char *reason);
int mero__gov_fold_state_set(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                             const uint8_t hash[MERO_OP_ID_LEN], int state, const char *reason);
/* One op as a re-fold walks it: its place, stored outcome (prior) and log row; then the outcome
 * this fold gives it, when that is to be stored (store; reason owned). */
struct gov_fold_entry {
    struct gov_fold_key k;
    int prior;
    int64_t seq;
    bool store;
    int state;
    char *reason;
};
/* ns's ops in canonical order (*out owned: mero__gov_fold_order_free); -MERO_ESTATE when the
 * fold table and the log disagree (an op without its place, or a place without its op). */
int mero__gov_fold_order(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         struct gov_fold_entry **out, size_t *n);
/* f's outcome in this fold (its reason copied), written by mero__gov_fold_outcomes_store once
 * the fold is over: no rule reads an op's stored outcome while a fold runs. */
int mero__gov_fold_outcome_keep(struct gov_fold_entry *f, int state, const char *reason);
int mero__gov_fold_outcomes_store(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                                  struct gov_fold_entry *order, size_t n);
void mero__gov_fold_order_free(struct gov_fold_entry *order, size_t n);
/* *yes = member is a principal of ns: it holds a row, or `principals` has it (a stored op names
 * it as holding a row, or a row of it was removed here). An op of theirs the rules refuse is
 * kept; another signer's late or encrypted op is refused before any fold (apply.c). A store
 * error is the return, with SQLite's message in err. */
MERO_MUST_CHECK int mero__gov_principal(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                                        const uint8_t member[MERO_IDENTITY_LEN], bool *yes,
                                        struct mero_err *err);
/* A code the rules return for a refusal (anything but I/O and memory). */
bool mero__gov_rule_refusal(int rc);
/* *yes = the late op (hash: its place is stored) commutes with every op of its namespace
 * folded after its place, so judging it now is its fold (fold_commute.c); *superseded = an
 * effective later op rewrites its member's row, which then stays as it is now. */
int mero__gov_fold_commutes(struct mero_store *s, const struct mero_op *late,
                            const uint8_t hash[MERO_OP_ID_LEN], bool *yes, bool *superseded);
/* Every namespace's ops placed and folded (rebuild: derived tables cleared first). */
int mero__gov_fold_all(struct mero_store *s, struct mero_err *err);
/* namespace id = SHA-256("mero.namespace.id.v1" || creator || salt) */
void mero__gov_ns_id(uint8_t out[MERO_NS_ID_LEN], const uint8_t signer[MERO_IDENTITY_LEN],
                     const uint8_t salt[MERO_NS_SALT_LEN]);
/* Sign an op with our identity for op->ns (parents = heads, nonce = ours + 1), apply it and
 * append its encoding to out. */
int mero__gov_publish(struct mero_store *s, struct mero_op *op, struct mero_gov_oplist *out,
                      struct mero_err *err);

/* borsh(GroupOp) (tag + payload, no group id or rotation): encode, and bounded decode. */
int mero__gov_put_group_body(struct mero_buf *b, const struct mero_op *op);
int mero__gov_get_group_body(struct mero_cur *c, struct mero_op *op, struct mero_err *err);

#define MERO_GOV_REASON_TEE_LOCKED                                                                 \
    "TeeMemberRoleLocked: the identity holds a TEE row in this namespace and is never given "      \
    "Member, ReadOnly or Admin"
#define MERO_GOV_REASON_LAST_ADMIN                                                                 \
    "the namespace's last admin cannot be removed, demoted or leave: make another member an "      \
    "admin first"
/* -MERO_ETEE_ROLE_LOCKED when member holds a TEE row anywhere in ns. */
int mero__gov_tee_locked(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], struct mero_err *err);
/* -MERO_ESTATE when member is the last direct admin of the namespace root (group == ns). */
int mero__gov_last_admin(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], struct mero_err *err);
/* report_data of a quote: mock read directly, real through the hook. */
int mero__gov_report_data(struct mero_store *s, const uint8_t *q, size_t n,
                          uint8_t out[MERO_REPORT_DATA_LEN], bool *is_mock, struct mero_err *err);
/* Our namespace identity pk, if any (false when we have none). */
bool mero__gov_our_pk(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                      uint8_t pk[MERO_IDENTITY_LEN]);
/* A quote hash used in ns (kind < 0: any kind; grp NULL: any group). */
int mero__gov_spent(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                    const uint8_t hash[MERO_OP_ID_LEN], int kind, const uint8_t *grp, bool *used);
/* Evidence row: attested_at (found false when none). */
int mero__gov_evidence_at(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                          const uint8_t member[MERO_IDENTITY_LEN], bool *found, uint64_t *at);
/* Store a group key (becomes current). */
int mero__gov_key_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const uint8_t key[MERO_GROUP_KEY_LEN]);
/* Wipe the derived tables (rebuild). */
int mero__gov_clear_derived(struct mero_store *s);

/* ---- derived-table writes (project.c); all 0 or -MERO_EIO ---- */
int mero__gov_identity_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t sk[MERO_ED25519_SK_LEN]);
int mero__gov_row_plain(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                        const uint8_t member[MERO_IDENTITY_LEN], int role);
/* A plain member row (no TEE facts), as mero__gov_row_plain writes it. */
struct gov_plain_row {
    uint8_t grp[MERO_GROUP_ID_LEN];
    uint8_t member[MERO_IDENTITY_LEN];
    int role;
};
#define GOV_ROWS_BATCH 16 /* plain rows one statement writes (a re-fold's replayed additions) */
/* n plain rows of distinct keys, as n mero__gov_row_plain calls would write them; exactly
 * GOV_ROWS_BATCH of them are one statement (a statement's own work was a sixth of a row's). */
int mero__gov_rows_plain(struct mero_store *s, const struct gov_plain_row *rows, size_t n);
int mero__gov_row_tee(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const struct mero_tee_join *j, const uint8_t account[MERO_ACCOUNT_ID_LEN]);
int mero__gov_row_role(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                       const uint8_t member[MERO_IDENTITY_LEN], int role);
int mero__gov_row_del(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                      const uint8_t member[MERO_IDENTITY_LEN]);
int mero__gov_deny(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                   const uint8_t member[MERO_IDENTITY_LEN], bool on);
int mero__gov_spent_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                        const uint8_t qh[MERO_QUOTE_HASH_LEN], int kind,
                        const uint8_t grp[MERO_GROUP_ID_LEN]);
int mero__gov_evidence_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                           const uint8_t member[MERO_IDENTITY_LEN],
                           const uint8_t qh[MERO_QUOTE_HASH_LEN], uint64_t at, const char *tcb,
                           const char *advisories, const uint8_t op_hash[MERO_OP_ID_LEN]);
/* Issue 19 (apply_tee.c): a verdict's advisory IDs as one comma-separated text, within
 * MERO_GOV_ADVISORIES_MAX (what does not fit, or is not an advisory ID, is left off whole);
 * whether such a list holds the l-byte id. */
void mero__gov_advisories_join(char out[MERO_GOV_ADVISORIES_MAX],
                               const char (*ids)[MERO_DCAP_ADVISORY_LEN], size_t n);
bool mero__gov_advisories_has(const char *list, const char *id, size_t l);
int mero__gov_policy_put(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t op_hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len);
int mero__gov_group_put(struct mero_store *s, const uint8_t id[MERO_GROUP_ID_LEN],
                        const uint8_t ns[MERO_NS_ID_LEN], const uint8_t parent[MERO_GROUP_ID_LEN],
                        int vis, uint64_t seq);
int mero__gov_context_put(struct mero_store *s, const uint8_t id[MERO_CONTEXT_ID_LEN],
                          const uint8_t ns[MERO_NS_ID_LEN], const uint8_t grp[MERO_GROUP_ID_LEN],
                          const uint8_t app[MERO_APP_ID_LEN], uint64_t seq);
int mero__gov_follow_put(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], bool contexts, bool subgroups);
int mero__gov_follow_del(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN]);
bool mero__gov_context_exists(struct mero_store *s, const uint8_t id[MERO_CONTEXT_ID_LEN]);
/* Descendant groups of grp (not grp itself), parents before children. *out owned. */
int mero__gov_descendants(struct mero_store *s, const uint8_t grp[MERO_GROUP_ID_LEN],
                          uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n);
/* The identity a clear op names as holding a row once it takes effect (NULL: none): the creator
 * of a namespace or group, the subject of AdminChanged, MemberAdded or a TEE join; an encrypted
 * op's names are inside its ciphertext. */
const uint8_t *mero__gov_nominee(const struct mero_op *op);
/* Record mero__gov_nominee(op) in `principals`, whatever the op's outcome: a refused op of
 * theirs is then kept on every node that holds this one. */
int mero__gov_nominate(struct mero_store *s, const struct mero_op *op);
/* issue 30: record a MemberRemoved's cuts (hash: the op's) in `cuts`, whatever its outcome:
 * whether one counts is read from `fold` (mero_gov_write_cuts). */
int mero__gov_note_cuts(struct mero_store *s, const struct mero_op *op,
                        const uint8_t hash[MERO_OP_ID_LEN]);
/* Append an op row (returns its seq), record its nominee and move the heads. */
int mero__gov_append(struct mero_store *s, const struct mero_op *op,
                     const uint8_t hash[MERO_OP_ID_LEN], const uint8_t *bytes, size_t len,
                     uint64_t *seq);
int mero__gov_heads_move(struct mero_store *s, const struct mero_op *op,
                         const uint8_t hash[MERO_OP_ID_LEN]);
/* Our highest nonce in ns (0 when none). */
int mero__gov_last_nonce(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t signer[MERO_IDENTITY_LEN], uint64_t *nonce);

/* ---- issue 15: relay warrant (src/gov/query.c) ---- */
/* *yes when member holds a row in group or in an ancestor reached through Open boundaries
 * (any role, TEE roles included): the group is within its reach. */
int mero__gov_reaches(struct mero_store *s, const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t member[MERO_IDENTITY_LEN], bool *yes);

/* ---- issue 16: reach (src/gov/reach.c) ---- */
/* After an admission into `done`: KeyDelivery of the current key of every other group the
 * member now reaches (Open subgroups below), where we may vouch and hold the key; failures
 * are logged, never the admission's error. */
int mero__gov_deliver_reach_keys(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN],
                                 const uint8_t done[MERO_GROUP_ID_LEN],
                                 const uint8_t member[MERO_IDENTITY_LEN],
                                 struct mero_gov_oplist *out);

#endif
