/* SPDX-License-Identifier: Apache-2.0 */
/*
 * errmap.c - the one table from the domain's mero_err codes to the admin API's HTTP statuses
 * (docs/api.md "Errors"). Every error reply's status comes from here, through reply.c:
 * mero__api_reply_err answers a domain error with the status found here and the reason the
 * domain gave, mero__api_refuse a code the API itself chose; no route writes a status number of
 * its own (`make lint`, rule `status`).
 *
 * Invariant: a code not in the table is 500; a refusal by a rule is 403, a state conflict
 * 409, a caller's malformed input 400, an unknown object 404, never 2xx.
 */
#include <stddef.h>

#include "api/api_internal.h"

static const struct {
    int code;
    int status;
} errmap[] = {
    {MERO_EINVAL, 400},
    {MERO_EHEX, 400},
    {MERO_EJSON, 400},
    {MERO_ETOOBIG, 400},
    {MERO_EMULTIADDR, 400}, /* only ever from an address the caller gave */
    {MERO_ENOTFOUND, 404},
    {MERO_EEXIST, 409},
    {MERO_ESTATE, 409},
    {MERO_ECLOCK, 409},
    {MERO_ESUPERSEDED, 409},
    {MERO_EPERM, 403},
    {MERO_ENOTADMIN, 403},
    {MERO_EREADONLY, 403},
    {MERO_ETEE_ROLE_LOCKED, 403},
    {MERO_EREFUSED, 403},
    {MERO_EUNSUPPORTED, 501},
    {MERO_ETIMEOUT, 504},
    {MERO_ECOLLATERAL_FETCH, 502}, /* the collateral's source (PCS, PCCS) failed us */
    /* the HTTP layer's own refusals (http.c, router.c, sealed.c) */
    {MERO_EAUTH, 401},
    {MERO_EMETHOD, 405},
    {MERO_EBODY, 413},
    {MERO_EUNAVAILABLE, 503},
};

int mero__api_status_of(int rc)
{
    int code = rc < 0 ? -rc : rc;
    for (size_t i = 0; i < sizeof(errmap) / sizeof(errmap[0]); i++) {
        if (errmap[i].code == code) {
            return errmap[i].status;
        }
    }
    return 500;
}
