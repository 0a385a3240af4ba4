/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read.c - verified reads: a key's value for the API (mero_node_ctx_get), who wrote it
 * (mero_node_ctx_author), and `merod check`'s scan of every delta and value
 * (mero__node_ctx_verify_all).
 *
 * Invariants: a read serves a value only after checking it against its delta (hash, AES-GCM, key
 * and value equal), so a damaged node.db answers an error (and points at merod check), never
 * another key's value. A key absent because the context keeps deltas sealed under a key this
 * node lacks is answered with why (issue 16), and that key is asked for (node->hooks.key_missing).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "node/context/codec_internal.h"
#include "node/context/context_internal.h"
#include "node/context/store_internal.h"
#include "node/node_internal.h"

int mero_node_ctx_author(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                         const char *key, uint8_t author[MERO_IDENTITY_LEN])
{
    uint64_t l = 0;
    uint8_t h[MERO_DELTA_ID_LEN];
    int rc = mero__ctx_current(node, ctx, key, &l, h, author);
    return rc < 0 ? rc : rc == 1 ? 0 : -MERO_ENOTFOUND;
}

/*
 * A visible value checked against the delta that made it (node.db holds both; SQLite has no
 * per-page checksums, so a flipped byte in a row or an index could otherwise be served): the
 * row's key is the key asked for, the delta hashes to the row's hash, opens under its group
 * key (AES-GCM authenticates it) and carries exactly this key and value. 0 when consistent,
 * -MERO_ESTATE when not (with what differs in err), -MERO_ENOTFOUND when the key is not held.
 */
/* A ctx_kv row joined with the delta its hash names (columns k, v, hash, delta bytes). */
struct kv_row {
    const uint8_t *k, *v, *hash, *bytes;
    size_t kl, vl, hash_len, len;
};

static void kv_row_read(sqlite3_stmt *st, int first, struct kv_row *r)
{
    r->k = sqlite3_column_text(st, first);
    r->kl = (size_t)sqlite3_column_bytes(st, first);
    r->v = sqlite3_column_blob(st, first + 1);
    r->vl = (size_t)sqlite3_column_bytes(st, first + 1);
    r->hash = sqlite3_column_blob(st, first + 2);
    r->hash_len = (size_t)sqlite3_column_bytes(st, first + 2);
    r->bytes = sqlite3_column_blob(st, first + 3);
    r->len = (size_t)sqlite3_column_bytes(st, first + 3);
}

static int verify_value(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                        const uint8_t group[MERO_GROUP_ID_LEN], const char *key,
                        const struct kv_row *r, struct mero_err *err)
{
    size_t kl = strlen(key), vl = r->vl;
    const uint8_t *v = r->v;
    if (r->k == NULL || r->kl != kl || memcmp(r->k, key, kl) != 0) {
        return mero_err_set(err, MERO_ESTATE, "the row found for the key holds another key");
    }
    if (r->hash_len != MERO_DELTA_ID_LEN) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta hash is damaged");
    }
    if (r->bytes == NULL || r->len == 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta is missing");
    }
    const uint8_t *bytes = r->bytes;
    uint8_t h[MERO_DELTA_ID_LEN], gk[MERO_GROUP_KEY_LEN];
    struct mero_ctx_delta d;
    mero_sha256(h, bytes, r->len);
    int rc = memcmp(h, r->hash, sizeof(h)) == 0 ? mero__ctx_decode(bytes, r->len, &d) : -MERO_EIO;
    if (rc < 0 || memcmp(d.ctx, ctx, MERO_CONTEXT_ID_LEN) != 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta does not match its hash");
    }
    if (mero_gov_group_key_by_id(node->store, group, d.key_id, gk) < 0) {
        return mero_err_set(err, MERO_ESTATE, "the value's delta key is not held");
    }
    size_t pl = d.ct_len - MERO_AEAD_TAG_LEN;
    uint8_t *pt = malloc(pl ? pl : 1);
    struct mero_ctx_write w;
    MERO_ENSURE_OUT(pt != NULL, NULL, MERO_ENOMEM, "out of memory");
    MERO_TRY_OUT(mero_aes256gcm_open(pt, d.ct, d.ct_len, bytes, d.aad_len, d.nonce, gk));
    MERO_ENSURE_OUT(mero__ctx_parse_write(&d, pt, pl, &w, NULL) == 0, NULL, MERO_EPROTO,
                    "plaintext");
    MERO_ENSURE_OUT(w.kl == kl && memcmp(w.k, key, kl) == 0 && w.vl == vl &&
                        (vl == 0 || memcmp(w.v, v, vl) == 0),
                    NULL, MERO_ESTATE, "value");
