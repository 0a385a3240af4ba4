/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/fleet_join.c - the joining replica's side (spec "Prompt (the replica)", "Asking an
 * admitter directly", "Self-confirm and auto-follow"; reference-calimero.md §4.4, §5.3): the
 * fleet join (mero_node_fleet_join). It resolves the namespace identity, builds the credential,
 * clears the namespace's self-purge tombstone (a re-admission after our own eviction),
 * registers the namespace as pending, subscribes to ns/<hex>; asks each admitter address
 * directly first (challenge request, quote over challenge || admission binding, admission
 * request), recording who admitted and each refusal's reason; then re-prompts about every 2 s
 * for up to 30 s with a namespace op-log pull each cycle. A prompt-path admitter's verdict
 * arrives as a TeeAdmissionVerdict (node/admission/verdict.c) and its refusal joins the
 * result's refusals; the call ends early, announced, once every admitter that judged our quote
 * (on either path) refused it and none is still judging. Once its admission op and the group
 * key have arrived it joins every context, publishes its own MemberSetAutoFollow and finishes
 * with an admitted result; otherwise with a result not admitted (announced). A missing key is
 * pulled with GroupKeyRequest from connected peers. The outcome is a struct
 * mero_fleet_join_result (mero/node.h); its JSON shape belongs to the API.
 *
 * Invariants: the completion callback runs exactly once; a join's memory outlives every
 * request and timer it started (a count of outstanding callbacks, freed at zero); admitter
 * addresses decide who is asked, never who may admit; an address naming this node is dropped;
 * the tombstone is gone before the topic is joined or anything of the namespace is pulled; each
 * state change is noted once for the caller's progress (node/admission/progress.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/tsm.h"
#include "node/admission/service_internal.h"

#define REASON_TEXT_MAX 96 /* the text of a refusal we word ourselves */

_Static_assert(MERO_FLEET_REASON_MAX == MERO_ADM_MAX_REASON_LEN + 1, "a refusal's reason fits");

struct mero_fleet_join {
    struct mero_admission *a;
    struct mero_fleet_join *next;
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t pk[MERO_IDENTITY_LEN];
    uint8_t account[MERO_IDENTITY_LEN];
    char admitters[MERO_MAX_ADMITTER_ADDRS][MERO_PEER_ID_STR_MAX];
    size_t nadm, cur;
    bool protected_adm[MERO_MAX_ADMITTER_ADDRS]; /* issue 33: held from the connection manager */
    uint8_t challenge[MERO_CHALLENGE_LEN];
    char admitted_by[MERO_PEER_ID_STR_MAX];
    struct mero_fleet_join_refusal refusals[MERO_MAX_ADMITTER_ADDRS];
    size_t nref;
    size_t direct_judged; /* admitters that judged our quote on the direct path (and refused) */
    bool prompt_admitted; /* a prompt-path admitter's verdict said yes (logged once) */
    bool direct_done;
    uv_timer_t timer;
    bool timer_open;
    uint64_t started_ms;
    /* its own status as last read from the store (own_status), and the store's generation and
     * the time it was read at */
    bool status_known, member, has_key;
    uint64_t status_gen, status_ms;
    uint64_t last_cycle_ms;          /* last prompt / pull cycle */
    uint64_t pulled_after_answer_ms; /* the answered offer the last extra pull followed */
    bool cycled;
    unsigned outstanding; /* requests and the timer handle */
    bool finished;
    mero_fleet_join_done cb;
    void *ctx;
};

static void join_release(struct mero_fleet_join *j)
{
    if (j->outstanding > 0) {
        j->outstanding--;
    }
    if (j->outstanding == 0 && j->finished) {
        mero_wipe(j, sizeof(*j));
        free(j);
    }
}

static void unlink_join(struct mero_fleet_join *j)
{
    struct mero_fleet_join **pp = &j->a->joins;
    while (*pp != NULL) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
        pp = &(*pp)->next;
    }
}

