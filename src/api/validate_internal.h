/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate_internal.h - pure validators for admin API request bodies and path parameters: no node,
 * no I/O, so tests/fuzz/fuzz_api_body.c drives them directly. Each returns 0 and fills its output,
 * or a negative mero_err code with the reason in a struct mero_err (MERO_EINVAL, 400 through the
 * API's error table, unless said otherwise) and a message naming the field.
 */
#ifndef MERO_API_VALIDATE_H
#define MERO_API_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mero/err.h"
#include "mero/release.h"
#include "mero/sizes.h"

#define API_MAX_ADMITTERS   16
#define API_MULTIADDR_MAX   256
#define API_APP_ID_MAX      128
#define API_KV_KEY_MAX      256
#define API_KV_VALUE_MAX    (16u * 1024u)
#define API_POLICY_LIST_MAX 64
/* a release profile's name in a policy body, in chars: the longest a release file can carry (a
 * longer one could never match, so it is refused when the policy is set) */
#define API_PROFILE_NAME_CHARS_MAX (MERO_RELEASE_NAME_MAX - 1)

/* Strict JSON: duplicate keys refused, one object, nothing after it. Empty body = {}. */
MERO_MUST_CHECK int mero__api_parse_body(const char *p, size_t n, json_t **out, struct mero_err *f);
/* Refuse any member of obj not named in allowed (NULL-terminated). */
MERO_MUST_CHECK int mero__api_check_fields(json_t *obj, const char *const *allowed,
                                           struct mero_err *f);
/*
 * The spec chapter's snake_case spellings (issue 35): every member of obj whose name is
 * lowercase snake_case (`allowed_mrtd`) and whose camelCase form (`allowedMrtd`) is in allowed
 * is renamed to that form, in place, so the checks that follow see one spelling. A body giving
 * both spellings of one field is refused (EINVAL, naming both). Answers keep camelCase.
 */
MERO_MUST_CHECK int mero__api_accept_snake(json_t *obj, const char *const *allowed,
                                           struct mero_err *f);
/* 64 hex chars (either case) -> 32 bytes; what names the value in the message. */
MERO_MUST_CHECK int mero__api_parse_id32(const char *s, uint8_t out[MERO_GROUP_ID_LEN],
                                         const char *what, struct mero_err *f);

struct api_attest_req {
    uint8_t nonce[MERO_NONCE_LEN];
    bool has_app;
    char app_id[API_APP_ID_MAX];
    bool bind_node, bind_tls, bind_transport, include_collateral, event_log;
};
/* POST /tee/attest (reference-calimero.md §4.2; deny_unknown_fields). */
MERO_MUST_CHECK int mero__api_parse_attest(json_t *body, struct api_attest_req *out,
                                           struct mero_err *f);
/* POST /tee/registration-attest: {nonce} only. */
MERO_MUST_CHECK int mero__api_parse_registration(json_t *body, uint8_t nonce[MERO_NONCE_LEN],
                                                 struct mero_err *f);

struct api_fleet_join_req {
    uint8_t group_id[MERO_GROUP_ID_LEN];
    char admitters[API_MAX_ADMITTERS][API_MULTIADDR_MAX];
    size_t nadmitters;
};
/* POST /tee/fleet-join (§4.4): groupId 64 hex, admitterAddrs multiaddrs ending /p2p/<id>. */
MERO_MUST_CHECK int mero__api_parse_fleet_join(json_t *body, struct api_fleet_join_req *out,
                                               struct mero_err *f);

/*
 * PUT /groups/:id/settings/tee-admission-policy (§4.5). On success *canon is a new object in
 * the GET shape (lists lowercased, acceptMock, signedRelease when that form, mode).
 */
MERO_MUST_CHECK int mero__api_parse_policy(json_t *body, json_t **canon, struct mero_err *f);

enum api_role { API_ROLE_ADMIN = 0, API_ROLE_MEMBER = 1, API_ROLE_READONLY = 2 };
struct api_member_req {
    uint8_t identity[MERO_IDENTITY_LEN];
    enum api_role role;
};
/* POST /groups/:id/members: identity 64 hex, role Admin|Member|ReadOnly (TEE roles refused). */
MERO_MUST_CHECK int mero__api_parse_member(json_t *body, struct api_member_req *out,
                                           struct mero_err *f);
/* PUT /groups/:id/members/:identity/role: {"role": "Admin"|"Member"|"ReadOnly"} (required;
 * a TEE role is refused with 403 TeeMemberRoleLocked, other values with 400). */
MERO_MUST_CHECK int mero__api_parse_role(json_t *body, enum api_role *out, struct mero_err *f);
/* POST /groups/:id/subgroups: visibility open|restricted (default open). 1 = open. */
MERO_MUST_CHECK int mero__api_parse_subgroup(json_t *body, int *open, struct mero_err *f);
/* PUT /contexts/:id/kv/:key body {value: string}; the key is checked by mero__api_check_kv_key. */
MERO_MUST_CHECK int mero__api_parse_kv(json_t *body, const char **value, size_t *len,
                                       struct mero_err *f);
MERO_MUST_CHECK int mero__api_check_kv_key(const char *key, struct mero_err *f);
/* Test-only POST /test/contexts/:id/forge/:key body {value: string, lamport?: integer >= 1}:
 * *lamport is 0 when absent (the node's next clock value is claimed). */
MERO_MUST_CHECK int mero__api_parse_forge(json_t *body, const char **value, size_t *len,
                                          uint64_t *lamport, struct mero_err *f);
/* Bodies that must be {} (namespaces, contexts, leave). */
MERO_MUST_CHECK int mero__api_parse_empty(json_t *body, struct mero_err *f);

/* A multiaddr we can dial: /ip4/A/tcp/P[/p2p/ID]; require_p2p demands the /p2p/ suffix. */
MERO_MUST_CHECK int mero__api_check_multiaddr(const char *s, bool require_p2p);

#endif
