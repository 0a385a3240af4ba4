/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_challenge.c - the challenge book (src/node/admission/challenge.c), mirroring the reference's
 * list (reference-calimero.md §8): answered once; lapses at 60 s; bound to peer, namespace and
 * requesting key, a wrong try spends it; an offered challenge is not key-bound; no re-offer
 * within 5 s; the per-peer cap evicts the oldest; a flood of prompting peers is capped at 256
 * without shutting out a new peer or a requester; 16 concurrent offers. The clock is injected.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mero/crypto.h"
#include "node/admission/challenge_internal.h"
#include "harness.h"

static uint8_t NS[32] = {1};
static uint8_t NS2[32] = {2};
static uint8_t KEY[32] = {0xa1};
static uint8_t KEY2[32] = {0xa2};
static const uint8_t PEER_A[] = "peer-a";
static const uint8_t PEER_B[] = "peer-b";
#define A PEER_A, sizeof(PEER_A)
#define B PEER_B, sizeof(PEER_B)

static struct mero_challenge_book *new_book(void)
{
    struct mero_challenge_book *b = malloc(sizeof(*b));
    if (b != NULL) {
        mero__adm_challenge_book_init(b);
    }
    return b;
}

static void peer_name(uint8_t out[16], unsigned i)
{
    memset(out, 0, 16);
    memcpy(out, "flood-", 6);
    out[6] = (uint8_t)(i >> 8);
    out[7] = (uint8_t)i;
}

TEST(answered_once)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32];
    struct mero_err e = {0};
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 1000, c, &e));
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_REQUESTED, 1000), 1);
    CHECK_OK(mero__adm_challenge_consume(b, c, NS, A, KEY, 2000, &e));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, KEY, 2001, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "already used") != NULL);
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_REQUESTED, 2001), 0);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(lapses_at_60_s_ok_at_59_s)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c1[32], c2[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 0, c1, NULL));
    CHECK_OK(mero__adm_challenge_consume(b, c1, NS, A, KEY, 59999, NULL));
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 100000, c2, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c2, NS, A, KEY, 160000, NULL), -MERO_EREFUSED);
    /* an unspent challenge past its lapse is no longer counted */
    uint8_t c3[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, B, NULL, 200000, c3, NULL));
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 259999), 1);
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 260000), 0);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(bound_to_peer_namespace_and_key_wrong_try_spends_it)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32];
    /* another peer presents it: refused, and spent for the rightful owner too */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 0, c, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, B, KEY, 1, NULL), -MERO_EREFUSED);
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, KEY, 2, NULL), -MERO_EREFUSED);
    /* another namespace */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS2, A, KEY, 10000, c, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, KEY, 10001, NULL), -MERO_EREFUSED);
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS2, A, KEY, 10002, NULL), -MERO_EREFUSED);
    /* another requesting key */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 20000, c, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, KEY2, 20001, NULL), -MERO_EREFUSED);
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, KEY, 20002, NULL), -MERO_EREFUSED);
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 30000, c, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, A, NULL, 30001, NULL), -MERO_EREFUSED);
    /* a challenge never issued */
    uint8_t forged[32];
    mero_random(forged, sizeof(forged));
    CHECK_ERR(mero__adm_challenge_consume(b, forged, NS, A, KEY, 30002, NULL), -MERO_EREFUSED);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(offered_challenge_is_not_key_bound)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 0, c, NULL));
    CHECK_OK(mero__adm_challenge_consume(b, c, NS, A, KEY2, 10, NULL));
    /* but still bound to the peer */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 6000, c, NULL));
    CHECK_ERR(mero__adm_challenge_consume(b, c, NS, B, KEY, 6010, NULL), -MERO_EREFUSED);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(no_reoffer_within_5_s)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32];
    struct mero_err e = {0};
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 1000, c, &e));
    /* spending it does not reset the rate limit */
    CHECK_OK(mero__adm_challenge_consume(b, c, NS, A, KEY, 1500, NULL));
    CHECK_ERR(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 5999, c, &e),
              -MERO_EBUSY);
    CHECK_STR_EQ(e.msg, "a challenge was issued to this peer a moment ago; retry shortly");
    /* the requested class shares the limit for that peer and namespace */
    CHECK_ERR(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 5999, c, NULL),
              -MERO_EBUSY);
    /* another peer or namespace is unaffected */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, B, NULL, 2000, c, NULL));
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS2, A, NULL, 2000, c, NULL));
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, 6000, c, NULL));
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(per_peer_cap_evicts_oldest)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[5][32];
    for (int i = 0; i < 5; i++) {
        CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL,
                                           (uint64_t)i * 5000, c[i], NULL));
        CHECK(mero__adm_challenge_count_peer(b, A, (uint64_t)i * 5000) <= 4);
    }
    CHECK_EQ(mero__adm_challenge_count_peer(b, A, 20000), 4);
    CHECK_ERR(mero__adm_challenge_consume(b, c[0], NS, A, KEY, 20001, NULL), -MERO_EREFUSED);
    for (int i = 1; i < 5; i++) {
        CHECK_OK(mero__adm_challenge_consume(b, c[i], NS, A, KEY, 20001, NULL));
    }
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(flood_of_prompting_peers_capped_at_256_new_peer_and_requester_still_served)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32], p[16];
    for (unsigned i = 0; i < 500; i++) {
        peer_name(p, i);
        CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, p, sizeof(p), NULL,
                                           100 + i, c, NULL));
        CHECK(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 100 + i) <= 256);
    }
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 700), 256);
    /* a genuine new peer still gets a challenge that works */
    uint8_t good[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, B, NULL, 701, good, NULL));
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 701), 256);
    /* and so does a requester: the classes are separate */
    uint8_t req[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, KEY, 702, req, NULL));
    CHECK_OK(mero__adm_challenge_consume(b, good, NS, B, KEY, 800, NULL));
    CHECK_OK(mero__adm_challenge_consume(b, req, NS, A, KEY, 800, NULL));
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(flood_evicts_from_the_peer_holding_most)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32], p[16];
    uint8_t nsx[32];
    /* 64 peers each hold 4 (across 4 namespaces): the class is full */
    for (unsigned i = 0; i < 64; i++) {
        peer_name(p, i);
        for (unsigned k = 0; k < 4; k++) {
            memset(nsx, (int)k + 10, sizeof(nsx));
            CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, nsx, p, sizeof(p), NULL,
                                               1000 + i * 4 + k, c, NULL));
        }
    }
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_OFFERED, 2000), 256);
    /* a lone new peer gets in; one of the 4-holders lost its oldest */
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, B, NULL, 2000, c, NULL));
    CHECK_EQ(mero__adm_challenge_count_peer(b, B, 2000), 1);
    peer_name(p, 0);
    CHECK_EQ(mero__adm_challenge_count_peer(b, p, sizeof(p), 2000), 3);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(five_hundred_prompts_from_one_peer_stay_bounded)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32];
    unsigned issued = 0;
    for (unsigned i = 0; i < 500; i++) { /* one prompt every 100 ms for 50 s */
        if (mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, A, NULL, (uint64_t)i * 100, c,
                                      NULL) == 0) {
            issued++;
        }
        CHECK(mero__adm_challenge_count_peer(b, A, (uint64_t)i * 100) <= 4);
    }
    CHECK_EQ(issued, 10); /* one per 5 s */
    uint8_t good[32];
    CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, B, NULL, 50000, good, NULL));
    CHECK_OK(mero__adm_challenge_consume(b, good, NS, B, KEY, 50001, NULL));
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(requested_class_capped_at_1024)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32], p[16];
    for (unsigned i = 0; i < 1100; i++) {
        peer_name(p, i);
        CHECK_OK(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, p, sizeof(p), KEY, i, c,
                                           NULL));
    }
    CHECK_EQ(mero__adm_challenge_count(b, MERO_CHALLENGE_REQUESTED, 1100), 1024);
    CHECK_OK(mero__adm_challenge_consume(b, c, NS, p, sizeof(p), KEY, 1101, NULL));
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(sixteen_concurrent_offers)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    for (int i = 0; i < 16; i++) {
        CHECK_OK(mero__adm_challenge_offer_acquire(b));
    }
    CHECK_ERR(mero__adm_challenge_offer_acquire(b), -MERO_EBUSY);
    mero__adm_challenge_offer_release(b);
    CHECK_OK(mero__adm_challenge_offer_acquire(b));
    CHECK_ERR(mero__adm_challenge_offer_acquire(b), -MERO_EBUSY);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

