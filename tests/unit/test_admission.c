/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_admission.c - the admission pipeline (src/node/admission/verify_and_admit.c) in the
 * spec's order, driven through mero__adm_verify_and_admit as the node drives it, with fakes for its
 * ops (credential codec, collateral, DCAP, governance decision): the happy mock path; each refusal
 * with its reason and nothing admitted (a challenge presented twice, by another peer, for another
 * key, after 60 s; a quote over 16 KiB, refused after its challenge is spent; a credential lifted
 * from another replica; a quote made for another credential or without the challenge; a node that
 * may not vouch); a real quote needs a DCAP verdict ("no verdict" refuses) and carries its
 * measurements to the decision; padding after a real quote's declared end is neither hashed,
 * judged nor carried (issue 32: one quote, one hash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "node/admission/admission_internal.h"
#include "harness.h"

/* The fake credential: account || kem_pk || device || sign_pk (128 bytes). */
struct fake_gov {
    int admits;
    int may_vouch;
    int real_calls;
    int real_rc;
    uint8_t last_hash[32];
    size_t last_len;      /* the verdict's quote length: the bytes the admission carries */
    size_t last_real_len; /* the length DCAP was asked to judge */
    uint8_t last_mrtd[48];
    bool last_mock;
    char last_tcb[MERO_ADM_TCB_STATUS_MAX];
};

static int fake_cred(void *ud, const uint8_t pk[32], const uint8_t *cred, size_t len,
                     struct mero_credential *out, struct mero_err *err)
{
    (void)ud;
    if (len != 128) {
        return mero_err_set(err, MERO_EOPDECODE, "account credential does not decode");
    }
    if (memcmp(cred + 96, pk, 32) != 0) {
        return mero_err_set(err, MERO_EREFUSED,
                            "the account credential does not certify the attested key");
    }
    memset(out, 0, sizeof(*out));
    memcpy(out->cert.account, cred, 32);
    memcpy(out->cert.kem_pk, cred + 32, 32);
    memcpy(out->cert.device, cred + 64, 32);
    memcpy(out->cert.sign_pk, pk, 32);
    return 0;
}

/* The collateral of the genuine case the real quotes below are cut from. */
static int fake_collateral(void *ud, const struct mero_quote *q, struct mero_collateral *out,
                           struct mero_err *err)
{
    struct fake_gov *g = ud;
    (void)q;
    g->real_calls++;
    if (g->real_rc < 0) {
        return mero_err_set(err, -g->real_rc, "collateral could not be fetched");
    }
    size_t n = 0;
    uint8_t *p = mero_test_read("testdata/tdx/dcapqvl-1/tdx_quote_collateral.json", 1, &n);
    if (p == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "no collateral");
    }
    int rc = mero_collateral_parse(out, (const char *)p, n, err);
    free(p);
    return rc;
}

static int fake_dcap(void *ud, const struct mero_quote *q, const struct mero_collateral *c,
                     struct mero_tee_verdict *v, struct mero_err *err)
{
    struct fake_gov *g = ud;
    (void)c;
    (void)err;
    g->last_real_len = q->total_len;
    snprintf(v->tcb_status, sizeof(v->tcb_status), "UpToDate");
    return 0;
}

static int fake_admit(void *ud, struct mero__adm_job *j, int *out, struct mero_err *err)
{
    struct fake_gov *g = ud;
    const struct mero_tee_verdict *v = &j->v;
    (void)err;
    if (!g->may_vouch) {
        *out = MERO_ADMIT_NOT_A_VOUCHER;
        return 0;
    }
    g->admits++;
    memcpy(g->last_hash, v->quote_hash, 32);
    g->last_len = v->quote_len;
    memcpy(g->last_mrtd, v->mrtd, 48);
    g->last_mock = v->is_mock;
    snprintf(g->last_tcb, sizeof(g->last_tcb), "%s", v->tcb_status);
    *out = MERO_ADMIT_ADMITTED;
    return 0;
}

struct fixture {
    struct mero_challenge_book *book;
    struct fake_gov gov;
    struct mero__adm_ops ops;
    uint8_t ns[32];
    uint8_t pk[32];
    uint8_t cred[128];
    uint8_t quote[MERO_MOCK_QUOTE_LEN];
    struct mero_tee_claim claim;
};

static const uint8_t PEER[] = "12D3KooWjoiner";
static const uint8_t OTHER[] = "12D3KooWother";

