/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sync_cursor.c - the per-peer sync cursors of src/node/sync.c (issue 20: a catch-up
 * costs what is missing), over real loopback connections between two in-process nodes
 * (tests/support/sync_fixture.h). Asserted through the pull's counters, never timing: a second
 * catch-up lists only the anchor and what follows it (not the 2,000-entry log) and fetches only
 * the missing ops; a pull with nothing new lists the anchor alone; a responder whose log was
 * reset (the cursor beyond its last) is detected and the pull starts over once, then keeps the
 * new cursor; an entry this node could not take (refused) keeps the cursor where it was, so it
 * is listed and asked for again on the next pull; a delta refused for good is remembered and
 * not fetched again (issue 30).
 */
#include <sqlite3.h>
#include <string.h>

#include "harness.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/context/context_internal.h"
#include "node/sync_internal.h"
#include "support/sync_fixture.h"

static struct mero_node_sync_stats stats(struct mero_node *n)
{
    struct mero_node_sync_stats s;
    mero__node_sync_get_stats(n, &s);
    return s;
}

TEST(second_catch_up_lists_only_what_follows_the_cursor)
{
    struct syncf f;
    CHECK_OK(syncf_open(&f));
    CHECK_OK(syncf_fill(&f, 2000, true)); /* two inventory pages both hold */
    CHECK_OK(syncf_write(&f, 5));
    CHECK_OK(syncf_pull(&f));
    CHECK_U64_EQ(syncf_count(&f.b, f.ns), syncf_count(&f.a, f.ns));
    struct mero_node_sync_stats s1 = stats(&f.b), r1 = stats(&f.a);
    CHECK(s1.inv_entries >= 2005); /* the first pull lists the whole log */
    CHECK_U64_EQ(s1.get_entries, 5);

    CHECK_OK(syncf_write(&f, 3));
    CHECK_OK(syncf_pull(&f));
    CHECK_U64_EQ(syncf_count(&f.b, f.ns), syncf_count(&f.a, f.ns));
    struct mero_node_sync_stats s2 = stats(&f.b), r2 = stats(&f.a);
    CHECK_U64_EQ(s2.inv_entries - s1.inv_entries, 4); /* the anchor + the 3 new ops */
    CHECK_U64_EQ(s2.inv_sent - s1.inv_sent, 1);
    CHECK_U64_EQ(s2.get_entries - s1.get_entries, 3);
    CHECK_U64_EQ(r2.inv_served_entries - r1.inv_served_entries, 4);
    CHECK_U64_EQ(s2.restarts, 0);

    CHECK_OK(syncf_pull(&f)); /* nothing new: the anchor alone */
    struct mero_node_sync_stats s3 = stats(&f.b);
    CHECK_U64_EQ(s3.inv_entries - s2.inv_entries, 1);
    CHECK_U64_EQ(s3.get_entries - s2.get_entries, 0);
    syncf_close(&f);
}

/* A store holding the first k ops of ns that `from` holds, in from's order. */
static struct mero_store *copy_prefix(struct mero_store *from, const uint8_t ns[32], size_t k)
{
    struct mero_store *s = NULL;
    struct mero_err err = {0};
    uint8_t(*h)[32] = NULL;
    size_t n = 0;
    uint64_t last = 0;
    if (mero_store_open(":memory:", &s, &err) < 0 ||
        mero_gov_op_hashes(from, ns, 0, k, &h, &n, &last) < 0) {
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        struct mero_buf b;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        if (mero_gov_op_get(from, h[i], &b) == 0 &&
            mero_gov_apply(s, b.data, b.len, NULL, NULL, NULL, &err) < 0) {
            fprintf(stderr, "# copy: %s\n", err.msg);
        }
        mero_buf_cleanup(&b);
    }
    free(h);
    return s;
}

TEST(responder_log_reset_starts_over_once)
{
    struct syncf f;
    CHECK_OK(syncf_open(&f));
    CHECK_OK(syncf_write(&f, 6));
    CHECK_OK(syncf_pull(&f));
    CHECK_U64_EQ(syncf_count(&f.b, f.ns), syncf_count(&f.a, f.ns));
    /* the responder's log is rebuilt: only the namespace's first op, a shorter log than the
     * cursor, which now points beyond its last */
    struct mero_store *old = f.a.store, *fresh = copy_prefix(old, f.ns, 1);
    CHECK(fresh != NULL);
    CHECK_U64_EQ(syncf_count(&(struct mero_node){.store = fresh}, f.ns), 1);
    f.a.store = fresh;
    struct mero_node_sync_stats s1 = stats(&f.b);
    CHECK_OK(syncf_pull(&f));
    struct mero_node_sync_stats s2 = stats(&f.b);
    CHECK_U64_EQ(s2.restarts - s1.restarts, 1);
    CHECK_U64_EQ(s2.inv_entries - s1.inv_entries, 1); /* the new log, from its start */
    /* the new cursor holds: the next pull lists its anchor alone, no restart */
    CHECK_OK(syncf_pull(&f));
    struct mero_node_sync_stats s3 = stats(&f.b);
    CHECK_U64_EQ(s3.restarts, s2.restarts);
    CHECK_U64_EQ(s3.inv_entries - s2.inv_entries, 1);
    CHECK_U64_EQ(s3.get_entries - s2.get_entries, 0);
    f.a.store = old;
    mero_store_close(fresh);
    syncf_close(&f);
}

