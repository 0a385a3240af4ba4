/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_verify_memo.c - Ed25519 verification with a memory of what verified (crypto/
 * verify_memo.c, issue 33): a triple that verified is answered from memory after; a failure
 * is never remembered; a changed key, signature or message is not a hit; a flood of more
 * triples than slots is answered rightly (the memory forgets, never lies); threads calling at
 * once get the right answers (run in the TSan lane).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mero/crypto.h"
#include "harness.h"

struct triple {
    uint8_t pk[MERO_ED25519_PK_LEN], sig[MERO_ED25519_SIG_LEN], msg[40];
};

static void signed_triple(struct triple *t, unsigned i)
{
    uint8_t sk[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(t->pk, sk);
    memset(t->msg, 0, sizeof(t->msg));
    snprintf((char *)t->msg, sizeof(t->msg), "message %u", i);
    mero_ed25519_sign(t->sig, t->msg, sizeof(t->msg), sk);
}

static void stats(uint64_t *hits, uint64_t *misses)
{
    mero_ed25519_memo_stats(hits, misses);
}

TEST(crypto_init)
{
    CHECK_OK(mero_crypto_init());
}

TEST(a_triple_that_verified_is_answered_from_memory)
{
    struct triple t;
    uint64_t h0, m0, h1, m1;
    signed_triple(&t, 1);
    stats(&h0, &m0);
    CHECK_OK(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), t.pk));
    stats(&h1, &m1);
    CHECK_EQ(h1 - h0, 0);
    CHECK_EQ(m1 - m0, 1);
    CHECK_OK(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), t.pk));
    CHECK_OK(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), t.pk));
    stats(&h1, &m1);
    CHECK_EQ(h1 - h0, 2);
    CHECK_EQ(m1 - m0, 1);
}

TEST(a_failure_is_never_remembered_and_a_change_is_no_hit)
{
    struct triple t, other;
    uint64_t h0, m0, h1, m1;
    signed_triple(&t, 2);
    signed_triple(&other, 3);
    CHECK_OK(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), t.pk)); /* remembered */
    stats(&h0, &m0);
    /* the same signature over another message, by another key, or one bit off: refused, each
     * time, without a hit */
    for (int round = 0; round < 2; round++) {
        uint8_t msg[sizeof(t.msg)], sig[sizeof(t.sig)];
        memcpy(msg, t.msg, sizeof(msg));
        msg[sizeof(msg) - 1] ^= 1;
        CHECK_ERR(mero_ed25519_verify_memo(t.sig, msg, sizeof(msg), t.pk), -MERO_EBADSIG);
        CHECK_ERR(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), other.pk), -MERO_EBADSIG);
        memcpy(sig, t.sig, sizeof(sig));
        sig[5] ^= 0x10;
        CHECK_ERR(mero_ed25519_verify_memo(sig, t.msg, sizeof(t.msg), t.pk), -MERO_EBADSIG);
        /* a shorter message that is a prefix of the signed one */
        CHECK_ERR(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg) - 1, t.pk), -MERO_EBADSIG);
    }
    stats(&h1, &m1);
    CHECK_EQ(h1 - h0, 0);
    CHECK_EQ(m1 - m0, 8);
    /* and the remembered one still answers from memory */
    CHECK_OK(mero_ed25519_verify_memo(t.sig, t.msg, sizeof(t.msg), t.pk));
    stats(&h1, &m1);
    CHECK_EQ(h1 - h0, 1);
}

/* more triples than slots: every answer right, the memory only forgets */
TEST(a_flood_past_the_slots_is_answered_rightly)
{
    enum { N = MERO_VERIFY_MEMO_SLOTS + MERO_VERIFY_MEMO_SLOTS / 4 };
    static struct triple t[N];
    uint64_t h0, m0, h1, m1;
    for (unsigned i = 0; i < N; i++) {
        signed_triple(&t[i], 1000 + i);
    }
    for (unsigned i = 0; i < N; i++) {
        CHECK_OK(mero_ed25519_verify_memo(t[i].sig, t[i].msg, sizeof(t[i].msg), t[i].pk));
    }
    stats(&h0, &m0);
    unsigned bad = 0;
    for (unsigned i = 0; i < N; i++) {
        CHECK_OK(mero_ed25519_verify_memo(t[i].sig, t[i].msg, sizeof(t[i].msg), t[i].pk));
        uint8_t sig[MERO_ED25519_SIG_LEN];
        memcpy(sig, t[i].sig, sizeof(sig));
        sig[0] ^= 1;
        bad += mero_ed25519_verify_memo(sig, t[i].msg, sizeof(t[i].msg), t[i].pk) == -MERO_EBADSIG;
    }
    CHECK_EQ(bad, N);
    stats(&h1, &m1);
    /* some were forgotten (more triples than slots: a pass in order over them, as a re-fold
     * makes, keeps about 30% of them in a direct-mapped memory), some answered from it */
    CHECK(h1 - h0 < N);
    CHECK(h1 - h0 > N / 8);
    CHECK_EQ((h1 - h0) + (m1 - m0), 2 * (uint64_t)N);
}

enum { THREADS = 4, SHARED = 64, ROUNDS = 50 };
static struct triple shared_t[SHARED];

static void *hammer(void *arg)
{
    unsigned long wrong = 0;
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        for (unsigned i = 0; i < SHARED; i++) {
            const struct triple *t = &shared_t[i];
            uint8_t sig[MERO_ED25519_SIG_LEN];
            memcpy(sig, t->sig, sizeof(sig));
            sig[63] ^= (uint8_t)(i & 1); /* odd ones carry a broken signature */
            int rc = mero_ed25519_verify_memo(sig, t->msg, sizeof(t->msg), t->pk);
            wrong += (i & 1) ? rc != -MERO_EBADSIG : rc != 0;
        }
    }
    return (void *)wrong;
}

TEST(threads_at_once_get_the_right_answers)
{
    pthread_t th[THREADS];
    for (unsigned i = 0; i < SHARED; i++) {
        signed_triple(&shared_t[i], 90000 + i);
    }
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ(pthread_create(&th[i], NULL, hammer, NULL), 0);
    }
    unsigned long wrong = 0;
    for (int i = 0; i < THREADS; i++) {
        void *w = NULL;
        CHECK_EQ(pthread_join(th[i], &w), 0);
        wrong += (unsigned long)w;
    }
    CHECK_EQ(wrong, 0);
}

MERO_TEST_MAIN(T(crypto_init), T(a_triple_that_verified_is_answered_from_memory),
               T(a_failure_is_never_remembered_and_a_change_is_no_hit),
               T(a_flood_past_the_slots_is_answered_rightly),
               T(threads_at_once_get_the_right_answers))
