/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed.c - meroctl --sealed (issue 31, docs/sealed.md): admin calls through a sealed HTTP v2
 * session, so meroctl works against `merod run --sealed-only` and nothing it sends (token,
 * path, body) crosses whatever sits between it and the TD in the clear.
 *
 * Before the first call: POST /admin-api/tee/attest (plaintext, the one route that must be)
 * with a fresh nonce and bindTransportKey; the quote must commit to nonce || SHA-256(
 * "calimero.tee-attest.transport-key.v1" || 32 zeros || key) in its report data and pass the
 * operator's trust flags: --sealed-accept-mock for a mock node, else --sealed-mrtd (the quote
 * verified by the calimero-tee-verify contract on the collateral the node sends, valid, its
 * MRTD one of those given); every --sealed-rtmrN list given must hold the quote's RTMRN too (a
 * mock quote's registers are all zeros). Then the Noise NK handshake to that key, and each
 * call sealed.
 *
 * Invariants: no sealed request is sent to a key whose quote did not pass; a key is never
 * taken from a refusal (stale_transport_key means attest again); an answer whose frames do not
 * all open in order and end with an end frame is no answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "client_internal.h"
#include "mero/binding.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/sealed.h"
#include "mero/tee_verify.h"

#define ANSWER_MAX           (8u << 20)
#define URL_CAP              2048
#define QUOTE_MAX            (1u << 20) /* the node's quote, decoded */
#define HANDSHAKE_ANSWER_MAX 4096       /* the handshake's answer, or a plaintext refusal */

static struct {
    bool keyed, open;
    uint8_t tk[MERO_X25519_LEN];
    uint8_t sid[MERO_SEALED_SESSION_ID_LEN];
    struct mero_sealed_keys keys;
    uint64_t next_rid;
} S;

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    return mero_buf_append(ud, p, size * n) < 0 ? 0 : size * n;
}

/* POST body (n bytes, ctype) to g->node + path: *status, the answer into out, *sealed when it
 * came as application/vnd.calimero.sealed. */
static CURLcode post(const struct meroctl_global *g, const char *path, const char *ctype,
                     const void *body, size_t n, long timeout_s, long *status, struct mero_buf *out,
                     bool *sealed)
{
    char url[URL_CAP], hdr[128];
    char *got = NULL;
    snprintf(url, sizeof(url), "%s%s", g->node, path);
    snprintf(hdr, sizeof(hdr), "Content-Type: %s", ctype);
    CURL *c = curl_easy_init();
    if (c == NULL) {
        return CURLE_FAILED_INIT;
    }
    struct curl_slist *h = curl_slist_append(NULL, hdr);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)n);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &got);
    *sealed = got != NULL && strcmp(got, MERO_SEALED_CONTENT_TYPE) == 0;
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    return cc;
}

/* The refusal code of a plaintext answer ("" when none). */
static const char *refusal_code(const struct mero_buf *b, json_t **hold)
{
    *hold = json_loadb((const char *)b->data, b->len, 0, NULL);
    const char *code = json_string_value(json_object_get(json_object_get(*hold, "error"), "code"));
    return code != NULL ? code : "";
}

/* The register names of --sealed's trust flags, in MEROCTL_SEALED_REGS order. */
static const char *const reg_name[MEROCTL_SEALED_REGS] = {"mrtd", "rtmr0", "rtmr1", "rtmr2",
                                                          "rtmr3"};

/*
 * The quote's MRTD and RTMR0-3 (hex; a mock quote's are all zeros) against the lists the flags
 * gave: every non-empty list must hold its register's value. 0, or -MERO_EPOLICY with the
 * register named.
 */
