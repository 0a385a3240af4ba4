/* SPDX-License-Identifier: Apache-2.0 */
/*
 * secrets.c - the content check of the secrets the store keeps (namespace identity seeds, the
 * account root key, group keys), run when the node starts (issue 21 item 1: a corrupted
 * secret must refuse the start, not be used). A seed or key must be exactly 32 bytes and not
 * all zero (an all-zero key is publicly known), and a group key must still hash to the key id
 * stored beside it.
 *
 * Invariants: read-only; the secrets are compared where they lie (no copy leaves the
 * statement's buffers); a message names the file, the table and, for per-namespace rows,
 * the first bytes of the (public) namespace or group id, never a secret byte.
 */
#include <sodium.h>
#include <stdio.h>

#include "gov/gov_internal.h"
#include "mero/encoding.h"
#include "mero/keys.h"

static const char fix[] = "restore it from a backup or re-create the node (merod init)";

/* 1 when the column is a usable secret of len bytes (not all zero) */
static int usable(sqlite3_stmt *st, int col, int len)
{
    return sqlite3_column_type(st, col) == SQLITE_BLOB && sqlite3_column_bytes(st, col) == len &&
           !sodium_is_zero(sqlite3_column_blob(st, col), (size_t)len);
}

static void id_prefix(char out[GOV_SHORT_SIZE], sqlite3_stmt *st, int col)
{
    const void *id = sqlite3_column_blob(st, col);
    if (id == NULL || sqlite3_column_bytes(st, col) < 8) {
        snprintf(out, GOV_SHORT_SIZE, "?");
        return;
    }
    mero_hex_encode(out, id, 8);
    out[GOV_SHORT_SIZE - 1] = 0;
}

/* One scan's statement (not cached: the check runs once a start); -MERO_EIO when it fails. */
static int prepare(struct mero_store *s, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : -MERO_EIO;
}

int mero_gov_check_secrets(struct mero_store *s, const char *path, struct mero_err *err)
{
    char id[GOV_SHORT_SIZE];
    int rc = 0;
    sqlite3_stmt *st = NULL;
    /* identities and the account root key are stored as their Ed25519 seed */
    GOV_SQL_TRY_OUT(s, err, prepare(s, "SELECT ns, sk FROM identities", &st), "identities");
    while (sqlite3_step(st) == SQLITE_ROW) {
        id_prefix(id, st, 0);
        MERO_ENSURE_OUT(usable(st, 1, MERO_ED25519_SEED_LEN), err, MERO_EINVAL,
                        "%s: namespace %s... has an identity key that is all zero "
                        "(publicly known) or not 32 bytes; %s",
                        path, id, fix);
    }
    sqlite3_finalize(st);
    GOV_SQL_TRY_OUT(s, err, prepare(s, "SELECT sk FROM account_key", &st), "account_key");
    while (sqlite3_step(st) == SQLITE_ROW) {
        MERO_ENSURE_OUT(usable(st, 0, MERO_ED25519_SEED_LEN), err, MERO_EINVAL,
                        "%s: the account root key is all zero (publicly known) or not "
                        "32 bytes; %s",
                        path, fix);
    }
    sqlite3_finalize(st);
    GOV_SQL_TRY_OUT(s, err, prepare(s, "SELECT grp, key, key_id FROM group_keys", &st),
                    "group_keys");
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint8_t kid[MERO_KEY_ID_LEN];
        int good =
            usable(st, 1, MERO_GROUP_KEY_LEN) && sqlite3_column_bytes(st, 2) == (int)sizeof(kid);
        if (good) {
            mero_group_key_id(kid, sqlite3_column_blob(st, 1));
            good = sodium_memcmp(kid, sqlite3_column_blob(st, 2), sizeof(kid)) == 0;
            sodium_memzero(kid, sizeof(kid));
        }
        id_prefix(id, st, 0);
        MERO_ENSURE_OUT(good, err, MERO_EINVAL,
                        "%s: a key of group %s... is all zero, not 32 bytes or does not "
                        "match its key id; %s",
                        path, id, fix);
    }
out:
    sqlite3_finalize(st);
    return rc;
}
