/* SPDX-License-Identifier: Apache-2.0 */
/*
 * msg.c - encode, decode and validate the admission messages (the prompt, the
 * challenge request/offer, the admission requests, the challenge, the response, the offer
 * reply, the group-key pull) and the proof of possession that binds a requester's namespace
 * key to its libp2p peer id (reference-calimero.md §5.1). Layout: docs/admission.md.
 *
 * Invariants: every length read is checked against what remains and against a protocol
 * maximum before anything is borrowed; a frame is accepted only when it is consumed exactly
 * (no trailing bytes) and every tag is known; requests that need a proof of possession are
 * refused without one; reasons and release names from a peer are valid UTF-8, free of
 * control characters, and cut to their maximum.
 */
#include <string.h>

#include "mero/borsh.h"
#include "mero/crypto.h"
#include "node/admission/msg_internal.h"

int mero__adm_prompt_encode(struct mero_buf *b)
{
    return mero_buf_append_u8(b, MERO_BCAST_TEE_ADMISSION_PROMPT);
}

int mero__adm_is_prompt(const uint8_t *data, size_t len)
{
    return len == MERO_ADM_PROMPT_LEN && data[0] == MERO_BCAST_TEE_ADMISSION_PROMPT;
}

/* Length of the UTF-8 sequence starting at s[0] (n bytes left), 0 when invalid. */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* refuse overlong forms, surrogates and values past U+10FFFF */
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        return 0;
    }
    return len;
}

