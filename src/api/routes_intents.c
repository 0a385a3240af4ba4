/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_intents.c - the relay's route (issue 15, docs/relay.md, docs/api.md "Intents"):
 * POST /admin-api/contexts/:context_id/intents {"intent": "<base64>"} (protected) hands a
 * member's signed intent to mero_node_relay_intent and answers 200
 * {"data": {"deltaId", "intentId", "author"}} once the relayed delta is committed (or, issue
 * 30, at once with the copy that counts when the intent is already counted here); every refusal
 * goes through the API's error table (400 malformed, 403 standing or rule, 404 unknown context,
 * 409 replayed: another intent with the same (author, nonce)).
 *
 * Test-only (merod run --test): POST /admin-api/test/contexts/:context_id/intents/forge with the
 * same body builds and publishes a relayed delta with this node as executor, skipping every
 * check, so the e2e suite can show that peers refuse a relayed delta a replica made.
 *
 * Invariant: the intent's value never appears in a reply or the log.
 */
#include <stdlib.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/intent.h"
#include "mero/node.h"

/* {"intent": "<standard base64, padded>"} -> its bytes (owned); 0, or -MERO_EINVAL after
 * replying 400. */
static int intent_body(struct api_req *r, json_t *body, uint8_t **bytes, size_t *len)
{
    static const char *const allowed[] = {"intent", NULL};
    struct mero_err f = {0};
    json_t *v = json_object_get(body, "intent");
    if (mero__api_check_fields(body, allowed, &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return -MERO_EINVAL;
    }
    if (!json_is_string(v)) {
        mero__api_refuse(r, MERO_EINVAL, "`intent` must be a base64 string");
        return -MERO_EINVAL;
    }
    int rc = mero_base64_decode_alloc(json_string_value(v), json_string_length(v),
                                      MERO_INTENT_MAX_LEN, bytes, len);
    if (rc == -MERO_ETOOBIG) {
        mero__api_refuse(r, MERO_EINVAL, "`intent` is longer than an intent may be (%u bytes)",
                         (unsigned)MERO_INTENT_MAX_LEN);
        return -MERO_EINVAL;
    }
    if (rc < 0) {
        mero__api_refuse(r, MERO_EINVAL, "`intent` is not standard padded base64");
        return -MERO_EINVAL;
    }
    return 0;
}

static void relay(struct api_req *r, json_t *body, bool force)
{
    uint8_t ctx[MERO_CONTEXT_ID_LEN];
    struct mero_err f = {0};
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (mero__api_parse_id32(r->params[0], ctx, "context_id", &f) < 0) {
        mero__api_reply_err(r, -f.code, &f);
        return;
    }
    if (intent_body(r, body, &bytes, &len) < 0) {
        return;
    }
    struct mero_node_relayed out;
    struct mero_err err = {0};
    int rc = mero_node_relay_intent(r->node, ctx, bytes, len, force, &out, &err);
    free(bytes);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    mero__api_reply_data(r, 200,
                         json_pack("{s:o, s:o, s:o}", "deltaId",
                                   mero_json_hex(out.delta_id, sizeof(out.delta_id)), "intentId",
                                   mero_json_hex(out.intent_id, sizeof(out.intent_id)), "author",
                                   mero_json_hex(out.author, sizeof(out.author))));
}

static void intents_post(struct api_req *r, json_t *body)
{
    relay(r, body, false);
}

static void intents_forge(struct api_req *r, json_t *body)
{
    if (!mero_node_test_mode(r->node)) {
        mero__api_refuse(r, MERO_ENOTFOUND, "no route for this path");
        return;
    }
    relay(r, body, true);
}

const struct api_route mero__api_routes_intents[] = {
    {API_POST, "/admin-api/contexts/:context_id/intents", true, true, intents_post},
    {API_POST, "/admin-api/test/contexts/:context_id/intents/forge", true, true, intents_forge},
    {0, NULL, false, false, NULL},
};
