/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_reach_keys.c - the paged key pull (issue 16, node/admission/keys.c): one page carries
 * at most MERO_GROUP_KEYS_PAGE_MAX keys the requester lacks, newest first, and says whether more
 * remain, so a requester asking again with what it now holds gets every key in a bounded
 * number of pages; the per-key-id rate limit of the pulls a read or an apply triggers; the
 * GroupKeysRequest / GroupKeysResponse frames round-trip and refuse their over-bound forms.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "node/admission/keys_internal.h"
#include "node/admission/msg_internal.h"

#define NKEYS 20 /* more than two pages */

static void key_id(uint8_t out[MERO_KEY_ID_LEN], unsigned i)
{
    memset(out, 0, MERO_KEY_ID_LEN);
    out[0] = (uint8_t)(i + 1);
    out[31] = 0xa5;
}

TEST(page_is_bounded_newest_first_and_says_more)
{
    uint8_t ours[NKEYS][MERO_KEY_ID_LEN];
    for (unsigned i = 0; i < NKEYS; i++) {
        key_id(ours[i], i); /* index 0 = newest */
    }
    size_t idx[MERO_GROUP_KEYS_PAGE_MAX];
    bool more = false;
    size_t n = mero__keys_page((const uint8_t(*)[MERO_KEY_ID_LEN])ours, NKEYS, NULL, 0, idx, &more);
    CHECK_EQ(n, (size_t)MERO_GROUP_KEYS_PAGE_MAX);
    CHECK(more);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(idx[i], i);
    }
    /* exactly one page left: no more after it */
    n = mero__keys_page((const uint8_t(*)[MERO_KEY_ID_LEN])ours, MERO_GROUP_KEYS_PAGE_MAX, NULL, 0,
                        idx, &more);
    CHECK_EQ(n, (size_t)MERO_GROUP_KEYS_PAGE_MAX);
    CHECK(!more);
}

TEST(paging_until_done_hands_over_every_key_once)
{
    uint8_t ours[NKEYS][MERO_KEY_ID_LEN], held[NKEYS][MERO_KEY_ID_LEN];
    for (unsigned i = 0; i < NKEYS; i++) {
        key_id(ours[i], i);
    }
    /* the requester already holds the current key (delivered with its admission) */
    size_t nheld = 1, pages = 0, idx[MERO_GROUP_KEYS_PAGE_MAX];
    memcpy(held[0], ours[0], MERO_KEY_ID_LEN);
    bool more = true;
    while (more) {
        size_t n = mero__keys_page((const uint8_t(*)[MERO_KEY_ID_LEN])ours, NKEYS, held[0], nheld,
                                   idx, &more);
        CHECK(n <= MERO_GROUP_KEYS_PAGE_MAX);
        CHECK(n > 0);
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < nheld; j++) {
                CHECK(memcmp(held[j], ours[idx[i]], MERO_KEY_ID_LEN) != 0); /* never one held */
            }
            memcpy(held[nheld++], ours[idx[i]], MERO_KEY_ID_LEN);
        }
        pages++;
        if (pages > NKEYS) {
            break;
        }
    }
    CHECK_EQ(nheld, (size_t)NKEYS);
    CHECK_EQ(pages,
             (size_t)((NKEYS - 1 + MERO_GROUP_KEYS_PAGE_MAX - 1) / MERO_GROUP_KEYS_PAGE_MAX));
    /* holding everything: an empty page, nothing more */
    size_t n =
        mero__keys_page((const uint8_t(*)[MERO_KEY_ID_LEN])ours, NKEYS, held[0], nheld, idx, &more);
    CHECK_EQ(n, (size_t)0);
    CHECK(!more);
}

