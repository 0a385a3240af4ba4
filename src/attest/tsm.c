/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsm.c - TDX quote generation through Linux configfs-tsm (reference-calimero.md §1.2), and
 * generate_attestation's decision between a real quote, a mock quote (only when asked for with
 * mock_tee) and a refusal.
 *
 * Invariants: a real quote is returned only if the provider is tdx_guest, the generation
 * counter did not move between our inblob write and the end of the outblob read, and the
 * outblob parses as a TDX quote whose report_data is exactly the one requested (so a racing
 * writer can never hand us its quote). A failure on TDX hardware is an error, never a silent
 * fall-back to a mock. Reads are bounded by MERO_TSM_MAX_OUTBLOB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest/tsm_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/tsm.h"

#define TSM_PROVIDER_SIZE 64 /* the configfs provider attribute's text */

#define TSM_ATTR_MAX 32 /* a configfs-tsm attribute value such as generation, as text */

static const char *root_override;

void mero__tsm_set_root(const char *root)
{
    root_override = root;
}

static const char *tsm_root(void)
{
    if (root_override != NULL) {
        return root_override;
    }
    const char *e = getenv("MERO_TSM_ROOT");
    return (e != NULL && e[0] != '\0') ? e : MERO_TSM_DEFAULT_ROOT;
}

void mero__tsm_entry_name(char out[MERO__TSM_NAME_SIZE],
                          const uint8_t report_data[static MERO_REPORT_DATA_LEN])
{
    uint8_t h[MERO_SHA256_LEN];
    char hex[17];
    mero_sha256(h, report_data, MERO_REPORT_DATA_LEN);
    mero_hex_encode(hex, h, 8);
    snprintf(out, MERO__TSM_NAME_SIZE, "mero-%s-%ld", hex, (long)getpid());
}

bool mero_tsm_present(void)
{
    struct stat st;
    return stat(tsm_root(), &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read at most max bytes of a file into a new buffer; -MERO_ETOOBIG if it holds more. */
static int read_file(const char *path, size_t max, uint8_t **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -MERO_EIO;
    }
    uint8_t *p = malloc(max + 1);
    if (p == NULL) {
        close(fd);
        return -MERO_ENOMEM;
    }
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, p + n, max + 1 - n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            free(p);
            close(fd);
            return -MERO_EIO;
        }
        if (r == 0) {
            break;
        }
        n += (size_t)r;
        if (n > max) {
            free(p);
            close(fd);
            return -MERO_ETOOBIG;
        }
    }
    close(fd);
    *out = p;
    *len = n;
    return 0;
}

/* A small text attribute, trailing newline removed, NUL-terminated into buf. */
static int read_attr(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[4096];
    uint8_t *p = NULL;
    size_t n = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
        return -MERO_EINVAL;
    }
    MERO_TRY(read_file(path, cap - 1, &p, &n));
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == ' ')) {
        n--;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    free(p);
    return 0;
}

static int write_blob(const char *dir, const uint8_t *data, size_t n)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof(path), "%s/inblob", dir) >= sizeof(path)) {
        return -MERO_EINVAL;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return -MERO_EIO;
    }
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            close(fd);
            return -MERO_EIO;
        }
        off += (size_t)w;
    }
    return close(fd) == 0 ? 0 : -MERO_EIO;
}

