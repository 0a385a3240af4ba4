/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed_head.c - the two JSON heads of a sealed exchange (issue 31, docs/sealed.md): reading
 * the inner request's {"method", "path", "headers": [[name, value], ...]} and writing the
 * answer's {"status", "headers"}. jansson is the reference for both; each has a fast path for
 * the common form, because jansson's cost for these few bytes was a fifth of what sealing
 * added to a request (docs/sealed.md "Speed").
 *
 * Invariants: the fast reader accepts only heads jansson reads the same way (ASCII strings
 * without escapes, the three known keys once each, the right types) and returns the same
 * strings; anything else, valid or not, goes to jansson, so every refusal is jansson's and
 * parse_head's. The fast writer writes only when the content type needs no escaping, the
 * bytes json_dumps(JSON_COMPACT) writes. test_sealed holds both to jansson.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/sealed_internal.h"

/* A string span without its quotes. */
struct span {
    const char *p;
    size_t n;
};

struct scan {
    const char *p, *end;
};

static void ws(struct scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

/* c after optional whitespace */
static bool eat(struct scan *s, char c)
{
    ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* A string of printable ASCII without '"' or '\\' (so no escapes to decode). */
static bool plain_string(struct scan *s, struct span *out)
{
    if (!eat(s, '"')) {
        return false;
    }
    out->p = s->p;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = (unsigned char)*s->p;
        if (c < 0x20 || c > 0x7e || c == '\\') {
            return false;
        }
        s->p++;
    }
    if (s->p == s->end) {
        return false;
    }
    out->n = (size_t)(s->p - out->p);
    s->p++;
    return true;
}

static bool is_key(const struct span *k, const char *name)
{
    return k->n == strlen(name) && memcmp(k->p, name, k->n) == 0;
}

/* The headers array [[name, value], ...]; its authorization value in *auth (at most one). */
static bool plain_headers(struct scan *s, struct span *auth, bool *has_auth)
{
    if (!eat(s, '[')) {
        return false;
    }
    if (eat(s, ']')) {
        return true;
    }
    do {
        struct span name, value;
        if (!eat(s, '[') || !plain_string(s, &name) || !eat(s, ',') || !plain_string(s, &value) ||
            !eat(s, ']')) {
            return false;
        }
        if (name.n == strlen("authorization") &&
            strncasecmp(name.p, "authorization", name.n) == 0) {
            if (*has_auth) {
                return false; /* two: jansson's path refuses it */
            }
            *auth = value;
            *has_auth = true;
        }
    } while (eat(s, ','));
    return eat(s, ']');
}

/* The common form only; false: not that form, ask jansson. On true, NULs are written after
 * the method, the path and the authorization value (where their closing quotes were). */
static bool fast_head(uint8_t *p, size_t n, struct sealed_head *h)
{
    struct scan s = {(const char *)p, (const char *)p + n};
    struct span key, method = {0}, path = {0}, auth = {0};
    bool has_m = false, has_p = false, has_h = false, has_auth = false;
    if (!eat(&s, '{')) {
        return false;
    }
    do {
        if (!plain_string(&s, &key) || !eat(&s, ':')) {
            return false;
        }
        if (is_key(&key, "method") && !has_m) {
            has_m = plain_string(&s, &method);
            if (!has_m) {
                return false;
            }
        } else if (is_key(&key, "path") && !has_p) {
            has_p = plain_string(&s, &path);
            if (!has_p) {
                return false;
            }
        } else if (is_key(&key, "headers") && !has_h) {
            has_h = true;
            if (!plain_headers(&s, &auth, &has_auth)) {
                return false;
            }
        } else {
            return false; /* unknown or repeated */
        }
    } while (eat(&s, ','));
    if (!eat(&s, '}')) {
        return false;
    }
    ws(&s);
    if (s.p != s.end || !has_m || !has_p || path.n == 0 || path.p[0] != '/') {
        return false;
    }
    /* accepted: terminate the strings in place, where their closing quotes were */
    p[method.p + method.n - (const char *)p] = '\0';
    p[path.p + path.n - (const char *)p] = '\0';
    h->method = method.p;
    h->path = path.p;
    if (has_auth) {
        p[auth.p + auth.n - (const char *)p] = '\0';
        h->auth = auth.p;
        h->alen = auth.n;
    }
    return true;
}

/* jansson's reading, the reference. */
static int jansson_head(const uint8_t *p, size_t n, struct sealed_head *h)
{
    json_t *root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, NULL);
    const char *key;
    json_t *v, *headers = NULL;
    h->root = root;
    if (!json_is_object(root)) {
        return -MERO_EJSON;
    }
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "method") == 0 && json_is_string(v)) {
            h->method = json_string_value(v);
        } else if (strcmp(key, "path") == 0 && json_is_string(v)) {
            h->path = json_string_value(v);
        } else if (strcmp(key, "headers") == 0 && json_is_array(v)) {
            headers = v;
        } else {
            return -MERO_EJSON; /* an unknown field, or a known one of the wrong type */
        }
    }
    if (h->method == NULL || h->path == NULL || h->path[0] != '/') {
        return -MERO_EJSON;
    }
    size_t i;
    json_array_foreach(headers, i, v)
    {
        json_t *name = json_array_get(v, 0), *value = json_array_get(v, 1);
        if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_string(name) ||
            !json_is_string(value)) {
            return -MERO_EJSON;
        }
        if (strcasecmp(json_string_value(name), "authorization") == 0) {
            if (h->auth != NULL) {
                return -MERO_EJSON; /* two tokens: which one counts would be ours to guess */
            }
            h->auth = json_string_value(value);
            h->alen = json_string_length(value);
        }
    }
    return 0;
}

