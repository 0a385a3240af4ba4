/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcap_cases.c - test helper: reads a genuine TDX case (quote.bin, its QuoteCollateralV3 file,
 * expected.json) from ../shared/testdata at run time. Keeps no copy of the data.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/dcap_cases.h"

const char *const dcap_case_names[] = {
    "tdx/dcapqvl-1",    "tdx/dcapqvl-2", "tdx/dcapqvl-3",
    "tdx/gotdxguest-1", "tdx/nearmpc-1", "tdx/nearmpc-2",
    "tdx/nearmpc-3",    "tdx/nearmpc-4", NULL,
};

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        fclose(f);
        return NULL;
    }
    fclose(f);
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

char *dcap_case_file(const struct dcap_case *c, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", c->dir, name);
    return slurp(path, len);
}

static const char *shared_dir(void)
{
    const char *e = getenv("MERO_SHARED");
#ifdef MERO_SHARED_DIR
    return e ? e : MERO_SHARED_DIR;
#else
    return e ? e : "../shared";
#endif
}

int dcap_case_load(struct dcap_case *c, const char *rel)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->dir, sizeof(c->dir), "%s/testdata/%s", shared_dir(), rel);
    const char *slash = strrchr(rel, '/');
    snprintf(c->name, sizeof(c->name), "%s", slash ? slash + 1 : rel);
    c->quote = (uint8_t *)dcap_case_file(c, "quote.bin", &c->quote_len);
    size_t n;
    char *exp = dcap_case_file(c, "expected.json", &n);
    if (c->quote == NULL || exp == NULL) {
        free(exp);
        dcap_case_free(c);
        return -1;
    }
    c->expected = json_loadb(exp, n, 0, NULL);
    free(exp);
    if (c->expected == NULL) {
        dcap_case_free(c);
        return -1;
    }
    c->result =
        json_string_value(json_object_get(json_object_get(c->expected, "expect"), "result"));
    c->verify_time = (uint64_t)json_integer_value(json_object_get(c->expected, "verify_time_unix"));
    json_t *w = json_object_get(c->expected, "collateral_validity_window");
    if (w != NULL) {
        c->window_nb = json_integer_value(json_object_get(w, "not_before_unix"));
        c->window_na = json_integer_value(json_object_get(w, "not_after_unix"));
    }
    DIR *d = opendir(c->dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (strstr(e->d_name, "collateral") != NULL && l > 5 &&
            strcmp(e->d_name + l - 5, ".json") == 0) {
            c->collateral_json = dcap_case_file(c, e->d_name, &c->collateral_len);
            break;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return 0;
}

void dcap_case_free(struct dcap_case *c)
{
    free(c->quote);
    free(c->collateral_json);
    if (c->expected != NULL) {
        json_decref(c->expected);
    }
    memset(c, 0, sizeof(*c));
}
