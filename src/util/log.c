/* SPDX-License-Identifier: Apache-2.0 */
/* log.c - leveled stderr logging with a UTC timestamp and an optional tag. No secrets.
 * Logging is safe from any thread (the level is atomic; one fprintf per line); the tag is set
 * once at start-up. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mero/log.h"

#define LOG_TAG_MAX  48 /* the process tag printed on every line, with its NUL */
#define LOG_TIME_MAX 32 /* "YYYY-MM-DDTHH:MM:SS.mmmZ" and its NUL */

static atomic_int level = -1;
static char tag[LOG_TAG_MAX];

static int init_level(void)
{
    const char *e = getenv("MERO_LOG");
    int l = MERO_LOG_INFO;
    if (e != NULL && strcmp(e, "error") == 0) {
        l = MERO_LOG_ERROR;
    } else if (e != NULL && strcmp(e, "warn") == 0) {
        l = MERO_LOG_WARN;
    } else if (e != NULL && strcmp(e, "debug") == 0) {
        l = MERO_LOG_DEBUG;
    }
    int unset = -1;
    /* the first to decide wins; a level set meanwhile by mero_log_set_level is kept */
    atomic_compare_exchange_strong(&level, &unset, l);
    return atomic_load(&level);
}

void mero_log_set_level(enum mero_log_level lvl)
{
    atomic_store(&level, (int)lvl);
}

void mero_log_set_tag(const char *t)
{
    snprintf(tag, sizeof(tag), "%s", t ? t : "");
}

void mero_log(enum mero_log_level lvl, const char *fmt, ...)
{
    static const char *const names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    int cur = atomic_load_explicit(&level, memory_order_relaxed);
    if (cur < 0) {
        cur = init_level();
    }
    if ((int)lvl > cur) {
        return;
    }
    char ts[LOG_TIME_MAX];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s.%03ldZ %-5s %s%s%s\n", ts, now.tv_nsec / 1000000, names[lvl],
            tag[0] ? tag : "", tag[0] ? ": " : "", line);
}
