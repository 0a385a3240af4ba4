/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook.c - installs the admission service on a merod node: the fleet-join hook of
 * POST /admin-api/tee/fleet-join, the gossip hook that receives TeeAdmissionPrompts on
 * ns/<hex>, and the environment the service needs (publishing ops, pulling a namespace,
 * listing the contexts a replica joins). merod's release comes from MERO_TEE_VERSION.
 *
 * Invariants: the service is stopped before the network is freed and freed after it (so late
 * request callbacks find it alive but inert); a MERO_TEE_VERSION that is not a release name
 * is ignored with a warning rather than sent to admitters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "node/admission/attest_internal.h"
#include "node/admission/hook_internal.h"
#include "node/admission/service_internal.h"
#include "node/attempts_internal.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"
#include "node/sync_internal.h"
#include "node/topic_internal.h"

static int env_publish(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                       const struct mero_gov_oplist *ops)
{
    return mero__node_publish_ops(ud, ns, ops);
}

static void env_sync(void *ud, const uint8_t ns[MERO_NS_ID_LEN])
{
    struct mero_node *node = ud;
    char peers[16][MERO_PEER_ID_STR_MAX];
    if (node->net == NULL) {
        return;
    }
    (void)mero__node_follow(node, ns);
    size_t n = mero_net_connected_peers(node->net, peers, 16);
    for (size_t i = 0; i < n && i < 16; i++) {
        mero__node_sync_pull(node, peers[i], ns);
    }
}

/* A replica reads every context of its namespace; the context layer replicates them all. */
static int env_contexts(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                        uint8_t (**ids)[MERO_CONTEXT_ID_LEN], size_t *n)
{
    struct mero_node *node = ud;
    struct mero_gov_context *c = NULL;
    size_t cnt = 0;
    MERO_TRY(mero_gov_contexts(node->store, ns, &c, &cnt));
    uint8_t(*out)[MERO_CONTEXT_ID_LEN] = calloc(cnt ? cnt : 1, sizeof(*out));
    if (out == NULL) {
        free(c);
        return -MERO_ENOMEM;
    }
    for (size_t i = 0; i < cnt; i++) {
        memcpy(out[i], c[i].id, sizeof(out[i]));
    }
    free(c);
    *ids = out;
    *n = cnt;
    return 0;
}

static int env_purge_contexts(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t group[MERO_GROUP_ID_LEN])
{
    struct mero_node *node = ud;
    MERO_TRY(mero__node_ctx_purge(ud, ns, group));
    /* issue 19: a whole-namespace purge forgets its admission attempts too */
    if (memcmp(ns, group, MERO_NS_ID_LEN) == 0 && node->db != NULL) {
        MERO_TRY(mero__node_attempts_purge(node->db, ns));
        MERO_TRY(mero__node_labels_purge(node->db, ns)); /* issue 35: member labels */
    }
    return 0;
}

/* ---- issue 19: the fleet view's attempt log (node/fleet.c) ---- */

static void env_attempt_decided(void *ud, const struct mero_tee_claim *c,
                                const struct mero_tee_verdict *v, bool direct, bool admitted,
                                const char *reason)
{
    char peer[MERO_PEER_ID_STR_MAX];
    struct mero_measurements m;
    bool read = v != NULL && (v->is_mock ? v->verified : v->has_td);
    snprintf(peer, sizeof(peer), "%.*s", (int)c->peer_len, (const char *)c->peer);
    if (read) {
        mero_measurements_from_raw(&m, v->mrtd, v->rtmr);
    }
    struct mero_fleet_decision d = {
        .ns = c->ns,
        .identity = c->public_key,
        .peer = c->peer_len < sizeof(peer) ? peer : NULL,
        .path = direct ? MERO_FLEET_PATH_DIRECT : MERO_FLEET_PATH_PROMPT,
        .admitted = admitted,
        .reason = reason,
        .m = read ? &m : NULL,
        .tcb_status = v != NULL ? v->tcb_status : NULL,
        .matched_profile = v != NULL && admitted ? v->matched_profile : NULL,
    };
    mero__node_fleet_decided(ud, &d);
}

static void env_attempt_heard(void *ud, const uint8_t ns[MERO_NS_ID_LEN], bool direct, int verdict,
                              const char *reason)
{
    mero__node_fleet_heard(ud, ns, direct ? MERO_FLEET_PATH_DIRECT : MERO_FLEET_PATH_PROMPT,
                           verdict, reason);
}

/* Both databases, node.db first (it holds the decrypted values); each is tried. */
static int env_checkpoint(void *ud)
{
    struct mero_node *node = ud;
    int a = mero__node_db_checkpoint(node->db);
    int b = mero_store_checkpoint(node->store);
    return a < 0 ? a : b;
}

static void env_keys_arrived(void *ud, const uint8_t group[MERO_GROUP_ID_LEN])
{
    mero__node_ctx_retry(ud, group);
}

static int hook_fleet_join(struct mero_node *node, const uint8_t group_id[MERO_GROUP_ID_LEN],
                           const char *const *admitters, size_t n, mero_fleet_join_done done,
                           void *ctx, struct mero_err *err)
{
    return mero__adm_fleet_join_start(node->hooks.fleet_join_state, group_id, admitters, n, done,
                                      ctx, err);
}

static int hook_fleet_join_progress(struct mero_node *node,
                                    const uint8_t group_id[MERO_GROUP_ID_LEN],
                                    struct mero_fleet_join_progress *out, struct mero_err *err)
{
    return mero__adm_fj_progress_get(node->hooks.fleet_join_state, group_id, out, err);
}

