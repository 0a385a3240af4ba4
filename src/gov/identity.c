/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identity.c - Ed25519 key files, domain_hash, account and device ids, and the account
 * credential (DeviceCert inside a minimal AccountProof) with join_credential_certifies.
 *
 * Invariants: a key file is written 0600 via a temp file + rename (a new client key: created
 * with O_EXCL, never replacing a file) and is refused on load when
 * its mode grants group/other access, it is not a regular file, or it holds an all-zero seed;
 * secret bytes read from a file are wiped after use; a credential certifies a key only when
 * every signature and id in it checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mero/borsh.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/identity.h"

#define KEYFILE_MAX       256
#define CERT_SIGNABLE_MAX 256 /* the bytes a device certificate's signature covers */

/* Write the key file's one line (base64 of the seed, newline) to fd and sync it; 0 or errno. */
static int write_seed(int fd, const uint8_t sk[static MERO_ED25519_SK_LEN])
{
    char *b64 = mero_base64_encode(sk, MERO_ED25519_SEED_LEN); /* sk = seed || pk */
    if (b64 == NULL) {
        return ENOMEM;
    }
    size_t len = strlen(b64);
    bool written = fchmod(fd, 0600) == 0 && write(fd, b64, len) == (ssize_t)len &&
                   write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    int write_errno = written ? 0 : (errno != 0 ? errno : EIO);
    sodium_memzero(b64, len);
    free(b64);
    return write_errno;
}

/* write_seed, then close fd (always); 0 or -MERO_EIO with the reason naming path. */
static int write_and_close(int fd, const uint8_t sk[static MERO_ED25519_SK_LEN], const char *path,
                           struct mero_err *err)
{
    int write_errno = write_seed(fd, sk);
    bool closed = close(fd) == 0;
    MERO_ENSURE(write_errno == 0, err, MERO_EIO, "cannot write key file %s: %s", path,
                strerror(write_errno));
    MERO_ENSURE(closed, err, MERO_EIO, "cannot write key file %s", path);
    return 0;
}

int mero_keyfile_save(const char *path, const uint8_t sk[static MERO_ED25519_SK_LEN],
                      struct mero_err *err)
{
    char tmp[4096];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        return mero_err_set(err, MERO_EINVAL, "key file path too long");
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        return mero_err_set(err, MERO_EIO, "cannot create key file %s: %s", path, strerror(errno));
    }
    int rc = 0;
    MERO_TRY_OUT(write_and_close(fd, sk, path, err));
    MERO_ENSURE_OUT(rename(tmp, path) == 0, err, MERO_EIO, "cannot install key file %s: %s", path,
                    strerror(errno));
out:
    if (rc < 0) {
        (void)unlink(tmp);
    }
    return rc;
}

int mero_keyfile_load(const char *path, uint8_t sk[static MERO_ED25519_SK_LEN],
                      struct mero_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); /* a FIFO: refused */
    if (fd < 0) {
        /* a positive code: mero_err_set returns its negation */
        int code = errno == ENOENT ? MERO_ENOTFOUND : MERO_EIO;
        return mero_err_set(err, code, "cannot open key file %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mero_err_set(err, MERO_EIO, "key file %s is not a regular file", path);
    }
    if ((st.st_mode & 077) != 0) {
        close(fd);
        return mero_err_set(err, MERO_EKEYPERM,
                            "key file %s is accessible by group or others (mode %03o); run "
                            "chmod 600 %s",
                            path, (unsigned)(st.st_mode & 0777), path);
    }
    char text[KEYFILE_MAX + 1];
    ssize_t got = read(fd, text, KEYFILE_MAX);
    close(fd);
    if (got <= 0 || got == KEYFILE_MAX) {
        return mero_err_set(err, MERO_EINVAL, "key file %s is empty or too long", path);
    }
    size_t len = (size_t)got;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) {
        len--;
    }
    uint8_t *seed = NULL;
    size_t seedlen = 0;
    int rc = mero_base64_decode_alloc(text, len, MERO_ED25519_SK_LEN, &seed, &seedlen);
    sodium_memzero(text, sizeof(text));
    if (rc < 0 || seedlen != MERO_ED25519_SEED_LEN) {
        if (seed != NULL) {
            sodium_memzero(seed, seedlen);
            free(seed);
        }
        return mero_err_set(err, MERO_EINVAL, "key file %s does not hold a base64 Ed25519 seed",
                            path);
    }
    if (sodium_is_zero(seed, seedlen)) { /* a publicly known key (issue 21 item 1) */
        free(seed);
        return mero_err_set(err, MERO_EINVAL,
                            "key file %s holds an all-zero seed (publicly known); make a new key",
                            path);
    }
    uint8_t pk[MERO_IDENTITY_LEN];
    mero_ed25519_from_seed(pk, sk, seed);
    sodium_memzero(seed, seedlen);
    free(seed);
    return 0;
}

