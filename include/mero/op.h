/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op.h - governance ops: the types, the borsh-style codec, signing and hashing
 * (reference-calimero.md §6.3; layout and discriminants in docs/governance.md).
 *
 *   SignedNamespaceOp { version u8, namespace_id [32], parent_op_hashes Vec<[32]>,
 *                       signer [32], nonce u64, op NamespaceOp, signature [64] }
 *   NamespaceOp = Root(RootOp) tag 0 | Group { group_id [32], op GroupOp,
 *                                              key_rotation Option<KeyRotation> } tag 1
 *               | Group encrypted { group_id, key_id, nonce, ciphertext, key_rotation } tag 2
 *   signature = Ed25519(signer, "calimero.namespace.v1" || borsh(signable)), signable = all
 *               fields but the signature; op hash = SHA-256 of those same signed bytes.
 *
 * Invariants: the decoder is bounded (every length checked against what remains and against
 * the MERO_GOV_MAX_* caps), refuses trailing bytes, unknown tags and any schema version other
 * than MERO_GOV_SCHEMA_VERSION (-MERO_ESCHEMA). Enum discriminants are fixed forever: new
 * variants are appended, never renumbered.
 *
 * Thread safety: every function here is safe on distinct objects (no shared state); a
 * decoded op may be read by many threads at once.
 */
#ifndef MERO_OP_H
#define MERO_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"
#include "mero/identity.h"

#define MERO_GOV_SCHEMA_VERSION       23
#define MERO_GOV_SIGN_DOMAIN          "calimero.namespace.v1"
#define MERO_GOV_MAX_OP_BYTES         (192u * 1024u)
#define MERO_GOV_MAX_PARENTS          64u
#define MERO_GOV_MAX_CUTS             256u /* issue 30: contexts a MemberRemoved names a cut for */
#define MERO_GOV_MAX_QUOTE_BYTES      16384u /* MAX_TEE_QUOTE_BYTES */
#define MERO_GOV_MAX_COLLATERAL_BYTES (160u * 1024u)
#define MERO_GOV_MAX_LIST             256u /* entries in one policy list */
#define MERO_GOV_MAX_STR              127u /* bytes in one policy / measurement string */
#define MERO_GOV_MAX_ENVELOPES        4096u
#define MERO_GOV_ENVELOPE_CT_LEN      48u /* 32-byte key + 16-byte GCM tag */
/* Ciphertext of an encrypted group op (NamespaceOp tag 2): GroupOp plaintext + 16-byte tag. */
#define MERO_GOV_MIN_SEALED_BYTES 17u
#define MERO_GOV_MAX_SEALED_BYTES 4096u

/* GroupMemberRole (borsh u8). */
enum mero_role {
    MERO_ROLE_ADMIN = 0,
    MERO_ROLE_MEMBER = 1,
    MERO_ROLE_READONLY = 2,
    MERO_ROLE_READONLY_TEE = 3,
    MERO_ROLE_RELAY_TEE = 4,
};
#define MERO_ROLE_NONE (-1)
bool mero_role_is_tee(int role);
bool mero_role_valid(int role);
const char *mero_role_name(int role); /* "Admin", ..., "RelayTee", "?" */

enum mero_tee_mode { MERO_TEE_MODE_REPLICA = 0, MERO_TEE_MODE_RELAY = 1 };
/* The role a mode mints: ReadOnlyTee for replica, RelayTee for relay. */
int mero_tee_mode_role(int mode);

enum mero_visibility { MERO_GROUP_OPEN = 0, MERO_GROUP_RESTRICTED = 1 };

/*
 * NamespaceOp tags. MERO_SCOPE_GROUP_ENCRYPTED = Group { group_id [32], key_id [32] =
 * SHA-256(namespace group key), nonce [12], ciphertext Vec<u8> (17..4096 bytes) = AES-256-GCM
 * (key, nonce, AAD = group_id) of borsh(GroupOp), key_rotation Option<KeyRotation> (None) }.
 */
