/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_ops.c - issue 36 (docs/audit.md): a namespace's stored ops as their signed bytes, a
 * page at a time in apply order (parents first), each with its hash and its outcome at its
 * place in the canonical order. `meroctl fleet audit` pages through them to write an export
 * an auditor re-verifies offline.
 *
 * mero_node_ns_audit builds the same audit here (the admin page's TEE timelines): the re-fold
 * runs in a temporary store of its own, on the loop thread (about half a second at 1,300 ops,
 * bench/bench_audit.c).
 *
 * Invariant: reads only (gov's public queries); the bytes are exactly the stored ones, so the
 * hash an auditor recomputes from them is the one the log links by.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/audit.h"
#include "mero/buf.h"
#include "mero/clock.h"
#include "mero/gov.h"
#include "mero/op.h"
#include "mero/node.h"
#include "node/node_internal.h"

void mero_node_ops_free(struct mero_node_op *ops, size_t n)
{
    for (size_t i = 0; ops != NULL && i < n; i++) {
        free(ops[i].bytes);
    }
    free(ops);
}

int mero_node_ns_ops(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], uint64_t after,
                     size_t max, struct mero_node_op **out, size_t *n, uint64_t *last_seq)
{
    uint8_t(*hs)[MERO_OP_ID_LEN] = NULL;
    size_t nh = 0;
    int rc = 0;
    *out = NULL;
    *n = 0;
    *last_seq = after;
    MERO_TRY(mero_gov_op_hashes(node->store, ns, after, max, &hs, &nh, last_seq));
    struct mero_node_op *ops = calloc(nh > 0 ? nh : 1, sizeof(*ops));
    if (ops == NULL) {
        free(hs);
        return -MERO_ENOMEM;
    }
    for (size_t i = 0; i < nh; i++) {
        struct mero_buf b;
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        memcpy(ops[i].hash, hs[i], MERO_OP_ID_LEN);
        rc = mero_gov_op_get(node->store, hs[i], &b);
        if (rc >= 0) {
            ops[i].bytes = mero_buf_steal(&b, &ops[i].len);
        }
        mero_buf_cleanup(&b); /* empty once stolen */
        MERO_TRY_OUT(rc);
        MERO_TRY_OUT(mero_gov_op_state(node->store, hs[i], &ops[i].state, ops[i].reason,
                                       sizeof(ops[i].reason)));
    }
out:
    free(hs);
    if (rc < 0) {
        mero_node_ops_free(ops, nh);
        return rc;
    }
    *out = ops;
    *n = nh;
    return 0;
}

int mero_node_sealed_plaintext(struct mero_node *node, const uint8_t *bytes, size_t len,
                               uint8_t **plain, size_t *plain_len)
{
    struct mero_err e = {0};
    int rc = mero_gov_sealed_plaintext(node->store, bytes, len, plain, plain_len, &e);
    return rc == -MERO_EINVAL ? -MERO_ENOTFOUND : rc;
}

int mero_node_ns_audit(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], char **json,
                       size_t *nfindings, struct mero_err *err)
{
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    uint64_t after = 0;
    int rc = 0;
    *json = NULL;
    *nfindings = 0;
    mero_audit_log_init(&log);
    memcpy(log.ns, ns, MERO_NS_ID_LEN);
    log.exported_at = mero_now_unix();
    log.no_release_files = true; /* the admin page's view: the node keeps no release file */
    for (;;) {
        struct mero_node_op *ops = NULL;
        size_t n = 0;
        MERO_TRY_OUT(mero_node_ns_ops(node, ns, after, MERO_NODE_OPS_PAGE_MAX, &ops, &n, &after));
        for (size_t i = 0; i < n && rc == 0; i++) {
            rc = mero_audit_add_op(&log, ops[i].hash, ops[i].bytes, ops[i].len, ops[i].state, NULL);
        }
        mero_node_ops_free(ops, n);
        MERO_TRY_OUT(rc);
        if (n < MERO_NODE_OPS_PAGE_MAX) {
            break;
        }
    }
    MERO_TRY_OUT(mero_audit_build(&log, &f, err));
    MERO_TRY_OUT(mero_audit_manifest(&log, json));
    *nfindings = f.n;
out:
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    return rc;
}
