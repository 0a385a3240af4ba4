/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gov.h - the governance core: the SQLite store (append-only op log + derived tables), local
 * actions that build, sign and apply ops, apply of ops received from peers with every rule
 * the spec makes normative, admit_tee_node, and the queries the node and admission layers use.
 * No networking: callers broadcast the op bytes returned by the local actions and feed the
 * bytes they receive to mero_gov_apply.
 *
 * Invariants: an op has an effect only if every rule accepts it at its place in the
 * namespace's canonical order (docs/governance.md "State resolution"), and its derived-table
 * effects are committed in the same SQLite transaction as its append; the derived state is
 * the same for every arrival order of the same ops; the op table refuses UPDATE and
 * DELETE (triggers) except through mero_gov_self_purge; applying the same op twice is a no-op;
 * every refusal carries a reason in struct mero_err (the §6.1 strings where they exist).
 *
 * Threading / thread safety: safe on distinct stores only: a store, and every function taking
 * it or an object read from it, is used from one thread at a time (the node loop).
 */
#ifndef MERO_GOV_H
#define MERO_GOV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/identity.h"
#include "mero/op.h"
#include "mero/quote.h"
#include "mero/sizes.h"

#define MERO_GOV_STORE_SCHEMA 10 /* SQLite schema (PRAGMA user_version) */
/*
 * Evidence lifetime (spec "Idempotency and refresh", tee::evidence_retry). UNVERIFIED values,
 * the one place they live (docs/admission.md "Evidence lifetime"): evidence older than
 * REFRESH_SECS is "due for a refresh" (admit step 6) and the TEE asks for one; evidence older
 * than MAX_AGE_SECS no longer counts wherever evidence is required (vouching, TEE-only duties);
 * the fleet view shows evidence "lapsing" from REFRESH_SECS and "lapsed" from MAX_AGE_SECS.
 */
#define MERO_GOV_EVIDENCE_REFRESH_SECS (12u * 3600u)
#define MERO_GOV_EVIDENCE_MAX_AGE_SECS (24u * 3600u)

struct mero_store;

/* ---- store -------------------------------------------------------------------------------- */
/*
 * Open (creating if needed, mode 0600) the SQLite database at path: WAL, synchronous=FULL,
 * foreign keys on, migrations to MERO_GOV_STORE_SCHEMA. An existing database file readable by
 * group/others is refused with -MERO_EKEYPERM (it holds secret keys). ":memory:" works for
 * tests. Returns an owned store (free with mero_store_close).
 */
MERO_MUST_CHECK int mero_store_open(const char *path, struct mero_store **out,
                                    struct mero_err *err);
/* As mero_store_open, but the file must exist and be non-empty (merod run: init made it). */
MERO_MUST_CHECK int mero_store_open_existing(const char *path, struct mero_store **out,
                                             struct mero_err *err);
/* SQLite's PRAGMA quick_check (full: integrity_check); -MERO_EIO with the first finding. */
MERO_MUST_CHECK int mero_store_check(struct mero_store *s, bool full, struct mero_err *err);
void mero_store_close(struct mero_store *s); /* NULL is a no-op */
/* Check every secret the store keeps (namespace identity seeds, the account root key, group
 * keys): each exactly 32 bytes, not all zero, a group key matching its key id. 0, or
 * -MERO_EINVAL with a message naming path (the file, for the message) and the fix. */
MERO_MUST_CHECK int mero_gov_check_secrets(struct mero_store *s, const char *path,
                                           struct mero_err *err);
/* Batch many applies in one transaction (bench, bulk sync). Nested applies use savepoints. */
MERO_MUST_CHECK int mero_store_begin(struct mero_store *s);
MERO_MUST_CHECK int mero_store_commit(struct mero_store *s);
void mero_store_rollback(struct mero_store *s);

/* ---- events and hooks --------------------------------------------------------------------- */
enum mero_gov_event_kind {
    MERO_EV_NAMESPACE_CREATED = 0,
    MERO_EV_GROUP_CREATED,
    MERO_EV_MEMBER_ADDED,       /* also for a TEE admission (before TEE_MEMBER_ADMITTED) */
    MERO_EV_MEMBER_REMOVED,     /* MemberRemoved and MemberLeft; role = the captured role */
    MERO_EV_TEE_MEMBER_REMOVED, /* per root and per cascaded subgroup row */
    MERO_EV_TEE_MEMBER_ADMITTED,
    MERO_EV_MEMBER_ROLE_SET,
    MERO_EV_ADMIN_CHANGED,
    MERO_EV_POLICY_SET,
    MERO_EV_EVIDENCE_RECORDED,
    MERO_EV_KEY_DELIVERED, /* an envelope addressed to us was opened and the key stored */
    MERO_EV_KEY_ROTATED,   /* a rotation was applied (key stored when addressed to us) */
    MERO_EV_CONTEXT_CREATED,
    MERO_EV_AUTO_FOLLOW_SET,
};

/* Borrowed pointers, valid during the callback only. Unused fields are NULL / -1. */
struct mero_gov_event {
    int kind;
    const uint8_t *ns;
    const uint8_t *group;
    const uint8_t *member; /* identity pk */
    int role;              /* captured/new role or MERO_ROLE_NONE */
    const uint8_t *op_hash;
    const uint8_t *context_id;
    const uint8_t *key_id;
    bool for_us; /* the member / recipient is our identity in this namespace */
};

/*
 * Issue 19 (docs/fleet.md): what governance keeps for the fleet view beyond the ops' own
 * fields. A release profile's name (mero/release.h's MERO_RELEASE_NAME_MAX); the advisory IDs
 * of a TEE's TCB level, comma-separated, from the offline check of its latest evidence (IDs
 * that do not fit are left off whole, never cut).
 */
#define MERO_GOV_PROFILE_NAME_MAX 64
#define MERO_GOV_ADVISORIES_MAX   1024

/* What the evidence verifier reports (offline DCAP check against carried collateral). */
struct mero_evidence_verdict {
    bool is_mock;
    char tcb_status[MERO_GOV_MAX_STR + 1];
    char advisories[MERO_GOV_ADVISORIES_MAX]; /* comma-separated advisory IDs, "" for none */
    struct mero_measurements m;
    uint8_t report_data[MERO_REPORT_DATA_LEN];
    bool has_td; /* the TD facts below are set (a real quote) */
    uint64_t td_attributes;
    uint8_t mrservicetd[MERO_MR_LEN];
};