static int hook_gossip(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], const char *from,
                       const uint8_t *data, size_t len)
{
    char topic[MERO_NS_TOPIC_SIZE];
    mero__node_topic(topic, ns);
    switch (mero__adm_on_gossip(node->hooks.gossip_state, topic, from, data, len)) {
    case MERO__ADM_GOSSIP_FORWARD:
        return 0;
    case MERO__ADM_GOSSIP_HOLD:
        return MERO_NET_IGNORE; /* handled; not forwarded, and no fault of the sender's */
    default:
        return -MERO_EUNSUPPORTED;
    }
}

static bool hook_gossip_noop(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             const char *from, const uint8_t *data, size_t len)
{
    return mero__adm_gossip_noop(node->hooks.gossip_state, ns, from, data, len);
}

/* issue 16: node->hooks.key_missing: a read or an apply in node/context/ met key_id of group,
 * which this node lacks: pull it (node/admission/keys.c; rate-limited per key id). */
static void hook_key_missing(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                             const uint8_t group[MERO_GROUP_ID_LEN],
                             const uint8_t key_id[MERO_KEY_ID_LEN])
{
    if (node->hooks.gossip_state != NULL) {
        mero__adm_key_missing(node->hooks.gossip_state, ns, group, key_id);
    }
}

int mero__node_admission_start(struct mero_node *node, struct mero_err *err)
{
    struct mero_admission_env env;
    struct mero_admission *a = NULL;
    memset(&env, 0, sizeof(env));
    env.loop = node->loop;
    env.net = node->net;
    env.store = node->store;
    env.mock_tee = node->tee == MERO_TEE_MOCK;
    env.ud = node;
    env.publish_ops = env_publish;
    env.sync_namespace = env_sync;
    env.join_contexts = env_contexts;
    env.purge_contexts = env_purge_contexts;
    env.checkpoint = env_checkpoint;
    /* test seam (--test only, docs/admission.md "Self-purge"): crash after purge step N */
    const char *crash = node->test_routes ? getenv("MERO_TEST_PURGE_CRASH_AFTER") : NULL;
    uint64_t step = 0;
    if (crash != NULL && mero_parse_u64(crash, 3, &step) == 0) {
        env.purge_crash_after = (unsigned)step;
    }
    /* test knobs (--test only, docs/admission.md "Evidence lifetime"): a skewed wall clock for
     * evidence decisions and a shorter refresh check period */
    if (node->test_routes) {
        env.clock_skew_file = getenv("MERO_TEST_CLOCK_SKEW_FILE");
        const char *chk = getenv("MERO_TEST_EVIDENCE_CHECK_MS");
        uint64_t cms = 0;
        if (chk != NULL && mero_parse_u64(chk, 3600000, &cms) == 0 && cms >= 50) {
            env.evidence_check_ms = (uint32_t)cms;
        }
    }
    env.real_quotes = true;
    env.keys_arrived = env_keys_arrived;

    env.attempt_decided = env_attempt_decided;
    env.attempt_heard = env_attempt_heard;
    const char *rel = getenv("MERO_TEE_VERSION");
    if (rel != NULL && rel[0] != '\0') {
        if (mero__adm_release_ok(rel, strlen(rel))) {
            snprintf(env.release, sizeof(env.release), "%s", rel);
        } else {
            MERO_WARN("MERO_TEE_VERSION is not a release name; the release will not be named");
        }
    }
    /* test knob: a shorter fleet-join budget (the e2e tests' announced outcomes) */
    const char *budget = getenv("MERO_FLEET_JOIN_BUDGET_MS");
    uint64_t ms = 0;
    if (budget != NULL && mero_parse_u64(budget, 600000, &ms) == 0 && ms >= 1000) {
        env.budget_ms = (uint32_t)ms;
    }
    MERO_TRY(mero__node_admission_attest_init(err));
    MERO_TRY(mero__adm_new(&env, &a, err));
    if (mero__adm_evidence_retry_start(a) < 0) {
        MERO_WARN("the evidence refresh loop did not start; this TEE's evidence may lapse");
    }
    if (mero__adm_purge_reconcile(a) < 0) {
        MERO_WARN("self-purge reconcile failed; it is retried at the next start");
    }
    /* a crash after a purge committed but before its checkpoint left deleted pages in a WAL
     * (and the old page images in the file): every start checkpoints both databases */
    if (env_checkpoint(node) < 0) {
        MERO_WARN("start-up checkpoint of node.db / gov.db did not finish");
    }
    node->hooks.fleet_join = hook_fleet_join;
    node->hooks.fleet_join_state = a;
    node->hooks.fleet_join_progress = hook_fleet_join_progress;
    node->hooks.on_gossip = hook_gossip;
    node->hooks.gossip_noop = hook_gossip_noop;
    node->hooks.gossip_state = a;
    node->hooks.key_missing = hook_key_missing;
    return 0;
}

void mero__node_admission_on_event(struct mero_node *node, const struct mero_gov_event *ev)
{
    mero__adm_on_event(node->hooks.gossip_state, ev);
}

void mero__node_admission_stop(struct mero_node *node)
{
    mero__adm_stop(node->hooks.fleet_join_state);
}

void mero__node_admission_free(struct mero_node *node)
{
    mero__adm_free(node->hooks.fleet_join_state);
    node->hooks.fleet_join = NULL;
    node->hooks.fleet_join_state = NULL;
    node->hooks.fleet_join_progress = NULL;
    node->hooks.on_gossip = NULL;
    node->hooks.gossip_noop = NULL;
    node->hooks.gossip_state = NULL;
    node->hooks.key_missing = NULL;
    mero__node_admission_attest_cleanup();
}