static void mock_quote_for(uint8_t out[MERO_MOCK_QUOTE_LEN], const uint8_t ns[32],
                           const uint8_t pk[32], const uint8_t cred[128],
                           const uint8_t challenge[32])
{
    uint8_t binding[32], rd[64];
    mero_admission_binding(binding, ns, ns, pk, cred, cred + 32, cred + 64);
    mero_report_data(rd, challenge, binding);
    mero_mock_quote_create(out, rd);
}

/* A fixture with a challenge requested by PEER for pk and a mock quote over it. */
static struct fixture *setup(uint64_t now)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        return NULL;
    }
    f->book = malloc(sizeof(*f->book));
    mero__adm_challenge_book_init(f->book);
    f->gov.may_vouch = 1;
    f->ops.ud = &f->gov;
    f->ops.credential = fake_cred;
    f->ops.collateral = fake_collateral;
    f->ops.dcap = fake_dcap;
    f->ops.admit = fake_admit;
    memset(f->ns, 0x42, 32);
    mero_random(f->pk, 32);
    mero_random(f->cred, 96);
    memcpy(f->cred + 96, f->pk, 32);
    struct mero_tee_claim *c = &f->claim;
    memcpy(c->ns, f->ns, 32);
    memcpy(c->public_key, f->pk, 32);
    if (mero__adm_challenge_issue(f->book, MERO_CHALLENGE_REQUESTED, f->ns, PEER, sizeof(PEER),
                                  f->pk, now, c->challenge, NULL) < 0) {
        free(f->book);
        free(f);
        return NULL;
    }
    mock_quote_for(f->quote, f->ns, f->pk, f->cred, c->challenge);
    c->quote = f->quote;
    c->quote_len = sizeof(f->quote);
    c->credential = f->cred;
    c->credential_len = sizeof(f->cred);
    c->peer = PEER;
    c->peer_len = sizeof(PEER);
    return f;
}

static void teardown(struct fixture *f)
{
    if (f != NULL) {
        mero__adm_challenge_book_cleanup(f->book);
        free(f->book);
        free(f);
    }
}

/* The claim through the pipeline the node runs (mero__adm_verify_and_admit), inline. */
static int vaa(struct fixture *f, uint64_t now, int *out, struct mero_err *e)
{
    struct mero__adm_job *j = mero__adm_job_new(&f->claim);
    if (j == NULL) {
        return -MERO_ENOMEM;
    }
    j->book = f->book;
    j->ops = &f->ops;
    j->now_ms = now;
    mero__adm_verify_and_admit(j);
    int rc = j->rc;
    *out = j->outcome;
    *e = j->err;
    mero__adm_job_free(j);
    return rc;
}

TEST(mock_quote_admitted_with_its_hash_and_zero_measurements)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    int o;
    struct mero_err e = {0};
    CHECK_OK(vaa(f, 1000, &o, &e));
    CHECK_EQ(o, MERO_ADMIT_ADMITTED);
    CHECK_EQ(f->gov.admits, 1);
    CHECK(f->gov.last_mock);
    CHECK_STR_EQ(f->gov.last_tcb, "Mock");
    CHECK_EQ(f->gov.real_calls, 0);
    uint8_t h[32], zero[48] = {0};
    mero_sha256(h, f->quote, sizeof(f->quote));
    CHECK_MEM_EQ(f->gov.last_hash, h, 32);
    CHECK_MEM_EQ(f->gov.last_mrtd, zero, 48);
    teardown(f);
}

TEST(challenge_presented_twice_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    int o;
    struct mero_err e = {0};
    CHECK_OK(vaa(f, 1000, &o, &e));
    /* the same request again: a replayed quote over a spent challenge */
    CHECK_ERR(vaa(f, 1001, &o, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "already used or has lapsed") != NULL);
    CHECK_EQ(f->gov.admits, 1);
    teardown(f);
}

