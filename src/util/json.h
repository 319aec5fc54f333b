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

#endif