static void text_clean(char *out, size_t max, const char *in, size_t n)
{
    const uint8_t *s = (const uint8_t *)in;
    size_t o = 0, i = 0;
    while (i < n) {
        size_t l = utf8_seq(s + i, n - i);
        if (l == 0 || (l == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
            if (o + 1 > max) {
                break;
            }
            out[o++] = '?';
            i += l == 0 ? 1 : l;
            continue;
        }
        if (o + l > max) {
            break; /* cut at a character boundary */
        }
        memcpy(out + o, s + i, l);
        o += l;
        i += l;
    }
    out[o] = '\0';
}

void mero__adm_reason_cut(char out[static MERO_ADM_MAX_REASON_LEN + 1], const char *in, size_t n)
{
    text_clean(out, MERO_ADM_MAX_REASON_LEN, in != NULL ? in : "", in != NULL ? n : 0);
}

bool mero__adm_release_ok(const char *s, size_t n)
{
    if (n == 0 || n > MERO_ADM_MAX_RELEASE_LEN) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  c == '.' || c == '-' || c == '+' || c == '_';
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* Read a fixed-width field (an array member: its own size is the width on the wire). */
#define GET_FIELD(c, field) mero_cur_copy((c), (field), sizeof(field))

static int get_release(struct mero_cur *c, char out[MERO_ADM_MAX_RELEASE_LEN + 1],
                       struct mero_err *err)
{
    const uint8_t *p;
    size_t n;
    int rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_RELEASE_LEN, &p, &n);
    if (rc < 0) {
        return mero_err_set(err, -rc, "release_version is missing or longer than %u bytes",
                            MERO_ADM_MAX_RELEASE_LEN);
    }
    if (!mero__adm_release_ok((const char *)p, n)) {
        return mero_err_set(err, MERO_EPROTO, "release_version is not a release name");
    }
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

static bool init_needs_pop(enum mero_adm_init_kind k)
{
    return k == MERO_ADM_INIT_CHALLENGE_REQUEST || k == MERO_ADM_INIT_ADMISSION_REQUEST ||
           k == MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST || k == MERO_ADM_INIT_GROUP_KEY_REQUEST ||
           k == MERO_ADM_INIT_GROUP_KEYS_REQUEST;
}

static int put_admission_fields(struct mero_buf *b, const struct mero_adm_init *m)
{
    MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
    MERO_TRY(mero_borsh_put_bytes(b, m->quote, m->quote_len));
    MERO_TRY(mero_buf_append(b, m->public_key, sizeof(m->public_key)));
    MERO_TRY(mero_buf_append(b, m->challenge, sizeof(m->challenge)));
    return mero_borsh_put_bytes(b, m->credential, m->credential_len);
}

int mero__adm_init_encode(struct mero_buf *b, const struct mero_adm_init *m)
{
    if (m->quote_len > MERO_ADM_MAX_QUOTE_WIRE || m->credential_len > MERO_ADM_MAX_CREDENTIAL ||
        (init_needs_pop(m->kind) && !m->has_pop)) {
        return -MERO_EINVAL;
    }
    MERO_TRY(mero_buf_append_u8(b, MERO_STREAM_INIT));
    MERO_TRY(mero_buf_append(b, m->context_id, sizeof(m->context_id)));
    MERO_TRY(mero_buf_append(b, m->party_id, sizeof(m->party_id)));
    MERO_TRY(mero_buf_append_u8(b, (uint8_t)m->kind));
    switch (m->kind) {
    case MERO_ADM_INIT_CHALLENGE_REQUEST:
        MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
        break;
    case MERO_ADM_INIT_CHALLENGE_OFFER:
        MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
        MERO_TRY(mero_buf_append(b, m->challenge, sizeof(m->challenge)));
        break;
    case MERO_ADM_INIT_ADMISSION_REQUEST:
        MERO_TRY(put_admission_fields(b, m));
        break;
    case MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST:
        if (!mero__adm_release_ok(m->release, strlen(m->release))) {
            return -MERO_EINVAL;
        }
        MERO_TRY(put_admission_fields(b, m));
        MERO_TRY(mero_borsh_put_str(b, m->release));
        break;
    case MERO_ADM_INIT_GROUP_KEY_REQUEST:
        MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
        MERO_TRY(mero_buf_append(b, m->group_id, sizeof(m->group_id)));
        break;
    case MERO_ADM_INIT_GROUP_KEYS_REQUEST:
        if (m->nheld > MERO_GROUP_KEYS_HELD_MAX || (m->nheld > 0 && m->held == NULL)) {
            return -MERO_EINVAL;
        }
        MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
        MERO_TRY(mero_buf_append(b, m->group_id, sizeof(m->group_id)));
        MERO_TRY(mero_buf_append_u32le(b, (uint32_t)m->nheld));
        if (m->nheld > 0) {
            MERO_TRY(mero_buf_append(b, m->held, m->nheld * MERO_KEY_ID_LEN));
        }
        break;
    case MERO_ADM_INIT_VERDICT: {
        char cut[MERO_ADM_MAX_REASON_LEN + 1];
        mero__adm_reason_cut(cut, m->reason, strlen(m->reason));
        MERO_TRY(mero_buf_append(b, m->ns, sizeof(m->ns)));
        MERO_TRY(mero_buf_append(b, m->challenge, sizeof(m->challenge)));
        MERO_TRY(mero_borsh_put_bool(b, m->admitted));
        MERO_TRY(mero_borsh_put_str(b, cut));
        break;
    }
    default:
        return -MERO_EINVAL;
    }
    if (!m->has_pop) {
        return mero_buf_append_u8(b, 0);
    }
    MERO_TRY(mero_buf_append_u8(b, 1));
    return mero_buf_append(b, m->pop, sizeof(m->pop));
}

static int get_admission_fields(struct mero_cur *c, struct mero_adm_init *m, struct mero_err *err)
{
    int rc;
    if (GET_FIELD(c, m->ns) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "admission request truncated");
    }
    rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_QUOTE_WIRE, &m->quote, &m->quote_len);
    if (rc < 0) {
        return mero_err_set(err, -rc, "quote_bytes truncated or longer than %u bytes",
                            MERO_ADM_MAX_QUOTE_WIRE);
    }
    if (GET_FIELD(c, m->public_key) < 0 || GET_FIELD(c, m->challenge) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "admission request truncated");
    }
    rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_CREDENTIAL, &m->credential, &m->credential_len);
    if (rc < 0) {
        return mero_err_set(err, -rc, "account credential truncated or longer than %u bytes",
                            MERO_ADM_MAX_CREDENTIAL);
    }
    return 0;
}

