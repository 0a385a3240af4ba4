/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gov_fixture.c - helpers for the governance tests and bench (see gov_fixture.h): in-memory
 * stores that record events, op-log sync, mock-quote admissions, stock policies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "support/gov_fixture.h"

static void record(void *ud, const struct mero_gov_event *e)
{
    struct govt_node *n = ud;
    if (n->nev >= GOVT_MAX_EVENTS) {
        return;
    }
    struct govt_event *g = &n->ev[n->nev++];
    memset(g, 0, sizeof(*g));
    g->kind = e->kind;
    g->role = e->role;
    g->for_us = e->for_us;
    if (e->group != NULL) {
        memcpy(g->group, e->group, 32);
    }
    if (e->member != NULL) {
        memcpy(g->member, e->member, 32);
    }
}

int govt_open(struct govt_node *n)
{
    memset(n, 0, sizeof(*n));
    if (mero_crypto_init() < 0) {
        return -MERO_ECRYPTO;
    }
    int rc = mero_store_open(":memory:", &n->s, NULL);
    if (rc < 0) {
        return rc;
    }
    struct mero_gov_hooks h = {.ud = n, .on_event = record};
    mero_store_set_hooks(n->s, &h);
    return 0;
}

void govt_close(struct govt_node *n)
{
    mero_store_close(n->s);
    n->s = NULL;
}

int govt_create_ns(struct govt_node *n)
{
    struct mero_gov_oplist l = {0};
    int rc = mero_gov_create_namespace(n->s, n->ns, &l, NULL);
    mero_gov_oplist_cleanup(&l);
    if (rc == 0) {
        rc = mero_gov_identity(n->s, n->ns, false, n->pk, NULL);
    }
    return rc;
}

int govt_owner_and_admin(struct govt_node *a, struct govt_node *b, struct mero_gov_oplist *l,
                         struct mero_err *err)
{
    MERO_TRY(govt_open(a));
    MERO_TRY(govt_create_ns(a));
    MERO_TRY(govt_open(b));
    memcpy(b->ns, a->ns, sizeof(b->ns));
    MERO_TRY(mero_gov_identity(b->s, a->ns, true, b->pk, err));
    return mero_gov_change_admin(a->s, a->ns, b->pk, l, err);
}

int govt_sync(struct govt_node *from, struct govt_node *to, const uint8_t ns[32],
              struct mero_err *err)
{
    uint8_t(*h)[32] = NULL;
    size_t n = 0;
    uint64_t last = 0;
    int rc = mero_gov_op_hashes(from->s, ns, 0, SIZE_MAX, &h, &n, &last);
    int applied = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct mero_buf b;
        int st = 0;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        rc = mero_gov_op_get(from->s, h[i], &b);
        if (rc == 0) {
            rc = mero_gov_apply(to->s, b.data, b.len, &st, NULL, NULL, err);
        }
        if (rc < 0 && st == MERO_APPLY_REJECTED) {
            rc = 0; /* kept without effect, as a real sync moves on past it */
        }
        if (rc == 0 && st == MERO_APPLY_APPLIED) {
            applied++;
        }
        mero_buf_cleanup(&b);
    }
    free(h);
    return rc < 0 ? rc : applied;
}

/* n's dump into *out (16 MiB at most). */
static bool dump_of(struct govt_node *n, struct mero_buf *out)
{
    mero_buf_init(out, 16u << 20);
    return mero_gov_dump(n->s, out) == 0;
}

