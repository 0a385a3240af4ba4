/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node.h - the node's public interface (src/node): its lifecycle, what a server on its loop
 * needs (the loop, the configured API address, the token check) and one function per use case
 * the admin API offers (namespaces, groups, members, contexts, quotes, the TEE policy, the
 * fleet join). struct mero_node is opaque outside src/node.
 *
 * Invariant: everything here takes and returns domain values (C structs, ids as bytes,
 * negative -MERO_E* codes with the reason in a struct mero_err); no HTTP status and no API JSON
 * field name appears in it. Every function runs on the node's loop thread. A write use case
 * signs as this node's namespace identity, applies through governance's own rules and
 * publishes the resulting ops on ns/<hex>; a refused one publishes nothing.
 */
#ifndef MERO_NODE_H
#define MERO_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mero/err.h"
#include "mero/gov.h"
#include "mero/net.h"
#include "mero/op.h"
#include "mero/sizes.h"

struct mero_node;
struct uv_loop_s;

#define MERO_NODE_ADDR_MAX      256 /* host:port or multiaddr text, NUL included */
#define MERO_NODE_MAX_BOOTSTRAP 16  /* --bootstrap addresses */

/* How quotes are produced (ARCHITECTURE.md §1, spec "Admin API surface"). */
enum mero_node_tee {
    MERO_TEE_NONE = 0, /* no TDX, no --mock-tee: no quotes */
    MERO_TEE_MOCK = 1, /* --mock-tee: MOCK_TDX_QUOTE_V1 quotes */
    MERO_TEE_REAL = 2, /* configfs-tsm with provider tdx_guest */
};

/* ---- lifecycle (merod) ---- */

/* merod init: create DIR (0700), identity key, database, config and admin-token (0600). */
MERO_MUST_CHECK int mero_node_init_home(const char *home, const char *name, const char *listen,
                                        const char *api, struct mero_err *err);
/* A node not yet opened (NULL when out of memory); mero_node_free after mero_node_close. */
struct mero_node *mero_node_new(void);
void mero_node_free(struct mero_node *node);
/* Before open: one more --bootstrap address (-MERO_ETOOBIG past the limit, -MERO_ENOMEM). */
MERO_MUST_CHECK int mero_node_add_bootstrap(struct mero_node *node, const char *multiaddr);
/* --test: the test-only use cases are available (docs/node.md). */
void mero_node_set_test_mode(struct mero_node *node, bool on);
bool mero_node_test_mode(const struct mero_node *node);
/* Detect the TEE: real when configfs-tsm offers tdx_guest, else mock when asked, else none. */
enum mero_node_tee mero_node_tee_detect(bool mock_requested);
void mero_node_set_tee(struct mero_node *node, enum mero_node_tee tee);
enum mero_node_tee mero_node_tee_mode(const struct mero_node *node);
/* Take DIR's lock (merod.lock, held for the process's life; a second merod on DIR is refused),
 * then load it: config, keys (refused if looser than 0600), token, database. */
MERO_MUST_CHECK int mero_node_open(struct mero_node *node, const char *home, struct mero_err *err);
/* The configured node name (config.json). */
const char *mero_node_name(const struct mero_node *node);
/*
 * `merod check --home DIR`: integrity_check of node.db and gov.db, the op log re-verified,
 * every context delta and visible value checked against its signed, encrypted delta. Findings
 * are printed to out; 0 when all is well, -MERO_ESTATE when something is damaged.
 */
MERO_MUST_CHECK int mero_node_check(const char *home, FILE *out, struct mero_err *err);
/* Free everything opened by mero_node_open (keys wiped, database closed). */
void mero_node_close(struct mero_node *node);
/*
 * Run in three steps, so that a server can be put on the loop in between: start takes the
 * loop, the signals and the network; a stop hook (at most one) runs first when the node stops,
 * before the network closes; serve writes DIR/run.json and runs until SIGINT/SIGTERM
 * (0 on a clean stop). When a step in between fails, mero_node_abort stops and drains.
 */
MERO_MUST_CHECK int mero_node_start(struct mero_node *node, struct mero_err *err);
void mero_node_on_stop(struct mero_node *node, void (*fn)(void *ctx), void *ctx);
MERO_MUST_CHECK int mero_node_serve(struct mero_node *node, struct mero_err *err);
void mero_node_abort(struct mero_node *node);
/* Stop the loop cleanly (from any loop callback). */
void mero_node_stop(struct mero_node *node);

/* ---- for a server on the node's loop (the admin API) ---- */

struct uv_loop_s *mero_node_loop(struct mero_node *node);
/* The configured API address, host:port (port 0 = any). */
const char *mero_node_api_addr(const struct mero_node *node);
/* Record where the API listens (host:port), for run.json and the log. */
void mero_node_set_api_bound(struct mero_node *node, const char *hostport);
/* The Authorization header value (LEN bytes, NULs included) against the admin token, in
 * constant time: true when it is exactly "Bearer <token>". */
