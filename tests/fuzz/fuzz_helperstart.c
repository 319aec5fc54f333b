/*
 * fuzz_helperstart.c — libFuzzer target for the helper's split of its
 * start message (sandbox/helper.h, helper_start_split).
 *
 * The first two input bytes are the counts of strings asked for (args,
 * env); the rest is the message.  A split that succeeds must have found
 * exactly that many NUL-terminated strings filling the message, which
 * joined again (helper_start_join) give the same bytes back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/helper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint32_t na = data[0], ne = data[1];
	size_t len = size - 2;
	char *buf = malloc(len ? len : 1);
	char **v = calloc(na + 1, sizeof(char *)), **env = calloc(ne + 1, sizeof(char *));
	if (!buf || !v || !env)
		abort();
	memcpy(buf, data + 2, len);
	if (helper_start_split(buf, len, na, ne, v, env) == 0) {
		struct strv a = { .v = v, .n = na }, e = { .v = env, .n = ne };
		size_t n2 = 0;
		char *again = helper_start_join(&a, &e, &n2);
		if (!again || n2 != len || memcmp(again, data + 2, len) != 0 || v[na] || env[ne])
			abort();
		free(again);
	}
	free(v);
	free(env);
	free(buf);
	return 0;
}