TEST(challenge_presented_by_another_peer_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    int o;
    struct mero_err e = {0};
    f->claim.peer = OTHER;
    f->claim.peer_len = sizeof(OTHER);
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "not one this node issued to you") != NULL);
    /* and it is spent for its rightful owner too */
    f->claim.peer = PEER;
    f->claim.peer_len = sizeof(PEER);
    CHECK_ERR(vaa(f, 1001, &o, &e), -MERO_EREFUSED);
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(challenge_after_60_s_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 60000, &o, &e), -MERO_EREFUSED);
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(quote_over_16_kib_refused_after_spending_the_challenge)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    uint8_t *big = calloc(1, MERO_MAX_TEE_QUOTE_BYTES + 1);
    CHECK(big != NULL);
    memcpy(big, f->quote, sizeof(f->quote)); /* a mock quote padded past the cap */
    const uint8_t *good = f->claim.quote;
    f->claim.quote = big;
    f->claim.quote_len = MERO_MAX_TEE_QUOTE_BYTES + 1;
    int o;
    struct mero_err e = {0};
    int rc = vaa(f, 1000, &o, &e);
    free(big);
    CHECK_ERR(rc, -MERO_ETOOBIG);
    CHECK(strstr(e.msg, "16384") != NULL);
    f->claim.quote = good;
    f->claim.quote_len = MERO_MOCK_QUOTE_LEN;
    CHECK_ERR(vaa(f, 1001, &o, &e), -MERO_EREFUSED);
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(credential_lifted_from_another_replica_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    /* another replica's credential certifies its key, not the attested one */
    uint8_t other[128];
    mero_random(other, sizeof(other));
    f->claim.credential = other;
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "the account credential does not certify the attested key");
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(quote_for_another_credential_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    /* the quote commits to another device: the binding differs */
    uint8_t cred2[128];
    memcpy(cred2, f->cred, 128);
    cred2[70] ^= 1;
    mock_quote_for(f->quote, f->ns, f->pk, cred2, f->claim.challenge);
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "admission binding") != NULL);
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(quote_without_the_challenge_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    uint8_t stale[32];
    mero_random(stale, 32);
    mock_quote_for(f->quote, f->ns, f->pk, f->cred, stale); /* made ahead of time */
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "challenge") != NULL);
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

TEST(node_that_may_not_vouch_says_so)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    f->gov.may_vouch = 0;
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_ENOTVOUCHER);
    CHECK_STR_EQ(e.msg, "this node is neither an admin nor an admitted TEE of the namespace, so "
                        "it may not vouch; ask another admitter");
    teardown(f);
}

/* A real quote from ../shared with its report data replaced by ours (signature now broken). */
static uint8_t *real_quote_for(struct fixture *f, size_t *len)
{
    uint8_t *q = mero_test_read("testdata/tdx/dcapqvl-1/quote.bin", 1, len);
    if (q == NULL) {
        return NULL;
    }
    uint8_t binding[32];
    mero_admission_binding(binding, f->ns, f->ns, f->pk, f->cred, f->cred + 32, f->cred + 64);
    mero_report_data(q + 568, f->claim.challenge, binding);
    return q;
}

TEST(real_quote_needs_a_dcap_verdict)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    size_t len = 0;
    uint8_t *q = real_quote_for(f, &len);
    CHECK(q != NULL);
    struct mero_quote parsed;
    CHECK_OK(mero_quote_parse(&parsed, q, len, NULL));
    f->claim.quote = q;
    f->claim.quote_len = len;
    int o;
    struct mero_err e = {0};
    f->gov.real_rc = -MERO_ECOLLATERAL_FETCH; /* no verdict is a refusal */
    int rc = vaa(f, 1000, &o, &e);
    CHECK(rc == -MERO_ECOLLATERAL_FETCH);
    CHECK(strstr(e.msg, "did not verify") != NULL);
    CHECK_EQ(f->gov.admits, 0);
    CHECK_EQ(f->gov.real_calls, 1);
    /* with a verdict, the quote's own MRTD reaches the decision */
    CHECK_OK(mero__adm_challenge_issue(f->book, MERO_CHALLENGE_REQUESTED, f->ns, PEER, sizeof(PEER),
                                       f->pk, 10000, f->claim.challenge, NULL));
    free(q);
    q = real_quote_for(f, &len);
    CHECK(q != NULL);
    f->claim.quote = q;
    f->gov.real_rc = 0;
    rc = vaa(f, 10001, &o, &e);
    CHECK_OK(rc);
    CHECK(!f->gov.last_mock);
    CHECK_STR_EQ(f->gov.last_tcb, "UpToDate");
    CHECK_MEM_EQ(f->gov.last_mrtd, parsed.body.mrtd, 48);
    /* without a DCAP verifier a real quote is refused */
    f->ops.dcap = NULL;
    CHECK_OK(mero__adm_challenge_issue(f->book, MERO_CHALLENGE_REQUESTED, f->ns, PEER, sizeof(PEER),
                                       f->pk, 20000, f->claim.challenge, NULL));
    free(q);
    q = real_quote_for(f, &len);
    CHECK(q != NULL);
    f->claim.quote = q;
    rc = vaa(f, 20001, &o, &e);
    free(q);
    CHECK_ERR(rc, -MERO_EUNSUPPORTED);
    CHECK_EQ(f->gov.admits, 1);
    teardown(f);
}