/* TeeAdmissionVerdict: namespace_id[32] challenge[32] admitted:bool reason:string */
static int get_verdict(struct mero_cur *c, struct mero_adm_init *m, struct mero_err *err)
{
    const uint8_t *r;
    size_t n;
    if (GET_FIELD(c, m->ns) < 0 || GET_FIELD(c, m->challenge) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "verdict truncated");
    }
    int rc = mero_borsh_get_bool(c, &m->admitted);
    if (rc < 0) {
        return mero_err_set(err, rc == -MERO_ETRUNC ? MERO_ETRUNC : MERO_EPROTO,
                            "bad admitted flag");
    }
    rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_REASON_WIRE, &r, &n);
    if (rc < 0) {
        return mero_err_set(err, -rc, "reason truncated or longer than %u bytes",
                            MERO_ADM_MAX_REASON_WIRE);
    }
    mero__adm_reason_cut(m->reason, (const char *)r, n);
    return 0;
}

int mero__adm_init_decode(const uint8_t *p, size_t len, struct mero_adm_init *out,
                          struct mero_err *err)
{
    struct mero_adm_init m;
    struct mero_cur c;
    uint8_t tag, kind, opt;
    memset(&m, 0, sizeof(m));
    if (len > MERO_ADM_MAX_FRAME) {
        return mero_err_set(err, MERO_ETOOBIG, "admission frame longer than %u bytes",
                            MERO_ADM_MAX_FRAME);
    }
    mero_cur_init(&c, p, len);
    if (mero_cur_u8(&c, &tag) < 0 || GET_FIELD(&c, m.context_id) < 0 ||
        GET_FIELD(&c, m.party_id) < 0 || mero_cur_u8(&c, &kind) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "admission frame truncated");
    }
    if (tag != MERO_STREAM_INIT) {
        return mero_err_set(err, MERO_EPROTO, "expected StreamMessage::Init, got tag %u", tag);
    }
    m.kind = (enum mero_adm_init_kind)kind;
    switch (kind) {
    case MERO_ADM_INIT_CHALLENGE_REQUEST:
        MERO_ENSURE(GET_FIELD(&c, m.ns) == 0, err, MERO_ETRUNC, "admission frame truncated");
        break;
    case MERO_ADM_INIT_CHALLENGE_OFFER:
        MERO_ENSURE(GET_FIELD(&c, m.ns) == 0 && GET_FIELD(&c, m.challenge) == 0, err, MERO_ETRUNC,
                    "admission frame truncated");
        break;
    case MERO_ADM_INIT_ADMISSION_REQUEST:
        MERO_TRY(get_admission_fields(&c, &m, err));
        break;
    case MERO_ADM_INIT_RELEASE_ADMISSION_REQUEST:
        MERO_TRY(get_admission_fields(&c, &m, err));
        MERO_TRY(get_release(&c, m.release, err));
        break;
    case MERO_ADM_INIT_GROUP_KEY_REQUEST:
        MERO_ENSURE(GET_FIELD(&c, m.ns) == 0 && GET_FIELD(&c, m.group_id) == 0, err, MERO_ETRUNC,
                    "admission frame truncated");
        break;
    case MERO_ADM_INIT_VERDICT:
        MERO_TRY(get_verdict(&c, &m, err));
        break;
    case MERO_ADM_INIT_GROUP_KEYS_REQUEST: {
        uint32_t n;
        MERO_ENSURE(GET_FIELD(&c, m.ns) == 0 && GET_FIELD(&c, m.group_id) == 0, err, MERO_ETRUNC,
                    "admission frame truncated");
        int rc = mero_borsh_get_count(&c, MERO_GROUP_KEYS_HELD_MAX, &n);
        if (rc < 0) {
            return mero_err_set(err, -rc, "held key ids truncated or more than %u",
                                MERO_GROUP_KEYS_HELD_MAX);
        }
        MERO_ENSURE(mero_cur_bytes(&c, (size_t)n * MERO_KEY_ID_LEN, &m.held) == 0, err, MERO_ETRUNC,
                    "held key ids truncated");
        m.nheld = n;
        break;
    }
    default:
        return mero_err_set(err, MERO_EPROTO, "unknown InitPayload tag %u", kind);
    }
    MERO_ENSURE(mero_cur_u8(&c, &opt) == 0, err, MERO_ETRUNC, "admission frame truncated");
    if (opt > 1) {
        return mero_err_set(err, MERO_EPROTO, "bad Option tag %u for the proof", opt);
    }
    m.has_pop = opt == 1;
    if (m.has_pop && GET_FIELD(&c, m.pop) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "proof of possession truncated");
    }
    if (mero_cur_left(&c) != 0) {
        return mero_err_set(err, MERO_EPROTO, "%zu trailing bytes after the admission frame",
                            mero_cur_left(&c));
    }
    if (init_needs_pop(m.kind) && !m.has_pop) {
        return mero_err_set(err, MERO_EPROTO, "request carries no proof of possession");
    }
    *out = m;
    return 0;
}

