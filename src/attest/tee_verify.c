/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_verify.c - the calimero-tee-verify contract as a library function: one JSON object in,
 * one JSON object out, and the exit code (reference-calimero.md §3; spec "Verifying from
 * outside Rust"). The binary (src/cli/tee_verify) is a thin main over it; the fuzz target
 * drives it directly.
 *
 * Input: quote_b64 (standard base64) or quote_hex - exactly one of them (issue 32: both is
 * exit 1, where the reference lets base64 win silently) - at most MERO_MAX_TEE_QUOTE_BYTES
 * decoded, padding included (more is exit 1); nonce_hex and app_hash_hex (64 hex each, either
 * case, trimmed). Optional beyond the reference: collateral (a QuoteCollateralV3 object: verify
 * fully offline, nothing is fetched) and time_unix (judge as of that time). Any other field is
 * refused (exit 1, naming it). Output beyond the reference (additive, issues 14 and 32):
 * td_attributes (16 hex), td_debug, quote_length (the quote's declared length: what its
 * sig_data_len field accounts for) and trailing_bytes (bytes after it, ignored) on every
 * verdict; reason and reason_code when valid is false (the first failed check: the quote's
 * reject code name, NONCE_MISMATCH or APP_HASH_MISMATCH).
 * Exit 0: a verdict (`valid` may be false). Exit 1: unusable input. Exit 2: no verdict (the
 * quote does not parse, collateral unavailable or malformed). Errors: {"error": "..."} on
 * stdout and "calimero-tee-verify: ..." on stderr.
 *
 * Invariants: there is no mock path, under any build option: a MOCK_TDX_QUOTE_V1 blob is a
 * quote that does not parse (exit 2); "valid" is printed only with a verdict; one quote is
 * one quote_length whatever padding it carries (a caller keys on those bytes, as admission
 * does).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/clock.h"
#include "mero/collateral.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "mero/encoding.h"
#include "mero/pcs.h"
#include "mero/quote.h"
#include "mero/tee_verify.h"

/* The carried bytes, padding included: the quote cap every consumer applies (admission, the
 * DCAP entry points). Over it the input is unusable (exit 1), not a quote that fails to parse. */
#define MAX_QUOTE_DECODED MERO_MAX_TEE_QUOTE_BYTES

/* Where the current call writes: per thread, so calls on distinct threads do not meet. */
static _Thread_local struct mero_buf *out_json;
static _Thread_local char *out_msg;
static _Thread_local size_t out_msg_cap;

static int fail(int code, const char *fmt, ...) MERO_PRINTF(2, 3);
static int fail(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *o = json_pack("{s:s}", "error", msg);
    char *s = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
    mero_buf_reset(out_json);
    if (mero_buf_append_str(out_json, s != NULL ? s : "{\"error\":\"out of memory\"}") < 0) {
        mero_buf_reset(out_json);
    }
    snprintf(out_msg, out_msg_cap, "%s", msg);
    free(s);
    json_decref(o);
    return code;
}

/* The string value of a field, trimmed of ASCII whitespace; NULL when absent or null. */
static const char *field(json_t *in, const char *name, size_t *len, bool *not_string)
{
    json_t *v = json_object_get(in, name);
    *not_string = false;
    if (v == NULL || json_is_null(v)) {
        return NULL;
    }
    if (!json_is_string(v)) {
        *not_string = true;
        return NULL;
    }
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    while (n > 0 && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) {
        n--;
    }
    *len = n;
    return s;
}

/* A required field of exactly n bytes of hex (the nonce, the application hash). */
static int hex_field(json_t *in, const char *name, uint8_t *out, size_t n)
{
    size_t len = 0;
    bool bad;
    const char *s = field(in, name, &len, &bad);
    if (bad) {
        return fail(1, "%s is not hex: not a string", name);
    }
    if (s == NULL) {
        return fail(1, "%s is required", name);
    }
    if (len % 2 != 0 || !mero_hex_is(s, len, len / 2)) {
        return fail(1, "%s is not hex: %s", name,
                    len % 2 ? "odd number of digits" : "invalid hex character");
    }
    if (mero_hex_decode_exact(out, n, s, len) < 0) {
        return fail(1, "%s must be %zu bytes (%zu hex characters)", name, n, MERO_HEX_LEN(n));
    }
    return 0;
}

/* Bytes as a JSON hex string; JSON null when out of memory (as the reference prints). */
static json_t *hex_or_null(const uint8_t *p, size_t n)
{
    json_t *h = mero_json_hex(p, n);
    return h != NULL ? h : json_null();
}

/* The quote's declared length (header, body, 4 + sig_data_len) and the bytes after it. */
struct quote_extent {
    size_t declared;
    size_t trailing;
};

static int print_verdict(const struct mero_dcap_result *r, const struct quote_extent *x)
{
    json_t *o = json_object();
    json_t *adv = json_array();
    json_t *m = json_object();
    if (o == NULL || adv == NULL || m == NULL) {
        return fail(2, "could not verify: out of memory");
    }
    for (size_t i = 0; r->has_tcb_status && i < r->n_advisory_ids; i++) {
        json_array_append_new(adv, json_string(r->advisory_ids[i]));
    }
    const char *names[5] = {"mrtd", "rtmr0", "rtmr1", "rtmr2", "rtmr3"};
    for (int i = 0; i < 5; i++) {
        json_object_set_new(m, names[i],
                            hex_or_null(i == 0 ? r->mrtd : r->rtmr[i - 1], sizeof(r->mrtd)));
    }
    json_object_set_new(o, "valid", json_boolean(r->is_valid));
    json_object_set_new(o, "quote_verified", json_boolean(r->quote_verified));
    json_object_set_new(o, "nonce_verified", json_boolean(r->nonce_verified));
    json_object_set_new(o, "application_hash_verified", json_boolean(r->application_hash_verified));
    json_object_set_new(o, "tcb_status",
                        r->has_tcb_status ? json_string(mero_tcb_status_name(r->tcb_status))
                                          : json_null());
    json_object_set_new(o, "advisory_ids", adv);
    json_object_set_new(o, "tcb_evaluation_data_number",
                        r->has_tcb_evaluation_data_number
                            ? json_integer((json_int_t)r->tcb_evaluation_data_number)
                            : json_null());
    json_object_set_new(o, "measurements", m);
    /* Additive (issue 14): the TD attributes, so a caller can refuse a debug TD without
     * parsing the quote, and on valid:false the first failed check. */
    json_object_set_new(o, "td_attributes",
                        hex_or_null(r->td_attributes, sizeof(r->td_attributes)));
    json_object_set_new(o, "td_debug", json_boolean(r->td_debug));
    /* Additive (issue 32): the bytes that are the quote, and the padding after them that the
     * verdict ignores, so a caller that keys on quotes (a spent set) keys on the first
     * quote_length bytes: one quote, one key, whatever its padding. */
    json_object_set_new(o, "quote_length", json_integer((json_int_t)x->declared));
    json_object_set_new(o, "trailing_bytes", json_integer((json_int_t)x->trailing));
    if (!r->is_valid) {
        const char *code = "APP_HASH_MISMATCH";
        const char *why = "report_data[32..64] is not app_hash_hex";
        if (!r->quote_verified) {
            code = mero_strerror(r->reject_code);
            why = r->reject_reason;
        } else if (!r->nonce_verified) {
            code = "NONCE_MISMATCH";
            why = "report_data[0..32] is not nonce_hex";
        }
        json_object_set_new(o, "reason", json_string(why));
        json_object_set_new(o, "reason_code", json_string(code));
    }
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (s == NULL) {
        return fail(2, "could not verify: out of memory");
    }
    mero_buf_reset(out_json);
    int rc = mero_buf_append_str(out_json, s);
    free(s);
    return rc < 0 ? fail(2, "could not verify: output too large") : 0;
}

/* The quote field's decoding failure as exit 1 text. */
static int bad_quote(const char *name, int rc, size_t n, bool b64)
{
    if (rc == -MERO_ETOOBIG) {
        return fail(1, "%s is too long: a quote is at most %u bytes, padding included", name,
                    (unsigned)MERO_MAX_TEE_QUOTE_BYTES);
    }
    if (b64) {
        return fail(1, "quote_b64 is not valid base64: %s",
                    n == 0 ? "empty" : "invalid base64 (standard alphabet, padded)");
    }
    return fail(1, "quote_hex is not hex: %s",
                n % 2 ? "odd number of digits" : "invalid hex character");
}

/* Decode the quote: exactly one of quote_b64 / quote_hex (exit 1 on both, neither, bad
 * encoding, empty, or over the cap). */
static int get_quote(json_t *in, uint8_t **q, size_t *qlen)
{
    size_t nb = 0, nh = 0;
    bool bad_b64, bad_hex;
    const char *b64 = field(in, "quote_b64", &nb, &bad_b64);
    const char *hex = field(in, "quote_hex", &nh, &bad_hex);
    if ((b64 != NULL || bad_b64) && (hex != NULL || bad_hex)) {
        /* issue 32: the reference lets quote_b64 win; a request carrying two quotes is
         * confused or crafted, and which one was judged must not be a guess */
        return fail(1, "give one of quote_b64 or quote_hex, not both");
    }
    if (bad_b64) {
        return fail(1, "quote_b64 is not valid base64: not a string");
    }
    if (bad_hex) {
        return fail(1, "quote_hex is not hex: not a string");
    }
    if (b64 == NULL && hex == NULL) {
        return fail(1, "one of quote_b64 or quote_hex is required");
    }
    int rc = b64 != NULL ? mero_base64_decode_alloc(b64, nb, MAX_QUOTE_DECODED, q, qlen)
                         : mero_hex_decode_alloc(hex, nh, MAX_QUOTE_DECODED, q, qlen);
    if (rc < 0) {
        return bad_quote(b64 != NULL ? "quote_b64" : "quote_hex", rc, b64 != NULL ? nb : nh,
                         b64 != NULL);
    }
    if (*qlen == 0) { /* an empty quote is unusable input either way: exit 1, not 2 */
        free(*q);
        *q = NULL;
        return b64 != NULL ? fail(1, "quote_b64 is not valid base64: empty")
                           : fail(1, "quote_hex is not hex: empty");
    }
    return 0;
}

/* The input fields; anything else is refused, so that a typo such as "Collateral" is not
 * silently taken as "no collateral, fetch it". */
static const char *const known_fields[] = {"quote_b64",    "quote_hex",  "nonce_hex",
                                           "app_hash_hex", "collateral", "time_unix"};

static int unknown_fields(json_t *in)
{
    const char *key;
    json_t *v;
    json_object_foreach(in, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < sizeof(known_fields) / sizeof(known_fields[0]) && !known; i++) {
            known = strcmp(key, known_fields[i]) == 0;
        }
        if (!known) {
            return fail(1,
                        "unknown input field \"%.64s\" (known: quote_b64, quote_hex, nonce_hex, "
                        "app_hash_hex, collateral, time_unix)",
                        key);
        }
    }
    return 0;
}