/*
 * Caller-provided hooks. Any may be NULL:
 *  - quote_report_data: structural read of a real (non-mock) quote's 64 report-data bytes.
 *    NULL: mero_quote_report_data (src/attest). Mock quotes are read by gov (bytes 17..81).
 *  - quote_td_report: structural read of a real quote's TD report body (TDATTRIBUTES,
 *    MRSERVICETD, MRTD, RTMR0..3), no signature check; a peer cross-checks the facts an
 *    admission records against it. NULL: mero_quote_parse (src/attest).
 *  - evidence_verify: verify a real quote offline against its collateral at attested_at and
 *    fill the verdict. NULL: mero_dcap_verify_evidence against the carried collateral JSON.
 *  - release_check: admit step 3 for a signed-release policy (real quotes): fetch/verify the
 *    release's published-mrtds.json and match m against policy->profiles. 0 = match, with the
 *    matching profile's name in matched[cap] when matched is non-NULL; else a negative code
 *    with the reason in *reason. NULL: release-form admissions are refused (gov does not fetch
 *    anything itself).
 *  - on_event: governance events after each applied op (not during mero_gov_rebuild). It runs
 *    after the op's savepoint is released, so it may call back into the store (for example
 *    mero_gov_self_purge on a TeeMemberRemoved for_us); inside a caller's own
 *    mero_store_begin batch the events precede that batch's commit.
 */
struct mero_gov_hooks {
    void *ud;
    void (*on_event)(void *ud, const struct mero_gov_event *ev);
    int (*quote_report_data)(void *ud, const uint8_t *quote, size_t len,
                             uint8_t out[MERO_REPORT_DATA_LEN], struct mero_err *err);
    int (*quote_td_report)(void *ud, const uint8_t *quote, size_t len, struct mero_td_report *out,
                           struct mero_err *err);
    int (*evidence_verify)(void *ud, const uint8_t *quote, size_t qlen, const uint8_t *coll,
                           size_t clen, uint64_t attested_at, struct mero_evidence_verdict *v,
                           struct mero_err *err);
    int (*release_check)(void *ud, const char *release_version,
                         const struct mero_tee_policy *policy, const struct mero_measurements *m,
                         char *matched, size_t cap, struct mero_err *reason);
    void *release_ud; /* when non-NULL, passed to release_check instead of ud */
    /*
     * An audit's re-fold only (docs/audit.md "Sealed subgroup admissions"): for an encrypted
     * op whose key is not held, the plaintext its exporter disclosed (0 with *plain / *len),
     * -MERO_ENOTFOUND when none. The op is then applied from that plaintext, unauthenticated
     * (mero_op_open_plain): never set this on a node's store.
     */
    int (*sealed_plaintext)(void *ud, const uint8_t hash[MERO_OP_ID_LEN], const uint8_t **plain,
                            size_t *len);
    /* issue 30: when MemberRemoved is built here, the member's newest delta in each context of
     * group and its subgroups this node holds (out[0..*n), contexts ascending): the op's cuts */
    int (*write_cuts)(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                      const uint8_t group[MERO_GROUP_ID_LEN],
                      const uint8_t member[MERO_IDENTITY_LEN], struct mero_write_cut *out,
                      uint32_t max, uint32_t *n);
};
/*
 * A release_check hook over src/attest's release source: set hooks.release_check to this and
 * hooks.release_ud to a struct mero_release_source * (mero_release_source_new). Blocking on a
 * cache miss.
 */
int mero_gov_release_hook(void *ud, const char *release_version,
                          const struct mero_tee_policy *policy, const struct mero_measurements *m,
                          char *matched, size_t cap, struct mero_err *reason);
/*
 * The plaintext of an encrypted op (its signed bytes) under the namespace key we hold, for an
 * audit export that discloses sealed subgroup admissions (never the key: docs/audit.md).
 * *plain owned (wipe and free it). -MERO_ENOTFOUND when we do not hold the key it names.
 */
MERO_MUST_CHECK int mero_gov_sealed_plaintext(struct mero_store *s, const uint8_t *op_bytes,
                                              size_t len, uint8_t **plain, size_t *plain_len,
                                              struct mero_err *err);
/* Copy the hooks into the store (replacing earlier ones). */
void mero_store_set_hooks(struct mero_store *s, const struct mero_gov_hooks *h);

/* ---- identities --------------------------------------------------------------------------- */
/*
 * Our namespace identity (one Ed25519 key per namespace root, kept in the store). With
 * create = true a key is generated when absent. -MERO_ENOTFOUND when absent and !create.
 */
MERO_MUST_CHECK int mero_gov_identity(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                      bool create, uint8_t pk[static MERO_IDENTITY_LEN],
                                      struct mero_err *err);
/* The secret half (for signing a credential PoP, making quotes, ...). Wipe it after use. */
MERO_MUST_CHECK int mero_gov_identity_secret(struct mero_store *s,
                                             const uint8_t ns[static MERO_NS_ID_LEN],
                                             uint8_t sk[static MERO_ED25519_SK_LEN]);
/*
 * Our account root key (node-wide, kept in the store, created on first use) and the
 * credential certifying our identity in ns: device = mero_device_id(node key pk from the
 * account root), kem_pk derived from the identity.
 */
MERO_MUST_CHECK int mero_gov_credential(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN],
                                        struct mero_credential *out, struct mero_err *err);

/* ---- local actions ------------------------------------------------------------------------ */
/* Encoded ops a local action produced, in publish order (each already applied locally). */
struct mero_gov_oplist {
    struct mero_buf *v;
    size_t n;
};
void mero_gov_oplist_cleanup(struct mero_gov_oplist *l);

/*
 * Each action builds the op(s), signs with our namespace identity (parents = current heads,
 * nonce = our last + 1), applies them through the same path as mero_gov_apply (so a local
 * action the rules refuse fails the same way, nothing stored), and appends the encoded bytes
 * to `out` for the caller to broadcast.
 */

