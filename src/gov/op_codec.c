/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_codec.c - borsh-style encode and bounded decode of SignedNamespaceOp and everything
 * inside it (layout in docs/governance.md).
 *
 * Invariants: the decoder checks the schema version before anything else, every length
 * against what remains and against a MERO_GOV_MAX_* cap before allocating, refuses unknown
 * tags, out-of-range roles/modes/bools and trailing bytes; encode(decode(x)) == x for every
 * accepted x (there is exactly one encoding of each op). The encrypted group form (tag 2)
 * carries its ciphertext opaquely, bounded to MERO_GOV_MAX_SEALED_BYTES; its plaintext is
 * decoded by the same group-op decoder (mero__gov_get_group_body) once opened.
 */
#include <stdlib.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/borsh.h"
#include "mero/op.h"

/* ---- encode ------------------------------------------------------------------------------ */

static int put_list(struct mero_buf *b, const struct mero_strlist *l)
{
    MERO_TRY(mero_buf_append_u32le(b, l->n));
    for (uint32_t i = 0; i < l->n; i++) {
        MERO_TRY(mero_borsh_put_str(b, l->v[i]));
    }
    return 0;
}

static int put_meas(struct mero_buf *b, const struct mero_measurements *m, const char *tcb)
{
    MERO_TRY(mero_borsh_put_str(b, m->mrtd));
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        MERO_TRY(mero_borsh_put_str(b, m->rtmr[i]));
    }
    return mero_borsh_put_str(b, tcb);
}

int mero_envelope_encode(struct mero_buf *b, const struct mero_key_envelope *e)
{
    MERO_TRY(mero_buf_append_u8(b, e->recipient_tag));
    MERO_TRY(mero_buf_append(b, e->identity, sizeof(e->identity)));
    MERO_TRY(mero_buf_append(b, e->ephemeral, sizeof(e->ephemeral)));
    MERO_TRY(mero_buf_append(b, e->sender, sizeof(e->sender)));
    MERO_TRY(mero_buf_append(b, e->nonce, sizeof(e->nonce)));
    MERO_TRY(mero_borsh_put_bytes(b, e->ciphertext, MERO_GOV_ENVELOPE_CT_LEN));
    return mero_buf_append(b, e->signature, sizeof(e->signature));
}

static int put_policy(struct mero_buf *b, const struct mero_tee_policy *p)
{
    if (p->form == MERO_POLICY_MEASUREMENT) {
        MERO_TRY(put_list(b, &p->mrtd));
        for (int i = 0; i < MERO_RTMR_COUNT; i++) {
            MERO_TRY(put_list(b, &p->rtmr[i]));
        }
        MERO_TRY(put_list(b, &p->tcb));
    } else {
        MERO_TRY(put_list(b, &p->profiles));
        if (p->min_release != NULL) {
            MERO_TRY(mero_buf_append_u8(b, 1));
            MERO_TRY(mero_borsh_put_str(b, p->min_release));
        } else {
            MERO_TRY(mero_buf_append_u8(b, 0));
        }
        MERO_TRY(put_list(b, &p->tcb));
    }
    MERO_TRY(mero_borsh_put_bool(b, p->accept_mock));
    if (p->v2 || p->v3) {
        MERO_TRY(mero_buf_append_u8(b, (uint8_t)p->mode));
    }
    if (p->v3) {
        MERO_TRY(mero_borsh_put_bool(b, p->allow_sept_ve_enabled));
        MERO_TRY(mero_borsh_put_bool(b, p->allow_service_td));
    }
    return 0;
}

/* The wire tag of a group op: the kind, or the appended tag its flag selects. */
/* issue 30: a MemberRemoved's cuts (tag 67): u32 n, then n x {context, head}. */
static int put_cuts(struct mero_buf *b, const struct mero_op *op)
{
    if (op->n_cuts == 0) {
        return 0; /* tag 1: nothing follows the member */
    }
    MERO_TRY(mero_buf_append_u32le(b, op->n_cuts));
    for (uint32_t i = 0; i < op->n_cuts; i++) {
        MERO_TRY(mero_buf_append(b, op->cuts[i].context, sizeof(op->cuts[i].context)));
        MERO_TRY(mero_buf_append(b, op->cuts[i].head, sizeof(op->cuts[i].head)));
    }
    return 0;
}

