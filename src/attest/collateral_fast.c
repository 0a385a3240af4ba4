/* SPDX-License-Identifier: Apache-2.0 */
/*
 * collateral_fast.c - a fast path for the common shape of QuoteCollateralV3 JSON: one flat
 * object whose keys are the known fields and whose values are ASCII strings, arrays of small
 * integers, or null. jansson takes ~4 ECDSA verifications' time on a 16 KiB collateral (it
 * builds a hashtable and copies every string twice); this scanner takes a few microseconds.
 *
 * Invariant: the fast path never decides a rejection. Anything it does not fully recognise
 * (an unknown or repeated key, a non-ASCII byte, a \u escape above 0x7f or of NUL, a number
 * that is not a plain 0..255 integer, a nested value, trailing text, a field that fails its
 * checks) makes it return 1 and mero_collateral_parse runs the general jansson parser, which
 * gives the answer. On 0 the result is byte-for-byte what the general parser produces
 * (fuzz_collateral checks this on every input).
 */
#include <stdlib.h>
#include <string.h>

#include "attest/collateral_internal.h"
#include "mero/encoding.h"

#define ARRAY_FIRST_CAP 64 /* bytes an array's buffer starts with; it doubles as needed */

#define NFIELDS 10

static const char *const names[NFIELDS] = {
    "pck_crl_issuer_chain",     "root_ca_crl", "pck_crl",
    "tcb_info_issuer_chain",    "tcb_info",    "tcb_info_signature",
    "qe_identity_issuer_chain", "qe_identity", "qe_identity_signature",
    "pck_certificate_chain",
};
/* 0: string, 1: bytes (hex string or array), 2: 64-byte signature */
static const int kinds[NFIELDS] = {0, 1, 1, 0, 0, 2, 0, 0, 2, 0};
static const bool required[NFIELDS] = {true, true, true, true, true, true, true, true, true, false};

struct val {
    bool present;  /* key seen with a non-null value */
    bool is_array; /* else a string */
    char *s;       /* decoded string (owned) or bytes of the array (owned) */
    size_t n;
};

static size_t ws(const char *p, size_t i, size_t n)
{
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) {
        i++;
    }
    return i;
}

/* A string at p[*i] == '"': decoded into a new buffer; ASCII only. 0, or a negative code (fall
 * back). */
static int string(const char *p, size_t *i, size_t n, char **out, size_t *outlen)
{
    size_t j = *i + 1, start = j;
    bool esc = false;
    while (j < n && p[j] != '"') {
        unsigned char ch = (unsigned char)p[j];
        if (ch < 0x20 || ch >= 0x80) {
            return -MERO_EUNSUPPORTED;
        }
        if (ch == '\\') {
            esc = true;
            j++;
            if (j >= n) {
                return -MERO_ETRUNC;
            }
        }
        j++;
    }
    if (j >= n) {
        return -MERO_ETRUNC;
    }
    size_t raw = j - start;
    char *d = malloc(raw + 1);
    if (d == NULL) {
        return -MERO_ENOMEM;
    }
    size_t o = 0;
    if (!esc) {
        memcpy(d, p + start, raw);
        o = raw;
    } else {
        for (size_t k = start; k < j; k++) {
            char ch = p[k];
            if (ch != '\\') {
                d[o++] = ch;
                continue;
            }
            char e = p[++k];
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *f = strchr(from, e);
            if (e != 0 && f != NULL) {
                d[o++] = to[f - from];
                continue;
            }
            if (e != 'u' || k + 4 >= j) {
                free(d);
                return -MERO_EUNSUPPORTED;
            }
            int v = 0;
            for (int m = 1; m <= 4; m++) {
                int h = mero_hex_nibble(p[k + (size_t)m]);
                if (h < 0) {
                    free(d);
                    return -MERO_EHEX;
                }
                v = v << 4 | h;
            }
            if (v == 0 || v >= 0x80) {
                free(d); /* NUL and non-ASCII: the general parser decides */
                return -MERO_EUNSUPPORTED;
            }
            d[o++] = (char)v;
            k += 4;
        }
    }
    d[o] = 0;
    *out = d;
    *outlen = o;
    *i = j + 1;
    return 0;
}

/* [ 0..255, ... ] of plain integers. */
static int array(const char *p, size_t *i, size_t n, char **out, size_t *outlen)
{
    size_t j = ws(p, *i + 1, n), cap = ARRAY_FIRST_CAP, o = 0;
    char *d = malloc(cap);
    if (d == NULL) {
        return -MERO_ENOMEM;
    }
    if (j < n && p[j] == ']') {
        free(d);
        return -MERO_EUNSUPPORTED; /* empty: the general parser refuses it with its message */
    }
    for (;;) {
        if (j >= n || p[j] < '0' || p[j] > '9' ||
            (p[j] == '0' && j + 1 < n && p[j + 1] >= '0' && p[j + 1] <= '9')) {
            free(d);
            return -MERO_EUNSUPPORTED;
        }
        int v = 0, digits = 0;
        while (j < n && p[j] >= '0' && p[j] <= '9' && digits < 4) {
            v = v * 10 + (p[j++] - '0');
            digits++;
        }
        if (v > 255 || (j < n && (p[j] == '.' || p[j] == 'e' || p[j] == 'E' ||
                                  (p[j] >= '0' && p[j] <= '9')))) {
            free(d);
            return -MERO_EUNSUPPORTED;
        }
        if (o == cap) {
            char *q = cap < (1u << 22) ? realloc(d, cap * 2) : NULL;
            if (q == NULL) {
                free(d);
                return -MERO_ENOMEM;
            }
            d = q;
            cap *= 2;
        }
        d[o++] = (char)v;
        j = ws(p, j, n);
        if (j < n && p[j] == ',') {
            j = ws(p, j + 1, n);
            continue;
        }
        if (j < n && p[j] == ']') {
            break;
        }
        free(d);
        return -MERO_EJSON;
    }
    *out = d;
    *outlen = o;
    *i = j + 1;
    return 0;
}

