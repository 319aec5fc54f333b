/*
 * cli_parse.c — pure argument parsing.  A const table lists every flag, the
 * subcommands that take it and how it takes its value; one loop applies it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sandbox/netpolicy.h"
#include "store/session.h"

const char *const cli_tool_names[] = { "read", "ls", "find", "grep", "write", "edit", "bash", NULL };

enum { C_SR = 1 << 0, C_AR = 1 << 1, C_TUI = 1 << 2, C_TOOL = 1 << 3 };
#define C_POLICY (C_SR | C_AR | C_TUI | C_TOOL)
#define C_AGENT (C_AR | C_TUI)

enum arg_kind { ARG_NONE, ARG_REQ, ARG_OPT };	/* ARG_OPT: a value that may be left out */

struct flag;
typedef int (*flag_fn)(struct cli_opts *o, const struct flag *f, const char *v, char **err);

/*
 * A flag not marked repeatable may be given once: a second one is refused,
 * not taken over the first (a later --approve run silently undid an
 * earlier --approve call).  CLI.md marks the repeatable ones, whose values
 * add up.
 */
enum { ONCE = 0, REPEAT = 1 };

struct flag {
	const char *name;
	unsigned cmds;
	enum arg_kind arg;
	flag_fn fn;
	int param;
	int repeat;		/* ONCE or REPEAT */
	const char *twice;	/* ONCE: what to do instead of a second one (NULL: give it once) */
};

static int add_path(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (!*v) {
		*err = xasprintf("%s needs a path, not an empty word — name a file or directory, e.g. %s .", f->name,
				 f->name);
		return -1;
	}
	o->paths = xrealloc(o->paths, (o->npaths + 1) * sizeof(*o->paths));
	o->paths[o->npaths].path = xstrdup(v);
	o->paths[o->npaths].access = (unsigned)f->param;
	o->npaths++;
	return 0;
}

