/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trustroot.c - parse a Sigstore trusted_root.json (protobuf-specs sigstore_trustroot.proto,
 * reference-sigstore-ccel.md §A.7): the Rekor logs (v1 ECDSA, v2 Ed25519), the Fulcio
 * certificate authorities, the CT logs and the RFC 3161 timestamp authorities, each with its
 * validity window; the shipped public-good root and its SHA-256 pin; lookups by log id.
 *
 * Invariants: the document's shape (media type, arrays, sizes) is strict, but one entry that
 * cannot be used (a key type we do not know, a key that does not parse or does not match its
 * keyDetails, a validFor without a start, a certificate that does not parse) is kept as a
 * skipped entry with its reason and a debug log, never trusted and never fatal; a
 * verification fails only when the key it needs is missing or unusable, with a reason that
 * names the log id. A key is used only at times inside its validFor (inclusive ends).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>

#include "attest/sigstore_internal.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/log.h"

#define LOG_ID_B64_MAX 64 /* the decoded keyId a log entry may carry (then checked exactly) */

/* A log id as the trusted root writes it (base64, 44 characters). */
static void id_b64(char out[SIG_ID_B64_SIZE], const uint8_t id[MERO_SHA256_LEN])
{
    EVP_EncodeBlock((unsigned char *)out, id, MERO_SHA256_LEN);
}

static int parse_window(json_t *vf, int64_t *start, int64_t *end)
{
    if (!json_is_object(vf)) {
        return -MERO_EINVAL;
    }
    if (mero__sig_time_parse(mero__json_str(vf, "start"), start) < 0) {
        return -MERO_EINVAL;
    }
    *end = SIG_TIME_OPEN;
    json_t *e = json_object_get(vf, "end");
    if (e != NULL && !json_is_null(e) && mero__sig_time_parse(mero__json_str(vf, "end"), end) < 0) {
        return -MERO_EINVAL;
    }
    return *end < *start ? -MERO_EINVAL : 0;
}

/* Copy a URL without its scheme ("https://log2025-1.rekor.sigstore.dev" -> the host). */
static void url_name(char *out, size_t cap, const char *url)
{
    out[0] = 0;
    if (url == NULL) {
        return;
    }
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    snprintf(out, cap, "%s", p);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/') {
        out[--n] = 0;
    }
}

static const struct {
    const char *name;
    enum sig_keytype type;
    int pkcs1_der; /* rawBytes is a PKCS#1 RSAPublicKey, not an SPKI */
    int bits;      /* RSA modulus size the name pins; 0 = any of 2048..4096 */
} key_details[] = {
    {"PKIX_ECDSA_P256_SHA_256", SIG_KT_EC_P256, 0, 0},
    {"PKIX_ECDSA_P384_SHA_384", SIG_KT_EC_P384, 0, 0},
    {"PKIX_ECDSA_P521_SHA_512", SIG_KT_EC_P521, 0, 0},
    {"PKIX_ED25519", SIG_KT_ED25519, 0, 0},
    {"PKIX_RSA_PKCS1V15_2048_SHA256", SIG_KT_RSA_PKCS1, 0, 2048},
    {"PKIX_RSA_PKCS1V15_3072_SHA256", SIG_KT_RSA_PKCS1, 0, 3072},
    {"PKIX_RSA_PKCS1V15_4096_SHA256", SIG_KT_RSA_PKCS1, 0, 4096},
    {"PKIX_RSA_PSS_2048_SHA256", SIG_KT_RSA_PSS, 0, 2048},
    {"PKIX_RSA_PSS_3072_SHA256", SIG_KT_RSA_PSS, 0, 3072},
    {"PKIX_RSA_PSS_4096_SHA256", SIG_KT_RSA_PSS, 0, 4096},
    {"PKCS1_RSA_PKCS1V5", SIG_KT_RSA_PKCS1, 1, 0},
    {"PKCS1_RSA_PSS", SIG_KT_RSA_PSS, 1, 0},
    {"PKIX_RSA_PKCS1V5", SIG_KT_RSA_PKCS1, 0, 0},
    {"PKIX_RSA_PSS", SIG_KT_RSA_PSS, 0, 0},
};

