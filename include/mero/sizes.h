/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sizes.h - every fixed protocol length in one place: hashes and keys, TDX registers and
 * report fields, governance ids, and the hex widths derived from them. Code names the length
 * of what it holds (`uint8_t ns[MERO_NS_ID_LEN]`), never a bare 32 or 48; `make lint`
 * (scripts/lint-house.py) refuses a bare protocol length in src/ and include/.
 *
 * Invariant: the relations between lengths that the wire formats rely on are checked at
 * compile time below (report data = nonce || application hash, an envelope's ciphertext =
 * group key + GCM tag, a key id is a SHA-256, ...), so changing one length without the other
 * fails the build.
 *
 * Thread safety: constants only.
 */
#ifndef MERO_SIZES_H
#define MERO_SIZES_H

/* ---- crypto primitives ---- */
#define MERO_SHA256_LEN         32
#define MERO_SHA384_LEN         48
#define MERO_SHA512_LEN         64
#define MERO_ED25519_PK_LEN     32
#define MERO_ED25519_SK_LEN     64 /* libsodium form: seed || pk */
#define MERO_ED25519_SEED_LEN   32
#define MERO_ED25519_SIG_LEN    64
#define MERO_X25519_LEN         32
#define MERO_AEAD_KEY_LEN       32
#define MERO_GCM_NONCE_LEN      12
#define MERO_AEAD_TAG_LEN       16
#define MERO_ECDSA_P256_SIG_LEN 64 /* r || s, 32 bytes each */
#define MERO_ECDSA_P256_PK_LEN  64 /* x || y, uncompressed without the 0x04 */
#define MERO_P256_SCALAR_LEN    32

/* ---- TDX quote fields (Intel TDX DCAP quote layout) ---- */
#define MERO_MR_LEN              48 /* MRTD, RTMRn, MRSEAM, MRCONFIGID, MRSERVICETD, ... */
#define MERO_RTMR_COUNT          4
#define MERO_RTMR_LEN            MERO_MR_LEN
#define MERO_REPORT_DATA_LEN     64
#define MERO_TEE_TCB_SVN_LEN     16
#define MERO_TD_ATTRIBUTES_LEN   8
#define MERO_XFAM_LEN            8
#define MERO_CPUSVN_LEN          16
#define MERO_SGX_MEASUREMENT_LEN 32 /* MRENCLAVE, MRSIGNER */
#define MERO_SGX_ATTRIBUTES_LEN  16
#define MERO_FMSPC_LEN           6
#define MERO_QE_VENDOR_ID_LEN    16
#define MERO_USER_DATA_LEN       20

/* ---- report data binding (reference: report data = nonce || application hash) ---- */
#define MERO_NONCE_LEN    32 /* a challenge / verifier nonce */
#define MERO_APP_HASH_LEN 32 /* the application (binding) hash */

/* ---- governance and node ids ---- */
#define MERO_IDENTITY_LEN   MERO_ED25519_PK_LEN /* a member's namespace identity (public key) */
#define MERO_GROUP_ID_LEN   32
#define MERO_NS_ID_LEN      MERO_GROUP_ID_LEN /* a namespace is its root group */
#define MERO_CONTEXT_ID_LEN 32
#define MERO_APP_ID_LEN     32
#define MERO_OP_ID_LEN      MERO_SHA256_LEN /* an op's id is the hash of its bytes */
#define MERO_DELTA_ID_LEN   MERO_SHA256_LEN
#define MERO_KEY_ID_LEN     MERO_SHA256_LEN /* key_id = SHA-256(key) */
#define MERO_GROUP_KEY_LEN  MERO_AEAD_KEY_LEN
#define MERO_QUOTE_HASH_LEN MERO_SHA256_LEN

/* ---- net: libp2p Noise_XX_25519_ChaChaPoly_SHA256 (Noise spec rev 34 §4-§5) ---- */
#define MERO_NOISE_DH_LEN    MERO_X25519_LEN   /* DHLEN: X25519 keys and shared secrets */
#define MERO_NOISE_HASH_LEN  MERO_SHA256_LEN   /* HASHLEN: the handshake hash h and key ck */
#define MERO_NOISE_KEY_LEN   MERO_AEAD_KEY_LEN /* a ChaChaPoly cipher key */
#define MERO_NOISE_NONCE_LEN 12                /* ChaCha20-Poly1305 (RFC 8439) nonce */
#define MERO_NOISE_TAG_LEN   MERO_AEAD_TAG_LEN /* Poly1305 tag */

/* ---- net: Calimero's sealed HTTP v2, Noise_NK_25519_AESGCM_SHA256 (docs/sealed.md) ---- */
#define MERO_SEALED_VERSION        2  /* the first byte of every sealed body */
#define MERO_SEALED_SESSION_ID_LEN 16 /* a session id, chosen by the node */
#define MERO_SEALED_MSG1_LEN       (MERO_X25519_LEN + MERO_AEAD_TAG_LEN) /* -> e, es; empty payload */
#define MERO_SEALED_MSG2_PAYLOAD_LEN                                                               \
    (MERO_SEALED_SESSION_ID_LEN + 4) /* session id || lifetime (u32 BE) */