#define CUT_WIRE_LEN (MERO_CONTEXT_ID_LEN + MERO_DELTA_ID_LEN)
_Static_assert(sizeof(struct mero_write_cut) == CUT_WIRE_LEN, "a cut is its two ids");

static uint8_t group_tag(const struct mero_op *op)
{
    if (op->kind == MERO_GROUP_MEMBER_JOINED_TEE && op->join.has_td) {
        return MERO_GROUP_TAG_MEMBER_JOINED_TEE_V2;
    }
    if (op->kind == MERO_GROUP_TEE_POLICY_SET_V2 && op->policy.v3) {
        return MERO_GROUP_TAG_TEE_POLICY_SET_V3;
    }
    if (op->kind == MERO_GROUP_TEE_RELEASE_POLICY_SET_V2 && op->policy.v3) {
        return MERO_GROUP_TAG_TEE_RELEASE_POLICY_SET_V3;
    }
    if (op->kind == MERO_GROUP_MEMBER_REMOVED && op->n_cuts > 0) {
        return MERO_GROUP_TAG_MEMBER_REMOVED_CUTS;
    }
    return op->kind;
}

static int put_td(struct mero_buf *b, const struct mero_tee_join *j)
{
    if (!j->has_td) {
        return 0;
    }
    MERO_TRY(mero_buf_append_u64le(b, j->td_attributes));
    return mero_buf_append(b, j->mrservicetd, sizeof(j->mrservicetd));
}

static int put_root(struct mero_buf *b, const struct mero_op *op)
{
    bool v2 = op->kind == MERO_ROOT_MEMBER_JOINED_TEE && op->join.has_td;
    MERO_TRY(mero_buf_append_u8(b, v2 ? MERO_ROOT_TAG_MEMBER_JOINED_TEE_V2 : op->kind));
    switch (op->kind) {
    case MERO_ROOT_NAMESPACE_CREATED:
        return mero_buf_append(b, op->salt, sizeof(op->salt));
    case MERO_ROOT_GROUP_CREATED:
        MERO_TRY(mero_buf_append(b, op->sub_group, sizeof(op->sub_group)));
        MERO_TRY(mero_buf_append(b, op->sub_parent, sizeof(op->sub_parent)));
        return mero_buf_append_u8(b, op->visibility);
    case MERO_ROOT_ADMIN_CHANGED:
        return mero_buf_append(b, op->member, sizeof(op->member));
    case MERO_ROOT_KEY_DELIVERY:
        MERO_TRY(mero_buf_append(b, op->kd_group, sizeof(op->kd_group)));
        return mero_envelope_encode(b, &op->envelope);
    case MERO_ROOT_MEMBER_JOINED_TEE:
        MERO_TRY(mero_buf_append(b, op->join.group_id, sizeof(op->join.group_id)));
        MERO_TRY(mero_buf_append(b, op->join.member, sizeof(op->join.member)));
        MERO_TRY(mero_buf_append(b, op->join.quote_hash, sizeof(op->join.quote_hash)));
        MERO_TRY(put_meas(b, &op->join.m, op->join.tcb_status));
        MERO_TRY(mero_buf_append_u8(b, op->join.role));
        MERO_TRY(mero_credential_encode(b, &op->join.account));
        MERO_TRY(mero_borsh_put_bytes(b, op->join.quote, op->join.quote_len));
        return put_td(b, &op->join);
    default:
        return -MERO_EINVAL;
    }
}