static int registers_listed(const struct meroctl_global *g, json_t *measurements)
{
    static const char zeros[MERO_MR_HEX_LEN + 1] =
        "000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000";
    for (int r = 0; r < MEROCTL_SEALED_REGS; r++) {
        if (g->n_sealed_reg[r] == 0) {
            continue;
        }
        const char *v = measurements != NULL
                            ? json_string_value(json_object_get(measurements, reg_name[r]))
                            : zeros;
        bool listed = false;
        for (int i = 0; v != NULL && i < g->n_sealed_reg[r]; i++) {
            listed |= strcasecmp(v, g->sealed_reg[r][i]) == 0;
        }
        if (!listed) {
            fprintf(stderr,
                    "meroctl: --sealed: the node's quote is not trusted: its %s is not a "
                    "--sealed-%s value\n",
                    r == 0 ? "MRTD" : reg_name[r], reg_name[r]);
            return -MERO_EPOLICY;
        }
    }
    return 0;
}

/* The quote against the trust flags: 0, or a negative code with the reason printed. */
static int trust_quote(const struct meroctl_global *g, const uint8_t *q, size_t len,
                       const uint8_t nonce[MERO_NONCE_LEN],
                       const uint8_t binding[MERO_APP_HASH_LEN], json_t *collateral)
{
    if (mero_mock_is_mock(q, len)) {
        struct mero_mock_result res;
        if (!g->sealed_accept_mock) {
            fprintf(stderr, "meroctl: --sealed: the node's quote is a mock one; trust it only "
                            "with --sealed-accept-mock\n");
            return -MERO_EQUOTE_MOCK;
        }
        if (mero_mock_verify(q, len, nonce, binding, &res, NULL) < 0 || !res.nonce_verified ||
            !res.application_hash_verified) {
            fprintf(stderr, "meroctl: --sealed: the mock quote does not commit to this nonce "
                            "and transport key\n");
            return -MERO_EPOLICY;
        }
        return registers_listed(g, NULL); /* a mock quote's registers are all zeros */
    }
    if (g->n_sealed_reg[0] == 0) {
        fprintf(stderr, "meroctl: --sealed: a real quote needs --sealed-mrtd to be trusted\n");
        return -MERO_EPOLICY;
    }
    char nh[MERO_HEX_SIZE(MERO_NONCE_LEN)], bh[MERO_HEX_SIZE(MERO_APP_HASH_LEN)], msg[256];
    char *b64 = mero_base64_encode(q, len);
    mero_hex_encode(nh, nonce, MERO_NONCE_LEN);
    mero_hex_encode(bh, binding, MERO_APP_HASH_LEN);
    json_t *in = json_pack("{s:s?, s:s, s:s, s:O?}", "quote_b64", b64, "nonce_hex", nh,
                           "app_hash_hex", bh, "collateral", collateral);
    char *text = in != NULL ? json_dumps(in, JSON_COMPACT) : NULL;
    struct mero_buf out;
    mero_buf_init(&out, MERO_TEE_VERIFY_MAX_OUTPUT);
    int rc =
        text != NULL ? mero_tee_verify_json(text, strlen(text), false, &out, msg, sizeof(msg)) : 2;
    json_t *v = rc == 0 ? json_loadb((const char *)out.data, out.len, 0, NULL) : NULL;
    json_t *m = json_object_get(v, "measurements");
    bool trusted = json_is_true(json_object_get(v, "valid")) && json_is_object(m);
    if (!trusted) {
        fprintf(stderr, "meroctl: --sealed: the node's quote is not trusted: %s\n",
                rc != 0 ? msg : "it did not verify");
    }
    int listed = trusted ? registers_listed(g, m) : -MERO_EPOLICY;
    json_decref(v);
    json_decref(in);
    free(text);
    free(b64);
    mero_buf_cleanup(&out);
    return listed;
}

/* Attest and keep the transport key: 0, 1 on a transfer failure (*cc), a negative code when
 * refused. */
