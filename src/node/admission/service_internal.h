/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_internal.h - the admission service of one node, on its loop: the member side (offers
 * on hearing a prompt, the direct-path responders, the GroupKeyRequest responder) in
 * node/admission/peer.c and the joiner side (POST /admin-api/tee/fleet-join) in
 * node/admission/fleet_join.c, both over node/admission/base.c (clocks, this node's proof of
 * possession and quote, the stream helpers). Private to src/node.
 *
 * The node provides the loop, the net peer, the governance store and three callbacks
 * (publishing ops on ns/<hex>, pulling a namespace's op log, joining a namespace's contexts);
 * it routes gossip on ns/<hex> through mero__adm_on_gossip before its own handling.
 */
#ifndef MERO_NODE_ADMISSION_NODE_H
#define MERO_NODE_ADMISSION_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mero/err.h"
#include "mero/sizes.h"
#include "mero/gov.h"
#include "mero/net.h"
#include "mero/node.h"
#include "node/admission/admission_internal.h"
#include "node/admission/metrics_internal.h"
#include "node/admission/msg_internal.h"
#include "node/admission/challenge_internal.h"
#include "node/admission/keys_internal.h"
#include "node/admission/pending_join_internal.h"
#include "node/admission/prompt_forward_internal.h"
#include "node/topic_internal.h"

#define MERO_FLEET_JOIN_BUDGET_MS 30000u /* MAX_ADMISSION_WAIT */
#define MERO_FLEET_JOIN_POLL_MS   2000u  /* ADMISSION_POLL, the re-prompt period */
#define MERO_FLEET_JOIN_CHECK_MS  50u    /* how often a join checks its own admission */
/* ...reading its status from the store again only when the store changed, or at least this
 * often (issue 33: fleet_join.c, own_status) */
#define MERO_FLEET_JOIN_STATUS_MAX_AGE_MS 1000u
#define MERO_MAX_ADMITTER_ADDRS           8u     /* MAX_ADMITTER_MACHINES */
#define MERO_ADM_REQUEST_TIMEOUT_MS       15000u /* one stream exchange, dial included */

struct mero_admission_env {
    uv_loop_t *loop;
    struct mero_net *net;
    struct mero_store *store;
    bool mock_tee;                              /* merod run --mock-tee */
    char release[MERO_ADM_MAX_RELEASE_LEN + 1]; /* MERO_TEE_VERSION, "" when unknown */
    void *ud;
    /* Broadcast ops a local action produced (already applied locally) on ns/<hex>. */
    int (*publish_ops)(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                       const struct mero_gov_oplist *ops);
    /* Start a namespace op-log pull from connected peers (bootstrap / catch-up). May be NULL. */
    void (*sync_namespace)(void *ud, const uint8_t ns[MERO_NS_ID_LEN]);
    /* Join every context of ns; *ids owned (free()). May be NULL (no contexts joined). */
    int (*join_contexts)(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                         uint8_t (**ids)[MERO_CONTEXT_ID_LEN], size_t *n);
    /*
     * Self-purge: delete the node-local context state (values, deltas) of ns's contexts
     * (group == ns) or of group's contexts only, before gov forgets which contexts those were.
     * Idempotent. May be NULL (no context layer).
     */
    int (*purge_contexts)(void *ud, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t group[MERO_GROUP_ID_LEN]);
    /* Verify real quotes with the library (collateral from the PCS cache, DCAP, the release
     * source): struct mero__adm_ops' collateral, dcap and release. false: real quotes are
     * refused. */
    bool real_quotes;
    /* Monotonic milliseconds; NULL means the monotonic clock. */
    uint64_t (*now_ms)(void *ud);
    /* fleet-join budget and re-prompt period; 0 means 30 s and 2 s (tests shorten them). */
    uint32_t budget_ms;
    uint32_t poll_ms;
    /* ---- issue 16: self-purge leaves nothing (node/purge.c) ---- */
    /* Checkpoint node.db and gov.db, truncating both WALs (what a purge deleted is then only
     * zeroes on disk: both run with secure_delete). 0, or negative. May be NULL. */
    int (*checkpoint)(void *ud);
    /* Test seam (merod run --test only, MERO_TEST_PURGE_CRASH_AFTER=N): end the process right
     * after purge step N (1 context state, 2 governance, 3 checkpoint); 0 is off. */
    unsigned purge_crash_after;
    /* ---- issue 16: evidence lifetime (node/admission/evidence_retry.c) ---- */
    /* Test knobs (merod run --test only; NULL / 0 otherwise): a file holding seconds added to
     * the wall clock of evidence decisions (MERO_TEST_CLOCK_SKEW_FILE), and the refresh
     * loop's check period in ms (MERO_TEST_EVIDENCE_CHECK_MS; 0 means 60 s). */
    const char *clock_skew_file;
    uint32_t evidence_check_ms;