/* borsh(GroupOp): tag + payload (the plaintext of the encrypted form). */
int mero__gov_put_group_body(struct mero_buf *b, const struct mero_op *op)
{
    MERO_TRY(mero_buf_append_u8(b, group_tag(op)));
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
    case MERO_GROUP_MEMBER_ROLE_SET:
        MERO_TRY(mero_buf_append(b, op->member, sizeof(op->member)));
        MERO_TRY(mero_buf_append_u8(b, op->role));
        break;
    case MERO_GROUP_MEMBER_REMOVED:
        MERO_TRY(mero_buf_append(b, op->member, sizeof(op->member)));
        MERO_TRY(put_cuts(b, op));
        break;
    case MERO_GROUP_MEMBER_LEFT:
        break;
    case MERO_GROUP_CONTEXT_CREATED:
        MERO_TRY(mero_buf_append(b, op->context_id, sizeof(op->context_id)));
        MERO_TRY(mero_buf_append(b, op->application_id, sizeof(op->application_id)));
        break;
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        MERO_TRY(mero_buf_append(b, op->member, sizeof(op->member)));
        MERO_TRY(mero_borsh_put_bool(b, op->follow_contexts));
        MERO_TRY(mero_borsh_put_bool(b, op->follow_subgroups));
        break;
    case MERO_GROUP_TEE_POLICY_SET:
    case MERO_GROUP_TEE_POLICY_SET_V2:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET_V2:
        MERO_TRY(put_policy(b, &op->policy));
        break;
    case MERO_GROUP_MEMBER_JOINED_TEE:
        MERO_TRY(mero_buf_append(b, op->join.member, sizeof(op->join.member)));
        MERO_TRY(mero_buf_append(b, op->join.quote_hash, sizeof(op->join.quote_hash)));
        MERO_TRY(put_meas(b, &op->join.m, op->join.tcb_status));
        MERO_TRY(mero_buf_append_u8(b, op->join.role));
        MERO_TRY(put_td(b, &op->join));
        break;
    case MERO_GROUP_TEE_AUTHORITY_EVIDENCE:
        MERO_TRY(mero_buf_append(b, op->evidence.attested_key, sizeof(op->evidence.attested_key)));
        MERO_TRY(mero_credential_encode(b, &op->evidence.account));
        MERO_TRY(mero_borsh_put_bytes(b, op->evidence.quote, op->evidence.quote_len));
        if (op->evidence.has_collateral) {
            MERO_TRY(mero_buf_append_u8(b, 1));
            MERO_TRY(mero_borsh_put_bytes(b, op->evidence.collateral, op->evidence.collateral_len));
        } else {
            MERO_TRY(mero_buf_append_u8(b, 0));
        }
        MERO_TRY(mero_buf_append_u64le(b, op->evidence.attested_at));
        break;
    default:
        return -MERO_EINVAL;
    }
    return 0;
}

static int put_rotation(struct mero_buf *b, const struct mero_op *op)
{
    if (!op->has_rotation) {
        return mero_buf_append_u8(b, 0);
    }
    MERO_TRY(mero_buf_append_u8(b, 1));
    MERO_TRY(mero_buf_append(b, op->rotation.new_key_id, sizeof(op->rotation.new_key_id)));
    MERO_TRY(mero_buf_append_u32le(b, op->rotation.n));
    for (uint32_t i = 0; i < op->rotation.n; i++) {
        MERO_TRY(mero_envelope_encode(b, &op->rotation.env[i]));
    }
    return 0;
}

static int put_signable(struct mero_buf *b, const struct mero_op *op)
{
    MERO_TRY(mero_buf_append_u8(b, op->version));
    MERO_TRY(mero_buf_append(b, op->ns, sizeof(op->ns)));
    MERO_TRY(mero_buf_append_u32le(b, op->n_parents));
    for (uint32_t i = 0; i < op->n_parents; i++) {
        MERO_TRY(mero_buf_append(b, op->parents[i], sizeof(op->parents[i])));
    }
    MERO_TRY(mero_buf_append(b, op->signer, sizeof(op->signer)));
    MERO_TRY(mero_buf_append_u64le(b, op->nonce));
    MERO_TRY(mero_buf_append_u8(b, op->scope));
    if (op->scope == MERO_SCOPE_ROOT) {
        return put_root(b, op);
    }
    MERO_TRY(mero_buf_append(b, op->group_id, sizeof(op->group_id)));
    if (op->scope == MERO_SCOPE_GROUP_ENCRYPTED) {
        MERO_TRY(mero_buf_append(b, op->key_id, sizeof(op->key_id)));
        MERO_TRY(mero_buf_append(b, op->enc_nonce, sizeof(op->enc_nonce)));
        MERO_TRY(mero_borsh_put_bytes(b, op->ciphertext, op->ciphertext_len));
    } else {
        MERO_TRY(mero__gov_put_group_body(b, op));
    }
    return put_rotation(b, op);
}

