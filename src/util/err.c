/* SPDX-License-Identifier: Apache-2.0 */
/* err.c - error names and the struct mero_err reason carrier. Messages never hold secrets. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mero/err.h"

static const char *const names[] = {"OK",
#define X(name, desc) #name,
                                    MERO_ERRORS(X)
#undef X
};

static const char *const descs[] = {"success",
#define X(name, desc) desc,
                                    MERO_ERRORS(X)
#undef X
};

const char *mero_strerror(int code)
{
    if (code < 0) {
        code = -code;
    }
    if (code >= MERO_ERR__COUNT) {
        return "EUNKNOWN";
    }
    return names[code];
}

const char *mero_errdesc(int code)
{
    if (code < 0) {
        code = -code;
    }
    if (code >= MERO_ERR__COUNT) {
        return "unknown error";
    }
    return descs[code];
}

int mero_err_set(struct mero_err *err, int code, const char *fmt, ...)
{
    MERO_ASSERT(code > 0 && code < MERO_ERR__COUNT); /* a positive mero_err_code, always */
    if (code <= 0 || code >= MERO_ERR__COUNT) {
        code = MERO_EINTERNAL;
    }
    if (err != NULL) {
        err->code = code;
        if (fmt != NULL) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
            va_end(ap);
        } else {
            snprintf(err->msg, sizeof(err->msg), "%s", mero_errdesc(code));
        }
    }
    return -code;
}

void mero_err_clear(struct mero_err *err)
{
    if (err != NULL) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
