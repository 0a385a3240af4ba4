/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pcs.c - DCAP collateral over HTTP(S) (libcurl) from a PCS v4 or PCCS endpoint, in
 * dcap-qvl's request shape (reference-dcap.md §3), and the hourly process-wide cache that the
 * node's /tee/attest includeCollateral and calimero-tee-verify share.
 *
 * Requests: pckcrl?ca=<platform|processor>&encoding=der (header SGX-PCK-CRL-Issuer-Chain),
 * tdx tcb?fmspc=<FMSPC> (header TCB-Info-Issuer-Chain, else SGX-TCB-Info-Issuer-Chain),
 * tdx qe/identity?update=standard (header SGX-Enclave-Identity-Issuer-Chain), and the root CA
 * CRL: Intel's CRL distribution point for Intel PCS, the PCCS rootcacrl endpoint (hex or DER)
 * for any other base URL. The signed objects are cut verbatim out of the bodies.
 *
 * Invariants: bounded bodies and headers; HTTP 200 only; no redirects; http/https only;
 * timeouts on connect and on the whole transfer; failures are errors, never a verdict; the
 * cache holds at most MERO_PCS_CACHE_MAX entries for at most an hour each, under a mutex, and
 * callers get copies; a key has at most one fetch in flight: other threads asking for it wait
 * for that fetch (single flight) and get its result (a copy from the cache, or its error).
 * A failed fetch is remembered per key (negative cache, issue 20): for MERO_PCS_BACKOFF_FIRST_S
 * after the first failure, doubling with each further failure up to MERO_PCS_CACHE_SECONDS,
 * callers get that failure without the source being asked; a success forgets it. So the source
 * is asked at most once per back-off per key, failures included.
 */
#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attest/x509_internal.h"
#include "mero/clock.h"
#include "mero/encoding.h"
#include "mero/pcs.h"
#include "mero/quote.h"

#define JSON_MAX_DEPTH 64 /* nesting a PCS response body may have */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static struct mero_pcs_stats stats;

struct entry {
    char key[600];
    uint64_t fetched_ms;
    struct mero_collateral c;
};
static struct entry *cache[MERO_PCS_CACHE_MAX];

/* A fetch in progress (guarded by `lock`): unlinked when done, freed by its last holder. */
struct flight {
    char key[600];
    unsigned refs;
    bool done;
    int rc;
    struct mero_err err;
    struct flight *next;
};
static struct flight *flights;
static pthread_cond_t flight_cond = PTHREAD_COND_INITIALIZER;

/* A remembered failure (guarded by `lock`). */
struct negative {
    char key[600];
    uint64_t until_ms;   /* callers get `err` until then */
    uint64_t backoff_ms; /* the back-off that set until_ms; the next failure doubles it */
    int rc;
    struct mero_err err;
};
static struct negative negatives[MERO_PCS_CACHE_MAX];

static void flight_unref(struct flight *f)
{
    if (--f->refs == 0) {
        free(f);
    }
}

const char *mero_pcs_base_url(void)
{
    const char *e = getenv("CALIMERO_TEE_COLLATERAL_URL");
    return e != NULL && e[0] != 0 ? e : MERO_PCS_DEFAULT_URL;
}

static long effective_timeout(void)
{
    uint64_t v;
    const char *e = getenv("MERO_PCS_TIMEOUT_MS");
    if (e != NULL && mero_parse_u64(e, 600000, &v) == 0 && v > 0) {
        return (long)v;
    }
    return MERO_PCS_DEFAULT_TIMEOUT_MS;
}

static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- one HTTP GET ----------------------------------------------------------------------- */

