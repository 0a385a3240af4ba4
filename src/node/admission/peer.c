/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peer.c - the member side of the admission handshake and the stream responders
 * (spec "The admission handshake", "Key delivery"; reference-calimero.md §5.3):
 *  - hearing a TeeAdmissionPrompt on ns/<hex>: only a node that may vouch (an admin or an
 *    admitted TEE of the namespace whose own evidence has not lapsed) takes one of
 *    MAX_CONCURRENT_OFFERS slots, issues an offered challenge and sends
 *    TeeAdmissionChallengeOffer to the gossip source on a stream of its own; the quote that
 *    comes back runs through verify_and_admit; every node, voucher or not, forwards one
 *    publisher's prompts at most once per MIN_REISSUE (prompt_forward.c, issue 33), and a
 *    copy that could only be held back with nothing done is dropped before gossip checks its
 *    signature (mero__adm_gossip_noop);
 *  - TeeAdmissionChallengeRequest / TeeAdmissionRequest / TeeReleaseAdmissionRequest from a
 *    requester whose proof of possession binds its namespace key to its Noise-authenticated
 *    peer id; a node that may not vouch says so;
 *  - TeeAdmissionChallengeOffer when we are the joiner: answered with a quote only while the
 *    namespace is pending and within the per-namespace / per-peer quote rate;
 *  - GroupKeyRequest: any key holder wraps the current group key for a proven member (one
 *    reaching the group); GroupKeysRequest, the paged pull of every key, is keys.c's.
 * It also binds the admission pipeline's ops (struct mero__adm_ops) to the governance store
 * and, on a node that verifies real quotes, to the library's collateral, DCAP and release
 * source (node/admission/attest.c): the one place they are bound. It makes, stops and frees
 * the service (mero__adm_new / _stop / _free), so it stands above the service's other files
 * (run.c, verdict.c, keys.c, progress.c, evidence_retry.c, fleet_join.c), which call none of
 * it: what they share with it (the clocks, this node's proof of possession and quote, the
 * stream helpers, the last free) is base.c's (issue 34).
 *
 * Invariants: nothing is admitted, offered or delivered on behalf of a key whose proof of
 * possession does not verify for the connection's peer id; a refusal is always answered with
 * its reason (cut to MAX_REASON_LEN) and publishes nothing; secrets are wiped after use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/keys.h"
#include "mero/log.h"
#include "node/admission/attest_internal.h"
#include "node/admission/service_internal.h"

/* ---- the admission pipeline's ops (struct mero__adm_ops), bound to the store ---- */

static int op_credential(void *ud, const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t *bytes,
                         size_t len, struct mero_credential *out, struct mero_err *err)
{
    (void)ud;
    struct mero_cur cur;
    mero_cur_init(&cur, bytes, len);
    MERO_TRY(mero_credential_decode(&cur, out, err));
    MERO_ENSURE(mero_cur_left(&cur) == 0, err, MERO_EOPDECODE,
                "trailing bytes after the account credential");
    return mero_credential_certifies(pk, out, err);
}