int mero_op_signed_bytes(const struct mero_op *op, struct mero_buf *out)
{
    MERO_TRY(mero_buf_append_str(out, MERO_GOV_SIGN_DOMAIN));
    return put_signable(out, op);
}

int mero_op_encode(const struct mero_op *op, struct mero_buf *out)
{
    MERO_TRY(put_signable(out, op));
    return mero_buf_append(out, op->signature, MERO_ED25519_SIG_LEN);
}

/* ---- decode ------------------------------------------------------------------------------ */

/* One KeyEnvelope on the wire: recipient tag, identity, ephemeral X25519 key, sender, nonce,
 * Vec<u8> ciphertext (u32 length + key + tag), signature. */
#define ENVELOPE_WIRE_LEN                                                                          \
    (1u + MERO_IDENTITY_LEN + MERO_X25519_LEN + MERO_IDENTITY_LEN + MERO_GCM_NONCE_LEN + 4u +      \
     MERO_GOV_ENVELOPE_CT_LEN + MERO_ED25519_SIG_LEN)
_Static_assert(ENVELOPE_WIRE_LEN == 225u, "a KeyEnvelope is 225 bytes on the wire");

#define DEC(expr, what)                                                                            \
    do {                                                                                           \
        int dec_rc_ = (expr);                                                                      \
        if (dec_rc_ < 0) {                                                                         \
            return mero_err_set(err, -dec_rc_, "op decode: %s at byte %zu", what, c->off);         \
        }                                                                                          \
    } while (0)

static int get_list(struct mero_cur *c, struct mero_strlist *l, struct mero_err *err)
{
    uint32_t n;
    char tmp[MERO_GOV_MAX_STR + 1];
    DEC(mero_borsh_get_count(c, MERO_GOV_MAX_LIST, &n), "list count");
    for (uint32_t i = 0; i < n; i++) {
        DEC(mero_borsh_get_str(c, tmp, sizeof(tmp)), "list string");
        DEC(mero_strlist_push(l, tmp), "list");
    }
    return 0;
}

static int get_meas(struct mero_cur *c, struct mero_measurements *m, char *tcb,
                    struct mero_err *err)
{
    DEC(mero_borsh_get_str(c, m->mrtd, sizeof(m->mrtd)), "mrtd");
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        DEC(mero_borsh_get_str(c, m->rtmr[i], sizeof(m->rtmr[i])), "rtmr");
    }
    DEC(mero_borsh_get_str(c, tcb, MERO_GOV_MAX_STR + 1), "tcb_status");
    return 0;
}

static int get_role(struct mero_cur *c, uint8_t *role, struct mero_err *err)
{
    DEC(mero_cur_u8(c, role), "role");
    if (!mero_role_valid(*role)) {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown role %u", (unsigned)*role);
    }
    return 0;
}

static int get_blob_from(const uint8_t *p, size_t n, uint8_t **out, size_t *len,
                         struct mero_err *err)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (copy == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(copy, p, n);
    *out = copy;
    *len = n;
    return 0;
}

static int get_blob(struct mero_cur *c, size_t max, uint8_t **out, size_t *len,
                    struct mero_err *err)
{
    const uint8_t *p;
    size_t n;
    DEC(mero_borsh_get_bytes(c, max, &p, &n), "byte string");
    return get_blob_from(p, n, out, len, err);
}

