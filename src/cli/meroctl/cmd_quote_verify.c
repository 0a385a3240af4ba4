/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_quote_verify.c - `meroctl quote verify`: the calimero-tee-verify contract
 * (reference-calimero.md §3) from meroctl: one JSON object on stdin ({quote_b64|quote_hex,
 * nonce_hex, app_hash_hex[, collateral][, time_unix]}), one on stdout, exit 0 verdict, 1 bad
 * input, 2 no verdict. Same code as the binary (mero_tee_verify_json).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "meroctl_internal.h"
#include "mero/tee_verify.h"

static int run_quote_verify(const struct meroctl_global *g, int argc, char **argv)
{
    (void)g;
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "meroctl quote verify: reads one JSON object on stdin, takes no "
                        "arguments\n");
        return MEROCTL_USAGE;
    }
    struct mero_buf in, out;
    char msg[1100], chunk[65536];
    int code = 0;
    mero_buf_init(&in, MERO_TEE_VERIFY_MAX_INPUT);
    mero_buf_init(&out, MERO_TEE_VERIFY_MAX_OUTPUT);
    for (;;) {
        size_t got = fread(chunk, 1, sizeof(chunk), stdin);
        if (got > 0 && mero_buf_append(&in, chunk, got) < 0) {
            snprintf(msg, sizeof(msg), "could not read stdin: input exceeds %u bytes",
                     MERO_TEE_VERIFY_MAX_INPUT);
            code = 1;
            break;
        }
        if (got == 0) {
            if (ferror(stdin)) {
                snprintf(msg, sizeof(msg), "could not read stdin: %s", strerror(errno));
                code = 1;
            }
            break;
        }
    }
    if (code != 0) {
        mero_tee_verify_error(&out, msg);
    } else {
        code = mero_tee_verify_json(in.data != NULL ? (const char *)in.data : "", in.len, true,
                                    &out, msg, sizeof(msg));
    }
    if (out.len > 0) {
        fwrite(out.data, 1, out.len, stdout);
    }
    fputc('\n', stdout);
    if (code != 0) {
        fprintf(stderr, "meroctl quote verify: %s\n", msg);
    }
    mero_buf_cleanup(&in);
    mero_buf_cleanup(&out);
    return code;
}

MEROCTL_COMMANDS({"quote verify", "< input.json",
                  "verify a TDX quote against Intel collateral (calimero-tee-verify's JSON "
                  "contract on stdin/stdout)",
                  run_quote_verify, NULL})
