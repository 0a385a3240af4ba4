/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_audit.c - the fleet audit (issue 36, docs/audit.md) around genuine quotes: a namespace
 * with a mock TEE admitted, then TeeAuthorityEvidence for it carrying genuine TDX quotes from
 * ../shared/testdata/tdx/ with their collateral at their recorded times. The log refuses them
 * (a genuine quote commits to nothing of ours), so each is a "refused" event on the TEE's
 * timeline whose checks say why: DCAP verifies offline against the carried collateral at the
 * recorded time (the expected TCB status), the binding does not hold. The export is written,
 * verified from the folder alone, and fails naming the file when a byte of its collateral or
 * an op flips, or when an op is left out. A quote at a time outside its collateral's window
 * reports the verifier's reason. The manifest reader refuses names that leave the folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "mero/audit.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "support/dcap_cases.h"
#include "support/gov_fixture.h"

#define MERO_AUDIT_TMP_NAME 1100 /* a test path, NUL included */
#define MERO_AUDIT_REL_NAME 200  /* a path under the shared folder, NUL included */

struct world {
    struct govt_node owner;
    struct govt_tee tee;
};

static int world_open(struct world *w)
{
    struct mero_tee_policy p;
    struct mero_admit_request req;
    int outcome;
    int rc = govt_open(&w->owner);
    if (rc == 0) {
        rc = govt_create_ns(&w->owner);
    }
    if (rc == 0) {
        rc = govt_policy(&p, MERO_TEE_MODE_REPLICA, true);
        if (rc == 0) {
            rc = mero_gov_set_policy(w->owner.s, w->owner.ns, &p, NULL, NULL, NULL, NULL);
        }
        mero_tee_policy_cleanup(&p);
    }
    if (rc == 0) {
        rc = govt_tee_open(&w->tee, w->owner.ns);
    }
    if (rc == 0) {
        govt_tee_request(&w->tee, w->owner.ns, w->owner.ns, w->owner.ns, &req);
        rc = mero_gov_admit_tee_node(w->owner.s, w->owner.ns, &req, &outcome, NULL, NULL);
    }
    return rc;
}

static void world_close(struct world *w)
{
    govt_close(&w->owner);
    govt_close(&w->tee.node);
}

/* The owner signs evidence for the TEE carrying q and coll at `at`; the log refuses it. */
static int publish_evidence(struct world *w, const uint8_t *q, size_t qlen, const char *coll,
                            size_t clen, uint64_t at)
{
    struct mero_op op;
    struct mero_err e = {0};
    uint8_t(*heads)[MERO_OP_ID_LEN] = NULL, sk[MERO_ED25519_SK_LEN];
    size_t nh = 0;
    struct mero_buf b;
    mero_op_init(&op);
    memcpy(op.ns, w->owner.ns, MERO_NS_ID_LEN);
    memcpy(op.group_id, w->owner.ns, MERO_GROUP_ID_LEN);
    op.scope = MERO_SCOPE_GROUP;
    op.kind = MERO_GROUP_TEE_AUTHORITY_EVIDENCE;
    memcpy(op.evidence.attested_key, w->tee.node.pk, MERO_IDENTITY_LEN);
    op.evidence.account = w->tee.cred;
    op.evidence.quote = malloc(qlen);
    op.evidence.collateral = malloc(clen);
    if (op.evidence.quote == NULL || op.evidence.collateral == NULL) {
        mero_op_cleanup(&op);
        return -MERO_ENOMEM;
    }
    memcpy(op.evidence.quote, q, qlen);
    op.evidence.quote_len = qlen;
    op.evidence.has_collateral = true;
    memcpy(op.evidence.collateral, coll, clen);
    op.evidence.collateral_len = clen;
    op.evidence.attested_at = at;
    mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
    int rc = mero_gov_heads(w->owner.s, w->owner.ns, &heads, &nh);
    if (rc == 0) {
        rc = mero_op_set_parents(&op, (const uint8_t(*)[MERO_OP_ID_LEN])heads, (uint32_t)nh);
    }
    free(heads);
    mero_random(&op.nonce, sizeof(op.nonce));
    if (rc == 0) {
        rc = mero_gov_identity_secret(w->owner.s, w->owner.ns, sk);
    }
    if (rc == 0) {
        rc = mero_op_sign(&op, sk);
    }
    if (rc == 0) {
        rc = mero_op_encode(&op, &b);
    }
    if (rc == 0) {
        int status = -1;
        rc = mero_gov_apply(w->owner.s, b.data, b.len, &status, NULL, NULL, &e);
        rc = rc == -MERO_EREFUSED && status == MERO_APPLY_REJECTED ? 0 : rc < 0 ? rc : -MERO_EINVAL;
    }
    mero_buf_cleanup(&b);
    mero_op_cleanup(&op);
    return rc;
}

