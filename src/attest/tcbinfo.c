/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tcbinfo.c - parses Intel's signed TCB info (id "TDX", version 3: tcbLevels with 16 SGX and
 * 16 TDX components, pcesvn, statuses, dates, advisory IDs; tdxModule and
 * tdxModuleIdentities; tcbEvaluationDataNumber) and QE identity (enclaveIdentity: TD_QE or QE,
 * masks, mrsigner, isvprodid, ISVSVN levels) from the exact text the signature covers.
 *
 * Invariants: a component array must have exactly 16 entries, each 0..255 (dcap-qvl's
 * `.zip()` truncation bug, reference-dcap.md §6.3, cannot happen here); every hex field must
 * have its exact length; unknown statuses are refused; counts are bounded. Strings such as
 * advisory IDs are borrowed from the parsed document, which the struct owns.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attest/tcbinfo_internal.h"
#include "mero/clock.h"
#include "mero/encoding.h"

static const char *const status_names[MERO_TCB__COUNT] = {
    "UpToDate",
    "SWHardeningNeeded",
    "ConfigurationNeeded",
    "ConfigurationAndSWHardeningNeeded",
    "OutOfDate",
    "OutOfDateConfigurationNeeded",
    "Revoked",
    "Mock",
};

const char *mero_tcb_status_name(enum mero_tcb_status s)
{
    if ((unsigned)s >= MERO_TCB__COUNT) {
        return "Unknown";
    }
    return status_names[s];
}

int mero_tcb_status_parse(const char *name, enum mero_tcb_status *out)
{
    for (int i = 0; i < MERO_TCB_MOCK; i++) {
        if (name != NULL && strcmp(name, status_names[i]) == 0) {
            *out = (enum mero_tcb_status)i;
            return 0;
        }
    }
    return -MERO_EINVAL;
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -MERO_EINVAL;
        }
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int mero__date_parse(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;
    if (s == NULL || strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
        s[7] != '-' || digits(s + 8, 2, &d) || s[10] != 'T' || digits(s + 11, 2, &h) ||
        s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &se)) {
        return -MERO_EINVAL;
    }
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        int n = 0;
        while (*p >= '0' && *p <= '9' && n < 9) {
            p++;
            n++;
        }
        if (n == 0) {
            return -MERO_EINVAL;
        }
    }
    if (strcmp(p, "Z") != 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        se > 60) {
        return -MERO_EINVAL;
    }
    *out = mero_utc_seconds(y, mo, d, h, mi, se);
    return 0;
}

/* ---- small typed getters ---------------------------------------------------------------- */

static const char *str_of(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int int_of(json_t *o, const char *k, json_int_t lo, json_int_t hi, json_int_t *out)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_integer(v)) {
        return -MERO_EJSON;
    }
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) {
        return -MERO_EINVAL;
    }
    *out = x;
    return 0;
}

static int hex_of(json_t *o, const char *k, uint8_t *out, size_t n)
{
    const char *s = str_of(o, k);
    if (s == NULL) {
        return -MERO_EJSON;
    }
    return mero_hex_decode_exact(out, n, s, strlen(s));
}

static int date_of(json_t *o, const char *k, int64_t *out)
{
    return mero__date_parse(str_of(o, k), out);
}

static int status_of(json_t *o, enum mero_tcb_status *out)
{
    return mero_tcb_status_parse(str_of(o, "tcbStatus"), out);
}

