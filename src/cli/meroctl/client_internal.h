/* SPDX-License-Identifier: Apache-2.0 */
/*
 * client_internal.h - meroctl's HTTP client for the admin API (client.c, libcurl) and the output
 * helpers shared by the cmd_*.c files.
 */
#ifndef MEROCTL_CLIENT_H
#define MEROCTL_CLIENT_H

#include <stdbool.h>

#include <curl/curl.h>
#include <jansson.h>

#include "meroctl_internal.h"

/* The admin token (--token-file / MERO_TOKEN_FILE) into out; 0, or an exit code after printing
 * why. Wipe it after use. */
int meroctl_read_token(const struct meroctl_global *g, char *out, size_t cap);
/*
 * GET PATH printing nothing (a progress poll; thread-safe once curl_global_init ran): the HTTP
 * status with *data the owned `data` member on 2xx (else NULL), or -MERO_EIO when there was no
 * answer.
 * token NULL sends no Authorization.
 */
int meroctl_get_quiet(const struct meroctl_global *g, const char *path, const char *token,
                      json_t **data);
/*
 * Call METHOD PATH with an optional JSON body (borrowed). With auth, the bearer token from
 * --token-file / MERO_TOKEN_FILE is sent. On HTTP 2xx *data gets the owned `data` member and
 * 0 is returned; otherwise an exit code (1 bad input 400/404/405/413, 2 failed, 3 unreachable,
 * 4 auth 401) after printing the error (stderr; also the error envelope on stdout with --json).
 */
int meroctl_call(const struct meroctl_global *g, const char *method, const char *path, json_t *body,
                 bool auth, json_t **data);
/*
 * Errors name the flags the user typed: map is {json field, flag} pairs ending in {NULL, NULL}
 * (static storage); every later node error message has each field replaced by its flag.
 */
void meroctl_flag_names(const char *const (*map)[2]);
/* Print data: with --json one compact JSON document, else a readable rendering. */
void meroctl_print(const struct meroctl_global *g, json_t *data);
/* Call and print; returns the exit code. body is borrowed. */
int meroctl_simple(const struct meroctl_global *g, const char *method, const char *path,
                   json_t *body, bool auth);
/* Percent-encode one path segment (every byte but A-Z a-z 0-9 - . _ ~) into out (cap bytes
 * with the terminator): 0, or -MERO_ETOOBIG when it does not fit. */
int meroctl_path_segment(char *out, size_t cap, const char *seg);
/* 1 when s is exactly 64 hex characters. */
int meroctl_is_id(const char *s);
/*
 * --sealed (sealed.c, issue 31): one exchange through a sealed session, in place of the
 * plaintext one. The first call attests the node (POST /admin-api/tee/attest with
 * bindTransportKey), checks its quote against the trust flags and opens a session to the
 * transport key; a 409 unknown_session opens a new session once, a 409 stale_transport_key
 * attests again once. Returns as http_do: 0 with *status / *root (the inner answer) or *cc set
 * on a transfer failure; -1 with *status 0 when the node's attestation, quote or envelope was
 * refused (the reason printed).
 */
int meroctl_sealed_do(const struct meroctl_global *g, const char *method, const char *path,
                      json_t *body, const char *token, long timeout_s, long *status, json_t **root,
                      CURLcode *cc);
/* Print "meroctl: <msg>" to stderr and return MEROCTL_USAGE. */
int meroctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
