/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_tee.c - `meroctl tee info|attest|registration-attest|fleet-join`, over the
 * /admin-api/tee routes (reference-calimero.md §4.1-§4.4). While the one fleet-join request is
 * in flight, a second thread polls GET /admin-api/tee/fleet-join/<NS>/progress (an extension,
 * issue 18) and prints one stderr line per state change.
 *
 * Invariants: progress goes to stderr only (--json keeps one document on stdout); each step
 * (by its seq) is printed at most once, in order; a finished join's steps left from an earlier
 * call are not printed as this call's (only a running join's, or after this call's answer).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "client_internal.h"
#include "mero/crypto.h"
#include "mero/encoding.h"

static int run_info(const struct meroctl_global *g, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        return meroctl_usage_error("tee info takes no arguments");
    }
    return meroctl_simple(g, "GET", "/admin-api/tee/info", NULL, false);
}

static int nonce_arg(const char *v, char out[65])
{
    if (strcmp(v, "random") == 0) {
        uint8_t n[MERO_NONCE_LEN];
        mero_random(n, sizeof(n));
        mero_hex_encode(out, n, sizeof(n));
        return 0;
    }
    if (!meroctl_is_id(v)) {
        return -MERO_EINVAL;
    }
    snprintf(out, 65, "%s", v);
    return 0;
}

static int run_attest(const struct meroctl_global *g, int argc, char **argv)
{
    char nonce[65] = "";
    json_t *body = json_object();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--nonce") == 0 && i + 1 < argc) {
            if (nonce_arg(argv[++i], nonce) < 0) {
                json_decref(body);
                return meroctl_usage_error("--nonce takes 64 hex characters or 'random'");
            }
        } else if (strcmp(a, "--application-id") == 0 && i + 1 < argc) {
            json_object_set_new(body, "applicationId", json_string(argv[++i]));
        } else if (strcmp(a, "--bind-node-key") == 0) {
            json_object_set_new(body, "bindNodeKey", json_true());
        } else if (strcmp(a, "--bind-transport-key") == 0) {
            json_object_set_new(body, "bindTransportKey", json_true());
        } else if (strcmp(a, "--include-collateral") == 0) {
            json_object_set_new(body, "includeCollateral", json_true());
        } else if (strcmp(a, "--event-log") == 0) {
            json_object_set_new(body, "eventLog", json_true());
        } else {
            json_decref(body);
            return meroctl_usage_error("tee attest: unknown option %s", a);
        }
    }
    if (nonce[0] == 0) {
        (void)nonce_arg("random", nonce);
    }
    json_object_set_new(body, "nonce", json_string(nonce));
    static const char *const attest_flags[][2] = {{"applicationId", "--application-id"},
                                                  {"bindNodeKey", "--bind-node-key"},
                                                  {"bindTransportKey", "--bind-transport-key"},
                                                  {"includeCollateral", "--include-collateral"},
                                                  {"eventLog", "--event-log"},
                                                  {NULL, NULL}};
    meroctl_flag_names(attest_flags);
    int rc = meroctl_simple(g, "POST", "/admin-api/tee/attest", body, false);
    json_decref(body);
    return rc;
}

static int run_registration(const struct meroctl_global *g, int argc, char **argv)
{
    char nonce[65] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nonce") == 0 && i + 1 < argc) {
            if (nonce_arg(argv[++i], nonce) < 0) {
                return meroctl_usage_error("--nonce takes 64 hex characters or 'random'");
            }
        } else {
            return meroctl_usage_error("tee registration-attest: unknown option %s", argv[i]);
        }
    }
    if (nonce[0] == 0) {
        (void)nonce_arg("random", nonce);
    }
    json_t *body = json_pack("{s:s}", "nonce", nonce);
    int rc = meroctl_simple(g, "POST", "/admin-api/tee/registration-attest", body, true);
    json_decref(body);
    return rc;
}

#define FJ_POLL_MS        300 /* how often the progress is asked for */
#define FJ_TOKEN_MAX      256
#define FJ_PATH_MAX       128
#define FJ_REFUSALS_SHOWN 16

struct fj_poll {
    const struct meroctl_global *g;
    char path[FJ_PATH_MAX];
    char token[FJ_TOKEN_MAX];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    bool saw_running; /* a running join answered: its steps are this call's */
    json_int_t seen;  /* the last step printed */
    /* refusals already printed, so the summary after the answer does not repeat them */
    json_t *refusals;
};

