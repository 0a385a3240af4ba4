/* SPDX-License-Identifier: Apache-2.0 */
/*
 * home.c - the node's data directory: `merod init` creates it and `merod run` opens it.
 *
 *   DIR/            0700
 *   DIR/config.json name, api address, listen multiaddrs (not secret, 0644)
 *   DIR/identity.key  Ed25519 seed, 32 raw bytes, 0600
 *   DIR/admin-token   64 lowercase hex chars + newline, 0600
 *   DIR/node.db       SQLite (WAL, synchronous=FULL), opened by db.c
 *   DIR/gov.db        the governance store (gov.h), created by init since issue 21
 *   DIR/merod.lock    the running merod's advisory lock (flock) and its pid, 0600
 *
 * Invariants: a secret file is created with O_EXCL and mode 0600 and written through a
 * temporary file renamed into place, so a crash never leaves a half-written key; opening
 * refuses a secret file readable or writable by group or others (-MERO_EKEYPERM) and a data
 * directory looser than 0700. Secrets are wiped from the stack after use. Their content is
 * validated whole before the node starts (issue 21 item 1): admin-token exactly 64 hex
 * characters plus an optional newline (no NUL, space or other byte anywhere), identity.key
 * exactly 32 bytes and not all zero; anything else refuses to start, naming the file and
 * the fix. `merod run` never creates a database `init` made: a missing, empty or
 * quick_check-failing node.db or gov.db stops the start with a message naming the file and
 * what to do. One merod owns a directory at a time: `merod run` takes an exclusive flock on
 * DIR/merod.lock before it reads anything else and holds it for the process's life (the
 * descriptor is never closed; the kernel drops the lock at exit, crash included), so a second
 * run on the same directory is refused at once and never touches the first one's run.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/gov.h"
#include "mero/log.h"
#include "node/db_internal.h"
#include "node/node_internal.h"
#include "node/service_internal.h"
#include "mero/net.h"

static int path_join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) {
        return -MERO_ETOOBIG;
    }
    return 0;
}

int mero__node_write_file(const char *path, const void *data, size_t len, int mode,
                          struct mero_err *err)
{
    char tmp[MERO_NODE_PATH_MAX + 8];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        return mero_err_set(err, MERO_ETOOBIG, "path too long");
    }
    (void)unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) {
        return mero_err_set(err, MERO_EIO, "cannot create %s: %s", tmp, strerror(errno));
    }
    const uint8_t *p = data;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, p + off, len - off);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            close(fd);
            (void)unlink(tmp);
            return mero_err_set(err, MERO_EIO, "cannot write %s: %s", tmp, strerror(e));
        }
        off += (size_t)w;
    }
    if (fchmod(fd, (mode_t)mode) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        (void)unlink(tmp);
        return mero_err_set(err, MERO_EIO, "cannot sync %s: %s", tmp, strerror(e));
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        (void)unlink(tmp);
        return mero_err_set(err, MERO_EIO, "cannot rename %s: %s", tmp, strerror(errno));
    }
    return 0;
}

int mero__node_write_secret(const char *path, const void *data, size_t len, struct mero_err *err)
{
    return mero__node_write_file(path, data, len, 0600, err);
}

int mero__node_read_secret(const char *path, void *out, size_t cap, size_t *len,
                           struct mero_err *err)
{
    /* O_NONBLOCK: a FIFO in the secret's place must be refused below, not wait for a writer */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        return mero_err_set(err, MERO_ENOTFOUND, "cannot open %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mero_err_set(err, MERO_EIO, "%s is not a regular file", path);
    }
    if ((st.st_mode & 077) != 0) {
        close(fd);
        return mero_err_set(err, MERO_EKEYPERM, "%s has mode %03o; it must be 0600", path,
                            (unsigned)(st.st_mode & 0777));
    }
    if ((size_t)st.st_size > cap) {
        close(fd);
        return mero_err_set(err, MERO_ETOOBIG, "%s is larger than expected", path);
    }
    size_t off = 0;
    while (off < (size_t)st.st_size) {
        ssize_t r = read(fd, (uint8_t *)out + off, (size_t)st.st_size - off);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            close(fd);
            return mero_err_set(err, MERO_EIO, "cannot read %s", path);
        }
        off += (size_t)r;
    }
    close(fd);
    *len = off;
    return 0;
}