int mero_envelope_decode(struct mero_cur *c, struct mero_key_envelope *e, struct mero_err *err)
{
    const uint8_t *ct;
    size_t n;
    DEC(mero_cur_u8(c, &e->recipient_tag), "envelope recipient");
    if (e->recipient_tag != 0) {
        return mero_err_set(err, MERO_EOPDECODE,
                            "op decode: envelope recipient kind %u is not supported",
                            (unsigned)e->recipient_tag);
    }
    DEC(mero_cur_copy(c, e->identity, sizeof(e->identity)), "envelope identity");
    DEC(mero_cur_copy(c, e->ephemeral, sizeof(e->ephemeral)), "envelope ephemeral key");
    DEC(mero_cur_copy(c, e->sender, sizeof(e->sender)), "envelope sender");
    DEC(mero_cur_copy(c, e->nonce, sizeof(e->nonce)), "envelope nonce");
    DEC(mero_borsh_get_bytes(c, MERO_GOV_ENVELOPE_CT_LEN, &ct, &n), "envelope ciphertext");
    if (n != MERO_GOV_ENVELOPE_CT_LEN) {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: envelope ciphertext is %zu bytes", n);
    }
    memcpy(e->ciphertext, ct, n);
    DEC(mero_cur_copy(c, e->signature, sizeof(e->signature)), "envelope signature");
    return 0;
}

static int get_policy(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    struct mero_tee_policy *p = &op->policy;
    p->v2 = op->kind == MERO_GROUP_TEE_POLICY_SET_V2 ||
            op->kind == MERO_GROUP_TEE_RELEASE_POLICY_SET_V2;
    if (op->kind == MERO_GROUP_TEE_POLICY_SET || op->kind == MERO_GROUP_TEE_POLICY_SET_V2) {
        p->form = MERO_POLICY_MEASUREMENT;
        MERO_TRY(get_list(c, &p->mrtd, err));
        for (int i = 0; i < MERO_RTMR_COUNT; i++) {
            MERO_TRY(get_list(c, &p->rtmr[i], err));
        }
        MERO_TRY(get_list(c, &p->tcb, err));
    } else {
        p->form = MERO_POLICY_RELEASE;
        uint8_t opt;
        MERO_TRY(get_list(c, &p->profiles, err));
        DEC(mero_cur_u8(c, &opt), "min_release option");
        if (opt > 1) {
            return mero_err_set(err, MERO_EOPDECODE, "op decode: bad option tag");
        }
        if (opt == 1) {
            DEC(mero_borsh_get_str_alloc(c, MERO_GOV_MAX_STR, &p->min_release), "min_release");
        }
        MERO_TRY(get_list(c, &p->tcb, err));
    }
    DEC(mero_borsh_get_bool(c, &p->accept_mock), "accept_mock");
    p->mode = MERO_TEE_MODE_REPLICA;
    if (p->v2) {
        uint8_t mode;
        DEC(mero_cur_u8(c, &mode), "mode");
        if (mode > MERO_TEE_MODE_RELAY) {
            return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown mode %u", (unsigned)mode);
        }
        p->mode = mode;
    }
    if (p->v3) {
        DEC(mero_borsh_get_bool(c, &p->allow_sept_ve_enabled), "allow_sept_ve_enabled");
        DEC(mero_borsh_get_bool(c, &p->allow_service_td), "allow_service_td");
    }
    return 0;
}

static int get_td(struct mero_cur *c, struct mero_tee_join *j, struct mero_err *err)
{
    j->has_td = true;
    DEC(mero_cur_u64le(c, &j->td_attributes), "td_attributes");
    DEC(mero_cur_copy(c, j->mrservicetd, sizeof(j->mrservicetd)), "mrservicetd");
    return 0;
}

