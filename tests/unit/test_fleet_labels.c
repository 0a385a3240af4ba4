/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fleet_labels.c - the names an admin gives members (src/node/labels.c, issue 35 item 6):
 * mero_member_label_check takes 1..64 bytes of UTF-8 without control characters and refuses
 * everything else (empty, 65 bytes, only spaces, C0, DEL, C1, a NUL inside, overlong forms,
 * surrogates, code points past U+10FFFF, a cut sequence); node.db keeps one label per
 * (namespace, member), read back as written, and a purge forgets one namespace only.
 */
#include <string.h>

#include <sqlite3.h>

#include "mero/node.h"
#include "node/db_internal.h"
#include "node/fleet_internal.h"
#include "harness.h"

static int chk(const char *s)
{
    return mero_member_label_check(s, strlen(s), NULL);
}

TEST(a_label_is_short_utf8_without_controls)
{
    char max[MERO_MEMBER_LABEL_SIZE + 1];
    memset(max, 'a', sizeof(max));
    max[MERO_MEMBER_LABEL_MAX] = '\0';
    CHECK_OK(chk(max));
    max[MERO_MEMBER_LABEL_MAX] = 'a';
    max[MERO_MEMBER_LABEL_MAX + 1] = '\0';
    CHECK_ERR(chk(max), -MERO_EINVAL); /* 65 bytes */
    CHECK_OK(chk("owner"));
    CHECK_OK(chk("r\xc3\xa9plica \xe2\x80\x94 eu-west-1")); /* é, em dash */
    CHECK_OK(chk("\xf0\x9f\x9b\xb0 tdx"));                  /* U+1F6F0, 4 bytes */
    CHECK_OK(chk(" a "));
    CHECK_ERR(chk(""), -MERO_EINVAL);
    CHECK_ERR(chk("   "), -MERO_EINVAL);
    CHECK_ERR(chk("tab\there"), -MERO_EINVAL);
    CHECK_ERR(chk("nl\n"), -MERO_EINVAL);
    CHECK_ERR(chk("del\x7f"), -MERO_EINVAL);
    CHECK_ERR(chk("c1\xc2\x85"), -MERO_EINVAL);          /* U+0085 NEL */
    CHECK_ERR(chk("c1\xc2\x9f"), -MERO_EINVAL);          /* U+009F */
    CHECK_OK(chk("nbsp\xc2\xa0ok"));                     /* U+00A0 is not a control */
    CHECK_ERR(chk("over\xc0\xaf"), -MERO_EINVAL);        /* overlong '/' */
    CHECK_ERR(chk("over\xe0\x80\xaf"), -MERO_EINVAL);    /* overlong, 3 bytes */
    CHECK_ERR(chk("sur\xed\xa0\x80"), -MERO_EINVAL);     /* U+D800 */
    CHECK_ERR(chk("big\xf4\x90\x80\x80"), -MERO_EINVAL); /* U+110000 */
    CHECK_ERR(chk("cut\xe2\x80"), -MERO_EINVAL);
    CHECK_ERR(chk("lone\x80"), -MERO_EINVAL);
    CHECK_ERR(chk("\xff"), -MERO_EINVAL);
    CHECK_ERR(mero_member_label_check("a\0b", 3, NULL), -MERO_EINVAL);         /* a NUL inside */
    CHECK_ERR(mero_member_label_check("\xe2\x80\x94", 2, NULL), -MERO_EINVAL); /* cut by len */
    struct mero_err err = {0};
    CHECK_ERR(mero_member_label_check("x\x01", 2, &err), -MERO_EINVAL);
    CHECK(strstr(err.msg, "U+0001") != NULL);
}

TEST(labels_are_kept_per_namespace_and_member)
{
    struct sqlite3 *db = NULL;
    uint8_t ns[MERO_NS_ID_LEN], other[MERO_NS_ID_LEN], a[MERO_IDENTITY_LEN], b[MERO_IDENTITY_LEN];
    char out[MERO_MEMBER_LABEL_SIZE];
    memset(ns, 1, sizeof(ns));
    memset(other, 2, sizeof(other));
    memset(a, 3, sizeof(a));
    memset(b, 4, sizeof(b));
    CHECK_OK(mero__node_db_open(&db, ":memory:", true, NULL));
    CHECK_ERR(mero__node_label_get(db, ns, a, out), -MERO_ENOTFOUND);
    CHECK_STR_EQ(out, "");
    const char *put = "INSERT INTO member_labels(ns, member, label) VALUES(?1, ?2, ?3)";
    const struct {
        const uint8_t *ns, *m;
        const char *label;
    } rows[] = {{ns, a, "r\xc3\xa9plica"}, {ns, b, "bad\x01"}, {other, a, "elsewhere"}};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        sqlite3_stmt *st = NULL;
        CHECK(sqlite3_prepare_v2(db, put, -1, &st, NULL) == SQLITE_OK);
        sqlite3_bind_blob(st, 1, rows[i].ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, rows[i].m, MERO_IDENTITY_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, rows[i].label, -1, SQLITE_STATIC);
        CHECK(sqlite3_step(st) == SQLITE_DONE);
        sqlite3_finalize(st);
    }
    CHECK_OK(mero__node_label_get(db, ns, a, out));
    CHECK_STR_EQ(out, "r\xc3\xa9plica");
    /* a row that breaks the rules (written behind the node's back) is not shown */
    CHECK_ERR(mero__node_label_get(db, ns, b, out), -MERO_ENOTFOUND);
    CHECK_STR_EQ(out, "");
    CHECK_OK(mero__node_labels_purge(db, ns));
    CHECK_ERR(mero__node_label_get(db, ns, a, out), -MERO_ENOTFOUND);
    CHECK_OK(mero__node_label_get(db, other, a, out));
    CHECK_STR_EQ(out, "elsewhere");
    sqlite3_close(db);
}

MERO_TEST_MAIN(T(a_label_is_short_utf8_without_controls),
               T(labels_are_kept_per_namespace_and_member))
