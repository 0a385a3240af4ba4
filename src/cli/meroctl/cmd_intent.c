/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_intent.c - `meroctl intent sign` (a member's signed intent, made offline from a client
 * key file) and `meroctl intent submit` (hand one to a relay: POST
 * /admin-api/contexts/:contextId/intents). Format and rules: docs/relay.md.
 *
 * Invariants: sign contacts no node and prints no secret (the key is wiped after signing);
 * submit decodes the intent with the same strict decoder the relay uses before sending it, so
 * a malformed intent or one for another context is refused locally (exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/identity.h"
#include "mero/intent.h"

#define DEFAULT_LIFETIME_SECS 3600u
/* base64 of the largest intent, plus room for surrounding whitespace */
#define INTENT_B64_MAX (4 * ((MERO_INTENT_MAX_LEN + 2) / 3) + 64)

struct sign_args {
    const char *key_file, *ns, *ctx, *put, *del, *relay;
    uint64_t lifetime;
};

static int parse_sign(int argc, char **argv, struct sign_args *a)
{
    memset(a, 0, sizeof(*a));
    a->lifetime = DEFAULT_LIFETIME_SECS;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = strcmp(o, "--key") == 0         ? &a->key_file
                            : strcmp(o, "--namespace") == 0 ? &a->ns
                            : strcmp(o, "--context") == 0   ? &a->ctx
                            : strcmp(o, "--put") == 0       ? &a->put
                            : strcmp(o, "--delete") == 0    ? &a->del
                            : strcmp(o, "--relay") == 0     ? &a->relay
                                                            : NULL;
        if (slot != NULL && v != NULL && *slot == NULL) {
            *slot = v;
            i++;
        } else if (strcmp(o, "--expires") == 0 && v != NULL) {
            if (mero_parse_u64(v, MERO_INTENT_MAX_LIFETIME_SECS, &a->lifetime) < 0 ||
                a->lifetime == 0) {
                return meroctl_usage_error("--expires takes 1..%u seconds, not '%s'",
                                           MERO_INTENT_MAX_LIFETIME_SECS, v);
            }
            i++;
        } else {
            return meroctl_usage_error("intent sign: unexpected or repeated argument %s", o);
        }
    }
    if (a->key_file == NULL || a->ns == NULL || a->ctx == NULL) {
        return meroctl_usage_error("intent sign needs --key FILE --namespace NS --context CTX");
    }
    if ((a->put == NULL) == (a->del == NULL)) {
        return meroctl_usage_error("intent sign needs exactly one of --put KEY=VALUE and "
                                   "--delete KEY (one write per intent)");
    }
    if (!meroctl_is_id(a->ns) || !meroctl_is_id(a->ctx) ||
        (a->relay != NULL && !meroctl_is_id(a->relay))) {
        return meroctl_usage_error("--namespace, --context and --relay take 64 hex characters");
    }
    return MEROCTL_OK;
}

/* Fill the write of the intent from --put KEY=VALUE or --delete KEY. */
static int set_write(const struct sign_args *a, struct mero_intent *it)
{
    const char *key = a->put != NULL ? a->put : a->del;
    const char *eq = a->put != NULL ? strchr(a->put, '=') : NULL;
    if (a->put != NULL && eq == NULL) {
        return meroctl_usage_error("--put takes KEY=VALUE");
    }
    size_t klen = eq != NULL ? (size_t)(eq - key) : strlen(key);
    if (!mero_intent_key_ok(key, klen)) {
        return meroctl_usage_error("the key must be 1-%u characters of [A-Za-z0-9._:-]",
                                   MERO_INTENT_MAX_KEY_LEN);
    }
    memcpy(it->key, key, klen);
    it->key[klen] = '\0';
    it->key_len = klen;
    if (eq != NULL) {
        it->op = MERO_INTENT_PUT;
        it->value_len = strlen(eq + 1);
        it->value = it->value_len > 0 ? (const uint8_t *)(eq + 1) : NULL;
        if (it->value_len > MERO_INTENT_MAX_VALUE_LEN) {
            return meroctl_usage_error("the value is longer than %u bytes",
                                       MERO_INTENT_MAX_VALUE_LEN);
        }
    } else {
        it->op = MERO_INTENT_DELETE;
    }
    return MEROCTL_OK;
}