static int get_root(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    DEC(mero_cur_u8(c, &op->kind), "root op tag");
    bool td = op->kind == MERO_ROOT_TAG_MEMBER_JOINED_TEE_V2;
    if (td) {
        op->kind = MERO_ROOT_MEMBER_JOINED_TEE;
    }
    switch (op->kind) {
    case MERO_ROOT_NAMESPACE_CREATED:
        DEC(mero_cur_copy(c, op->salt, sizeof(op->salt)), "salt");
        return 0;
    case MERO_ROOT_GROUP_CREATED:
        DEC(mero_cur_copy(c, op->sub_group, sizeof(op->sub_group)), "group id");
        DEC(mero_cur_copy(c, op->sub_parent, sizeof(op->sub_parent)), "parent id");
        DEC(mero_cur_u8(c, &op->visibility), "visibility");
        if (op->visibility > MERO_GROUP_RESTRICTED) {
            return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown visibility");
        }
        return 0;
    case MERO_ROOT_ADMIN_CHANGED:
        DEC(mero_cur_copy(c, op->member, sizeof(op->member)), "member");
        return 0;
    case MERO_ROOT_KEY_DELIVERY:
        DEC(mero_cur_copy(c, op->kd_group, sizeof(op->kd_group)), "group id");
        return mero_envelope_decode(c, &op->envelope, err);
    case MERO_ROOT_MEMBER_JOINED_TEE:
        DEC(mero_cur_copy(c, op->join.group_id, sizeof(op->join.group_id)), "group id");
        DEC(mero_cur_copy(c, op->join.member, sizeof(op->join.member)), "member");
        DEC(mero_cur_copy(c, op->join.quote_hash, sizeof(op->join.quote_hash)), "quote hash");
        MERO_TRY(get_meas(c, &op->join.m, op->join.tcb_status, err));
        MERO_TRY(get_role(c, &op->join.role, err));
        MERO_TRY(mero_credential_decode(c, &op->join.account, err));
        op->join.has_account = true;
        MERO_TRY(get_blob(c, MERO_GOV_MAX_QUOTE_BYTES, &op->join.quote, &op->join.quote_len, err));
        return td ? get_td(c, &op->join, err) : 0;
    default:
        return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown root op %u",
                            (unsigned)op->kind);
    }
}

/* One encoding only: 1..MERO_GOV_MAX_CUTS cuts (none is tag 1), contexts strictly ascending. */
static int get_cuts(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    uint32_t n = 0;
    DEC(mero_cur_u32le(c, &n), "cut count");
    MERO_ENSURE(n >= 1 && n <= MERO_GOV_MAX_CUTS, err, MERO_EOPDECODE, "cut count %u outside 1..%u",
                n, MERO_GOV_MAX_CUTS);
    MERO_ENSURE(mero_cur_left(c) >= (size_t)n * CUT_WIRE_LEN, err, MERO_ETRUNC, "cuts truncated");
    op->cuts = calloc(n, sizeof(*op->cuts));
    MERO_ENSURE(op->cuts != NULL, err, MERO_ENOMEM, "out of memory");
    op->n_cuts = n;
    for (uint32_t i = 0; i < n; i++) {
        DEC(mero_cur_copy(c, op->cuts[i].context, MERO_CONTEXT_ID_LEN), "cut context");
        DEC(mero_cur_copy(c, op->cuts[i].head, MERO_DELTA_ID_LEN), "cut head");
        MERO_ENSURE(
            i == 0 || memcmp(op->cuts[i - 1].context, op->cuts[i].context, MERO_CONTEXT_ID_LEN) < 0,
            err, MERO_EOPDECODE, "cuts not in strictly ascending context order");
    }
    return 0;
}