    /* ---- issue 16: keys of group arrived through a pull (GroupKeysRequest): retry the
     * deltas kept for them. May be NULL. ---- */
    void (*keys_arrived)(void *ud, const uint8_t group[MERO_GROUP_ID_LEN]);

    /* ---- issue 19: the fleet view's attempt log (node/fleet.c); NULL: not recorded ---- */
    /* Our verify-and-admit decision on claim c (v NULL when the quote was never read). */
    void (*attempt_decided)(void *ud, const struct mero_tee_claim *c,
                            const struct mero_tee_verdict *v, bool direct, bool admitted,
                            const char *reason);
    /* An admitter's answer to our own attempt in ns (verdict: enum mero_fleet_verdict). */
    void (*attempt_heard)(void *ud, const uint8_t ns[MERO_NS_ID_LEN], bool direct, int verdict,
                          const char *reason);
};

struct mero_fleet_join;

/*
 * Joiner side: an offer this node answered with a quote, and the admitter's verdict on it once
 * its TeeAdmissionVerdict arrives (node/admission/verdict.c). A ring: the oldest is overwritten.
 */
#define MERO_ADM_ANSWERED_MAX 16u
struct mero_adm_answered {
    bool used;
    bool has_verdict;
    bool admitted;
    bool reported; /* a fleet-join has taken its refusal */
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t challenge[MERO_NONCE_LEN];
    char peer[MERO_PEER_ID_STR_MAX];
    char reason[MERO_ADM_MAX_REASON_LEN + 1];
    uint64_t at_ms;
};

#define MERO_PURGE_QUEUE 16
struct mero_purge_job {
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t group[MERO_GROUP_ID_LEN];
};

/*
 * Joiner side (node/admission/progress.c, issue 18): the steps of the last fleet join per
 * namespace, read by mero_node_fleet_join_progress. A full table reuses the slot touched
 * longest ago, a finished one first.
 */
#define MERO_FJ_PROGRESS_SLOTS 8u
struct mero_fj_progress_slot {
    bool used;
    uint8_t ns[MERO_NS_ID_LEN];
    uint64_t seq; /* steps so far */
    uint64_t touched_ms;
    struct mero_fleet_join_progress p;
};

struct mero_admission {
    struct mero_admission_env env;
    struct mero__adm_ops ops; /* the admission pipeline's (peer.c binds them) */
    struct mero_challenge_book book;
    struct mero_pending_joins pending;
    struct mero_prompt_forward prompt_fwd; /* prompt_forward.c: which prompts we pass on */
    char self_peer[MERO_PEER_ID_STR_MAX];
    struct mero_fleet_join *joins; /* in-flight fleet-join calls */
    unsigned long admitted;        /* counters, for logs and tests */
    unsigned long refused;
    unsigned long offers;
    unsigned long keys_recovered; /* GroupKeyRequest answers opened and stored */
    unsigned long status_reads;   /* a fleet join's reads of its own status (fleet_join.c) */
    uint64_t answered_ms;         /* when we last answered an offer with a quote (joiner side) */
    struct mero_adm_answered answered[MERO_ADM_ANSWERED_MAX]; /* verdict.c */
    size_t answered_next;
    struct mero_fj_progress_slot progress[MERO_FJ_PROGRESS_SLOTS]; /* progress.c */
    struct mero_purge_job purge_q[MERO_PURGE_QUEUE];               /* purge.c */
    size_t npurge;
    uv_timer_t purge_timer;
    bool purge_timer_open;
    unsigned jobs; /* queued verifications (node/admission/run.c) */
    bool freeing;  /* mero__adm_free ran; memory goes when jobs and timer are done */
    bool closing;
    /* ---- issue 16: evidence lifetime ---- */
    struct mero_evidence_retry *evidence_retry; /* evidence_retry.c; NULL when not a TEE */

    /* ---- issue 16: the pulls a read or an apply triggers, rate-limited per key id ---- */
    struct mero_key_pull_limit key_limit;

    /* ---- issue 19: metrics (node/admission/metrics.c) ---- */
    struct mero_adm_metrics metrics;
};

/* Allocate and register the admission protocol handler on env->net. Owned: free with _free. */
MERO_MUST_CHECK int mero__adm_new(const struct mero_admission_env *env, struct mero_admission **out,
                                  struct mero_err *err);
