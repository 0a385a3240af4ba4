/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sigstore_rekor.c - the transparency evidence of a bundle: the Rekor v1 signed entry
 * timestamp (SET) over the canonical entry, the RFC 6962 / RFC 9162 inclusion proof, and the
 * signed checkpoint note (C2SP tlog-checkpoint) of Rekor v1 (ECDSA) and v2 (Ed25519 note key)
 * logs (reference-sigstore-ccel.md §A.4 steps 3-5).
 *
 * Invariants: the SET payload is rebuilt from the parsed fields (never taken from the bundle
 * as bytes), so what is signed is exactly what the rest of the verifier uses; the log key must
 * be valid at the integrated time (inclusive ends); the checkpoint must be signed by the same
 * log (key hint = first 4 bytes of its log ID; for an Ed25519 note key the signer name must
 * hash to the log ID) and name the proof's tree size and root hash.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "attest/sigstore_internal.h"
#include "mero/buf.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

int mero__sig_verify_set(const struct sig_log *log, const struct sig_bundle *b,
                         struct mero_err *err)
{
    if (b->set == NULL) {
        return mero_err_set(err, MERO_ESIGSTORE_SET,
                            "no signed entry timestamp: the integrated time is unauthenticated");
    }
    if (b->integrated_time < log->start || b->integrated_time > log->end) {
        return mero_err_set(err, MERO_ESIGSTORE_SET,
                            "Rekor key not valid at integrated time %" PRId64, b->integrated_time);
    }
    /* RFC 8785 canonical JSON of four fixed keys: sorted, no whitespace. */
    char *body64 = mero_base64_encode(b->body, b->body_len);
    char logid[MERO_HEX_SIZE(MERO_SHA256_LEN)];
    if (body64 == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_hex_encode(logid, b->log_id, sizeof(b->log_id));
    struct mero_buf msg;
    mero_buf_init(&msg, SIG_MAX_BODY * 2);
    int rc = mero_buf_printf(&msg,
                             "{\"body\":\"%s\",\"integratedTime\":%" PRId64
                             ",\"logID\":\"%s\",\"logIndex\":%" PRIu64 "}",
                             body64, b->integrated_time, logid, b->log_index);
    free(body64);
    if (rc < 0) {
        mero_buf_cleanup(&msg);
        return mero_err_set(err, -rc, "SET payload too large");
    }
    rc = mero__sig_verify_key(log->key, log->type, msg.data, msg.len, b->set, b->set_len);
    mero_buf_cleanup(&msg);
    if (rc < 0) {
        return mero_err_set(err, MERO_ESIGSTORE_SET,
                            "Rekor signed entry timestamp does not verify under the log key");
    }
    return 0;
}

static void node_hash(uint8_t out[MERO_SHA256_LEN], const uint8_t l[MERO_SHA256_LEN],
                      const uint8_t r[MERO_SHA256_LEN])
{
    struct mero_sha256 h;
    uint8_t one = 0x01;
    mero_sha256_init(&h);
    mero_sha256_update(&h, &one, 1);
    mero_sha256_update(&h, l, MERO_SHA256_LEN);
    mero_sha256_update(&h, r, MERO_SHA256_LEN);
    mero_sha256_final(&h, out);
}

/* RFC 9162 §2.1.3.2: recompute the root from the leaf index, tree size and audit path. */
int mero__sig_verify_proof(const struct sig_bundle *b, struct mero_err *err)
{
    if (!b->has_proof) {
        return 0;
    }
    if (b->tree_size == 0 || b->proof_index >= b->tree_size) {
        return mero_err_set(err, MERO_ESIGSTORE_PROOF, "inclusion proof index outside the tree");
    }
    uint8_t r[MERO_SHA256_LEN];
    struct mero_sha256 h;
    uint8_t zero = 0x00;
    mero_sha256_init(&h);
    mero_sha256_update(&h, &zero, 1);
    mero_sha256_update(&h, b->body, b->body_len);
    mero_sha256_final(&h, r);
    uint64_t fn = b->proof_index, sn = b->tree_size - 1;
    for (size_t i = 0; i < b->nhashes; i++) {
        const uint8_t *p = b->hashes[i];
        if (sn == 0) {
            return mero_err_set(err, MERO_ESIGSTORE_PROOF, "inclusion proof has extra hashes");
        }
        if ((fn & 1) || fn == sn) {
            node_hash(r, p, r);
            while (!(fn & 1) && fn != 0) {
                fn >>= 1;
                sn >>= 1;
            }
        } else {
            node_hash(r, r, p);
        }
        fn >>= 1;
        sn >>= 1;
    }
    if (sn != 0 || !mero_ct_eq(r, b->root_hash, sizeof(r))) {
        return mero_err_set(err, MERO_ESIGSTORE_PROOF,
                            "inclusion proof does not lead to the root hash");
    }
    return 0;
}

/* One line of the note, [*p, nl); advances past the newline. */
static int next_line(const char **p, const char *end, const char **s, size_t *n)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (nl == NULL) {
        return -MERO_ESIGSTORE_CHECKPOINT;
    }
    *s = *p;
    *n = (size_t)(nl - *p);
    *p = nl + 1;
    return 0;
}

static int line_u64(const char *s, size_t n, uint64_t *v)
{
    char tmp[24];
    if (n == 0 || n >= sizeof(tmp)) {
        return -MERO_ESIGSTORE_CHECKPOINT;
    }
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return mero_parse_u64(tmp, UINT64_MAX, v);
}