/* The owner's whole log of the namespace as an audit log (what the ops route hands out). */
static int log_of(struct world *w, uint64_t exported_at, struct mero_audit_log *log)
{
    uint8_t(*hs)[MERO_OP_ID_LEN] = NULL;
    size_t n = 0;
    uint64_t last = 0;
    mero_audit_log_init(log);
    memcpy(log->ns, w->owner.ns, MERO_NS_ID_LEN);
    log->exported_at = exported_at;
    int rc = mero_gov_op_hashes(w->owner.s, w->owner.ns, 0, MERO_AUDIT_MAX_OPS, &hs, &n, &last);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct mero_buf b;
        int st = 0;
        char reason[MERO_AUDIT_MSG_SIZE];
        mero_buf_init(&b, MERO_GOV_MAX_OP_BYTES);
        rc = mero_gov_op_get(w->owner.s, hs[i], &b);
        if (rc == 0) {
            rc = mero_gov_op_state(w->owner.s, hs[i], &st, reason, sizeof(reason));
        }
        if (rc == 0) {
            rc = mero_audit_add_op(log, hs[i], b.data, b.len, st, NULL);
        }
        mero_buf_cleanup(&b);
    }
    free(hs);
    return rc;
}

static const struct mero_audit_tee *the_tee(const struct mero_audit_log *log,
                                            const uint8_t id[MERO_IDENTITY_LEN])
{
    for (size_t i = 0; i < log->ntees; i++) {
        if (memcmp(log->tees[i].id, id, MERO_IDENTITY_LEN) == 0) {
            return &log->tees[i];
        }
    }
    return NULL;
}

static size_t count_kind(const struct mero_audit_tee *t, int kind)
{
    size_t n = 0;
    for (size_t i = 0; t != NULL && i < t->nev; i++) {
        n += t->ev[i].kind == kind;
    }
    return n;
}

static bool findings_name(const struct mero_audit_findings *f, const char *s)
{
    for (size_t i = 0; i < f->n; i++) {
        if (strstr(f->v[i], s) != NULL) {
            return true;
        }
    }
    return false;
}

static void flip(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f == NULL) {
        return;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, n / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, n / 2, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
}