bool mero_node_auth_ok(const struct mero_node *node, const char *authorization, size_t len);

/* ---- this node ---- */

void mero_node_identity(const struct mero_node *node, uint8_t pk[MERO_IDENTITY_LEN]);
void mero_node_transport_key(const struct mero_node *node, uint8_t pk[MERO_X25519_LEN]);
const char *mero_node_peer_id(const struct mero_node *node);
/* Our listen multiaddrs (with /p2p/<id>), at most cap; returns how many were written. */
size_t mero_node_listen_addrs_copy(struct mero_node *node, char (*out)[MERO_NODE_ADDR_MAX],
                                   size_t cap);
/* The 96-hex MRTD of the host TD (zeros for mock/none) and the cloud/os facts of §1.6. */
#define MERO_NODE_CLOUD_MAX 32
#define MERO_NODE_OS_MAX    128
void mero_node_tee_info(const struct mero_node *node, char cloud[MERO_NODE_CLOUD_MAX],
                        char os_image[MERO_NODE_OS_MAX], char mrtd[MERO_HEX_SIZE(MERO_MR_LEN)]);

/* A quote (and, when asked for, the CCEL event log), borrowed for the callback. */
struct mero_node_quote {
    const uint8_t *quote;
    size_t len;
    const uint8_t *event_log; /* NULL unless asked for */
    size_t event_log_len;
    const char *collateral_json; /* QuoteCollateralV3 JSON; NULL unless asked for (real) */
    size_t collateral_len;
};
/* What to fetch besides the quote (real TEE only; both run on the thread pool). */
#define MERO_NODE_QUOTE_EVENT_LOG  1u
#define MERO_NODE_QUOTE_COLLATERAL 2u
/* Result of a quote request, on the loop thread. */
typedef void (*mero_node_quote_cb)(void *ctx, int rc, const struct mero_node_quote *q,
                                   const struct mero_err *err);
/*
 * Make a quote over report_data: mock at once (cb runs before this returns), real on the
 * thread pool (cb runs later). -MERO_EUNSUPPORTED (cb never runs) when the node has no TEE
 * and no --mock-tee.
 */
MERO_MUST_CHECK int mero_node_tee_quote(struct mero_node *node,
                                        const uint8_t report_data[MERO_REPORT_DATA_LEN],
                                        unsigned extras, mero_node_quote_cb cb, void *ctx);

/* ---- namespaces and groups (node/usecase.c) ---- */

/* Local labels of a namespace or group (never replicated). */
#define MERO_NODE_LABEL_MAX 129 /* 128 chars + NUL */
struct mero_node_labels {
    char application_id[MERO_NODE_LABEL_MAX];
    char upgrade_policy[MERO_NODE_LABEL_MAX];
    char app_key[MERO_NODE_LABEL_MAX];
    char name[MERO_NODE_LABEL_MAX];
    bool has_name;
    int64_t created_at; /* Unix seconds; 0 when none recorded */
};

/* The namespace root of group or namespace id; -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero_node_namespace_of(struct mero_node *node,
                                           const uint8_t id[MERO_GROUP_ID_LEN],
                                           uint8_t ns[MERO_NS_ID_LEN]);
/* Our identity in ns; -MERO_ENOTFOUND when we hold none. */
MERO_MUST_CHECK int mero_node_ns_identity(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                          uint8_t pk[MERO_IDENTITY_LEN]);
/* Namespaces this node knows. *out owned (free()). */
MERO_MUST_CHECK int mero_node_namespaces(struct mero_node *node, uint8_t (**out)[MERO_NS_ID_LEN],
                                         size_t *n);
/* Create a namespace with these labels; we are its admin, our identity in *pk. */
MERO_MUST_CHECK int mero_node_ns_create(struct mero_node *node,
                                        const struct mero_node_labels *labels,
                                        uint8_t ns[MERO_NS_ID_LEN], uint8_t pk[MERO_IDENTITY_LEN],
                                        struct mero_err *err);
/* Join a namespace made elsewhere: clear its self-purge tombstone, make (or reuse) our
 * identity, follow its topic and pull its op log from connected peers. */
MERO_MUST_CHECK int mero_node_ns_join(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                      uint8_t pk[MERO_IDENTITY_LEN], struct mero_err *err);

struct mero_node_ns_summary {
    struct mero_node_labels labels;
    size_t members, contexts, subgroups;
    bool has_identity;
    uint8_t identity[MERO_IDENTITY_LEN]; /* ours in it */
};
/* What a namespace holds (counts and labels); unreadable parts count as empty. */
void mero_node_ns_summary(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          struct mero_node_ns_summary *out);

/* New subgroup of parent in ns (MERO_GROUP_OPEN / RESTRICTED); name (may be NULL) is its
 * local label. */
MERO_MUST_CHECK int mero_node_subgroup_create(struct mero_node *node,
                                              const uint8_t ns[MERO_NS_ID_LEN],
                                              const uint8_t parent[MERO_GROUP_ID_LEN],
                                              int visibility, const char *name,
                                              uint8_t g[MERO_GROUP_ID_LEN], struct mero_err *err);

