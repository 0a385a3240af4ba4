/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_op.c - the op codec: every op kind round-trips byte for byte, the schema version
 * gate refuses any other version with a clear error, every truncation and trailing byte is
 * refused, unknown tags and out-of-range values are refused, signatures cover every byte.
 * With MERO_WRITE_CORPUS=<dir> it also writes the encoded ops as fuzz seeds.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mero/crypto.h"
#include "support/gov_fixture.h"

/* Run a scenario touching every op kind; return the encoded ops of the namespace. */
static int scenario(struct mero_buf **ops, size_t *n)
{
    struct govt_node o;
    struct govt_tee t;
    struct mero_err e = {0};
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome, rc;
    uint8_t sub[32], pk[32], sk[64], ctx[32], app[32] = {3};
    if ((rc = govt_open(&o)) < 0 || (rc = govt_create_ns(&o)) < 0) {
        return rc;
    }
    mero_ed25519_keypair(pk, sk);
    rc = govt_policy(&p, MERO_TEE_MODE_REPLICA, true);
    p.v2 = false;
    if (rc == 0) {
        rc = mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e);
    }
    p.v2 = true;
    p.mode = MERO_TEE_MODE_RELAY;
    if (rc == 0) {
        rc = mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e);
    }
    mero_tee_policy_cleanup(&p);
    if (rc == 0) {
        rc = mero_gov_create_subgroup(o.s, o.ns, o.ns, MERO_GROUP_OPEN, sub, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_add_member(o.s, o.ns, o.ns, pk, MERO_ROLE_MEMBER, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_set_member_role(o.s, o.ns, o.ns, pk, MERO_ROLE_READONLY, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_create_context(o.s, o.ns, sub, app, ctx, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_set_auto_follow(o.s, o.ns, o.ns, pk, true, false, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_change_admin(o.s, o.ns, pk, NULL, &e);
    }
    if (rc == 0) {
        rc = govt_tee_open(&t, o.ns);
    }
    if (rc == 0) {
        govt_tee_request(&t, o.ns, o.ns, o.ns, &req);
        rc = mero_gov_admit_tee_node(o.s, o.ns, &req, &outcome, NULL, &e);
    }
    if (rc == 0) {
        govt_tee_request(&t, o.ns, sub, o.ns, &req);
        rc = mero_gov_admit_tee_node(o.s, o.ns, &req, &outcome, NULL, &e);
    }
    if (rc == 0) {
        rc = mero_gov_remove_member(o.s, o.ns, o.ns, pk, NULL, &e);
    }
    if (rc == 0) {
        memset(&p, 0, sizeof(p));
        p.form = MERO_POLICY_RELEASE;
        rc = mero_strlist_push(&p.profiles, "locked-read-only");
        if (rc == 0) {
            rc = mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e);
        }
        p.v2 = true;
        p.min_release = strdup("2.3.87");
        if (rc == 0) {
            rc = mero_gov_set_policy(o.s, o.ns, &p, NULL, NULL, NULL, &e);
        }
        mero_tee_policy_cleanup(&p);
    }
    if (rc == 0) {
        rc = govt_sync(&o, &t.node, o.ns, &e) > 0 ? 0 : -MERO_EINTERNAL;
    }
    if (rc == 0) {
        rc = mero_gov_leave(t.node.s, o.ns, sub, NULL, &e);
    }
    if (rc == 0) {
        rc = govt_sync(&t.node, &o, o.ns, &e) >= 0 ? 0 : -MERO_EINTERNAL;
    }
    uint8_t(*h)[32] = NULL;
    uint64_t last;
    if (rc == 0) {
        rc = mero_gov_op_hashes(o.s, o.ns, 0, SIZE_MAX, &h, n, &last);
    }
    if (rc == 0) {
        *ops = calloc(*n, sizeof(**ops));
        rc = *ops == NULL ? -MERO_ENOMEM : 0;
    }
    for (size_t i = 0; rc == 0 && i < *n; i++) {
        mero_buf_init(&(*ops)[i], MERO_GOV_MAX_OP_BYTES);
        rc = mero_gov_op_get(o.s, h[i], &(*ops)[i]);
    }
    if (rc < 0) {
        fprintf(stderr, "scenario: %s\n", e.msg);
    }
    free(h);
    govt_close(&o);
    govt_close(&t.node);
    return rc;
}

static void free_ops(struct mero_buf *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mero_buf_cleanup(&ops[i]);
    }
    free(ops);
}

TEST(every_kind_round_trips)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    bool seen_root[16] = {0}, seen_group[64] = {0};
    for (size_t i = 0; i < n; i++) {
        struct mero_op op;
        struct mero_buf re;
        struct mero_err e = {0};
        CHECK_MSG(mero_op_decode(ops[i].data, ops[i].len, &op, &e) == 0, "op %zu: %s", i, e.msg);
        CHECK_OK(mero_op_verify(&op, &e));
        mero_buf_init(&re, MERO_GOV_MAX_OP_BYTES);
        CHECK_OK(mero_op_encode(&op, &re));
        CHECK_EQ(re.len, ops[i].len);
        CHECK(memcmp(re.data, ops[i].data, re.len) == 0);
        if (op.scope == MERO_SCOPE_ROOT) {
            seen_root[op.kind & 15] = true;
        } else if (op.scope == MERO_SCOPE_GROUP_ENCRYPTED) {
            /* the subgroup admission travels encrypted (its plaintext is GroupOp 19) */
            seen_group[MERO_GROUP_MEMBER_JOINED_TEE] = true;
        } else {
            seen_group[op.kind & 63] = true;
        }
        mero_buf_cleanup(&re);
        mero_op_cleanup(&op);
    }
    CHECK(seen_root[MERO_ROOT_NAMESPACE_CREATED] && seen_root[MERO_ROOT_GROUP_CREATED] &&
          seen_root[MERO_ROOT_ADMIN_CHANGED] && seen_root[MERO_ROOT_KEY_DELIVERY] &&
          seen_root[MERO_ROOT_MEMBER_JOINED_TEE]);
    static const int kinds[] = {
        MERO_GROUP_MEMBER_ADDED,           MERO_GROUP_MEMBER_REMOVED,
        MERO_GROUP_MEMBER_ROLE_SET,        MERO_GROUP_MEMBER_LEFT,
        MERO_GROUP_CONTEXT_CREATED,        MERO_GROUP_MEMBER_SET_AUTO_FOLLOW,
        MERO_GROUP_TEE_POLICY_SET,         MERO_GROUP_MEMBER_JOINED_TEE,
        MERO_GROUP_TEE_AUTHORITY_EVIDENCE, MERO_GROUP_TEE_RELEASE_POLICY_SET,
        MERO_GROUP_TEE_POLICY_SET_V2,      MERO_GROUP_TEE_RELEASE_POLICY_SET_V2};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        CHECK_MSG(seen_group[kinds[k]], "group op %d not exercised", kinds[k]);
    }
    const char *dir = getenv("MERO_WRITE_CORPUS");
    for (size_t i = 0; dir != NULL && i < n; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/op-%02zu.bin", dir, i);
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        CHECK_EQ(fwrite(ops[i].data, 1, ops[i].len, f), ops[i].len);
        fclose(f);
    }
    free_ops(ops, n);
}

