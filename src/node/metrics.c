/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c - mero_node_metrics, the one node use case behind GET /metrics (docs/metrics.md):
 * it gathers the counters where they are kept - the admission's outcome table, DCAP timings
 * and purges (node/admission/metrics.c), the challenge book, the PCS collateral cache
 * (mero_pcs_stats), gossip (mero_net_gossip_stats), connected peers, and per namespace the op
 * log size (gov) and the sync lag (node/sync.c) - into one C struct. The text format is the
 * API's (api/routes_metrics.c).
 *
 * Invariants: reading changes nothing; the DCAP histogram is returned cumulative (bucket i
 * counts every verification <= bound i) and its count is the sum of the three results; a
 * namespace never pulled since start lags by the node's uptime.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/net.h"
#include "mero/pcs.h"
#include "node/admission/service_internal.h"
#include "node/node_internal.h"
#include "node/sync_internal.h"

void mero_node_set_metrics_public(struct mero_node *node, bool on)
{
    node->metrics_public = on;
}

bool mero_node_metrics_public(const struct mero_node *node)
{
    return node->metrics_public;
}

void mero_node_metrics_cleanup(struct mero_node_metrics *m)
{
    if (m == NULL) {
        return;
    }
    free(m->ns);
    m->ns = NULL;
    m->nns = 0;
}

static void read_admission(struct mero_admission *a, struct mero_node_metrics *m, uint64_t now_ms)
{
    const struct mero_adm_metrics *am = &a->metrics;
    memcpy(m->adm, am->adm, am->nadm * sizeof(am->adm[0]));
    m->nadm = am->nadm;
    m->purges = am->purges;
    m->prompts_forwarded = a->prompt_fwd.forwarded;
    m->prompts_held = a->prompt_fwd.held;
    m->dcap_verified = atomic_load_explicit(&am->dcap_verified, memory_order_relaxed);
    m->dcap_refused = atomic_load_explicit(&am->dcap_refused, memory_order_relaxed);
    m->dcap_no_verdict = atomic_load_explicit(&am->dcap_no_verdict, memory_order_relaxed);
    m->dcap_count = m->dcap_verified + m->dcap_refused + m->dcap_no_verdict;
    uint64_t below = 0;
    for (size_t i = 0; i < MERO_METRICS_DCAP_BUCKETS; i++) {
        below += atomic_load_explicit(&am->dcap_bucket[i], memory_order_relaxed);
        m->dcap_bucket[i] = below;
    }
    if (m->dcap_count < below) {
        m->dcap_count = below; /* a verification counted between the loads above */
    }
    m->dcap_sum_s = (double)atomic_load_explicit(&am->dcap_sum_ns, memory_order_relaxed) / 1e9;
    m->challenges_requested = mero__adm_challenge_count(&a->book, MERO_CHALLENGE_REQUESTED, now_ms);
    m->challenges_offered = mero__adm_challenge_count(&a->book, MERO_CHALLENGE_OFFERED, now_ms);
}

int mero_node_metrics(struct mero_node *node, struct mero_node_metrics *out, struct mero_err *err)
{
    struct mero_node_metrics m;
    memset(&m, 0, sizeof(m));
    uint64_t now = mero_now_unix();
    /* hook.c installs the admission (when the node runs one) as the fleet join's state */
    struct mero_admission *a = node->hooks.fleet_join_state;
    if (a != NULL) {
        read_admission(a, &m, mero__adm_now(a));
    }
    m.challenges_requested_max = MERO_CHALLENGE_MAX_REQUESTED;
    m.challenges_offered_max = MERO_CHALLENGE_MAX_OFFERED;
    struct mero_pcs_stats ps;
    mero_pcs_stats(&ps);
    m.collateral_hits = ps.cache_hits;
    m.collateral_misses = ps.fetches + ps.failures;
    m.collateral_fetch_failures = ps.failures;
    if (node->net != NULL) {
        struct mero_net_gossip_stats gs;
        m.peers = mero_net_connected_peers(node->net, NULL, 0);
        m.conns_trimmed = mero_net_conns_trimmed(node->net);
        mero_net_gossip_stats(node->net, &gs);
        m.gossip_in = gs.delivered;
        m.gossip_out = gs.published;
        m.prompts_unchecked = gs.unverified_ignored; /* only the admission layer answers noop */
    }
    m.gov_rejected = node->gov_rejected;
    mero_ed25519_memo_stats(&m.sig_memo_hits, &m.sig_memo_misses);
    m.uptime_s = node->started_unix != 0 && now > node->started_unix ? now - node->started_unix : 0;
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    int rc = mero_node_namespaces(node, &nss, &n);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot list the namespaces");
    }
    if (n > 0) {
        m.ns = calloc(n, sizeof(*m.ns));
        if (m.ns == NULL) {
            free(nss);
            return mero_err_set(err, MERO_ENOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct mero_metrics_ns *e = &m.ns[m.nns];
        memcpy(e->ns, nss[i], sizeof(e->ns));
        if (mero_gov_op_count(node->store, e->ns, &e->ops) < 0) {
            continue; /* purged meanwhile: not listed */
        }
        uint64_t at = 0;
        if (mero__node_sync_last(node, e->ns, &at)) {
            e->last_sync_unix = at;
            e->sync_lag_s = now > at ? now - at : 0;
        } else {
            e->sync_lag_s = m.uptime_s;
        }
        m.nns++;
    }
    free(nss);
    *out = m;
    return 0;
}
