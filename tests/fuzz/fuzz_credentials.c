/*
 * fuzz_credentials.c — libFuzzer target for the credentials.toml parser.
 *
 * The first input byte picks the slice lengths; the rest is the file.  It
 * is parsed whole and sliced; both must agree on the error and the key.
 * An error message must never carry the input: seeds holding "sk-" keys
 * check that no error ever contains "sk-" (the messages are fixed texts).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/credentials.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(struct cred_parser *p, const char *buf, size_t size, size_t step)
{
	cred_parser_init(p);
	size_t i = 0;
	while (i < size) {
		size_t n = size - i < step ? size - i : step;
		if (cred_parser_feed(p, buf + i, n) < 0)
			return;
		i += n;
		step = step * 5 % 29 + 1;
	}
	cred_parser_finish(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (data[0] & 0x3f) + 1;
	const char *buf = (const char *)data + 1;
	size--;
	struct cred_parser a, b;
	run(&a, buf, size, size ? size : 1);
	run(&b, buf, size, step);
	if ((a.error == NULL) != (b.error == NULL) || (a.error && strcmp(a.error, b.error) != 0))
		abort();
	if (!a.error && (!a.key || !b.key || strcmp(a.key, b.key) != 0 || !cred_key_valid(a.key)))
		abort();
	/* The messages are fixed texts: none holds a lowercase-dash run such
	 * as "sk-ant-" that only the input could have put there. */
	if (a.error && strstr(a.error, "sk-"))
		abort();
	cred_parser_release(&a);
	cred_parser_release(&b);
	return 0;
}
