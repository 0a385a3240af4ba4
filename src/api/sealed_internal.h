/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealed_internal.h - the admin API's sealed transport (issue 31, docs/sealed.md): the session
 * table (sealed_table.c) and the two envelope endpoints (sealed.c), private to src/api.
 *
 * Limits are core's (crates/server/src/sealed.rs, sealed/session.rs): a session lives an hour
 * at most and ten minutes unused; 16384 sessions at once, beyond which a new one displaces
 * first an unused one, then the least recently used; 4096 request ids remembered per session,
 * an id at or below the oldest forgotten one refused too; handshakes 100 a second after a
 * burst of 200, node-wide, else 503 `busy` with Retry-After: 1; expired sessions swept every
 * 30 s so their keys go even if nobody names them again.
 */
#ifndef MERO_API_SEALED_INTERNAL_H
#define MERO_API_SEALED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mero/sealed.h"

#define SEALED_MAX_SESSIONS  (1u << 14)
#define SEALED_LIFETIME_MS   ((uint64_t)MERO_SEALED_LIFETIME_S * 1000u)
#define SEALED_IDLE_MS       (10u * 60u * 1000u)
#define SEALED_REPLAY_WINDOW 4096u
#define SEALED_HS_PER_S      100u /* handshakes a second once the burst is spent */
#define SEALED_HS_BURST      200u
#define SEALED_SWEEP_MS      30000u

struct sealed_session {
    uint8_t id[MERO_SEALED_SESSION_ID_LEN];
    struct mero_sealed_keys keys;
    uint64_t expires_ms, idle_until_ms;
    bool used;      /* a request has opened under it */
    uint64_t floor; /* every request id at or below this is refused */
    uint64_t *seen; /* sorted, nseen <= SEALED_REPLAY_WINDOW (owned) */
    size_t nseen, cap;
};

struct sealed_table {
    struct sealed_session **slot; /* open addressing, SEALED_SLOTS entries */
    size_t n;
    uint64_t milli_tokens, refilled_ms; /* the handshake bucket, in thousandths of a token */
};

MERO_MUST_CHECK int mero__sealed_table_init(struct sealed_table *t, uint64_t now_ms);
/* Wipes every session's keys and frees the table. */
void mero__sealed_table_cleanup(struct sealed_table *t);
/* Take a handshake token: false when the bucket is empty (answer busy). */
bool mero__sealed_hs_admit(struct sealed_table *t, uint64_t now_ms);
/* Hold a new session (its keys copied), displacing one when the table is full: 0 or
 * -MERO_ENOMEM. */
MERO_MUST_CHECK int mero__sealed_insert(struct sealed_table *t,
                                        const uint8_t id[MERO_SEALED_SESSION_ID_LEN],
                                        const struct mero_sealed_keys *keys, uint64_t now_ms);
/* A live session (one past its lifetime or idle limit is dropped first), or NULL. */
struct sealed_session *mero__sealed_live(struct sealed_table *t,
                                         const uint8_t id[MERO_SEALED_SESSION_ID_LEN],
                                         uint64_t now_ms);
/* Record rid as used, once the request opened: 0; -MERO_ENOTFOUND (no live session),
 * -MERO_EEXIST (used before, or at or below the window's floor), -MERO_ENOMEM. */
MERO_MUST_CHECK int mero__sealed_admit(struct sealed_table *t,
                                       const uint8_t id[MERO_SEALED_SESSION_ID_LEN], uint64_t rid,
                                       uint64_t now_ms);
/* Drop every session past its lifetime or idle limit. */
void mero__sealed_expire(struct sealed_table *t, uint64_t now_ms);

/* An inner request's head, read (sealed_head.c): method and path always, the Authorization value
 * (NULL: none) and its length; borrowed from root (jansson's reading) or from the head's own
 * bytes (the fast reading, root NULL). */
struct sealed_head {
    json_t *root;
    const char *method, *path, *auth;
    size_t alen;
};
/* Read the head p[0..n): 0, or -MERO_EJSON when it is not {"method", "path", "headers": [[name,
 * value], ...]} exactly (a path not starting with '/', two Authorization headers). fast: try the
 * fast reading first, which may write NULs into p (after the strings it returns); false is
 * jansson's reading alone, the reference the tests compare with. Cleanup either way. */
MERO_MUST_CHECK int mero__sealed_head_parse(uint8_t *p, size_t n, bool fast, struct sealed_head *h);
void mero__sealed_head_cleanup(struct sealed_head *h);
/* The answer's head {"status", "headers": [content-type, cache-control: no-store,
 * x-content-type-options: nosniff]} as json_dumps(JSON_COMPACT) writes it (malloc'd; NULL when
 * out of memory). fast: by hand when ctype needs no escaping; false: jansson's own. */
char *mero__sealed_answer_head(int status, const char *ctype, bool fast);

struct api_req;
/* The two endpoints (sealed.c): answer r, a POST to /sealed/v2/handshake or /sealed/v2. */
void mero__api_sealed_handshake(struct api_req *r, struct sealed_table *t);
void mero__api_sealed_exchange(struct api_req *r, struct sealed_table *t);
/* An outer request ends (answered or its connection closed): its inner request, if still
 * pending, is left to free itself when it is answered. */
void mero__api_sealed_detach(struct api_req *r);
/* An inner request was answered (from http.c's reply path): seal its answer into its envelope,
 * if that is still there, and free it. */
void mero__api_sealed_inner_done(struct api_req *in);
/* The sealed-only refusal: true when a plaintext METHOD PATH is still served (what a client
 * needs to find the transport key). */
bool mero__api_sealed_plain_allowed(int method, const char *raw_path);

#endif
