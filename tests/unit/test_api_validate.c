/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_api_validate.c - the admin API body validators (src/api/validate.c), table-driven:
 * each body is either accepted or refused with the expected status and message prefix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"
#include "mero/release.h"
#include "harness.h"

#define N64 "0000000000000000000000000000000000000000000000000000000000000007"
#define M96                                                                                        \
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" \
    "AAAA"
#define MEAS                                                                                       \
    "\"allowedMrtd\":[\"" M96 "\"],\"allowedRtmr1\":[\"" M96 "\"],\"allowedRtmr2\":[\"" M96        \
    "\"],\"allowedRtmr3\":[\"" M96 "\"]"
#define PEER "12D3KooWDGrAZepU48zP8MFp5yUr2QXXd7qyHAdkfBCedLVRsmW9"

struct vcase {
    const char *body;
    int status; /* 0 = accepted */
    const char *msg;
};

static json_t *parse(const char *s)
{
    json_t *v = NULL;
    struct mero_err f = {0};
    if (mero__api_parse_body(s, strlen(s), &v, &f) < 0) {
        return NULL;
    }
    return v;
}

typedef int (*validator)(json_t *body, struct mero_err *f);

static int run_table(const struct vcase *t, size_t n, validator fn)
{
    for (size_t i = 0; i < n; i++) {
        json_t *b = parse(t[i].body);
        struct mero_err f = {0};
        if (b == NULL) {
            return (int)i + 1;
        }
        int rc = fn(b, &f);
        json_decref(b);
        if (t[i].status == 0 ? rc != 0
                             : (rc == 0 || mero__api_status_of(-f.code) != t[i].status ||
                                strncmp(f.msg, t[i].msg, strlen(t[i].msg)) != 0)) {
            fprintf(stderr, "case %zu: rc=%d status=%d msg=%s\n", i, rc,
                    mero__api_status_of(-f.code), f.msg);
            return (int)i + 1;
        }
    }
    return 0;
}

static int v_attest(json_t *b, struct mero_err *f)
{
    struct api_attest_req r;
    return mero__api_parse_attest(b, &r, f);
}

TEST(attest_bodies)
{
    static const struct vcase t[] = {
        {"{\"nonce\":\"" N64 "\"}", 0, ""},
        {"{\"nonce\":\"" N64 "\",\"bindNodeKey\":true,\"bindTransportKey\":false,"
         "\"includeCollateral\":true,\"eventLog\":false,\"applicationId\":\"app\"}",
         0, ""},
        {"{}", 400, "missing field `nonce`"},
        {"{\"nonce\":\"zz\"}", 400, "Invalid nonce format (must be hex string)"},
        {"{\"nonce\":\"abc\"}", 400, "Invalid nonce format (must be hex string)"},
        {"{\"nonce\":7}", 400, "Invalid nonce format (must be hex string)"},
        {"{\"nonce\":\"abcd\"}", 400, "Nonce must be exactly 32 bytes (64 hex characters)"},
        {"{\"nonce\":\"" N64 "\",\"bindNodeKey\":1}", 400, "`bindNodeKey` must be a boolean"},
        {"{\"nonce\":\"" N64 "\",\"more\":1}", 400, "unknown field `more`"},
        {"{\"nonce\":\"" N64 "\",\"applicationId\":\"\"}", 400, "`applicationId` must be"},
        {"{\"nonce\":\"" N64 "\",\"applicationId\":\"a/b\"}", 400, "`applicationId` holds"},
    };
    CHECK_EQ(run_table(t, sizeof(t) / sizeof(t[0]), v_attest), 0);
}

static int v_fleet(json_t *b, struct mero_err *f)
{
    struct api_fleet_join_req r;
    return mero__api_parse_fleet_join(b, &r, f);
}