static void rm_tree(const char *dir)
{
    char cmd[1300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_EQ(system(cmd), 0);
}

static void copy_tree(const char *from, const char *to)
{
    char cmd[2600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", to, from, to);
    CHECK_EQ(system(cmd), 0);
}

static const char *const genuine[] = {"tdx/dcapqvl-1", "tdx/nearmpc-1", "tdx/nearmpc-3"};
#define NGENUINE (sizeof(genuine) / sizeof(genuine[0]))

TEST(genuine_quotes_verify_offline_at_their_recorded_times)
{
    struct world w;
    struct dcap_case c[NGENUINE];
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    CHECK_OK(world_open(&w));
    for (size_t i = 0; i < NGENUINE; i++) {
        CHECK_OK(dcap_case_load(&c[i], genuine[i]));
        CHECK(c[i].collateral_json != NULL);
        CHECK_OK(publish_evidence(&w, c[i].quote, c[i].quote_len, c[i].collateral_json,
                                  c[i].collateral_len, c[i].verify_time));
    }
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_OK(mero_audit_build(&log, &f, &err));
    CHECK_MSG(f.n == 0, "first finding: %s", f.n > 0 ? f.v[0] : "");
    const struct mero_audit_tee *t = the_tee(&log, w.tee.node.pk);
    CHECK(t != NULL);
    CHECK_U64_EQ(count_kind(t, MERO_AUDIT_ADMITTED), 1);
    CHECK(count_kind(t, MERO_AUDIT_REFRESH) >= 1);
    CHECK_U64_EQ(count_kind(t, MERO_AUDIT_REFUSED), NGENUINE);
    size_t seen = 0;
    for (size_t k = 0; t != NULL && k < t->nev; k++) {
        const struct mero_audit_event *e = &t->ev[k];
        if (e->kind == MERO_AUDIT_REFRESH || e->kind == MERO_AUDIT_ADMITTED) {
            CHECK_EQ(e->dcap.verdict, MERO_AUDIT_MOCK);
            CHECK_STR_EQ(e->dcap.msg, "mock: not hardware-backed");
            CHECK_EQ(e->binding.verdict, MERO_AUDIT_OK);
            CHECK_EQ(e->policy.verdict, MERO_AUDIT_OK);
        }
        if (e->kind != MERO_AUDIT_REFUSED) {
            continue;
        }
        const struct dcap_case *dc = &c[seen++];
        const char *want = json_string_value(
            json_object_get(json_object_get(dc->expected, "expect"), "tcb_status"));
        CHECK(e->at_exact);
        CHECK_U64_EQ(e->at, dc->verify_time);
        CHECK_MSG(e->dcap.verdict == MERO_AUDIT_OK, "%s: %s", dc->name, e->dcap.msg);
        CHECK(want != NULL && strcmp(e->tcb_status, want) == 0);
        CHECK(strstr(e->dcap.msg, want != NULL ? want : "?") != NULL);
        CHECK_EQ(e->binding.verdict, MERO_AUDIT_FAIL);
        CHECK(strstr(e->binding.msg, "does not commit") != NULL);
        CHECK(strstr(log.ops[e->op].reason, "does not commit") != NULL); /* gov refused it so */
    }
    CHECK_U64_EQ(seen, NGENUINE);

    /* the export, verified from the folder alone */
    char dir[] = "/tmp/mero-audit-test-XXXXXX", bad[1100];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(bad, sizeof(bad), "%s-bad", dir);
    CHECK_OK(mero_audit_write_dir(&log, dir, &err));
    struct mero_audit_log back;
    struct mero_audit_findings g = {0};
    CHECK_OK(mero_audit_verify_dir(dir, &back, &g, &err));
    CHECK_MSG(g.n == 0, "first finding: %s", g.n > 0 ? g.v[0] : "");
    CHECK_U64_EQ(back.nops, log.nops);
    CHECK_U64_EQ(back.ntees, 1);
    CHECK_U64_EQ(count_kind(the_tee(&back, w.tee.node.pk), MERO_AUDIT_REFUSED), NGENUINE);
    mero_audit_findings_cleanup(&g);
    mero_audit_log_cleanup(&back);

    /* a flipped byte in a collateral file, then in the op carrying it */
    char name[MERO_AUDIT_PATH_MAX], hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
    const struct mero_audit_event *ref = NULL;
    for (size_t k = 0; t != NULL && k < t->nev; k++) {
        ref = ref == NULL && t->ev[k].kind == MERO_AUDIT_REFUSED ? &t->ev[k] : ref;
    }
    CHECK(ref != NULL);
    if (ref != NULL) {
        mero_hex_encode(hex, log.ops[ref->op].hash, MERO_OP_ID_LEN);
        snprintf(name, sizeof(name), "collateral/%s.json", hex);
        copy_tree(dir, bad);
        flip(bad, name);
        CHECK_OK(mero_audit_verify_dir(bad, &back, &g, &err));
        CHECK(findings_name(&g, name));
        mero_audit_findings_cleanup(&g);
        mero_audit_log_cleanup(&back);
        snprintf(name, sizeof(name), "ops/%s.bin", hex);
        copy_tree(dir, bad);
        flip(bad, name);
        CHECK_OK(mero_audit_verify_dir(bad, &back, &g, &err));
        CHECK(findings_name(&g, name));
        mero_audit_findings_cleanup(&g);
        mero_audit_log_cleanup(&back);
    }
    /* the admission's op removed: its place in the log cannot be shown */
    for (size_t k = 0; t != NULL && k < t->nev; k++) {
        if (t->ev[k].kind == MERO_AUDIT_ADMITTED) {
            char path[1300];
            mero_hex_encode(hex, log.ops[t->ev[k].op].hash, MERO_OP_ID_LEN);
            copy_tree(dir, bad);
            snprintf(path, sizeof(path), "%s/ops/%s.bin", bad, hex);
            CHECK_EQ(unlink(path), 0);
            CHECK_OK(mero_audit_verify_dir(bad, &back, &g, &err));
            CHECK(findings_name(&g, hex));
            CHECK(findings_name(&g, "is not in the export"));
            mero_audit_findings_cleanup(&g);
            mero_audit_log_cleanup(&back);
        }
    }
    rm_tree(bad);
    rm_tree(dir);
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    for (size_t i = 0; i < NGENUINE; i++) {
        dcap_case_free(&c[i]);
    }
    world_close(&w);
}

TEST(a_quote_outside_its_collaterals_window_reports_the_verifiers_reason)
{
    struct world w;
    struct dcap_case c;
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    CHECK_OK(world_open(&w));
    CHECK_OK(dcap_case_load(&c, "tdx/dcapqvl-1"));
    CHECK_OK(publish_evidence(&w, c.quote, c.quote_len, c.collateral_json, c.collateral_len, 1));
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_OK(mero_audit_build(&log, &f, &err));
    const struct mero_audit_tee *t = the_tee(&log, w.tee.node.pk);
    size_t n = 0;
    for (size_t k = 0; t != NULL && k < t->nev; k++) {
        if (t->ev[k].kind == MERO_AUDIT_REFUSED) {
            n++;
            CHECK_EQ(t->ev[k].dcap.verdict, MERO_AUDIT_FAIL);
            CHECK_MSG(t->ev[k].dcap.msg[0] != '\0', "no reason");
            CHECK_EQ(t->ev[k].policy.verdict, MERO_AUDIT_NA);
        }
    }
    CHECK_U64_EQ(n, 1);
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    dcap_case_free(&c);
    world_close(&w);
}

TEST(manifest_reader_refuses_what_leaves_the_folder)
{
    struct mero_audit_claims c;
    struct mero_err err = {0};
    char ok[1024], bad[1024];
    const char *z = "0000000000000000000000000000000000000000000000000000000000000000";
    snprintf(ok, sizeof(ok),
             "{\"format\":\"mero.audit.v1\",\"namespaceId\":\"%s\",\"exportedAt\":5,"
             "\"ops\":[{\"file\":\"ops/%s.bin\",\"hash\":\"%s\",\"outcome\":\"effective\"}],"
             "\"quotes\":[],\"collateral\":[],\"tees\":[{\"identity\":\"%s\",\"events\":"
             "[{\"kind\":\"admitted\",\"op\":\"%s\"},{\"kind\":\"due\",\"op\":null}]}]}",
             z, z, z, z, z);
    CHECK_OK(mero_audit_claims_parse(ok, strlen(ok), &c, &err));
    CHECK_U64_EQ(c.nops, 1);
    CHECK_EQ(c.ops[0].claimed, MERO_OP_EFFECTIVE);
    CHECK_U64_EQ(c.ntees, 1);
    CHECK_U64_EQ(c.tees[0].nev, 2);
    CHECK(!c.tees[0].ev[1].has_op);
    mero_audit_claims_cleanup(&c);
    static const char *const pre[] = {"../", "ops/../../", "/etc/", "ops/"};
    static const char *const post[] = {".bin", "", ".bin", ".bin/"};
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
        char file[200];
        snprintf(file, sizeof(file), "%s%s%s", pre[i], z, post[i]);
        snprintf(bad, sizeof(bad),
                 "{\"format\":\"mero.audit.v1\",\"namespaceId\":\"%s\",\"exportedAt\":5,"
                 "\"ops\":[{\"file\":\"%s\",\"hash\":\"%s\"}],\"quotes\":[],\"collateral\":[],"
                 "\"tees\":[]}",
                 z, file, z);
        CHECK_ERR(mero_audit_claims_parse(bad, strlen(bad), &c, &err), -MERO_EINVAL);
    }
    /* a release's files: the writer's forms, all three of the release file's hash */
    const char *y = "1111111111111111111111111111111111111111111111111111111111111111";
    static const char *const rel[] = {"releases/", "releases/../",
                                      "releases/"}; /* the third: bundle of another */
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char file[200], body[700];
        snprintf(file, sizeof(file), "%s%s.json", rel[i], z);
        snprintf(body, sizeof(body),
                 "\"releases\":[{\"file\":\"%s\",\"sha256\":\"%s\",\"bundle\":"
                 "\"releases/%s.bundle.json\",\"bundleSha256\":\"%s\",\"sig\":null}]",
                 file, z, i == 2 ? y : z, z);
        snprintf(bad, sizeof(bad),
                 "{\"format\":\"mero.audit.v1\",\"namespaceId\":\"%s\",\"exportedAt\":5,"
                 "\"ops\":[],\"quotes\":[],\"collateral\":[],\"tees\":[],%s}",
                 z, body);
        if (i == 0) {
            CHECK_OK(mero_audit_claims_parse(bad, strlen(bad), &c, &err));
            CHECK_U64_EQ(c.nrels, 1);
            CHECK_STR_EQ(c.rels[0].file[2], "");
            mero_audit_claims_cleanup(&c);
        } else {
            CHECK_ERR(mero_audit_claims_parse(bad, strlen(bad), &c, &err), -MERO_EINVAL);
        }
    }
    snprintf(bad, sizeof(bad),
             "{\"format\":\"mero.audit.v1\",\"namespaceId\":\"%s\",\"exportedAt\":5,"
             "\"ops\":[],\"quotes\":[],\"collateral\":[],\"tees\":[],\"sealed\":[{\"file\":"
             "\"sealed/../%s.bin\",\"op\":\"%s\",\"sha256\":\"%s\"}]}",
             z, z, z, z);
    CHECK_ERR(mero_audit_claims_parse(bad, strlen(bad), &c, &err), -MERO_EINVAL);
    CHECK_ERR(mero_audit_claims_parse("{\"format\":\"other\"}", 18, &c, &err), -MERO_EINVAL);
    CHECK_ERR(mero_audit_claims_parse("not json", 8, &c, &err), -MERO_EINVAL);
}

