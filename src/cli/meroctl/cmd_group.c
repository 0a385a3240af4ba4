/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_group.c - `meroctl group ...`: the TEE admission policy (set/get), members
 * (add/remove/list), leave and subgroups, over /admin-api/groups/:group_id/...
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "client_internal.h"
#include "mero/sizes.h"

static int group_path(char *out, size_t cap, const char *group, const char *rest)
{
    if (group == NULL || !meroctl_is_id(group)) {
        return meroctl_usage_error("a group or namespace id (64 hex) is required");
    }
    snprintf(out, cap, "/admin-api/groups/%s%s", group, rest);
    return 0;
}

static void push(json_t *body, const char *key, const char *value)
{
    json_t *a = json_object_get(body, key);
    if (a == NULL) {
        a = json_array();
        json_object_set_new(body, key, a);
    }
    json_array_append_new(a, json_string(value));
}

/* The TCB status names the node accepts (src/api/validate.c); Revoked never is. */
static const char *const tcb_names[] = {"UpToDate",
                                        "SWHardeningNeeded",
                                        "ConfigurationNeeded",
                                        "ConfigurationAndSWHardeningNeeded",
                                        "OutOfDate",
                                        "OutOfDateConfigurationNeeded"};

static const char *const policy_flags[][2] = {{"allowedMrtd", "--mrtd"},
                                              {"allowedRtmr0", "--rtmr0"},
                                              {"allowedRtmr1", "--rtmr1"},
                                              {"allowedRtmr2", "--rtmr2"},
                                              {"allowedRtmr3", "--rtmr3"},
                                              {"allowedTcbStatuses", "--tcb-status"},
                                              {"signedRelease.allowedProfiles", "--profile"},
                                              {"signedRelease.minReleaseVersion", "--min-release"},
                                              {"allowedProfiles", "--profile"},
                                              {"minReleaseVersion", "--min-release"},
                                              {"acceptMock", "--accept-mock"},
                                              {"requireSeptVeDisable", "--allow-sept-ve-enabled"},
                                              {"allowServiceTd", "--allow-service-td"},
                                              {"mode", "--mode"},
                                              {NULL, NULL}};

/* Check one list flag's value before anything is sent: 0, or a usage error naming the flag. */
static int check_list_value(const char *opt, const char *v)
{
    if (strcmp(opt, "--tcb-status") != 0) {
        size_t n = strlen(v);
        for (size_t i = 0; i < n; i++) {
            if (!isxdigit((unsigned char)v[i])) {
                n = 0;
                break;
            }
        }
        if (n != MERO_MR_HEX_LEN) {
            return meroctl_usage_error("%s takes 96 hex characters (48 bytes), not '%s'", opt, v);
        }
        return 0;
    }
    char names[256] = "";
    size_t o = 0;
    for (size_t k = 0; k < sizeof(tcb_names) / sizeof(tcb_names[0]); k++) {
        if (strcmp(v, tcb_names[k]) == 0) {
            return 0;
        }
        int w = snprintf(names + o, sizeof(names) - o, "%s%s", k ? ", " : "", tcb_names[k]);
        o += w > 0 ? (size_t)w : 0;
    }
    if (strcasecmp(v, "Revoked") == 0) {
        return meroctl_usage_error("--tcb-status Revoked is never allowed; use one of %s", names);
    }
    return meroctl_usage_error("--tcb-status '%s' is not a TCB status; use one of %s (exact case)",
                               v, names);
}

/* The policy's body from the arguments into body (*release: the signedRelease part, when a
 * flag names one; the caller frees both) and the group into *group: 0, or MEROCTL_USAGE after
 * the usage error is printed. */
