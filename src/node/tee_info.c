/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_info.c - what GET /tee/info reports about the host (spec "Admin API surface";
 * reference-calimero.md §1.6, §4.1): the MRTD from a quote made once at start-up through
 * configfs-tsm (real TDX), the all-zero MRTD of a mock quote (--mock-tee: MOCK_TDX_QUOTE_V1
 * carries no TD registers), and the cloud provider and OS image from the GCP metadata server:
 * GET <base>/computeMetadata/v1/instance/image with `Metadata-Flavor: Google`, 1 s timeout;
 * HTTP 200 means "gcp" and the body's last '/' segment is the image, anything else "unknown".
 *
 * Whether that server is asked at all is mero__tee_meta_decide's (issue 32; docs/node.md "TEE
 * detection"): a mock node never probes a cloud metadata service, it asks only a
 * MERO_GCP_METADATA_URL whose host is a numeric loopback address (the tests' local stand-in),
 * so a mock node makes no name lookup and no connection off the host; a real TDX node asks
 * MERO_GCP_METADATA_URL when it is set, else http://metadata.google.internal only when the
 * host's DMI (/sys/class/dmi/id) identifies it as Google Compute Engine. The choice and its
 * reason are logged at INFO once at start.
 *
 * The facts are gathered once per process on a detached thread started by
 * mero__node_tee_info_start (not the loop's pool: a slow name lookup must not delay a stop), and
 * cached for the process's life under a mutex: the loop and the route never wait for them;
 * until they are known the route reports "unknown" and the zero MRTD.
 *
 * Invariants: a reported image is at most MERO_NODE_TEE_OS_IMAGE_MAX - 1 bytes of
 * [A-Za-z0-9._-] (anything else is "unknown"); the start-up quote's report data is 64 zero
 * bytes, it binds nothing and is never published; a failure leaves a fact "unknown", never a
 * guess.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/quote.h"
#include "mero/tsm.h"
#include "node/node_internal.h"
#include "node/tee_internal.h"

#define META_IMAGE_PATH "/computeMetadata/v1/instance/image"
#define META_TIMEOUT_MS 1000L
#define META_MAX_BODY   4096u /* an image's resource path is far shorter */
#define META_URL_MAX    MERO_TEE_META_URL_MAX
#define DMI_DIR         "/sys/class/dmi/id"
#define DMI_TEXT_MAX    128 /* product_name and sys_vendor are short lines */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool started;
static struct mero_tee_facts cached = {.cloud = "unknown", .os_image = "unknown"};

struct body {
    char data[META_MAX_BODY + 1];
    size_t len;
    bool too_big;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct body *b = ud;
    size_t len = sz * n;
    if (len > META_MAX_BODY - b->len) {
        b->too_big = true;
        return 0;
    }
    memcpy(b->data + b->len, p, len);
    b->len += len;
    return len;
}

static bool image_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* The last '/' segment of body, whitespace-trimmed, if it is a plausible image name. */
static bool image_of(struct body *b, char out[MERO_NODE_TEE_OS_IMAGE_MAX])
{
    size_t end = b->len;
    while (end > 0 && (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' ||
                       b->data[end - 1] == ' ' || b->data[end - 1] == '\t')) {
        end--;
    }
    size_t start = end;
    while (start > 0 && b->data[start - 1] != '/') {
        start--;
    }
    size_t n = end - start;
    if (n == 0 || n >= MERO_NODE_TEE_OS_IMAGE_MAX) {
        return false;
    }
    for (size_t i = start; i < end; i++) {
        if (!image_char(b->data[i])) {
            return false;
        }
    }
    memcpy(out, b->data + start, n);
    out[n] = '\0';
    return true;
}

/* GCP metadata: "gcp" and the image, or false (nothing changed) when it is not reachable. */
static bool gcp_image(const char *base, char image[MERO_NODE_TEE_OS_IMAGE_MAX])
{
    char url[META_URL_MAX];
    if ((size_t)snprintf(url, sizeof(url), "%s%s", base, META_IMAGE_PATH) >= sizeof(url)) {
        return false;
    }
    CURL *h = curl_easy_init();
    if (h == NULL) {
        return false;
    }
    struct body *b = calloc(1, sizeof(*b));
    struct curl_slist *hdr = curl_slist_append(NULL, "Metadata-Flavor: Google");
    bool ok = false;
    if (b != NULL && hdr != NULL) {
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_NOPROXY, "*"); /* the metadata server is link-local */
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, META_TIMEOUT_MS);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, META_TIMEOUT_MS);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
        long code = 0;
        if (curl_easy_perform(h) == CURLE_OK &&
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 200 &&
            !b->too_big) {
            ok = image_of(b, image);
        }
    }
    curl_slist_free_all(hdr);
    free(b);
    curl_easy_cleanup(h);
    return ok;
}