/* Decode the key of one log entry; on failure why[] says what is wrong. */
static int load_key(struct sig_log *log, const char *details, const uint8_t *der, size_t n)
{
    int idx = -1;
    if (details != NULL) {
        for (size_t i = 0; i < sizeof(key_details) / sizeof(key_details[0]); i++) {
            if (strcmp(details, key_details[i].name) == 0) {
                idx = (int)i;
            }
        }
        if (idx < 0) {
            snprintf(log->why, sizeof(log->why), "key type %.40s not supported", details);
            return -MERO_EUNSUPPORTED;
        }
    }
    const unsigned char *p = der;
    EVP_PKEY *k = (idx >= 0 && key_details[idx].pkcs1_der)
                      ? d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)n)
                      : d2i_PUBKEY(NULL, &p, (long)n);
    if (k == NULL || p != der + n) {
        EVP_PKEY_free(k);
        snprintf(log->why, sizeof(log->why), "public key does not parse");
        return -MERO_EINVAL;
    }
    enum sig_keytype own = mero__sig_key_type(k);
    enum sig_keytype want = idx >= 0 ? key_details[idx].type : own;
    int bits = EVP_PKEY_get_bits(k);
    int rsa = want == SIG_KT_RSA_PKCS1 || want == SIG_KT_RSA_PSS;
    if (own == SIG_KT_UNKNOWN || (rsa ? own != SIG_KT_RSA_PKCS1 : own != want) ||
        (rsa && idx >= 0 && key_details[idx].bits != 0 && bits != key_details[idx].bits)) {
        EVP_PKEY_free(k);
        snprintf(log->why, sizeof(log->why), "public key is not a %.40s key",
                 details ? details : "supported");
        return -MERO_EUNSUPPORTED;
    }
    log->key = k;
    log->type = want;
    return 0;
}

/* One tlog / ctlog entry. Only a shape error is returned; an unusable entry is kept skipped. */
static int parse_log(json_t *j, struct sig_log *log, const char *what, size_t i)
{
    json_t *pk = json_object_get(j, "publicKey");
    json_t *id = json_object_get(j, "logId");
    uint8_t *der = NULL, *kid = NULL;
    size_t derlen = 0, kidlen = 0;
    if (!json_is_object(j) || !json_is_object(id) ||
        mero__json_b64(id, "keyId", LOG_ID_B64_MAX, &kid, &kidlen) < 0 ||
        kidlen != sizeof(log->log_id)) {
        free(kid);
        return -MERO_EINVAL; /* without its id an entry cannot even be named */
    }
    memcpy(log->log_id, kid, sizeof(log->log_id));
    free(kid);
    url_name(log->name, sizeof(log->name), mero__json_str(j, "baseUrl"));
    const char *details = mero__json_str(pk, "keyDetails");
    snprintf(log->details, sizeof(log->details), "%s", details ? details : "");
    if (!json_is_object(pk) || mero__json_b64(pk, "rawBytes", 4096, &der, &derlen) < 0) {
        snprintf(log->why, sizeof(log->why), "publicKey.rawBytes missing");
    } else if (parse_window(json_object_get(pk, "validFor"), &log->start, &log->end) < 0) {
        snprintf(log->why, sizeof(log->why), "publicKey.validFor has no valid start");
    } else {
        (void)load_key(log, details, der, derlen);
    }
    free(der);
    if (log->key == NULL) {
        char idb[SIG_ID_B64_SIZE];
        id_b64(idb, log->log_id);
        MERO_DEBUG("trusted root: %s[%zu] (log id %s) skipped: %s", what, i, idb, log->why);
    }
    return 0;
}

static int parse_ca(json_t *j, struct sig_ca *ca, const char *what, size_t i)
{
    json_t *chain = json_object_get(json_object_get(j, "certChain"), "certificates");
    json_t *subj = json_object_get(j, "subject");
    const char *cn = mero__json_str(subj, "commonName"), *uri = mero__json_str(j, "uri");
    if (!json_is_object(j)) {
        return -MERO_EINVAL;
    }
    snprintf(ca->name, sizeof(ca->name), "%s%s%s", cn ? cn : "", cn && uri ? " " : "",
             uri ? uri : "");
    if (!json_is_array(chain) || json_array_size(chain) == 0 ||
        json_array_size(chain) > SIG_MAX_CA_CERTS) {
        snprintf(ca->why, sizeof(ca->why), "certChain empty or too long");
    } else if (parse_window(json_object_get(j, "validFor"), &ca->start, &ca->end) < 0) {
        snprintf(ca->why, sizeof(ca->why), "validFor has no valid start");
    }
    for (size_t k = 0; ca->why[0] == 0 && k < json_array_size(chain); k++) {
        uint8_t *der = NULL;
        size_t n = 0;
        X509 *x = NULL;
        if (mero__json_b64(json_array_get(chain, k), "rawBytes", SIG_MAX_CERT, &der, &n) < 0 ||
            mero__sig_der_cert(der, n, &x) < 0) {
            snprintf(ca->why, sizeof(ca->why), "certificate %zu does not parse", k);
        } else {
            ca->certs[ca->ncerts++] = x;
        }
        free(der);
    }
    if (ca->why[0] != 0) {
        for (size_t k = 0; k < ca->ncerts; k++) {
            X509_free(ca->certs[k]);
            ca->certs[k] = NULL;
        }
        ca->ncerts = 0;
        MERO_DEBUG("trusted root: %s[%zu] (%s) skipped: %s", what, i, ca->name, ca->why);
    }
    return 0;
}

