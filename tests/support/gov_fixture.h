/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gov_fixture.h - shared helpers for the governance tests and bench: in-memory nodes that
 * record events, op-log sync between them, mock-quote TEE admissions and stock policies.
 */
#ifndef MERO_TEST_GOV_FIXTURE_H
#define MERO_TEST_GOV_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "mero/gov.h"

#define GOVT_MAX_EVENTS 256

struct govt_event {
    int kind;
    int role;
    bool for_us;
    uint8_t group[32];
    uint8_t member[32];
};

struct govt_node {
    struct mero_store *s;
    uint8_t ns[32]; /* the namespace this node created or joined */
    uint8_t pk[32]; /* its identity in ns (once known) */
    struct govt_event ev[GOVT_MAX_EVENTS];
    size_t nev;
};

/* Open an in-memory store recording events. Returns 0 or a negative code. */
int govt_open(struct govt_node *n);
void govt_close(struct govt_node *n);
/* Create a namespace on n (n->ns, n->pk set). */
int govt_create_ns(struct govt_node *n);
/* A namespace on a (opened here) and b (opened here) a second root Admin of it, its identity
 * made on b's node; the AdminChanged op appended to l. b holds none of the ops yet. */
int govt_owner_and_admin(struct govt_node *a, struct govt_node *b, struct mero_gov_oplist *l,
                         struct mero_err *err);
/* Apply every op of ns that `from` holds to `to`, in from's order. Returns ops newly applied or
 * a negative code (err gets the reason). */
int govt_sync(struct govt_node *from, struct govt_node *to, const uint8_t ns[32],
              struct mero_err *err);
/* Apply encoded ops to a node; first failure returned. */
int govt_apply_list(struct govt_node *to, const struct mero_gov_oplist *l, struct mero_err *err);
/* Whether two nodes' derived tables (mero_gov_dump) are byte for byte the same. */
bool govt_dumps_equal(struct govt_node *a, struct govt_node *b);
/* Whether n's derived tables equal a rebuild's from its op log (n is rebuilt). */
bool govt_matches_rebuild(struct govt_node *n);
/* Count recorded events of a kind (for member when non-NULL). */
size_t govt_count(const struct govt_node *n, int kind, const uint8_t *member);
void govt_clear_events(struct govt_node *n);

/* ---- randomized order tests (test_gov_fold, test_gov_fold_random) ---- */
/* The seed in environment variable env when it names one, else a fresh random odd seed below
 * 2^63 (so seed + k does not wrap); the caller prints it. */
uint64_t govt_seed(const char *env);
/* xorshift64* step: the next pseudo-random value from state *s (never 0). */
uint64_t govt_rnd(uint64_t *s);
/* Whether two buffers hold the same bytes. */
bool govt_same_buf(const struct mero_buf *x, const struct mero_buf *y);
/* who's direct role in group ns (the namespace root) on n; -1 when it cannot be read. */
int govt_root_role(struct govt_node *n, const uint8_t ns[32], const uint8_t who[32]);

/* A 96-char hex measurement of one repeated byte ("00" x 48 for b = 0). */
void govt_meas(char out[97], uint8_t b);
/* Measurement policy: mrtd/rtmr1-3 = [meas(0)], accept_mock, mode, v2. Clean up with
 * mero_tee_policy_cleanup. */
int govt_policy(struct mero_tee_policy *p, int mode, bool accept_mock);

/* A TEE candidate: store with an identity in ns and its credential. */
struct govt_tee {
    struct govt_node node;
    struct mero_credential cred;
    uint8_t quote[512]; /* a mock quote, or a fake "real" one */
    size_t quote_len;
};
/*
 * A fake "real" quote for the gov hooks (never parsed by mero_quote_parse): report data
 * [0,64), TDATTRIBUTES u64 LE [64,72), MRSERVICETD [72,120), MRTD [120,168), RTMR0..3
 * [168,360). govt_fake_td_report is a quote_td_report hook over that layout;
 * govt_fake_quote_facts writes a request's recorded facts (TD facts, measurements) into it.
 */
#define GOVT_FAKE_QUOTE_MIN 360
/* An evidence_verify hook standing in for DCAP: the quote's first 64 bytes as its report
 * data, and the TCB status, MRTD byte (RTMRs zero) and advisories of govt_evidence. */
struct govt_evidence_cfg {
    char tcb[32];
    uint8_t mrtd_byte;
    const char *advisories;
};
extern struct govt_evidence_cfg govt_evidence;
int govt_evidence_verify(void *ud, const uint8_t *q, size_t qlen, const uint8_t *coll, size_t clen,
                         uint64_t at, struct mero_evidence_verdict *v, struct mero_err *err);
/* A quote_report_data hook: a fake quote's report data is its first 64 bytes. */
int govt_fake_rd(void *ud, const uint8_t *q, size_t n, uint8_t out[64], struct mero_err *err);
/* A release_check hook standing in for the fetched, Sigstore-verified release (test_gov_release
 * runs the real one): release "2.3.87" matches the profile "locked-read-only", any other was
 * never published. */
int govt_release_ok(void *ud, const char *v, const struct mero_tee_policy *p,
                    const struct mero_measurements *m, char *matched, size_t cap,
                    struct mero_err *reason);
int govt_fake_td_report(void *ud, const uint8_t *q, size_t n, struct mero_td_report *out,
                        struct mero_err *err);
void govt_fake_quote_facts(uint8_t *q, size_t n, const struct mero_admit_request *req);
/* Open a TEE node holding an identity for ns. */
int govt_tee_open(struct govt_tee *t, const uint8_t ns[32]);
/* Fill an admit request for t into group with a fresh mock quote bound to (ns, bind_group). */
void govt_tee_request(struct govt_tee *t, const uint8_t ns[32], const uint8_t group[32],
                      const uint8_t bind_group[32], struct mero_admit_request *req);
/* The common start of a reach test: owner opens and creates a namespace under a policy of mode
 * (mock quotes accepted), tee opens and is admitted at the namespace root. 0 or the first
 * error. */
int govt_ns_with_root_tee(struct govt_node *owner, struct govt_tee *tee, int mode);

#endif
