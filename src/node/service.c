/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service.c - what runs beside the admin API on the node's loop: the governance store
 * (DIR/gov.db), the libp2p peer (listen, bootstrap dials, gossip on ns/<hex>), the sync
 * protocol and the periodic catch-up timer, which also redials --bootstrap peers that are not
 * connected (redial.c).
 *
 * Gossip on a namespace topic carries one message per publish, its first byte saying what
 * it is: MERO_GOSSIP_OP (a signed governance op, applied through sync.c's
 * mero__node_apply_op, the one intake of a peer's op) or MERO_GOSSIP_DELTA (a context state
 * delta, node/context/). Anything else goes to the hook the admission layer installs. A
 * message is forwarded only if it applied (or was a duplicate), so a refused op or delta is
 * not amplified. An op whose parents are unknown triggers a pull from its publisher (sync.c);
 * the timer pulls from every connected peer every 2 s so a node that missed a publish or was
 * down catches up. Publishers whose ops or deltas apply, and bootstrap peers, are remembered
 * as members for the connection budgets (peers.c).
 *
 * The top of node/ with public.c (issue 34, docs/layers.md): this file calls down into sync,
 * admission (hook.c), the fleet view, the contexts and topic.c (the topic, publishing and
 * following), and nothing below calls back into it; what a lower part needs of the node it
 * reads from struct mero_node or is handed as a callback (the admission env, the gov hooks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "mero/quote.h"
#include "node/admission/attest_internal.h"
#include "node/admission/hook_internal.h"
#include "node/context/context_internal.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"
#include "node/sync_internal.h"
#include "node/tee_internal.h"

#define SYNC_PERIOD_MS 2000
#define SYNC_PEERS_MAX 32 /* connected peers asked per sync round */

/* issue 20: what gossip's peer score makes of a refusal. Only what is invalid whatever this
 * node's state (undecodable, badly signed, refused by the rules) rejects and counts against the
 * peer that delivered it (P4); anything that may be a matter of arrival order or of this node's
 * own state (a missing parent, a context clock, an unknown context, no key yet, I/O) is ignored:
 * not forwarded, no penalty. */
static int gossip_verdict(int rc)
{
    switch (rc < 0 ? -rc : 0) {
    case 0:
        return 0;
    case MERO_EOPDECODE:
    case MERO_ESCHEMA:
    case MERO_EBADSIG:
    case MERO_EPROTO:
    case MERO_ETRUNC:
    case MERO_EINVAL:
    case MERO_ETOOBIG:
    case MERO_ENOTADMIN:
    case MERO_ENOTVOUCHER:
    case MERO_EREFUSED:
    case MERO_EPERM:
    case MERO_EREADONLY:
        return rc;
    default:
        return MERO_NET_IGNORE;
    }
}

static int on_gossip(void *ud, const char *topic, const char *from, const uint8_t *data, size_t len)
{
    struct mero_node *node = ud;
    uint8_t ns[MERO_NS_ID_LEN];
    if (len < 1 || mero__node_topic_ns(topic, ns) < 0) {
        return -MERO_EINVAL;
    }
    bool purged = true;
    if (mero_gov_purged(node->store, ns, &purged) < 0 || purged) {
        /* self-purged here (the topic was left; this was in flight): dropped unseen */
        MERO_DEBUG("gossip on %s dropped: namespace self-purged here", topic);
        return 0;
    }
    mero__node_seen_from_peer(node, from, MERO_FLEET_SEEN_GOSSIP); /* issue 19: last seen */
    switch (data[0]) {
    case MERO_GOSSIP_OP: {
        int status;
        int rc = mero__node_apply_op(node, from, data + 1, len - 1, &status);
        if (rc == 0 && status != MERO_APPLY_PURGED) {
            mero__node_seen_op(node, data + 1, len - 1); /* issue 19: its signer, verified */
        }
        if (rc == 0 && status == MERO_APPLY_APPLIED) {
            mero__node_peer_valued(node, from); /* it published a member's op first */
        }
        return gossip_verdict(rc);
    }
    case MERO_GOSSIP_DELTA: {
        struct mero_err err = {0};
        uint8_t hash[MERO_DELTA_ID_LEN];
        bool had = true;
        int known = MERO_CTX_UNKNOWN;
        mero_sha256(hash, data + 1, len - 1);
        if (mero__node_ctx_has(node, hash, &had) < 0) {
            had = true;
        }
        if (!had && mero__node_ctx_refusal_get(node, hash, &known, &err) == 0 &&
            known != MERO_CTX_UNKNOWN) {
            /* issue 30: refused before, and nothing has changed since: not logged again */
            MERO_DEBUG("delta from %s refused again: %s", from, err.msg);
            return gossip_verdict(-(err.code > 0 ? err.code : MERO_EREFUSED));
        }
        int rc = mero__node_ctx_apply(node, data + 1, len - 1, &err);
        if (rc < 0) {
            MERO_INFO("delta from %s refused: %s", from, err.msg);
        } else if (!had) {
            mero__node_peer_valued(node, from); /* it published a member's delta first */
        }
        return gossip_verdict(rc);
    }
    default:
        if (node->hooks.on_gossip != NULL) {
            int rc = node->hooks.on_gossip(node, ns, from, data, len);
            return rc == -MERO_EUNSUPPORTED ? MERO_NET_IGNORE : rc;
        }
        return MERO_NET_IGNORE; /* a message kind this version does not know: not forwarded */
    }
}

/* issue 33 (mero_net_callbacks.gossip_noop): a message on a namespace topic that on_gossip
 * would hand to the admission layer, which can tell it would come to nothing, is dropped
 * before its signature is checked. Ops and deltas are always checked. */
static int gossip_noop(void *ud, const char *topic, const char *from, const uint8_t *data,
                       size_t len)
{
    struct mero_node *node = ud;
    uint8_t ns[MERO_NS_ID_LEN];
    if (node->hooks.gossip_noop == NULL || len < 1 || data[0] == MERO_GOSSIP_OP ||
        data[0] == MERO_GOSSIP_DELTA || mero__node_topic_ns(topic, ns) < 0) {
        return 0;
    }
    return node->hooks.gossip_noop(node, ns, from, data, len);
}

static void on_peer(void *ud, const char *peer_id, int connected)
{
    struct mero_node *node = ud;
    MERO_INFO("peer %s %s", peer_id, connected ? "connected" : "disconnected");
    if (connected) {
        mero__node_sync_peer(node, peer_id);
    }
}

/* Test seam (honoured only under `merod run --test`, docs/node.md): MERO_TEST_CRASH_AT=
 * after_removal_commit ends the process right after our own TEE eviction committed and before
 * any event handler ran, the point where a crash once lost the self-purge. */
static void crash_seam(const struct mero_node *node, const struct mero_gov_event *ev)
{
    const char *at = node->test_routes ? getenv("MERO_TEST_CRASH_AT") : NULL;
    if (at != NULL && strcmp(at, "after_removal_commit") == 0 &&
        ev->kind == MERO_EV_TEE_MEMBER_REMOVED && ev->for_us) {
        MERO_WARN("test seam: crashing after the removal commit");
        _exit(86);
    }
}

static void on_gov_event(void *ud, const struct mero_gov_event *ev)
{
    struct mero_node *node = ud;
    crash_seam(node, ev);
    node->gov_gen++; /* issue 30: a delta refused for governance's sake is judged again */
    if ((ev->kind == MERO_EV_KEY_DELIVERED || ev->kind == MERO_EV_KEY_ROTATED) && ev->for_us &&
        ev->group != NULL) {
        mero__node_ctx_retry(node, ev->group);
    }
    /* issue 30: deltas kept without effect (context/kept.c) are judged again at the next sync
     * tick: any event may grant a right (a removal too: a ReadOnly row or a TEE row gone), and
     * the event may come inside a store transaction that is later rolled back */
    node->ctx_rejudge_due = true; /* a pass that starts after this event (kept.c) */
    if (ev->kind == MERO_EV_NAMESPACE_CREATED && ev->ns != NULL) {
        (void)mero__node_follow(node, ev->ns);
    }
    mero__node_admission_on_event(node, ev); /* self-purge on our own TEE eviction */
    mero__node_fleet_on_event(node, ev);     /* issue 19: admissions others decided */
}

void mero__node_gov_hooks(struct mero_node *node, struct mero_gov_hooks *h)
{
    /* One verification path (issue 14): evidence and a carried quote's report data are judged
     * by the library's own code (gov's defaults over src/attest); only the event listener and
     * the signed-release source, which need the node, are ours. */
    memset(h, 0, sizeof(*h));
    h->ud = node;
    h->on_event = on_gov_event;
    h->release_check = mero__node_release_check;
    h->write_cuts = mero__node_write_cuts; /* issue 30: what a removal built here vouches for */
}

static void on_sync_timer(uv_timer_t *t)
{
    struct mero_node *node = t->data;
    mero__node_ctx_rejudge_tick(node);
    char peers[SYNC_PEERS_MAX][MERO_PEER_ID_STR_MAX];
    size_t n = mero_net_connected_peers(node->net, peers, SYNC_PEERS_MAX);
    for (size_t i = 0; i < n && i < SYNC_PEERS_MAX; i++) {
        mero__node_sync_peer(node, peers[i]);
    }
    mero__node_redial_tick(node, false);
}

int mero__node_service_start(struct mero_node *node, struct mero_err *err)
{
    MERO_TRY(mero__node_open_gov(node, err));
    char path[MERO_NODE_PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/gov.db", node->home);
    MERO_TRY(mero_gov_check_secrets(node->store, path, err));
    struct mero_gov_hooks h;
    mero__node_gov_hooks(node, &h);
    mero_store_set_hooks(node->store, &h);
    MERO_TRY(mero__node_check_gov(node, err));
    MERO_TRY(mero__node_ctx_open(node, err));

    struct mero_net_callbacks cb = {.on_gossip = on_gossip,
                                    .on_peer = on_peer,
                                    .peer_priority = mero__node_peer_priority,
                                    .gossip_noop = gossip_noop};
    struct mero_net_config ncfg;
    mero__node_netcfg_apply(&node->cfg, &ncfg);
    int rc = mero_net_new(node->loop, node->id_sk, &ncfg, &cb, node, &node->net);
    if (rc < 0) {
        return mero_err_set(err, -rc, "cannot start the network: %s", mero_strerror(rc));
    }
    snprintf(node->peer_id, sizeof(node->peer_id), "%s", mero_net_peer_id(node->net));
    for (size_t i = 0; i < node->cfg.nlisten; i++) {
        rc = mero_net_listen(node->net, node->cfg.listen[i]);
        if (rc < 0) {
            return mero_err_set(err, -rc, "cannot listen on %s: %s", node->cfg.listen[i],
                                mero_strerror(rc));
        }
    }
    for (size_t i = 0; i < node->nannounce; i++) {
        rc = mero_net_announce(node->net, node->announce[i]);
        if (rc < 0) {
            return mero_err_set(err, -rc, "cannot announce %s: %s", node->announce[i],
                                mero_strerror(rc));
        }
    }
    MERO_TRY(mero__node_sync_start(node, err));
    MERO_TRY(mero__node_admission_start(node, err));
    mero__node_tee_info_start(node); /* /tee/info's host facts, in the background */
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t nn = 0;
    if (mero_gov_namespaces(node->store, &nss, &nn) == 0) {
        for (size_t i = 0; i < nn; i++) {
            (void)mero__node_follow(node, nss[i]);
        }
        free(nss);
    }
    mero__node_redial_tick(node, true);
    node->ctx_rejudge_due = true; /* issue 30: a grant committed just before a stop or crash */
    mero__node_ctx_retry_pending(node); /* a key that arrived just before it */
    uv_timer_init(node->loop, &node->sync_timer);
    node->sync_timer.data = node;
    uv_timer_start(&node->sync_timer, on_sync_timer, SYNC_PERIOD_MS, SYNC_PERIOD_MS);
    node->sync_timer_on = true;
    return 0;
}

void mero__node_service_stop(struct mero_node *node)
{
    if (node->sync_timer_on) {
        uv_timer_stop(&node->sync_timer);
        uv_close((uv_handle_t *)&node->sync_timer, NULL);
        node->sync_timer_on = false;
    }
    mero__node_sync_stop(node);
    if (node->net != NULL) {
        mero__node_admission_stop(node);
        mero_net_free(node->net);
        node->net = NULL;
    }
    mero__node_admission_free(node);
    mero__node_peers_free(node);
    free(node->sync);
    node->sync = NULL;
    mero__node_ctx_close(node);
    mero__node_seal_gov(node);
    mero_store_close(node->store);
    node->store = NULL;
}

json_t *mero__node_listen_addrs(struct mero_node *node)
{
    json_t *a = json_array();
    if (a == NULL || node->net == NULL) {
        return a;
    }
    char addrs[MERO_NODE_MAX_LISTEN][MERO_MULTIADDR_STR_MAX];
    size_t n = mero_net_listen_addrs(node->net, addrs, MERO_NODE_MAX_LISTEN);
    for (size_t i = 0; i < n && i < MERO_NODE_MAX_LISTEN; i++) {
        json_array_append_new(a, json_string(addrs[i]));
    }
    return a;
}
