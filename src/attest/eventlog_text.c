/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog_text.c - names of TCG event types and hash algorithms, and a short printable
 * description of a record's event data, for `meroctl eventlog` and the diff report.
 *
 * Invariants: display only. Nothing here affects replay or any verdict; every structured read
 * of event data (UEFI_VARIABLE_DATA, UEFI_IMAGE_LOAD_EVENT, the blob description byte) is
 * bounded by the record's data length, and the output is always NUL-terminated printable
 * ASCII that fits `cap`.
 */
#include <stdio.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/eventlog.h"

struct type_name {
    uint32_t type;
    const char *name;
};

/* TCG PC Client PFP §10.4.1 and the UEFI (0x8000_0000) block. */
static const struct type_name types[] = {
    {0x00000000, "EV_PREBOOT_CERT"},
    {0x00000001, "EV_POST_CODE"},
    {0x00000002, "EV_UNUSED"},
    {0x00000003, "EV_NO_ACTION"},
    {0x00000004, "EV_SEPARATOR"},
    {0x00000005, "EV_ACTION"},
    {0x00000006, "EV_EVENT_TAG"},
    {0x00000007, "EV_S_CRTM_CONTENTS"},
    {0x00000008, "EV_S_CRTM_VERSION"},
    {0x00000009, "EV_CPU_MICROCODE"},
    {0x0000000A, "EV_PLATFORM_CONFIG_FLAGS"},
    {0x0000000B, "EV_TABLE_OF_DEVICES"},
    {0x0000000C, "EV_COMPACT_HASH"},
    {0x0000000D, "EV_IPL"},
    {0x0000000E, "EV_IPL_PARTITION_DATA"},
    {0x0000000F, "EV_NONHOST_CODE"},
    {0x00000010, "EV_NONHOST_CONFIG"},
    {0x00000011, "EV_NONHOST_INFO"},
    {0x00000012, "EV_OMIT_BOOT_DEVICE_EVENTS"},
    {0x00000013, "EV_POST_CODE2"},
    {0x80000000, "EV_EFI_EVENT_BASE"},
    {0x80000001, "EV_EFI_VARIABLE_DRIVER_CONFIG"},
    {0x80000002, "EV_EFI_VARIABLE_BOOT"},
    {0x80000003, "EV_EFI_BOOT_SERVICES_APPLICATION"},
    {0x80000004, "EV_EFI_BOOT_SERVICES_DRIVER"},
    {0x80000005, "EV_EFI_RUNTIME_SERVICES_DRIVER"},
    {0x80000006, "EV_EFI_GPT_EVENT"},
    {0x80000007, "EV_EFI_ACTION"},
    {0x80000008, "EV_EFI_PLATFORM_FIRMWARE_BLOB"},
    {0x80000009, "EV_EFI_HANDOFF_TABLES"},
    {0x8000000A, "EV_EFI_PLATFORM_FIRMWARE_BLOB2"},
    {0x8000000B, "EV_EFI_HANDOFF_TABLES2"},
    {0x8000000C, "EV_EFI_VARIABLE_BOOT2"},
    {0x8000000D, "EV_EFI_GPT_EVENT2"},
    {0x80000010, "EV_EFI_HCRTM_EVENT"},
    {0x800000E0, "EV_EFI_VARIABLE_AUTHORITY"},
    {0x800000E1, "EV_EFI_SPDM_FIRMWARE_BLOB"},
    {0x800000E2, "EV_EFI_SPDM_FIRMWARE_CONFIG"},
    {0x800000E3, "EV_EFI_SPDM_DEVICE_POLICY"},
    {0x800000E4, "EV_EFI_SPDM_DEVICE_AUTHORITY"},
};

const char *mero_event_type_name(uint32_t type)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (types[i].type == type) {
            return types[i].name;
        }
    }
    return NULL;
}

const char *mero_tpm_alg_name(uint16_t alg)
{
    switch (alg) {
    case MERO_TPM_ALG_SHA1:
        return "sha1";
    case MERO_TPM_ALG_SHA256:
        return "sha256";
    case MERO_TPM_ALG_SHA384:
        return "sha384";
    case MERO_TPM_ALG_SHA512:
        return "sha512";
    case MERO_TPM_ALG_SM3_256:
        return "sm3_256";
    default:
        return NULL;
    }
}

/* Bounded writer: appends printable ASCII, replacing anything else with '.'. */
struct out {
    char *p;
    size_t cap, len;
};

