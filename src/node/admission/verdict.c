/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/verdict.c - the prompt path's verdict (issue 18). On the prompt path the
 * admitter asks (ChallengeOffer) and the joiner answers (OfferReply with its quote), so the
 * admitter's decision has no stream to ride back on. Once verify_and_admit has judged an
 * offered claim, the admitter opens one more stream to the joiner with InitPayload
 * TeeAdmissionVerdict {namespace_id, challenge, admitted, reason} (ours, appended at the
 * enum's tail: a peer that does not know it refuses the frame and nothing else changes). The
 * joiner acknowledges it with a TeeAdmissionResponse whose `admitted` says whether the verdict
 * matched an answer it gave.
 *
 * Invariants: a verdict is recorded only when it names the namespace and the challenge of an
 * offer this node answered with a quote, and comes from the very peer (Noise-authenticated)
 * that made the offer; a verdict is informational only (it never admits anything and cannot
 * stop the pending join from answering later offers); reasons are cleaned and cut by the codec.
 */
#include <stdio.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "mero/sizes.h"
#include "node/admission/service_internal.h"

void mero__adm_offer_answered(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t challenge[MERO_NONCE_LEN], const char *peer)
{
    struct mero_adm_answered *e = &a->answered[a->answered_next];
    a->answered_next = (a->answered_next + 1) % MERO_ADM_ANSWERED_MAX;
    memset(e, 0, sizeof(*e));
    e->used = true;
    memcpy(e->ns, ns, MERO_NS_ID_LEN);
    memcpy(e->challenge, challenge, MERO_NONCE_LEN);
    snprintf(e->peer, sizeof(e->peer), "%s", peer);
    e->at_ms = mero__adm_now(a);
}

static void verdict_acked(void *ud, int status, const uint8_t *data, size_t len)
{
    (void)ud;
    (void)data;
    (void)len;
    if (status < 0) {
        MERO_DEBUG("admission: the verdict was not acknowledged: %s", mero_strerror(status));
    }
}

void mero__adm_send_verdict(struct mero_admission *a, const struct mero_tee_claim *c, bool admitted,
                            const char *reason)
{
    struct mero_adm_init m;
    struct mero_buf b;
    char peer[MERO_PEER_ID_STR_MAX];
    if (a->closing || c->peer_len == 0 || c->peer_len >= sizeof(peer)) {
        return;
    }
    snprintf(peer, sizeof(peer), "%.*s", (int)c->peer_len, (const char *)c->peer);
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_INIT_VERDICT;
    memcpy(m.ns, c->ns, MERO_NS_ID_LEN);
    memcpy(m.challenge, c->challenge, MERO_NONCE_LEN);
    m.admitted = admitted;
    snprintf(m.reason, sizeof(m.reason), "%s", admitted ? "" : reason);
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    int rc = mero__adm_init_encode(&b, &m);
    if (rc == 0) {
        rc = mero_net_request(a->env.net, peer, MERO_ADM_PROTOCOL, b.data, b.len,
                              MERO_ADM_REQUEST_TIMEOUT_MS, verdict_acked, NULL);
    }
    if (rc < 0) {
        MERO_DEBUG("admission: could not tell %s the verdict: %s", peer, mero_strerror(rc));
    }
    mero_buf_cleanup(&b);
}

void mero__adm_on_verdict(struct mero_admission *a, struct mero_net_req *req, const char *remote,
                          const struct mero_adm_init *m)
{
    for (size_t i = 0; i < MERO_ADM_ANSWERED_MAX; i++) {
        struct mero_adm_answered *e = &a->answered[i];
        if (!e->used || e->has_verdict || strcmp(e->peer, remote) != 0 ||
            !mero_ct_eq(e->ns, m->ns, MERO_NS_ID_LEN) ||
            !mero_ct_eq(e->challenge, m->challenge, MERO_NONCE_LEN)) {
            continue;
        }
        e->has_verdict = true;
        e->admitted = m->admitted;
        snprintf(e->reason, sizeof(e->reason), "%s", m->reason);
        if (a->env.attempt_heard != NULL) { /* issue 19: the fleet view's attempt log */
            a->env.attempt_heard(a->env.ud, m->ns, false,
                                 m->admitted ? MERO_FLEET_ADMITTED : MERO_FLEET_REFUSED, m->reason);
        }
        if (m->admitted) {
            MERO_INFO("admission: %s admitted the quote we answered its offer with", remote);
        } else {
            MERO_INFO("admission: %s refused the quote we answered its offer with: %s", remote,
                      e->reason);
        }
        mero__adm_respond_verdict(req, true, "");
        return;
    }
    MERO_DEBUG("admission: a verdict from %s matches no offer we answered", remote);
    mero__adm_respond_verdict(req, false, "no offer answered by this node matches the verdict");
}

void mero__adm_verdicts(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                        uint64_t since_ms, struct mero_adm_verdicts *out,
                        void (*on_refusal)(void *ud, const char *peer, const char *reason),
                        void *ud)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < MERO_ADM_ANSWERED_MAX; i++) {
        struct mero_adm_answered *e = &a->answered[i];
        if (!e->used || e->at_ms < since_ms || !mero_ct_eq(e->ns, ns, MERO_NS_ID_LEN)) {
            continue;
        }
        out->answered++;
        if (!e->has_verdict) {
            continue;
        }
        if (e->admitted) {
            out->admitted = true;
            snprintf(out->admitted_by, sizeof(out->admitted_by), "%s", e->peer);
            continue;
        }
        out->refused++;
        if (!e->reported && on_refusal != NULL) {
            e->reported = true;
            on_refusal(ud, e->peer, e->reason);
        }
    }
}