struct mero_node_group_entry {
    uint8_t id[MERO_GROUP_ID_LEN];
    bool has_name, has_parent;
    char name[MERO_NODE_LABEL_MAX];
    uint8_t parent[MERO_GROUP_ID_LEN];
};
/* The groups of ns other than its root. *out owned (free()). */
MERO_MUST_CHECK int mero_node_ns_groups(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                        struct mero_node_group_entry **out, size_t *n);

struct mero_node_group_summary {
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t parent[MERO_GROUP_ID_LEN];
    int visibility;                 /* MERO_GROUP_OPEN / RESTRICTED */
    struct mero_node_labels labels; /* the namespace's, with the group's own name */
    size_t members, contexts;
};
/* -MERO_ENOTFOUND for an unknown group. */
MERO_MUST_CHECK int mero_node_group_summary(struct mero_node *node,
                                            const uint8_t g[MERO_GROUP_ID_LEN],
                                            struct mero_node_group_summary *out);

/* ---- members ---- */

/* Add a member (MERO_ROLE_*) and hand it the group key. */
MERO_MUST_CHECK int mero_node_member_add(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t g[MERO_GROUP_ID_LEN],
                                         const uint8_t id[MERO_IDENTITY_LEN], int role,
                                         struct mero_err *err);
MERO_MUST_CHECK int mero_node_member_set_role(struct mero_node *node,
                                              const uint8_t ns[MERO_NS_ID_LEN],
                                              const uint8_t g[MERO_GROUP_ID_LEN],
                                              const uint8_t id[MERO_IDENTITY_LEN], int role,
                                              struct mero_err *err);
MERO_MUST_CHECK int mero_node_member_remove(struct mero_node *node,
                                            const uint8_t ns[MERO_NS_ID_LEN],
                                            const uint8_t g[MERO_GROUP_ID_LEN],
                                            const uint8_t id[MERO_IDENTITY_LEN],
                                            struct mero_err *err);
MERO_MUST_CHECK int mero_node_group_leave(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                          const uint8_t g[MERO_GROUP_ID_LEN], struct mero_err *err);

/* One entry of a batch: its identity, role (adds only) and, after the call, its outcome. */
struct mero_node_batch_entry {
    uint8_t id[MERO_IDENTITY_LEN];
    int role;
    int rc;
    struct mero_err err;
};
/*
 * A batch of member changes, all or none: one store transaction; each entry's outcome in its
 * rc/err; committed and published only when every entry passed, else rolled back. Returns 0,
 * the first refused entry's code, or a code of its own (err: the transaction could not be
 * opened or committed; then no entry is marked).
 */
MERO_MUST_CHECK int mero_node_members_add(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                          const uint8_t g[MERO_GROUP_ID_LEN],
                                          struct mero_node_batch_entry *e, size_t n,
                                          struct mero_err *err);
MERO_MUST_CHECK int mero_node_members_remove(struct mero_node *node,
                                             const uint8_t ns[MERO_NS_ID_LEN],
                                             const uint8_t g[MERO_GROUP_ID_LEN],
                                             struct mero_node_batch_entry *e, size_t n,
                                             struct mero_err *err);
/* Direct rows of a group, sorted by id. *out owned (free()). */
MERO_MUST_CHECK int mero_node_members(struct mero_node *node, const uint8_t g[MERO_GROUP_ID_LEN],
                                      struct mero_gov_member **out, size_t *n);

/* ---- contexts ---- */

MERO_MUST_CHECK int mero_node_ctx_create(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t g[MERO_GROUP_ID_LEN],
                                         uint8_t ctx[MERO_CONTEXT_ID_LEN], struct mero_err *err);
/* Contexts of ns (every group), in creation order. *out owned (free()). */
MERO_MUST_CHECK int mero_node_contexts(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                       struct mero_gov_context **out, size_t *n);
/*
 * Write key = value in ctx as this node (our namespace identity) at lamport clock + 1:
 * refused with -MERO_EREADONLY ("ReadOnlyWriteRefused") when our effective role there is
 * ReadOnly, ReadOnlyTee or RelayTee; with -MERO_ESUPERSEDED (nothing stored or published,
 * err names the current value's author and clock) when the delta would not become the key's
 * current value; with -MERO_ECLOCK when the context's clock is exhausted. 0 means the write is
 * committed and is the key's current value. With force (test-only path) the local checks are
 * skipped and the delta is published even when this node refuses it, so peers' refusal can be
 * tested; lamport, when not 0, is then claimed instead of clock + 1.
 */
MERO_MUST_CHECK int mero_node_ctx_put(struct mero_node *node,
                                      const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                                      const uint8_t *value, size_t vlen, bool force,
                                      uint64_t lamport, struct mero_err *err);
/* Read a key: *value owned (free()); -MERO_ENOTFOUND when absent. */
MERO_MUST_CHECK int mero_node_ctx_get(struct mero_node *node,
                                      const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                                      uint8_t **value, size_t *vlen, struct mero_err *err);