static void timer_closed(uv_handle_t *h)
{
    join_release(h->data);
}

/* Run the completion once (rc 0 with res, else the reason), then let the memory go once
 * nothing refers to it. */
static void finish(struct mero_fleet_join *j, int rc, const struct mero_fleet_join_result *res,
                   const char *message)
{
    if (j->finished) {
        return;
    }
    j->finished = true;
    unlink_join(j);
    /* issue 33: our admitters' connections may be trimmed again (not once the net is gone) */
    for (size_t i = 0; i < j->nadm && !j->a->closing && !j->a->freeing; i++) {
        if (j->protected_adm[i]) {
            j->protected_adm[i] = false;
            mero_net_unprotect(j->a->env.net, j->admitters[i]);
        }
    }
    mero__adm_fj_progress_end(j->a, j->ns);
    if (j->timer_open) {
        j->timer_open = false;
        uv_timer_stop(&j->timer);
        uv_close((uv_handle_t *)&j->timer, timer_closed);
    }
    mero_fleet_join_done cb = j->cb;
    void *ctx = j->ctx;
    struct mero_err e = {0};
    if (rc < 0) {
        (void)mero_err_set(&e, -rc, "%s", message);
    }
    j->outstanding++; /* hold across the callback */
    cb(ctx, rc, rc < 0 ? NULL : res, rc < 0 ? &e : NULL);
    join_release(j);
}

static void finish_result(struct mero_fleet_join *j, bool admitted, bool auto_follow,
                          const uint8_t (*ctxs)[MERO_CONTEXT_ID_LEN], size_t nctx)
{
    struct mero_fleet_join_result res = {
        .admitted = admitted,
        .auto_follow = auto_follow,
        .contexts = ctxs,
        .ncontexts = nctx,
        .admitted_by = j->admitted_by[0] ? j->admitted_by : NULL,
        .refusals = j->refusals,
        .nrefusals = j->nref,
    };
    memcpy(res.ns, j->ns, sizeof(res.ns));
    memcpy(res.pk, j->pk, sizeof(res.pk));
    memcpy(res.account, j->account, sizeof(res.account));
    /* issue 19: each offer this join answered that no verdict came back for */
    for (size_t i = 0; !admitted && j->a->env.attempt_heard != NULL && i < MERO_ADM_ANSWERED_MAX;
         i++) {
        const struct mero_adm_answered *o = &j->a->answered[i];
        if (o->used && !o->has_verdict && o->at_ms >= j->started_ms &&
            memcmp(o->ns, j->ns, MERO_NS_ID_LEN) == 0) {
            j->a->env.attempt_heard(j->a->env.ud, j->ns, false, MERO_FLEET_NO_VERDICT, NULL);
        }
    }
    finish(j, 0, &res, NULL);
}

/* Self-confirm: join every context, publish our own MemberSetAutoFollow, answer admitted. */
static void self_confirm(struct mero_fleet_join *j)
{
    struct mero_admission *a = j->a;
    uint8_t(*ids)[MERO_CONTEXT_ID_LEN] = NULL;
    size_t n = 0;
    bool contexts = false, subgroups = false;
    if (a->env.join_contexts != NULL && a->env.join_contexts(a->env.ud, j->ns, &ids, &n) < 0) {
        MERO_WARN("fleet-join: joining the namespace's contexts failed");
        n = 0;
    }
    if (mero_gov_auto_follow(a->env.store, j->ns, j->pk, &contexts, &subgroups) < 0 || !contexts ||
        !subgroups) {
        struct mero_gov_oplist ops = {0};
        struct mero_err e = {0};
        if (mero_gov_set_auto_follow(a->env.store, j->ns, j->ns, j->pk, true, true, &ops, &e) ==
            0) {
            if (a->env.publish_ops != NULL) {
                (void)a->env.publish_ops(a->env.ud, j->ns, &ops);
            }
            contexts = subgroups = true;
        } else {
            MERO_WARN("fleet-join: could not publish MemberSetAutoFollow: %s", e.msg);
        }
        mero_gov_oplist_cleanup(&ops);
    }
    mero__adm_pending_remove(&a->pending, j->ns);
    /* issue 16: every key of every group we reach (earlier keys, Open subgroups) */
    mero__adm_keys_pull_reach(a, j->ns);
    MERO_INFO("fleet-join: admitted, holding the group key; joined %zu context(s)", n);
    finish_result(j, true, contexts && subgroups, (const uint8_t(*)[MERO_CONTEXT_ID_LEN])ids, n);
    free(ids);
}

