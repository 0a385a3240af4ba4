/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify_memo.c - Ed25519 verification with a bounded memory of what verified (issue 33). A
 * re-fold of a namespace's governance judges every stored op again, and with it every TEE
 * admission's account credential and every key envelope: at a 40-TEE join burst those
 * signature checks were half of all the nodes' CPU. The answer for one (public key, signature,
 * message) is fixed, so a triple that verified once is answered from memory after.
 *
 * Invariants: only a triple that verified is remembered, under the SHA-256 of key || signature
 * || message (the key and signature have fixed lengths and the message comes last, so no two
 * triples concatenate alike), so a hit needs a hash collision to be wrong; a failure is never
 * remembered and is checked again every time. The memory is MERO_VERIFY_MEMO_SLOTS fixed slots
 * (direct-mapped, a newer triple replaces an older one in its slot: forgetting only costs a
 * verification), allocated once with the process, behind one mutex: any thread may call.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mero/crypto.h"

#define MEMO_KEY_LEN MERO_SHA256_LEN

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t memo[MERO_VERIFY_MEMO_SLOTS][MEMO_KEY_LEN]; /* all zero: nothing remembered */
static uint64_t memo_hits, memo_misses;

static void memo_key(uint8_t key[static MEMO_KEY_LEN], const uint8_t *sig, const void *msg,
                     size_t n, const uint8_t *pk)
{
    struct mero_sha256 st;
    mero_sha256_init(&st);
    mero_sha256_update(&st, pk, MERO_ED25519_PK_LEN);
    mero_sha256_update(&st, sig, MERO_ED25519_SIG_LEN);
    mero_sha256_update(&st, msg, n);
    mero_sha256_final(&st, key);
}

static size_t memo_slot(const uint8_t key[static MEMO_KEY_LEN])
{
    uint32_t x;
    memcpy(&x, key, sizeof(x));
    return x % MERO_VERIFY_MEMO_SLOTS;
}

int mero_ed25519_verify_memo(const uint8_t sig[static MERO_ED25519_SIG_LEN], const void *msg,
                             size_t n, const uint8_t pk[static MERO_ED25519_PK_LEN])
{
    uint8_t key[MEMO_KEY_LEN];
    memo_key(key, sig, msg, n, pk);
    size_t slot = memo_slot(key);
    pthread_mutex_lock(&memo_lock);
    bool hit = mero_ct_eq(memo[slot], key, MEMO_KEY_LEN);
    memo_hits += hit;
    memo_misses += !hit;
    pthread_mutex_unlock(&memo_lock);
    if (hit) {
        return 0;
    }
    int rc = mero_ed25519_verify(sig, msg, n, pk);
    if (rc == 0) {
        pthread_mutex_lock(&memo_lock);
        memcpy(memo[slot], key, MEMO_KEY_LEN);
        pthread_mutex_unlock(&memo_lock);
    }
    return rc;
}

void mero_ed25519_memo_stats(uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&memo_lock);
    *hits = memo_hits;
    *misses = memo_misses;
    pthread_mutex_unlock(&memo_lock);
}
