/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.c - wall and monotonic clocks, and UTC civil time to Unix seconds.
 * Invariant: mero_timegm is pure (no time zone state), so it is safe from any thread.
 */
#include <time.h>

#include "mero/clock.h"

uint64_t mero_now_unix(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec;
}

uint64_t mero_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

uint64_t mero_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

uint64_t mero_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's civil
 * algorithm; eras of 400 years keep it exact for negative years). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int64_t mero_utc_seconds(int year, int month, int day, int hour, int min, int sec)
{
    return days_from_civil(year, month, day) * 86400 + (int64_t)hour * 3600 + (int64_t)min * 60 +
           sec;
}

int64_t mero_timegm(const struct tm *t)
{
    return mero_utc_seconds(t->tm_year + 1900, t->tm_mon + 1, t->tm_mday, t->tm_hour, t->tm_min,
                            t->tm_sec);
}
