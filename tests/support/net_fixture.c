/* SPDX-License-Identifier: Apache-2.0 */
/* net_fixture.c - request handlers shared by the network tests (see net_fixture.h). */
#include "support/net_fixture.h"

#include "mero/crypto.h"
#include "mero/log.h"

void netf_sum_handler(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d,
                      size_t n)
{
    uint8_t h[32];
    (void)ud;
    (void)from;
    mero_sha256(h, d, n);
    if (mero_net_respond(req, h, sizeof(h)) < 0) {
        MERO_WARN("test handler: respond failed");
    }
}