static int valid_env_name(const char *v)
{
	if (!*v || (*v >= '0' && *v <= '9'))
		return 0;
	for (const char *p = v; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static int add_env(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (strchr(v, '=')) {
		*err = xasprintf("--allow-env takes a variable name, not '%s' — set the value in the environment and pass the name", v);
		return -1;
	}
	if (!valid_env_name(v)) {
		*err = xasprintf("--allow-env: '%s' is not a variable name — use letters, digits and _", v);
		return -1;
	}
	if (!strv_has(&o->env, v))
		strv_push(&o->env, v);
	return 0;
}

static int set_network(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (!v) {
		o->net_any = 1;
		return 0;
	}
	if (!*v) {
		*err = xstrdup("--allow-network: '' names no port — give port numbers separated by commas, e.g. "
			       "--allow-network 443,8080, or bare --allow-network for any");
		return -1;
	}
	/* strsep, not strtok: an empty item ("80,,443", "443,") is a typo to
	 * point at, not something to pass over */
	char *dup = xstrdup(v), *rest = dup;
	for (char *t; (t = strsep(&rest, ",")) != NULL;) {
		uint64_t port;
		if (!*t) {
			*err = xasprintf("--allow-network: '%s' has an empty item between its commas — give port numbers "
					 "separated by single commas, e.g. --allow-network 443,8080", v);
			free(dup);
			return -1;
		}
		if (parse_u64(t, 1, 65535, &port) < 0) {
			*err = xasprintf("--allow-network: '%s' is not a port from 1 to 65535 — give port numbers separated by "
					 "commas, e.g. --allow-network 443,8080", t);
			free(dup);
			return -1;
		}
		int dup_port = 0;
		for (size_t i = 0; i < o->nports; i++)
			dup_port |= o->ports[i] == port;
		if (dup_port)
			continue;
		if (o->nports >= POLICY_MAX_PORTS) {
			*err = xasprintf("--allow-network: port '%s' is one more than the %d a policy can list — list "
					 "at most %d, or give bare --allow-network for any port", t, POLICY_MAX_PORTS,
					 POLICY_MAX_PORTS);
			free(dup);
			return -1;
		}
		o->ports[o->nports++] = (uint16_t)port;
	}
	free(dup);
	return 0;
}

static int add_dns(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	/* The policy's own rule, so a bad name is refused here (exit 64), not
	 * after the policy is built (125). */
	if (!netpol_name_ok(v)) {
		*err = xasprintf("--allow-dns: '%s' is not a host name — use letters, digits, '-' and '.', starting "
				 "with a letter or digit", v);
		return -1;
	}
	if (!strv_has(&o->dns, v))
		strv_push(&o->dns, v);
	return 0;
}

static int set_bool(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	int *field = (int *)((char *)o + f->param);
	*field = 1;
	return 0;
}

static int set_str(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	char **field = (char **)((char *)o + f->param);
	if (!*v) {
		*err = xasprintf("%s needs a value, not an empty word — give one, or leave %s out for its default", f->name,
				 f->name);
		return -1;
	}
	free(*field);
	*field = xstrdup(v);
	return 0;
}

static int set_count(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	uint64_t *field = (uint64_t *)((char *)o + f->param), n;
	if (parse_u64(v, 1, 1000000000ULL, &n) < 0) {
		*err = xasprintf("%s: '%s' is not a whole number from 1 to 1000000000 — give digits only, e.g. %s 100",
				 f->name, v, f->name);
		return -1;
	}
	*field = n;
	return 0;
}

static int set_size(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	uint64_t *field = (uint64_t *)((char *)o + f->param), n;
	if (parse_size(v, &n) < 0 || n == 0) {
		*err = xasprintf("%s: '%s' is not a size from 1 (a number with an optional K, M, G or T) — e.g. %s 64M",
				 f->name, v, f->name);
		return -1;
	}
	*field = n;
	return 0;
}

static int set_limit(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	int k = f->param;
	uint64_t n;
	int sized = (k == LIM_MEMORY || k == LIM_FSIZE);
	if (strcmp(v, "none") == 0) {
		n = 0;
	} else if (sized ? parse_size(v, &n) < 0 : parse_u64(v, 0, UINT32_MAX, &n) < 0) {
		*err = xasprintf("%s: '%s' is not %s, 0 or none — e.g. %s %s, or %s none to lift it", f->name, v,
				 sized ? "a size (a number with an optional K, M, G or T)"
				       : "a whole number up to 4294967295",
				 f->name, sized ? "512M" : "256", f->name);
		return -1;
	}
	o->limit_set[k] = 1;
	o->limits[k] = n;
	return 0;
}

static int set_timeout(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (parse_u64(v, 1, 31536000, &o->timeout) < 0) {
		*err = xasprintf("--timeout: '%s' is not a whole number of seconds from 1 to 31536000 (a year) — give "
				 "digits only, e.g. --timeout 60", v);
		return -1;
	}
	o->timeout_set = 1;
	return 0;
}

static int set_pin(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (strlen(v) != 64 || strspn(v, "0123456789abcdefABCDEF") != 64) {
		*err = xasprintf("--pin-sha256: '%s' is not 64 hexadecimal digits — use 'sandbx hash PATH'", v);
		return -1;
	}
	o->pin_hex = xstrdup(v);
	for (char *p = o->pin_hex; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

static int set_rounds(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (parse_u64(v, 1, 1000, &o->max_rounds) < 0) {
		*err = xasprintf("--max-rounds: '%s' is not a whole number from 1 to 1000 — e.g. --max-rounds 20", v);
		return -1;
	}
	return 0;
}

static int set_tool(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (!v) {
		o->allow_tool_all = 1;
		return 0;
	}
	for (int i = 0; cli_tool_names[i]; i++) {
		if (strcmp(v, cli_tool_names[i]) == 0) {
			if (!strv_has(&o->allow_tools, v))
				strv_push(&o->allow_tools, v);
			return 0;
		}
	}
	*err = xasprintf("--allow-tool: unknown tool '%s' — one of read, ls, find, grep, write, edit, bash", v);
	return -1;
}

static int set_approve(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (strcmp(v, "run") == 0)
		o->approve = APPROVE_RUN;
	else if (strcmp(v, "call") == 0)
		o->approve = APPROVE_CALL;
	else {
		*err = xasprintf("--approve: '%s' is neither run nor call — give --approve run or --approve call", v);
		return -1;
	}
	return 0;
}

static int set_session(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	o->session_set = 1;
	if (v) {
		/* the store's rule (session_id_valid), so a bad one is a usage
		 * error, not a failure once the key is read */
		size_t n = strlen(v);
		if (!n || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != n || *v == '-') {
			*err = xasprintf("--session: '%s' is not a session id — 'sandbx sessions' lists them", v);
			return -1;
		}
		if (n > SESSION_ID_MAX) {
			*err = xasprintf("--session: '%s' is %zu characters long; a session id is at most %d — "
					 "'sandbx sessions' lists them", v, n, SESSION_ID_MAX);
			return -1;
		}
		o->session_id = xstrdup(v);
	}
	return 0;
}

static int set_output(struct cli_opts *o, const struct flag *f, const char *v, char **err)
{
	if (strcmp(v, "text") == 0)
		o->output_jsonl = 0;
	else if (strcmp(v, "jsonl") == 0)
		o->output_jsonl = 1;
	else {
		*err = xasprintf("--output: '%s' is neither text nor jsonl — give --output text or --output jsonl", v);
		return -1;
	}
	return 0;
}

#define OFF(field) ((int)__builtin_offsetof(struct cli_opts, field))

static const struct flag flags[] = {
	{ "--allow-read", C_POLICY, ARG_REQ, add_path, POL_READ, REPEAT },
	{ "--allow-write", C_POLICY, ARG_REQ, add_path, POL_WRITE, REPEAT },
	{ "--allow-exec", C_POLICY, ARG_REQ, add_path, POL_READ | POL_EXEC, REPEAT },
	{ "--allow-network", C_POLICY, ARG_OPT, set_network, 0, REPEAT },	/* port lists add up */
	{ "--allow-dns", C_POLICY, ARG_REQ, add_dns, 0, REPEAT },
	{ "--dns-over-tcp", C_POLICY, ARG_NONE, set_bool, OFF(dns_over_tcp) },
	{ "--allow-unix-sockets", C_POLICY, ARG_NONE, set_bool, OFF(allow_unix) },
	{ "--allow-env", C_POLICY, ARG_REQ, add_env, 0, REPEAT },
	{ "--limit-procs", C_POLICY, ARG_REQ, set_limit, LIM_PROCS },
	{ "--limit-memory", C_POLICY, ARG_REQ, set_limit, LIM_MEMORY },
	{ "--limit-cpu", C_POLICY, ARG_REQ, set_limit, LIM_CPU },
	{ "--limit-file-size", C_POLICY, ARG_REQ, set_limit, LIM_FSIZE },
	{ "--limit-open-files", C_POLICY, ARG_REQ, set_limit, LIM_NOFILE },
	{ "--timeout", C_SR, ARG_REQ, set_timeout, 0 },
	{ "--pin-sha256", C_SR, ARG_REQ, set_pin, 0, ONCE, "pin one program" },
	{ "--model", C_AGENT, ARG_REQ, set_str, OFF(model) },
	{ "--base-url", C_AGENT, ARG_REQ, set_str, OFF(base_url) },
	{ "--system", C_AGENT, ARG_REQ, set_str, OFF(system) },
	{ "--max-tokens", C_AGENT, ARG_REQ, set_count, OFF(max_tokens) },
	{ "--max-rounds", C_AGENT, ARG_REQ, set_rounds, 0 },
	{ "--no-wrap-up", C_AR, ARG_NONE, set_bool, OFF(no_wrap_up) },
	{ "--allow-tool", C_AGENT, ARG_OPT, set_tool, 0, REPEAT },
	{ "--approve", C_AGENT, ARG_REQ, set_approve, 0, ONCE, "give it once: --approve run or --approve call" },
	/* which conversation the model is shown is not left to the order of
	 * words: a bare --session after an ID used to resume that ID */
	{ "--session", C_AGENT, ARG_OPT, set_session, 0, ONCE,
	  "give it once: bare for a new session, or with the ID to resume" },
	{ "--continue", C_AGENT, ARG_NONE, set_bool, OFF(cont) },
	{ "--max-scan-files", C_AGENT | C_TOOL, ARG_REQ, set_count, OFF(max_scan_files) },
	{ "--max-scan-bytes", C_AGENT | C_TOOL, ARG_REQ, set_size, OFF(max_scan_bytes) },
	{ "--max-results", C_AGENT | C_TOOL, ARG_REQ, set_count, OFF(max_results) },
	{ "--output", C_AR, ARG_REQ, set_output, 0 },
};

static const struct cmd {
	const char *name;
	enum cli_cmd cmd;
	unsigned bit;
} cmds[] = {
	{ "sandbox-run", CMD_SANDBOX_RUN, C_SR },
	{ "agent-run", CMD_AGENT_RUN, C_AR },
	{ "tui", CMD_TUI, C_TUI },
	{ "tool", CMD_TOOL, C_TOOL },
	{ "auth", CMD_AUTH, 0 },
	{ "hash", CMD_HASH, 0 },
	{ "sessions", CMD_SESSIONS, 0 },
};

/* The subcommand named name, or NULL. */
static const struct cmd *find_cmd(const char *name)
{
	for (size_t k = 0; k < SBX_ARRAY_LEN(cmds); k++)
		if (strcmp(name, cmds[k].name) == 0)
			return &cmds[k];
	return NULL;
}

static int is_tool_name(const char *s)
{
	for (int i = 0; cli_tool_names[i]; i++)
		if (strcmp(s, cli_tool_names[i]) == 0)
			return 1;
	return 0;
}

/* 1 when the word is one of the options (with or without "=VALUE"), or
 * --help: not a value for the option before it. */
static int names_option(const char *w)
{
	if (strcmp(w, "--help") == 0 || strcmp(w, "-h") == 0)
		return 1;
	if (w[0] != '-')
		return 0;
	const char *eq = strchr(w, '=');
	size_t n = eq ? (size_t)(eq - w) : strlen(w);
	for (size_t k = 0; k < SBX_ARRAY_LEN(flags); k++)
		if (strlen(flags[k].name) == n && strncmp(flags[k].name, w, n) == 0)
			return 1;
	return 0;
}

static int parse_flags(struct cli_opts *o, unsigned bit, int argc, char **argv, int i, char **err)
{
	unsigned char seen[SBX_ARRAY_LEN(flags)] = { 0 };
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			o->rest = argv + i + 1;
			o->nrest = argc - i - 1;
			return 1;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			o->help = 1;
			continue;
		}
		if (strcmp(a, "-") == 0 && bit == C_AR) {
			o->prompt_stdin = 1;
			continue;
		}
		const char *eq = strchr(a, '=');
		size_t nlen = eq && a[0] == '-' ? (size_t)(eq - a) : strlen(a);
		const struct flag *f = NULL;
		for (size_t k = 0; k < SBX_ARRAY_LEN(flags); k++)
			if (strlen(flags[k].name) == nlen && strncmp(flags[k].name, a, nlen) == 0)
				f = &flags[k];
		const char *sub = bit == C_SR ? "sandbox-run" : bit == C_AR ? "agent-run" : bit == C_TUI ? "tui" : "tool";
		if (!f) {
			if (a[0] == '-')
				*err = xasprintf("unknown option '%s' — see 'sandbx %s --help'", a, sub);
			else if (bit == C_SR)
				*err = xasprintf("'%s' before '--' — put '--' between the options and the program", a);
			else if (bit == C_AR)
				*err = xasprintf("'%s' before '--' — put the prompt after '--', or '-' to read it from stdin", a);
			else if (bit == C_TUI)
				*err = xasprintf("unexpected word '%s' — tui takes options only; type the prompt in the screen", a);
			else
				*err = xasprintf("unexpected word '%s' after the tool's JSON — give the JSON as one quoted "
						 "word; only options may follow it", a);
			return -1;
		}
		if (!(f->cmds & bit)) {
			*err = xasprintf("option '%.*s' does not apply to %s — see 'sandbx %s --help'", (int)nlen, a, sub, sub);
			return -1;
		}
		if (f->repeat == ONCE && seen[f - flags]++) {
			*err = xasprintf("%s is given twice — %s", f->name, f->twice ? f->twice : "give it once");
			return -1;
		}
		const char *v = NULL;
		switch (f->arg) {
		case ARG_NONE:
			if (eq) {
				*err = xasprintf("option '%.*s' takes no value — write it alone, without '='", (int)nlen, a);
				return -1;
			}
			break;
		case ARG_REQ:
			if (eq) {
				v = eq + 1;
			} else if (i + 1 < argc && names_option(argv[i + 1])) {
				/* "--model --approve=call" is a value left out, not a
				 * model of that name (which would drop the approval) */
				*err = xasprintf("option '%s' needs a value, and '%s' is an option — to give it as the "
						 "value, write %s=%s", a, argv[i + 1], a, argv[i + 1]);
				return -1;
			} else if (i + 1 < argc && strcmp(argv[i + 1], "--") != 0) {
				v = argv[++i];
			} else {
				*err = xasprintf("option '%s' needs a value — give it as the next word or after '=' (%s=VALUE)", a, a);
				return -1;
			}
			break;
		case ARG_OPT:
			/* No subcommand takes a bare word before '--', so a word
			 * here can only be meant as the value: a wrong one is
			 * reported by this flag, not as a word out of place. */
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc && argv[i + 1][0] != '-')
				v = argv[++i];
			break;
		}
		if (f->fn(o, f, v, err) < 0)
			return -1;
	}
	return 0;
}

static int check_policy(struct cli_opts *o, unsigned bit, char **err)
{
	if ((bit & C_AGENT) && strv_has(&o->env, "ANTHROPIC_API_KEY")) {
		*err = xstrdup("--allow-env ANTHROPIC_API_KEY is refused here: the harness makes the model call itself "
			       "— use 'sandbx sandbox-run' to pass the key to a command on purpose");
		return -1;
	}
	if (o->net_any && o->nports) {
		*err = xstrdup("--allow-network is given both bare and with ports — choose one");
		return -1;
	}
	if (o->dns_over_tcp) {
		int has53 = 0;
		for (size_t i = 0; i < o->nports; i++)
			has53 |= o->ports[i] == 53;
		if (!has53) {
			*err = xstrdup(o->net_any ? "--dns-over-tcp needs port 53 in the port list of --allow-network, and "
						    "bare --allow-network lists none — give --allow-network 53,PORT... "
						    "instead of bare --allow-network, or leave out --dns-over-tcp"
						  : "--dns-over-tcp needs port 53 allowed — add --allow-network 53");
			return -1;
		}
	}
	return 0;
}

int cli_parse(struct cli_opts *o, int argc, char **argv, char **err)
{
	memset(o, 0, sizeof(*o));
	if (argc < 2) {
		*err = xstrdup("no subcommand — try 'sandbx --help'");
		return -1;
	}
	const char *c = argv[1];
	if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0 || strcmp(c, "help") == 0) {
		/* help SUBCOMMAND is SUBCOMMAND --help; a word that names none
		 * is refused rather than dropped, so a typo is not answered
		 * with the overview as if it had been understood. */
		o->cmd = CMD_HELP;
		if (argc == 2)
			return 0;
		const struct cmd *named = find_cmd(argv[2]);
		if (!named) {
			*err = xasprintf("%s: unknown subcommand '%s' — one of sandbox-run, agent-run, tui, tool, auth, "
					 "hash, sessions", c, argv[2]);
			return -1;
		}
		if (argc > 3) {
			*err = xasprintf("%s takes one subcommand, not '%s' too — run 'sandbx help %s'", c, argv[3], argv[2]);
			return -1;
		}
		o->cmd = named->cmd;
		o->help = 1;
		return 0;
	}
	if (strcmp(c, "--version") == 0) {
		o->cmd = CMD_VERSION;
		if (argc > 2) {
			*err = xasprintf("--version takes no argument, not '%s' — run 'sandbx --version' alone", argv[2]);
			return -1;
		}
		return 0;
	}
	const struct cmd *sub = find_cmd(c);
	if (!sub) {
		*err = xasprintf(c[0] == '-' ? "unknown option '%s' — a subcommand comes first; try 'sandbx --help'"
					     : "unknown subcommand '%s' — try 'sandbx --help'", c);
		return -1;
	}
	o->cmd = sub->cmd;
	unsigned bit = sub->bit;
	if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
		o->help = 1;
		return 0;
	}
	/* The subcommands of fixed words take --help among them too, as the
	 * others take it among their options (tool: before its options, which
	 * parse_flags reads). */
	if (o->cmd == CMD_AUTH || o->cmd == CMD_HASH || o->cmd == CMD_SESSIONS || o->cmd == CMD_TOOL)
		for (int i = 2; i < argc && (o->cmd != CMD_TOOL || i < 4); i++)
			if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
				o->help = 1;
				return 0;
			}
	int r;
	switch (o->cmd) {
	case CMD_AUTH:
		if (argc != 3 || (strcmp(argv[2], "login") && strcmp(argv[2], "logout") && strcmp(argv[2], "status"))) {
			*err = xstrdup("auth needs one of login, logout or status — e.g. sandbx auth status");
			return -1;
		}
		o->auth_action = xstrdup(argv[2]);
		return 0;
	case CMD_HASH: {
		/* `--` ends the options here too, for a file named like one */
		int first = argc > 2 && strcmp(argv[2], "--") == 0 ? 3 : 2;
		if (argc != first + 1 || !*argv[first]) {
			*err = xstrdup("hash needs one PATH — give exactly one file, e.g. sandbx hash /usr/bin/python3");
			return -1;
		}
		o->hash_path = xstrdup(argv[first]);
		return 0;
	}
	case CMD_SESSIONS:
		if (argc != 2) {
			*err = xasprintf("sessions takes no argument, not '%s' — run 'sandbx sessions' alone", argv[2]);
			return -1;
		}
		return 0;
	case CMD_TOOL:
		if (argc < 4) {
			*err = xstrdup("tool needs NAME and JSON — e.g. sandbx tool read '{\"path\":\"README.md\"}'");
			return -1;
		}
		/* the word that took NAME's or JSON's place is named: an option
		 * put first, as other commands take them, was told apart from
		 * nothing given only by the reader */
		if (argv[2][0] == '-' || argv[3][0] == '-') {
			*err = xasprintf("tool takes NAME and JSON first, not '%s' — give options after the JSON, "
					 "e.g. sandbx tool read '{\"path\":\"README.md\"}' --allow-read .",
					 argv[2][0] == '-' ? argv[2] : argv[3]);
			return -1;
		}
		if (!is_tool_name(argv[2])) {
			*err = xasprintf("unknown tool '%s' — one of read, ls, find, grep, write, edit, bash", argv[2]);
			return -1;
		}
		o->tool_name = xstrdup(argv[2]);
		o->tool_json = xstrdup(argv[3]);
		r = parse_flags(o, bit, argc, argv, 4, err);
		if (r < 0)
			return -1;
		if (r == 1) {
			*err = xstrdup("tool takes no '--' — give its options after the JSON, without '--'");
			return -1;
		}
		return check_policy(o, C_AGENT, err);
	default:
		break;
	}
	r = parse_flags(o, bit, argc, argv, 2, err);
	if (r < 0)
		return -1;
	if (o->help)
		return 0;
	if (check_policy(o, bit, err) < 0)
		return -1;
	if (o->cmd == CMD_SANDBOX_RUN) {
		if (r == 0) {
			*err = xstrdup("missing '--' before the program — sandbx sandbox-run [POLICY] -- PROGRAM [ARG...]");
			return -1;
		}
		if (o->nrest == 0 || !*o->rest[0]) {
			*err = xstrdup(o->nrest == 0 ? "no program after '--' — name the program to run after it: "
						       "sandbx sandbox-run [POLICY] -- PROGRAM [ARG...]"
						     : "the program after '--' is an empty word — name the program to run");
			return -1;
		}
		if (o->pin_hex && o->rest[0][0] != '/') {
			*err = xasprintf("--pin-sha256 needs the program as an absolute path, not '%s' — write its full path "
					 "('command -v %s' prints it)", o->rest[0], o->rest[0]);
			return -1;
		}
	} else if (o->cmd == CMD_AGENT_RUN) {
		if (o->prompt_stdin && r == 1) {
			*err = xstrdup("the prompt is given both after '--' and on stdin with '-' — choose one");
			return -1;
		}
		if (!o->prompt_stdin && r == 0) {
			*err = xstrdup("missing prompt — sandbx agent-run [OPTIONS] -- PROMPT..., or '-' to read it from stdin");
			return -1;
		}
		if (r == 1) {
			size_t len = 0;
			for (int i = 0; i < o->nrest; i++)
				len += strlen(o->rest[i]);
			if (len == 0) {
				*err = xstrdup("the prompt is empty — write something after '--'");
				return -1;
			}
		}
		if (o->session_set && o->cont) {
			*err = xstrdup("--session and --continue both given — choose one");
			return -1;
		}
	} else if (o->cmd == CMD_TUI) {
		if (r == 1) {
			*err = xstrdup("tui takes no '--' or prompt — type the prompt in the screen");
			return -1;
		}
		if (o->session_set && o->cont) {
			*err = xstrdup("--session and --continue both given — choose one");
			return -1;
		}
	}
	return 0;
}