/* Everything between mkdir and rmdir. */
static int quote_in_entry(const char *dir, const uint8_t report_data[static MERO_REPORT_DATA_LEN],
                          uint8_t **quote, size_t *len, struct mero_err *err)
{
    char provider[TSM_PROVIDER_SIZE], gen1[TSM_ATTR_MAX], gen2[TSM_ATTR_MAX], path[4096];
    if (read_attr(dir, "provider", provider, sizeof(provider)) < 0) {
        return mero_err_set(err, MERO_EIO, "Failed to generate TDX quote: cannot read %s/provider",
                            dir);
    }
    if (strcmp(provider, MERO_TSM_PROVIDER_TDX) != 0) {
        return mero_err_set(err, MERO_EUNSUPPORTED,
                            "configfs-tsm provider is \"%.32s\", not " MERO_TSM_PROVIDER_TDX,
                            provider);
    }
    if (write_blob(dir, report_data, MERO_REPORT_DATA_LEN) < 0) {
        return mero_err_set(err, MERO_EIO, "Failed to generate TDX quote: cannot write inblob");
    }
    if (read_attr(dir, "generation", gen1, sizeof(gen1)) < 0) {
        return mero_err_set(err, MERO_EIO, "Failed to generate TDX quote: cannot read generation");
    }
    uint8_t *blob = NULL;
    size_t n = 0;
    if ((size_t)snprintf(path, sizeof(path), "%s/outblob", dir) >= sizeof(path)) {
        return mero_err_set(err, MERO_EINVAL, "configfs-tsm path too long");
    }
    int rc = read_file(path, MERO_TSM_MAX_OUTBLOB, &blob, &n);
    if (rc < 0) {
        return mero_err_set(err, -rc, "Failed to generate TDX quote: cannot read outblob (%s)",
                            mero_strerror(rc));
    }
    if (read_attr(dir, "generation", gen2, sizeof(gen2)) < 0 || strcmp(gen1, gen2) != 0) {
        free(blob);
        return mero_err_set(err, MERO_ESTATE,
                            "Failed to generate TDX quote: another writer used the configfs-tsm "
                            "entry (generation %s -> %s)",
                            gen1, gen2);
    }
    struct mero_quote q;
    struct mero_err perr = {0};
    rc = mero_quote_parse(&q, blob, n, &perr);
    if (rc < 0) {
        free(blob);
        return mero_err_set(err, -rc, "Failed to parse TDX quote: %s", perr.msg);
    }
    if (!mero_ct_eq(q.body.report_data, report_data, MERO_REPORT_DATA_LEN)) {
        free(blob);
        return mero_err_set(err, MERO_ESTATE,
                            "Failed to generate TDX quote: outblob carries other report data");
    }
    *len = q.total_len; /* the quote proper; outblob padding dropped */
    *quote = blob;
    return 0;
}

int mero_tsm_quote(const uint8_t report_data[static MERO_REPORT_DATA_LEN], uint8_t **quote,
                   size_t *len, struct mero_err *err)
{
    char name[MERO__TSM_NAME_SIZE], dir[4096];
    if (quote == NULL || len == NULL) {
        return mero_err_set(err, MERO_EINVAL, "mero_tsm_quote: NULL output");
    }
    if (!mero_tsm_present()) {
        return mero_err_set(err, MERO_EUNSUPPORTED, MERO_ATTEST_UNSUPPORTED_MSG);
    }
    mero__tsm_entry_name(name, report_data);
    if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", tsm_root(), name) >= sizeof(dir)) {
        return mero_err_set(err, MERO_EINVAL, "configfs-tsm root path too long");
    }
    /* An existing entry of this name is our own leftover (the name carries our pid). */
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        return mero_err_set(err, MERO_EIO, "Failed to generate TDX quote: mkdir %s: %s", dir,
                            strerror(errno));
    }
    int rc = quote_in_entry(dir, report_data, quote, len, err);
    (void)rmdir(dir); /* configfs removes the attributes with the entry */
    return rc;
}

int mero_attest_generate(const uint8_t report_data[static MERO_REPORT_DATA_LEN], bool mock_tee,
                         uint8_t **quote, size_t *len, bool *is_mock, struct mero_err *err)
{
    if (quote == NULL || len == NULL || is_mock == NULL) {
        return mero_err_set(err, MERO_EINVAL, "mero_attest_generate: NULL output");
    }
    struct mero_err terr = {0};
    int rc = mero_tsm_quote(report_data, quote, len, &terr);
    if (rc == 0) {
        *is_mock = false;
        return 0;
    }
    if (rc != -MERO_EUNSUPPORTED) {
        return mero_err_set(err, -rc, "%s", terr.msg); /* real hardware failed: no mock */
    }
    if (!mock_tee) {
        return mero_err_set(err, MERO_EUNSUPPORTED, MERO_ATTEST_UNSUPPORTED_MSG);
    }
    uint8_t *m = malloc(MERO_MOCK_QUOTE_LEN);
    if (m == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_mock_quote_create(m, report_data);
    *quote = m;
    *len = MERO_MOCK_QUOTE_LEN;
    *is_mock = true;
    return 0;
}