static void fj_print_step(struct fj_poll *p, json_t *st)
{
    const char *state = json_string_value(json_object_get(st, "state"));
    const char *peer = json_string_value(json_object_get(st, "peer"));
    const char *why = json_string_value(json_object_get(st, "reason"));
    peer = peer != NULL && peer[0] != 0 ? peer : NULL;
    if (state == NULL) {
        return;
    }
    if (strcmp(state, "asking") == 0) {
        fprintf(stderr, "fleet-join: asking %s for a challenge\n", peer ? peer : "?");
    } else if (strcmp(state, "prompted") == 0) {
        fprintf(stderr, "fleet-join: prompted; waiting for an admitter's offer\n");
    } else if (strcmp(state, "challenged") == 0) {
        fprintf(stderr, "fleet-join: challenged by %s\n", peer ? peer : "?");
    } else if (strcmp(state, "answered") == 0) {
        fprintf(stderr, "fleet-join: answered %s with a quote\n", peer ? peer : "?");
    } else if (strcmp(state, "admitted") == 0) {
        fprintf(stderr, "fleet-join: admitted%s%s; waiting for the key\n", peer ? " by " : "",
                peer ? peer : "");
    } else if (strcmp(state, "refused") == 0) {
        fprintf(stderr, "fleet-join: refused by %s: %s\n", peer ? peer : "?", why ? why : "?");
        if (json_array_size(p->refusals) < FJ_REFUSALS_SHOWN) {
            json_array_append(p->refusals, st);
        }
    }
}

/* One poll: print the steps after p->seen. final: this call's answer has come. */
static void fj_poll_once(struct fj_poll *p, bool final)
{
    json_t *d = NULL;
    if (meroctl_get_quiet(p->g, p->path, p->token, &d) != 200 || d == NULL) {
        json_decref(d);
        return;
    }
    if (json_is_true(json_object_get(d, "running"))) {
        p->saw_running = true;
    }
    if (p->saw_running || final) {
        size_t i;
        json_t *st;
        json_array_foreach(json_object_get(d, "steps"), i, st)
        {
            json_int_t seq = json_integer_value(json_object_get(st, "seq"));
            if (seq > p->seen) {
                fj_print_step(p, st);
                p->seen = seq;
            }
        }
    }
    json_decref(d);
}