int mero_keyfile_load_or_create(const char *path, uint8_t sk[static MERO_ED25519_SK_LEN],
                                struct mero_err *err)
{
    struct mero_err e = {0};
    int rc = mero_keyfile_load(path, sk, &e);
    if (rc != -MERO_ENOTFOUND) {
        if (rc < 0 && err != NULL) {
            *err = e;
        }
        return rc;
    }
    uint8_t pk[MERO_IDENTITY_LEN], fresh[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(pk, fresh);
    rc = mero_keyfile_save(path, fresh, err);
    if (rc == 0) {
        memcpy(sk, fresh, sizeof(fresh));
    }
    sodium_memzero(fresh, sizeof(fresh));
    return rc;
}

static void put_u64le(uint8_t out[8], uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(v >> (8 * i));
    }
}

void mero_domain_hash(uint8_t out[static MERO_SHA256_LEN], const char *domain,
                      const uint8_t *const *parts, const size_t *lens, size_t nparts)
{
    struct mero_sha256 h;
    uint8_t len8[8];
    size_t dl = strlen(domain);
    mero_sha256_init(&h);
    put_u64le(len8, dl);
    mero_sha256_update(&h, len8, 8);
    mero_sha256_update(&h, domain, dl);
    for (size_t i = 0; i < nparts; i++) {
        put_u64le(len8, lens[i]);
        mero_sha256_update(&h, len8, 8);
        mero_sha256_update(&h, parts[i], lens[i]);
    }
    mero_sha256_final(&h, out);
}

void mero_account_id(uint8_t out[static MERO_ACCOUNT_ID_LEN], uint8_t version,
                     const uint8_t root_pk[static MERO_ED25519_PK_LEN])
{
    uint8_t part[1 + MERO_ED25519_PK_LEN]; /* version || root_pk */
    part[0] = version;
    memcpy(part + 1, root_pk, MERO_ED25519_PK_LEN);
    const uint8_t *parts[1] = {part};
    size_t lens[1] = {sizeof(part)};
    mero_domain_hash(out, MERO_DOMAIN_ACCOUNT_GENESIS, parts, lens, 1);
}

void mero_device_id(uint8_t out[static MERO_DEVICE_ID_LEN],
                    const uint8_t device_pk[static MERO_ED25519_PK_LEN])
{
    const uint8_t *parts[1] = {device_pk};
    size_t lens[1] = {MERO_ED25519_PK_LEN};
    mero_domain_hash(out, MERO_DOMAIN_DEVICE_ID, parts, lens, 1);
}

int mero_kem_pk_from_ed25519(uint8_t kem_pk[static MERO_X25519_LEN],
                             const uint8_t ed_pk[static MERO_ED25519_PK_LEN])
{
    if (crypto_sign_ed25519_pk_to_curve25519(kem_pk, ed_pk) != 0) {
        return -MERO_ECRYPTO;
    }
    return 0;
}

static int cert_body(struct mero_buf *b, const struct mero_device_cert *c)
{
    MERO_TRY(mero_buf_append(b, c->account, sizeof(c->account)));
    MERO_TRY(mero_buf_append(b, c->device, sizeof(c->device)));
    MERO_TRY(mero_buf_append(b, c->sign_pk, sizeof(c->sign_pk)));
    MERO_TRY(mero_buf_append(b, c->kem_pk, sizeof(c->kem_pk)));
    MERO_TRY(mero_buf_append_u32le(b, c->key_epoch));
    return mero_buf_append_u32le(b, c->device_epoch);
}

int mero_device_cert_signable(const struct mero_device_cert *c, struct mero_buf *out)
{
    MERO_TRY(mero_buf_append_str(out, MERO_DOMAIN_DEVICE_CERT));
    return cert_body(out, c);
}

void mero_credential_build(struct mero_credential *out,
                           const uint8_t root_sk[static MERO_ED25519_SK_LEN],
                           const uint8_t device[static MERO_DEVICE_ID_LEN],
                           const uint8_t sign_pk[static MERO_IDENTITY_LEN],
                           const uint8_t kem_pk[static MERO_X25519_LEN], uint32_t key_epoch,
                           uint32_t device_epoch)
{
    memset(out, 0, sizeof(*out));
    out->genesis_version = MERO_ACCOUNT_GENESIS_VERSION;
    memcpy(out->root_pk, root_sk + MERO_ED25519_SEED_LEN, sizeof(out->root_pk));
    mero_account_id(out->cert.account, out->genesis_version, out->root_pk);
    memcpy(out->cert.device, device, sizeof(out->cert.device));
    memcpy(out->cert.sign_pk, sign_pk, sizeof(out->cert.sign_pk));
    memcpy(out->cert.kem_pk, kem_pk, sizeof(out->cert.kem_pk));
    out->cert.key_epoch = key_epoch;
    out->cert.device_epoch = device_epoch;
    struct mero_buf b;
    mero_buf_init(&b, CERT_SIGNABLE_MAX);
    if (mero_device_cert_signable(&out->cert, &b) == 0) {
        mero_ed25519_sign(out->cert.signature, b.data, b.len, root_sk);
    }
    mero_buf_cleanup(&b);
}

