/*
 * cli.h — the command line (contract: CLI.md).
 *
 * cli_parse() is pure: it reads argv, fills struct cli_opts and touches no
 * file, variable or process.  Anything it does not accept returns -1 with a
 * one-line reason in *err; main prints it and exits 64 before anything is
 * started.  Subcommand bodies (cli_*.c) turn the options into work.
 *
 * Life cycle: struct cli_opts o = {0}; cli_parse(&o, ...); ...;
 * cli_opts_release(&o).
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdint.h>

#include "sandbox/policy.h"
#include "util/util.h"

#define SBX_VERSION "0.1.0"

enum cli_exit {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_INCOMPLETE = 2,
	EXIT_NO_CONSENT = 3,
	EXIT_USAGE = 64,
	EXIT_TIMEOUT = 124,
	EXIT_REFUSED = 125,
	EXIT_NOEXEC = 126,
	EXIT_NOTFOUND = 127,
};

enum cli_cmd {
	CMD_NONE = 0, CMD_HELP, CMD_VERSION, CMD_SANDBOX_RUN, CMD_AGENT_RUN,
	CMD_TUI, CMD_TOOL, CMD_AUTH, CMD_HASH, CMD_SESSIONS,
};

enum cli_approve { APPROVE_UNSET = 0, APPROVE_RUN, APPROVE_CALL };

struct cli_path {
	char *path;
	unsigned access;	/* enum policy_access */
};

struct cli_opts {
	enum cli_cmd cmd;
	int help;			/* SUBCOMMAND --help */

	/* POLICY */
	struct cli_path *paths;
	size_t npaths;
	struct strv env;
	int net_any;			/* bare --allow-network */
	uint16_t ports[POLICY_MAX_PORTS];
	size_t nports;
	struct strv dns;
	int dns_over_tcp;
	int allow_unix;
	int limit_set[LIM__COUNT];	/* given on the command line */
	uint64_t limits[LIM__COUNT];	/* 0 = lifted ("0" or "none") */

	/* sandbox-run */
	int timeout_set;
	uint64_t timeout;		/* seconds */
	char *pin_hex;

	/* words after "--": the program (sandbox-run) or the prompt (agent-run) */
	char **rest;
	int nrest;
	int prompt_stdin;		/* agent-run - */

	/* AGENT */
	char *model;
	char *base_url;
	char *system;
	uint64_t max_tokens;		/* 0 = default */
	uint64_t max_rounds;		/* 0 = default */
	int no_wrap_up;
	int allow_tool_all;
	struct strv allow_tools;
	enum cli_approve approve;
	int session_set;		/* --session given (bare or with id) */
	char *session_id;
	int cont;			/* --continue */
	uint64_t max_scan_files, max_scan_bytes, max_results;	/* 0 = default */
	int output_jsonl;

	/* tool NAME JSON, auth ACTION, hash PATH */
	char *tool_name;
	char *tool_json;
	char *auth_action;
	char *hash_path;
};

int cli_parse(struct cli_opts *o, int argc, char **argv, char **err);
void cli_opts_release(struct cli_opts *o);

/* Usage text for a subcommand (CMD_NONE: the overview). */
const char *cli_usage(enum cli_cmd cmd);

/* Known agent tool names, NULL-terminated (the gate and --allow-tool). */
extern const char *const cli_tool_names[];

/* Subcommand bodies: each returns the process exit code. */
int cli_sandbox_run(struct cli_opts *o);
int cli_hash(struct cli_opts *o);
int cli_agent_run(struct cli_opts *o);
int cli_tui(struct cli_opts *o);
int cli_tool(struct cli_opts *o);
int cli_auth(struct cli_opts *o);
int cli_sessions(struct cli_opts *o);

/*
 * Build the policy the CLI describes: explicit grants or the working
 * directory default, the floor, variables, network and limits, with every
 * refusal of CLI.md.  agent = 1 for agent-run/tui/tool (their bash
 * defaults).  Returns 0, or -1 with *err (the run is refused: exit 125).
 */
int cli_build_policy(const struct cli_opts *o, int agent, struct policy *p, char **err);
/* The same, and *mountinfo the mount table it vetted the grants against
 * (the caller's /proc/self/mountinfo, to free; NULL when unread), for
 * sandbox_spawn.mountinfo. */
int cli_build_policy_mi(const struct cli_opts *o, int agent, struct policy *p, char **mountinfo, char **err);

/* The XDG state base under which sandbx/filters keeps the compiled
 * seccomp program (sandbox/filtcache.h), for struct sandbox_spawn's
 * filter_cache; NULL when no home can be found.  Found once. */
const char *cli_filter_cache_home(void);

#endif