static int op_admit(void *ud, struct mero__adm_job *j, int *out, struct mero_err *err)
{
    struct mero_admission *a = ud;
    const struct mero_tee_claim *c = &j->c;
    struct mero_tee_verdict *v = &j->v;
    struct mero_admit_request req;
    memset(&req, 0, sizeof(req));
    memcpy(req.group_id, c->ns, sizeof(req.group_id));
    memcpy(req.member, c->public_key, sizeof(req.member));
    req.account = j->cred; /* decoded once, by the check stage */
    memcpy(req.quote_hash, v->quote_hash, sizeof(req.quote_hash));
    mero_measurements_from_raw(&req.m, v->mrtd, (const uint8_t(*)[MERO_RTMR_LEN])v->rtmr);
    snprintf(req.tcb_status, sizeof(req.tcb_status), "%s", v->tcb_status);
    req.is_mock = v->is_mock;
    req.has_td = v->has_td && !v->is_mock;
    req.td_attributes = v->td_attributes;
    memcpy(req.mrservicetd, v->mrservicetd, sizeof(req.mrservicetd));
    req.release_version = c->release;
    /* the quote's declared bytes, the ones quote_hash covers (issue 32): gov's QuoteHash
     * rule, the spent-quote rule and every peer then hash the very bytes carried */
    req.quote = c->quote;
    req.quote_len = v->quote_len;
    req.parsed_quote = v->is_mock ? NULL : &j->quote; /* parsed once, by the check stage */
    req.collateral = v->collateral;
    req.collateral_len = v->collateral_len;
    req.attested_at = (uint64_t)((int64_t)v->attested_at + mero__adm_clock_skew(a));
    req.now = mero__adm_now_unix(a);
    req.matched_profile = v->matched_profile; /* issue 19: the fleet view names it */
    struct mero_gov_oplist ops = {0};
    int rc = mero_gov_admit_tee_node(a->env.store, c->ns, &req, out, &ops, err);
    if (rc == 0 && ops.n > 0 && a->env.publish_ops != NULL) {
        int prc = a->env.publish_ops(a->env.ud, c->ns, &ops);
        if (prc < 0 && prc != -MERO_ENOPEERS) {
            MERO_WARN("admission: publishing the admission ops failed: %s", mero_strerror(prc));
        }
    }
    mero_gov_oplist_cleanup(&ops);
    return rc;
}

/* ---- who may vouch, and whose proof of possession holds ---- */

/* enum mero_vouch_standing of this node in ns now: a TEE whose own evidence lapsed may not
 * vouch (evidence lifetime); an error reads as MERO_VOUCH_NO. */
static int vouch_standing(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t pk[MERO_IDENTITY_LEN];
    int st = MERO_VOUCH_NO;
    if (mero_gov_identity(a->env.store, ns, false, pk, NULL) < 0 ||
        mero_gov_vouch_standing(a->env.store, ns, pk, mero__adm_now_unix(a), &st) < 0) {
        return MERO_VOUCH_NO;
    }
    return st;
}

static bool may_vouch(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    return vouch_standing(a, ns) == MERO_VOUCH_YES;
}

static bool pop_ok(const struct mero_adm_init *m, const char *remote)
{
    uint8_t peer[MERO_PEER_ID_BYTES_MAX];
    size_t plen = sizeof(peer);
    if (!m->has_pop || mero_net_peer_id_bytes(remote, peer, &plen) < 0) {
        return false;
    }
    return mero__adm_pop_verify(m->pop, m->ns, m->party_id, peer, plen) == 0;
}

/* ---- the member side: offers ---- */

struct offer {
    struct mero_admission *a;
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t challenge[MERO_NONCE_LEN];
    char peer[MERO_PEER_ID_STR_MAX];
};

/* The joiner's reply to the challenge offered in o: a quote runs through the pipeline. */
static void take_reply(struct offer *o, int status, const uint8_t *data, size_t len)
{
    struct mero_admission *a = o->a;
    struct mero_adm_msg m;
    struct mero_err e = {0};
    if (status < 0 || a->closing) {
        MERO_DEBUG("admission: offer to %s got no answer: %s", o->peer, mero_strerror(status));
        return;
    }
    if (mero__adm_msg_decode(data, len, &m, &e) < 0 || m.kind != MERO_ADM_MSG_OFFER_REPLY) {
        MERO_WARN("admission: bad offer reply from %s: %s", o->peer, e.msg);
        return;
    }
    if (!m.offered) {
        MERO_DEBUG("admission: %s is not waiting to be admitted", o->peer);
        return;
    }
    MERO_INFO("TEE answered the challenge offered for its prompt (peer %s)", o->peer);
    struct mero_tee_claim c;
    memset(&c, 0, sizeof(c));
    memcpy(c.ns, o->ns, sizeof(c.ns));
    memcpy(c.challenge, o->challenge, sizeof(c.challenge));
    memcpy(c.public_key, m.public_key, sizeof(c.public_key));
    c.quote = m.quote;
    c.quote_len = m.quote_len;
    c.credential = m.credential;
    c.credential_len = m.credential_len;
    c.release = m.has_release ? m.release : NULL;
    c.peer = (const uint8_t *)o->peer;
    c.peer_len = strlen(o->peer);
    mero__adm_run(a, &c, "offered path", NULL);
}

