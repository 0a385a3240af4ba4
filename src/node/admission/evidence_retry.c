/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node/admission/evidence_retry.c - tee::evidence_retry (spec "Idempotency and refresh",
 * "Signed-release policies"; issue 16 "Evidence lifetime"): an admitted TEE keeps its
 * attestation evidence fresh. Every check period it looks, for each namespace where it holds a
 * TEE row at the root, at the attested_at of its own latest TeeAuthorityEvidence; once that is
 * missing or due (MERO_GOV_EVIDENCE_REFRESH_SECS) it registers the namespace as pending and
 * publishes a TeeAdmissionPrompt on ns/<hex>. An admitter that hears it offers a challenge,
 * the node answers with a fresh quote naming its release (peer.c on_offer), and the admitter's
 * admit_tee_node step 6 publishes fresh evidence. Until the evidence is no longer due the
 * prompt is repeated with a doubling back-off, from one check period (60 s) up to 30 of them
 * (30 min).
 *
 * Its decisions read the wall clock of evidence decisions (mero__adm_now_unix, base.c: the
 * real clock plus the --test skew, docs/admission.md "Evidence lifetime").
 *
 * Invariants: only a node that can quote (mock or TDX) runs the loop; a namespace is prompted
 * only while our own evidence there is missing or due, at most once per back-off; nothing is
 * published but the prompt (the evidence comes from an admitter); the timer stops with the
 * admission service and its memory goes with the timer's close callback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/tsm.h"
#include "node/admission/service_internal.h"

#define CHECK_MS_DEFAULT 60000u /* how often our evidence age is looked at */
#define MAX_BACKOFF_MUL  30u    /* the longest wait between two prompts: 30 check periods */

struct retry_ns {
    bool used;
    uint8_t ns[MERO_NS_ID_LEN];
    unsigned attempts;
    uint64_t next_ms;
};

struct mero_evidence_retry {
    uv_timer_t timer;
    struct mero_admission *a;
    uint32_t check_ms;
    struct retry_ns slots[MERO_MAX_PENDING_NAMESPACES];
};

static struct retry_ns *slot_of(struct mero_evidence_retry *r, const uint8_t ns[MERO_NS_ID_LEN],
                                bool add)
{
    struct retry_ns *free_slot = NULL;
    for (size_t i = 0; i < MERO_MAX_PENDING_NAMESPACES; i++) {
        if (r->slots[i].used && memcmp(r->slots[i].ns, ns, MERO_NS_ID_LEN) == 0) {
            return &r->slots[i];
        }
        if (!r->slots[i].used && free_slot == NULL) {
            free_slot = &r->slots[i];
        }
    }
    if (!add || free_slot == NULL) {
        return NULL;
    }
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->used = true;
    memcpy(free_slot->ns, ns, MERO_NS_ID_LEN);
    return free_slot;
}

static void prompt(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    char topic[MERO_NS_TOPIC_SIZE];
    struct mero_buf b;
    mero__node_topic(topic, ns);
    mero_buf_init(&b, MERO_ADM_PROMPT_LEN);
    if (mero__adm_prompt_encode(&b) == 0) {
        int rc = mero_net_publish(a->env.net, topic, b.data, b.len);
        if (rc < 0 && rc != -MERO_ENOPEERS) {
            MERO_WARN("evidence refresh: publishing the prompt failed: %s", mero_strerror(rc));
        }
    }
    mero_buf_cleanup(&b);
    if (a->env.sync_namespace != NULL) {
        a->env.sync_namespace(a->env.ud, ns); /* the fresh evidence arrives sooner */
    }
}

