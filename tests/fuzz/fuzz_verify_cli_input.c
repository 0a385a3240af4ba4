/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_verify_cli_input.c - the calimero-tee-verify contract (mero_tee_verify_json) on
 * arbitrary stdin, with fetching disabled. Invariants checked: the exit code is 0, 1 or 2; the
 * output is one JSON object; exit 0 has "valid" and no "error", td_attributes (16 hex) and
 * td_debug, and reason + reason_code exactly when valid is false; exits 1 and 2 have "error" and
 * never "valid"; a mutated genuine quote never verifies.
 *
 * Two more input forms reach past the input checks into verification, using the genuine case
 * dcapqvl-1 read from ../shared at start-up (never copied): "!" + a JSON object patches a
 * genuine input (quote, nonce, app hash, collateral, time) key by key; "#" + (u16 offset,
 * u8 xor) triples flips bytes of the genuine quote.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/tee_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t quote[8192];
static size_t quote_len;
static json_t *collateral;
static int ready;

static void init(void)
{
    const char *sh = getenv("MERO_SHARED");
    char path[1024];
    snprintf(path, sizeof(path), "%s/testdata/tdx/dcapqvl-1/quote.bin", sh ? sh : "../shared");
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        quote_len = fread(quote, 1, sizeof(quote), f);
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/testdata/tdx/dcapqvl-1/tdx_quote_collateral.json",
             sh ? sh : "../shared");
    collateral = json_load_file(path, 0, NULL);
    ready = 1;
}

/* Bytes of dcapqvl-1 (v4) that a signature or hash covers: header and body, quote signature,
 * attestation key, QE report, its signature, the QE auth data. Length fields and the PEM text
 * (whose whitespace is not signed) are left out. */
static bool covered(size_t off)
{
    return off < 632 || (off >= 636 && off < 764) || (off >= 770 && off < 1218) ||
           (off >= 1220 && off < 1252);
}

static json_t *genuine(const uint8_t *q, size_t n)
{
    char *hex = malloc(2 * n + 1);
    char nonce[65], app[65];
    if (hex == NULL || n < 632) {
        free(hex);
        return NULL;
    }
    mero_hex_encode(hex, q, n);
    mero_hex_encode(nonce, quote + 568, 32);
    mero_hex_encode(app, quote + 600, 32);
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:O,s:I}", "quote_hex", hex, "nonce_hex", nonce, "app_hash_hex",
                  app, "collateral", collateral, "time_unix", (json_int_t)1752919234);
    free(hex);
    return o;
}

static void check(const char *in, size_t n, int must_not_verify)
{
    struct mero_buf out;
    char msg[1100];
    mero_buf_init(&out, 1u << 20);
    int code = mero_tee_verify_json(in, n, false, &out, msg, sizeof(msg));
    json_t *o = out.data != NULL ? json_loadb((const char *)out.data, out.len, 0, NULL) : NULL;
    if ((code != 0 && code != 1 && code != 2) || !json_is_object(o)) {
        abort();
    }
    bool has_valid = json_object_get(o, "valid") != NULL;
    bool has_error = json_object_get(o, "error") != NULL;
    if (code == 0 ? (!has_valid || has_error) : (has_valid || !has_error || msg[0] == 0)) {
        abort();
    }
    if (must_not_verify && json_is_true(json_object_get(o, "quote_verified"))) {
        abort();
    }
    /* every verdict reports the TD attributes; valid:false says why */
    if (code == 0) {
        json_t *ta = json_object_get(o, "td_attributes");
        if (!json_is_boolean(json_object_get(o, "td_debug")) || !json_is_string(ta) ||
            json_string_length(ta) != 16) {
            abort();
        }
        bool valid = json_is_true(json_object_get(o, "valid"));
        bool has_why = json_is_string(json_object_get(o, "reason")) &&
                       json_is_string(json_object_get(o, "reason_code"));
        if (valid == has_why) {
            abort();
        }
    }
    json_decref(o);
    mero_buf_cleanup(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MERO_TEE_VERIFY_MAX_INPUT) {
        return 0;
    }
    if (!ready) {
        init();
    }
    if (size > 0 && (data[0] == '!' || data[0] == '#') && collateral != NULL && quote_len > 0) {
        uint8_t q[sizeof(quote)];
        memcpy(q, quote, quote_len);
        bool changed = false;
        json_t *patch = NULL;
        if (data[0] == '#') {
            for (size_t i = 1; i + 3 <= size; i += 3) {
                size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8) % 4936;
                q[off] ^= data[i + 2];
            }
            /* a byte flipped twice is unchanged: compare, do not count flips */
            for (size_t off = 0; off < quote_len && !changed; off++) {
                changed = covered(off) && q[off] != quote[off];
            }
        } else {
            patch = json_loadb((const char *)data + 1, size - 1, 0, NULL);
            if (!json_is_object(patch)) {
                json_decref(patch);
                return 0;
            }
        }
        json_t *o = genuine(q, quote_len);
        if (o != NULL && patch != NULL) {
            json_object_update(o, patch);
        }
        char *s = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
        if (s != NULL) {
            check(s, strlen(s), changed);
        }
        free(s);
        json_decref(o);
        json_decref(patch);
        return 0;
    }
    check((const char *)data, size, 0);
    return 0;
}