TEST(fleet_join_bodies)
{
    static const struct vcase t[] = {
        {"{\"groupId\":\"" N64 "\"}", 0, ""},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/4001/p2p/" PEER "\"]}",
         0, ""},
        {"{}", 400, "missing field `groupId`"},
        {"{\"groupId\":\"abc\"}", 400, "group_id must be 64 hex chars (32 bytes)"},
        {"{\"groupId\":5}", 400, "group_id must be 64 hex chars (32 bytes)"},
        /* issue 35: the spec's snake_case spelling is the same field; both at once is 400 */
        {"{\"group_id\":\"" N64 "\"}", 0, ""},
        {"{\"group_id\":\"" N64 "\",\"admitter_addrs\":[\"/ip4/127.0.0.1/tcp/4001/p2p/" PEER "\"]}",
         0, ""},
        {"{\"group_id\":\"" N64 "\",\"groupId\":\"" N64 "\"}", 400,
         "`group_id` and `groupId` are the same field"},
        {"{\"group_id\":\"abc\"}", 400, "group_id must be 64 hex chars (32 bytes)"},
        {"{\"Group_id\":\"" N64 "\"}", 400, "unknown field `Group_id`"},
        {"{\"group__id\":\"" N64 "\"}", 400, "unknown field `group__id`"},
        {"{\"group_id_\":\"" N64 "\"}", 400, "unknown field `group_id_`"},
        {"{\"groupid\":\"" N64 "\"}", 400, "unknown field `groupid`"},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/4001\"]}", 400,
         "admitterAddrs[0] must be a multiaddr"},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":[\"/ip4/1.2.3/tcp/4001/p2p/" PEER "\"]}", 400,
         "admitterAddrs[0]"},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/99999/p2p/" PEER "\"]}",
         400, "admitterAddrs[0]"},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/1/p2p/0OIl\"]}", 400,
         "admitterAddrs[0]"},
        {"{\"groupId\":\"" N64 "\",\"admitterAddrs\":{}}", 400, "`admitterAddrs` must be"},
    };
    CHECK_EQ(run_table(t, sizeof(t) / sizeof(t[0]), v_fleet), 0);
}

static int v_policy(json_t *b, struct mero_err *f)
{
    json_t *canon = NULL;
    int rc = mero__api_parse_policy(b, &canon, f);
    json_decref(canon);
    return rc;
}

#define P63 "abcdefghijklmnopqrstuvwxyz0123456789-abcdefghijklmnopqrstuvwxyz"
_Static_assert(sizeof(P63) - 1 == MERO_RELEASE_NAME_MAX - 1, "P63 is the longest profile name");

TEST(policy_bodies)
{
    static const struct vcase t[] = {
        {"{" MEAS "}", 0, ""},
        {"{" MEAS ",\"acceptMock\":true,\"mode\":\"relay\",\"allowedTcbStatuses\":[\"UpToDate\"]}",
         0, ""},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"debug\"],\"minReleaseVersion\":\"1.2.3\"}}", 0,
         ""},
        {"{}", 400, "`allowedMrtd` must not be empty"},
        {"{\"allowedMrtd\":[\"" M96 "\"],\"acceptMock\":true}", 400,
         "`allowedRtmr1` must not be empty"},
        {"{" MEAS ",\"allowedRtmr3\":[]}", 400, "request body"}, /* duplicate key: parse fails */
        {"{" MEAS ",\"mode\":\"REPLICA\"}", 400, "`mode` must be"},
        {"{" MEAS ",\"allowedTcbStatuses\":[\"revoked\"]}", 400,
         "`allowedTcbStatuses[0]`: Revoked"},
        {"{" MEAS ",\"allowedTcbStatuses\":[\"Mock\"]}", 400, "`allowedTcbStatuses[0]`: use"},
        {"{" MEAS ",\"rootProof\":\"\"}", 400, "`rootProof` must be omitted, not empty"},
        {"{" MEAS ",\"rootProof\":\"abc\"}", 400, "`rootProof` must be hex"},
        {"{\"allowedMrtd\":[\"00\"],\"allowedRtmr1\":[\"" M96 "\"],\"allowedRtmr2\":[\"" M96
         "\"],\"allowedRtmr3\":[\"" M96 "\"]}",
         400, "`allowedMrtd[0]` must be 96 hex"},
        {"{" MEAS ",\"signedRelease\":{\"allowedProfiles\":[\"debug\"]}}", 400,
         "signedRelease form: `allowedMrtd` must be empty"},
        {"{\"signedRelease\":{}}", 400, "`signedRelease.allowedProfiles` must not be empty"},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":\"1.2\"}}", 400,
         "`signedRelease.minReleaseVersion` must be X.Y.Z"},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":\"1..2\"}}", 400,
         "`signedRelease.minReleaseVersion`"},
        {"{\"signedRelease\":[]}", 400, "`signedRelease` must be an object"},
        /* a profile name as long as a release file can carry (63), and one longer */
        {"{\"signedRelease\":{\"allowedProfiles\":[\"" P63 "\"]}}", 0, ""},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"" P63 "x\"]}}", 400,
         "`signedRelease.allowedProfiles[0]` must be a profile name ([a-z0-9-], 1-63 chars)"},
    };
    /* the duplicate-key case is checked through mero__api_parse_body directly */
    json_t *dup = parse("{" MEAS ",\"allowedRtmr3\":[]}");
    CHECK(dup == NULL);
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (i == 5) {
            continue;
        }
        CHECK_EQ(run_table(&t[i], 1, v_policy), 0);
    }
}