out:
    mero_wipe(gk, sizeof(gk));
    mero_wipe(&w, sizeof(w));
    if (pt != NULL) {
        mero_wipe(pt, pl);
    }
    free(pt);
    if (rc == -MERO_ENOMEM) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    if (rc < 0) {
        return mero_err_set(err, MERO_ESTATE, "the stored value differs from its signed delta");
    }
    return 0;
}

/* A NUL-terminated copy of the row's value (owned by the caller). */
static int value_copy(const struct kv_row *r, uint8_t **value, size_t *vlen)
{
    uint8_t *v = malloc(r->vl + 1);
    if (v == NULL) {
        return -MERO_ENOMEM;
    }
    if (r->vl > 0) {
        memcpy(v, r->v, r->vl);
    }
    v[r->vl] = 0;
    *value = v;
    *vlen = r->vl;
    return 0;
}

/*
 * Issue 16: a key is not among the values readable here. When the context keeps deltas sealed
 * under a key this node lacks, say why the read cannot be answered (and ask for that key)
 * instead of "key not found": -MERO_EPERM when we do not reach the context's group (not a
 * member of the namespace, or a Restricted subgroup, reached only through tee-admit), -MERO_ESTATE
 * when we do and the key has not arrived yet. 0 when no such delta is kept (the key is simply
 * absent).
 */
static int unreadable(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const uint8_t ns[MERO_NS_ID_LEN], const uint8_t group[MERO_GROUP_ID_LEN],
                      struct mero_err *err)
{
    sqlite3_stmt *st = NULL;
    struct mero_ctx_delta d;
    bool found = false;
    if (sqlite3_prepare_v2(node->db,
                           "SELECT bytes FROM ctx_delta WHERE context = ?1 AND applied = 0"
                           " ORDER BY seq DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        return 0;
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = mero__ctx_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
                                 &d) == 0;
    }
    sqlite3_finalize(st);
    if (!found) {
        return 0;
    }
    uint8_t me[MERO_IDENTITY_LEN];
    int role = MERO_ROLE_NONE;
    char id[MERO_HEX_SIZE(8)];
    mero_hex_encode(id, d.key_id, 8);
    if (mero_gov_identity(node->store, ns, false, me, NULL) < 0 ||
        mero_gov_reach_role(node->store, group, me, &role) < 0 || role == MERO_ROLE_NONE) {
        if (memcmp(group, ns, MERO_NS_ID_LEN) == 0) {
            return mero_err_set(err, MERO_EPERM,
                                "this node is not a member of the context's namespace: its values "
                                "are sealed under key %s… it does not hold",
                                id);
        }
        return mero_err_set(err, MERO_EPERM,
                            "this node does not reach the context's subgroup (a Restricted "
                            "subgroup is reached only through tee-admit): its values are sealed "
                            "under key %s… it does not hold",
                            id);
    }
    if (node->hooks.key_missing != NULL) {
        node->hooks.key_missing(node, ns, group, d.key_id);
    }
    return mero_err_set(err, MERO_ESTATE,
                        "the context holds values sealed under key %s…, which this node does not "
                        "hold yet; it was requested from connected members",
                        id);
}