static int policy_body(int argc, char **argv, json_t *body, json_t **release, const char **group)
{
    static const struct {
        const char *opt, *key;
    } lists[] = {{"--mrtd", "allowedMrtd"},   {"--rtmr0", "allowedRtmr0"},
                 {"--rtmr1", "allowedRtmr1"}, {"--rtmr2", "allowedRtmr2"},
                 {"--rtmr3", "allowedRtmr3"}, {"--tcb-status", "allowedTcbStatuses"}};
    const char *mode = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int done = 0;
        for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
            if (strcmp(a, lists[k].opt) == 0 && i + 1 < argc) {
                if (check_list_value(a, argv[i + 1]) != 0) {
                    return MEROCTL_USAGE;
                }
                push(body, lists[k].key, argv[++i]);
                done = 1;
                break;
            }
        }
        if (done) {
            continue;
        }
        if (strcmp(a, "--profile") == 0 && i + 1 < argc) {
            if (*release == NULL) {
                *release = json_object();
            }
            push(*release, "allowedProfiles", argv[++i]);
        } else if (strcmp(a, "--min-release") == 0 && i + 1 < argc) {
            if (*release == NULL) {
                *release = json_object();
            }
            json_object_set_new(*release, "minReleaseVersion", json_string(argv[++i]));
        } else if (strcmp(a, "--accept-mock") == 0) {
            json_object_set_new(body, "acceptMock", json_true());
        } else if (strcmp(a, "--allow-sept-ve-enabled") == 0) {
            json_object_set_new(body, "requireSeptVeDisable", json_false());
        } else if (strcmp(a, "--allow-service-td") == 0) {
            json_object_set_new(body, "allowServiceTd", json_true());
        } else if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
            mode = argv[++i];
        } else if (a[0] != '-' && *group == NULL) {
            *group = a;
        } else {
            return meroctl_usage_error("set-tee-admission-policy: unexpected argument %s", a);
        }
    }
    if (mode == NULL) {
        return meroctl_usage_error("--mode is required: replica or relay");
    }
    if (strcmp(mode, "replica") != 0 && strcmp(mode, "relay") != 0) {
        return meroctl_usage_error("--mode '%s' is not a mode; use one of replica, relay", mode);
    }
    json_object_set_new(body, "mode", json_string(mode));
    if (*release != NULL) {
        json_object_set(body, "signedRelease", *release);
    }
    return 0;
}

static int run_set_policy(const struct meroctl_global *g, int argc, char **argv)
{
    const char *group = NULL;
    json_t *body = json_object();
    json_t *release = NULL;
    char path[200];
    int rc = policy_body(argc, argv, body, &release, &group);
    if (rc == 0) {
        rc = group_path(path, sizeof(path), group, "/settings/tee-admission-policy");
    }
    if (rc == 0) {
        meroctl_flag_names(policy_flags);
        rc = meroctl_simple(g, "PUT", path, body, true);
    }
    json_decref(release);
    json_decref(body);
    return rc;
}

static int run_get_policy(const struct meroctl_global *g, int argc, char **argv)
{
    char path[200];
    int rc = group_path(path, sizeof(path), argc == 2 ? argv[1] : NULL,
                        "/settings/tee-admission-policy");
    return rc ? rc : meroctl_simple(g, "GET", path, NULL, true);
}

static int run_members_add(const struct meroctl_global *g, int argc, char **argv)
{
    const char *group = NULL, *id = NULL, *role = "Member";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--role") == 0 && i + 1 < argc) {
            role = argv[++i];
        } else if (argv[i][0] != '-' && group == NULL) {
            group = argv[i];
        } else if (argv[i][0] != '-' && id == NULL) {
            id = argv[i];
        } else {
            return meroctl_usage_error("members add: unexpected argument %s", argv[i]);
        }
    }
    if (id == NULL || !meroctl_is_id(id)) {
        return meroctl_usage_error("members add needs <GROUP> <IDENTITY> (64 hex each)");
    }
    char path[200];
    int rc = group_path(path, sizeof(path), group, "/members");
    if (rc != 0) {
        return rc;
    }
    /* the reference's addGroupMembers body: a batch of one */
    json_t *body = json_pack("{s:[{s:s, s:s}]}", "members", "identity", id, "role", role);
    rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