/* New namespace: identity created, we become its admin, a fresh group key is stored. */
MERO_MUST_CHECK int mero_gov_create_namespace(struct mero_store *s,
                                              uint8_t ns_out[static MERO_NS_ID_LEN],
                                              struct mero_gov_oplist *out, struct mero_err *err);
/* New subgroup under parent (visibility MERO_GROUP_OPEN / RESTRICTED); we are its admin. */
MERO_MUST_CHECK int mero_gov_create_subgroup(struct mero_store *s,
                                             const uint8_t ns[static MERO_NS_ID_LEN],
                                             const uint8_t parent[static MERO_GROUP_ID_LEN],
                                             int visibility,
                                             uint8_t group_out[static MERO_GROUP_ID_LEN],
                                             struct mero_gov_oplist *out, struct mero_err *err);
MERO_MUST_CHECK int mero_gov_add_member(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN],
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        const uint8_t member[static MERO_IDENTITY_LEN], int role,
                                        struct mero_gov_oplist *out, struct mero_err *err);
/* MemberRemoved + KeyRotation (one envelope per remaining direct member) when we hold the key. */
MERO_MUST_CHECK int mero_gov_remove_member(struct mero_store *s,
                                           const uint8_t ns[static MERO_NS_ID_LEN],
                                           const uint8_t group[static MERO_GROUP_ID_LEN],
                                           const uint8_t member[static MERO_IDENTITY_LEN],
                                           struct mero_gov_oplist *out, struct mero_err *err);
/* MemberLeft for our identity (no rotation). */
MERO_MUST_CHECK int mero_gov_leave(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                   const uint8_t group[static MERO_GROUP_ID_LEN],
                                   struct mero_gov_oplist *out, struct mero_err *err);
MERO_MUST_CHECK int mero_gov_set_member_role(struct mero_store *s,
                                             const uint8_t ns[static MERO_NS_ID_LEN],
                                             const uint8_t group[static MERO_GROUP_ID_LEN],
                                             const uint8_t member[static MERO_IDENTITY_LEN],
                                             int role, struct mero_gov_oplist *out,
                                             struct mero_err *err);
/* RootOp::AdminChanged: make member an admin of the namespace root. */
MERO_MUST_CHECK int mero_gov_change_admin(struct mero_store *s,
                                          const uint8_t ns[static MERO_NS_ID_LEN],
                                          const uint8_t member[static MERO_IDENTITY_LEN],
                                          struct mero_gov_oplist *out, struct mero_err *err);
/*
 * Publish a TEE admission policy on the namespace root (validated first; published as the V2
 * form unless policy->v2 is false). When the mode differs from the previous policy's, also
 * emits MemberRoleSet for every direct TEE row in another role in groups we administer; a row
 * in a Restricted subgroup we do not administer is logged and left. `converted` and
 * `skipped` (may be NULL) receive the counts.
 */
MERO_MUST_CHECK int mero_gov_set_policy(struct mero_store *s,
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        const struct mero_tee_policy *policy,
                                        struct mero_gov_oplist *out, size_t *converted,
                                        size_t *skipped, struct mero_err *err);
/* A context in group; context_id random. */
MERO_MUST_CHECK int mero_gov_create_context(struct mero_store *s,
                                            const uint8_t ns[static MERO_NS_ID_LEN],
                                            const uint8_t group[static MERO_GROUP_ID_LEN],
                                            const uint8_t application_id[static MERO_APP_ID_LEN],
                                            uint8_t context_out[static MERO_CONTEXT_ID_LEN],
                                            struct mero_gov_oplist *out, struct mero_err *err);
MERO_MUST_CHECK int mero_gov_set_auto_follow(struct mero_store *s,
                                             const uint8_t ns[static MERO_NS_ID_LEN],
                                             const uint8_t group[static MERO_GROUP_ID_LEN],
                                             const uint8_t member[static MERO_IDENTITY_LEN],
                                             bool contexts, bool subgroups,
                                             struct mero_gov_oplist *out, struct mero_err *err);
/* RootOp::KeyDelivery of group's current key, wrapped for member. */
MERO_MUST_CHECK int mero_gov_deliver_key(struct mero_store *s,
                                         const uint8_t ns[static MERO_NS_ID_LEN],
                                         const uint8_t group[static MERO_GROUP_ID_LEN],
                                         const uint8_t member[static MERO_IDENTITY_LEN],
                                         struct mero_gov_oplist *out, struct mero_err *err);

/* ---- the admission rule set (admission_rules.c) ------------------------------------------ */
/*
 * Which side judges. The admitter runs every rule; a peer applying an admission runs the same
 * sequence except the spent-quote rule (spec step 8: two admitters' concurrent ops applied in
 * different orders would otherwise disagree) and the signed-release fetch (the measurements
 * are the voucher's word under a release policy; peers re-check the TCB status only).
 */
enum mero_adm_side { MERO_ADM_SIDE_ADMITTER = 0, MERO_ADM_SIDE_PEER = 1 };

/*
 * The admission rules, in order. 1..MERO_TRUST__COUNT-1 are the quote-fact rules of
 * trust_rules.h (same numbers); the namespace-state rules follow. Stable: appended only.
 */
enum mero_adm_rule {
    MERO_ADM_RULE_OK = 0,
    /* no TeeAdmissionPolicy for the namespace (the namespace-state rules start at 32) */
    MERO_ADM_RULE_NO_POLICY = 32,    /* not a length */
    MERO_ADM_RULE_ROLE_NOT_MODE,     /* peer: the recorded role is not the policy mode's */
    MERO_ADM_RULE_QUOTE_LENGTH,      /* missing, or over MAX_TEE_QUOTE_BYTES */
    MERO_ADM_RULE_QUOTE_HASH,        /* quote_hash is not SHA-256 of the quote */
    MERO_ADM_RULE_MOCK_TCB,          /* a mock quote recorded with a real TCB status */
    MERO_ADM_RULE_RELEASE,           /* admitter, signed-release form: the release check */
    MERO_ADM_RULE_CREDENTIAL,        /* the credential does not certify the member */
    MERO_ADM_RULE_QUOTE_UNREADABLE,  /* the carried quote (report data, TD report) unreadable */
    MERO_ADM_RULE_BINDING,           /* the quote does not commit to the credential */
    MERO_ADM_RULE_DENIED,            /* on the group's deny list */
    MERO_ADM_RULE_NO_ROOT_ROW,       /* subgroup form for a member with no TEE row at the root */
    MERO_ADM_RULE_ROLE_LOCKED,       /* the member holds a non-TEE row in the namespace */
    MERO_ADM_RULE_QUOTE_USED,        /* admitter: quote already used in the namespace */
    MERO_ADM_RULE_NO_TD_FACTS,       /* admitter: a real quote whose TD attributes are unknown */
    MERO_ADM_RULE_TD_FACTS_MISMATCH, /* peer: recorded TD facts differ from the carried quote */
    MERO_ADM_RULE_MEASUREMENTS_MISMATCH, /* peer: recorded MRTD/RTMRs differ from the quote */
};