int mero__node_check_token(const char *path, const char *tok, size_t n, struct mero_err *err)
{
    /* the whole content counts: a NUL, a space or any non-hex byte anywhere is refused, so the
     * token can never be shorter than 64 characters or guessable (issue 21 item 1) */
    if (n == MERO_TOKEN_HEX_LEN + 1 && tok[MERO_TOKEN_HEX_LEN] == '\n') {
        n--;
    }
    if (!mero_hex_is(tok, n, MERO_TOKEN_HEX_LEN / 2)) {
        return mero_err_set(err, MERO_EINVAL,
                            "%s must hold exactly 64 hex characters (and an optional newline); "
                            "write a new token with: (umask 077; openssl rand -hex 32 > %s)",
                            path, path);
    }
    return 0;
}

int mero__node_check_identity_key(const char *path, const uint8_t *seed, size_t n,
                                  struct mero_err *err)
{
    static const char fix[] =
        "restore the file from a backup, or move the data directory aside and run merod init "
        "(a new identity)";
    if (n != MERO_ED25519_SEED_LEN) {
        return mero_err_set(err, MERO_EINVAL, "%s must hold a 32-byte Ed25519 seed; %s", path, fix);
    }
    /* an all-zero seed is a publicly known key: anyone could act as this node */
    if (sodium_is_zero(seed, n)) {
        return mero_err_set(err, MERO_EINVAL,
                            "%s holds an all-zero key (publicly known, not a secret); %s", path,
                            fix);
    }
    return 0;
}

