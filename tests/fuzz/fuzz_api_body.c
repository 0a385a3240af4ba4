/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_api_body.c - every admin API request-body validator (src/api/validate.c) on arbitrary
 * bytes: strict parse, then each route's validator on the same object. Nothing may crash,
 * leak or read out of bounds; a validator that succeeds must leave well-formed output. The
 * same bytes also go through the router's path split (mero__api_split_path).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/validate_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink;

/* The router's path split on the same bytes as a path: a success never holds a NUL inside a
 * segment, and an input with "%00" never succeeds. */
static void fuzz_path(const uint8_t *data, size_t size)
{
    static struct api_path p;
    char raw[1024];
    size_t n = size < sizeof(raw) - 1 ? size : sizeof(raw) - 1;
    memcpy(raw, data, n);
    raw[n] = 0;
    if (mero__api_split_path(raw, &p) == 0) {
        if (strstr(raw, "%00") != NULL || p.n > API_PATH_MAX_SEGS) {
            abort();
        }
        for (size_t i = 0; i < p.n; i++) {
            if (strlen(p.seg[i]) >= API_PARAM_MAX) {
                abort();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_err f = {0};
    fuzz_path(data, size);
    json_t *body = NULL;
    if (mero__api_parse_body((const char *)data, size, &body, &f) < 0) {
        if (mero__api_status_of(-f.code) != 400 || f.msg[0] == 0) {
            abort();
        }
        return 0;
    }
    struct api_attest_req a;
    sink += mero__api_parse_attest(body, &a, &f);
    uint8_t nonce[32];
    sink += mero__api_parse_registration(body, nonce, &f);
    struct api_fleet_join_req *j = malloc(sizeof(*j));
    if (j != NULL && mero__api_parse_fleet_join(body, j, &f) == 0) {
        for (size_t i = 0; i < j->nadmitters; i++) {
            if (mero__api_check_multiaddr(j->admitters[i], true) != 0) {
                abort();
            }
        }
    }
    free(j);
    json_t *canon = NULL;
    if (mero__api_parse_policy(body, &canon, &f) == 0) {
        if (!json_is_true(json_object_get(canon, "enabled"))) {
            abort();
        }
        json_decref(canon);
    }
    struct api_member_req m;
    sink += mero__api_parse_member(body, &m, &f);
    int open;
    sink += mero__api_parse_subgroup(body, &open, &f);
    const char *v;
    size_t n;
    sink += mero__api_parse_kv(body, &v, &n, &f);
    uint64_t lamport;
    sink += mero__api_parse_forge(body, &v, &n, &lamport, &f);
    sink += mero__api_parse_empty(body, &f);
    const char *key;
    json_t *val;
    json_object_foreach(body, key, val)
    {
        (void)val;
        sink += mero__api_check_kv_key(key, &f);
        sink += mero__api_check_multiaddr(key, false);
    }
    json_decref(body);
    return sink > 1000000 ? 1 : 0;
}