static void offer_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    struct offer *o = ud;
    mero__adm_challenge_offer_release(&o->a->book);
    take_reply(o, status, data, len);
    mero_wipe(o, sizeof(*o));
    free(o);
}

/* A prompt heard from `from` on ns: offer it a challenge when this node may vouch. */
static void offer_for_prompt(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                             const char *from)
{
    if (!may_vouch(a, ns)) {
        MERO_DEBUG("admission: heard a prompt from %s but may not vouch here", from);
        return;
    }
    if (mero__adm_challenge_offer_acquire(&a->book) < 0) {
        MERO_DEBUG("admission: %u offers in flight; prompt from %s dropped",
                   MERO_CHALLENGE_MAX_CONCURRENT_OFFERS, from);
        return;
    }
    struct offer *o = calloc(1, sizeof(*o));
    struct mero_err e = {0};
    if (o == NULL) {
        mero__adm_challenge_offer_release(&a->book);
        return;
    }
    o->a = a;
    memcpy(o->ns, ns, sizeof(o->ns));
    snprintf(o->peer, sizeof(o->peer), "%s", from);
    if (mero__adm_challenge_issue(&a->book, MERO_CHALLENGE_OFFERED, ns, (const uint8_t *)from,
                                  strlen(from), NULL, mero__adm_now(a), o->challenge, &e) < 0) {
        MERO_DEBUG("admission: no offer to %s: %s", from, e.msg);
        mero__adm_challenge_offer_release(&a->book);
        free(o);
        return;
    }
    struct mero_adm_init m;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_INIT_CHALLENGE_OFFER;
    memcpy(m.ns, ns, sizeof(m.ns));
    memcpy(m.challenge, o->challenge, sizeof(m.challenge));
    int rc = mero__adm_init_send(a, from, &m, offer_reply, o);
    if (rc < 0) {
        MERO_DEBUG("admission: could not offer a challenge to %s: %s", from, mero_strerror(rc));
        mero__adm_challenge_offer_release(&a->book);
        mero_wipe(o, sizeof(*o));
        free(o);
        return;
    }
    a->offers++;
    MERO_INFO("admission: offered a challenge to %s for its prompt", from);
}

enum mero__adm_gossip mero__adm_on_gossip(struct mero_admission *a, const char *topic,
                                          const char *from, const uint8_t *data, size_t len)
{
    uint8_t ns[MERO_NS_ID_LEN];
    if (!mero__adm_is_prompt(data, len) || mero__node_topic_ns(topic, ns) < 0) {
        return MERO__ADM_GOSSIP_NOT_OURS;
    }
    if (from == NULL || strcmp(from, a->self_peer) == 0 || a->closing) {
        return MERO__ADM_GOSSIP_HOLD;
    }
    /* decided before the offer, whatever comes of it: forwarding is for the members beyond */
    bool forward = mero__adm_prompt_forward(&a->prompt_fwd, ns, from, mero__adm_now(a));
    offer_for_prompt(a, ns, from);
    return forward ? MERO__ADM_GOSSIP_FORWARD : MERO__ADM_GOSSIP_HOLD;
}

/*
 * Issue 33: whether a prompt from `from` on ns would come to nothing here, genuine or forged,
 * so that gossip may drop it before checking its signature (mero_net_callbacks.gossip_noop): a
 * prompt of that (namespace, source) was forwarded within the gap (it would be held back) and
 * no offer would follow (that peer was issued a challenge for ns within MIN_REISSUE, or this
 * node may not vouch). Reads only: a forged prompt changes nothing, and the first prompt of a
 * gap is always checked and handled.
 */