static int run(json_t *in, bool allow_fetch)
{
    uint8_t nonce[MERO_NONCE_LEN], app[MERO_APP_HASH_LEN], *quote = NULL;
    size_t qlen = 0;
    int rc;
    if ((rc = unknown_fields(in)) != 0) {
        return rc;
    }
    if ((rc = get_quote(in, &quote, &qlen)) != 0) {
        return rc;
    }
    if ((rc = hex_field(in, "nonce_hex", nonce, sizeof(nonce))) != 0 ||
        (rc = hex_field(in, "app_hash_hex", app, sizeof(app))) != 0) {
        free(quote);
        return rc;
    }
    struct mero_err err;
    mero_err_clear(&err);
    struct mero_collateral coll;
    mero_collateral_init(&coll);
    bool have_coll = false;
    json_t *cj = json_object_get(in, "collateral");
    if (cj != NULL && !json_is_null(cj)) {
        char *text = json_is_object(cj) ? json_dumps(cj, JSON_COMPACT) : NULL;
        if (text == NULL) {
            free(quote);
            return fail(1, "collateral must be a QuoteCollateralV3 object");
        }
        rc = mero_collateral_parse(&coll, text, strlen(text), &err);
        free(text);
        if (rc < 0) {
            free(quote);
            return fail(1, "collateral is invalid: %s", err.msg);
        }
        have_coll = true;
    }
    uint64_t now = mero_now_unix();
    json_t *tj = json_object_get(in, "time_unix");
    if (tj != NULL && !json_is_null(tj)) {
        if (!json_is_integer(tj) || json_integer_value(tj) < 0) {
            free(quote);
            mero_collateral_cleanup(&coll);
            return fail(1, "time_unix must be a non-negative integer (unix seconds)");
        }
        now = (uint64_t)json_integer_value(tj);
    }
    /* Hidden test knob: verify N times in this process (the collateral cache's test). */
    uint64_t repeat = 1;
    const char *re = getenv("MERO_TEE_VERIFY_REPEAT");
    if (re != NULL && (mero_parse_u64(re, 10, &repeat) < 0 || repeat == 0)) {
        repeat = 1;
    }
    struct mero_dcap_result r;
    struct quote_extent x = {qlen, 0};
    for (uint64_t i = 0; i < repeat; i++) {
        if (!have_coll && !allow_fetch) {
            rc = mero_err_set(&err, MERO_ECOLLATERAL_FETCH, "fetching is disabled");
            break;
        }
        if (!have_coll) {
            rc = mero_pcs_collateral_for_quote(quote, qlen, &coll, &err);
            if (rc < 0) {
                break;
            }
        }
        rc = mero_dcap_verify(quote, qlen, &coll, now, nonce, app, &r, &err);
        if (!have_coll) {
            mero_collateral_cleanup(&coll);
        }
        if (rc < 0) {
            break;
        }
    }
    struct mero_quote pq;
    if (rc >= 0 && mero_quote_parse(&pq, quote, qlen, NULL) == 0) { /* it did, for a verdict */
        x.declared = pq.total_len;
        x.trailing = qlen - pq.total_len;
    }
    free(quote);
    mero_collateral_cleanup(&coll);
    if (rc < 0) {
        const char *what = "Failed to verify quote signature: ";
        if (err.code == MERO_ECOLLATERAL_FETCH) {
            /* The reference's prefix names Intel PCS; when CALIMERO_TEE_COLLATERAL_URL points
             * elsewhere, say so (err.msg names the URL tried either way; issue 35). */
            what = strcmp(mero_pcs_base_url(), MERO_PCS_DEFAULT_URL) == 0
                       ? "Failed to fetch collateral from Intel PCS: "
                       : "Failed to fetch collateral from CALIMERO_TEE_COLLATERAL_URL: ";
        } else if ((err.code >= MERO_EQUOTE_VERSION && err.code <= MERO_EQUOTE_LENGTH) ||
                   err.code == MERO_ETRUNC || err.code == MERO_ETOOBIG ||
                   err.code == MERO_EOVERFLOW) {
            what = "Failed to parse TDX quote: ";
        } else if (err.code == MERO_ECOLLATERAL) {
            what = "collateral is unusable: ";
        }
        return fail(2, "could not verify: %s%s", what, err.msg[0] ? err.msg : mero_errdesc(rc));
    }
    return print_verdict(&r, &x);
}