static void publish_prompt(struct mero_fleet_join *j)
{
    char topic[MERO_NS_TOPIC_SIZE];
    struct mero_buf b;
    mero__node_topic(topic, j->ns);
    mero_buf_init(&b, MERO_ADM_PROMPT_LEN);
    if (mero__adm_prompt_encode(&b) == 0) {
        int rc = mero_net_publish(j->a->env.net, topic, b.data, b.len);
        if (rc < 0 && rc != -MERO_ENOPEERS) {
            MERO_WARN("fleet-join: publishing the prompt failed: %s", mero_strerror(rc));
        } else {
            MERO_INFO("fleet-join: prompted on %.12s… (%d peer%s)", topic, rc < 0 ? 0 : rc,
                      rc == 1 ? "" : "s");
            /* a re-prompt while an answered offer or an admission is pending is no new state */
            enum mero_fleet_join_state cur = mero__adm_fj_progress_state(j->a, j->ns);
            if (cur == 0 || cur == MERO_FJ_ASKING || cur == MERO_FJ_REFUSED) {
                mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_PROMPTED, NULL, NULL);
            }
        }
    }
    mero_buf_cleanup(&b);
}

static void pull_key(struct mero_fleet_join *j)
{
    char peers[MERO_KEY_PULL_PEERS][MERO_PEER_ID_STR_MAX];
    size_t n = mero__adm_pull_peers(j->a, peers); /* the next few: a retry asks others */
    for (size_t i = 0; i < n; i++) {
        mero__adm_key_pull(j->a, j->ns, peers[i]);
    }
}

static void add_refusal(struct mero_fleet_join *j, const char *peer, const char *reason);

static void take_refusal(void *ud, const char *peer, const char *reason)
{
    add_refusal(ud, peer, reason);
}

/*
 * Issue 18: has every admitter that judged our quote refused it? Admitters that judged it are
 * the direct-path ones that answered our admission request and the prompt-path ones whose
 * offer we answered (their TeeAdmissionVerdict, node/admission/verdict.c). True only when at
 * least one judged, none admitted and none is still judging; the prompt-path refusals are
 * added to the answer's `refusals` as they arrive.
 */
static bool all_refused(struct mero_fleet_join *j)
{
    struct mero_adm_verdicts v;
    mero__adm_verdicts(j->a, j->ns, j->started_ms, &v, take_refusal, j);
    /* admitted_by reports the direct request only (spec "Asking an admitter directly") */
    if (v.admitted && !j->prompt_admitted) {
        j->prompt_admitted = true;
        MERO_INFO("fleet-join: admitted by %s (prompt path); waiting for the key", v.admitted_by);
        if (mero__adm_fj_progress_state(j->a, j->ns) != MERO_FJ_ADMITTED) {
            mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_ADMITTED, v.admitted_by, NULL);
        }
    }
    return j->direct_done && j->admitted_by[0] == '\0' && !v.admitted &&
           j->direct_judged + v.answered > 0 && v.refused == v.answered;
}