/* ---- the TEE admission policy (node/policy.c) ---- */

/* Set the policy of namespace root group (gov re-validates it); a subgroup is refused
 * (-MERO_EINVAL), an unknown group -MERO_ENOTFOUND. */
MERO_MUST_CHECK int mero_node_policy_set(struct mero_node *node,
                                         const uint8_t group[MERO_GROUP_ID_LEN],
                                         const struct mero_tee_policy *p, struct mero_err *err);
/* The policy in force; *found false (p zeroed) when none is set. mero_tee_policy_cleanup(p). */
MERO_MUST_CHECK int mero_node_policy_get(struct mero_node *node,
                                         const uint8_t group[MERO_GROUP_ID_LEN],
                                         struct mero_tee_policy *p, bool *found,
                                         struct mero_err *err);

/* ---- the fleet join (node/admission/fleet_join.c) ---- */

#define MERO_FLEET_REASON_MAX 257 /* a refusal's reason, NUL included */
struct mero_fleet_join_refusal {
    char peer[MERO_PEER_ID_STR_MAX];
    char reason[MERO_FLEET_REASON_MAX];
};
/* The outcome of a fleet join that ran to its end (borrowed for the callback). */
struct mero_fleet_join_result {
    bool admitted;    /* joined; else announced (not admitted within the budget) */
    bool auto_follow; /* our MemberSetAutoFollow (contexts and subgroups) is in force */
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t pk[MERO_IDENTITY_LEN];
    uint8_t account[MERO_IDENTITY_LEN];
    const uint8_t (*contexts)[MERO_CONTEXT_ID_LEN]; /* joined */
    size_t ncontexts;
    const char *admitted_by; /* peer id, NULL when nobody is known to have admitted us */
    const struct mero_fleet_join_refusal *refusals;
    size_t nrefusals;
};
/*
 * Completion of a fleet join, exactly once on the loop: rc 0 with res, or a negative code with
 * the reason in err (res NULL).
 */
typedef void (*mero_fleet_join_done)(void *ctx, int rc, const struct mero_fleet_join_result *res,
                                     const struct mero_err *err);
/* Start a fleet join for namespace group_id, asking admitters (multiaddrs ending in
 * /p2p/<id>) directly first. 0 when started (done runs later); -MERO_EUNSUPPORTED when no
 * admission layer is installed; another code when it could not start (done never runs). */
MERO_MUST_CHECK int mero_node_fleet_join(struct mero_node *node,
                                         const uint8_t group_id[MERO_GROUP_ID_LEN],
                                         const char *const *admitters, size_t n,
                                         mero_fleet_join_done done, void *ctx,
                                         struct mero_err *err);

/*
 * Issue 18: the progress of the fleet join for a namespace, for a caller waiting on it. Each
 * state change is one step (numbered from 1 by seq); the last MERO_FLEET_JOIN_STEPS are kept,
 * oldest first, the last one being the current state. A finished join's steps stay readable
 * (running false) until the same namespace starts another join, so a caller that polls can
 * still read the steps it missed.
 */
enum mero_fleet_join_state {
    MERO_FJ_ASKING = 1, /* asked peer directly for a challenge */
    MERO_FJ_PROMPTED,   /* published a TeeAdmissionPrompt on ns/<hex> */
    MERO_FJ_CHALLENGED, /* peer issued or offered a challenge */
    MERO_FJ_ANSWERED,   /* our quote went to peer */
    MERO_FJ_ADMITTED,   /* peer admitted us: waiting for the membership op and the group key */
    MERO_FJ_REFUSED,    /* peer refused us (reason), or could not be asked */
};
#define MERO_FLEET_JOIN_STEPS 8
struct mero_fleet_join_step {
    uint64_t seq;
    enum mero_fleet_join_state state;
    char peer[MERO_PEER_ID_STR_MAX];    /* "" when the state concerns no one peer (prompted) */
    char reason[MERO_FLEET_REASON_MAX]; /* refused only, else "" */
};
struct mero_fleet_join_progress {
    bool running; /* false once the join has answered its caller */
    size_t nsteps;
    struct mero_fleet_join_step steps[MERO_FLEET_JOIN_STEPS];
};
/* The progress of the join for group_id: 0 with *out, -MERO_ENOTFOUND when no join ran for it
 * since the node started, -MERO_EUNSUPPORTED without an admission layer. */
MERO_MUST_CHECK int mero_node_fleet_join_progress(struct mero_node *node,
                                                  const uint8_t group_id[MERO_GROUP_ID_LEN],
                                                  struct mero_fleet_join_progress *out,
                                                  struct mero_err *err);

/* ---- issue 15: the relay (src/node/relay.c) ---- */
/* The answer of a ReadOnlyTee to an intent (the reference's text), and of a node that is not a
 * TEE of the namespace (docs/relay.md "A node that is not a relay"). */
