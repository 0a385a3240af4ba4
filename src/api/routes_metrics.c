/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_metrics.c - GET /metrics: the node's counters (mero_node_metrics) in the Prometheus
 * text exposition format 0.0.4 (docs/metrics.md lists every metric). Protected by the admin
 * token unless merod runs with --metrics-public; the route is declared public so that the
 * handler, not the router, makes that choice.
 *
 * Invariants: every metric family has exactly one HELP and one TYPE line before its samples,
 * and its samples are contiguous; label values are escaped (\\, \", \n); a namespace is
 * labelled with the first 16 hex of its id only; the text is built whole before it is sent
 * (an allocation failure answers 500, never a truncated scrape).
 */
#include <string.h>

#include "api/api_internal.h"
#include "mero/buf.h"
#include "mero/encoding.h"
#include "mero/node.h"

#define METRICS_MAX  (4u << 20) /* bytes of text at most */
#define NS_LABEL_HEX 16         /* hex digits of a namespace id in its label */

static const char *const result_names[] = {
    [MERO_METRICS_ADMITTED] = "admitted",
    [MERO_METRICS_REFUSED] = "refused",
    [MERO_METRICS_NO_VERDICT] = "no_verdict",
};

/* # HELP / # TYPE of one family */
static int family(struct mero_buf *b, const char *name, const char *type, const char *help)
{
    return mero_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* a label value with \\, \" and \n escaped */
static int label_value(struct mero_buf *b, const char *v)
{
    for (const char *p = v; *p != '\0'; p++) {
        const char *esc = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
        MERO_TRY(esc != NULL ? mero_buf_append_str(b, esc) : mero_buf_append(b, p, 1));
    }
    return 0;
}

static int sample1(struct mero_buf *b, const char *name, const char *label, const char *value,
                   uint64_t n)
{
    MERO_TRY(mero_buf_printf(b, "%s{%s=\"", name, label));
    MERO_TRY(label_value(b, value));
    return mero_buf_printf(b, "\"} %llu\n", (unsigned long long)n);
}

static int scalar(struct mero_buf *b, const char *name, const char *type, const char *help,
                  uint64_t n)
{
    MERO_TRY(family(b, name, type, help));
    return mero_buf_printf(b, "%s %llu\n", name, (unsigned long long)n);
}

static int admissions(struct mero_buf *b, const struct mero_node_metrics *m)
{
    MERO_TRY(family(b, "mero_admissions_total", "counter",
                    "Admission attempts this node judged as verifier (verify_and_admit), by "
                    "result and refusal rule."));
    bool admitted_seen = false;
    for (size_t i = 0; i < m->nadm; i++) {
        admitted_seen |= m->adm[i].result == MERO_METRICS_ADMITTED;
    }
    if (!admitted_seen) {
        MERO_TRY(
            mero_buf_append_str(b, "mero_admissions_total{result=\"admitted\",rule=\"\"} 0\n"));
    }
    for (size_t i = 0; i < m->nadm; i++) {
        const struct mero_metrics_admission *a = &m->adm[i];
        MERO_TRY(mero_buf_printf(b, "mero_admissions_total{result=\"%s\",rule=\"",
                                 result_names[a->result]));
        MERO_TRY(label_value(b, a->rule));
        MERO_TRY(mero_buf_printf(b, "\"} %llu\n", (unsigned long long)a->n));
    }
    return 0;
}

static int dcap(struct mero_buf *b, const struct mero_node_metrics *m)
{
    MERO_TRY(family(b, "mero_dcap_verifications_total", "counter",
                    "DCAP verifications of real TDX quotes in verify_and_admit, by result."));
    MERO_TRY(sample1(b, "mero_dcap_verifications_total", "result", "verified", m->dcap_verified));
    MERO_TRY(sample1(b, "mero_dcap_verifications_total", "result", "refused", m->dcap_refused));
    MERO_TRY(
        sample1(b, "mero_dcap_verifications_total", "result", "no_verdict", m->dcap_no_verdict));
    MERO_TRY(family(b, "mero_dcap_verify_seconds", "histogram",
                    "Duration of the DCAP verification step of verify_and_admit."));
    for (size_t i = 0; i < MERO_METRICS_DCAP_BUCKETS; i++) {
        MERO_TRY(mero_buf_printf(b, "mero_dcap_verify_seconds_bucket{le=\"%g\"} %llu\n",
                                 mero_metrics_dcap_bounds[i],
                                 (unsigned long long)m->dcap_bucket[i]));
    }
    MERO_TRY(mero_buf_printf(b, "mero_dcap_verify_seconds_bucket{le=\"+Inf\"} %llu\n",
                             (unsigned long long)m->dcap_count));
    MERO_TRY(mero_buf_printf(b, "mero_dcap_verify_seconds_sum %.9g\n", m->dcap_sum_s));
    return mero_buf_printf(b, "mero_dcap_verify_seconds_count %llu\n",
                           (unsigned long long)m->dcap_count);
}

static int per_namespace(struct mero_buf *b, const struct mero_node_metrics *m)
{
    char ns[MERO_HEX_SIZE(MERO_NS_ID_LEN)];
    MERO_TRY(family(b, "mero_sync_lag_seconds", "gauge",
                    "Seconds since an op pull of the namespace last completed here (since the "
                    "node started when none has)."));
    for (size_t i = 0; i < m->nns; i++) {
        mero_hex_encode(ns, m->ns[i].ns, NS_LABEL_HEX / 2);
        MERO_TRY(sample1(b, "mero_sync_lag_seconds", "namespace", ns, m->ns[i].sync_lag_s));
    }
    MERO_TRY(family(b, "mero_sync_last_success_timestamp_seconds", "gauge",
                    "Unix time an op pull of the namespace last completed here (absent: never "
                    "since the node started)."));
    for (size_t i = 0; i < m->nns; i++) {
        if (m->ns[i].last_sync_unix != 0) {
            mero_hex_encode(ns, m->ns[i].ns, NS_LABEL_HEX / 2);
            MERO_TRY(sample1(b, "mero_sync_last_success_timestamp_seconds", "namespace", ns,
                             m->ns[i].last_sync_unix));
        }
    }
    MERO_TRY(
        family(b, "mero_oplog_ops", "gauge", "Governance ops in the namespace's op log here."));
    for (size_t i = 0; i < m->nns; i++) {
        mero_hex_encode(ns, m->ns[i].ns, NS_LABEL_HEX / 2);
        MERO_TRY(sample1(b, "mero_oplog_ops", "namespace", ns, m->ns[i].ops));
    }
    return 0;
}

/* The whole exposition of m into b. */
static int render(struct mero_buf *b, const struct mero_node_metrics *m)
{
    MERO_TRY(admissions(b, m));
    MERO_TRY(dcap(b, m));
    MERO_TRY(scalar(b, "mero_collateral_cache_hits_total", "counter",
                    "PCS collateral requests served from the process's cache.",
                    m->collateral_hits));
    MERO_TRY(scalar(b, "mero_collateral_cache_misses_total", "counter",
                    "PCS collateral requests the cache could not serve (a fetch was made).",
                    m->collateral_misses));
    MERO_TRY(scalar(b, "mero_collateral_fetch_failures_total", "counter",
                    "PCS collateral fetches that failed.", m->collateral_fetch_failures));
    MERO_TRY(family(b, "mero_challenge_book_entries", "gauge",
                    "Live (unspent, unexpired) admission challenges, by kind."));
    MERO_TRY(
        sample1(b, "mero_challenge_book_entries", "kind", "requested", m->challenges_requested));
    MERO_TRY(sample1(b, "mero_challenge_book_entries", "kind", "offered", m->challenges_offered));
    MERO_TRY(
        family(b, "mero_challenge_book_capacity", "gauge", "The challenge book's cap, by kind."));
    MERO_TRY(sample1(b, "mero_challenge_book_capacity", "kind", "requested",
                     m->challenges_requested_max));
    MERO_TRY(
        sample1(b, "mero_challenge_book_capacity", "kind", "offered", m->challenges_offered_max));
    MERO_TRY(scalar(b, "mero_peers_connected", "gauge", "Connected libp2p peers.", m->peers));
    MERO_TRY(family(b, "mero_gossip_messages_total", "counter",
                    "Gossip messages delivered to this node (in) and published by it (out)."));
    MERO_TRY(sample1(b, "mero_gossip_messages_total", "direction", "in", m->gossip_in));
    MERO_TRY(sample1(b, "mero_gossip_messages_total", "direction", "out", m->gossip_out));
    MERO_TRY(per_namespace(b, m));
    MERO_TRY(scalar(b, "mero_purges_total", "counter",
                    "Self-purges completed after this node's TEE was evicted.", m->purges));
    MERO_TRY(scalar(b, "mero_gov_ops_rejected_total", "counter",
                    "Governance ops received and kept without effect: refused by the rules at "
                    "their place in the canonical order.",
                    m->gov_rejected));
    return scalar(b, "mero_uptime_seconds", "gauge", "Seconds since the node started.",
                  m->uptime_s);
}

static void metrics_get(struct api_req *r, json_t *body)
{
    (void)body;
    if (!r->authed && !mero_node_metrics_public(r->node)) {
        mero__api_reply_error(r, 401, "missing or invalid bearer token");
        return;
    }
    struct mero_node_metrics m;
    struct mero_err err = {0};
    int rc = mero_node_metrics(r->node, &m, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    struct mero_buf b;
    mero_buf_init(&b, METRICS_MAX);
    rc = render(&b, &m);
    mero_node_metrics_cleanup(&m);
    if (rc < 0) {
        mero__api_reply_error(r, 500, "cannot render the metrics");
    } else {
        mero__api_reply_body(r, 200, "text/plain; version=0.0.4; charset=utf-8", b.data, b.len,
                             false);
    }
    mero_buf_cleanup(&b);
}

const struct api_route mero__api_routes_metrics[] = {
    {API_GET, "/metrics", false, false, metrics_get},
    {0},
};