static int cp_fail(struct mero_err *err, const char *why)
{
    return mero_err_set(err, MERO_ESIGSTORE_CHECKPOINT, "checkpoint: %s", why);
}

/* C2SP signed note, Ed25519 key: the log id of a Rekor v2 log is its note key id,
 * SHA-256(name || 0x0A || 0x01 || public key), so the signer name must be the one it names. */
static int ed25519_name_ok(const struct sig_log *log, const char *name, size_t n)
{
    uint8_t pk[MERO_ED25519_PK_LEN], id[MERO_SHA256_LEN];
    size_t pklen = sizeof(pk);
    if (EVP_PKEY_get_raw_public_key(log->key, pk, &pklen) != 1 || pklen != sizeof(pk)) {
        return -MERO_ESIGSTORE_LOG;
    }
    static const uint8_t sep[2] = {0x0a, 0x01};
    struct mero_sha256 h;
    mero_sha256_init(&h);
    mero_sha256_update(&h, name, n);
    mero_sha256_update(&h, sep, 2);
    mero_sha256_update(&h, pk, sizeof(pk));
    mero_sha256_final(&h, id);
    return memcmp(id, log->log_id, sizeof(id)) == 0 ? 0 : -MERO_ESIGSTORE_LOG;
}

/* Check one signature line "— <name> <base64(keyhint || sig)>" against the log key: 0 it
 * verifies, -MERO_ENOTFOUND it is not this log's, -MERO_EBADSIG it is and does not verify. */
static int check_sig_line(const struct sig_log *log, const char *s, size_t n, const char *text,
                          size_t text_len)
{
    static const char dash[] = "\xe2\x80\x94 ";
    if (n < sizeof(dash) - 1 || memcmp(s, dash, sizeof(dash) - 1) != 0) {
        return -MERO_ENOTFOUND;
    }
    s += sizeof(dash) - 1;
    n -= sizeof(dash) - 1;
    const char *sp = memchr(s, ' ', n);
    if (sp == NULL || sp == s) {
        return -MERO_ENOTFOUND;
    }
    const char *b64 = sp + 1;
    size_t blen = n - (size_t)(b64 - s);
    uint8_t *raw = NULL;
    size_t rawlen = 0;
    if (mero_base64_decode_alloc(b64, blen, SIG_MAX_SIG + 4, &raw, &rawlen) < 0) {
        return -MERO_ENOTFOUND;
    }
    int rc = -MERO_ENOTFOUND;
    if (rawlen > 4 && memcmp(raw, log->log_id, 4) == 0 &&
        (log->type != SIG_KT_ED25519 || ed25519_name_ok(log, s, (size_t)(sp - s)) == 0)) {
        rc = mero__sig_verify_key(log->key, log->type, (const uint8_t *)text, text_len, raw + 4,
                                  rawlen - 4) == 0
                 ? 0
                 : -MERO_EBADSIG;
    }
    free(raw);
    return rc;
}

int mero__sig_verify_checkpoint(const struct sig_log *log, const struct sig_bundle *b,
                                struct mero_err *err)
{
    if (!b->has_proof) {
        return 0;
    }
    if (b->checkpoint == NULL) {
        return cp_fail(err, "inclusion proof without a signed checkpoint");
    }
    const char *env = b->checkpoint, *end = env + b->checkpoint_len;
    const char *sep = NULL;
    for (const char *q = env; q + 1 < end; q++) {
        if (q[0] == '\n' && q[1] == '\n') {
            sep = q;
            break;
        }
    }
    if (sep == NULL) {
        return cp_fail(err, "no blank line before the signatures");
    }
    size_t text_len = (size_t)(sep - env) + 1; /* the note text keeps its final newline */
    const char *p = env, *s;
    size_t n;
    uint64_t size = 0;
    uint8_t *root = NULL;
    size_t rootlen = 0;
    if (next_line(&p, sep + 1, &s, &n) < 0 || n == 0) {
        return cp_fail(err, "no origin line");
    }
    if (next_line(&p, sep + 1, &s, &n) < 0 || line_u64(s, n, &size) < 0) {
        return cp_fail(err, "bad tree size line");
    }
    if (next_line(&p, sep + 1, &s, &n) < 0 ||
        mero_base64_decode_alloc(s, n, MERO_SHA256_LEN, &root, &rootlen) < 0 ||
        rootlen != MERO_SHA256_LEN) {
        free(root);
        return cp_fail(err, "bad root hash line");
    }
    /* Signature lines after the blank line: at least one must be this log's and verify. */
    p = sep + 2;
    int verified = 0, bad_sig = 0;
    while (p < end && next_line(&p, end, &s, &n) == 0) {
        int rc = check_sig_line(log, s, n, env, text_len);
        verified |= rc == 0;
        bad_sig |= rc == -MERO_EBADSIG;
    }
    int rc = 0;
    if (!verified) {
        rc = cp_fail(err, bad_sig ? "note signature does not verify under the log key"
                                  : "no signature by this log");
    } else if (size != b->tree_size || !mero_ct_eq(root, b->root_hash, MERO_SHA256_LEN)) {
        rc = cp_fail(err, "tree size / root hash differ from the inclusion proof");
    }
    free(root);
    return rc;
}