/* What the rules judge: an admission about to be published, or one being applied. */
struct mero_adm_case {
    int side;              /* enum mero_adm_side */
    const uint8_t *group;  /* the admission group (namespace root for a fleet join) */
    const uint8_t *member; /* the attested namespace identity */
    bool root_form;        /* cleartext root form (credential and quote carried) */
    bool check_role;       /* peer: `role` must be the policy mode's */
    int role;
    /*
     * Whether the judged op is published / applied. The admitter's no-op outcomes (already a
     * member, no refresh due) publish nothing, so the binding, role-lock and spent rules are
     * not asked of them. A peer always sets it.
     */
    bool publishing;
    bool is_mock;           /* also derived from the quote's header when one is given */
    const char *tcb_status; /* "Mock" for a mock quote */
    const struct mero_measurements *m;
    bool has_td; /* TD facts known (a real quote; V2 join) */
    uint64_t td_attributes;
    const uint8_t *mrservicetd;            /* 48 bytes, NULL = zero */
    const struct mero_credential *account; /* root form */
    const uint8_t *quote;                  /* NULL for the subgroup form at a peer */
    size_t quote_len;
    const struct mero_quote *parsed; /* the caller's parse of these bytes, or NULL: rules parse */
    const uint8_t *quote_hash;
    const char *release_version; /* admitter, signed-release form */
    /* out (admitter, optional): the release check writes the allowed profile the quote matched
     * here (MERO_GOV_PROFILE_NAME_MAX bytes); untouched when no release check runs */
    char *matched_profile;
};

/*
 * Run the admission rules for `c` under policy `p` (NULL: no policy). 0 when every rule
 * passes; else a negative code with *rule (optional) set to the first failing rule and its
 * fixed reason (mero_adm_rule_reason) in err. The one sequence the admitter's decision, every
 * peer's apply of MemberJoinedViaTeeAttestation (both forms) and - through the quote-fact
 * rules - TeeAuthorityEvidence and VerifierPolicy use.
 */
MERO_MUST_CHECK int mero_gov_admission_rules(struct mero_store *s,
                                             const uint8_t ns[static MERO_NS_ID_LEN],
                                             const struct mero_tee_policy *p,
                                             const struct mero_adm_case *c, int *rule,
                                             struct mero_err *err);
/* The quote-fact rules alone (mock, TCB, TD attributes, lists when check_measurements). */
MERO_MUST_CHECK int mero_gov_trust_rules(const struct mero_tee_policy *p, bool is_mock,
                                         const char *tcb_status, const struct mero_measurements *m,
                                         bool has_td, uint64_t td_attributes,
                                         const uint8_t *mrservicetd, bool check_measurements,
                                         int *rule, struct mero_err *err);
/* The fixed reason of a rule; the namespace-state ones as reference-calimero.md §6.1. */
const char *mero_adm_rule_reason(int rule);
const char *mero_adm_rule_name(int rule);
/* Whether member holds a row in any group of ns with a TEE role (tee = true) or another. */
MERO_MUST_CHECK int mero_gov_holds_row(struct mero_store *s,
                                       const uint8_t ns[static MERO_NS_ID_LEN],
                                       const uint8_t member[static MERO_IDENTITY_LEN], bool tee,
                                       bool *yes);

/* ---- admit_tee_node ----------------------------------------------------------------------- */
/* What verify_and_admit hands over after verifying the quote (spec step 4). */
struct mero_admit_request {
    uint8_t group_id[MERO_GROUP_ID_LEN]; /* = namespace id for a fleet join; a subgroup for
                                            tee_subgroup_admit */
    uint8_t member[MERO_IDENTITY_LEN];   /* the attested namespace identity */
    struct mero_credential account;
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN]; /* SHA-256(quote) (re-checked) */
    struct mero_measurements m;
    char tcb_status[MERO_GOV_MAX_STR + 1];
    bool is_mock;
    const char *release_version; /* NULL when the TEE named none */
    const uint8_t *quote;        /* borrowed */
    size_t quote_len;
    const struct mero_quote *parsed_quote; /* borrowed: `quote` parsed (real), or NULL */
    const uint8_t *collateral;             /* borrowed, NULL for mock */
    size_t collateral_len;
    uint64_t attested_at; /* unix seconds */
    uint64_t now;         /* unix seconds, for the evidence-refresh decision */
    /* TD facts of a verified real quote (recorded in the join so peers re-check them) */
    bool has_td;
    uint64_t td_attributes;
    uint8_t mrservicetd[MERO_MR_LEN];
    /* out (optional, MERO_GOV_PROFILE_NAME_MAX bytes): under a signed-release policy, the
     * allowed profile a real quote matched; "" otherwise (measurement form, mock quote, refusal,
     * or an admission decided without the release check) */
    char *matched_profile;
};

enum mero_admit_outcome {
    MERO_ADMIT_ADMITTED = 0,   /* join (+ evidence, + key delivery) published */
    MERO_ADMIT_ALREADY_MEMBER, /* no-op (maybe an evidence refresh published) */
    MERO_ADMIT_NOT_A_VOUCHER,  /* we may not vouch: nothing published */
    MERO_ADMIT_CONVERTED,      /* a TEE row in the other role re-admitted (converted) */
};