TEST(schema_version_gate)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    struct mero_op op;
    struct mero_err e = {0};
    uint8_t *p = ops[1].data;
    CHECK_EQ(p[0], MERO_GOV_SCHEMA_VERSION);
    p[0] = MERO_GOV_SCHEMA_VERSION + 1;
    CHECK_ERR(mero_op_decode(p, ops[1].len, &op, &e), -MERO_ESCHEMA);
    CHECK_STR_EQ(e.msg, "op schema version 24 is not supported (this node speaks 23)");
    p[0] = MERO_GOV_SCHEMA_VERSION - 1;
    CHECK_ERR(mero_op_decode(p, ops[1].len, &op, &e), -MERO_ESCHEMA);
    /* the peer-facing apply refuses it the same way */
    struct govt_node x;
    CHECK_OK(govt_open(&x));
    CHECK_ERR(mero_gov_apply(x.s, p, ops[1].len, NULL, NULL, NULL, &e), -MERO_ESCHEMA);
    p[0] = MERO_GOV_SCHEMA_VERSION;
    CHECK_OK(mero_op_decode(p, ops[1].len, &op, &e));
    mero_op_cleanup(&op);
    govt_close(&x);
    free_ops(ops, n);
}

TEST(truncation_and_trailing_bytes_refused)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    for (size_t i = 0; i < n; i++) {
        struct mero_op op;
        for (size_t len = 0; len < ops[i].len; len++) {
            CHECK_MSG(mero_op_decode(ops[i].data, len, &op, NULL) < 0, "op %zu prefix %zu", i, len);
        }
        uint8_t *longer = malloc(ops[i].len + 1);
        CHECK(longer != NULL);
        memcpy(longer, ops[i].data, ops[i].len);
        longer[ops[i].len] = 0;
        struct mero_err e = {0};
        CHECK_ERR(mero_op_decode(longer, ops[i].len + 1, &op, &e), -MERO_EOPDECODE);
        CHECK(strstr(e.msg, "trailing") != NULL);
        free(longer);
    }
    free_ops(ops, n);
}