static int run_members_remove(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 3 || !meroctl_is_id(argv[2])) {
        return meroctl_usage_error("members remove needs <GROUP> <IDENTITY> (64 hex each)");
    }
    /* the reference's removeGroupMembers: POST .../members/remove {members: [account]} */
    char path[200];
    int rc = group_path(path, sizeof(path), argv[1], "/members/remove");
    if (rc != 0) {
        return rc;
    }
    json_t *body = json_pack("{s:[s]}", "members", argv[2]);
    rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

/* PUT .../members/:identity/role {"role": ROLE} (update_member_role) */
static int run_members_set_role(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 4 || !meroctl_is_id(argv[2])) {
        return meroctl_usage_error(
            "members set-role needs <GROUP> <IDENTITY> (64 hex each) <Admin|Member|ReadOnly>");
    }
    char rest[120], path[220];
    snprintf(rest, sizeof(rest), "/members/%s/role", argv[2]);
    int rc = group_path(path, sizeof(path), argv[1], rest);
    if (rc != 0) {
        return rc;
    }
    json_t *body = json_pack("{s:s}", "role", argv[3]);
    rc = meroctl_simple(g, "PUT", path, body, true);
    json_decref(body);
    return rc;
}

/* Issue 35 item 6: PUT .../members/:identity/label {"label": NAME}, the name this node shows for
 * the member in its fleet view; --clear: DELETE it. The node checks the name (1..64 bytes of
 * UTF-8, no control character). */
static int run_members_label(const struct meroctl_global *g, int argc, char **argv)
{
    if (argc != 4 || !meroctl_is_id(argv[2])) {
        return meroctl_usage_error(
            "members label needs <GROUP> <IDENTITY> (64 hex each) and <NAME> or --clear");
    }
    bool clear = strcmp(argv[3], "--clear") == 0;
    char rest[120], path[220];
    snprintf(rest, sizeof(rest), "/members/%s/label", argv[2]);
    int rc = group_path(path, sizeof(path), argv[1], rest);
    if (rc != 0) {
        return rc;
    }
    if (clear) {
        return meroctl_simple(g, "DELETE", path, NULL, true);
    }
    json_t *body = json_pack("{s:s}", "label", argv[3]);
    if (body == NULL) {
        return meroctl_usage_error("members label: NAME must be UTF-8");
    }
    rc = meroctl_simple(g, "PUT", path, body, true);
    json_decref(body);
    return rc;
}

static int run_members_list(const struct meroctl_global *g, int argc, char **argv)
{
    char path[200];
    int rc = group_path(path, sizeof(path), argc == 2 ? argv[1] : NULL, "/members");
    return rc ? rc : meroctl_simple(g, "GET", path, NULL, true);
}

static int run_leave(const struct meroctl_global *g, int argc, char **argv)
{
    char path[200];
    int rc = group_path(path, sizeof(path), argc == 2 ? argv[1] : NULL, "/leave");
    if (rc != 0) {
        return rc;
    }
    json_t *body = json_object();
    rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

static int run_subgroup_create(const struct meroctl_global *g, int argc, char **argv)
{
    const char *group = NULL, *vis = "open";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--visibility") == 0 && i + 1 < argc) {
            vis = argv[++i];
        } else if (argv[i][0] != '-' && group == NULL) {
            group = argv[i];
        } else {
            return meroctl_usage_error("subgroup create: unexpected argument %s", argv[i]);
        }
    }
    char path[200];
    int rc = group_path(path, sizeof(path), group, "/subgroups");
    if (rc != 0) {
        return rc;
    }
    json_t *body = json_pack("{s:s}", "visibility", vis);
    rc = meroctl_simple(g, "POST", path, body, true);
    json_decref(body);
    return rc;
}

