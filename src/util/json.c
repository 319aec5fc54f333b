/*
 * json.c — see json.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"

#define JSON_SLACK 5	/* what cJSON_PrintPreallocated asks for past the text */

/* The first buffer tried, and the factor between tries: a print that
 * does not fit stops at the buffer's end, so the tries together cost at
 * most 8/7 of the last one, and a small text never asks for the cap's
 * address space (32 MiB for a request, which an agent run under
 * `ulimit -v 40000` could not have). */
#define JSON_FIRST_TRY (64u << 10)
#define JSON_TRY_GROWTH 8

char *json_print_capped(const cJSON *o, size_t cap, size_t *len)
{
	if (cap > (size_t)INT_MAX - JSON_SLACK)
		cap = (size_t)INT_MAX - JSON_SLACK;
	for (size_t room = cap < JSON_FIRST_TRY ? cap : JSON_FIRST_TRY;; room *= JSON_TRY_GROWTH) {
		if (room > cap)
			room = cap;
		char *b = xmalloc(room + JSON_SLACK);
		if (cJSON_PrintPreallocated((cJSON *)o, b, (int)(room + JSON_SLACK), 0)) {
			size_t n = strlen(b);
			if (n <= cap) {
				*len = n;
				return xrealloc(b, n + 1);
			}
		}
		free(b);
		if (room == cap)
			return NULL;
	}
}

int json_text_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\v' && c != '\f')
			return 0;
	}
	return 1;
}

int json_too_deep(const char *s, size_t n, const char *fail_at)
{
	if (!s || !fail_at || fail_at < s || fail_at >= s + n || (*fail_at != '[' && *fail_at != '{'))
		return 0;
	size_t depth = 0;
	int in_str = 0;
	for (const char *p = s; p < fail_at; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = 0;
		} else if (*p == '"') {
			in_str = 1;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ']' || *p == '}') && depth > 0) {
			depth--;
		}
	}
	return !in_str && depth >= JSON_NESTING_LIMIT;
}
