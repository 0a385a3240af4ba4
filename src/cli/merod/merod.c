/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merod.c - the node daemon's entry: `merod init --home DIR [--name N] [--listen MULTIADDR]
 * [--api HOST:PORT]` and `merod run --home DIR [--mock-tee] [--bootstrap MULTIADDR]...
 * [--announce MULTIADDR]... [--test] [--metrics-public]` and `merod check --home DIR`. Exit
 * status 0 on success or a clean stop (check: nothing damaged), 1 on bad usage, 2 on failure
 * (check: something is damaged or missing). SQLite's error log is routed to ours so a corruption
 * SQLite notices at run time is logged. `run` composes the two layers through their public headers
 * only: the node (mero/node.h) starts, the admin API (mero/api.h) is put on its loop and stopped by
 * the node's stop hook.
 * `run --sealed-only` (issue 31): the admin API answers only through the sealed transport.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mero/crypto.h"
#include "mero/log.h"
#include "mero/api.h"
#include "mero/node.h"

static void synopsis(FILE *f)
{
    fprintf(f, "usage: merod init --home DIR [--name N] [--listen MULTIADDR] [--api HOST:PORT]\n"
               "       merod run --home DIR [--mock-tee] [--bootstrap MULTIADDR]...\n"
               "                 [--announce MULTIADDR]... [--test] [--metrics-public]\n"
               "                 [--sealed-only] [--tls-cert PEM --tls-key PEM] [--full-history]\n"
               "       merod check --home DIR\n"
               "       merod --version\n");
}

/* What --help says about each flag (issue 35); merod(8) says the same at more length. */
static const struct {
    const char *cmd, *flag, *help;
} flag_help[] = {
    {"init", "--home DIR", "the node's data directory, created mode 0700 (required)"},
    {"init", "--name N", "a name shown in logs, run.json and GET /admin-api/node (default: node)"},
    {"init", "--listen MULTIADDR",
     "the libp2p listen address (default /ip4/127.0.0.1/tcp/2428; port 0: a free port)"},
    {"init", "--api HOST:PORT",
     "the admin API address (default 127.0.0.1:2528; port 0: a free port); keep it on loopback"},
    {"run", "--home DIR", "the data directory merod init made (required)"},
    {"run", "--mock-tee",
     "without TDX, produce MOCK_TDX_QUOTE_V1 quotes (laptop and CI tests); ignored on real TDX"},
    {"run", "--bootstrap MULTIADDR", "dial this peer (/ip4/A/tcp/P/p2p/ID) at start; up to 16"},
    {"run", "--announce MULTIADDR",
     "tell peers to dial this address (/ip4/A/tcp/P) instead of the listen addresses, for a "
     "node behind a proxy or port forward; up to 4"},
    {"run", "--test", "enable test-only routes (docs/node.md); never in production"},
    {"run", "--metrics-public", "serve GET /metrics without the admin token (trusted networks)"},
    {"run", "--sealed-only",
     "refuse plaintext admin requests with 403 except attest, tee/info and health: clients "
     "reach the node only through sealed sessions (docs/sealed.md)"},
    {"run", "--tls-cert PEM",
     "serve the admin API over HTTPS with this certificate (with --tls-key)"},
    {"run", "--tls-key PEM",
     "the certificate's private key, mode 0600 or stricter (with --tls-cert)"},
    {"run", "--full-history",
     "catch up a context this node holds nothing of by its whole delta history (an auditor), "
     "not by a peer's verified live state (docs/sync.md)"},
    {"check", "--home DIR", "the data directory to check, read-only (best with the node stopped)"},
};

/* --help: the synopsis, then every flag of `only` (NULL: of every command) described */
static void usage_for(FILE *f, const char *only)
{
    synopsis(f);
    if (f == stderr) {
        fprintf(f, "(merod --help, merod COMMAND --help: what each flag does)\n");
        return;
    }
    const char *cmd = "";
    for (size_t i = 0; i < sizeof(flag_help) / sizeof(flag_help[0]); i++) {
        if (only != NULL && strcmp(only, flag_help[i].cmd) != 0) {
            continue;
        }
        if (strcmp(cmd, flag_help[i].cmd) != 0) {
            cmd = flag_help[i].cmd;
            fprintf(f, "\n%s:\n", cmd);
        }
        fprintf(f, "  %-22s %s\n", flag_help[i].flag, flag_help[i].help);
    }
    fprintf(f, "\nexit status: 0 ok or a clean stop, 1 bad usage, 2 failure (check: damage "
               "found)\nsee also: merod(8), meroctl(1)\n");
}

static void usage(FILE *f)
{
    usage_for(f, NULL);
}

static int cmd_init(int argc, char **argv)
{
    const char *home = NULL, *name = NULL, *listen = NULL, *api = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_for(stdout, "init");
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "merod: %s needs a value\n", a);
            return 1;
        }
        if (strcmp(a, "--home") == 0) {
            home = argv[++i];
        } else if (strcmp(a, "--name") == 0) {
            name = argv[++i];
        } else if (strcmp(a, "--listen") == 0) {
            listen = argv[++i];
        } else if (strcmp(a, "--api") == 0) {
            api = argv[++i];
        } else {
            fprintf(stderr, "merod: unknown option %s\n", a);
            usage(stderr);
            return 1;
        }
    }
    if (home == NULL) {
        fprintf(stderr, "merod: init needs --home DIR\n");
        return 1;
    }
    struct mero_err err = {0};
    if (mero_node_init_home(home, name, listen, api, &err) < 0) {
        fprintf(stderr, "merod: init: %s\n", err.msg);
        return 2;
    }
    printf("initialised %s (admin token in %s/admin-token)\n", home, home);
    return 0;
}

static void stop_api(void *ctx)
{
    mero_api_stop(ctx);
}

/* Start the node, put the admin API on its loop, serve until a signal. */
static int run_node(struct mero_node *node, struct mero_err *err)
{
    struct mero_api_server *api = NULL;
    MERO_TRY(mero_node_start(node, err));
    int rc = mero_api_start(node, &api, err);
    if (rc < 0) {
        mero_node_abort(node);
        return rc;
    }
    mero_node_on_stop(node, stop_api, api);
    return mero_node_serve(node, err);
}

/*
 * Issue 23: libuv's thread pool runs the collateral fetches and DCAP verdicts of admission
 * attempts (node/admission/run.c), so it is sized to the machine: one worker per core this
 * process may run on (its CPU affinity, as nproc counts), and never fewer than libuv's own
 * default of 4 (a fetch waiting on the network holds a worker without using a core).
 * UV_THREADPOOL_SIZE set by the operator wins (libuv reads it as it is). Before the node
 * opens: libuv reads it when the pool is first used. What was decided is written to `note`
 * and logged once the log names the node.
 */
#define POOL_MIN      4
#define POOL_MAX      128 /* far below libuv's own cap of 1024 */
#define POOL_NOTE_MAX 96  /* the line that says what was decided */

static void size_thread_pool(char *note, size_t cap)
{
    const char *set = getenv("UV_THREADPOOL_SIZE");
    note[0] = '\0';
    if (set != NULL && set[0] != '\0') {
        snprintf(note, cap, "thread pool: UV_THREADPOOL_SIZE=%.16s, the operator's", set);
        return;
    }
    cpu_set_t cpus;
    long n = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus)
                                                            : sysconf(_SC_NPROCESSORS_ONLN);
    n = n < POOL_MIN ? POOL_MIN : n > POOL_MAX ? POOL_MAX : n;
    char v[16];
    snprintf(v, sizeof(v), "%ld", n);
    if (setenv("UV_THREADPOOL_SIZE", v, 0) == 0) {
        snprintf(note, cap, "thread pool: %s workers (one per core, at least %d)", v, POOL_MIN);
    }
}

/* A PEM file of at most TLS_PEM_MAX bytes, NUL-ended (owned), or NULL after saying why. */
#define TLS_PEM_MAX (64 * 1024)
static char *read_pem(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = f != NULL ? calloc(1, TLS_PEM_MAX + 1) : NULL;
    size_t n = buf != NULL ? fread(buf, 1, TLS_PEM_MAX + 1, f) : 0;
    if (f == NULL || buf == NULL || n == 0 || n > TLS_PEM_MAX || memchr(buf, 0, n) != NULL) {
        fprintf(stderr, "merod: cannot read %s (a PEM file of at most %d bytes)\n", path,
                TLS_PEM_MAX);
        free(buf);
        buf = NULL;
    }
    if (f != NULL) {
        fclose(f);
    }
    return buf;
}

/* --tls-cert/--tls-key (issue 31): the pair, checked, to the node: 0 or -1 after saying why. */
static int use_tls(struct mero_node *node, const char *cert_path, const char *key_path)
{
    char *cert = read_pem(cert_path), *key = cert != NULL ? read_pem(key_path) : NULL;
    int rc = cert != NULL && key != NULL ? mero_node_set_tls(node, cert, key) : -MERO_EINVAL;
    if (rc < 0 && cert != NULL && key != NULL) {
        fprintf(stderr, "merod: %s and %s are not a PEM certificate and its private key\n",
                cert_path, key_path);
    }
    if (key != NULL) {
        mero_wipe(key, strlen(key));
    }
    free(cert);
    free(key);
    return rc < 0 ? -1 : 0;
}

/* What `merod run`'s arguments ask for beyond the node's own settings. */
struct run_opts {
    const char *home, *tls_cert, *tls_key;
    bool mock;
};

/* `merod run`'s arguments into node and o: true to go on, false with *code the exit code (0
 * after --help, 1 for a bad argument, 2 for a bootstrap address the node refused). */
static bool run_args(int argc, char **argv, struct mero_node *node, struct run_opts *o, int *code)
{
    *code = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_for(stdout, "run");
            *code = 0;
            return false;
        } else if (strcmp(a, "--mock-tee") == 0) {
            o->mock = true;
        } else if (strcmp(a, "--test") == 0) {
            mero_node_set_test_mode(node, true);
        } else if (strcmp(a, "--metrics-public") == 0) {
            mero_node_set_metrics_public(node, true);
        } else if (strcmp(a, "--sealed-only") == 0) {
            mero_node_set_sealed_only(node, true);
        } else if (strcmp(a, "--full-history") == 0) {
            mero_node_set_full_history(node, true);
        } else if (strcmp(a, "--tls-cert") == 0 && i + 1 < argc) {
            o->tls_cert = argv[++i];
        } else if (strcmp(a, "--tls-key") == 0 && i + 1 < argc) {
            o->tls_key = argv[++i];
        } else if (strcmp(a, "--home") == 0 && i + 1 < argc) {
            o->home = argv[++i];
        } else if (strcmp(a, "--announce") == 0 && i + 1 < argc) {
            if (mero_node_add_announce(node, argv[++i]) < 0) {
                fprintf(stderr, "merod: at most %d --announce addresses\n", MERO_NODE_MAX_ANNOUNCE);
                return false;
            }
        } else if (strcmp(a, "--bootstrap") == 0 && i + 1 < argc) {
            int brc = mero_node_add_bootstrap(node, argv[++i]);
            if (brc == -MERO_ETOOBIG) {
                fprintf(stderr, "merod: at most %d --bootstrap addresses\n",
                        MERO_NODE_MAX_BOOTSTRAP);
                return false;
            }
            if (brc < 0) {
                *code = 2;
                return false;
            }
        } else {
            fprintf(stderr, "merod: unknown option or missing value: %s\n", a);
            usage(stderr);
            return false;
        }
    }
    if (o->home == NULL) {
        fprintf(stderr, "merod: run needs --home DIR\n");
        return false;
    }
    if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
        fprintf(stderr, "merod: --tls-cert and --tls-key go together\n");
        return false;
    }
    return o->tls_cert == NULL || use_tls(node, o->tls_cert, o->tls_key) == 0;
}

/* Open the node's home and run it until it stops: the exit code (0, or 2 when the home could
 * not be opened or the node stopped on an error). */
static int run_home(struct mero_node *node, const struct run_opts *o)
{
    char pool[POOL_NOTE_MAX];
    size_thread_pool(pool, sizeof(pool)); /* before anything of libuv's runs */
    struct mero_err err = {0};
    if (mero_node_open(node, o->home, &err) < 0) {
        fprintf(stderr, "merod: %s\n", err.msg);
        mero_node_close(node);
        return 2;
    }
    mero_log_set_tag(mero_node_name(node));
    if (pool[0] != '\0') {
        MERO_INFO("%s", pool);
    }
    mero_node_set_tee(node, mero_node_tee_detect(o->mock));
    if (mero_node_tee_mode(node) == MERO_TEE_REAL && o->mock) {
        MERO_WARN("real TDX detected: --mock-tee ignored, quotes are real");
    }
    int rc = run_node(node, &err);
    if (rc < 0) {
        MERO_ERROR("%s", err.msg);
    }
    mero_node_close(node);
    return rc < 0 ? 2 : 0;
}

static int cmd_run(int argc, char **argv)
{
    struct mero_node *node = mero_node_new();
    if (node == NULL) {
        fprintf(stderr, "merod: out of memory\n");
        return 2;
    }
    struct run_opts o = {0};
    int code = 1;
    if (run_args(argc, argv, node, &o, &code)) {
        code = run_home(node, &o);
    }
    mero_node_free(node);
    return code;
}

static int cmd_check(int argc, char **argv)
{
    const char *home = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_for(stdout, "check");
            return 0;
        } else if (strcmp(argv[i], "--home") == 0 && i + 1 < argc) {
            home = argv[++i];
        } else {
            fprintf(stderr, "merod: unknown option or missing value: %s\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }
    if (home == NULL) {
        fprintf(stderr, "merod: check needs --home DIR\n");
        return 1;
    }
    struct mero_err err = {0};
    if (mero_node_check(home, stdout, &err) < 0) {
        fflush(stdout);
        fprintf(stderr, "merod: check: %s\n", err.msg);
        return 2;
    }
    printf("%s: ok\n", home);
    return 0;
}

/* SQLite's own error log: corruption and I/O errors it meets while the node serves. */
static void on_sqlite_log(void *ud, int code, const char *msg)
{
    (void)ud;
    int primary = code & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
        MERO_ERROR("sqlite: database corruption: %s; stop the node and run merod check", msg);
    } else if (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN) {
        MERO_ERROR("sqlite: %s (code %d)", msg, code);
    }
}

int main(int argc, char **argv)
{
    (void)sqlite3_config(SQLITE_CONFIG_LOG, on_sqlite_log, NULL);
    if (mero_crypto_init() < 0) {
        fprintf(stderr, "merod: crypto init failed\n");
        return 2;
    }
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    if (strcmp(argv[1], "init") == 0) {
        return cmd_init(argc, argv);
    }
    if (strcmp(argv[1], "run") == 0) {
        return cmd_run(argc, argv);
    }
    if (strcmp(argv[1], "check") == 0) {
        return cmd_check(argc, argv);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("merod 0.1.0\n");
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "merod: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 1;
}
