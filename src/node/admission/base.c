/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/base.c - the floor every other file of the admission service stands on
 * (issue 34: nothing here calls a file above it, so peer.c, run.c, verdict.c, keys.c,
 * progress.c, evidence_retry.c and fleet_join.c call down into it and never into each other
 * in a circle):
 *  - the two clocks: monotonic milliseconds (mero__adm_now, env.now_ms when the tests set it)
 *    and the wall clock of evidence decisions (mero__adm_now_unix): the real clock, plus,
 *    under `merod run --test` only, a skew read from the file MERO_TEST_CLOCK_SKEW_FILE names,
 *    so the e2e tests age evidence without waiting (docs/admission.md "Evidence lifetime");
 *  - this node's own part in an exchange: its proof of possession for a namespace, its quote
 *    over a challenge and its credential, whether it is admitted and holds the group key;
 *  - the stream helpers: send an InitPayload, answer one with a message or a verdict;
 *  - the service's last free, once mero__adm_free ran and nothing refers to it any more.
 *
 * Invariants: the namespace identity's secret key lives in sodium memory and is freed on every
 * path; a mock quote is refused unless the node runs --mock-tee; a message that cannot be
 * encoded drops the request rather than answering it half.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mero/binding.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/keys.h"
#include "mero/log.h"
#include "mero/tsm.h"
#include "node/admission/service_internal.h"

#define SKEW_TEXT_MAX 24        /* a signed decimal of seconds, as text */
#define SKEW_MAX_SECS 315360000 /* ten years: a test skew beyond this is ignored */

/* ---- the clocks ---- */

uint64_t mero__adm_now(const struct mero_admission *a)
{
    if (a->env.now_ms != NULL) {
        return a->env.now_ms(a->env.ud);
    }
    return mero_now_ms();
}

int64_t mero__adm_clock_skew(const struct mero_admission *a)
{
    const char *path = a->env.clock_skew_file;
    char text[SKEW_TEXT_MAX];
    if (path == NULL || path[0] == '\0') {
        return 0;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    text[n] = '\0';
    bool neg = text[0] == '-';
    uint64_t v = 0;
    char *nl = strchr(text, '\n');
    if (nl != NULL) {
        *nl = '\0';
    }
    if (mero_parse_u64(text + (neg ? 1 : 0), SKEW_MAX_SECS, &v) < 0) {
        return 0;
    }
    return neg ? -(int64_t)v : (int64_t)v;
}

uint64_t mero__adm_now_unix(const struct mero_admission *a)
{
    int64_t t = (int64_t)mero_now_unix() + mero__adm_clock_skew(a);
    return t > 0 ? (uint64_t)t : 0;
}

/* ---- this node's own part ---- */

int mero__adm_pop(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                  uint8_t party_id[MERO_IDENTITY_LEN], uint8_t sig[MERO_ED25519_SIG_LEN],
                  struct mero_err *err)
{
    uint8_t peer[MERO_PEER_ID_BYTES_MAX];
    size_t plen = sizeof(peer);
    uint8_t *sk = sodium_malloc(MERO_ED25519_SK_LEN);
    int rc;
    if (sk == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    MERO_TRY_OUT(mero_gov_identity(a->env.store, ns, true, party_id, err));
    MERO_TRY_OUT(mero_gov_identity_secret(a->env.store, ns, sk));
    MERO_TRY_OUT(mero_net_peer_id_bytes(a->self_peer, peer, &plen));
    MERO_TRY_OUT(mero__adm_pop_sign(sig, ns, party_id, peer, plen, sk));
out:
    sodium_free(sk);
    if (rc < 0 && err != NULL && err->msg[0] == '\0') {
        mero_err_set(err, -rc, "could not prove possession of the namespace identity");
    }
    return rc;
}

int mero__adm_make_quote(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t challenge[MERO_NONCE_LEN], uint8_t **quote,
                         size_t *quote_len, struct mero_buf *cred_bytes,
                         uint8_t pk[MERO_IDENTITY_LEN], struct mero_err *err)
{
    struct mero_credential cred;
    uint8_t binding[MERO_APP_HASH_LEN], rd[MERO_REPORT_DATA_LEN];
    bool is_mock = false;
    MERO_TRY(mero_gov_identity(a->env.store, ns, true, pk, err));
    int rc = mero_gov_credential(a->env.store, ns, &cred, err);
    if (rc < 0) {
        return mero_err_set(err, -rc, "could not build the account credential for this replica");
    }
    MERO_TRY(mero_credential_encode(cred_bytes, &cred));
    mero_admission_binding(binding, ns, ns, pk, cred.cert.account, cred.cert.kem_pk,
                           cred.cert.device);
    mero_report_data(rd, challenge, binding);
    /* A real quote is made through configfs-tsm (a few ms of file I/O in the TD). */
    rc = mero_attest_generate(rd, a->env.mock_tee, quote, quote_len, &is_mock, err);
    if (rc < 0) {
        return mero_err_set(err, -rc, "Failed to generate attestation");
    }
    if (is_mock && !a->env.mock_tee) {
        free(*quote);
        *quote = NULL;
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "TDX attestation required -- mock not accepted for fleet join");
    }
    return 0;
}

void mero__adm_status(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN], bool *member,
                      bool *has_key)
{
    uint8_t pk[MERO_IDENTITY_LEN], key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN];
    int role = MERO_ROLE_NONE;
    *member = false;
    *has_key = false;
    if (mero_gov_identity(a->env.store, ns, false, pk, NULL) < 0) {
        return;
    }
    if (mero_gov_direct_role(a->env.store, ns, pk, &role) == 0 && role != MERO_ROLE_NONE) {
        *member = true;
    }
    if (mero_gov_group_key(a->env.store, ns, key, id) == 0) {
        *has_key = true;
    }
    mero_wipe(key, sizeof(key));
}

/* ---- the stream helpers ---- */

int mero__adm_respond_msg(struct mero_net_req *req, const struct mero_adm_msg *m)
{
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    int rc = mero__adm_msg_encode(&b, m);
    if (rc < 0) {
        mero_net_req_drop(req);
    } else {
        rc = mero_net_respond(req, b.data, b.len);
    }
    mero_buf_cleanup(&b);
    return rc;
}

void mero__adm_respond_verdict(struct mero_net_req *req, bool admitted, const char *reason)
{
    struct mero_buf b;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    if (mero__adm_response_encode(&b, admitted, reason) == 0) {
        if (mero_net_respond(req, b.data, b.len) < 0) {
            MERO_DEBUG("admission: the requester went away before its answer");
        }
    } else {
        mero_net_req_drop(req);
    }
    mero_buf_cleanup(&b);
}

/* Send m to peer on the admission protocol; cb(ud, ...) gets the answer unless this fails. */
int mero__adm_init_send(struct mero_admission *a, const char *peer, const struct mero_adm_init *m,
                        mero_net_reply_cb cb, void *ud)
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    MERO_TRY_OUT(mero__adm_init_encode(&b, m));
    rc = mero_net_request(a->env.net, peer, MERO_ADM_PROTOCOL, b.data, b.len,
                          MERO_ADM_REQUEST_TIMEOUT_MS, cb, ud);
out:
    mero_buf_cleanup(&b);
    return rc;
}

/* ---- the end ---- */

void mero__adm_maybe_free(struct mero_admission *a)
{
    if (a->freeing && a->jobs == 0 && !a->purge_timer_open) {
        free(a);
    }
}