#define MERO_NODE_RELAY_REPLICA_MSG                                                                \
    "this node is a TEE replica (ReadOnlyTee) and does not relay writes; the namespace must "      \
    "admit relays with mode=relay"
#define MERO_NODE_RELAY_NOT_TEE_MSG                                                                \
    "this node is not a TEE relay of the namespace; submit the intent to a RelayTee"
struct mero_node_relayed {
    uint8_t delta_id[MERO_DELTA_ID_LEN];   /* the relayed delta's hash */
    uint8_t intent_id[MERO_INTENT_ID_LEN]; /* mero_intent_id */
    uint8_t author[MERO_IDENTITY_LEN];     /* the intent's signer, the write's author */
};
/*
 * Relay a member's signed intent (its bytes) into ctx: decode (-MERO_EINVAL, reason in err),
 * the intent's context must be ctx (-MERO_EINVAL), ctx known (-MERO_ENOTFOUND); this node's
 * standing (a ReadOnlyTee: -MERO_EREADONLY with MERO_NODE_RELAY_REPLICA_MSG; not a TEE of the
 * namespace: -MERO_EPERM with MERO_NODE_RELAY_NOT_TEE_MSG); then the checks every peer makes at
 * the cut, at this node's clock (forged, expired, replayed -MERO_EEXIST, non-member or
 * read-only author, another namespace, another relay's warrant, a delete). 0 once the relayed
 * delta is committed here and published, with its ids in *out. force (test-only route) skips
 * every check and publishes even what this node refuses.
 */
MERO_MUST_CHECK int mero_node_relay_intent(struct mero_node *node,
                                           const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                                           const uint8_t *intent, size_t len, bool force,
                                           struct mero_node_relayed *out, struct mero_err *err);

/* The author of key's current value in ctx (for a relayed write, the member whose intent it
 * carried); -MERO_ENOTFOUND when the key holds no value. Read after mero_node_ctx_get. */
MERO_MUST_CHECK int mero_node_ctx_author(struct mero_node *node,
                                         const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                                         uint8_t author[MERO_IDENTITY_LEN]);

/* ---- issue 16: reach - a TEE's reach over subgroups (src/node/subgroup_admit.c) ---- */

/*
 * tee-admit: admit id, a TEE admitted at the namespace root, into subgroup `group` (gov's
 * tee_subgroup_admit: its root admission carried inward, the subgroup key delivered to it) and
 * publish the ops. *outcome: MERO_ADMIT_ADMITTED, _ALREADY_MEMBER or _CONVERTED.
 * -MERO_ENOTFOUND unknown group; -MERO_EINVAL group is a namespace root; -MERO_ENOTADMIN we
 * are not an admin of the subgroup (nothing published); -MERO_ESTATE id is not an admitted TEE
 * of the namespace; a refusal by the admission rules as mero_gov_admit_tee_node.
 */
MERO_MUST_CHECK int mero_node_subgroup_tee_admit(struct mero_node *node,
                                                 const uint8_t group[MERO_GROUP_ID_LEN],
                                                 const uint8_t id[MERO_IDENTITY_LEN], int *outcome,
                                                 struct mero_err *err);

/* ---- issue 19: the fleet view (src/node/fleet.c, src/node/attempts.c) ---- */

#define MERO_FLEET_ATTEMPTS_KEEP    1000u /* admission attempts kept per namespace (node.db) */
#define MERO_FLEET_ATTEMPTS_DEFAULT 100u  /* attempts a fleet document carries unless asked */
#define MERO_FLEET_NAME_MAX         64    /* a rule, policy-entry or profile name, NUL included */
#define MERO_FLEET_TCB_MAX          48    /* a TCB status name, NUL included */

/* How an attempt reached the admitter; 0 = not known to this node (an admission it applied). */
enum mero_fleet_path {
    MERO_FLEET_PATH_UNKNOWN = 0,
    MERO_FLEET_PATH_PROMPT,   /* the admitter offered a challenge for a TeeAdmissionPrompt */
    MERO_FLEET_PATH_DIRECT,   /* the joiner asked the admitter directly */
    MERO_FLEET_PATH_SUBGROUP, /* a subgroup-form admission */
};
enum mero_fleet_verdict {
    MERO_FLEET_ADMITTED = 0,
    MERO_FLEET_REFUSED,
    MERO_FLEET_NO_VERDICT, /* the joiner answered an offer and heard no verdict */
};
/* What measurements matched: a policy list entry ("allowedMrtd[0]") or a release profile. */
enum mero_fleet_match_kind {
    MERO_FLEET_MATCH_NONE = 0,
    MERO_FLEET_MATCH_POLICY,
    MERO_FLEET_MATCH_PROFILE,
};
struct mero_fleet_match {
    int kind;                       /* enum mero_fleet_match_kind */
    char name[MERO_FLEET_NAME_MAX]; /* "" when unknown (a profile this node cannot name) */
};
/* SELF (issue 35): this node's own row, heard from now */
enum mero_fleet_seen_via {
    MERO_FLEET_SEEN_NONE = 0,
    MERO_FLEET_SEEN_GOSSIP,
    MERO_FLEET_SEEN_SYNC,
    MERO_FLEET_SEEN_SELF,
};
/* Where a member's name comes from (issue 35 item 6): an admin's label on this node, this
 * node's own --name on its own row, or the name another member's node announced. */
