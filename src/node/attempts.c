/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attempts.c - the admission-attempt log (issue 19, docs/fleet.md): every admission attempt
 * this node decided or heard of, kept in node.db's adm_attempts per namespace, read back
 * newest first by the fleet view and forgotten with the namespace at self-purge; and beside
 * it (adm_profiles) the release profile each TEE this node admitted under a signed-release
 * policy matched, which only the admitter knows (peers do not re-run the release check).
 *
 * Invariants: a namespace holds at most MERO_FLEET_ATTEMPTS_KEEP attempts - the insert and the
 * drop of the oldest beyond it are one transaction, so a crash leaves either both or neither;
 * a reason is stored already cut to MERO_FLEET_REASON_MAX and is a refusal's text, never a
 * secret; the rule a reason names is found only by the fixed reasons of gov's rule table; a
 * member's profile is its latest admission's by this node, forgotten when the member leaves
 * the namespace root or another node re-admits it, and with the namespace at self-purge.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/gov.h"
#include "mero/trust_rules.h"
#include "node/admission/admission_internal.h"
#include "node/attempts_internal.h"
#include "node/db_internal.h"

static const char SQL_ADD[] =
    "INSERT INTO adm_attempts(ns, at, identity, peer, path, admitter, verdict, rule, reason,"
    " has_m, mrtd, rtmr0, rtmr1, rtmr2, rtmr3, match_kind, match_name, tcb)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
/* the oldest beyond the newest KEEP of the namespace (OFFSET KEEP - 1 names the KEEP-th) */
static const char SQL_TRIM[] =
    "DELETE FROM adm_attempts WHERE ns = ?1 AND id < (SELECT id FROM adm_attempts WHERE ns = ?1"
    " ORDER BY id DESC LIMIT 1 OFFSET ?2)";
static const char SQL_LIST[] =
    "SELECT at, identity, peer, path, admitter, verdict, rule, reason, has_m, mrtd, rtmr0,"
    " rtmr1, rtmr2, rtmr3, match_kind, match_name, tcb FROM adm_attempts WHERE ns = ?1"
    " ORDER BY id DESC LIMIT ?2";

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s != NULL && s[0] != '\0') {
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, i);
    }
}

static void bind_blob_if(sqlite3_stmt *st, int i, bool has, const uint8_t *b, size_t n)
{
    if (has) {
        sqlite3_bind_blob(st, i, b, (int)n, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, i);
    }
}

static int insert(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                  const struct mero_fleet_attempt *a)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, SQL_ADD, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)a->at);
    bind_blob_if(st, 3, a->has_identity, a->identity, sizeof(a->identity));
    bind_text_or_null(st, 4, a->peer);
    sqlite3_bind_int(st, 5, a->path);
    bind_blob_if(st, 6, a->has_admitter, a->admitter, sizeof(a->admitter));
    sqlite3_bind_int(st, 7, a->verdict);
    bind_text_or_null(st, 8, a->rule);
    bind_text_or_null(st, 9, a->reason);
    sqlite3_bind_int(st, 10, a->has_measurements);
    bind_text_or_null(st, 11, a->has_measurements ? a->m.mrtd : NULL);
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        bind_text_or_null(st, 12 + i, a->has_measurements ? a->m.rtmr[i] : NULL);
    }
    sqlite3_bind_int(st, 16, a->has_measurements ? a->matched.kind : MERO_FLEET_MATCH_NONE);
    bind_text_or_null(st, 17, a->has_measurements ? a->matched.name : NULL);
    bind_text_or_null(st, 18, a->tcb_status);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

static int trim(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, SQL_TRIM, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)MERO_FLEET_ATTEMPTS_KEEP - 1);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

int mero__node_attempt_add(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                           const struct mero_fleet_attempt *a)
{
    MERO_TRY(mero__node_db_exec(db, "SAVEPOINT adm_attempt"));
    int rc;
    MERO_TRY_OUT(insert(db, ns, a));
    MERO_TRY_OUT(trim(db, ns));
out:
    if (rc < 0) {
        (void)mero__node_db_exec(db, "ROLLBACK TO adm_attempt");
    }
    if (mero__node_db_exec(db, "RELEASE adm_attempt") < 0 && rc == 0) {
        rc = -MERO_EIO;
    }
    return rc;
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(out, cap, "%s", t != NULL ? (const char *)t : "");
}

static bool col_blob(sqlite3_stmt *st, int i, uint8_t *out, size_t n)
{
    const void *b = sqlite3_column_blob(st, i);
    if (b == NULL || (size_t)sqlite3_column_bytes(st, i) != n) {
        return false;
    }
    memcpy(out, b, n);
    return true;
}