struct resp {
    struct mero_buf body;
    const char *want[2]; /* header names to capture (case-insensitive) */
    char *hdr;           /* the first captured value, URL-decoded later */
    bool too_big;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    if (mero_buf_append(&r->body, p, sz * n) < 0) {
        r->too_big = true;
        return 0;
    }
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    size_t len = sz * n;
    for (int i = 0; i < 2 && r->hdr == NULL; i++) {
        const char *w = r->want[i];
        size_t wl = w != NULL ? strlen(w) : 0;
        if (wl == 0 || len <= wl || p[wl] != ':' || strncasecmp(p, w, wl) != 0) {
            continue;
        }
        const char *v = p + wl + 1;
        size_t vl = len - wl - 1;
        while (vl > 0 && (*v == ' ' || *v == '\t')) {
            v++;
            vl--;
        }
        while (vl > 0 && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) {
            vl--;
        }
        if (vl > 0 && vl <= 3 * MERO_COLLATERAL_MAX_CHAIN) {
            r->hdr = malloc(vl + 1);
            if (r->hdr != NULL) {
                memcpy(r->hdr, v, vl);
                r->hdr[vl] = 0;
            }
        }
    }
    return len;
}

static int http_get(const char *url, struct resp *r, struct mero_err *err)
{
    pthread_once(&curl_once, curl_init_once);
    CURL *h = curl_easy_init();
    if (h == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "curl init failed");
    }
    long to = effective_timeout();
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, to);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, to);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)MERO_PCS_MAX_BODY);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "mero-pcs/1");
    pthread_mutex_lock(&lock);
    stats.requests++;
    pthread_mutex_unlock(&lock);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    if (r->too_big) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "response exceeds %u bytes",
                            MERO_PCS_MAX_BODY);
    }
    if (rc != CURLE_OK) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s", curl_easy_strerror(rc));
    }
    if (code != 200) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "HTTP status %ld", code);
    }
    return 0;
}

static void resp_init(struct resp *r, const char *h1, const char *h2)
{
    memset(r, 0, sizeof(*r));
    mero_buf_init(&r->body, MERO_PCS_MAX_BODY);
    r->want[0] = h1;
    r->want[1] = h2;
}

static void resp_cleanup(struct resp *r)
{
    mero_buf_cleanup(&r->body);
    free(r->hdr);
}

/* The captured header, URL-decoded (PCS sends issuer chains percent-encoded). */
static int header_chain(struct resp *r, char **out, size_t *outlen, struct mero_err *err,
                        const char *what)
{
    if (r->hdr == NULL) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: issuer chain header missing", what);
    }
    int n = 0;
    char *d = curl_easy_unescape(NULL, r->hdr, 0, &n);
    if (d == NULL || n <= 0 || (size_t)n > MERO_COLLATERAL_MAX_CHAIN) {
        curl_free(d);
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: issuer chain header malformed", what);
    }
    *out = malloc((size_t)n + 1);
    if (*out == NULL) {
        curl_free(d);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(*out, d, (size_t)n);
    (*out)[n] = 0;
    *outlen = (size_t)n;
    curl_free(d);
    return 0;
}

/* ---- cutting a value's exact text out of a JSON body ------------------------------------ */

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
        i++;
    }
    return i;
}

/* End (exclusive) of the JSON string starting at s[i] == '"', or 0. */
static size_t string_end(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\') {
            i++;
        } else if (s[i] == '"') {
            return i + 1;
        }
    }
    return 0;
}

/* End (exclusive) of the JSON value at s[i], or 0. Depth-bounded. */
static size_t value_end(const char *s, size_t i, size_t n)
{
    if (i >= n) {
        return 0;
    }
    if (s[i] == '"') {
        return string_end(s, i, n);
    }
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (; i < n; i++) {
            if (s[i] == '"') {
                size_t e = string_end(s, i, n);
                if (e == 0) {
                    return 0;
                }
                i = e - 1;
            } else if (s[i] == '{' || s[i] == '[') {
                if (++depth > JSON_MAX_DEPTH) {
                    return 0;
                }
            } else if (s[i] == '}' || s[i] == ']') {
                if (--depth == 0) {
                    return i + 1;
                }
            }
        }
        return 0;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n') {
        i++;
    }
    return i;
}