/* minReleaseVersion is checked by the release module itself (mero_release_version_check):
 * a full semantic version, which the release parser and gov accept, is accepted here too;
 * the TCB names are DCAP's own (mero_tcb_status_parse). */
TEST(policy_release_version_is_the_release_modules)
{
    static const struct vcase t[] = {
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":\"1.2.3-rc.1\"}}",
         0, ""},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":"
         "\"2.0.0-beta.2+build.7\"}}",
         0, ""},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":\"1.2.3-\"}}", 400,
         "`signedRelease.minReleaseVersion` must be X.Y.Z"},
        {"{\"signedRelease\":{\"allowedProfiles\":[\"x\"],\"minReleaseVersion\":\"01.2.3\"}}", 400,
         "`signedRelease.minReleaseVersion` must be X.Y.Z"},
        {"{" MEAS ",\"allowedTcbStatuses\":[\"Revoked\"]}", 400,
         "`allowedTcbStatuses[0]`: Revoked"},
        {"{" MEAS ",\"allowedTcbStatuses\":[\"OutOfDateConfigurationNeeded\"]}", 0, ""},
        {"{" MEAS ",\"allowedTcbStatuses\":[\"uptodate\"]}", 400,
         "`allowedTcbStatuses[0]` is not a TCB status name"},
    };
    CHECK_EQ(run_table(t, sizeof(t) / sizeof(t[0]), v_policy), 0);
    /* the same strings through the domain's own check */
    CHECK_EQ(mero_release_version_check("1.2.3-rc.1"), 0);
    CHECK(mero_release_version_check("1.2") < 0);
}

/* The one mero_err -> HTTP status table (api/errmap.c), as docs/api.md lists it. */
TEST(error_status_table)
{
    static const struct {
        int code, status;
    } t[] = {
        {MERO_EINVAL, 400},     {MERO_EHEX, 400},
        {MERO_EJSON, 400},      {MERO_ETOOBIG, 400},
        {MERO_EMULTIADDR, 400}, {MERO_ENOTFOUND, 404},
        {MERO_EEXIST, 409},     {MERO_ESTATE, 409},
        {MERO_ECLOCK, 409},     {MERO_ESUPERSEDED, 409},
        {MERO_EPERM, 403},      {MERO_ENOTADMIN, 403},
        {MERO_EREADONLY, 403},  {MERO_ETEE_ROLE_LOCKED, 403},
        {MERO_EREFUSED, 403},   {MERO_EUNSUPPORTED, 501},
        {MERO_ETIMEOUT, 504},   {MERO_EIO, 500},
        {MERO_ENOMEM, 500},     {MERO_EBADSIG, 500},
        {MERO_EINTERNAL, 500},  {MERO_ECOLLATERAL_FETCH, 502},
        {MERO_EAUTH, 401},      {MERO_EMETHOD, 405},
        {MERO_EBODY, 413},      {MERO_EUNAVAILABLE, 503},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        CHECK_EQ(mero__api_status_of(-t[i].code), t[i].status);
        CHECK_EQ(mero__api_status_of(t[i].code), t[i].status); /* either sign */
    }
}

/* A refusal the API decides (mero__api_refuse) and a domain error (mero__api_reply_err) both
 * answer with the table's status, in the body's "status" too; 503 asks the client to retry in a
 * second; a request already answered keeps its first reply. */
