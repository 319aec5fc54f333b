/*
 * cli_agent.h — shared by agent-run and tui: the options turned into the
 * agent's configuration.
 */
#ifndef SBX_CLI_AGENT_H
#define SBX_CLI_AGENT_H

#include "agent/turn.h"
#include "cli/cli.h"

/* The --allow-tool ceiling as a tool mask (tools.h bits): absent = the
 * read-only tools; bare = all; NAME... = the read-only tools plus those. */
unsigned cli_allowed_tools(const struct cli_opts *o);

/*
 * What agent-run and tui do once the policy p is built, before any thread,
 * late library, request or tool call, in this order: refuse a --model,
 * SANDBX_MODEL or --system text that is not UTF-8 (every request carries
 * it; EXIT_USAGE); drop or refuse the
 * environment's paths a tool call could plant code or data in
 * (cli_ldpath_env_guard), run again without the library search entries it
 * could plant a library in (cli_ldpath_guard); decide the terminal's
 * charset (util/utf8.h: setlocale, here while single-threaded); drop
 * SSLKEYLOGFILE (libcurl would write the TLS secrets of the connection
 * carrying the API key to it) and open the libraries they would otherwise
 * open after a tool call had run; then judge --base-url, a value of the
 * command line: one the provider would refuse (http to a host that is not
 * loopback, another scheme, not a URL) is reported naming the flag
 * (ANTHROPIC_BASE_URL is checked by agent_new: exit 1).  0 to go on, else
 * the exit status (EXIT_REFUSED, EXIT_USAGE), the reason said.
 */
int cli_agent_start(const struct cli_opts *o, const struct policy *p);

/* Fill cfg from the options; cfg borrows p and the strings of o. */
void cli_agent_config(const struct cli_opts *o, const struct policy *p, struct agent_config *cfg);

#endif