TEST(rate_limit_per_key_id)
{
    struct mero_key_pull_limit l;
    uint8_t g[MERO_GROUP_ID_LEN] = {1}, g2[MERO_GROUP_ID_LEN] = {2}, k[MERO_KEY_ID_LEN],
            k2[MERO_KEY_ID_LEN];
    memset(&l, 0, sizeof(l));
    key_id(k, 1);
    key_id(k2, 2);
    uint64_t t = 1000000;
    CHECK(mero__key_pull_allow(&l, g, k, t));
    CHECK(!mero__key_pull_allow(&l, g, k, t));                                 /* the same id */
    CHECK(!mero__key_pull_allow(&l, g, k, t + MERO_KEY_PULL_INTERVAL_MS - 1)); /* still */
    CHECK(mero__key_pull_allow(&l, g, k2, t + 1));                             /* another key id */
    CHECK(mero__key_pull_allow(&l, g2, k, t + 2)); /* the same id in another group */
    CHECK(mero__key_pull_allow(&l, g, k, t + MERO_KEY_PULL_INTERVAL_MS)); /* the interval is over */
    CHECK(!mero__key_pull_allow(&l, g, k, t + MERO_KEY_PULL_INTERVAL_MS + 1));
    CHECK(!mero__key_pull_allow(&l, g, k2, t + 2)); /* k2 was asked for at t + 1 */
}

TEST(rate_limit_bounds_a_flood_of_new_key_ids)
{
    struct mero_key_pull_limit l;
    uint8_t g[MERO_GROUP_ID_LEN] = {1}, k[MERO_KEY_ID_LEN];
    memset(&l, 0, sizeof(l));
    uint64_t t = 5000000;
    unsigned allowed = 0;
    for (unsigned i = 0; i < 200; i++) {
        key_id(k, i);
        allowed += mero__key_pull_allow(&l, g, k, t);
    }
    CHECK_EQ(allowed, MERO_KEY_PULL_BURST);
    /* after the interval the flood is allowed the burst again, in the table's bound */
    allowed = 0;
    for (unsigned i = 200; i < 400; i++) {
        key_id(k, i);
        allowed += mero__key_pull_allow(&l, g, k, t + MERO_KEY_PULL_INTERVAL_MS);
    }
    CHECK_EQ(allowed, MERO_KEY_PULL_BURST);
    /* a full table reuses its oldest entry: more distinct ids than it tracks, spread in time */
    memset(&l, 0, sizeof(l));
    for (unsigned i = 0; i < 2 * MERO_KEY_PULL_TRACKED; i++) {
        key_id(k, i);
        CHECK(mero__key_pull_allow(&l, g, k, t + (uint64_t)i * MERO_KEY_PULL_INTERVAL_MS));
    }
}

/* Repeated pulls ask every connected peer in turn, 4 at a time, none twice in one pull. */
TEST(pulls_rotate_through_the_connected_peers)
{
    size_t next = 0, idx[MERO_KEY_PULL_PEERS];
    bool asked[10] = {0};
    for (int pull = 0; pull < 3; pull++) {
        size_t k = mero__key_pull_window(10, &next, idx);
        CHECK_EQ(k, (size_t)MERO_KEY_PULL_PEERS);
        for (size_t i = 0; i < k; i++) {
            CHECK(idx[i] < 10);
            for (size_t j = 0; j < i; j++) {
                CHECK(idx[j] != idx[i]);
            }
            asked[idx[i]] = true;
        }
    }
    for (int i = 0; i < 10; i++) {
        CHECK_MSG(asked[i], "peer %d never asked in three pulls of 10 peers", i);
    }
    /* fewer peers than one pull asks: each once; none: nothing */
    next = 7;
    CHECK_EQ(mero__key_pull_window(3, &next, idx), 3u);
    CHECK(idx[0] != idx[1] && idx[1] != idx[2] && idx[0] != idx[2]);
    CHECK(idx[0] < 3 && idx[1] < 3 && idx[2] < 3);
    CHECK_EQ(mero__key_pull_window(0, &next, idx), 0u);
    CHECK_EQ(next, 0u);
}

