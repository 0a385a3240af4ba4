/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ccel.c - the 56-byte ACPI "CC Event Log" table (ACPI 6.5 §5.2.34; reference-sigstore-ccel.md
 * §C.1) and reading a TD's own CCEL table and log area from sysfs (§C.2).
 *
 * Invariants: the table parser reads only inside the 56 bytes it was given and refuses a
 * table whose signature, length, checksum or CC type is wrong; the local readers never read
 * more than MERO_EVENTLOG_MAX_LEN bytes and write their outputs only on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mero/buf.h"
#include "mero/eventlog.h"

static void copy_text(char *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
    dst[n] = 0;
}

int mero_ccel_table_parse(struct mero_ccel_table *t, const uint8_t *data, size_t len,
                          struct mero_err *err)
{
    struct mero_ccel_table v;
    struct mero_cur c;
    const uint8_t *p;
    uint8_t sum = 0;
    uint16_t reserved;

    if (data == NULL || len != MERO_CCEL_TABLE_LEN) {
        return mero_err_set(err, MERO_EEVENTLOG, "CCEL table is %zu bytes, expected %u", len,
                            MERO_CCEL_TABLE_LEN);
    }
    memset(&v, 0, sizeof(v));
    mero_cur_init(&c, data, len);
    /* The cursor reads below cannot fail: len is exactly 56 and the fields add up to 56. */
    if (mero_cur_bytes(&c, 4, &p) < 0 || memcmp(p, "CCEL", 4) != 0) {
        return mero_err_set(err, MERO_EEVENTLOG, "CCEL table signature at offset 0 is not CCEL");
    }
    if (mero_cur_u32le(&c, &v.length) < 0 || v.length != MERO_CCEL_TABLE_LEN) {
        return mero_err_set(err, MERO_EEVENTLOG, "CCEL table length field at offset 4 is %u",
                            (unsigned)v.length);
    }
    if (mero_cur_u8(&c, &v.revision) < 0 || mero_cur_u8(&c, &v.checksum) < 0 ||
        mero_cur_bytes(&c, 6, &p) < 0) {
        return mero_err_set(err, MERO_EINTERNAL, "CCEL table cursor");
    }
    copy_text(v.oem_id, p, 6);
    if (mero_cur_bytes(&c, 8, &p) < 0) {
        return mero_err_set(err, MERO_EINTERNAL, "CCEL table cursor");
    }
    copy_text(v.oem_table_id, p, 8);
    if (mero_cur_u32le(&c, &v.oem_revision) < 0 || mero_cur_bytes(&c, 4, &p) < 0) {
        return mero_err_set(err, MERO_EINTERNAL, "CCEL table cursor");
    }
    copy_text(v.creator_id, p, 4);
    if (mero_cur_u32le(&c, &v.creator_revision) < 0 || mero_cur_u8(&c, &v.cc_type) < 0 ||
        mero_cur_u8(&c, &v.cc_subtype) < 0 || mero_cur_u16le(&c, &reserved) < 0 ||
        mero_cur_u64le(&c, &v.laml) < 0 || mero_cur_u64le(&c, &v.lasa) < 0) {
        return mero_err_set(err, MERO_EINTERNAL, "CCEL table cursor");
    }
    for (size_t i = 0; i < len; i++) {
        sum = (uint8_t)(sum + data[i]);
    }
    if (sum != 0) {
        return mero_err_set(err, MERO_EEVENTLOG,
                            "CCEL table checksum (offset 9) wrong: bytes sum to 0x%02x", sum);
    }
    if (v.cc_type == 0 || v.cc_type > MERO_CC_TYPE_TDX) {
        return mero_err_set(err, MERO_EEVENTLOG, "CCEL table CC type %u at offset 36 unknown",
                            v.cc_type);
    }
    if (v.laml == 0 || v.laml > MERO_EVENTLOG_MAX_LEN) {
        return mero_err_set(err, MERO_EEVENTLOG,
                            "CCEL table log area minimum length %llu at offset 40 out of range",
                            (unsigned long long)v.laml);
    }
    *t = v;
    return 0;
}

/* ---------------------------------------------------------------- local files */

static const char *data_override;
static const char *table_override;

void mero_ccel_set_paths(const char *data_path, const char *table_path)
{
    data_override = data_path;
    table_override = table_path;
}

static const char *pick(const char *override, const char *env, const char *dflt)
{
    if (override != NULL) {
        return override;
    }
    const char *e = getenv(env);
    if (e != NULL && e[0] != 0) {
        return e;
    }
    return dflt;
}

/* Read a whole (possibly sysfs) file of at most max bytes. */
static int read_file(const char *path, size_t max, uint8_t **out, size_t *outlen,
                     struct mero_err *err)
{
    struct mero_buf b;
    uint8_t chunk[16384];
    int rc = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            return mero_err_set(err, MERO_ENOTFOUND, "%s: no such file", path);
        }
        if (errno == EACCES || errno == EPERM) {
            return mero_err_set(err, MERO_EPERM, "%s: permission denied", path);
        }
        return mero_err_set(err, MERO_EIO, "%s: cannot open (errno %d)", path, errno);
    }
    mero_buf_init(&b, max);
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        MERO_ENSURE_OUT(n >= 0, err, MERO_EIO, "%s: read failed (errno %d)", path, errno);
        if (n == 0) {
            break;
        }
        MERO_ENSURE_OUT(mero_buf_append(&b, chunk, (size_t)n) >= 0, err, MERO_ETOOBIG,
                        "%s: larger than %zu bytes", path, max);
    }
    MERO_ENSURE_OUT(b.len != 0, err, MERO_ENOTFOUND, "%s: empty", path);
    *out = mero_buf_steal(&b, outlen);
out:
    close(fd);
    mero_buf_cleanup(&b);
    return rc;
}

int mero_ccel_read_local(uint8_t **data, size_t *len, struct mero_err *err)
{
    if (data == NULL || len == NULL) {
        return mero_err_set(err, MERO_EINVAL, "mero_ccel_read_local: NULL output");
    }
    const char *path = pick(data_override, "MERO_CCEL_PATH", MERO_CCEL_DATA_PATH);
    return read_file(path, MERO_EVENTLOG_MAX_LEN, data, len, err);
}

int mero_ccel_read_local_table(struct mero_ccel_table *t, struct mero_err *err)
{
    uint8_t *raw = NULL;
    size_t n = 0;
    const char *path = pick(table_override, "MERO_CCEL_TABLE_PATH", MERO_CCEL_TABLE_PATH);
    /* one byte more than a table, so an overlong file is seen as such */
    int rc = read_file(path, MERO_CCEL_TABLE_LEN + 1, &raw, &n, err);
    if (rc == -MERO_ETOOBIG) {
        return mero_err_set(err, MERO_EEVENTLOG, "%s: longer than a CCEL table", path);
    }
    if (rc < 0) {
        return rc;
    }
    rc = mero_ccel_table_parse(t, raw, n, err);
    free(raw);
    return rc;
}