static void free_cas(struct sig_ca *cas, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < cas[i].ncerts; k++) {
            X509_free(cas[i].certs[k]);
        }
    }
}

void mero_trust_root_free(struct mero_trust_root *tr)
{
    if (tr == NULL) {
        return;
    }
    for (size_t i = 0; i < tr->ntlogs; i++) {
        EVP_PKEY_free(tr->tlogs[i].key);
    }
    for (size_t i = 0; i < tr->nctlogs; i++) {
        EVP_PKEY_free(tr->ctlogs[i].key);
    }
    free_cas(tr->cas, tr->ncas);
    free_cas(tr->tsas, tr->ntsas);
    free(tr);
}

/* An array of the root: `required` ones must be present and non-empty. */
static json_t *root_array(json_t *root, const char *key, int required, size_t max,
                          struct mero_err *err)
{
    json_t *arr = json_object_get(root, key);
    if (arr == NULL && !required) {
        return json_null();
    }
    if (!json_is_array(arr) || (required && json_array_size(arr) == 0) ||
        json_array_size(arr) > max) {
        mero_err_set(err, MERO_EINVAL, "trusted root: %s missing, empty or too long", key);
        return NULL;
    }
    return arr;
}

static int parse_logs(json_t *root, const char *key, int required, struct sig_log *logs, size_t *n,
                      struct mero_err *err)
{
    json_t *arr = root_array(root, key, required, SIG_MAX_LOGS, err);
    if (arr == NULL) {
        return -MERO_EINVAL;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        if (parse_log(json_array_get(arr, i), &logs[*n], key, i) < 0) {
            return mero_err_set(err, MERO_EINVAL, "trusted root: %s[%zu] has no logId", key, i);
        }
        (*n)++;
    }
    return 0;
}

static int parse_cas(json_t *root, const char *key, int required, struct sig_ca *cas, size_t *n,
                     struct mero_err *err)
{
    json_t *arr = root_array(root, key, required, SIG_MAX_CAS, err);
    if (arr == NULL) {
        return -MERO_EINVAL;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        if (parse_ca(json_array_get(arr, i), &cas[*n], key, i) < 0) {
            return mero_err_set(err, MERO_EINVAL, "trusted root: %s[%zu] is not an object", key, i);
        }
        (*n)++;
    }
    return 0;
}

int mero_trust_root_parse(struct mero_trust_root **out, const uint8_t *json, size_t len,
                          struct mero_err *err)
{
    json_t *root = mero__json_load(json, len, MERO_SIGSTORE_MAX_TRUST_ROOT, err);
    if (root == NULL) {
        return -MERO_EJSON;
    }
    struct mero_trust_root *tr = calloc(1, sizeof(*tr));
    int rc = -MERO_ENOMEM;
    MERO_ENSURE_OUT(tr != NULL, NULL, MERO_ENOMEM, "out of memory");
    const char *mt = mero__json_str(root, "mediaType");
    MERO_ENSURE_OUT(
        mt != NULL &&
            (strcmp(mt, "application/vnd.dev.sigstore.trustedroot+json;version=0.1") == 0 ||
             strcmp(mt, "application/vnd.dev.sigstore.trustedroot.v0.2+json") == 0),
        err, MERO_EUNSUPPORTED, "trusted root: unknown mediaType");
    MERO_TRY_OUT(parse_logs(root, "tlogs", 1, tr->tlogs, &tr->ntlogs, err));
    MERO_TRY_OUT(parse_logs(root, "ctlogs", 0, tr->ctlogs, &tr->nctlogs, err));
    MERO_TRY_OUT(parse_cas(root, "certificateAuthorities", 1, tr->cas, &tr->ncas, err));
    MERO_TRY_OUT(parse_cas(root, "timestampAuthorities", 0, tr->tsas, &tr->ntsas, err));
    *out = tr;
    tr = NULL;
    rc = 0;
out:
    mero_trust_root_free(tr);
    json_decref(root);
    ERR_clear_error();
    return rc;
}

