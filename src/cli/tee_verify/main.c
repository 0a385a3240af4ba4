/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calimero-tee-verify - reads one JSON object on stdin, verifies the TDX quote in it against
 * Intel collateral, writes one JSON object on stdout (reference-calimero.md §3; spec
 * "Verifying from outside Rust"). The contract lives in src/attest/tee_verify.c
 * (mero_tee_verify_json); this main only moves bytes: stdin in, stdout out, and on an error
 * "calimero-tee-verify: <message>" on stderr. Exit 0 verdict, 1 unusable input, 2 no verdict;
 * with --require-valid (issue 35), 3 for a verdict that is not valid (stdout unchanged).
 * With --serve, one request per line and one answer per line (serve.c, docs/bindings.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/tee_verify.h"
#include "serve_internal.h"

#define PROG          "calimero-tee-verify"
#define ERROR_DOC_MAX 4096 /* the JSON error document for unusable arguments */

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
    "usage: calimero-tee-verify [--require-valid] < input.json\n"
    "       calimero-tee-verify --serve [--require-valid]\n"
    "  input:  {\"quote_b64\"|\"quote_hex\" (one, at most 16384 bytes): ...,\n"
    "           \"nonce_hex\": \"<64 hex>\", \"app_hash_hex\": \"<64 hex>\",\n"
    "           \"collateral\": {...}?, \"time_unix\": N?}\n"
    "  output: one JSON object on stdout (see calimero-tee-verify(1))\n"
    "  options:\n"
    "    --require-valid  exit 3 when the verdict's \"valid\" is not true (the output is the\n"
    "                     same; without it such a verdict exits 0, the reference's contract)\n"
    "    --serve          one request per line in, one answer per line out; each answer is\n"
    "                     the object above plus \"exit\": the exit status below; the process\n"
    "                     ends with 0 at end of input, 1 when stdin or stdout fails or\n"
    "                     stdout's reader goes away\n"
    "    --help, --version\n"
    "  exit:   0 a verdict (read \"valid\"; with --require-valid: a valid verdict),\n"
    "          1 unusable input, 2 no verdict, 3 not valid (only with --require-valid)\n";

static int bad_args(const char *why)
{
    fprintf(stderr, "calimero-tee-verify: %s\n%s", why, usage);
    /* stdout still carries one JSON object, as for any other unusable input */
    struct mero_buf out;
    mero_buf_init(&out, ERROR_DOC_MAX);
    mero_tee_verify_error(&out, why);
    fwrite(out.data, 1, out.len, stdout);
    fputc('\n', stdout);
    mero_buf_cleanup(&out);
    return 1;
}

int main(int argc, char **argv)
{
    struct mero_buf in, out;
    bool serve = false, require_valid = false;
    /* The contract is stdin/stdout only; the arguments are --help, --version, --serve and
     * --require-valid (issue 35), each at most once. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            puts("calimero-tee-verify 0.1.0");
            return 0;
        }
    }
    for (int i = 1; i < argc; i++) {
        bool *flag = strcmp(argv[i], "--serve") == 0           ? &serve
                     : strcmp(argv[i], "--require-valid") == 0 ? &require_valid
                                                               : NULL;
        if (flag == NULL) {
            return bad_args("takes no arguments but --serve and --require-valid (input is JSON "
                            "on stdin)");
        }
        if (*flag) {
            return bad_args("an option is given twice");
        }
        *flag = true;
    }
    if (serve) {
        return tee_verify_serve(0, stdout, require_valid);
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
    if (require_valid) {
        code = tee_verify_require_valid(code, &out);
        if (code == TEE_VERIFY_EXIT_NOT_VALID) {
            snprintf(msg, sizeof(msg), "the verdict is not valid (--require-valid)");
        }
    }
    code = emit(code, &out, msg);
    mero_buf_cleanup(&in);
    mero_buf_cleanup(&out);
    return code;
}