#define MERO_SEALED_MSG2_LEN                                                                       \
    (MERO_X25519_LEN + MERO_SEALED_MSG2_PAYLOAD_LEN + MERO_AEAD_TAG_LEN) /* <- e, ee; payload */
#define MERO_SEALED_HANDSHAKE_LEN       (1 + MERO_X25519_LEN + MERO_SEALED_MSG1_LEN) /* 81 */
#define MERO_SEALED_HANDSHAKE_REPLY_LEN (1 + MERO_SEALED_MSG2_LEN)                   /* 69 */
#define MERO_SEALED_HEADER_LEN          (1 + MERO_SEALED_SESSION_ID_LEN + 8) /* version, sid, rid */
#define MERO_SEALED_NONCE_LEN           12 /* AES-256-GCM: rid (u64 BE) || frame index (u32 BE) */
#define MERO_SEALED_FRAME_DATA_MAX      (64u * 1024u) /* a frame's data, a head or a body piece */
#define MERO_SEALED_HEAD_MAX            MERO_SEALED_FRAME_DATA_MAX /* an inner request's head */

/* ---- gov: op payloads and account credentials ---- */
#define MERO_NS_SALT_LEN    32 /* NamespaceCreated { salt }: ns id = H(domain, creator, salt) */
#define MERO_ACCOUNT_ID_LEN MERO_SHA256_LEN /* an account: domain_hash(genesis) */
#define MERO_DEVICE_ID_LEN  MERO_SHA256_LEN /* a device id: a domain hash of the device key */

/* ---- attest: TDX quote body ---- */
#define MERO_SEAM_ATTRIBUTES_LEN 8

/* ---- text forms ---- */
#define MERO_HEX_LEN(n)  (2 * (n))     /* hex chars for n bytes */
#define MERO_HEX_SIZE(n) (2 * (n) + 1) /* the same plus its NUL: a char array's size */
#define MERO_ID_HEX_LEN  MERO_HEX_LEN(MERO_GROUP_ID_LEN) /* 64 */
#define MERO_MR_HEX_LEN  MERO_HEX_LEN(MERO_MR_LEN)       /* 96 */

/* ---- node/admission: reach, the paged key pull (issue 16, docs/admission.md "Reach") ---- */
#define MERO_GROUP_KEYS_PAGE_MAX 8   /* key envelopes in one GroupKeysResponse page */
#define MERO_GROUP_KEYS_HELD_MAX 256 /* key ids a GroupKeysRequest lists as already held */

/* ---- relations the formats rely on ---- */
_Static_assert(MERO_REPORT_DATA_LEN == MERO_NONCE_LEN + MERO_APP_HASH_LEN,
               "report data is nonce || application hash");
_Static_assert(MERO_ED25519_SK_LEN == MERO_ED25519_SEED_LEN + MERO_ED25519_PK_LEN,
               "an Ed25519 secret key is seed || public key");
_Static_assert(MERO_SHA384_LEN == MERO_MR_LEN, "a TDX measurement register is a SHA-384");
_Static_assert(MERO_X25519_LEN == MERO_ED25519_PK_LEN, "X25519 and Ed25519 keys are 32 bytes");
_Static_assert(MERO_IDENTITY_LEN == MERO_GROUP_ID_LEN, "ids and identities share one width");
_Static_assert(MERO_CONTEXT_ID_LEN == MERO_GROUP_ID_LEN, "ids share one width");
_Static_assert(MERO_KEY_ID_LEN == MERO_SHA256_LEN, "a key id is a SHA-256");
_Static_assert(MERO_ECDSA_P256_SIG_LEN == 2 * MERO_P256_SCALAR_LEN, "r || s");
_Static_assert(MERO_NOISE_KEY_LEN == MERO_NOISE_HASH_LEN,
               "Noise HKDF outputs of HASHLEN become cipher keys (MixKey, Split)");
_Static_assert(MERO_SEALED_HANDSHAKE_LEN == 81 && MERO_SEALED_HANDSHAKE_REPLY_LEN == 69,
               "the sealed handshake's bodies, as mero-js sends and expects them");
_Static_assert(MERO_SEALED_NONCE_LEN == 8 + 4, "a sealed nonce is request id || frame index");
/* attest (house-attest): a report-data binding is a SHA-256, so it fills the app-hash half */
_Static_assert(MERO_APP_HASH_LEN == MERO_SHA256_LEN, "a binding is a SHA-256");

/* ---- gov: relay intents (src/gov/intent.c, issue 15) ---- */
#define MERO_INTENT_NONCE_LEN 16              /* a signed intent's replay nonce */
#define MERO_INTENT_ID_LEN    MERO_SHA256_LEN /* id = SHA-256(domain || signed bytes) */

#endif