static int attest(const struct meroctl_global *g, long timeout_s, CURLcode *cc)
{
    uint8_t nonce[MERO_NONCE_LEN], zeros[MERO_APP_HASH_LEN] = {0}, bind[MERO_APP_HASH_LEN];
    uint8_t tk[MERO_X25519_LEN], *q = NULL;
    char nh[MERO_HEX_SIZE(MERO_NONCE_LEN)];
    size_t qlen = 0;
    long status = 0;
    bool sealed = false;
    struct mero_buf out;
    int rc = -MERO_EPROTO;
    mero_random(nonce, sizeof(nonce));
    mero_hex_encode(nh, nonce, sizeof(nonce));
    json_t *req = json_pack("{s:s, s:b, s:b}", "nonce", nh, "bindTransportKey", 1,
                            "includeCollateral", !g->sealed_accept_mock);
    char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    mero_buf_init(&out, ANSWER_MAX);
    *cc = text != NULL ? post(g, "/admin-api/tee/attest", "application/json", text, strlen(text),
                              timeout_s, &status, &out, &sealed)
                       : CURLE_OUT_OF_MEMORY;
    free(text);
    if (*cc != CURLE_OK) {
        mero_buf_cleanup(&out);
        return 1;
    }
    json_t *root = json_loadb((const char *)out.data, out.len, 0, NULL);
    json_t *d = json_object_get(root, "data");
    const char *qb = json_string_value(json_object_get(d, "quoteB64"));
    const char *tkh = json_string_value(json_object_get(d, "transportPublicKey"));
    if (status != 200 || qb == NULL || tkh == NULL ||
        mero_hex_decode_exact(tk, sizeof(tk), tkh, strlen(tkh)) < 0 ||
        mero_base64_decode_alloc(qb, strlen(qb), QUOTE_MAX, &q, &qlen) < 0) {
        fprintf(stderr, "meroctl: --sealed: the node did not attest its transport key (HTTP %ld)\n",
                status);
    } else {
        mero_attest_transport_binding(bind, zeros, tk);
        rc = trust_quote(g, q, qlen, nonce, bind, json_object_get(d, "collateral"));
    }
    if (rc == 0) {
        memcpy(S.tk, tk, sizeof(tk));
        S.keyed = true;
        S.open = false;
    }
    free(q);
    json_decref(root);
    mero_buf_cleanup(&out);
    return rc;
}

/* Open a session to S.tk: 0, 1 transfer failure, 2 stale key, a negative code refused. */
static int handshake(const struct meroctl_global *g, long timeout_s, CURLcode *cc)
{
    uint8_t body[MERO_SEALED_HANDSHAKE_LEN];
    struct mero_sealed_client c;
    struct mero_buf out;
    long status = 0;
    bool sealed = false;
    uint32_t life = 0;
    json_t *hold = NULL;
    int rc = -MERO_EPROTO;
    body[0] = MERO_SEALED_VERSION;
    memcpy(body + 1, S.tk, sizeof(S.tk));
    MERO_TRY(mero_sealed_initiate(&c, S.tk, NULL, body + 1 + MERO_X25519_LEN));
    mero_buf_init(&out, HANDSHAKE_ANSWER_MAX);
    *cc = post(g, "/sealed/v2/handshake", MERO_SEALED_CONTENT_TYPE, body, sizeof(body), timeout_s,
               &status, &out, &sealed);
    if (*cc != CURLE_OK) {
        rc = 1;
    } else if (!sealed || status != 200) {
        const char *code = refusal_code(&out, &hold);
        rc = strcmp(code, "stale_transport_key") == 0 ? 2 : -MERO_EPERM;
        if (rc < 0) {
            fprintf(stderr, "meroctl: --sealed: the handshake was refused (HTTP %ld %s)\n", status,
                    code);
        }
    } else if (out.len == MERO_SEALED_HANDSHAKE_REPLY_LEN && out.data[0] == MERO_SEALED_VERSION &&
               mero_sealed_finish(&c, out.data + 1, out.len - 1, S.sid, &life, &S.keys) == 0) {
        S.open = true;
        S.next_rid = 1;
        rc = 0;
    } else {
        fprintf(stderr, "meroctl: --sealed: the handshake's answer did not open\n");
    }
    mero_wipe(&c, sizeof(c));
    json_decref(hold);
    mero_buf_cleanup(&out);
    return rc;
}