enum mero_fleet_name_source {
    MERO_FLEET_NAME_NONE = 0,
    MERO_FLEET_NAME_LABEL,
    MERO_FLEET_NAME_SELF,
    MERO_FLEET_NAME_ANNOUNCED, /* the member's node's own --name, in its signed sync HELLO */
};
#define MERO_MEMBER_LABEL_MAX  64 /* bytes of a member label, the NUL not counted */
#define MERO_MEMBER_LABEL_SIZE (MERO_MEMBER_LABEL_MAX + 1)
enum mero_fleet_evidence_state {
    MERO_FLEET_EVIDENCE_NONE = 0,
    MERO_FLEET_EVIDENCE_FRESH,   /* younger than MERO_GOV_EVIDENCE_REFRESH_SECS */
    MERO_FLEET_EVIDENCE_LAPSING, /* due for a refresh, still counts */
    MERO_FLEET_EVIDENCE_LAPSED,  /* older than MERO_GOV_EVIDENCE_MAX_AGE_SECS */
};

/* One admission attempt this node decided or heard of (docs/fleet.md). "" strings are absent. */
struct mero_fleet_attempt {
    uint64_t at; /* unix seconds, when this node recorded it */
    bool has_identity;
    uint8_t identity[MERO_IDENTITY_LEN]; /* the joiner's namespace identity */
    char peer[MERO_PEER_ID_STR_MAX];     /* the joiner's peer id */
    int path;                            /* enum mero_fleet_path */
    bool has_admitter;
    uint8_t admitter[MERO_IDENTITY_LEN];
    int verdict;                        /* enum mero_fleet_verdict */
    char rule[MERO_FLEET_NAME_MAX];     /* the refusing rule's name (mero_adm_rule_name) */
    char reason[MERO_FLEET_REASON_MAX]; /* the refusal's reason, cut to fit */
    bool has_measurements;              /* m and matched are set */
    struct mero_measurements m;
    struct mero_fleet_match matched;
    char tcb_status[MERO_FLEET_TCB_MAX];
};

struct mero_fleet_member {
    uint8_t identity[MERO_IDENTITY_LEN];
    int role;
    bool is_tee;
    bool has_admitted_by; /* the signer of the op that made the row (none: the creator) */
    uint8_t admitted_by[MERO_IDENTITY_LEN];
    bool has_admitted_at; /* a TEE's first evidence after its join (ops carry no time) */
    uint64_t admitted_at;
    int last_seen_via; /* enum mero_fleet_seen_via; NONE: never seen since start */
    uint64_t last_seen;
    int name_source;                   /* enum mero_fleet_name_source; NONE: name is "" */
    char name[MERO_MEMBER_LABEL_SIZE]; /* issue 35: a label, or this node's own name */
    /* is_tee only: */
    struct mero_measurements m;
    struct mero_fleet_match matched;
    char tcb_status[MERO_GOV_MAX_STR + 1];
    char advisories[MERO_GOV_ADVISORIES_MAX]; /* the latest evidence's, comma-separated */
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN];
    bool has_evidence_at;
    uint64_t evidence_at;
    int evidence_state; /* enum mero_fleet_evidence_state */
};

/* The fleet document's domain values, this node's view of one group. */
struct mero_fleet {
    uint8_t group[MERO_GROUP_ID_LEN];
    uint8_t ns[MERO_NS_ID_LEN];
    bool has_identity;
    uint8_t identity[MERO_IDENTITY_LEN]; /* ours in ns */
    char peer_id[MERO_PEER_ID_STR_MAX];
    uint64_t generated_at;
    bool policy_found;
    struct mero_tee_policy policy;
    struct mero_fleet_member *members; /* owned */
    size_t nmembers;
    struct mero_fleet_attempt *attempts; /* owned, newest first */
    size_t nattempts;
};
/*
 * The fleet view of group: its policy, one row per direct member, and the namespace's last
 * max_attempts admission attempts (at most MERO_FLEET_ATTEMPTS_KEEP). -MERO_ENOTFOUND for an
 * unknown group. Clean up *out with mero_fleet_cleanup (also after a failure).
 */
MERO_MUST_CHECK int mero_node_fleet(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                                    size_t max_attempts, struct mero_fleet *out,
                                    struct mero_err *err);
void mero_fleet_cleanup(struct mero_fleet *f);
/* Issue 35 item 6 (src/node/labels.c): 0 when label[0..len) is a member label this node keeps
 * (1..MERO_MEMBER_LABEL_MAX bytes of UTF-8, no control character, not only spaces), else
 * -MERO_EINVAL with the reason in err (err may be NULL). */
