/* SPDX-License-Identifier: Apache-2.0 */
/*
 * intent.h - a member's signed intent (issue 15, docs/relay.md): one kv write to one context
 * of a namespace, signed by the member's own Ed25519 key, that a RelayTee may carry and apply
 * as the member's write. The byte format (borsh-style, little-endian, one encoding per intent):
 *
 *   version u8 (= 1) | namespace [32] | context [32] | author [32] | relay [32] | nonce [16]
 *   | issued_at u64 | expires_at u64 | op u8 (0 put, 1 delete)
 *   | key: u32 len + bytes (1..256, [A-Za-z0-9._:-])
 *   | value: u32 len + bytes (0..16384; put only, absent for delete)
 *   | signature [64] = Ed25519(author, "mero.relay.intent.v1" || every byte before it)
 *
 *   relay = the warrant: the identity of the one relay allowed to carry the intent, or 32 zero
 *   bytes for any RelayTee of the namespace. id = SHA-256(domain || every byte before the
 *   signature), the intent's name in replies and logs; the replay key is (author, nonce).
 *
 * Invariants: the decoder is strict and bounded: every length is checked against what remains
 * and against its MERO_INTENT_MAX_* cap before anything is copied; an unknown version or op,
 * a key outside its charset, a lifetime of zero or over MERO_INTENT_MAX_LIFETIME_SECS and
 * trailing bytes are refused, so encode(decode(x)) == x for every accepted x. Decoding does not
 * verify the signature (mero_intent_verify does) nor the time (mero_intent_live_at does).
 *
 * Thread safety: every function here is safe on distinct objects (no shared state); a decoded
 * intent may be read by many threads at once.
 */
#ifndef MERO_INTENT_H
#define MERO_INTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_INTENT_VERSION     1
#define MERO_INTENT_SIGN_DOMAIN "mero.relay.intent.v1"
/* The same bounds as a direct kv write of our contexts (the API's ctx put). */
#define MERO_INTENT_MAX_KEY_LEN       256u
#define MERO_INTENT_MAX_VALUE_LEN     (16u * 1024u)
#define MERO_INTENT_MAX_LIFETIME_SECS (24u * 3600u) /* expires_at - issued_at */
/* How far in the future issued_at may be against the checking clock (a client's skew). */
#define MERO_INTENT_MAX_SKEW_SECS 300u

/* Bytes before the key: version, four ids, nonce, two times, op. */
#define MERO_INTENT_FIXED_LEN                                                                      \
    (1 + MERO_NS_ID_LEN + MERO_CONTEXT_ID_LEN + 2 * MERO_IDENTITY_LEN + MERO_INTENT_NONCE_LEN +    \
     2 * 8 + 1)
#define MERO_INTENT_MIN_LEN (MERO_INTENT_FIXED_LEN + 4 + 1 + MERO_ED25519_SIG_LEN)
#define MERO_INTENT_MAX_LEN                                                                        \
    (MERO_INTENT_FIXED_LEN + 4 + MERO_INTENT_MAX_KEY_LEN + 4 + MERO_INTENT_MAX_VALUE_LEN +         \
     MERO_ED25519_SIG_LEN)
_Static_assert(MERO_INTENT_FIXED_LEN == 162, "the fixed part of an intent is 162 bytes");

enum mero_intent_op {
    MERO_INTENT_PUT = 0,
    MERO_INTENT_DELETE = 1,
};

struct mero_intent {
    uint8_t version; /* MERO_INTENT_VERSION */
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t context[MERO_CONTEXT_ID_LEN];
    uint8_t author[MERO_IDENTITY_LEN]; /* the member's namespace identity (Ed25519 pk) */
    uint8_t relay[MERO_IDENTITY_LEN];  /* the warrant; all zero = any RelayTee */
    uint8_t nonce[MERO_INTENT_NONCE_LEN];
    uint64_t issued_at;  /* unix seconds */
    uint64_t expires_at; /* unix seconds, issued_at < expires_at <= issued_at + max lifetime */
    uint8_t op;          /* enum mero_intent_op */
    char key[MERO_INTENT_MAX_KEY_LEN + 1]; /* NUL-terminated (the charset has no NUL) */
    size_t key_len;
    const uint8_t *value; /* borrowed: the decode input or the caller's bytes; NULL if empty */
    size_t value_len;     /* 0 for a delete */
    uint8_t signature[MERO_ED25519_SIG_LEN];
};

/*
 * Structural checks, the same the decoder makes: version, op, key length and charset, value
 * length (none for a delete), lifetime. -MERO_EINVAL / -MERO_ETOOBIG / -MERO_EUNSUPPORTED with
 * the reason in err.
 */
MERO_MUST_CHECK int mero_intent_check(const struct mero_intent *it, struct mero_err *err);

/* Append the intent's bytes (signature included) to b. Checks first (mero_intent_check). */
MERO_MUST_CHECK int mero_intent_encode(const struct mero_intent *it, struct mero_buf *b);

/* Append domain || every byte before the signature: the bytes signed and hashed. */
MERO_MUST_CHECK int mero_intent_signed_bytes(const struct mero_intent *it, struct mero_buf *b);

/*
 * Strict decode of exactly p[0..n) into *it (value borrows from p). -MERO_ETRUNC when the
 * input ends early, -MERO_ETOOBIG for a length over its cap, -MERO_EUNSUPPORTED for another
 * version, -MERO_EINVAL for a bad op, key, lifetime or trailing bytes; err names the field.
 * The signature is not verified.
 */
MERO_MUST_CHECK int mero_intent_decode(const uint8_t *p, size_t n, struct mero_intent *it,
                                       struct mero_err *err);

/* Set it->author to sk's public key and sign. sk is the libsodium 64-byte form. */
MERO_MUST_CHECK int mero_intent_sign(struct mero_intent *it,
                                     const uint8_t sk[static MERO_ED25519_SK_LEN]);

/* 0 when it->signature verifies under it->author; -MERO_EBADSIG otherwise. */
MERO_MUST_CHECK int mero_intent_verify(const struct mero_intent *it, struct mero_err *err);

/* The intent's id: SHA-256(domain || every byte before the signature). */
MERO_MUST_CHECK int mero_intent_id(const struct mero_intent *it,
                                   uint8_t out[static MERO_INTENT_ID_LEN]);

/*
 * 0 when the intent is live at time t (unix seconds): issued_at <= t + MERO_INTENT_MAX_SKEW_SECS
 * and t < expires_at; -MERO_EEXPIRED otherwise (err says which). The relay checks against its
 * clock; peers against the relayed delta's signed relayed_at.
 */
MERO_MUST_CHECK int mero_intent_live_at(const struct mero_intent *it, uint64_t t,
                                        struct mero_err *err);

/* True when the intent's warrant lets `relay` carry it (its relay field is zero or relay). */
bool mero_intent_warrant_allows(const struct mero_intent *it,
                                const uint8_t relay[static MERO_IDENTITY_LEN]);

/* True when key[0..n) is a kv key of our contexts: 1..256 bytes of [A-Za-z0-9._:-]. */
bool mero_intent_key_ok(const char *key, size_t n);

#endif
