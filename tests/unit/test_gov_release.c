/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gov_release.c - a signed-release admission end to end: admit_tee_node under a
 * TeeReleaseAdmissionPolicySetV2 calls mero_gov_release_hook, which fetches the mero-tee
 * v2.3.87 release (published-mrtds.json, .sig, .bundle.json from ../shared/testdata, served by
 * a local python http.server on 127.0.0.1) and verifies its Sigstore bundle; the quote's
 * registers must match an allowed profile. Refusals beside the accepted case.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/release.h"
#include "support/gov_fixture.h"

#define NOW_2026_12_01 1796083200u

static pid_t server_pid;
static int server_port;

static void server_kill(void)
{
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
        server_pid = 0;
    }
}

static int server_start(void)
{
    if (server_port != 0) {
        return 0;
    }
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/testdata/mero-tee", mero_test_shared());
    int fds[2];
    if (pipe(fds) != 0) {
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execlp("python3", "python3", "-u", "-m", "http.server", "--bind", "127.0.0.1",
               "--directory", dir, "0", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[256] = {0};
    size_t n = 0;
    while (n < sizeof(line) - 1) {
        ssize_t k = read(fds[0], line + n, 1);
        if (k <= 0 || line[n] == '\n') {
            break;
        }
        n++;
    }
    close(fds[0]);
    server_pid = pid;
    atexit(server_kill);
    const char *p = strstr(line, " port ");
    if (p == NULL) {
        return -1;
    }
    p += 6;
    char num[8] = {0};
    for (int i = 0; i < 7 && p[i] >= '0' && p[i] <= '9'; i++) {
        num[i] = p[i];
    }
    uint64_t port;
    if (mero_parse_u64(num, 65535, &port) < 0 || port == 0) {
        return -1;
    }
    server_port = (int)port;
    return 0;
}

struct world {
    struct govt_node owner;
    struct govt_tee tee;
    struct mero_release_source *src;
    uint8_t quote[GOVT_FAKE_QUOTE_MIN];
};

static int world_open(struct world *w)
{
    memset(w, 0, sizeof(*w));
    if (server_start() < 0) {
        return -1;
    }
    char base[128], tr[1024];
    snprintf(base, sizeof(base), "http://127.0.0.1:%d/v{version}", server_port);
    snprintf(tr, sizeof(tr), "%s/testdata/sigstore/trusted-root-public-good/trusted_root.json",
             mero_test_shared());
    struct mero_release_source_opts o = {
        .base_url = base, .trusted_root_path = tr, .timeout_ms = 5000, .now = NOW_2026_12_01};
    struct mero_err e = {0};
    int rc = mero_release_source_new(&w->src, &o, &e);
    if (rc == 0) {
        rc = govt_open(&w->owner);
    }
    if (rc == 0) {
        rc = govt_create_ns(&w->owner);
    }
    struct mero_tee_policy p;
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    p.v2 = true;
    p.mode = MERO_TEE_MODE_RELAY;
    if (rc == 0) {
        rc = mero_strlist_push(&p.profiles, "locked-read-only");
    }
    p.min_release = strdup("2.3.80");
    if (rc == 0) {
        rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, NULL, NULL, NULL, &e);
    }
    mero_tee_policy_cleanup(&p);
    if (rc == 0) {
        rc = govt_tee_open(&w->tee, w->owner.ns);
    }
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .quote_td_report = govt_fake_td_report,
                               .release_check = mero_gov_release_hook,
                               .release_ud = w->src};
    mero_store_set_hooks(w->owner.s, &h);
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
    mero_release_source_free(w->src);
}