static int write_config(const char *home, const char *name, const char *listen, const char *api,
                        struct mero_err *err)
{
    json_t *cfg = json_pack("{s:s, s:s, s:[s]}", "name", name, "api", api, "listen", listen);
    if (cfg == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    char *text = json_dumps(cfg, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(cfg);
    if (text == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    char path[MERO_NODE_PATH_MAX];
    int rc;
    MERO_TRY_OUT(path_join(path, sizeof(path), home, "config.json"));
    rc = mero__node_write_file(path, text, strlen(text), 0644, err);
out:
    free(text);
    return rc;
}

int mero_node_init_home(const char *home, const char *name, const char *listen, const char *api,
                        struct mero_err *err)
{
    if (strlen(home) > MERO_NODE_PATH_MAX - MERO_NODE_HOME_FILE_ROOM) {
        return mero_err_set(err, MERO_ETOOBIG, "home path too long");
    }
    if (name == NULL || name[0] == 0) {
        name = "node";
    }
    if (strlen(name) >= MERO_NODE_NAME_MAX) {
        return mero_err_set(err, MERO_EINVAL, "--name is longer than %d bytes",
                            MERO_NODE_NAME_MAX - 1);
    }
    if (listen == NULL) {
        listen = MERO_DEFAULT_LISTEN;
    }
    if (api == NULL) {
        api = MERO_DEFAULT_API;
    }
    if (strlen(listen) >= MERO_NODE_ADDR_MAX || strlen(api) >= MERO_NODE_ADDR_MAX ||
        strncmp(listen, "/ip4/", 5) != 0 || strchr(api, ':') == NULL) {
        return mero_err_set(err, MERO_EINVAL, "bad --listen or --api address");
    }
    char parent[MERO_NODE_PATH_MAX];
    snprintf(parent, sizeof(parent), "%s", home);
    for (char *c = parent + 1; *c; c++) {
        if (*c == '/') {
            *c = 0;
            if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
                return mero_err_set(err, MERO_EIO, "cannot create %s: %s", parent, strerror(errno));
            }
            *c = '/';
        }
    }
    if (mkdir(home, 0700) != 0 && errno != EEXIST) {
        return mero_err_set(err, MERO_EIO, "cannot create %s: %s", home, strerror(errno));
    }
    if (chmod(home, 0700) != 0) {
        return mero_err_set(err, MERO_EIO, "cannot chmod %s: %s", home, strerror(errno));
    }
    char path[MERO_NODE_PATH_MAX];
    MERO_TRY(path_join(path, sizeof(path), home, "identity.key"));
    if (access(path, F_OK) == 0) {
        return mero_err_set(err, MERO_EEXIST, "%s is already initialised", home);
    }
    uint8_t seed[MERO_ED25519_SEED_LEN];
    mero_random(seed, sizeof(seed));
    int rc = mero__node_write_secret(path, seed, sizeof(seed), err);
    mero_wipe(seed, sizeof(seed));
    if (rc < 0) {
        return rc;
    }
    uint8_t raw[MERO_TOKEN_HEX_LEN / 2]; /* the admin token's random bytes */
    char token[MERO_TOKEN_HEX_LEN + 2];
    mero_random(raw, sizeof(raw));
    mero_hex_encode(token, raw, sizeof(raw));
    mero_wipe(raw, sizeof(raw));
    token[MERO_TOKEN_HEX_LEN] = '\n';
    MERO_TRY(path_join(path, sizeof(path), home, "admin-token"));
    rc = mero__node_write_secret(path, token, MERO_TOKEN_HEX_LEN + 1, err);
    mero_wipe(token, sizeof(token));
    if (rc < 0) {
        return rc;
    }
    MERO_TRY(write_config(home, name, listen, api, err));
    struct sqlite3 *db = NULL;
    struct mero_store *store = NULL;
    MERO_TRY(path_join(path, sizeof(path), home, "node.db"));
    MERO_TRY(mero__node_db_open(&db, path, true, err));
    /* gov.db too, and node.db records it: from now on neither is ever recreated empty */
    MERO_TRY_OUT(path_join(path, sizeof(path), home, "gov.db"));
    MERO_TRY_OUT(mero_store_open(path, &store, err));
    mero_store_close(store);
    store = NULL;
    MERO_ENSURE_OUT(mero__node_meta_set(db, MERO_META_GOV_DB, "created") == 0, err, MERO_EIO,
                    "cannot record gov.db in node.db");
out:
    mero_store_close(store);
    mero__node_db_close(db);
    return rc;
}

/* A database that fails to open or check: say what failed and what to do. */
static int db_refused(const char *home, const char *file, const char *what, struct mero_err *err)
{
    return mero_err_set(err, MERO_ESTATE,
                        "%s is corrupted (%.60s); not starting: `merod check --home %s` lists "
                        "the damage; restore %s from a backup or move the home aside and run "
                        "merod init again",
                        file, what, home, file);
}

int mero__node_open_gov(struct mero_node *node, struct mero_err *err)
{
    char path[MERO_NODE_PATH_MAX + 16];
    bool made = false;
    struct mero_err e = {0};
    snprintf(path, sizeof(path), "%s/gov.db", node->home);
    if (mero__node_meta_get(node->db, MERO_META_GOV_DB, &made) < 0) {
        return mero_err_set(err, MERO_EIO, "cannot read node_meta in node.db");
    }
    /* a home from before init made gov.db: its first open creates it, once */
    int rc = made ? mero_store_open_existing(path, &node->store, &e)
                  : mero_store_open(path, &node->store, &e);
    if (rc == -MERO_ESTATE && strstr(e.msg, " is corrupted: ") != NULL) {
        return db_refused(node->home, "gov.db", strstr(e.msg, " is corrupted: ") + 15, err);
    }
    if (rc < 0) {
        *err = e;
        return rc;
    }
    if (mero_store_check(node->store, false, &e) < 0) {
        MERO_ERROR("gov.db: %s", e.msg);
        return db_refused(node->home, "gov.db", e.msg, err);
    }
    if (!made && mero__node_meta_set(node->db, MERO_META_GOV_DB, "created") < 0) {
        return mero_err_set(err, MERO_EIO, "cannot record gov.db in node.db");
    }
    return 0;
}

int mero__node_check_gov(struct mero_node *node, struct mero_err *err)
{
    struct mero_err e = {0};
    const char *how = "seal";
    if (mero_gov_check_derived(node->store, &how, &e) < 0) {
        MERO_ERROR("gov.db: %s", e.msg);
        return mero_err_set(err, MERO_ESTATE,
                            "gov.db is damaged: %s; not starting: `merod check --home %s` lists "
                            "the damage; restore gov.db from a backup or move the home aside and "
                            "run merod init again",
                            e.msg, node->home);
    }
    node->gov_checked = true;
    MERO_INFO("gov.db: derived tables checked against %s",
              strcmp(how, "seal") == 0 ? "the seal of the last clean stop"
                                       : "a replay of the op log (no seal: the last stop was not "
                                         "clean)");
    return 0;
}

void mero__node_seal_gov(struct mero_node *node)
{
    struct mero_err e = {0};
    if (node->store == NULL || !node->gov_checked) {
        return; /* never seal tables that did not pass the start check */
    }
    if (mero_gov_seal_derived(node->store, &e) < 0) {
        MERO_WARN("gov.db: could not seal the derived tables (the next start replays): %s", e.msg);
    }
}

static int copy_str(char *out, size_t cap, json_t *v)
{
    const char *s = json_string_value(v);
    if (s == NULL || strlen(s) >= cap) {
        return -MERO_EINVAL;
    }
    snprintf(out, cap, "%s", s);
    return 0;
}

static int load_config(struct mero_node *node, struct mero_err *err)
{
    char path[MERO_NODE_PATH_MAX];
    MERO_TRY(path_join(path, sizeof(path), node->home, "config.json"));
    json_error_t je;
    json_t *cfg = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (cfg == NULL || !json_is_object(cfg)) {
        json_decref(cfg);
        return mero_err_set(err, MERO_EJSON, "%s: %s", path, je.text);
    }
    json_t *l = json_object_get(cfg, "listen");
    int rc;
    MERO_TRY_OUT(copy_str(node->cfg.name, sizeof(node->cfg.name), json_object_get(cfg, "name")));
    MERO_TRY_OUT(copy_str(node->cfg.api, sizeof(node->cfg.api), json_object_get(cfg, "api")));
    MERO_ENSURE_OUT(json_is_array(l) && json_array_size(l) <= MERO_NODE_MAX_LISTEN, NULL,
                    MERO_EINVAL, "listen");
    for (size_t i = 0; i < json_array_size(l); i++) {
        rc = copy_str(node->cfg.listen[i], MERO_NODE_ADDR_MAX, json_array_get(l, i));
        node->cfg.nlisten = i + 1;
        MERO_TRY_OUT(rc);
    }
out:
    if (rc < 0) {
        json_decref(cfg);
        return mero_err_set(err, MERO_EINVAL, "%s: bad name, api or listen", path);
    }
    rc = mero__node_netcfg_parse(cfg, path, &node->cfg, err);
    json_decref(cfg);
    return rc;
}

static int check_home(const char *home, struct mero_err *err)
{
    struct stat st;
    if (stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return mero_err_set(err, MERO_ENOTFOUND, "%s is not a directory (run merod init)", home);
    }
    if ((st.st_mode & 077) != 0) {
        return mero_err_set(err, MERO_EKEYPERM, "%s has mode %03o; it must be 0700", home,
                            (unsigned)(st.st_mode & 0777));
    }
    return 0;
}

/* The lock's descriptor: held (never closed) for the life of the process. */
static int home_lock_fd = -1;

int mero__node_lock_home(const char *home, struct mero_err *err)
{
    char path[MERO_NODE_PATH_MAX];
    char pid[24]; /* a pid in decimal, a newline and the NUL */
    if (home_lock_fd >= 0) {
        return 0; /* this process holds it already */
    }
    MERO_TRY(path_join(path, sizeof(path), home, "merod.lock"));
    bool writable = true;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == EROFS) {
        /* a read-only home: lock the file if it is there (flock needs no write access); if it
         * is not, nothing can write here and opening node.db for writing says so by name */
        writable = false;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 && errno == ENOENT) {
            return 0;
        }
    }
    if (fd < 0) {
        return mero_err_set(err, MERO_EIO, "cannot open %s: %s", path, strerror(errno));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        ssize_t n = read(fd, pid, sizeof(pid) - 1);
        close(fd);
        pid[n > 0 ? n : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        if (e == EWOULDBLOCK) {
            return mero_err_set(err, MERO_EBUSY,
                                "%s is in use by a running merod (pid %s); stop it first or "
                                "give another --home",
                                home, pid[0] ? pid : "unknown");
        }
        return mero_err_set(err, MERO_EIO, "cannot lock %s: %s", path, strerror(e));
    }
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (writable && (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)len) != len)) {
        MERO_WARN("could not record the pid in %s", path);
    }
    home_lock_fd = fd;
    return 0;
}

