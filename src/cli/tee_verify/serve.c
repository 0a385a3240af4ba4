/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve.c - `calimero-tee-verify --serve`: one JSON request per line on stdin, one JSON answer
 * per line on stdout, in order (docs/bindings.md). Each request is judged exactly as the
 * one-shot form judges its stdin (mero_tee_verify_json); the answer is the one-shot stdout
 * document with one more member, "exit", last: the one-shot form's exit status (0 verdict,
 * 1 unusable input, 2 no verdict; with --require-valid, 3 for a verdict that is not valid).
 * The verifier's caches live in the process, so they are
 * shared by every request.
 *
 * Invariants: every line read gets exactly one answer line, in order, including an empty line,
 * a line that is not JSON and a line longer than TEE_VERIFY_SERVE_MAX_LINE; a bad line never ends
 * the stream. Memory stays bounded: an over-long line is discarded as it arrives, never buffered
 * beyond TEE_VERIFY_SERVE_MAX_LINE. Nothing is written to stderr per request (a caller that does
 * not drain stderr must not block us). End of input ends the process with status 0; a final line
 * without a newline is still a request. The reader going away (issue 32) ends it with status 1,
 * never with SIGPIPE: SIGPIPE is ignored, a failed write is status 1, and while waiting for
 * input we also watch stdout, so a closed pipe is noticed before the next request arrives.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve_internal.h"

#define CHUNK (64u * 1024u)
/* A verdict is a few hundred bytes; an error object at most a kilobyte or so. */
#define ANSWER_MAX (1u << 20)

/* Write one answer: the document without its closing brace, then ,"exit":N}. */
int tee_verify_require_valid(int code, const struct mero_buf *doc)
{
    if (code != 0) {
        return code;
    }
    json_t *v = json_loadb(doc->data != NULL ? (const char *)doc->data : "", doc->len, 0, NULL);
    bool valid = json_is_true(json_object_get(v, "valid"));
    json_decref(v);
    return valid ? 0 : TEE_VERIFY_EXIT_NOT_VALID;
}

static int answer(FILE *out, struct mero_buf *line, bool too_long, struct mero_buf *doc,
                  bool require_valid)
{
    char msg[1100];
    int code;
    if (too_long) {
        snprintf(msg, sizeof(msg), "request line exceeds %u bytes", TEE_VERIFY_SERVE_MAX_LINE);
        mero_tee_verify_error(doc, msg);
        code = 1;
    } else {
        code = mero_tee_verify_json(line->data != NULL ? (const char *)line->data : "", line->len,
                                    true, doc, msg, sizeof(msg));
        if (require_valid) {
            code = tee_verify_require_valid(code, doc);
        }
    }
    if (doc->len < 2 || doc->data[doc->len - 1] != '}') {
        /* Not reachable with the library's documents; keep the line count right anyway. */
        fprintf(out, "{\"error\":\"could not verify: no answer\",\"exit\":2}\n");
    } else {
        fwrite(doc->data, 1, doc->len - 1, out);
        fprintf(out, "%s\"exit\":%d}\n", doc->len > 2 ? "," : "", code);
    }
    mero_buf_reset(line);
    mero_buf_reset(doc);
    return ferror(out) ? -1 : 0;
}

/* Wait until fd has input (or end of input), or out's reader is gone (1). A descriptor that
 * cannot be polled (a regular file answers at once) simply reads. */
static int wait_input(int fd, FILE *out)
{
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = fileno(out), .events = 0}};
    for (;;) {
        int n = poll(p, p[1].fd >= 0 ? 2 : 1, -1);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return 0; /* let read() report */
        }
        /* POLLERR on a pipe's write end: no reader left (POLLHUP: a socket's peer closed) */
        if ((p[1].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
            return 1;
        }
        if (p[0].revents != 0) {
            return 0;
        }
    }
}

/* One session: requests from fd, answers to out, until end of input (0) or a read or write
 * error (1). line and doc are the caller's. */
static int serve_loop(int fd, FILE *out, struct mero_buf *line, struct mero_buf *doc,
                      bool require_valid)
{
    static char chunk[CHUNK];
    bool too_long = false, pending = false;
    for (;;) {
        /* Answers to a burst of pipelined requests go out together, but always before we
         * block on the next read, so a caller waiting for its answer is never left waiting. */
        if (fflush(out) != 0 || wait_input(fd, out) != 0) {
            return 1;
        }
        ssize_t got = read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            fprintf(stderr, "calimero-tee-verify: could not read stdin: %s\n", strerror(errno));
            return 1;
        }
        if (got == 0) {
            int status = pending && answer(out, line, too_long, doc, require_valid) < 0;
            return fflush(out) != 0 ? 1 : status;
        }
        size_t off = 0, n = (size_t)got;
        while (off < n) {
            const char *nl = memchr(chunk + off, '\n', n - off);
            size_t seg = nl != NULL ? (size_t)(nl - (chunk + off)) : n - off;
            pending = true;
            if (!too_long && mero_buf_append(line, chunk + off, seg) < 0) {
                too_long = true; /* from here to the newline, bytes are dropped */
                mero_buf_reset(line);
            }
            off += seg;
            if (nl == NULL) {
                break;
            }
            off++;
            if (answer(out, line, too_long, doc, require_valid) < 0) {
                return 1;
            }
            too_long = false;
            pending = false;
        }
    }
}

int tee_verify_serve(int fd, FILE *out, bool require_valid)
{
    struct mero_buf line, doc;
    /* A reader that goes away is a write error (status 1), not a signal that kills us. */
    (void)signal(SIGPIPE, SIG_IGN);
    mero_buf_init(&line, TEE_VERIFY_SERVE_MAX_LINE);
    mero_buf_init(&doc, ANSWER_MAX);
    int status = serve_loop(fd, out, &line, &doc, require_valid);
    mero_buf_cleanup(&line);
    mero_buf_cleanup(&doc);
    return status;
}
