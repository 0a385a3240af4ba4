/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trustroot.c - parse a Sigstore trusted_root.json (protobuf-specs sigstore_trustroot.proto,
 * reference-sigstore-ccel.md §A.7): the Rekor logs, the Fulcio certificate authorities and the
 * CT logs, each with its validity window.
 *
 * Invariants: only the operator-named file is trusted (no TUF, no built-in copy); an entry
 * whose key or chain does not parse fails the whole file (fail closed, no partial trust); a
 * validFor without a start fails (sigstore-go does the same); the timestamp authorities are
 * not used (Rekor v2 / RFC 3161 is not supported, see docs/sigstore.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

#include "attest/sigstore_internal.h"

static int parse_window(json_t *vf, int64_t *start, int64_t *end)
{
    if (!json_is_object(vf)) {
        return -MERO_EINVAL;
    }
    if (mero__sig_time_parse(mero__json_str(vf, "start"), start) < 0) {
        return -MERO_EINVAL;
    }
    *end = SIG_TIME_OPEN;
    if (json_object_get(vf, "end") != NULL &&
        mero__sig_time_parse(mero__json_str(vf, "end"), end) < 0) {
        return -MERO_EINVAL;
    }
    return 0;
}

static int parse_log(json_t *j, struct sig_log *log, struct mero_err *err, const char *what,
                     size_t i)
{
    json_t *pk = json_object_get(j, "publicKey");
    json_t *id = json_object_get(j, "logId");
    uint8_t *der = NULL, *kid = NULL;
    size_t derlen = 0, kidlen = 0;
    int rc = -MERO_EINVAL;
    if (!json_is_object(pk) || !json_is_object(id)) {
        goto out;
    }
    if (mero__json_b64(pk, "rawBytes", 4096, &der, &derlen) < 0 ||
        mero__json_b64(id, "keyId", 64, &kid, &kidlen) < 0 || kidlen != 32) {
        goto out;
    }
    if (parse_window(json_object_get(pk, "validFor"), &log->start, &log->end) < 0) {
        goto out;
    }
    const unsigned char *p = der;
    log->key = d2i_PUBKEY(NULL, &p, (long)derlen);
    if (log->key == NULL || p != der + derlen) {
        EVP_PKEY_free(log->key);
        log->key = NULL;
        goto out;
    }
    memcpy(log->log_id, kid, 32);
    rc = 0;
out:
    free(der);
    free(kid);
    if (rc < 0) {
        mero_err_set(err, MERO_EINVAL, "trusted root: %s[%zu] malformed", what, i);
    }
    return rc;
}

static int parse_ca(json_t *j, struct sig_ca *ca, struct mero_err *err, size_t i)
{
    json_t *chain = json_object_get(json_object_get(j, "certChain"), "certificates");
    if (!json_is_array(chain) || json_array_size(chain) == 0 ||
        json_array_size(chain) > SIG_MAX_CA_CERTS ||
        parse_window(json_object_get(j, "validFor"), &ca->start, &ca->end) < 0) {
        return mero_err_set(err, MERO_EINVAL, "trusted root: certificateAuthorities[%zu]", i);
    }
    for (size_t k = 0; k < json_array_size(chain); k++) {
        uint8_t *der = NULL;
        size_t n = 0;
        X509 *x = NULL;
        if (mero__json_b64(json_array_get(chain, k), "rawBytes", SIG_MAX_CERT, &der, &n) < 0 ||
            mero__sig_der_cert(der, n, &x) < 0) {
            free(der);
            return mero_err_set(err, MERO_EINVAL,
                                "trusted root: certificateAuthorities[%zu] certificate %zu", i, k);
        }
        free(der);
        ca->certs[ca->ncerts++] = x;
    }
    return 0;
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
    for (size_t i = 0; i < tr->ncas; i++) {
        for (size_t k = 0; k < tr->cas[i].ncerts; k++) {
            X509_free(tr->cas[i].certs[k]);
        }
    }
    free(tr);
}

static int parse_logs(json_t *root, const char *key, struct sig_log *logs, size_t *n,
                      struct mero_err *err)
{
    json_t *arr = json_object_get(root, key);
    if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > SIG_MAX_LOGS) {
        return mero_err_set(err, MERO_EINVAL, "trusted root: %s missing or too long", key);
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        int rc = parse_log(json_array_get(arr, i), &logs[*n], err, key, i);
        if (rc < 0) {
            return rc;
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
    if (tr == NULL) {
        goto out;
    }
    const char *mt = mero__json_str(root, "mediaType");
    if (mt == NULL ||
        (strcmp(mt, "application/vnd.dev.sigstore.trustedroot+json;version=0.1") != 0 &&
         strcmp(mt, "application/vnd.dev.sigstore.trustedroot.v0.2+json") != 0)) {
        rc = mero_err_set(err, MERO_EUNSUPPORTED, "trusted root: unknown mediaType");
        goto out;
    }
    rc = parse_logs(root, "tlogs", tr->tlogs, &tr->ntlogs, err);
    if (rc < 0) {
        goto out;
    }
    rc = parse_logs(root, "ctlogs", tr->ctlogs, &tr->nctlogs, err);
    if (rc < 0) {
        goto out;
    }
    json_t *cas = json_object_get(root, "certificateAuthorities");
    if (!json_is_array(cas) || json_array_size(cas) == 0 || json_array_size(cas) > SIG_MAX_CAS) {
        rc = mero_err_set(err, MERO_EINVAL, "trusted root: certificateAuthorities missing");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(cas); i++) {
        rc = parse_ca(json_array_get(cas, i), &tr->cas[tr->ncas], err, i);
        tr->ncas++; /* counted even on failure so its certificates are freed */
        if (rc < 0) {
            goto out;
        }
    }
    *out = tr;
    tr = NULL;
    rc = 0;
out:
    mero_trust_root_free(tr);
    json_decref(root);
    ERR_clear_error();
    return rc;
}

int mero_trust_root_load(struct mero_trust_root **out, const char *path, struct mero_err *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return mero_err_set(err, MERO_EIO, "cannot open trusted root %s", path);
    }
    size_t cap = MERO_SIGSTORE_MAX_TRUST_ROOT + 1;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, cap, f);
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (bad) {
        rc = mero_err_set(err, MERO_EIO, "cannot read trusted root %s", path);
    } else {
        rc = mero_trust_root_parse(out, buf, n, err);
    }
    free(buf);
    return rc;
}

const struct sig_log *mero__trust_root_tlog(const struct mero_trust_root *tr, const uint8_t id[32])
{
    for (size_t i = 0; i < tr->ntlogs; i++) {
        if (memcmp(tr->tlogs[i].log_id, id, 32) == 0) {
            return &tr->tlogs[i];
        }
    }
    return NULL;
}