/* The exact text of the top-level member `key` of a JSON object body. */
static int cut_member(const char *s, size_t n, const char *key, const char **val, size_t *vlen)
{
    size_t i = skip_ws(s, 0, n), kl = strlen(key);
    if (i >= n || s[i] != '{') {
        return -MERO_EJSON;
    }
    i++;
    for (;;) {
        i = skip_ws(s, i, n);
        if (i >= n || s[i] != '"') {
            return -MERO_EJSON;
        }
        size_t ke = string_end(s, i, n);
        if (ke == 0) {
            return -MERO_EJSON;
        }
        bool match = ke - i - 2 == kl && memcmp(s + i + 1, key, kl) == 0;
        i = skip_ws(s, ke, n);
        if (i >= n || s[i] != ':') {
            return -MERO_EJSON;
        }
        i = skip_ws(s, i + 1, n);
        size_t ve = value_end(s, i, n);
        if (ve == 0) {
            return -MERO_EJSON;
        }
        if (match) {
            *val = s + i;
            *vlen = ve - i;
            return 0;
        }
        i = skip_ws(s, ve, n);
        if (i >= n || s[i] != ',') {
            return -MERO_EJSON;
        }
        i++;
    }
}

/* A signed PCS body {"<key>": {...}, "signature": "<128 hex>"} (either order). */
static int signed_body(struct resp *r, const char *key, char **text, size_t *text_len,
                       uint8_t sig[MERO_ECDSA_P256_SIG_LEN], struct mero_err *err)
{
    const char *b = (const char *)r->body.data;
    size_t n = r->body.len;
    json_t *o = b != NULL ? json_loadb(b, n, JSON_REJECT_DUPLICATES, NULL) : NULL;
    json_t *s = json_object_get(o, "signature");
    json_t *v = json_object_get(o, key);
    const char *val = NULL;
    size_t vl = 0;
    int rc = 0;
    if (!json_is_object(v) || !json_is_string(s) ||
        mero_hex_decode_exact(sig, MERO_ECDSA_P256_SIG_LEN, json_string_value(s),
                              json_string_length(s)) < 0 ||
        cut_member(b, n, key, &val, &vl) < 0 || vl > MERO_COLLATERAL_MAX_SIGNED) {
        rc = mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s response is malformed", key);
    }
    json_decref(o);
    if (rc < 0) {
        return rc;
    }
    *text = malloc(vl + 1);
    if (*text == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    memcpy(*text, val, vl);
    (*text)[vl] = 0;
    *text_len = vl;
    return 0;
}

/* A CRL body: DER, or (PCCS) its hex. */
static int crl_body(struct resp *r, uint8_t **out, size_t *len, struct mero_err *err,
                    const char *what)
{
    const uint8_t *b = r->body.data;
    size_t n = r->body.len;
    while (n > 0 && isspace(b[n - 1])) {
        n--;
    }
    if (n == 0) {
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: empty body", what);
    }
    if (b[0] != 0x30) {
        if (mero_hex_decode_alloc((const char *)b, n, MERO_COLLATERAL_MAX_CRL, out, len) < 0) {
            return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: neither DER nor hex", what);
        }
    } else {
        if (n > MERO_COLLATERAL_MAX_CRL || (*out = malloc(n)) == NULL) {
            return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: too large", what);
        }
        memcpy(*out, b, n);
        *len = n;
    }
    struct mero_crl crl;
    if (mero__crl_parse(&crl, *out, *len) < 0) {
        free(*out);
        *out = NULL;
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "%s: not a DER CRL", what);
    }
    return 0;
}

/* ---- the four requests ------------------------------------------------------------------ */

/* url for messages, without any user:password@ part (secrets never in messages) */
static void url_without_userinfo(const char *url, char *out, size_t cap)
{
    const char *host = strstr(url, "://");
    host = host != NULL ? host + 3 : url;
    size_t auth = strcspn(host, "/?#");
    const char *at = memchr(host, '@', auth);
    if (at == NULL) {
        snprintf(out, cap, "%s", url);
        return;
    }
    snprintf(out, cap, "%.*s%s", (int)(host - url), url, at + 1);
}

