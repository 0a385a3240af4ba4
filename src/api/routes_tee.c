/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_tee.c - the /admin-api/tee routes: info, attest (public), registration-attest and
 * fleet-join (protected), with the request fields, response fields, error texts and statuses of
 * reference-calimero.md §4.1-§4.4.
 *
 * Invariants: report data is always nonce || binding computed here from validated input
 * (never caller bytes); a quote is answered only as the node produced it; a mock quote is
 * produced only under --mock-tee, and never comes with an event log. There are no
 * applications in mero, so any applicationId answers 404 "Application '<id>' not found"
 * (docs/api.md). The fleet join runs in the node's admission layer (mero_node_fleet_join);
 * it answers asynchronously, so the connection stays suspended until it finishes, and its
 * result becomes the reference's JSON here (mero__api_fleet_join_json). Its progress is read
 * meanwhile with GET /admin-api/tee/fleet-join/:groupId/progress (an extension, issue 18).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/binding.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/node.h"

#define QUOTE_JSON_MAX (1u << 20) /* a parsed quote (or mock) as JSON */
#define NO_TDX_MSG     "TDX attestation generation is only supported on Linux with TDX hardware"

static void tee_info(struct api_req *r, json_t *body)
{
    (void)body;
    if (mero_node_tee_mode(r->node) == MERO_TEE_NONE) {
        mero__api_refuse(r, MERO_EUNSUPPORTED, NO_TDX_MSG);
        return;
    }
    char cloud[MERO_NODE_CLOUD_MAX], os[MERO_NODE_OS_MAX], mrtd[MERO_HEX_SIZE(MERO_MR_LEN)];
    mero_node_tee_info(r->node, cloud, os, mrtd);
    mero__api_reply_data(
        r, 200, json_pack("{s:s, s:s, s:s}", "cloudProvider", cloud, "osImage", os, "mrtd", mrtd));
}

struct attest_ctx {
    struct api_req *r;
    struct api_attest_req a;
    bool registration;
};

static json_t *quote_json(const uint8_t *q, size_t len, struct mero_err *err)
{
    struct mero_buf b;
    struct mero_quote pq;
    json_t *v = NULL;
    int rc;
    mero_buf_init(&b, QUOTE_JSON_MAX);
    if (mero_mock_is_mock(q, len)) {
        MERO_TRY_OUT(mero_mock_to_json(q, len, &b));
    } else {
        MERO_TRY_OUT(mero_quote_parse(&pq, q, len, err));
        MERO_TRY_OUT(mero_quote_to_json(&pq, &b));
    }
    v = json_loadb((const char *)b.data, b.len, 0, NULL);
out:
    mero_buf_cleanup(&b);
    return v;
}

/* The attest reply's optional members into data: 0, or the code of a refusal (a positive
 * mero_err code; its status is errmap.c's) and, in *why, its message. */
static int add_extras(struct attest_ctx *c, const struct mero_node_quote *res, bool mock,
                      json_t *data, const char **why)
{
    struct mero_node *node = c->r->node;
    uint8_t pk[MERO_IDENTITY_LEN], tk[MERO_X25519_LEN];
    if (c->a.bind_node) {
        mero_node_identity(node, pk);
        json_object_set_new(data, "boundPublicKey", mero_json_hex(pk, sizeof(pk)));
    }
    if (c->a.bind_transport) {
        mero_node_transport_key(node, tk);
        json_object_set_new(data, "transportPublicKey", mero_json_hex(tk, sizeof(tk)));
    }
    if (c->a.include_collateral) {
        json_t *coll = json_null();
        if (!mock) {
            coll = res->collateral_json
                       ? json_loadb(res->collateral_json, res->collateral_len, 0, NULL)
                       : NULL;
        }
        if (coll == NULL) {
            /* no verdict without the collateral asked for: fail, never omit it */
            *why = "collateral could not be fetched";
            return MERO_ECOLLATERAL_FETCH; /* 502: the collateral's source failed us */
        }
        json_object_set_new(data, "collateral", coll);
    }
    if (c->a.event_log) {
        char *log = res->event_log ? mero_base64_encode(res->event_log, res->event_log_len) : NULL;
        if (log == NULL || mock) {
            free(log);
            *why = "the event log could not be read";
            return mock ? MERO_EINVAL : MERO_EINTERNAL;
        }
        json_object_set_new(data, "eventLogB64", json_string(log));
        free(log);
    }
    return 0;
}