/*
 * Whether we are a member of the namespace yet and hold its key: three reads of the store,
 * done again only when the store changed since the last (mero_gov_generation) or that was
 * MERO_FLEET_JOIN_STATUS_MAX_AGE_MS ago. Issue 33: 160 joiners reading it every 50 ms were 9%
 * of a 200-node join burst's CPU.
 */
static void own_status(struct mero_fleet_join *j, bool *member, bool *has_key)
{
    struct mero_admission *a = j->a;
    uint64_t gen = mero_gov_generation(a->env.store);
    uint64_t now = mero__adm_now(a);
    if (!j->status_known || gen != j->status_gen ||
        now - j->status_ms >= MERO_FLEET_JOIN_STATUS_MAX_AGE_MS) {
        mero__adm_status(a, j->ns, &j->member, &j->has_key);
        a->status_reads++;
        j->status_known = true;
        j->status_gen = gen;
        j->status_ms = now;
    }
    *member = j->member;
    *has_key = j->has_key;
}

static void tick(uv_timer_t *t)
{
    struct mero_fleet_join *j = t->data;
    struct mero_admission *a = j->a;
    bool member, has_key;
    if (j->finished || a->closing) {
        return;
    }
    own_status(j, &member, &has_key);
    if (member && !has_key && mero__adm_fj_progress_state(a, j->ns) != MERO_FJ_ADMITTED) {
        mero__adm_fj_progress_note(a, j->ns, MERO_FJ_ADMITTED, j->admitted_by, NULL);
    }
    if (member && has_key) {
        self_confirm(j);
        return;
    }
    if (all_refused(j)) {
        MERO_INFO("fleet-join: every admitter that judged our quote refused it; announced");
        finish_result(j, false, false, NULL, 0);
        return;
    }
    uint32_t budget = a->env.budget_ms ? a->env.budget_ms : MERO_FLEET_JOIN_BUDGET_MS;
    if (mero__adm_now(a) - j->started_ms >= budget) {
        MERO_INFO("fleet-join: not admitted within %u ms; announced", budget);
        finish_result(j, false, false, NULL, 0);
        return;
    }
    /* status is checked every MERO_FLEET_JOIN_CHECK_MS; the prompt, the key pull and the
     * op-log pull run once per poll period */
    uint32_t poll = a->env.poll_ms ? a->env.poll_ms : MERO_FLEET_JOIN_POLL_MS;
    uint64_t now = mero__adm_now(a);
    /* an offer we answered: the admitter publishes within moments, so pull once right after
     * rather than waiting for gossip to find parents or for the next cycle */
    if (a->answered_ms > j->pulled_after_answer_ms && now - a->answered_ms >= 100 &&
        a->env.sync_namespace != NULL) {
        j->pulled_after_answer_ms = a->answered_ms;
        a->env.sync_namespace(a->env.ud, j->ns);
    }
    if (j->cycled && now - j->last_cycle_ms < poll) {
        return;
    }
    if (!j->direct_done) {
        return; /* the direct path is still asking; it prompts when it is done */
    }
    j->cycled = true;
    j->last_cycle_ms = now;
    if (member) {
        pull_key(j); /* admitted, but the KeyDelivery has not reached us */
    } else {
        publish_prompt(j);
    }
    if (a->env.sync_namespace != NULL) {
        a->env.sync_namespace(a->env.ud, j->ns);
    }
}

/* ---- the direct path ---- */

static void next_admitter(struct mero_fleet_join *j);

static void add_refusal(struct mero_fleet_join *j, const char *peer, const char *reason)
{
    if (j->nref >= MERO_MAX_ADMITTER_ADDRS) {
        return;
    }
    struct mero_fleet_join_refusal *r = &j->refusals[j->nref++];
    snprintf(r->peer, sizeof(r->peer), "%s", peer);
    mero__adm_reason_cut(r->reason, reason, strlen(reason));
    MERO_INFO("fleet-join: %s refused: %s", peer, r->reason);
    mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_REFUSED, peer, r->reason);
}

