/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release_internal.h - test hooks of release_source.c (not installed): insert into and probe
 * the verified-release cache without the network, so its bound and eviction can be tested.
 */
#ifndef MERO_RELEASE_INTERNAL_H
#define MERO_RELEASE_INTERNAL_H

#include "mero/release.h"

/* Cache a copy of rel under version (as if it had verified). */
MERO_MUST_CHECK int mero__release_cache_put(struct mero_release_source *src, const char *version,
                                            const struct mero_release *rel);
/* 1 when version is cached (marks it used), else 0. */
int mero__release_cache_has(struct mero_release_source *src, const char *version);

#endif
