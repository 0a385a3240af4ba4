/* SPDX-License-Identifier: Apache-2.0 */
/*
 * labels.c - the names an admin gives a namespace's members (issue 35 item 6, docs/fleet.md
 * "Names"): `PUT /admin-api/groups/:group_id/members/:identity/label`, `meroctl group members
 * label NS ID NAME`, kept in node.db table member_labels (ns, member) -> label, and read by the
 * fleet view. Local to this node, like ns_meta: never replicated, nothing but the fleet view
 * reads them; forgotten with the namespace at a self-purge (mero__node_labels_purge).
 *
 * Invariant: a stored label is 1..MERO_MEMBER_LABEL_MAX bytes of valid UTF-8 (shortest forms,
 * no surrogates) holding no control character (C0, DEL, C1) and not only spaces; anything else
 * is refused before it reaches the table, so the page and the CLI print it as it is.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/gov.h"
#include "mero/node.h"
#include "node/fleet_internal.h"
#include "node/node_internal.h"

/* The length of the UTF-8 sequence at p (at most left bytes) and its code point; 0 when it is
 * not a shortest-form encoding of a scalar value. */
static size_t utf8_one(const unsigned char *p, size_t left, uint32_t *cp)
{
    static const uint32_t min_of[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = p[0] < 0x80             ? 1
               : (p[0] & 0xE0) == 0xC0 ? 2
               : (p[0] & 0xF0) == 0xE0 ? 3
               : (p[0] & 0xF8) == 0xF0 ? 4
                                       : 0;
    if (n == 0 || n > left) {
        return 0;
    }
    uint32_t c = n == 1 ? p[0] : p[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min_of[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        return 0;
    }
    *cp = c;
    return n;
}

int mero_member_label_check(const char *label, size_t len, struct mero_err *err)
{
    const unsigned char *p = (const unsigned char *)label;
    bool seen_other = false;
    MERO_ENSURE(len > 0, err, MERO_EINVAL, "a member label must not be empty");
    MERO_ENSURE(len <= MERO_MEMBER_LABEL_MAX, err, MERO_EINVAL,
                "a member label is at most %d bytes (this one is %zu)", MERO_MEMBER_LABEL_MAX, len);
    for (size_t i = 0; i < len;) {
        uint32_t c = 0;
        size_t n = utf8_one(p + i, len - i, &c);
        MERO_ENSURE(n > 0, err, MERO_EINVAL, "a member label must be valid UTF-8 (byte %zu)", i);
        MERO_ENSURE(c >= 0x20 && c != 0x7F && (c < 0x80 || c > 0x9F), err, MERO_EINVAL,
                    "a member label must hold no control character (U+%04X at byte %zu)",
                    (unsigned)c, i);
        seen_other |= c != ' ';
        i += n;
    }
    MERO_ENSURE(seen_other, err, MERO_EINVAL, "a member label must not be only spaces");
    return 0;
}

static bool is_member(const struct mero_gov_member *ms, size_t n,
                      const uint8_t identity[MERO_IDENTITY_LEN])
{
    for (size_t i = 0; i < n; i++) {
        if (memcmp(ms[i].id, identity, MERO_IDENTITY_LEN) == 0) {
            return true;
        }
    }
    return false;
}

int mero_node_member_label_set(struct mero_node *node, const uint8_t group[MERO_GROUP_ID_LEN],
                               const uint8_t identity[MERO_IDENTITY_LEN], const char *label,
                               struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN];
    struct mero_gov_member *ms = NULL;
    size_t n = 0;
    if (label != NULL) {
        MERO_TRY(mero_member_label_check(label, strlen(label), err));
    }
    MERO_ENSURE(mero_gov_namespace_of(node->store, group, ns) == 0, err, MERO_ENOTFOUND,
                "group not found");
    MERO_ENSURE(mero_gov_members(node->store, group, &ms, &n) == 0, err, MERO_EIO,
                "cannot read the group's members");
    bool member = is_member(ms, n, identity);
    free(ms);
    MERO_ENSURE(member, err, MERO_ENOTFOUND, "not a member of this group");
    MERO_ENSURE(node->db != NULL, err, MERO_EIO, "node.db is not open");
    sqlite3_stmt *st = NULL;
    const char *sql = label != NULL ? "INSERT OR REPLACE INTO member_labels(ns, member, label)"
                                      " VALUES(?1, ?2, ?3)"
                                    : "DELETE FROM member_labels WHERE ns = ?1 AND member = ?2";
    MERO_ENSURE(sqlite3_prepare_v2(node->db, sql, -1, &st, NULL) == SQLITE_OK, err, MERO_EIO,
                "cannot store the label");
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, identity, MERO_IDENTITY_LEN, SQLITE_STATIC);
    if (label != NULL) {
        sqlite3_bind_text(st, 3, label, -1, SQLITE_STATIC);
    }
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    MERO_ENSURE(step == SQLITE_DONE, err, MERO_EIO, "cannot store the label");
    return 0;
}

int mero__node_label_get(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t member[MERO_IDENTITY_LEN], char out[MERO_MEMBER_LABEL_SIZE])
{
    sqlite3_stmt *st = NULL;
    out[0] = '\0';
    if (db == NULL || sqlite3_prepare_v2(db,
                                         "SELECT label FROM member_labels"
                                         " WHERE ns = ?1 AND member = ?2",
                                         -1, &st, NULL) != SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, member, MERO_IDENTITY_LEN, SQLITE_STATIC);
    int step = sqlite3_step(st);
    int rc = step == SQLITE_ROW ? 0 : step == SQLITE_DONE ? -MERO_ENOTFOUND : -MERO_EIO;
    const unsigned char *t = step == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    int len = step == SQLITE_ROW ? sqlite3_column_bytes(st, 0) : 0;
    /* a row written by hand that breaks the rules is not shown */
    if (t != NULL && mero_member_label_check((const char *)t, (size_t)len, NULL) == 0) {
        memcpy(out, t, (size_t)len);
        out[len] = '\0';
    } else if (rc == 0) {
        rc = -MERO_ENOTFOUND;
    }
    sqlite3_finalize(st);
    return rc;
}

int mero__node_labels_purge(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM member_labels WHERE ns = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    sqlite3_bind_blob(st, 1, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
    sqlite3_finalize(st);
    return rc;
}
