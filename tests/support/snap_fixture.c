/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snap_fixture.c - see snap_fixture.h. Invariant: every node lives on f->loop; every wait on it
 * is bounded; the shared store is closed once.
 */
#include "snap_fixture.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "mero/net.h"
#include "node/context/clock_internal.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/sync_internal.h"

#define SNAPF_WAIT_MS 60000u
#define SNAPF_KEY_MAX 32u

static int node_open(struct snapf *f, struct mero_node *n, struct mero_store *store)
{
    struct mero_err err = {0};
    uint8_t pk[MERO_ED25519_PK_LEN], sk[MERO_ED25519_SK_LEN];
    mero_ed25519_keypair(pk, sk);
    n->loop = &f->loop;
    int rc = mero_net_new(&f->loop, sk, NULL, NULL, NULL, &n->net);
    mero_wipe(sk, sizeof(sk));
    MERO_TRY(rc);
    MERO_TRY(mero_net_listen(n->net, "/ip4/127.0.0.1/tcp/0"));
    snprintf(n->peer_id, sizeof(n->peer_id), "%s", mero_net_peer_id(n->net));
    if ((store == NULL && mero_store_open(":memory:", &n->store, &err) < 0) ||
        mero__node_db_open(&n->db, ":memory:", true, &err) < 0) {
        fprintf(stderr, "# snapf: %s\n", err.msg);
        return -MERO_EIO;
    }
    if (store != NULL) {
        n->store = store;
    }
    if (mero__node_ctx_open(n, &err) < 0 || mero__node_sync_start(n, &err) < 0) {
        fprintf(stderr, "# snapf: %s\n", err.msg);
        return -MERO_EIO;
    }
    return 0;
}

int snapf_open(struct snapf *f)
{
    memset(f, 0, sizeof(*f));
    MERO_TRY(mero_crypto_init());
    mero_log_set_level(getenv("SNAPF_LOG") ? MERO_LOG_DEBUG : MERO_LOG_ERROR);
    if (uv_loop_init(&f->loop) != 0) {
        return -MERO_EIO;
    }
    MERO_TRY(node_open(f, &f->n[0], NULL));
    for (int i = 1; i < SNAPF_NODES; i++) {
        MERO_TRY(node_open(f, &f->n[i], f->n[0].store));
    }
    for (int i = 0; i < SNAPF_NODES - 1; i++) {
        char addr[1][MERO_MULTIADDR_STR_MAX];
        if (mero_net_listen_addrs(f->n[i].net, addr, 1) < 1) {
            return -MERO_EIO;
        }
        MERO_TRY(mero_net_add_addr(f->n[SNAPF_NODES - 1].net, addr[0]));
    }
    struct mero_err err = {0};
    uint8_t app[MERO_APP_ID_LEN] = {0};
    int rc = mero_gov_create_namespace(f->n[0].store, f->ns, NULL, &err);
    if (rc == 0) {
        rc = mero_gov_create_context(f->n[0].store, f->ns, f->ns, app, f->ctx, NULL, &err);
    }
    if (rc < 0) {
        fprintf(stderr, "# snapf: %s\n", err.msg);
    }
    return rc;
}

void snapf_close(struct snapf *f)
{
    for (int i = 0; i < SNAPF_NODES; i++) {
        mero__node_sync_stop(&f->n[i]);
        mero_net_free(f->n[i].net);
        f->n[i].net = NULL;
    }
    uv_run(&f->loop, UV_RUN_DEFAULT);
    for (int i = 0; i < SNAPF_NODES; i++) {
        free(f->n[i].sync);
        mero__node_ctx_close(&f->n[i]);
        sqlite3_close(f->n[i].db);
    }
    mero_store_close(f->n[0].store);
    (void)uv_loop_close(&f->loop);
}

int snapf_write(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN], uint64_t writes,
                unsigned keys)
{
    for (uint64_t i = 0; i < writes; i++) {
        char k[SNAPF_KEY_MAX], v[SNAPF_KEY_MAX];
        struct mero_err err = {0};
        snprintf(k, sizeof(k), "k%u", (unsigned)(i % keys));
        snprintf(v, sizeof(v), "v%llu", (unsigned long long)i);
        int rc = mero_node_ctx_put(n, ctx, k, (const uint8_t *)v, strlen(v), false, 0, &err);
        if (rc < 0) {
            fprintf(stderr, "# snapf: %s\n", err.msg);
            return rc;
        }
    }
    return 0;
}

