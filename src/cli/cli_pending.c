/*
 * cli_pending.c — subcommands whose issues have not landed yet.  Each says
 * so plainly and exits 1; each moves to its own file when it is built.
 */
#include "cli/cli.h"
#include "util/log.h"

static int pending(const char *what)
{
	sbx_err("'%s' is not built yet in this version — see the open issues", what);
	return EXIT_ERROR;
}

int cli_agent_run(struct cli_opts *o) { return pending("agent-run"); }
int cli_tui(struct cli_opts *o) { return pending("tui"); }
int cli_tool(struct cli_opts *o) { return pending("tool"); }
int cli_auth(struct cli_opts *o) { return pending("auth"); }
int cli_sessions(struct cli_opts *o) { return pending("sessions"); }
