/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee.c - what kind of TEE this node runs in and how it makes quotes (spec "Admin API
 * surface"; reference-calimero.md §1.2, §1.6, §4.2).
 *
 * Detection: configfs-tsm present (/sys/kernel/config/tsm/report) means real TDX quotes;
 * otherwise only `merod run --mock-tee` yields MOCK_TDX_QUOTE_V1 quotes, and without it every
 * quote request is refused (501). Real generation writes to configfs and may block, so it
 * runs on the libuv thread pool and its result is handed back on the loop thread; a mock
 * quote is made on the loop at once. Invariant: a mock quote is never produced unless the
 * operator asked for --mock-tee, and a node with real TDX never produces a mock quote.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/mock.h"
#include "mero/quote.h"
#include "mero/tsm.h"
#include "node/node_internal.h"
#include "node/tee_internal.h"

enum mero_node_tee mero_node_tee_detect(bool mock_requested)
{
    if (mero_tsm_present()) {
        return MERO_TEE_REAL;
    }
    return mock_requested ? MERO_TEE_MOCK : MERO_TEE_NONE;
}

void mero_node_tee_info(const struct mero_node *node, char cloud[MERO_NODE_TEE_CLOUD_MAX],
                        char os_image[MERO_NODE_TEE_OS_IMAGE_MAX],
                        char mrtd[MERO_HEX_SIZE(MERO_MR_LEN)])
{
    /* tee_info.c gathered them at start-up; a mock quote's MRTD is all zeros (it carries no
     * TD registers), as is a real one's until the start-up quote was read */
    static const uint8_t no_mrtd[MERO_MR_LEN];
    struct mero_tee_facts f;
    mero__tee_facts_get(&f);
    memcpy(cloud, f.cloud, sizeof(f.cloud));
    memcpy(os_image, f.os_image, sizeof(f.os_image));
    bool real = node->tee == MERO_TEE_REAL && f.have_mrtd;
    mero_hex_encode(mrtd, real ? f.mrtd : no_mrtd, MERO_MR_LEN);
}

struct quote_job {
    uv_work_t work;
    uint8_t report_data[MERO_REPORT_DATA_LEN];
    uint8_t *quote;
    size_t len;
    bool want_log, want_coll;
    uint8_t *log;
    size_t log_len;
    char *coll;
    size_t coll_len;
    int rc;
    struct mero_err err;
    mero_node_quote_cb cb;
    void *ctx;
};

/* The quote, then what was asked for besides it (on the thread pool). */
static int job_make(struct quote_job *j)
{
    MERO_TRY(mero__node_tee_generate_real(j->report_data, &j->quote, &j->len, &j->err));
    if (j->want_coll) {
        MERO_TRY(mero__node_tee_collateral(j->quote, j->len, &j->coll, &j->coll_len, &j->err));
    }
    if (j->want_log) {
        MERO_TRY(mero__node_tee_event_log(&j->log, &j->log_len, &j->err));
    }
    return 0;
}

static void job_run(uv_work_t *w)
{
    struct quote_job *j = w->data;
    j->rc = job_make(j);
}

static void job_done(uv_work_t *w, int status)
{
    struct quote_job *j = w->data;
    if (status < 0 && j->rc == 0) {
        j->rc = mero_err_set(&j->err, MERO_EINTERNAL, "quote generation was cancelled");
    }
    struct mero_node_quote res = {j->quote, j->len, j->log, j->log_len, j->coll, j->coll_len};
    j->cb(j->ctx, j->rc, &res, &j->err);
    free(j->quote);
    free(j->log);
    free(j->coll);
    free(j);
}

int mero_node_tee_quote(struct mero_node *node, const uint8_t report_data[MERO_REPORT_DATA_LEN],
                        unsigned extras, mero_node_quote_cb cb, void *ctx)
{
    struct mero_err err = {0};
    switch (node->tee) {
    case MERO_TEE_MOCK: {
        uint8_t q[MERO_MOCK_QUOTE_LEN];
        mero_mock_quote_create(q, report_data);
        struct mero_node_quote res = {q, sizeof(q), NULL, 0, NULL, 0};
        if ((extras & MERO_NODE_QUOTE_EVENT_LOG) != 0) {
            return -MERO_EQUOTE_MOCK; /* no event log for a mock quote */
        }
        cb(ctx, 0, &res, &err);
        return 0;
    }
    case MERO_TEE_REAL: {
        struct quote_job *j = calloc(1, sizeof(*j));
        if (j == NULL) {
            return -MERO_ENOMEM;
        }
        memcpy(j->report_data, report_data, sizeof(j->report_data));
        j->want_log = (extras & MERO_NODE_QUOTE_EVENT_LOG) != 0;
        j->want_coll = (extras & MERO_NODE_QUOTE_COLLATERAL) != 0;
        j->cb = cb;
        j->ctx = ctx;
        j->work.data = j;
        if (uv_queue_work(node->loop, &j->work, job_run, job_done) != 0) {
            free(j);
            return -MERO_EINTERNAL;
        }
        return 0;
    }
    case MERO_TEE_NONE:
    default:
        return -MERO_EUNSUPPORTED;
    }
}