int snapf_copy(struct mero_node *from, struct mero_node *to)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(from->db, "SELECT bytes FROM ctx_delta ORDER BY seq", -1, &st, NULL) !=
        SQLITE_OK) {
        return -MERO_EIO;
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        struct mero_err err = {0};
        rc = mero__node_ctx_apply(to, sqlite3_column_blob(st, 0),
                                  (size_t)sqlite3_column_bytes(st, 0), &err);
    }
    sqlite3_finalize(st);
    return rc;
}

int snapf_pull(struct snapf *f, int i)
{
    struct mero_node *b = &f->n[SNAPF_NODES - 1];
    uv_update_time(&f->loop); /* the writes before ran without the loop: its clock is behind */
    mero__node_sync_peer(b, f->n[i].peer_id);
    uint64_t end = mero_now_ms() + SNAPF_WAIT_MS;
    while (mero__node_sync_busy(b)) {
        if (mero_now_ms() > end) {
            return -MERO_ETIMEOUT;
        }
        uv_run(&f->loop, UV_RUN_ONCE);
    }
    return 0;
}

uint64_t snapf_deltas(struct mero_node *n)
{
    sqlite3_stmt *st = NULL;
    uint64_t c = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT count(*) FROM ctx_delta", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        c = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return c;
}

int snapf_value_is(struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN], const char *key,
                   const char *want)
{
    uint8_t *v = NULL;
    size_t len = 0;
    struct mero_err err = {0};
    if (mero_node_ctx_get(n, ctx, key, &v, &len, &err) < 0) {
        return want == NULL;
    }
    int ok = want != NULL && len == strlen(want) && memcmp(v, want, len) == 0;
    free(v);
    return ok;
}

/* the layout is written out here, not taken from codec.c: a check of the codec, not a copy;
 * prev not NULL: version 3, chained to it */