/* Stop acting (before mero_net_free): late callbacks only release what they hold. */
void mero__adm_stop(struct mero_admission *a);
/*
 * Drop in-flight fleet joins (without calling back: the admin API answered them 503 when it
 * stopped) and free. Call it after mero_net_free, which runs pending request callbacks while
 * `a` is still alive, and before the loop's final run (timer close callbacks). NULL no-op.
 */
void mero__adm_free(struct mero_admission *a);

/* What mero__adm_on_gossip made of a gossip message. */
enum mero__adm_gossip {
    MERO__ADM_GOSSIP_NOT_OURS = 0, /* not a prompt: the node judges it */
    MERO__ADM_GOSSIP_FORWARD,      /* a prompt, handled here; forward it */
    MERO__ADM_GOSSIP_HOLD          /* a prompt, handled here; not forwarded (prompt_forward.c) */
};
/*
 * Gossip on a topic: a TeeAdmissionPrompt on ns/<hex> is handled here (a node that may vouch
 * offers the publisher a challenge) and is forwarded at most once per
 * MERO_PROMPT_FORWARD_GAP_MS per (namespace, publisher); anything else is not ours.
 */
enum mero__adm_gossip mero__adm_on_gossip(struct mero_admission *a, const char *topic,
                                          const char *from, const uint8_t *data, size_t len);
/* Whether a gossip message on ns from `from` would come to nothing here whatever its signature
 * (an admission prompt already forwarded and answered within the gap; peer.c): gossip then
 * drops it unverified. Records nothing. */
bool mero__adm_gossip_noop(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                           const char *from, const uint8_t *data, size_t len);

/*
 * The fleet join (mero_node_fleet_join): start the join loop for namespace ns, asking `admitters`
 * (multiaddrs ending in /p2p/<id>) directly first. cb runs exactly once on the loop, with 0
 * and the result (mero/node.h), or a negative code and the reason. Returns 0 when started.
 */
MERO_MUST_CHECK int mero__adm_fleet_join_start(struct mero_admission *a,
                                               const uint8_t ns[MERO_NS_ID_LEN],
                                               const char *const *admitters, size_t n,
                                               mero_fleet_join_done cb, void *ctx,
                                               struct mero_err *err);

/*
 * purge.c - self_purge: feed every governance event (only TeeMemberRemoved for our identity
 * acts); reconcile finishes marked purges (call once at startup, before following topics).
 */
void mero__adm_on_event(struct mero_admission *a, const struct mero_gov_event *ev);
MERO_MUST_CHECK int mero__adm_purge_reconcile(struct mero_admission *a);

/*
 * ---- node/admission/base.c: what every file of the service uses (issue 34: it calls none of
 * them, and they call each other only downwards: peer.c over the rest) ----
 */
/* Monotonic milliseconds (env.now_ms when set). */
uint64_t mero__adm_now(const struct mero_admission *a);
/* The wall clock (unix seconds) of evidence decisions: real, plus the --test skew. */
uint64_t mero__adm_now_unix(const struct mero_admission *a);
/* The --test skew in seconds (0 without the knob). */
int64_t mero__adm_clock_skew(const struct mero_admission *a);
/*
 * Make our quote over challenge || admission_binding(our credential in ns); *quote owned
 * (free()), cred_bytes gets the encoded credential, pk our namespace identity.
 */
MERO_MUST_CHECK int mero__adm_make_quote(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t challenge[MERO_NONCE_LEN], uint8_t **quote,
                                         size_t *quote_len, struct mero_buf *cred_bytes,
                                         uint8_t pk[MERO_IDENTITY_LEN], struct mero_err *err);
/* Our proof of possession for ns: party_id = our identity, over our own peer id bytes. */
MERO_MUST_CHECK int mero__adm_pop(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                                  uint8_t party_id[MERO_IDENTITY_LEN],
                                  uint8_t sig[MERO_ED25519_SIG_LEN], struct mero_err *err);
/* Are we admitted in ns (a direct TEE row) and do we hold its group key? */
void mero__adm_status(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN], bool *member,
                      bool *has_key);
/* The stream helpers: answer req with m, or with a TeeAdmissionResponse (admitted, reason);
 * send m to peer on the admission protocol (cb(ud, ...) gets the answer unless this fails). */
int mero__adm_respond_msg(struct mero_net_req *req, const struct mero_adm_msg *m);
void mero__adm_respond_verdict(struct mero_net_req *req, bool admitted, const char *reason);
MERO_MUST_CHECK int mero__adm_init_send(struct mero_admission *a, const char *peer,
                                        const struct mero_adm_init *m, mero_net_reply_cb cb,
                                        void *ud);
