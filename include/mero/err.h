/* SPDX-License-Identifier: Apache-2.0 */
/*
 * err.h - the error codes every libmero function returns (negated), their names, and the
 * optional reason carrier `struct mero_err`.
 *
 * Invariant: every fallible function returns 0 on success or -MERO_E<x>; a code is never
 * reused for two meanings. Messages carried in struct mero_err never contain secrets.
 *
 * Codes are grouped per module; add a new code at the end of its module's block (each block
 * ends with a comment line so that parallel additions to different blocks merge cleanly).
 *
 * Thread safety: mero_err_set / mero_err_clear are safe on distinct struct mero_err;
 * mero_strerror and mero_errdesc return static strings and are safe from any thread.
 */
#ifndef MERO_ERR_H
#define MERO_ERR_H

#include <stddef.h>

#if defined(__GNUC__)
#define MERO_MUST_CHECK   __attribute__((warn_unused_result))
#define MERO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MERO_MUST_CHECK
#define MERO_PRINTF(f, a)
#endif

/*
 * Debug invariants: MERO_ASSERT(cond) aborts in debug and sanitizer builds (the Makefile
 * defines MERO_CHECKED there) and costs nothing in release builds. For invariants of the code
 * itself, never for input checks (input is refused with an error code).
 */
#if defined(MERO_CHECKED)
#include <assert.h>
#define MERO_ASSERT(cond) assert(cond)
#else
#define MERO_ASSERT(cond) ((void)0)
#endif

/* X(name, short description) */
#define MERO_ERRORS(X)                                                                             \
    /* generic */                                                                                  \
    X(EINVAL, "invalid argument")                                                                  \
    X(ENOMEM, "out of memory")                                                                     \
    X(ETRUNC, "input truncated")                                                                   \
    X(ETOOBIG, "input exceeds its maximum size")                                                   \
    X(EOVERFLOW, "length field overflows")                                                         \
    X(EIO, "i/o error")                                                                            \
    X(ENOTFOUND, "not found")                                                                      \
    X(EEXIST, "already exists")                                                                    \
    X(EPERM, "permission denied")                                                                  \
    X(EHEX, "invalid hex")                                                                         \
    X(EBASE64, "invalid base64")                                                                   \
    X(EJSON, "invalid json")                                                                       \
    X(ETIMEOUT, "timed out")                                                                       \
    X(EUNSUPPORTED, "not supported")                                                               \
    X(EINTERNAL, "internal error")                                                                 \
    X(EKEYPERM, "key file permissions too open")                                                   \
    X(ECRYPTO, "cryptographic operation failed")                                                   \
    X(EBADSIG, "signature does not verify")                                                        \
    X(ESTATE, "operation not valid in this state")                                                 \
    /* end generic */                                                                              \
    /* attest: quote parsing */                                                                    \
    X(EQUOTE_VERSION, "unsupported quote version")                                                 \
    X(EQUOTE_TEE, "unsupported TEE type")                                                          \
    X(EQUOTE_SGX, "SGX quote where a TDX quote is required")                                       \
    X(EQUOTE_KEYTYPE, "unsupported attestation key type")                                          \
    X(EQUOTE_BODY, "bad quote body descriptor")                                                    \
    X(EQUOTE_CERTTYPE, "unexpected certification data type")                                       \
    X(EQUOTE_AUTHDATA, "bad QE authentication data")                                               \
    X(EQUOTE_PCKCHAIN, "bad PCK certificate chain")                                                \
    X(EQUOTE_MOCK, "mock quote")                                                                   \
    X(EQUOTE_LENGTH, "quote length fields inconsistent")                                           \
    /* end attest: quote */                                                                        \
    /* attest: dcap verification */                                                                \
    X(ECOLLATERAL, "collateral missing or malformed")                                              \
    X(ECOLLATERAL_FETCH, "collateral could not be fetched")                                        \
    X(ECERT, "certificate invalid")                                                                \
    X(ECHAIN, "certificate chain does not verify")                                                 \
    X(EROOT, "untrusted root")                                                                     \
    X(EREVOKED, "certificate revoked")                                                             \
    X(ECRL, "CRL invalid")                                                                         \
    X(EEXPIRED, "expired or not yet valid")                                                        \
    X(ETCBINFO, "TCB info invalid")                                                                \
    X(EQEIDENTITY, "QE identity invalid")                                                          \
    X(EQEREPORT, "QE report invalid")                                                              \
    X(ETCB_NOT_SUPPORTED, "no matching TCB level")                                                 \
    X(ETDX_MODULE, "TDX module identity mismatch")                                                 \
    X(EPOLICY, "rejected by policy")                                                               \
    /* end attest: dcap */                                                                         \
    /* attest: sigstore / release */                                                               \
    X(ESIGSTORE, "sigstore bundle invalid")                                                        \
    X(EIDENTITY, "signer identity not allowed")                                                    \
    X(ERELEASE, "release file invalid")                                                            \
    X(ESIGSTORE_MEDIATYPE, "unknown sigstore bundle media type")                                   \
    X(ESIGSTORE_LOG, "transparency log not in the trusted root")                                   \
    X(ESIGSTORE_SET, "Rekor signed entry timestamp does not verify")                               \
    X(ESIGSTORE_PROOF, "Rekor inclusion proof does not verify")                                    \
    X(ESIGSTORE_CHECKPOINT, "Rekor checkpoint invalid")                                            \
    X(ESIGSTORE_BODY, "logged entry is not this certificate and signature")                        \
    X(ESIGSTORE_DIGEST, "artifact digest is not the signed one")                                   \
    X(ESIGSTORE_SCT, "certificate SCT does not verify")                                            \
    X(ESIGSTORE_DETACHED, "detached signature differs from the bundle")                            \
    X(ERELEASE_FETCH, "release could not be fetched")                                              \
    X(ERELEASE_VERSION, "release version not admitted")                                            \
    X(ERELEASE_NOMATCH, "quote matches no allowed release profile")                                \
    X(ESIGSTORE_TSA, "RFC 3161 timestamp does not verify")                                         \
    /* end attest: sigstore */                                                                     \
    /* attest: event log */                                                                        \
    X(EEVENTLOG, "event log malformed")                                                            \
    /* end attest: eventlog */                                                                     \
    /* gov */                                                                                      \
    X(ESCHEMA, "unknown op schema version")                                                        \
    X(EOPDECODE, "op does not decode")                                                             \
    X(ENOTADMIN, "signer is not an admin")                                                         \
    X(ENOTVOUCHER, "node may not vouch")                                                           \
    X(ENOPOLICY, "no TEE admission policy")                                                        \
    X(ETEE_ROLE_LOCKED, "TEE member role locked")                                                  \
    X(EREFUSED, "refused")                                                                         \
    X(EMISSINGPARENT, "parent op not yet known")                                                   \
    X(EREMOVED, "removed from group and cannot rejoin")                                            \
    X(EQUOTEUSED, "TEE attestation quote already used")                                            \
    /* end gov */                                                                                  \
    /* net */                                                                                      \
    X(EPROTO, "protocol violation")                                                                \
    X(EPEERID, "peer id mismatch")                                                                 \
    X(EMULTIADDR, "invalid multiaddr")                                                             \
    X(ECLOSED, "connection closed")                                                                \
    X(EBUSY, "resource limit reached")                                                             \
    X(ENOPEERS, "published to zero peers")                                                         \
    /* end net */                                                                                  \
    /* node / api */                                                                               \
    X(EAUTH, "authentication failed")                                                              \
    X(EREADONLY, "ReadOnlyWriteRefused")                                                           \
    X(ECLOCK, "delta lamport clock out of bounds")                                                 \
    X(ESUPERSEDED, "write would not become the current value")                                     \
    X(EMETHOD, "method not allowed")                                                               \
    X(EBODY, "request body too large")                                                             \
    X(EUNAVAILABLE, "unavailable, retry shortly")                                                  \
    /* end node */

