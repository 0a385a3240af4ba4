/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed.c - the node's half of a sealed session's handshake (issue 31): Noise NK to the
 * in-memory transport key (made at open, never written, replaced by a restart), and the
 * --sealed-only switch the admin API reads. The session table and the envelope's HTTP are
 * the API's (src/api/sealed*.c); the handshake's bytes are net's (mero/sealed.h).
 *
 * Also the admin API's TLS certificate (merod run --tls-cert/--tls-key): kept checked, with
 * its SPKI hash for bindTlsKey.
 *
 * Invariant: the transport key's secret half never leaves this module: the API hands in
 * Noise message 1 and gets message 2 and the session's keys back. A TLS pair is held only once
 * mero_tls_cert_check passed on it; its key is wiped when freed.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"

#include "mero/sealed.h"
#include "node/node_internal.h"

int mero_node_sealed_respond(const struct mero_node *node, const uint8_t *msg1, size_t n,
                             const uint8_t sid[MERO_SEALED_SESSION_ID_LEN],
                             uint8_t msg2[MERO_SEALED_MSG2_LEN], struct mero_sealed_keys *keys)
{
    if (node->transport_sk == NULL) {
        return -MERO_ESTATE;
    }
    return mero_sealed_respond(node->transport_sk, NULL, msg1, n, sid, MERO_SEALED_LIFETIME_S, msg2,
                               keys);
}

void mero_node_set_sealed_only(struct mero_node *node, bool on)
{
    node->sealed_only = on;
}

bool mero_node_sealed_only(const struct mero_node *node)
{
    return node->sealed_only;
}

int mero_node_set_tls(struct mero_node *node, const char *cert_pem, const char *key_pem)
{
    uint8_t spki[MERO_SHA256_LEN] = {0};
    char *c = NULL, *k = NULL;
    if (cert_pem != NULL) {
        MERO_TRY(mero_tls_cert_check(cert_pem, strlen(cert_pem), key_pem, strlen(key_pem), spki));
        c = strdup(cert_pem);
        k = strdup(key_pem);
        if (c == NULL || k == NULL) {
            free(c);
            free(k);
            return -MERO_ENOMEM;
        }
    }
    free(node->tls_cert);
    if (node->tls_key != NULL) {
        mero_wipe(node->tls_key, strlen(node->tls_key));
        free(node->tls_key);
    }
    node->tls_cert = c;
    node->tls_key = k;
    memcpy(node->tls_spki, spki, sizeof(spki));
    return 0;
}

bool mero_node_tls(const struct mero_node *node, const char **cert_pem, const char **key_pem,
                   uint8_t spki_sha256[MERO_SHA256_LEN])
{
    if (node->tls_cert == NULL) {
        return false;
    }
    *cert_pem = node->tls_cert;
    *key_pem = node->tls_key;
    memcpy(spki_sha256, node->tls_spki, MERO_SHA256_LEN);
    return true;
}
