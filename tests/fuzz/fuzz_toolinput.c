/*
 * fuzz_toolinput.c — libFuzzer target for what the model controls in a
 * tool call: the JSON input (validated against each tool's schema), paths
 * (lexical normalisation) and result text (UTF-8 cleaning).
 *
 * Input: byte 0 picks the tool, the rest is the JSON text; the same bytes
 * are also fed to fsguard_normalize and tools_utf8_clean.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct tool_def *t = &tools_table()[data[0] % TOOL__COUNT];
	cJSON *in = cJSON_ParseWithLength((const char *)data + 1, size - 1);
	char *err = NULL;
	if (tools_validate(t, in, &err) < 0) {
		if (!err || !*err)
			abort();	/* a refusal always says why */
		free(err);
	}
	cJSON_Delete(in);

	char *s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	char *n = fsguard_normalize("/work/dir", s);
	if (n) {
		if (n[0] != '/' || strstr(n, "/../") || strstr(n, "/./") || strstr(n, "//"))
			abort();	/* not normalised */
		size_t l = strlen(n);
		if (l >= 3 && strcmp(n + l - 3, "/..") == 0)
			abort();
		free(n);
	}
	char *c = tools_utf8_clean(s);
	free(c);
	return 0;
}