/* One opened frame of an answer in its place: the head (once, first) gives *status, data
 * frames after it go to body, the end frame sets *end. 0, or -MERO_EPROTO for a frame out of
 * that order or a head without a status. */
static int take_frame(uint8_t kind, const struct mero_buf *f, bool *head, bool *end, long *status,
                      struct mero_buf *body)
{
    if (kind == MERO_SEALED_HEAD && !*head) {
        json_t *h = json_loadb((const char *)f->data, f->len, 0, NULL);
        json_t *s = json_object_get(h, "status");
        *head = json_is_integer(s);
        *status = *head ? (long)json_integer_value(s) : 0;
        json_decref(h);
        return *head ? 0 : -MERO_EPROTO;
    }
    if (kind == MERO_SEALED_DATA && *head) {
        return mero_buf_append(body, f->data, f->len) < 0 ? -MERO_EPROTO : 0;
    }
    if (kind == MERO_SEALED_END && *head) {
        *end = true;
        return 0;
    }
    return -MERO_EPROTO;
}

/* Open a framed answer: 0 with *status and the body in body; a negative code when any frame
 * fails. */
static int open_answer(const uint8_t *p, size_t n, uint64_t rid, long *status,
                       struct mero_buf *body)
{
    uint8_t hdr[MERO_SEALED_HEADER_LEN], kind = 0;
    struct mero_buf f;
    size_t off = 0, used = 0;
    bool head = false, end = false;
    int rc = 0;
    mero_sealed_header(hdr, S.sid, rid);
    mero_buf_init(&f, MERO_SEALED_FRAME_DATA_MAX + 1);
    for (uint32_t i = 0; rc == 0 && off < n && !end; i++) {
        rc = mero_sealed_frame_open(S.keys.response, hdr, i, p + off, n - off, &used, &kind, &f);
        if (rc == 0) {
            off += used;
            rc = take_frame(kind, &f, &head, &end, status, body);
        }
    }
    mero_buf_cleanup(&f);
    return rc == 0 && end && off == n ? 0 : -MERO_EPROTO;
}

#define SEND_AGAIN 1 /* send_once: a new session or key was asked for; send once more */

/* The buffers of one sealed exchange (the caller's, reset for each try). */
struct sealed_bufs {
    struct mero_buf env, out, inner;
};

/* One try at sending the framed plain request through the session, attesting and opening one
 * first where needed: 0 with *status and *root (a transfer failure too, in *cc), SEND_AGAIN
 * when the node restarted or forgot the session (each allowed once: *reattested, *renewed), a
 * negative code when the node's quote, handshake, envelope or answer was refused. */