int mero__tee_facts_collect(bool real, const char *base, struct mero_tee_facts *out)
{
    static const uint8_t rd[MERO_REPORT_DATA_LEN]; /* binds nothing: only the MRTD is read */
    int rc = 0;
    if (real) {
        uint8_t *q = NULL;
        size_t len = 0;
        struct mero_quote pq;
        struct mero_err err = {0};
        rc = mero_tsm_quote(rd, &q, &len, &err);
        if (rc == 0) {
            rc = mero_quote_parse(&pq, q, len, &err);
        }
        if (rc == 0) {
            memcpy(out->mrtd, pq.body.mrtd, sizeof(out->mrtd));
            out->have_mrtd = true;
        } else {
            MERO_WARN("tee/info: no start-up quote, the MRTD stays unknown: %s", err.msg);
        }
        free(q);
    }
    char image[MERO_NODE_TEE_OS_IMAGE_MAX];
    if (base != NULL && base[0] != '\0' && gcp_image(base, image)) {
        memcpy(out->cloud, "gcp", sizeof("gcp"));
        memcpy(out->os_image, image, sizeof(image));
    }
    return rc;
}

/* s, less its trailing whitespace, is exactly want. */
static bool text_is(const char *s, const char *want)
{
    if (s == NULL) {
        return false;
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    return n == strlen(want) && memcmp(s, want, n) == 0;
}

bool mero__tee_url_loopback(const char *url)
{
    const char *p;
    if (url == NULL) {
        return false;
    }
    if (strncasecmp(url, "http://", sizeof("http://") - 1) == 0) {
        p = url + sizeof("http://") - 1;
    } else if (strncasecmp(url, "https://", sizeof("https://") - 1) == 0) {
        p = url + sizeof("https://") - 1;
    } else {
        return false;
    }
    /* the authority; a userinfo's '@' is neither a host nor a port character: refused below */
    const char *end = p + strcspn(p, "/?#");
    char host[INET6_ADDRSTRLEN];
    const char *rest;
    if (*p == '[') {
        const char *close = memchr(p, ']', (size_t)(end - p));
        size_t n = close != NULL ? (size_t)(close - p - 1) : 0;
        struct in6_addr a6;
        if (n == 0 || n >= sizeof(host)) {
            return false;
        }
        memcpy(host, p + 1, n);
        host[n] = '\0';
        if (inet_pton(AF_INET6, host, &a6) != 1 || !IN6_IS_ADDR_LOOPBACK(&a6)) {
            return false;
        }
        rest = close + 1;
    } else {
        size_t n = strspn(p, "0123456789.");
        struct in_addr a4;
        if (n == 0 || n >= sizeof(host)) {
            return false;
        }
        memcpy(host, p, n);
        host[n] = '\0';
        /* inet_pton takes only the full dotted quad: no "127.1", no hex, no octal */
        if (inet_pton(AF_INET, host, &a4) != 1 || (ntohl(a4.s_addr) >> 24) != 127) {
            return false;
        }
        rest = p + n;
    }
    if (rest == end) {
        return true;
    }
    size_t digits = (size_t)(end - rest) - 1; /* after the ':' */
    return *rest == ':' && digits >= 1 && digits <= 5 && strspn(rest + 1, "0123456789") == digits;
}

void mero__tee_meta_decide(bool real, const char *env_url, const char *dmi_product,
                           const char *dmi_vendor, struct mero_tee_meta_choice *out)
{
    bool set = env_url != NULL && env_url[0] != '\0';
    *out = (struct mero_tee_meta_choice){.ask = false, .base = NULL, .why = NULL};
    if (set && strlen(env_url) >= META_URL_MAX) {
        out->why = "MERO_GCP_METADATA_URL is too long; it is ignored and nothing is asked";
        return;
    }
    if (!real) {
        if (!set) {
            out->why = "a mock node never probes a cloud metadata service";
        } else if (mero__tee_url_loopback(env_url)) {
            out->ask = true;
            out->base = env_url;
            out->why = "a mock node asks MERO_GCP_METADATA_URL, a numeric loopback address";
        } else {
            out->why = "a mock node asks MERO_GCP_METADATA_URL only when its host is a numeric "
                       "loopback address (127.0.0.0/8 or [::1]); it is not, so nothing is asked";
        }
        return;
    }
    if (set) {
        out->ask = true;
        out->base = env_url;
        out->why = "MERO_GCP_METADATA_URL is set";
    } else if (text_is(dmi_product, "Google Compute Engine") || text_is(dmi_vendor, "Google")) {
        out->ask = true;
        out->base = MERO_TEE_META_DEFAULT_BASE;
        out->why = "the host identifies as Google Compute Engine (DMI)";
    } else {
        out->why = "the host does not identify as Google Compute Engine (DMI) and "
                   "MERO_GCP_METADATA_URL is unset";
    }
}

/* The first line of a short sysfs file into buf ("" when unreadable). */
static void read_text(const char *path, char buf[DMI_TEXT_MAX])
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return;
    }
    size_t n = fread(buf, 1, DMI_TEXT_MAX - 1, f);
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