/* The node's quote (or its failure) as the reply to an attest request: exactly one reply. */
static void attest_reply(struct attest_ctx *c, int rc, const struct mero_node_quote *res,
                         const struct mero_err *err)
{
    const uint8_t *q = res ? res->quote : NULL;
    size_t len = res ? res->len : 0;
    struct api_req *r = c->r;
    if (rc == -MERO_EUNSUPPORTED) {
        mero__api_refuse(r, MERO_EUNSUPPORTED, NO_TDX_MSG);
        return;
    }
    if (rc < 0) {
        mero__api_refuse(r, MERO_EINTERNAL, "%s",
                         err && err->msg[0] ? err->msg : mero_errdesc(-rc));
        return;
    }
    bool mock = mero_mock_is_mock(q, len);
    if (mock && mero_node_tee_mode(r->node) != MERO_TEE_MOCK) {
        /* fail closed: mock only under --mock-tee */
        mero__api_refuse(r, MERO_EUNSUPPORTED, NO_TDX_MSG);
        return;
    }
    struct mero_err qe = {0};
    json_t *qj = quote_json(q, len, &qe);
    char *b64 = mero_base64_encode(q, len);
    if (qj == NULL || b64 == NULL) {
        json_decref(qj);
        free(b64);
        mero__api_refuse(r, MERO_EINTERNAL, "generated quote does not parse: %s", qe.msg);
        return;
    }
    json_t *data = json_pack("{s:s, s:o}", "quoteB64", b64, "quote", qj);
    free(b64); /* json_pack copied it */
    const char *why = NULL;
    int code = c->registration ? 0 : add_extras(c, res, mock, data, &why);
    if (code != 0) {
        json_decref(data);
        mero__api_refuse(r, code, "%s", why);
        return;
    }
    mero__api_reply_data(r, 200, data);
}

static void attest_done(void *vctx, int rc, const struct mero_node_quote *res,
                        const struct mero_err *err)
{
    struct attest_ctx *c = vctx;
    attest_reply(c, rc, res, err);
    free(c);
}

static void start_quote(struct attest_ctx *c, const uint8_t rd[MERO_REPORT_DATA_LEN])
{
    struct api_req *r = c->r;
    unsigned extras = 0;
    if (!c->registration && c->a.event_log) {
        extras |= MERO_NODE_QUOTE_EVENT_LOG;
    }
    if (!c->registration && c->a.include_collateral) {
        extras |= MERO_NODE_QUOTE_COLLATERAL;
    }
    int rc = mero_node_tee_quote(r->node, rd, extras, attest_done, c);
    if (rc == -MERO_EUNSUPPORTED) {
        mero__api_refuse(r, MERO_EUNSUPPORTED, NO_TDX_MSG);
        free(c);
    } else if (rc == -MERO_EQUOTE_MOCK) {
        mero__api_refuse(r, MERO_EINVAL, "eventLog is not available for a mock quote");
        free(c);
    } else if (rc < 0) {
        mero__api_refuse(r, MERO_EINTERNAL, "quote generation failed: %s", mero_errdesc(-rc));
        free(c);
    }
}

/* The state of one attest request (freed by start_quote's callback or on refusal); NULL, with
 * the 500 answered, when out of memory. */
static struct attest_ctx *attest_ctx_new(struct api_req *r, bool registration)
{
    struct attest_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return NULL;
    }
    c->r = r;
    c->registration = registration;
    return c;
}