int mero__adm_msg_encode(struct mero_buf *b, const struct mero_adm_msg *m)
{
    MERO_TRY(mero_buf_append_u8(b, MERO_STREAM_MESSAGE));
    MERO_TRY(mero_buf_append_u64le(b, m->sequence_id));
    MERO_TRY(mero_buf_append_u8(b, (uint8_t)m->kind));
    switch (m->kind) {
    case MERO_ADM_MSG_CHALLENGE:
        return mero_buf_append(b, m->challenge, sizeof(m->challenge));
    case MERO_ADM_MSG_RESPONSE: {
        char cut[MERO_ADM_MAX_REASON_LEN + 1];
        mero__adm_reason_cut(cut, m->reason, strlen(m->reason));
        MERO_TRY(mero_borsh_put_bool(b, m->admitted));
        return mero_borsh_put_str(b, cut);
    }
    case MERO_ADM_MSG_OFFER_REPLY:
        if (!m->offered) {
            return mero_buf_append_u8(b, 0);
        }
        if (m->quote_len > MERO_ADM_MAX_QUOTE_WIRE || m->credential_len > MERO_ADM_MAX_CREDENTIAL ||
            (m->has_release && !mero__adm_release_ok(m->release, strlen(m->release)))) {
            return -MERO_EINVAL;
        }
        MERO_TRY(mero_buf_append_u8(b, 1));
        MERO_TRY(mero_borsh_put_bytes(b, m->quote, m->quote_len));
        MERO_TRY(mero_buf_append(b, m->public_key, sizeof(m->public_key)));
        MERO_TRY(mero_borsh_put_bytes(b, m->credential, m->credential_len));
        if (!m->has_release) {
            return mero_buf_append_u8(b, 0);
        }
        MERO_TRY(mero_buf_append_u8(b, 1));
        return mero_borsh_put_str(b, m->release);
    case MERO_ADM_MSG_GROUP_KEY:
        if (m->envelope == NULL) {
            return mero_buf_append_u8(b, 0);
        }
        if (m->envelope_len > MERO_ADM_MAX_ENVELOPE) {
            return -MERO_EINVAL;
        }
        MERO_TRY(mero_buf_append_u8(b, 1));
        return mero_borsh_put_bytes(b, m->envelope, m->envelope_len);
    case MERO_ADM_MSG_GROUP_KEYS:
        if (m->nenvs > MERO_GROUP_KEYS_PAGE_MAX) {
            return -MERO_EINVAL;
        }
        MERO_TRY(mero_buf_append_u32le(b, (uint32_t)m->nenvs));
        for (size_t i = 0; i < m->nenvs; i++) {
            if (m->env_lens[i] > MERO_ADM_MAX_ENVELOPE) {
                return -MERO_EINVAL;
            }
            MERO_TRY(mero_borsh_put_bytes(b, m->envs[i], m->env_lens[i]));
        }
        return mero_borsh_put_bool(b, m->more);
    default:
        return -MERO_EINVAL;
    }
}

