/*
 * json.h — printing cJSON values within a byte cap; what the Messages API
 * refuses in a text block.
 */
#ifndef SBX_UTIL_JSON_H
#define SBX_UTIL_JSON_H

#include <stddef.h>

#include "util/cjson.h"

/*
 * o printed unformatted, or NULL when the text would be longer than cap
 * bytes.  It is printed into buffers of growing size, at most the cap,
 * so a longer text is never built whole (a string of control characters
 * prints 6 bytes for each), and a short one never reserves the cap.
 * malloc'd, its length in *len.
 */
char *json_print_capped(const cJSON *o, size_t cap, size_t *len);

/*
 * 1 when the n bytes at s are empty or only whitespace (space, tab, CR,
 * LF, VT, FF): a text block the Messages API refuses anywhere in a
 * history ("text content blocks must contain non-whitespace text"), so
 * one kept would fail every later request of the conversation.
 */
int json_text_blank(const char *s, size_t n);

/*
 * How deep cJSON reads: a value inside more arrays and objects than this
 * is refused, its parse failing as text that is not JSON would
 * (CJSON_NESTING_LIMIT; Debian's library is built with the header's).
 */
#define JSON_NESTING_LIMIT CJSON_NESTING_LIMIT

/*
 * 1 when a parse of the n bytes at s that failed at fail_at (cJSON's
 * return_parse_end) failed because an array or object opened there, past
 * JSON_NESTING_LIMIT levels: the text may well be JSON, only too deep for
 * cJSON, and a message should say so rather than "not valid JSON".  The
 * levels are counted in the bytes before fail_at, which cJSON took, so
 * its strings are where it saw them.  0 for any other failure (fail_at
 * NULL or outside the text included).
 */
int json_too_deep(const char *s, size_t n, const char *fail_at);

#endif
