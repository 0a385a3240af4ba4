/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_identity.c - key files (0600 written, looser refused with a clear message),
 * domain_hash and account id known answers, the credential codec and
 * join_credential_certifies with its refusals.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "mero/borsh.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/identity.h"

static char dir[256];

static void path_of(char *out, size_t cap, const char *name)
{
    if (dir[0] == '\0') {
        snprintf(dir, sizeof(dir), "%s/mero-id-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(dir) == NULL) {
            dir[0] = '\0';
        }
    }
    snprintf(out, cap, "%s/%s", dir, name);
}

TEST(key_file_round_trip_is_0600)
{
    char p[512];
    path_of(p, sizeof(p), "node.key");
    uint8_t pk[32], sk[64], back[64];
    CHECK_OK(mero_crypto_init());
    mero_ed25519_keypair(pk, sk);
    CHECK_OK(mero_keyfile_save(p, sk, NULL));
    struct stat st;
    CHECK(stat(p, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_OK(mero_keyfile_load(p, back, NULL));
    CHECK_MEM_EQ(sk, back, 64);
}

TEST(key_file_group_or_world_readable_refused)
{
    char p[512];
    path_of(p, sizeof(p), "loose.key");
    uint8_t pk[32], sk[64], back[64];
    mero_ed25519_keypair(pk, sk);
    CHECK_OK(mero_keyfile_save(p, sk, NULL));
    static const mode_t modes[] = {0640, 0604, 0660, 0644};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        CHECK(chmod(p, modes[i]) == 0);
        struct mero_err e = {0};
        memset(back, 0, sizeof(back));
        CHECK_ERR(mero_keyfile_load(p, back, &e), -MERO_EKEYPERM);
        CHECK(strstr(e.msg, "chmod 600") != NULL);
        CHECK(strstr(e.msg, p) != NULL);
        uint8_t zero[64] = {0};
        CHECK_MEM_EQ(back, zero, 64); /* not written on failure */
    }
    CHECK(chmod(p, 0400) == 0);
    CHECK_OK(mero_keyfile_load(p, back, NULL));
}

TEST(key_file_malformed_refused)
{
    char p[512];
    path_of(p, sizeof(p), "bad.key");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "not base64!\n", 12) == 12);
    close(fd);
    uint8_t sk[64];
    struct mero_err e = {0};
    CHECK_ERR(mero_keyfile_load(p, sk, &e), -MERO_EINVAL);
    /* issue 21 item 1: an all-zero seed is a publicly known key */
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", 45) == 45);
    close(fd);
    CHECK_ERR(mero_keyfile_load(p, sk, &e), -MERO_EINVAL);
    CHECK(strstr(e.msg, "all-zero") != NULL);
    /* a FIFO in the key's place is refused at once, not waited on */
    path_of(p, sizeof(p), "fifo.key");
    (void)unlink(p);
    CHECK(mkfifo(p, 0600) == 0);
    CHECK_ERR(mero_keyfile_load(p, sk, &e), -MERO_EIO);
    path_of(p, sizeof(p), "missing.key");
    CHECK_ERR(mero_keyfile_load(p, sk, &e), -MERO_ENOTFOUND);
    CHECK_OK(mero_keyfile_load_or_create(p, sk, &e));
    uint8_t again[64];
    CHECK_OK(mero_keyfile_load_or_create(p, again, &e));
    CHECK_MEM_EQ(sk, again, 64);
}

TEST(domain_hash_known_answer)
{
    /* SHA-256(u64le(3) || "abc" || u64le(2) || "xy"), computed independently with Python */
    uint8_t out[32];
    const uint8_t *parts[1] = {(const uint8_t *)"xy"};
    size_t lens[1] = {2};
    mero_domain_hash(out, "abc", parts, lens, 1);
    char hex[65];
    mero_hex_encode(hex, out, 32);
    CHECK_STR_EQ(hex, "122ccf316a2fdbca1aef85a857cea505810a07ae9d547601c763bc42e5f3f0d8");
    /* account id of root key 0x11 x 32, genesis version 1 (Python, same rule) */
    uint8_t root[32];
    memset(root, 0x11, 32);
    mero_account_id(out, 1, root);
    mero_hex_encode(hex, out, 32);
    CHECK_STR_EQ(hex, "2c59fa12ee16a5aa01af1c1471a28336c645f65856dbb2fbff5677eceb97d205");
}

TEST(credential_round_trip_and_certifies)
{
    uint8_t root_pk[32], root_sk[64], id_pk[32], id_sk[64], kem[32], device[32];
    mero_ed25519_keypair(root_pk, root_sk);
    mero_ed25519_keypair(id_pk, id_sk);
    CHECK_OK(mero_kem_pk_from_ed25519(kem, id_pk));
    mero_device_id(device, root_pk);
    struct mero_credential c, d;
    mero_credential_build(&c, root_sk, device, id_pk, kem, 1, 2);
    uint8_t acct[32];
    mero_account_id(acct, MERO_ACCOUNT_GENESIS_VERSION, root_pk);
    CHECK_MEM_EQ(c.cert.account, acct, 32);
    struct mero_buf b;
    mero_buf_init(&b, 1024);
    CHECK_OK(mero_credential_encode(&b, &c));
    CHECK_EQ(b.len, MERO_CREDENTIAL_LEN);
    struct mero_cur cur;
    mero_cur_init(&cur, b.data, b.len);
    CHECK_OK(mero_credential_decode(&cur, &d, NULL));
    CHECK_EQ(mero_cur_left(&cur), 0);
    CHECK(memcmp(&c, &d, sizeof(c)) == 0);
    struct mero_err e = {0};
    CHECK_OK(mero_credential_certifies(id_pk, &d, &e));
    /* another key */
    CHECK_ERR(mero_credential_certifies(root_pk, &d, &e), -MERO_EREFUSED);
    CHECK_STR_EQ(e.msg, "the account credential does not certify the attested key");
    /* tampered epoch */
    d.cert.key_epoch++;
    CHECK_ERR(mero_credential_certifies(id_pk, &d, &e), -MERO_EBADSIG);
    d.cert.key_epoch--;
    /* account that the genesis does not derive */
    d.cert.account[0] ^= 1;
    CHECK_ERR(mero_credential_certifies(id_pk, &d, &e), -MERO_EBADSIG);
    d.cert.account[0] ^= 1;
    /* truncated and chain-carrying encodings */
    for (size_t len = 0; len < b.len; len++) {
        mero_cur_init(&cur, b.data, len);
        CHECK(mero_credential_decode(&cur, &d, NULL) < 0);
        CHECK_EQ(cur.off, 0);
    }
    b.data[33] = 1;
    mero_cur_init(&cur, b.data, b.len);
    CHECK_ERR(mero_credential_decode(&cur, &d, &e), -MERO_EUNSUPPORTED);
    mero_buf_cleanup(&b);
}

MERO_TEST_MAIN(T(key_file_round_trip_is_0600), T(key_file_group_or_world_readable_refused),
               T(key_file_malformed_refused), T(domain_hash_known_answer),
               T(credential_round_trip_and_certifies))
