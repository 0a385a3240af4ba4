/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventlog_diff.c - the difference between two parsed event logs (reference-sigstore-ccel.md
 * §C.7): which measured record makes two nodes' registers differ, and which records differ
 * only in unmeasured event data (load addresses and the like).
 *
 * Records are aligned on their measured identity (MR index, type, SHA-384 digest): the common
 * prefix and suffix first, then a longest common subsequence over the middle. Between two
 * aligned records, the unmatched records of A and of B are paired position by position
 * ("changed"), and what is left over is "only in A" / "only in B". Aligned records whose data
 * differ are "data only". A difference is "measured" when one of its records extends an RTMR.
 *
 * Invariants: the LCS table is bounded (MAX_CELLS); the result borrows the logs' records and
 * owns only its delta array; `out` is written only on success.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/eventlog.h"

#define MAX_CELLS (1u << 22) /* 8 MiB of uint16_t */

static bool same_key(const struct mero_event *a, const struct mero_event *b)
{
    return a->mr_index == b->mr_index && a->type == b->type &&
           memcmp(a->sha384, b->sha384, MERO_RTMR_LEN) == 0;
}

static bool same_data(const struct mero_event *a, const struct mero_event *b)
{
    return a->data_len == b->data_len &&
           (a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0);
}

struct diff_ctx {
    struct mero_eventlog_delta *d;
    size_t n;
};

static void emit(struct diff_ctx *x, enum mero_eventlog_delta_kind kind, const struct mero_event *a,
                 const struct mero_event *b)
{
    struct mero_eventlog_delta *d = &x->d[x->n++];
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    d->a = a;
    d->b = b;
    if (a != NULL && b != NULL) {
        d->fields |= a->mr_index != b->mr_index ? MERO_DELTA_F_MR_INDEX : 0;
        d->fields |= a->type != b->type ? MERO_DELTA_F_TYPE : 0;
        d->fields |= memcmp(a->sha384, b->sha384, MERO_RTMR_LEN) != 0 ? MERO_DELTA_F_DIGEST : 0;
        d->fields |= !same_data(a, b) ? MERO_DELTA_F_DATA : 0;
    }
    d->measured = kind != MERO_DELTA_DATA && ((a != NULL && mero_event_rtmr(a) >= 0) ||
                                              (b != NULL && mero_event_rtmr(b) >= 0));
}

static void aligned(struct diff_ctx *x, const struct mero_event *a, const struct mero_event *b)
{
    if (!same_data(a, b)) {
        emit(x, MERO_DELTA_DATA, a, b);
    }
}

/* Flush the unmatched runs A[ia0..ia1) and B[ib0..ib1). */
static void flush(struct diff_ctx *x, const struct mero_event *ea, size_t ia0, size_t ia1,
                  const struct mero_event *eb, size_t ib0, size_t ib1)
{
    size_t la = ia1 - ia0, lb = ib1 - ib0, pairs = la < lb ? la : lb;
    for (size_t k = 0; k < pairs; k++) {
        emit(x, MERO_DELTA_CHANGED, &ea[ia0 + k], &eb[ib0 + k]);
    }
    for (size_t k = pairs; k < la; k++) {
        emit(x, MERO_DELTA_ONLY_A, &ea[ia0 + k], NULL);
    }
    for (size_t k = pairs; k < lb; k++) {
        emit(x, MERO_DELTA_ONLY_B, NULL, &eb[ib0 + k]);
    }
}

int mero_eventlog_diff(const struct mero_eventlog *a, const struct mero_eventlog *b,
                       struct mero_eventlog_diff *out, struct mero_err *err)
{
    const struct mero_event *ea = a->events, *eb = b->events;
    size_t na = a->n_events, nb = b->n_events, pre = 0, suf = 0;
    uint16_t *L = NULL;
    struct diff_ctx x = {NULL, 0};

