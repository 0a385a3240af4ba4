/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics_process.c - Prometheus' standard process metrics for GET /metrics (issue 35), with
 * the names and units every Prometheus client library uses, so stock dashboards and alerts
 * work: process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_open_fds, process_max_fds,
 * process_start_time_seconds; read from /proc/self (Linux).
 *
 * Invariant: a value that cannot be read is left out (its family too), never invented; what
 * is read is bounded (one line of /proc/self/stat, one directory listing).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "api/api_internal.h"

#define PROC_STAT_MAX 1024 /* one line of /proc/self/stat */

static int gauge(struct mero_buf *b, const char *name, const char *type, const char *help, double v)
{
    return mero_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type,
                           name, v);
}

/* fields 14 (utime), 15 (stime), 22 (starttime), 23 (vsize), 24 (rss) of /proc/self/stat */
static int read_stat(unsigned long long *ut, unsigned long long *st, unsigned long long *start,
                     unsigned long long *vsize, long long *rss)
{
    char line[PROC_STAT_MAX];
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) {
        return -MERO_EIO;
    }
    char *ok = fgets(line, sizeof(line), f);
    fclose(f);
    /* the command name (field 2) may hold spaces and parentheses: start after the last ')' */
    char *p = ok != NULL ? strrchr(line, ')') : NULL;
    if (p == NULL) {
        return -MERO_EIO;
    }
    /* from field 3 (state) on */
    int n = sscanf(p + 2,
                   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d "
                   "%llu %llu %lld",
                   ut, st, start, vsize, rss);
    return n == 5 ? 0 : -MERO_EIO;
}

/* seconds since the epoch at boot (btime in /proc/stat) */
static int boot_time(unsigned long long *btime)
{
    char line[256];
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL) {
        return -MERO_EIO;
    }
    int rc = -MERO_ENOTFOUND;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "btime %llu", btime) == 1) {
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

static long long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) {
        return -MERO_EIO; /* a count or a negative code */
    }
    long long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        n += e->d_name[0] != '.';
    }
    closedir(d);
    return n - 1; /* the descriptor opendir itself holds */
}

int mero__api_metrics_process(struct mero_buf *b)
{
    unsigned long long ut, st, start, vsize, btime;
    long long rss;
    long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    if (tck > 0 && page > 0 && read_stat(&ut, &st, &start, &vsize, &rss) == 0) {
        MERO_TRY(gauge(b, "process_cpu_seconds_total", "counter",
                       "Total user and system CPU time spent in seconds.",
                       (double)(ut + st) / (double)tck));
        MERO_TRY(gauge(b, "process_resident_memory_bytes", "gauge",
                       "Resident memory size in bytes.", (double)rss * (double)page));
        MERO_TRY(gauge(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
                       (double)vsize));
        if (boot_time(&btime) == 0) {
            MERO_TRY(gauge(b, "process_start_time_seconds", "gauge",
                           "Start time of the process since unix epoch in seconds.",
                           (double)btime + (double)start / (double)tck));
        }
    }
    long long fds = open_fds();
    if (fds >= 0) {
        MERO_TRY(
            gauge(b, "process_open_fds", "gauge", "Number of open file descriptors.", (double)fds));
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        MERO_TRY(gauge(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
                       (double)rl.rlim_cur));
    }
    return 0;
}
