/* PENDING: `sandbx agent-run` is built by its own issue; until then it says so. */
#include "cli/cli.h"
#include "util/log.h"

int cli_agent_run(struct cli_opts *o)
{
	sbx_err("'agent-run' is not built yet in this version — see the open issues");
	return EXIT_ERROR;
}
