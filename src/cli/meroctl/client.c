/* SPDX-License-Identifier: Apache-2.0 */
/*
 * client.c - meroctl's HTTP client: one libcurl easy handle per call, JSON in and out, the
 * admin token read from a 0600 file (refused when looser, never taken from argv), a bounded
 * response (4 MiB), and the mapping from HTTP outcome to exit status documented in
 * man/meroctl.1: 0 ok, 1 bad input, 2 failed or refused, 3 unreachable (refused connection or
 * timeout), 4 authentication (401). It also keeps --json's promise of one document on stdout
 * (meroctl_json_begin/_end). meroctl_get_quiet is the one call that prints nothing: a progress
 * poll beside a long request (tee fleet-join), safe from a second thread (no shared state).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client_internal.h"
#include "mero/buf.h"
#include "mero/sizes.h"

#define RESPONSE_MAX    (4u << 20)
#define URL_MAX         2048 /* the request URL, NUL included */
#define QUIET_TIMEOUT_S 5L   /* a progress poll (meroctl_get_quiet) */

static void say(const char *fmt, va_list ap)
{
    fprintf(stderr, "meroctl: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
}

int meroctl_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return MEROCTL_USAGE;
}

int meroctl_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return code;
}

/* ---- --json: one document on stdout, whatever happens ---- */

static struct {
    bool on;
    FILE *real_out, *real_err, *held;
    char *held_text;
    size_t held_len;
    bool error_doc; /* meroctl_call printed the node's error envelope */
    char line[512]; /* the diagnostic line being written */
    size_t line_len;
    char first[512]; /* the first diagnostic ("meroctl..." lines win over others) */
    bool have_first, first_is_meroctl;
} jx;

static void diag_line_done(void)
{
    jx.line[jx.line_len] = 0;
    bool ours = strncmp(jx.line, "meroctl", 7) == 0;
    if (jx.line_len > 0 && (!jx.have_first || (ours && !jx.first_is_meroctl))) {
        const char *m = jx.line;
        const char *colon = ours ? strstr(jx.line, ": ") : NULL;
        if (colon != NULL) {
            m = colon + 2; /* "meroctl: x" and "meroctl quote verify: x" -> "x" */
        }
        snprintf(jx.first, sizeof(jx.first), "%s", m);
        jx.have_first = true;
        jx.first_is_meroctl = ours;
    }
    jx.line_len = 0;
}

static ssize_t diag_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    size_t w = fwrite(buf, 1, n, jx.real_err);
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            diag_line_done();
        } else if (jx.line_len + 1 < sizeof(jx.line)) {
            jx.line[jx.line_len++] = buf[i];
        }
    }
    return (ssize_t)w;
}

void meroctl_json_begin(bool json)
{
    if (!json) {
        return;
    }
    cookie_io_functions_t io = {.write = diag_write};
    FILE *held = open_memstream(&jx.held_text, &jx.held_len);
    FILE *err = fopencookie(NULL, "w", io);
    if (held == NULL || err == NULL) {
        if (held != NULL) {
            fclose(held);
        }
        return; /* plain streams: the JSON rule is best effort when memory is that short */
    }
    setvbuf(err, NULL, _IONBF, 0);
    jx.on = true;
    jx.real_out = stdout;
    jx.real_err = stderr;
    jx.held = held;
    stdout = held;
    stderr = err;
}

int meroctl_json_end(int rc)
{
    if (!jx.on) {
        return rc;
    }
    fflush(stdout);
    fclose(stderr);
    if (jx.line_len > 0) {
        diag_line_done();
    }
    stdout = jx.real_out;
    stderr = jx.real_err;
    fclose(jx.held);
    jx.on = false;
    if (rc != MEROCTL_OK && !jx.error_doc && jx.held_len == 0) {
        json_t *e = json_pack("{s:{s:i, s:s}}", "error", "code", rc, "message",
                              jx.have_first ? jx.first : "failed");
        char *t = e ? json_dumps(e, JSON_COMPACT) : NULL;
        if (t != NULL) {
            printf("%s\n", t);
        }
        free(t);
        json_decref(e);
    } else if (jx.held_len > 0) {
        fwrite(jx.held_text, 1, jx.held_len, stdout);
    }
    free(jx.held_text);
    fflush(stdout);
    return rc;
}

int meroctl_is_id(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)s[i])) {
            return 0;
        }
    }
    return n == MERO_ID_HEX_LEN;
}

int meroctl_path_segment(char *out, size_t cap, const char *seg)
{
    /* RFC 3986 unreserved characters pass, every other byte is %XX: '?', '#', '/', '%', a
     * space or a NUL-free control byte then reach the node as part of the segment (the node
     * decodes each segment on its own) instead of cutting or reshaping the path */
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)seg; *p != 0; p++) {
        bool plain = isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~';
        size_t need = plain ? 1 : 3;
        if (o + need >= cap) {
            return -MERO_ETOOBIG;
        }
        if (plain) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    if (o >= cap) {
        return -MERO_ETOOBIG;
    }
    out[o] = 0;
    return 0;
}

