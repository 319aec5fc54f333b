/* PENDING: `sandbx auth` is built by its own issue; until then it says so. */
#include "cli/cli.h"
#include "util/log.h"

int cli_auth(struct cli_opts *o)
{
	sbx_err("'auth' is not built yet in this version — see the open issues");
	return EXIT_ERROR;
}
