/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identity.h - identities and account credentials (reference-calimero.md §6.3, spec
 * "Verify and admit" step 2): Ed25519 key files (0600, refused when looser), domain_hash (§2),
 * the account id, the DeviceCert and a minimal AccountProof (genesis + empty handoff chain +
 * cert) that a joining node presents as its "account credential", and
 * mero_credential_certifies (join_credential_certifies).
 *
 * Invariants: a key file readable by group or others is never loaded; a credential certifies a
 * key only when cert.sign_pk equals it, cert.account is the account id of the genesis, and the
 * cert signature verifies under the genesis root key.
 *
 * Thread safety: every function here is safe on distinct objects (no shared state); two
 * threads must not load-or-create / save the same key file at once.
 */
#ifndef MERO_IDENTITY_H
#define MERO_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_DEVICE_CERT_LEN 200 /* account, device, sign_pk, kem_pk, 2x u32, signature */
/* genesis version u8, root_pk, empty handoff chain (u32 0), cert */
#define MERO_CREDENTIAL_LEN (1 + MERO_ED25519_PK_LEN + 4 + MERO_DEVICE_CERT_LEN)
_Static_assert(MERO_DEVICE_CERT_LEN == MERO_ACCOUNT_ID_LEN + MERO_DEVICE_ID_LEN +
                                           MERO_IDENTITY_LEN + MERO_X25519_LEN + 2 * 4 +
                                           MERO_ED25519_SIG_LEN,
               "a DeviceCert is its four keys/ids, two u32 epochs and a signature");
#define MERO_ACCOUNT_GENESIS_VERSION 1 /* UNVERIFIED in the reference; see docs/governance.md */

#define MERO_DOMAIN_ACCOUNT_GENESIS "calimero.account.genesis.v1"
#define MERO_DOMAIN_DEVICE_CERT     "calimero.device.cert.v1"
#define MERO_DOMAIN_DEVICE_ID       "calimero.device.id.v1"

/* ---- key files ---------------------------------------------------------------------------- */

/*
 * Write an Ed25519 secret key (libsodium 64-byte form) to `path` as one line of base64 of its
 * 32-byte seed, created with mode 0600 (an existing file is replaced atomically via rename).
 */
MERO_MUST_CHECK int mero_keyfile_save(const char *path,
                                      const uint8_t sk[static MERO_ED25519_SK_LEN],
                                      struct mero_err *err);
/*
 * Load a key written by mero_keyfile_save. A file whose mode grants any group/other access is
 * refused with -MERO_EKEYPERM and a message naming the path and the chmod to run; a malformed
 * file with -MERO_EINVAL. sk is written only on success.
 */
MERO_MUST_CHECK int mero_keyfile_load(const char *path, uint8_t sk[static MERO_ED25519_SK_LEN],
                                      struct mero_err *err);
/* Load `path`, or generate a fresh key and save it there when the file does not exist. */
MERO_MUST_CHECK int mero_keyfile_load_or_create(const char *path,
                                                uint8_t sk[static MERO_ED25519_SK_LEN],
                                                struct mero_err *err);

/* ---- hashing ------------------------------------------------------------------------------ */

/* SHA-256(u64le(len(domain)) || domain || for each part: u64le(len) || part)  (§2) */
void mero_domain_hash(uint8_t out[static MERO_SHA256_LEN], const char *domain,
                      const uint8_t *const *parts, const size_t *lens, size_t nparts);
/* AccountId = domain_hash("calimero.account.genesis.v1", [version || root_pk]) */
void mero_account_id(uint8_t out[static MERO_ACCOUNT_ID_LEN], uint8_t version,
                     const uint8_t root_pk[static MERO_ED25519_PK_LEN]);
/* A device id derived from a device key: domain_hash("calimero.device.id.v1", [pk]). */
void mero_device_id(uint8_t out[static MERO_DEVICE_ID_LEN],
                    const uint8_t device_pk[static MERO_ED25519_PK_LEN]);
/* The X25519 delivery key (kem_pk) derived from an Ed25519 public key (libsodium conversion). */
MERO_MUST_CHECK int mero_kem_pk_from_ed25519(uint8_t kem_pk[static MERO_X25519_LEN],
                                             const uint8_t ed_pk[static MERO_ED25519_PK_LEN]);

/* ---- credentials -------------------------------------------------------------------------- */

struct mero_device_cert {
    uint8_t account[MERO_ACCOUNT_ID_LEN];
    uint8_t device[MERO_DEVICE_ID_LEN];
    uint8_t sign_pk[MERO_IDENTITY_LEN]; /* the namespace identity key this credential certifies */
    uint8_t kem_pk[MERO_X25519_LEN];    /* X25519 delivery key */
    uint32_t key_epoch;
    uint32_t device_epoch;
    uint8_t signature[MERO_ED25519_SIG_LEN]; /* by the account root key, see
                                                mero_device_cert_signable */
};

/* AccountProof { genesis {version u8, root_pk}, chain: Vec<RootKeyHandoff> (always empty
 * here; a non-empty chain is refused on decode), cert: DeviceCert }. */
struct mero_credential {
    uint8_t genesis_version;
    uint8_t root_pk[MERO_ED25519_PK_LEN];
    struct mero_device_cert cert;
};

/*
 * Build and sign a credential: account = mero_account_id(MERO_ACCOUNT_GENESIS_VERSION,
 * pk(root_sk)), cert signed by root_sk. device may be any 32 bytes (mero_device_id helps).
 */
void mero_credential_build(struct mero_credential *out,
                           const uint8_t root_sk[static MERO_ED25519_SK_LEN],
                           const uint8_t device[static MERO_DEVICE_ID_LEN],
                           const uint8_t sign_pk[static MERO_IDENTITY_LEN],
                           const uint8_t kem_pk[static MERO_X25519_LEN], uint32_t key_epoch,
                           uint32_t device_epoch);
/* The bytes the cert signature covers: "calimero.device.cert.v1" || account || device ||
 * sign_pk || kem_pk || u32le key_epoch || u32le device_epoch (136 + 23 bytes). */
MERO_MUST_CHECK int mero_device_cert_signable(const struct mero_device_cert *c,
                                              struct mero_buf *out);
MERO_MUST_CHECK int mero_credential_encode(struct mero_buf *b, const struct mero_credential *c);
/* Decode from the cursor (advances it). Refuses a non-empty handoff chain (-MERO_EUNSUPPORTED). */
MERO_MUST_CHECK int mero_credential_decode(struct mero_cur *c, struct mero_credential *out,
                                           struct mero_err *err);
/*
 * join_credential_certifies: 0 when cred certifies pk; otherwise -MERO_EREFUSED with reason
 * "the account credential does not certify the attested key" (sign_pk differs) or
 * -MERO_EBADSIG ("account credential signature does not verify" / account id mismatch).
 */
MERO_MUST_CHECK int mero_credential_certifies(const uint8_t pk[static MERO_IDENTITY_LEN],
                                              const struct mero_credential *cred,
                                              struct mero_err *err);

/* ---- issue 15: client key files (src/gov/identity.c) ---- */

/*
 * Write a new key file at `path` in mero_keyfile_save's format, mode 0600, created with O_EXCL
 * (and O_NOFOLLOW): an existing file or link is never replaced (-MERO_EEXIST). A failed write
 * removes the file it created.
 */
MERO_MUST_CHECK int mero_keyfile_create(const char *path,
                                        const uint8_t sk[static MERO_ED25519_SK_LEN],
                                        struct mero_err *err);

#endif
