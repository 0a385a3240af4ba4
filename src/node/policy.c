/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.c - the node side of the TEE admission policy routes (reference-calimero.md §4.5):
 * the validated JSON body becomes a struct mero_tee_policy, gov re-validates it, signs the
 * TeeAdmissionPolicySet op (V2 with the mode; the release form when signedRelease was given)
 * on the namespace root and applies it, and the node publishes it. A subgroup target is
 * refused (spec: the policy lives on the root; subgroups resolve to it). GET reads the last
 * policy op through gov and reports enabled=false with empty lists when there is none.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/gov.h"
#include "node/node_internal.h"
#include "node/policy_internal.h"
#include "node/service_internal.h"

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

int mero_node_policy_set(struct mero_node *node, const uint8_t group[32], json_t *canon,
                         struct mero_err *err)
{
    uint8_t ns[32];
    if (mero_gov_namespace_of(node->store, group, ns) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "group not found");
    }
    if (memcmp(ns, group, 32) != 0) {
        return mero_err_set(err, MERO_EINVAL,
                            "the TEE admission policy is set on the namespace root, not a "
                            "subgroup");
    }
    struct mero_tee_policy p;
    memset(&p, 0, sizeof(p));
    json_t *sr = json_object_get(canon, "signedRelease");
    p.form = sr ? MERO_POLICY_RELEASE : MERO_POLICY_MEASUREMENT;
    p.v2 = true;
    p.mode = strcmp(json_string_value(json_object_get(canon, "mode")), "relay") == 0
                 ? MERO_TEE_MODE_RELAY
                 : MERO_TEE_MODE_REPLICA;
    p.accept_mock = json_is_true(json_object_get(canon, "acceptMock"));
    p.allow_sept_ve_enabled = json_is_false(json_object_get(canon, "requireSeptVeDisable"));
    p.allow_service_td = json_is_true(json_object_get(canon, "allowServiceTd"));
    int rc = fill(&p.mrtd, json_object_get(canon, list_names[0]));
    for (int i = 0; rc == 0 && i < 4; i++) {
        rc = fill(&p.rtmr[i], json_object_get(canon, list_names[1 + i]));
    }
    rc = rc ? rc : fill(&p.tcb, json_object_get(canon, list_names[5]));
    if (rc == 0 && sr != NULL) {
        rc = fill(&p.profiles, json_object_get(sr, "allowedProfiles"));
        const char *mv = json_string_value(json_object_get(sr, "minReleaseVersion"));
        if (rc == 0 && mv != NULL && (p.min_release = strdup(mv)) == NULL) {
            rc = -MERO_ENOMEM;
        }
    }
    struct mero_gov_oplist ops = {0};
    if (rc == 0) {
        rc = mero_gov_set_policy(node->store, group, &p, &ops, NULL, NULL, err);
    } else {
        (void)mero_err_set(err, -rc, "out of memory");
    }
    mero_tee_policy_cleanup(&p);
    if (rc == 0) {
        (void)mero_node_publish_ops(node, ns, &ops);
    }
    mero_gov_oplist_cleanup(&ops);
    return rc;
}

static json_t *disabled(void)
{
    return json_pack("{s:b, s:[], s:[], s:[], s:[], s:[], s:[], s:b}", "enabled", 0, "allowedMrtd",
                     "allowedRtmr0", "allowedRtmr1", "allowedRtmr2", "allowedRtmr3",
                     "allowedTcbStatuses", "acceptMock", 0);
}

int mero_node_policy_get(struct mero_node *node, const uint8_t group[32], json_t **out,
                         struct mero_err *err)
{
    uint8_t ns[32];
    if (mero_gov_namespace_of(node->store, group, ns) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "group not found");
    }
    struct mero_tee_policy p;
    bool found = false;
    memset(&p, 0, sizeof(p));
    MERO_TRY(mero_gov_read_policy(node->store, group, &p, &found, err));
    if (!found) {
        *out = disabled();
        return *out ? 0 : -MERO_ENOMEM;
    }
    json_t *o =
        json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}", "enabled", 1, "allowedMrtd",
                  list_json(&p.mrtd), "allowedRtmr0", list_json(&p.rtmr[0]), "allowedRtmr1",
                  list_json(&p.rtmr[1]), "allowedRtmr2", list_json(&p.rtmr[2]), "allowedRtmr3",
                  list_json(&p.rtmr[3]), "allowedTcbStatuses", list_json(&p.tcb), "acceptMock",
                  p.accept_mock, "mode", p.mode == MERO_TEE_MODE_RELAY ? "relay" : "replica");
    if (o != NULL) {
        json_object_set_new(o, "requireSeptVeDisable", json_boolean(!p.allow_sept_ve_enabled));
        json_object_set_new(o, "allowServiceTd", json_boolean(p.allow_service_td));
    }
    if (o != NULL && p.form == MERO_POLICY_RELEASE) {
        json_t *sr = json_pack("{s:o}", "allowedProfiles", list_json(&p.profiles));
        if (p.min_release != NULL) {
            json_object_set_new(sr, "minReleaseVersion", json_string(p.min_release));
        }
        json_object_set_new(o, "signedRelease", sr);
    }
    mero_tee_policy_cleanup(&p);
    if (o == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}