enum mero_op_scope { MERO_SCOPE_ROOT = 0, MERO_SCOPE_GROUP = 1, MERO_SCOPE_GROUP_ENCRYPTED = 2 };

/* RootOp discriminants (3, 6, 10 from the reference; the rest ours, see docs/governance.md). */
enum mero_root_op {
    MERO_ROOT_GROUP_CREATED = 0,
    MERO_ROOT_ADMIN_CHANGED = 3,
    MERO_ROOT_KEY_DELIVERY = 6,
    MERO_ROOT_MEMBER_JOINED_TEE = 10,
    MERO_ROOT_NAMESPACE_CREATED = 13,
};
/* Wire tag of the root join carrying TD facts (decodes to MERO_ROOT_MEMBER_JOINED_TEE with
 * join.has_td; docs/governance.md). */
#define MERO_ROOT_TAG_MEMBER_JOINED_TEE_V2 14

/* GroupOp discriminants (18, 19, 37, 38 from the reference; the rest ours). */
enum mero_group_op {
    MERO_GROUP_MEMBER_ADDED = 0,
    MERO_GROUP_MEMBER_REMOVED = 1,
    MERO_GROUP_MEMBER_ROLE_SET = 2,
    MERO_GROUP_MEMBER_LEFT = 3,
    MERO_GROUP_CONTEXT_CREATED = 4,
    MERO_GROUP_MEMBER_SET_AUTO_FOLLOW = 5,
    MERO_GROUP_TEE_POLICY_SET = 18,
    MERO_GROUP_MEMBER_JOINED_TEE = 19,
    MERO_GROUP_TEE_AUTHORITY_EVIDENCE = 34,
    MERO_GROUP_TEE_RELEASE_POLICY_SET = 35,
    MERO_GROUP_TEE_POLICY_SET_V2 = 37,
    MERO_GROUP_TEE_RELEASE_POLICY_SET_V2 = 38,
};
/*
 * Wire tags appended for the TD-attribute rules (docs/governance.md). They decode to the kinds
 * above with a flag, so no handler dispatches on them: 64 = MemberJoinedViaTeeAttestation with
 * TD facts (join.has_td), 65 / 66 = the V2 policy forms with TD-attribute knobs (policy.v3).
 */
#define MERO_GROUP_TAG_MEMBER_JOINED_TEE_V2      64
#define MERO_GROUP_TAG_TEE_POLICY_SET_V3         65
#define MERO_GROUP_TAG_TEE_RELEASE_POLICY_SET_V3 66
/* issue 30: MemberRemoved with cuts (n_cuts > 0): member [32], cuts u32 n (1..MERO_GOV_MAX_CUTS)
 * x {context [32], head [32]}, contexts strictly ascending; decodes to MERO_GROUP_MEMBER_REMOVED
 * (docs/governance.md "What a removal vouches for"). Without cuts the op is tag 1, as before. */
#define MERO_GROUP_TAG_MEMBER_REMOVED_CUTS 67

/* One cut: in context, the removed member's newest direct delta as the remover held it. */
struct mero_write_cut {
    uint8_t context[MERO_CONTEXT_ID_LEN];
    uint8_t head[MERO_DELTA_ID_LEN];
};

/* A vector of owned NUL-terminated strings. */
struct mero_strlist {
    char **v;
    uint32_t n;
};
MERO_MUST_CHECK int mero_strlist_push(struct mero_strlist *l, const char *s);
void mero_strlist_cleanup(struct mero_strlist *l);
bool mero_strlist_contains_ci(const struct mero_strlist *l, const char *s);

enum mero_policy_form { MERO_POLICY_MEASUREMENT = 0, MERO_POLICY_RELEASE = 1 };