static int read_token(const struct meroctl_global *g, char *out, size_t cap)
{
    if (g->token_file == NULL) {
        fprintf(stderr, "meroctl: this command needs the admin token: --token-file F or "
                        "MERO_TOKEN_FILE\n");
        return MEROCTL_USAGE;
    }
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (issue 21 item 11: meroctl hung);
     * anything but a regular file is then refused */
    int fd = open(g->token_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "meroctl: cannot read token file %s\n", g->token_file);
        if (fd >= 0) {
            close(fd);
        }
        return MEROCTL_USAGE;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        fprintf(stderr,
                "meroctl: token file %s is not a regular file (give the node's admin-token)\n",
                g->token_file);
        return MEROCTL_USAGE;
    }
    if ((st.st_mode & 077) != 0) {
        close(fd);
        fprintf(stderr, "meroctl: token file %s must be mode 0600 (chmod 600 %s)\n", g->token_file,
                g->token_file);
        return MEROCTL_USAGE;
    }
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    if (n <= 0) {
        fprintf(stderr, "meroctl: token file %s is empty\n", g->token_file);
        return MEROCTL_USAGE;
    }
    out[n] = 0;
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) {
        out[--n] = 0;
    }
    /* a NUL inside would cut the header: what is sent must be the file's whole content (a
     * well-formed but wrong token is the node's to refuse: 401, exit 4) */
    if (strlen(out) != (size_t)n) {
        memset(out, 0, cap);
        fprintf(stderr, "meroctl: token file %s holds a NUL byte; it is not an admin token\n",
                g->token_file);
        return MEROCTL_USAGE;
    }
    return 0;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    struct mero_buf *b = ud;
    if (mero_buf_append(b, p, size * n) < 0) {
        return 0;
    }
    return size * n;
}

static int status_exit(long status)
{
    if (status == 401) {
        return MEROCTL_AUTH;
    }
    if (status == 400 || status == 404 || status == 405 || status == 413) {
        return MEROCTL_USAGE;
    }
    return MEROCTL_FAILED;
}

static const char *const (*flag_map)[2];

void meroctl_flag_names(const char *const (*map)[2])
{
    flag_map = map;
}

/* The node's message with each JSON field name the command sent replaced by its flag. */
static void name_flags(char *out, size_t cap, const char *msg)
{
    size_t o = 0;
    while (*msg != 0 && o + 1 < cap) {
        size_t skip = 0;
        const char *flag = NULL;
        for (size_t k = 0; flag_map != NULL && flag_map[k][0] != NULL; k++) {
            size_t n = strlen(flag_map[k][0]);
            /* whole names only: allowedRtmr1 is not allowedRtmr1x */
            if (strncmp(msg, flag_map[k][0], n) == 0 && !isalnum((unsigned char)msg[n]) &&
                n > skip) {
                skip = n;
                flag = flag_map[k][1];
            }
        }
        if (flag != NULL && o + strlen(flag) + 1 < cap) {
            memcpy(out + o, flag, strlen(flag));
            o += strlen(flag);
            msg += skip;
        } else {
            out[o++] = *msg++;
        }
    }
    out[o] = 0;
}

/*
 * One HTTP exchange, printing nothing: token NULL sends no Authorization. On a transport
 * answer, 0 with *cc CURLE_OK, *status and *root (owned, NULL when the body is not JSON); a
 * failed transfer is 0 with *cc set; an over-long URL -2; no curl handle -1.
 */
static int http_do(const struct meroctl_global *g, const char *method, const char *path,
                   json_t *body, const char *token, long timeout_s, long *status, json_t **root,
                   CURLcode *cc)
{
    char hdr[300];
    char url[URL_MAX];
    *status = 0;
    *root = NULL;
    *cc = CURLE_OK;
    int un = snprintf(url, sizeof(url), "%s%s", g->node, path);
    if (un < 0 || (size_t)un >= sizeof(url)) {
        return -MERO_ETOOBIG;
    }
    if (g->sealed) {
        return meroctl_sealed_do(g, method, path, body, token, timeout_s, status, root, cc);
    }
    CURL *c = curl_easy_init();
    if (c == NULL) {
        return -MERO_ENOMEM;
    }
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/json");
    if (token != NULL) {
        snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", token);
        h = curl_slist_append(h, hdr);
    }
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct mero_buf resp;
    mero_buf_init(&resp, RESPONSE_MAX);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (text != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
    }
    *cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    memset(hdr, 0, sizeof(hdr));
    free(text);
    if (*cc == CURLE_OK && resp.len > 0) {
        *root = json_loadb((const char *)resp.data, resp.len, 0, NULL);
    }
    mero_buf_cleanup(&resp);
    return 0;
}

int meroctl_read_token(const struct meroctl_global *g, char *out, size_t cap)
{
    return read_token(g, out, cap);
}