/* Free `a` once mero__adm_free ran and nothing refers to it any more. */
void mero__adm_maybe_free(struct mero_admission *a);

/* node/admission/run.c: verify_and_admit for a claim; answers req (direct path) when non-NULL. */
void mero__adm_run(struct mero_admission *a, const struct mero_tee_claim *c, const char *path,
                   struct mero_net_req *req);
/* node/admission/fleet_join.c: drop every in-flight join without calling back (mero__adm_free). */
void mero__adm_fleet_join_free_all(struct mero_admission *a);

/* ---- node/admission/progress.c: the fleet join's progress (issue 18) ---- */
/* A join for ns starts (its steps are forgotten) / has answered its caller. */
void mero__adm_fj_progress_start(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN]);
void mero__adm_fj_progress_end(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN]);
/*
 * A running join for ns reached state (about peer, "" for none; reason for a refusal, else
 * NULL): a new step unless it is the current one. No-op when no join runs for ns.
 */
void mero__adm_fj_progress_note(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                                enum mero_fleet_join_state state, const char *peer,
                                const char *reason);
/* The current state of the running join for ns, 0 when none runs or it has no step yet. */
enum mero_fleet_join_state mero__adm_fj_progress_state(struct mero_admission *a,
                                                       const uint8_t ns[MERO_NS_ID_LEN]);
MERO_MUST_CHECK int mero__adm_fj_progress_get(struct mero_admission *a,
                                              const uint8_t ns[MERO_NS_ID_LEN],
                                              struct mero_fleet_join_progress *out,
                                              struct mero_err *err);

/* ---- node/admission/verdict.c: the prompt path's verdict (issue 18) ---- */
/* Joiner: remember that we answered peer's offer of `challenge` for ns with a quote. */
void mero__adm_offer_answered(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                              const uint8_t challenge[MERO_NONCE_LEN], const char *peer);
/* Admitter: tell the joiner of an offered-path claim how verify_and_admit judged its quote. */
void mero__adm_send_verdict(struct mero_admission *a, const struct mero_tee_claim *c, bool admitted,
                            const char *reason);
/* Joiner: a TeeAdmissionVerdict arrived from `remote`; record it if it matches an answer. */
void mero__adm_on_verdict(struct mero_admission *a, struct mero_net_req *req, const char *remote,
                          const struct mero_adm_init *m);
/*
 * Joiner: the offers for ns answered since since_ms. Counts how many were answered, how many
 * have been refused and whether one admitted us (*admitted_by gets its peer); each refusal not
 * yet taken is passed to on_refusal once.
 */
struct mero_adm_verdicts {
    size_t answered;
    size_t refused;
    bool admitted;
    char admitted_by[MERO_PEER_ID_STR_MAX];
};
void mero__adm_verdicts(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                        uint64_t since_ms, struct mero_adm_verdicts *out,
                        void (*on_refusal)(void *ud, const char *peer, const char *reason),
                        void *ud);

/* ---- issue 16: evidence lifetime (node/admission/evidence_retry.c) ---- */
/* Start tee::evidence_retry (a no-op on a node that cannot quote); free stops it. */
MERO_MUST_CHECK int mero__adm_evidence_retry_start(struct mero_admission *a);
void mero__adm_evidence_retry_free(struct mero_admission *a);

/* ---- issue 16: reach - the paged key pull (node/admission/keys.c) ---- */
/* Responder: answer a GroupKeysRequest whose proof of possession verified. */
void mero__adm_on_group_keys_request(struct mero_admission *a, struct mero_net_req *req,
                                     const struct mero_adm_init *m);
/* Requester: pull, page by page, every key of group we lack from peer. */
void mero__adm_keys_pull(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN], const char *peer);
/* A read or an apply met key_id of group, which we lack: pull it from connected peers when
 * we reach the group and the rate limit allows. */
void mero__adm_key_missing(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t group[MERO_GROUP_ID_LEN],
                           const uint8_t key_id[MERO_KEY_ID_LEN]);
/* After a fleet join: pull the keys of every group of ns we reach from connected peers. */
void mero__adm_keys_pull_reach(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN]);
/* The next few connected peers a key pull asks (at most MERO_KEY_PULL_PEERS into out, from
 * where the previous pull stopped: mero__key_pull_window), so repeated pulls reach every
 * connected peer in turn. Returns how many. */
size_t mero__adm_pull_peers(struct mero_admission *a,
                            char out[MERO_KEY_PULL_PEERS][MERO_PEER_ID_STR_MAX]);
/* Ask peer for ns's current group key (GroupKeyRequest); stores it when answered. */
void mero__adm_key_pull(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                        const char *peer);

#endif
