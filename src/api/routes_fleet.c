/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_fleet.c - GET /admin-api/groups/:group_id/fleet (issue 19, docs/fleet.md): this
 * node's view of a group's fleet - the policy in force (the GET tee-admission-policy shape),
 * one row per member with its TEE facts and evidence age, and the namespace's recent
 * admission attempts, newest first (?attempts=N, 0..1000, default 100). Protected. Also
 * (issue 35 item 6) PUT/DELETE .../members/:identity/label, the name this node shows for a
 * member (node/labels.c); a member's row carries "name" and "nameSource".
 *
 * Invariant: every field name of the document is here (the node hands over struct
 * mero_fleet); an absent value is JSON null, never an empty string or a zero time.
 */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/encoding.h"
#include "mero/node.h"

static const char *const path_names[] = {NULL, "prompt", "direct", "subgroup"};
static const char *const verdict_names[] = {"admitted", "refused", "no-verdict"};
static const char *const match_names[] = {"none", "policy", "profile"};
static const char *const seen_names[] = {NULL, "gossip", "sync", "self"};
static const char *const name_sources[] = {NULL, "label", "self", "announced"};
static const char *const evidence_names[] = {"none", "fresh", "lapsing", "lapsed"};

#define NAME_OF(t, i) ((i) >= 0 && (size_t)(i) < sizeof(t) / sizeof(t[0]) ? t[i] : NULL)

static json_t *str_or_null(const char *s)
{
    return s != NULL && s[0] != '\0' ? json_string(s) : json_null();
}

static json_t *time_or_null(bool has, uint64_t t)
{
    return has ? json_integer((json_int_t)t) : json_null();
}

static json_t *id_or_null(bool has, const uint8_t id[MERO_IDENTITY_LEN])
{
    return has ? mero_json_hex(id, MERO_IDENTITY_LEN) : json_null();
}

static json_t *measurements_json(const struct mero_measurements *m)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "mrtd", m->mrtd, "rtmr0", m->rtmr[0], "rtmr1",
                     m->rtmr[1], "rtmr2", m->rtmr[2], "rtmr3", m->rtmr[3]);
}

static json_t *matched_json(const struct mero_fleet_match *m)
{
    const char *kind = NAME_OF(match_names, m->kind);
    return json_pack("{s:s, s:o}", "kind", kind != NULL ? kind : "none", "name",
                     str_or_null(m->name));
}

static json_t *tee_json(const struct mero_fleet_member *m, uint64_t now)
{
    json_t *adv = json_array();
    /* gov keeps them comma-separated (IDs hold no comma) */
    for (const char *p = m->advisories; adv != NULL && *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        json_array_append_new(adv, json_stringn(p, n));
        p += n + (e != NULL);
    }
    json_t *o =
        json_pack("{s:o, s:o, s:s, s:o, s:o, s:o}", "measurements", measurements_json(&m->m),
                  "matched", matched_json(&m->matched), "tcbStatus", m->tcb_status, "advisoryIds",
                  adv, "quoteHash", mero_json_hex(m->quote_hash, MERO_QUOTE_HASH_LEN), "evidenceAt",
                  time_or_null(m->has_evidence_at, m->evidence_at));
    if (o == NULL) {
        return NULL;
    }
    uint64_t age = m->has_evidence_at && now > m->evidence_at ? now - m->evidence_at : 0;
    json_object_set_new(o, "evidenceAgeSeconds", time_or_null(m->has_evidence_at, age));
    json_object_set_new(
        o, "evidenceLapsesAt",
        time_or_null(m->has_evidence_at, m->evidence_at + MERO_GOV_EVIDENCE_MAX_AGE_SECS));
    const char *st = NAME_OF(evidence_names, m->evidence_state);
    json_object_set_new(o, "evidenceState", json_string(st != NULL ? st : "none"));
    return o;
}

static json_t *member_json(const struct mero_fleet_member *m, uint64_t now)
{
    json_t *o =
        json_pack("{s:o, s:s, s:b, s:o, s:o, s:o, s:o, s:o}", "identity",
                  mero_json_hex(m->identity, MERO_IDENTITY_LEN), "role", mero_role_name(m->role),
                  "isTee", m->is_tee, "admittedBy", id_or_null(m->has_admitted_by, m->admitted_by),
                  "admittedAt", time_or_null(m->has_admitted_at, m->admitted_at), "lastSeen",
                  time_or_null(m->last_seen_via != MERO_FLEET_SEEN_NONE, m->last_seen),
                  "lastSeenVia", str_or_null(NAME_OF(seen_names, m->last_seen_via)), "tee",
                  m->is_tee ? tee_json(m, now) : json_null());
    /* issue 35 item 6: the member's name, when this node knows one, and where it came from */
    if (o != NULL) {
        json_object_set_new(o, "name", str_or_null(m->name));
        json_object_set_new(
            o, "nameSource",
            str_or_null(m->name[0] != '\0' ? NAME_OF(name_sources, m->name_source) : NULL));
    }
    return o;
}

static json_t *attempt_json(const struct mero_fleet_attempt *a)
{
    const char *verdict = NAME_OF(verdict_names, a->verdict);
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "at",
                     (json_int_t)a->at, "identity", id_or_null(a->has_identity, a->identity),
                     "peerId", str_or_null(a->peer), "path",
                     str_or_null(NAME_OF(path_names, a->path)), "admitter",
                     id_or_null(a->has_admitter, a->admitter), "verdict",
                     verdict != NULL ? verdict : "no-verdict", "rule", str_or_null(a->rule),
                     "reason", str_or_null(a->reason), "measurements",
                     a->has_measurements ? measurements_json(&a->m) : json_null(), "matched",
                     a->has_measurements ? matched_json(&a->matched) : json_null(), "tcbStatus",
                     str_or_null(a->tcb_status));
}