enum mero_err_code {
    MERO_OK = 0,
#define MERO_X_ENUM(name, desc) MERO_##name,
    MERO_ERRORS(MERO_X_ENUM)
#undef MERO_X_ENUM
        MERO_ERR__COUNT
};

#define MERO_ERR_MSG_MAX 256

/* A reason for a failure: the code and a short human message (no secrets). */
struct mero_err {
    int code;                   /* positive mero_err_code, 0 when unset */
    char msg[MERO_ERR_MSG_MAX]; /* NUL-terminated */
};

/* Name of an error code, positive or negative ("EBADSIG"); never NULL. */
const char *mero_strerror(int code);
/* Short description of an error code; never NULL. */
const char *mero_errdesc(int code);

/*
 * Record a reason in `err` (which may be NULL) and return -code, so a caller can write
 * `return mero_err_set(err, MERO_ETRUNC, "quote ends at %zu", off);`. `code` is a positive
 * mero_err_code (a negative one is a programming error: an assertion in debug and sanitizer
 * builds, MERO_EINTERNAL otherwise).
 */
int mero_err_set(struct mero_err *err, int code, const char *fmt, ...) MERO_PRINTF(3, 4);
void mero_err_clear(struct mero_err *err);

/*
 * The one error style (docs/errors.md):
 *
 *   MERO_TRY(expr)            propagate a negative result; for functions with nothing to undo
 *   MERO_TRY_OUT(expr)        the same where there is cleanup: sets the local `int rc` and
 *                             jumps to the function's single `out:` label
 *   MERO_ENSURE(cond, err, code, fmt, ...)      refuse unless cond: records the reason in
 *                             err (may be NULL) and returns -code
 *   MERO_ENSURE_OUT(cond, err, code, fmt, ...)  the same with `rc` and `goto out`
 *
 * `code` is always a positive mero_err_code; the return value is its negation.
 */
#define MERO_TRY(expr)                                                                             \
    do {                                                                                           \
        int mero_try_rc_ = (expr);                                                                 \
        if (mero_try_rc_ < 0) {                                                                    \
            return mero_try_rc_;                                                                   \
        }                                                                                          \
    } while (0)

#define MERO_TRY_OUT(expr)                                                                         \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc < 0) {                                                                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#define MERO_ENSURE(cond, err, code, ...)                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            return mero_err_set((err), (code), __VA_ARGS__);                                       \
        }                                                                                          \
    } while (0)

#define MERO_ENSURE_OUT(cond, err, code, ...)                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            rc = mero_err_set((err), (code), __VA_ARGS__);                                         \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#endif
