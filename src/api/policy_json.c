/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy_json.c - the JSON shape of the TEE admission policy (reference-calimero.md §4.5): the
 * validated PUT body (mero__api_parse_policy's canonical object) becomes a struct mero_tee_policy
 * for the node, and a policy the node read becomes the GET shape, {"enabled": false, lists
 * empty} when none is set.
 *
 * Invariant: the canonical object is the one mero__api_parse_policy accepted (every list present,
 * strings only), so the conversion can fail only for memory.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

static const char *const list_names[] = {"allowedMrtd",  "allowedRtmr0", "allowedRtmr1",
                                         "allowedRtmr2", "allowedRtmr3", "allowedTcbStatuses"};

static int fill(struct mero_strlist *l, json_t *a)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        MERO_TRY(mero_strlist_push(l, json_string_value(v)));
    }
    return 0;
}

static json_t *list_json(const struct mero_strlist *l)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a != NULL && i < l->n; i++) {
        json_array_append_new(a, json_string(l->v[i]));
    }
    return a;
}

int mero__api_policy_from_json(json_t *canon, struct mero_tee_policy *p)
{
    memset(p, 0, sizeof(*p));
    json_t *sr = json_object_get(canon, "signedRelease");
    p->form = sr ? MERO_POLICY_RELEASE : MERO_POLICY_MEASUREMENT;
    p->v2 = true;
    p->mode = strcmp(json_string_value(json_object_get(canon, "mode")), "relay") == 0
                  ? MERO_TEE_MODE_RELAY
                  : MERO_TEE_MODE_REPLICA;
    p->accept_mock = json_is_true(json_object_get(canon, "acceptMock"));
    p->allow_sept_ve_enabled = json_is_false(json_object_get(canon, "requireSeptVeDisable"));
    p->allow_service_td = json_is_true(json_object_get(canon, "allowServiceTd"));
    MERO_TRY(fill(&p->mrtd, json_object_get(canon, list_names[0])));
    for (size_t i = 0; i < MERO_RTMR_COUNT; i++) {
        MERO_TRY(fill(&p->rtmr[i], json_object_get(canon, list_names[1 + i])));
    }
    MERO_TRY(fill(&p->tcb, json_object_get(canon, list_names[5])));
    if (sr != NULL) {
        MERO_TRY(fill(&p->profiles, json_object_get(sr, "allowedProfiles")));
        const char *mv = json_string_value(json_object_get(sr, "minReleaseVersion"));
        if (mv != NULL && (p->min_release = strdup(mv)) == NULL) {
            return -MERO_ENOMEM;
        }
    }
    return 0;
}

static json_t *disabled(void)
{
    return json_pack("{s:b, s:[], s:[], s:[], s:[], s:[], s:[], s:b}", "enabled", 0, "allowedMrtd",
                     "allowedRtmr0", "allowedRtmr1", "allowedRtmr2", "allowedRtmr3",
                     "allowedTcbStatuses", "acceptMock", 0);
}

json_t *mero__api_policy_json(const struct mero_tee_policy *p, bool found)
{
    if (!found) {
        return disabled();
    }
    json_t *o =
        json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}", "enabled", 1, "allowedMrtd",
                  list_json(&p->mrtd), "allowedRtmr0", list_json(&p->rtmr[0]), "allowedRtmr1",
                  list_json(&p->rtmr[1]), "allowedRtmr2", list_json(&p->rtmr[2]), "allowedRtmr3",
                  list_json(&p->rtmr[3]), "allowedTcbStatuses", list_json(&p->tcb), "acceptMock",
                  p->accept_mock, "mode", p->mode == MERO_TEE_MODE_RELAY ? "relay" : "replica");
    if (o != NULL) {
        json_object_set_new(o, "requireSeptVeDisable", json_boolean(!p->allow_sept_ve_enabled));
        json_object_set_new(o, "allowServiceTd", json_boolean(p->allow_service_td));
    }
    if (o != NULL && p->form == MERO_POLICY_RELEASE) {
        json_t *sr = json_pack("{s:o}", "allowedProfiles", list_json(&p->profiles));
        if (p->min_release != NULL) {
            json_object_set_new(sr, "minReleaseVersion", json_string(p->min_release));
        }
        json_object_set_new(o, "signedRelease", sr);
    }
    return o;
}