static int write_delta(struct snapf *f, struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                       const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t sk[MERO_ED25519_SK_LEN],
                       uint64_t lamport, const char *key, const char *value, const uint8_t *prev,
                       bool plant, uint8_t hash[32])
{
    uint8_t gk[32], kid[32], nonce[12], sig[64], ct[256];
    struct mero_buf pt, d, msg;
    struct mero_err err = {0};
    MERO_TRY(mero_gov_group_key(n->store, f->ns, gk, kid));
    mero_random(nonce, sizeof(nonce));
    mero_buf_init(&pt, 256);
    mero_buf_init(&d, 1024);
    mero_buf_init(&msg, 2048);
    int rc = mero_buf_append_u32le(&pt, (uint32_t)strlen(key));
    rc = rc < 0 ? rc : mero_buf_append(&pt, key, strlen(key));
    rc = rc < 0 ? rc : mero_buf_append_u32le(&pt, (uint32_t)strlen(value));
    rc = rc < 0 ? rc : mero_buf_append(&pt, value, strlen(value));
    rc = rc < 0 ? rc
                : mero_buf_append_u8(&d, prev != NULL ? MERO_DELTA_CHAINED_VERSION
                                                      : MERO_DELTA_VERSION);
    rc = rc < 0 ? rc : mero_buf_append(&d, ctx, 32);
    rc = rc < 0 ? rc : mero_buf_append(&d, pk, 32);
    rc = rc < 0 ? rc : mero_buf_append_u64le(&d, lamport);
    rc = rc < 0 ? rc : mero_buf_append(&d, kid, 32);
    rc = rc < 0 ? rc : mero_buf_append(&d, nonce, 12);
    rc = rc < 0 || prev == NULL ? rc : mero_buf_append(&d, prev, 32);
    size_t aad = d.len; /* the clear header the AEAD binds: 117 bytes (149 with prev) */
    rc = rc < 0 ? rc : mero_buf_append_u32le(&d, (uint32_t)(pt.len + 16));
    rc = rc < 0 || aad != (prev != NULL ? 149u : 117u)
             ? -MERO_EINVAL
             : mero_aes256gcm_seal(ct, pt.data, pt.len, d.data, aad, nonce, gk);
    rc = rc < 0 ? rc : mero_buf_append(&d, ct, pt.len + 16);
    rc = rc < 0 ? rc
                : mero_buf_append_str(&msg,
                                      prev != NULL ? MERO_DELTA_CHAINED_DOMAIN : MERO_DELTA_DOMAIN);
    rc = rc < 0 ? rc : mero_buf_append(&msg, d.data, d.len);
    if (rc == 0) {
        mero_ed25519_sign(sig, msg.data, msg.len, sk);
        rc = mero_buf_append(&d, sig, sizeof(sig));
    }
    if (rc == 0) {
        mero_sha256(hash, d.data, d.len);
    }
    if (rc == 0 && plant) {
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v2(n->db,
                                "INSERT INTO ctx_delta(hash, context, grp, bytes, applied) "
                                "VALUES(?1, ?2, ?3, ?4, 1)",
                                -1, &st, NULL) == SQLITE_OK
                 ? 0
                 : -MERO_EIO;
        if (rc == 0) {
            sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
            sqlite3_bind_blob(st, 2, ctx, 32, SQLITE_STATIC);
            sqlite3_bind_blob(st, 3, f->ns, 32, SQLITE_STATIC);
            sqlite3_bind_blob(st, 4, d.data, (int)d.len, SQLITE_STATIC);
            rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
        }
        sqlite3_finalize(st);
        /* its value, live (what a snapshot serves), and the clock it raised */
        st = NULL;
        rc = rc < 0 || sqlite3_prepare_v2(n->db,
                                          "INSERT OR REPLACE INTO ctx_kv(context, k, v, lamport, "
                                          "hash, author) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                          -1, &st, NULL) != SQLITE_OK
                 ? -MERO_EIO
                 : 0;
        if (rc == 0) {
            sqlite3_bind_blob(st, 1, ctx, 32, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
            sqlite3_bind_blob(st, 3, value, (int)strlen(value), SQLITE_STATIC);
            sqlite3_bind_int64(st, 4, (sqlite3_int64)lamport);
            sqlite3_bind_blob(st, 5, hash, 32, SQLITE_STATIC);
            sqlite3_bind_blob(st, 6, pk, 32, SQLITE_STATIC);
            rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
        }
        sqlite3_finalize(st);
        rc = rc < 0 ? rc : mero__ctx_clock_raise(n, ctx, lamport);
    } else if (rc == 0) {
        rc = mero__node_ctx_apply(n, d.data, d.len, &err);
    }
    if (rc < 0 && getenv("SNAPF_LOG") != NULL) { /* a refusal is often what a test wants */
        fprintf(stderr, "# snapf_write_as: %s\n", err.msg);
    }
    mero_wipe(gk, sizeof(gk));
    mero_buf_cleanup(&msg);
    mero_buf_cleanup(&d);
    mero_buf_cleanup(&pt);
    return rc;
}

int snapf_write_as(struct snapf *f, struct mero_node *n, const uint8_t ctx[MERO_CONTEXT_ID_LEN],
                   const uint8_t pk[MERO_IDENTITY_LEN], const uint8_t sk[MERO_ED25519_SK_LEN],
                   uint64_t lamport, const char *key, const char *value, bool plant)
{
    uint8_t hash[32];
    return write_delta(f, n, ctx, pk, sk, lamport, key, value, NULL, plant, hash);
}

int snapf_write_chained(struct snapf *f, struct mero_node *n,
                        const uint8_t ctx[MERO_CONTEXT_ID_LEN], const uint8_t pk[MERO_IDENTITY_LEN],
                        const uint8_t sk[MERO_ED25519_SK_LEN], uint64_t lamport, const char *key,
                        const char *value, const uint8_t prev[MERO_DELTA_ID_LEN],
                        uint8_t hash[MERO_DELTA_ID_LEN])
{
    return write_delta(f, n, ctx, pk, sk, lamport, key, value, prev, false, hash);
}