TEST(refusals_take_their_status_from_the_table)
{
    static const struct {
        int code;
        int status;
        unsigned retry_after;
    } t[] = {{MERO_EUNAVAILABLE, 503, 1}, {MERO_EMETHOD, 405, 0}, {MERO_EBODY, 413, 0},
             {MERO_EAUTH, 401, 0},        {MERO_EINVAL, 400, 0},  {MERO_ENOMEM, 500, 0}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct api_req r;
        memset(&r, 0, sizeof(r));
        mero__api_refuse(&r, t[i].code, "why %zu", i);
        CHECK(r.replied);
        CHECK_EQ(r.status, t[i].status);
        CHECK_EQ(r.retry_after, t[i].retry_after);
        char want[64];
        snprintf(want, sizeof(want), "{\"error\":{\"status\":%d,\"message\":\"why %zu\"}}",
                 t[i].status, i);
        CHECK(r.resp != NULL);
        CHECK_STR_EQ(r.resp, want);
        mero__api_refuse(&r, MERO_EINVAL, "a second answer");
        CHECK_EQ(r.status, t[i].status); /* the first reply stands */
        free(r.resp);
    }
    struct api_req r;
    /* another error shape (the sealed transport's) takes the same status and Retry-After */
    memset(&r, 0, sizeof(r));
    mero__api_refuse_raw(&r, MERO_EUNAVAILABLE, json_pack("{s:{s:s}}", "error", "code", "busy"));
    CHECK_EQ(r.status, 503);
    CHECK_EQ(r.retry_after, 1u);
    CHECK(r.resp != NULL && strcmp(r.resp, "{\"error\":{\"code\":\"busy\"}}") == 0);
    free(r.resp);
    memset(&r, 0, sizeof(r));
    mero__api_reply_err(&r, -MERO_ENOTADMIN, NULL);
    CHECK_EQ(r.status, 403);
    CHECK(r.resp != NULL && strstr(r.resp, mero_errdesc(MERO_ENOTADMIN)) != NULL);
    free(r.resp);
}

TEST(policy_canonical_form)
{
    json_t *b = parse("{" MEAS ",\"mode\":\"relay\"}");
    json_t *c = NULL;
    struct mero_err f = {0};
    CHECK(b != NULL);
    CHECK_EQ(mero__api_parse_policy(b, &c, &f), 0);
    CHECK(json_is_true(json_object_get(c, "enabled")));
    const char *m = json_string_value(json_array_get(json_object_get(c, "allowedMrtd"), 0));
    CHECK(m != NULL && m[0] == 'a'); /* lowercased */
    CHECK_STR_EQ(json_string_value(json_object_get(c, "mode")), "relay");
    CHECK(json_object_get(c, "signedRelease") == NULL);
    json_decref(b);
    json_decref(c);
}

static int v_member(json_t *b, struct mero_err *f)
{
    struct api_member_req r;
    return mero__api_parse_member(b, &r, f);
}

TEST(member_bodies)
{
    static const struct vcase t[] = {
        {"{\"identity\":\"" N64 "\",\"role\":\"ReadOnly\"}", 0, ""},
        {"{\"identity\":\"" N64 "\"}", 0, ""},
        {"{}", 400, "missing field `identity`"},
        {"{\"identity\":\"" N64 "\",\"role\":\"ReadOnlyTee\"}", 403, "TeeMemberRoleLocked"},
        {"{\"identity\":\"" N64 "\",\"role\":\"RelayTee\"}", 403, "TeeMemberRoleLocked"},
        {"{\"identity\":\"" N64 "\",\"role\":\"admin\"}", 400, "`role` must be"},
        {"{\"identity\":\"xyz\"}", 400, "identity must be 64 hex chars"},
    };
    CHECK_EQ(run_table(t, sizeof(t) / sizeof(t[0]), v_member), 0);
}

TEST(strict_json)
{
    json_t *v = NULL;
    struct mero_err f = {0};
    CHECK(mero__api_parse_body("{\"a\":1,\"a\":2}", 13, &v, &f) < 0 &&
          mero__api_status_of(-f.code) == 400);
    CHECK(mero__api_parse_body("[1]", 3, &v, &f) < 0 && mero__api_status_of(-f.code) == 400);
    CHECK(mero__api_parse_body("{} {}", 5, &v, &f) < 0 && mero__api_status_of(-f.code) == 400);
    CHECK(mero__api_parse_body("{\"a\":", 5, &v, &f) < 0 && mero__api_status_of(-f.code) == 400);
    CHECK_EQ(mero__api_parse_body("", 0, &v, &f), 0);
    CHECK(json_is_object(v) && json_object_size(v) == 0);
    json_decref(v);
}

