/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate.c - every admin API request body is checked here, field by field, before any
 * handler acts on it: strict JSON (jansson with JSON_REJECT_DUPLICATES, one object, nothing
 * trailing), unknown fields refused (the reference's deny_unknown_fields on /tee/attest; we
 * refuse them on every body, failing closed), each value's type, length and alphabet.
 * Messages name the field and say what was expected; texts the reference fixes
 * (reference-calimero.md §4.2, §4.4, §4.5) are reproduced exactly.
 *
 * Invariant: outputs are written only on success; nothing here allocates except the
 * canonical policy object handed to the caller.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/validate_internal.h"
#include "mero/dcap.h"
#include "mero/encoding.h"
#include "mero/net.h"
#include "mero/release.h"
#include "mero/sizes.h"

/* The code of a refusal a callee already recorded in f; never 0 (a refusal is never success). */
static int failed(const struct mero_err *f)
{
    return f->code > 0 ? -f->code : -MERO_EINVAL;
}

int mero__api_parse_body(const char *p, size_t n, json_t **out, struct mero_err *f)
{
    if (n == 0) {
        *out = json_object();
        return *out ? 0 : mero_err_set(f, MERO_ENOMEM, "out of memory");
    }
    json_error_t je;
    json_t *v = json_loadb(p, n, JSON_REJECT_DUPLICATES, &je);
    if (v == NULL) {
        return mero_err_set(f, MERO_EINVAL, "request body is not valid JSON: %s", je.text);
    }
    if (!json_is_object(v)) {
        json_decref(v);
        return mero_err_set(f, MERO_EINVAL, "request body must be a JSON object");
    }
    *out = v;
    return 0;
}

/* snake (lowercase snake_case, with at least one '_') as camelCase into out; 0, or -MERO_EINVAL
 * when it is not such a name or does not fit */
static int snake_to_camel(const char *snake, char *out, size_t cap)
{
    size_t o = 0;
    bool up = false, any = false;
    if (!islower((unsigned char)snake[0])) {
        return -MERO_EINVAL;
    }
    for (const char *p = snake; *p != 0; p++) {
        if (*p == '_') {
            if (up || p[1] == 0) {
                return -MERO_EINVAL; /* "a__b", "a_" */
            }
            up = any = true;
            continue;
        }
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p)) {
            return -MERO_EINVAL;
        }
        if (o + 1 >= cap) {
            return -MERO_EINVAL;
        }
        out[o++] = up ? (char)toupper((unsigned char)*p) : *p;
        up = false;
    }
    out[o] = 0;
    return any ? 0 : -MERO_EINVAL;
}

#define API_FIELD_NAME_MAX 64 /* the longest field name we rename; longer ones are unknown */

int mero__api_accept_snake(json_t *obj, const char *const *allowed, struct mero_err *f)
{
    for (size_t i = 0; allowed[i] != NULL; i++) {
        const char *key;
        json_t *val;
        char camel[API_FIELD_NAME_MAX];
        json_object_foreach(obj, key, val)
        {
            if (snake_to_camel(key, camel, sizeof(camel)) == 0 && strcmp(camel, allowed[i]) == 0) {
                break;
            }
        }
        if (key == NULL) {
            continue;
        }
        if (json_object_get(obj, allowed[i]) != NULL) {
            return mero_err_set(f, MERO_EINVAL, "`%.60s` and `%s` are the same field; give it once",
                                key, allowed[i]);
        }
        json_incref(val);
        char snake[API_FIELD_NAME_MAX];
        snprintf(snake, sizeof(snake), "%s", key); /* key dies with the member */
        if (json_object_del(obj, snake) < 0 || json_object_set_new(obj, allowed[i], val) < 0) {
            return mero_err_set(f, MERO_ENOMEM, "out of memory");
        }
    }
    return 0;
}

