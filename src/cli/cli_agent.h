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

/* What agent-run and tui drop from their own environment first, before
 * any thread or library reads it: SSLKEYLOGFILE, which libcurl would
 * honour by writing the TLS secrets of the connection carrying the API
 * key to that file. */
void cli_agent_env(void);

/* Fill cfg from the options; cfg borrows p and the strings of o. */
void cli_agent_config(const struct cli_opts *o, const struct policy *p, struct agent_config *cfg);

#endif