static int read_file(const char *path, uint8_t **buf, size_t *len, struct mero_err *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return mero_err_set(err, MERO_EIO, "cannot open trusted root %s", path);
    }
    size_t cap = MERO_SIGSTORE_MAX_TRUST_ROOT + 1;
    uint8_t *b = malloc(cap);
    if (b == NULL) {
        fclose(f);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    size_t n = fread(b, 1, cap, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return mero_err_set(err, MERO_EIO, "cannot read trusted root %s", path);
    }
    *buf = b;
    *len = n;
    return 0;
}

int mero_trust_root_load(struct mero_trust_root **out, const char *path, struct mero_err *err)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    MERO_TRY(read_file(path, &buf, &n, err));
    int rc = mero_trust_root_parse(out, buf, n, err);
    free(buf);
    return rc;
}

/* The shipped copy: next to the binary (<exe dir>/../share/mero/...), else the install path. */
int mero_trust_root_default_path(char *out, size_t cap)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = 0;
            int w = snprintf(out, cap, "%s/../%s", exe, MERO_SIGSTORE_SHIPPED_ROOT_REL);
            if (w > 0 && (size_t)w < cap && access(out, R_OK) == 0) {
                return 0;
            }
        }
    }
    int w = snprintf(out, cap, "%s/%s", MERO_SIGSTORE_PREFIX, MERO_SIGSTORE_SHIPPED_ROOT_REL);
    return w > 0 && (size_t)w < cap ? 0 : -MERO_ETOOBIG;
}

int mero_trust_root_load_shipped(struct mero_trust_root **out, const char *path,
                                 struct mero_err *err)
{
    char def[1200];
    if (path == NULL) {
        if (mero_trust_root_default_path(def, sizeof(def)) < 0) {
            return mero_err_set(err, MERO_EIO, "shipped trusted root path too long");
        }
        path = def;
    }
    uint8_t *buf = NULL;
    size_t n = 0;
    MERO_TRY(read_file(path, &buf, &n, err));
    uint8_t h[MERO_SHA256_LEN], pin[MERO_SHA256_LEN];
    mero_sha256(h, buf, n);
    int rc;
    if (mero_hex_decode_exact(pin, sizeof(pin), MERO_SIGSTORE_SHIPPED_ROOT_SHA256,
                              MERO_HEX_LEN(sizeof(pin))) < 0 ||
        memcmp(h, pin, sizeof(h)) != 0) {
        rc = mero_err_set(err, MERO_EROOT,
                          "shipped trusted root %s is not the pinned file (SHA-256 differs); "
                          "set MERO_SIGSTORE_TRUSTED_ROOT to use another root",
                          path);
    } else {
        rc = mero_trust_root_parse(out, buf, n, err);
    }
    free(buf);
    return rc;
}

int mero_trust_root_load_env(struct mero_trust_root **out, struct mero_err *err)
{
    const char *p = getenv("MERO_SIGSTORE_TRUSTED_ROOT");
    if (p != NULL && p[0] != 0) {
        return mero_trust_root_load(out, p, err);
    }
    return mero_trust_root_load_shipped(out, NULL, err);
}

int mero__trust_root_log(const struct sig_log *logs, size_t n, const uint8_t id[MERO_SHA256_LEN],
                         int64_t t, int window_code, const struct sig_log **out,
                         struct mero_err *err)
{
    const struct sig_log *skipped = NULL, *outside = NULL;
    char idb[SIG_ID_B64_SIZE];
    id_b64(idb, id);
    for (size_t i = 0; i < n; i++) {
        const struct sig_log *l = &logs[i];
        if (memcmp(l->log_id, id, sizeof(l->log_id)) != 0) {
            continue;
        }
        if (l->key == NULL) {
            MERO_DEBUG("log %s: entry %zu passed over: %s", idb, i, l->why);
            skipped = l;
            continue;
        }
        if (t < l->start || t > l->end) {
            MERO_DEBUG("log %s: entry %zu not valid at %lld", idb, i, (long long)t);
            outside = l;
            continue;
        }
        *out = l;
        return 0;
    }
    if (outside != NULL) {
        return mero_err_set(err, window_code, "the key of log %s is not valid at %lld", idb,
                            (long long)t);
    }
    if (skipped != NULL) {
        return mero_err_set(err, MERO_ESIGSTORE_LOG,
                            "the trusted root's key for log %s is unusable: %s", idb, skipped->why);
    }
    return mero_err_set(err, MERO_ESIGSTORE_LOG,
                        "the entry's transparency log %s is not in the trusted root", idb);
}