int mero__api_check_fields(json_t *obj, const char *const *allowed, struct mero_err *f)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val)
    {
        (void)val;
        int ok = 0;
        for (size_t i = 0; allowed[i] != NULL; i++) {
            if (strcmp(key, allowed[i]) == 0) {
                ok = 1;
                break;
            }
        }
        if (!ok) {
            char list[160] = "";
            size_t off = 0;
            for (size_t i = 0; allowed[i] != NULL && off < sizeof(list); i++) {
                int w =
                    snprintf(list + off, sizeof(list) - off, "%s`%s`", i ? ", " : "", allowed[i]);
                if (w < 0) {
                    break;
                }
                off += (size_t)w;
            }
            return mero_err_set(f, MERO_EINVAL, "unknown field `%.60s`, expected one of %s", key,
                                list);
        }
    }
    return 0;
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)s[i])) {
            return 0;
        }
    }
    return 1;
}

int mero__api_parse_id32(const char *s, uint8_t out[MERO_GROUP_ID_LEN], const char *what,
                         struct mero_err *f)
{
    size_t n = strlen(s);
    if (!mero_hex_is(s, n, MERO_GROUP_ID_LEN) ||
        mero_hex_decode_exact(out, MERO_GROUP_ID_LEN, s, n) < 0) {
        return mero_err_set(f, MERO_EINVAL, "%s must be 64 hex chars (32 bytes)", what);
    }
    return 0;
}

/* optional bool: absent -> false */
static int get_bool(json_t *body, const char *name, bool *out, struct mero_err *f)
{
    json_t *v = json_object_get(body, name);
    if (v == NULL) {
        *out = false;
        return 0;
    }
    if (!json_is_boolean(v)) {
        return mero_err_set(f, MERO_EINVAL, "`%s` must be a boolean", name);
    }
    *out = json_is_true(v);
    return 0;
}

static int parse_nonce(json_t *body, uint8_t nonce[MERO_NONCE_LEN], struct mero_err *f)
{
    json_t *v = json_object_get(body, "nonce");
    if (v == NULL) {
        return mero_err_set(f, MERO_EINVAL, "missing field `nonce`");
    }
    if (!json_is_string(v)) {
        return mero_err_set(f, MERO_EINVAL, "Invalid nonce format (must be hex string)");
    }
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (strlen(s) != n || n % 2 != 0 || !is_hex(s, n)) {
        return mero_err_set(f, MERO_EINVAL, "Invalid nonce format (must be hex string)");
    }
    if (n != MERO_HEX_LEN(MERO_NONCE_LEN) ||
        mero_hex_decode_exact(nonce, MERO_NONCE_LEN, s, n) < 0) {
        return mero_err_set(f, MERO_EINVAL, "Nonce must be exactly 32 bytes (64 hex characters)");
    }
    return 0;
}

int mero__api_parse_attest(json_t *body, struct api_attest_req *out, struct mero_err *f)
{
    static const char *const allowed[] = {"nonce",
                                          "applicationId",
                                          "bindNodeKey",
                                          "bindTlsKey",
                                          "bindTransportKey",
                                          "includeCollateral",
                                          "eventLog",
                                          NULL};
    struct api_attest_req r;
    memset(&r, 0, sizeof(r));
    if (mero__api_accept_snake(body, allowed, f) < 0 ||
        mero__api_check_fields(body, allowed, f) < 0 || parse_nonce(body, r.nonce, f) < 0) {
        return failed(f);
    }
    json_t *app = json_object_get(body, "applicationId");
    if (app != NULL && !json_is_null(app)) {
        const char *s = json_string_value(app);
        if (s == NULL || s[0] == 0 || strlen(s) >= sizeof(r.app_id) ||
            strlen(s) != json_string_length(app)) {
            return mero_err_set(f, MERO_EINVAL,
                                "`applicationId` must be a non-empty string of at most %d bytes",
                                API_APP_ID_MAX - 1);
        }
        for (const char *c = s; *c; c++) {
            if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.') {
                return mero_err_set(f, MERO_EINVAL, "`applicationId` holds an invalid character");
            }
        }
        r.has_app = true;
        snprintf(r.app_id, sizeof(r.app_id), "%s", s);
    }
    if (get_bool(body, "bindNodeKey", &r.bind_node, f) < 0 ||
        get_bool(body, "bindTlsKey", &r.bind_tls, f) < 0 ||
        get_bool(body, "bindTransportKey", &r.bind_transport, f) < 0 ||
        get_bool(body, "includeCollateral", &r.include_collateral, f) < 0 ||
        get_bool(body, "eventLog", &r.event_log, f) < 0) {
        return failed(f);
    }
    *out = r;
    return 0;
}