bool mero__adm_gossip_noop(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                           const char *from, const uint8_t *data, size_t len)
{
    if (!mero__adm_is_prompt(data, len) || from == NULL) {
        return false;
    }
    uint64_t now = mero__adm_now(a);
    if (!mero__adm_prompt_forward_holds(&a->prompt_fwd, ns, from, now)) {
        return false;
    }
    return mero__adm_challenge_too_soon(&a->book, ns, (const uint8_t *)from, strlen(from), now) ||
           !may_vouch(a, ns);
}

/* ---- the responders ---- */

static void on_challenge_request(struct mero_admission *a, struct mero_net_req *req,
                                 const char *remote, const struct mero_adm_init *m)
{
    struct mero_err e = {0};
    struct mero_adm_msg r;
    int st = vouch_standing(a, m->ns);
    if (st != MERO_VOUCH_YES) {
        mero__adm_respond_verdict(req, false,
                                  st == MERO_VOUCH_LAPSED ? MERO_GOV_REASON_EVIDENCE_LAPSED
                                                          : MERO_ADM_REASON_NOT_VOUCHER);
        return;
    }
    memset(&r, 0, sizeof(r));
    r.kind = MERO_ADM_MSG_CHALLENGE;
    if (mero__adm_challenge_issue(&a->book, MERO_CHALLENGE_REQUESTED, m->ns,
                                  (const uint8_t *)remote, strlen(remote), m->party_id,
                                  mero__adm_now(a), r.challenge, &e) < 0) {
        mero__adm_respond_verdict(req, false, e.msg);
        return;
    }
    (void)mero__adm_respond_msg(req, &r);
    mero_wipe(&r, sizeof(r));
}

/*
 * A challenge is spent the first time it is presented, whatever comes of the attempt (spec
 * "The challenge"): a request refused before verify_and_admit (a proof of possession or a
 * public key that does not match) spends the challenge it names too.
 */
static void spend_presented(struct mero_admission *a, const struct mero_adm_init *m,
                            const char *remote)
{
    if (m->kind != MERO_ADM_INIT_ADMISSION_REQUEST &&
        m->kind != MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST) {
        return;
    }
    int rc = mero__adm_challenge_consume(&a->book, m->challenge, m->ns, (const uint8_t *)remote,
                                         strlen(remote), NULL, mero__adm_now(a), NULL);
    (void)rc; /* spent either way; the request is refused by the caller */
}

static void on_admission_request(struct mero_admission *a, struct mero_net_req *req,
                                 const char *remote, const struct mero_adm_init *m)
{
    if (!mero_ct_eq(m->public_key, m->party_id, sizeof(m->public_key))) {
        spend_presented(a, m, remote);
        mero__adm_respond_verdict(req, false, "the request's public_key is not the key it proved");
        return;
    }
    struct mero_tee_claim c;
    memset(&c, 0, sizeof(c));
    memcpy(c.ns, m->ns, sizeof(c.ns));
    memcpy(c.challenge, m->challenge, sizeof(c.challenge));
    memcpy(c.public_key, m->public_key, sizeof(c.public_key));
    c.quote = m->quote;
    c.quote_len = m->quote_len;
    c.credential = m->credential;
    c.credential_len = m->credential_len;
    c.release = m->kind == MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST ? m->release : NULL;
    c.peer = (const uint8_t *)remote;
    c.peer_len = strlen(remote);
    mero__adm_run(a, &c, "direct path", req);
}

/* Our quote for the challenge `remote` offered, into r (its quote and credential live in *quote
 * and cred); < 0, r left "not offered", when we may not or cannot answer. */