static void *fj_poll_thread(void *arg)
{
    struct fj_poll *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        pthread_mutex_unlock(&p->mu);
        fj_poll_once(p, false);
        pthread_mutex_lock(&p->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += FJ_POLL_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0) {
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Was this refusal printed as progress already? */
static bool fj_shown(const struct fj_poll *p, const char *peer, const char *why)
{
    size_t i;
    json_t *st;
    json_array_foreach(p->refusals, i, st)
    {
        const char *sp = json_string_value(json_object_get(st, "peer"));
        const char *sw = json_string_value(json_object_get(st, "reason"));
        if (sp != NULL && sw != NULL && peer != NULL && why != NULL && strcmp(sp, peer) == 0 &&
            strcmp(sw, why) == 0) {
            return true;
        }
    }
    return false;
}

static int run_fleet_join(const struct meroctl_global *g, int argc, char **argv)
{
    const char *ns = NULL;
    json_t *addrs = json_array();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--admitter") == 0 && i + 1 < argc) {
            json_array_append_new(addrs, json_string(argv[++i]));
        } else if (argv[i][0] != '-' && ns == NULL) {
            ns = argv[i];
        } else {
            json_decref(addrs);
            return meroctl_usage_error("tee fleet-join: unexpected argument %s", argv[i]);
        }
    }
    if (ns == NULL || !meroctl_is_id(ns)) {
        json_decref(addrs);
        return meroctl_usage_error("tee fleet-join needs a namespace id (64 hex)");
    }
    json_t *body = json_pack("{s:s}", "groupId", ns);
    if (json_array_size(addrs) > 0) {
        json_object_set(body, "admitterAddrs", addrs);
    }
    json_decref(addrs);
    struct meroctl_global g2 = *g;
    if (g2.timeout_s < 180) {
        g2.timeout_s = 180; /* the join runs up to ~30 s per attempt; core uses 3 min */
    }
    /* One HTTP request covers the whole join; its states come from the progress route,
     * polled beside it (man/meroctl.1). */
    if (!g->quiet) {
        fprintf(stderr,
                "fleet-join: asking to be admitted to namespace %.12s… (%zu admitter address%s "
                "asked directly, then prompting on ns/%.12s…; the node waits up to 30 s)\n",
                ns, json_array_size(json_object_get(body, "admitterAddrs")),
                json_array_size(json_object_get(body, "admitterAddrs")) == 1 ? "" : "es", ns);
    }
    static const char *const join_flags[][2] = {
        {"admitterAddrs", "--admitter"}, {"groupId", "<NS>"}, {NULL, NULL}};
    meroctl_flag_names(join_flags);
    static struct fj_poll fjp; /* static: the thread's, for the whole call */
    memset(&fjp, 0, sizeof(fjp));
    fjp.g = g;
    pthread_t th;
    bool polling = false;
    if (!g->quiet) {
        int trc = meroctl_read_token(g, fjp.token, sizeof(fjp.token));
        if (trc != 0) {
            json_decref(body);
            return trc;
        }
        snprintf(fjp.path, sizeof(fjp.path), "/admin-api/tee/fleet-join/%s/progress", ns);
        fjp.refusals = json_array();
        pthread_mutex_init(&fjp.mu, NULL);
        pthread_cond_init(&fjp.cv, NULL);
        (void)curl_global_init(CURL_GLOBAL_DEFAULT); /* before two threads use curl */
        polling = pthread_create(&th, NULL, fj_poll_thread, &fjp) == 0;
    }
    json_t *data = NULL;
    int rc = meroctl_call(&g2, "POST", "/admin-api/tee/fleet-join", body, true, &data);
    json_decref(body);
    if (polling) {
        pthread_mutex_lock(&fjp.mu);
        fjp.stop = true;
        pthread_cond_signal(&fjp.cv);
        pthread_mutex_unlock(&fjp.mu);
        pthread_join(th, NULL);
        if (rc == MEROCTL_OK) {
            fj_poll_once(&fjp, true); /* the steps the last poll missed */
        }
    }
    memset(fjp.token, 0, sizeof(fjp.token));
    if (rc != MEROCTL_OK) {
        json_decref(fjp.refusals);
        return rc;
    }
    bool admitted = json_is_true(json_object_get(data, "admitted"));
    const char *by = json_string_value(json_object_get(data, "admitted_by"));
    json_t *refs = json_object_get(data, "refusals");
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r)
    {
        const char *peer = json_string_value(json_object_get(r, "peer"));
        const char *why = json_string_value(json_object_get(r, "reason"));
        if (!fj_shown(&fjp, peer, why)) {
            fprintf(stderr, "fleet-join: refused by %s: %s\n", peer ? peer : "?", why ? why : "?");
        }
    }
    json_decref(fjp.refusals);
    if (admitted) {
        fprintf(stderr, "fleet-join: admitted%s%s; holding the group key, joined %zu context(s)\n",
                by ? " by " : "", by ? by : "",
                json_array_size(json_object_get(data, "contexts_joined")));
    } else if (by != NULL) {
        fprintf(stderr,
                "fleet-join: admitted by %s, but the membership and the group key had not "
                "arrived when the node stopped waiting; run fleet-join again\n",
                by);
    } else if (json_array_size(refs) > 0) {
        fprintf(stderr, "fleet-join: refused by every admitter that judged this node's quote\n");
    } else {
        fprintf(stderr, "fleet-join: not admitted within the node's wait: no admitter answered; "
                        "the node keeps answering offers for 120 s, run fleet-join again\n");
    }
    meroctl_print(g, data);
    json_decref(data);
    return admitted ? MEROCTL_OK : MEROCTL_FAILED;
}

static const struct meroctl_opt attest_opts[] = {
    {"--nonce", "HEX", "the 32-byte nonce the quote covers, 64 hex or random", "random", NULL,
     false, false},
    {"--application-id", "ID", "bind the quote to this application id", NULL, NULL, false, false},
    {"--bind-node-key", NULL, "bind the node's identity key into the report data", NULL, NULL,
     false, false},
    {"--bind-transport-key", NULL, "bind the node's libp2p transport key into the report data",
     NULL, NULL, false, false},
    {"--include-collateral", NULL, "fetch and return the Intel collateral with the quote", NULL,
     NULL, false, false},
    {"--event-log", NULL, "return the CCEL event log with the quote", NULL, NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt reg_opts[] = {
    {"--nonce", "HEX", "the 32-byte nonce the quote covers, 64 hex or random", "random", NULL,
     false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt join_opts[] = {
    {"--admitter", "MULTIADDR",
     "ask this admitter (/ip4/A/tcp/P/p2p/ID) first, then every admitter of the namespace", NULL,
     NULL, true, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"tee info", "", "show the host TEE (cloud provider, OS image, MRTD)", run_info,
                  NULL},
                 {"tee attest",
                  "[--nonce HEX|random] [--application-id ID] [--bind-node-key] "
                  "[--bind-transport-key] [--include-collateral] [--event-log]",
                  "generate a quote over the nonce and the requested bindings", run_attest,
                  attest_opts},
                 {"tee registration-attest", "[--nonce HEX|random]",
                  "generate a registration quote (protected)", run_registration, reg_opts},
                 {"tee fleet-join", "<NS> [--admitter MULTIADDR]...",
                  "ask to be admitted to a namespace as a TEE replica", run_fleet_join, join_opts})