/* A request to peer failed in transport (status < 0): a refusal that says how. */
static void refuse_failed(struct mero_fleet_join *j, const char *peer, const char *what, int status)
{
    char why[REASON_TEXT_MAX];
    snprintf(why, sizeof(why), "%s (%s)", what, mero_errdesc(status));
    add_refusal(j, peer, why);
}

/* This admitter is done with (refused or unreachable): ask the next, then drop the reply's
 * hold on the join. */
static void move_on(struct mero_fleet_join *j)
{
    j->cur++;
    next_admitter(j);
    join_release(j);
}

static void admission_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    struct mero_fleet_join *j = ud;
    struct mero_adm_msg m;
    struct mero_err e = {0};
    const char *peer = j->admitters[j->cur];
    if (j->finished || j->a->closing) {
        join_release(j);
        return;
    }
    if (status < 0) {
        refuse_failed(j, peer, "no answer to the admission request", status);
    } else if (mero__adm_msg_decode(data, len, &m, &e) < 0 || m.kind != MERO_ADM_MSG_RESPONSE) {
        add_refusal(j, peer, e.msg[0] ? e.msg : "unexpected answer to the admission request");
    } else if (!m.admitted) {
        add_refusal(j, peer, m.reason);
        j->direct_judged++;
        if (j->a->env.attempt_heard != NULL) {
            j->a->env.attempt_heard(j->a->env.ud, j->ns, true, MERO_FLEET_REFUSED, m.reason);
        }
    } else {
        if (j->a->env.attempt_heard != NULL) {
            j->a->env.attempt_heard(j->a->env.ud, j->ns, true, MERO_FLEET_ADMITTED, NULL);
        }
        snprintf(j->admitted_by, sizeof(j->admitted_by), "%s", peer);
        MERO_INFO("fleet-join: admitted by %s (direct path); pulling governance", peer);
        mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_ADMITTED, peer, NULL);
        j->direct_done = true;
        j->cycled = true; /* the pull below is this cycle's: no prompt right away */
        j->last_cycle_ms = mero__adm_now(j->a);
        if (j->a->env.sync_namespace != NULL) {
            j->a->env.sync_namespace(j->a->env.ud, j->ns);
        }
        join_release(j);
        return;
    }
    move_on(j);
}

static int send_admission_request(struct mero_fleet_join *j, const char *peer, struct mero_err *e)
{
    struct mero_adm_init m;
    struct mero_buf cred, b;
    uint8_t *quote = NULL;
    size_t qlen = 0;
    memset(&m, 0, sizeof(m));
    mero_buf_init(&cred, MERO_ADM_MAX_CREDENTIAL);
    mero_buf_init(&b, MERO_ADM_MAX_FRAME);
    int rc = mero__adm_make_quote(j->a, j->ns, j->challenge, &quote, &qlen, &cred, m.public_key, e);
    if (rc == 0) {
        rc = mero__adm_pop(j->a, j->ns, m.party_id, m.pop, e);
    }
    if (rc == 0) {
        m.has_pop = true;
        memcpy(m.ns, j->ns, sizeof(j->ns));
        memcpy(m.challenge, j->challenge, sizeof(j->challenge));
        m.quote = quote;
        m.quote_len = qlen;
        m.credential = cred.data;
        m.credential_len = cred.len;
        m.kind = MERO_ADM_INIT_ADMISSION_REQUEST;
        if (j->a->env.release[0] != '\0') {
            m.kind = MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST;
            snprintf(m.release, sizeof(m.release), "%s", j->a->env.release);
        }
        rc = mero__adm_init_encode(&b, &m);
    }
    if (rc == 0) {
        rc = mero_net_request(j->a->env.net, peer, MERO_ADM_PROTOCOL, b.data, b.len,
                              MERO_ADM_REQUEST_TIMEOUT_MS, admission_reply, j);
        if (rc == 0) {
            j->outstanding++;
            mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_ANSWERED, peer, NULL);
        } else {
            mero_err_set(e, -rc, "could not send the admission request (%s)", mero_errdesc(rc));
        }
    }
    free(quote);
    mero_buf_cleanup(&cred);
    mero_buf_cleanup(&b);
    return rc;
}