static void read_row(sqlite3_stmt *st, struct mero_fleet_attempt *a)
{
    memset(a, 0, sizeof(*a));
    a->at = (uint64_t)sqlite3_column_int64(st, 0);
    a->has_identity = col_blob(st, 1, a->identity, sizeof(a->identity));
    col_text(st, 2, a->peer, sizeof(a->peer));
    a->path = sqlite3_column_int(st, 3);
    a->has_admitter = col_blob(st, 4, a->admitter, sizeof(a->admitter));
    a->verdict = sqlite3_column_int(st, 5);
    col_text(st, 6, a->rule, sizeof(a->rule));
    col_text(st, 7, a->reason, sizeof(a->reason));
    a->has_measurements = sqlite3_column_int(st, 8) != 0;
    col_text(st, 9, a->m.mrtd, sizeof(a->m.mrtd));
    for (int i = 0; i < MERO_RTMR_COUNT; i++) {
        col_text(st, 10 + i, a->m.rtmr[i], sizeof(a->m.rtmr[i]));
    }
    a->matched.kind = sqlite3_column_int(st, 14);
    col_text(st, 15, a->matched.name, sizeof(a->matched.name));
    col_text(st, 16, a->tcb_status, sizeof(a->tcb_status));
}

int mero__node_attempts_list(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN], size_t max,
                             struct mero_fleet_attempt **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (max > MERO_FLEET_ATTEMPTS_KEEP) {
        max = MERO_FLEET_ATTEMPTS_KEEP;
    }
    if (max == 0) {
        return 0;
    }
    struct mero_fleet_attempt *v = calloc(max, sizeof(*v));
    sqlite3_stmt *st = NULL;
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    if (sqlite3_prepare_v2(db, SQL_LIST, -1, &st, NULL) != SQLITE_OK) {
        free(v);
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    size_t k = 0;
    int step;
    while (k < max && (step = sqlite3_step(st)) == SQLITE_ROW) {
        read_row(st, &v[k++]);
    }
    int rc = k == max || step == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    if (rc < 0 || k == 0) {
        free(v);
        return rc;
    }
    *out = v;
    *n = k;
    return 0;
}

int mero__node_attempts_count(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN], size_t *n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM adm_attempts WHERE ns = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -MERO_EIO;
    *n = rc == 0 ? (size_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc;
}

static int delete_ns(struct sqlite3 *db, const char *sql, const uint8_t ns[MERO_NS_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

int mero__node_attempts_purge(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN])
{
    int a = delete_ns(db, "DELETE FROM adm_attempts WHERE ns = ?1", ns);
    int b = delete_ns(db, "DELETE FROM adm_profiles WHERE ns = ?1", ns);
    return a < 0 ? a : b;
}

int mero__node_profile_put(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t member[MERO_IDENTITY_LEN], const char *profile)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO adm_profiles(ns, member, profile)"
                           " VALUES(?1, ?2, ?3)",
                           -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, profile, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

int mero__node_profile_forget(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t member[MERO_IDENTITY_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM adm_profiles WHERE ns = ?1 AND member = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}

int mero__node_profile_get(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t member[MERO_IDENTITY_LEN], char *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT profile FROM adm_profiles WHERE ns = ?1 AND member = ?2", -1,
                           &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int step = sqlite3_step(st);
    int rc = step == SQLITE_ROW ? 0 : step == SQLITE_DONE ? -MERO_ENOTFOUND : -MERO_EIO;
    if (step == SQLITE_ROW) {
        col_text(st, 0, out, cap);
    }
    sqlite3_finalize(st);
    return rc;
}

/* How much of `reason` the fixed text t accounts for: its length when reason is t alone or t
 * followed by ": detail"; up to a "%s" it holds (the deny rule's group), then the rest. */
static size_t prefix_of(const char *reason, const char *t)
{
    const char *at = strstr(t, "%s");
    size_t n = at != NULL ? (size_t)(at - t) : strlen(t);
    if (n == 0 || strncmp(reason, t, n) != 0) {
        return 0;
    }
    if (at != NULL) {
        return n; /* the rest of the text follows a parameter */
    }
    return reason[n] == '\0' || reason[n] == ':' ? n : 0;
}

const char *mero__node_attempt_rule_of(const char *reason)
{
    if (reason == NULL || reason[0] == '\0') {
        return NULL;
    }
    if (strcmp(reason, MERO_ADM_REASON_NOT_VOUCHER) == 0) {
        return "NotAVoucher";
    }
    const char *best = NULL;
    size_t best_n = 0;
    for (int r = 1; r <= MERO_ADM_RULE_MEASUREMENTS_MISMATCH; r++) {
        if (r == MERO_TRUST__COUNT) {
            r = MERO_ADM_RULE_NO_POLICY; /* the namespace-state rules follow the quote facts */
        }
        size_t n = prefix_of(reason, mero_adm_rule_reason(r));
        if (n > best_n) {
            best_n = n;
            best = mero_adm_rule_name(r);
        }
    }
    return best;
}