int mero_node_ctx_get(struct mero_node *node, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                      const char *key, uint8_t **value, size_t *vlen, struct mero_err *err)
{
    uint8_t ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
    if (mero__node_ctx_lookup(node, ctx, ns, group) < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "context not found");
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            node->db,
            "SELECT kv.k, kv.v, kv.hash, d.bytes FROM ctx_kv kv LEFT JOIN ctx_delta d"
            " ON d.hash = kv.hash WHERE kv.context = ?1 AND kv.k = ?2",
            -1, &st, NULL) != SQLITE_OK) {
        return mero_err_set(err, MERO_EIO, "cannot read: %s", sqlite3_errmsg(node->db));
    }
    sqlite3_bind_blob(st, 1, ctx, MERO_CONTEXT_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = -MERO_ENOTFOUND, step = sqlite3_step(st);
    struct mero_err verr = {0};
    if (step == SQLITE_ROW) {
        struct kv_row row;
        kv_row_read(st, 0, &row);
        MERO_TRY_OUT(verify_value(node, ctx, group, key, &row, &verr));
        MERO_TRY_OUT(value_copy(&row, value, vlen));
    } else if (step != SQLITE_DONE) {
        rc = mero_err_set(&verr, MERO_ESTATE, "%s", sqlite3_errmsg(node->db));
    }
out:
    sqlite3_finalize(st);
    if (rc == -MERO_ENOTFOUND) {
        MERO_TRY(unreadable(node, ctx, ns, group, err));
        return mero_err_set(err, MERO_ENOTFOUND, "key not found");
    }
    if (rc == -MERO_ESTATE) {
        /* never another key's value: refuse, say so once in the log, point at merod check */
        MERO_ERROR("node.db: a stored value failed verification (%s): the database is damaged; "
                   "stop the node and run merod check --home %s",
                   verr.msg, node->home);
        return mero_err_set(err, MERO_EIO,
                            "stored state is damaged (%s); the node's database needs repair "
                            "(merod check)",
                            verr.msg);
    }
    return rc < 0 ? mero_err_set(err, -rc, "%s", verr.msg[0] ? verr.msg : "cannot read") : 0;
}

int mero__node_ctx_verify_all(struct mero_node *node, FILE *out, size_t *nvalues, size_t *ndeltas)
{
    sqlite3_stmt *st = NULL;
    size_t bad = 0;
    *nvalues = 0;
    *ndeltas = 0;
    if (sqlite3_prepare_v2(node->db, "SELECT seq, hash, bytes FROM ctx_delta ORDER BY seq", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(out, "node.db: cannot scan the deltas: %s\n", sqlite3_errmsg(node->db));
        return -MERO_ESTATE;
    }
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint8_t h[MERO_DELTA_ID_LEN];
        struct mero_ctx_delta d;
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        mero_sha256(h, p, n);
        if (sqlite3_column_bytes(st, 1) != MERO_DELTA_ID_LEN ||
            memcmp(h, sqlite3_column_blob(st, 1), sizeof(h)) != 0 ||
            mero__ctx_decode(p, n, &d) < 0 || mero__ctx_verify_sig(p, &d) < 0) {
            fprintf(out, "node.db: delta #%lld does not match its hash or signature\n",
                    (long long)sqlite3_column_int64(st, 0));
            bad++;
        }
        (*ndeltas)++;
    }
    if (step != SQLITE_DONE) {
        fprintf(out, "node.db: delta scan stopped: %s\n", sqlite3_errmsg(node->db));
        bad++;
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(node->db,
                           "SELECT kv.context, kv.k, kv.v, kv.hash, d.bytes FROM ctx_kv kv"
                           " LEFT JOIN ctx_delta d ON d.hash = kv.hash",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(out, "node.db: cannot scan the values: %s\n", sqlite3_errmsg(node->db));
        return -MERO_ESTATE;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint8_t ctx[MERO_CONTEXT_ID_LEN], ns[MERO_NS_ID_LEN], group[MERO_GROUP_ID_LEN];
        struct mero_err e = {0};
        const char *k = (const char *)sqlite3_column_text(st, 1);
        char cx[17];
        (*nvalues)++;
        if (sqlite3_column_bytes(st, 0) != MERO_CONTEXT_ID_LEN || k == NULL) {
            fprintf(out, "node.db: a value row is damaged (context id or key)\n");
            bad++;
            continue;
        }
        memcpy(ctx, sqlite3_column_blob(st, 0), sizeof(ctx));
        mero_hex_encode(cx, ctx, 8);
        if (mero__node_ctx_lookup(node, ctx, ns, group) < 0) {
            fprintf(out, "node.db: a value of context %s… whose context gov.db does not know\n",
                    cx);
            bad++;
            continue;
        }
        struct kv_row row;
        kv_row_read(st, 1, &row);
        if (verify_value(node, ctx, group, k, &row, &e) < 0) {
            fprintf(out, "node.db: context %s…, a value: %s\n", cx, e.msg);
            bad++;
        }
    }
    if (step != SQLITE_DONE) {
        fprintf(out, "node.db: value scan stopped: %s\n", sqlite3_errmsg(node->db));
        bad++;
    }
    sqlite3_finalize(st);
    return bad == 0 ? 0 : -MERO_ESTATE;
}