static void put_char(struct out *o, uint8_t ch)
{
    if (o->len + 1 >= o->cap) {
        return;
    }
    o->p[o->len++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '.';
    o->p[o->len] = 0;
}

static void put_str(struct out *o, const char *s)
{
    while (*s) {
        put_char(o, (uint8_t)*s++);
    }
}

static void put_ascii(struct out *o, const uint8_t *p, size_t n)
{
    while (n > 0 && p[n - 1] == 0) {
        n--; /* trailing NULs are terminators, not text */
    }
    for (size_t i = 0; i < n; i++) {
        put_char(o, p[i] == '\n' ? ' ' : p[i]);
    }
}

/* UCS-2 LE, stopping at a NUL; non-ASCII code units become '.'. */
static void put_ucs2(struct out *o, const uint8_t *p, size_t units)
{
    for (size_t i = 0; i < units; i++) {
        uint16_t u = (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
        if (u == 0) {
            break;
        }
        put_char(o, u < 0x80 ? (uint8_t)u : '.');
    }
}

static bool is_text(const uint8_t *p, size_t n)
{
    while (n > 0 && p[n - 1] == 0) {
        n--;
    }
    if (n == 0) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if ((p[i] < 0x20 || p[i] >= 0x7f) && p[i] != '\n' && p[i] != '\t') {
            return false;
        }
    }
    return true;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return v;
}

/* UEFI_VARIABLE_DATA: GUID[16], UnicodeNameLength u64, VariableDataLength u64, name (UCS-2). */
#define UEFI_VARIABLE_NAME_AT 32
static bool describe_variable(struct out *o, const uint8_t *p, size_t n)
{
    if (n < UEFI_VARIABLE_NAME_AT) {
        return false;
    }
    uint64_t units = le64(p + 16);
    if (units > (n - UEFI_VARIABLE_NAME_AT) / 2) {
        return false;
    }
    put_str(o, "variable ");
    put_ucs2(o, p + UEFI_VARIABLE_NAME_AT, (size_t)units);
    return true;
}

/* UEFI_IMAGE_LOAD_EVENT: ImageLocationInMemory u64, ImageLengthInMemory u64, ... */
#define IMAGE_TEXT_MAX 96 /* "image at 0x<u64>, <u64> bytes" */
static bool describe_image(struct out *o, const uint8_t *p, size_t n)
{
    char tmp[IMAGE_TEXT_MAX];
    if (n < 16) {
        return false;
    }
    snprintf(tmp, sizeof(tmp), "image at 0x%llx, %llu bytes", (unsigned long long)le64(p),
             (unsigned long long)le64(p + 8));
    put_str(o, tmp);
    return true;
}

bool mero_event_describe(const struct mero_event *e, char *buf, size_t cap)
{
    struct out o = {buf, cap, 0};
    const uint8_t *p = e->data;
    size_t n = e->data_len;

    if (cap == 0) {
        return false;
    }
    buf[0] = 0;
    switch (e->type) {
    case 0x80000001: /* EV_EFI_VARIABLE_DRIVER_CONFIG */
    case 0x80000002: /* EV_EFI_VARIABLE_BOOT */
    case 0x8000000C: /* EV_EFI_VARIABLE_BOOT2 */
    case 0x800000E0: /* EV_EFI_VARIABLE_AUTHORITY */
        return describe_variable(&o, p, n);
    case 0x80000003: /* EV_EFI_BOOT_SERVICES_APPLICATION */
    case 0x80000004: /* EV_EFI_BOOT_SERVICES_DRIVER */
    case 0x80000005: /* EV_EFI_RUNTIME_SERVICES_DRIVER */
        return describe_image(&o, p, n);
    case 0x8000000A: /* EV_EFI_PLATFORM_FIRMWARE_BLOB2: u8 size, description, base, length */
    case 0x8000000B: /* EV_EFI_HANDOFF_TABLES2: u8 size, description, count, tables */
        if (n >= 1 && p[0] <= n - 1 && p[0] > 0) {
            put_ascii(&o, p + 1, p[0]);
            return true;
        }
        return false;
    case MERO_EV_SEPARATOR:
        if (n == 4) {
            put_str(&o, (p[0] | p[1] | p[2] | p[3]) == 0 ? "separator" : "separator (error)");
            return true;
        }
        return false;
    case MERO_EV_EVENT_TAG: /* often NUL-terminated text on TDVF (LOADED_IMAGE::LoadOptions) */
    default:
        if (is_text(p, n)) {
            put_ascii(&o, p, n);
            return true;
        }
        return false;
    }
}