static void free_vals(struct val *v)
{
    for (int k = 0; k < NFIELDS; k++) {
        free(v[k].s);
    }
}

/* The same checks as the general parser; a negative code (fall back) when any fails. */
static int fill(struct mero_collateral *c, struct val *v)
{
    char **str[NFIELDS] = {&c->pck_crl_issuer_chain,
                           NULL,
                           NULL,
                           &c->tcb_info_issuer_chain,
                           &c->tcb_info,
                           NULL,
                           &c->qe_identity_issuer_chain,
                           &c->qe_identity,
                           NULL,
                           &c->pck_certificate_chain};
    size_t *len[NFIELDS] = {&c->pck_crl_issuer_chain_len,     &c->root_ca_crl_len, &c->pck_crl_len,
                            &c->tcb_info_issuer_chain_len,    &c->tcb_info_len,    NULL,
                            &c->qe_identity_issuer_chain_len, &c->qe_identity_len, NULL,
                            &c->pck_certificate_chain_len};
    size_t max[NFIELDS] = {MERO_COLLATERAL_MAX_CHAIN,  MERO_COLLATERAL_MAX_CRL,
                           MERO_COLLATERAL_MAX_CRL,    MERO_COLLATERAL_MAX_CHAIN,
                           MERO_COLLATERAL_MAX_SIGNED, MERO_ECDSA_P256_SIG_LEN,
                           MERO_COLLATERAL_MAX_CHAIN,  MERO_COLLATERAL_MAX_SIGNED,
                           MERO_ECDSA_P256_SIG_LEN,    MERO_COLLATERAL_MAX_CHAIN};
    for (int k = 0; k < NFIELDS; k++) {
        if (!v[k].present) {
            if (required[k]) {
                return -MERO_ECOLLATERAL;
            }
            continue;
        }
        if (kinds[k] == 0) {
            if (v[k].is_array || v[k].n > max[k] || (v[k].n == 0 && required[k])) {
                return -MERO_ECOLLATERAL;
            }
            if (v[k].n == 0) {
                continue; /* an empty pck_certificate_chain is absent */
            }
            *str[k] = v[k].s;
            *len[k] = v[k].n;
            v[k].s = NULL;
            continue;
        }
        uint8_t *bytes = NULL;
        size_t bn = 0;
        if (v[k].is_array) {
            if (v[k].n == 0 || v[k].n > max[k]) {
                return -MERO_ECOLLATERAL;
            }
            bytes = (uint8_t *)v[k].s;
            bn = v[k].n;
            v[k].s = NULL;
        } else if (v[k].n == 0 || v[k].n / 2 > max[k] ||
                   mero_hex_decode_alloc(v[k].s, v[k].n, max[k], &bytes, &bn) < 0) {
            return -MERO_ECOLLATERAL;
        }
        if (kinds[k] == 2) {
            if (bn != MERO_ECDSA_P256_SIG_LEN) {
                free(bytes);
                return -MERO_ECOLLATERAL;
            }
            memcpy(k == 5 ? c->tcb_info_signature : c->qe_identity_signature, bytes,
                   MERO_ECDSA_P256_SIG_LEN);
            free(bytes);
        } else if (k == 1) {
            c->root_ca_crl = bytes;
            c->root_ca_crl_len = bn;
        } else {
            c->pck_crl = bytes;
            c->pck_crl_len = bn;
        }
    }
    return 0;
}

int mero__collateral_parse_fast(struct mero_collateral *c, const char *p, size_t n)
{
    struct val v[NFIELDS];
    memset(v, 0, sizeof(v));
    unsigned seen = 0;
    size_t i = ws(p, 0, n);
    if (i >= n || p[i] != '{') {
        return 1;
    }
    i = ws(p, i + 1, n);
    bool first = true;
    while (i < n && p[i] != '}') {
        if (!first) {
            if (p[i] != ',') {
                goto fallback;
            }
            i = ws(p, i + 1, n);
        }
        first = false;
        char *key = NULL;
        size_t kl = 0;
        if (i >= n || p[i] != '"' || string(p, &i, n, &key, &kl) < 0) {
            goto fallback;
        }
        int k = 0;
        while (k < NFIELDS && (strlen(names[k]) != kl || memcmp(names[k], key, kl) != 0)) {
            k++;
        }
        free(key);
        if (k == NFIELDS || (seen & (1u << k))) {
            goto fallback;
        }
        seen |= 1u << k;
        i = ws(p, i, n);
        if (i >= n || p[i] != ':') {
            goto fallback;
        }
        i = ws(p, i + 1, n);
        if (i < n && p[i] == '"') {
            if (string(p, &i, n, &v[k].s, &v[k].n) < 0) {
                goto fallback;
            }
            v[k].present = true;
        } else if (i < n && p[i] == '[') {
            if (array(p, &i, n, &v[k].s, &v[k].n) < 0) {
                goto fallback;
            }
            v[k].present = true;
            v[k].is_array = true;
        } else if (i + 4 <= n && memcmp(p + i, "null", 4) == 0) {
            i += 4;
        } else {
            goto fallback;
        }
        i = ws(p, i, n);
    }
    if (i >= n || ws(p, i + 1, n) != n) {
        goto fallback;
    }
    struct mero_collateral t;
    mero_collateral_init(&t);
    if (fill(&t, v) < 0) {
        mero_collateral_cleanup(&t);
        goto fallback;
    }
    free_vals(v);
    *c = t;
    return 0;
fallback:
    free_vals(v);
    return 1;
}
