/* PENDING: `sandbx tui` is built by its own issue; until then it says so. */
#include "cli/cli.h"
#include "util/log.h"

int cli_tui(struct cli_opts *o)
{
	sbx_err("'tui' is not built yet in this version — see the open issues");
	return EXIT_ERROR;
}