TEST(unheld_entry_keeps_the_cursor)
{
    struct syncf f;
    CHECK_OK(syncf_open(&f));
    CHECK_OK(syncf_write(&f, 2));
    CHECK_OK(syncf_pull(&f));
    /* entries the requester cannot take (not valid ops: refused), then a valid op after them */
    CHECK_OK(syncf_fill(&f, 3, false));
    CHECK_OK(syncf_write(&f, 1));
    struct mero_node_sync_stats s1 = stats(&f.b);
    CHECK_OK(syncf_pull(&f));
    struct mero_node_sync_stats s2 = stats(&f.b);
    CHECK_U64_EQ(s2.inv_entries - s1.inv_entries, 5); /* anchor + 3 refused + 1 */
    CHECK_U64_EQ(s2.get_entries - s1.get_entries, 4);
    CHECK_U64_EQ(syncf_count(&f.b, f.ns) + 3, syncf_count(&f.a, f.ns));
    /* the cursor did not move past the refused entries: they are listed and asked again */
    CHECK_OK(syncf_pull(&f));
    struct mero_node_sync_stats s3 = stats(&f.b);
    CHECK_U64_EQ(s3.inv_entries - s2.inv_entries, 5);
    CHECK_U64_EQ(s3.get_entries - s2.get_entries, 3);
    syncf_close(&f);
}

/* n junk rows (never valid deltas) in a's ctx_delta of ctx, as a peer that serves them would */
static int junk_deltas(struct mero_node *a, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       const uint8_t ns[MERO_NS_ID_LEN], uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        sqlite3_stmt *st = NULL;
        uint8_t junk[4] = {9, i, 0xee, 0xee}, h[MERO_DELTA_ID_LEN];
        mero_sha256(h, junk, sizeof(junk));
        if (sqlite3_prepare_v2(a->db,
                               "INSERT INTO ctx_delta(hash, context, grp, bytes, applied) "
                               "VALUES(?1, ?2, ?3, ?4, 1)",
                               -1, &st, NULL) != SQLITE_OK) {
            return -MERO_EIO;
        }
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 4, junk, sizeof(junk), SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) {
            return -MERO_EIO;
        }
    }
    return 0;
}

/* issue 30: a delta refused for good is remembered; the next pull neither fetches nor refuses
 * it again, and the cursor moves past it (the refusal loop of the reproduction). */
TEST(delta_refused_for_good_is_not_fetched_again)
{
    struct syncf f;
    struct mero_err err = {0};
    uint8_t app[MERO_APP_ID_LEN] = {0}, ctx[MERO_CONTEXT_ID_LEN];
    CHECK_OK(syncf_open(&f));
    f.b.full_history = true; /* issue 37: else b, holding nothing of ctx, takes its live state */
    CHECK_OK(mero_gov_create_context(f.a.store, f.ns, f.ns, app, ctx, NULL, &err));
    CHECK_OK(mero_node_ctx_put(&f.a, ctx, "k1", (const uint8_t *)"v", 1, false, 0, &err));
    CHECK_OK(junk_deltas(&f.a, ctx, f.ns, 3));
    CHECK_OK(mero_node_ctx_put(&f.a, ctx, "k2", (const uint8_t *)"v", 1, false, 0, &err));
    struct mero_node_sync_stats s1 = stats(&f.b);
    CHECK_OK(syncf_pull(&f)); /* the context op, then its deltas: 2 held, 3 refused */
    struct mero_node_sync_stats s2 = stats(&f.b);
    CHECK(s2.get_entries - s1.get_entries >= 5);
    CHECK_OK(syncf_pull(&f));
    struct mero_node_sync_stats s3 = stats(&f.b);
    CHECK_U64_EQ(s3.get_entries - s2.get_entries, 0); /* nothing fetched again */
    CHECK_U64_EQ(s3.inv_entries - s2.inv_entries, 2); /* the ops' anchor and the deltas' */
    syncf_close(&f);
}

MERO_TEST_MAIN(T(second_catch_up_lists_only_what_follows_the_cursor),
               T(responder_log_reset_starts_over_once), T(unheld_entry_keeps_the_cursor),
               T(delta_refused_for_good_is_not_fetched_again))
