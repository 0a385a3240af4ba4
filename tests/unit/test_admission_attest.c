/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_admission_attest.c - the real-quote glue of admission (src/node/admission/attest.c):
 * merod judges evidence through the library's own path (no verifier hook), the same way a
 * peer running the bare library does, on every genuine case; the admission pipeline's collateral
 * op gives no verdict (an error) when collateral cannot be fetched; the signed-release check
 * refuses without a trusted root.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "node/admission/attest_internal.h"
#include "node/service_internal.h"
#include "support/gov_fixture.h"
#include "harness.h"

#define CASE "testdata/tdx/dcapqvl-1/"
#define AT   1752919234u

/* TeeAuthorityEvidence for the admitted TEE carrying quote q and collateral c, signed by the
 * owner (an admin, so a voucher). */
static int forge_evidence(struct govt_node *owner, const struct govt_tee *tee, const uint8_t *q,
                          size_t ql, const uint8_t *c, size_t cl, uint64_t at, struct mero_buf *out)
{
    struct mero_op op;
    uint8_t sk[64], (*heads)[32] = NULL;
    size_t nh = 0;
    mero_op_init(&op);
    memcpy(op.ns, owner->ns, 32);
    memcpy(op.group_id, owner->ns, 32);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    memcpy(op.evidence.attested_key, tee->node.pk, 32);
    op.evidence.account = tee->cred;
    op.evidence.quote = malloc(ql);
    op.evidence.collateral = malloc(cl);
    int rc = op.evidence.quote && op.evidence.collateral ? 0 : -MERO_ENOMEM;
    if (rc == 0) {
        memcpy(op.evidence.quote, q, ql);
        op.evidence.quote_len = ql;
        memcpy(op.evidence.collateral, c, cl);
        op.evidence.collateral_len = cl;
        op.evidence.has_collateral = true;
        op.evidence.attested_at = at;
    }
    rc = rc ? rc : mero_gov_heads(owner->s, owner->ns, &heads, &nh);
    rc = rc ? rc : mero_op_set_parents(&op, (const uint8_t(*)[32])heads, (uint32_t)nh);
    free(heads);
    op.version = MERO_GOV_SCHEMA_VERSION;
    op.nonce = 77;
    rc = rc ? rc : mero_gov_identity_secret(owner->s, owner->ns, sk);
    rc = rc ? rc : mero_op_sign(&op, sk);
    sodium_memzero(sk, sizeof(sk));
    rc = rc ? rc : mero_op_encode(&op, out);
    mero_op_cleanup(&op);
    return rc;
}

/*
 * One evidence verification path (issue 14): merod's governance store carries no verifier of
 * its own (mero__node_gov_hooks), and a peer configured as merod and a peer running the bare
 * library judge the same genuine evidence - every case of ../shared/testdata/tdx at its time,
 * intact and with a flipped body byte - the same way, with the same reason.
 */
