/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_internal.h - what the audit files of gov share (issue 36, docs/audit.md):
 * audit_log.c builds, audit_timeline.c draws the timelines, audit_check.c judges each quote.
 */
#ifndef MERO_GOV_AUDIT_INTERNAL_H
#define MERO_GOV_AUDIT_INTERNAL_H

#include "mero/audit.h"
#include "mero/gov.h"

#define MERO_AUDIT_TMP_PATH 1024 /* a temporary folder or file path, NUL included */

/* The TEE timelines of a re-folded log (ops' state set). */
int mero__audit_timelines(struct mero_audit_log *log);
/* Every check of every event, with the re-fold's store (for gov's report-data read). */
int mero__audit_check(struct mero_audit_log *log, struct mero_store *s,
                      struct mero_audit_findings *f);
/* The exported releases (audit_release.c): verify each one (a finding per release that does
 * not), and free them. */
int mero__audit_releases_verify(struct mero_audit_log *log, struct mero_audit_findings *f);
void mero__audit_releases_cleanup(struct mero_audit_log *log);
/* The 64-hex form of 32 bytes into out[MERO_HEX_SIZE(32)]. */
void mero__audit_hex(char *out, const uint8_t *id);

#endif
