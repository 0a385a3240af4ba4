/* SPDX-License-Identifier: Apache-2.0 */
/* net_fixture.h - request handlers shared by the network tests. */
#ifndef MERO_TEST_NET_FIXTURE_H
#define MERO_TEST_NET_FIXTURE_H

#include "mero/net.h"

/* Answers every request with the SHA-256 of its bytes (32 bytes): a large request is checked
 * whole by a small answer. */
void netf_sum_handler(void *ud, struct mero_net_req *req, const char *from, const uint8_t *d,
                      size_t n);

#endif
