/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sealed.c - the sealed transport's CPU costs (issue 31 "Speed": a handshake under 1 ms
 * of CPU): the node's side of a handshake (mero_sealed_respond: two X25519, HKDFs, two
 * AES-GCM), a whole handshake (both sides), and sealing plus opening a 1 KiB request and its
 * framed 4 KiB answer. CPU time of this process (CLOCK_PROCESS_CPUTIME_ID). Prints
 * `bench <name> <us> us/op`.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mero/crypto.h"
#include "mero/sealed.h"

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(void)
{
    uint8_t sk[MERO_X25519_LEN], pk[MERO_X25519_LEN], sid[MERO_SEALED_SESSION_ID_LEN];
    uint8_t m1[MERO_SEALED_MSG1_LEN], m2[MERO_SEALED_MSG2_LEN], got[MERO_SEALED_SESSION_ID_LEN];
    uint8_t hdr[MERO_SEALED_HEADER_LEN], body[4096], plain[8192];
    struct mero_sealed_keys k, ck;
    struct mero_sealed_client c;
    struct mero_buf env, frames;
    uint32_t life;
    const int n_hs = 2000, n_env = 20000;
    int bad = 0;
    if (mero_crypto_init() < 0) {
        return 1;
    }
    mero_x25519_keypair(pk, sk);
    memset(sid, 7, sizeof(sid));
    memset(body, 'x', sizeof(body));
    bad |= mero_sealed_initiate(&c, pk, NULL, m1);
    double t0 = cpu_us();
    for (int i = 0; i < n_hs; i++) {
        bad |= mero_sealed_respond(sk, NULL, m1, sizeof(m1), sid, 3600, m2, &k);
    }
    double t1 = cpu_us();
    for (int i = 0; i < n_hs; i++) {
        bad |= mero_sealed_initiate(&c, pk, NULL, m1);
        bad |= mero_sealed_respond(sk, NULL, m1, sizeof(m1), sid, 3600, m2, &k);
        bad |= mero_sealed_finish(&c, m2, sizeof(m2), got, &life, &ck);
    }
    double t2 = cpu_us();
    mero_buf_init(&env, 1u << 16);
    mero_buf_init(&frames, 1u << 16);
    for (int i = 0; i < n_env; i++) {
        size_t n = 0;
        mero_buf_reset(&env);
        mero_buf_reset(&frames);
        bad |= mero_sealed_request_seal(ck.request, got, (uint64_t)i + 1, body, 1024, &env);
        bad |= mero_sealed_request_open(k.request, env.data, env.len, plain, &n);
        mero_sealed_header(hdr, got, (uint64_t)i + 1);
        bad |= mero_sealed_frame_seal(k.response, hdr, 0, MERO_SEALED_HEAD, body, 64, &frames);
        bad |= mero_sealed_frame_seal(k.response, hdr, 1, MERO_SEALED_DATA, body, 4096, &frames);
        bad |= mero_sealed_frame_seal(k.response, hdr, 2, MERO_SEALED_END, NULL, 0, &frames);
    }
    double t3 = cpu_us();
    mero_buf_cleanup(&env);
    mero_buf_cleanup(&frames);
    if (bad != 0) {
        fprintf(stderr, "bench_sealed: a step failed\n");
        return 1;
    }
    printf("bench sealed_handshake_node_cpu %.1f us/op\n", (t1 - t0) / n_hs);
    printf("bench sealed_handshake_both_sides_cpu %.1f us/op\n", (t2 - t1) / n_hs);
    printf("bench sealed_envelope_1k_request_4k_answer_cpu %.2f us/op\n", (t3 - t2) / n_env);
    return 0;
}