static bool same_bytes(const struct mero_buf *x, const struct mero_buf *y)
{
    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

bool govt_dumps_equal(struct govt_node *a, struct govt_node *b)
{
    struct mero_buf x, y;
    bool ax = dump_of(a, &x), by = dump_of(b, &y); /* both initialised for the cleanup */
    bool eq = ax && by && same_bytes(&x, &y);
    mero_buf_cleanup(&x);
    mero_buf_cleanup(&y);
    return eq;
}

bool govt_matches_rebuild(struct govt_node *n)
{
    struct mero_buf x, y;
    struct mero_err e = {0};
    bool eq = dump_of(n, &x);
    eq = eq && mero_gov_rebuild(n->s, &e) == 0;
    eq = dump_of(n, &y) && eq && same_bytes(&x, &y);
    mero_buf_cleanup(&x);
    mero_buf_cleanup(&y);
    return eq;
}

int govt_apply_list(struct govt_node *to, const struct mero_gov_oplist *l, struct mero_err *err)
{
    for (size_t i = 0; i < l->n; i++) {
        int rc = mero_gov_apply(to->s, l->v[i].data, l->v[i].len, NULL, NULL, NULL, err);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

size_t govt_count(const struct govt_node *n, int kind, const uint8_t *member)
{
    size_t c = 0;
    for (size_t i = 0; i < n->nev; i++) {
        if (n->ev[i].kind == kind && (member == NULL || memcmp(n->ev[i].member, member, 32) == 0)) {
            c++;
        }
    }
    return c;
}

void govt_clear_events(struct govt_node *n)
{
    n->nev = 0;
}

void govt_meas(char out[97], uint8_t b)
{
    for (int i = 0; i < 48; i++) {
        snprintf(out + 2 * i, 3, "%02x", b);
    }
}

uint64_t govt_seed(const char *env)
{
    const char *v = getenv(env);
    uint64_t seed = v != NULL ? strtoull(v, NULL, 0) : 0;
    if (seed == 0) {
        uint8_t r[8];
        mero_random(r, sizeof(r));
        memcpy(&seed, r, sizeof(seed));
        seed = (seed >> 1) | 1;
    }
    return seed;
}

uint64_t govt_rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

bool govt_same_buf(const struct mero_buf *x, const struct mero_buf *y)
{
    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

int govt_root_role(struct govt_node *n, const uint8_t ns[32], const uint8_t who[32])
{
    int r = -1;
    return mero_gov_direct_role(n->s, ns, who, &r) < 0 ? -1 : r;
}

int govt_policy(struct mero_tee_policy *p, int mode, bool accept_mock)
{
    char m[97];
    memset(p, 0, sizeof(*p));
    p->form = MERO_POLICY_MEASUREMENT;
    p->v2 = true;
    p->mode = mode;
    p->accept_mock = accept_mock;
    govt_meas(m, 0);
    int rc = mero_strlist_push(&p->mrtd, m);
    for (int i = 1; i < 4 && rc == 0; i++) {
        rc = mero_strlist_push(&p->rtmr[i], m);
    }
    return rc;
}

int govt_tee_open(struct govt_tee *t, const uint8_t ns[32])
{
    memset(t, 0, sizeof(*t));
    int rc = govt_open(&t->node);
    if (rc == 0) {
        memcpy(t->node.ns, ns, 32);
        rc = mero_gov_identity(t->node.s, ns, true, t->node.pk, NULL);
    }
    if (rc == 0) {
        rc = mero_gov_credential(t->node.s, ns, &t->cred, NULL);
    }
    return rc;
}

void govt_tee_request(struct govt_tee *t, const uint8_t ns[32], const uint8_t group[32],
                      const uint8_t bind_group[32], struct mero_admit_request *req)
{
    uint8_t challenge[32], binding[32], rd[64];
    mero_random(challenge, 32);
    mero_admission_binding(binding, ns, bind_group, t->node.pk, t->cred.cert.account,
                           t->cred.cert.kem_pk, t->cred.cert.device);
    memcpy(rd, challenge, 32);
    memcpy(rd + 32, binding, 32);
    mero_mock_quote_create(t->quote, rd);
    t->quote_len = MERO_MOCK_QUOTE_LEN;
    memset(req, 0, sizeof(*req));
    memcpy(req->group_id, group, 32);
    memcpy(req->member, t->node.pk, 32);
    req->account = t->cred;
    mero_sha256(req->quote_hash, t->quote, t->quote_len);
    govt_meas(req->m.mrtd, 0);
    for (int i = 0; i < 4; i++) {
        govt_meas(req->m.rtmr[i], 0);
    }
    snprintf(req->tcb_status, sizeof(req->tcb_status), "Mock");
    req->is_mock = true;
    req->quote = t->quote;
    req->quote_len = t->quote_len;
    req->attested_at = 1000;
    req->now = 1000;
}

int govt_fake_rd(void *ud, const uint8_t *q, size_t n, uint8_t out[64], struct mero_err *err)
{
    (void)ud;
    if (n < 64) {
        return mero_err_set(err, MERO_ETRUNC, "short");
    }
    memcpy(out, q, 64);
    return 0;
}

int govt_release_ok(void *ud, const char *v, const struct mero_tee_policy *p,
                    const struct mero_measurements *m, char *matched, size_t cap,
                    struct mero_err *reason)
{
    (void)ud;
    (void)p;
    (void)m;
    if (strcmp(v, "2.3.87") != 0) {
        return mero_err_set(reason, MERO_ERELEASE, "release %s was never published", v);
    }
    if (matched != NULL) {
        snprintf(matched, cap, "%s", "locked-read-only");
    }
    return 0;
}

struct govt_evidence_cfg govt_evidence = {.tcb = "UpToDate", .advisories = ""};

int govt_evidence_verify(void *ud, const uint8_t *q, size_t qlen, const uint8_t *coll, size_t clen,
                         uint64_t at, struct mero_evidence_verdict *v, struct mero_err *err)
{
    (void)ud;
    (void)coll;
    (void)clen;
    (void)at;
    if (qlen < 64) {
        return mero_err_set(err, MERO_ETRUNC, "short");
    }
    memset(v, 0, sizeof(*v));
    snprintf(v->tcb_status, sizeof(v->tcb_status), "%s", govt_evidence.tcb);
    snprintf(v->advisories, sizeof(v->advisories), "%s", govt_evidence.advisories);
    govt_meas(v->m.mrtd, govt_evidence.mrtd_byte);
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        govt_meas(v->m.rtmr[i], 0);
    }
    memcpy(v->report_data, q, 64);
    return 0;
}

int govt_fake_td_report(void *ud, const uint8_t *q, size_t n, struct mero_td_report *out,
                        struct mero_err *err)
{
    (void)ud;
    if (n < GOVT_FAKE_QUOTE_MIN) {
        return mero_err_set(err, MERO_ETRUNC, "fake quote too short for a TD report");
    }
    memset(out, 0, sizeof(*out));
    memcpy(out->report_data, q, 64);
    memcpy(out->td_attributes, q + 64, 8);
    out->td15 = true;
    memcpy(out->mrservicetd, q + 72, 48);
    memcpy(out->mrtd, q + 120, 48);
    memcpy(out->rtmr, q + 168, 4 * 48);
    return 0;
}

void govt_fake_quote_facts(uint8_t *q, size_t n, const struct mero_admit_request *req)
{
    if (n < GOVT_FAKE_QUOTE_MIN) {
        return;
    }
    for (int i = 0; i < 8; i++) {
        q[64 + i] = (uint8_t)(req->td_attributes >> (8 * i));
    }
    memcpy(q + 72, req->mrservicetd, 48);
    const char *hex[5] = {req->m.mrtd, req->m.rtmr[0], req->m.rtmr[1], req->m.rtmr[2],
                          req->m.rtmr[3]};
    for (int i = 0; i < 5; i++) {
        if (mero_hex_decode_exact(q + 120 + 48 * i, 48, hex[i], strlen(hex[i])) < 0) {
            memset(q + 120 + 48 * i, 0, 48);
        }
    }
}

int govt_ns_with_root_tee(struct govt_node *owner, struct govt_tee *tee, int mode)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome;
    int rc = govt_open(owner);
    if (rc == 0) {
        rc = govt_create_ns(owner);
    }
    if (rc == 0) {
        rc = govt_policy(&p, mode, true);
        if (rc == 0) {
            rc = mero_gov_set_policy(owner->s, owner->ns, &p, NULL, NULL, NULL, NULL);
        }
        mero_tee_policy_cleanup(&p);
    }
    if (rc == 0) {
        rc = govt_tee_open(tee, owner->ns);
    }
    if (rc == 0) {
        govt_tee_request(tee, owner->ns, owner->ns, owner->ns, &req);
        rc = mero_gov_admit_tee_node(owner->s, owner->ns, &req, &outcome, NULL, NULL);
    }
    return rc;
}