/* The pure decision: what admit_tee_node would publish, with no state change. */
struct mero_admit_decision {
    int outcome;
    int role; /* the role the join would record */
    bool publish_join;
    bool publish_evidence;
    bool deliver_key;
};

/*
 * Decide (steps 1-8). Refusals return a negative code with the reason in *reason:
 * -MERO_ENOPOLICY "no TeeAdmissionPolicy set for group", -MERO_EREFUSED "mock attestation
 * rejected by group policy" / "TCB status not in policy allowlist" / "MRTD not in policy
 * allowlist" / "RTMR1 ..." / "RTMR3 not in policy allowlist" / "... empty allowed_mrtd ..." /
 * "the quote does not commit to the credential admitted" / "the account credential does not
 * certify the attested key" / release reasons, -MERO_EREMOVED "was removed from group <hex>
 * and cannot rejoin", -MERO_EQUOTEUSED "TEE attestation quote already used". NotAVoucher is
 * not an error: outcome MERO_ADMIT_NOT_A_VOUCHER, return 0.
 */
MERO_MUST_CHECK int mero_gov_admit_decide(struct mero_store *s,
                                          const uint8_t ns[static MERO_NS_ID_LEN],
                                          const struct mero_admit_request *req,
                                          struct mero_admit_decision *d, struct mero_err *reason);
/*
 * Decide, then sign, apply locally and return the ops to publish, in order:
 * MemberJoinedViaTeeAttestation, TeeAuthorityEvidence, KeyDelivery (steps 9-10).
 */
MERO_MUST_CHECK int mero_gov_admit_tee_node(struct mero_store *s,
                                            const uint8_t ns[static MERO_NS_ID_LEN],
                                            const struct mero_admit_request *req, int *outcome,
                                            struct mero_gov_oplist *out, struct mero_err *reason);

/* ---- remote apply ------------------------------------------------------------------------- */
enum mero_apply_status {
    MERO_APPLY_APPLIED = 0,
    MERO_APPLY_DUPLICATE = 1,
    MERO_APPLY_PURGED = 2,
    MERO_APPLY_REJECTED = 3, /* stored, without effect: the rules refuse it at its place */
};

/*
 * Apply an op received from a peer: bounded decode, schema version, signature, namespace
 * (the namespace must exist unless the op is its NamespaceCreated), parents (all known, else
 * -MERO_EMISSINGPARENT so the caller can pull them; the first missing hash in missing_out if
 * non-NULL), then the rules, then append + derived tables in one transaction and events.
 * An op already stored returns 0 with *status = MERO_APPLY_DUPLICATE. hash_out may be NULL.
 * An op of a namespace this node self-purged (its `purged` tombstone stands) is dropped before
 * any other check: 0 with *status = MERO_APPLY_PURGED, nothing stored, no event, no parent
 * asked for (a sync answer or gossip that raced the purge cannot bring the namespace back).
 * Issue 30 (docs/governance.md "State resolution"): the op is judged at its place in the
 * namespace's canonical order, re-folding the namespace when it sorts before ops already
 * applied. An op the rules refuse there, signed by an identity that has held a row in the
 * namespace, is stored without effect: the refusal's negative code and reason as before, with
 * *status = MERO_APPLY_REJECTED (it is served by sync, a second copy is a DUPLICATE, never
 * refused again, and it takes effect if a later re-fold admits it); anyone else's refusal
 * stores nothing (*status untouched). An encrypted group op
 * (NamespaceOp tag 2) whose key we do not hold is stored without effect (status APPLIED) and
 * takes effect, by a re-fold, when the key arrives ("Peers without the key").
 */
MERO_MUST_CHECK int mero_gov_apply(struct mero_store *s, const uint8_t *bytes, size_t len,
                                   int *status, uint8_t *hash_out, uint8_t *missing_out,
                                   struct mero_err *err);

/* An op's outcome at its place in the canonical order (issue 30). */
enum mero_op_state { MERO_OP_REJECTED = 0, MERO_OP_EFFECTIVE = 1, MERO_OP_DEFERRED = 2 };
/* The outcome of a stored op and, for a rejected one, the reason (reason may be NULL).
 * -MERO_ENOTFOUND when the op is not stored. */
MERO_MUST_CHECK int mero_gov_op_state(struct mero_store *s,
                                      const uint8_t hash[static MERO_OP_ID_LEN], int *state,
                                      char *reason, size_t cap);

/* ---- queries ------------------------------------------------------------------------------ */
struct mero_gov_member {
    uint8_t id[MERO_IDENTITY_LEN];
    int role;
    bool tee;                         /* a TEE row: the fields below are set */
    uint8_t account[MERO_SHA256_LEN]; /* account id (a domain hash), from the credential */
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN];
    struct mero_measurements m;
    char tcb_status[MERO_GOV_MAX_STR + 1];
};

/* Direct rows of a group, sorted by id. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_members(struct mero_store *s,
                                     const uint8_t group[static MERO_GROUP_ID_LEN],
                                     struct mero_gov_member **out, size_t *n);
/* The direct row's role, or MERO_ROLE_NONE. */
MERO_MUST_CHECK int mero_gov_direct_role(struct mero_store *s,
                                         const uint8_t group[static MERO_GROUP_ID_LEN],
                                         const uint8_t member[static MERO_IDENTITY_LEN], int *role);
/*
 * Effective role: the direct row, else (for an Open group) the role inherited from the parent,
 * recursively; TEE roles are never inherited (MERO_ROLE_NONE then).
 */
MERO_MUST_CHECK int mero_gov_effective_role(struct mero_store *s,
                                            const uint8_t group[static MERO_GROUP_ID_LEN],
                                            const uint8_t member[static MERO_IDENTITY_LEN],
                                            int *role);
MERO_MUST_CHECK int mero_gov_is_admin(struct mero_store *s,
                                      const uint8_t group[static MERO_GROUP_ID_LEN],
                                      const uint8_t member[static MERO_IDENTITY_LEN], bool *yes);
/* Admin of the group (effective) or a direct TEE member of it. */
MERO_MUST_CHECK int mero_gov_may_vouch(struct mero_store *s,
                                       const uint8_t group[static MERO_GROUP_ID_LEN],
                                       const uint8_t member[static MERO_IDENTITY_LEN], bool *yes);