int mero_tee_verify_json(const char *input, size_t len, bool allow_fetch, struct mero_buf *out,
                         char *msg, size_t msg_cap)
{
    char dummy[1];
    out_json = out;
    out_msg = msg != NULL && msg_cap > 0 ? msg : dummy;
    out_msg_cap = msg != NULL && msg_cap > 0 ? msg_cap : sizeof(dummy);
    out_msg[0] = 0;
    if (mero_crypto_init() < 0) {
        return fail(2, "could not verify: crypto initialisation failed");
    }
    json_error_t je;
    json_t *in = json_loadb(input, len, JSON_REJECT_DUPLICATES, &je);
    if (in == NULL) {
        return fail(1, "stdin is not JSON: %s", je.text);
    }
    if (!json_is_object(in)) {
        json_decref(in);
        return fail(1, "stdin is not JSON: expected one object");
    }
    int rc = run(in, allow_fetch);
    json_decref(in);
    return rc;
}

void mero_tee_verify_error(struct mero_buf *out, const char *msg)
{
    char m[1];
    out_json = out;
    out_msg = m;
    out_msg_cap = sizeof(m);
    (void)fail(1, "%s", msg);
}

/* For bindings that cannot embed a struct mero_buf (python/mero_verify.py over ctypes). */
int mero_tee_verify_json_alloc(const char *input, size_t len, int allow_fetch, char **out,
                               size_t *out_len)
{
    struct mero_buf doc;
    char msg[1100];
    mero_buf_init(&doc, MERO_TEE_VERIFY_MAX_OUTPUT);
    int code = mero_tee_verify_json(input != NULL ? input : "", input != NULL ? len : 0,
                                    allow_fetch != 0, &doc, msg, sizeof(msg));
    if (mero_buf_nul(&doc) < 0) {
        mero_buf_cleanup(&doc);
        *out = NULL;
        *out_len = 0;
        return 2;
    }
    *out = (char *)mero_buf_steal(&doc, out_len); /* NUL-terminated, not counted */
    return code;
}

void mero_tee_verify_free(char *doc)
{
    free(doc);
}