/*
 * A TEE admission policy, in either form. For MERO_POLICY_MEASUREMENT the lists are
 * mrtd, rtmr[0..3], tcb; for MERO_POLICY_RELEASE: profiles, min_release (NULL = none), tcb.
 * v2 = true encodes the mode-carrying V2 op; a v1 op decodes with mode = replica.
 */
struct mero_tee_policy {
    int form;
    bool v2;
    bool v3; /* encodes the V3 tag (implies v2): the two TD-attribute knobs below travel */
    int mode;
    bool accept_mock;
    bool allow_sept_ve_enabled; /* default false: TD attributes SEPT_VE_DISABLE (bit 28) required */
    bool allow_service_td;      /* default false: a non-zero MRSERVICETD is refused */
    struct mero_strlist mrtd;
    struct mero_strlist rtmr[4];
    struct mero_strlist tcb;
    struct mero_strlist profiles;
    char *min_release;
};
void mero_tee_policy_cleanup(struct mero_tee_policy *p);
/*
 * The set-time rule (spec "The admission policy"): measurement form needs non-empty MRTD and
 * RTMR1-3 of 96-hex values (RTMR0 optional); release form needs non-empty profiles and a
 * "X.Y.Z" min_release when given; mode valid. -MERO_EREFUSED with the reason otherwise.
 */
MERO_MUST_CHECK int mero_tee_policy_validate(const struct mero_tee_policy *p, struct mero_err *err);

/* Quote measurements as lowercase hex strings (96 chars for a TDX register). */
struct mero_measurements {
    char mrtd[MERO_GOV_MAX_STR + 1];
    char rtmr[4][MERO_GOV_MAX_STR + 1];
};
_Static_assert(MERO_GOV_MAX_STR >= MERO_MR_HEX_LEN, "a measurement's hex fits a policy string");
/* The one raw-to-hex conversion of a quote's MRTD and RTMR0-3 (lowercase, 96 chars each). */
void mero_measurements_from_raw(struct mero_measurements *m, const uint8_t mrtd[MERO_MR_LEN],
                                const uint8_t rtmr[MERO_RTMR_COUNT][MERO_MR_LEN]);
/*
 * Its reverse: each register decoded on its own from exactly 96 hex characters (either case).
 * ok[0] (MRTD) and ok[1 + i] (RTMRi) say which decoded; a register that did not is left
 * unspecified. 0 when all five decoded, -MERO_EHEX otherwise.
 */
int mero_measurements_to_raw(const struct mero_measurements *m, uint8_t mrtd[MERO_MR_LEN],
                             uint8_t rtmr[MERO_RTMR_COUNT][MERO_MR_LEN],
                             bool ok[1 + MERO_RTMR_COUNT]);

/* KeyEnvelope, recipient Member { identity, ephemeral Ed25519 pk } (tag 0) only. */
struct mero_key_envelope {
    uint8_t recipient_tag; /* 0 = Member */
    uint8_t identity[MERO_IDENTITY_LEN];
    uint8_t ephemeral[MERO_ED25519_PK_LEN];
    uint8_t sender[MERO_IDENTITY_LEN];
    uint8_t nonce[MERO_GCM_NONCE_LEN];
    uint8_t ciphertext[MERO_GOV_ENVELOPE_CT_LEN];
    uint8_t signature[MERO_ED25519_SIG_LEN];
};

struct mero_key_rotation {
    uint8_t new_key_id[MERO_KEY_ID_LEN]; /* SHA-256(new key) */
    struct mero_key_envelope *env;
    uint32_t n;
};