/* A level's advisoryIDs (absent: none), copied into the document's table. */
static int advisories_of(json_t *o, struct mero_adv_table *t, struct mero_adv_ref *out)
{
    json_t *a = json_object_get(o, "advisoryIDs");
    memset(out, 0, sizeof(*out));
    if (a == NULL) {
        return 0;
    }
    size_t n = json_array_size(a);
    if (!json_is_array(a)) {
        return -MERO_EJSON;
    }
    if (n > MERO_DCAP_MAX_ADVISORIES) {
        return -MERO_ETOOBIG;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_string(e) || json_string_length(e) == 0 ||
            json_string_length(e) >= MERO_DCAP_ADVISORY_LEN) {
            return -MERO_EJSON;
        }
    }
    if (t->n + n > UINT32_MAX) {
        return -MERO_ETOOBIG;
    }
    if (t->n + n > t->cap) {
        size_t cap = t->cap ? t->cap : 16;
        while (cap < t->n + n) {
            cap *= 2;
        }
        void *p = realloc(t->ids, cap * sizeof(*t->ids));
        if (p == NULL) {
            return -MERO_ENOMEM;
        }
        t->ids = p;
        t->cap = cap;
    }
    out->first = (uint32_t)t->n;
    out->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        memcpy(t->ids[t->n], json_string_value(e), json_string_length(e) + 1);
        t->n++;
    }
    return 0;
}

static int components_of(json_t *tcb, const char *k, uint8_t out[16])
{
    json_t *a = json_object_get(tcb, k);
    if (!json_is_array(a) || json_array_size(a) != 16) {
        return -MERO_EJSON;
    }
    for (size_t i = 0; i < 16; i++) {
        json_int_t x;
        if (int_of(json_array_get(a, i), "svn", 0, 255, &x) < 0) {
            return -MERO_EJSON;
        }
        out[i] = (uint8_t)x;
    }
    return 0;
}

/* ---- TCB info --------------------------------------------------------------------------- */

static int parse_module(json_t *m, struct mero_tdx_module_identity *out, bool with_id,
                        struct mero_adv_table *adv)
{
    memset(out, 0, sizeof(*out));
    if (!json_is_object(m) || hex_of(m, "mrsigner", out->mrsigner, sizeof(out->mrsigner)) < 0 ||
        hex_of(m, "attributes", out->attributes, 8) < 0 ||
        hex_of(m, "attributesMask", out->attributes_mask, 8) < 0) {
        return -MERO_EJSON;
    }
    if (with_id) {
        const char *id = str_of(m, "id");
        if (id == NULL || strlen(id) == 0 || strlen(id) >= sizeof(out->id)) {
            return -MERO_EJSON;
        }
        memcpy(out->id, id, strlen(id) + 1);
    }
    json_t *lv = json_object_get(m, "tcbLevels");
    if (lv == NULL) {
        return 0;
    }
    size_t n = json_array_size(lv);
    if (!json_is_array(lv)) {
        return -MERO_EJSON;
    }
    if (n > MERO_TCB_MAX_LEVELS) {
        return -MERO_ETOOBIG;
    }
    out->levels = calloc(n ? n : 1, sizeof(*out->levels));
    if (out->levels == NULL) {
        return -MERO_ENOMEM;
    }
    out->n_levels = n;
    for (size_t i = 0; i < n; i++) {
        json_t *l = json_array_get(lv, i);
        json_int_t isv;
        if (!json_is_object(l) || int_of(json_object_get(l, "tcb"), "isvsvn", 0, 255, &isv) < 0 ||
            status_of(l, &out->levels[i].status) < 0 ||
            advisories_of(l, adv, &out->levels[i].advisories) < 0) {
            return -MERO_EJSON;
        }
        out->levels[i].isvsvn = (uint16_t)isv;
    }
    return 0;
}

static int parse_level(json_t *l, struct mero_tcb_level *out, bool tdx, struct mero_adv_table *adv)
{
    json_t *tcb = json_object_get(l, "tcb");
    json_int_t pce;
    if (!json_is_object(l) || !json_is_object(tcb) ||
        components_of(tcb, "sgxtcbcomponents", out->sgx) < 0 ||
        int_of(tcb, "pcesvn", 0, 65535, &pce) < 0 || status_of(l, &out->status) < 0 ||
        date_of(l, "tcbDate", &out->tcb_date) < 0 || advisories_of(l, adv, &out->advisories) < 0) {
        return -MERO_EJSON;
    }
    out->pcesvn = (uint16_t)pce;
    if (tdx) {
        if (components_of(tcb, "tdxtcbcomponents", out->tdx) < 0) {
            return -MERO_EJSON;
        }
        out->has_tdx = true;
    }
    return 0;
}