int mero_credential_encode(struct mero_buf *b, const struct mero_credential *c)
{
    MERO_TRY(mero_buf_append_u8(b, c->genesis_version));
    MERO_TRY(mero_buf_append(b, c->root_pk, sizeof(c->root_pk)));
    MERO_TRY(mero_buf_append_u32le(b, 0)); /* empty handoff chain */
    MERO_TRY(cert_body(b, &c->cert));
    return mero_buf_append(b, c->cert.signature, sizeof(c->cert.signature));
}

int mero_credential_decode(struct mero_cur *c, struct mero_credential *out, struct mero_err *err)
{
    struct mero_credential v;
    uint32_t chain;
    size_t save = c->off;
    const char *what = "account credential truncated";
    int rc;
    memset(&v, 0, sizeof(v));
    MERO_TRY_OUT(mero_cur_u8(c, &v.genesis_version));
    MERO_TRY_OUT(mero_cur_copy(c, v.root_pk, sizeof(v.root_pk)));
    MERO_TRY_OUT(mero_cur_u32le(c, &chain));
    if (chain != 0) {
        what = "account credential with a root-key handoff chain is not supported";
    }
    MERO_TRY_OUT(chain == 0 ? 0 : -MERO_EUNSUPPORTED);
    what = "device certificate truncated";
    MERO_TRY_OUT(mero_cur_copy(c, v.cert.account, sizeof(v.cert.account)));
    MERO_TRY_OUT(mero_cur_copy(c, v.cert.device, sizeof(v.cert.device)));
    MERO_TRY_OUT(mero_cur_copy(c, v.cert.sign_pk, sizeof(v.cert.sign_pk)));
    MERO_TRY_OUT(mero_cur_copy(c, v.cert.kem_pk, sizeof(v.cert.kem_pk)));
    MERO_TRY_OUT(mero_cur_u32le(c, &v.cert.key_epoch));
    MERO_TRY_OUT(mero_cur_u32le(c, &v.cert.device_epoch));
    MERO_TRY_OUT(mero_cur_copy(c, v.cert.signature, sizeof(v.cert.signature)));
    *out = v;
out:
    if (rc < 0) {
        c->off = save; /* the cursor does not move on failure */
        rc = mero_err_set(err, -rc, "%s", what);
    }
    return rc;
}

int mero_credential_certifies(const uint8_t pk[static MERO_IDENTITY_LEN],
                              const struct mero_credential *cred, struct mero_err *err)
{
    uint8_t account[MERO_ACCOUNT_ID_LEN];
    struct mero_buf b;
    int rc;
    MERO_ENSURE(mero_ct_eq(cred->cert.sign_pk, pk, MERO_IDENTITY_LEN), err, MERO_EREFUSED,
                "the account credential does not certify the attested key");
    mero_account_id(account, cred->genesis_version, cred->root_pk);
    MERO_ENSURE(mero_ct_eq(account, cred->cert.account, sizeof(account)), err, MERO_EBADSIG,
                "account credential names an account its genesis does not derive");
    mero_buf_init(&b, CERT_SIGNABLE_MAX);
    MERO_TRY_OUT(mero_device_cert_signable(&cred->cert, &b));
    MERO_ENSURE_OUT(mero_ed25519_verify_memo(cred->cert.signature, b.data, b.len, cred->root_pk) ==
                        0,
                    err, MERO_EBADSIG, "account credential signature does not verify");
out:
    mero_buf_cleanup(&b);
    return rc;
}

/* ---- issue 15: client key files (meroctl key generate) ---- */

int mero_keyfile_create(const char *path, const uint8_t sk[static MERO_ED25519_SK_LEN],
                        struct mero_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int code = errno == EEXIST ? MERO_EEXIST : MERO_EIO;
        return mero_err_set(err, code, "cannot create key file %s: %s%s", path, strerror(errno),
                            errno == EEXIST ? " (an existing key file is never overwritten)" : "");
    }
    int rc = 0;
    MERO_TRY_OUT(write_and_close(fd, sk, path, err));
out:
    if (rc < 0) {
        (void)unlink(path); /* ours: O_EXCL created it */
    }
    return rc;
}