void cli_opts_release(struct cli_opts *o)
{
	for (size_t i = 0; i < o->npaths; i++)
		free(o->paths[i].path);
	free(o->paths);
	strv_free(&o->env);
	strv_free(&o->dns);
	strv_free(&o->allow_tools);
	free(o->pin_hex);
	free(o->model);
	free(o->base_url);
	free(o->system);
	free(o->session_id);
	free(o->tool_name);
	free(o->tool_json);
	free(o->auth_action);
	free(o->hash_path);
	memset(o, 0, sizeof(*o));
}

#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

static const char usage_main[] =
	"usage: sandbx SUBCOMMAND [OPTIONS]\n"
	"\n"
	"  sandbox-run [POLICY] [--timeout SECS] [--pin-sha256 HEX] -- PROGRAM [ARG...]\n"
	"                         run one command confined to the policy\n"
	"  agent-run [POLICY] [AGENT] [--output text|jsonl] [--no-wrap-up] -- PROMPT... | -\n"
	"                         one prompt to the model, headless ('-': read it from stdin)\n"
	"  tui [POLICY] [AGENT]   the interactive harness\n"
	"  tool NAME JSON [POLICY]  run one agent tool; result JSON on stdout\n"
	"  auth login|logout|status\n"
	"  hash [--] PATH         SHA-256 of a file, for --pin-sha256\n"
	"  sessions               list stored sessions\n"
	"  --help | -h | help     this text\n"
	"  help SUBCOMMAND        its options (as SUBCOMMAND --help or -h)\n"
	"  --version              the version\n"
	"\n"
	"POLICY: --allow-read PATH  --allow-write PATH  --allow-exec PATH\n"
	"        --allow-network [PORT,...] (at most " CLI_STR(POLICY_MAX_PORTS) " ports)  --allow-dns NAME\n"
	"        --dns-over-tcp  --allow-unix-sockets  --allow-env NAME\n"
	"        --limit-procs N  --limit-memory SIZE  --limit-cpu SECS\n"
	"        --limit-file-size SIZE  --limit-open-files N   (0 or none lifts one)\n"
	"Always granted: read+exec on /usr /bin /lib /lib64, read on /etc/alternatives;\n"
	"PATH HOME TERM LANG LC_ALL LC_CTYPE TZ.  No path flag: read+write on the\n"
	"working directory.\n"
	"A flag's value may also follow '=': --allow-network=443, --session=ID;\n"
	"a value that is itself an option's name only so: --model=--approve.\n"
	"--allow-read/-write/-exec/-network/-dns/-env and --allow-tool may be\n"
	"repeated; every other flag may be given once.\n"
	"\n"
	"Exit: 0 ok, 1 error, 2 incomplete, 3 no consent, 64 usage, 124 timeout,\n"
	"125 refused to confine, 126/127 not executable/not found, 128+n signal n.\n";

