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

/* What agent-run and tui do once the policy is built and
 * cli_ldpath_guard ran, before any thread, late library or tool call: drop SSLKEYLOGFILE from their environment (libcurl would write
 * the TLS secrets of the connection carrying the API key to it), and open
 * the libraries they would otherwise open after a tool call had run. */
void cli_agent_prepare(void);

/* --base-url is a value of the command line: one the provider would
 * refuse (http to a host that is not loopback, another scheme, not a URL)
 * is reported naming the flag, before anything starts.  EXIT_USAGE, or 0
 * when it is absent or usable.  (ANTHROPIC_BASE_URL is checked by
 * agent_new: exit 1.)  It opens libcurl: call it after
 * cli_agent_prepare(). */
int cli_base_url_check(const struct cli_opts *o);

/* Fill cfg from the options; cfg borrows p and the strings of o. */
void cli_agent_config(const struct cli_opts *o, const struct policy *p, struct agent_config *cfg);

#endif