static json_t *fleet_json(const struct mero_fleet *f)
{
    json_t *members = json_array(), *attempts = json_array();
    for (size_t i = 0; members != NULL && i < f->nmembers; i++) {
        json_array_append_new(members, member_json(&f->members[i], f->generated_at));
    }
    for (size_t i = 0; attempts != NULL && i < f->nattempts; i++) {
        json_array_append_new(attempts, attempt_json(&f->attempts[i]));
    }
    return json_pack(
        "{s:o, s:o, s:{s:o, s:s}, s:I, s:o, s:{s:I, s:I}, s:o, s:o}", "groupId",
        mero_json_hex(f->group, MERO_GROUP_ID_LEN), "namespaceId",
        mero_json_hex(f->ns, MERO_NS_ID_LEN), "viewOf", "identity",
        id_or_null(f->has_identity, f->identity), "peerId", f->peer_id, "generatedAt",
        (json_int_t)f->generated_at, "policy", mero__api_policy_json(&f->policy, f->policy_found),
        "evidence", "refreshSeconds", (json_int_t)MERO_GOV_EVIDENCE_REFRESH_SECS, "maxAgeSeconds",
        (json_int_t)MERO_GOV_EVIDENCE_MAX_AGE_SECS, "members", members, "attempts", attempts);
}

/* ?attempts=N: 0..MERO_FLEET_ATTEMPTS_KEEP, default MERO_FLEET_ATTEMPTS_DEFAULT. */
static int attempts_param(struct api_req *r, size_t *out)
{
    const char *s = mero__api_query_arg(r, "attempts");
    uint64_t v = MERO_FLEET_ATTEMPTS_DEFAULT;
    if (s != NULL && mero_parse_u64(s, MERO_FLEET_ATTEMPTS_KEEP, &v) < 0) {
        mero__api_refuse(r, MERO_EINVAL, "`attempts` must be a whole number from 0 to %u",
                         MERO_FLEET_ATTEMPTS_KEEP);
        return -MERO_EINVAL;
    }
    *out = (size_t)v;
    return 0;
}

static void fleet_get(struct api_req *r, json_t *body)
{
    (void)body;
    uint8_t group[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN];
    size_t max = 0;
    if (mero__api_group_param(r, 0, group, ns) < 0 || attempts_param(r, &max) < 0) {
        return;
    }
    struct mero_fleet f;
    struct mero_err err = {0};
    int rc = mero_node_fleet(r->node, group, max, &f, &err);
    json_t *out = rc == 0 ? fleet_json(&f) : NULL;
    mero_fleet_cleanup(&f);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    if (out == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    mero__api_reply_data(r, 200, out);
}

/* Issue 35 item 6: PUT .../members/:identity/label {"label": str} names a member on this node
 * (node.db, never replicated); DELETE forgets the name. 400 for a label that is empty, longer
 * than MERO_MEMBER_LABEL_MAX bytes, not UTF-8, holds a control character, or a body with any
 * other field; 404 for an unknown group or an identity that is not its member. */
static void label_set(struct api_req *r, json_t *label)
{
    uint8_t group[MERO_GROUP_ID_LEN], ns[MERO_NS_ID_LEN], id[MERO_IDENTITY_LEN];
    struct mero_err err = {0};
    if (mero__api_group_param(r, 0, group, ns) < 0) {
        return;
    }
    if (mero__api_parse_id32(r->params[1], id, "identity", &err) < 0) {
        mero__api_reply_err(r, -err.code, &err);
        return;
    }
    const char *text = label != NULL ? json_string_value(label) : NULL;
    if (text != NULL && mero_member_label_check(text, json_string_length(label), &err) < 0) {
        mero__api_reply_err(r, -err.code, &err);
        return;
    }
    int rc = mero_node_member_label_set(r->node, group, id, text, &err);
    if (rc < 0) {
        mero__api_reply_err(r, rc, &err);
        return;
    }
    json_t *out = json_pack("{s:o, s:o, s:o}", "groupId", mero_json_hex(group, MERO_GROUP_ID_LEN),
                            "identity", mero_json_hex(id, MERO_IDENTITY_LEN), "label",
                            text != NULL ? json_string(text) : json_null());
    if (out == NULL) {
        mero__api_refuse(r, MERO_ENOMEM, "out of memory");
        return;
    }
    mero__api_reply_data(r, 200, out);
}

static void label_put(struct api_req *r, json_t *body)
{
    json_t *label = json_object_get(body, "label");
    if (!json_is_string(label) || json_object_size(body) != 1) {
        mero__api_refuse(r, MERO_EINVAL, "the body is {\"label\": \"a name\"} (1 to %d bytes)",
                         MERO_MEMBER_LABEL_MAX);
        return;
    }
    label_set(r, label);
}

static void label_delete(struct api_req *r, json_t *body)
{
    (void)body;
    label_set(r, NULL);
}

const struct api_route mero__api_routes_fleet[] = {
    {API_GET, "/admin-api/groups/:group_id/fleet", true, false, fleet_get},
    {API_PUT, "/admin-api/groups/:group_id/members/:identity/label", true, true, label_put},
    {API_DELETE, "/admin-api/groups/:group_id/members/:identity/label", true, false, label_delete},
    {0, NULL, false, false, NULL},
};