int meroctl_get_quiet(const struct meroctl_global *g, const char *path, const char *token,
                      json_t **data)
{
    long status;
    json_t *root;
    CURLcode cc;
    *data = NULL;
    if (g->node_error != NULL) {
        return -MERO_EINVAL;
    }
    if (http_do(g, "GET", path, NULL, token, QUIET_TIMEOUT_S, &status, &root, &cc) < 0 ||
        cc != CURLE_OK) {
        return -MERO_EIO;
    }
    json_t *d = json_object_get(root, "data");
    if (status >= 200 && status < 300 && d != NULL) {
        *data = json_incref(d);
    }
    json_decref(root);
    return (int)status;
}

int meroctl_call(const struct meroctl_global *g, const char *method, const char *path, json_t *body,
                 bool auth, json_t **data)
{
    char token[256];
    int rc;
    if (g->node_error != NULL) {
        return meroctl_usage_error("%s", g->node_error);
    }
    if (auth && (rc = read_token(g, token, sizeof(token))) != 0) {
        return rc;
    }
    long status;
    json_t *root;
    CURLcode cc;
    rc = http_do(g, method, path, body, auth ? token : NULL, (long)g->timeout_s, &status, &root,
                 &cc);
    memset(token, 0, sizeof(token));
    if (rc == -MERO_ETOOBIG) {
        return meroctl_usage_error("the request URL is longer than %zu bytes", (size_t)URL_MAX - 1);
    }
    if (rc < 0) {
        return MEROCTL_FAILED;
    }
    if (cc != CURLE_OK) {
        if (cc == CURLE_OPERATION_TIMEDOUT) {
            fprintf(stderr, "meroctl: %s: no answer within %d s (timed out; see --timeout)\n",
                    g->node, g->timeout_s);
        } else {
            fprintf(stderr, "meroctl: %s: %s\n", g->node, curl_easy_strerror(cc));
        }
        /* no answer at all, refused or timed out: the node is unreachable (man/meroctl.1) */
        return MEROCTL_UNREACHABLE;
    }
    if (status >= 200 && status < 300) {
        /* {"data": ...}, or a reference answer without the envelope ({"members": [...]}) */
        json_t *d = root ? json_object_get(root, "data") : NULL;
        *data = d ? json_incref(d) : root ? json_incref(root) : json_null();
        json_decref(root);
        return MEROCTL_OK;
    }
    const char *raw = json_string_value(json_object_get(json_object_get(root, "error"), "message"));
    char named[1024];
    name_flags(named, sizeof(named), raw ? raw : "request failed");
    const char *msg = named;
    fprintf(stderr, "meroctl: %ld: %s\n", status, msg);
    if (g->json) {
        json_t *e = json_pack("{s:{s:i, s:I, s:s}}", "error", "code", status_exit(status), "status",
                              (json_int_t)status, "message", msg);
        jx.error_doc = true;
        char *t = e ? json_dumps(e, JSON_COMPACT) : NULL;
        if (t != NULL) {
            printf("%s\n", t);
        }
        free(t);
        json_decref(e);
    }
    json_decref(root);
    return status_exit(status);
}

static void render(json_t *v, int indent, const char *key)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_object(v)) {
        if (key != NULL) {
            printf("%*s%s:\n", indent, "", key);
            indent += 2;
        }
        json_object_foreach(v, k, x)
        {
            render(x, indent, k);
        }
        return;
    }
    if (json_is_array(v)) {
        printf("%*s%s:%s\n", indent, "", key ? key : "items", json_array_size(v) ? "" : " (none)");
        json_array_foreach(v, i, x)
        {
            if (json_is_object(x)) {
                printf("%*s-\n", indent + 2, "");
                render(x, indent + 4, NULL);
            } else {
                render(x, indent + 2, "-");
            }
        }
        return;
    }
    char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
    const char *s = json_is_string(v) ? json_string_value(v) : (t ? t : "?");
    if (key != NULL && strcmp(key, "-") == 0) {
        printf("%*s- %s\n", indent, "", s);
    } else if (key != NULL) {
        printf("%*s%s: %s\n", indent, "", key, s);
    } else {
        printf("%*s%s\n", indent, "", s);
    }
    free(t);
}

void meroctl_print(const struct meroctl_global *g, json_t *data)
{
    if (g->json) {
        char *t = json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY);
        if (t != NULL) {
            printf("%s\n", t);
        }
        free(t);
        return;
    }
    if (g->quiet || data == NULL || json_is_null(data)) {
        return;
    }
    render(data, 0, NULL);
}

int meroctl_simple(const struct meroctl_global *g, const char *method, const char *path,
                   json_t *body, bool auth)
{
    json_t *data = NULL;
    int rc = meroctl_call(g, method, path, body, auth, &data);
    if (rc == MEROCTL_OK) {
        meroctl_print(g, data);
    }
    json_decref(data);
    return rc;
}