static const struct meroctl_opt policy_opts[] = {
    {"--mrtd", "H", "an allowed MRTD, 96 hex characters (48 bytes)", NULL, NULL, true, false},
    {"--rtmr0", "H", "an allowed RTMR0, 96 hex (optional in the measurement form)", NULL, NULL,
     true, false},
    {"--rtmr1", "H", "an allowed RTMR1, 96 hex (the measurement form needs one)", NULL, NULL, true,
     false},
    {"--rtmr2", "H", "an allowed RTMR2, 96 hex (the measurement form needs one)", NULL, NULL, true,
     false},
    {"--rtmr3", "H", "an allowed RTMR3, 96 hex (the measurement form needs one)", NULL, NULL, true,
     false},
    {"--profile", "P", "a signed-release profile a quote may match (the signed-release form)", NULL,
     NULL, true, false},
    {"--min-release", "V", "the oldest signed release admitted, X.Y.Z (signed-release form)", NULL,
     NULL, false, false},
    {"--tcb-status", "S", "a TCB status admitted", NULL,
     "UpToDate|SWHardeningNeeded|ConfigurationNeeded|ConfigurationAndSWHardeningNeeded|OutOfDate|"
     "OutOfDateConfigurationNeeded",
     true, false},
    {"--accept-mock", NULL, "admit MOCK_TDX_QUOTE_V1 quotes (tests only)", "refused", NULL, false,
     false},
    {"--allow-sept-ve-enabled", NULL, "admit a TD without SEPT_VE_DISABLE", "refused", NULL, false,
     false},
    {"--allow-service-td", NULL, "admit a TD with a non-zero MRSERVICETD", "refused", NULL, false,
     false},
    {"--mode", "M", "what an admitted TEE becomes (required)", NULL, "replica|relay", false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt add_opts[] = {
    {"--role", "ROLE", "the member's role", "Member", "Admin|Member|ReadOnly", false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt label_opts[] = {
    {"--clear", NULL, "forget the member's label instead of setting one", NULL, NULL, false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

static const struct meroctl_opt subgroup_opts[] = {
    {"--visibility", "V",
     "who reaches the subgroup: every TEE of the root (open), or only those admitted to it with "
     "group tee-admit (restricted)",
     "open", "open|restricted", false, false},
    {NULL, NULL, NULL, NULL, NULL, false, false}};

MEROCTL_COMMANDS({"group settings set-tee-admission-policy",
                  "<NS> [--mrtd H]... [--rtmr0 H]... [--rtmr1 H]... [--rtmr2 H]... [--rtmr3 H]... "
                  "[--profile P]... [--min-release V] [--tcb-status S]... [--accept-mock] "
                  "[--allow-sept-ve-enabled] [--allow-service-td] --mode replica|relay",
                  "set the namespace's TEE admission policy (measurement or signed-release form)",
                  run_set_policy, policy_opts},
                 {"group settings get-tee-admission-policy", "<NS>",
                  "show the TEE admission policy", run_get_policy, NULL},
                 {"group members add", "<GROUP> <IDENTITY> [--role Admin|Member|ReadOnly]",
                  "add a member to a group", run_members_add, add_opts},
                 {"group members remove", "<GROUP> <IDENTITY>",
                  "remove a member (rotates the group key)", run_members_remove, NULL},
                 {"group members set-role", "<GROUP> <IDENTITY> <Admin|Member|ReadOnly>",
                  "move a member between Admin, Member and ReadOnly (TEE roles are locked)",
                  run_members_set_role, NULL},
                 {"group members label", "<GROUP> <IDENTITY> <NAME>|--clear",
                  "name a member in this node's fleet view (1..64 bytes of UTF-8; local to "
                  "this node)",
                  run_members_label, label_opts},
                 {"group members list", "<GROUP>",
                  "list members with roles (TEE rows with measurements)", run_members_list, NULL},
                 {"group leave", "<GROUP>", "leave a group", run_leave, NULL},
                 {"group subgroup create", "<GROUP> [--visibility open|restricted]",
                  "create a subgroup", run_subgroup_create, subgroup_opts})
