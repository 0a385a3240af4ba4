/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tee_info.c - what GET /tee/info reports about the host (spec "Admin API surface";
 * reference-calimero.md §1.6, §4.1): the MRTD from a quote made once at start-up through
 * configfs-tsm (real TDX), the all-zero MRTD of a mock quote (--mock-tee: MOCK_TDX_QUOTE_V1
 * carries no TD registers), and the cloud provider and OS image from the GCP metadata server:
 * GET <base>/computeMetadata/v1/instance/image with `Metadata-Flavor: Google`, 1 s timeout;
 * HTTP 200 means "gcp" and the body's last '/' segment is the image, anything else "unknown".
 * The base is http://metadata.google.internal, or MERO_GCP_METADATA_URL (docs/node.md).
 *
 * The facts are gathered once per process on a detached thread started by
 * mero_node_tee_info_start (not the loop's pool: a slow name lookup must not delay a stop), and
 * cached for the process's life under a mutex: the loop and the route never wait for them;
 * until they are known the route reports "unknown" and the zero MRTD.
 *
 * Invariants: a reported image is at most MERO_NODE_TEE_OS_IMAGE_MAX - 1 bytes of
 * [A-Za-z0-9._-] (anything else is "unknown"); the start-up quote's report data is 64 zero
 * bytes, it binds nothing and is never published; a failure leaves a fact "unknown", never a
 * guess.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/encoding.h"
#include "mero/log.h"
#include "mero/quote.h"
#include "mero/tsm.h"
#include "node/node_internal.h"
#include "node/tee_internal.h"

#define META_DEFAULT_BASE "http://metadata.google.internal"
#define META_IMAGE_PATH   "/computeMetadata/v1/instance/image"
#define META_TIMEOUT_MS   1000L
#define META_MAX_BODY     4096u /* an image's resource path is far shorter */
#define META_URL_MAX      512

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
    if (gcp_image(base != NULL && base[0] != '\0' ? base : META_DEFAULT_BASE, image)) {
        memcpy(out->cloud, "gcp", sizeof("gcp"));
        memcpy(out->os_image, image, sizeof(image));
    }
    return rc;
}

struct job {
    bool real;
    char base[META_URL_MAX];
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

void mero_node_tee_info_start(struct mero_node *node)
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
    struct job *j = calloc(1, sizeof(*j));
    if (j == NULL || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(j);
        return;
    }
    j->real = node->tee == MERO_TEE_REAL;
    const char *base = getenv("MERO_GCP_METADATA_URL");
    snprintf(j->base, sizeof(j->base), "%s", base != NULL ? base : "");
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
