/* SPDX-License-Identifier: Apache-2.0 */
/*
 * msg_internal.h - the admission wire messages (spec "The admission handshake",
 * reference-calimero.md §5.1) and the proof of possession. Private to src/node; the byte
 * layout and the tag values we chose (the reference leaves them UNVERIFIED) are in
 * docs/admission.md.
 *
 * Gossip (topic ns/<hex>): BroadcastMessage::TeeAdmissionPrompt, the tag byte alone.
 * Streams (net request/response on MERO_ADM_PROTOCOL): the request frame is a
 * StreamMessage::Init {context_id, party_id, InitPayload, pop: Option<[64]>}; the response
 * frame a StreamMessage::Message {sequence_id u64, MessagePayload}.
 *
 * Decoded byte strings (quote, credential, envelope) borrow from the input frame.
 */
#ifndef MERO_NODE_ADMISSION_MSG_H
#define MERO_NODE_ADMISSION_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/buf.h"
#include "mero/err.h"
#include "mero/sizes.h"

#define MERO_ADM_PROTOCOL        "/mero/tee-admission/1"
#define MERO_ADM_MAX_REASON_LEN  256u   /* TeeAdmissionRefused::MAX_REASON_LEN */
#define MERO_ADM_MAX_REASON_WIRE 1024u  /* longest reason accepted before it is cut */
#define MERO_ADM_MAX_QUOTE_WIRE  65536u /* frame bound; verify_and_admit refuses > 16 KiB */
#define MERO_ADM_MAX_CREDENTIAL  4096u
#define MERO_ADM_MAX_RELEASE_LEN 64u
#define MERO_ADM_MAX_ENVELOPE    4096u
#define MERO_ADM_MAX_FRAME       (MERO_ADM_MAX_QUOTE_WIRE + 16384u)
#define MERO_ADM_POP_DOMAIN      "calimero:sync:init-pop:v1"
#define MERO_ADM_PEER_BYTES_MAX  64u
/* the proof-of-possession message: domain || namespace || party id || peer id bytes */
#define MERO_ADM_POP_MSG_MAX                                                                       \
    (sizeof(MERO_ADM_POP_DOMAIN) - 1u + MERO_NS_ID_LEN + MERO_IDENTITY_LEN +                       \
     MERO_ADM_PEER_BYTES_MAX)

/* BroadcastMessage tags on ns/<hex> (ours; see docs/admission.md). */
#define MERO_BCAST_TEE_ADMISSION_PROMPT 0xA2u
#define MERO_ADM_PROMPT_LEN             1u /* a prompt is its tag byte alone */

/* StreamMessage tags */
#define MERO_STREAM_INIT    0u
#define MERO_STREAM_MESSAGE 1u

enum mero_adm_init_kind {
    MERO_ADM_INIT_CHALLENGE_REQUEST = 0x20,
    MERO_ADM_INIT_CHALLENGE_OFFER = 0x21,
    MERO_ADM_INIT_ADMISSION_REQUEST = 0x22,
    MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST = 0x23, /* appended at the enum's tail */
    MERO_ADM_INIT_GROUP_KEY_REQUEST = 0x24,
    /* ours, appended at the tail (issue 18): the admitter's verdict on a quote that answered
     * its offer, so a refusal on the prompt path reaches the joiner (docs/admission.md) */
    MERO_ADM_INIT_VERDICT = 0x25,
    /* ours, appended at the tail (issue 16): the paged pull of every key the requester lacks
     * (docs/admission.md "Reach") */
    MERO_ADM_INIT_GROUP_KEYS_REQUEST = 0x26,
};

enum mero_adm_msg_kind {
    MERO_ADM_MSG_CHALLENGE = 0x20,
    MERO_ADM_MSG_RESPONSE = 0x21,
    MERO_ADM_MSG_OFFER_REPLY = 0x22,
    MERO_ADM_MSG_GROUP_KEY = 0x23,
    MERO_ADM_MSG_GROUP_KEYS = 0x24, /* ours (issue 16): a page of GroupKeysResponse */
};

/* StreamMessage::Init with one of the InitPayload variants above. */
struct mero_adm_init {
    enum mero_adm_init_kind kind;
    uint8_t context_id[MERO_CONTEXT_ID_LEN]; /* all-zero sentinel: namespace-scoped */
    uint8_t party_id[MERO_IDENTITY_LEN];     /* requester's namespace identity (zero in an offer) */
    bool has_pop;
    uint8_t pop[MERO_ED25519_SIG_LEN];
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t challenge[MERO_NONCE_LEN]; /* offer, admission requests */
    const uint8_t *quote;              /* admission requests */
    size_t quote_len;
    uint8_t public_key[MERO_IDENTITY_LEN]; /* admission requests */
    const uint8_t *credential;             /* admission requests: JoinAccountCredential bytes */
    size_t credential_len;
    char release[MERO_ADM_MAX_RELEASE_LEN + 1]; /* release request only */
    uint8_t group_id[MERO_GROUP_ID_LEN];        /* group key request */
    bool admitted;                              /* verdict */
    char reason[MERO_ADM_MAX_REASON_LEN + 1];   /* verdict: cut, valid UTF-8 */
    /* ---- issue 16: GroupKeysRequest (group_id above): the key ids the requester holds,
     * nheld * MERO_KEY_ID_LEN bytes (nheld <= MERO_GROUP_KEYS_HELD_MAX), borrowed ---- */
    const uint8_t *held;
    size_t nheld;
};

