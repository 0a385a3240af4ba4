/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_main.c - runs a libFuzzer target (LLVMFuzzerTestOneInput) over every file named on
 * the command line or found in the directories named, so `make test` replays each corpus
 * under gcc (and under ASan in `make asan` and in `make test`'s ASan lane). Prints one TAP line
 * for the whole replay; a crash or sanitizer report fails the run through the exit status, and
 * so does a replay that found no input at all (a moved or emptied corpus).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    while (p != NULL) {
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            break;
        }
        if (cap >= (64u << 20)) {
            break; /* 64 MiB: larger inputs are not replayed */
        }
        uint8_t *q = realloc(p, cap * 2);
        if (q == NULL) {
            break;
        }
        p = q;
        cap *= 2;
    }
    fclose(f);
    if (p == NULL) {
        return;
    }
    /* an exact-size copy so ASan sees reads past the end */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact != NULL) {
        memcpy(exact, p, n);
        LLVMFuzzerTestOneInput(exact, n);
        free(exact);
        replayed++;
    }
    free(p);
}

static void run_path(const char *path, int depth)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return;
    }
    if (S_ISREG(st.st_mode)) {
        run_file(path);
        return;
    }
    if (!S_ISDIR(st.st_mode) || depth > 4) {
        return;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char sub[4096];
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        run_path(sub, depth + 1);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "fuzz";
    for (int i = 2; i < argc; i++) {
        run_path(argv[i], 0);
    }
    if (replayed == 0) {
        /* a replay that found nothing proves nothing: a moved corpus must not pass silently */
        printf("1..1\nnot ok 1 - fuzz replay %s found no inputs\n", name);
        return 1;
    }
    printf("1..1\nok 1 - fuzz replay %s (%zu inputs)\n", name, replayed);
    return 0;
}