TEST(every_byte_is_covered_by_the_signature)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    /* flip each byte of a member-added op: it either fails to decode or fails to verify */
    for (size_t i = 0; i < n; i++) {
        if (ops[i].len > 300) {
            continue;
        }
        for (size_t b = 0; b < ops[i].len; b++) {
            ops[i].data[b] ^= 0x01;
            struct mero_op op;
            if (mero_op_decode(ops[i].data, ops[i].len, &op, NULL) == 0) {
                CHECK_MSG(mero_op_verify(&op, NULL) == -MERO_EBADSIG, "op %zu byte %zu", i, b);
                mero_op_cleanup(&op);
            }
            ops[i].data[b] ^= 0x01;
        }
    }
    free_ops(ops, n);
}

TEST(bad_tags_and_values_refused)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    struct mero_op op;
    struct mero_err e = {0};
    /* op 0 is NamespaceCreated: version, ns, u32 parents = 0, signer, nonce, scope, kind */
    uint8_t *p = ops[0].data;
    size_t scope_off = 1 + 32 + 4 + 32 + 8;
    CHECK_EQ(p[scope_off], MERO_SCOPE_ROOT);
    p[scope_off] = 3; /* 2 is the encrypted group form */
    CHECK_ERR(mero_op_decode(p, ops[0].len, &op, &e), -MERO_EOPDECODE);
    p[scope_off] = MERO_SCOPE_ROOT;
    p[scope_off + 1] = 1; /* reserved RootOp discriminant */
    CHECK_ERR(mero_op_decode(p, ops[0].len, &op, &e), -MERO_EOPDECODE);
    CHECK(strstr(e.msg, "unknown root op 1") != NULL);
    p[scope_off + 1] = MERO_ROOT_NAMESPACE_CREATED;
    /* a huge parent count is refused before anything is allocated */
    p[33] = 0xff;
    p[34] = 0xff;
    CHECK(mero_op_decode(p, ops[0].len, &op, &e) < 0);
    p[33] = 0;
    p[34] = 0;
    CHECK_OK(mero_op_decode(p, ops[0].len, &op, &e));
    mero_op_cleanup(&op);
    /* a too-large input */
    CHECK_ERR(mero_op_decode(p, MERO_GOV_MAX_OP_BYTES + 1, &op, &e), -MERO_ETOOBIG);
    /* out-of-range role in a MemberAdded (find one) */
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(mero_op_decode(ops[i].data, ops[i].len, &op, &e));
        bool added = op.scope == MERO_SCOPE_GROUP && op.kind == MERO_GROUP_MEMBER_ADDED;
        mero_op_cleanup(&op);
        if (!added) {
            continue;
        }
        size_t role_off = 1 + 32 + 4 + 32 * (size_t)(ops[i].data[33]) + 32 + 8 + 1 + 32 + 1 + 32;
        ops[i].data[role_off] = 5;
        CHECK_ERR(mero_op_decode(ops[i].data, ops[i].len, &op, &e), -MERO_EOPDECODE);
        CHECK(strstr(e.msg, "unknown role 5") != NULL);
        break;
    }
    free_ops(ops, n);
}

