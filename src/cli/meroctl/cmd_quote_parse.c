/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_quote_parse.c - `meroctl quote parse FILE` (`-` for stdin): parse a TDX quote file
 * offline, no collateral, no signature check. The file holds the raw quote, its base64 (what
 * `tee attest` returns as quoteB64), or the JSON `meroctl --json tee attest` prints (its
 * quoteB64, or a calimero-tee-verify input's quote_b64). With --json it prints the
 * reference-calimero.md §4.2 quote object plus the PCK leaf facts; otherwise a short summary
 * with RTMR0-3. Exit 0 parsed, 1 usage, an unreadable file or one that is not a TDX quote (an
 * SGX or mock quote included: bad input, man/meroctl.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>

#include <jansson.h>

#include "meroctl_internal.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"

#define QUOTE_JSON_MAX (1u << 20) /* the JSON form of a parsed quote */

#define QUOTE_FILE_MAX (1u << 20)

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    uint8_t *p = malloc(QUOTE_FILE_MAX + 1);
    size_t n = p ? fread(p, 1, QUOTE_FILE_MAX + 1, f) : 0;
    if (f != stdin) {
        fclose(f);
    }
    if (p == NULL || n > QUOTE_FILE_MAX) {
        free(p);
        return NULL;
    }
    *len = n;
    return p;
}

/*
 * The raw quote from what was read: base64 text and a JSON object with quoteB64 / quote_b64
 * are decoded into *out (owned); anything else is taken as the raw bytes. 0, or a negative
 * code when text that looks like base64 or JSON does not decode.
 */
static int unwrap(const uint8_t *p, size_t len, uint8_t **out, size_t *out_len)
{
    size_t a = 0, b = len;
    while (a < b && isspace(p[a])) {
        a++;
    }
    while (b > a && isspace(p[b - 1])) {
        b--;
    }
    const char *text = NULL;
    size_t tlen = 0;
    json_t *root = NULL;
    if (b > a && p[a] == '{') {
        root = json_loadb((const char *)p + a, b - a, 0, NULL);
        json_t *v = json_object_get(root, "quoteB64");
        if (v == NULL) {
            v = json_object_get(root, "quote_b64");
        }
        if (v == NULL) {
            v = json_object_get(json_object_get(root, "data"), "quoteB64");
        }
        text = json_string_value(v);
        tlen = text ? strlen(text) : 0;
        if (text == NULL) {
            json_decref(root);
            return -MERO_EJSON;
        }
    } else {
        for (size_t i = a; i < b; i++) {
            if (!isalnum(p[i]) && p[i] != '+' && p[i] != '/' && p[i] != '=') {
                *out = NULL; /* binary: the raw quote */
                return 0;
            }
        }
        text = (const char *)p + a;
        tlen = b - a;
    }
    int rc = tlen > 0 && mero_base64_decode_alloc(text, tlen, QUOTE_FILE_MAX, out, out_len) == 0
                 ? 0
                 : -MERO_EBASE64;
    json_decref(root);
    return rc;
}

static int print_json(const struct mero_quote *q, const struct mero_pck_info *pi, int pck_rc)
{
    struct mero_buf b;
    mero_buf_init(&b, QUOTE_JSON_MAX);
    int rc = mero_buf_append_str(&b, "{\"quote\":");
    rc = rc ? rc : mero_quote_to_json(q, &b);
    rc = rc ? rc : mero_buf_printf(&b, ",\"totalLen\":%zu,\"pck\":", q->total_len);
    if (rc == 0 && pck_rc == 0) {
        rc = mero_buf_append_str(&b, "{\"fmspc\":\"");
        rc = rc ? rc : mero_hex_append(&b, pi->fmspc, 6);
        rc = rc ? rc : mero_buf_append_str(&b, "\",\"pceid\":\"");
        rc = rc ? rc : mero_hex_append(&b, pi->pceid, 2);
        rc = rc ? rc : mero_buf_printf(&b, "\",\"pcesvn\":%u,\"issuer\":\"", (unsigned)pi->pcesvn);
        /* issuer CNs are printable ASCII; anything else is dropped rather than escaped */
        for (const char *c = pi->issuer_cn; rc == 0 && *c; c++) {
            if (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\') {
                rc = mero_buf_append_u8(&b, (uint8_t)*c);
            }
        }
        rc = rc ? rc
                : mero_buf_printf(&b, "\",\"notBefore\":%lld,\"notAfter\":%lld}",
                                  (long long)pi->not_before, (long long)pi->not_after);
    } else if (rc == 0) {
        rc = mero_buf_append_str(&b, "null");
    }
    rc = rc ? rc : mero_buf_append_str(&b, "}\n");
    if (rc == 0) {
        fwrite(b.data, 1, b.len, stdout);
    }
    mero_buf_cleanup(&b);
    return rc;
}

static int run_quote_parse(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: meroctl [--json] quote parse FILE|-\n");
        return MEROCTL_USAGE;
    }
    size_t len = 0;
    uint8_t *p = slurp(argv[1], &len);
    if (p == NULL) {
        fprintf(stderr, "meroctl: cannot read %s (missing, or over %u bytes)\n", argv[1],
                QUOTE_FILE_MAX);
        return MEROCTL_USAGE;
    }
    uint8_t *dec = NULL;
    size_t dlen = 0;
    if (unwrap(p, len, &dec, &dlen) < 0) {
        fprintf(stderr,
                "meroctl: %s is neither a raw TDX quote nor its base64 (nor JSON with "
                "quoteB64)\n",
                argv[1]);
        free(p);
        return MEROCTL_USAGE;
    }
    if (dec != NULL) {
        free(p);
        p = dec;
        len = dlen;
    }
    struct mero_quote q;
    struct mero_err err = {0};
    if (mero_quote_parse(&q, p, len, &err) != 0) {
        fprintf(stderr, "meroctl: %s is not a TDX quote: %s: %s%s\n", argv[1],
                mero_strerror(err.code), err.msg,
                mero_mock_is_mock(p, len) ? " (this is a MOCK_TDX_QUOTE_V1 quote)" : "");
        free(p);
        return MEROCTL_USAGE;
    }
    struct mero_pck_info pi;
    struct mero_err perr = {0};
    int prc = mero_quote_pck_info(&q, &pi, &perr);
    int rc = MEROCTL_OK;
    if (g->json) {
        rc = print_json(&q, &pi, prc) == 0 ? MEROCTL_OK : MEROCTL_FAILED;
    } else {
        char mrtd[MERO_HEX_SIZE(MERO_MR_LEN)], rd[MERO_HEX_SIZE(MERO_REPORT_DATA_LEN)];
        mero_hex_encode(mrtd, q.body.mrtd, sizeof(q.body.mrtd));
        mero_hex_encode(rd, q.body.report_data, sizeof(q.body.report_data));
        printf("version      %u (TD %s body)\n", (unsigned)q.version, q.body.td15 ? "1.5" : "1.0");
        printf("total length %zu bytes (input %zu)\n", q.total_len, len);
        printf("mrtd         %s\n", mrtd);
        for (int r = 0; r < 4; r++) {
            char h[97];
            mero_hex_encode(h, q.body.rtmr[r], MERO_MR_LEN);
            printf("rtmr%d        %s\n", r, h);
        }
        printf("report data  %s\n", rd);
        if (prc == 0) {
            char fmspc[MERO_HEX_SIZE(MERO_FMSPC_LEN)];
            mero_hex_encode(fmspc, pi.fmspc, sizeof(pi.fmspc));
            printf("fmspc        %s\npck issuer   %s\n", fmspc, pi.issuer_cn);
        } else {
            printf("pck          unreadable: %s\n", perr.msg);
        }
    }
    free(p);
    return rc;
}

MEROCTL_COMMANDS({"quote parse", "FILE|-",
                  "parse a TDX quote offline (no collateral, no signature check)", run_quote_parse,
                  NULL})
