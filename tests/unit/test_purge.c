/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_purge.c - self-purge's listener and startup reconcile (src/node/purge.c) over a real
 * governance store: only TeeMemberRemoved for our own identity acts (not the generic
 * MemberRemoved, not another member's eviction); a root eviction writes the durable marker at
 * once; reconcile purges exactly the marked namespaces and leaves the others alone.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "node/admission_node.h"
#include "harness.h"

static bool has_ns(struct mero_store *s, const uint8_t ns[32])
{
    uint8_t(*v)[32] = NULL;
    size_t n = 0;
    bool found = false;
    if (mero_gov_namespaces(s, &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            found = found || memcmp(v[i], ns, 32) == 0;
        }
    }
    free(v);
    return found;
}

static size_t pending(struct mero_store *s)
{
    uint8_t(*v)[32] = NULL;
    size_t n = 0;
    if (mero_gov_purge_pending(s, &v, &n) < 0) {
        return 999;
    }
    free(v);
    return n;
}

TEST(only_our_tee_eviction_acts_and_reconcile_purges_marked_only)
{
    CHECK_OK(mero_crypto_init());
    struct mero_store *s = NULL;
    struct mero_gov_oplist ops = {0};
    uint8_t ns[32], ns2[32];
    CHECK_OK(mero_store_open(":memory:", &s, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns, &ops, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns2, &ops, NULL));
    mero_gov_oplist_cleanup(&ops);
    struct mero_admission *a = calloc(1, sizeof(*a));
    CHECK(a != NULL);
    a->env.store = s;
    a->closing = true; /* no net: the topic part is skipped */

    struct mero_gov_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.ns = ns;
    ev.group = ns;
    ev.kind = MERO_EV_MEMBER_REMOVED; /* the generic event: soft leave */
    ev.for_us = true;
    mero_admission_on_event(a, &ev);
    CHECK_EQ(a->npurge, 0);
    ev.kind = MERO_EV_TEE_MEMBER_REMOVED; /* another node's eviction */
    ev.for_us = false;
    mero_admission_on_event(a, &ev);
    CHECK_EQ(a->npurge, 0);
    CHECK_EQ(pending(s), 0);
    ev.for_us = true; /* ours: marker first, then queued */
    mero_admission_on_event(a, &ev);
    CHECK_EQ(a->npurge, 1);
    CHECK_EQ(pending(s), 1);
    mero_admission_on_event(a, &ev); /* the same group twice is queued once */
    CHECK_EQ(a->npurge, 1);

    /* a crash before the queued purge ran: the next start's reconcile finishes it */
    CHECK_OK(mero_admission_purge_reconcile(a));
    CHECK(!has_ns(s, ns));
    CHECK(has_ns(s, ns2)); /* unmarked: untouched */
    CHECK_EQ(pending(s), 0);
    uint8_t pk[32];
    CHECK_ERR(mero_gov_identity(s, ns, false, pk, NULL), -MERO_ENOTFOUND);
    free(a);
    mero_store_close(s);
}

/* A subgroup marker (a subgroup-only eviction, marked by gov with the removal): the reconcile
 * purges that subgroup's keys only and keeps the namespace. */
TEST(reconcile_purges_a_marked_subgroup_only)
{
    CHECK_OK(mero_crypto_init());
    struct mero_store *s = NULL;
    uint8_t ns[32], sub[32], k[32], kid[32];
    CHECK_OK(mero_store_open(":memory:", &s, NULL));
    CHECK_OK(mero_gov_create_namespace(s, ns, NULL, NULL));
    CHECK_OK(mero_gov_create_subgroup(s, ns, ns, MERO_GROUP_RESTRICTED, sub, NULL, NULL));
    CHECK_OK(mero_gov_group_key(s, sub, k, kid));
    CHECK_OK(mero_gov_purge_mark(s, sub));
    struct mero_admission *a = calloc(1, sizeof(*a));
    CHECK(a != NULL);
    a->env.store = s;
    a->closing = true;
    CHECK_OK(mero_admission_purge_reconcile(a));
    CHECK_EQ(pending(s), 0);
    CHECK_ERR(mero_gov_group_key(s, sub, k, kid), -MERO_ENOTFOUND);
    CHECK(has_ns(s, ns));
    CHECK_OK(mero_gov_group_key(s, ns, k, kid));
    free(a);
    mero_store_close(s);
}

MERO_TEST_MAIN(T(only_our_tee_eviction_acts_and_reconcile_purges_marked_only),
               T(reconcile_purges_a_marked_subgroup_only))