/*
 * The TEE role a member acts with in group: its namespace-root TEE row's role when it has
 * one, else its direct TEE row in group, else MERO_ROLE_NONE (warrant_gate::executor_standing).
 */
MERO_MUST_CHECK int mero_gov_executor_standing(struct mero_store *s,
                                               const uint8_t group[static MERO_GROUP_ID_LEN],
                                               const uint8_t member[static MERO_IDENTITY_LEN],
                                               int *role);
/* The policy (subgroups resolve to the root). *found false when none set. Clean up *out. */
MERO_MUST_CHECK int mero_gov_read_policy(struct mero_store *s,
                                         const uint8_t group[static MERO_GROUP_ID_LEN],
                                         struct mero_tee_policy *out, bool *found,
                                         struct mero_err *err);
/* A quote hash used by an admission or by evidence anywhere in the namespace. */
MERO_MUST_CHECK int mero_gov_is_quote_hash_used(struct mero_store *s,
                                                const uint8_t ns[static MERO_NS_ID_LEN],
                                                const uint8_t hash[static MERO_QUOTE_HASH_LEN],
                                                bool *used);
/* Namespace of a group (the root of its tree); -MERO_ENOTFOUND for an unknown group. */
MERO_MUST_CHECK int mero_gov_namespace_of(struct mero_store *s,
                                          const uint8_t group[static MERO_GROUP_ID_LEN],
                                          uint8_t ns[static MERO_NS_ID_LEN]);
/* Parent and visibility of a group (a root has parent == itself). */
MERO_MUST_CHECK int mero_gov_group_info(struct mero_store *s,
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        uint8_t parent[static MERO_GROUP_ID_LEN], int *visibility);
MERO_MUST_CHECK int mero_gov_is_denied(struct mero_store *s,
                                       const uint8_t group[static MERO_GROUP_ID_LEN],
                                       const uint8_t member[static MERO_IDENTITY_LEN],
                                       bool *denied);
MERO_MUST_CHECK int mero_gov_auto_follow(struct mero_store *s,
                                         const uint8_t group[static MERO_GROUP_ID_LEN],
                                         const uint8_t member[static MERO_IDENTITY_LEN],
                                         bool *contexts, bool *subgroups);

struct mero_gov_context {
    uint8_t id[MERO_CONTEXT_ID_LEN];
    uint8_t group[MERO_GROUP_ID_LEN];
    uint8_t application_id[MERO_APP_ID_LEN];
};
/* Contexts of a namespace (all its groups), in creation order. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_contexts(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                      struct mero_gov_context **out, size_t *n);
/* The namespace and group of context ctx (a known namespace's); -MERO_ENOTFOUND for none. */
MERO_MUST_CHECK int mero_gov_context_of(struct mero_store *s,
                                        const uint8_t ctx[static MERO_CONTEXT_ID_LEN],
                                        uint8_t ns[static MERO_NS_ID_LEN],
                                        uint8_t group[static MERO_GROUP_ID_LEN]);
/* Groups of a namespace (root first). *out owned (free()). */
MERO_MUST_CHECK int mero_gov_groups(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                    uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n);
/* Namespaces this store knows. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_namespaces(struct mero_store *s, uint8_t (**out)[MERO_NS_ID_LEN],
                                        size_t *n);
/* Namespaces this node joined (it holds an identity for them: a member's join, a TEE's
 * fleet-join) of which it holds no op yet: what its sync must still ask every peer for.
 * *out owned (free()). */
MERO_MUST_CHECK int mero_gov_namespaces_unheld(struct mero_store *s,
                                               uint8_t (**out)[MERO_NS_ID_LEN], size_t *n);

/* DAG heads of a namespace, sorted. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_heads(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                   uint8_t (**out)[MERO_OP_ID_LEN], size_t *n);
/* Op hashes of a namespace with local sequence > after_seq, in apply order (parents first),
 * at most max; *last_seq = sequence of the last one returned. For sync. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_op_hashes(struct mero_store *s,
                                       const uint8_t ns[static MERO_NS_ID_LEN], uint64_t after_seq,
                                       size_t max, uint8_t (**out)[MERO_OP_ID_LEN], size_t *n,
                                       uint64_t *last_seq);
MERO_MUST_CHECK int mero_gov_has_op(struct mero_store *s, const uint8_t hash[static MERO_OP_ID_LEN],
                                    bool *yes);
/* The encoded op (append to out). -MERO_ENOTFOUND when unknown. */
MERO_MUST_CHECK int mero_gov_op_get(struct mero_store *s, const uint8_t hash[static MERO_OP_ID_LEN],
                                    struct mero_buf *out);
/* A number that moves whenever anything in the store may have changed (SQLite's total changes,
 * a rolled-back write included; reads never move it): an answer read from the store holds while
 * it stays the same (issue 33: a fleet join's own admission status). */
uint64_t mero_gov_generation(struct mero_store *s);
/* Number of ops stored for ns; the seq of its newest (0: none), moved by every op stored. */
MERO_MUST_CHECK int mero_gov_op_count(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                      uint64_t *n);
MERO_MUST_CHECK int mero_gov_op_last_seq(struct mero_store *s,
                                         const uint8_t ns[static MERO_NS_ID_LEN], uint64_t *seq);
/* issue 30: heads (at most max) of the cuts that effective removals of member name for ctx. */
MERO_MUST_CHECK int mero_gov_write_cuts(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN],
                                        const uint8_t member[static MERO_IDENTITY_LEN],
                                        const uint8_t ctx[static MERO_CONTEXT_ID_LEN],
                                        uint8_t (*heads)[MERO_DELTA_ID_LEN], size_t max, size_t *n);
/* *yes = who is a principal of ns (held a row, or a stored op names it; docs/governance.md). */
MERO_MUST_CHECK int mero_gov_principal(struct mero_store *s,
                                       const uint8_t ns[static MERO_NS_ID_LEN],
                                       const uint8_t who[static MERO_IDENTITY_LEN], bool *yes);