/* The signed intent (b64, its id) as meroctl prints it: the base64 alone, or with --json an
 * object naming its id, author and expiry. */
static int print_b64(const struct meroctl_global *g, const struct mero_intent *it, const char *b64,
                     const uint8_t id[MERO_INTENT_ID_LEN])
{
    if (!g->json) {
        printf("%s\n", b64);
        return MEROCTL_OK;
    }
    char idhex[MERO_HEX_SIZE(MERO_INTENT_ID_LEN)], author[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    mero_hex_encode(idhex, id, MERO_INTENT_ID_LEN);
    mero_hex_encode(author, it->author, sizeof(it->author));
    json_t *data = json_pack("{s:s, s:s, s:s, s:I}", "intent", b64, "id", idhex, "author", author,
                             "expiresAt", (json_int_t)it->expires_at);
    if (data == NULL) {
        return meroctl_fail(MEROCTL_FAILED, "out of memory");
    }
    meroctl_print(g, data);
    json_decref(data);
    return MEROCTL_OK;
}

static int print_signed(const struct meroctl_global *g, const struct mero_intent *it)
{
    struct mero_buf b;
    uint8_t id[MERO_INTENT_ID_LEN];
    char *b64 = NULL;
    int rc;
    mero_buf_init(&b, MERO_INTENT_MAX_LEN);
    if (mero_intent_encode(it, &b) < 0 || mero_intent_id(it, id) < 0 ||
        (b64 = mero_base64_encode(b.data, b.len)) == NULL) {
        rc = meroctl_fail(MEROCTL_FAILED, "cannot encode the intent");
    } else {
        rc = print_b64(g, it, b64, id);
    }
    free(b64);
    mero_buf_cleanup(&b);
    return rc;
}

static int run_intent_sign(const struct meroctl_global *g, int argc, char **argv)
{
    struct sign_args a;
    struct mero_intent it;
    int rc = parse_sign(argc, argv, &a);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    memset(&it, 0, sizeof(it));
    it.version = MERO_INTENT_VERSION;
    if (mero_hex_decode_exact(it.ns, sizeof(it.ns), a.ns, strlen(a.ns)) < 0 ||
        mero_hex_decode_exact(it.context, sizeof(it.context), a.ctx, strlen(a.ctx)) < 0 ||
        (a.relay != NULL &&
         mero_hex_decode_exact(it.relay, sizeof(it.relay), a.relay, strlen(a.relay)) < 0)) {
        return meroctl_usage_error("--namespace, --context and --relay take 64 hex characters");
    }
    rc = set_write(&a, &it);
    if (rc != MEROCTL_OK) {
        return rc;
    }
    time_t now = time(NULL);
    if (now < 0) {
        return meroctl_fail(MEROCTL_FAILED, "the clock is before 1970");
    }
    it.issued_at = (uint64_t)now;
    it.expires_at = it.issued_at + a.lifetime;
    mero_random(it.nonce, sizeof(it.nonce));

    uint8_t sk[MERO_ED25519_SK_LEN];
    struct mero_err e = {0};
    if (mero_keyfile_load(a.key_file, sk, &e) < 0) {
        return meroctl_fail(MEROCTL_USAGE, "%s", e.msg);
    }
    rc = mero_intent_sign(&it, sk);
    mero_wipe(sk, sizeof(sk));
    if (rc < 0) {
        return meroctl_fail(MEROCTL_FAILED, "cannot sign the intent: %s", mero_errdesc(rc));
    }
    return print_signed(g, &it);
}

/* The intent argument, or standard input for "-", trimmed of surrounding whitespace. */
static int read_intent_text(const char *arg, char *out, size_t cap)
{
    size_t n = 0;
    if (strcmp(arg, "-") == 0) {
        n = fread(out, 1, cap - 1, stdin);
        if (n == cap - 1 && fgetc(stdin) != EOF) {
            return meroctl_usage_error("the intent on standard input is longer than %zu bytes",
                                       cap - 2);
        }
    } else {
        n = strlen(arg);
        if (n >= cap) {
            return meroctl_usage_error("the intent is longer than %zu characters", cap - 1);
        }
        memcpy(out, arg, n);
    }
    out[n] = '\0';
    size_t start = 0;
    while (start < n && strchr(" \t\r\n", out[start]) != NULL) {
        start++;
    }
    while (n > start && strchr(" \t\r\n", out[n - 1]) != NULL) {
        n--;
    }
    memmove(out, out + start, n - start);
    out[n - start] = '\0';
    return MEROCTL_OK;
}

static int run_intent_submit(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 3 || !meroctl_is_id(argv[1])) {
        return meroctl_usage_error("intent submit needs <CONTEXT> (64 hex) <INTENT> (base64, "
                                   "or - for standard input)");
    }
    static char text[INTENT_B64_MAX];
    int rc = read_intent_text(argv[2], text, sizeof(text));
    if (rc != MEROCTL_OK) {
        return rc;
    }
    uint8_t *raw = NULL, ctx[MERO_CONTEXT_ID_LEN];
    size_t n = 0;
    struct mero_intent it;
    struct mero_err e = {0};
    if (mero_base64_decode_alloc(text, strlen(text), MERO_INTENT_MAX_LEN, &raw, &n) < 0) {
        return meroctl_usage_error("the intent is not standard base64 of at most %u bytes",
                                   (unsigned)MERO_INTENT_MAX_LEN);
    }
    rc = mero_intent_decode(raw, n, &it, &e);
    free(raw);
    if (rc < 0) {
        return meroctl_usage_error("the intent does not decode: %s", e.msg);
    }
    if (mero_hex_decode_exact(ctx, sizeof(ctx), argv[1], strlen(argv[1])) < 0 ||
        memcmp(ctx, it.context, sizeof(ctx)) != 0) {
        return meroctl_usage_error("the intent is for another context than %s", argv[1]);
    }
    char path[200];
    snprintf(path, sizeof(path), "/admin-api/contexts/%s/intents", argv[1]);
    json_t *body = json_pack("{s:s}", "intent", text);
    json_t *data = NULL;
    if (body == NULL) {
        return meroctl_fail(MEROCTL_FAILED, "out of memory");
    }
    rc = meroctl_call(g, "POST", path, body, true, &data);
    json_decref(body);
    if (rc == MEROCTL_OK) {
        const char *delta = json_string_value(json_object_get(data, "deltaId"));
        if (g->json || delta == NULL) {
            meroctl_print(g, data);
        } else {
            printf("%s\n", delta);
        }
    }
    json_decref(data);
    return rc;
}

static const struct meroctl_opt sign_opts[] = {
    {"--key", "FILE", "the client key (meroctl key generate), mode 0600 (required)", NULL, NULL,
     false, true},
    {"--namespace", "NS", "the context's namespace, 64 hex (required)", NULL, NULL, false, false},
    {"--context", "CTX", "the context written, 64 hex (required)", NULL, NULL, false, false},
    {"--put", "KEY=VALUE", "write VALUE under KEY (one of --put or --delete)", NULL, NULL, false,
     false},
    {"--delete", "KEY", "delete KEY (one of --put or --delete)", NULL, NULL, false, false},
    {"--expires", "SECS", "the intent's lifetime, 1..86400 seconds from now", "3600", NULL, false,
     false},
    {"--relay", "ID", "only the relay with this identity may carry it",
     "any RelayTee of the namespace", NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"intent sign",
                  "--key FILE --namespace NS --context CTX (--put KEY=VALUE | --delete KEY) "
                  "[--expires SECS] [--relay ID]",
                  "sign a member's write offline; print it as base64", run_intent_sign, sign_opts},
                 {"intent submit", "<CONTEXT> <INTENT|->",
                  "hand a signed intent to a relay (POST .../intents); print the delta id",
                  run_intent_submit, NULL})