static void challenge_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    struct mero_fleet_join *j = ud;
    struct mero_adm_msg m;
    struct mero_err e = {0};
    const char *peer = j->admitters[j->cur];
    if (j->finished || j->a->closing) {
        join_release(j);
        return;
    }
    if (status < 0) {
        refuse_failed(j, peer, "could not be reached", status);
    } else if (mero__adm_msg_decode(data, len, &m, &e) < 0) {
        add_refusal(j, peer, e.msg);
    } else if (m.kind == MERO_ADM_MSG_RESPONSE) {
        add_refusal(j, peer, m.reason[0] ? m.reason : "refused to issue a challenge");
    } else if (m.kind != MERO_ADM_MSG_CHALLENGE) {
        add_refusal(j, peer, "unexpected answer to the challenge request");
    } else {
        memcpy(j->challenge, m.challenge, sizeof(j->challenge));
        mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_CHALLENGED, peer, NULL);
        if (send_admission_request(j, peer, &e) == 0) {
            join_release(j);
            return;
        }
        add_refusal(j, peer, e.msg);
    }
    move_on(j);
}

/* Ask admitters[cur], or, when none is left, hand over to the prompt loop. */
static void next_admitter(struct mero_fleet_join *j)
{
    while (j->cur < j->nadm && !j->finished) {
        const char *peer = j->admitters[j->cur];
        struct mero_adm_init m;
        struct mero_err e = {0};
        struct mero_buf b;
        memset(&m, 0, sizeof(m));
        m.kind = MERO_ADM_INIT_CHALLENGE_REQUEST;
        memcpy(m.ns, j->ns, sizeof(j->ns));
        int rc = mero__adm_pop(j->a, j->ns, m.party_id, m.pop, &e);
        m.has_pop = true;
        mero_buf_init(&b, MERO_ADM_MAX_FRAME);
        if (rc == 0) {
            rc = mero__adm_init_encode(&b, &m);
        }
        if (rc == 0) {
            rc = mero_net_request(j->a->env.net, peer, MERO_ADM_PROTOCOL, b.data, b.len,
                                  MERO_ADM_REQUEST_TIMEOUT_MS, challenge_reply, j);
        }
        mero_buf_cleanup(&b);
        if (rc == 0) {
            j->outstanding++;
            MERO_INFO("fleet-join: asking %s directly for a challenge", peer);
            mero__adm_fj_progress_note(j->a, j->ns, MERO_FJ_ASKING, peer, NULL);
            return;
        }
        add_refusal(j, peer, e.msg[0] ? e.msg : mero_errdesc(rc));
        j->cur++;
    }
    if (!j->direct_done) {
        j->direct_done = true;
        j->cycled = false; /* the next check prompts: the prompt keeps running either way */
    }
}

/* ---- start ---- */

