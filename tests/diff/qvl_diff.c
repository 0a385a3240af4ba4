/* SPDX-License-Identifier: Apache-2.0 */
/*
 * qvl_diff.c - differential test of our DCAP verdicts against Intel's own Quote Verification
 * Library (the qvl_oracle built from ../shared/oracles/intel-qvl, see its README): every genuine
 * case of ../shared/testdata/tdx, single-byte mutations of the quotes spread over every region
 * (header, body, signature data length, signature, attestation key, certification data
 * headers, QE report, its signature, QE auth data, each certificate of the embedded chain,
 * trailing bytes) and mutations of the collateral (TCB info and QE identity text, dates,
 * signatures, both CRLs, the issuer chains, the issuer chains with every line break turned
 * into a space or removed (issue 38), each field removed, the verification time across every
 * issue / next-update date, pck_certificate_chain, another case's collateral); and in each
 * quote's chain the line break after the leaf's BEGIN line and before the root's END line
 * turned into a space.
 *
 * Our side runs in this process (mero_collateral_parse + mero_dcap_verify_quote); Intel's is
 * one qvl_oracle process per judgment, MERO_QVL_JOBS (default 2) at a time.
 *
 * Invariants (each a TAP line): we never accept what Intel refuses or cannot judge; where both
 * accept, the TCB status is the same; where we refuse what Intel accepts, the case is one of the
 * deliberate differences of docs/verification.md §4.1 (D1 collateral validity, D2 strict
 * signature-data length, D3 pck_certificate_chain differing from the quote's, D4 strict
 * certificate/PEM form and the byte-pinned root, D5 the PCK CRL issuer chain verified), each of
 * which also has its own named check here. The mutation set is a pure function of the seed
 * (MERO_QVL_SEED, default fixed), so a failure reproduces.
 *
 * usage: qvl_diff ORACLE        (env: MERO_SHARED, MERO_QVL_SEED, MERO_QVL_JOBS, TMPDIR)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mero/collateral.h"
#include "mero/crypto.h"
#include "mero/dcap.h"
#include "mero/quote.h"
#include "support/dcap_cases.h"

#define MAX_CASES 24
#define MAX_JOBS  4096

/* ---- deterministic PRNG (splitmix64): the mutation set is a function of the seed ---------- */

static uint64_t prng_state;