int mero__gov_get_group_body(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    uint8_t opt;
    DEC(mero_cur_u8(c, &op->kind), "group op tag");
    bool td = false;
    if (op->kind == MERO_GROUP_TAG_MEMBER_JOINED_TEE_V2) {
        op->kind = MERO_GROUP_MEMBER_JOINED_TEE;
        td = true;
    } else if (op->kind == MERO_GROUP_TAG_TEE_POLICY_SET_V3) {
        op->kind = MERO_GROUP_TEE_POLICY_SET_V2;
        op->policy.v3 = true;
    } else if (op->kind == MERO_GROUP_TAG_TEE_RELEASE_POLICY_SET_V3) {
        op->kind = MERO_GROUP_TEE_RELEASE_POLICY_SET_V2;
        op->policy.v3 = true;
    }
    bool cuts = op->kind == MERO_GROUP_TAG_MEMBER_REMOVED_CUTS;
    if (cuts) {
        op->kind = MERO_GROUP_MEMBER_REMOVED;
    }
    switch (op->kind) {
    case MERO_GROUP_MEMBER_ADDED:
    case MERO_GROUP_MEMBER_ROLE_SET:
        DEC(mero_cur_copy(c, op->member, sizeof(op->member)), "member");
        MERO_TRY(get_role(c, &op->role, err));
        break;
    case MERO_GROUP_MEMBER_REMOVED:
        DEC(mero_cur_copy(c, op->member, sizeof(op->member)), "member");
        if (cuts) {
            MERO_TRY(get_cuts(c, op, err));
        }
        break;
    case MERO_GROUP_MEMBER_LEFT:
        break;
    case MERO_GROUP_CONTEXT_CREATED:
        DEC(mero_cur_copy(c, op->context_id, sizeof(op->context_id)), "context id");
        DEC(mero_cur_copy(c, op->application_id, sizeof(op->application_id)), "application id");
        break;
    case MERO_GROUP_MEMBER_SET_AUTO_FOLLOW:
        DEC(mero_cur_copy(c, op->member, sizeof(op->member)), "member");
        DEC(mero_borsh_get_bool(c, &op->follow_contexts), "auto-follow contexts");
        DEC(mero_borsh_get_bool(c, &op->follow_subgroups), "auto-follow subgroups");
        break;
    case MERO_GROUP_TEE_POLICY_SET:
    case MERO_GROUP_TEE_POLICY_SET_V2:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET:
    case MERO_GROUP_TEE_RELEASE_POLICY_SET_V2:
        MERO_TRY(get_policy(c, op, err));
        break;
    case MERO_GROUP_MEMBER_JOINED_TEE:
        memcpy(op->join.group_id, op->group_id, sizeof(op->join.group_id));
        DEC(mero_cur_copy(c, op->join.member, sizeof(op->join.member)), "member");
        DEC(mero_cur_copy(c, op->join.quote_hash, sizeof(op->join.quote_hash)), "quote hash");
        MERO_TRY(get_meas(c, &op->join.m, op->join.tcb_status, err));
        MERO_TRY(get_role(c, &op->join.role, err));
        if (td) {
            MERO_TRY(get_td(c, &op->join, err));
        }
        break;
    case MERO_GROUP_TEE_AUTHORITY_EVIDENCE:
        DEC(mero_cur_copy(c, op->evidence.attested_key, sizeof(op->evidence.attested_key)),
            "attested key");
        MERO_TRY(mero_credential_decode(c, &op->evidence.account, err));
        MERO_TRY(get_blob(c, MERO_GOV_MAX_QUOTE_BYTES, &op->evidence.quote, &op->evidence.quote_len,
                          err));
        DEC(mero_cur_u8(c, &opt), "collateral option");
        if (opt > 1) {
            return mero_err_set(err, MERO_EOPDECODE, "op decode: bad option tag");
        }
        if (opt == 1) {
            op->evidence.has_collateral = true;
            MERO_TRY(get_blob(c, MERO_GOV_MAX_COLLATERAL_BYTES, &op->evidence.collateral,
                              &op->evidence.collateral_len, err));
        }
        DEC(mero_cur_u64le(c, &op->evidence.attested_at), "attested_at");
        break;
    default:
        return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown group op %u",
                            (unsigned)op->kind);
    }
    return 0;
}

static int get_encrypted(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    const uint8_t *p;
    size_t n;
    DEC(mero_cur_copy(c, op->key_id, sizeof(op->key_id)), "key id");
    DEC(mero_cur_copy(c, op->enc_nonce, sizeof(op->enc_nonce)), "encrypted op nonce");
    DEC(mero_borsh_get_bytes(c, MERO_GOV_MAX_SEALED_BYTES, &p, &n), "encrypted op ciphertext");
    if (n < MERO_GOV_MIN_SEALED_BYTES) {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: encrypted op ciphertext is %zu bytes",
                            n);
    }
    MERO_TRY(get_blob_from(p, n, &op->ciphertext, &op->ciphertext_len, err));
    return 0;
}

