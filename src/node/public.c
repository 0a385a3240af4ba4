/* SPDX-License-Identifier: Apache-2.0 */
/*
 * public.c - the small accessors of mero/node.h: making the node before it is opened, the
 * run-time switches merod sets (--bootstrap, --test, the TEE mode), what a server on the
 * node's loop reads (the loop, the configured API address, the admin token check) and this
 * node's own keys and addresses.
 *
 * Invariant: struct mero_node stays opaque outside src/node; the admin token never leaves this
 * file except through the constant-time comparison in mero_node_auth_ok.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mero/crypto.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

struct mero_node *mero_node_new(void)
{
    return calloc(1, sizeof(struct mero_node));
}

void mero_node_free(struct mero_node *node)
{
    if (node == NULL) {
        return;
    }
    for (size_t i = 0; i < node->nbootstrap; i++) {
        free(node->bootstrap[i]);
    }
    free(node->seen); /* issue 19: the fleet view's last-seen map */

    for (size_t i = 0; i < node->nannounce; i++) {
        free(node->announce[i]);
    }
    free(node->tls_cert); /* issue 31: the admin API's TLS pair */
    if (node->tls_key != NULL) {
        mero_wipe(node->tls_key, strlen(node->tls_key));
        free(node->tls_key);
    }
    mero_wipe(node, sizeof(*node));
    free(node);
}

int mero_node_add_bootstrap(struct mero_node *node, const char *multiaddr)
{
    if (node->nbootstrap >= MERO_NODE_MAX_BOOTSTRAP) {
        return -MERO_ETOOBIG;
    }
    node->bootstrap[node->nbootstrap] = strdup(multiaddr);
    if (node->bootstrap[node->nbootstrap] == NULL) {
        return -MERO_ENOMEM;
    }
    node->nbootstrap++;
    return 0;
}

int mero_node_add_announce(struct mero_node *node, const char *multiaddr)
{
    if (node->nannounce >= MERO_NODE_MAX_ANNOUNCE) {
        return -MERO_ETOOBIG;
    }
    node->announce[node->nannounce] = strdup(multiaddr);
    if (node->announce[node->nannounce] == NULL) {
        return -MERO_ENOMEM;
    }
    node->nannounce++;
    return 0;
}

void mero_node_set_test_mode(struct mero_node *node, bool on)
{
    node->test_routes = on;
}

bool mero_node_test_mode(const struct mero_node *node)
{
    return node->test_routes;
}

void mero_node_set_full_history(struct mero_node *node, bool on)
{
    node->full_history = on;
}

void mero_node_set_tee(struct mero_node *node, enum mero_node_tee tee)
{
    node->tee = tee;
}

enum mero_node_tee mero_node_tee_mode(const struct mero_node *node)
{
    return node->tee;
}

const char *mero_node_name(const struct mero_node *node)
{
    return node->cfg.name;
}

struct uv_loop_s *mero_node_loop(struct mero_node *node)
{
    return node->loop;
}

const char *mero_node_api_addr(const struct mero_node *node)
{
    return node->cfg.api;
}

void mero_node_set_api_bound(struct mero_node *node, const char *hostport)
{
    size_t n = strlen(hostport);
    if (n >= sizeof(node->api_bound)) {
        n = sizeof(node->api_bound) - 1;
    }
    memcpy(node->api_bound, hostport, n);
    node->api_bound[n] = 0;
}

bool mero_node_auth_ok(const struct mero_node *node, const char *authorization, size_t len)
{
    static const char prefix[] = "Bearer ";
    const size_t pl = sizeof(prefix) - 1;
    if (authorization == NULL || len < pl || strncmp(authorization, prefix, pl) != 0) {
        return false;
    }
    /* by length and content, never as C strings: the given value is counted with any NUL in
     * it, the node's token is always exactly MERO_TOKEN_HEX_LEN validated hex characters
     * (home.c); the length is public, the content is compared over digests in constant time */
    const char *given = authorization + pl;
    size_t given_len = len - pl;
    uint8_t a[MERO_SHA256_LEN], b[MERO_SHA256_LEN];
    mero_sha256(a, given, given_len);
    mero_sha256(b, node->token, MERO_TOKEN_HEX_LEN);
    int ok = mero_ct_eq(a, b, sizeof(a));
    mero_wipe(a, sizeof(a));
    mero_wipe(b, sizeof(b));
    return ok && given_len == MERO_TOKEN_HEX_LEN;
}

void mero_node_identity(const struct mero_node *node, uint8_t pk[MERO_IDENTITY_LEN])
{
    memcpy(pk, node->id_pk, sizeof(node->id_pk));
}

void mero_node_transport_key(const struct mero_node *node, uint8_t pk[MERO_X25519_LEN])
{
    memcpy(pk, node->transport_pk, sizeof(node->transport_pk));
}

const char *mero_node_peer_id(const struct mero_node *node)
{
    return node->peer_id;
}

size_t mero_node_listen_addrs_copy(struct mero_node *node, char (*out)[MERO_NODE_ADDR_MAX],
                                   size_t cap)
{
    json_t *a = mero__node_listen_addrs(node);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(a) && n < cap; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (s != NULL && strlen(s) < MERO_NODE_ADDR_MAX) {
            memcpy(out[n++], s, strlen(s) + 1);
        }
    }
    json_decref(a);
    return n;
}

int mero_node_fleet_join(struct mero_node *node, const uint8_t group_id[MERO_GROUP_ID_LEN],
                         const char *const *admitters, size_t n, mero_fleet_join_done done,
                         void *ctx, struct mero_err *err)
{
    if (node->hooks.fleet_join == NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "fleet join not available");
    }
    return node->hooks.fleet_join(node, group_id, admitters, n, done, ctx, err);
}

int mero_node_fleet_join_progress(struct mero_node *node, const uint8_t group_id[MERO_GROUP_ID_LEN],
                                  struct mero_fleet_join_progress *out, struct mero_err *err)
{
    if (node->hooks.fleet_join_progress == NULL) {
        return mero_err_set(err, MERO_EUNSUPPORTED, "fleet join not available");
    }
    return node->hooks.fleet_join_progress(node, group_id, out, err);
}