int mero_node_open(struct mero_node *node, const char *home, struct mero_err *err)
{
    int rc;
    char path[MERO_NODE_PATH_MAX];
    uint8_t seed[MERO_ED25519_SEED_LEN];
    size_t n = 0;
    char tok[MERO_TOKEN_HEX_LEN + 2];

    if (strlen(home) >= sizeof(node->home) - MERO_NODE_HOME_FILE_ROOM) {
        return mero_err_set(err, MERO_ETOOBIG, "home path too long");
    }
    snprintf(node->home, sizeof(node->home), "%s", home);
    MERO_TRY(check_home(home, err));
    MERO_TRY(mero__node_lock_home(home, err));
    MERO_TRY(load_config(node, err));

    MERO_TRY(path_join(path, sizeof(path), home, "identity.key"));
    MERO_TRY(mero__node_read_secret(path, seed, sizeof(seed), &n, err));
    rc = mero__node_check_identity_key(path, seed, n, err);
    if (rc < 0) {
        mero_wipe(seed, sizeof(seed));
        return rc;
    }
    node->id_sk = sodium_malloc(MERO_ED25519_SK_LEN);
    node->transport_sk = sodium_malloc(MERO_X25519_LEN);
    if (node->id_sk == NULL || node->transport_sk == NULL) {
        mero_wipe(seed, sizeof(seed));
        return mero_err_set(err, MERO_ENOMEM, "out of memory");
    }
    mero_ed25519_from_seed(node->id_pk, node->id_sk, seed);
    mero_wipe(seed, sizeof(seed));
    mero_x25519_keypair(node->transport_pk, node->transport_sk);
    MERO_TRY(mero_net_peer_id_from_pk(node->id_pk, node->peer_id));

    MERO_TRY(path_join(path, sizeof(path), home, "admin-token"));
    rc = mero__node_read_secret(path, tok, sizeof(tok), &n, err);
    if (rc < 0) {
        return rc;
    }
    rc = mero__node_check_token(path, tok, n, err);
    if (rc < 0) {
        mero_wipe(tok, sizeof(tok));
        return rc;
    }
    memcpy(node->token, tok, MERO_TOKEN_HEX_LEN);
    node->token[MERO_TOKEN_HEX_LEN] = 0;
    mero_wipe(tok, sizeof(tok));

    MERO_TRY(path_join(path, sizeof(path), home, "node.db"));
    struct mero_err e = {0};
    rc = mero__node_db_open(&node->db, path, false, &e);
    if (rc == -MERO_ESTATE && strstr(e.msg, " is corrupted: ") != NULL) {
        /* e.g. "file is not a database" */
        return db_refused(home, "node.db", strstr(e.msg, " is corrupted: ") + 15, err);
    }
    if (rc < 0) {
        *err = e;
        return rc;
    }
    if (mero__node_db_check(node->db, false, &e) < 0) {
        MERO_ERROR("node.db: %s", e.msg);
        return db_refused(home, "node.db", e.msg, err);
    }
    return 0;
}

void mero_node_close(struct mero_node *node)
{
    if (node->db != NULL) {
        mero__node_db_close(node->db);
        node->db = NULL;
    }
    sodium_free(node->id_sk);
    sodium_free(node->transport_sk);
    node->id_sk = NULL;
    node->transport_sk = NULL;
    mero_wipe(node->token, sizeof(node->token));
    for (size_t i = 0; i < node->nbootstrap; i++) {
        free(node->bootstrap[i]);
    }
    node->nbootstrap = 0;
}
