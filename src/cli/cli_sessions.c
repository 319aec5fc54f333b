/* PENDING: `sandbx sessions` is built by its own issue; until then it says so. */
#include "cli/cli.h"
#include "util/log.h"

int cli_sessions(struct cli_opts *o)
{
	sbx_err("'sessions' is not built yet in this version — see the open issues");
	return EXIT_ERROR;
}