static uint64_t next64(void)
{
    uint64_t z = (prng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t pick(size_t n)
{
    return n == 0 ? 0 : (size_t)(next64() % n);
}

static uint8_t nonzero_byte(void)
{
    return (uint8_t)(1 + pick(255));
}

/* ---- cases ------------------------------------------------------------------------------- */

struct kase {
    struct dcap_case d;
    bool has_coll;
    char quote_path[600];
    /* regions of the genuine quote, [start, end) */
    size_t total_len;
};

static struct kase cases[MAX_CASES];
static size_t n_cases;

enum region {
    R_HEADER,
    R_BODY,
    R_SIGLEN,
    R_SIG,
    R_AKEY,
    R_CERTHDR,
    R_QEREPORT,
    R_QESIG,
    R_QEAUTH,
    R_INNERHDR,
    R_LEAF,
    R_PCKCA,
    R_ROOT,
    R_TRAILING,
    R__COUNT
};
static const char *const region_names[R__COUNT] = {
    "header",        "body",         "sig_data_len",  "signature",    "attestation_key",
    "cert_data_hdr", "qe_report",    "qe_report_sig", "qe_auth_data", "inner_cert_hdr",
    "chain_leaf",    "chain_pck_ca", "chain_root",    "trailing",
};
/* mutations per region for a case whose genuine verdict is ok; reject cases get a tenth */
static const size_t region_budget[R__COUNT] = {30, 55, 12, 30, 30, 8, 50, 30, 25, 8, 50, 40, 40, 5};

struct span {
    size_t a, b;
};

static int regions_of(const struct kase *k, struct span out[R__COUNT])
{
    struct mero_quote q;
    struct mero_err e;
    if (mero_quote_parse(&q, k->d.quote, k->d.quote_len, &e) < 0) {
        return -1;
    }
    const uint8_t *base = k->d.quote;
    size_t s = q.signed_len;
    size_t qr = (size_t)(q.qe_report_raw - base);
    size_t auth = (size_t)(q.qe_auth_data - base);
    size_t chain = (size_t)(q.pck_chain - base);
    out[R_HEADER] = (struct span){0, 48};
    out[R_BODY] = (struct span){48, s};
    out[R_SIGLEN] = (struct span){s, s + 4};
    out[R_SIG] = (struct span){s + 4, s + 68};
    out[R_AKEY] = (struct span){s + 68, s + 132};
    out[R_CERTHDR] = (struct span){s + 132, s + 138};
    out[R_QEREPORT] = (struct span){qr, qr + 384};
    out[R_QESIG] = (struct span){qr + 384, qr + 448};
    out[R_QEAUTH] = (struct span){qr + 448, auth + q.qe_auth_len};
    out[R_INNERHDR] = (struct span){auth + q.qe_auth_len, chain};
    /* the three certificates of the chain, split at each BEGIN line */
    const char *pem = (const char *)q.pck_chain;
    size_t cut[4] = {0, 0, 0, q.pck_chain_len};
    int found = 0;
    for (size_t i = 1; i < q.pck_chain_len && found < 2; i++) {
        if (q.pck_chain_len - i > 11 && memcmp(pem + i, "-----BEGIN ", 11) == 0) {
            cut[++found] = i;
        }
    }
    if (found != 2) {
        return -1;
    }
    out[R_LEAF] = (struct span){chain, chain + cut[1]};
    out[R_PCKCA] = (struct span){chain + cut[1], chain + cut[2]};
    out[R_ROOT] = (struct span){chain + cut[2], chain + cut[3]};
    out[R_TRAILING] = (struct span){q.total_len, k->d.quote_len};
    return 0;
}

/* ---- jobs -------------------------------------------------------------------------------- */

enum diff_kind {
    D_NONE,
    D1_VALIDITY,
    D2_SIGLEN,
    D3_PCKCHAIN,
    D4_STRICT_CERT,
    D5_CRL_CHAIN,
    D__COUNT
};
static const char *const diff_names[D__COUNT] = {
    "none",
    "D1 collateral outside its validity window (Intel: a non-terminal expiry flag)",
    "D2 signature data length beyond the certification data (Intel: surplus ignored)",
    "D3 collateral pck_certificate_chain differs from the quote's (Intel: ignores it)",
    "D4 a chain not strict X.509/PEM or root not byte-identical (Intel: unread or tolerated "
    "bytes)",
    "D5 pck_crl_issuer_chain does not verify (Intel's QVL does not use it)",
};

enum job_kind { J_GENUINE, J_QUOTE, J_COLL, J_OWN_TEST };

struct job {
    enum job_kind kind;
    const struct kase *k;
    int region;         /* J_QUOTE */
    long flip;          /* -1: none */
    uint8_t xor_val;    /* with flip */
    char *coll;         /* mutated collateral JSON (owned), NULL: the case's own */
    bool no_coll;       /* judge without collateral (cases that ship none) */
    uint64_t time;      /* verification time */
    char what[96];      /* collateral mutation label */
    const char *field;  /* the collateral field mutated, NULL: none */
    enum diff_kind own; /* J_OWN_TEST: the difference this check demonstrates */
    bool pem_breaks;    /* issue 38: PEM line breaks turned into spaces or removed */
};

static struct job jobs[MAX_JOBS];
static size_t n_jobs;

static struct job *new_job(enum job_kind kind, const struct kase *k)
{
    if (n_jobs == MAX_JOBS) {
        fprintf(stderr, "qvl_diff: too many jobs\n");
        exit(2);
    }
    struct job *j = &jobs[n_jobs++];
    memset(j, 0, sizeof(*j));
    j->kind = kind;
    j->k = k;
    j->flip = -1;
    j->time = k->d.verify_time;
    return j;
}

/* ---- verdicts ---------------------------------------------------------------------------- */

enum cls { C_ACCEPT, C_REFUSE, C_CANNOT };

struct verdict {
    enum cls cls;
    char tcb[48];      /* accepted: the TCB status (Intel's name mapped to ours) */
    int code;          /* ours: the reason code */
    char reason[300];  /* ours: the reason; Intel: the QVL_STATUS token */
    bool expired_flag; /* Intel: QVL_COLLATERAL_EXPIRED=1 */
};

static void ours(const struct job *j, struct verdict *v)
{
    memset(v, 0, sizeof(*v));
    uint8_t *q = malloc(j->k->d.quote_len);
    if (q == NULL) {
        exit(2);
    }
    memcpy(q, j->k->d.quote, j->k->d.quote_len);
    if (j->flip >= 0) {
        q[j->flip] ^= j->xor_val;
    }
    struct mero_collateral c;
    struct mero_err e;
    mero_err_clear(&e);
    mero_collateral_init(&c);
    int rc = 0;
    if (!j->no_coll) {
        const char *text = j->coll != NULL ? j->coll : j->k->d.collateral_json;
        rc = mero_collateral_parse(&c, text, strlen(text), &e);
    }
    struct mero_dcap_result r;
    if (rc == 0) {
        rc = mero_dcap_verify_quote(q, j->k->d.quote_len, j->no_coll ? NULL : &c, j->time, &r, &e);
    }
    mero_collateral_cleanup(&c);
    free(q);
    if (rc < 0) {
        v->cls = C_REFUSE;
        v->code = e.code;
        snprintf(v->reason, sizeof(v->reason), "no verdict %s: %s", mero_strerror(e.code), e.msg);
    } else if (!r.quote_verified) {
        v->cls = C_REFUSE;
        v->code = r.reject_code;
        snprintf(v->reason, sizeof(v->reason), "%s: %s", mero_strerror(r.reject_code),
                 r.reject_reason);
    } else {
        v->cls = C_ACCEPT;
        snprintf(v->tcb, sizeof(v->tcb), "%s", mero_tcb_status_name(r.tcb_status));
        snprintf(v->reason, sizeof(v->reason), "verified %s", v->tcb);
    }
}

/* Intel's verified statuses: the quote verified and the TCB status is this. */
static const char *const intel_tcb[][2] = {
    {"STATUS_OK", "UpToDate"},
    {"STATUS_TCB_SW_HARDENING_NEEDED", "SWHardeningNeeded"},
    {"STATUS_TCB_CONFIGURATION_NEEDED", "ConfigurationNeeded"},
    {"STATUS_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED", "ConfigurationAndSWHardeningNeeded"},
    {"STATUS_TCB_OUT_OF_DATE", "OutOfDate"},
    {"STATUS_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED", "OutOfDateConfigurationNeeded"},
    {"STATUS_TCB_REVOKED", "Revoked"},
    {"STATUS_TCB_TD_RELAUNCH_ADVISED", "TDRelaunchAdvised"},
    {"STATUS_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED", "TDRelaunchAdvisedConfigurationNeeded"},
};

static const char *line_value(const char *out, const char *key)
{
    const char *p = out;
    size_t kl = strlen(key);
    while ((p = strstr(p, key)) != NULL) {
        if (p == out || p[-1] == '\n') {
            return p + kl;
        }
        p += kl;
    }
    return NULL;
}

static void intel(const char *out, struct verdict *v)
{
    memset(v, 0, sizeof(*v));
    const char *st = line_value(out, "QVL_STATUS=");
    const char *complete = line_value(out, "QVL_COMPLETE=");
    const char *exp = line_value(out, "QVL_COLLATERAL_EXPIRED=");
    if (st == NULL) {
        v->cls = C_CANNOT;
        snprintf(v->reason, sizeof(v->reason), "no QVL_STATUS line");
        return;
    }
    size_t n = strcspn(st, "\n");
    snprintf(v->reason, sizeof(v->reason), "%.*s", (int)n, st);
    v->expired_flag = exp != NULL && exp[0] == '1';
    if (strcmp(v->reason, "INCOMPLETE") == 0 || strcmp(v->reason, "DRIVER_ERROR") == 0 ||
        complete == NULL || complete[0] != '1') {
        v->cls = C_CANNOT;
        return;
    }
    v->cls = C_REFUSE;
    for (size_t i = 0; i < sizeof(intel_tcb) / sizeof(intel_tcb[0]); i++) {
        if (strcmp(v->reason, intel_tcb[i][0]) == 0) {
            v->cls = C_ACCEPT;
            snprintf(v->tcb, sizeof(v->tcb), "%s", intel_tcb[i][1]);
        }
    }
}

/* Which deliberate difference explains "we refuse, Intel accepts" (D_NONE: none does). */
static enum diff_kind classify(const struct job *j, const struct verdict *o,
                               const struct verdict *i)
{
    (void)i;
    if (o->code == MERO_EEXPIRED) {
        return D1_VALIDITY;
    }
    if (o->code == MERO_EQUOTE_LENGTH && j->kind != J_COLL && j->flip >= 0 &&
        j->region == R_SIGLEN) {
        return D2_SIGLEN;
    }
    if (o->code == MERO_ECHAIN && strstr(o->reason, "pck_certificate_chain differs") != NULL) {
        return D3_PCKCHAIN;
    }
    /* A byte of the quote's chain that Intel never reads (PEM text outside the blocks, the
     * outer signatureAlgorithm, the root's unsigned fields): a refusal for the certificate's
     * form, never for a signature (a signed byte changed would fail at Intel too). */
    bool in_chain = j->flip >= 0 && (j->region == R_LEAF || j->region == R_PCKCA ||
                                     j->region == R_ROOT || j->region == R_INNERHDR);
    if (in_chain && j->region != R_INNERHDR &&
        (o->code == MERO_ECERT || o->code == MERO_ECHAIN || o->code == MERO_EROOT) &&
        strstr(o->reason, "signature") == NULL) {
        return D4_STRICT_CERT;
    }
    /* A blank line inside a PEM block of a collateral chain: OpenSSL's reader tolerates one
     * right after the BEGIN line, we refuse any (issue 38). */
    if (j->field != NULL && strstr(j->field, "_issuer_chain") != NULL &&
        strstr(o->reason, "blank line inside the PEM block") != NULL) {
        return D4_STRICT_CERT;
    }
    if (j->field != NULL && strcmp(j->field, "pck_crl_issuer_chain") == 0 &&
        (strstr(o->reason, "pck_crl_issuer_chain") != NULL || strstr(o->reason, "PCK CRL"))) {
        return D5_CRL_CHAIN;
    }
    return D_NONE;
}

/* ---- running the oracle ------------------------------------------------------------------ */

static const char *oracle;
static char tmpdir[512];

struct slot {
    pid_t pid;
    int fd;
    size_t job;
    char *out;
    size_t len, cap;
};

static void spawn(struct slot *s, size_t ji, int slot_no)
{
    const struct job *j = &jobs[ji];
    char coll_path[700], tbuf[32], fbuf[32], xbuf[8];
    const char *argv[20];
    int n = 0;
    argv[n++] = oracle;
    if (j->no_coll) {
        argv[n++] = "--case";
        argv[n++] = j->k->d.dir;
    } else {
        const char *text = j->coll != NULL ? j->coll : j->k->d.collateral_json;
        snprintf(coll_path, sizeof(coll_path), "%s/coll-%d.json", tmpdir, slot_no);
        FILE *f = fopen(coll_path, "wb");
        if (f == NULL || fwrite(text, 1, strlen(text), f) != strlen(text) || fclose(f) != 0) {
            fprintf(stderr, "qvl_diff: cannot write %s\n", coll_path);
            exit(2);
        }
        snprintf(tbuf, sizeof(tbuf), "%llu", (unsigned long long)j->time);
        argv[n++] = "--quote";
        argv[n++] = j->k->quote_path;
        argv[n++] = "--time";
        argv[n++] = tbuf;
        argv[n++] = "--collateral";
        argv[n++] = coll_path;
    }
    if (j->flip >= 0) {
        snprintf(fbuf, sizeof(fbuf), "%ld", j->flip);
        snprintf(xbuf, sizeof(xbuf), "%u", j->xor_val);
        argv[n++] = "--flip";
        argv[n++] = fbuf;
        argv[n++] = "--xor";
        argv[n++] = xbuf;
    }
    argv[n++] = "--quiet";
    argv[n] = NULL;
    int p[2];
    if (pipe(p) < 0) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        dup2(p[1], 1);
        if (dn >= 0) {
            dup2(dn, 2);
        }
        close(p[0]);
        close(p[1]);
        execv(oracle, (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    s->pid = pid;
    s->fd = p[0];
    s->job = ji;
    s->len = 0;
}

/* Run every job through the oracle; intel_out[i] gets job i's stdout (owned). */
static void run_oracle(char **intel_out, int n_slots)
{
    struct slot slots[8];
    memset(slots, 0, sizeof(slots));
    size_t next = 0, done = 0;
    for (int i = 0; i < n_slots; i++) {
        slots[i].fd = -1;
    }
    while (done < n_jobs) {
        for (int i = 0; i < n_slots && next < n_jobs; i++) {
            if (slots[i].fd < 0) {
                spawn(&slots[i], next++, i);
            }
        }
        struct pollfd pf[8];
        int np = 0, map[8];
        for (int i = 0; i < n_slots; i++) {
            if (slots[i].fd >= 0) {
                pf[np].fd = slots[i].fd;
                pf[np].events = POLLIN;
                map[np++] = i;
            }
        }
        if (poll(pf, (nfds_t)np, -1) < 0 && errno != EINTR) {
            perror("poll");
            exit(2);
        }
        for (int k = 0; k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) {
                continue;
            }
            struct slot *s = &slots[map[k]];
            if (s->cap - s->len < 4096) {
                s->cap = s->cap ? 2 * s->cap : 16384;
                s->out = realloc(s->out, s->cap);
                if (s->out == NULL) {
                    exit(2);
                }
            }
            ssize_t got = read(s->fd, s->out + s->len, s->cap - s->len - 1);
            if (got > 0) {
                s->len += (size_t)got;
                continue;
            }
            if (got < 0 && errno == EINTR) {
                continue;
            }
            close(s->fd);
            s->fd = -1;
            int st;
            waitpid(s->pid, &st, 0);
            s->out[s->len] = 0;
            intel_out[s->job] = strdup(s->out);
            done++;
        }
    }
    for (int i = 0; i < n_slots; i++) {
        free(slots[i].out);
    }
}

/* ---- building the mutation set ----------------------------------------------------------- */

static void add_quote_mutations(const struct kase *k, bool ok_case)
{
    struct span sp[R__COUNT];
    if (regions_of(k, sp) < 0) {
        return;
    }
    /* issue 38: the line break after the leaf's BEGIN marker, and the one before the root's
     * END marker, turned into a space (the same length, so only the PEM form changes) */
    const char *chain = (const char *)k->d.quote + sp[R_LEAF].a;
    size_t chain_len = sp[R_ROOT].b - sp[R_LEAF].a;
    const char *root_end = NULL;
    for (const char *p = chain; (p = memmem(p, chain_len - (size_t)(p - chain), "-----END ", 9));
         p++) {
        root_end = p;
    }
    size_t at_leaf = sp[R_LEAF].a + sizeof("-----BEGIN CERTIFICATE-----") - 1;
    if (k->d.quote[at_leaf] == '\n' && root_end != NULL && root_end[-1] == '\n') {
        struct job *j = new_job(J_QUOTE, k);
        j->region = R_LEAF;
        j->flip = (long)at_leaf;
        j->xor_val = '\n' ^ ' ';
        j->pem_breaks = true;
        j = new_job(J_QUOTE, k);
        j->region = R_ROOT;
        j->flip = (long)((const uint8_t *)root_end - 1 - k->d.quote);
        j->xor_val = '\n' ^ ' ';
        j->pem_breaks = true;
    }
    for (int r = 0; r < R__COUNT; r++) {
        size_t width = sp[r].b > sp[r].a ? sp[r].b - sp[r].a : 0;
        size_t n = ok_case ? region_budget[r] : (region_budget[r] + 9) / 10;
        for (size_t i = 0; i < n && width > 0; i++) {
            struct job *j = new_job(J_QUOTE, k);
            j->region = r;
            j->flip = (long)(sp[r].a + pick(width));
            j->xor_val = nonzero_byte();
        }
    }
}

static char *dump(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (s == NULL) {
        exit(2);
    }
    return s;
}

static json_t *coll_obj(const struct kase *k)
{
    json_t *o = json_loadb(k->d.collateral_json, k->d.collateral_len, 0, NULL);
    if (o == NULL) {
        fprintf(stderr, "qvl_diff: %s collateral is not JSON\n", k->d.name);
        exit(2);
    }
    return o;
}

static void add_coll(const struct kase *k, json_t *o, uint64_t t, const char *fmt, ...)
    MERO_PRINTF(4, 5);
static void add_coll(const struct kase *k, json_t *o, uint64_t t, const char *fmt, ...)
{
    struct job *j = new_job(J_COLL, k);
    j->coll = o != NULL ? dump(o) : NULL;
    j->time = t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->what, sizeof(j->what), fmt, ap);
    va_end(ap);
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char hexchars[] = "0123456789abcdef";

/* Replace the character at `at` of string field `f` by another from `set` (printable ASCII
 * when set is NULL), so the JSON stays valid and only the content changes. */
static void mutate_char(const struct kase *k, const char *f, size_t at, const char *set, uint64_t t,
                        const char *label)
{
    json_t *o = coll_obj(k);
    const char *s = json_string_value(json_object_get(o, f));
    if (s == NULL || at >= strlen(s)) {
        json_decref(o);
        return;
    }
    char *m = strdup(s);
    char c = m[at];
    do {
        m[at] = set != NULL ? set[pick(strlen(set))] : (char)(0x20 + pick(0x5f));
    } while (m[at] == c || m[at] == '"' || m[at] == '\\');
    json_object_set_new(o, f, json_string(m));
    add_coll(k, o, t, "%s %s[%zu] %c->%c", label, f, at, c, m[at]);
    jobs[n_jobs - 1].field = f;
    free(m);
    json_decref(o);
}

/* Position of the value of "key" in a signed JSON text (after `"key":"`), or SIZE_MAX. */
static size_t value_at(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = text != NULL ? strstr(text, pat) : NULL;
    if (p == NULL) {
        return SIZE_MAX;
    }
    p += strlen(pat);
    if (*p == '"') {
        p++;
    }
    return (size_t)(p - text);
}

static int64_t iso_at(const char *text, const char *key)
{
    size_t at = value_at(text, key);
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (at == SIZE_MAX || sscanf(text + at, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                                 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
        return -1;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm);
}

static const char *quote_chain_dup(const struct kase *k)
{
    struct mero_quote q;
    struct mero_err e;
    if (mero_quote_parse(&q, k->d.quote, k->d.quote_len, &e) < 0) {
        return NULL;
    }
    size_t n = strnlen((const char *)q.pck_chain, q.pck_chain_len);
    return strndup((const char *)q.pck_chain, n);
}

static void add_coll_mutations(const struct kase *k, const struct kase *other)
{
    json_t *o = coll_obj(k);
    const char *tcb = json_string_value(json_object_get(o, "tcb_info"));
    const char *qe = json_string_value(json_object_get(o, "qe_identity"));
    uint64_t t = k->d.verify_time;
    /* TCB info and QE identity text: random characters and the named fields */
    for (int i = 0; i < 4; i++) {
        mutate_char(k, "tcb_info", pick(strlen(tcb)), NULL, t, "tcb_info text");
    }
    const char *tcb_keys[] = {"issueDate", "nextUpdate", "fmspc", "tcbEvaluationDataNumber",
                              "status",    "pceid"};
    for (size_t i = 0; i < sizeof(tcb_keys) / sizeof(tcb_keys[0]); i++) {
        size_t at = value_at(tcb, tcb_keys[i]);
        if (at != SIZE_MAX) {
            mutate_char(k, "tcb_info", at + pick(4), hexchars, t, tcb_keys[i]);
        }
    }
    for (int i = 0; i < 3; i++) {
        mutate_char(k, "qe_identity", pick(strlen(qe)), NULL, t, "qe_identity text");
    }
    const char *qe_keys[] = {"issueDate", "nextUpdate", "isvprodid", "mrsigner", "isvsvn"};
    for (size_t i = 0; i < sizeof(qe_keys) / sizeof(qe_keys[0]); i++) {
        size_t at = value_at(qe, qe_keys[i]);
        if (at != SIZE_MAX) {
            mutate_char(k, "qe_identity", at + pick(2), hexchars, t, qe_keys[i]);
        }
    }
    /* signatures, CRLs (a byte of the DER: two hex digits), issuer chains */
    const char *sigs[] = {"tcb_info_signature", "qe_identity_signature"};
    for (int i = 0; i < 4; i++) {
        mutate_char(k, sigs[i % 2], pick(128), hexchars, t, "signature");
    }
    const char *crls[] = {"root_ca_crl", "pck_crl"};
    for (int i = 0; i < 6; i++) {
        const char *f = crls[i % 2];
        size_t len = strlen(json_string_value(json_object_get(o, f)));
        mutate_char(k, f, pick(len), hexchars, t, "crl byte");
    }
    const char *chains[] = {"pck_crl_issuer_chain", "tcb_info_issuer_chain",
                            "qe_identity_issuer_chain"};
    for (int i = 0; i < 6; i++) {
        const char *f = chains[i % 3];
        size_t len = strlen(json_string_value(json_object_get(o, f)));
        mutate_char(k, f, pick(len), b64chars, t, "issuer chain");
    }
    /* issue 38: every line break of an issuer chain turned into a space, or removed (Intel:
     * STATUS_UNSUPPORTED_CERT_FORMAT; OpenSSL's PEM reader needs the BEGIN and END lines) */
    for (size_t i = 0; i < 3; i++) {
        for (int how = 0; how < 2; how++) {
            const char *f = chains[i];
            const char *pem = json_string_value(json_object_get(o, f));
            char *m = strdup(pem);
            size_t w = 0;
            for (size_t r = 0; m[r] != 0; r++) {
                if (m[r] != '\n') {
                    m[w++] = m[r];
                } else if (how == 0) {
                    m[w++] = ' ';
                }
            }
            m[w] = 0;
            json_t *mo = coll_obj(k);
            json_object_set_new(mo, f, json_string(m));
            add_coll(k, mo, t, "%s line breaks %s", f, how == 0 ? "as spaces" : "removed");
            jobs[n_jobs - 1].field = f;
            jobs[n_jobs - 1].pem_breaks = true;
            json_decref(mo);
            free(m);
        }
    }
    /* each field removed */
    const char *fields[] = {"pck_crl_issuer_chain",     "root_ca_crl", "pck_crl",
                            "tcb_info_issuer_chain",    "tcb_info",    "tcb_info_signature",
                            "qe_identity_issuer_chain", "qe_identity", "qe_identity_signature"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        json_t *m = coll_obj(k);
        json_object_del(m, fields[i]);
        add_coll(k, m, t, "without %s", fields[i]);
        json_decref(m);
    }
    /* the time against every date: the window edges, each issue / next-update date */
    int64_t nb = k->d.window_nb, na = k->d.window_na;
    int64_t times[] = {nb - 1,
                       nb,
                       na,
                       na + 1,
                       iso_at(tcb, "issueDate") - 1,
                       iso_at(tcb, "nextUpdate") + 1,
                       iso_at(qe, "issueDate") - 1,
                       iso_at(qe, "nextUpdate") + 1,
                       nb - 120 * 86400,
                       na + 400 * 86400};
    for (size_t i = 0; nb > 0 && i < sizeof(times) / sizeof(times[0]); i++) {
        if (times[i] > 0) {
            add_coll(k, NULL, (uint64_t)times[i], "time %lld (window %lld..%lld)",
                     (long long)times[i], (long long)nb, (long long)na);
        }
    }
    /* pck_certificate_chain: the quote's own, another case's, the own with one byte changed */
    const char *own = quote_chain_dup(k);
    const char *oth = other != NULL ? quote_chain_dup(other) : NULL;
    if (own != NULL) {
        json_t *m = coll_obj(k);
        json_object_set_new(m, "pck_certificate_chain", json_string(own));
        add_coll(k, m, t, "pck_certificate_chain = the quote's");
        json_decref(m);
        char *bad = strdup(own);
        size_t at = 100 + pick(strlen(bad) - 200);
        char c = bad[at];
        bad[at] = c == 'A' ? 'B' : 'A';
        m = coll_obj(k);
        json_object_set_new(m, "pck_certificate_chain", json_string(bad));
        add_coll(k, m, t, "pck_certificate_chain = the quote's with [%zu] changed", at);
        json_decref(m);
        free(bad);
    }
    if (oth != NULL && own != NULL && strcmp(oth, own) != 0) {
        json_t *m = coll_obj(k);
        json_object_set_new(m, "pck_certificate_chain", json_string(oth));
        add_coll(k, m, t, "pck_certificate_chain = %s's", other->d.name);
        json_decref(m);
    }
    free((void *)own);
    free((void *)oth);
    /* another case's collateral, at its own time and at ours */
    if (other != NULL) {
        json_t *m = coll_obj(other);
        add_coll(k, m, other->d.verify_time, "%s's collateral at its time", other->d.name);
        add_coll(k, m, t, "%s's collateral at our time", other->d.name);
        json_decref(m);
    }
    json_decref(o);
}

/* ---- main -------------------------------------------------------------------------------- */

static int tap_n;
static void tap(bool ok, const char *fmt, ...) MERO_PRINTF(2, 3);
static void tap(bool ok, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printf("%sok %d - %s\n", ok ? "" : "not ", ++tap_n, msg);
}

static void set_quote_path(struct kase *k)
{
    char tmp[sizeof(k->quote_path)];
    snprintf(tmp, sizeof(tmp), "%.500s/quote.bin", k->d.dir);
    memcpy(k->quote_path, tmp, sizeof(tmp));
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void load_cases(const char *shared)
{
    const char *dirs[] = {"tdx/dcapqvl-1",    "tdx/dcapqvl-2",    "tdx/dcapqvl-3",
                          "tdx/gotdxguest-1", "tdx/gotdxguest-2", "tdx/nearmpc-1",
                          "tdx/nearmpc-2",    "tdx/nearmpc-3",    "tdx/nearmpc-4"};
    char rel[300];
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        struct kase *k = &cases[n_cases];
        if (dcap_case_load(&k->d, dirs[i]) < 0) {
            continue;
        }
        k->has_coll = k->d.collateral_json != NULL;
        set_quote_path(k);
        n_cases++;
    }
    /* parse-only/: genuine quotes without collateral */
    char po[600];
    snprintf(po, sizeof(po), "%.500s/testdata/tdx/parse-only", shared);
    DIR *d = opendir(po);
    struct dirent *e;
    char names[8][128];
    int nn = 0;
    while (d != NULL && (e = readdir(d)) != NULL && nn < 8) {
        if (e->d_name[0] != '.') {
            snprintf(names[nn++], sizeof(names[0]), "%.100s", e->d_name);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    qsort(names, (size_t)nn, sizeof(names[0]), cmp_name);
    for (int i = 0; i < nn && n_cases < MAX_CASES; i++) {
        snprintf(rel, sizeof(rel), "tdx/parse-only/%.100s", names[i]);
        struct kase *k = &cases[n_cases];
        if (dcap_case_load(&k->d, rel) < 0) {
            continue;
        }
        k->has_coll = false;
        set_quote_path(k);
        n_cases++;
    }
}

static bool is_ok_case(const struct kase *k)
{
    return k->d.result != NULL && strcmp(k->d.result, "ok") == 0;
}

static const struct kase *find_case(const char *name)
{
    for (size_t i = 0; i < n_cases; i++) {
        if (strcmp(cases[i].d.name, name) == 0) {
            return &cases[i];
        }
    }
    return NULL;
}

static void add_own_tests(void)
{
    /* D1: dcapqvl-1 one second after its window, one second before */
    const struct kase *k = find_case("dcapqvl-1");
    if (k != NULL) {
        struct job *j = new_job(J_OWN_TEST, k);
        j->time = (uint64_t)k->d.window_na + 1;
        j->own = D1_VALIDITY;
        snprintf(j->what, sizeof(j->what), "one second after the window");
        j = new_job(J_OWN_TEST, k);
        j->time = (uint64_t)k->d.window_nb - 1;
        j->own = D1_VALIDITY;
        snprintf(j->what, sizeof(j->what), "one second before the window");
        /* D2: dcapqvl-1 (70 trailing bytes) with sig_data_len + 1 */
        struct span sp[R__COUNT];
        if (regions_of(k, sp) == 0) {
            uint8_t lo = k->d.quote[sp[R_SIGLEN].a];
            j = new_job(J_OWN_TEST, k);
            j->region = R_SIGLEN;
            j->flip = (long)sp[R_SIGLEN].a;
            j->xor_val = (uint8_t)(lo ^ (uint8_t)(lo + 1)); /* low byte + 1 (no carry) */
            j->own = D2_SIGLEN;
            snprintf(j->what, sizeof(j->what), "sig_data_len + 1 (low byte 0x%02x)", lo);
        }
    }
    /* D4: the outer signatureAlgorithm OID of dcapqvl-1's PCK leaf changed (not signed) */
    k = find_case("dcapqvl-1");
    struct span sp4[R__COUNT];
    if (k != NULL && regions_of(k, sp4) == 0) {
        const char *leaf = (const char *)k->d.quote + sp4[R_LEAF].a;
        size_t n = sp4[R_LEAF].b - sp4[R_LEAF].a;
        const char *last = NULL;
        for (const char *p = leaf; (p = memmem(p, n - (size_t)(p - leaf), "SM49BAMC", 8)); p++) {
            last = p;
        }
        if (last != NULL) {
            struct job *j = new_job(J_OWN_TEST, k);
            j->region = R_LEAF;
            j->flip = (long)((const uint8_t *)last + 3 - k->d.quote);
            j->xor_val = 0x5b;
            j->own = D4_STRICT_CERT;
            snprintf(j->what, sizeof(j->what), "PCK leaf outer signatureAlgorithm OID changed");
        }
    }
    /* D4: text after the chain's last END line (nearmpc-2 pads its chain with NULs) */
    k = find_case("nearmpc-2");
    if (k != NULL && regions_of(k, sp4) == 0) {
        for (size_t at = sp4[R_ROOT].a; at < sp4[R_ROOT].b; at++) {
            if (k->d.quote[at] == 0) {
                struct job *j = new_job(J_OWN_TEST, k);
                j->region = R_ROOT;
                j->flip = (long)at;
                j->xor_val = '_';
                j->own = D4_STRICT_CERT;
                snprintf(j->what, sizeof(j->what), "'_' after the chain's last END line");
                break;
            }
        }
    }
    /* D4: a blank line after the first BEGIN line of dcapqvl-1's tcb_info_issuer_chain */
    k = find_case("dcapqvl-1");
    if (k != NULL) {
        json_t *m = coll_obj(k);
        const char *pem = json_string_value(json_object_get(m, "tcb_info_issuer_chain"));
        static const char begin[] = "-----BEGIN CERTIFICATE-----\n";
        if (pem != NULL && strncmp(pem, begin, sizeof(begin) - 1) == 0) {
            char *b = malloc(strlen(pem) + 2);
            if (b == NULL) {
                exit(2);
            }
            memcpy(b, begin, sizeof(begin) - 1);
            b[sizeof(begin) - 1] = '\n';
            memcpy(b + sizeof(begin), pem + sizeof(begin) - 1, strlen(pem) - sizeof(begin) + 2);
            json_object_set_new(m, "tcb_info_issuer_chain", json_string(b));
            free(b);
            struct job *j = new_job(J_OWN_TEST, k);
            j->coll = dump(m);
            j->field = "tcb_info_issuer_chain";
            j->own = D4_STRICT_CERT;
            snprintf(j->what, sizeof(j->what), "tcb_info_issuer_chain blank line after BEGIN");
        }
        json_decref(m);
    }
    /* D5: dcapqvl-1 with the TCB signing chain as pck_crl_issuer_chain */
    k = find_case("dcapqvl-1");
    if (k != NULL) {
        json_t *m = coll_obj(k);
        json_object_set(m, "pck_crl_issuer_chain", json_object_get(m, "tcb_info_issuer_chain"));
        struct job *j = new_job(J_OWN_TEST, k);
        j->coll = dump(m);
        j->field = "pck_crl_issuer_chain";
        j->own = D5_CRL_CHAIN;
        snprintf(j->what, sizeof(j->what), "pck_crl_issuer_chain = tcb_info_issuer_chain");
        json_decref(m);
    }
    /* D3: nearmpc-4 with nearmpc-3's genuine chain as pck_certificate_chain */
    k = find_case("nearmpc-4");
    const struct kase *o = find_case("nearmpc-3");
    if (k != NULL && o != NULL) {
        json_t *m = coll_obj(k);
        const char *oc = quote_chain_dup(o);
        json_object_set_new(m, "pck_certificate_chain", json_string(oc));
        struct job *j = new_job(J_OWN_TEST, k);
        j->coll = dump(m);
        j->own = D3_PCKCHAIN;
        snprintf(j->what, sizeof(j->what), "pck_certificate_chain = nearmpc-3's");
        free((void *)oc);
        json_decref(m);
    }
}

static void describe(const struct job *j, char *buf, size_t cap)
{
    if (j->kind == J_QUOTE || (j->kind == J_OWN_TEST && j->flip >= 0)) {
        snprintf(buf, cap, "%s quote[%s] @%ld ^0x%02x", j->k->d.name, region_names[j->region],
                 j->flip, j->xor_val);
    } else if (j->kind == J_GENUINE) {
        snprintf(buf, cap, "%s genuine", j->k->d.name);
    } else {
        snprintf(buf, cap, "%s collateral: %s", j->k->d.name, j->what);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: qvl_diff ORACLE\n");
        return 2;
    }
    oracle = argv[1];
    const char *shared = getenv("MERO_SHARED");
    if (shared == NULL || mero_crypto_init() < 0) {
        fprintf(stderr, "qvl_diff: MERO_SHARED unset or crypto init failed\n");
        return 2;
    }
    const char *seed_s = getenv("MERO_QVL_SEED");
    uint64_t seed = seed_s != NULL ? strtoull(seed_s, NULL, 0) : 0x14b0a7e5u;
    prng_state = seed;
    const char *jobs_s = getenv("MERO_QVL_JOBS");
    int n_slots = jobs_s != NULL ? (int)strtol(jobs_s, NULL, 10) : 2;
    if (n_slots < 1 || n_slots > 8) {
        n_slots = 2;
    }
    snprintf(tmpdir, sizeof(tmpdir), "%s/qvl-diff.XXXXXX",
             getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    load_cases(shared);
    printf("# seed 0x%llx, %d oracle processes at a time, %zu genuine cases\n",
           (unsigned long long)seed, n_slots, n_cases);
    /* genuine cases; then mutations of every case with collateral; then the own tests */
    for (size_t i = 0; i < n_cases; i++) {
        struct job *j = new_job(J_GENUINE, &cases[i]);
        j->no_coll = !cases[i].has_coll;
    }
    size_t first_quote = n_jobs;
    for (size_t i = 0; i < n_cases; i++) {
        if (cases[i].has_coll) {
            add_quote_mutations(&cases[i], is_ok_case(&cases[i]));
        }
    }
    for (size_t i = 0; i < n_cases; i++) {
        if (cases[i].has_coll) {
            /* the next case with collateral, for the swaps */
            const struct kase *other = NULL;
            for (size_t d = 1; d < n_cases && other == NULL; d++) {
                const struct kase *c = &cases[(i + d) % n_cases];
                other = c->has_coll ? c : NULL;
            }
            add_coll_mutations(&cases[i], other);
        }
    }
    size_t first_own = n_jobs;
    add_own_tests();
    char **out = calloc(n_jobs, sizeof(char *));
    if (out == NULL) {
        return 2;
    }
    run_oracle(out, n_slots);

    /* compare */
    size_t agreed = 0, both_refuse = 0, both_accept = 0, cannot = 0, diffs[D__COUNT] = {0};
    size_t we_accept_intel_refuses = 0, tcb_mismatch = 0, undocumented = 0, shown = 0;
    size_t per_region[R__COUNT] = {0}, quote_n = 0, coll_n = 0;
    size_t intel_ok_genuine = 0;
    size_t pem_n = 0, pem_quote = 0, pem_we_refuse = 0, pem_intel_refuses = 0, pem_crl_chain = 0;
    for (size_t i = 0; i < first_own; i++) {
        const struct job *j = &jobs[i];
        struct verdict o, v;
        ours(j, &o);
        intel(out[i], &v);
        bool good = true;
        char d[200];
        describe(j, d, sizeof(d));
        if (j->kind == J_QUOTE) {
            per_region[j->region]++;
            quote_n++;
        } else if (j->kind == J_COLL) {
            coll_n++;
        }
        if (o.cls == C_ACCEPT && v.cls != C_ACCEPT) {
            we_accept_intel_refuses++;
            good = false;
        } else if (o.cls == C_ACCEPT) {
            if (strcmp(o.tcb, v.tcb) == 0) {
                both_accept++;
                agreed++;
            } else {
                tcb_mismatch++;
                good = false;
            }
        } else if (v.cls == C_ACCEPT) {
            enum diff_kind k = classify(j, &o, &v);
            diffs[k]++;
            good = k != D_NONE;
            if (k == D_NONE) {
                undocumented++;
            }
        } else {
            agreed++;
            both_refuse += v.cls == C_REFUSE;
            cannot += v.cls == C_CANNOT;
        }
        if (j->pem_breaks) {
            pem_n++;
            pem_quote += j->kind == J_QUOTE;
            pem_we_refuse += o.cls == C_REFUSE;
            pem_intel_refuses += v.cls == C_REFUSE;
            pem_crl_chain += v.cls == C_ACCEPT && j->field != NULL &&
                             strcmp(j->field, "pck_crl_issuer_chain") == 0;
        }
        if (j->kind == J_GENUINE) {
            tap(good, "genuine %s: Intel %s%s, ours %s", j->k->d.name, v.reason,
                v.expired_flag ? " (expired flag)" : "", o.reason);
            intel_ok_genuine += v.cls == C_ACCEPT;
        } else if (!good && shown++ < 20) {
            printf("# DIFFERENCE %s: Intel %s%s, ours %s\n", d, v.reason,
                   v.expired_flag ? " (expired flag)" : "", o.reason);
        }
    }
    size_t compared = first_own;
    printf("# compared %zu (genuine %zu, quote mutations %zu, collateral mutations %zu): agreed "
           "%zu (both refuse %zu, both accept with the same TCB status %zu, Intel cannot judge "
           "and we refuse %zu), deliberate differences %zu (D1 %zu, D2 %zu, D3 %zu, D4 %zu, "
           "D5 %zu), undocumented %zu\n",
           compared, first_quote, quote_n, coll_n, agreed, both_refuse, both_accept, cannot,
           diffs[D1_VALIDITY] + diffs[D2_SIGLEN] + diffs[D3_PCKCHAIN] + diffs[D4_STRICT_CERT] +
               diffs[D5_CRL_CHAIN],
           diffs[D1_VALIDITY], diffs[D2_SIGLEN], diffs[D3_PCKCHAIN], diffs[D4_STRICT_CERT],
           diffs[D5_CRL_CHAIN], undocumented);
    printf("# quote mutations per region:");
    bool every_region = true;
    for (int r = 0; r < R__COUNT; r++) {
        printf(" %s=%zu", region_names[r], per_region[r]);
        every_region &= r == R_TRAILING || per_region[r] >= 10;
    }
    printf("\n");
    tap(intel_ok_genuine >= 5, "the oracle verifies the 5 genuine ok cases (%zu STATUS_OK)",
        intel_ok_genuine);
    tap(quote_n >= 2000 && every_region,
        "at least 2000 quote mutations (%zu), at least 10 in every region", quote_n);
    tap(coll_n >= 300, "collateral mutations (%zu)", coll_n);
    tap(we_accept_intel_refuses == 0, "we never accept what Intel refuses or cannot judge (%zu)",
        we_accept_intel_refuses);
    tap(tcb_mismatch == 0, "where both accept, the TCB status is the same (%zu differ)",
        tcb_mismatch);
    tap(pem_n >= 60 && pem_we_refuse == pem_n && pem_intel_refuses + pem_crl_chain == pem_n,
        "PEM with its line breaks turned into spaces or removed (issue 38; %zu, %zu of them in "
        "the quote's chain): we refuse %zu, Intel refuses %zu and accepts %zu (all "
        "pck_crl_issuer_chain, D5)",
        pem_n, pem_quote, pem_we_refuse, pem_intel_refuses, pem_crl_chain);
    tap(undocumented == 0,
        "every case we refuse and Intel accepts is a documented deliberate difference (%zu are "
        "not)",
        undocumented);

    /* each deliberate difference, its own check: Intel accepts, we refuse for that reason */
    for (size_t i = first_own; i < n_jobs; i++) {
        const struct job *j = &jobs[i];
        struct verdict o, v;
        ours(j, &o);
        intel(out[i], &v);
        bool good = v.cls == C_ACCEPT && o.cls != C_ACCEPT && classify(j, &o, &v) == j->own;
        tap(good, "%s: %s %s: Intel %s%s, ours %s", diff_names[j->own], j->k->d.name, j->what,
            v.reason, v.expired_flag ? " (expired flag)" : "", o.reason);
    }
    for (size_t i = 0; i < n_jobs; i++) {
        free(out[i]);
        free(jobs[i].coll);
    }
    free(out);
    char p[700];
    for (int i = 0; i < n_slots; i++) {
        snprintf(p, sizeof(p), "%s/coll-%d.json", tmpdir, i);
        unlink(p);
    }
    rmdir(tmpdir);
    for (size_t i = 0; i < n_cases; i++) {
        dcap_case_free(&cases[i].d);
    }
    printf("1..%d\n", tap_n);
    return 0;
}