/* A release's three files from ../shared/testdata/mero-tee/<dir>/ added to the log. */
static int add_shared_release(struct mero_audit_log *log, const char *dir)
{
    char path[MERO_AUDIT_REL_NAME];
    size_t n[3] = {0, 0, 0};
    uint8_t *b[3];
    static const char *const ext[3] = {"", ".bundle.json", ".sig"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof(path), "testdata/mero-tee/%s/published-mrtds.json%s", dir, ext[k]);
        b[k] = mero_test_read(path, 1, &n[k]);
    }
    int rc = b[0] != NULL && b[1] != NULL && b[2] != NULL
                 ? mero_audit_add_release(log, b[0], n[0], b[1], n[1], b[2], n[2])
                 : -MERO_ENOTFOUND;
    for (int k = 0; k < 3; k++) {
        free(b[k]);
    }
    return rc;
}

static void use_shared_trusted_root(void)
{
    char tr[MERO_AUDIT_TMP_NAME];
    snprintf(tr, sizeof(tr), "%s/testdata/sigstore/trusted-root-public-good/trusted_root.json",
             mero_test_shared());
    setenv("MERO_SIGSTORE_TRUSTED_ROOT", tr, 1);
}

TEST(signed_releases_are_exported_and_verified_offline)
{
    struct world w;
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    use_shared_trusted_root();
    CHECK_OK(world_open(&w));
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_OK(add_shared_release(&log, "v2.3.87"));
    CHECK_OK(add_shared_release(&log, "v2.3.87")); /* the same release once */
    CHECK_U64_EQ(log.nrels, 1);
    CHECK_OK(mero_audit_build(&log, &f, &err));
    CHECK_MSG(f.n == 0, "first finding: %s", f.n > 0 ? f.v[0] : "");
    CHECK(log.rels[0].verified);
    CHECK(log.rels[0].rel != NULL && strcmp(log.rels[0].rel->tag, "2.3.87") == 0);
    CHECK(log.rels[0].signed_at > 0);

    /* the release-form check: a profile's own registers match it; one byte off does not; a
     * minimum above the release leaves no release to vouch */
    if (log.rels[0].rel != NULL && log.rels[0].rel->n_profiles > 0) {
        const struct mero_release_profile *pr = &log.rels[0].rel->profiles[0];
        struct mero_tee_policy p;
        struct mero_release_meas m;
        char prof[MERO_AUDIT_NAME_MAX];
        size_t k = MERO_AUDIT_NONE;
        memset(&p, 0, sizeof(p));
        p.form = MERO_POLICY_RELEASE;
        CHECK_OK(mero_strlist_push(&p.profiles, pr->name));
        memcpy(m.mrtd, pr->mrtd[0], sizeof(m.mrtd));
        for (int r = 0; r < MERO_RTMR_COUNT; r++) {
            if (pr->n_rtmr[r] > 0) {
                memcpy(m.rtmr[r], pr->rtmr[r][0], sizeof(m.rtmr[r]));
            } else {
                memset(m.rtmr[r], 0, sizeof(m.rtmr[r]));
            }
        }
        CHECK_OK(mero_audit_release_match(&log, &p, &m, &k, prof, sizeof(prof), &err));
        CHECK_U64_EQ(k, 0);
        CHECK_STR_EQ(prof, pr->name);
        m.mrtd[0] ^= 1;
        CHECK_ERR(mero_audit_release_match(&log, &p, &m, &k, prof, sizeof(prof), &err),
                  -MERO_ERELEASE_NOMATCH);
        m.mrtd[0] ^= 1;
        p.min_release = strdup("2.4.0");
        CHECK_ERR(mero_audit_release_match(&log, &p, &m, &k, prof, sizeof(prof), &err),
                  -MERO_ERELEASE);
        CHECK(strstr(err.msg, "older than the policy's minimum") != NULL);
        mero_tee_policy_cleanup(&p);
    }

    /* exported, verified from the folder; a flipped byte in each release file names it */
    char dir[] = "/tmp/mero-audit-rel-XXXXXX", bad[MERO_AUDIT_TMP_NAME], name[MERO_AUDIT_PATH_MAX];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(bad, sizeof(bad), "%s-bad", dir);
    CHECK_OK(mero_audit_write_dir(&log, dir, &err));
    struct mero_audit_log back;
    struct mero_audit_findings g = {0};
    CHECK_OK(mero_audit_verify_dir(dir, &back, &g, &err));
    CHECK_MSG(g.n == 0, "first finding: %s", g.n > 0 ? g.v[0] : "");
    CHECK_U64_EQ(back.nrels, 1);
    CHECK(back.nrels == 1 && back.rels[0].verified);
    mero_audit_findings_cleanup(&g);
    mero_audit_log_cleanup(&back);
    for (int part = 0; part < 3; part++) {
        mero_audit_release_file(&log.rels[0], part, name);
        copy_tree(dir, bad);
        flip(bad, name);
        CHECK_OK(mero_audit_verify_dir(bad, &back, &g, &err));
        CHECK_MSG(findings_name(&g, name), "%s not named (first finding: %s)", name,
                  g.n > 0 ? g.v[0] : "none");
        mero_audit_findings_cleanup(&g);
        mero_audit_log_cleanup(&back);
    }
    rm_tree(bad);
    rm_tree(dir);
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);

    /* a release whose file was altered after signing: a finding naming it, matching nothing */
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_OK(add_shared_release(&log, "v2.3.87-tampered_fail"));
    CHECK_OK(mero_audit_build(&log, &f, &err));
    mero_audit_release_file(&log.rels[0], 0, name);
    CHECK(!log.rels[0].verified);
    CHECK_MSG(findings_name(&f, name) && findings_name(&f, "Sigstore signature does not verify"),
              "first finding: %s", f.n > 0 ? f.v[0] : "none");
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);
    world_close(&w);
}

