/*
 * log.h — error messages and the audit trail.
 *
 * Errors: sbx_err() prints "sandbx: " and the message on stderr.  Only the
 * cli layer and the helper's top level call it; library code returns codes
 * and fills an error string.
 *
 * Audit: one line per record on stderr,
 *     sandbx audit EVENT key=value key="value with spaces"
 * filtered by SANDBX_LOG=off|info|debug (default info).  While the TUI owns
 * the screen, log_hold(1) points fd 2 at an anonymous file, so neither
 * records nor anything else written to stderr tears the screen; records
 * past 4 MiB are counted, not kept.  log_hold(0) gives fd 2 back and
 * prints what was held; log_hold_crash() does the same from a fatal
 * signal's handler (async-signal-safe, no lock), so a crash's own report
 * and the records before it reach the terminal.
 */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include "util/util.h"

enum log_level { LOG_OFF = 0, LOG_INFO = 1, LOG_DEBUG = 2 };

/* Read SANDBX_LOG; an unknown value is reported and treated as info. */
void log_init(void);
enum log_level log_level(void);
void log_set_level(enum log_level l);

void sbx_err(const char *fmt, ...) SBX_ATTR_PRINTF(1, 2);

/*
 * While fn is set, each line sbx_err and audit would write to standard
 * error (newline included) is given to fn instead: fd 2 is a socket the
 * command's error output reaches through sandbx's relay (relay.h), and
 * the relay puts sandbx's line after what the command wrote before it.
 * fn answers 0 when it took the line; else the line is written to fd 2
 * as ever.  Set and cleared by the thread that logs, while no other does.
 */
void log_divert(int (*fn)(void *ctx, const char *line, size_t n), void *ctx);

/*
 * Emit an audit record at level lvl.  The variadic part is key, value
 * pairs of const char *, ended by NULL.  Values are quoted and escaped
 * as needed, so a path cannot forge a second record.
 */
void audit(enum log_level lvl, const char *event, ...) __attribute__((sentinel));

/*
 * on: the calling thread's records are dropped until audit_mute(0): for
 * what sandbx opens on its own account, not on a command's or a model's
 * (the approval question's diff reads the current file; the write that
 * follows is the access, and is recorded).
 */
void audit_mute(int on);

/* Format one record into a malloc'd line without the newline (tests). */
char *audit_format(const char *event, const char *const *kv, size_t nkv);

void log_hold(int on);
void log_hold_crash(void);

#endif