static int get_option(struct mero_cur *c, bool *some, struct mero_err *err)
{
    uint8_t t;
    if (mero_cur_u8(c, &t) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "admission message truncated");
    }
    if (t > 1) {
        return mero_err_set(err, MERO_EPROTO, "bad Option tag %u", t);
    }
    *some = t == 1;
    return 0;
}

static int get_offer_reply(struct mero_cur *c, struct mero_adm_msg *m, struct mero_err *err)
{
    int rc;
    MERO_TRY(get_option(c, &m->offered, err));
    if (!m->offered) {
        return 0;
    }
    rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_QUOTE_WIRE, &m->quote, &m->quote_len);
    if (rc < 0) {
        return mero_err_set(err, -rc, "quote_bytes truncated or longer than %u bytes",
                            MERO_ADM_MAX_QUOTE_WIRE);
    }
    if (GET_FIELD(c, m->public_key) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "offer reply truncated");
    }
    rc = mero_borsh_get_bytes(c, MERO_ADM_MAX_CREDENTIAL, &m->credential, &m->credential_len);
    if (rc < 0) {
        return mero_err_set(err, -rc, "account credential truncated or longer than %u bytes",
                            MERO_ADM_MAX_CREDENTIAL);
    }
    MERO_TRY(get_option(c, &m->has_release, err));
    if (m->has_release) {
        MERO_TRY(get_release(c, m->release, err));
    }
    return 0;
}

int mero__adm_msg_decode(const uint8_t *p, size_t len, struct mero_adm_msg *out,
                         struct mero_err *err)
{
    struct mero_adm_msg m;
    struct mero_cur c;
    uint8_t tag, kind;
    memset(&m, 0, sizeof(m));
    if (len > MERO_ADM_MAX_FRAME) {
        return mero_err_set(err, MERO_ETOOBIG, "admission frame longer than %u bytes",
                            MERO_ADM_MAX_FRAME);
    }
    mero_cur_init(&c, p, len);
    if (mero_cur_u8(&c, &tag) < 0 || mero_cur_u64le(&c, &m.sequence_id) < 0 ||
        mero_cur_u8(&c, &kind) < 0) {
        return mero_err_set(err, MERO_ETRUNC, "admission message truncated");
    }
    if (tag != MERO_STREAM_MESSAGE) {
        return mero_err_set(err, MERO_EPROTO, "expected StreamMessage::Message, got tag %u", tag);
    }
    m.kind = (enum mero_adm_msg_kind)kind;
    switch (kind) {
    case MERO_ADM_MSG_CHALLENGE:
        if (GET_FIELD(&c, m.challenge) < 0) {
            return mero_err_set(err, MERO_ETRUNC, "challenge truncated");
        }
        break;
    case MERO_ADM_MSG_RESPONSE: {
        const uint8_t *r;
        size_t n;
        int rc = mero_borsh_get_bool(&c, &m.admitted);
        if (rc < 0) {
            return mero_err_set(err, rc == -MERO_ETRUNC ? MERO_ETRUNC : MERO_EPROTO,
                                "bad admitted flag");
        }
        rc = mero_borsh_get_bytes(&c, MERO_ADM_MAX_REASON_WIRE, &r, &n);
        if (rc < 0) {
            return mero_err_set(err, -rc, "reason truncated or longer than %u bytes",
                                MERO_ADM_MAX_REASON_WIRE);
        }
        mero__adm_reason_cut(m.reason, (const char *)r, n);
        break;
    }
    case MERO_ADM_MSG_OFFER_REPLY:
        MERO_TRY(get_offer_reply(&c, &m, err));
        break;
    case MERO_ADM_MSG_GROUP_KEY: {
        bool some;
        MERO_TRY(get_option(&c, &some, err));
        if (some) {
            int rc = mero_borsh_get_bytes(&c, MERO_ADM_MAX_ENVELOPE, &m.envelope, &m.envelope_len);
            if (rc < 0) {
                return mero_err_set(err, -rc, "key envelope truncated or longer than %u bytes",
                                    MERO_ADM_MAX_ENVELOPE);
            }
        }
        break;
    }
    case MERO_ADM_MSG_GROUP_KEYS: {
        uint32_t n;
        int rc = mero_borsh_get_count(&c, MERO_GROUP_KEYS_PAGE_MAX, &n);
        if (rc < 0) {
            return mero_err_set(err, -rc, "key page truncated or more than %u envelopes",
                                MERO_GROUP_KEYS_PAGE_MAX);
        }
        for (uint32_t i = 0; i < n; i++) {
            rc = mero_borsh_get_bytes(&c, MERO_ADM_MAX_ENVELOPE, &m.envs[i], &m.env_lens[i]);
            if (rc < 0) {
                return mero_err_set(err, -rc, "key envelope truncated or longer than %u bytes",
                                    MERO_ADM_MAX_ENVELOPE);
            }
        }
        m.nenvs = n;
        rc = mero_borsh_get_bool(&c, &m.more);
        if (rc < 0) {
            return mero_err_set(err, rc == -MERO_ETRUNC ? MERO_ETRUNC : MERO_EPROTO,
                                "bad more flag");
        }
        break;
    }
    default:
        return mero_err_set(err, MERO_EPROTO, "unknown MessagePayload tag %u", kind);
    }
    if (mero_cur_left(&c) != 0) {
        return mero_err_set(err, MERO_EPROTO, "%zu trailing bytes after the admission message",
                            mero_cur_left(&c));
    }
    *out = m;
    return 0;
}

