/*
 * main.c — thin: parse the command line, dispatch to a cli_* body.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "sandbox/helper.h"
#include "util/log.h"

/* What a command printed on standard output is its result: one that could
 * not be written (a full disk, a closed descriptor) is a failure, not an
 * exit 0 with the output lost.  Only for the commands whose stdout is
 * their result and that say nothing of it themselves (agent-run does;
 * auth login and logout have done their work by then). */
static int stdout_written(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	int e = errno;
	if (e)
		sbx_err("cannot write to standard output: %s — %s", strerror(e),
			e == ENOSPC ? "free some disk space, or send it elsewhere, and run it again"
				    : "send it somewhere that can take it and run it again");
	else
		sbx_err("cannot write to standard output — send it somewhere that can take it and run it again");
	return rc == EXIT_OK ? EXIT_ERROR : rc;
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	char *err = NULL;
	int rc;

	/* The helper stages are this binary re-executed; they never parse the
	 * user's command line and keep their own dumpable handling. */
	if (argc > 1 && strcmp(argv[1], HELPER_ARGV1) == 0)
		return helper_main(argc, argv);

	/* Another process of the same user must not read our environment or
	 * memory (the API key) through /proc or ptrace. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	log_init();
	cli_main_argv = argv;	/* for cli_ldpath_guard's re-exec */
	cli_ldpath_locale_first();

	if (cli_parse(&o, argc, argv, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		cli_opts_release(&o);
		return EXIT_USAGE;
	}
	if (o.cmd == CMD_HELP || o.help) {
		fputs(cli_usage(o.cmd == CMD_HELP ? CMD_NONE : o.cmd), stdout);
		cli_opts_release(&o);
		return stdout_written(EXIT_OK);
	}
	switch (o.cmd) {
	case CMD_VERSION: printf("sandbx %s\n", SBX_VERSION); rc = EXIT_OK; break;
	case CMD_SANDBOX_RUN: rc = cli_sandbox_run(&o); break;
	case CMD_AGENT_RUN: rc = cli_agent_run(&o); break;
	case CMD_TUI: rc = cli_tui(&o); break;
	case CMD_TOOL: rc = cli_tool(&o); break;
	case CMD_AUTH: rc = cli_auth(&o); break;
	case CMD_HASH: rc = cli_hash(&o); break;
	case CMD_SESSIONS: rc = cli_sessions(&o); break;
	default: rc = EXIT_USAGE; break;
	}
	if (o.cmd == CMD_VERSION || o.cmd == CMD_TOOL || o.cmd == CMD_HASH || o.cmd == CMD_SESSIONS ||
	    (o.cmd == CMD_AUTH && o.auth_action && strcmp(o.auth_action, "status") == 0))
		rc = stdout_written(rc);
	cli_opts_release(&o);
	return rc;
}
