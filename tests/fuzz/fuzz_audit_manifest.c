/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_audit_manifest.c - libFuzzer target for the fleet audit's manifest reader
 * (mero_audit_claims_parse, issue 36, docs/audit.md): an auditor's `meroctl audit verify`
 * reads manifest.json from an export it did not write.
 * Invariant checked: no crash, no sanitizer report; a manifest read names only files of the
 * writer's forms (a fixed folder, 64 hex, a fixed extension: nothing leaves the export; the
 * releases' and the disclosed plaintexts' too), every
 * event kind is a known one, and the counts stay within the caps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mero/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *f, const char *dir, const char *ext)
{
    size_t dl = strlen(dir);
    if (strncmp(f, dir, dl) != 0 || f[dl] != '/' || strstr(f, "..") != NULL ||
        strchr(f + dl + 1, '/') != NULL || strlen(f) != dl + 1 + 64 + 1 + strlen(ext) ||
        strcmp(f + dl + 66, ext) != 0) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mero_audit_claims c;
    struct mero_err err = {0};
    if (mero_audit_claims_parse((const char *)data, size, &c, &err) < 0) {
        return 0;
    }
    if (c.nops > MERO_AUDIT_MAX_OPS || c.nquotes > MERO_AUDIT_MAX_OPS) {
        abort();
    }
    for (size_t i = 0; i < c.nops; i++) {
        check_name(c.ops[i].file, "ops", "bin");
    }
    for (size_t i = 0; i < c.nquotes; i++) {
        check_name(c.quotes[i].file, "quotes", "bin");
    }
    for (size_t i = 0; i < c.ncoll; i++) {
        check_name(c.coll[i].file, "collateral", "json");
    }
    for (size_t i = 0; i < c.nsealed; i++) {
        check_name(c.sealed[i].file, "sealed", "bin");
    }
    if (c.nrels > MERO_AUDIT_MAX_RELEASES) {
        abort();
    }
    for (size_t i = 0; i < c.nrels; i++) {
        static const char *const ext[3] = {"json", "bundle.json", "sig"};
        for (int k = 0; k < 3; k++) {
            if (k < 2 || c.rels[i].file[k][0] != '\0') {
                check_name(c.rels[i].file[k], "releases", ext[k]);
            }
        }
    }
    for (size_t t = 0; t < c.ntees; t++) {
        for (size_t k = 0; k < c.tees[t].nev; k++) {
            if (mero_audit_kind_name(c.tees[t].ev[k].kind) == NULL) {
                abort();
            }
        }
    }
    mero_audit_claims_cleanup(&c);
    return 0;
}