static int answer_offer(struct mero_admission *a, const char *remote, const struct mero_adm_init *m,
                        struct mero_adm_msg *r, uint8_t **quote, struct mero_buf *cred)
{
    struct mero_err e = {0};
    size_t qlen = 0;
    MERO_TRY(mero__adm_pending_may_answer(&a->pending, m->ns, (const uint8_t *)remote,
                                          strlen(remote), mero__adm_now(a)));
    int rc = mero__adm_make_quote(a, m->ns, m->challenge, quote, &qlen, cred, r->public_key, &e);
    if (rc < 0) {
        MERO_WARN("admission: could not answer the offer from %s: %s", remote, e.msg);
        return rc;
    }
    r->offered = true;
    r->quote = *quote;
    r->quote_len = qlen;
    r->credential = cred->data;
    r->credential_len = cred->len;
    if (a->env.release[0] != '\0') {
        r->has_release = true;
        snprintf(r->release, sizeof(r->release), "%s", a->env.release);
    }
    MERO_INFO("admission: answering the challenge %s offered with a quote", remote);
    a->answered_ms = mero__adm_now(a);
    mero__adm_offer_answered(a, m->ns, m->challenge, remote);
    mero__adm_fj_progress_note(a, m->ns, MERO_FJ_CHALLENGED, remote, NULL);
    mero__adm_fj_progress_note(a, m->ns, MERO_FJ_ANSWERED, remote, NULL);
    return 0;
}

/* We are the joiner: answer an offered challenge with a quote, or with nothing. */
static void on_offer(struct mero_admission *a, struct mero_net_req *req, const char *remote,
                     const struct mero_adm_init *m)
{
    struct mero_adm_msg r;
    struct mero_buf cred;
    uint8_t *quote = NULL;
    memset(&r, 0, sizeof(r));
    r.kind = MERO_ADM_MSG_OFFER_REPLY;
    mero_buf_init(&cred, MERO_ADM_MAX_CREDENTIAL);
    (void)answer_offer(a, remote, m, &r, &quote, &cred); /* a refusal is "not offered" */
    (void)mero__adm_respond_msg(req, &r);
    free(quote);
    mero_buf_cleanup(&cred);
}

static void on_group_key_request(struct mero_admission *a, struct mero_net_req *req,
                                 const struct mero_adm_init *m)
{
    struct mero_adm_msg r;
    struct mero_key_envelope env;
    struct mero_buf eb;
    uint8_t key[MERO_GROUP_KEY_LEN], key_id[MERO_KEY_ID_LEN];
    int role = MERO_ROLE_NONE;
    memset(&r, 0, sizeof(r));
    r.kind = MERO_ADM_MSG_GROUP_KEY;
    mero_buf_init(&eb, MERO_ADM_MAX_ENVELOPE);
    uint8_t *sk = sodium_malloc(MERO_ED25519_SK_LEN);
    /* any member reaching the group (issue 16: also through Open subgroups) */
    if (sk != NULL && mero_gov_reach_role(a->env.store, m->group_id, m->party_id, &role) == 0 &&
        role != MERO_ROLE_NONE && mero_gov_group_key(a->env.store, m->group_id, key, key_id) == 0 &&
        mero_gov_identity_secret(a->env.store, m->ns, sk) == 0 &&
        mero_envelope_wrap(&env, m->group_id, m->party_id, sk, key, NULL) == 0 &&
        mero_envelope_encode(&eb, &env) == 0) {
        r.envelope = eb.data;
        r.envelope_len = eb.len;
    }
    mero_wipe(key, sizeof(key));
    if (sk != NULL) {
        sodium_free(sk);
    }
    (void)mero__adm_respond_msg(req, &r);
    mero_buf_cleanup(&eb);
}