static void trim_base(const char *in, char *out, size_t cap)
{
    snprintf(out, cap, "%s", in);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/') {
        out[--n] = 0;
    }
    const char *suffix[] = {"/sgx/certification/v4", "/tdx/certification/v4"};
    for (int i = 0; i < 2; i++) {
        size_t sl = strlen(suffix[i]);
        if (n >= sl && strcmp(out + n - sl, suffix[i]) == 0) {
            out[n - sl] = 0;
            n -= sl;
        }
    }
    while (n > 0 && out[n - 1] == '/') {
        out[--n] = 0;
    }
}

/*
 * One PCS request: its URL, the response header that carries the issuer chain (with an
 * alternative name, PCS v4 uses both), and where the body goes in the collateral: a CRL (DER
 * or hex) or a signed JSON object with its signature.
 */
struct pcs_get {
    char url[800];
    const char *what;       /* name in error messages */
    const char *header[2];  /* issuer chain headers, NULL when the response has none */
    const char *signed_key; /* BODY is {"<signed_key>": {...}, "signature": ...}, else a CRL */
    uint8_t **crl;
    size_t *crl_len;
    char **text;
    size_t *text_len;
    uint8_t *sig;
    char **chain;
    size_t *chain_len;
};

static int pcs_get(const struct pcs_get *g, struct mero_err *err)
{
    struct resp r;
    resp_init(&r, g->header[0], g->header[1]);
    int rc = 0;
    MERO_TRY_OUT(http_get(g->url, &r, err));
    if (g->signed_key != NULL) {
        MERO_TRY_OUT(signed_body(&r, g->signed_key, g->text, g->text_len, g->sig, err));
    } else {
        MERO_TRY_OUT(crl_body(&r, g->crl, g->crl_len, err, g->what));
    }
    if (g->chain != NULL) {
        MERO_TRY_OUT(header_chain(&r, g->chain, g->chain_len, err, g->what));
    }
out:
    resp_cleanup(&r);
    if (rc < 0 && err != NULL && err->code == MERO_ECOLLATERAL_FETCH) {
        /* Name the URL tried (issue 35): the operator may have pointed us elsewhere. */
        char shown[sizeof(g->url)], reason[MERO_ERR_MSG_MAX];
        url_without_userinfo(g->url, shown, sizeof(shown));
        snprintf(reason, sizeof(reason), "%s", err->msg);
        (void)mero_err_set(err, MERO_ECOLLATERAL_FETCH, "GET %s: %s", shown, reason);
    }
    return rc;
}

