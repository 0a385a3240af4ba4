/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys.c - the paged key pull (issue 16; spec "Key delivery": "the durable fallback is the
 * joiner-side recovery pull"; docs/admission.md "Reach"):
 *  - responder: GroupKeysRequest {namespace_id, group_id, held key ids} from a requester whose
 *    proof of possession verified (peer.c) and who reaches the group (a row there or one
 *    inherited through Open subgroups): one page of envelopes of the keys it lacks, newest
 *    first, each wrapped for the proven identity, and whether more remain;
 *  - requester: asks one peer, stores the page (the newest key as current when none is held,
 *    the others as past keys) and asks the same peer again for the next page while it says
 *    more and the page taught us something, at most MERO_KEY_PULL_PAGES_MAX pages;
 *  - the trigger: a read or an apply that meets a key id this node lacks asks up to 4
 *    connected peers, rate-limited per key id (mero__key_pull_allow), the next 4 at the next
 *    pull (mero__key_pull_window); after a fleet join every group the TEE reaches is pulled
 *    once;
 *  - the single-key recovery pull (GroupKeyRequest, mero__adm_key_pull): a fleet join that
 *    finds itself admitted before the KeyDelivery reached it asks connected peers for the
 *    namespace's current key, the same rotating few (mero__adm_pull_peers); the responder is
 *    peer.c's.
 *
 * Invariants: a key is wrapped only for the identity whose proof of possession verified and
 * only when that identity reaches the group; a page never carries more than
 * MERO_GROUP_KEYS_PAGE_MAX envelopes nor a key the request listed as held; a stored key is
 * one that opened from an envelope addressed to us; secrets are wiped after use.
 */
#include <stdlib.h>
#include <string.h>

#include "mero/crypto.h"
#include "mero/encoding.h"
#include "mero/keys.h"
#include "mero/log.h"
#include "node/admission/keys_internal.h"
#include "node/admission/service_internal.h"

size_t mero__keys_page(const uint8_t (*ours)[MERO_KEY_ID_LEN], size_t n, const uint8_t *held,
                       size_t nheld, size_t idx[MERO_GROUP_KEYS_PAGE_MAX], bool *more)
{
    size_t cnt = 0;
    *more = false;
    for (size_t i = 0; i < n; i++) {
        bool have = false;
        for (size_t j = 0; j < nheld && !have; j++) {
            have = memcmp(ours[i], held + j * MERO_KEY_ID_LEN, MERO_KEY_ID_LEN) == 0;
        }
        if (have) {
            continue;
        }
        if (cnt == MERO_GROUP_KEYS_PAGE_MAX) {
            *more = true;
            break;
        }
        idx[cnt++] = i;
    }
    return cnt;
}

bool mero__key_pull_allow(struct mero_key_pull_limit *l, const uint8_t group[MERO_GROUP_ID_LEN],
                          const uint8_t key_id[MERO_KEY_ID_LEN], uint64_t now_ms)
{
    struct mero_key_pull_entry *slot = NULL, *oldest = NULL;
    size_t recent = 0;
    for (size_t i = 0; i < MERO_KEY_PULL_TRACKED; i++) {
        struct mero_key_pull_entry *e = &l->e[i];
        if (!e->used) {
            if (slot == NULL) {
                slot = e;
            }
            continue;
        }
        bool fresh = now_ms >= e->at_ms && now_ms - e->at_ms < MERO_KEY_PULL_INTERVAL_MS;
        if (memcmp(e->group, group, MERO_GROUP_ID_LEN) == 0 &&
            memcmp(e->key_id, key_id, MERO_KEY_ID_LEN) == 0) {
            if (fresh) {
                return false;
            }
            slot = e; /* the same key id, asked long enough ago: ask again in its entry */
            continue;
        }
        recent += fresh;
        if (oldest == NULL || e->at_ms < oldest->at_ms) {
            oldest = e;
        }
    }
    if (recent >= MERO_KEY_PULL_BURST) {
        return false;
    }
    if (slot == NULL) {
        slot = oldest;
    }
    slot->used = true;
    memcpy(slot->group, group, MERO_GROUP_ID_LEN);
    memcpy(slot->key_id, key_id, MERO_KEY_ID_LEN);
    slot->at_ms = now_ms;
    return true;
}

/* ---- responder ---- */

void mero__adm_on_group_keys_request(struct mero_admission *a, struct mero_net_req *req,
                                     const struct mero_adm_init *m)
{
    struct mero_adm_msg r;
    struct mero_buf eb[MERO_GROUP_KEYS_PAGE_MAX];
    uint8_t(*ids)[MERO_KEY_ID_LEN] = NULL;
    uint8_t gns[MERO_NS_ID_LEN], key[MERO_GROUP_KEY_LEN];
    size_t nids = 0, idx[MERO_GROUP_KEYS_PAGE_MAX];
    int role = MERO_ROLE_NONE;
    memset(&r, 0, sizeof(r));
    r.kind = MERO_ADM_MSG_GROUP_KEYS;
    for (size_t i = 0; i < MERO_GROUP_KEYS_PAGE_MAX; i++) {
        mero_buf_init(&eb[i], MERO_ADM_MAX_ENVELOPE);
    }
    uint8_t *sk = sodium_malloc(MERO_ED25519_SK_LEN);
    /* not a member we serve, or nothing to serve: an empty page */
    bool serve = sk != NULL && mero_gov_namespace_of(a->env.store, m->group_id, gns) >= 0 &&
                 memcmp(gns, m->ns, sizeof(gns)) == 0 &&
                 mero_gov_reach_role(a->env.store, m->group_id, m->party_id, &role) >= 0 &&
                 role != MERO_ROLE_NONE && mero_gov_identity_secret(a->env.store, m->ns, sk) >= 0 &&
                 mero_gov_group_key_ids(a->env.store, m->group_id, &ids, &nids) >= 0;
    size_t n = serve ? mero__keys_page((const uint8_t(*)[MERO_KEY_ID_LEN])ids, nids, m->held,
                                       m->nheld, idx, &r.more)
                     : 0;
    for (size_t i = 0; i < n; i++) {
        struct mero_key_envelope env;
        if (mero_gov_group_key_by_id(a->env.store, m->group_id, ids[idx[i]], key) < 0 ||
            mero_envelope_wrap(&env, m->group_id, m->party_id, sk, key, NULL) < 0 ||
            mero_envelope_encode(&eb[r.nenvs], &env) < 0) {
            continue;
        }
        r.envs[r.nenvs] = eb[r.nenvs].data;
        r.env_lens[r.nenvs] = eb[r.nenvs].len;
        r.nenvs++;
    }
    mero_wipe(key, sizeof(key));
    if (sk != NULL) {
        sodium_free(sk);
    }
    (void)mero__adm_respond_msg(req, &r);
    for (size_t i = 0; i < MERO_GROUP_KEYS_PAGE_MAX; i++) {
        mero_buf_cleanup(&eb[i]);
    }
    free(ids);
}

/* ---- requester ---- */

struct keys_pull {
    struct mero_admission *a;
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t group[MERO_GROUP_ID_LEN];
    char peer[MERO_PEER_ID_STR_MAX];
    unsigned page;
};

static int keys_send(struct keys_pull *k);

/* Store the keys of one page (newest first). Returns how many were new to us. */
static size_t keys_store(struct keys_pull *k, const struct mero_adm_msg *m)
{
    struct mero_store *s = k->a->env.store;
    size_t learned = 0;
    for (size_t i = 0; i < m->nenvs; i++) {
        struct mero_key_envelope env;
        struct mero_cur c;
        uint8_t key[MERO_GROUP_KEY_LEN], id[MERO_KEY_ID_LEN], old[MERO_GROUP_KEY_LEN];
        mero_cur_init(&c, m->envs[i], m->env_lens[i]);
        if (mero_envelope_decode(&c, &env, NULL) < 0 || mero_cur_left(&c) != 0 ||
            mero_gov_unwrap(s, k->ns, k->group, &env, key, NULL) < 0) {
            continue;
        }
        mero_group_key_id(id, key);
        bool had = mero_gov_group_key_by_id(s, k->group, id, old) == 0;
        mero_wipe(old, sizeof(old));
        if (!had && mero_gov_group_key_put_past(s, k->group, key) == 0) {
            learned++;
        }
        mero_wipe(key, sizeof(key));
    }
    return learned;
}

static void keys_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    struct keys_pull *k = ud;
    struct mero_adm_msg m;
    if (status == 0 && !k->a->closing && mero__adm_msg_decode(data, len, &m, NULL) == 0 &&
        m.kind == MERO_ADM_MSG_GROUP_KEYS) {
        size_t learned = keys_store(k, &m);
        if (learned > 0) {
            k->a->keys_recovered += learned;
            char g[MERO_HEX_SIZE(8)];
            mero_hex_encode(g, k->group, 8);
            MERO_INFO("admission: %zu key(s) of group %s recovered through a GroupKeysRequest",
                      learned, g);
            if (k->a->env.keys_arrived != NULL) {
                k->a->env.keys_arrived(k->a->env.ud, k->group);
            }
        }
        /* the next page, while the responder has more and this one taught us something */
        if (m.more && learned > 0 && ++k->page < MERO_KEY_PULL_PAGES_MAX && keys_send(k) == 0) {
            return; /* k lives on in the next request */
        }
    }
    free(k);
}