TEST(merod_and_the_library_judge_evidence_alike)
{
    static const struct {
        const char *dir, *coll;
        uint64_t at;
    } cases[] = {
        {"dcapqvl-1", "tdx_quote_collateral.json", 1752919234u},
        {"dcapqvl-2", "tdx_quote_outdated_collateral.json", 1774003274u},
        {"dcapqvl-3", "tdx_quote_collateral.json", 1725258675u},
        {"gotdxguest-1", "collateral.qvl.json", 1688173200u},
        {"nearmpc-1", "collateral.json", 1755186041u},
        {"nearmpc-2", "collateral.json", 1763626832u},
        {"nearmpc-3", "collateral.json", 1769527031u},
        {"nearmpc-4", "collateral.json", 1786622400u},
    };
    struct mero_gov_hooks h;
    mero__node_gov_hooks(NULL, &h);
    CHECK(h.evidence_verify == NULL && h.quote_report_data == NULL);
    h.on_event = NULL; /* the node's listener needs a node; it judges nothing */

    struct govt_node owner, merod, lib;
    struct govt_tee tee;
    struct mero_tee_policy p;
    struct mero_gov_oplist l = {0};
    struct mero_admit_request req;
    int outcome;
    CHECK_OK(govt_open(&owner));
    CHECK_OK(govt_open(&merod));
    CHECK_OK(govt_open(&lib));
    mero_store_set_hooks(merod.s, &h);
    CHECK_OK(govt_create_ns(&owner));
    CHECK_OK(govt_policy(&p, MERO_TEE_MODE_REPLICA, true));
    CHECK_OK(mero_strlist_push(&p.tcb, "UpToDate"));
    CHECK_OK(mero_gov_set_policy(owner.s, owner.ns, &p, &l, NULL, NULL, NULL));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(govt_tee_open(&tee, owner.ns));
    govt_tee_request(&tee, owner.ns, owner.ns, owner.ns, &req);
    CHECK_OK(mero_gov_admit_tee_node(owner.s, owner.ns, &req, &outcome, &l, NULL));
    mero_gov_oplist_cleanup(&l);
    CHECK(govt_sync(&owner, &merod, owner.ns, NULL) > 0);
    CHECK(govt_sync(&owner, &lib, owner.ns, NULL) > 0);
    int judged = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char qp[128], cp[160];
        size_t ql = 0, cl = 0;
        snprintf(qp, sizeof(qp), "testdata/tdx/%s/quote.bin", cases[i].dir);
        snprintf(cp, sizeof(cp), "testdata/tdx/%s/%s", cases[i].dir, cases[i].coll);
        uint8_t *q = mero_test_read(qp, 1, &ql);
        uint8_t *c = mero_test_read(cp, 1, &cl);
        CHECK_MSG(q != NULL && c != NULL, "%s: missing data", cases[i].dir);
        for (int flip = 0; flip < 2; flip++) {
            if (flip) {
                q[200] ^= 1;
            }
            struct mero_buf b;
            struct mero_err em = {0}, el = {0};
            int sm = -1, sl = -1;
            mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
            CHECK_OK(forge_evidence(&owner, &tee, q, ql, c, cl, cases[i].at, &b));
            int rm = mero_gov_apply(merod.s, b.data, b.len, &sm, NULL, NULL, &em);
            int rl = mero_gov_apply(lib.s, b.data, b.len, &sl, NULL, NULL, &el);
            mero_buf_cleanup(&b);
            CHECK_MSG(rm == rl && strcmp(em.msg, el.msg) == 0,
                      "%s flip=%d: merod %d \"%s\", library %d \"%s\"", cases[i].dir, flip, rm,
                      em.msg, rl, el.msg);
            /* none of these quotes commits to this TEE's credential: all refused */
            CHECK_MSG(rm < 0, "%s flip=%d accepted", cases[i].dir, flip);
            judged++;
        }
        free(q);
        free(c);
    }
    CHECK_EQ(judged, 16);
    govt_close(&owner);
    govt_close(&merod);
    govt_close(&lib);
    govt_close(&tee.node);
}

TEST(dcap_step_without_collateral_is_no_verdict)
{
    size_t ql = 0;
    uint8_t *q = mero_test_read(CASE "quote.bin", 1, &ql);
    CHECK(q != NULL);
    /* nothing listens on port 9: the fetch fails fast and the claim is refused */
    setenv("CALIMERO_TEE_COLLATERAL_URL", "http://127.0.0.1:9", 1);
    struct mero_quote parsed;
    struct mero_collateral coll;
    struct mero_err e = {0};
    memset(&coll, 0, sizeof(coll));
    CHECK_OK(mero_quote_parse(&parsed, q, ql, NULL));
    int rc = mero__adm_collateral(NULL, &parsed, &coll, &e);
    free(q);
    CHECK(rc < 0);
    CHECK(e.msg[0] != '\0');
    mero_collateral_cleanup(&coll);
}

TEST(release_check_refuses_without_a_trusted_root)
{
    struct mero_tee_policy p;
    struct mero_measurements m;
    struct mero_err e = {0};
    memset(&p, 0, sizeof(p));
    memset(&m, '0', sizeof(m));
    m.mrtd[96] = 0;
    for (int i = 0; i < 4; i++) {
        m.rtmr[i][96] = 0;
    }
    p.form = MERO_POLICY_RELEASE;
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    unsetenv("MERO_SIGSTORE_TRUSTED_ROOT");
    CHECK_FAILS(mero__node_release_check(NULL, "2.3.87", &p, &m, NULL, 0, &e));
    CHECK(strstr(e.msg, "trusted root") != NULL);
    mero_tee_policy_cleanup(&p);
    mero__node_admission_attest_cleanup();
}

MERO_TEST_MAIN(T(merod_and_the_library_judge_evidence_alike),
               T(dcap_step_without_collateral_is_no_verdict),
               T(release_check_refuses_without_a_trusted_root))