struct job {
    bool real;
    char base[META_URL_MAX]; /* "": no metadata server is asked */
};

static void *job_run(void *arg)
{
    struct job *j = arg;
    struct mero_tee_facts f = {.cloud = "unknown", .os_image = "unknown"};
    (void)mero__tee_facts_collect(j->real, j->base, &f);
    pthread_mutex_lock(&lock);
    cached = f;
    pthread_mutex_unlock(&lock);
    MERO_INFO("tee/info: cloud provider %s, OS image %s, MRTD %s", f.cloud, f.os_image,
              f.have_mrtd ? "from the start-up quote"
                          : (j->real ? "unknown" : "of the mock quote"));
    free(j);
    return NULL;
}

void mero__node_tee_info_start(struct mero_node *node)
{
    if (node->tee == MERO_TEE_NONE) {
        return; /* /tee/info answers 501 */
    }
    pthread_mutex_lock(&lock);
    bool first = !started;
    started = true;
    pthread_mutex_unlock(&lock);
    if (!first) {
        return; /* once per process */
    }
    bool real = node->tee == MERO_TEE_REAL;
    char product[DMI_TEXT_MAX] = "", vendor[DMI_TEXT_MAX] = "";
    if (real) { /* a mock node's choice never depends on the host */
        read_text(DMI_DIR "/product_name", product);
        read_text(DMI_DIR "/sys_vendor", vendor);
    }
    struct mero_tee_meta_choice c;
    mero__tee_meta_decide(real, getenv("MERO_GCP_METADATA_URL"), product, vendor, &c);
    MERO_INFO("tee/info: cloud metadata server %s: %s", c.ask ? "asked" : "not asked", c.why);
    struct job *j = calloc(1, sizeof(*j));
    if (j == NULL || (c.ask && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)) {
        free(j);
        return;
    }
    j->real = real;
    if (c.ask) {
        snprintf(j->base, sizeof(j->base), "%s", c.base); /* fits: decide checked its length */
    }
    /* a detached thread, not the loop's pool: a slow name lookup must never hold up a stop */
    pthread_t t;
    pthread_attr_t at;
    if (pthread_attr_init(&at) != 0) {
        free(j);
        return;
    }
    (void)pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, job_run, j) != 0) {
        free(j);
    }
    pthread_attr_destroy(&at);
}

void mero__tee_facts_get(struct mero_tee_facts *out)
{
    pthread_mutex_lock(&lock);
    *out = cached;
    pthread_mutex_unlock(&lock);
}