/* MemberJoinedViaTeeAttestation: root form (has_account, quote carried) or subgroup form. */
struct mero_tee_join {
    uint8_t group_id[MERO_GROUP_ID_LEN]; /* root form: the admission group (= namespace for fleet
                                            joins) */
    uint8_t member[MERO_IDENTITY_LEN];
    uint8_t quote_hash[MERO_QUOTE_HASH_LEN];
    struct mero_measurements m;
    char tcb_status[MERO_GOV_MAX_STR + 1];
    uint8_t role;
    bool has_account;
    struct mero_credential account;
    uint8_t *quote; /* owned */
    size_t quote_len;
    /* TD facts of a real quote (V2 tags); false for a mock admission and for ops that predate
     * them (those are judged without the TD-attribute rules, docs/governance.md). A peer
     * holding the carried quote checks them, and m, against its TD report. */
    bool has_td;
    uint64_t td_attributes;           /* TDATTRIBUTES, little-endian u64 on the wire */
    uint8_t mrservicetd[MERO_MR_LEN]; /* all zero for a TD 1.0 quote */
};

/* TeeAuthorityEvidence { attested_key, account, quote, collateral Option, attested_at }. */
struct mero_tee_evidence {
    uint8_t attested_key[MERO_IDENTITY_LEN];
    struct mero_credential account;
    uint8_t *quote; /* owned */
    size_t quote_len;
    bool has_collateral;
    uint8_t *collateral; /* owned */
    size_t collateral_len;
    uint64_t attested_at;
};

/* One decoded (or to-be-encoded) op. Only the fields of `kind` are meaningful. */
struct mero_op {
    uint8_t version;
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t (*parents)[MERO_OP_ID_LEN]; /* owned, n_parents entries */
    uint32_t n_parents;
    uint8_t signer[MERO_IDENTITY_LEN];
    uint64_t nonce;
    uint8_t scope;                       /* enum mero_op_scope */
    uint8_t kind;                        /* enum mero_root_op or enum mero_group_op */
    uint8_t group_id[MERO_GROUP_ID_LEN]; /* scope GROUP / GROUP_ENCRYPTED: the target group */
    /* scope GROUP_ENCRYPTED only (kind and payload are not encoded; mero_op_open fills them) */
    uint8_t key_id[MERO_KEY_ID_LEN];
    uint8_t enc_nonce[MERO_GCM_NONCE_LEN];
    uint8_t *ciphertext; /* owned */
    size_t ciphertext_len;
    bool has_rotation; /* scope GROUP only */
    struct mero_key_rotation rotation;
    uint8_t signature[MERO_ED25519_SIG_LEN];

    /* payloads */
    uint8_t salt[MERO_NS_SALT_LEN];       /* NAMESPACE_CREATED { salt } */
    uint8_t sub_group[MERO_GROUP_ID_LEN]; /* GROUP_CREATED { group_id, parent, visibility } */
    uint8_t sub_parent[MERO_GROUP_ID_LEN];
    uint8_t visibility;
    uint8_t
        member[MERO_IDENTITY_LEN]; /* ADMIN_CHANGED, MEMBER_ADDED/REMOVED/ROLE_SET, AUTO_FOLLOW */
    uint8_t role;                  /* MEMBER_ADDED, MEMBER_ROLE_SET */
    bool follow_contexts;          /* MEMBER_SET_AUTO_FOLLOW */
    bool follow_subgroups;
    uint8_t context_id[MERO_CONTEXT_ID_LEN]; /* CONTEXT_CREATED { context_id, application_id } */
    uint8_t application_id[MERO_APP_ID_LEN];
    uint8_t kd_group[MERO_GROUP_ID_LEN]; /* KEY_DELIVERY { group_id, envelope } */
    struct mero_key_envelope envelope;
    struct mero_tee_join join;     /* MEMBER_JOINED_TEE (root and group forms) */
    struct mero_tee_policy policy; /* any policy op */
    struct mero_tee_evidence evidence;
    struct mero_write_cut *cuts; /* MEMBER_REMOVED (tag 67): owned, n_cuts entries */
    uint32_t n_cuts;
};

void mero_op_init(struct mero_op *op);
void mero_op_cleanup(struct mero_op *op);
/* Set the parents (copied). */
MERO_MUST_CHECK int mero_op_set_parents(struct mero_op *op,
                                        const uint8_t (*parents)[MERO_OP_ID_LEN], uint32_t n);