static void tee_attest(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    struct attest_ctx *c = attest_ctx_new(r, false);
    if (c == NULL) {
        return;
    }
    if (mero__api_parse_attest(body, &c->a, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        free(c);
        return;
    }
    if (c->a.has_app) {
        mero__api_refuse(r, MERO_ENOTFOUND, "Application '%s' not found", c->a.app_id);
        free(c);
        return;
    }
    uint8_t spki[MERO_SHA256_LEN];
    const char *tls_cert, *tls_key;
    if (c->a.bind_tls && !mero_node_tls(r->node, &tls_cert, &tls_key, spki)) {
        mero__api_refuse(r, MERO_ESTATE,
                         "bindTlsKey requires an attested TLS certificate; none is "
                         "configured");
        free(c);
        return;
    }
    if (mero_node_tee_mode(r->node) == MERO_TEE_NONE) {
        mero__api_refuse(r, MERO_EUNSUPPORTED, NO_TDX_MSG);
        free(c);
        return;
    }
    if (c->a.event_log && mero_node_tee_mode(r->node) == MERO_TEE_MOCK) {
        mero__api_refuse(r, MERO_EINVAL, "eventLog is not available for a mock quote");
        free(c);
        return;
    }
    uint8_t inner[MERO_APP_HASH_LEN], suffix[MERO_APP_HASH_LEN], rd[MERO_REPORT_DATA_LEN];
    uint8_t pk[MERO_IDENTITY_LEN], tk[MERO_X25519_LEN];
    const uint8_t *inner_p = NULL;
    mero_node_identity(r->node, pk);
    mero_node_transport_key(r->node, tk);
    if (c->a.bind_node) {
        mero_attest_key_binding(inner, NULL, pk);
        inner_p = inner;
    }
    (void)mero_attest_report_data_suffix(suffix, inner_p, c->a.bind_tls ? spki : NULL,
                                         c->a.bind_transport ? tk : NULL);
    mero_report_data(rd, c->a.nonce, suffix);
    start_quote(c, rd);
}

static void tee_registration_attest(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    struct attest_ctx *c = attest_ctx_new(r, true);
    if (c == NULL) {
        return;
    }
    if (mero__api_parse_registration(body, c->a.nonce, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        free(c);
        return;
    }
    uint8_t binding[MERO_APP_HASH_LEN], rd[MERO_REPORT_DATA_LEN];
    mero_attest_registration_binding(binding);
    mero_report_data(rd, c->a.nonce, binding);
    start_quote(c, rd);
}

json_t *mero__api_fleet_join_json(const struct mero_fleet_join_result *res)
{
    json_t *o = json_object(), *list = json_array(), *refs = json_array();
    if (o == NULL || list == NULL || refs == NULL) {
        json_decref(o);
        json_decref(list);
        json_decref(refs);
        return NULL;
    }
    for (size_t i = 0; i < res->ncontexts; i++) {
        json_array_append_new(list, mero_json_hex(res->contexts[i], MERO_CONTEXT_ID_LEN));
    }
    for (size_t i = 0; i < res->nrefusals; i++) {
        json_t *r = json_pack("{s:s,s:s}", "peer", res->refusals[i].peer, "reason",
                              res->refusals[i].reason);
        if (r != NULL) {
            json_array_append_new(refs, r);
        }
    }
    json_object_set_new(o, "status", json_string(res->admitted ? "joined" : "announced"));
    json_object_set_new(o, "group_id", mero_json_hex(res->ns, sizeof(res->ns)));
    json_object_set_new(o, "namespace_id", mero_json_hex(res->ns, sizeof(res->ns)));
    json_object_set_new(o, "public_key", mero_json_hex(res->pk, sizeof(res->pk)));
    json_object_set_new(o, "account", mero_json_hex(res->account, sizeof(res->account)));
    json_object_set_new(o, "admitted", json_boolean(res->admitted));
    json_object_set_new(o, "auto_follow_enabled", json_boolean(res->auto_follow));
    json_object_set_new(o, "contexts_joined", list);
    json_object_set_new(o, "admitted_by",
                        res->admitted_by ? json_string(res->admitted_by) : json_null());
    json_object_set_new(o, "refusals", refs);
    return o;
}

static void fleet_join_done(void *ctx, int rc, const struct mero_fleet_join_result *res,
                            const struct mero_err *err)
{
    struct api_req *r = ctx;
    if (rc < 0 || res == NULL) {
        mero__api_reply_err(r, rc < 0 ? rc : -MERO_EINTERNAL, err);
        return;
    }
    json_t *d = mero__api_fleet_join_json(res);
    if (d == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    mero__api_reply_data(r, 200, d);
}

static void tee_fleet_join(struct api_req *r, json_t *body)
{
    struct mero_err f = {0};
    struct api_fleet_join_req *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    if (mero__api_parse_fleet_join(body, j, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        free(j);
        return;
    }
    const char *addrs[API_MAX_ADMITTERS];
    for (size_t i = 0; i < j->nadmitters; i++) {
        addrs[i] = j->admitters[i];
    }
    struct mero_err err = {0};
    int rc =
        mero_node_fleet_join(r->node, j->group_id, addrs, j->nadmitters, fleet_join_done, r, &err);
    free(j);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
    }
}

static const char *fj_state_name(enum mero_fleet_join_state st)
{
    switch (st) {
    case MERO_FJ_ASKING:
        return "asking";
    case MERO_FJ_PROMPTED:
        return "prompted";
    case MERO_FJ_CHALLENGED:
        return "challenged";
    case MERO_FJ_ANSWERED:
        return "answered";
    case MERO_FJ_ADMITTED:
        return "admitted";
    case MERO_FJ_REFUSED:
        return "refused";
    }
    return "starting";
}

static json_t *fj_step_json(const struct mero_fleet_join_step *st)
{
    return json_pack("{s:s, s:s, s:I, s:s}", "state", fj_state_name(st->state), "peer", st->peer,
                     "seq", (json_int_t)st->seq, "reason", st->reason);
}

/* Extension (issue 18): GET /admin-api/tee/fleet-join/:groupId/progress -> the current state of
 * the join for groupId (state, peer, seq, reason), whether it still runs, and its last steps. */
static void tee_fleet_join_progress(struct api_req *r, json_t *body)
{
    (void)body;
    struct mero_err err = {0};
    uint8_t g[MERO_GROUP_ID_LEN];
    if (mero__api_parse_id32(r->params[0], g, "groupId", &err) < 0) {
        mero__api_reply_err(r, -err.code, &err);
        return;
    }
    struct mero_fleet_join_progress *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    int rc = mero_node_fleet_join_progress(r->node, g, p, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        free(p);
        return;
    }
    static const struct mero_fleet_join_step none = {0};
    json_t *d = p->nsteps > 0 ? fj_step_json(&p->steps[p->nsteps - 1]) : fj_step_json(&none);
    json_t *steps = json_array();
    for (size_t i = 0; i < p->nsteps && steps != NULL; i++) {
        json_array_append_new(steps, fj_step_json(&p->steps[i]));
    }
    bool running = p->running;
    free(p);
    if (d == NULL || steps == NULL) {
        json_decref(d);
        json_decref(steps);
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    json_object_set_new(d, "running", json_boolean(running));
    json_object_set_new(d, "steps", steps);
    mero__api_reply_data(r, 200, d);
}

const struct api_route mero__api_routes_tee[] = {
    {API_GET, "/admin-api/tee/info", false, false, tee_info},
    {API_POST, "/admin-api/tee/attest", false, true, tee_attest},
    {API_POST, "/admin-api/tee/registration-attest", true, true, tee_registration_attest},
    {API_POST, "/admin-api/tee/fleet-join", true, true, tee_fleet_join},
    {API_GET, "/admin-api/tee/fleet-join/:groupId/progress", true, false, tee_fleet_join_progress},
    {0, NULL, false, false, NULL},
};
