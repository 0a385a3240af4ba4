/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve_internal.h - `calimero-tee-verify --serve` (serve.c): many requests, one process.
 */
#ifndef MERO_CLI_TEE_VERIFY_SERVE_INTERNAL_H
#define MERO_CLI_TEE_VERIFY_SERVE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "mero/tee_verify.h"

/* The longest request line, newline excluded: the one-shot form's input limit. */
#define TEE_VERIFY_SERVE_MAX_LINE MERO_TEE_VERIFY_MAX_INPUT

/* --require-valid's exit status for a verdict whose "valid" is not true. */
#define TEE_VERIFY_EXIT_NOT_VALID 3

/*
 * The exit status under --require-valid: code unchanged unless it is 0 (a verdict) and the
 * verdict document's "valid" member is not true, then TEE_VERIFY_EXIT_NOT_VALID.
 */
int tee_verify_require_valid(int code, const struct mero_buf *doc);

/*
 * Answer each line read from fd with one line on out, in order, until end of input.
 * With require_valid, each answer's "exit" is tee_verify_require_valid's status.
 * Returns the process exit status: 0 at end of input, 1 when reading or writing fails or out's
 * reader goes away (SIGPIPE is ignored from the first call on).
 */
int tee_verify_serve(int fd, FILE *out, bool require_valid);

#endif