int mero__api_parse_registration(json_t *body, uint8_t nonce[MERO_NONCE_LEN], struct mero_err *f)
{
    static const char *const allowed[] = {"nonce", NULL};
    uint8_t n[MERO_NONCE_LEN];
    if (mero__api_check_fields(body, allowed, f) < 0 || parse_nonce(body, n, f) < 0) {
        return failed(f);
    }
    memcpy(nonce, n, sizeof(n));
    return 0;
}

static int check_peer_id(const char *s)
{
    static const char b58[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    size_t n = strlen(s);
    if (n < 46 || n > 60) {
        return -MERO_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (strchr(b58, s[i]) == NULL) {
            return -MERO_EINVAL;
        }
    }
    return 0;
}

int mero__api_check_multiaddr(const char *s, bool require_p2p)
{
    char tmp[API_MULTIADDR_MAX];
    if (strlen(s) >= sizeof(tmp) || strncmp(s, "/ip4/", 5) != 0) {
        return -MERO_EINVAL;
    }
    snprintf(tmp, sizeof(tmp), "%s", s + 5);
    char *save = NULL;
    char *ip = strtok_r(tmp, "/", &save);
    char *tcp = strtok_r(NULL, "/", &save);
    char *port = strtok_r(NULL, "/", &save);
    char *p2p = strtok_r(NULL, "/", &save);
    char *id = strtok_r(NULL, "/", &save);
    char *extra = strtok_r(NULL, "/", &save);
    struct in_addr a;
    uint64_t pn;
    if (ip == NULL || inet_pton(AF_INET, ip, &a) != 1 || tcp == NULL || strcmp(tcp, "tcp") != 0 ||
        port == NULL || mero_parse_u64(port, 65535, &pn) < 0 || extra != NULL) {
        return -MERO_EINVAL;
    }
    if (p2p == NULL) {
        return require_p2p ? -MERO_EINVAL : 0;
    }
    if (strcmp(p2p, "p2p") != 0 || id == NULL || check_peer_id(id) < 0) {
        return -MERO_EINVAL;
    }
    /* the same parser the node dials with: a syntactically fine id the node cannot use
     * (a "Qm..." SHA-256 multihash carries no Ed25519 key) is bad input here, not a 500
     * later (issue 21 item 11) */
    char canon[MERO_MULTIADDR_STR_MAX], peer[MERO_PEER_ID_STR_MAX];
    if (mero_net_multiaddr_check(s, canon, peer) < 0 || peer[0] == 0) {
        return -MERO_EINVAL;
    }
    return 0;
}

int mero__api_parse_fleet_join(json_t *body, struct api_fleet_join_req *out, struct mero_err *f)
{
    static const char *const allowed[] = {"groupId", "admitterAddrs", NULL};
    if (mero__api_accept_snake(body, allowed, f) < 0 ||
        mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    json_t *g = json_object_get(body, "groupId");
    if (g == NULL) {
        return mero_err_set(f, MERO_EINVAL, "missing field `groupId`");
    }
    uint8_t id[MERO_GROUP_ID_LEN];
    if (!json_is_string(g) || json_string_length(g) != strlen(json_string_value(g)) ||
        mero__api_parse_id32(json_string_value(g), id, "group_id", f) < 0) {
        return mero_err_set(f, MERO_EINVAL, "group_id must be 64 hex chars (32 bytes)");
    }
    json_t *a = json_object_get(body, "admitterAddrs");
    size_t n = 0;
    if (a != NULL && !json_is_null(a)) {
        if (!json_is_array(a)) {
            return mero_err_set(f, MERO_EINVAL, "`admitterAddrs` must be an array of multiaddrs");
        }
        if (json_array_size(a) > API_MAX_ADMITTERS) {
            return mero_err_set(f, MERO_EINVAL, "`admitterAddrs` holds more than %d addresses",
                                API_MAX_ADMITTERS);
        }
        n = json_array_size(a);
        for (size_t i = 0; i < n; i++) {
            const char *s = json_string_value(json_array_get(a, i));
            if (s == NULL || mero__api_check_multiaddr(s, true) < 0) {
                return mero_err_set(
                    f, MERO_EINVAL,
                    "admitterAddrs[%zu] must be a multiaddr /ip4/<addr>/tcp/<port>/p2p/<peer id>",
                    i);
            }
        }
    }
    memcpy(out->group_id, id, sizeof(out->group_id));
    out->nadmitters = n;
    for (size_t i = 0; i < n; i++) {
        snprintf(out->admitters[i], API_MULTIADDR_MAX, "%s",
                 json_string_value(json_array_get(a, i)));
    }
    return 0;
}

static const char *const list_names[] = {"allowedMrtd",  "allowedRtmr0", "allowedRtmr1",
                                         "allowedRtmr2", "allowedRtmr3", "allowedTcbStatuses"};

/* A measurement list: array of 96-hex strings, lowercased into a new array. */
static int parse_list(json_t *body, size_t idx, json_t **out, struct mero_err *f)
{
    const char *name = list_names[idx];
    json_t *v = json_object_get(body, name);
    json_t *res = json_array();
    if (res == NULL) {
        return mero_err_set(f, MERO_ENOMEM, "out of memory");
    }
    if (v == NULL || json_is_null(v)) {
        *out = res;
        return 0;
    }
    if (!json_is_array(v)) {
        json_decref(res);
        return mero_err_set(f, MERO_EINVAL, "`%s` must be an array of strings", name);
    }
    if (json_array_size(v) > API_POLICY_LIST_MAX) {
        json_decref(res);
        return mero_err_set(f, MERO_EINVAL, "`%s` holds more than %d entries", name,
                            API_POLICY_LIST_MAX);
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *e = json_array_get(v, i);
        const char *s = json_string_value(e);
        if (s == NULL || strlen(s) != json_string_length(e)) {
            json_decref(res);
            return mero_err_set(f, MERO_EINVAL, "`%s[%zu]` must be a string", name, i);
        }
        if (idx == 5) {
            /* the names DCAP itself knows (attest/tcbinfo.c); Revoked is never allowable */
            enum mero_tcb_status st;
            if (mero_tcb_status_parse(s, &st) < 0 || st == MERO_TCB_REVOKED) {
                json_decref(res);
                if (strcasecmp(s, "Revoked") == 0) {
                    return mero_err_set(f, MERO_EINVAL,
                                        "`allowedTcbStatuses[%zu]`: Revoked is never allowed", i);
                }
                if (strcmp(s, "Mock") == 0) {
                    return mero_err_set(f, MERO_EINVAL,
                                        "`allowedTcbStatuses[%zu]`: use acceptMock for mock quotes",
                                        i);
                }
                return mero_err_set(f, MERO_EINVAL,
                                    "`allowedTcbStatuses[%zu]` is not a TCB status name", i);
            }
            json_array_append_new(res, json_string(s));
            continue;
        }
        char low[MERO_HEX_SIZE(MERO_MR_LEN)];
        if (!mero_hex_is(s, strlen(s), MERO_MR_LEN)) {
            json_decref(res);
            return mero_err_set(f, MERO_EINVAL, "`%s[%zu]` must be 96 hex characters (48 bytes)",
                                name, i);
        }
        for (size_t k = 0; k < MERO_MR_HEX_LEN; k++) {
            low[k] = (char)tolower((unsigned char)s[k]);
        }
        low[MERO_MR_HEX_LEN] = 0;
        json_array_append_new(res, json_string(low));
    }
    *out = res;
    return 0;
}

static int parse_release(json_t *sr, json_t **out, struct mero_err *f)
{
    static const char *const allowed[] = {"allowedProfiles", "minReleaseVersion", NULL};
    if (!json_is_object(sr)) {
        return mero_err_set(f, MERO_EINVAL, "`signedRelease` must be an object");
    }
    struct mero_err sub = {0};
    if (mero__api_accept_snake(sr, allowed, &sub) < 0 ||
        mero__api_check_fields(sr, allowed, &sub) < 0) {
        return mero_err_set(f, MERO_EINVAL, "signedRelease: %s", sub.msg);
    }
    json_t *p = json_object_get(sr, "allowedProfiles");
    if (p != NULL && !json_is_array(p)) {
        return mero_err_set(f, MERO_EINVAL,
                            "`signedRelease.allowedProfiles` must be an array of strings");
    }
    if (p == NULL || json_array_size(p) == 0) {
        return mero_err_set(f, MERO_EINVAL, "`signedRelease.allowedProfiles` must not be empty");
    }
    if (json_array_size(p) > API_POLICY_LIST_MAX) {
        return mero_err_set(f, MERO_EINVAL,
                            "`signedRelease.allowedProfiles` holds too many entries");
    }
    json_t *profiles = json_array();
    for (size_t i = 0; i < json_array_size(p); i++) {
        const char *s = json_string_value(json_array_get(p, i));
        size_t n = s ? strlen(s) : 0;
        int ok = n > 0 && n <= API_PROFILE_NAME_CHARS_MAX &&
                 n == json_string_length(json_array_get(p, i));
        for (size_t k = 0; ok && k < n; k++) {
            ok = islower((unsigned char)s[k]) || isdigit((unsigned char)s[k]) || s[k] == '-';
        }
        if (!ok) {
            json_decref(profiles);
            return mero_err_set(f, MERO_EINVAL,
                                "`signedRelease.allowedProfiles[%zu]` must be a profile name "
                                "([a-z0-9-], 1-%d chars)",
                                i, API_PROFILE_NAME_CHARS_MAX);
        }
        json_array_append_new(profiles, json_string(s));
    }
    json_t *res = json_pack("{s:o}", "allowedProfiles", profiles);
    json_t *mv = json_object_get(sr, "minReleaseVersion");
    if (mv != NULL && !json_is_null(mv)) {
        const char *s = json_string_value(mv);
        /* the release module's own check: full semver, as the release parser and gov accept */
        if (s == NULL || strlen(s) != json_string_length(mv) || mero_release_version_check(s) < 0) {
            json_decref(res);
            return mero_err_set(f, MERO_EINVAL, "`signedRelease.minReleaseVersion` must be X.Y.Z");
        }
        json_object_set_new(res, "minReleaseVersion", json_string(s));
    }
    *out = res;
    return 0;
}

int mero__api_parse_policy(json_t *body, json_t **canon, struct mero_err *f)
{
    static const char *const allowed[] = {"allowedMrtd",
                                          "allowedRtmr0",
                                          "allowedRtmr1",
                                          "allowedRtmr2",
                                          "allowedRtmr3",
                                          "allowedTcbStatuses",
                                          "acceptMock",
                                          "signedRelease",
                                          "mode",
                                          "rootProof",
                                          "requireSeptVeDisable",
                                          "allowServiceTd",
                                          NULL};
    if (mero__api_accept_snake(body, allowed, f) < 0 ||
        mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    bool accept_mock = false, require_sept = true, allow_service = false;
    if (get_bool(body, "acceptMock", &accept_mock, f) < 0 ||
        get_bool(body, "requireSeptVeDisable", &require_sept, f) < 0 ||
        get_bool(body, "allowServiceTd", &allow_service, f) < 0) {
        return failed(f);
    }
    if (json_object_get(body, "requireSeptVeDisable") == NULL) {
        require_sept = true; /* the safe default: absent means required */
    }
    const char *mode = "replica";
    json_t *m = json_object_get(body, "mode");
    if (m != NULL && !json_is_null(m)) {
        const char *s = json_string_value(m);
        if (s == NULL || (strcmp(s, "replica") != 0 && strcmp(s, "relay") != 0)) {
            return mero_err_set(f, MERO_EINVAL, "`mode` must be \"replica\" or \"relay\"");
        }
        mode = s;
    }
    json_t *rp = json_object_get(body, "rootProof");
    if (rp != NULL) {
        const char *s = json_string_value(rp);
        if (s == NULL || s[0] == 0) {
            return mero_err_set(f, MERO_EINVAL, "`rootProof` must be omitted, not empty");
        }
        if (strlen(s) % 2 != 0 || !is_hex(s, strlen(s)) || strlen(s) > 8192) {
            return mero_err_set(f, MERO_EINVAL, "`rootProof` must be hex");
        }
    }
    json_t *lists[6] = {0};
    json_t *res = NULL;
    int rc = 0;
    for (size_t i = 0; i < 6; i++) {
        MERO_TRY_OUT(parse_list(body, i, &lists[i], f));
    }
    json_t *sr = json_object_get(body, "signedRelease");
    json_t *release = NULL;
    if (sr != NULL && !json_is_null(sr)) {
        for (size_t i = 0; i < 5; i++) {
            MERO_ENSURE_OUT(json_array_size(lists[i]) == 0, f, MERO_EINVAL,
                            "signedRelease form: `%s` must be empty (measurements come from the "
                            "signed release)",
                            list_names[i]);
        }
        MERO_TRY_OUT(parse_release(sr, &release, f));
    } else {
        static const size_t required[] = {0, 2, 3, 4};
        for (size_t k = 0; k < 4; k++) {
            MERO_ENSURE_OUT(json_array_size(lists[required[k]]) != 0, f, MERO_EINVAL,
                            "`%s` must not be empty: the measurement form pins MRTD and RTMR1-3",
                            list_names[required[k]]);
        }
    }
    res = json_object();
    json_object_set_new(res, "enabled", json_true());
    for (size_t i = 0; i < 6; i++) {
        json_object_set(res, list_names[i], lists[i]);
    }
    json_object_set_new(res, "acceptMock", json_boolean(accept_mock));
    if (release != NULL) {
        json_object_set_new(res, "signedRelease", release);
    }
    json_object_set_new(res, "mode", json_string(mode));
    json_object_set_new(res, "requireSeptVeDisable", json_boolean(require_sept));
    json_object_set_new(res, "allowServiceTd", json_boolean(allow_service));
    *canon = res;
    rc = 0;
out:
    for (size_t i = 0; i < 6; i++) {
        json_decref(lists[i]);
    }
    return rc;
}

static int role_of(const char *role, bool is_string, enum api_role *out, struct mero_err *f)
{
    if (!is_string || role == NULL) {
        return mero_err_set(f, MERO_EINVAL, "`role` must be a string");
    }
    if (strcmp(role, "Admin") == 0) {
        *out = API_ROLE_ADMIN;
    } else if (strcmp(role, "Member") == 0) {
        *out = API_ROLE_MEMBER;
    } else if (strcmp(role, "ReadOnly") == 0) {
        *out = API_ROLE_READONLY;
    } else if (strcmp(role, "ReadOnlyTee") == 0 || strcmp(role, "RelayTee") == 0) {
        return mero_err_set(f, MERO_ETEE_ROLE_LOCKED,
                            "TeeMemberRoleLocked: %s is granted only by attestation", role);
    } else {
        return mero_err_set(f, MERO_EINVAL, "`role` must be \"Admin\", \"Member\" or \"ReadOnly\"");
    }
    return 0;
}

int mero__api_parse_member(json_t *body, struct api_member_req *out, struct mero_err *f)
{
    static const char *const allowed[] = {"identity", "role", NULL};
    if (mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    const char *id = json_string_value(json_object_get(body, "identity"));
    if (id == NULL) {
        return mero_err_set(f, MERO_EINVAL, "missing field `identity` (64 hex chars)");
    }
    struct api_member_req r;
    if (mero__api_parse_id32(id, r.identity, "identity", f) < 0) {
        return failed(f);
    }
    json_t *rv = json_object_get(body, "role");
    if (role_of(rv ? json_string_value(rv) : "Member", rv == NULL || json_is_string(rv), &r.role,
                f) < 0) {
        return failed(f);
    }
    *out = r;
    return 0;
}

int mero__api_parse_role(json_t *body, enum api_role *out, struct mero_err *f)
{
    static const char *const allowed[] = {"role", NULL};
    if (mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    json_t *rv = json_object_get(body, "role");
    if (rv == NULL) {
        return mero_err_set(f, MERO_EINVAL,
                            "missing field `role` (\"Admin\", \"Member\" or \"ReadOnly\")");
    }
    return role_of(json_string_value(rv), json_is_string(rv), out, f);
}

int mero__api_parse_subgroup(json_t *body, int *open, struct mero_err *f)
{
    static const char *const allowed[] = {"visibility", NULL};
    if (mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    json_t *v = json_object_get(body, "visibility");
    const char *s = v ? json_string_value(v) : "open";
    if (s == NULL || (strcmp(s, "open") != 0 && strcmp(s, "restricted") != 0)) {
        return mero_err_set(f, MERO_EINVAL, "`visibility` must be \"open\" or \"restricted\"");
    }
    *open = strcmp(s, "open") == 0;
    return 0;
}

int mero__api_check_kv_key(const char *key, struct mero_err *f)
{
    size_t n = strlen(key);
    if (n == 0 || n > API_KV_KEY_MAX) {
        return mero_err_set(f, MERO_EINVAL, "key must be 1-%d bytes", API_KV_KEY_MAX);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (!isalnum(c) && c != '-' && c != '_' && c != '.' && c != ':') {
            return mero_err_set(f, MERO_EINVAL, "key may hold only [A-Za-z0-9._:-]");
        }
    }
    return 0;
}

/* {value: string} of a kv write, fields already checked */
static int kv_value(json_t *body, const char **value, size_t *len, struct mero_err *f)
{
    json_t *v = json_object_get(body, "value");
    if (v == NULL) {
        return mero_err_set(f, MERO_EINVAL, "missing field `value` (a string)");
    }
    if (!json_is_string(v)) {
        return mero_err_set(f, MERO_EINVAL, "`value` must be a string");
    }
    if (json_string_length(v) > API_KV_VALUE_MAX) {
        return mero_err_set(f, MERO_EINVAL, "`value` is longer than %u bytes", API_KV_VALUE_MAX);
    }
    *value = json_string_value(v);
    *len = json_string_length(v);
    return 0;
}

int mero__api_parse_kv(json_t *body, const char **value, size_t *len, struct mero_err *f)
{
    static const char *const allowed[] = {"value", NULL};
    if (mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    return kv_value(body, value, len, f);
}

int mero__api_parse_forge(json_t *body, const char **value, size_t *len, uint64_t *lamport,
                          struct mero_err *f)
{
    static const char *const allowed[] = {"value", "lamport", NULL};
    if (mero__api_check_fields(body, allowed, f) < 0) {
        return failed(f);
    }
    json_t *l = json_object_get(body, "lamport");
    *lamport = 0;
    if (l != NULL) {
        if (!json_is_integer(l) || json_integer_value(l) < 1) {
            return mero_err_set(f, MERO_EINVAL, "`lamport` must be an integer from 1 to 2^63-1");
        }
        *lamport = (uint64_t)json_integer_value(l);
    }
    return kv_value(body, value, len, f);
}

int mero__api_parse_empty(json_t *body, struct mero_err *f)
{
    static const char *const allowed[] = {NULL};
    return mero__api_check_fields(body, allowed, f);
}
