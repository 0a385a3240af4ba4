/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sync_fixture.c - see sync_fixture.h. Invariant: both nodes live on f->loop; every wait on it
 * is bounded.
 */
#include "sync_fixture.h"

#include <sqlite3.h>
#include <string.h>

#include "gov/gov_internal.h"
#include "mero/clock.h"
#include "mero/crypto.h"
#include "mero/gov.h"
#include "mero/net.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/sync_internal.h"

static int node_open(struct syncf *f, struct mero_node *n)
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
    if (mero_store_open(":memory:", &n->store, &err) < 0 ||
        mero__node_db_open(&n->db, ":memory:", true, &err) < 0 ||
        mero__node_ctx_open(n, &err) < 0 || mero__node_sync_start(n, &err) < 0) {
        fprintf(stderr, "# syncf: %s\n", err.msg);
        return -MERO_EIO;
    }
    return 0;
}

int syncf_open(struct syncf *f)
{
    memset(f, 0, sizeof(*f));
    MERO_TRY(mero_crypto_init());
    if (uv_loop_init(&f->loop) != 0) {
        return -MERO_EIO;
    }
    MERO_TRY(node_open(f, &f->a));
    MERO_TRY(node_open(f, &f->b));
    char addr[1][MERO_MULTIADDR_STR_MAX];
    if (mero_net_listen_addrs(f->a.net, addr, 1) < 1) {
        return -MERO_EIO;
    }
    MERO_TRY(mero_net_add_addr(f->b.net, addr[0]));
    struct mero_err err = {0};
    struct mero_gov_oplist ops = {0};
    int rc = mero_gov_create_namespace(f->a.store, f->ns, &ops, &err);
    for (size_t i = 0; rc == 0 && i < ops.n; i++) {
        rc = mero_gov_apply(f->b.store, ops.v[i].data, ops.v[i].len, NULL, NULL, NULL, &err);
    }
    mero_gov_oplist_cleanup(&ops);
    if (rc < 0) {
        fprintf(stderr, "# syncf: %s\n", err.msg);
    }
    return rc;
}

static void node_close(struct mero_node *n)
{
    mero__node_sync_stop(n);
    mero_net_free(n->net);
    n->net = NULL;
}

void syncf_close(struct syncf *f)
{
    node_close(&f->a);
    node_close(&f->b);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    free(f->a.sync);
    free(f->b.sync);
    mero_store_close(f->a.store);
    mero_store_close(f->b.store);
    mero__node_ctx_close(&f->a);
    mero__node_ctx_close(&f->b);
    sqlite3_close(f->a.db);
    sqlite3_close(f->b.db);
    (void)uv_loop_close(&f->loop);
}

static int fill_one(struct mero_store *s, const uint8_t ns[MERO_NS_ID_LEN], uint64_t from,
                    uint64_t n)
{
    sqlite3_stmt *st = NULL;
    const uint8_t zero[MERO_IDENTITY_LEN] = {0}, junk = 0;
    int rc = sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -MERO_EIO;
    if (rc == 0 && sqlite3_prepare_v2(s->db,
                                      "INSERT INTO ops(hash, ns, signer, nonce, bytes) "
                                      "VALUES(?, ?, ?, ?, ?)",
                                      -1, &st, NULL) != SQLITE_OK) {
        rc = -MERO_EIO;
    }
    for (uint64_t i = from; rc == 0 && i < from + n; i++) {
        uint8_t h[MERO_OP_ID_LEN];
        uint8_t seed[sizeof(i) + MERO_NS_ID_LEN];
        memcpy(seed, &i, sizeof(i));
        memcpy(seed + sizeof(i), ns, MERO_NS_ID_LEN);
        mero_sha256(h, seed, sizeof(seed));
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, ns, MERO_NS_ID_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, zero, sizeof(zero), SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)i);
        sqlite3_bind_blob(st, 5, &junk, 1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -MERO_EIO;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return sqlite3_exec(s->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK
               ? rc
               : -MERO_EIO;
}

int syncf_fill(struct syncf *f, uint64_t n, bool both)
{
    MERO_TRY(fill_one(f->a.store, f->ns, f->filler, n));
    if (both) {
        MERO_TRY(fill_one(f->b.store, f->ns, f->filler, n));
    }
    f->filler += n;
    return 0;
}

int syncf_write(struct syncf *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct mero_err err = {0};
        struct mero_gov_oplist ops = {0};
        uint8_t member[MERO_IDENTITY_LEN];
        mero_random(member, sizeof(member));
        int rc =
            mero_gov_add_member(f->a.store, f->ns, f->ns, member, MERO_ROLE_MEMBER, &ops, &err);
        mero_gov_oplist_cleanup(&ops);
        if (rc < 0) {
            fprintf(stderr, "# syncf: %s\n", err.msg);
            return rc;
        }
    }
    return 0;
}

int syncf_pull(struct syncf *f)
{
    mero__node_sync_peer(&f->b, f->a.peer_id);
    uint64_t end = mero_now_ms() + 60000;
    while (mero__node_sync_busy(&f->b)) {
        if (mero_now_ms() > end) {
            return -MERO_ETIMEOUT;
        }
        uv_run(&f->loop, UV_RUN_ONCE);
    }
    return 0;
}

uint64_t syncf_count(struct mero_node *n, const uint8_t ns[MERO_NS_ID_LEN])
{
    uint64_t c = 0;
    return mero_gov_op_count(n->store, ns, &c) < 0 ? 0 : c;
}