int mero_pcs_fetch(const char *base_url, const uint8_t fmspc[static MERO_FMSPC_LEN], const char *ca,
                   struct mero_collateral *out, struct mero_err *err)
{
    char base[512], fm[MERO_HEX_SIZE(MERO_FMSPC_LEN)];
    struct mero_collateral c;
    int rc = 0;
    if (ca == NULL || (strcmp(ca, "platform") != 0 && strcmp(ca, "processor") != 0)) {
        return mero_err_set(err, MERO_EINVAL, "PCK CA must be platform or processor");
    }
    trim_base(base_url != NULL ? base_url : mero_pcs_base_url(), base, sizeof(base));
    if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0) {
        char shown[sizeof(base)];
        url_without_userinfo(base, shown, sizeof(shown));
        return mero_err_set(err, MERO_ECOLLATERAL_FETCH, "collateral URL must be http(s), not '%s'",
                            shown);
    }
    for (int i = 0; i < MERO_FMSPC_LEN; i++) {
        snprintf(fm + 2 * i, 3, "%02X", fmspc[i]);
    }
    mero_collateral_init(&c);
    struct pcs_get gets[] = {
        {.what = "pckcrl",
         .header = {"SGX-PCK-CRL-Issuer-Chain", NULL},
         .crl = &c.pck_crl,
         .crl_len = &c.pck_crl_len,
         .chain = &c.pck_crl_issuer_chain,
         .chain_len = &c.pck_crl_issuer_chain_len},
        {.what = "tcb",
         .header = {"TCB-Info-Issuer-Chain", "SGX-TCB-Info-Issuer-Chain"},
         .signed_key = "tcbInfo",
         .text = &c.tcb_info,
         .text_len = &c.tcb_info_len,
         .sig = c.tcb_info_signature,
         .chain = &c.tcb_info_issuer_chain,
         .chain_len = &c.tcb_info_issuer_chain_len},
        {.what = "qe/identity",
         .header = {"SGX-Enclave-Identity-Issuer-Chain", NULL},
         .signed_key = "enclaveIdentity",
         .text = &c.qe_identity,
         .text_len = &c.qe_identity_len,
         .sig = c.qe_identity_signature,
         .chain = &c.qe_identity_issuer_chain,
         .chain_len = &c.qe_identity_issuer_chain_len},
        {.what = "rootcacrl", .crl = &c.root_ca_crl, .crl_len = &c.root_ca_crl_len},
    };
    snprintf(gets[0].url, sizeof(gets[0].url), "%s/sgx/certification/v4/pckcrl?ca=%s&encoding=der",
             base, ca);
    snprintf(gets[1].url, sizeof(gets[1].url), "%s/tdx/certification/v4/tcb?fmspc=%s", base, fm);
    snprintf(gets[2].url, sizeof(gets[2].url),
             "%s/tdx/certification/v4/qe/identity?update=standard", base);
    /* Root CA CRL: Intel PCS does not serve it; a PCCS does (hex). No fallback to the
     * internet for a configured PCCS: the operator chose where collateral comes from. */
    if (strcmp(base, MERO_PCS_DEFAULT_URL) == 0) {
        snprintf(gets[3].url, sizeof(gets[3].url), "%s", MERO_PCS_ROOT_CRL_URL);
    } else {
        snprintf(gets[3].url, sizeof(gets[3].url), "%s/sgx/certification/v4/rootcacrl", base);
    }
    for (size_t i = 0; i < sizeof(gets) / sizeof(gets[0]); i++) {
        MERO_TRY_OUT(pcs_get(&gets[i], err));
    }
    mero_collateral_rehash(&c);
    *out = c;
    return 0;
out:
    mero_collateral_cleanup(&c);
    if (err != NULL && err->code != MERO_ENOMEM) {
        err->code = MERO_ECOLLATERAL_FETCH;
    }
    return rc == -MERO_ENOMEM ? rc : -MERO_ECOLLATERAL_FETCH;
}

/* ---- the hourly cache ------------------------------------------------------------------- */

void mero_pcs_stats(struct mero_pcs_stats *out)
{
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
}

uint64_t mero_pcs_backoff_next_ms(uint64_t prev_ms)
{
    const uint64_t first = (uint64_t)MERO_PCS_BACKOFF_FIRST_S * 1000;
    const uint64_t cap = (uint64_t)MERO_PCS_CACHE_SECONDS * 1000;
    if (prev_ms < first) {
        return first;
    }
    return prev_ms >= cap / 2 ? cap : prev_ms * 2;
}

static struct negative *negative_find(const char *key)
{
    for (size_t i = 0; i < MERO_PCS_CACHE_MAX; i++) {
        if (negatives[i].key[0] != 0 && strcmp(negatives[i].key, key) == 0) {
            return &negatives[i];
        }
    }
    return NULL;
}