static int keys_send(struct keys_pull *k)
{
    struct mero_adm_init m;
    uint8_t(*ids)[MERO_KEY_ID_LEN] = NULL;
    size_t n = 0;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_INIT_GROUP_KEYS_REQUEST;
    memcpy(m.ns, k->ns, sizeof(m.ns));
    memcpy(m.group_id, k->group, sizeof(m.group_id));
    MERO_TRY(mero__adm_pop(k->a, k->ns, m.party_id, m.pop, NULL));
    m.has_pop = true;
    MERO_TRY(mero_gov_group_key_ids(k->a->env.store, k->group, &ids, &n));
    m.held = n > 0 ? ids[0] : NULL;
    m.nheld = n < MERO_GROUP_KEYS_HELD_MAX ? n : MERO_GROUP_KEYS_HELD_MAX; /* the newest */
    int rc = mero__adm_init_send(k->a, k->peer, &m, keys_reply, k);
    free(ids);
    return rc;
}

void mero__adm_keys_pull(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                         const uint8_t group[MERO_GROUP_ID_LEN], const char *peer)
{
    struct keys_pull *k = calloc(1, sizeof(*k));
    if (k == NULL || a->closing) {
        free(k);
        return;
    }
    k->a = a;
    memcpy(k->ns, ns, sizeof(k->ns));
    memcpy(k->group, group, sizeof(k->group));
    snprintf(k->peer, sizeof(k->peer), "%s", peer);
    if (keys_send(k) < 0) {
        free(k);
    }
}