/* The current group key we hold for group (-MERO_ENOTFOUND when we hold none). Wipe it. */
MERO_MUST_CHECK int mero_gov_group_key(struct mero_store *s,
                                       const uint8_t group[static MERO_GROUP_ID_LEN],
                                       uint8_t key[static MERO_GROUP_KEY_LEN],
                                       uint8_t key_id[static MERO_KEY_ID_LEN]);
/* A group key by its id (older keys stay readable for older data). */
MERO_MUST_CHECK int mero_gov_group_key_by_id(struct mero_store *s,
                                             const uint8_t group[static MERO_GROUP_ID_LEN],
                                             const uint8_t key_id[static MERO_KEY_ID_LEN],
                                             uint8_t key[static MERO_GROUP_KEY_LEN]);
/* Store a group key obtained out of band (e.g. a GroupKeyRequest answer); becomes current.
 * Deferred ops waiting for this key (encrypted group ops and those queued behind them) are
 * then applied in log order, with their events. */
MERO_MUST_CHECK int mero_gov_group_key_put(struct mero_store *s,
                                           const uint8_t group[static MERO_GROUP_ID_LEN],
                                           const uint8_t key[static MERO_GROUP_KEY_LEN]);
/* Open an envelope addressed to our identity in ns. */
MERO_MUST_CHECK int mero_gov_unwrap(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                    const uint8_t group[static MERO_GROUP_ID_LEN],
                                    const struct mero_key_envelope *e,
                                    uint8_t key[static MERO_GROUP_KEY_LEN], struct mero_err *err);

/* ---- maintenance -------------------------------------------------------------------------- */
/* A canonical text dump of every derived table (rows sorted), for comparing states. */
MERO_MUST_CHECK int mero_gov_dump(struct mero_store *s, struct mero_buf *out);
/*
 * `merod check`: every stored op decodes, matches its stored hash and its signature verifies,
 * and the derived tables equal a rebuild from the log (done in a transaction that is rolled
 * back: nothing is changed). *nops = ops checked. -MERO_EIO with the first finding.
 */
MERO_MUST_CHECK int mero_gov_verify(struct mero_store *s, size_t *nops, struct mero_err *err);
/*
 * Issue 32 item 6: the derived tables sealed at a clean stop and checked at the next start.
 * mero_gov_seal_derived stores SHA-256 of their canonical dump (mero_gov_dump).
 * mero_gov_check_derived compares it with the tables as they are and removes it: equal, 0
 * (*how = "seal"); different, -MERO_ESTATE (rows edited or damaged while the node was stopped).
 * With no seal (the last stop was a crash, or a store from before the seal), the tables are
 * compared with a rebuild from the log in a rolled-back transaction instead (*how = "replay").
 */
MERO_MUST_CHECK int mero_gov_seal_derived(struct mero_store *s, struct mero_err *err);
MERO_MUST_CHECK int mero_gov_check_derived(struct mero_store *s, const char **how,
                                           struct mero_err *err);
/* Rebuild every derived table from the op log (each namespace in its canonical order); no
 * events. */
MERO_MUST_CHECK int mero_gov_rebuild(struct mero_store *s, struct mero_err *err);
/*
 * Self-purge (spec "Eviction and self-purge"): group == ns purges the whole namespace (op log
 * through the purge path, derived rows, group keys, identity); a subgroup purges only that
 * group's local key material and rows held for us. The pending marker is written first and
 * cleared when done; a whole-namespace purge writes the namespace's `purged` tombstone in the
 * same transaction (see mero_gov_purged).
 */
MERO_MUST_CHECK int mero_gov_self_purge(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN],
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        struct mero_err *err);
/* Mark a namespace (or, for a subgroup-only eviction, a subgroup) as due for self-purge. The
 * apply path marks our own TEE removal in the removal's transaction. */
MERO_MUST_CHECK int mero_gov_purge_mark(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN]);
/* Ids (namespaces or subgroups) with a pending self-purge marker (startup reconcile). *out
 * owned (free()). */
MERO_MUST_CHECK int mero_gov_purge_pending(struct mero_store *s, uint8_t (**out)[MERO_GROUP_ID_LEN],
                                           size_t *n);
/* *yes = this node self-purged namespace ns and has not joined it again since (the local
 * tombstone). On an error the caller fails closed (treats the namespace as purged). */
MERO_MUST_CHECK int mero_gov_purged(struct mero_store *s, const uint8_t ns[static MERO_NS_ID_LEN],
                                    bool *yes);
/* Forget the tombstone of ns: called by a new join of the namespace (fleet-join, the join
 * route) before it subscribes or pulls anything. Idempotent. */
MERO_MUST_CHECK int mero_gov_purged_clear(struct mero_store *s,
                                          const uint8_t ns[static MERO_NS_ID_LEN]);

/* ---- issue 15: relay warrant (src/gov/warrant.c) ---- */
/*
 * May executor relay members' writes in group (warrant_gate::executor_standing)? *standing is
 * its TEE standing there (mero_gov_executor_standing: the namespace root TEE row's role, else
 * its direct TEE row in group, else MERO_ROLE_NONE); *may_relay is true only when that is
 * RelayTee and the executor reaches group (a row there or in an Open-reachable ancestor). Used
 * by the intents route and by every peer at the cut. Thread safety: as the store.
 */
MERO_MUST_CHECK int mero_gov_relay_standing(struct mero_store *s,
                                            const uint8_t group[static MERO_GROUP_ID_LEN],
                                            const uint8_t executor[static MERO_IDENTITY_LEN],
                                            int *standing, bool *may_relay);

/* ---- issue 16: self-purge leaves nothing (src/gov/store.c) ---- */
/* Copy every WAL frame into gov.db and truncate the WAL to zero bytes (PRAGMA
 * wal_checkpoint(TRUNCATE)): with secure_delete on, what a purge deleted is then zeroes in the
 * database file and absent from the WAL. 0, or -MERO_EBUSY when a reader or an open
 * transaction kept it from finishing (retry later), -MERO_EIO on an I/O error. */
MERO_MUST_CHECK int mero_store_checkpoint(struct mero_store *s);

/* ---- issue 16: evidence lifetime (src/gov/query.c) ---- */
/* A TEE whose evidence lapsed asks to vouch: the reason it is refused (docs/admission.md). */
#define MERO_GOV_REASON_EVIDENCE_LAPSED                                                            \
    "this TEE's attestation evidence is missing or older than the maximum age, so it may not "     \
    "vouch until its evidence is refreshed; ask another admitter"
