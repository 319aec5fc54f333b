/* fuzz_cli.c — cli_parse on arbitrary argv: the input is split at NUL bytes
 * into words.  It must never crash, leak or accept an empty --allow-env. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char *argv[66];
	int argc = 0;
	struct cli_opts o;
	char *err = NULL;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)"sandbx";
	for (size_t i = 0; i <= size && argc < 65;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	if (cli_parse(&o, argc, argv, &err) == 0) {
		for (size_t i = 0; i < o.env.n; i++)
			if (!o.env.v[i][0] || strchr(o.env.v[i], '='))
				abort();
		for (size_t i = 0; i < o.nports; i++)
			if (o.ports[i] == 0)
				abort();
	}
	free(err);
	cli_opts_release(&o);
	free(buf);
	return 0;
}