int mero__adm_fleet_join_start(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                               const char *const *admitters, size_t n, mero_fleet_join_done cb,
                               void *ctx, struct mero_err *err)
{
    struct mero_credential cred;
    char topic[MERO_NS_TOPIC_SIZE];
    if (a == NULL || ns == NULL || cb == NULL || a->closing) {
        return mero_err_set(err, MERO_EINVAL, "fleet-join is not available");
    }
    if (!a->env.mock_tee && !mero_tsm_present()) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "TDX attestation required -- mock not accepted for fleet join");
    }
    struct mero_fleet_join *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    j->a = a;
    j->cb = cb;
    j->ctx = ctx;
    memcpy(j->ns, ns, sizeof(j->ns));
    int rc = mero_gov_identity(a->env.store, ns, true, j->pk, err);
    if (rc == 0) {
        rc = mero_gov_credential(a->env.store, ns, &cred, err);
        if (rc < 0) {
            mero_err_set(err, -rc, "could not build the account credential for this replica");
        }
    }
    if (rc < 0) {
        free(j);
        return rc;
    }
    memcpy(j->account, cred.cert.account, sizeof(j->account));
    for (size_t i = 0; i < n && j->nadm < MERO_MAX_ADMITTER_ADDRS; i++) {
        char canon[MERO_MULTIADDR_STR_MAX], peer[MERO_PEER_ID_STR_MAX];
        if (admitters[i] == NULL || mero_net_multiaddr_check(admitters[i], canon, peer) < 0 ||
            peer[0] == '\0') {
            free(j);
            return mero_err_set(err, MERO_EMULTIADDR,
                                "admitterAddrs[%zu] is not a multiaddr ending in /p2p/<peer id>",
                                i);
        }
        if (strcmp(peer, a->self_peer) == 0) {
            continue; /* an address naming this node is dropped */
        }
        if (mero_net_add_addr(a->env.net, canon) < 0) {
            MERO_DEBUG("fleet-join: could not remember %s", canon);
        }
        snprintf(j->admitters[j->nadm++], MERO_PEER_ID_STR_MAX, "%s", peer);
    }
    /* a re-admission after our own eviction: forget the self-purge tombstone before anything
     * of the namespace is subscribed to or pulled, else its ops would be dropped */
    rc = mero_gov_purged_clear(a->env.store, ns);
    if (rc < 0) {
        free(j);
        return mero_err_set(err, -rc, "could not clear this namespace's self-purge tombstone");
    }
    rc = mero__adm_pending_register(&a->pending, ns, mero__adm_now(a));
    if (rc < 0) {
        free(j);
        return mero_err_set(err, -rc, "too many namespaces are waiting for admission");
    }
    mero__node_topic(topic, ns);
    rc = mero_net_subscribe(a->env.net, topic);
    if (rc < 0) {
        free(j);
        return mero_err_set(err, -rc, "could not subscribe to %s", topic);
    }
    rc = uv_timer_init(a->env.loop, &j->timer);
    if (rc < 0) {
        free(j);
        return mero_err_set(err, MERO_EINTERNAL, "uv_timer_init: %s", uv_strerror(rc));
    }
    j->timer.data = j;
    j->timer_open = true;
    j->outstanding = 1; /* the timer handle */
    j->started_ms = mero__adm_now(a);
    j->next = a->joins;
    a->joins = j;
    mero__adm_fj_progress_start(a, ns);
    /* first tick right away (already a member answers at once), then a status check every
     * MERO_FLEET_JOIN_CHECK_MS with a prompt cycle every ~2 s */
    (void)uv_timer_start(&j->timer, tick, 0, MERO_FLEET_JOIN_CHECK_MS);
    /* issue 33: a pending admission's admitter is kept by the connection manager */
    for (size_t i = 0; i < j->nadm; i++) {
        j->protected_adm[i] = mero_net_protect(a->env.net, j->admitters[i]) == 0;
    }
    if (j->nadm > 0) {
        next_admitter(j);
    } else {
        j->direct_done = true; /* the first tick prompts */
    }
    return 0;
}

/* Shutdown: the node's stop hook (the caller's server) has already answered every waiting
 * caller, so the joins are dropped without calling back; their memory goes when the timers' close
 * callbacks run. */
static void drop_cb(void *ctx, int rc, const struct mero_fleet_join_result *res,
                    const struct mero_err *err)
{
    (void)ctx;
    (void)rc;
    (void)res;
    (void)err;
}

void mero__adm_fleet_join_free_all(struct mero_admission *a)
{
    while (a->joins != NULL) {
        a->joins->cb = drop_cb;
        finish(a->joins, -MERO_ESTATE, NULL, "the node is shutting down");
    }
}