MERO_MUST_CHECK int mero_member_label_check(const char *label, size_t len, struct mero_err *err);
/* Name member `identity` of group `label` on this node (node.db; never replicated), or forget
 * its label (label NULL). -MERO_EINVAL for a label mero_member_label_check refuses,
 * -MERO_ENOTFOUND for an unknown group or an identity that is not one of its members. */
MERO_MUST_CHECK int mero_node_member_label_set(struct mero_node *node,
                                               const uint8_t group[MERO_GROUP_ID_LEN],
                                               const uint8_t identity[MERO_IDENTITY_LEN],
                                               const char *label, struct mero_err *err);
/* The evidence state of evidence attested at `at`, judged at `now` (unix seconds). */
int mero_fleet_evidence_state(uint64_t at, uint64_t now);

/* ---- issue 19: metrics (src/node/metrics.c) ---- */

/* The upper bounds (seconds) of the DCAP verification histogram's buckets; +Inf is implied. */
#define MERO_METRICS_DCAP_BUCKETS 11
extern const double mero_metrics_dcap_bounds[MERO_METRICS_DCAP_BUCKETS];

/* One admission outcome counted by this node (as verifier): its result and, for a refusal, the
 * rule (mero_adm_rule_name, or "NotAVoucher" / "Verification"; "" when admitted). */
enum mero_metrics_adm_result {
    MERO_METRICS_ADMITTED = 0,
    MERO_METRICS_REFUSED = 1,
    MERO_METRICS_NO_VERDICT = 2,
};
#define MERO_METRICS_RULE_MAX 40
struct mero_metrics_admission {
    enum mero_metrics_adm_result result;
    char rule[MERO_METRICS_RULE_MAX];
    uint64_t n;
};
#define MERO_METRICS_ADM_MAX 48 /* distinct (result, rule) pairs kept */

/* One namespace this node follows. */
struct mero_metrics_ns {
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t ops;            /* ops in its op log here */
    uint64_t sync_lag_s;     /* seconds since its last completed op pull (or since start) */
    uint64_t last_sync_unix; /* when that pull completed, 0 never */
};

struct mero_node_metrics {
    struct mero_metrics_admission adm[MERO_METRICS_ADM_MAX];
    size_t nadm;
    /* DCAP verifications of real quotes in verify_and_admit, by result, and their duration */
    uint64_t dcap_verified, dcap_refused, dcap_no_verdict;
    uint64_t dcap_bucket[MERO_METRICS_DCAP_BUCKETS]; /* cumulative: <= bound */
    uint64_t dcap_count;
    double dcap_sum_s;
    /* the process's PCS collateral cache */
    uint64_t collateral_hits, collateral_misses, collateral_fetch_failures;
    /* the challenge book: live entries by kind, and their caps */
    uint64_t challenges_requested, challenges_offered;
    uint64_t challenges_requested_max, challenges_offered_max;
    uint64_t peers;         /* connected libp2p peers */
    uint64_t conns_trimmed; /* issue 33: connections the connection manager trimmed */
    uint64_t gossip_in, gossip_out;
    /* issue 33: admission prompts heard from others, passed on to the mesh or held back; and
     * those dropped before their signature was checked, since they could only be held back */
    uint64_t prompts_forwarded, prompts_held, prompts_unchecked;
    uint64_t purges;       /* self-purges completed (namespace or subgroup) */
    uint64_t gov_rejected; /* issue 30: received ops kept without effect */
    /* issue 33: signature checks a re-fold repeats, answered from memory or verified */
    uint64_t sig_memo_hits, sig_memo_misses;
    uint64_t uptime_s;          /* since mero_node_start */
    struct mero_metrics_ns *ns; /* owned: mero_node_metrics_cleanup */
    size_t nns;
};
/* Read every counter and gauge (0, or -MERO_ENOMEM / a store error). Loop thread. */
MERO_MUST_CHECK int mero_node_metrics(struct mero_node *node, struct mero_node_metrics *out,
                                      struct mero_err *err);
void mero_node_metrics_cleanup(struct mero_node_metrics *m);
/* merod run --metrics-public: GET /metrics needs no token. */
void mero_node_set_metrics_public(struct mero_node *node, bool on);
bool mero_node_metrics_public(const struct mero_node *node);

/* ---- issue 31: sealed sessions (src/node/sealed.c, docs/sealed.md) ---- */
struct mero_sealed_keys;
/* Answer a sealed handshake's Noise message 1 (n bytes) under the transport key with message
 * 2 carrying sid and the session lifetime, and give the session's keys: 0, -MERO_EPROTO
 * (malformed: wrong length, low-order key), -MERO_ECRYPTO (undecryptable). Loop thread. */
MERO_MUST_CHECK int mero_node_sealed_respond(const struct mero_node *node, const uint8_t *msg1,
                                             size_t n,
                                             const uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                                             uint8_t msg2[MERO_SEALED_MSG2_LEN],
                                             struct mero_sealed_keys *keys);
/* merod run --sealed-only: the API refuses plaintext admin requests but the few a client needs
 * to find the transport key. */
