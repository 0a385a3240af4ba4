/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_key.c - `meroctl key generate --out FILE`: a client key (issue 15, docs/relay.md) in the
 * node's key file format, so a client with no node of its own can sign intents.
 *
 * Invariant: the file is created 0600 with O_EXCL (an existing file is never overwritten) and
 * nothing secret is printed: only the identity (the public key) and the path.
 */
#include <stdio.h>
#include <string.h>

#include "client_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/identity.h"

static int run_key_generate(const struct meroctl_global *g, int argc, char **argv)
{
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc && out == NULL) {
            out = argv[++i];
        } else {
            return meroctl_usage_error("key generate: unexpected argument %s", argv[i]);
        }
    }
    if (out == NULL || out[0] == '\0') {
        return meroctl_usage_error("key generate needs --out FILE");
    }
    uint8_t pk[MERO_IDENTITY_LEN], sk[MERO_ED25519_SK_LEN];
    struct mero_err e = {0};
    mero_ed25519_keypair(pk, sk);
    int rc = mero_keyfile_create(out, sk, &e);
    mero_wipe(sk, sizeof(sk));
    if (rc < 0) {
        return meroctl_fail(MEROCTL_FAILED, "%s", e.msg);
    }
    char hex[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    mero_hex_encode(hex, pk, sizeof(pk));
    if (g->json) {
        json_t *data = json_pack("{s:s, s:s}", "identity", hex, "path", out);
        if (data == NULL) {
            return meroctl_fail(MEROCTL_FAILED, "out of memory");
        }
        meroctl_print(g, data);
        json_decref(data);
    } else {
        printf("%s\n", hex);
    }
    return MEROCTL_OK;
}

static const struct meroctl_opt keygen_opts[] = {
    {"--out", "FILE", "where to write the key (required; never overwritten)", NULL, NULL, false,
     true},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"key generate", "--out FILE",
                  "make a client Ed25519 key (a 0600 file, never overwritten); print its identity",
                  run_key_generate, keygen_opts})
