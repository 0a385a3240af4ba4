/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve_internal.h - `calimero-tee-verify --serve` (serve.c): many requests, one process.
 */
#ifndef MERO_CLI_TEE_VERIFY_SERVE_INTERNAL_H
#define MERO_CLI_TEE_VERIFY_SERVE_INTERNAL_H

#include <stdio.h>

#include "mero/tee_verify.h"

/* The longest request line, newline excluded: the one-shot form's input limit. */
#define TEE_VERIFY_SERVE_MAX_LINE MERO_TEE_VERIFY_MAX_INPUT

/*
 * Answer each line read from fd with one line on out, in order, until end of input.
 * Returns the process exit status: 0 at end of input, 1 when reading or writing fails or out's
 * reader goes away (SIGPIPE is ignored from the first call on).
 */
int tee_verify_serve(int fd, FILE *out);

#endif