enum mero_vouch_standing {
    MERO_VOUCH_NO = 0, /* neither an admin nor a TEE member of the group */
    MERO_VOUCH_YES,    /* an admin, or a TEE member whose evidence counts at now */
    MERO_VOUCH_LAPSED, /* a TEE member whose namespace-root evidence is missing or too old */
};
/* Evidence attested at `at` no longer counts at `now` (unix seconds): now - at is at least
 * MERO_GOV_EVIDENCE_MAX_AGE_SECS. A clock behind `at` counts it as fresh. */
bool mero_gov_evidence_lapsed(uint64_t at, uint64_t now);
/* Evidence attested at `at` is due for a refresh at `now` (MERO_GOV_EVIDENCE_REFRESH_SECS). */
bool mero_gov_evidence_due(uint64_t at, uint64_t now);
/* mero_gov_may_vouch judged at now (unix seconds, the caller's clock: the admitting node
 * judges, peers do not): an admin vouches; a TEE member only while the evidence of its
 * namespace-root row counts (mero_gov_evidence_lapsed). *standing: enum mero_vouch_standing. */
MERO_MUST_CHECK int mero_gov_vouch_standing(struct mero_store *s,
                                            const uint8_t group[static MERO_GROUP_ID_LEN],
                                            const uint8_t member[static MERO_IDENTITY_LEN],
                                            uint64_t now, int *standing);
/* attested_at of member's latest evidence in group (found false when it has none). */
MERO_MUST_CHECK int mero_gov_evidence_at(struct mero_store *s,
                                         const uint8_t group[static MERO_GROUP_ID_LEN],
                                         const uint8_t member[static MERO_IDENTITY_LEN],
                                         bool *found, uint64_t *at);
/* Issue 19: the advisory IDs (comma-separated, "" for none) of the offline check of member's
 * latest evidence in group; found false (and out "") when it has none. Outputs are written
 * only on 0. */
MERO_MUST_CHECK int mero_gov_evidence_advisories(struct mero_store *s,
                                                 const uint8_t group[static MERO_GROUP_ID_LEN],
                                                 const uint8_t member[static MERO_IDENTITY_LEN],
                                                 bool *found,
                                                 char out[static MERO_GOV_ADVISORIES_MAX]);

/* ---- issue 16: reach - subgroups and keys (src/gov/reach.c) ---- */
/* The role through which member reaches group: its direct row, else the row inherited from
 * the parent through Open subgroups - a TEE row included, with the root row's role (unlike
 * mero_gov_effective_role: a TEE reads and serves the Open subgroups below its row, but is
 * never given a row there). Never across a Restricted boundary. MERO_ROLE_NONE when none. */
MERO_MUST_CHECK int mero_gov_reach_role(struct mero_store *s,
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        const uint8_t member[static MERO_IDENTITY_LEN], int *role);
/* The members reaching group (its direct rows, then those inherited through Open parents; the
 * nearest row wins). *out owned (free()). */
MERO_MUST_CHECK int mero_gov_reach_members(struct mero_store *s,
                                           const uint8_t group[static MERO_GROUP_ID_LEN],
                                           struct mero_gov_member **out, size_t *n);
/* The groups of ns (root first) that member reaches. *out owned (free()). */
MERO_MUST_CHECK int mero_gov_reached_groups(struct mero_store *s,
                                            const uint8_t ns[static MERO_NS_ID_LEN],
                                            const uint8_t member[static MERO_IDENTITY_LEN],
                                            uint8_t (**out)[MERO_GROUP_ID_LEN], size_t *n);
/* The ids of every key we hold for group, newest (the current one) first. *out owned. */
MERO_MUST_CHECK int mero_gov_group_key_ids(struct mero_store *s,
                                           const uint8_t group[static MERO_GROUP_ID_LEN],
                                           uint8_t (**out)[MERO_KEY_ID_LEN], size_t *n);
/* Store an older key of group (a GroupKeysRequest page): it becomes the oldest key held, never
 * the current one - unless no key is held, when it is the current key. Deferred ops waiting
 * for it are then applied, as for mero_gov_group_key_put. */
MERO_MUST_CHECK int mero_gov_group_key_put_past(struct mero_store *s,
                                                const uint8_t group[static MERO_GROUP_ID_LEN],
                                                const uint8_t key[static MERO_GROUP_KEY_LEN]);
/* tee_subgroup_admit: admit member, a TEE holding a row at the namespace root, into subgroup
 * `group` with the quote, credential and facts of its root admission (found in our op log), as
 * mero_gov_admit_tee_node does (the GroupOp form, sealed under the namespace key when held,
 * KeyDelivery of the subgroup key). -MERO_ENOTFOUND: group not in ns; -MERO_EINVAL: group is
 * the root; -MERO_ESTATE: member holds no TEE row at the root. *outcome as admit_tee_node
 * (MERO_ADMIT_NOT_A_VOUCHER when we are not an admin of the subgroup: nothing published). */
MERO_MUST_CHECK int mero_gov_subgroup_admit(struct mero_store *s,
                                            const uint8_t ns[static MERO_NS_ID_LEN],
                                            const uint8_t group[static MERO_GROUP_ID_LEN],
                                            const uint8_t member[static MERO_IDENTITY_LEN],
                                            uint64_t now, int *outcome, struct mero_gov_oplist *out,
                                            struct mero_err *err);
/* Rotate group's key outside a MemberRemoved (the removal cascade of a root TEE): a fresh key,
 * stored as our current key, and one KeyDelivery of it to every member reaching the group
 * except `exclude` and us. Only an admin of the group (-MERO_ENOTADMIN otherwise). */
MERO_MUST_CHECK int mero_gov_rotate_key(struct mero_store *s,
                                        const uint8_t ns[static MERO_NS_ID_LEN],
                                        const uint8_t group[static MERO_GROUP_ID_LEN],
                                        const uint8_t exclude[static MERO_IDENTITY_LEN],
                                        struct mero_gov_oplist *out, struct mero_err *err);

#endif
