/* SPDX-License-Identifier: Apache-2.0 */
/*
 * intent.c - a member's signed intent (mero/intent.h, docs/relay.md): the structural checks,
 * encode, strict decode, Ed25519 sign and verify under the "mero.relay.intent.v1" domain, the
 * id, the expiry window and the warrant.
 *
 * Invariants: the decoder reads through a bounded cursor, checks every length against what
 * remains and against its cap before copying, and refuses trailing bytes, so exactly one byte
 * string decodes to a given intent and encode(decode(x)) == x; the signed bytes and the id are
 * computed from the same re-encoding, so what is signed is what is hashed is what is decoded.
 */
#include <string.h>

#include "mero/crypto.h"
#include "mero/intent.h"

static bool key_char_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == ':' || c == '-';
}

bool mero_intent_key_ok(const char *key, size_t n)
{
    if (key == NULL || n == 0 || n > MERO_INTENT_MAX_KEY_LEN) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!key_char_ok((unsigned char)key[i])) {
            return false;
        }
    }
    return true;
}

int mero_intent_check(const struct mero_intent *it, struct mero_err *err)
{
    MERO_ENSURE(it->version == MERO_INTENT_VERSION, err, MERO_EUNSUPPORTED,
                "intent version %u is not supported (this node reads version %d)", it->version,
                MERO_INTENT_VERSION);
    MERO_ENSURE(it->op == MERO_INTENT_PUT || it->op == MERO_INTENT_DELETE, err, MERO_EINVAL,
                "intent op %u is neither put (0) nor delete (1)", it->op);
    MERO_ENSURE(it->key_len > 0, err, MERO_EINVAL, "intent key is empty");
    MERO_ENSURE(it->key_len <= MERO_INTENT_MAX_KEY_LEN, err, MERO_ETOOBIG,
                "intent key is longer than %u bytes", MERO_INTENT_MAX_KEY_LEN);
    MERO_ENSURE(mero_intent_key_ok(it->key, it->key_len), err, MERO_EINVAL,
                "intent key may hold only [A-Za-z0-9._:-]");
    MERO_ENSURE(it->value_len <= MERO_INTENT_MAX_VALUE_LEN, err, MERO_ETOOBIG,
                "intent value is longer than %u bytes", MERO_INTENT_MAX_VALUE_LEN);
    MERO_ENSURE(it->value_len == 0 || it->value != NULL, err, MERO_EINVAL,
                "intent value has a length but no bytes");
    MERO_ENSURE(it->op == MERO_INTENT_PUT || it->value_len == 0, err, MERO_EINVAL,
                "a delete intent carries no value");
    MERO_ENSURE(it->expires_at > it->issued_at, err, MERO_EINVAL,
                "intent expires_at must be after issued_at");
    MERO_ENSURE(it->expires_at - it->issued_at <= MERO_INTENT_MAX_LIFETIME_SECS, err, MERO_EINVAL,
                "intent lifetime exceeds %u seconds", MERO_INTENT_MAX_LIFETIME_SECS);
    return 0;
}

/* every byte before the signature */
static int put_body(const struct mero_intent *it, struct mero_buf *b)
{
    MERO_TRY(mero_intent_check(it, NULL));
    MERO_TRY(mero_buf_append_u8(b, it->version));
    MERO_TRY(mero_buf_append(b, it->ns, sizeof(it->ns)));
    MERO_TRY(mero_buf_append(b, it->context, sizeof(it->context)));
    MERO_TRY(mero_buf_append(b, it->author, sizeof(it->author)));
    MERO_TRY(mero_buf_append(b, it->relay, sizeof(it->relay)));
    MERO_TRY(mero_buf_append(b, it->nonce, sizeof(it->nonce)));
    MERO_TRY(mero_buf_append_u64le(b, it->issued_at));
    MERO_TRY(mero_buf_append_u64le(b, it->expires_at));
    MERO_TRY(mero_buf_append_u8(b, it->op));
    MERO_TRY(mero_buf_append_u32le(b, (uint32_t)it->key_len));
    MERO_TRY(mero_buf_append(b, it->key, it->key_len));
    if (it->op == MERO_INTENT_PUT) {
        MERO_TRY(mero_buf_append_u32le(b, (uint32_t)it->value_len));
        if (it->value_len > 0) {
            MERO_TRY(mero_buf_append(b, it->value, it->value_len));
        }
    }
    return 0;
}

int mero_intent_encode(const struct mero_intent *it, struct mero_buf *b)
{
    MERO_TRY(put_body(it, b));
    return mero_buf_append(b, it->signature, sizeof(it->signature));
}

int mero_intent_signed_bytes(const struct mero_intent *it, struct mero_buf *b)
{
    MERO_TRY(mero_buf_append_str(b, MERO_INTENT_SIGN_DOMAIN));
    return put_body(it, b);
}

/* A u32 length at the cursor, refused above max before anything is read past it. */
static int get_len(struct mero_cur *c, uint32_t max, const char *what, uint32_t *n,
                   struct mero_err *err)
{
    size_t at = c->off;
    MERO_ENSURE(mero_cur_u32le(c, n) == 0, err, MERO_ETRUNC, "intent ends in its %s length at %zu",
                what, at);
    MERO_ENSURE(*n <= max, err, MERO_ETOOBIG, "intent %s length %u exceeds %u", what, *n, max);
    MERO_ENSURE(*n <= mero_cur_left(c), err, MERO_ETRUNC,
                "intent %s of %u bytes runs past the end at %zu", what, *n, c->off);
    return 0;
}