/* The number of a TEE's events of a kind in a group. */
static size_t count_in(const struct mero_audit_tee *t, int kind, const uint8_t g[MERO_GROUP_ID_LEN])
{
    size_t n = 0;
    for (size_t i = 0; t != NULL && i < t->nev; i++) {
        n += t->ev[i].kind == kind && memcmp(t->ev[i].group, g, MERO_GROUP_ID_LEN) == 0;
    }
    return n;
}

/* Every encrypted op of the log disclosed with the owner's key; the last one's hash in *last. */
static size_t disclose_all(struct world *w, struct mero_audit_log *log,
                           uint8_t last[MERO_OP_ID_LEN])
{
    size_t n = 0;
    for (size_t i = 0; i < log->nops; i++) {
        struct mero_op op;
        struct mero_err e = {0};
        uint8_t *plain = NULL;
        size_t pl = 0;
        if (mero_op_decode(log->ops[i].bytes, log->ops[i].len, &op, &e) < 0) {
            continue;
        }
        bool sealed = op.scope == MERO_SCOPE_GROUP_ENCRYPTED;
        mero_op_cleanup(&op);
        if (sealed && mero_gov_sealed_plaintext(w->owner.s, log->ops[i].bytes, log->ops[i].len,
                                                &plain, &pl, &e) == 0) {
            if (mero_audit_add_plaintext(log, log->ops[i].hash, plain, pl) == 0) {
                memcpy(last, log->ops[i].hash, MERO_OP_ID_LEN);
                n++;
            }
        }
        free(plain);
    }
    return n;
}