static int send_once(const struct meroctl_global *g, const struct mero_buf *plain, long timeout_s,
                     struct sealed_bufs *b, bool *renewed, bool *reattested, long *status,
                     json_t **root, CURLcode *cc)
{
    int rc;
    if (!S.keyed && (rc = attest(g, timeout_s, cc)) != 0) {
        return rc > 0 ? 0 : rc; /* a transfer failure is reported through *cc */
    }
    if (!S.open) {
        rc = handshake(g, timeout_s, cc);
        if (rc == 2 && !*reattested) {
            *reattested = true; /* the node restarted: attest its new key, once */
            S.keyed = false;
            return SEND_AGAIN;
        }
        if (rc != 0) {
            return rc == 1 ? 0 : rc < 0 ? rc : -MERO_EPROTO;
        }
    }
    uint64_t rid = S.next_rid++;
    bool sealed = false;
    long st = 0;
    mero_buf_reset(&b->env);
    mero_buf_reset(&b->out);
    if (mero_sealed_request_seal(S.keys.request, S.sid, rid, plain->data, plain->len, &b->env) <
        0) {
        return -MERO_EPROTO;
    }
    *cc = post(g, "/sealed/v2", MERO_SEALED_CONTENT_TYPE, b->env.data, b->env.len, timeout_s, &st,
               &b->out, &sealed);
    if (*cc != CURLE_OK) {
        return 0;
    }
    if (!sealed) {
        json_t *hold = NULL;
        const char *code = refusal_code(&b->out, &hold);
        bool again = strcmp(code, "unknown_session") == 0 && !*renewed;
        if (again) {
            fprintf(stderr, "meroctl: --sealed: the session is gone; opening another\n");
            *renewed = true; /* one new handshake, one resend */
            S.open = false;
        } else {
            fprintf(stderr, "meroctl: --sealed: the node refused the envelope (HTTP %ld %s)\n", st,
                    code);
        }
        json_decref(hold);
        return again ? SEND_AGAIN : -MERO_EPROTO;
    }
    if (open_answer(b->out.data, b->out.len, rid, status, &b->inner) < 0) {
        fprintf(stderr, "meroctl: --sealed: the node's answer did not open\n");
        *status = 0;
        return -MERO_EPROTO;
    }
    if (b->inner.len > 0) {
        *root = json_loadb((const char *)b->inner.data, b->inner.len, 0, NULL);
    }
    return 0;
}

int meroctl_sealed_do(const struct meroctl_global *g, const char *method, const char *path,
                      json_t *body, const char *token, long timeout_s, long *status, json_t **root,
                      CURLcode *cc)
{
    char auth[300];
    bool renewed = false, reattested = false;
    int rc = -MERO_EPROTO;
    *status = 0;
    *root = NULL;
    *cc = CURLE_OK;
    if (!g->sealed_accept_mock && g->n_sealed_reg[0] == 0) {
        fprintf(stderr, "meroctl: --sealed needs trust flags: --sealed-accept-mock (a mock node) "
                        "or --sealed-mrtd HEX96\n");
        return -MERO_EPOLICY;
    }
    snprintf(auth, sizeof(auth), "Bearer %s", token != NULL ? token : "");
    json_t *head =
        json_pack("{s:s, s:s, s:[[s,s],[s,s]]}", "method", method, "path", path, "headers",
                  "content-type", "application/json", "accept", "application/json");
    if (head != NULL && token != NULL) {
        json_array_append_new(json_object_get(head, "headers"),
                              json_pack("[s,s]", "authorization", auth));
    }
    char *htext = head != NULL ? json_dumps(head, JSON_COMPACT) : NULL;
    char *btext = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(head);
    memset(auth, 0, sizeof(auth));
    struct mero_buf plain;
    struct sealed_bufs b;
    mero_buf_init(&plain, ANSWER_MAX);
    mero_buf_init(&b.env, ANSWER_MAX);
    mero_buf_init(&b.out, ANSWER_MAX);
    mero_buf_init(&b.inner, ANSWER_MAX);
    size_t hl = htext != NULL ? strlen(htext) : 0;
    uint8_t len4[4] = {(uint8_t)(hl >> 24), (uint8_t)(hl >> 16), (uint8_t)(hl >> 8), (uint8_t)hl};
    if (htext != NULL && (body == NULL || btext != NULL) && mero_buf_append(&plain, len4, 4) == 0 &&
        mero_buf_append(&plain, htext, hl) == 0 &&
        (btext == NULL || mero_buf_append(&plain, btext, strlen(btext)) == 0)) {
        do {
            rc = send_once(g, &plain, timeout_s, &b, &renewed, &reattested, status, root, cc);
        } while (rc == SEND_AGAIN);
    }
    if (htext != NULL) {
        mero_wipe(htext, strlen(htext));
    }
    free(htext);
    free(btext);
    mero_buf_cleanup(&plain);
    mero_buf_cleanup(&b.env);
    mero_buf_cleanup(&b.out);
    mero_buf_cleanup(&b.inner);
    return rc;
}
