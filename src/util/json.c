/*
 * json.c — see json.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"

#define JSON_SLACK 5	/* what cJSON_PrintPreallocated asks for past the text */

char *json_print_capped(const cJSON *o, size_t cap, size_t *len)
{
	if (cap > (size_t)INT_MAX - JSON_SLACK)
		cap = (size_t)INT_MAX - JSON_SLACK;
	char *b = xmalloc(cap + JSON_SLACK);
	if (!cJSON_PrintPreallocated((cJSON *)o, b, (int)(cap + JSON_SLACK), 0)) {
		free(b);
		return NULL;
	}
	size_t n = strlen(b);
	if (n > cap) {
		free(b);
		return NULL;
	}
	*len = n;
	return xrealloc(b, n + 1);
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