void mero_node_set_sealed_only(struct mero_node *node, bool on);
bool mero_node_sealed_only(const struct mero_node *node);
/* merod run --full-history (issue 37, docs/sync.md): catch up a context this node holds nothing
 * of by pulling its whole delta history, never by a peer's live state. */
void mero_node_set_full_history(struct mero_node *node, bool on);
/* merod run --tls-cert F --tls-key F: the admin API serves HTTPS with this PEM pair (NUL-ended;
 * both NULL: none). 0, -MERO_ECRYPTO when they do not parse or do not match, -MERO_ENOMEM. The
 * pair is copied; bindTlsKey binds the certificate's SPKI hash. Before mero_node_start. */
MERO_MUST_CHECK int mero_node_set_tls(struct mero_node *node, const char *cert_pem,
                                      const char *key_pem);
/* bindNodeKey's key vouches for the node's identity in a namespace (src/node/node_cert.c,
 * docs/relay.md "The chain to the attested key"): sig is the node key's Ed25519 signature over
 * "mero.node.identity-cert.v1" || ns || identity. 0, -MERO_ENOTFOUND (no identity in ns). */
struct mero_node_identity_cert {
    uint8_t node_key[MERO_ED25519_PK_LEN];
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t identity[MERO_IDENTITY_LEN];
    uint8_t sig[MERO_ED25519_SIG_LEN];
};
MERO_MUST_CHECK int mero_node_identity_cert(struct mero_node *node,
                                            const uint8_t ns[MERO_NS_ID_LEN],
                                            struct mero_node_identity_cert *out);
/* A stored delta's bytes by its id (*out owned, free()); -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero_node_delta_bytes(struct mero_node *node,
                                          const uint8_t id[MERO_DELTA_ID_LEN], uint8_t **out,
                                          size_t *len);
/* The pair (borrowed, valid until the node is freed) and its SPKI hash; false when none. */
bool mero_node_tls(const struct mero_node *node, const char **cert_pem, const char **key_pem,
                   uint8_t spki_sha256[MERO_SHA256_LEN]);

/* ---- issue 20: announced addresses (src/node/public.c) ---- */
#define MERO_NODE_MAX_ANNOUNCE 4 /* --announce addresses */

/*
 * Before open: one more --announce address, what identify tells peers to dial instead of our
 * listen addresses (a node behind a proxy or port forward). Checked at start (a bad one
 * refuses the start). -MERO_ETOOBIG past the limit, -MERO_ENOMEM.
 */
MERO_MUST_CHECK int mero_node_add_announce(struct mero_node *node, const char *multiaddr);

/* ---- issue 20: op-log state for fleet checks (src/node/fleet_state.c) ---- */
/* The namespace's op-log heads (sorted; *heads owned, free()) and its op count. */
MERO_MUST_CHECK int mero_node_ns_log_state(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                           uint8_t (**heads)[MERO_OP_ID_LEN], size_t *nheads,
                                           uint64_t *nops);

/* ---- issue 36: the raw op log for an audit export (src/node/audit_ops.c) ---- */
#define MERO_NODE_OPS_PAGE_MAX   64u  /* ops in one page of mero_node_ns_ops */
#define MERO_NODE_OP_REASON_SIZE 256u /* a rejected op's reason, with its NUL */
struct mero_node_op {
    uint8_t hash[MERO_OP_ID_LEN];
    uint8_t *bytes; /* the stored SignedNamespaceOp, owned */
    size_t len;
    int state; /* enum mero_op_state */
    char reason[MERO_NODE_OP_REASON_SIZE];
};
/*
 * Up to max ops of ns stored after local sequence `after`, in apply order (parents first),
 * with their outcome; *last_seq = the sequence of the last one (the next page's `after`).
 * Reads only. *out owned: mero_node_ops_free. Loop thread (like every mero_node_* read).
 */
MERO_MUST_CHECK int mero_node_ns_ops(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                     uint64_t after, size_t max, struct mero_node_op **out,
                                     size_t *n, uint64_t *last_seq);
/*
 * The plaintext of an encrypted op (its stored bytes) under the namespace key this node holds,
 * for `meroctl fleet audit --disclose-sealed` (docs/audit.md): never the key. *plain owned
 * (wipe and free it). -MERO_ENOTFOUND when the op is not encrypted or the key is not held.
 */
MERO_MUST_CHECK int mero_node_sealed_plaintext(struct mero_node *node, const uint8_t *bytes,
                                               size_t len, uint8_t **plain, size_t *plain_len);
void mero_node_ops_free(struct mero_node_op *ops, size_t n);
/*
 * The fleet audit of ns over this node's log (mero/audit.h): *json = the manifest.json text
 * (owned, free()), *nfindings = how many checks did not hold. Reads only (the re-fold uses a
 * temporary store of its own). Loop thread.
 */
MERO_MUST_CHECK int mero_node_ns_audit(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                                       char **json, size_t *nfindings, struct mero_err *err);

#endif
