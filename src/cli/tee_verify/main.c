/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calimero-tee-verify - reads one JSON object on stdin, verifies the TDX quote in it against
 * Intel collateral, writes one JSON object on stdout (reference-calimero.md §3; spec
 * "Verifying from outside Rust"). The contract lives in src/attest/tee_verify.c
 * (mero_tee_verify_json); this main only moves bytes: stdin in, stdout out, and on an error
 * "calimero-tee-verify: <message>" on stderr. Exit 0 verdict, 1 unusable input, 2 no verdict.
 * With --serve, one request per line and one answer per line (serve.c, docs/bindings.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/tee_verify.h"
#include "serve_internal.h"

#define PROG "calimero-tee-verify"

static int emit(int code, struct mero_buf *out, const char *msg)
{
    if (out->len > 0) {
        fwrite(out->data, 1, out->len, stdout);
    }
    fputc('\n', stdout);
    fflush(stdout);
    if (code != 0) {
        fprintf(stderr, PROG ": %s\n", msg);
    }
    return code;
}

static const char usage[] =
    "usage: calimero-tee-verify < input.json\n"
    "       calimero-tee-verify --serve   (one request per line in, one answer per line out)\n"
    "  input:  {\"quote_b64\"|\"quote_hex\" (one, at most 16384 bytes): ...,\n"
    "           \"nonce_hex\": \"<64 hex>\", \"app_hash_hex\": \"<64 hex>\",\n"
    "           \"collateral\": {...}?, \"time_unix\": N?}\n"
    "  output: one JSON object on stdout (see calimero-tee-verify(1))\n"
    "  exit:   0 a verdict (read \"valid\"), 1 unusable input, 2 no verdict\n"
    "  --serve: each answer is that object plus \"exit\": the exit status above;\n"
    "           ends with 0 at end of input, 1 when stdin or stdout fails or stdout's\n"
    "           reader goes away\n";

int main(int argc, char **argv)
{
    struct mero_buf in, out;
    /* The contract is stdin/stdout only; the sole arguments are --help, --version, --serve. */
    if (argc == 2 && strcmp(argv[1], "--serve") == 0) {
        return tee_verify_serve(0, stdout);
    }
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[1], "--version") == 0) {
            puts("calimero-tee-verify 0.1.0");
            return 0;
        }
        fprintf(stderr,
                "calimero-tee-verify: takes no arguments but --serve (input is JSON on stdin)\n%s",
                usage);
        puts("{\"error\":\"calimero-tee-verify takes no arguments but --serve (input is JSON on "
             "stdin)\"}");
        return 1;
    }
    char msg[1100];
    mero_buf_init(&in, MERO_TEE_VERIFY_MAX_INPUT);
    mero_buf_init(&out, MERO_TEE_VERIFY_MAX_OUTPUT);
    char chunk[65536];
    for (;;) {
        size_t got = fread(chunk, 1, sizeof(chunk), stdin);
        if (got > 0 && mero_buf_append(&in, chunk, got) < 0) {
            snprintf(msg, sizeof(msg), "could not read stdin: input exceeds %u bytes",
                     MERO_TEE_VERIFY_MAX_INPUT);
            mero_tee_verify_error(&out, msg);
            return emit(1, &out, msg);
        }
        if (got == 0) {
            if (ferror(stdin)) {
                snprintf(msg, sizeof(msg), "could not read stdin: %s", strerror(errno));
                mero_tee_verify_error(&out, msg);
                return emit(1, &out, msg);
            }
            break;
        }
    }
    int code = mero_tee_verify_json(in.data != NULL ? (const char *)in.data : "", in.len, true,
                                    &out, msg, sizeof(msg));
    code = emit(code, &out, msg);
    mero_buf_cleanup(&in);
    mero_buf_cleanup(&out);
    return code;
}