TEST(sealed_subgroup_admissions_without_and_with_the_disclosed_plaintext)
{
    struct world w;
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    struct mero_admit_request req;
    uint8_t sub[MERO_GROUP_ID_LEN], sealed_op[MERO_OP_ID_LEN];
    int outcome = -1;
    CHECK_OK(world_open(&w));
    CHECK_OK(mero_gov_create_subgroup(w.owner.s, w.owner.ns, w.owner.ns, MERO_GROUP_RESTRICTED, sub,
                                      NULL, NULL));
    govt_tee_request(&w.tee, w.owner.ns, w.owner.ns, w.owner.ns, &req);
    memcpy(req.group_id, sub, MERO_GROUP_ID_LEN);
    CHECK_OK(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, NULL));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);

    /* without the key: the sealed admission is counted, its subgroup event is missing */
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_OK(mero_audit_build(&log, &f, &err));
    CHECK_MSG(f.n == 0, "first finding: %s", f.n > 0 ? f.v[0] : "");
    CHECK(log.sealed >= 1);
    CHECK_U64_EQ(count_in(the_tee(&log, w.tee.node.pk), MERO_AUDIT_ADMITTED, sub), 0);
    CHECK_U64_EQ(count_in(the_tee(&log, w.tee.node.pk), MERO_AUDIT_ADMITTED, w.owner.ns), 1);
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&log);

    /* the exporter holds the key and discloses the plaintext (never the key): the subgroup
     * admission is on the timeline, marked unauthenticated, cross-checked with the root one */
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
    CHECK_U64_EQ(disclose_all(&w, &log, sealed_op), 1);
    CHECK_OK(mero_audit_build(&log, &f, &err));
    CHECK_MSG(f.n == 0, "first finding: %s", f.n > 0 ? f.v[0] : "");
    CHECK_U64_EQ(log.sealed, 0);
    const struct mero_audit_tee *t = the_tee(&log, w.tee.node.pk);
    CHECK_U64_EQ(count_in(t, MERO_AUDIT_ADMITTED, sub), 1);
    for (size_t k = 0; t != NULL && k < t->nev; k++) {
        const struct mero_audit_event *e = &t->ev[k];
        if (e->kind == MERO_AUDIT_ADMITTED && memcmp(e->group, sub, MERO_GROUP_ID_LEN) == 0) {
            CHECK(log.ops[e->op].disclosed);
            CHECK(strstr(e->dcap.msg, "disclosed by the exporter") != NULL);
            CHECK_MSG(e->binding.verdict == MERO_AUDIT_OK, "%s", e->binding.msg);
            CHECK_EQ(e->policy.verdict, MERO_AUDIT_OK);
        }
    }

    /* written and verified from the folder; a flipped byte in the disclosed file names it */
    char dir[] = "/tmp/mero-audit-sealed-XXXXXX", bad[MERO_AUDIT_TMP_NAME],
         name[MERO_AUDIT_PATH_MAX], hex[MERO_HEX_SIZE(MERO_OP_ID_LEN)];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(bad, sizeof(bad), "%s-bad", dir);
    mero_hex_encode(hex, sealed_op, MERO_OP_ID_LEN);
    snprintf(name, sizeof(name), "sealed/%s.bin", hex);
    CHECK_OK(mero_audit_write_dir(&log, dir, &err));
    struct mero_audit_log back;
    struct mero_audit_findings g = {0};
    CHECK_OK(mero_audit_verify_dir(dir, &back, &g, &err));
    CHECK_MSG(g.n == 0, "first finding: %s", g.n > 0 ? g.v[0] : "");
    CHECK_U64_EQ(count_in(the_tee(&back, w.tee.node.pk), MERO_AUDIT_ADMITTED, sub), 1);
    mero_audit_findings_cleanup(&g);
    mero_audit_log_cleanup(&back);
    copy_tree(dir, bad);
    flip(bad, name);
    CHECK_OK(mero_audit_verify_dir(bad, &back, &g, &err));
    CHECK_MSG(findings_name(&g, name), "first finding: %s", g.n > 0 ? g.v[0] : "none");
    mero_audit_findings_cleanup(&g);
    mero_audit_log_cleanup(&back);
    rm_tree(bad);
    rm_tree(dir);

    /* a plaintext altered by the exporter itself (the manifest agreeing): what the auditor can
     * check without the key still names it */
    for (size_t i = 0; i < log.nops; i++) {
        if (log.ops[i].plain != NULL) {
            log.ops[i].plain[log.ops[i].plain_len / 2] ^= 1;
        }
    }
    mero_audit_findings_cleanup(&f);
    struct mero_audit_log again;
    CHECK_OK(log_of(&w, (uint64_t)time(NULL), &again));
    for (size_t i = 0; i < log.nops; i++) {
        if (log.ops[i].plain != NULL) {
            CHECK_OK(mero_audit_add_plaintext(&again, log.ops[i].hash, log.ops[i].plain,
                                              log.ops[i].plain_len));
        }
    }
    CHECK_OK(mero_audit_build(&again, &f, &err));
    CHECK_MSG(findings_name(&f, name), "first finding: %s", f.n > 0 ? f.v[0] : "none");
    mero_audit_findings_cleanup(&f);
    mero_audit_log_cleanup(&again);
    mero_audit_log_cleanup(&log);
    world_close(&w);
}

