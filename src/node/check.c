/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.c - `merod check --home DIR`: an on-demand, read-only verdict on the node's two
 * databases. SQLite's integrity_check on node.db and gov.db; then what SQLite cannot see
 * (it keeps no per-page checksums, so a flipped byte inside a row passes): the op log
 * re-verified (each op decodes, hashes to its stored hash, its signature verifies, and the
 * derived tables equal a replay, in a transaction that is rolled back), every context delta
 * against its hash and signature, every visible value against its delta.
 *
 * Invariant: no data is changed (the replay's transaction is rolled back; opening only runs
 * the idempotent schema set-up `merod run` runs too; no file is created: a missing database
 * is a finding); the result is 0 only when every check passed.
 */
#include <stdio.h>
#include <string.h>

#include "mero/gov.h"
#include "node/admission/attest_internal.h"
#include "node/context/context_internal.h"
#include "node/db_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

int mero_node_check(const char *home, FILE *out, struct mero_err *err)
{
    struct mero_node node;
    char path[MERO_NODE_PATH_MAX + 16];
    struct mero_err e = {0};
    size_t bad = 0, nops = 0, nvalues = 0, ndeltas = 0;
    memset(&node, 0, sizeof(node));
    if (strlen(home) >= sizeof(node.home) - MERO_NODE_HOME_FILE_ROOM) {
        return mero_err_set(err, MERO_ETOOBIG, "home path too long");
    }
    snprintf(node.home, sizeof(node.home), "%s", home);

    snprintf(path, sizeof(path), "%s/node.db", home);
    if (mero__node_db_open(&node.db, path, false, &e) < 0) {
        fprintf(out, "node.db: %s\n", e.msg);
        bad++;
    } else if (mero__node_db_check(node.db, true, &e) < 0) {
        fprintf(out, "node.db: %s\n", e.msg);
        bad++;
    } else if (mero__node_ctx_open(&node, &e) < 0) {
        fprintf(out, "node.db: %s\n", e.msg);
        bad++;
    } else {
        fprintf(out, "node.db: integrity_check ok\n");
    }

    snprintf(path, sizeof(path), "%s/gov.db", home);
    memset(&e, 0, sizeof(e));
    if (mero_store_open_existing(path, &node.store, &e) < 0) {
        fprintf(out, "gov.db: %s\n", e.msg);
        bad++;
    } else if (mero_store_check(node.store, true, &e) < 0) {
        fprintf(out, "gov.db: %s\n", e.msg);
        bad++;
    } else {
        fprintf(out, "gov.db: integrity_check ok\n");
        /* replay with the hooks merod run uses, so a replay decides as the node did */
        struct mero_gov_hooks h;
        mero__node_gov_hooks(&node, &h);
        h.on_event = NULL; /* a check replays in a rolled-back transaction: no side effects */
        mero_store_set_hooks(node.store, &h);
        if (mero__node_admission_attest_init(&e) < 0) {
            fprintf(out, "gov.db: release source: %s (release-form admissions cannot replay)\n",
                    e.msg);
        }
        memset(&e, 0, sizeof(e));
        if (mero_gov_verify(node.store, &nops, &e) < 0) {
            fprintf(out, "gov.db: op log: %s\n", e.msg);
            bad++;
        } else {
            fprintf(out, "gov.db: %zu ops verified (hash, signature, replay)\n", nops);
        }
    }

    if (node.db != NULL && node.store != NULL) {
        if (mero__node_ctx_verify_all(&node, out, &nvalues, &ndeltas) < 0) {
            bad++;
        } else {
            fprintf(out, "node.db: %zu deltas and %zu values verified\n", ndeltas, nvalues);
        }
        if (mero__node_ctx_snapshots_print(&node, out) < 0) {
            fprintf(out, "node.db: the snapshot records do not read\n");
            bad++;
        }
    }
    mero__node_admission_attest_cleanup();
    mero_store_close(node.store);
    mero__node_db_close(node.db);
    if (bad > 0) {
        return mero_err_set(err, MERO_ESTATE,
                            "%s is damaged: restore the named database from a backup, or move "
                            "this home aside and run merod init again",
                            home);
    }
    return 0;
}