static const char *kt_name(enum sig_keytype t)
{
    switch (t) {
    case SIG_KT_EC_P256:
        return "ECDSA P-256 SHA-256";
    case SIG_KT_EC_P384:
        return "ECDSA P-384 SHA-384";
    case SIG_KT_EC_P521:
        return "ECDSA P-521 SHA-512";
    case SIG_KT_ED25519:
        return "Ed25519";
    case SIG_KT_RSA_PKCS1:
        return "RSA PKCS#1 v1.5 SHA-256";
    case SIG_KT_RSA_PSS:
        return "RSA PSS SHA-256";
    default:
        return "unknown";
    }
}

static void fmt_time(char out[SIG_TIME_TEXT_MAX], int64_t t)
{
    if (t == SIG_TIME_OPEN) {
        snprintf(out, SIG_TIME_TEXT_MAX, "open");
        return;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    if (gmtime_r(&tt, &tm) == NULL ||
        strftime(out, SIG_TIME_TEXT_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        snprintf(out, SIG_TIME_TEXT_MAX, "%lld", (long long)t);
    }
}

void mero_trust_root_stats(const struct mero_trust_root *tr, struct mero_trust_root_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->tlogs = tr->ntlogs;
    st->ctlogs = tr->nctlogs;
    st->cas = tr->ncas;
    st->tsas = tr->ntsas;
    for (size_t i = 0; i < tr->ntlogs; i++) {
        st->tlogs_usable += tr->tlogs[i].key != NULL;
    }
    for (size_t i = 0; i < tr->nctlogs; i++) {
        st->ctlogs_usable += tr->ctlogs[i].key != NULL;
    }
    for (size_t i = 0; i < tr->ncas; i++) {
        st->cas_usable += tr->cas[i].ncerts != 0;
    }
    for (size_t i = 0; i < tr->ntsas; i++) {
        st->tsas_usable += tr->tsas[i].ncerts != 0;
    }
}

static int describe_logs(struct mero_buf *b, const char *kind, const struct sig_log *logs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct sig_log *l = &logs[i];
        char idb[SIG_ID_B64_SIZE], s[SIG_TIME_TEXT_MAX], e[SIG_TIME_TEXT_MAX];
        id_b64(idb, l->log_id);
        fmt_time(s, l->start);
        fmt_time(e, l->end);
        int rc = l->key != NULL
                     ? mero_buf_printf(b, "%s %s id %s key %s valid %s .. %s\n", kind, l->name, idb,
                                       kt_name(l->type), s, e)
                     : mero_buf_printf(b, "%s %s id %s skipped: %s\n", kind, l->name, idb, l->why);
        MERO_TRY(rc);
    }
    return 0;
}

static int describe_cas(struct mero_buf *b, const char *kind, const struct sig_ca *cas, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct sig_ca *c = &cas[i];
        char s[SIG_TIME_TEXT_MAX], e[SIG_TIME_TEXT_MAX];
        fmt_time(s, c->start);
        fmt_time(e, c->end);
        int rc = c->ncerts != 0 ? mero_buf_printf(b, "%s %s chain of %zu valid %s .. %s\n", kind,
                                                  c->name, c->ncerts, s, e)
                                : mero_buf_printf(b, "%s %s skipped: %s\n", kind, c->name, c->why);
        MERO_TRY(rc);
    }
    return 0;
}

int mero_trust_root_describe(const struct mero_trust_root *tr, char *out, size_t cap)
{
    struct mero_buf b;
    mero_buf_init(&b, cap > 0 ? cap - 1 : 0);
    int rc = 0;
    MERO_TRY_OUT(describe_logs(&b, "tlog", tr->tlogs, tr->ntlogs));
    MERO_TRY_OUT(describe_logs(&b, "ctlog", tr->ctlogs, tr->nctlogs));
    MERO_TRY_OUT(describe_cas(&b, "ca", tr->cas, tr->ncas));
    MERO_TRY_OUT(describe_cas(&b, "tsa", tr->tsas, tr->ntsas));
    if (cap > 0) {
        if (b.len > 0) {
            memcpy(out, b.data, b.len);
        }
        out[b.len] = 0;
        rc = (int)b.len;
    }
out:
    mero_buf_cleanup(&b);
    return rc < 0 ? -MERO_ETOOBIG : rc;
}