/* Remember a failed fetch of key (under lock). */
static void negative_put(const char *key, int rc, const struct mero_err *err, uint64_t now)
{
    struct negative *n = negative_find(key);
    uint64_t prev = n != NULL ? n->backoff_ms : 0;
    for (size_t i = 0; n == NULL && i < MERO_PCS_CACHE_MAX; i++) {
        if (negatives[i].key[0] == 0 || negatives[i].until_ms <= now) {
            n = &negatives[i];
            prev = n->key[0] != 0 && strcmp(n->key, key) == 0 ? n->backoff_ms : 0;
        }
    }
    if (n == NULL) {
        n = &negatives[0];
        for (size_t i = 1; i < MERO_PCS_CACHE_MAX; i++) {
            if (negatives[i].until_ms < n->until_ms) {
                n = &negatives[i];
            }
        }
        prev = 0;
    }
    snprintf(n->key, sizeof(n->key), "%s", key);
    n->backoff_ms = mero_pcs_backoff_next_ms(prev);
    n->until_ms = now + n->backoff_ms;
    n->rc = rc;
    n->err = *err;
}

void mero_pcs_cache_clear(void)
{
    pthread_mutex_lock(&lock);
    memset(negatives, 0, sizeof(negatives));
    for (size_t i = 0; i < MERO_PCS_CACHE_MAX; i++) {
        if (cache[i] != NULL) {
            mero_collateral_cleanup(&cache[i]->c);
            free(cache[i]);
            cache[i] = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* FMSPC and PCK CA from the quote's PCK leaf. */
static int platform_of(const struct mero_quote *q, uint8_t fmspc[MERO_FMSPC_LEN], const char **ca,
                       struct mero_err *err)
{
    struct mero_x509_chain ch;
    if (mero__x509_chain_split(&ch, (const char *)q->pck_chain, q->pck_chain_len, err) < 0) {
        return mero_err_set(err, MERO_EQUOTE_PCKCHAIN, "the quote's PCK chain does not decode");
    }
    struct mero_sgx_ext ext;
    int rc = 0;
    MERO_TRY_OUT(mero__x509_chain_load(&ch, 0, err));
    MERO_ENSURE_OUT(mero__cert_sgx_ext(&ch.cert[0], &ext) == 0, err, MERO_EQUOTE_PCKCHAIN,
                    "the PCK leaf has no SGX extension");
    memcpy(fmspc, ext.fmspc, MERO_FMSPC_LEN);
    if (strstr(ch.cert[0].issuer_cn, "Platform") != NULL) {
        *ca = "platform";
    } else if (strstr(ch.cert[0].issuer_cn, "Processor") != NULL) {
        *ca = "processor";
    } else {
        rc = mero_err_set(err, MERO_EQUOTE_PCKCHAIN,
                          "PCK issuer is neither Platform nor Processor CA");
    }
out:
    mero__x509_chain_cleanup(&ch);
    return rc < 0 ? -MERO_EQUOTE_PCKCHAIN : 0;
}

int mero_pcs_collateral_for_quote(const uint8_t *quote, size_t len, struct mero_collateral *out,
                                  struct mero_err *err)
{
    struct mero_quote q;
    MERO_TRY(mero_quote_parse(&q, quote, len, err));
    return mero_pcs_collateral_for_parsed(&q, out, err);
}

int mero_pcs_collateral_for_parsed(const struct mero_quote *q, struct mero_collateral *out,
                                   struct mero_err *err)
{
    uint8_t fmspc[MERO_FMSPC_LEN];
    const char *ca = NULL;
    MERO_TRY(platform_of(q, fmspc, &ca, err));
    char base[512], key[600], fm[MERO_HEX_SIZE(MERO_FMSPC_LEN)];
    trim_base(mero_pcs_base_url(), base, sizeof(base));
    for (int i = 0; i < MERO_FMSPC_LEN; i++) {
        snprintf(fm + 2 * i, 3, "%02x", fmspc[i]);
    }
    snprintf(key, sizeof(key), "%s|%s|%s", base, fm, ca);
    pthread_mutex_lock(&lock);
    struct flight *f;
    for (;;) {
        uint64_t now = mero_now_ms();
        for (size_t i = 0; i < MERO_PCS_CACHE_MAX; i++) {
            struct entry *e = cache[i];
            if (e != NULL && strcmp(e->key, key) == 0 &&
                now - e->fetched_ms < (uint64_t)MERO_PCS_CACHE_SECONDS * 1000) {
                int rc = mero_collateral_copy(out, &e->c);
                if (rc == 0) {
                    stats.cache_hits++;
                }
                pthread_mutex_unlock(&lock);
                return rc < 0 ? mero_err_set(err, MERO_ENOMEM, "out of memory") : 0;
            }
        }
        struct negative *neg = negative_find(key);
        if (neg != NULL && now < neg->until_ms) {
            /* failed recently: the source is not asked again before the back-off ends */
            int nrc = neg->rc;
            stats.negative_hits++;
            if (err != NULL) {
                *err = neg->err;
            }
            pthread_mutex_unlock(&lock);
            return nrc;
        }
        for (f = flights; f != NULL && strcmp(f->key, key) != 0; f = f->next) {
        }
        if (f == NULL) {
            break;
        }
        /* Single flight: join the fetch in progress. */
        f->refs++;
        while (!f->done) {
            pthread_cond_wait(&flight_cond, &lock);
        }
        int frc = f->rc;
        if (frc < 0 && err != NULL) {
            *err = f->err;
        }
        flight_unref(f);
        if (frc < 0) {
            pthread_mutex_unlock(&lock);
            return frc;
        }
        /* Fetched and cached: look again (a clear meanwhile means fetching anew). */
    }
    f = calloc(1, sizeof(*f));
    if (f == NULL) {
        pthread_mutex_unlock(&lock);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    snprintf(f->key, sizeof(f->key), "%s", key);
    f->refs = 1;
    f->next = flights;
    flights = f;
    pthread_mutex_unlock(&lock);
    /* Fetch outside the lock. */
    struct mero_err ferr;
    mero_err_clear(&ferr);
    struct entry *e = calloc(1, sizeof(*e));
    int rc = e == NULL ? mero_err_set(&ferr, MERO_ENOMEM, "out of memory")
                       : mero_pcs_fetch(base, fmspc, ca, &e->c, &ferr);
    if (rc == 0) {
        rc = mero_collateral_copy(out, &e->c) < 0
                 ? mero_err_set(&ferr, MERO_ENOMEM, "out of memory")
                 : 0;
    }
    pthread_mutex_lock(&lock);
    for (struct flight **pp = &flights; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    f->done = true;
    f->rc = rc;
    f->err = ferr;
    pthread_cond_broadcast(&flight_cond);
    flight_unref(f);
    if (rc < 0) {
        stats.failures++;
        if (rc != -MERO_ENOMEM) {
            negative_put(key, rc, &ferr, mero_now_ms());
        }
        pthread_mutex_unlock(&lock);
        if (e != NULL) {
            mero_collateral_cleanup(&e->c);
            free(e);
        }
        if (err != NULL) {
            *err = ferr;
        }
        return rc;
    }
    stats.fetches++;
    struct negative *neg = negative_find(key);
    if (neg != NULL) {
        memset(neg, 0, sizeof(*neg)); /* the source answered: forget the failure */
    }
    snprintf(e->key, sizeof(e->key), "%s", key);
    e->fetched_ms = mero_now_ms();
    size_t slot = 0;
    uint64_t oldest = UINT64_MAX;
    for (size_t i = 0; i < MERO_PCS_CACHE_MAX; i++) {
        uint64_t age = cache[i] == NULL ? 0 : cache[i]->fetched_ms;
        if (cache[i] != NULL && strcmp(cache[i]->key, key) == 0) {
            slot = i; /* replace the stale entry for this key */
            break;
        }
        if (age < oldest) {
            oldest = age;
            slot = i;
        }
    }
    if (cache[slot] != NULL) {
        mero_collateral_cleanup(&cache[slot]->c);
        free(cache[slot]);
    }
    cache[slot] = e;
    pthread_mutex_unlock(&lock);
    return 0;
}