static void on_request(void *ud, struct mero_net_req *req, const char *remote, const uint8_t *data,
                       size_t len)
{
    struct mero_admission *a = ud;
    struct mero_adm_init m;
    struct mero_err e = {0};
    if (a->closing) {
        mero_net_req_drop(req);
        return;
    }
    if (mero__adm_init_decode(data, len, &m, &e) < 0) {
        MERO_DEBUG("admission: bad request from %s: %s", remote, e.msg);
        mero__adm_respond_verdict(req, false, e.msg);
        return;
    }
    if (m.kind != MERO_ADM_INIT_CHALLENGE_OFFER && m.kind != MERO_ADM_INIT_VERDICT &&
        !pop_ok(&m, remote)) {
        spend_presented(a, &m, remote);
        mero__adm_respond_verdict(req, false,
                                  "the proof of possession does not bind this key to your peer id");
        return;
    }
    switch (m.kind) {
    case MERO_ADM_INIT_CHALLENGE_REQUEST:
        on_challenge_request(a, req, remote, &m);
        break;
    case MERO_ADM_INIT_ADMISSION_REQUEST:
    case MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST:
        on_admission_request(a, req, remote, &m);
        break;
    case MERO_ADM_INIT_CHALLENGE_OFFER:
        on_offer(a, req, remote, &m);
        break;
    case MERO_ADM_INIT_GROUP_KEY_REQUEST:
        on_group_key_request(a, req, &m);
        break;
    case MERO_ADM_INIT_GROUP_KEYS_REQUEST: /* issue 16: node/admission/keys.c */
        mero__adm_on_group_keys_request(a, req, &m);
        break;
    case MERO_ADM_INIT_VERDICT:
        mero__adm_on_verdict(a, req, remote, &m);
        break;
    default:
        mero_net_req_drop(req);
        break;
    }
}

/* ---- lifetime ---- */

int mero__adm_new(const struct mero_admission_env *env, struct mero_admission **out,
                  struct mero_err *err)
{
    if (env == NULL || env->net == NULL || env->store == NULL) {
        return mero_err_set(err, MERO_EINVAL, "admission needs a net peer and a store");
    }
    struct mero_admission *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    a->env = *env;
    mero__adm_challenge_book_init(&a->book);
    mero__adm_pending_init(&a->pending);
    mero__adm_prompt_forward_init(&a->prompt_fwd);
    a->ops.ud = a;
    a->ops.credential = op_credential;
    a->ops.admit = op_admit;
    if (env->real_quotes) { /* the library's PCS cache, DCAP and release source (attest.c) */
        a->ops.collateral = mero__adm_collateral;
        a->ops.dcap = mero__adm_dcap;
        a->ops.release = mero__adm_prefetch_release;
    }
    snprintf(a->self_peer, sizeof(a->self_peer), "%s", mero_net_peer_id(env->net));
    int rc = mero_net_handle(env->net, MERO_ADM_PROTOCOL, on_request, a);
    if (rc < 0) {
        free(a);
        return mero_err_set(err, -rc, "could not register %s", MERO_ADM_PROTOCOL);
    }
    if (env->loop != NULL && uv_timer_init(env->loop, &a->purge_timer) == 0) {
        a->purge_timer.data = a;
        a->purge_timer_open = true;
    }
    *out = a;
    return 0;
}

static void purge_timer_closed(uv_handle_t *h)
{
    mero__adm_maybe_free(h->data);
}

void mero__adm_stop(struct mero_admission *a)
{
    if (a != NULL) {
        a->closing = true;
    }
}

void mero__adm_free(struct mero_admission *a)
{
    if (a == NULL) {
        return;
    }
    a->closing = true; /* the net peer is gone: its handler went with it */
    mero__adm_evidence_retry_free(a);
    mero__adm_fleet_join_free_all(a);
    mero__adm_challenge_book_cleanup(&a->book);
    a->freeing = true;
    if (a->purge_timer_open) {
        a->purge_timer_open = false;
        uv_timer_stop(&a->purge_timer);
        uv_close((uv_handle_t *)&a->purge_timer, purge_timer_closed); /* may free a */
        return;
    }
    mero__adm_maybe_free(a);
}
