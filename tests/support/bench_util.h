/* SPDX-License-Identifier: Apache-2.0 */
/* bench_util.h - file reading shared by the benchmarks (timing comes from mero/clock.h). */
#ifndef MERO_BENCH_UTIL_H
#define MERO_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The whole file at path (free with free()), or NULL when unreadable or over 64 MiB. */
uint8_t *mero_bench_read(const char *path, size_t *len);
/* The same for a path relative to $MERO_SHARED (default: the build's MERO_SHARED_DIR). */
uint8_t *mero_bench_read_shared(const char *rel, size_t *len);

#endif