TEST(kv_and_keys)
{
    struct mero_err f = {0};
    CHECK_EQ(mero__api_check_kv_key("a.b-c_d:9", &f), 0);
    CHECK(mero__api_check_kv_key("", &f) < 0);
    CHECK(mero__api_check_kv_key("a b", &f) < 0);
    CHECK(mero__api_check_kv_key("a/b", &f) < 0);
    char longk[300];
    memset(longk, 'k', sizeof(longk) - 1);
    longk[sizeof(longk) - 1] = 0;
    CHECK(mero__api_check_kv_key(longk, &f) < 0);
    json_t *b = parse("{\"value\":\"x\"}");
    const char *v;
    size_t n;
    CHECK_EQ(mero__api_parse_kv(b, &v, &n, &f), 0);
    CHECK(n == 1 && v[0] == 'x');
    json_decref(b);
    b = parse("{\"value\":null}");
    CHECK(mero__api_parse_kv(b, &v, &n, &f) < 0);
    json_decref(b);
    uint64_t lamport = 9;
    b = parse("{\"value\":\"x\",\"lamport\":9223372036854775807}");
    CHECK(mero__api_parse_kv(b, &v, &n, &f) < 0); /* the real route takes no lamport */
    CHECK_EQ(mero__api_parse_forge(b, &v, &n, &lamport, &f), 0);
    CHECK_U64_EQ(lamport, (uint64_t)INT64_MAX);
    CHECK(n == 1 && v[0] == 'x');
    json_decref(b);
    b = parse("{\"value\":\"x\"}");
    CHECK_EQ(mero__api_parse_forge(b, &v, &n, &lamport, &f), 0);
    CHECK_U64_EQ(lamport, 0);
    json_decref(b);
    b = parse("{\"value\":\"x\",\"lamport\":0}");
    CHECK(mero__api_parse_forge(b, &v, &n, &lamport, &f) < 0);
    json_decref(b);
    b = parse("{\"value\":\"x\",\"lamport\":\"1\"}");
    CHECK(mero__api_parse_forge(b, &v, &n, &lamport, &f) < 0);
    json_decref(b);
    b = parse("{\"value\":\"x\",\"lamport\":1,\"other\":1}");
    CHECK(mero__api_parse_forge(b, &v, &n, &lamport, &f) < 0);
    json_decref(b);
    CHECK_EQ(mero__api_check_multiaddr("/ip4/10.0.0.1/tcp/1", false), 0);
    CHECK(mero__api_check_multiaddr("/ip4/10.0.0.1/tcp/1", true) < 0);
    CHECK(mero__api_check_multiaddr("/dns4/x/tcp/1", false) < 0);
    CHECK(mero__api_check_multiaddr("/ip4/10.0.0.1/udp/1", false) < 0);
    CHECK(mero__api_check_multiaddr("/ip4/10.0.0.1/tcp/1/p2p/" PEER "/x", true) < 0);
    CHECK_EQ(mero__api_check_multiaddr("/ip4/10.0.0.1/tcp/1/p2p/" PEER, true), 0);
    /* a Qm... (SHA-256 multihash) id passes the base58 look but carries no Ed25519 key */
    CHECK(mero__api_check_multiaddr(
              "/ip4/10.0.0.1/tcp/1/p2p/QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N", true) < 0);
}