int mero__adm_response_encode(struct mero_buf *b, bool admitted, const char *reason)
{
    struct mero_adm_msg m;
    memset(&m, 0, sizeof(m));
    m.kind = MERO_ADM_MSG_RESPONSE;
    m.admitted = admitted;
    mero__adm_reason_cut(m.reason, reason != NULL ? reason : "",
                         reason != NULL ? strlen(reason) : 0);
    return mero__adm_msg_encode(b, &m);
}

static int pop_message(struct mero_buf *b, const uint8_t ns[MERO_NS_ID_LEN],
                       const uint8_t party_id[MERO_IDENTITY_LEN], const uint8_t *peer,
                       size_t peer_len)
{
    if (peer == NULL || peer_len == 0 || peer_len > MERO_ADM_PEER_BYTES_MAX) {
        return -MERO_EINVAL;
    }
    MERO_TRY(mero_buf_append(b, MERO_ADM_POP_DOMAIN, strlen(MERO_ADM_POP_DOMAIN)));
    MERO_TRY(mero_buf_append(b, ns, MERO_NS_ID_LEN));
    MERO_TRY(mero_buf_append(b, party_id, MERO_IDENTITY_LEN));
    return mero_buf_append(b, peer, peer_len);
}

int mero__adm_pop_sign(uint8_t sig[static MERO_ED25519_SIG_LEN],
                       const uint8_t ns[static MERO_NS_ID_LEN],
                       const uint8_t party_id[static MERO_IDENTITY_LEN], const uint8_t *peer,
                       size_t peer_len, const uint8_t sk[static MERO_ED25519_SK_LEN])
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, MERO_ADM_POP_MSG_MAX);
    MERO_TRY_OUT(pop_message(&b, ns, party_id, peer, peer_len));
    mero_ed25519_sign(sig, b.data, b.len, sk);
out:
    mero_buf_cleanup(&b);
    return rc;
}

int mero__adm_pop_verify(const uint8_t sig[static MERO_ED25519_SIG_LEN],
                         const uint8_t ns[static MERO_NS_ID_LEN],
                         const uint8_t party_id[static MERO_IDENTITY_LEN], const uint8_t *peer,
                         size_t peer_len)
{
    struct mero_buf b;
    int rc;
    mero_buf_init(&b, MERO_ADM_POP_MSG_MAX);
    MERO_TRY_OUT(pop_message(&b, ns, party_id, peer, peer_len));
    MERO_ENSURE_OUT(mero_ed25519_verify(sig, b.data, b.len, party_id) == 0, NULL, MERO_EBADSIG,
                    "proof of possession does not verify");
out:
    mero_buf_cleanup(&b);
    return rc;
}