static const char usage_sr[] =
	"usage: sandbx sandbox-run [POLICY] [--timeout SECS] [--pin-sha256 HEX] -- PROGRAM [ARG...]\n"
	"\n"
	"Runs PROGRAM in new user, mount, pid, ipc, uts, cgroup and (unless\n"
	"network is granted) network namespaces, in a mount view holding only the\n"
	"granted paths, under Landlock and a seccomp filter.  See 'sandbx --help'\n"
	"for POLICY.\n"
	"  --timeout SECS      kill the whole command tree after SECS (exit 124)\n"
	"  --pin-sha256 HEX    run PROGRAM (absolute path) only if its SHA-256 is HEX\n";

static const char usage_agent[] =
	"usage: sandbx agent-run [POLICY] [AGENT] [--output text|jsonl] [--no-wrap-up] -- PROMPT... | -\n"
	"       sandbx tui [POLICY] [AGENT]\n"
	"\n"
	"agent-run: the prompt is the words after '--', or with '-' all of stdin.\n"
	"\n"	"AGENT: --model NAME  --base-url URL  --max-tokens N  --max-rounds N\n"
	"       --allow-tool [NAME]  --approve run|call (agent-run: run, tui: call)\n"
	"       --session [ID]  --continue  --system TEXT\n"
	"       --max-scan-files N  --max-scan-bytes SIZE  --max-results N\n";

static const char usage_tool[] =
	"usage: sandbx tool NAME JSON [POLICY] [--max-scan-files N] [--max-scan-bytes SIZE] [--max-results N]\n"
	"NAME: read, ls, find, grep, write, edit, bash.  Prints {\"is_error\":...,\"content\":...}.\n";

const char *cli_usage(enum cli_cmd cmd)
{
	switch (cmd) {
	case CMD_SANDBOX_RUN: return usage_sr;
	case CMD_AGENT_RUN:
	case CMD_TUI: return usage_agent;
	case CMD_TOOL: return usage_tool;
	case CMD_AUTH: return "usage: sandbx auth login|logout|status\n";
	case CMD_HASH: return "usage: sandbx hash [--] PATH\n";
	case CMD_SESSIONS: return "usage: sandbx sessions\n";
	default: return usage_main;
	}
}
