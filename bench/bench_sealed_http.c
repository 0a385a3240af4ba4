/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sealed_http.c - issue 31 "Speed" with a C client, so the client's own cost is small
 * next to the node's: the same route (GET /admin-api/identity, with the token) plaintext and
 * through a sealed session, one keep-alive libcurl handle each, in alternating rounds against
 * one merod (env BASE_URL, TOKEN; bench/sealed.bench.sh starts it). Without BASE_URL it says
 * so and does nothing (bench/run.sh runs every bench_* binary). Prints `bench ...` lines and
 * `ratio sealed_over_plain_request_c <x>` (the issue asks for at most 1.3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/sealed.h"

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    return mero_buf_append(ud, p, size * n) < 0 ? 0 : size * n;
}

static long perform(CURL *c, struct mero_buf *out)
{
    long status = 0;
    mero_buf_reset(out);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    if (curl_easy_perform(c) != CURLE_OK) {
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

int main(void)
{
    const char *base = getenv("BASE_URL"), *token = getenv("TOKEN");
    char url[512], auth[300];
    uint8_t tk[MERO_X25519_LEN], body[MERO_SEALED_HANDSHAKE_LEN], sid[MERO_SEALED_SESSION_ID_LEN];
    struct mero_sealed_keys k;
    struct mero_sealed_client cl;
    struct mero_buf out, env, plain, frame;
    uint32_t life = 0;
    if (base == NULL || token == NULL) {
        printf(
            "# bench_sealed_http: BASE_URL and TOKEN not set (bench/sealed.bench.sh sets them)\n");
        return 0;
    }
    if (mero_crypto_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        return 1;
    }
    mero_buf_init(&out, 1u << 20);
    mero_buf_init(&env, 1u << 20);
    mero_buf_init(&plain, 1u << 20);
    mero_buf_init(&frame, 1u << 17);
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
    /* the key, then a session */
    CURL *p = curl_easy_init(), *s = curl_easy_init();
    struct curl_slist *ph = curl_slist_append(NULL, auth);
    struct curl_slist *sh = curl_slist_append(NULL, "Content-Type: " MERO_SEALED_CONTENT_TYPE);
    snprintf(url, sizeof(url), "%s/admin-api/tee/attest", base);
    curl_easy_setopt(p, CURLOPT_URL, url);
    curl_easy_setopt(
        p, CURLOPT_POSTFIELDS,
        "{\"nonce\":\"0000000000000000000000000000000000000000000000000000000000000000\","
        "\"bindTransportKey\":true}");
    json_t *a =
        perform(p, &out) == 200 ? json_loadb((const char *)out.data, out.len, 0, NULL) : NULL;
    const char *tkh =
        json_string_value(json_object_get(json_object_get(a, "data"), "transportPublicKey"));
    if (tkh == NULL || mero_hex_decode_exact(tk, sizeof(tk), tkh, strlen(tkh)) < 0) {
        fprintf(stderr, "bench_sealed_http: no transport key\n");
        return 1;
    }
    json_decref(a);
    body[0] = MERO_SEALED_VERSION;
    memcpy(body + 1, tk, sizeof(tk));
    snprintf(url, sizeof(url), "%s/sealed/v2/handshake", base);
    curl_easy_setopt(s, CURLOPT_URL, url);
    curl_easy_setopt(s, CURLOPT_HTTPHEADER, sh);
    curl_easy_setopt(s, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(s, CURLOPT_POSTFIELDSIZE, (long)sizeof(body));
    if (mero_sealed_initiate(&cl, tk, NULL, body + 1 + MERO_X25519_LEN) < 0 ||
        perform(s, &out) != 200 || out.len != MERO_SEALED_HANDSHAKE_REPLY_LEN ||
        mero_sealed_finish(&cl, out.data + 1, out.len - 1, sid, &life, &k) < 0) {
        fprintf(stderr, "bench_sealed_http: the handshake failed\n");
        return 1;
    }
    /* the inner request, the same each time */
    char head[512];
    int hl = snprintf(head, sizeof(head),
                      "{\"method\":\"GET\",\"path\":\"/admin-api/identity\",\"headers\":"
                      "[[\"authorization\",\"Bearer %s\"]]}",
                      token);
    uint8_t len4[4] = {0, 0, (uint8_t)(hl >> 8), (uint8_t)hl};
    if (mero_buf_append(&plain, len4, 4) < 0 || mero_buf_append(&plain, head, (size_t)hl) < 0) {
        return 1;
    }
    snprintf(url, sizeof(url), "%s/admin-api/identity", base);
    curl_easy_setopt(p, CURLOPT_URL, url);
    curl_easy_setopt(p, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(p, CURLOPT_HTTPHEADER, ph);
    snprintf(url, sizeof(url), "%s/sealed/v2", base);
    curl_easy_setopt(s, CURLOPT_URL, url);
    const int rounds = 6, n = 500;
    uint64_t rid = 1, tp = 0, ts = 0;
    int bad = 0;
    for (int r = 0; r < rounds + 1; r++) {
        uint64_t t0 = mero_now_ns();
        for (int i = 0; i < n; i++) {
            bad |= perform(p, &out) != 200;
        }
        uint64_t t1 = mero_now_ns();
        for (int i = 0; i < n; i++, rid++) {
            uint8_t hdr[MERO_SEALED_HEADER_LEN], kind = 0;
            size_t off = 0, used = 0;
            mero_buf_reset(&env);
            bad |= mero_sealed_request_seal(k.request, sid, rid, plain.data, plain.len, &env) < 0;
            curl_easy_setopt(s, CURLOPT_POSTFIELDS, env.data);
            curl_easy_setopt(s, CURLOPT_POSTFIELDSIZE, (long)env.len);
            bad |= perform(s, &out) != 200;
            mero_sealed_header(hdr, sid, rid);
            for (uint32_t f = 0; off < out.len; f++, off += used) {
                if (mero_sealed_frame_open(k.response, hdr, f, out.data + off, out.len - off, &used,
                                           &kind, &frame) < 0) {
                    bad = 1;
                    break;
                }
            }
            bad |= kind != MERO_SEALED_END;
        }
        uint64_t t2 = mero_now_ns();
        if (r > 0) { /* the first round warms both */
            tp += t1 - t0;
            ts += t2 - t1;
        }
    }
    if (bad) {
        fprintf(stderr, "bench_sealed_http: a request failed\n");
        return 1;
    }
    printf("bench sealed_c_plain_request %.1f us/req\n", (double)tp / rounds / n / 1e3);
    printf("bench sealed_c_sealed_request %.1f us/req\n", (double)ts / rounds / n / 1e3);
    printf("ratio sealed_over_plain_request_c %.2f\n", (double)ts / (double)tp);
    curl_easy_cleanup(p);
    curl_easy_cleanup(s);
    curl_slist_free_all(ph);
    curl_slist_free_all(sh);
    mero_buf_cleanup(&out);
    mero_buf_cleanup(&env);
    mero_buf_cleanup(&plain);
    mero_buf_cleanup(&frame);
    curl_global_cleanup();
    return 0;
}