/* ---- GroupKeyRequest, the joiner's recovery pull ---- */

struct key_pull {
    struct mero_admission *a;
    uint8_t ns[MERO_NS_ID_LEN];
};

static void key_reply(void *ud, int status, const uint8_t *data, size_t len)
{
    struct key_pull *k = ud;
    struct mero_adm_msg m;
    struct mero_key_envelope env;
    struct mero_cur c;
    uint8_t key[MERO_GROUP_KEY_LEN];
    if (status == 0 && !k->a->closing && mero__adm_msg_decode(data, len, &m, NULL) == 0 &&
        m.kind == MERO_ADM_MSG_GROUP_KEY && m.envelope != NULL) {
        mero_cur_init(&c, m.envelope, m.envelope_len);
        if (mero_envelope_decode(&c, &env, NULL) == 0 &&
            mero_gov_unwrap(k->a->env.store, k->ns, k->ns, &env, key, NULL) == 0 &&
            mero_gov_group_key_put(k->a->env.store, k->ns, key) == 0) {
            k->a->keys_recovered++;
            MERO_INFO("admission: group key recovered through a GroupKeyRequest");
        }
        mero_wipe(key, sizeof(key));
    }
    free(k);
}

void mero__adm_key_pull(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                        const char *peer)
{
    struct mero_adm_init m;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_INIT_GROUP_KEY_REQUEST;
    memcpy(m.ns, ns, sizeof(m.ns));
    memcpy(m.group_id, ns, sizeof(m.group_id)); /* the namespace's root group */
    if (mero__adm_pop(a, ns, m.party_id, m.pop, NULL) < 0) {
        return;
    }
    m.has_pop = true;
    struct key_pull *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        return;
    }
    k->a = a;
    memcpy(k->ns, ns, sizeof(k->ns));
    int rc = mero__adm_init_send(a, peer, &m, key_reply, k);
    if (rc < 0) {
        free(k);
    }
}

