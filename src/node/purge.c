/* SPDX-License-Identifier: Apache-2.0 */
/*
 * purge.c - self_purge (spec "Eviction and self-purge"): a node-local listener that reacts
 * only to TeeMemberRemoved for this node's identity, deliberately not to the generic
 * MemberRemoved (a non-TEE removal stays a soft leave). A namespace-root removal purges the
 * whole namespace (op log, derived rows, group keys, identity: mero_gov_self_purge) and
 * leaves its gossip topic; a subgroup-only removal purges that group's keys and rows and keeps
 * the topic. Self-purge rotates nothing.
 *
 * The purge deletes the node-local context state (node.db: values and deltas of the purged
 * contexts) first, then gov's rows, keys, op log and identity.
 *
 * After the deletions both databases are checkpointed with the WAL truncated (they run with
 * secure_delete, so the deleted values are zeroes in the files and gone from the WALs); every
 * start checkpoints too, which finishes a purge that crashed between its commit and this.
 *
 * Invariants: the durable pending-self-purge marker (the namespace for a root removal, the
 * subgroup for a subgroup-only one) is written by gov in the same transaction that applies
 * the removal (apply.c), so no crash point leaves an evicted node without it; the handler here only
 * writes it again (idempotent, for a store fed by an older build); gov clears it only once the
 * purge completed, and node.db is purged before that; at startup every marked namespace - and only
 * a marked one - is purged (reconcile), so a crash anywhere between the removal and the end of the
 * purge is finished and nothing else (pending joins, soft leaves) is touched.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "node/admission/service_internal.h"

/* Test seam: the process ends right after step n when MERO_TEST_PURGE_CRASH_AFTER=n (--test). */
static void crash_after(const struct mero_admission *a, unsigned n)
{
    if (a->env.purge_crash_after == n) {
        MERO_WARN("test seam: crashing after self-purge step %u", n);
        _exit(87);
    }
}

static void purge_one(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                      const uint8_t group[MERO_GROUP_ID_LEN])
{
    struct mero_err e = {0};
    char nsx[17], gx[17];
    bool whole = memcmp(ns, group, MERO_GROUP_ID_LEN) == 0;
    mero_hex_encode(nsx, ns, 8);
    mero_hex_encode(gx, group, 8);
    /* context state first: gov's purge forgets which contexts were the namespace's */
    if (a->env.purge_contexts != NULL && a->env.purge_contexts(a->env.ud, ns, group) < 0) {
        MERO_WARN("self-purge of %s… failed: cannot delete its context state (%s)", gx,
                  whole ? "the marker stays for the next start" : "retried at the next removal");
        return;
    }
    crash_after(a, 1);
    if (mero_gov_self_purge(a->env.store, ns, group, &e) < 0) {
        MERO_WARN("self-purge of %s… failed (the marker stays for the next start): %s", gx, e.msg);
        return;
    }
    crash_after(a, 2);
    /* secure_delete zeroed what was deleted, but in the WAL: copy it into the files and
     * truncate the WALs, so no old page image of the namespace stays on disk */
    if (a->env.checkpoint != NULL && a->env.checkpoint(a->env.ud) < 0) {
        MERO_WARN("self-purge of %s…: the checkpoint did not finish; the next start repeats it",
                  gx);
    }
    crash_after(a, 3);

    a->metrics.purges++; /* issue 19: metrics */
    if (whole) {
        char topic[MERO_NS_TOPIC_SIZE];
        mero__node_topic(topic, ns);
        if (a->env.net != NULL && !a->closing && mero_net_unsubscribe(a->env.net, topic) < 0) {
            MERO_WARN("self-purge: could not leave %s", topic);
        }
        mero__adm_pending_remove(&a->pending, ns);
        MERO_INFO("self-purge: evicted TEE; namespace %s… purged and its topic left", nsx);
    } else {
        MERO_INFO("self-purge: evicted TEE; group %s… of namespace %s… purged", gx, nsx);
    }
}

static void on_purge_timer(uv_timer_t *t)
{
    struct mero_admission *a = t->data;
    while (a->npurge > 0) {
        struct mero_purge_job j = a->purge_q[--a->npurge];
        purge_one(a, j.ns, j.group);
    }
}

void mero__adm_on_event(struct mero_admission *a, const struct mero_gov_event *ev)
{
    if (a == NULL || ev == NULL || ev->kind != MERO_EV_TEE_MEMBER_REMOVED || !ev->for_us ||
        ev->ns == NULL || ev->group == NULL) {
        return;
    }
    bool whole = memcmp(ev->ns, ev->group, MERO_GROUP_ID_LEN) == 0;
    if (whole && mero_gov_purge_mark(a->env.store, ev->ns) < 0) {
        MERO_WARN("self-purge: could not write the pending marker");
    }
    for (size_t i = 0; i < a->npurge; i++) {
        if (memcmp(a->purge_q[i].group, ev->group, MERO_GROUP_ID_LEN) == 0) {
            return; /* already queued */
        }
    }
    if (a->npurge >= MERO_PURGE_QUEUE) {
        MERO_WARN("self-purge queue full; %s", whole ? "the marker finishes it at the next start"
                                                     : "this subgroup's keys stay until removed");
        return;
    }
    memcpy(a->purge_q[a->npurge].ns, ev->ns, MERO_NS_ID_LEN);
    memcpy(a->purge_q[a->npurge].group, ev->group, MERO_GROUP_ID_LEN);
    a->npurge++;
    if (a->purge_timer_open) {
        (void)uv_timer_start(&a->purge_timer, on_purge_timer, 0, 0);
    }
}

int mero__adm_purge_reconcile(struct mero_admission *a)
{
    uint8_t(*pending)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    MERO_TRY(mero_gov_purge_pending(a->env.store, &pending, &n));
    for (size_t i = 0; i < n; i++) {
        uint8_t ns[MERO_NS_ID_LEN];
        MERO_INFO("self-purge: finishing a purge interrupted before the last stop");
        /* a marker names a namespace, or a subgroup (subgroup-only eviction) */
        if (mero_gov_namespace_of(a->env.store, pending[i], ns) == 0 &&
            memcmp(ns, pending[i], MERO_NS_ID_LEN) != 0) {
            purge_one(a, ns, pending[i]);
        } else {
            purge_one(a, pending[i], pending[i]);
        }
    }
    free(pending);
    return 0;
}