int mero__sealed_head_parse(uint8_t *p, size_t n, bool fast, struct sealed_head *h)
{
    memset(h, 0, sizeof(*h));
    if (fast && fast_head(p, n, h)) {
        return 0;
    }
    memset(h, 0, sizeof(*h));
    int rc = jansson_head(p, n, h);
    if (rc < 0) {
        h->method = h->path = h->auth = NULL;
        h->alen = 0;
    }
    return rc;
}

void mero__sealed_head_cleanup(struct sealed_head *h)
{
    json_decref(h->root);
    memset(h, 0, sizeof(*h));
}

/* printable ASCII that JSON writes as itself (jansson escapes '"', '\\' and controls, and
 * leaves '/' alone unless JSON_ESCAPE_SLASH) */
static bool needs_no_escape(const char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || *s == '"' || *s == '\\') {
            return false;
        }
    }
    return true;
}

#define HEAD_STATUS "{\"status\":"
#define HEAD_CTYPE  ",\"headers\":[[\"content-type\",\""
#define HEAD_REST   "\"],[\"cache-control\",\"no-store\"],[\"x-content-type-options\",\"nosniff\"]]}"

/* n's decimal digits, as jansson's "%lld" writes them, at p; their count */
static size_t put_int(char *p, int n)
{
    char d[16];
    size_t k = 0, at = 0;
    unsigned int u = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;
    do {
        d[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (n < 0) {
        p[at++] = '-';
    }
    while (k > 0) {
        p[at++] = d[--k];
    }
    return at;
}

char *mero__sealed_answer_head(int status, const char *ctype, bool fast)
{
    if (fast && needs_no_escape(ctype)) {
        size_t cl = strlen(ctype), at = 0;
        char *out = malloc(sizeof(HEAD_STATUS) + 12 + sizeof(HEAD_CTYPE) + cl + sizeof(HEAD_REST));
        if (out == NULL) {
            return NULL;
        }
        memcpy(out, HEAD_STATUS, sizeof(HEAD_STATUS) - 1);
        at = sizeof(HEAD_STATUS) - 1;
        at += put_int(out + at, status);
        memcpy(out + at, HEAD_CTYPE, sizeof(HEAD_CTYPE) - 1);
        at += sizeof(HEAD_CTYPE) - 1;
        memcpy(out + at, ctype, cl);
        at += cl;
        memcpy(out + at, HEAD_REST, sizeof(HEAD_REST)); /* with its NUL */
        return out;
    }
    json_t *h =
        json_pack("{s:i, s:[[s,s],[s,s],[s,s]]}", "status", status, "headers", "content-type",
                  ctype, "cache-control", "no-store", "x-content-type-options", "nosniff");
    char *out = h != NULL ? json_dumps(h, JSON_COMPACT) : NULL;
    json_decref(h);
    return out;
}