/*
 * issue 30: MemberRemoved with cuts is wire tag 67 and decodes to MemberRemoved with the cuts;
 * without cuts it is tag 1, byte for byte as before; a cut count of 0 or beyond the bound, cuts
 * out of context order and a truncated list are refused (one encoding per op).
 */
TEST(member_removed_with_cuts_has_one_encoding)
{
    struct mero_op op, back;
    struct mero_err e = {0};
    struct mero_buf b, again;
    uint8_t pk[32], sk[64];
    /* version, ns, u32 parents (0), signer, nonce, scope, group, GroupOp tag */
    const size_t tag_off = 1 + 32 + 4 + 32 + 8 + 1 + 32, count_off = tag_off + 1 + 32;
    mero_ed25519_keypair(pk, sk);
    mero_op_init(&op);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_MEMBER_REMOVED;
    memset(op.ns, 1, sizeof(op.ns));
    memset(op.group_id, 1, sizeof(op.group_id));
    memset(op.member, 2, sizeof(op.member));
    op.nonce = 1;
    op.cuts = calloc(2, sizeof(*op.cuts));
    CHECK(op.cuts != NULL);
    op.n_cuts = 2;
    memset(op.cuts[0].context, 3, 32);
    memset(op.cuts[0].head, 4, 32);
    memset(op.cuts[1].context, 5, 32);
    memset(op.cuts[1].head, 6, 32);
    CHECK_OK(mero_op_sign(&op, sk));
    mero_buf_init(&b, 4096);
    mero_buf_init(&again, 4096);
    CHECK_OK(mero_op_encode(&op, &b));
    CHECK_EQ(b.data[tag_off], MERO_GROUP_TAG_MEMBER_REMOVED_CUTS);
    CHECK_OK(mero_op_decode(b.data, b.len, &back, &e));
    CHECK_EQ(back.kind, MERO_GROUP_MEMBER_REMOVED);
    CHECK_EQ(back.n_cuts, 2);
    CHECK(memcmp(back.cuts, op.cuts, 2 * sizeof(*op.cuts)) == 0);
    CHECK_OK(mero_op_verify(&back, &e));
    CHECK_OK(mero_op_encode(&back, &again));
    CHECK(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
    mero_op_cleanup(&back);
    /* out of context order */
    memset(b.data + count_off + 4, 5, 32);
    memset(b.data + count_off + 4 + 64, 3, 32);
    CHECK_ERR(mero_op_decode(b.data, b.len, &back, &e), -MERO_EOPDECODE);
    CHECK(strstr(e.msg, "ascending") != NULL);
    memset(b.data + count_off + 4, 3, 32);
    memset(b.data + count_off + 4 + 64, 5, 32);
    /* a count of 0, and one beyond the bound */
    b.data[count_off] = 0;
    CHECK_ERR(mero_op_decode(b.data, b.len, &back, &e), -MERO_EOPDECODE);
    b.data[count_off] = 0xff;
    b.data[count_off + 1] = 0xff;
    CHECK_ERR(mero_op_decode(b.data, b.len, &back, &e), -MERO_EOPDECODE);
    b.data[count_off] = 3; /* one more cut than the bytes hold */
    b.data[count_off + 1] = 0;
    CHECK(mero_op_decode(b.data, b.len, &back, &e) < 0);
    /* without cuts: tag 1 */
    op.n_cuts = 0;
    CHECK_OK(mero_op_sign(&op, sk));
    mero_buf_reset(&again);
    CHECK_OK(mero_op_encode(&op, &again));
    CHECK_EQ(again.data[tag_off], MERO_GROUP_MEMBER_REMOVED);
    CHECK_EQ(again.len, b.len - 4 - 2 * 64);
    mero_buf_cleanup(&again);
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    mero_wipe(sk, sizeof(sk));
}

TEST(hash_names_the_signed_content)
{
    struct mero_buf *ops = NULL;
    size_t n = 0;
    CHECK_OK(scenario(&ops, &n));
    struct mero_op op;
    CHECK_OK(mero_op_decode(ops[2].data, ops[2].len, &op, NULL));
    uint8_t h1[32], h2[32];
    CHECK_OK(mero_op_hash(&op, h1));
    struct mero_buf sb;
    mero_buf_init(&sb, MERO_GOV_MAX_OP_BYTES);
    CHECK_OK(mero_op_signed_bytes(&op, &sb));
    CHECK(memcmp(sb.data, MERO_GOV_SIGN_DOMAIN, strlen(MERO_GOV_SIGN_DOMAIN)) == 0);
    mero_sha256(h2, sb.data, sb.len);
    CHECK_MEM_EQ(h1, h2, 32);
    CHECK_EQ(sb.len, strlen(MERO_GOV_SIGN_DOMAIN) + ops[2].len - 64);
    mero_buf_cleanup(&sb);
    mero_op_cleanup(&op);
    free_ops(ops, n);
}

/* The one raw <-> hex conversion of a quote's registers: a round trip, either case, and a
 * register that is not 48 bytes of hex reported on its own. */
TEST(measurements_raw_hex_round_trip)
{
    uint8_t mrtd[MERO_MR_LEN], rtmr[MERO_RTMR_COUNT][MERO_MR_LEN];
    uint8_t mrtd2[MERO_MR_LEN], rtmr2[MERO_RTMR_COUNT][MERO_MR_LEN];
    bool ok[1 + MERO_RTMR_COUNT];
    struct mero_measurements m;
    mero_random(mrtd, sizeof(mrtd));
    mero_random(rtmr, sizeof(rtmr));
    mero_measurements_from_raw(&m, mrtd, (const uint8_t(*)[MERO_MR_LEN])rtmr);
    CHECK_EQ(strlen(m.mrtd), (size_t)MERO_MR_HEX_LEN);
    CHECK_OK(mero_measurements_to_raw(&m, mrtd2, rtmr2, ok));
    CHECK_MEM_EQ(mrtd, mrtd2, sizeof(mrtd));
    CHECK_MEM_EQ(rtmr, rtmr2, sizeof(rtmr));
    for (size_t i = 0; i < strlen(m.rtmr[1]); i++) {
        m.rtmr[1][i] = (char)toupper((unsigned char)m.rtmr[1][i]);
    }
    CHECK_OK(mero_measurements_to_raw(&m, mrtd2, rtmr2, ok));
    CHECK_MEM_EQ(rtmr[1], rtmr2[1], sizeof(rtmr[1]));
    m.rtmr[2][MERO_MR_HEX_LEN - 1] = '\0'; /* 95 hex digits */
    m.mrtd[0] = 'g';
    CHECK_EQ(mero_measurements_to_raw(&m, mrtd2, rtmr2, ok), -MERO_EHEX);
    CHECK(!ok[0] && ok[1] && ok[2] && !ok[3] && ok[4]);
    CHECK_MEM_EQ(rtmr[3], rtmr2[3], sizeof(rtmr[3]));
}

MERO_TEST_MAIN(T(every_kind_round_trips), T(schema_version_gate),
               T(truncation_and_trailing_bytes_refused), T(every_byte_is_covered_by_the_signature),
               T(bad_tags_and_values_refused), T(member_removed_with_cuts_has_one_encoding),
               T(hash_names_the_signed_content), T(measurements_raw_hex_round_trip))