/* issue 32: one quote, one hash. The same quote with different padding after its declared end
 * (within the 16 KiB cap) is the same admission quote: the hash that the spent-quote rule keys
 * on and the bytes carried to governance are the declared ones, not the bytes as sent. */
TEST(padding_after_the_quote_is_not_hashed_or_carried)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    size_t len = 0;
    uint8_t *q = real_quote_for(f, &len);
    CHECK(q != NULL);
    struct mero_quote parsed;
    CHECK_OK(mero_quote_parse(&parsed, q, len, NULL));
    size_t decl = parsed.total_len;
    uint8_t want[32];
    const size_t pads[] = {0, 1, 70, MERO_MAX_TEE_QUOTE_BYTES - decl};
    const uint8_t fill[] = {0x00, 0xa5, 0x00, 0x5a};
    for (size_t i = 0; i < sizeof(pads) / sizeof(pads[0]); i++) {
        if (i > 0) { /* a fresh challenge each time; the quote is rebuilt around it */
            CHECK_OK(mero__adm_challenge_issue(f->book, MERO_CHALLENGE_REQUESTED, f->ns, PEER,
                                               sizeof(PEER), f->pk, 10000 * i, f->claim.challenge,
                                               NULL));
        }
        free(q);
        q = real_quote_for(f, &len);
        CHECK(q != NULL);
        uint8_t *padded = malloc(decl + pads[i]);
        CHECK(padded != NULL);
        memcpy(padded, q, decl);
        memset(padded + decl, fill[i], pads[i]);
        mero_sha256(want, padded, decl);
        f->claim.quote = padded;
        f->claim.quote_len = decl + pads[i];
        int o;
        struct mero_err e = {0};
        int rc = vaa(f, 10000 * i + 1, &o, &e);
        free(padded);
        CHECK_MSG(rc == 0, "padding %zu: %s", pads[i], e.msg);
        CHECK_EQ(f->gov.last_len, decl);
        CHECK_EQ(f->gov.last_real_len, decl);
        CHECK_MEM_EQ(f->gov.last_hash, want, 32);
    }
    free(q);
    CHECK_EQ(f->gov.admits, 4);
    /* the same quote with other padding (0xff, 100 bytes): the declared bytes are what is
     * hashed, so it is the same quote to governance, not a new one */
    CHECK_OK(mero__adm_challenge_issue(f->book, MERO_CHALLENGE_REQUESTED, f->ns, PEER, sizeof(PEER),
                                       f->pk, 100000, f->claim.challenge, NULL));
    q = real_quote_for(f, &len);
    CHECK(q != NULL);
    uint8_t *padded = calloc(1, decl + 100);
    CHECK(padded != NULL);
    memcpy(padded, q, decl);
    mero_sha256(want, padded, decl);
    memset(padded + decl, 0xff, 100);
    f->claim.quote = padded;
    f->claim.quote_len = decl + 100;
    int o;
    struct mero_err e = {0};
    CHECK_OK(vaa(f, 100001, &o, &e));
    CHECK_MEM_EQ(f->gov.last_hash, want, 32);
    CHECK_EQ(f->gov.last_len, decl);
    free(padded);
    free(q);
    teardown(f);
}

TEST(garbage_quote_refused)
{
    struct fixture *f = setup(0);
    CHECK(f != NULL);
    uint8_t junk[600];
    memset(junk, 0x5a, sizeof(junk));
    f->claim.quote = junk;
    f->claim.quote_len = sizeof(junk);
    int o;
    struct mero_err e = {0};
    CHECK_ERR(vaa(f, 1000, &o, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "does not parse") != NULL);
    f->claim.quote_len = 0;
    CHECK_FAILS(vaa(f, 1000, &o, &e));
    CHECK_EQ(f->gov.admits, 0);
    teardown(f);
}

MERO_TEST_MAIN(T(mock_quote_admitted_with_its_hash_and_zero_measurements),
               T(challenge_presented_twice_refused), T(challenge_presented_by_another_peer_refused),
               T(challenge_after_60_s_refused),
               T(quote_over_16_kib_refused_after_spending_the_challenge),
               T(credential_lifted_from_another_replica_refused),
               T(quote_for_another_credential_refused), T(quote_without_the_challenge_refused),
               T(node_that_may_not_vouch_says_so), T(real_quote_needs_a_dcap_verdict),
               T(padding_after_the_quote_is_not_hashed_or_carried), T(garbage_quote_refused))