/*
 * Under a release-form policy, the genuine quote's registers (DCAP's, at its recorded time)
 * are looked up in the exported release: v2.3.87 does not hold them (no public quote of a
 * mero-tee image exists), so the check says which release it tried; with no release exported
 * nothing vouches; the node's own view (no release files) says n/a. The evidence is refused
 * by the log (it binds nothing of ours), so none of this is a finding of the export.
 */
TEST(release_form_policy_judges_a_genuine_quotes_registers_against_the_release)
{
    struct world w;
    struct dcap_case c;
    struct mero_tee_policy p;
    struct mero_admit_request req;
    struct mero_audit_log log;
    struct mero_audit_findings f = {0};
    struct mero_err err = {0};
    int outcome = -1;
    use_shared_trusted_root();
    memset(&w, 0, sizeof(w));
    CHECK_OK(govt_open(&w.owner));
    CHECK_OK(govt_create_ns(&w.owner));
    memset(&p, 0, sizeof(p));
    p.form = MERO_POLICY_RELEASE;
    p.v2 = true;
    p.mode = MERO_TEE_MODE_REPLICA;
    p.accept_mock = true;
    CHECK_OK(mero_strlist_push(&p.profiles, "locked-read-only"));
    CHECK_OK(mero_gov_set_policy(w.owner.s, w.owner.ns, &p, NULL, NULL, NULL, NULL));
    mero_tee_policy_cleanup(&p);
    CHECK_OK(govt_tee_open(&w.tee, w.owner.ns));
    govt_tee_request(&w.tee, w.owner.ns, w.owner.ns, w.owner.ns, &req);
    CHECK_OK(mero_gov_admit_tee_node(w.owner.s, w.owner.ns, &req, &outcome, NULL, NULL));
    CHECK_EQ(outcome, MERO_ADMIT_ADMITTED);
    CHECK_OK(dcap_case_load(&c, "tdx/dcapqvl-1"));
    CHECK_OK(publish_evidence(&w, c.quote, c.quote_len, c.collateral_json, c.collateral_len,
                              c.verify_time));
    for (int pass = 0; pass < 3; pass++) {
        CHECK_OK(log_of(&w, (uint64_t)time(NULL), &log));
        if (pass == 0) {
            CHECK_OK(add_shared_release(&log, "v2.3.87"));
        }
        log.no_release_files = pass == 2;
        CHECK_OK(mero_audit_build(&log, &f, &err));
        CHECK_MSG(f.n == 0, "first finding: %s", f.n > 0 ? f.v[0] : "");
        const struct mero_audit_tee *t = the_tee(&log, w.tee.node.pk);
        size_t seen = 0;
        for (size_t k = 0; t != NULL && k < t->nev; k++) {
            const struct mero_audit_event *e = &t->ev[k];
            if (e->kind == MERO_AUDIT_ADMITTED) {
                CHECK_EQ(e->policy.verdict, MERO_AUDIT_OK); /* mock: no release to match */
            }
            if (e->kind != MERO_AUDIT_REFUSED) {
                continue;
            }
            seen++;
            CHECK_EQ(e->dcap.verdict, MERO_AUDIT_OK);
            CHECK_U64_EQ(e->release, MERO_AUDIT_NONE);
            if (pass == 0) {
                CHECK_EQ(e->policy.verdict, MERO_AUDIT_FAIL);
                CHECK_MSG(strstr(e->policy.msg, "match no allowed profile of the 1 exported") !=
                              NULL,
                          "%s", e->policy.msg);
            } else if (pass == 1) {
                CHECK_EQ(e->policy.verdict, MERO_AUDIT_FAIL);
                CHECK_MSG(strstr(e->policy.msg, "no exported signed release") != NULL, "%s",
                          e->policy.msg);
            } else {
                CHECK_EQ(e->policy.verdict, MERO_AUDIT_NA);
                CHECK(strstr(e->policy.msg, "--releases") != NULL);
            }
        }
        CHECK_U64_EQ(seen, 1);
        mero_audit_findings_cleanup(&f);
        mero_audit_log_cleanup(&log);
    }
    dcap_case_free(&c);
    world_close(&w);
}

MERO_TEST_MAIN(T(genuine_quotes_verify_offline_at_their_recorded_times),
               T(a_quote_outside_its_collaterals_window_reports_the_verifiers_reason),
               T(manifest_reader_refuses_what_leaves_the_folder),
               T(signed_releases_are_exported_and_verified_offline),
               T(sealed_subgroup_admissions_without_and_with_the_disclosed_plaintext),
               T(release_form_policy_judges_a_genuine_quotes_registers_against_the_release))