int mero_intent_decode(const uint8_t *p, size_t n, struct mero_intent *it, struct mero_err *err)
{
    struct mero_cur c;
    struct mero_intent d;
    uint32_t klen, vlen = 0;
    const uint8_t *key;
    memset(&d, 0, sizeof(d));
    mero_cur_init(&c, p, n);
    MERO_ENSURE(mero_cur_u8(&c, &d.version) == 0, err, MERO_ETRUNC, "intent is empty");
    MERO_ENSURE(d.version == MERO_INTENT_VERSION, err, MERO_EUNSUPPORTED,
                "intent version %u is not supported (this node reads version %d)", d.version,
                MERO_INTENT_VERSION);
    MERO_ENSURE(mero_cur_copy(&c, d.ns, sizeof(d.ns)) == 0 &&
                    mero_cur_copy(&c, d.context, sizeof(d.context)) == 0 &&
                    mero_cur_copy(&c, d.author, sizeof(d.author)) == 0 &&
                    mero_cur_copy(&c, d.relay, sizeof(d.relay)) == 0 &&
                    mero_cur_copy(&c, d.nonce, sizeof(d.nonce)) == 0 &&
                    mero_cur_u64le(&c, &d.issued_at) == 0 &&
                    mero_cur_u64le(&c, &d.expires_at) == 0 && mero_cur_u8(&c, &d.op) == 0,
                err, MERO_ETRUNC, "intent ends at %zu, inside its fixed %d-byte head", c.off,
                (int)MERO_INTENT_FIXED_LEN);
    MERO_ENSURE(d.op == MERO_INTENT_PUT || d.op == MERO_INTENT_DELETE, err, MERO_EINVAL,
                "intent op %u is neither put (0) nor delete (1)", d.op);
    MERO_TRY(get_len(&c, MERO_INTENT_MAX_KEY_LEN, "key", &klen, err));
    MERO_TRY(mero_cur_bytes(&c, klen, &key));
    memcpy(d.key, key, klen);
    d.key[klen] = '\0';
    d.key_len = klen;
    if (d.op == MERO_INTENT_PUT) {
        MERO_TRY(get_len(&c, MERO_INTENT_MAX_VALUE_LEN, "value", &vlen, err));
        MERO_TRY(mero_cur_bytes(&c, vlen, &d.value));
        d.value_len = vlen;
        if (vlen == 0) {
            d.value = NULL;
        }
    }
    MERO_ENSURE(mero_cur_copy(&c, d.signature, sizeof(d.signature)) == 0, err, MERO_ETRUNC,
                "intent ends at %zu, inside its %d-byte signature", c.off,
                (int)MERO_ED25519_SIG_LEN);
    MERO_ENSURE(mero_cur_left(&c) == 0, err, MERO_EINVAL,
                "intent has %zu trailing bytes after its signature", mero_cur_left(&c));
    MERO_TRY(mero_intent_check(&d, err));
    *it = d;
    return 0;
}

int mero_intent_sign(struct mero_intent *it, const uint8_t sk[static MERO_ED25519_SK_LEN])
{
    struct mero_buf b;
    int rc;
    memcpy(it->author, sk + MERO_ED25519_SEED_LEN, sizeof(it->author));
    mero_buf_init(&b, sizeof(MERO_INTENT_SIGN_DOMAIN) + MERO_INTENT_MAX_LEN);
    MERO_TRY_OUT(mero_intent_signed_bytes(it, &b));
    mero_ed25519_sign(it->signature, b.data, b.len, sk);
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_intent_verify(const struct mero_intent *it, struct mero_err *err)
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, sizeof(MERO_INTENT_SIGN_DOMAIN) + MERO_INTENT_MAX_LEN);
    MERO_TRY_OUT(mero_intent_signed_bytes(it, &b));
    MERO_ENSURE_OUT(mero_ed25519_verify(it->signature, b.data, b.len, it->author) == 0, err,
                    MERO_EBADSIG, "intent signature does not verify under its author");
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_intent_id(const struct mero_intent *it, uint8_t out[static MERO_INTENT_ID_LEN])
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, sizeof(MERO_INTENT_SIGN_DOMAIN) + MERO_INTENT_MAX_LEN);
    MERO_TRY_OUT(mero_intent_signed_bytes(it, &b));
    mero_sha256(out, b.data, b.len);
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero_intent_live_at(const struct mero_intent *it, uint64_t t, struct mero_err *err)
{
    MERO_ENSURE(t < it->expires_at, err, MERO_EEXPIRED, "intent expired at %llu (now %llu)",
                (unsigned long long)it->expires_at, (unsigned long long)t);
    MERO_ENSURE(it->issued_at <= t || it->issued_at - t <= MERO_INTENT_MAX_SKEW_SECS, err,
                MERO_EEXPIRED, "intent issued at %llu, more than %u s after now (%llu)",
                (unsigned long long)it->issued_at, MERO_INTENT_MAX_SKEW_SECS,
                (unsigned long long)t);
    return 0;
}

bool mero_intent_warrant_allows(const struct mero_intent *it,
                                const uint8_t relay[static MERO_IDENTITY_LEN])
{
    static const uint8_t any[MERO_IDENTITY_LEN];
    return memcmp(it->relay, any, sizeof(any)) == 0 ||
           memcmp(it->relay, relay, sizeof(it->relay)) == 0;
}