/* One namespace: is our evidence there missing or due, and is it time to prompt again? */
static void check_ns(struct mero_evidence_retry *r, const uint8_t ns[MERO_NS_ID_LEN],
                     uint64_t now_unix, uint64_t now_ms)
{
    struct mero_admission *a = r->a;
    uint8_t pk[MERO_IDENTITY_LEN];
    char nsx[17];
    int role = MERO_ROLE_NONE;
    bool found = false;
    uint64_t at = 0;
    if (mero_gov_identity(a->env.store, ns, false, pk, NULL) < 0 ||
        mero_gov_direct_role(a->env.store, ns, pk, &role) < 0 || !mero_role_is_tee(role) ||
        mero_gov_evidence_at(a->env.store, ns, pk, &found, &at) < 0) {
        struct retry_ns *s = slot_of(r, ns, false);
        if (s != NULL) {
            s->used = false; /* no longer a TEE here (evicted, purged) */
        }
        return;
    }
    mero_hex_encode(nsx, ns, 8);
    bool due = !found || mero_gov_evidence_due(at, now_unix);
    struct retry_ns *s = slot_of(r, ns, due);
    if (!due) {
        if (s != NULL) {
            MERO_INFO("evidence refresh: namespace %s… has fresh evidence (after %u prompt%s)", nsx,
                      s->attempts, s->attempts == 1 ? "" : "s");
            mero__adm_pending_remove(&a->pending, ns);
            s->used = false;
        }
        return;
    }
    if (s == NULL || now_ms < s->next_ms) {
        return; /* no slot left (retried when one frees), or backing off */
    }
    /* answer the offer the prompt brings (peer.c on_offer answers only pending namespaces) */
    if (mero__adm_pending_register(&a->pending, ns, now_ms) < 0) {
        MERO_WARN("evidence refresh: too many namespaces are waiting for admission");
        return;
    }
    s->attempts++;
    unsigned shift = s->attempts - 1 < 16 ? s->attempts - 1 : 16;
    uint64_t wait = (uint64_t)r->check_ms << shift;
    uint64_t most = (uint64_t)r->check_ms * MAX_BACKOFF_MUL;
    s->next_ms = now_ms + (wait < most ? wait : most);
    MERO_INFO("evidence refresh: prompting on namespace %s… (attempt %u; evidence %s)", nsx,
              s->attempts,
              !found                                   ? "missing"
              : mero_gov_evidence_lapsed(at, now_unix) ? "lapsed"
                                                       : "due for a refresh");
    prompt(a, ns);
}

static void on_tick(uv_timer_t *t)
{
    struct mero_evidence_retry *r = t->data;
    struct mero_admission *a = r->a;
    if (a->closing) {
        return;
    }
    uint8_t(*nss)[MERO_NS_ID_LEN] = NULL;
    size_t n = 0;
    if (mero_gov_namespaces(a->env.store, &nss, &n) < 0) {
        return;
    }
    uint64_t now_unix = mero__adm_now_unix(a), now_ms = mero__adm_now(a);
    for (size_t i = 0; i < n; i++) {
        check_ns(r, nss[i], now_unix, now_ms);
    }
    free(nss);
}

int mero__adm_evidence_retry_start(struct mero_admission *a)
{
    if (a->env.loop == NULL || (!a->env.mock_tee && !mero_tsm_present())) {
        return 0; /* this node cannot quote: it is nobody's TEE */
    }
    struct mero_evidence_retry *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return -MERO_ENOMEM;
    }
    r->a = a;
    r->check_ms = a->env.evidence_check_ms ? a->env.evidence_check_ms : CHECK_MS_DEFAULT;
    if (uv_timer_init(a->env.loop, &r->timer) != 0) {
        free(r);
        return -MERO_EINTERNAL;
    }
    r->timer.data = r;
    (void)uv_timer_start(&r->timer, on_tick, r->check_ms, r->check_ms);
    a->evidence_retry = r;
    return 0;
}

static void retry_closed(uv_handle_t *h)
{
    free(h->data);
}

void mero__adm_evidence_retry_free(struct mero_admission *a)
{
    struct mero_evidence_retry *r = a->evidence_retry;
    if (r == NULL) {
        return;
    }
    a->evidence_retry = NULL;
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, retry_closed);
}