static int tcbinfo_fill(struct mero_tcbinfo *t, json_t *o, struct mero_err *err)
{
    const char *id = str_of(o, "id");
    json_int_t v, tt, ev;
    if (id == NULL || strlen(id) >= sizeof(t->id)) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: id missing");
    }
    memcpy(t->id, id, strlen(id) + 1);
    if (int_of(o, "version", 0, 1000, &v) < 0) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: version missing");
    }
    t->version = (int)v;
    if (date_of(o, "issueDate", &t->issue_date) < 0 ||
        date_of(o, "nextUpdate", &t->next_update) < 0) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: issueDate/nextUpdate malformed");
    }
    if (hex_of(o, "fmspc", t->fmspc, 6) < 0 || hex_of(o, "pceId", t->pceid, 2) < 0) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: fmspc/pceId malformed");
    }
    if (int_of(o, "tcbType", 0, 255, &tt) < 0) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: tcbType missing");
    }
    t->tcb_type = (int)tt;
    if (int_of(o, "tcbEvaluationDataNumber", 0, UINT32_MAX, &ev) < 0) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: tcbEvaluationDataNumber missing");
    }
    t->eval_num = (uint32_t)ev;
    bool tdx = strcmp(t->id, "TDX") == 0;
    json_t *m = json_object_get(o, "tdxModule");
    if (m != NULL) {
        if (parse_module(m, &t->module, false, &t->adv) < 0) {
            return mero_err_set(err, MERO_ETCBINFO, "tcb info: tdxModule malformed");
        }
        t->has_module = true;
    }
    json_t *ids = json_object_get(o, "tdxModuleIdentities");
    if (ids != NULL) {
        size_t n = json_array_size(ids);
        if (!json_is_array(ids) || n > MERO_TCB_MAX_MODULE_IDS) {
            return mero_err_set(err, MERO_ETCBINFO, "tcb info: tdxModuleIdentities malformed");
        }
        t->module_ids = calloc(n ? n : 1, sizeof(*t->module_ids));
        if (t->module_ids == NULL) {
            return mero_err_set(err, MERO_ENOMEM, "tcb info: out of memory");
        }
        t->n_module_ids = n;
        for (size_t i = 0; i < n; i++) {
            if (parse_module(json_array_get(ids, i), &t->module_ids[i], true, &t->adv) < 0) {
                return mero_err_set(err, MERO_ETCBINFO, "tcb info: tdxModuleIdentities[%zu]", i);
            }
        }
    }
    json_t *lv = json_object_get(o, "tcbLevels");
    size_t n = json_array_size(lv);
    if (!json_is_array(lv) || n == 0 || n > MERO_TCB_MAX_LEVELS) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: tcbLevels missing or too many");
    }
    t->levels = calloc(n, sizeof(*t->levels));
    if (t->levels == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "tcb info: out of memory");
    }
    t->n_levels = n;
    for (size_t i = 0; i < n; i++) {
        if (parse_level(json_array_get(lv, i), &t->levels[i], tdx, &t->adv) < 0) {
            return mero_err_set(err, MERO_ETCBINFO, "tcb info: tcbLevels[%zu] malformed", i);
        }
    }
    return 0;
}