/* A "real" quote (not mock) bound to the TEE's credential, registers of profile `prof`. */
static int request(struct world *w, const char *prof, struct mero_admit_request *req)
{
    govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, req);
    mero_random(w->quote, 32);
    mero_admission_binding(w->quote + 32, w->owner.ns, w->owner.ns, w->tee.node.pk,
                           w->tee.cred.cert.account, w->tee.cred.cert.kem_pk,
                           w->tee.cred.cert.device);
    memset(w->quote + 64, 0x33, sizeof(w->quote) - 64);
    req->quote = w->quote;
    req->quote_len = sizeof(w->quote);
    mero_sha256(req->quote_hash, w->quote, sizeof(w->quote));
    req->is_mock = false;
    req->has_td = true;
    req->td_attributes = UINT64_C(1) << 28; /* SEPT_VE_DISABLE */
    snprintf(req->tcb_status, sizeof(req->tcb_status), "UpToDate");
    char path[1024];
    snprintf(path, sizeof(path), "%s/testdata/mero-tee/v2.3.87/published-mrtds.json",
             mero_test_shared());
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    static uint8_t json[1 << 16];
    size_t n = fread(json, 1, sizeof(json), f);
    fclose(f);
    struct mero_release *r = NULL;
    struct mero_err e = {0};
    if (mero_release_parse(&r, json, n, "2.3.87", 0, &e) < 0) {
        return -1;
    }
    int rc = -1;
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct mero_release_profile *p = &r->profiles[i];
        if (strcmp(p->name, prof) != 0) {
            continue;
        }
        mero_hex_encode(req->m.mrtd, p->mrtd[0], 48);
        for (int k = 0; k < 4; k++) {
            if (p->n_rtmr[k] > 0) {
                mero_hex_encode(req->m.rtmr[k], p->rtmr[k][0], 48);
            }
        }
        rc = 0;
    }
    mero_release_free(r);
    /* the fake quote's TD report says what its verified body said */
    govt_fake_quote_facts(w->quote, sizeof(w->quote), req);
    mero_sha256(req->quote_hash, w->quote, sizeof(w->quote));
    return rc;
}

TEST(signed_release_admission_end_to_end)
{
    struct world w;
    CHECK_OK(world_open(&w));
    struct mero_admit_request req;
    struct mero_err e = {0};
    int outcome;
    CHECK_OK(request(&w, "locked-read-only", &req));
    /* names no release */
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "did not name") != NULL);
    /* older than the minimum */
    req.release_version = "2.3.79";
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "older than the policy's minimum") != NULL);
    /* a release never published */
    req.release_version = "2.3.99";
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, &e),
              -MERO_EREFUSED);
    /* the release, but another profile's registers */
    CHECK_OK(request(&w, "debug", &req));
    req.release_version = "2.3.87";
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, &e),
              -MERO_EREFUSED);
    /* the release and the allowed profile: admitted as RelayTee (the policy's mode), naming
     * the profile it matched (issue 19: the fleet view's matched.name) */
    CHECK_OK(request(&w, "locked-read-only", &req));
    req.release_version = "2.3.87";
    char matched[MERO_GOV_PROFILE_NAME_MAX] = "stale";
    req.matched_profile = matched;
    struct mero_gov_oplist l = {0};
    CHECK_MSG(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e) == 0, "%s",
              e.msg);
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_STR_EQ(matched, "locked-read-only");
    int r;
    CHECK_OK(mero_gov_direct_role(w.owner.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    /* a replaying peer checks only the TCB status and role, not the release */
    struct govt_node peer;
    CHECK_OK(govt_open(&peer));
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .quote_td_report = govt_fake_td_report};
    mero_store_set_hooks(peer.s, &h);
    CHECK(govt_sync(&w.owner, &peer, w.owner.ns, &e) > 0);
    CHECK_OK(mero_gov_direct_role(peer.s, w.owner.ns, w.tee.node.pk, &r));
    CHECK_EQ(r, MERO_ROLE_RELAY_TEE);
    mero_gov_oplist_cleanup(&l);
    govt_close(&peer);
    world_close(&w);
}

/*
 * The spec's signed-release section: "the release is checked for every request that admits a
 * TEE or publishes its evidence, which includes publishing fresh evidence for an
 * already-admitted TEE"; a node whose release is unset has its refresh refused. The TEE is
 * admitted, its evidence falls due, and a fresh quote is presented: without a release, or with
 * one older than the minimum, nothing is published and the evidence is not renewed; with the
 * release, exactly the evidence is.
 */