TEST(group_keys_frames_round_trip_and_refuse_over_bounds)
{
    uint8_t held[MERO_GROUP_KEYS_HELD_MAX + 1][MERO_KEY_ID_LEN];
    memset(held, 7, sizeof(held));
    struct mero_adm_init m, d;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_INIT_GROUP_KEYS_REQUEST;
    m.ns[0] = 1;
    m.group_id[0] = 2;
    m.has_pop = true;
    m.held = held[0];
    m.nheld = 3;
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_init_encode(&b, &m));
    CHECK_OK(mero__adm_init_decode(b.data, b.len, &d, NULL));
    CHECK_EQ(d.kind, MERO_ADM_INIT_GROUP_KEYS_REQUEST);
    CHECK_EQ(d.nheld, (size_t)3);
    CHECK_MEM_EQ(d.held, held[0], 3 * MERO_KEY_ID_LEN);
    CHECK_MEM_EQ(d.group_id, m.group_id, MERO_GROUP_ID_LEN);
    /* a truncated list and a missing proof are refused */
    struct mero_err e = {0};
    CHECK(mero__adm_init_decode(b.data, b.len - MERO_ED25519_SIG_LEN - 2, &d, &e) < 0);
    mero_buf_cleanup(&b);
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    m.nheld = MERO_GROUP_KEYS_HELD_MAX + 1;
    CHECK_ERR(mero__adm_init_encode(&b, &m), -MERO_EINVAL);
    mero_buf_cleanup(&b);
    /* a count over the bound on the wire is refused before anything is read */
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    m.nheld = MERO_GROUP_KEYS_HELD_MAX;
    CHECK_OK(mero__adm_init_encode(&b, &m));
    size_t at =
        1 + MERO_CONTEXT_ID_LEN + MERO_IDENTITY_LEN + 1 + MERO_NS_ID_LEN + MERO_GROUP_ID_LEN;
    b.data[at] = (uint8_t)((MERO_GROUP_KEYS_HELD_MAX + 1) & 0xff);
    b.data[at + 1] = (uint8_t)((MERO_GROUP_KEYS_HELD_MAX + 1) >> 8);
    CHECK(mero__adm_init_decode(b.data, b.len, &d, &e) < 0);
    mero_buf_cleanup(&b);

    /* the response page */
    uint8_t env[3][40];
    struct mero_adm_msg r, rd;
    memset(&r, 0, sizeof(r));
    r.kind = MERO_ADM_MSG_GROUP_KEYS;
    for (int i = 0; i < 3; i++) {
        memset(env[i], 'a' + i, sizeof(env[i]));
        r.envs[i] = env[i];
        r.env_lens[i] = sizeof(env[i]);
    }
    r.nenvs = 3;
    r.more = true;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_OK(mero__adm_msg_encode(&b, &r));
    CHECK_OK(mero__adm_msg_decode(b.data, b.len, &rd, NULL));
    CHECK_EQ(rd.nenvs, (size_t)3);
    CHECK(rd.more);
    CHECK_MEM_EQ(rd.envs[2], env[2], sizeof(env[2]));
    /* a page claiming one envelope more than the bound */
    size_t cnt_at = 1 + 8 + 1;
    b.data[cnt_at] = MERO_GROUP_KEYS_PAGE_MAX + 1;
    CHECK(mero__adm_msg_decode(b.data, b.len, &rd, &e) < 0);
    mero_buf_cleanup(&b);
    r.nenvs = MERO_GROUP_KEYS_PAGE_MAX + 1;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    CHECK_ERR(mero__adm_msg_encode(&b, &r), -MERO_EINVAL);
    mero_buf_cleanup(&b);
}

MERO_TEST_MAIN(T(page_is_bounded_newest_first_and_says_more),
               T(pulls_rotate_through_the_connected_peers),
               T(paging_until_done_hands_over_every_key_once), T(rate_limit_per_key_id),
               T(rate_limit_bounds_a_flood_of_new_key_ids),
               T(group_keys_frames_round_trip_and_refuse_over_bounds))