static int get_group(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    uint8_t opt;
    DEC(mero_cur_copy(c, op->group_id, sizeof(op->group_id)), "group id");
    if (op->scope == MERO_SCOPE_GROUP_ENCRYPTED) {
        MERO_TRY(get_encrypted(c, op, err));
    } else {
        MERO_TRY(mero__gov_get_group_body(c, op, err));
    }
    DEC(mero_cur_u8(c, &opt), "key rotation option");
    if (opt > 1) {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: bad option tag");
    }
    if (opt == 0) {
        return 0;
    }
    op->has_rotation = true;
    DEC(mero_cur_copy(c, op->rotation.new_key_id, sizeof(op->rotation.new_key_id)), "new key id");
    uint32_t n;
    DEC(mero_borsh_get_count(c, MERO_GOV_MAX_ENVELOPES, &n), "envelope count");
    /* refuse a count the input cannot hold before allocating */
    if ((size_t)n * ENVELOPE_WIRE_LEN > mero_cur_left(c)) {
        return mero_err_set(err, MERO_ETRUNC, "op decode: %u envelopes do not fit", (unsigned)n);
    }
    if (n > 0) {
        op->rotation.env = calloc(n, sizeof(*op->rotation.env));
        if (op->rotation.env == NULL) {
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        MERO_TRY(mero_envelope_decode(c, &op->rotation.env[i], err));
        op->rotation.n = i + 1;
    }
    return 0;
}

static int decode_inner(struct mero_cur *c, struct mero_op *op, struct mero_err *err)
{
    DEC(mero_cur_u8(c, &op->version), "schema version");
    if (op->version != MERO_GOV_SCHEMA_VERSION) {
        return mero_err_set(err, MERO_ESCHEMA,
                            "op schema version %u is not supported (this node speaks %u)",
                            (unsigned)op->version, (unsigned)MERO_GOV_SCHEMA_VERSION);
    }
    DEC(mero_cur_copy(c, op->ns, sizeof(op->ns)), "namespace id");
    uint32_t n;
    DEC(mero_borsh_get_count(c, MERO_GOV_MAX_PARENTS, &n), "parent count");
    if ((size_t)n * MERO_OP_ID_LEN > mero_cur_left(c)) {
        return mero_err_set(err, MERO_ETRUNC, "op decode: %u parents do not fit", (unsigned)n);
    }
    if (n > 0) {
        op->parents = malloc(n * sizeof(*op->parents));
        if (op->parents == NULL) {
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < n; i++) {
            DEC(mero_cur_copy(c, op->parents[i], sizeof(op->parents[i])), "parent hash");
        }
    }
    op->n_parents = n;
    DEC(mero_cur_copy(c, op->signer, sizeof(op->signer)), "signer");
    DEC(mero_cur_u64le(c, &op->nonce), "nonce");
    DEC(mero_cur_u8(c, &op->scope), "namespace op tag");
    if (op->scope == MERO_SCOPE_ROOT) {
        MERO_TRY(get_root(c, op, err));
    } else if (op->scope == MERO_SCOPE_GROUP || op->scope == MERO_SCOPE_GROUP_ENCRYPTED) {
        MERO_TRY(get_group(c, op, err));
    } else {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: unknown namespace op %u",
                            (unsigned)op->scope);
    }
    DEC(mero_cur_copy(c, op->signature, sizeof(op->signature)), "signature");
    if (mero_cur_left(c) != 0) {
        return mero_err_set(err, MERO_EOPDECODE, "op decode: %zu trailing bytes", mero_cur_left(c));
    }
    return 0;
}

int mero_op_decode(const uint8_t *p, size_t len, struct mero_op *op, struct mero_err *err)
{
    struct mero_cur c;
    mero_op_init(op);
    if (len > MERO_GOV_MAX_OP_BYTES) {
        return mero_err_set(err, MERO_ETOOBIG, "op of %zu bytes exceeds the %u-byte limit", len,
                            MERO_GOV_MAX_OP_BYTES);
    }
    mero_cur_init(&c, p, len);
    int rc = decode_inner(&c, op, err);
    if (rc < 0) {
        mero_op_cleanup(op);
    }
    return rc;
}
