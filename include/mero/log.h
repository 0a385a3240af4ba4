/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - leveled logging to stderr. Level from MERO_LOG (error|warn|info|debug), default info.
 * Never pass secrets to these functions.
 *
 * Thread safety: mero_log is safe from any thread (one write per line); mero_log_set_level is
 * safe from any thread; mero_log_set_tag is NOT safe while others log (start-up only).
 */
#ifndef MERO_LOG_H
#define MERO_LOG_H

#include "mero/err.h"

enum mero_log_level { MERO_LOG_ERROR = 0, MERO_LOG_WARN, MERO_LOG_INFO, MERO_LOG_DEBUG };

void mero_log(enum mero_log_level lvl, const char *fmt, ...) MERO_PRINTF(2, 3);
void mero_log_set_level(enum mero_log_level lvl);
/* Prefix every line with this tag (e.g. the node name); the string is copied. */
void mero_log_set_tag(const char *tag);

#define MERO_ERROR(...) mero_log(MERO_LOG_ERROR, __VA_ARGS__)
#define MERO_WARN(...)  mero_log(MERO_LOG_WARN, __VA_ARGS__)
#define MERO_INFO(...)  mero_log(MERO_LOG_INFO, __VA_ARGS__)
#define MERO_DEBUG(...) mero_log(MERO_LOG_DEBUG, __VA_ARGS__)

#endif