static json_t *load_object(const char *text, size_t len)
{
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (o != NULL && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

void mero__tcbinfo_cleanup(struct mero_tcbinfo *t)
{
    if (t == NULL) {
        return;
    }
    free(t->module.levels);
    for (size_t i = 0; i < t->n_module_ids; i++) {
        free(t->module_ids[i].levels);
    }
    free(t->module_ids);
    free(t->levels);
    free(t->adv.ids);
    memset(t, 0, sizeof(*t));
}

int mero__tcbinfo_parse(struct mero_tcbinfo *t, const char *text, size_t len, struct mero_err *err)
{
    struct mero_tcbinfo tmp;
    memset(&tmp, 0, sizeof(tmp));
    json_t *doc = load_object(text, len);
    if (doc == NULL) {
        return mero_err_set(err, MERO_ETCBINFO, "tcb info: not a JSON object");
    }
    int rc = tcbinfo_fill(&tmp, doc, err);
    json_decref(doc); /* here, in the parsing thread (see the header) */
    if (rc < 0) {
        mero__tcbinfo_cleanup(&tmp);
        return rc;
    }
    *t = tmp;
    return 0;
}

/* ---- QE identity ------------------------------------------------------------------------ */

static int u32_hex_le(json_t *o, const char *k, uint32_t *out)
{
    uint8_t b[4];
    if (hex_of(o, k, b, 4) < 0) {
        return -MERO_EHEX;
    }
    *out = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

static int qe_fill(struct mero_qeidentity *q, json_t *o, struct mero_err *err)
{
    const char *id = str_of(o, "id");
    json_int_t v, ev, prod;
    if (id == NULL || strlen(id) >= sizeof(q->id)) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: id missing");
    }
    memcpy(q->id, id, strlen(id) + 1);
    if (int_of(o, "version", 0, 1000, &v) < 0) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: version missing");
    }
    q->version = (int)v;
    if (date_of(o, "issueDate", &q->issue_date) < 0 ||
        date_of(o, "nextUpdate", &q->next_update) < 0) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: issueDate/nextUpdate malformed");
    }
    if (int_of(o, "tcbEvaluationDataNumber", 0, UINT32_MAX, &ev) < 0) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: tcbEvaluationDataNumber");
    }
    q->eval_num = (uint32_t)ev;
    /* Intel writes miscselect as the hex of the little-endian u32 field as it sits in the
     * report; dcap-qvl reads it the same way. */
    if (u32_hex_le(o, "miscselect", &q->miscselect) < 0 ||
        u32_hex_le(o, "miscselectMask", &q->miscselect_mask) < 0 ||
        hex_of(o, "attributes", q->attributes, 16) < 0 ||
        hex_of(o, "attributesMask", q->attributes_mask, 16) < 0 ||
        hex_of(o, "mrsigner", q->mrsigner, sizeof(q->mrsigner)) < 0 ||
        int_of(o, "isvprodid", 0, 65535, &prod) < 0) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: identity fields malformed");
    }
    q->isvprodid = (uint16_t)prod;
    json_t *lv = json_object_get(o, "tcbLevels");
    size_t n = json_array_size(lv);
    if (!json_is_array(lv) || n == 0 || n > MERO_TCB_MAX_LEVELS) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: tcbLevels missing");
    }
    q->levels = calloc(n, sizeof(*q->levels));
    if (q->levels == NULL) {
        return mero_err_set(err, MERO_ENOMEM, "qe identity: out of memory");
    }
    q->n_levels = n;
    for (size_t i = 0; i < n; i++) {
        json_t *l = json_array_get(lv, i);
        json_int_t isv;
        if (!json_is_object(l) || int_of(json_object_get(l, "tcb"), "isvsvn", 0, 65535, &isv) < 0 ||
            status_of(l, &q->levels[i].status) < 0 ||
            advisories_of(l, &q->adv, &q->levels[i].advisories) < 0) {
            return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: tcbLevels[%zu]", i);
        }
        q->levels[i].isvsvn = (uint16_t)isv;
    }
    return 0;
}

void mero__qeidentity_cleanup(struct mero_qeidentity *q)
{
    if (q == NULL) {
        return;
    }
    free(q->levels);
    free(q->adv.ids);
    memset(q, 0, sizeof(*q));
}

int mero__qeidentity_parse(struct mero_qeidentity *q, const char *text, size_t len,
                           struct mero_err *err)
{
    struct mero_qeidentity tmp;
    memset(&tmp, 0, sizeof(tmp));
    json_t *doc = load_object(text, len);
    if (doc == NULL) {
        return mero_err_set(err, MERO_EQEIDENTITY, "qe identity: not a JSON object");
    }
    int rc = qe_fill(&tmp, doc, err);
    json_decref(doc); /* here, in the parsing thread (see the header) */
    if (rc < 0) {
        mero__qeidentity_cleanup(&tmp);
        return rc;
    }
    *q = tmp;
    return 0;
}
