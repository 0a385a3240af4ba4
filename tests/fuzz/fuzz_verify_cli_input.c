/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_verify_cli_input.c - the calimero-tee-verify contract (mero_tee_verify_json) on
 * arbitrary stdin, with fetching disabled. Invariants checked: the exit code is 0, 1 or 2; the
 * output is one JSON object; exit 0 has "valid" and no "error"; exits 1 and 2 have "error" and
 * never "valid".
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mero/tee_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MERO_TEE_VERIFY_MAX_INPUT) {
        return 0;
    }
    struct mero_buf out;
    char msg[1100];
    mero_buf_init(&out, 1u << 20);
    int code = mero_tee_verify_json((const char *)data, size, false, &out, msg, sizeof(msg));
    json_t *o = out.data != NULL ? json_loadb((const char *)out.data, out.len, 0, NULL) : NULL;
    if ((code != 0 && code != 1 && code != 2) || !json_is_object(o)) {
        abort();
    }
    bool has_valid = json_object_get(o, "valid") != NULL;
    bool has_error = json_object_get(o, "error") != NULL;
    if (code == 0 ? (!has_valid || has_error) : (has_valid || !has_error || msg[0] == 0)) {
        abort();
    }
    json_decref(o);
    mero_buf_cleanup(&out);
    return 0;
}