TEST(bad_arguments_refused)
{
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    uint8_t c[32], big[65] = {0};
    CHECK_ERR(mero__adm_challenge_issue(b, MERO_CHALLENGE_REQUESTED, NS, A, NULL, 0, c, NULL),
              -MERO_EINVAL);
    CHECK_ERR(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, big, sizeof(big), NULL, 0, c,
                                        NULL),
              -MERO_EINVAL);
    CHECK_ERR(mero__adm_challenge_issue(b, MERO_CHALLENGE_OFFERED, NS, big, 0, NULL, 0, c, NULL),
              -MERO_EINVAL);
    mero__adm_challenge_book_cleanup(b);
    free(b);
}

/* The book's invariants are asserted in checked builds (make asan / debug): an unmatched
 * offer release aborts there; a release build keeps the count at zero instead. */
TEST(unmatched_offer_release_is_an_invariant_violation)
{
#if defined(MERO_CHECKED)
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct mero_challenge_book *b = new_book();
        if (b != NULL) {
            mero__adm_challenge_offer_release(b); /* no acquire: MERO_ASSERT aborts */
        }
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#else
    struct mero_challenge_book *b = new_book();
    CHECK(b != NULL);
    mero__adm_challenge_offer_release(b);
    for (int i = 0; i < 16; i++) {
        CHECK_OK(mero__adm_challenge_offer_acquire(b));
    }
    CHECK_ERR(mero__adm_challenge_offer_acquire(b), -MERO_EBUSY);
    mero__adm_challenge_book_cleanup(b);
    free(b);
#endif
}

MERO_TEST_MAIN(T(answered_once), T(lapses_at_60_s_ok_at_59_s),
               T(bound_to_peer_namespace_and_key_wrong_try_spends_it),
               T(offered_challenge_is_not_key_bound), T(no_reoffer_within_5_s),
               T(per_peer_cap_evicts_oldest),
               T(flood_of_prompting_peers_capped_at_256_new_peer_and_requester_still_served),
               T(flood_evicts_from_the_peer_holding_most),
               T(five_hundred_prompts_from_one_peer_stay_bounded),
               T(requested_class_capped_at_1024), T(sixteen_concurrent_offers),
               T(bad_arguments_refused), T(unmatched_offer_release_is_an_invariant_violation))
