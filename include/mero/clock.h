/* SPDX-License-Identifier: Apache-2.0 */
/* clock.h - wall-clock seconds and monotonic milliseconds. Thread safety: safe from any thread. */
#ifndef MERO_CLOCK_H
#define MERO_CLOCK_H

#include <stdint.h>

uint64_t mero_now_unix(void);
uint64_t mero_now_ms(void); /* monotonic */
uint64_t mero_now_us(void); /* monotonic */
uint64_t mero_now_ns(void); /* monotonic */

#endif