/* issue 21 item 8: the router splits the raw path, then decodes each segment */
TEST(path_segments)
{
    static struct api_path p;
    CHECK_EQ(mero__api_split_path("/admin-api/contexts/C/kv/k%31", &p), 0);
    CHECK(p.n == 5 && strcmp(p.seg[4], "k1") == 0 && !p.too_long && !p.too_deep);
    CHECK_EQ(mero__api_split_path("/a/b%2Fc/", &p), 0); /* one trailing slash allowed */
    CHECK(p.n == 2 && strcmp(p.seg[1], "b/c") == 0);
    CHECK_EQ(mero__api_split_path("/a/b%3fc", &p), 0);
    CHECK(p.n == 2 && strcmp(p.seg[1], "b?c") == 0);
    CHECK_EQ(mero__api_split_path("/a//b", &p), 0);
    CHECK(p.n == 3 && p.seg[1][0] == 0); /* an empty segment matches no route */
    CHECK(mero__api_split_path("/ns/%00anything/join", &p) < 0);
    CHECK(mero__api_split_path("/kv/secret%00.public", &p) < 0);
    CHECK(mero__api_split_path("/kv/k%0", &p) < 0);
    CHECK(mero__api_split_path("/kv/k%", &p) < 0);
    CHECK(mero__api_split_path("/kv/k%g1", &p) < 0);
    CHECK(mero__api_split_path("relative", &p) < 0);
    char deep[64] = "";
    for (int i = 0; i < API_PATH_MAX_SEGS + 1; i++) {
        memcpy(deep + 2 * i, "/x", 3);
    }
    CHECK_EQ(mero__api_split_path(deep, &p), 0);
    CHECK(p.too_deep);
    char longseg[API_PARAM_MAX + 8];
    longseg[0] = '/';
    memset(longseg + 1, 'k', sizeof(longseg) - 2);
    longseg[sizeof(longseg) - 1] = 0;
    CHECK_EQ(mero__api_split_path(longseg, &p), 0);
    CHECK(p.too_long);
}

/* issue 32 item 5: the query is checked whole - every escape decodes, no name twice */
TEST(query_checks)
{
    char msg[128];
    CHECK_EQ(mero__api_query_check("", msg, sizeof(msg)), 0);
    CHECK_EQ(mero__api_query_check("attempts=3", msg, sizeof(msg)), 0);
    CHECK_EQ(mero__api_query_check("x=%41%42&y=&&z&", msg, sizeof(msg)), 0);
    CHECK_EQ(mero__api_query_check("x=%2500", msg, sizeof(msg)), 0);
    const char *bad[] = {"x=%zz", "%4", "x=1&y=%4", "x=%", "%zz=1", "x=%00", "x=a%0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msg[0] = 0;
        CHECK_MSG(mero__api_query_check(bad[i], msg, sizeof(msg)) == -MERO_EINVAL, "%s", bad[i]);
        CHECK_STR_EQ(msg, "bad percent-encoding or NUL byte in the request path or query");
    }
    CHECK_EQ(mero__api_query_check("attempts=1&attempts=2", msg, sizeof(msg)), -MERO_EINVAL);
    CHECK_STR_EQ(msg, "query parameter `attempts` given more than once");
    CHECK_EQ(mero__api_query_check("a=1&b&%61", msg, sizeof(msg)), -MERO_EINVAL); /* as decoded */
    CHECK_STR_EQ(msg, "query parameter `a` given more than once");
    CHECK_EQ(mero__api_query_check("%C3%A9=1&%C3%A9=2", msg, sizeof(msg)), -MERO_EINVAL);
    CHECK_STR_EQ(msg, "a query parameter is given more than once"); /* not quoted: not ASCII */
    CHECK_EQ(mero__api_query_check("=1&=2", msg, sizeof(msg)), -MERO_EINVAL); /* "" twice */
    char many[256] = "";
    size_t at = 0;
    for (unsigned i = 0; i < API_QUERY_MAX_PARAMS; i++) {
        at += (size_t)snprintf(many + at, sizeof(many) - at, "%s%u", i ? "&" : "", i);
    }
    CHECK_EQ(mero__api_query_check(many, msg, sizeof(msg)), 0);
    snprintf(many + at, sizeof(many) - at, "&x");
    CHECK_EQ(mero__api_query_check(many, msg, sizeof(msg)), -MERO_EINVAL);
    CHECK_STR_EQ(msg, "more than 32 query parameters");
    /* a name too long to compare is checked for escapes, never a duplicate */
    char longname[2 * API_PARAM_MAX + 8];
    memset(longname, 'k', API_PARAM_MAX + 1);
    memcpy(longname + API_PARAM_MAX + 1, "&", 1);
    memset(longname + API_PARAM_MAX + 2, 'k', API_PARAM_MAX + 1);
    longname[2 * API_PARAM_MAX + 3] = 0;
    CHECK_EQ(mero__api_query_check(longname, msg, sizeof(msg)), 0);
}

MERO_TEST_MAIN(T(attest_bodies), T(fleet_join_bodies), T(policy_bodies),
               T(policy_release_version_is_the_release_modules), T(error_status_table),
               T(refusals_take_their_status_from_the_table), T(policy_canonical_form),
               T(member_bodies), T(strict_json), T(kv_and_keys), T(path_segments), T(query_checks))