/* "calimero.namespace.v1" || borsh(signable): the bytes signed and hashed. */
MERO_MUST_CHECK int mero_op_signed_bytes(const struct mero_op *op, struct mero_buf *out);
/* Full SignedNamespaceOp encoding (signable || signature). */
MERO_MUST_CHECK int mero_op_encode(const struct mero_op *op, struct mero_buf *out);
/* Set signer = pk(sk) and the signature. */
MERO_MUST_CHECK int mero_op_sign(struct mero_op *op, const uint8_t sk[static MERO_ED25519_SK_LEN]);
/* 0 when the signature verifies under op->signer, -MERO_EBADSIG otherwise. */
MERO_MUST_CHECK int mero_op_verify(const struct mero_op *op, struct mero_err *err);
MERO_MUST_CHECK int mero_op_hash(const struct mero_op *op, uint8_t out[static MERO_OP_ID_LEN]);
/*
 * Decode one SignedNamespaceOp of exactly len bytes (len <= MERO_GOV_MAX_OP_BYTES). Checks the
 * schema version first: any other version is -MERO_ESCHEMA "op schema version V is not
 * supported (this node speaks 23)". Malformed input is -MERO_EOPDECODE / -MERO_ETRUNC /
 * -MERO_ETOOBIG with a reason. Does not verify the signature. On failure `op` is cleaned up.
 */
MERO_MUST_CHECK int mero_op_decode(const uint8_t *p, size_t len, struct mero_op *op,
                                   struct mero_err *err);

/*
 * Encrypt a scope-GROUP op in place into the encrypted form: the borsh GroupOp (kind +
 * payload) is sealed with AES-256-GCM under `key` (random nonce, AAD = group_id), key_id =
 * SHA-256(key), scope = MERO_SCOPE_GROUP_ENCRYPTED. Refused for an op carrying a rotation.
 * Call before signing: the signature covers the ciphertext form.
 */
MERO_MUST_CHECK int mero_op_seal(struct mero_op *op, const uint8_t key[static MERO_GROUP_KEY_LEN],
                                 struct mero_err *err);
/*
 * Decrypt an encrypted op with `key` into `inner` (scope GROUP, same ns, signer, nonce,
 * group_id; kind and payload decoded with the same bounded decoder, trailing bytes refused).
 * -MERO_EINVAL when key is not the one key_id names, -MERO_ECRYPTO when the ciphertext does
 * not authenticate, decode errors otherwise. `inner` is cleaned up on failure.
 */
MERO_MUST_CHECK int mero_op_open(const struct mero_op *sealed,
                                 const uint8_t key[static MERO_GROUP_KEY_LEN],
                                 struct mero_op *inner, struct mero_err *err);
/*
 * mero_op_open in two steps. mero_op_decrypt: the plaintext (the borsh GroupOp, *len =
 * ciphertext_len - MERO_AEAD_TAG_LEN bytes, owned: wipe and free it), same refusals.
 * mero_op_open_plain: a plaintext decoded into `inner` as mero_op_open does, WITHOUT any
 * authentication (the audit of a disclosed plaintext, docs/audit.md): its length must be the
 * ciphertext's less the tag; decode errors otherwise.
 */
MERO_MUST_CHECK int mero_op_decrypt(const struct mero_op *sealed,
                                    const uint8_t key[static MERO_GROUP_KEY_LEN], uint8_t **plain,
                                    size_t *len, struct mero_err *err);
MERO_MUST_CHECK int mero_op_open_plain(const struct mero_op *sealed, const uint8_t *plain, size_t n,
                                       struct mero_op *inner, struct mero_err *err);

/* Envelope codec (used inside ops). */
MERO_MUST_CHECK int mero_envelope_encode(struct mero_buf *b, const struct mero_key_envelope *e);
MERO_MUST_CHECK int mero_envelope_decode(struct mero_cur *c, struct mero_key_envelope *e,
                                         struct mero_err *err);

#endif