TEST(an_evidence_refresh_is_checked_against_the_release_too)
{
    struct world w;
    CHECK_OK(world_open(&w));
    /* the evidence's offline check (DCAP in production) stands in as the fixture's */
    struct mero_gov_hooks h = {.quote_report_data = govt_fake_rd,
                               .quote_td_report = govt_fake_td_report,
                               .release_check = mero_gov_release_hook,
                               .release_ud = w.src,
                               .evidence_verify = govt_evidence_verify};
    mero_store_set_hooks(w.owner.s, &h);
    struct mero_admit_request req;
    struct mero_err e = {0};
    struct mero_gov_oplist l = {0};
    int outcome;
    CHECK_OK(request(&w, "locked-read-only", &req));
    req.release_version = "2.3.87";
    CHECK_MSG(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e) == 0, "%s",
              e.msg);
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    mero_gov_oplist_cleanup(&l);
    uint64_t at0 = 0, at = 0;
    bool found = false;
    CHECK_OK(mero_gov_evidence_at(w.owner.s, w.owner.ns, w.tee.node.pk, &found, &at0));
    CHECK(found);
    /* a fresh quote once the evidence is due */
    CHECK_OK(request(&w, "locked-read-only", &req));
    req.now = 1000 + MERO_GOV_EVIDENCE_REFRESH_SECS;
    req.attested_at = req.now;
    req.release_version = NULL;
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "did not name") != NULL);
    CHECK_EQ(l.n, 0);
    req.release_version = "2.3.79";
    CHECK_ERR(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e),
              -MERO_EREFUSED);
    CHECK(strstr(e.msg, "older than the policy's minimum") != NULL);
    CHECK_EQ(l.n, 0);
    CHECK_OK(mero_gov_evidence_at(w.owner.s, w.owner.ns, w.tee.node.pk, &found, &at));
    CHECK_EQ(at, at0); /* not renewed */
    /* the release: the evidence, and only the evidence */
    req.release_version = "2.3.87";
    CHECK_MSG(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, &l, &e) == 0, "%s",
              e.msg);
    CHECK_EQ(outcome, MERO_ADMIT_ALREADY_MEMBER);
    CHECK_EQ(l.n, 1);
    struct mero_op op;
    CHECK_OK(mero_op_decode(l.v[0].data, l.v[0].len, &op, NULL));
    CHECK_EQ(op.kind, MERO_GROUP_TEE_AUTHORITY_EVIDENCE);
    mero_op_cleanup(&op);
    mero_gov_oplist_cleanup(&l);
    CHECK_OK(mero_gov_evidence_at(w.owner.s, w.owner.ns, w.tee.node.pk, &found, &at));
    CHECK_EQ(at, req.attested_at);
    world_close(&w);
}

TEST(release_hook_refuses_without_source_or_bad_registers)
{
    struct mero_tee_policy p;
    memset(&p, 0, sizeof(p));
    struct mero_measurements m;
    memset(&m, 0, sizeof(m));
    struct mero_err e = {0};
    CHECK_ERR(mero_gov_release_hook(NULL, "2.3.87", &p, &m, NULL, 0, &e), -MERO_EINVAL);
    struct world w;
    CHECK_OK(world_open(&w));
    snprintf(m.mrtd, sizeof(m.mrtd), "zz");
    CHECK_ERR(mero_gov_release_hook(w.src, "2.3.87", &p, &m, NULL, 0, &e), -MERO_EREFUSED);
    CHECK(strstr(e.msg, "MRTD") != NULL);
    world_close(&w);
}

MERO_TEST_MAIN(T(signed_release_admission_end_to_end),
               T(an_evidence_refresh_is_checked_against_the_release_too),
               T(release_hook_refuses_without_source_or_bad_registers))
