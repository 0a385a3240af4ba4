/* SPDX-License-Identifier: Apache-2.0 */
/* clock.h - wall-clock seconds and monotonic milliseconds. Thread safety: safe from any thread. */
#ifndef MERO_CLOCK_H
#define MERO_CLOCK_H

#include <stdint.h>

uint64_t mero_now_unix(void);
uint64_t mero_now_ms(void); /* monotonic */
uint64_t mero_now_us(void); /* monotonic */
uint64_t mero_now_ns(void); /* monotonic */

/*
 * Seconds since the Unix epoch of a UTC civil time (what timegm(3) computes, without its
 * dependence on the process's time zone state and valid for any proleptic Gregorian year).
 * Fields are used as given: the caller range-checks them (month 1-12 as tm_mon+1, ...).
 */
struct tm;
int64_t mero_timegm(const struct tm *t);
/* The same from the fields a parser reads: year (e.g. 2026), month 1-12, day, hour, minute,
 * second, each used as given (range-checked by the caller). */
int64_t mero_utc_seconds(int year, int month, int day, int hour, int min, int sec);

#endif
