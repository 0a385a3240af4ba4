/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness.h - the in-tree test harness: a table of named tests, typed assertions, TAP output
 * (`ok N - name` / `not ok N - name # file:line what`). Header-only; include it in exactly one
 * .c per test binary, then end the file with MERO_TEST_MAIN(...).
 *
 * A test stops at its first failed check. tests/run.sh counts the TAP lines.
 */
#ifndef MERO_TEST_HARNESS_H
#define MERO_TEST_HARNESS_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mero/err.h"

struct mero_test {
    const char *name;
    void (*fn)(void);
};

static int mero_test_failed_;
static char mero_test_why_[512];

static void mero_test_fail_(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));
static void mero_test_fail_(const char *file, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!mero_test_failed_) {
        snprintf(mero_test_why_, sizeof(mero_test_why_), "%s:%d %s", file, line, msg);
    }
    mero_test_failed_ = 1;
}

#define TEST(name) static void name(void)
#define T(name)                                                                                    \
    {                                                                                              \
#name, name                                                                                \
    }

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            mero_test_fail_(__FILE__, __LINE__, "CHECK(%s)", #cond);                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            mero_test_fail_(__FILE__, __LINE__, __VA_ARGS__);                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long mero_a_ = (long long)(a), mero_b_ = (long long)(b);                              \
        if (mero_a_ != mero_b_) {                                                                  \
            mero_test_fail_(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, mero_a_,        \
                            mero_b_);                                                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_U64_EQ(a, b)                                                                         \
    do {                                                                                           \
        uint64_t mero_a_ = (uint64_t)(a), mero_b_ = (uint64_t)(b);                                 \
        if (mero_a_ != mero_b_) {                                                                  \
            mero_test_fail_(__FILE__, __LINE__, "%s == %s (%" PRIu64 " != %" PRIu64 ")", #a, #b,   \
                            mero_a_, mero_b_);                                                     \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *mero_a_ = (a), *mero_b_ = (b);                                                 \
        if (mero_a_ == NULL || mero_b_ == NULL || strcmp(mero_a_, mero_b_) != 0) {                 \
            mero_test_fail_(__FILE__, __LINE__, "%s == %s (\"%.120s\" != \"%.120s\")", #a, #b,     \
                            mero_a_ ? mero_a_ : "(null)", mero_b_ ? mero_b_ : "(null)");           \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_MEM_EQ(a, b, n)                                                                      \
    do {                                                                                           \
        if (memcmp((a), (b), (n)) != 0) {                                                          \
            mero_test_fail_(__FILE__, __LINE__, "memory %s == %s (%zu bytes)", #a, #b,             \
                            (size_t)(n));                                                          \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* expr must return >= 0 */
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        int mero_rc_ = (int)(expr);                                                                \
        if (mero_rc_ < 0) {                                                                        \
            mero_test_fail_(__FILE__, __LINE__, "%s failed: %s", #expr, mero_strerror(mero_rc_));  \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* expr must fail with exactly -code */
#define CHECK_ERR(expr, code)                                                                      \
    do {                                                                                           \
        int mero_rc_ = (int)(expr);                                                                \
        if (mero_rc_ != (code)) {                                                                  \
            mero_test_fail_(__FILE__, __LINE__, "%s: want %s, got %s", #expr, mero_strerror(code), \
                            mero_rc_ ? mero_strerror(mero_rc_) : "OK");                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* expr must fail (any negative code) */
#define CHECK_FAILS(expr)                                                                          \
    do {                                                                                           \
        int mero_rc_ = (int)(expr);                                                                \
        if (mero_rc_ >= 0) {                                                                       \
            mero_test_fail_(__FILE__, __LINE__, "%s unexpectedly succeeded", #expr);               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* The shared data folder: $MERO_SHARED, else the compile-time MERO_SHARED_DIR. */
static const char *mero_test_shared(void) __attribute__((unused));
static const char *mero_test_shared(void)
{
    const char *e = getenv("MERO_SHARED");
#ifdef MERO_SHARED_DIR
    return e ? e : MERO_SHARED_DIR;
#else
    return e ? e : "../shared";
#endif
}

/* Read a whole file (path relative to the shared folder when rel is nonzero); NULL if absent. */
static uint8_t *mero_test_read(const char *path, int rel, size_t *len) __attribute__((unused));
static uint8_t *mero_test_read(const char *path, int rel, size_t *len)
{
    char full[1024];
    if (rel) {
        snprintf(full, sizeof(full), "%s/%s", mero_test_shared(), path);
    } else {
        snprintf(full, sizeof(full), "%s", path);
    }
    FILE *f = fopen(full, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *p = malloc(cap + 1);
    for (;;) {
        if (p == NULL) {
            fclose(f);
            return NULL;
        }
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            break;
        }
        cap *= 2;
        uint8_t *q = realloc(p, cap + 1);
        if (q == NULL) {
            free(p);
            p = NULL;
            continue;
        }
        p = q;
    }
    fclose(f);
    p[n] = 0; /* so text files can be used as strings */
    *len = n;
    return p;
}

static int mero_test_run_(const struct mero_test *tests, size_t n, int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    size_t failed = 0, ran = 0;
    printf("1..%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        if (only != NULL && strstr(tests[i].name, only) == NULL) {
            printf("ok %zu - %s # SKIP filtered\n", i + 1, tests[i].name);
            continue;
        }
        mero_test_failed_ = 0;
        mero_test_why_[0] = 0;
        fflush(stdout);
        tests[i].fn();
        ran++;
        if (mero_test_failed_) {
            failed++;
            printf("not ok %zu - %s # %s\n", i + 1, tests[i].name, mero_test_why_);
        } else {
            printf("ok %zu - %s\n", i + 1, tests[i].name);
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}

#define MERO_TEST_MAIN(...)                                                                        \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const struct mero_test tests_[] = {__VA_ARGS__};                                    \
        return mero_test_run_(tests_, sizeof(tests_) / sizeof(tests_[0]), argc, argv);             \
    }

#endif
