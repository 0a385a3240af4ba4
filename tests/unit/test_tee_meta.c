/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tee_meta.c - issue 32 item 1, "a mock node talks to the outside world": whether
 * /tee/info asks a cloud metadata server (mero__tee_meta_decide, src/node/tee_info.c). A mock
 * node never asks the default host (a name lookup) and asks MERO_GCP_METADATA_URL only when its
 * host is a numeric loopback address; a real node asks MERO_GCP_METADATA_URL when it is set,
 * else the default only on a host whose DMI names Google Compute Engine. Both functions are
 * pure: no file, no socket. tests/e2e/no_offhost_traffic.sh checks the running node.
 */
#include <string.h>

#include "harness.h"
#include "node/tee_internal.h"

#define GCE_PRODUCT "Google Compute Engine\n" /* /sys/class/dmi/id/product_name on GCE */
#define GCE_VENDOR  "Google\n"                /* /sys/class/dmi/id/sys_vendor on GCE */

static struct mero_tee_meta_choice decide(bool real, const char *env, const char *product,
                                          const char *vendor)
{
    struct mero_tee_meta_choice c;
    memset(&c, 0x5a, sizeof(c)); /* every field must be written */
    mero__tee_meta_decide(real, env, product, vendor, &c);
    return c;
}

TEST(a_mock_node_never_asks_the_default_host)
{
    /* not even on a host that identifies as GCE: a mock node's choice ignores the host */
    const char *envs[] = {NULL, ""};
    for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
        struct mero_tee_meta_choice c = decide(false, envs[i], GCE_PRODUCT, GCE_VENDOR);
        CHECK(!c.ask);
        CHECK(c.base == NULL);
        CHECK(c.why != NULL && strstr(c.why, "mock node never probes") != NULL);
    }
}

TEST(a_mock_node_asks_a_numeric_loopback_url)
{
    const char *urls[] = {"http://127.0.0.1:9",
                          "http://127.0.0.1",
                          "http://127.255.1.2:8080",
                          "HTTP://127.0.0.1:80/",
                          "https://127.0.0.1:443",
                          "http://[::1]:45678",
                          "http://[::1]",
                          "http://[0:0:0:0:0:0:0:1]:1/x?y#z",
                          "http://127.0.0.1:1?q"};
    for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        CHECK_MSG(mero__tee_url_loopback(urls[i]), "%s", urls[i]);
        struct mero_tee_meta_choice c = decide(false, urls[i], NULL, NULL);
        CHECK_MSG(c.ask && c.base == urls[i], "%s", urls[i]);
        CHECK(c.why != NULL && strstr(c.why, "loopback") != NULL);
    }
}

TEST(a_mock_node_refuses_any_other_url)
{
    /* names (a lookup), other addresses, look-alikes a lax parser would take for loopback */
    const char *urls[] = {"http://metadata.google.internal",
                          "http://localhost:9",
                          "http://169.254.169.254",
                          "http://10.0.0.1:80",
                          "http://0.0.0.0:9",
                          "http://127.0.0.1.example.com",
                          "http://127.0.0.1@192.0.2.1",
                          "http://user@127.0.0.1:9",
                          "http://127.0.0.1:9@192.0.2.1/",
                          "http://127.0.0.1:",
                          "http://127.0.0.1:123456",
                          "http://127.0.0.1:9x",
                          "http://127.1",
                          "http://0x7f.0.0.1",
                          "http://2130706433",
                          "http://127.0.0.01",
                          "http://[::1",
                          "http://[::2]:9",
                          "http://[::ffff:127.0.0.1]",
                          "http://[::1%25lo]:9",
                          "http://[]",
                          "ftp://127.0.0.1",
                          "127.0.0.1:9",
                          "http:/127.0.0.1",
                          "http://",
                          "",
                          NULL};
    for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        CHECK_MSG(!mero__tee_url_loopback(urls[i]), "%s", urls[i] ? urls[i] : "(null)");
        struct mero_tee_meta_choice c = decide(false, urls[i], GCE_PRODUCT, GCE_VENDOR);
        CHECK_MSG(!c.ask && c.base == NULL, "%s", urls[i] ? urls[i] : "(null)");
        CHECK(c.why != NULL);
    }
}

TEST(a_real_node_asks_the_configured_url)
{
    struct mero_tee_meta_choice c = decide(true, "http://10.1.2.3:8080", "Standard PC\n", "QEMU");
    CHECK(c.ask);
    CHECK_STR_EQ(c.base, "http://10.1.2.3:8080");
    CHECK_STR_EQ(c.why, "MERO_GCP_METADATA_URL is set");
    c = decide(true, "http://127.0.0.1:9", NULL, NULL);
    CHECK(c.ask);
    CHECK_STR_EQ(c.base, "http://127.0.0.1:9");
}

TEST(a_real_node_asks_the_default_only_on_gce)
{
    struct mero_tee_meta_choice c = decide(true, NULL, GCE_PRODUCT, "Google\n");
    CHECK(c.ask);
    CHECK_STR_EQ(c.base, MERO_TEE_META_DEFAULT_BASE);
    CHECK(strstr(c.why, "Google Compute Engine") != NULL);
    c = decide(true, "", "Google Compute Engine", NULL); /* product alone, no newline */
    CHECK(c.ask);
    CHECK_STR_EQ(c.base, MERO_TEE_META_DEFAULT_BASE);
    c = decide(true, NULL, NULL, GCE_VENDOR); /* vendor alone */
    CHECK(c.ask);
    /* any other host: nothing asked */
    const char *products[] = {"Standard PC (Q35 + ICH9, 2009)\n", "", "Google Compute Engine 2",
                              "google compute engine", " Google Compute Engine"};
    for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++) {
        c = decide(true, NULL, products[i], "QEMU\n");
        CHECK_MSG(!c.ask && c.base == NULL, "%s", products[i]);
        CHECK(strstr(c.why, "does not identify") != NULL);
    }
    c = decide(true, NULL, NULL, NULL); /* no DMI at all */
    CHECK(!c.ask);
    c = decide(true, NULL, "x", "Googles");
    CHECK(!c.ask);
}

TEST(a_url_too_long_is_never_asked)
{
    static char url[MERO_TEE_META_URL_MAX + 8];
    memcpy(url, "http://127.0.0.1:9/", sizeof("http://127.0.0.1:9/") - 1);
    memset(url + sizeof("http://127.0.0.1:9/") - 1, 'a',
           MERO_TEE_META_URL_MAX - sizeof("http://127.0.0.1:9/") + 1);
    url[MERO_TEE_META_URL_MAX] = '\0'; /* exactly MERO_TEE_META_URL_MAX bytes */
    CHECK(mero__tee_url_loopback(url));
    CHECK(!decide(false, url, NULL, NULL).ask);
    CHECK(!decide(true, url, GCE_PRODUCT, GCE_VENDOR).ask);
    url[MERO_TEE_META_URL_MAX - 1] = '\0'; /* one shorter: asked */
    CHECK(decide(false, url, NULL, NULL).ask);
    CHECK(decide(true, url, NULL, NULL).ask);
}

MERO_TEST_MAIN(T(a_mock_node_never_asks_the_default_host),
               T(a_mock_node_asks_a_numeric_loopback_url), T(a_mock_node_refuses_any_other_url),
               T(a_real_node_asks_the_configured_url), T(a_real_node_asks_the_default_only_on_gce),
               T(a_url_too_long_is_never_asked))