/* StreamMessage::Message with one of the MessagePayload variants above. */
struct mero_adm_msg {
    enum mero_adm_msg_kind kind;
    uint64_t sequence_id;
    uint8_t challenge[MERO_NONCE_LEN];        /* challenge */
    bool admitted;                            /* response */
    char reason[MERO_ADM_MAX_REASON_LEN + 1]; /* response: cut, valid UTF-8 */
    bool offered;                             /* offer reply: Some(...) */
    const uint8_t *quote;                     /* offer reply */
    size_t quote_len;
    uint8_t public_key[MERO_IDENTITY_LEN]; /* offer reply */
    const uint8_t *credential;             /* offer reply */
    size_t credential_len;
    bool has_release; /* offer reply: release_version Some */
    char release[MERO_ADM_MAX_RELEASE_LEN + 1];
    const uint8_t *envelope; /* group key: Option<KeyEnvelope bytes> */
    size_t envelope_len;
    /* ---- issue 16: GroupKeysResponse: up to MERO_GROUP_KEYS_PAGE_MAX envelopes (newest key
     * first), borrowed, and whether the responder holds more keys the requester lacks ---- */
    const uint8_t *envs[MERO_GROUP_KEYS_PAGE_MAX];
    size_t env_lens[MERO_GROUP_KEYS_PAGE_MAX];
    size_t nenvs;
    bool more;
};

/* The gossip prompt: one byte. */
MERO_MUST_CHECK int mero__adm_prompt_encode(struct mero_buf *b);
/* 1 when data is a TeeAdmissionPrompt, 0 otherwise (another broadcast message). */
int mero__adm_is_prompt(const uint8_t *data, size_t len);

MERO_MUST_CHECK int mero__adm_init_encode(struct mero_buf *b, const struct mero_adm_init *m);
/* Decode a whole frame; trailing bytes, unknown tags, over-long fields are refused. */
MERO_MUST_CHECK int mero__adm_init_decode(const uint8_t *p, size_t len, struct mero_adm_init *m,
                                          struct mero_err *err);
MERO_MUST_CHECK int mero__adm_msg_encode(struct mero_buf *b, const struct mero_adm_msg *m);
MERO_MUST_CHECK int mero__adm_msg_decode(const uint8_t *p, size_t len, struct mero_adm_msg *m,
                                         struct mero_err *err);

/* A release name: 1..MAX_RELEASE_LEN bytes of [0-9A-Za-z.+_-] (semantic versions and tags). */
bool mero__adm_release_ok(const char *s, size_t n);

/* Convenience: a TeeAdmissionResponse frame with the reason cut to MAX_REASON_LEN. */
MERO_MUST_CHECK int mero__adm_response_encode(struct mero_buf *b, bool admitted,
                                              const char *reason);

/*
 * Copy `in` (n bytes) into out[MERO_ADM_MAX_REASON_LEN + 1] as a reason: invalid UTF-8 and
 * control characters become '?', and the text is cut to at most MAX_REASON_LEN bytes at a
 * character boundary.
 */
void mero__adm_reason_cut(char out[static MERO_ADM_MAX_REASON_LEN + 1], const char *in, size_t n);

/*
 * Proof of possession: Ed25519 by the requester's namespace identity over
 * "calimero:sync:init-pop:v1" || namespace_id || party_id || dialer PeerId bytes.
 * sign: `sk` is the namespace identity secret key (libsodium form), party_id its pk.
 * verify: 0 when sig verifies under party_id for the Noise-authenticated `peer` bytes;
 * -MERO_EBADSIG otherwise.
 */
MERO_MUST_CHECK int mero__adm_pop_sign(uint8_t sig[static MERO_ED25519_SIG_LEN],
                                       const uint8_t ns[static MERO_NS_ID_LEN],
                                       const uint8_t party_id[static MERO_IDENTITY_LEN],
                                       const uint8_t *peer, size_t peer_len,
                                       const uint8_t sk[static MERO_ED25519_SK_LEN]);
MERO_MUST_CHECK int mero__adm_pop_verify(const uint8_t sig[static MERO_ED25519_SIG_LEN],
                                         const uint8_t ns[static MERO_NS_ID_LEN],
                                         const uint8_t party_id[static MERO_IDENTITY_LEN],
                                         const uint8_t *peer, size_t peer_len);

#endif