size_t mero__key_pull_window(size_t n, size_t *next, size_t idx[MERO_KEY_PULL_PEERS])
{
    size_t k = n < MERO_KEY_PULL_PEERS ? n : MERO_KEY_PULL_PEERS;
    for (size_t i = 0; i < k; i++) {
        idx[i] = (*next + i) % n;
    }
    *next = n > 0 ? (*next + k) % n : 0;
    return k;
}

size_t mero__adm_pull_peers(struct mero_admission *a,
                            char out[MERO_KEY_PULL_PEERS][MERO_PEER_ID_STR_MAX])
{
    char peers[MERO_KEY_PULL_SCAN][MERO_PEER_ID_STR_MAX];
    size_t idx[MERO_KEY_PULL_PEERS];
    size_t n = mero_net_connected_peers(a->env.net, peers, MERO_KEY_PULL_SCAN);
    n = n < MERO_KEY_PULL_SCAN ? n : MERO_KEY_PULL_SCAN;
    size_t k = mero__key_pull_window(n, &a->key_limit.next, idx);
    for (size_t i = 0; i < k; i++) {
        memcpy(out[i], peers[idx[i]], MERO_PEER_ID_STR_MAX);
    }
    return k;
}

static void pull_from_peers(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                            const uint8_t group[MERO_GROUP_ID_LEN])
{
    char peers[MERO_KEY_PULL_PEERS][MERO_PEER_ID_STR_MAX];
    size_t k = mero__adm_pull_peers(a, peers);
    for (size_t i = 0; i < k; i++) {
        mero__adm_keys_pull(a, ns, group, peers[i]);
    }
}

void mero__adm_key_missing(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t group[MERO_GROUP_ID_LEN],
                           const uint8_t key_id[MERO_KEY_ID_LEN])
{
    uint8_t pk[MERO_IDENTITY_LEN];
    int role = MERO_ROLE_NONE;
    if (a == NULL || a->closing || mero_gov_identity(a->env.store, ns, false, pk, NULL) < 0 ||
        mero_gov_reach_role(a->env.store, group, pk, &role) < 0 || role == MERO_ROLE_NONE) {
        return; /* a group we do not reach: no member will (or should) hand us its keys */
    }
    if (!mero__key_pull_allow(&a->key_limit, group, key_id, mero__adm_now(a))) {
        return;
    }
    char g[MERO_HEX_SIZE(8)], id[MERO_HEX_SIZE(8)];
    mero_hex_encode(g, group, 8);
    mero_hex_encode(id, key_id, 8);
    MERO_INFO("admission: key %s… of group %s… is not held here: asking connected peers", id, g);
    pull_from_peers(a, ns, group);
}

void mero__adm_keys_pull_reach(struct mero_admission *a, const uint8_t ns[MERO_NS_ID_LEN])
{
    uint8_t pk[MERO_IDENTITY_LEN];
    uint8_t(*g)[MERO_GROUP_ID_LEN] = NULL;
    size_t n = 0;
    if (mero_gov_identity(a->env.store, ns, false, pk, NULL) < 0 ||
        mero_gov_reached_groups(a->env.store, ns, pk, &g, &n) < 0) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pull_from_peers(a, ns, g[i]);
    }
    free(g);
}
