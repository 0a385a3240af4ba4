/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sigstore_root.h - the public-good trusted root that the Sigstore fuzz targets verify
 * against, read once from ../shared at run time (never copied into the corpus). Header-only:
 * `make fuzz` builds each target from its one source file.
 */
#ifndef MERO_FUZZ_SIGSTORE_ROOT_H
#define MERO_FUZZ_SIGSTORE_ROOT_H

#include <stdio.h>
#include <stdlib.h>

#include "mero/crypto.h"
#include "mero/sigstore.h"

/* The root, or NULL when ../shared is absent (the target then checks parsing only). */
static struct mero_trust_root *fuzz_sigstore_root(void)
{
    static struct mero_trust_root *tr;
    static int tried;
    if (!tried) {
        tried = 1;
        (void)!mero_crypto_init();
        const char *sh = getenv("MERO_SHARED");
        char path[1024];
        snprintf(path, sizeof(path),
                 "%s/testdata/sigstore/trusted-root-public-good/trusted_root.json",
                 sh ? sh : "../shared");
        if (mero_trust_root_load(&tr, path, NULL) < 0) {
            tr = NULL;
        }
    }
    return tr;
}

#endif