    while (pre < na && pre < nb && same_key(&ea[pre], &eb[pre])) {
        pre++;
    }
    while (suf < na - pre && suf < nb - pre && same_key(&ea[na - 1 - suf], &eb[nb - 1 - suf])) {
        suf++;
    }
    size_t ma = na - pre - suf, mb = nb - pre - suf;
    size_t w = mb + 1;
    if ((ma + 1) > MAX_CELLS / w) {
        return mero_err_set(err, MERO_ETOOBIG,
                            "event logs differ in %zu x %zu records: too many to align", ma, mb);
    }
    x.d = calloc(na + nb + 1, sizeof(*x.d));
    L = calloc((ma + 1) * w, sizeof(*L));
    if (x.d == NULL || L == NULL) {
        free(x.d);
        free(L);
        return mero_err_set(err, MERO_ENOMEM, "event log diff: out of memory");
    }
    /* L[i][j] = length of the LCS of A-middle[i..] and B-middle[j..] */
    for (size_t i = ma; i-- > 0;) {
        for (size_t j = mb; j-- > 0;) {
            uint16_t v;
            if (same_key(&ea[pre + i], &eb[pre + j])) {
                v = (uint16_t)(L[(i + 1) * w + j + 1] + 1);
            } else {
                uint16_t down = L[(i + 1) * w + j], right = L[i * w + j + 1];
                v = down >= right ? down : right;
            }
            L[i * w + j] = v;
        }
    }
    for (size_t k = 0; k < pre; k++) {
        aligned(&x, &ea[k], &eb[k]);
    }
    /* walk the table; runs of unmatched records are flushed at each match */
    size_t i = 0, j = 0, ra = 0, rb = 0;
    while (i < ma || j < mb) {
        if (i < ma && j < mb && same_key(&ea[pre + i], &eb[pre + j])) {
            flush(&x, ea, pre + ra, pre + i, eb, pre + rb, pre + j);
            aligned(&x, &ea[pre + i], &eb[pre + j]);
            i++;
            j++;
            ra = i;
            rb = j;
        } else if (j >= mb || (i < ma && L[(i + 1) * w + j] >= L[i * w + j + 1])) {
            i++;
        } else {
            j++;
        }
    }
    flush(&x, ea, pre + ra, pre + ma, eb, pre + rb, pre + mb);
    for (size_t k = 0; k < suf; k++) {
        aligned(&x, &ea[na - suf + k], &eb[nb - suf + k]);
    }
    free(L);

    memset(out, 0, sizeof(*out));
    out->deltas = x.d;
    out->n_deltas = x.n;
    for (int r = 0; r < MERO_RTMR_COUNT; r++) {
        out->first[r] = -1;
    }
    for (size_t k = 0; k < x.n; k++) {
        const struct mero_eventlog_delta *d = &x.d[k];
        if (!d->measured) {
            continue;
        }
        int r1 = d->a != NULL ? mero_event_rtmr(d->a) : MERO_EVENT_NO_RTMR;
        int r2 = d->b != NULL ? mero_event_rtmr(d->b) : MERO_EVENT_NO_RTMR;
        if (r1 >= 0 && out->first[r1] < 0) {
            out->first[r1] = (long)k;
        }
        if (r2 >= 0 && out->first[r2] < 0) {
            out->first[r2] = (long)k;
        }
    }
    mero_eventlog_replay(a, out->rtmr_a);
    mero_eventlog_replay(b, out->rtmr_b);
    for (int r = 0; r < MERO_RTMR_COUNT; r++) {
        out->regs_differ[r] = memcmp(out->rtmr_a[r], out->rtmr_b[r], MERO_RTMR_LEN) != 0;
    }
    return 0;
}

void mero_eventlog_diff_cleanup(struct mero_eventlog_diff *d)
{
    if (d == NULL) {
        return;
    }
    free(d->deltas);
    d->deltas = NULL;
    d->n_deltas = 0;
}
