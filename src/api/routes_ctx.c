/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_ctx.c - contexts and their replicated key-value state.
 */
#include "api/api.h"

const struct api_route api_routes_ctx[] = {
    {0, NULL, false, false, NULL},
};
