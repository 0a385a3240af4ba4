/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_verify.h - the calimero-tee-verify contract (reference-calimero.md §3) as a function, so
 * the binary, meroctl and the fuzzer share one implementation.
 *
 * Thread safety: both functions are safe from any thread (each call writes only to its own
 * out/msg; the verifier's caches are shared, see dcap.h).
 */
#ifndef MERO_TEE_VERIFY_H
#define MERO_TEE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "mero/buf.h"

#define MERO_TEE_VERIFY_MAX_INPUT  (4u << 20)
#define MERO_TEE_VERIFY_MAX_OUTPUT (1u << 20) /* the JSON verdict document */

/*
 * Judge one JSON input object. Returns the exit code: 0 a verdict (out holds the verdict
 * object), 1 unusable input, 2 no verdict (out holds {"error": msg} and msg the message).
 * allow_fetch false: without a `collateral` field there is no verdict (exit 2), nothing is
 * fetched.
 */
int mero_tee_verify_json(const char *input, size_t len, bool allow_fetch, struct mero_buf *out,
                         char *msg, size_t msg_cap);
/*
 * The same as mero_tee_verify_json for bindings without a struct mero_buf (ctypes, FFI): *out
 * receives the output document, owned, NUL-terminated (free with mero_tee_verify_free), and
 * *out_len its length. Returns the exit code; on out of memory 2 with *out NULL.
 */
int mero_tee_verify_json_alloc(const char *input, size_t len, int allow_fetch, char **out,
                               size_t *out_len);
void mero_tee_verify_free(char *doc);
/* Write {"error": msg} into out (for errors found before the input is judged). */
void mero_tee_verify_error(struct mero_buf *out, const char *msg);

#endif
